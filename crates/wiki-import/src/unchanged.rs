//! Deciding that a re-ingest changes nothing without the vault lock, without parsing a page and
//! without compiling: the record of the last ingest.
//!
//! After an ingest of local files (committed or not), `wiki ingest` records in
//! `.openclaw-wiki/tmp/ingest-record.bin` (a derived, git-ignored [sealed](wiki_vault::sealed)
//! file) what the run left: for each input, the fingerprint of what it read (title and text) and
//! the page it maps to; for every page under `sources/`, its git blob id and, when its times
//! were settled ([`FileStat::settled`]), its stat data. Only pages whose bytes on disk are the
//! bytes the run read or committed are recorded: a page edited while the run committed makes the
//! run record nothing.
//!
//! The next ingest whose inputs all have the recorded fingerprints, on a `sources/` folder with
//! the same pages holding the same bytes (the same stat data, or else the same blob id), would
//! render every page as it is: it reports every input unchanged and writes nothing, without the
//! vault lock (a packer or another writer holding it is not waited for), the page frontmatter
//! or a compile. Anything else (a new or changed input, a page added, removed or edited, a URL,
//! another tool version, a missing or damaged record) goes the usual way, under the lock. A
//! record describes facts that stay true (these inputs render to these pages), so an old record
//! is at worst useless, never wrong.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use wiki_vault::pagecache::FileStat;

use crate::ingest::{Input, Origin, Outcome};

/// Where the record lives, relative to the vault.
pub const RECORD_PATH: &str = ".openclaw-wiki/tmp/ingest-record.bin";
const RECORD_NAME: &str = "ingest-record.bin";
const MAGIC: &[u8; 6] = b"WIKIIR";
/// The record's layout; raised whenever it changes.
const FORMAT: u32 = 1;
/// The record holds a few hundred bytes per page: a vault of a million pages stays far below.
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
    /// Source (canonical path) → what its input was and which page it maps to.
    sources: BTreeMap<String, SourceEntry>,
    /// Every page under `sources/` → its blob id and settled stat data.
    pages: BTreeMap<String, PageEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SourceEntry {
    input: [u8; 20],
    page_path: String,
    page_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PageEntry {
    blob: [u8; 20],
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

/// The pages under `sources/` with their stat data; `None` when one cannot be listed or statted
/// (the usual path reports it).
fn source_pages(vault: &Path) -> Option<Vec<(String, std::path::PathBuf, Option<FileStat>)>> {
    let listed = wiki_vault::scan_stat(vault).ok()?;
    let mut out = Vec::new();
    for f in listed {
        if wiki_vault::PageKind::from_path(&f.file.path) != Some(wiki_vault::PageKind::Source)
            || !wiki_vault::is_page_path(&f.file.path)
        {
            continue;
        }
        if f.file.problem.is_some() {
            return None;
        }
        let (_, stat) = f.stat?.ok()?;
        out.push((f.file.path, f.file.abs, stat));
    }
    Some(out)
}

/// The outcomes of ingesting `inputs` when the record shows that nothing would change (see the
/// module docs); `None` when that cannot be shown.
pub fn check(vault: &Path, inputs: &[Input]) -> Option<Vec<Outcome>> {
    if inputs.is_empty() || inputs.iter().any(|i| i.origin != Origin::File) {
        return None;
    }
    let record = load(vault)?;
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
    let pages = source_pages(vault)?;
    if pages.len() != record.pages.len() {
        return None;
    }
    let same = pages.par_iter().all(|(path, abs, stat)| {
        let Some(entry) = record.pages.get(path) else {
            return false;
        };
        if stat.is_some() && entry.stat == *stat {
            return true;
        }
        wiki_cli::read::read_bounded(abs, wiki_parse::page::PAGE_LIMIT)
            .is_ok_and(|b| blob_id(&b) == entry.blob)
    });
    same.then_some(outcomes)
}

/// What a run knows when it records: the page of each input, and the bytes (blob ids) it left in
/// every page under `sources/`.
pub struct Facts<'a> {
    /// Each input with its outcome (same order).
    pub outcomes: Vec<(&'a Input, Outcome)>,
    /// Page path → blob id of the bytes the run read or wrote (`None`: it removed the page).
    pub pages: HashMap<String, Option<[u8; 20]>>,
}

/// Record what a run left (see the module docs). Nothing is recorded when a page under
/// `sources/` does not hold the bytes the run left (edited meanwhile) or cannot be read; a
/// record that cannot be written is only a missed shortcut next time.
pub fn save(vault: &Path, facts: &Facts<'_>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let Some(listed) = source_pages(vault) else {
        return;
    };
    let expected = facts.pages.values().filter(|b| b.is_some()).count();
    if listed.len() != expected {
        return;
    }
    let pages: Option<BTreeMap<String, PageEntry>> = listed
        .into_par_iter()
        .map(|(path, abs, _)| {
            let want = (*facts.pages.get(&path)?)?;
            let file = std::fs::File::open(&abs).ok()?;
            let bytes =
                wiki_cli::read::read_open(file.try_clone().ok()?, wiki_parse::page::PAGE_LIMIT)
                    .ok()?;
            // Taken after the read: a write during it shows as other stat data next time.
            let stat = file.metadata().ok().as_ref().and_then(FileStat::of);
            (blob_id(&bytes) == want).then(|| {
                let stat = stat.filter(|s| s.settled(now));
                (path, PageEntry { blob: want, stat })
            })
        })
        .collect();
    let Some(pages) = pages else {
        return;
    };
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
    let record = Record {
        tool: tool_id(),
        sources,
        pages,
    };
    let bytes = wiki_vault::sealed::seal(MAGIC, FORMAT, &record, &[]);
    let dir = wiki_parse::layout::TMP_DIR;
    if let Err(e) = wiki_parse::layout::write_ignored_file(vault, dir, RECORD_NAME, &bytes) {
        wiki_cli::warn(
            &wiki_cli::program_name(),
            &format!("{}: cannot write the ingest record: {e}", RECORD_PATH),
        );
    }
}
