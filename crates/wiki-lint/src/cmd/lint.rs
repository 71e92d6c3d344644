//! `wiki lint`: compile, lint, write `reports/lint.md`, commit both as one commit.

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};
use wiki_digest::compile::{CompileOptions, compile};
use wiki_digest::context::{CommitSpec, VaultContext};
use wiki_store::Change;

use crate::check::{self, Options};
use crate::diagnostic::{Category, Counts, Deny, Diagnostic, Summary};
use crate::output;
use crate::report::{self, REPORT_PATH};

/// Compile the vault, lint it, and write `reports/lint.md`; commit everything as one commit.
///
/// The same as `wiki compile` followed by the lint checks of `wiki-lint` (the original plugin's
/// sixteen plus `invalid-frontmatter` and `duplicate-claim-id`), with the report written exactly
/// as the original plugin writes it (`## Generated` block: counts, then Errors, Warnings,
/// Contradictions, Open Questions, Quality Follow-Up). The compiled files and the report go into
/// one commit with the trailers `Wiki-Op: lint`, `Wiki-Page: <path>` per file and
/// `Wiki-Agent: ...`; nothing changed → no commit. When the report is new, the indexes and the
/// digest are compiled again so they list it (`wiki compile --check` stays clean after a lint).
///
/// Output (text, default): each finding as `path:line: code: message` (vault-relative path;
/// `path: code: message` without a line), then the original plugin's summary line `Linted wiki
/// vault at <root> (<n> issues, report: <path>).`; `--json`: the original plugin's result object (`vaultRoot`, `issueCount`,
/// `issues`, `issuesByCategory`, `reportPath`) plus `errors`, `warnings` and `commit`;
/// `--format jsonl` / `github`: the records or annotations of `wiki-lint`.
///
/// Exit status (unlike the original, which always exits 0): 0 when no finding reaches the deny
/// level, 1 when one does, 2 when lint could not run.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Exit 1 when a finding has at least this severity: `error` (default) or `warning`.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "error")]
    pub deny: Deny,
}

#[derive(Serialize)]
struct Issue<'a> {
    severity: &'static str,
    category: &'static str,
    code: &'static str,
    path: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

impl<'a> From<&'a Diagnostic> for Issue<'a> {
    fn from(d: &'a Diagnostic) -> Self {
        Issue {
            severity: d.severity.as_str(),
            category: d.category.as_str(),
            code: d.code.as_str(),
            path: &d.path,
            message: &d.message,
            line: d.line,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LintResult<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    vault_root: Option<String>,
    issue_count: usize,
    issues: Vec<Issue<'a>>,
    issues_by_category: serde_json::Map<String, serde_json::Value>,
    report_path: String,
    errors: usize,
    warnings: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    commit: Option<String>,
}

/// Merge `later` into `changes` (a later change to the same path replaces the earlier one).
fn merge(changes: &mut Vec<Change>, later: Vec<Change>) {
    for c in later {
        match changes.iter_mut().find(|e| e.path == c.path) {
            Some(existing) => *existing = c,
            None => changes.push(c),
        }
    }
}

/// What one lint run did (see [`lint_vault`]).
#[derive(Debug)]
pub struct LintRun {
    /// The findings, in report order.
    pub diagnostics: Vec<Diagnostic>,
    /// Errors and warnings among them.
    pub counts: Counts,
    /// The commit made (`None`: nothing changed).
    pub commit: Option<String>,
    /// The vault's root directory.
    pub root: std::path::PathBuf,
    /// Pages linted (those that failed to parse included).
    pub pages: usize,
    /// Pages that failed to parse.
    pub page_errors: usize,
}

/// Compile the vault of `global`, lint it, write `reports/lint.md` and commit both (the work of
/// `wiki lint`, shared with `wiki mcp`'s `wiki_lint`).
pub fn lint_vault(global: &GlobalArgs) -> Result<LintRun, CliError> {
    let mut ctx = VaultContext::open(global)?;
    ctx.lock()?;
    let now = ctx.now()?;
    let snapshot = ctx.snapshot()?;
    let opts = CompileOptions::new(now)
        .with_render(wiki_digest::RenderConfig::load()?)
        .with_parse_cache(ctx.root(), true);
    let compiled = compile(&snapshot, &opts);
    compiled.save_parse_cache(&snapshot, "wiki lint");
    let compile_files: Vec<String> = compiled
        .updated_files()
        .into_iter()
        .map(str::to_string)
        .collect();
    let diagnostics = check::lint(
        &compiled.pages,
        &compiled.errors,
        &Options {
            now_ms: now.as_millisecond(),
            ..Default::default()
        },
    );

    let existing = snapshot
        .get(REPORT_PATH)
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let rendered = report::render_report(existing.as_deref(), &diagnostics);
    let mut changes = compiled.changes;
    if existing.as_deref() != Some(rendered.as_str()) {
        let report_change = Change::write(REPORT_PATH, rendered.into_bytes());
        if existing.is_none() {
            // A new report page: compile again so the indexes and the digest list it.
            let mut next = snapshot.clone();
            next.overlay(&changes);
            next.overlay(std::slice::from_ref(&report_change));
            let again = compile(&next, &opts);
            merge(&mut changes, vec![report_change]);
            merge(&mut changes, again.changes);
        } else {
            merge(&mut changes, vec![report_change]);
        }
    }

    let counts = Counts::of(&diagnostics);
    let issues = diagnostics.len();
    let mut commit = None;
    if !changes.is_empty() {
        let spec = CommitSpec::new(
            "lint",
            format!(
                "Lint wiki vault: {issues} issue{} ({} error{}, {} warning{})",
                if issues == 1 { "" } else { "s" },
                counts.errors,
                if counts.errors == 1 { "" } else { "s" },
                counts.warnings,
                if counts.warnings == 1 { "" } else { "s" },
            ),
        );
        let outcome = ctx.commit(&changes, &spec)?;
        commit = outcome.commit.map(|c| c.to_string());
    }
    if !compile_files.is_empty() {
        let details = serde_json::json!({
            "pageCounts": compiled.page_counts.to_json(),
            "updatedFiles": compile_files,
        });
        if let Err(e) = ctx.append_log("compile", details) {
            wiki_cli::warn("wiki lint", &format!("cannot append to the log: {e}"));
        }
    }
    let details = serde_json::json!({ "issueCount": issues, "reportPath": REPORT_PATH });
    if let Err(e) = ctx.append_log("lint", details) {
        wiki_cli::warn("wiki lint", &format!("cannot append to the log: {e}"));
    }
    Ok(LintRun {
        diagnostics,
        counts,
        commit,
        root: ctx.root().to_path_buf(),
        pages: compiled.pages.len() + compiled.errors.len(),
        page_errors: compiled.errors.len(),
    })
}

/// The original plugin's lint result object (`vaultRoot`, `issueCount`, `issues`,
/// `issuesByCategory`, `reportPath`) plus `errors`, `warnings` and `commit`, with `report_path`
/// as given (absolute for `wiki lint --json`, vault-relative for the MCP tool).
pub fn result_json(
    run: &LintRun,
    vault_root: Option<String>,
    report_path: String,
) -> serde_json::Value {
    let mut by_category = serde_json::Map::new();
    for c in Category::ALL {
        let items: Vec<Issue<'_>> = run
            .diagnostics
            .iter()
            .filter(|d| d.category == c)
            .map(Issue::from)
            .collect();
        by_category.insert(
            c.as_str().into(),
            serde_json::to_value(items).unwrap_or_default(),
        );
    }
    serde_json::to_value(LintResult {
        vault_root,
        issue_count: run.diagnostics.len(),
        issues: run.diagnostics.iter().map(Issue::from).collect(),
        issues_by_category: by_category,
        report_path,
        errors: run.counts.errors,
        warnings: run.counts.warnings,
        commit: run.commit.clone(),
    })
    .unwrap_or_default()
}

/// Run `wiki lint`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        Format::Text,
        &[Format::Text, Format::Json, Format::Jsonl, Format::Github],
    )?;
    let run = lint_vault(global)?;
    let (diagnostics, counts) = (&run.diagnostics, run.counts);
    let issues = diagnostics.len();
    let failed = counts.fails(args.deny);
    let report_abs = run.root.join(REPORT_PATH);
    match format {
        Format::Json => {
            let mut out = Output::new();
            out.json(&result_json(
                &run,
                Some(run.root.display().to_string()),
                report_abs.display().to_string(),
            ))?;
            out.flush()?;
        }
        Format::Text => {
            let paint = wiki_cli::output::Painter::stdout(global);
            let mut out = Output::new();
            for d in diagnostics {
                out.line(&output::text_line(d, &paint))?;
            }
            out.line(&format!(
                "Linted wiki vault at {} ({issues} issues, report: {}).",
                run.root.display(),
                report_abs.display()
            ))?;
            out.flush()?;
        }
        _ => {
            let summary = Summary {
                kind: "summary",
                mode: "vault",
                pages: run.pages,
                page_errors: run.page_errors,
                errors: counts.errors,
                warnings: counts.warnings,
                deny: args.deny,
                status: if failed { "failed" } else { "passed" },
            };
            let prefix = crate::repo_prefix(&run.root);
            let paint = wiki_cli::output::Painter::stdout(global);
            output::print("wiki lint", format, diagnostics, &summary, &prefix, &paint)?;
        }
    }
    Ok(if failed { exit::FOUND } else { exit::OK })
}
