//! ChatGPT import runs: their records and `wiki chatgpt rollback <runId>` (reference §11.7).
//!
//! An import run is a commit (trailers `Wiki-Op: chatgpt-import`, `Wiki-Run: <runId>`) plus the
//! original's local record `.openclaw-wiki/import-runs/<runId>.json` and its snapshots
//! `<runId>/snapshots/<sha1(path)[..12]>.md` (git-ignored, like the rest of the local state; the
//! record also names the commit). A rollback needs either: the record (a run written by the
//! original plugin has no commit) or the commit (a clone has no record).
//!
//! Rollback is a new commit: pages the run created are removed; pages it updated get their
//! previous content back when nobody changed them since, and otherwise their later edits are
//! merged with the restored version when they do not touch the same lines (a page whose later
//! edits conflict is left as it is and named, with why). The indexes and dashboards the import
//! commit rewrote come back as they were when nothing changed them since, so that rolling back
//! the last import gives the tree before it exactly; compile then refreshes the rest. A second
//! rollback of the same run changes nothing.

use std::borrow::Cow;
use std::path::Path;

use serde::{Deserialize, Serialize};

use wiki_apply::edit::FileChange;
use wiki_apply::error::Result;
use wiki_apply::files::VaultFiles;
use wiki_apply::rollback::{self, Resolution};
use wiki_apply::session::{Batch, Session};
use wiki_store::ObjectId;

/// Where run records live (git-ignored).
pub const RUNS_DIR: &str = ".openclaw-wiki/import-runs";

/// How far back a rollback looks for a run's commit when the record does not name it.
const MAX_WALK: usize = 5000;

/// An updated page and its snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdatedPath {
    /// The page.
    pub path: String,
    /// Its snapshot, relative to the run's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_path: Option<String>,
}

/// The original's run record (plus the commit that made the run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    /// 1.
    pub version: u32,
    /// `chatgpt-<12 hex>`.
    pub run_id: String,
    /// `chatgpt`.
    pub import_type: String,
    /// The export path given.
    pub export_path: String,
    /// The conversations file.
    pub source_path: String,
    /// When it ran.
    pub applied_at: String,
    /// Conversations read.
    pub conversation_count: usize,
    /// Pages created.
    pub created_count: usize,
    /// Pages updated.
    pub updated_count: usize,
    /// Conversations unchanged.
    pub skipped_count: usize,
    /// Pages created.
    pub created_paths: Vec<String>,
    /// Pages updated.
    pub updated_paths: Vec<UpdatedPath>,
    /// The import commit (this toolchain's addition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// When it was rolled back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_at: Option<String>,
}

/// Whether `id` can name a run (no path separators or dots that could leave the runs folder).
pub fn valid_run_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A fresh run id: `chatgpt-<sha1(exportPath:now:entropy)[..12]>`.
pub fn new_run_id(export_path: &str, now: &str) -> String {
    let entropy = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{export_path}:{now}:{entropy}:{}", std::process::id());
    format!("chatgpt-{}", &wiki_parse::slug::sha1_hex(&seed)[..12])
}

fn snapshot_name(path: &str) -> String {
    format!("snapshots/{}.md", &wiki_parse::slug::sha1_hex(path)[..12])
}

/// Write the record and the snapshots of the pages it updated.
pub fn write_record(
    vault: &Path,
    record: &RunRecord,
    snapshots: &[(String, Vec<u8>)],
) -> std::io::Result<()> {
    for (path, bytes) in snapshots {
        wiki_parse::layout::write_ignored_file(
            vault,
            RUNS_DIR,
            &format!("{}/{}", record.run_id, snapshot_name(path)),
            bytes,
        )?;
    }
    let mut json = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    json.push('\n');
    wiki_parse::layout::write_ignored_file(
        vault,
        RUNS_DIR,
        &format!("{}.json", record.run_id),
        json.as_bytes(),
    )
}

/// The updated-path entries of a run, with their snapshot names.
pub fn updated_entries(paths: &[String]) -> Vec<UpdatedPath> {
    paths
        .iter()
        .map(|p| UpdatedPath {
            path: p.clone(),
            snapshot_path: Some(snapshot_name(p)),
        })
        .collect()
}

/// The local record of `run_id`, if any. A record that does not parse is an error.
pub fn read_record(vault: &Path, run_id: &str) -> std::result::Result<Option<RunRecord>, String> {
    let path = vault.join(RUNS_DIR).join(format!("{run_id}.json"));
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(format!("{}: not a regular file", path.display())),
        Err(_) => return Ok(None),
    }
    let text = wiki_cli::read::read_bounded_string(&path, wiki_vault::DERIVED_LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}:{}: not a run record: {e}", path.display(), e.line()))
}

fn read_snapshot(vault: &Path, run_id: &str, rel: &str) -> Option<Vec<u8>> {
    if rel
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
        || rel.contains('\\')
    {
        return None;
    }
    let path = vault.join(RUNS_DIR).join(run_id).join(rel);
    std::fs::symlink_metadata(&path)
        .ok()
        .filter(|m| m.is_file())?;
    // A snapshot of a page the run wrote.
    wiki_cli::read::read_bounded(&path, wiki_vault::PAGE_LIMIT).ok()
}

/// A run's commits on the branch.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// The import commit.
    pub import: Option<wiki_store::CommitInfo>,
    /// A later commit that rolled it back.
    pub rollback: Option<ObjectId>,
}

fn trailer<'a>(info: &'a wiki_store::CommitInfo, key: &str) -> Option<&'a str> {
    info.trailers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

/// Walk the branch back from its tip (first parents) looking for the run's commits.
pub fn find_commits(session: &Session, run_id: &str, known: Option<&str>) -> Result<Found> {
    let mut found = Found::default();
    let Some(mut id) = session.base()? else {
        return Ok(found);
    };
    let known = known.and_then(|k| session.store.resolve(k).ok());
    for _ in 0..MAX_WALK {
        let info = session.store.commit_info(id)?;
        let run = trailer(&info, "Wiki-Run") == Some(run_id);
        match trailer(&info, "Wiki-Op") {
            Some("chatgpt-rollback") if run && found.rollback.is_none() => {
                found.rollback = Some(info.id)
            }
            Some("chatgpt-import") if run => {
                found.import = Some(info);
                return Ok(found);
            }
            _ if Some(info.id) == known => {
                found.import = Some(info);
                return Ok(found);
            }
            _ => {}
        }
        match info.parents.first() {
            Some(p) => id = *p,
            None => break,
        }
    }
    Ok(found)
}

/// One page to put back.
#[derive(Debug, Clone)]
pub struct PlannedPage {
    /// The page.
    pub path: String,
    /// Whether the run created it (else updated).
    pub created: bool,
    /// Its content before the run (`None` for created pages, or when nothing is known).
    pub before: Option<Vec<u8>>,
    /// Its content as the run left it (`None` when the commit is not known).
    pub at_import: Option<Option<Vec<u8>>>,
}

/// A generated file the import commit rewrote: path, content before, content it left.
pub type Generated = (String, Option<Vec<u8>>, Option<Vec<u8>>);

/// A page the rollback left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotRestored {
    /// The page.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// The batch of a rollback.
pub struct RollbackBatch<'a> {
    /// The run.
    pub run_id: &'a str,
    /// Pages of the run.
    pub pages: &'a [PlannedPage],
    /// Generated files the import commit rewrote: (path, before, as the import left it).
    pub generated: &'a [Generated],
    /// The import commit, when known.
    pub import_commit: Option<String>,
    /// Pages removed (after `prepare`).
    pub removed: Vec<String>,
    /// Pages restored.
    pub restored: Vec<String>,
    /// Pages left as they are.
    pub not_restored: Vec<NotRestored>,
    /// Remarks on pages that were changed (edits kept, edits removed with a created page).
    pub notes: Vec<NotRestored>,
}

impl RollbackBatch<'_> {
    fn page(&mut self, p: &PlannedPage, now: Option<Vec<u8>>) -> Option<Option<Vec<u8>>> {
        let edited_since = |now: &Option<Vec<u8>>| match &p.at_import {
            Some(at) => at != now,
            None => false,
        };
        if p.created {
            now.as_ref()?;
            if edited_since(&now) {
                self.notes.push(NotRestored {
                    path: p.path.clone(),
                    reason: format!(
                        "created by the run and edited since; removed (the edits stay in the history{})",
                        self.import_commit.as_deref().map(|c| format!(" after {}", &c[..c.len().min(12)])).unwrap_or_default()
                    ),
                });
            }
            self.removed.push(p.path.clone());
            return Some(None);
        }
        let Some(before) = &p.before else {
            self.not_restored.push(NotRestored {
                path: p.path.clone(),
                reason: "its snapshot is missing and the import commit is not on this branch"
                    .into(),
            });
            return None;
        };
        if now.as_ref() == Some(before) {
            return None;
        }
        let restored = match (&p.at_import, &now) {
            (_, None) => {
                self.not_restored.push(NotRestored {
                    path: p.path.clone(),
                    reason: "deleted after the import; left deleted".into(),
                });
                return None;
            }
            (Some(at), Some(cur)) if at.as_ref() == Some(cur) => before.clone(),
            (Some(at), Some(cur)) => {
                let merged = rollback::merge_file(
                    &p.path,
                    at.as_deref(),
                    Some(cur),
                    Some(before),
                    Resolution::Refuse,
                );
                if !merged.conflicts.is_empty() {
                    let what: Vec<String> =
                        merged.conflicts.iter().map(|c| c.detail.clone()).collect();
                    self.not_restored.push(NotRestored {
                        path: p.path.clone(),
                        reason: format!(
                            "edited after the import ({}); left as it is",
                            what.join(", ")
                        ),
                    });
                    return None;
                }
                self.notes.push(NotRestored {
                    path: p.path.clone(),
                    reason: "restored, keeping the edits made after the import".into(),
                });
                merged.content?
            }
            // A run of the original plugin: no commit to compare with; the notes written on the
            // page since are kept.
            (None, Some(cur)) => match (std::str::from_utf8(before), std::str::from_utf8(cur)) {
                (Ok(b), Ok(c)) => crate::render::keep_human_notes(b, c).into_bytes(),
                _ => before.clone(),
            },
        };
        self.restored.push(p.path.clone());
        Some(Some(restored))
    }
}

impl Batch for RollbackBatch<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> Result<Vec<FileChange>> {
        self.removed.clear();
        self.restored.clear();
        self.not_restored.clear();
        self.notes.clear();
        let mut changes = Vec::new();
        for p in self.pages {
            let now = files.read(&p.path)?.map(Cow::into_owned);
            if let Some(after) = self.page(p, now.clone()) {
                changes.push(FileChange {
                    path: p.path.clone(),
                    before: now,
                    after,
                    blob: None,
                });
            }
        }
        for (path, before, at_import) in self.generated {
            let now = files.read(path)?.map(Cow::into_owned);
            if now == *at_import && now != *before {
                changes.push(FileChange {
                    path: path.clone(),
                    before: now,
                    after: before.clone(),
                    blob: None,
                });
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }

    fn message(
        &self,
        compiled: &[wiki_apply::edit::FileChange],
        agent: &str,
    ) -> (String, Vec<(String, String)>) {
        let subject = format!(
            "wiki chatgpt rollback {}: {} removed, {} restored",
            self.run_id,
            self.removed.len(),
            self.restored.len()
        );
        let changes: Vec<FileChange> = self
            .removed
            .iter()
            .chain(&self.restored)
            .map(|p| FileChange {
                path: p.clone(),
                before: None,
                after: None,
                blob: None,
            })
            .collect();
        let mut extra = vec![("Wiki-Run".to_string(), self.run_id.to_string())];
        if let Some(c) = &self.import_commit {
            extra.push(("Wiki-Rollback".to_string(), c.clone()));
        }
        crate::commit::message(
            "chatgpt-rollback",
            subject,
            &changes,
            compiled,
            &extra,
            agent,
        )
    }
}

/// Everything a rollback needs, read before the vault is locked.
pub struct Plan {
    /// The record (local, or rebuilt from the import commit).
    pub record: RunRecord,
    /// Whether the record was found on disk.
    pub local: bool,
    /// Pages of the run.
    pub pages: Vec<PlannedPage>,
    /// Generated files the import commit rewrote.
    pub generated: Vec<Generated>,
    /// The import commit.
    pub import_commit: Option<String>,
    /// Whether the run is already rolled back.
    pub already: bool,
}

/// Read the run `run_id`: its record and commits, and what each page should go back to.
pub fn plan(session: &Session, run_id: &str) -> std::result::Result<Plan, String> {
    let vault = &session.vault;
    let local = read_record(vault, run_id)?;
    let found = find_commits(
        session,
        run_id,
        local.as_ref().and_then(|r| r.commit.as_deref()),
    )
    .map_err(|e| e.to_string())?;
    let import = found.import.as_ref();
    let parent = import.and_then(|i| i.parents.first().map(ObjectId::to_string));
    let at = |rev: &str, path: &str| {
        session
            .store
            .read_file(rev, path)
            .map_err(|e| e.to_string())
    };
    let record = match (&local, import) {
        (Some(r), _) => r.clone(),
        (None, Some(info)) => record_from_commit(session, run_id, info, parent.as_deref())?,
        (None, None) => {
            return Err(format!(
                "no ChatGPT import run {run_id}: no {RUNS_DIR}/{run_id}.json and no commit with `Wiki-Run: {run_id}` on {}",
                session.branch.as_deref().unwrap_or("HEAD")
            ));
        }
    };
    let already = record.rolled_back_at.is_some() || found.rollback.is_some();
    let import_commit = import.map(|i| i.id.to_string());
    let mut pages = Vec::new();
    for path in &record.created_paths {
        if !crate::guard::is_page_under(path, "sources") {
            return Err(format!(
                "run {run_id} names `{path}`, not a page under sources/"
            ));
        }
        pages.push(PlannedPage {
            path: path.clone(),
            created: true,
            before: None,
            at_import: match &import_commit {
                Some(c) => Some(at(c, path)?),
                None => None,
            },
        });
    }
    for u in &record.updated_paths {
        if !crate::guard::is_page_under(&u.path, "sources") {
            return Err(format!(
                "run {run_id} names `{}`, not a page under sources/",
                u.path
            ));
        }
        let snapshot = u
            .snapshot_path
            .as_deref()
            .and_then(|s| read_snapshot(vault, run_id, s));
        let before = match (snapshot, &parent) {
            (Some(s), _) => Some(s),
            (None, Some(p)) => at(p, &u.path)?,
            (None, None) => None,
        };
        pages.push(PlannedPage {
            path: u.path.clone(),
            created: false,
            before,
            at_import: match &import_commit {
                Some(c) => Some(at(c, &u.path)?),
                None => None,
            },
        });
    }
    let mut generated = Vec::new();
    if let (Some(info), Some(c)) = (import, &import_commit) {
        for path in info
            .changed_paths
            .iter()
            .filter(|p| rollback::is_generated(p))
        {
            if wiki_digest::derived::is_derived(path) {
                continue;
            }
            let before = match &parent {
                Some(p) => at(p, path)?,
                None => None,
            };
            generated.push((path.clone(), before, at(c, path)?));
        }
    }
    Ok(Plan {
        local: local.is_some(),
        record,
        pages,
        generated,
        import_commit,
        already,
    })
}

/// A run record rebuilt from its commit (a clone has no local record): the `sources/chatgpt-*`
/// pages it changed, created when its parent did not have them.
fn record_from_commit(
    session: &Session,
    run_id: &str,
    info: &wiki_store::CommitInfo,
    parent: Option<&str>,
) -> std::result::Result<RunRecord, String> {
    let mut created = Vec::new();
    let mut updated = Vec::new();
    for path in &info.changed_paths {
        let name = path.strip_prefix("sources/").unwrap_or("");
        if !name.starts_with("chatgpt-") || !crate::guard::is_page_under(path, "sources") {
            continue;
        }
        let existed = match parent {
            Some(p) => session
                .store
                .read_file(p, path)
                .map_err(|e| e.to_string())?
                .is_some(),
            None => false,
        };
        if existed {
            updated.push(UpdatedPath {
                path: path.clone(),
                snapshot_path: None,
            });
        } else {
            created.push(path.clone());
        }
    }
    Ok(RunRecord {
        version: 1,
        run_id: run_id.to_string(),
        import_type: "chatgpt".into(),
        export_path: String::new(),
        source_path: String::new(),
        applied_at: info.time_iso.clone(),
        conversation_count: 0,
        created_count: created.len(),
        updated_count: updated.len(),
        skipped_count: 0,
        created_paths: created,
        updated_paths: updated,
        commit: Some(info.id.to_string()),
        rolled_back_at: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_and_records() {
        assert!(valid_run_id("chatgpt-0123456789ab"));
        for bad in ["", "../x", ".hidden", "a/b", "a.json"] {
            assert!(!valid_run_id(bad), "{bad}");
        }
        let id = new_run_id("/x", "2026-04-05T12:00:00.000Z");
        assert!(id.starts_with("chatgpt-") && id.len() == 20, "{id}");
        let r = RunRecord {
            version: 1,
            run_id: "chatgpt-0123456789ab".into(),
            import_type: "chatgpt".into(),
            export_path: "/e".into(),
            source_path: "/e/conversations.json".into(),
            applied_at: "t".into(),
            conversation_count: 1,
            created_count: 1,
            updated_count: 0,
            skipped_count: 0,
            created_paths: vec!["sources/chatgpt-undated-a.md".into()],
            updated_paths: vec![],
            commit: None,
            rolled_back_at: None,
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(
            json,
            r#"{"version":1,"runId":"chatgpt-0123456789ab","importType":"chatgpt","exportPath":"/e","sourcePath":"/e/conversations.json","appliedAt":"t","conversationCount":1,"createdCount":1,"updatedCount":0,"skippedCount":0,"createdPaths":["sources/chatgpt-undated-a.md"],"updatedPaths":[]}"#
        );
        let original = r#"{"version":1,"runId":"chatgpt-x","importType":"chatgpt","exportPath":"/e","sourcePath":"/s","appliedAt":"t","conversationCount":1,"createdCount":0,"updatedCount":1,"skippedCount":0,"createdPaths":[],"updatedPaths":[{"path":"sources/a.md","snapshotPath":"snapshots/abc.md"}],"rolledBackAt":"t2"}"#;
        let parsed: RunRecord = serde_json::from_str(original).unwrap();
        assert_eq!(parsed.rolled_back_at.as_deref(), Some("t2"));
    }
}
