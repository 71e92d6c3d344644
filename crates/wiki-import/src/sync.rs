//! What bridge and unsafe-local imports share (reference §11.3–11.5): source pages rendered from
//! files outside the vault, the sync state `.openclaw-wiki/source-sync.json`, skip-when-unchanged,
//! pruning, and the post-import index refresh.
//!
//! The sync state is `{"version": 1, "entries": {<syncKey>: {group, pagePath, sourcePath,
//! sourceUpdatedAtMs, sourceSize, renderFingerprint}}}` (pretty JSON, trailing newline; an
//! unreadable file counts as empty). It is committed with the pages it describes, so rolling an
//! import back also rolls its state back. A source whose entry matches (same page, path,
//! modification time, size and fingerprint) and whose page exists is not even read. Otherwise
//! its page is rendered (keeping the page's human notes and Related block) and written only when
//! it differs. Entries of the group not seen in this run are pruned (page deleted) unless the
//! importer's guard rail keeps them.

use std::borrow::Cow;
use std::cell::Cell;
use std::path::Path;

use serde_json::{Map, Value as Json};
use yaml_serde::Mapping;

use wiki_apply::edit::FileChange;
use wiki_apply::error::Result;
use wiki_apply::files::VaultFiles;
use wiki_apply::session::Batch;

use crate::problem::Problem;
use crate::render::{self, s};

/// The sync state file.
pub const STATE_PATH: &str = ".openclaw-wiki/source-sync.json";

/// The directory indexes whose absence makes an import refresh them.
pub const INDEX_FILES: [&str; 6] = [
    "index.md",
    "entities/index.md",
    "concepts/index.md",
    "sources/index.md",
    "syntheses/index.md",
    "reports/index.md",
];

/// How a source page looks, apart from the content and `updatedAt`.
#[derive(Debug, Clone)]
pub struct Template {
    /// Frontmatter keys before `status` and `updatedAt` (which are added last).
    pub frontmatter: Mapping,
    /// The page title (`# <title>`).
    pub title: String,
    /// The provenance section heading (`## Bridge Source`).
    pub section: &'static str,
    /// Its bullet lines before `- Updated: …`.
    pub lines: Vec<String>,
    /// The content fence's info string.
    pub fence_info: &'static str,
}

impl Template {
    /// The page for `raw` content last modified at `updated_at`.
    pub fn render(&self, raw: &str, updated_at: &str) -> String {
        let mut fm = self.frontmatter.clone();
        fm.insert(s("status"), s("active"));
        fm.insert(s("updatedAt"), s(updated_at));
        let mut body = format!("# {}\n\n## {}\n", self.title, self.section);
        for l in &self.lines {
            body.push_str(l);
            body.push('\n');
        }
        body.push_str(&format!(
            "- Updated: {updated_at}\n\n## Content\n{}\n\n{}",
            render::fence(raw, self.fence_info),
            render::notes_section()
        ));
        render::page(&fm, &body)
    }
}

/// One file to mirror as a source page.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The canonical path (the sync state key).
    pub sync_key: String,
    /// The path written to the page and the state (as listed).
    pub source_path: String,
    /// `sources/….md`.
    pub page_path: String,
    /// SHA-1 of what decides the rendering besides the content.
    pub fingerprint: String,
    /// The page's shape.
    pub template: Template,
}

/// One entry of the sync state.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// `bridge` or `unsafe-local`.
    pub group: String,
    /// The page.
    pub page_path: String,
    /// The source file.
    pub source_path: String,
    /// Its modification time in milliseconds.
    pub updated_ms: f64,
    /// Its size.
    pub size: u64,
    /// The rendering fingerprint.
    pub fingerprint: String,
}

impl Entry {
    fn from_json(v: &Json) -> Option<Entry> {
        Some(Entry {
            group: v.get("group")?.as_str()?.to_string(),
            page_path: v.get("pagePath")?.as_str()?.to_string(),
            source_path: v.get("sourcePath")?.as_str()?.to_string(),
            updated_ms: v.get("sourceUpdatedAtMs")?.as_f64()?,
            size: v.get("sourceSize")?.as_u64()?,
            fingerprint: v.get("renderFingerprint")?.as_str()?.to_string(),
        })
    }

    fn to_json(&self) -> Json {
        serde_json::json!({
            "group": self.group,
            "pagePath": self.page_path,
            "sourcePath": self.source_path,
            "sourceUpdatedAtMs": ms_json(self.updated_ms),
            "sourceSize": self.size,
            "renderFingerprint": self.fingerprint,
        })
    }
}

/// A millisecond time as JavaScript writes it: an integer when it is one.
fn ms_json(ms: f64) -> Json {
    if ms.fract() == 0.0 && (0.0..9.0e15).contains(&ms) {
        Json::from(ms as u64)
    } else {
        serde_json::Number::from_f64(ms).map_or(Json::Null, Json::Number)
    }
}

/// The entries of a sync state file, in file order (entries that are not well formed dropped).
fn read_state(bytes: Option<&[u8]>) -> Vec<(String, Entry)> {
    let Some(v) = bytes.and_then(|b| serde_json::from_slice::<Json>(b).ok()) else {
        return Vec::new();
    };
    v.get("entries")
        .and_then(Json::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, e)| Entry::from_json(e).map(|e| (k.clone(), e)))
                .collect()
        })
        .unwrap_or_default()
}

fn write_state(entries: &[(String, Entry)]) -> Vec<u8> {
    let mut map = Map::new();
    for (k, e) in entries {
        map.insert(k.clone(), e.to_json());
    }
    let v = serde_json::json!({ "version": 1, "entries": map });
    let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
    out.push('\n');
    out.into_bytes()
}

/// A file's modification time in milliseconds (as Node's `mtimeMs`) and its size.
pub fn stat(path: &Path) -> std::io::Result<(f64, u64)> {
    let m = std::fs::metadata(path)?;
    let ms = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| {
            d.as_secs() as f64 * 1e3 + f64::from(d.subsec_nanos()) / 1e6
        });
    Ok((ms, m.len()))
}

/// `Date(ms).toISOString()`; out-of-range times fall back to `now`.
pub fn iso_of_ms(ms: f64, now: &str) -> String {
    if !ms.is_finite() || ms <= 0.0 || ms > 8.64e15 {
        return now.to_string();
    }
    let whole = ms.floor() as i64;
    jiff::Timestamp::from_millisecond(whole).map_or_else(|_| now.to_string(), wiki_cli::iso_millis)
}

/// The SHA-1 hex of compact JSON (the original's fingerprints).
pub fn fingerprint(v: &Json) -> String {
    wiki_parse::slug::sha1_hex(&v.to_string())
}

/// What happened to one doc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synced {
    /// The page.
    pub page_path: String,
    /// Whether the page changed.
    pub changed: bool,
    /// Whether it did not exist.
    pub created: bool,
}

/// Counts and pages of a sync.
#[derive(Debug, Clone, Default)]
pub struct SyncOutcome {
    /// One per doc written or skipped.
    pub synced: Vec<Synced>,
    /// Pages pruned.
    pub removed: Vec<String>,
    /// Docs that could not be read or written.
    pub problems: Vec<Problem>,
    /// Whether the directory indexes were all present.
    pub indexes_present: bool,
}

impl SyncOutcome {
    /// Changed pages that are new.
    pub fn imported(&self) -> usize {
        self.synced
            .iter()
            .filter(|d| d.changed && d.created)
            .count()
    }
    /// Changed pages that existed.
    pub fn updated(&self) -> usize {
        self.synced
            .iter()
            .filter(|d| d.changed && !d.created)
            .count()
    }
    /// Unchanged pages.
    pub fn skipped(&self) -> usize {
        self.synced.iter().filter(|d| !d.changed).count()
    }
    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        self.imported() + self.updated() + self.removed.len() > 0
    }
    /// Page paths, sorted.
    pub fn page_paths(&self) -> Vec<String> {
        let mut p: Vec<String> = self.synced.iter().map(|d| d.page_path.clone()).collect();
        p.sort();
        p
    }
}

/// The batch of a bridge or unsafe-local sync.
pub struct SyncBatch<'a> {
    /// `bridge` or `unsafe-local`.
    pub group: &'static str,
    /// The commit's `Wiki-Op` (`bridge-import`).
    pub op: &'static str,
    /// The command in the commit subject (`bridge import`).
    pub command: &'static str,
    /// The files to mirror.
    pub docs: &'a [Doc],
    /// For an entry of the group not seen in this run: keep it (do not prune).
    pub keep_unseen: &'a dyn Fn(&Entry) -> bool,
    /// The run's time (fallback for impossible modification times).
    pub now: &'a str,
    /// The work tree (symbolic links are checked there), when checked out.
    pub worktree: Option<&'a Path>,
    /// Set by `prepare`: whether compile should run ([`OnlyIf`]).
    pub refresh: &'a Cell<bool>,
    /// `ingest.autoCompile`.
    pub auto_compile: bool,
    /// The result of the last `prepare`.
    pub outcome: SyncOutcome,
}

impl SyncBatch<'_> {
    fn sync_doc(
        &self,
        doc: &Doc,
        entry: Option<&Entry>,
        files: &dyn VaultFiles,
    ) -> std::result::Result<(Synced, Entry, Option<FileChange>), Problem> {
        let problem = |m: String| Problem::new(doc.source_path.clone(), m);
        if let Some(vault) = self.worktree {
            crate::guard::check_writable(vault, &doc.page_path, "imported source page")
                .map_err(problem)?;
        }
        let (ms, size) = stat(Path::new(&doc.source_path)).map_err(|e| problem(e.to_string()))?;
        let new_entry = Entry {
            group: self.group.to_string(),
            page_path: doc.page_path.clone(),
            source_path: doc.source_path.clone(),
            updated_ms: ms,
            size,
            fingerprint: doc.fingerprint.clone(),
        };
        let exists = files.page_paths().binary_search(&doc.page_path).is_ok();
        if exists && entry == Some(&new_entry) {
            let synced = Synced {
                page_path: doc.page_path.clone(),
                changed: false,
                created: false,
            };
            return Ok((synced, new_entry, None));
        }
        // The source becomes a page: bounded by the page limit.
        let bytes = wiki_cli::read::read_bounded(doc.source_path.as_ref(), wiki_vault::PAGE_LIMIT)
            .map_err(|e| problem(e.to_string()))?;
        let raw = crate::problem::utf8(&doc.source_path, &bytes)?;
        let rendered = doc.template.render(raw, &iso_of_ms(ms, self.now));
        let old = files
            .read(&doc.page_path)
            .map_err(|e| problem(e.to_string()))?;
        let old_text = old.as_deref().and_then(|b| std::str::from_utf8(b).ok());
        let page = render::keep_existing_blocks(&rendered, old_text);
        let changed = old_text != Some(page.as_str());
        let synced = Synced {
            page_path: doc.page_path.clone(),
            changed,
            created: old.is_none(),
        };
        let change = changed.then(|| FileChange {
            path: doc.page_path.clone(),
            before: old.map(Cow::into_owned),
            after: Some(page.into_bytes()),
            blob: None,
        });
        Ok((synced, new_entry, change))
    }
}

impl Batch for SyncBatch<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>> {
        let old_state = files.read(STATE_PATH)?.map(Cow::into_owned);
        let mut entries = read_state(old_state.as_deref());
        let mut outcome = SyncOutcome::default();
        let mut changes = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for doc in self.docs {
            seen.insert(doc.sync_key.clone());
            let at = entries.iter().position(|(k, _)| *k == doc.sync_key);
            match self.sync_doc(doc, at.map(|i| &entries[i].1), files) {
                Ok((synced, entry, change)) => {
                    match at {
                        Some(i) => entries[i].1 = entry,
                        None => entries.push((doc.sync_key.clone(), entry)),
                    }
                    outcome.synced.push(synced);
                    changes.extend(change);
                }
                Err(p) => outcome.problems.push(p),
            }
        }
        let mut kept = Vec::with_capacity(entries.len());
        for (key, entry) in entries {
            if entry.group != self.group || seen.contains(&key) || (self.keep_unseen)(&entry) {
                kept.push((key, entry));
                continue;
            }
            if crate::guard::is_page_under(&entry.page_path, "sources") {
                if let Some(bytes) = files.read(&entry.page_path)? {
                    changes.push(FileChange {
                        path: entry.page_path.clone(),
                        before: Some(bytes.into_owned()),
                        after: None,
                        blob: None,
                    });
                }
                outcome.removed.push(entry.page_path);
            } else {
                outcome.problems.push(Problem::new(
                    STATE_PATH,
                    format!(
                        "entry {key} names `{}`, not a page under sources/: entry dropped, nothing deleted",
                        entry.page_path
                    ),
                ));
            }
        }
        let state = write_state(&kept);
        // No state file is created for a run that has nothing to record.
        let nothing = old_state.is_none() && kept.is_empty();
        if old_state.as_deref() != Some(state.as_slice()) && !nothing {
            changes.push(FileChange {
                path: STATE_PATH.to_string(),
                before: old_state,
                after: Some(state),
                blob: None,
            });
        }
        let mut present = true;
        for f in INDEX_FILES {
            present &= files.read(f)?.is_some();
        }
        outcome.indexes_present = present;
        self.refresh
            .set(self.auto_compile && (outcome.changed() || !present));
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        self.outcome = outcome;
        Ok(changes)
    }

    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>) {
        let o = &self.outcome;
        let subject = format!(
            "wiki {}: {} new, {} updated, {} removed",
            self.command,
            o.imported(),
            o.updated(),
            o.removed.len()
        );
        let mut paths: Vec<String> = o
            .synced
            .iter()
            .filter(|d| d.changed)
            .map(|d| d.page_path.clone())
            .chain(o.removed.iter().cloned())
            .collect();
        paths.push(STATE_PATH.to_string());
        let changes: Vec<FileChange> = paths
            .into_iter()
            .map(|path| FileChange {
                path,
                before: None,
                after: None,
                blob: None,
            })
            .collect();
        crate::commit::message(self.op, subject, &changes, compiled, &[], agent)
    }
}

/// Why indexes were (not) refreshed: `auto-compile-disabled`, `no-import-changes`,
/// `import-changed` or `missing-indexes`.
pub fn refresh_reason(auto_compile: bool, outcome: &SyncOutcome) -> &'static str {
    if !auto_compile {
        "auto-compile-disabled"
    } else if outcome.changed() {
        "import-changed"
    } else if !outcome.indexes_present {
        "missing-indexes"
    } else {
        "no-import-changes"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trip_and_js_numbers() {
        let e = Entry {
            group: "bridge".into(),
            page_path: "sources/a.md".into(),
            source_path: "/w/MEMORY.md".into(),
            updated_ms: 1_775_390_400_000.0,
            size: 3,
            fingerprint: "f".into(),
        };
        let bytes = write_state(&[("/w/MEMORY.md".into(), e.clone())]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(
            text,
            "{\n  \"version\": 1,\n  \"entries\": {\n    \"/w/MEMORY.md\": {\n      \"group\": \"bridge\",\n      \"pagePath\": \"sources/a.md\",\n      \"sourcePath\": \"/w/MEMORY.md\",\n      \"sourceUpdatedAtMs\": 1775390400000,\n      \"sourceSize\": 3,\n      \"renderFingerprint\": \"f\"\n    }\n  }\n}\n"
        );
        assert_eq!(
            read_state(Some(&bytes)),
            vec![("/w/MEMORY.md".to_string(), e)]
        );
        assert!(read_state(Some(b"not json")).is_empty());
        assert_eq!(ms_json(1.5).to_string(), "1.5");
        assert_eq!(
            iso_of_ms(1_775_390_400_123.9, "now"),
            "2026-04-05T12:00:00.123Z"
        );
        assert_eq!(iso_of_ms(-5.0, "now"), "now");
    }
}
