//! `wiki memory promote`: a dreaming sweep — light, REM and deep phases, one commit each.

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer, agent_trailer, say};
use crate::dreams;
use crate::error::{Error, Result};
use crate::promote::{self, Candidate, Gates, Promotion};
use crate::shortterm::{self, PhaseEntry, Store};
use crate::time;
use crate::workspace::{self, FileWrite, Repo};

/// A dreaming sweep: rank the short-term recall store and promote what keeps being recalled into
/// MEMORY.md (reference §14.8).
///
/// Light phase: the candidates recalled in the last 2 days (at most 100) are listed in a
/// `## Light Sleep` block of today's daily note and in `memory/dreaming/light/<day>.md`, and get
/// a light hit in `memory/.dreams/phase-signals.json`. REM phase: concept tags recurring across
/// the last 7 days' candidates (strength ≥ 0.75, at most 10) go to a `## REM Sleep` block and
/// `memory/dreaming/rem/<day>.md`, their entries get a REM hit. Deep phase: every candidate is
/// scored (0.24 frequency + 0.30 relevance + 0.15 diversity + 0.15 recency + 0.10 consolidation +
/// 0.06 conceptual + phase boosts) and gated (score, signals, distinct queries, age ≤ 30 days);
/// the best (at most --limit) are appended to MEMORY.md under `## Promoted From Short-Term
/// Memory (<day>)`, each after its `<!-- openclaw-memory-promotion:memory:<path>:<start>:<end>
/// -->` marker with `<!-- trigger: … -->` (3 concept tags) and `<!-- importance: N -->`; the
/// sweep's diary entry goes to DREAMS.md (diary region, date line, `## Deep Sleep` block) and the
/// store marks them promoted. A promotion never drops more than a quarter of MEMORY.md's prior
/// entries (it is refused, exit 1). Each phase that changes something is one commit in the
/// workspace's repository, which `wiki rollback <commit>` undoes. `--json`: one
/// `{"type":"candidate"}` record per scored entry, one `{"type":"phase"}` per phase.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Show the ranking and what each phase would write; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Run only this phase.
    #[arg(long, value_enum, default_value = "all")]
    pub phase: Phase,

    /// Minimum score of a promotion.
    #[arg(long, value_name = "X", default_value_t = Gates::default().min_score)]
    pub min_score: f64,

    /// Minimum signals (recalls, daily ingestions, grounded backfills) of a promotion.
    #[arg(long, value_name = "N", default_value_t = Gates::default().min_recall_count)]
    pub min_recall_count: u64,

    /// Minimum distinct queries of a promotion.
    #[arg(long, value_name = "N", default_value_t = Gates::default().min_unique_queries)]
    pub min_unique_queries: usize,

    /// At most this many promotions.
    #[arg(long, value_name = "N", default_value_t = Gates::default().limit)]
    pub limit: usize,
}

/// The phases of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Phase {
    /// Light, then REM, then deep.
    All,
    /// Recent candidates into today's note.
    Light,
    /// Recurring patterns into today's note.
    Rem,
    /// Promotion into MEMORY.md and the diary.
    Deep,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CandidateRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    key: &'a str,
    source: String,
    score: f64,
    components: &'a promote::Components,
    signals: u64,
    unique_queries: usize,
    promoted: bool,
    refused: Option<&'a str>,
}

#[derive(Serialize)]
struct PhaseRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    phase: &'a str,
    count: usize,
    files: Vec<&'a str>,
    commit: Option<String>,
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

/// What a sweep shares between its phases.
struct Sweep<'a> {
    ctx: &'a Ctx,
    args: &'a Args,
    repo: Option<Repo>,
    store: Store,
    phases: Vec<PhaseEntry>,
    now_iso: String,
    day: String,
    printer: Printer,
}

impl Sweep<'_> {
    /// Commit `writes` (nothing in a dry run) and report the phase.
    fn finish(&mut self, phase: &str, count: usize, writes: Vec<FileWrite>) -> Result<()> {
        let commit = match (&self.repo, writes.is_empty()) {
            (Some(repo), false) => repo.commit(
                &writes,
                &format!(
                    "wiki memory promote: {phase} phase, {count} {}",
                    match phase {
                        "deep" => "promoted",
                        "rem" => "patterns",
                        _ => "candidates",
                    }
                ),
                &[
                    ("Wiki-Op".into(), format!("memory-{phase}")),
                    agent_trailer(self.ctx),
                ],
            )?,
            _ => None,
        };
        let files: Vec<&str> = writes.iter().map(|(p, _)| p.as_str()).collect();
        self.printer.record(&PhaseRecord {
            kind: "phase",
            phase,
            count,
            files: files.clone(),
            commit: commit.map(|c| c.to_string()),
        })?;
        let verb = if self.args.dry_run {
            "would write"
        } else {
            "wrote"
        };
        self.printer.line(&match (&commit, files.is_empty()) {
            (_, true) => format!("{phase}: {count}, nothing to write"),
            (Some(c), _) => format!(
                "{phase}: {count}, {verb} {} (commit {})",
                files.join(", "),
                &c.to_string()[..12]
            ),
            (None, _) => format!("{phase}: {count}, {verb} {}", files.join(", ")),
        })?;
        Ok(())
    }

    fn note_with_block(&self, light: bool, body: &str) -> Result<FileWrite> {
        let rel = format!("memory/{}.md", self.day);
        let existing = self
            .ctx
            .ws
            .read(&rel)?
            .unwrap_or_else(|| format!("# {}\n", self.day));
        let text = dreams::replace_block(&existing, &dreams::phase_block(light), body);
        Ok((rel, Some(text.into_bytes())))
    }

    fn report(&self, phase: &str, title: &str, lines: &[String]) -> FileWrite {
        (
            format!("memory/dreaming/{phase}/{}.md", self.day),
            Some(format!("# {title} — {}\n\n{}\n", self.day, lines.join("\n")).into_bytes()),
        )
    }

    fn phase_signals(&self) -> FileWrite {
        (
            shortterm::PHASE_SIGNALS_PATH.to_string(),
            Some(shortterm::render_phase_signals(&self.phases, &self.now_iso).into_bytes()),
        )
    }

    fn light(&mut self) -> Result<()> {
        let ranked = promote::rank(&self.store, &self.phases, &Gates::default(), self.ctx.now);
        let recent: Vec<&Candidate> = ranked
            .iter()
            .filter(|c| {
                c.entry.promoted_at.is_none()
                    && !shortterm::unpromotable(&c.entry.snippet)
                    && promote::days_since(&c.entry.last_recalled_at, self.ctx.now)
                        <= promote::LIGHT_LOOKBACK_DAYS
            })
            .take(promote::LIGHT_LIMIT)
            .collect();
        let lines: Vec<String> = recent
            .iter()
            .map(|c| {
                promote::candidate_line(
                    "Candidate",
                    &promote::promoted_text(&c.entry.snippet, 40),
                    c.score,
                    &c.entry,
                )
            })
            .collect();
        let keys: Vec<String> = recent.iter().map(|c| c.entry.key.clone()).collect();
        let mut writes = Vec::new();
        if !lines.is_empty() {
            shortterm::record_phase(&mut self.phases, &self.store, &keys, true, &self.now_iso);
            writes.push(self.note_with_block(true, &lines.join("\n"))?);
            writes.push(self.report("light", "Light Sleep", &lines));
            writes.push(self.phase_signals());
        }
        self.finish("light", lines.len(), writes)
    }

    fn rem(&mut self) -> Result<()> {
        let patterns = promote::patterns(&self.store, self.ctx.now);
        let lines: Vec<String> = patterns
            .iter()
            .map(|p| {
                promote::candidate_line(
                    "Reflection",
                    &format!("`{}` recurs in {} memories", p.tag, p.keys.len()),
                    p.strength,
                    &p.first,
                )
            })
            .collect();
        let mut writes = Vec::new();
        if !lines.is_empty() {
            let mut keys: Vec<String> = patterns.iter().flat_map(|p| p.keys.clone()).collect();
            keys.sort();
            keys.dedup();
            shortterm::record_phase(&mut self.phases, &self.store, &keys, false, &self.now_iso);
            writes.push(self.note_with_block(false, &lines.join("\n"))?);
            writes.push(self.report("rem", "REM Sleep", &lines));
            writes.push(self.phase_signals());
        }
        self.finish("rem", lines.len(), writes)
    }
}

/// Run `wiki memory promote`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    if !(0.0..=1.0).contains(&args.min_score) {
        return Err(Error::Usage(format!(
            "--min-score must be between 0 and 1, found {}",
            args.min_score
        )));
    }
    let now_iso = wiki_cli::iso_millis(ctx.now);
    let _lock = if args.dry_run {
        None
    } else {
        Some(shortterm::lock(&ctx.ws)?)
    };
    let repo = if args.dry_run {
        None
    } else {
        Some(ctx.ws.repo(ctx.vault().ok().as_deref())?)
    };
    let mut sweep = Sweep {
        ctx,
        args,
        repo,
        store: shortterm::read_store(&ctx.ws, &now_iso)?,
        phases: shortterm::read_phase_signals(&ctx.ws)?,
        day: time::day_string(ctx.now),
        now_iso,
        printer: Printer::new(ctx.json(false)?),
    };
    if matches!(args.phase, Phase::All | Phase::Light) {
        sweep.light()?;
    }
    if matches!(args.phase, Phase::All | Phase::Rem) {
        sweep.rem()?;
    }
    let code = if matches!(args.phase, Phase::All | Phase::Deep) {
        deep(&mut sweep)?
    } else {
        exit::OK
    };
    sweep.printer.flush()?;
    Ok(code)
}

/// The promotions of the ranked candidates that pass, with the text of their lines as the notes
/// hold them now (a candidate whose lines are gone or no longer promotable is refused).
fn promotions(ctx: &Ctx, ranked: &mut [Candidate], gates: &Gates, memory: &str) -> Vec<Promotion> {
    let mut out = Vec::new();
    for c in ranked.iter_mut().filter(|c| c.refused.is_none()) {
        let e = &c.entry;
        let current = ctx
            .ws
            .read(&e.path)
            .ok()
            .flatten()
            .and_then(|t| promote::lines_of(&t, e.start_line, e.end_line))
            .filter(|t| !shortterm::unpromotable(t));
        let Some(lines) = current else {
            c.refused = Some("its lines are gone from the note".into());
            continue;
        };
        let text = promote::promoted_text(&lines, gates.max_snippet_tokens);
        if promote::already_curated(memory, &text) {
            c.refused = Some("already in MEMORY.md".into());
            continue;
        }
        out.push(Promotion {
            key: e.key.clone(),
            path: e.path.clone(),
            start_line: e.start_line,
            end_line: e.end_line,
            triggers: e.concept_tags.iter().take(3).cloned().collect(),
            importance: promote::importance(c.score),
            score: round4(c.score),
            text,
        });
    }
    out
}

fn deep(sweep: &mut Sweep<'_>) -> Result<u8> {
    let (ctx, args) = (sweep.ctx, sweep.args);
    let gates = Gates {
        min_score: args.min_score,
        min_recall_count: args.min_recall_count,
        min_unique_queries: args.min_unique_queries,
        limit: args.limit,
        ..Gates::default()
    };
    let mut ranked = promote::rank(&sweep.store, &sweep.phases, &gates, ctx.now);
    let memory_rel = ctx.ws.existing_or_first(&workspace::CURATED_FILES);
    let memory = ctx.ws.read(memory_rel)?.unwrap_or_default();
    let promoted = promotions(ctx, &mut ranked, &gates, &memory);
    for c in &ranked {
        let is_promoted = promoted.iter().any(|p| p.key == c.entry.key);
        sweep.printer.record(&CandidateRecord {
            kind: "candidate",
            key: &c.entry.key,
            source: wiki_search::memory::citation(
                &c.entry.path,
                c.entry.start_line as usize,
                c.entry.end_line as usize,
            ),
            score: round4(c.score),
            components: &c.components,
            signals: c.entry.signal_count(),
            unique_queries: c.unique_queries,
            promoted: is_promoted,
            refused: c.refused.as_deref(),
        })?;
        let what = match (&c.refused, is_promoted) {
            (_, true) => "promote".to_string(),
            (Some(r), _) => format!("skip ({r})"),
            (None, false) => "skip".to_string(),
        };
        sweep.printer.line(&format!(
            "{:.3} {} {}",
            c.score,
            wiki_search::memory::citation(
                &c.entry.path,
                c.entry.start_line as usize,
                c.entry.end_line as usize
            ),
            what
        ))?;
    }
    if promoted.is_empty() {
        sweep.finish("deep", 0, Vec::new())?;
        return Ok(exit::OK);
    }
    let next = promote::append_promotions(&memory, &sweep.day, &promoted);
    let loss = promote::prior_loss(&memory, &next);
    if loss > gates.max_prior_loss {
        say(&format!(
            "{memory_rel}: the promotion would drop {:.0}% of the prior entries (at most 25%); nothing written",
            loss * 100.0
        ));
        return Ok(exit::FOUND);
    }
    let writes = deep_writes(sweep, memory_rel, next, &promoted)?;
    sweep.finish("deep", promoted.len(), writes)?;
    Ok(exit::OK)
}

fn deep_writes(
    sweep: &mut Sweep<'_>,
    memory_rel: &str,
    memory: String,
    promoted: &[Promotion],
) -> Result<Vec<FileWrite>> {
    let ctx = sweep.ctx;
    let lines: Vec<String> = promoted
        .iter()
        .map(|p| {
            format!(
                "- {} ({}, score {:.2}, importance {})",
                p.text,
                wiki_search::memory::citation(&p.path, p.start_line as usize, p.end_line as usize),
                p.score,
                p.importance
            )
        })
        .collect();
    let dreams_rel = ctx.ws.existing_or_first(&workspace::DREAMS_FILES);
    let diary = ctx.ws.read(dreams_rel)?.unwrap_or_default();
    let narrative = format!(
        "Deep sleep kept {} of the day's memories for good:\n\n{}",
        promoted.len(),
        lines.join("\n")
    );
    let diary = dreams::append_entry(&diary, &narrative, &dreams::narrative_date(ctx.now));
    let diary = dreams::replace_block(&diary, &dreams::deep_block(), &lines.join("\n"));
    for e in &mut sweep.store.entries {
        if promoted.iter().any(|p| p.key == e.key) {
            e.promoted_at = Some(sweep.now_iso.clone());
        }
    }
    sweep.store.updated_at = sweep.now_iso.clone();
    Ok(vec![
        (memory_rel.to_string(), Some(memory.into_bytes())),
        (dreams_rel.to_string(), Some(diary.into_bytes())),
        sweep.report("deep", "Deep Sleep", &lines),
        (
            shortterm::STORE_PATH.to_string(),
            Some(shortterm::render_store(&sweep.store).into_bytes()),
        ),
    ])
}
