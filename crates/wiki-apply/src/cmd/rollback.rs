//! `wiki rollback <commit>`.

use serde_json::json;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit, iso_millis};

use crate::diff;
use crate::error::Error;
use crate::rollback::{self, Resolution, short_id};
use crate::session::Session;

/// Undo one commit's changes to the vault with a new commit, and recompile.
///
/// Every vault file the commit changed goes back to its version before the commit, keeping what
/// later commits changed elsewhere in the same file (pages are merged key by key, claim by claim
/// and line by line). When later commits changed the same lines, nothing is written and the
/// command exits 1 naming the pages, unless `--force` (restore those parts as they were before
/// the commit) or `--keep-later` (keep the later changes) says how to resolve them. Rolling
/// back a commit twice is a no-op (no new commit). Generated files (indexes, reports, caches)
/// are refreshed by the recompile instead of being reverted.
///
/// When nothing changes, the output says why: the commit changed only compiled output (a
/// compile commit), a later rollback commit already undid it, or the vault already has what was
/// there before it (`noChange` and `message` in JSON; exit status 0).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The commit to undo (id, branch, `HEAD~2`, …).
    #[arg(value_name = "COMMIT")]
    pub commit: String,

    /// Resolve conflicting lines by restoring them as they were before the commit.
    #[arg(long, conflicts_with = "keep_later")]
    pub force: bool,

    /// Resolve conflicting lines by keeping the later changes.
    #[arg(long)]
    pub keep_later: bool,

    /// Print the diff of what would change and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not refresh compiled files in the same commit.
    #[arg(long)]
    pub no_compile: bool,
}

/// Run `wiki rollback`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        wiki_cli::output::default_format(Format::Jsonl),
        &[Format::Jsonl, Format::Json, Format::Text],
    )?;
    let now = iso_millis(global.now()?);
    let session = Session::open(global)?;
    let resolution = if args.force {
        Resolution::Before
    } else if args.keep_later {
        Resolution::Later
    } else {
        Resolution::Refuse
    };
    let compiler = super::compiler(args.no_compile, args.dry_run)?;
    let outcome = match rollback::rollback(
        &session,
        &args.commit,
        resolution,
        args.dry_run,
        compiler.as_ref(),
        &now,
    ) {
        Ok(o) => o,
        Err(Error::Refused(message)) => {
            wiki_cli::warn(&wiki_cli::program_name(), &message);
            return Ok(exit::FOUND);
        }
        Err(e) => return Err(e.into()),
    };
    let mut out = Output::new();
    if args.dry_run && (format == Format::Text || !(global.json || global.format.is_some())) {
        out.text(&diff::diff_all(
            outcome.page_changes.iter().chain(&outcome.compile_changes),
        ))?;
        out.flush()?;
        return Ok(exit::OK);
    }
    let target = outcome.target.map(|t| t.to_string()).unwrap_or_default();
    let short = outcome.target.as_ref().map(short_id).unwrap_or_default();
    let explanation = outcome.no_change.as_ref().map(|n| n.explain(&short));
    let record = json!({
        "type": "rollback",
        "target": target,
        "changed": !outcome.page_changes.is_empty(),
        "commit": outcome.commit.map(|c| c.to_string()),
        "files": outcome.page_changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        "compiled": outcome.compiled,
        "skipped": outcome.skipped,
        "conflicts": outcome.conflicts,
        "dryRun": args.dry_run,
        "noChange": outcome.no_change,
        "message": explanation,
    });
    match format {
        Format::Text => {
            if let Some(explanation) = &explanation {
                out.line(explanation)?;
            } else {
                out.line(&format!(
                    "Rolled back {short} ({}) in {}: {}.",
                    outcome.target_subject,
                    outcome
                        .commit
                        .as_ref()
                        .map(short_id)
                        .unwrap_or_else(|| "(dry run)".into()),
                    wiki_cli::output::summarize(
                        &outcome
                            .page_changes
                            .iter()
                            .map(|c| c.path.as_str())
                            .collect::<Vec<_>>(),
                        wiki_cli::output::SUMMARY_PATHS
                    )
                ))?;
            }
        }
        Format::Json => out.json(&record)?,
        _ => out.record(&record)?,
    }
    out.flush()?;
    Ok(exit::OK)
}
