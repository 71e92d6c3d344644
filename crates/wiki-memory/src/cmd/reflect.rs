//! `wiki memory reflect`: retained facts into the vault's entity pages, in one commit.

use wiki_apply::session::{self, BatchOptions, Session};
use wiki_cli::exit;

use super::{Ctx, Printer, say};
use crate::error::{Error, Result};
use crate::facts::{self, Filter};
use crate::reflect::{Reflection, Summary};
use crate::time;

/// Turn the retained facts of recent daily notes into vault knowledge, in one commit.
///
/// Every fact of the notes' `## Retain` sections that mentions `@Entity` becomes a claim on
/// `entities/<entity>.md` (created when missing) with evidence pointing at the note's lines
/// (`memory/2025-11-27.md`, lines `12`). The same fact retained again adds evidence to its claim.
/// An opinion's claim starts at its `O(c=…)` (0.5 without); a later opinion stating the same
/// raises it by 0.05, one stating the opposite (`not`, `no longer`, `never`…) lowers it by 0.1,
/// marks the claim contested and records the contradiction on the page, hence on the
/// contradictions dashboard. Facts already reflected change nothing. Deterministic, no model
/// call; bodies and human blocks are never rewritten. The commit goes through `wiki apply`'s
/// operations, validation and compile, and `wiki rollback <commit>` undoes it. Exit status 1
/// when Retain bullets are malformed (they are reported and skipped).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Reflect the notes of this period: 7d, 2w, 3m, 1y, or a day (2025-11-01).
    #[arg(
        long,
        value_name = "SPAN",
        default_value = "7d",
        conflicts_with = "all"
    )]
    pub since: String,

    /// Reflect every daily note.
    #[arg(long)]
    pub all: bool,

    /// Show what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    commit: Option<String>,
    dry_run: bool,
    #[serde(flatten)]
    summary: &'a Summary,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn text(s: &Summary, notes: usize) -> String {
    format!(
        "{} from {} into {} ({} created): {} added, {} added, confidence raised {} and lowered {}, {}",
        plural(s.facts, "fact", "facts"),
        plural(notes, "note", "notes"),
        plural(
            s.pages_created.len() + s.pages_updated.len(),
            "page",
            "pages"
        ),
        s.pages_created.len(),
        plural(s.claims_added, "claim", "claims"),
        plural(s.evidence_added, "evidence", "evidence"),
        s.confidence_raised,
        s.confidence_lowered,
        plural(s.contradictions, "contradiction", "contradictions"),
    )
}

/// Run `wiki memory reflect`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let window = if args.all {
        time::Window::ALL
    } else {
        time::parse_since(&args.since, ctx.now).map_err(Error::Usage)?
    };
    let filter = Filter {
        window,
        ..Filter::default()
    };
    let found = facts::collect(&ctx.ws, &filter, None);
    for m in &found.malformed {
        say(&m.to_string());
    }
    if let Some(e) = found.errors.first() {
        return Err(Error::Invalid(e.clone()));
    }
    let session = Session::open(&ctx.global)?;
    let compiler = wiki_apply::cmd::compiler(false, args.dry_run)?;
    let now = wiki_cli::iso_millis(ctx.now);
    let mut batch = Reflection::new(&found.facts, &ctx.ws.root, &now);
    let done = session::commit_batch(
        &session,
        &mut batch,
        &BatchOptions {
            origin: None,
            now: now.clone(),
            dry_run: args.dry_run,
            compiler: compiler.as_ref(),
            trace: session::trace_enabled(),
        },
    )?;
    let s = &batch.summary;
    if s.without_entity > 0 {
        say(&format!(
            "{} no @entity: not reflected",
            plural(s.without_entity, "fact mentions", "facts mention")
        ));
    }
    let commit = done.commit.map(|c| c.to_string());
    let mut p = Printer::new(ctx.json(false)?);
    p.record(&Record {
        kind: "reflect",
        commit: commit.clone(),
        dry_run: args.dry_run,
        summary: s,
    })?;
    let notes = {
        let mut n: Vec<&str> = found.facts.iter().map(|f| f.path.as_str()).collect();
        n.dedup();
        n.len()
    };
    p.line(&format!(
        "{}{}",
        if args.dry_run {
            "would reflect "
        } else {
            "reflected "
        },
        text(s, notes)
    ))?;
    for path in &s.pages_created {
        p.line(&format!("  created {path}"))?;
    }
    for path in &s.pages_updated {
        p.line(&format!("  updated {path}"))?;
    }
    match &commit {
        Some(c) => p.line(&format!("commit {}", &c[..c.len().min(12)]))?,
        None if !args.dry_run => p.line("nothing to commit")?,
        None => {}
    }
    p.flush()?;
    Ok(if found.malformed.is_empty() {
        exit::OK
    } else {
        exit::FOUND
    })
}
