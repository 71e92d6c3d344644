//! The normalised page summary (reference §2.3): what every other tool reads from frontmatter.
//!
//! Normalisation rules:
//! * optional strings: a YAML string whose trimmed form is non-empty → trimmed; anything else →
//!   absent (a number is **not** a string);
//! * single-or-list strings (`aliases`, `sourceIds`, `questions`, …): a list → its non-empty
//!   trimmed string items, order kept, no de-duplication; a scalar string → `[trimmed]`;
//!   anything else → `[]`;
//! * numbers (`confidence`, `weight`): finite YAML numbers only (`"0.8"` as a string is dropped);
//! * `claims`: entries that are not mappings or lack a non-empty `text` are dropped; `evidence`
//!   is always present (possibly empty), evidence entries with none of their fields are dropped;
//! * `personCard`: absent unless at least one field is non-empty (`emails` falls back to `email`);
//! * `relationships`: entries with no field are dropped.

use serde::{Deserialize, Serialize};
use yaml_serde::{Mapping, Value};

use crate::yaml::KeyLines;

/// Claim statuses that count as contested (lower rank, flagged in claim health).
pub const CONTESTED_STATUSES: [&str; 4] = ["contested", "contradicted", "refuted", "superseded"];

/// One piece of evidence behind a claim.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// Evidence class (e.g. `doc`, `maintainer-whois`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Id of the source page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// Path of the evidence file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Line range, e.g. `12-18`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<String>,
    /// Weight (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Confidence (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Privacy tier of this evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_tier: Option<String>,
    /// Free-form note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When the evidence was last updated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

/// A structured claim.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    /// Author-chosen id (convention `claim.<topic>.<detail>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The claim text (always non-empty).
    pub text: String,
    /// Status as written (see [`Claim::normalized_status`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Confidence (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Evidence entries (possibly empty).
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// When the claim was last updated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Start of validity (set by `supersede_claim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<String>,
    /// End of validity (set on superseded claims).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<String>,
    /// Id of the claim this one replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// Id of the claim that replaced this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// 1-based file line of the claim entry (best effort; absent when unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl Claim {
    /// Lowercased trimmed status, `supported` when empty or missing.
    pub fn normalized_status(&self) -> String {
        match self.status.as_deref().map(str::trim) {
            Some(s) if !s.is_empty() => s.to_lowercase(),
            _ => "supported".into(),
        }
    }

    /// Whether the status is one of [`CONTESTED_STATUSES`].
    pub fn is_contested(&self) -> bool {
        match self.status.as_deref().map(str::trim) {
            // No status reads as "supported" (see `normalized_status`), without allocating it.
            None | Some("") => CONTESTED_STATUSES.contains(&"supported"),
            // ASCII statuses compare without building the lower-cased copy.
            Some(s) if s.is_ascii() => CONTESTED_STATUSES.iter().any(|c| c.eq_ignore_ascii_case(s)),
            _ => CONTESTED_STATUSES.contains(&self.normalized_status().as_str()),
        }
    }

    /// The claim's id, else its text (how lint and dashboards name a claim).
    pub fn label(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.text)
    }
}

/// Routing metadata of a person-like page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersonCard {
    /// Canonical id of the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_id: Option<String>,
    /// Handles (`@name`).
    #[serde(default)]
    pub handles: Vec<String>,
    /// Social profile links.
    #[serde(default)]
    pub socials: Vec<String>,
    /// E-mail addresses (`emails`, falling back to `email`).
    #[serde(default)]
    pub emails: Vec<String>,
    /// Time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Lane / area of responsibility.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane: Option<String>,
    /// Topics to ask this person about.
    #[serde(default)]
    pub ask_for: Vec<String>,
    /// Topics not to ask this person about.
    #[serde(default)]
    pub avoid_asking_for: Vec<String>,
    /// What this person is best used for.
    #[serde(default)]
    pub best_used_for: Vec<String>,
    /// What this person is not enough for.
    #[serde(default)]
    pub not_enough_for: Vec<String>,
    /// Confidence in the card (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Privacy tier of the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_tier: Option<String>,
    /// When the card was last refreshed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_refreshed_at: Option<String>,
}

/// A structured relationship to another page or entity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Relationship {
    /// Target page id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// Target page path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_path: Option<String>,
    /// Target title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_title: Option<String>,
    /// Relationship kind (e.g. `works-with`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Weight (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Confidence (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Kind of evidence for the relationship.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_kind: Option<String>,
    /// Privacy tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_tier: Option<String>,
    /// Free-form note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When the relationship was last updated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

/// The normalised frontmatter summary of a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageSummary {
    /// Page id (`entity.alpha`, `source.meeting-notes` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Declared page type (should equal the directory kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_type: Option<String>,
    /// Entity type (`person`, `maintainer`, `service` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<String>,
    /// Canonical id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_id: Option<String>,
    /// Page status as written (`active`, `draft`, `review` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Privacy tier (`public`, `internal`, `private` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_tier: Option<String>,
    /// Source type (`local-file`, `memory-bridge`, `okf` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<String>,
    /// Provenance mode (`unsafe-local`, `okf-import` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance_mode: Option<String>,
    /// Path of the imported source file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// Bridge: path relative to the memory workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge_relative_path: Option<String>,
    /// Bridge: workspace directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge_workspace_dir: Option<String>,
    /// Unsafe-local: configured path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsafe_local_configured_path: Option<String>,
    /// Unsafe-local: path relative to the configured path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsafe_local_relative_path: Option<String>,
    /// When routing metadata was last refreshed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_refreshed_at: Option<String>,
    /// When the page was last updated (drives page freshness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Alternative names.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Ids of the source pages backing this page.
    #[serde(default)]
    pub source_ids: Vec<String>,
    /// Contradiction notes to resolve.
    #[serde(default)]
    pub contradictions: Vec<String>,
    /// Open questions.
    #[serde(default)]
    pub questions: Vec<String>,
    /// What the page is best used for.
    #[serde(default)]
    pub best_used_for: Vec<String>,
    /// What the page is not enough for.
    #[serde(default)]
    pub not_enough_for: Vec<String>,
    /// Page confidence (finite number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Structured claims.
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// Person card, when present (boxed: most pages have none, and a vault's worth of page
    /// records is built and moved on every operation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person_card: Option<Box<PersonCard>>,
    /// Structured relationships.
    #[serde(default)]
    pub relationships: Vec<Relationship>,
}

impl PageSummary {
    /// Person-like: has a person card, or `entityType`/`pageType` is `person` or `maintainer`.
    pub fn is_person_like(&self) -> bool {
        let personish = |v: &Option<String>| {
            v.as_deref()
                .map(|s| {
                    let l = s.to_lowercase();
                    l == "person" || l == "maintainer"
                })
                .unwrap_or(false)
        };
        self.person_card.is_some() || personish(&self.entity_type) || personish(&self.page_type)
    }
}

fn untag(v: &Value) -> &Value {
    match v {
        Value::Tagged(t) => untag(&t.value),
        other => other,
    }
}

/// An optional string (see the module docs).
pub fn opt_string(v: Option<&Value>) -> Option<String> {
    match v.map(untag) {
        Some(Value::String(s)) => {
            let t = s.trim();
            (!t.is_empty()).then(|| t.to_string())
        }
        _ => None,
    }
}

/// A single-or-list string field (see the module docs).
pub fn single_or_list(v: Option<&Value>) -> Vec<String> {
    match v.map(untag) {
        Some(Value::Sequence(items)) => items.iter().filter_map(|i| opt_string(Some(i))).collect(),
        Some(Value::String(_)) => opt_string(v).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// A finite number (YAML numbers only).
pub fn finite(v: Option<&Value>) -> Option<f64> {
    match v.map(untag) {
        Some(Value::Number(n)) => n.as_f64().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn get<'a>(m: &'a Mapping, key: &str) -> Option<&'a Value> {
    m.get(key)
}

fn as_mapping(v: &Value) -> Option<&Mapping> {
    match untag(v) {
        Value::Mapping(m) => Some(m),
        _ => None,
    }
}

fn normalize_evidence(v: &Value) -> Option<Evidence> {
    let m = as_mapping(v)?;
    let e = Evidence {
        kind: opt_string(get(m, "kind")),
        source_id: opt_string(get(m, "sourceId")),
        path: opt_string(get(m, "path")),
        lines: opt_string(get(m, "lines")),
        weight: finite(get(m, "weight")),
        confidence: finite(get(m, "confidence")),
        privacy_tier: opt_string(get(m, "privacyTier")),
        note: opt_string(get(m, "note")),
        updated_at: opt_string(get(m, "updatedAt")),
    };
    (e != Evidence::default()).then_some(e)
}

/// Normalise one claim entry; `None` when it is not a mapping or has no text.
pub fn normalize_claim(v: &Value) -> Option<Claim> {
    let m = as_mapping(v)?;
    let text = opt_string(get(m, "text"))?;
    let evidence = match get(m, "evidence").map(untag) {
        Some(Value::Sequence(items)) => items.iter().filter_map(normalize_evidence).collect(),
        _ => Vec::new(),
    };
    Some(Claim {
        id: opt_string(get(m, "id")),
        text,
        status: opt_string(get(m, "status")),
        confidence: finite(get(m, "confidence")),
        evidence,
        updated_at: opt_string(get(m, "updatedAt")),
        valid_from: opt_string(get(m, "validFrom")),
        valid_until: opt_string(get(m, "validUntil")),
        supersedes: opt_string(get(m, "supersedes")),
        superseded_by: opt_string(get(m, "supersededBy")),
        line: None,
    })
}

fn normalize_person_card(v: Option<&Value>) -> Option<PersonCard> {
    let m = as_mapping(v?)?;
    let mut emails = single_or_list(get(m, "emails"));
    if emails.is_empty() {
        emails = single_or_list(get(m, "email"));
    }
    let card = PersonCard {
        canonical_id: opt_string(get(m, "canonicalId")),
        handles: single_or_list(get(m, "handles")),
        socials: single_or_list(get(m, "socials")),
        emails,
        timezone: opt_string(get(m, "timezone")),
        lane: opt_string(get(m, "lane")),
        ask_for: single_or_list(get(m, "askFor")),
        avoid_asking_for: single_or_list(get(m, "avoidAskingFor")),
        best_used_for: single_or_list(get(m, "bestUsedFor")),
        not_enough_for: single_or_list(get(m, "notEnoughFor")),
        confidence: finite(get(m, "confidence")),
        privacy_tier: opt_string(get(m, "privacyTier")),
        last_refreshed_at: opt_string(get(m, "lastRefreshedAt")),
    };
    (card != PersonCard::default()).then_some(card)
}

fn normalize_relationship(v: &Value) -> Option<Relationship> {
    let m = as_mapping(v)?;
    let r = Relationship {
        target_id: opt_string(get(m, "targetId")),
        target_path: opt_string(get(m, "targetPath")),
        target_title: opt_string(get(m, "targetTitle")),
        kind: opt_string(get(m, "kind")),
        weight: finite(get(m, "weight")),
        confidence: finite(get(m, "confidence")),
        evidence_kind: opt_string(get(m, "evidenceKind")),
        privacy_tier: opt_string(get(m, "privacyTier")),
        note: opt_string(get(m, "note")),
        updated_at: opt_string(get(m, "updatedAt")),
    };
    (r != Relationship::default()).then_some(r)
}

/// Whether every entry of the `claims` list of `fm` became one of `summary.claims` (its
/// [`summarize`]d form): then the claims of the page, ids included, are exactly those of the
/// summary. A page without a `claims` list is complete when its summary has no claims.
pub fn claims_complete(fm: &Mapping, summary: &PageSummary) -> bool {
    match get(fm, "claims").map(untag) {
        Some(Value::Sequence(items)) => items.len() == summary.claims.len(),
        _ => summary.claims.is_empty(),
    }
}

/// Normalise a frontmatter mapping into a [`PageSummary`]. `key_lines` (from
/// [`crate::yaml::scan_key_lines`]) provides claim line numbers.
pub fn summarize(fm: &Mapping, key_lines: &KeyLines) -> PageSummary {
    let s = |k: &str| opt_string(get(fm, k));
    let l = |k: &str| single_or_list(get(fm, k));
    let claims = match get(fm, "claims").map(untag) {
        Some(Value::Sequence(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                normalize_claim(v).map(|mut c| {
                    c.line = key_lines.item("claims", i);
                    c
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    let relationships = match get(fm, "relationships").map(untag) {
        Some(Value::Sequence(items)) => items.iter().filter_map(normalize_relationship).collect(),
        _ => Vec::new(),
    };
    PageSummary {
        id: s("id"),
        page_type: s("pageType"),
        entity_type: s("entityType"),
        canonical_id: s("canonicalId"),
        status: s("status"),
        privacy_tier: s("privacyTier"),
        source_type: s("sourceType"),
        provenance_mode: s("provenanceMode"),
        source_path: s("sourcePath"),
        bridge_relative_path: s("bridgeRelativePath"),
        bridge_workspace_dir: s("bridgeWorkspaceDir"),
        unsafe_local_configured_path: s("unsafeLocalConfiguredPath"),
        unsafe_local_relative_path: s("unsafeLocalRelativePath"),
        last_refreshed_at: s("lastRefreshedAt"),
        updated_at: s("updatedAt"),
        aliases: l("aliases"),
        source_ids: l("sourceIds"),
        contradictions: l("contradictions"),
        questions: l("questions"),
        best_used_for: l("bestUsedFor"),
        not_enough_for: l("notEnoughFor"),
        confidence: finite(get(fm, "confidence")),
        claims,
        person_card: normalize_person_card(get(fm, "personCard")).map(Box::new),
        relationships,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_mapping, scan_key_lines};

    fn summary(yaml: &str) -> PageSummary {
        summarize(&parse_mapping(yaml, 2).unwrap(), &scan_key_lines(yaml, 2))
    }

    #[test]
    fn single_or_list_rules() {
        let s = summary(
            "sourceIds: source.alpha\naliases: [' a ', '', 3, b, b]\nquestions: 7\ncontradictions: '  '",
        );
        assert_eq!(s.source_ids, vec!["source.alpha"]);
        assert_eq!(s.aliases, vec!["a", "b", "b"]);
        assert!(s.questions.is_empty());
        assert!(s.contradictions.is_empty());
    }

    #[test]
    fn finite_numbers_only() {
        assert_eq!(summary("confidence: 0.8").confidence, Some(0.8));
        assert_eq!(summary("confidence: '0.8'").confidence, None);
        assert_eq!(summary("confidence: .nan").confidence, None);
        assert_eq!(summary("confidence: .inf").confidence, None);
        assert_eq!(summary("confidence: 1").confidence, Some(1.0));
    }

    #[test]
    fn claims_and_evidence() {
        let s = summary(
            "claims:\n  - id: c1\n    text: ' Alpha uses PG '\n    evidence:\n      - {}\n      - sourceId: s\n        lines: 12-18\n        weight: '1'\n  - text: ''\n  - id: no-text\n  - just a string\n  - text: second\n    status: Contested\n    evidence: nope",
        );
        assert_eq!(s.claims.len(), 2);
        let c = &s.claims[0];
        assert_eq!(c.text, "Alpha uses PG");
        assert_eq!(c.line, Some(3));
        assert_eq!(c.evidence.len(), 1);
        assert_eq!(c.evidence[0].lines.as_deref(), Some("12-18"));
        assert_eq!(c.evidence[0].weight, None);
        assert_eq!(c.normalized_status(), "supported");
        let c2 = &s.claims[1];
        assert!(c2.evidence.is_empty());
        assert_eq!(c2.normalized_status(), "contested");
        assert!(c2.is_contested());
        // `is_contested` agrees with the lower-cased status, ASCII or not.
        for (status, want) in [
            (Some(" REFUTED "), true),
            (Some("Superseded"), true),
            (Some("contested-ish"), false),
            (Some(""), false),
            (Some("\u{212A}ontested"), false), // Kelvin sign: lower-cases to "kontested"
            (Some("CONTRADİCTED"), false),     // dotted İ lower-cases to "i̇"
            (None, false),
        ] {
            let c = Claim {
                status: status.map(str::to_string),
                ..c.clone()
            };
            assert_eq!(c.is_contested(), want, "{status:?}");
            assert_eq!(
                c.is_contested(),
                CONTESTED_STATUSES.contains(&c.normalized_status().as_str())
            );
        }
        assert_eq!(c2.line, Some(13));
    }

    #[test]
    fn person_card_and_relationships() {
        let s = summary(
            "personCard:\n  email: a@b.c\n  handles: '@al'\nrelationships:\n  - {}\n  - targetId: entity.b\n    weight: 0.5\n",
        );
        let card = s.person_card.clone().unwrap();
        assert_eq!(card.emails, vec!["a@b.c"]);
        assert_eq!(card.handles, vec!["@al"]);
        assert!(s.is_person_like());
        assert_eq!(s.relationships.len(), 1);
        assert!(summary("personCard: {handles: []}").person_card.is_none());
        assert!(summary("entityType: Maintainer").is_person_like());
        assert!(!summary("entityType: service").is_person_like());
    }
}
