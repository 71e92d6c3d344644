//! `wiki memory rem-backfill`: grounded diary entries from historical notes, and their rollback.

use std::path::{Path, PathBuf};

use wiki_cli::exit;

use super::{Ctx, Printer};
use crate::error::{Error, Result};
use crate::shortterm::{self, GroundedItem, RecallHit};
use crate::workspace::{self, FileWrite};
use crate::{dreams, retain};

/// Replay historical daily notes as grounded entries of the dream diary, reversibly.
///
/// Each `YYYY-MM-DD.md` note under `--path` (sub-folders included) becomes one diary entry in
/// DREAMS.md: its date line, the `<!-- openclaw:dreaming:backfill-entry day=… source=… -->`
/// marker and `What Happened`, the note's Retain facts (else its first list items and
/// paragraphs, at most 5). A new backfill replaces the previous backfilled entries; ordinary
/// diary entries are kept. `--stage-short-term` also stages each item as a grounded candidate
/// (`groundedCount`) in the short-term store, for the deep phase to rank — it promotes nothing.
/// `--rollback` removes only backfilled diary entries; `--rollback-short-term` removes staged
/// entries that have grounded signals and no recall or daily signal (and their phase signals).
/// Each is one commit in the workspace's repository (`wiki rollback` undoes it too). The notes
/// are only read.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The folder of historical notes (e.g. ./memory).
    #[arg(long, value_name = "DIR", required_unless_present_any = ["rollback", "rollback_short_term"])]
    pub path: Option<PathBuf>,

    /// Also stage the grounded items in the short-term store (memory/.dreams/).
    #[arg(long, conflicts_with_all = ["rollback", "rollback_short_term"])]
    pub stage_short_term: bool,

    /// Remove the backfilled diary entries (ordinary entries stay).
    #[arg(long, conflicts_with = "path")]
    pub rollback: bool,

    /// Remove the staged grounded entries from the short-term store.
    #[arg(long, conflicts_with = "path")]
    pub rollback_short_term: bool,

    /// Show what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// At most this many items per entry.
const MAX_ITEMS: usize = 5;
/// The relevance of a staged grounded item.
const GROUNDED_SCORE: f64 = 0.7;

/// A historical note.
struct Note {
    day: String,
    /// The source named in the marker and the store (workspace-relative when inside it).
    source: String,
    /// `(line, text)` items.
    items: Vec<(usize, String)>,
}

fn notes_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let ft = entry.file_type().map_err(|e| Error::io(&p, e))?;
        if ft.is_dir() && !name.starts_with('.') && name != "dreaming" && name != "imports" {
            notes_under(&p, out)?;
        } else if ft.is_file()
            && name
                .strip_suffix(".md")
                .is_some_and(|s| workspace::day_prefix(s).is_some())
        {
            out.push(p);
        }
    }
    Ok(())
}

/// The items of a note: its Retain facts, else its list items and paragraphs (headings,
/// comments and dreaming's blocks left out).
fn items(rel: &str, text: &str) -> Vec<(usize, String)> {
    let (facts, _) = retain::parse(rel, None, text);
    if !facts.is_empty() {
        return facts
            .into_iter()
            .take(MAX_ITEMS)
            .map(|f| (f.line, f.content))
            .collect();
    }
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("<!-- openclaw:dreaming:") {
            in_block = t.ends_with(":start -->");
            continue;
        }
        if in_block || t.is_empty() || t.starts_with('#') || t.starts_with("<!--") {
            continue;
        }
        let item = t.trim_start_matches(['-', '*', '+']).trim();
        if !shortterm::unpromotable(item) {
            out.push((i + 1, item.to_string()));
        }
        if out.len() == MAX_ITEMS {
            break;
        }
    }
    out
}

fn read_notes(ctx: &Ctx, dir: &Path) -> Result<Vec<Note>> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let dir = wiki_cli::absolutize(dir, &cwd);
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{}: --path must be a folder of daily notes",
            dir.display()
        )));
    }
    let mut paths = Vec::new();
    notes_under(&dir, &mut paths)?;
    let mut notes = Vec::new();
    for p in paths {
        let canon = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source = match canon.strip_prefix(&ctx.ws.root) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => name.clone(),
        };
        let Some(text) = workspace::read_text(&p, &source)? else {
            continue;
        };
        let day = workspace::day_prefix(name.trim_end_matches(".md"))
            .map(|d| d.to_string())
            .unwrap_or_default();
        notes.push(Note {
            items: items(&source, &text),
            day,
            source,
        });
    }
    notes.sort_by(|a, b| a.day.cmp(&b.day).then_with(|| a.source.cmp(&b.source)));
    notes.retain(|n| !n.items.is_empty());
    Ok(notes)
}

fn entry(n: &Note) -> String {
    let mut body = vec!["What Happened".to_string()];
    body.extend(
        n.items
            .iter()
            .enumerate()
            .map(|(i, (_, t))| format!("{}. {t}", i + 1)),
    );
    dreams::backfill_entry(&n.day, &body, &n.source)
}

fn grounded(notes: &[Note]) -> Vec<GroundedItem> {
    notes
        .iter()
        .flat_map(|n| {
            n.items.iter().map(|(line, text)| GroundedItem {
                hit: RecallHit {
                    path: n.source.clone(),
                    start_line: *line,
                    end_line: *line,
                    snippet: text.clone(),
                    score: GROUNDED_SCORE,
                },
                query: shortterm::GROUNDED_QUERY.to_string(),
                signal_count: 1,
                day: n.day.clone(),
            })
        })
        .collect()
}

/// Run `wiki memory rem-backfill`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let now_iso = wiki_cli::iso_millis(ctx.now);
    let _lock = (!args.dry_run)
        .then(|| shortterm::lock(&ctx.ws))
        .transpose()?;
    let dreams_rel = ctx.ws.existing_or_first(&workspace::DREAMS_FILES);
    let diary = ctx.ws.read(dreams_rel)?.unwrap_or_default();
    let mut writes: Vec<FileWrite> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    if args.rollback || args.rollback_short_term {
        if args.rollback {
            let (text, removed) = dreams::strip_backfill(&diary);
            if removed > 0 {
                writes.push((dreams_rel.to_string(), Some(text.into_bytes())));
            }
            said.push(format!("removed {removed} backfilled diary entries"));
        }
        if args.rollback_short_term {
            let mut store = shortterm::read_store(&ctx.ws, &now_iso)?;
            let removed = shortterm::remove_grounded(&mut store, &now_iso);
            if !removed.is_empty() {
                let mut phases = shortterm::read_phase_signals(&ctx.ws)?;
                phases.retain(|p| !removed.contains(&p.key));
                writes.push((
                    shortterm::STORE_PATH.to_string(),
                    Some(shortterm::render_store(&store).into_bytes()),
                ));
                writes.push((
                    shortterm::PHASE_SIGNALS_PATH.to_string(),
                    Some(shortterm::render_phase_signals(&phases, &now_iso).into_bytes()),
                ));
            }
            said.push(format!(
                "removed {} staged short-term entries",
                removed.len()
            ));
        }
    } else {
        let dir = args.path.as_deref().unwrap_or(Path::new("memory"));
        let notes = read_notes(ctx, dir)?;
        let entries: Vec<String> = notes.iter().map(entry).collect();
        let (text, written, replaced) = dreams::write_backfill(&diary, &entries);
        if text != diary {
            writes.push((dreams_rel.to_string(), Some(text.into_bytes())));
        }
        said.push(format!(
            "backfilled {written} diary entries from {} notes (replacing {replaced})",
            notes.len()
        ));
        if args.stage_short_term {
            let mut store = shortterm::read_store(&ctx.ws, &now_iso)?;
            let staged = shortterm::record_grounded(&mut store, &grounded(&notes), &now_iso);
            writes.push((
                shortterm::STORE_PATH.to_string(),
                Some(shortterm::render_store(&store).into_bytes()),
            ));
            said.push(format!("staged {staged} grounded short-term candidates"));
        }
    }
    let subject = format!("wiki memory rem-backfill: {}", said.join(", "));
    let commit =
        super::commit_workspace(ctx, &writes, &subject, "memory-rem-backfill", args.dry_run)?;
    let mut p = Printer::new(ctx.json(false)?);
    #[derive(serde::Serialize)]
    struct Record<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        summary: &'a [String],
        files: Vec<&'a str>,
        commit: Option<String>,
        #[serde(rename = "dryRun")]
        dry_run: bool,
    }
    p.record(&Record {
        kind: "rem-backfill",
        summary: &said,
        files: writes.iter().map(|(f, _)| f.as_str()).collect(),
        commit: commit.map(|c| c.to_string()),
        dry_run: args.dry_run,
    })?;
    let lead = if args.dry_run { "would have " } else { "" };
    p.line(&format!("{lead}{}", said.join(", ")))?;
    if let Some(c) = commit {
        p.line(&format!("commit {}", &c.to_string()[..12]))?;
    }
    p.flush()?;
    Ok(exit::OK)
}
