//! Lint findings: codes, severities, categories, and the JSON Lines records `wiki-lint` prints.
//!
//! ```json
//! {"type":"diagnostic","code":"open-question","severity":"warning","category":"open-questions","path":"entities/alpha.md","line":7,"message":"Page lists 2 open questions."}
//! {"type":"summary","mode":"vault","pages":14,"pageErrors":0,"errors":5,"warnings":27,"deny":"error","status":"failed"}
//! ```
//!
//! * `diagnostic`: one finding. `path` is vault-relative; `line` is the 1-based file line the
//!   finding is about (the frontmatter key, the claim entry, the link) or `null` when it concerns
//!   the whole page (a missing key).
//! * `summary`: always the last record. `status` is `failed` when a finding reaches the deny
//!   level (the exit code is then 1), else `passed`.

use serde::Serialize;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something is wrong with the page structure.
    Error,
    /// Something needs a human's attention.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// The category of a finding (the sections of `reports/lint.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Ids, page types, frontmatter.
    Structure,
    /// Source ids, import provenance, claim evidence.
    Provenance,
    /// Links between pages.
    Links,
    /// Contradiction notes and competing claims.
    Contradictions,
    /// Open questions.
    OpenQuestions,
    /// Confidence and freshness.
    Quality,
}

impl Category {
    /// All categories in report order.
    pub const ALL: [Category; 6] = [
        Category::Structure,
        Category::Provenance,
        Category::Links,
        Category::Contradictions,
        Category::OpenQuestions,
        Category::Quality,
    ];

    /// The category name as printed (`open-questions` …).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Structure => "structure",
            Category::Provenance => "provenance",
            Category::Links => "links",
            Category::Contradictions => "contradictions",
            Category::OpenQuestions => "open-questions",
            Category::Quality => "quality",
        }
    }
}

/// Every check `wiki-lint` runs. The first sixteen are the original plugin's (reference §6.2);
/// `invalid-frontmatter` is the newest upstream's code for pages that fail to parse;
/// `duplicate-claim-id` is ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// No `id` in the frontmatter.
    MissingId,
    /// No `pageType` in the frontmatter.
    MissingPageType,
    /// `pageType` differs from the directory kind.
    PageTypeMismatch,
    /// No title (unreachable in practice: the title falls back to the file name).
    MissingTitle,
    /// A non-source page without `sourceIds`.
    MissingSourceIds,
    /// A bridge or unsafe-local import without its provenance fields.
    MissingImportProvenance,
    /// The page lists contradictions.
    ContradictionPresent,
    /// The page lists open questions.
    OpenQuestion,
    /// Page confidence below 0.5.
    LowConfidence,
    /// Page freshness stale or unknown.
    StalePage,
    /// A claim without evidence.
    ClaimMissingEvidence,
    /// Claim confidence below 0.5.
    ClaimLowConfidence,
    /// Claim freshness stale or unknown.
    StaleClaim,
    /// Claims sharing an id with competing text or status.
    ClaimConflict,
    /// Two pages with the same `id`.
    DuplicateId,
    /// A link that names no page.
    BrokenWikilink,
    /// The page cannot be parsed (invalid YAML, unclosed fence, not a mapping, not text).
    InvalidFrontmatter,
    /// One page uses the same claim id twice.
    DuplicateClaimId,
}

impl Code {
    /// Every code, in the order checks run.
    pub const ALL: [Code; 18] = [
        Code::InvalidFrontmatter,
        Code::MissingId,
        Code::MissingPageType,
        Code::PageTypeMismatch,
        Code::MissingTitle,
        Code::MissingSourceIds,
        Code::MissingImportProvenance,
        Code::ContradictionPresent,
        Code::OpenQuestion,
        Code::LowConfidence,
        Code::StalePage,
        Code::ClaimMissingEvidence,
        Code::ClaimLowConfidence,
        Code::StaleClaim,
        Code::DuplicateClaimId,
        Code::ClaimConflict,
        Code::DuplicateId,
        Code::BrokenWikilink,
    ];

    /// The code as printed (`missing-id` …).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::MissingId => "missing-id",
            Code::MissingPageType => "missing-page-type",
            Code::PageTypeMismatch => "page-type-mismatch",
            Code::MissingTitle => "missing-title",
            Code::MissingSourceIds => "missing-source-ids",
            Code::MissingImportProvenance => "missing-import-provenance",
            Code::ContradictionPresent => "contradiction-present",
            Code::OpenQuestion => "open-question",
            Code::LowConfidence => "low-confidence",
            Code::StalePage => "stale-page",
            Code::ClaimMissingEvidence => "claim-missing-evidence",
            Code::ClaimLowConfidence => "claim-low-confidence",
            Code::StaleClaim => "stale-claim",
            Code::ClaimConflict => "claim-conflict",
            Code::DuplicateId => "duplicate-id",
            Code::BrokenWikilink => "broken-wikilink",
            Code::InvalidFrontmatter => "invalid-frontmatter",
            Code::DuplicateClaimId => "duplicate-claim-id",
        }
    }

    /// The severity of findings with this code.
    pub fn severity(self) -> Severity {
        match self {
            Code::MissingId
            | Code::MissingPageType
            | Code::PageTypeMismatch
            | Code::MissingTitle
            | Code::DuplicateId
            | Code::InvalidFrontmatter
            | Code::DuplicateClaimId => Severity::Error,
            _ => Severity::Warning,
        }
    }

    /// The category of findings with this code.
    pub fn category(self) -> Category {
        match self {
            Code::MissingId
            | Code::MissingPageType
            | Code::PageTypeMismatch
            | Code::MissingTitle
            | Code::DuplicateId
            | Code::InvalidFrontmatter
            | Code::DuplicateClaimId => Category::Structure,
            Code::MissingSourceIds | Code::MissingImportProvenance | Code::ClaimMissingEvidence => {
                Category::Provenance
            }
            Code::BrokenWikilink => Category::Links,
            Code::ContradictionPresent | Code::ClaimConflict => Category::Contradictions,
            Code::OpenQuestion => Category::OpenQuestions,
            Code::LowConfidence | Code::StalePage | Code::ClaimLowConfidence | Code::StaleClaim => {
                Category::Quality
            }
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// What was checked.
    pub code: Code,
    /// Error or warning (given by the code).
    pub severity: Severity,
    /// Report category (given by the code).
    pub category: Category,
    /// Vault-relative page path.
    pub path: String,
    /// 1-based file line the finding is about, when there is one.
    pub line: Option<usize>,
    /// The message, identical to the original plugin's for its sixteen checks.
    pub message: String,
}

impl Diagnostic {
    /// A finding with the severity and category of its code.
    pub fn new(code: Code, path: &str, line: Option<usize>, message: String) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            category: code.category(),
            path: path.to_string(),
            line,
            message,
        }
    }
}

/// The JSON Lines record of a finding (`{"type":"diagnostic",...}`).
#[derive(Serialize)]
pub struct DiagnosticRecord<'a> {
    /// Always `diagnostic`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The finding.
    #[serde(flatten)]
    pub diagnostic: &'a Diagnostic,
}

impl<'a> From<&'a Diagnostic> for DiagnosticRecord<'a> {
    fn from(diagnostic: &'a Diagnostic) -> Self {
        DiagnosticRecord {
            kind: "diagnostic",
            diagnostic,
        }
    }
}

/// Which findings make `wiki-lint` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Deny {
    /// Fail on errors only (default).
    #[default]
    Error,
    /// Fail on errors and warnings.
    Warning,
}

/// Counts over a set of findings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Findings with severity error.
    pub errors: usize,
    /// Findings with severity warning.
    pub warnings: usize,
}

impl Counts {
    /// Count findings by severity.
    pub fn of(diagnostics: &[Diagnostic]) -> Counts {
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        Counts {
            errors,
            warnings: diagnostics.len() - errors,
        }
    }

    /// Whether any finding reaches `deny`.
    pub fn fails(self, deny: Deny) -> bool {
        match deny {
            Deny::Error => self.errors > 0,
            Deny::Warning => self.errors + self.warnings > 0,
        }
    }
}

/// The final record (`{"type":"summary",...}`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Always `summary`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `vault`, `stdin` or `staged`.
    pub mode: &'static str,
    /// Pages linted (parsed pages plus pages that failed to parse; in staged mode, the staged
    /// pages).
    pub pages: usize,
    /// Pages that failed to parse (each also reported as `invalid-frontmatter`).
    pub page_errors: usize,
    /// Findings with severity error.
    pub errors: usize,
    /// Findings with severity warning.
    pub warnings: usize,
    /// The deny level.
    pub deny: Deny,
    /// `failed` when a finding reaches the deny level, else `passed`.
    pub status: &'static str,
}
