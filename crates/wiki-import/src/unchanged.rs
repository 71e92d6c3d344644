//! Deciding that a re-ingest changes nothing without the vault lock, without parsing a page and
//! without compiling: the record of the last ingest.
//!
//! After an ingest of local files that reported no problem, `wiki ingest` records in
//! `.openclaw-wiki/tmp/ingest-record.bin` (a derived, git-ignored [sealed](wiki_vault::sealed)
//! file) the state the run left, which is a state in which ingesting the same inputs again and
//! compiling changes nothing:
//!
//! * for each input, the fingerprint of what it read (title and text) and the page it maps to;
//! * every file a compile reads ([`wiki_vault::snapshot::tracks`]: the pages of every kind, the
//!   index files, the compiled caches and the state files), each with its git blob id and/or,
//!   when its times were settled ([`FileStat::settled`]), its stat data;
//! * a fingerprint of the configuration ([`config_fingerprint`]: render mode, backlinks,
//!   dashboards and every other setting);
//! * the clock window of the run's compile in which no freshness level changes (from the parse
//!   cache's label, [`wiki_digest::reuse::Recorded`], checked against the compiled caches the
//!   run left).
//!
//! Only what the run saw is recorded: a tracked file whose bytes on disk are not those the run's
//! compile read (its snapshot) or the run committed makes the run record nothing (it was edited
//! meanwhile), as does a compile that recorded no clock window.
//!
//! The next ingest whose inputs all have the recorded fingerprints, with the same configuration,
//! at a time inside the window, on a vault whose tracked files are exactly the recorded ones
//! holding the same bytes (the same stat data, or else the same blob id) would render every page
//! as it is and compile nothing: it reports every input unchanged and writes nothing, without the
//! vault lock (a packer or another writer holding it is not waited for), the page frontmatter or
//! a compile. Anything else (a new, changed or renamed input, a page added, removed or edited
//! anywhere, a compiled file removed, another setting, `--title`, a URL, another tool version,
//! time crossing a freshness boundary, a missing or damaged record) goes the usual way, under the
//! lock. A record describes a state, so an old record is at worst useless, never wrong.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use wiki_vault::pagecache::FileStat;

use crate::ingest::{Input, Origin, Outcome};

/// Where the record lives, relative to the vault.
pub const RECORD_PATH: &str = ".openclaw-wiki/tmp/ingest-record.bin";
const RECORD_NAME: &str = "ingest-record.bin";
const MAGIC: &[u8; 6] = b"WIKIIR";
/// The record's layout; raised whenever it changes.
const FORMAT: u32 = 2;
/// The record holds a few hundred bytes per file: a vault of a million pages stays far below.
const LIMIT: wiki_cli::read::Limit = wiki_cli::read::Limit::new("the ingest record", 1 << 30);

fn tool_id() -> String {
    format!("wiki-import {}", env!("CARGO_PKG_VERSION"))
}

/// The record (see the module docs).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    /// The tool version that wrote it: another version's record is ignored (its pages may
    /// render differently).
    tool: String,
    /// [`config_fingerprint`] of the run's configuration.
    config: [u8; 20],
    /// Clock window `[from, until)` (ms) in which the run's compile stays current.
    window: (i64, i64),
    /// Source (canonical path) → what its input was and which page it maps to.
    sources: BTreeMap<String, SourceEntry>,
    /// Every tracked file → its blob id and/or settled stat data.
    files: BTreeMap<String, FileEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SourceEntry {
    input: [u8; 20],
    page_path: String,
    page_id: String,
}

/// What a tracked file held: at least one of the two is set.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FileEntry {
    blob: Option<[u8; 20]>,
    stat: Option<FileStat>,
}

/// The fingerprint of what an input read: its title and text.
pub fn fingerprint(input: &Input) -> [u8; 20] {
    let mut h = sha1_smol::Sha1::new();
    h.update(input.title.as_bytes());
    h.update(b"\0");
    h.update(input.text.as_bytes());
    h.digest().bytes()
}

/// The fingerprint of a configuration: every resolved setting and where it came from.
pub fn config_fingerprint(config: &wiki_cli::config::WikiConfig) -> [u8; 20] {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("{config:?}").as_bytes());
    h.digest().bytes()
}

/// The git blob id of `bytes`, raw.
pub fn blob_id(bytes: &[u8]) -> [u8; 20] {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.digest().bytes()
}

fn load(vault: &Path) -> Option<Record> {
    let bytes = wiki_cli::read::read_bounded(&vault.join(RECORD_PATH), LIMIT).ok()?;
    let (record, _, _) = wiki_vault::sealed::unseal::<Record>(&bytes, MAGIC, FORMAT).ok()?;
    (record.tool == tool_id()).then_some(record)
}

/// A tracked file as listed: vault path, absolute path, stat data.
type Listed = (String, PathBuf, FileStat);

/// Every file of the vault a compile reads ([`wiki_vault::snapshot::tracks`]) with its stat
/// data; `None` when one cannot be listed or statted, or is not a regular file (the usual path
/// reports it).
fn tracked_files(vault: &Path) -> Option<Vec<Listed>> {
    let listed = wiki_vault::scan_stat(vault).ok()?;
    let mut out: BTreeMap<String, (PathBuf, FileStat)> = BTreeMap::new();
    for f in listed {
        if !wiki_vault::snapshot::tracks(&f.file.path) {
            continue;
        }
        if f.file.problem.is_some() {
            return None;
        }
        let (_, stat) = f.stat?.ok()?;
        out.insert(f.file.path, (f.file.abs, stat?));
    }
    for rel in wiki_vault::snapshot::EXTRA_PATHS {
        let abs = vault.join(rel);
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.is_file() => {
                out.insert(rel.to_string(), (abs, FileStat::of(&m)?));
            }
            Ok(_) => return None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
    }
    Some(out.into_iter().map(|(p, (a, s))| (p, a, s)).collect())
}

/// What the current run sees: its inputs, configuration and clock.
pub struct Run<'a> {
    /// The inputs collected.
    pub inputs: &'a [Input],
    /// [`config_fingerprint`] of the configuration.
    pub config: [u8; 20],
    /// The run's clock (ms since the epoch).
    pub now_ms: i64,
}

/// The outcomes of ingesting `run.inputs` when the record shows that nothing would change (see
/// the module docs); `None` when that cannot be shown.
pub fn check(vault: &Path, run: &Run<'_>) -> Option<Vec<Outcome>> {
    let inputs = run.inputs;
    if inputs.is_empty() || inputs.iter().any(|i| i.origin != Origin::File) {
        return None;
    }
    let record = load(vault)?;
    if record.config != run.config || !(record.window.0..record.window.1).contains(&run.now_ms) {
        return None;
    }
    let outcomes = inputs
        .par_iter()
        .map(|input| {
            let e = record.sources.get(&input.source)?;
            (e.input == fingerprint(input)).then(|| Outcome {
                source_path: input.source.clone(),
                page_id: e.page_id.clone(),
                page_path: e.page_path.clone(),
                title: input.title.clone(),
                bytes: input.text.len(),
                created: false,
                changed: false,
            })
        })
        .collect::<Option<Vec<Outcome>>>()?;
    let files = tracked_files(vault)?;
    if files.len() != record.files.len() {
        return None;
    }
    let same = files.par_iter().all(|(path, abs, stat)| {
        let Some(entry) = record.files.get(path) else {
            return false;
        };
        if entry.stat == Some(*stat) {
            return true;
        }
        entry.blob.is_some_and(|want| {
            read_file(path, abs).is_some_and(|(bytes, _)| blob_id(&bytes) == want)
        })
    });
    same.then_some(outcomes)
}

/// The bytes of the tracked file `path` at `abs` (bounded by its kind) and its stat data taken
/// after the read (a write during the read shows as other stat data).
fn read_file(path: &str, abs: &Path) -> Option<(Vec<u8>, Option<FileStat>)> {
    let limit = if wiki_parse::layout::is_derived(path) {
        wiki_vault::DERIVED_LIMIT
    } else {
        wiki_vault::PAGE_LIMIT
    };
    let file = std::fs::File::open(abs).ok()?;
    let bytes = wiki_cli::read::read_open(file.try_clone().ok()?, limit).ok()?;
    let stat = file.metadata().ok().as_ref().and_then(FileStat::of);
    Some((bytes, stat))
}

/// What a run knows when it records.
pub struct Facts<'a> {
    /// Each input with its outcome (same order).
    pub outcomes: Vec<(&'a Input, Outcome)>,
    /// Tracked file → blob id of the bytes the run read or wrote (`None`: it removed the
    /// file).
    pub files: HashMap<String, Option<[u8; 20]>>,
    /// Whether every input's page was written (no problem reported).
    pub clean: bool,
}

/// The entry of the tracked file `path` for the record when it holds `want` (the bytes the run
/// read or wrote), with its stat data when settled at `now` (Unix seconds).
fn entry_of(path: &str, abs: &Path, want: [u8; 20], now: i64) -> Option<FileEntry> {
    let (bytes, stat) = read_file(path, abs)?;
    (blob_id(&bytes) == want).then(|| FileEntry {
        blob: Some(want),
        stat: stat.filter(|s| s.settled(now)),
    })
}

/// The clock window of the compile the run made (the parse cache's label), when the compiled
/// caches on disk are those it recorded.
fn compile_window(vault: &Path, now_ms: i64) -> Option<(i64, i64)> {
    let cache = wiki_vault::pagecache::ParseCache::load(vault);
    let recorded = wiki_digest::reuse::Recorded::from_label(cache.label())?;
    let read = |rel: &str| {
        wiki_cli::read::read_bounded(&vault.join(rel), wiki_vault::DERIVED_LIMIT)
            .unwrap_or_default()
    };
    let digest = read(wiki_parse::layout::AGENT_DIGEST_PATH);
    let claims = read(wiki_parse::layout::CLAIMS_PATH);
    recorded
        .matches(&digest, &claims, now_ms)
        .then_some(recorded.window)
}

/// Record what a run left (see the module docs), or remove the record when that cannot be
/// vouched for. A record that cannot be written is only a missed shortcut next time.
pub fn save(vault: &Path, run: &Run<'_>, facts: &Facts<'_>) {
    let record = facts.clean.then(|| build(vault, run, facts)).flatten();
    let Some(record) = record else {
        let _ = std::fs::remove_file(vault.join(RECORD_PATH));
        return;
    };
    let bytes = wiki_vault::sealed::seal(MAGIC, FORMAT, &record, &[]);
    let dir = wiki_parse::layout::TMP_DIR;
    if let Err(e) = wiki_parse::layout::write_ignored_file(vault, dir, RECORD_NAME, &bytes) {
        wiki_cli::warn(
            &wiki_cli::program_name(),
            &format!("{RECORD_PATH}: cannot write the ingest record: {e}"),
        );
    }
}

fn build(vault: &Path, run: &Run<'_>, facts: &Facts<'_>) -> Option<Record> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let window = compile_window(vault, run.now_ms)?;
    let listed = tracked_files(vault)?;
    // Every file the run left must be there, and no file it removed.
    let present = listed
        .iter()
        .filter(|(p, _, _)| facts.files.get(p).is_some_and(Option::is_some))
        .count();
    if present != facts.files.values().filter(|b| b.is_some()).count() {
        return None;
    }
    let files: BTreeMap<String, FileEntry> = listed
        .par_iter()
        .map(|(path, abs, _)| {
            let want = (*facts.files.get(path)?)?;
            Some((path.clone(), entry_of(path, abs, want, now)?))
        })
        .collect::<Option<_>>()?;
    let sources = facts
        .outcomes
        .iter()
        .filter(|(i, _)| i.origin == Origin::File)
        .map(|(i, o)| {
            let entry = SourceEntry {
                input: fingerprint(i),
                page_path: o.page_path.clone(),
                page_id: o.page_id.clone(),
            };
            (i.source.clone(), entry)
        })
        .collect();
    Some(Record {
        tool: tool_id(),
        config: run.config,
        window,
        sources,
        files,
    })
}
