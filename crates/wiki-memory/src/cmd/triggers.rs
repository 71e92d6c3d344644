//! `wiki memory triggers`: trigger recall for an incoming message.

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer};
use crate::curated;
use crate::error::Result;
use crate::{search, triggers};

/// Curated entries whose trigger phrases match an incoming message (reference §14.7).
///
/// Candidates are the trusted curated entries of MEMORY.md, memory.md and USER.md carrying
/// `<!-- trigger: phrase, phrase -->`; daily notes and imports are never returned. An entry
/// scores `0.8 × its best phrase score + 0.2 × its lexical relevance`; those scoring at least
/// 0.65 are printed best first, at most 3 and 1,800 characters together, as the lines a reply
/// would get: `- <entry> (Source: MEMORY.md#L12)`. `--json` prints `{"type":"trigger",…}`
/// records with the score, the phrase and the source. Exit status 1 when nothing triggers.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The incoming message (several words may be given without quotes).
    #[arg(value_name = "MESSAGE", required = true, num_args = 1..)]
    pub message: Vec<String>,

    /// An active project (repeatable): entries scoped with `<!-- project: … -->` trigger only
    /// when all their projects are active.
    #[arg(long, value_name = "KEY")]
    pub project: Vec<String>,
}

/// The record of a triggered entry (`{"type":"trigger",…}`).
#[derive(Serialize)]
pub struct TriggerRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    score: f64,
    phrase: &'a str,
    relevance: f64,
    snippet: &'a str,
    source: String,
    path: &'a str,
    line: usize,
}

impl<'a> TriggerRecord<'a> {
    /// The record of `t`.
    pub fn of(t: &'a triggers::Triggered) -> TriggerRecord<'a> {
        let snippet = t
            .line
            .strip_prefix("- ")
            .and_then(|l| l.rsplit_once(" (Source: "))
            .map_or(t.line.as_str(), |(s, _)| s);
        TriggerRecord {
            kind: "trigger",
            score: round4(t.score),
            phrase: &t.phrase,
            relevance: round4(t.relevance),
            snippet,
            source: format!("{}#L{}", t.entry.path, t.entry.start_line),
            path: &t.entry.path,
            line: t.entry.start_line,
        }
    }
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

/// The curated entries of the workspace (root files only).
pub fn curated_entries(ctx: &Ctx) -> Result<Vec<curated::Entry>> {
    let mut out = Vec::new();
    for name in curated::CURATED_ROOT_FILES {
        if let Some(text) = ctx.ws.read(name)? {
            out.extend(curated::entries(name, &text));
        }
    }
    Ok(out)
}

/// The entries `message` triggers (best first, at most 3 and 1,800 characters together).
pub fn select(ctx: &Ctx, message: &str, projects: &[String]) -> Result<Vec<triggers::Triggered>> {
    ctx.require_workspace()?;
    let entries = curated_entries(ctx)?;
    // The relevance of an entry is its score in a memory search, needed only when some entry
    // can trigger.
    let hits = if triggers::may_select(message, &entries, projects) {
        let index = search::open(&ctx.index_home()?, &ctx.ws, false, false)?;
        search::search(
            &index,
            message,
            triggers::SEARCH_RESULTS,
            0.0,
            ctx.now.as_millisecond(),
        )?
    } else {
        Vec::new()
    };
    let relevance = |e: &curated::Entry| -> f64 {
        hits.iter()
            .filter(|h| h.path == e.path)
            .filter(|h| {
                let (a, b) = (h.start_line.unwrap_or(0), h.end_line.unwrap_or(0));
                a <= e.end_line && b >= e.start_line
            })
            .map(|h| h.score)
            .fold(0.0, f64::max)
    };
    Ok(triggers::select(message, &entries, relevance, projects))
}

/// Run `wiki memory triggers`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    let selected = select(ctx, &args.message.join(" "), &args.project)?;
    let mut p = Printer::new(ctx.json(false)?);
    for t in &selected {
        p.record(&TriggerRecord::of(t))?;
        p.line(&t.line)?;
    }
    p.flush()?;
    Ok(if selected.is_empty() {
        exit::FOUND
    } else {
        exit::OK
    })
}
