//! `wiki rollback <commit>`: a new commit that undoes one commit's changes to the vault.
//!
//! For every vault file the commit changed (generated files excepted: `index.md`, directory
//! indexes, `reports/`, `.openclaw-wiki/cache/`, which the recompile refreshes), the file is
//! merged three ways: the commit's version is the base, the current version is "later", the
//! version before the commit is "before". Where only the commit touched something, the
//! before-version comes back; where later commits changed other lines, they are kept. Pages are
//! merged structurally: frontmatter key by key (claims by claim id; `updatedAt` keeps the later
//! value), the body line by line (the generated `## Related` block is ignored, compile rewrites
//! it). When later commits changed the same lines (or keys, or claims), the rollback is refused
//! with the list of pages, unless [`Resolution::Before`] (`--force`) or [`Resolution::Later`]
//! (`--keep-later`) says how to resolve them. Rolling back an already rolled-back commit finds
//! nothing to change and makes no commit.

use serde::Serialize;
use similar::{MergeResolution, TextMerge};
use yaml_serde::{Mapping, Value};

use wiki_parse::markers::{self, Block};
use wiki_parse::{Page, page, yaml};
use wiki_store::{Change, CommitRequest, ObjectId};

use crate::edit::FileChange;
use crate::error::{Error, Result};
use crate::files::VaultFiles;
use crate::session::{Compiler, MAX_ATTEMPTS, Session, compile_into};

/// How to resolve lines changed both by the rolled-back commit and by later commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Resolution {
    /// Refuse, naming the pages (default).
    #[default]
    Refuse,
    /// Restore those parts as they were before the commit (`--force`).
    Before,
    /// Keep the later changes of those parts (`--keep-later`).
    Later,
}

/// A part of a file that both the commit and later commits changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// Vault-relative path.
    pub path: String,
    /// What conflicts (`frontmatter key status`, `claim claim.a.b`, `body lines 12-14`, …).
    pub detail: String,
}

/// What a rollback did (or would do).
#[derive(Debug, Clone, Default)]
pub struct RollbackOutcome {
    /// The rolled-back commit.
    pub target: Option<ObjectId>,
    /// Its subject.
    pub target_subject: String,
    /// Vault files restored.
    pub page_changes: Vec<FileChange>,
    /// Generated files compile refreshed (files not restored by the rollback itself).
    pub compile_changes: Vec<FileChange>,
    /// Every file compile changed.
    pub compiled: Vec<String>,
    /// Generated files the commit changed that were left to the recompile.
    pub skipped: Vec<String>,
    /// Conflicts found (resolved as asked, when a resolution was given).
    pub conflicts: Vec<Conflict>,
    /// The new commit (`None`: nothing to undo, or a dry run).
    pub commit: Option<ObjectId>,
    /// Why nothing changed (set when [`RollbackOutcome::page_changes`] is empty).
    pub no_change: Option<NoChange>,
}

/// Why a rollback found nothing to undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum NoChange {
    /// The commit changed only compiled output (indexes, dashboards, caches, the generated
    /// Related blocks of pages), which compile refreshes from the pages.
    #[serde(rename_all = "camelCase")]
    OnlyGenerated {
        /// How many files the commit changed.
        files: usize,
    },
    /// A later rollback commit already undid it.
    #[serde(rename_all = "camelCase")]
    RolledBack {
        /// The rollback commit.
        by: String,
        /// Its subject.
        subject: String,
    },
    /// The vault already has what was there before the commit (later commits undid its
    /// changes, by hand or otherwise).
    AlreadyUndone,
    /// The commit changed no vault file (an empty commit, or one outside the vault).
    NoFiles,
}

impl NoChange {
    /// One sentence for people: why rolling back `short` changes nothing.
    pub fn explain(&self, short: &str) -> String {
        match self {
            NoChange::OnlyGenerated { files } => format!(
                "Nothing to roll back for {short}: it changed only compiled output ({files} file{}: indexes, dashboards, caches or generated Related blocks), which `wiki compile` rebuilds from the pages.",
                if *files == 1 { "" } else { "s" }
            ),
            NoChange::RolledBack { by, subject } => format!(
                "Nothing to roll back for {short}: it was already rolled back by {} ({subject}).",
                &by[..by.len().min(12)]
            ),
            NoChange::AlreadyUndone => format!(
                "Nothing to roll back for {short}: its changes are already undone (the vault has what was there before it)."
            ),
            NoChange::NoFiles => {
                format!("Nothing to roll back for {short}: it changed no file of the vault.")
            }
        }
    }
}

/// Whether `path` is a compiled output (never reverted; the recompile refreshes it).
pub fn is_generated(path: &str) -> bool {
    path == "index.md"
        || wiki_parse::PageKind::ALL
            .iter()
            .any(|k| path.strip_prefix(k.dir()) == Some("/index.md"))
        || path.starts_with("reports/")
        || path.starts_with(".openclaw-wiki/cache/")
}

/// Roll back `rev` on the session's branch.
pub fn rollback(
    session: &Session,
    rev: &str,
    resolution: Resolution,
    dry_run: bool,
    compiler: &dyn Compiler,
    now: &str,
) -> Result<RollbackOutcome> {
    let target = session.store.resolve(rev)?;
    let info = session.store.commit_info(target)?;
    if info.parents.len() > 1 {
        return Err(Error::Invalid(format!(
            "{rev} is a merge commit; roll back the commits it merged instead"
        )));
    }
    let short = short_id(&target);
    let lock = if dry_run {
        None
    } else {
        Some(session.store.lock()?)
    };
    let mut attempt = 0;
    loop {
        attempt += 1;
        let base = session.base()?;
        let Some(tip) = base else {
            return Err(Error::Invalid(format!(
                "{rev} is not on branch {}",
                session.branch.as_deref().unwrap_or("HEAD")
            )));
        };
        let (skipped, paths): (Vec<String>, Vec<String>) = info
            .changed_paths
            .iter()
            .cloned()
            .partition(|p| is_generated(p));
        let mut outcome = RollbackOutcome {
            target: Some(target),
            target_subject: info.subject.clone(),
            skipped,
            ..RollbackOutcome::default()
        };
        if let Some(first) = info.changed_paths.first() {
            let on_branch = session
                .store
                .history(&tip.to_string(), first)?
                .iter()
                .any(|c| c.id == target);
            if !on_branch {
                return Err(Error::Invalid(format!(
                    "{rev} ({short}) is not on branch {}",
                    session.branch.as_deref().unwrap_or("HEAD")
                )));
            }
        }
        let files = session.files(base)?;
        let parent = info.parents.first().map(|p| p.to_string());
        undo_paths(
            session,
            target,
            parent.as_deref(),
            &paths,
            files.as_ref(),
            resolution,
            &mut outcome,
        )?;
        // Rolling back twice is a no-op: nothing to undo, nothing compiled or committed.
        if outcome.page_changes.is_empty() {
            outcome.no_change = Some(no_change_reason(session, &info, &paths, tip)?);
            return Ok(outcome);
        }
        (outcome.compile_changes, outcome.compiled) =
            compile_into(compiler, files.as_ref(), &mut outcome.page_changes, now)?;
        // What the rollback restored, the recompile may write again (a compile commit's
        // Related blocks): then nothing changes either.
        if outcome.page_changes.is_empty() {
            outcome.no_change = Some(no_change_reason(session, &info, &paths, tip)?);
            return Ok(outcome);
        }
        let Some(lock) = &lock else {
            return Ok(outcome);
        };
        let changes = rollback_changes(&outcome);
        let read = files.read_state(&mut changes.iter().map(|c| c.path.as_str()));
        let req = rollback_request(
            session,
            target,
            &outcome,
            &changes,
            &read,
            base,
            &info.subject,
        );
        match session.commit(lock, &req) {
            // A file edited by hand after the ref moved (`done.kept`) was left as the person
            // saved it: the next command records that edit on top of the rollback.
            Ok(done) => {
                outcome.commit = done.commit;
                return Ok(outcome);
            }
            Err(e) if e.is_conflict() && attempt < MAX_ATTEMPTS => continue,
            Err(e) if e.is_conflict() => {
                return Err(Error::Runtime(format!(
                    "{e}; the branch or its files kept changing under this rollback ({MAX_ATTEMPTS} attempts), nothing was written: run it again"
                )));
            }
            Err(e) => return Err(e),
        }
    }
}

/// The files a rollback commits: the restored pages, then what compile changed.
fn rollback_changes(outcome: &RollbackOutcome) -> Vec<Change> {
    outcome
        .page_changes
        .iter()
        .chain(&outcome.compile_changes)
        .map(|c| Change {
            path: c.path.clone(),
            content: c.after.clone(),
            blob: c.blob,
        })
        .collect()
}

/// The commit of a rollback of `target` (subject `subject`) on `base`. `read` is what
/// the rollback read of the files it replaces: a hand edit made since is not written over (the
/// store refuses, and the rollback runs again on the new bytes).
fn rollback_request<'a>(
    session: &Session,
    target: ObjectId,
    outcome: &RollbackOutcome,
    changes: &'a [Change],
    read: &'a wiki_store::ReadState,
    base: Option<ObjectId>,
    subject: &str,
) -> CommitRequest<'a> {
    let mut trailers = vec![
        ("Wiki-Op".to_string(), "rollback".to_string()),
        ("Wiki-Rollback".to_string(), target.to_string()),
    ];
    for c in &outcome.page_changes {
        trailers.push(("Wiki-Page".to_string(), c.path.clone()));
    }
    trailers.push(("Wiki-Agent".to_string(), session.agent.clone()));
    CommitRequest {
        target: session.target.clone(),
        changes,
        subject: format!("Roll back {}: {subject}", short_id(&target)),
        body: None,
        trailers,
        expected_parent: base,
        create_from: None,
        read: Some(read),
    }
}

/// Undo the changes of commit `target` (whose first parent is `parent`) to `paths` in `files`:
/// each file is merged back ([`merge_file`]) into `outcome.page_changes` and
/// `outcome.conflicts`. With [`Resolution::Refuse`], a conflict refuses the whole rollback.
fn undo_paths(
    session: &Session,
    target: ObjectId,
    parent: Option<&str>,
    paths: &[String],
    files: &dyn VaultFiles,
    resolution: Resolution,
    outcome: &mut RollbackOutcome,
) -> Result<()> {
    let short = short_id(&target);
    let mut conflicts_left = Vec::new();
    for path in paths {
        let at_commit = session.store.read_file(&target.to_string(), path)?;
        let before = match parent {
            Some(p) => session.store.read_file(p, path)?,
            None => None,
        };
        let now_bytes = files.read(path)?.map(std::borrow::Cow::into_owned);
        let merged = merge_file(
            path,
            at_commit.as_deref(),
            now_bytes.as_deref(),
            before.as_deref(),
            resolution,
        );
        if resolution == Resolution::Refuse && !merged.conflicts.is_empty() {
            conflicts_left.extend(merged.conflicts.iter().cloned());
        }
        outcome.conflicts.extend(merged.conflicts);
        if merged.content != now_bytes {
            outcome.page_changes.push(FileChange {
                path: path.clone(),
                before: now_bytes,
                after: merged.content,
                blob: None,
            });
        }
    }
    if conflicts_left.is_empty() {
        return Ok(());
    }
    let mut pages: Vec<String> = Vec::new();
    for c in &conflicts_left {
        let item = format!("{} ({})", c.path, c.detail);
        if !pages.contains(&item) {
            pages.push(item);
        }
    }
    Err(Error::Refused(format!(
        "cannot roll back {short}: later commits changed the same lines in {}; pass --force to restore them as they were before {short}, or --keep-later to keep the later changes",
        pages.join(", ")
    )))
}

/// Why rolling back the commit `info` (whose non-generated changed files are `paths`) finds
/// nothing to change on the branch at `tip`.
fn no_change_reason(
    session: &Session,
    info: &wiki_store::CommitInfo,
    paths: &[String],
    tip: ObjectId,
) -> Result<NoChange> {
    if info.changed_paths.is_empty() {
        return Ok(NoChange::NoFiles);
    }
    let parent = info.parents.first().map(|p| p.to_string());
    let mut only_generated = true;
    for path in paths {
        let at_commit = session.store.read_file(&info.id.to_string(), path)?;
        let before = match &parent {
            Some(p) => session.store.read_file(p, path)?,
            None => None,
        };
        if !only_related_changed(path, at_commit.as_deref(), before.as_deref()) {
            only_generated = false;
            break;
        }
    }
    if only_generated {
        return Ok(NoChange::OnlyGenerated {
            files: info.changed_paths.len(),
        });
    }
    // A rollback commit between the tip and the commit names it in a `Wiki-Rollback` trailer.
    let target = info.id.to_string();
    let mut current = Some(tip);
    while let Some(id) = current.filter(|id| *id != info.id) {
        let c = session.store.commit_info(id)?;
        if c.trailers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("Wiki-Rollback") && v.trim() == target)
        {
            return Ok(NoChange::RolledBack {
                by: c.id.to_string(),
                subject: c.subject,
            });
        }
        current = c.parents.first().copied();
    }
    Ok(NoChange::AlreadyUndone)
}

/// Whether a page's change from `before` to `after` is only in its generated Related block
/// (what compile rewrites on every page it links).
fn only_related_changed(path: &str, after: Option<&[u8]>, before: Option<&[u8]>) -> bool {
    let (Some(after), Some(before)) = (after, before) else {
        return false;
    };
    if !wiki_vault::is_page_path(path) {
        return false;
    }
    let (Ok(a), Ok(b)) = (
        page::parse_page(path, after),
        page::parse_page(path, before),
    ) else {
        return false;
    };
    let strip = |p: &Page| markers::strip_block(p.body(), &Block::related());
    a.frontmatter == b.frontmatter && strip(&a).trim_end() == strip(&b).trim_end()
}

/// Abbreviated commit id (12 hex digits).
pub fn short_id(id: &ObjectId) -> String {
    let s = id.to_string();
    s[..s.len().min(12)].to_string()
}

/// The result of merging one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The new content (`None`: the file is deleted).
    pub content: Option<Vec<u8>>,
    /// Conflicts found (already resolved per the [`Resolution`], if any was given).
    pub conflicts: Vec<Conflict>,
}

/// Undo `base → …` for one file: `base` is the rolled-back commit's version, `later` the current
/// one, `before` the version before the commit.
pub fn merge_file(
    path: &str,
    base: Option<&[u8]>,
    later: Option<&[u8]>,
    before: Option<&[u8]>,
    resolution: Resolution,
) -> Merged {
    let conflict = |detail: &str| Conflict {
        path: path.to_string(),
        detail: detail.to_string(),
    };
    let pick = |c: Conflict| Merged {
        content: match resolution {
            Resolution::Later | Resolution::Refuse => later.map(<[u8]>::to_vec),
            Resolution::Before => before.map(<[u8]>::to_vec),
        },
        conflicts: vec![c],
    };
    if later == base {
        return Merged {
            content: before.map(<[u8]>::to_vec),
            conflicts: Vec::new(),
        };
    }
    if later == before {
        return Merged {
            content: later.map(<[u8]>::to_vec),
            conflicts: Vec::new(),
        };
    }
    let (Some(base), Some(later), Some(before)) = (base, later, before) else {
        let detail = match (base, later, before) {
            (Some(_), None, _) => "deleted later",
            (Some(_), Some(_), None) => "created by the commit, changed later",
            (None, Some(_), Some(_)) => "deleted by the commit, created again later",
            _ => "changed later",
        };
        return pick(conflict(detail));
    };
    let (Ok(b), Ok(l), Ok(f)) = (
        std::str::from_utf8(base),
        std::str::from_utf8(later),
        std::str::from_utf8(before),
    ) else {
        return pick(conflict("binary file changed later"));
    };
    if wiki_vault::is_page_path(path)
        && let (Ok(pb), Ok(pl), Ok(pf)) = (
            page::parse_page(path, base),
            page::parse_page(path, later),
            page::parse_page(path, before),
        )
    {
        return merge_page(path, &pb, &pl, &pf, resolution);
    }
    let (text, details) = merge_text(b, l, f, resolution);
    Merged {
        content: Some(text.into_bytes()),
        conflicts: details.into_iter().map(|d| conflict(&d)).collect(),
    }
}

/// Line merge of text; returns the text and the conflicting regions (`lines a-b`, numbered in
/// the later version), resolved per `resolution`.
fn merge_text(
    base: &str,
    later: &str,
    before: &str,
    resolution: Resolution,
) -> (String, Vec<String>) {
    let merge = TextMerge::from_lines(base, later, before);
    let mut out = String::with_capacity(later.len());
    let mut conflicts = Vec::new();
    for region in merge.regions() {
        let take_later = match region.resolution() {
            MergeResolution::Theirs => false,
            MergeResolution::Conflict => {
                let r = region.ours_range();
                conflicts.push(if r.is_empty() {
                    format!("body near line {}", r.start + 1)
                } else {
                    format!("body lines {}-{}", r.start + 1, r.end)
                });
                resolution != Resolution::Before
            }
            _ => true,
        };
        if take_later {
            for i in region.ours_range() {
                out.push_str(merge.ours_line(i).unwrap_or_default());
            }
        } else {
            for i in region.theirs_range() {
                out.push_str(merge.theirs_line(i).unwrap_or_default());
            }
        }
    }
    (out, conflicts)
}

/// The body with its Related block body replaced by `related` (when it has the block).
fn with_related(body: &str, related: Option<&str>) -> String {
    let block = Block::related();
    match related {
        Some(r) if !markers::find_blocks(body, &block).is_empty() => {
            markers::replace_managed_block(body, &block, r)
        }
        _ => body.to_string(),
    }
}

fn merge_page(
    path: &str,
    base: &Page,
    later: &Page,
    before: &Page,
    resolution: Resolution,
) -> Merged {
    let mut conflicts = Vec::new();
    let conflict = |detail: String| Conflict {
        path: path.to_string(),
        detail,
    };
    // Frontmatter, key by key.
    let (fm, fm_conflicts) = merge_mapping(
        &base.frontmatter,
        &later.frontmatter,
        &before.frontmatter,
        resolution,
    );
    conflicts.extend(fm_conflicts.into_iter().map(&conflict));
    // Body, line by line, ignoring the generated Related block.
    let related = markers::block_body(later.body(), &Block::related());
    let b = with_related(base.body(), related);
    let f = with_related(before.body(), related);
    let (body, body_conflicts) = merge_text(&b, later.body(), &f, resolution);
    conflicts.extend(body_conflicts.into_iter().map(&conflict));
    let head = if fm == later.frontmatter {
        later.text[..later.body_offset].to_string()
    } else if fm == before.frontmatter && before.has_frontmatter {
        before.text[..before.body_offset].to_string()
    } else {
        later.render_edit(&fm, "")
    };
    let mut text = head;
    text.push_str(&body);
    Merged {
        content: Some(text.into_bytes()),
        conflicts,
    }
}

/// Three-way merge of two mappings key by key (`claims` claim by claim).
fn merge_mapping(
    base: &Mapping,
    later: &Mapping,
    before: &Mapping,
    resolution: Resolution,
) -> (Mapping, Vec<String>) {
    let mut keys: Vec<&Value> = later.keys().collect();
    for k in before.keys() {
        if !later.contains_key(k) && !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = Mapping::new();
    let mut conflicts = Vec::new();
    for k in keys {
        let name = yaml::key_string(k);
        let (b, l, f) = (base.get(k), later.get(k), before.get(k));
        let chosen = if l == b {
            f
        } else if f == b || l == f || name == "updatedAt" {
            l
        } else if name == "claims"
            && let Some(merged) = merge_claims(b, l, f, resolution, &mut conflicts)
        {
            if let Some(v) = merged {
                out.insert(k.clone(), v);
            }
            continue;
        } else {
            conflicts.push(format!("frontmatter key {name}"));
            if resolution == Resolution::Before {
                f
            } else {
                l
            }
        };
        if let Some(v) = chosen {
            out.insert(k.clone(), v.clone());
        }
    }
    (out, conflicts)
}

fn claim_id_of(v: &Value) -> Option<String> {
    match v {
        Value::Mapping(m) => wiki_parse::model::opt_string(m.get("id")),
        _ => None,
    }
}

/// Merge claim lists by claim id: `Some(Some(list))`, `Some(None)` (remove the key), or `None`
/// when they cannot be merged by id (not lists).
fn merge_claims(
    base: Option<&Value>,
    later: Option<&Value>,
    before: Option<&Value>,
    resolution: Resolution,
    conflicts: &mut Vec<String>,
) -> Option<Option<Value>> {
    let seq = |v: Option<&Value>| -> Option<Vec<Value>> {
        match v {
            None => Some(Vec::new()),
            Some(Value::Sequence(s)) => Some(s.clone()),
            _ => None,
        }
    };
    let (b, l, f) = (seq(base)?, seq(later)?, seq(before)?);
    let by_id = |items: &[Value], id: &str| -> Option<Value> {
        items
            .iter()
            .find(|c| claim_id_of(c).as_deref() == Some(id))
            .cloned()
    };
    let anonymous = |items: &[Value]| -> Vec<Value> {
        items
            .iter()
            .filter(|c| claim_id_of(c).is_none())
            .cloned()
            .collect()
    };
    let (ab, al, af) = (anonymous(&b), anonymous(&l), anonymous(&f));
    let anon_take_later = if al == ab {
        false
    } else if af == ab || al == af {
        true
    } else {
        conflicts.push("claims without id".to_string());
        resolution != Resolution::Before
    };
    let decide = |id: &str, conflicts: &mut Vec<String>| -> Option<Value> {
        let (cb, cl, cf) = (by_id(&b, id), by_id(&l, id), by_id(&f, id));
        if cl == cb {
            cf
        } else if cf == cb || cl == cf {
            cl
        } else {
            conflicts.push(format!("claim {id}"));
            if resolution == Resolution::Before {
                cf
            } else {
                cl
            }
        }
    };
    let mut out: Vec<Value> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for item in &l {
        match claim_id_of(item) {
            Some(id) => {
                if seen.contains(&id) {
                    continue;
                }
                seen.push(id.clone());
                if let Some(v) = decide(&id, conflicts) {
                    out.push(v);
                }
            }
            None => {
                if anon_take_later {
                    out.push(item.clone());
                }
            }
        }
    }
    if !anon_take_later {
        out.extend(af);
    }
    // Claims only the before-version has (the commit removed them): put them back after the
    // claim that precedes them there.
    let mut prev: Option<String> = None;
    for item in &f {
        let Some(id) = claim_id_of(item) else {
            continue;
        };
        if !seen.contains(&id) {
            seen.push(id.clone());
            if let Some(v) = decide(&id, conflicts) {
                let at = prev
                    .as_ref()
                    .and_then(|p| out.iter().position(|c| claim_id_of(c).as_ref() == Some(p)))
                    .map_or(0, |i| i + 1);
                out.insert(at, v);
            }
        }
        prev = Some(id);
    }
    if out.is_empty() && before.is_none() {
        // The commit added the key: remove it again.
        return Some(None);
    }
    Some(Some(Value::Sequence(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(path: &str, b: &str, l: &str, f: &str, r: Resolution) -> (String, Vec<String>) {
        let out = merge_file(
            path,
            Some(b.as_bytes()),
            Some(l.as_bytes()),
            Some(f.as_bytes()),
            r,
        );
        (
            String::from_utf8(out.content.unwrap()).unwrap(),
            out.conflicts.into_iter().map(|c| c.detail).collect(),
        )
    }

    const BEFORE: &str = "---\nid: e\nstatus: active\nupdatedAt: t1\nclaims:\n  - id: a\n    text: A\n---\n\n# E\n\nline one\nline two\n";
    const COMMIT: &str = "---\nid: e\nstatus: review\nupdatedAt: t2\nclaims:\n  - id: a\n    text: A\n  - id: b\n    text: B\n---\n\n# E\n\nline one\nline two\n";

    #[test]
    fn simple_revert_restores_bytes() {
        let (t, c) = m("entities/e.md", COMMIT, COMMIT, BEFORE, Resolution::Refuse);
        assert_eq!(t, BEFORE);
        assert!(c.is_empty());
    }

    #[test]
    fn later_changes_elsewhere_are_kept() {
        let later = COMMIT
            .replace("updatedAt: t2", "updatedAt: t3\nconfidence: 0.5")
            .replace("line two", "line two changed");
        let (t, c) = m("entities/e.md", COMMIT, &later, BEFORE, Resolution::Refuse);
        assert!(c.is_empty(), "{c:?}");
        assert_eq!(
            t,
            "---\nid: e\nstatus: active\nupdatedAt: t3\nconfidence: 0.5\nclaims:\n  - id: a\n    text: A\n---\n\n# E\n\nline one\nline two changed\n"
        );
        // Idempotent: rolling back again changes nothing.
        let (t2, c2) = m("entities/e.md", COMMIT, &t, BEFORE, Resolution::Refuse);
        assert_eq!(t2, t);
        assert!(c2.is_empty());
    }

    #[test]
    fn same_lines_conflict() {
        let later = COMMIT.replace("status: review", "status: archived");
        let (_, c) = m("entities/e.md", COMMIT, &later, BEFORE, Resolution::Refuse);
        assert_eq!(c, ["frontmatter key status"]);
        let (t, _) = m("entities/e.md", COMMIT, &later, BEFORE, Resolution::Before);
        assert!(t.contains("status: active"));
        let (t, _) = m("entities/e.md", COMMIT, &later, BEFORE, Resolution::Later);
        assert!(t.contains("status: archived"));
        let later = COMMIT.replace("    text: B", "    text: B2");
        let (_, c) = m("entities/e.md", COMMIT, &later, BEFORE, Resolution::Refuse);
        assert_eq!(c, ["claim b"]);
        let text_before = "a\nb\nc\n";
        let (_, c) = m(
            "notes.txt",
            "a\nB\nc\n",
            "a\nBB\nc\n",
            text_before,
            Resolution::Refuse,
        );
        assert_eq!(c, ["body lines 2-2"]);
    }

    #[test]
    fn related_block_is_ignored() {
        let rel = |x: &str| {
            format!(
                "\n## Related\n<!-- openclaw:wiki:related:start -->\n- {x}\n<!-- openclaw:wiki:related:end -->\n"
            )
        };
        let before = format!("{BEFORE}{}", rel("one"));
        let commit = format!("{COMMIT}{}", rel("two"));
        let later = format!("{COMMIT}{}", rel("three"));
        let (t, c) = m(
            "entities/e.md",
            &commit,
            &later,
            &before,
            Resolution::Refuse,
        );
        assert!(c.is_empty(), "{c:?}");
        assert!(t.ends_with(&rel("three")), "{t}");
        assert!(t.starts_with(BEFORE), "{t}");
    }

    #[test]
    fn files_added_and_deleted() {
        let out = merge_file(
            "syntheses/x.md",
            Some(b"x"),
            Some(b"x"),
            None,
            Resolution::Refuse,
        );
        assert_eq!(out.content, None);
        let out = merge_file(
            "syntheses/x.md",
            Some(b"x"),
            Some(b"y"),
            None,
            Resolution::Refuse,
        );
        assert_eq!(
            out.conflicts[0].detail,
            "created by the commit, changed later"
        );
        let out = merge_file(
            "syntheses/x.md",
            Some(b"x"),
            Some(b"y"),
            None,
            Resolution::Before,
        );
        assert_eq!(out.content, None);
        assert!(is_generated("index.md") && is_generated("sources/index.md"));
        assert!(
            is_generated("reports/lint.md") && is_generated(".openclaw-wiki/cache/claims.jsonl")
        );
        assert!(!is_generated("entities/index-x.md") && !is_generated("WIKI.md"));
    }
}
