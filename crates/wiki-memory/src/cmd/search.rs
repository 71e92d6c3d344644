//! `wiki memory search`: the memory corpus on its own.

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer};
use crate::error::Result;
use crate::search;

/// Search the workspace's memory files (MEMORY.md, memory.md, memory/**/*.md).
///
/// The ranking is the memory corpus's of `wiki search --corpus memory` (chunks of about 400
/// tokens, BM25, 30-day recency half-life for dated notes, importance annotations, MMR
/// diversity, exact path matches first). Text output lists each hit with its path, lines and
/// snippet; `--json` prints `{"type":"hit",…,"citation":"memory/2025-11-27.md#L1-L12"}` records.
///
/// Keyword-only by default. With an embedding provider in the OpenClaw config
/// (`memorySearch.provider`: openai, openai-compatible, ollama or auto), the search is hybrid:
/// 0.7 × vector similarity + 0.3 × keyword score (`query.hybrid.vectorWeight`/`textWeight`),
/// vectors cached beside the index by chunk content. `auto` falls back to keyword-only when the
/// provider fails; a named provider that fails makes the search fail (exit 2, "memory search is
/// unavailable") unless its `memorySearch.fallback` provider answers.
///
/// Exit status 1 when nothing matches.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The query (several words may be given without quotes).
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,

    /// Maximum number of results (at least 1).
    #[arg(long, value_name = "N", default_value_t = search::DEFAULT_MAX_RESULTS)]
    pub max_results: usize,

    /// Drop hits scoring below this (0 to 1; when none reaches it, the lexical hits are kept).
    /// Default: the OpenClaw config's memorySearch.query.minScore, else 0.35.
    #[arg(long, value_name = "SCORE", value_parser = wiki_search::cmd::parse_min_score)]
    pub min_score: Option<f64>,
}

#[derive(Serialize)]
struct HitRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    hit: &'a wiki_search::Hit,
}

/// Run `wiki memory search`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let query = args.query.join(" ");
    let index = search::open(&ctx.index_home()?, &ctx.ws, false, false)?;
    let hits = search::search_configured(
        &index,
        &query,
        args.max_results,
        args.min_score,
        ctx.agent.as_deref(),
        ctx.now.as_millisecond(),
    )?;
    let mut p = Printer::new(ctx.json(false)?);
    if p.json() {
        for h in &hits {
            p.record(&HitRecord {
                kind: "hit",
                hit: h,
            })?;
        }
    } else if hits.is_empty() {
        p.line("No memory results.")?;
    } else {
        let text = wiki_search::cmd::search::render_text(&hits);
        p.line(text.trim_end())?;
    }
    p.flush()?;
    Ok(if hits.is_empty() {
        exit::FOUND
    } else {
        exit::OK
    })
}
