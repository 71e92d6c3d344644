//! `wiki memory index`: refresh or rebuild the memory search index.

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer};
use crate::error::Result;
use crate::search;

/// Refresh the memory search index of the workspace (only changed files are read again), or
/// rebuild it from the Markdown with --force.
///
/// The index is derived: `.openclaw-wiki/index/memory-<hash>/` in the vault (in the workspace
/// when there is no vault). Searches refresh it by themselves; this command is for a first
/// build, a forced rebuild (e.g. after a tokenizer change, or CJK text not found) and status.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Throw the index away and rebuild it.
    #[arg(long)]
    pub force: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IndexRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    workspace: String,
    index: String,
    #[serde(flatten)]
    report: &'a wiki_search::RefreshReport,
}

/// Run `wiki memory index`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let index = search::open(&ctx.index_home()?, &ctx.ws, args.force, false)?;
    let r = &index.report;
    let mut p = Printer::new(ctx.json(false)?);
    p.record(&IndexRecord {
        kind: "index",
        workspace: ctx.ws.root.display().to_string(),
        index: index.dir.display().to_string(),
        report: r,
    })?;
    let verb = if r.rebuilt.is_some() {
        "Rebuilt"
    } else {
        "Refreshed"
    };
    p.line(&format!(
        "{verb} the memory index: {} files, {} chunks ({} read, {} unchanged, {} removed).",
        r.files,
        r.docs,
        r.tokenized,
        r.files.saturating_sub(r.tokenized),
        r.removed
    ))?;
    p.line(&format!("Index: {}", index.dir.display()))?;
    p.flush()?;
    Ok(exit::OK)
}
