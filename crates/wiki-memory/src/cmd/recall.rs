//! `wiki memory recall`: facts and notes for a query, recorded as short-term signals.

use wiki_cli::exit;

use super::facts::parse_kind;
use super::{Ctx, Printer, say};
use crate::error::{Error, Result};
use crate::recall::{self, ChunkHit, Inputs, Recalled};
use crate::retain::Kind;
use crate::shortterm::{self, RecallHit, Signal};
use crate::{facts, search, time, workspace};

/// Recall retained facts and note passages for a query (lexical, entity, temporal and opinion
/// signals).
///
/// Lexical relevance comes from the memory corpus ranking of `wiki search`; facts mentioning an
/// entity the query names (or `--entity`) gain, opinions gain by their confidence when the query
/// asks for a preference, newer notes weigh more within the `--since` / `--at` window. Every
/// result cites its path and line. Text output: one line per result; `--json`:
/// `{"type":"fact"|"note","kind","timestamp","entities","content","confidence","source","score",
/// "signals"}` records. Each recall of daily-note lines is recorded in
/// `memory/.dreams/short-term-recall.json` (query hash, day, score) as OpenClaw's recalls are, so
/// that dreaming can promote what keeps being recalled (`--no-record` skips it; the store is
/// machine state, committed by the next dreaming step). Exit status 1 when nothing is recalled.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The query (several words may be given without quotes; optional with --entity or --kind).
    #[arg(value_name = "QUERY", num_args = 0..)]
    pub query: Vec<String>,

    /// Maximum number of results.
    #[arg(long, value_name = "N", default_value_t = recall::DEFAULT_K)]
    pub k: usize,

    /// Only notes of this period: 30d, 2w, 12h, 3m, 1y, or a day (2025-11-01).
    #[arg(long, value_name = "SPAN", conflicts_with = "at")]
    pub since: Option<String>,

    /// Only notes of this year, month or day (2025, 2025-11, 2025-11-27).
    #[arg(long, value_name = "DATE")]
    pub at: Option<String>,

    /// Only facts mentioning this entity (repeatable).
    #[arg(long, value_name = "NAME")]
    pub entity: Vec<String>,

    /// Only facts of this kind: world, experience, opinion, observation (repeatable).
    #[arg(long, value_name = "KIND", value_parser = parse_kind)]
    pub kind: Vec<Kind>,

    /// Do not record this recall in the short-term store.
    #[arg(long)]
    pub no_record: bool,
}

/// The text line of the `i`-th result (0-based): `1. [opinion c=0.7] 2026-03-30 @Peter: … (source) score`.
pub fn text_line(i: usize, r: &Recalled) -> String {
    let tag = match (r.record, r.confidence) {
        ("note", _) => "note".to_string(),
        (_, Some(c)) => format!("{} c={c}", r.kind),
        _ => r.kind.to_string(),
    };
    let who: Vec<String> = r.entities.iter().map(|e| format!("@{e}")).collect();
    let who = if who.is_empty() {
        String::new()
    } else {
        format!("{}: ", who.join(" "))
    };
    let content = if r.record == "note" {
        let flat = r.content.split_whitespace().collect::<Vec<_>>().join(" ");
        match flat.char_indices().nth(160) {
            Some((cut, _)) => format!("{}…", &flat[..cut]),
            None => flat,
        }
    } else {
        r.content.clone()
    };
    format!(
        "{}. [{tag}] {}{who}{content} ({}) {:.4}",
        i + 1,
        r.timestamp
            .as_deref()
            .map(|d| format!("{d} "))
            .unwrap_or_default(),
        r.source,
        r.score
    )
}

/// Recall for `args` (recorded in the short-term store unless `--no-record`), best first.
pub fn recall(ctx: &Ctx, args: &Args) -> Result<Vec<Recalled>> {
    ctx.require_workspace()?;
    let query = args.query.join(" ").trim().to_string();
    let mut filter = super::facts::filter(
        ctx,
        args.since.as_deref(),
        args.at.as_deref(),
        &args.entity,
        &args.kind,
    )?;
    if query.is_empty() && filter.entities.is_empty() && filter.kinds.is_empty() {
        return Err(Error::Usage(
            "wiki memory recall needs a query, or --entity / --kind".into(),
        ));
    }
    if let Some(w) = recall::intent(&query).window {
        filter.window = filter.window.and(w);
    }
    let hits: Vec<ChunkHit> = if query.is_empty() {
        Vec::new()
    } else {
        let index = search::open(&ctx.index_home()?, &ctx.ws, false, false)?;
        search::search(
            &index,
            &query,
            (args.k * 4).max(50),
            0.0,
            ctx.now.as_millisecond(),
        )?
        .into_iter()
        .map(|h| ChunkHit {
            start_line: h.start_line.unwrap_or(1),
            end_line: h.end_line.unwrap_or(1),
            score: h.score,
            text: h.snippet,
            path: h.path,
        })
        .collect()
    };
    let structured = query.is_empty() || !filter.entities.is_empty() || !filter.kinds.is_empty();
    let hit_notes: Vec<String> = hits
        .iter()
        .filter(|h| workspace::note_day(&h.path).is_some())
        .map(|h| h.path.clone())
        .collect();
    let found = facts::collect(
        &ctx.ws,
        &filter,
        (!structured).then_some(hit_notes.as_slice()),
    );
    if !found.malformed.is_empty() {
        say(&format!(
            "{} malformed Retain bullet(s) skipped (`wiki memory facts` lists them)",
            found.malformed.len()
        ));
    }
    for e in &found.errors {
        say(e);
    }
    let today = time::day_of(ctx.now);
    let results = recall::rank(
        &Inputs {
            query: &query,
            filter: &filter,
            facts: &found.facts,
            hits: &hits,
            today,
            with_notes: filter.entities.is_empty() && filter.kinds.is_empty(),
        },
        args.k.max(1),
    );
    if !args.no_record && !results.is_empty() {
        record(ctx, &query, &filter, &results)?;
    }
    Ok(results)
}

/// Run `wiki memory recall`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    let results = recall(ctx, args)?;
    let mut p = Printer::new(ctx.json(false)?);
    for (i, r) in results.iter().enumerate() {
        p.record(r)?;
        p.line(&text_line(i, r))?;
    }
    p.flush()?;
    Ok(if results.is_empty() {
        exit::FOUND
    } else {
        exit::OK
    })
}

/// Record the recalled daily-note ranges as short-term signals.
fn record(ctx: &Ctx, query: &str, filter: &facts::Filter, results: &[Recalled]) -> Result<()> {
    let hits: Vec<RecallHit> = results
        .iter()
        .filter(|r| shortterm::is_short_term_path(&r.path))
        .map(|r| RecallHit {
            path: r.path.clone(),
            start_line: r.start_line,
            end_line: r.end_line,
            snippet: r.raw.clone(),
            score: r.score.min(1.0),
        })
        .collect();
    if hits.is_empty() {
        return Ok(());
    }
    // A recall by filters only is recorded under a query naming them.
    let query = if query.is_empty() {
        let mut parts: Vec<String> = filter.entities.iter().map(|e| format!("@{e}")).collect();
        parts.extend(filter.kinds.iter().map(|k| format!("kind:{}", k.name())));
        parts.join(" ")
    } else {
        query.to_string()
    };
    let now_iso = wiki_cli::iso_millis(ctx.now);
    let day = time::day_string(ctx.now);
    let _lock = shortterm::lock(&ctx.ws)?;
    let mut store = shortterm::read_store(&ctx.ws, &now_iso)?;
    shortterm::record(
        &mut store,
        &query,
        &hits,
        Signal::Recall,
        false,
        &day,
        &now_iso,
    );
    shortterm::write_atomic(
        &ctx.ws,
        shortterm::STORE_PATH,
        &shortterm::render_store(&store),
    )
}
