//! `wiki history <page id | path | claim id>`.

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::history::{self, Subject};
use crate::session::Session;

/// List the commits that changed a page or a claim, newest first (or oldest first with
/// `--order oldest`).
///
/// The commits are those of the branch's first-parent history, in its order (not by commit
/// date); a claim on several pages lists the entries of all of them in that order.
///
/// LOOKUP is a page path or id (resolved like `wiki get`) or a claim id (`claim:` prefix
/// optional). For a claim, each entry lists what changed in that commit: text, status,
/// confidence, evidence, validFrom/validUntil, supersedes/supersededBy, updatedAt (a claim that
/// only moved within its page has no entry). Commits made by hand
/// (no `Wiki-Op` trailer) are included and marked `"manual": true` (`[manual]` in text).
/// A page or claim that no longer exists (deleted, rolled back, renamed) is found in the past;
/// renamed pages and claims moved between pages are followed (`renamed`/`moved`, with
/// `previousPath`).
/// Output: text under `wiki` (`[manual]` marks hand-made commits), JSON Lines
/// `{"type":"history",...}` records with `--format jsonl` (the default of `wiki-apply history`),
/// or `--json` (one array). Exit status 0, 1 when nothing changed the page or claim, 2 on errors.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Page path, page id or claim id.
    #[arg(value_name = "LOOKUP")]
    pub lookup: String,

    /// Order of the entries.
    #[arg(long, value_name = "ORDER", default_value = "newest", value_parser = ["newest", "oldest"])]
    pub order: String,

    /// Show at most N entries (after ordering).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// Run `wiki history`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        wiki_cli::output::default_format(Format::Jsonl),
        &[Format::Jsonl, Format::Json, Format::Text],
    )?;
    let session = Session::open(global)?;
    let subject = history::resolve(&session, &args.lookup)?;
    let mut entries = history::history(&session, &subject)?;
    if args.order == "oldest" {
        entries.reverse();
    }
    if let Some(n) = args.limit {
        entries.truncate(n);
    }
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&entries)?,
        Format::Text => {
            if let Subject::Claim { id, pages, current } = &subject {
                out.line(&if *current {
                    format!("claim {id} on {}", pages.join(", "))
                } else {
                    format!("claim {id} (on no page now; last on {})", pages.join(", "))
                })?;
            }
            for e in &entries {
                out.text(&history::entry_text(e))?;
            }
        }
        _ => {
            for e in &entries {
                out.record(e)?;
            }
        }
    }
    out.flush()?;
    Ok(if entries.is_empty() {
        exit::FOUND
    } else {
        exit::OK
    })
}
