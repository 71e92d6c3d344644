//! The compile cache: lets a compile that would change nothing finish without parsing the vault.
//!
//! Compile is deterministic: the same files, options and freshness levels give the same bytes.
//! After a compile, `wiki compile` records in `.openclaw-wiki/tmp/compile-cache.json` (a derived,
//! git-ignored file: the directory gets a `.gitignore` of `*`):
//!
//! * `key`: a SHA-1 over the tool version, [`FORMAT`], the options and the git blob id of every
//!   file of the resulting [`Snapshot`] (pages, indexes, cache files, state) — the state in which
//!   compiling again changes nothing;
//! * `validFrom` / `validUntil`: the clock window in which no freshness level can change. Levels
//!   change only when `now − ts` crosses 30 or 90 days for some page, claim or evidence
//!   timestamp `ts`, so the window is bounded by the nearest `ts + 30d` / `ts + 90d` around `now`;
//! * page counts, claim count and page errors, to print the same summary.
//!
//! The next compile reads the snapshot, computes its key, and when the key matches and `now` is
//! inside the window, it knows the compiled files are current (exit 0, no commit) without
//! parsing anything. Any edit to any tracked file, another render mode or flag, another tool
//! version, or time moving a claim across a freshness boundary makes it a miss, and the full
//! compile runs. `--json` output and `--force` always run the full compile. The cache is never
//! committed and can be deleted at any time.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wiki_parse::{PageError, PageInfo};

use crate::compile::CompileOptions;
use crate::pages::PageCounts;
use wiki_store::Change;
use wiki_vault::pagecache::FileStat;
use wiki_vault::snapshot::Snapshot;

/// Bump when compiled output changes for the same input.
pub const FORMAT: u32 = 1;
/// Cache file, vault-relative.
pub const CACHE_PATH: &str = ".openclaw-wiki/tmp/compile-cache.json";

/// What the cache file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheEntry {
    /// Tool version and format.
    pub tool: String,
    /// Snapshot key (see the module docs).
    pub key: String,
    /// Start of the clock window (ms since the epoch, inclusive).
    pub valid_from: i64,
    /// End of the clock window (exclusive).
    pub valid_until: i64,
    /// Page counts of the compiled vault.
    pub page_counts: PageCounts,
    /// Claims of the compiled vault.
    pub claim_count: usize,
    /// Pages that failed to parse.
    pub errors: Vec<PageError>,
    /// The derived caches (`agent-digest.json`, `claims.jsonl`) the compile left, by the stat
    /// data they had, settled, when it recorded them: the next compile whose snapshot lists
    /// them with the same stat data takes their blob ids from here instead of reading and
    /// hashing them (tens of megabytes on a large vault). Files written by the compile itself
    /// are not settled yet: the next compile that finds them settled records them.
    #[serde(default)]
    pub derived: Vec<DerivedRecord>,
}

/// A derived cache as a compile left it (see [`CacheEntry::derived`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DerivedRecord {
    /// Vault path.
    pub path: String,
    /// Its stat data (settled).
    pub stat: FileStat,
    /// Its git blob id.
    pub blob: String,
}

fn tool_id() -> String {
    format!("wiki-digest {} format {FORMAT}", env!("CARGO_PKG_VERSION"))
}

/// The key of a snapshot compiled with `opts` (the clock is not part of it).
pub fn key(snapshot: &Snapshot, opts: &CompileOptions) -> String {
    key_with_changes(snapshot, &[], opts, None)
}

/// [`key`], taking the blob ids of the derived caches that `entry` recorded with the stat data
/// they still have from it ([`CacheEntry::derived`]).
pub fn key_trusting(snapshot: &Snapshot, opts: &CompileOptions, entry: &CacheEntry) -> String {
    key_with_changes(snapshot, &[], opts, Some(&entry.derived))
}

/// The key of `snapshot` with `changes` applied (what [`Snapshot::overlay`] would give), without
/// copying the snapshot; the blob ids of derived caches from `trusted` where it recorded their
/// stat data.
pub fn key_with_changes(
    snapshot: &Snapshot,
    changes: &[Change],
    opts: &CompileOptions,
    trusted: Option<&[DerivedRecord]>,
) -> String {
    let trust = |path: &str, stat: &FileStat| {
        trusted?
            .iter()
            .find(|r| r.path == path && r.stat == *stat)
            .map(|r| r.blob.clone())
    };
    let mut ids: std::collections::BTreeMap<&str, String> =
        snapshot.blob_ids_trusting(trust).into_iter().collect();
    for c in changes {
        if wiki_vault::snapshot::tracks(&c.path) {
            match &c.content {
                Some(b) => ids.insert(c.path.as_str(), wiki_parse::page::git_blob_id(b)),
                None => ids.remove(c.path.as_str()),
            };
        }
    }
    let ids: Vec<String> = ids
        .into_iter()
        .map(|(p, id)| format!("{p}\0{id}\n"))
        .collect();
    let mut text = format!(
        "{}\nrender={:?} backlinks={} dashboards={}\n",
        tool_id(),
        opts.render_mode.map(|m| m.as_str()),
        opts.backlinks,
        opts.dashboards
    );
    for id in ids {
        text.push_str(&id);
    }
    for e in snapshot.problems() {
        text.push_str(&format!("problem {e}\n"));
    }
    wiki_parse::slug::sha1_hex(&text)
}

fn cache_file(vault: &Path) -> PathBuf {
    vault.join(CACHE_PATH)
}

/// Read the cache entry of the vault, if any (a broken file is ignored).
pub fn load(vault: &Path) -> Option<CacheEntry> {
    let bytes = wiki_cli::read::read_bounded(&cache_file(vault), wiki_vault::DERIVED_LIMIT).ok()?;
    let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
    (entry.tool == tool_id()).then_some(entry)
}

/// Whether `entry` says a snapshot with `key` is current at `now_ms`.
pub fn is_hit(entry: &CacheEntry, key: &str, now_ms: i64) -> bool {
    entry.key == key && entry.valid_from <= now_ms && now_ms < entry.valid_until
}

/// Build the entry for a compiled vault.
pub fn entry(
    key: String,
    pages: &[PageInfo],
    counts: PageCounts,
    claim_count: usize,
    errors: &[PageError],
    now_ms: i64,
) -> CacheEntry {
    let (valid_from, valid_until) = wiki_parse::health::validity(pages, now_ms);
    CacheEntry {
        tool: tool_id(),
        key,
        valid_from,
        valid_until,
        page_counts: counts,
        claim_count,
        errors: errors.to_vec(),
        derived: Vec::new(),
    }
}

/// Write the cache entry (and the `.gitignore` that keeps `.openclaw-wiki/tmp/` out of git).
/// Failures are returned for the caller to report as a warning; the cache is optional.
pub fn save(vault: &Path, entry: &CacheEntry) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(entry).map_err(std::io::Error::other)?;
    wiki_parse::layout::write_ignored_file(
        vault,
        wiki_parse::layout::TMP_DIR,
        "compile-cache.json",
        text.as_bytes(),
    )
}

/// Record that `snapshot` compiled with `opts` produced `result` and that `result.changes` were
/// written: the next `wiki compile` on the resulting files is a cache hit. For other commands
/// that compile and commit (lint, apply); warnings are for the caller to print.
pub fn record(
    vault: &Path,
    snapshot: &Snapshot,
    result: &crate::compile::CompileResult,
    opts: &CompileOptions,
) -> std::io::Result<()> {
    let mut entry = entry(
        key_with_changes(snapshot, &result.changes, opts, None),
        &result.pages,
        result.page_counts,
        result.claim_count,
        &result.errors,
        opts.now.as_millisecond(),
    );
    entry.derived = derived_records(vault, snapshot, &result.changes);
    save(vault, &entry)
}

/// The derived caches of `snapshot` that `changes` leave alone and whose stat data, settled
/// when the snapshot listed them, is still theirs now, with their blob ids: their bytes (read
/// after that listing, or now) are those of that stat data, since any write since the listing
/// would have changed it.
fn derived_records(vault: &Path, snapshot: &Snapshot, changes: &[Change]) -> Vec<DerivedRecord> {
    [
        wiki_parse::layout::AGENT_DIGEST_PATH,
        wiki_parse::layout::CLAIMS_PATH,
    ]
    .into_iter()
    .filter(|path| !changes.iter().any(|c| c.path == *path))
    .filter_map(|path| {
        let stat = snapshot.derived_stat(path)?;
        let bytes = snapshot.get(path)?;
        let now = std::fs::symlink_metadata(vault.join(path)).ok()?;
        (FileStat::of(&now)? == stat).then(|| DerivedRecord {
            path: path.to_string(),
            stat,
            blob: wiki_parse::page::git_blob_id(bytes),
        })
    })
    .collect()
}

/// Remove the cache entry (used when a compile could not commit).
pub fn clear(vault: &Path) {
    let _ = std::fs::remove_file(cache_file(vault));
}
