//! The commands of this crate, one module each (`Args` + `run`), contributed to the `wiki`
//! dispatcher by [`crate::commands`].

pub mod bridge;
pub mod chatgpt;
pub mod ingest;
pub mod okf;
pub mod unsafe_local;

use wiki_cli::{CliError, Format, GlobalArgs};

/// Text for people by default, `--json` for programs.
pub fn format(global: &GlobalArgs) -> Result<Format, CliError> {
    global.format_among(Format::Text, &[Format::Text, Format::Json])
}

/// The run's timestamp (`--now`, `$WIKI_NOW`, else the clock), as the original writes them.
pub fn now(global: &GlobalArgs) -> Result<String, CliError> {
    Ok(wiki_cli::iso_millis(global.now()?))
}

/// `n index file(s)` as the original prints it.
pub fn index_files(n: usize) -> String {
    format!("{n} index file{}", if n == 1 { "" } else { "s" })
}

/// Run a bridge or unsafe-local sync as one commit and print its result (`what` is the
/// original's sentence start, `Bridge import synced 3 artifacts across 1 workspaces`).
pub fn run_sync(
    session: &wiki_apply::session::Session,
    batch: &mut crate::sync::SyncBatch<'_>,
    format: Format,
    what: &str,
    extra: serde_json::Value,
) -> Result<u8, CliError> {
    use crate::commit::{self, Compile, RunOptions};
    let refresh = batch.refresh;
    let now = batch.now;
    let compile = if batch.auto_compile {
        Compile::When(refresh)
    } else {
        Compile::Never
    };
    let done = commit::run(
        session,
        batch,
        RunOptions {
            now,
            dry_run: false,
            compile,
        },
    )?;
    let o = &batch.outcome;
    for p in &o.problems {
        p.report();
    }
    let reason = crate::sync::refresh_reason(batch.auto_compile, o);
    let refreshed = refresh.get();
    if o.changed() {
        let mut details = serde_json::json!({
            "sourceType": if batch.group == "bridge" { "memory-bridge" } else { "memory-unsafe-local" },
        });
        if let (Some(d), Some(e)) = (details.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        for (k, v) in [
            ("artifactCount", batch.docs.len()),
            ("importedCount", o.imported()),
            ("updatedCount", o.updated()),
            ("skippedCount", o.skipped()),
            ("removedCount", o.removed.len()),
        ] {
            details[k] = serde_json::json!(v);
        }
        commit::append_log(&session.vault, "ingest", now, details);
    }
    let mut out = wiki_cli::Output::new();
    if format == Format::Json {
        let mut v = serde_json::json!({
            "importedCount": o.imported(),
            "updatedCount": o.updated(),
            "skippedCount": o.skipped(),
            "removedCount": o.removed.len(),
            "artifactCount": batch.docs.len(),
        });
        if let (Some(d), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        for (k, val) in [
            ("pagePaths", serde_json::json!(o.page_paths())),
            ("removedPagePaths", serde_json::json!(o.removed)),
            ("indexesRefreshed", serde_json::json!(refreshed)),
            ("indexUpdatedFiles", serde_json::json!(done.compiled)),
            ("indexRefreshReason", serde_json::json!(reason)),
            ("problems", serde_json::json!(o.problems)),
            (
                "commit",
                serde_json::json!(done.commit.map(|c| c.to_string())),
            ),
        ] {
            v[k] = val;
        }
        out.json(&v)?;
    } else {
        let indexes = if refreshed {
            format!("refreshed ({} files)", done.compiled.len())
        } else {
            format!("not refreshed ({reason})")
        };
        out.line(&format!(
            "{what} ({} new, {} updated, {} unchanged, {} removed). Indexes {indexes}.",
            o.imported(),
            o.updated(),
            o.skipped(),
            o.removed.len()
        ))?;
    }
    out.flush()?;
    Ok(if o.problems.is_empty() {
        wiki_cli::exit::OK
    } else {
        wiki_cli::exit::FOUND
    })
}
