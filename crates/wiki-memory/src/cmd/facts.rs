//! `wiki memory facts`: the retained facts of the daily notes.

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer, say};
use crate::error::{Error, Result};
use crate::facts::{self, Filter};
use crate::retain::{self, Fact, Kind};
use crate::time::{self, Window};

/// List the typed facts of the daily notes' `## Retain` sections.
///
/// Each fact is one JSON Lines record: `{"type":"fact","kind","timestamp","entities","content",
/// "confidence","source"}`; `kind` is world (W), experience (B), opinion (O) or observation (S),
/// `timestamp` the day of the note, `confidence` an opinion's `O(c=…)` (else null), `source`
/// `memory/2025-11-27.md#L12`. Malformed bullets are reported on stderr as `path:line: message`
/// (and as `{"type":"malformed"}` records) and make the exit status 1. `--format text` prints one
/// line per fact.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Only facts from notes of this period: 30d, 2w, 12h, 3m, 1y, or a day (2025-11-01).
    #[arg(long, value_name = "SPAN")]
    pub since: Option<String>,

    /// Only facts from notes of this year, month or day (2025, 2025-11, 2025-11-27).
    #[arg(long, value_name = "DATE")]
    pub at: Option<String>,

    /// Only facts mentioning this entity (`Peter` or `@Peter`; repeatable).
    #[arg(long, value_name = "NAME")]
    pub entity: Vec<String>,

    /// Only facts of this kind: world, experience, opinion, observation (or W, B, O, S;
    /// repeatable).
    #[arg(long, value_name = "KIND", value_parser = parse_kind)]
    pub kind: Vec<Kind>,
}

/// Parse a `--kind` value.
pub fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s).ok_or_else(|| {
        format!(
            "--kind must be world, experience, opinion or observation (or W, B, O, S), found `{s}`"
        )
    })
}

/// The record of a fact.
#[derive(Debug, Serialize)]
pub struct FactRecord<'a> {
    #[serde(rename = "type")]
    kind_tag: &'static str,
    /// world, experience, opinion, observation.
    pub kind: &'static str,
    /// The note's day.
    pub timestamp: Option<String>,
    /// Mentioned entities.
    pub entities: &'a [String],
    /// The fact.
    pub content: &'a str,
    /// An opinion's confidence.
    pub confidence: Option<f64>,
    /// `path#L<line>`.
    pub source: String,
}

impl<'a> FactRecord<'a> {
    /// The record of `f`.
    pub fn of(f: &'a Fact) -> FactRecord<'a> {
        FactRecord {
            kind_tag: "fact",
            kind: f.kind.name(),
            timestamp: f.day.map(|d| d.to_string()),
            entities: &f.entities,
            content: &f.content,
            confidence: f.confidence,
            source: f.source(),
        }
    }
}

/// The record of a malformed Retain bullet (`{"type":"malformed","source","message"}`).
#[derive(Debug, Serialize)]
pub struct MalformedRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    /// `path#L<line>`.
    pub source: String,
    /// What is wrong.
    pub message: &'a str,
}

impl<'a> MalformedRecord<'a> {
    /// The record of `m`.
    pub fn of(m: &'a retain::Malformed) -> MalformedRecord<'a> {
        MalformedRecord {
            kind: "malformed",
            source: format!("{}#L{}", m.path, m.line),
            message: &m.message,
        }
    }
}

/// One text line for a fact: `2025-11-27 O(c=0.95) @Peter: Prefers … (memory/…#L12)`.
pub fn text_line(f: &Fact) -> String {
    let kind = match f.confidence {
        Some(c) => format!("{}(c={c})", f.kind.letter()),
        None => f.kind.letter().to_string(),
    };
    let entities: Vec<String> = f.entities.iter().map(|e| format!("@{e}")).collect();
    let who = if entities.is_empty() {
        String::new()
    } else {
        format!(" {}", entities.join(" "))
    };
    format!(
        "{} {kind}{who}: {} ({})",
        f.day.map(|d| d.to_string()).unwrap_or_default(),
        f.content,
        f.source()
    )
}

/// The filter of `--since`, `--at`, `--entity`, `--kind` flags.
pub fn filter(
    ctx: &Ctx,
    since: Option<&str>,
    at: Option<&str>,
    entity: &[String],
    kind: &[Kind],
) -> Result<Filter> {
    let mut window = Window::ALL;
    if let Some(s) = since {
        window = window.and(time::parse_since(s, ctx.now).map_err(Error::Usage)?);
    }
    if let Some(a) = at {
        window = window.and(time::parse_at(a).map_err(Error::Usage)?);
    }
    Ok(Filter {
        window,
        entities: entity
            .iter()
            .map(|e| retain::entity_key(e))
            .filter(|e| !e.is_empty())
            .collect(),
        kinds: kind.to_vec(),
    })
}

/// The facts `args` selects, with the malformed bullets and unreadable notes met on the way
/// (what `wiki memory facts` prints; the MCP tool `memory_facts` returns it).
pub fn facts(ctx: &Ctx, args: &Args) -> Result<facts::Collected> {
    ctx.require_workspace()?;
    let filter = filter(
        ctx,
        args.since.as_deref(),
        args.at.as_deref(),
        &args.entity,
        &args.kind,
    )?;
    Ok(facts::collect(&ctx.ws, &filter, None))
}

/// Run `wiki memory facts`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    let found = facts(ctx, args)?;
    let mut p = Printer::new(ctx.json(true)?);
    for f in &found.facts {
        p.record(&FactRecord::of(f))?;
        p.line(&text_line(f))?;
    }
    for m in &found.malformed {
        say(&m.to_string());
        p.record(&MalformedRecord::of(m))?;
    }
    for e in &found.errors {
        say(e);
    }
    p.flush()?;
    if !found.errors.is_empty() {
        return Ok(exit::ERROR);
    }
    Ok(if found.malformed.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}
