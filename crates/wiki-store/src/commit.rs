//! Writing commits: tree building, compare-and-swap ref updates, human-edit protection, work tree
//! and index maintenance, crash journal and roll-forward.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use gix::refs::transaction::{PreviousValue, RefEdit};

use crate::env::{self, Role};
use crate::error::GitResultExt;
use crate::journal::{self, Journal};
use crate::read::{self, Entry};
use crate::worktree::{self, Checked, Disk, FileWrite, IndexUpdate, StatFrom};
use crate::{
    CommitOutcome, CommitRequest, Error, Result, Store, Target, VaultLock, branch_ref_name,
    message, paths,
};

/// Where to stop (test hook for crash simulation).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    Never,
    AfterRefUpdate,
}

/// The reference a commit goes to.
struct ResolvedTarget {
    /// `refs/heads/<b>`, or `HEAD` when `HEAD` is detached.
    ref_name: String,
    /// Whether the work tree and index follow this ref.
    checked_out: bool,
}

/// One path of a planned commit.
struct Planned<'a> {
    path: &'a str,
    content: Option<&'a [u8]>,
    /// `Some` forces the executable bit; `None` keeps the tip's mode (new files: not executable).
    exec: Option<bool>,
    /// The blob id of `content` when the caller gave it ([`Change::blob`]).
    blob: Option<ObjectId>,
}

/// New blob id, executable bit and bytes of a changed path (`None` = deleted).
type NewFile<'a> = Option<(ObjectId, bool, &'a [u8])>;

/// A written (but not yet published) commit.
struct Built<'a> {
    commit: ObjectId,
    tree: ObjectId,
    /// Changed vault paths with their new blob id, executable bit and bytes (`None` = deleted).
    changed: Vec<(&'a str, NewFile<'a>)>,
}

/// Paths of a change set edited by hand, with what the disk holds.
type HumanEdits<'r> = Vec<(&'r str, Disk)>;

/// Signatures for one commit.
struct Signatures {
    author: gix::actor::Signature,
    committer: gix::actor::Signature,
}

impl Store {
    /// Commit `req`, taking the vault lock for the duration of the call (see the crate
    /// documentation for the full procedure). Do not call this while holding a [`VaultLock`] of
    /// the same vault: use [`Store::commit_locked`] then.
    pub fn commit(&self, req: &CommitRequest<'_>) -> Result<CommitOutcome> {
        let lock = self.lock()?;
        self.commit_inner(&lock, req, Stop::Never)
    }

    /// Like [`Store::commit`], for callers that already hold this vault's lock (from
    /// [`Store::lock`]). Fails with [`Error::ForeignLock`] for another vault's lock.
    pub fn commit_locked(
        &self,
        lock: &VaultLock,
        req: &CommitRequest<'_>,
    ) -> Result<CommitOutcome> {
        self.commit_inner(lock, req, Stop::Never)
    }

    /// Test hook: perform a commit but "crash" right after the ref update, leaving the journal in
    /// place and neither the work tree nor the index updated.
    #[doc(hidden)]
    pub fn commit_simulating_crash_after_ref_update(
        &self,
        req: &CommitRequest<'_>,
    ) -> Result<CommitOutcome> {
        let lock = self.lock()?;
        self.commit_inner(&lock, req, Stop::AfterRefUpdate)
    }

    pub(crate) fn check_lock(&self, lock: &VaultLock) -> Result<()> {
        let expected = self.lock_path();
        if lock.path() != expected {
            return Err(Error::ForeignLock {
                expected,
                got: lock.path().to_path_buf(),
            });
        }
        Ok(())
    }

    fn resolve_target(&self, repo: &gix::Repository, target: &Target) -> Result<ResolvedTarget> {
        let head = repo.head_name().git_ctx(|| "read HEAD".to_string())?;
        let head = head.map(|n| n.as_bstr().to_string());
        Ok(match target {
            Target::Head => match head {
                Some(name) => ResolvedTarget {
                    ref_name: name,
                    checked_out: true,
                },
                None => ResolvedTarget {
                    ref_name: "HEAD".to_string(),
                    checked_out: true,
                },
            },
            Target::Branch(b) => {
                let full = branch_ref_name(b)?;
                let checked_out = head.as_deref() == Some(full.as_str());
                ResolvedTarget {
                    ref_name: full,
                    checked_out,
                }
            }
        })
    }

    fn signatures(&self, repo: &gix::Repository) -> Result<Signatures> {
        let sig = |role: Role| -> Result<gix::actor::Signature> {
            let who = self.identity_for(repo, role);
            Ok(gix::actor::Signature {
                name: who.name.into(),
                email: who.email.into(),
                time: env::resolve_time(&self.env, role)?,
            })
        };
        Ok(Signatures {
            author: sig(Role::Author)?,
            committer: sig(Role::Committer)?,
        })
    }

    fn ref_value(&self, repo: &gix::Repository, ref_name: &str) -> Result<Option<ObjectId>> {
        if ref_name == "HEAD" {
            read::head_tip(repo)
        } else {
            read::ref_tip(repo, ref_name)
        }
    }

    /// Move `ref_name` from `expected` (`None` = must not exist) to `new`, atomically.
    fn cas_update(
        &self,
        repo: &gix::Repository,
        ref_name: &str,
        expected: Option<ObjectId>,
        new: ObjectId,
        reflog: &str,
        committer: &gix::actor::Signature,
    ) -> Result<()> {
        let name: gix::refs::FullName = ref_name.try_into().map_err(|_| Error::InvalidBranch {
            name: ref_name.to_string(),
        })?;
        let previous = match expected {
            Some(id) => PreviousValue::MustExistAndMatch(gix::refs::Target::Object(id)),
            None => PreviousValue::MustNotExist,
        };
        let reflog: String = reflog
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        let edit = RefEdit::update(name, new, previous, reflog).with_deref(false);
        let mut time_buf = gix::date::parse::TimeBuf::default();
        match repo.edit_references_as(Some(edit), Some(committer.to_ref(&mut time_buf))) {
            Ok(_) => Ok(()),
            Err(source) => {
                let actual = self.ref_value(repo, ref_name)?;
                if actual != expected {
                    Err(Error::Conflict {
                        branch: ref_name.to_string(),
                        expected,
                        actual,
                    })
                } else {
                    Err(Error::git(format!("update reference {ref_name}"), source))
                }
            }
        }
    }

    fn commit_inner(
        &self,
        lock: &VaultLock,
        req: &CommitRequest<'_>,
        stop: Stop,
    ) -> Result<CommitOutcome> {
        self.check_lock(lock)?;
        validate_changes(req)?;
        let msg = message::build_message(&req.subject, req.body.as_deref(), &req.trailers)?;
        let repo = self.repo();
        self.roll_forward(&repo)?;

        let target = self.resolve_target(&repo, &req.target)?;
        let sigs = self.signatures(&repo)?;

        let mut tip = self.start_tip(&repo, &target, req, &sigs)?;
        let mut tip_tree = tip.map(|t| read::commit_tree(&repo, t)).transpose()?;
        let mut outcome = CommitOutcome::default();

        let mut checked = HashMap::new();
        if target.checked_out {
            // The directories here, each file while reading it (`human_edits`).
            worktree::PathChecker::default()
                .check_parents(&self.vault_dir, req.changes.iter().map(|c| c.path.as_str()))?;
            let (human, checks) = self.human_edits(&repo, tip_tree, req)?;
            checked = checks;
            let human =
                self.commit_human_edits(&repo, &target, tip, tip_tree, &human, req, &sigs)?;
            if let Some((commit, tree, paths)) = human {
                outcome.human_commit = Some(commit);
                outcome.human_paths = paths;
                tip = Some(commit);
                tip_tree = Some(tree);
            }
        }

        let planned: Vec<Planned<'_>> = req
            .changes
            .iter()
            .map(|c| Planned {
                path: &c.path,
                content: c.content.as_deref(),
                exec: None,
                blob: c.blob.filter(|_| c.content.is_some()),
            })
            .collect();
        let Some(built) = self.build_commit(&repo, tip, tip_tree, &planned, &msg, &sigs)? else {
            return Ok(outcome);
        };
        let reflog = format!(
            "commit{}: {}",
            if tip.is_none() { " (initial)" } else { "" },
            message::subject_of(&msg)
        );
        outcome.kept = self.publish(
            &repo,
            &target,
            tip,
            &built,
            Some(&checked),
            &reflog,
            &sigs,
            stop,
        )?;
        outcome.commit = Some(built.commit);
        if stop == Stop::Never {
            match self.auto_pack(&repo) {
                Ok(done) => {
                    outcome.packed = done.packed;
                    outcome.pack_detached = done.detached;
                    outcome.pack_error = done.previous_error;
                }
                Err(e) => outcome.pack_error = Some(e.to_string()),
            }
        }
        let mut written: Vec<String> = built.changed.iter().map(|(p, _)| p.to_string()).collect();
        written.sort();
        outcome.written = written;
        Ok(outcome)
    }

    /// The tip a commit builds on: the target ref's, or, for a branch that does not exist yet
    /// (and is not checked out), the revision it starts from ([`CommitRequest::create_from`],
    /// else `HEAD`'s tip), the ref being created there. A tip other than
    /// [`CommitRequest::expected_parent`] is a [`Error::Conflict`].
    fn start_tip(
        &self,
        repo: &gix::Repository,
        target: &ResolvedTarget,
        req: &CommitRequest<'_>,
        sigs: &Signatures,
    ) -> Result<Option<ObjectId>> {
        let mut tip = self.ref_value(repo, &target.ref_name)?;
        if !target.checked_out && tip.is_none() {
            let start = match &req.create_from {
                Some(rev) => Some(read::resolve(repo, rev)?),
                None => read::head_tip(repo)?,
            };
            if let Some(expected) = req.expected_parent
                && start != Some(expected)
            {
                return Err(Error::Conflict {
                    branch: target.ref_name.clone(),
                    expected: Some(expected),
                    actual: start,
                });
            }
            if let Some(start) = start {
                let from = req.create_from.as_deref().unwrap_or("HEAD");
                self.cas_update(
                    repo,
                    &target.ref_name,
                    None,
                    start,
                    &format!("branch: Created from {from}"),
                    &sigs.committer,
                )?;
                tip = Some(start);
            }
        }
        if let Some(expected) = req.expected_parent
            && tip != Some(expected)
        {
            return Err(Error::Conflict {
                branch: target.ref_name.clone(),
                expected: Some(expected),
                actual: tip,
            });
        }
        Ok(tip)
    }

    /// Commit the human edits of the change set's paths (`human`, with what the disk holds) on
    /// `tip` as their own commit, with one `Wiki-Human-Edit` trailer per path: `(commit, tree,
    /// sorted paths)`, or `None` when there are none or they change nothing.
    #[allow(clippy::too_many_arguments)]
    fn commit_human_edits(
        &self,
        repo: &gix::Repository,
        target: &ResolvedTarget,
        tip: Option<ObjectId>,
        tip_tree: Option<ObjectId>,
        human: &HumanEdits<'_>,
        req: &CommitRequest<'_>,
        sigs: &Signatures,
    ) -> Result<Option<(ObjectId, ObjectId, Vec<String>)>> {
        if human.is_empty() {
            return Ok(None);
        }
        let op = req
            .trailers
            .iter()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("Wiki-Op"))
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| message::FALLBACK_SUBJECT.to_string());
        let trailers: Vec<(String, String)> = human
            .iter()
            .map(|(p, _)| ("Wiki-Human-Edit".to_string(), p.to_string()))
            .collect();
        let human_msg =
            message::build_message(&format!("Record human edits before {op}"), None, &trailers)?;
        let planned: Vec<Planned<'_>> = human
            .iter()
            .map(|(path, disk)| match disk {
                Disk::Absent => Planned {
                    path,
                    content: None,
                    exec: None,
                    blob: None,
                },
                Disk::File { bytes, exec } => Planned {
                    path,
                    content: Some(bytes.as_slice()),
                    exec: Some(*exec),
                    blob: None,
                },
            })
            .collect();
        let Some(built) = self.build_commit(repo, tip, tip_tree, &planned, &human_msg, sigs)?
        else {
            return Ok(None);
        };
        let reflog = format!("commit: Record human edits before {op}");
        self.publish(repo, target, tip, &built, None, &reflog, sigs, Stop::Never)?;
        let mut paths: Vec<String> = human.iter().map(|(p, _)| p.to_string()).collect();
        paths.sort();
        Ok(Some((built.commit, built.tree, paths)))
    }

    /// Paths of the change set whose work-tree file differs from the tip (with what is on disk),
    /// and what every file of the change set holds now ([`Checked`]: the writes check it again
    /// right before replacing each file). A file that no longer holds what the caller read
    /// ([`CommitRequest::read`]), or that changes while it is read, is
    /// [`Error::ChangedOnDisk`].
    fn human_edits<'r>(
        &self,
        repo: &gix::Repository,
        tip_tree: Option<ObjectId>,
        req: &'r CommitRequest<'_>,
    ) -> Result<(HumanEdits<'r>, HashMap<&'r str, Checked>)> {
        let mut tree = tip_tree.map(|t| read::TreeLookup::new(repo, t));
        let mut work = Vec::with_capacity(req.changes.len());
        for change in req.changes {
            let repo_path = self.repo_path(&change.path);
            let committed = match &mut tree {
                Some(t) => t.lookup(&repo_path)?.filter(Entry::is_file).map(|e| e.id),
                None => None,
            };
            work.push((change, repo_path, committed));
        }
        // Files the index vouches for (unchanged since it recorded the committed blob) are not
        // read: a commit that rewrites the megabytes of a dashboard read them back otherwise.
        let index = match work.iter().any(|(_, _, committed)| committed.is_some()) {
            true => worktree::IndexVouch::load(repo)?,
            false => None,
        };
        let vault_dir = self.vault_dir.as_path();
        let disks = worktree::par_map(&work, |(change, repo_path, committed)| {
            let full = vault_dir.join(&change.path);
            if let (Some(index), Some(id)) = (&index, committed)
                && let Ok(meta) = gix::index::fs::Metadata::from_path_no_follow(&full)
                && index.vouches(repo_path, &meta, *id)
            {
                let checked = Checked {
                    id: Some(*id),
                    stat: gix::index::entry::Stat::from_fs(&meta).ok(),
                };
                return Ok((None, checked));
            }
            let before = Checked::of(&full, None).stat;
            let disk = worktree::read_disk(vault_dir, &change.path)?;
            let checked = Checked {
                id: disk.id(),
                stat: Checked::of(&full, None).stat,
            };
            if checked.stat != before {
                // Being written right now.
                return Err(Error::ChangedOnDisk {
                    path: change.path.clone(),
                });
            }
            Ok(((checked.id != *committed).then_some(disk), checked))
        });
        let mut out = Vec::new();
        let mut checks = HashMap::with_capacity(work.len());
        for ((change, _, _), disk) in work.iter().zip(disks) {
            let (disk, checked) = disk?;
            let path = change.path.as_str();
            if let Some(read) = req.read
                && let Some(expected) = read.get(path)
                && *expected != checked.id
            {
                return Err(Error::ChangedOnDisk {
                    path: path.to_string(),
                });
            }
            if let Some(disk) = disk {
                out.push((path, disk));
            }
            checks.insert(path, checked);
        }
        Ok((out, checks))
    }

    /// Write blobs, tree and commit object for `planned` on top of `tip`; `None` when nothing
    /// changes. No reference is touched.
    fn build_commit<'a>(
        &self,
        repo: &gix::Repository,
        tip: Option<ObjectId>,
        tip_tree: Option<ObjectId>,
        planned: &[Planned<'a>],
        msg: &str,
        sigs: &Signatures,
    ) -> Result<Option<Built<'a>>> {
        let base = tip_tree.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
        let mut editor = repo
            .edit_tree(base)
            .git_ctx(|| format!("edit tree {base}"))?;
        let mut changed = Vec::new();
        let mut new_blobs: Vec<(ObjectId, &'a [u8])> = Vec::new();
        let mut new_ids = HashSet::new();
        let mut tree = tip_tree.map(|t| read::TreeLookup::new(repo, t));
        // Ids the caller computed are taken as given (debug builds check them).
        let ids = worktree::par_map(planned, |p| match (p.blob, p.content) {
            (Some(id), Some(bytes)) => {
                debug_assert_eq!(worktree::blob_id(bytes), id, "blob id given for {}", p.path);
                Some(id)
            }
            (_, content) => content.map(worktree::blob_id),
        });
        for (p, new_id) in planned.iter().zip(ids) {
            let repo_path = self.repo_path(p.path);
            let old = match &mut tree {
                Some(t) => t.lookup(&repo_path)?,
                None => None,
            };
            if let Some(old) = old
                && old.kind == EntryKind::Tree
            {
                return Err(Error::UnsafePath {
                    path: p.path.to_string(),
                    reason: "it is a directory in the branch tip".to_string(),
                });
            }
            match p.content {
                Some(bytes) => {
                    if old.is_none()
                        && let Some(t) = &mut tree
                    {
                        self.check_ancestors_are_trees(t, p.path)?;
                    }
                    let exec = match p.exec {
                        Some(x) => x,
                        None => old.is_some_and(|e| e.kind == EntryKind::BlobExecutable),
                    };
                    let kind = if exec {
                        EntryKind::BlobExecutable
                    } else {
                        EntryKind::Blob
                    };
                    let id = new_id.unwrap_or_else(|| worktree::blob_id(bytes));
                    if old == Some(Entry { id, kind }) {
                        continue;
                    }
                    if new_ids.insert(id) {
                        new_blobs.push((id, bytes));
                    }
                    editor
                        .upsert(repo_path.as_str(), kind, id)
                        .git_ctx(|| format!("add {} to tree", p.path))?;
                    changed.push((p.path, Some((id, exec, bytes))));
                }
                None => {
                    if old.is_none() {
                        continue;
                    }
                    editor
                        .remove(repo_path.as_str())
                        .git_ctx(|| format!("remove {} from tree", p.path))?;
                    changed.push((p.path, None));
                }
            }
        }
        if changed.is_empty() {
            return Ok(None);
        }
        // Blobs first, then trees and the commit.
        let objects_dir = repo.objects.store_ref().path();
        worktree::write_blobs(objects_dir, &new_blobs)?;
        let tree = editor
            .write()
            .git_ctx(|| format!("write tree for commit on {base}"))?
            .detach();
        if Some(tree) == tip_tree {
            return Ok(None);
        }
        let commit = gix::objs::Commit {
            tree,
            parents: tip.into_iter().collect(),
            author: sigs.author.clone(),
            committer: sigs.committer.clone(),
            encoding: None,
            message: msg.into(),
            extra_headers: Vec::new(),
        };
        let id = repo
            .write_object(&commit)
            .git_ctx(|| format!("write commit object with tree {tree}"))?
            .detach();
        Ok(Some(Built {
            commit: id,
            tree,
            changed,
        }))
    }

    /// Refuse to turn a file of the tip into a directory implicitly.
    fn check_ancestors_are_trees(
        &self,
        tree: &mut read::TreeLookup<'_>,
        vault_path: &str,
    ) -> Result<()> {
        let repo_path = self.repo_path(vault_path);
        let mut end = 0;
        while let Some(pos) = repo_path[end..].find('/') {
            let ancestor = &repo_path[..end + pos];
            match tree.lookup(ancestor)? {
                None => return Ok(()),
                Some(e) if e.kind == EntryKind::Tree => {}
                Some(_) => {
                    return Err(Error::UnsafePath {
                        path: vault_path.to_string(),
                        reason: format!("{ancestor:?} is a file in the branch tip"),
                    });
                }
            }
            end += pos + 1;
        }
        Ok(())
    }

    /// Journal, move the ref, and (checked-out branch) bring files and index along.
    #[allow(clippy::too_many_arguments)]
    fn publish(
        &self,
        repo: &gix::Repository,
        target: &ResolvedTarget,
        parent: Option<ObjectId>,
        built: &Built<'_>,
        write_files: Option<&HashMap<&str, Checked>>,
        reflog: &str,
        sigs: &Signatures,
        stop: Stop,
    ) -> Result<Vec<String>> {
        if target.checked_out
            && let Some(checked) = write_files
        {
            // The last look before the ref moves: a hand edit made while the commit was built
            // sends the caller back to read it.
            for (path, _) in &built.changed {
                if checked
                    .get(path)
                    .is_some_and(|c| !c.holds(&self.vault_dir.join(path)))
                {
                    return Err(Error::ChangedOnDisk {
                        path: path.to_string(),
                    });
                }
            }
        }
        if target.checked_out {
            let paths = built.changed.iter().map(|(p, _)| p.to_string()).collect();
            journal::write(
                &self.vault_dir,
                &Journal::new(&target.ref_name, parent, built.commit, paths),
            )?;
        }
        if let Err(e) = self.cas_update(
            repo,
            &target.ref_name,
            parent,
            built.commit,
            reflog,
            &sigs.committer,
        ) {
            if target.checked_out {
                journal::remove(&self.vault_dir)?;
            }
            return Err(e);
        }
        if stop == Stop::AfterRefUpdate || !target.checked_out {
            return Ok(Vec::new());
        }
        let checked = write_files.map(|c| |path: &str| c.get(path));
        // Deletions first (they may remove directories left empty, which a write below then
        // recreates), then every write at once (see `worktree::write_files`).
        let mut writes = Vec::new();
        let mut kept = Vec::new();
        for (path, new) in &built.changed {
            match new {
                Some((_, exec, bytes)) => writes.push(FileWrite {
                    path,
                    bytes,
                    exec: *exec,
                    checked: checked.and_then(|c| c(path)),
                }),
                None => match checked.map(|c| c(path)) {
                    None => {}
                    Some(Some(c)) if !c.holds(&self.vault_dir.join(path)) => {
                        kept.push(path.to_string())
                    }
                    Some(_) => worktree::remove(&self.vault_dir, path)?,
                },
            }
        }
        let written = if write_files.is_some() {
            Some(worktree::write_files(&self.vault_dir, &writes)?)
        } else {
            None
        };
        let mut stats = written.map(|w| w.stats).unwrap_or_default().into_iter();
        let mut updates = Vec::with_capacity(built.changed.len());
        for (path, new) in &built.changed {
            let repo_path = self.repo_path(path);
            let stat = match new {
                Some(_) => match stats.next() {
                    Some(Some(stat)) => StatFrom::Known(stat),
                    // Left alone for a hand edit: zero stat data makes git re-hash the file
                    // and show the edit.
                    Some(None) => {
                        kept.push(path.to_string());
                        StatFrom::Zero
                    }
                    // Not written by us: the disk already holds this content.
                    None => StatFrom::Path(self.vault_dir.join(path)),
                },
                None => StatFrom::Zero,
            };
            let entry = new.map(|(id, exec, _)| (id, exec, stat));
            updates.push(IndexUpdate { repo_path, entry });
        }
        worktree::update_index(repo, &updates)?;
        journal::remove(&self.vault_dir)?;
        kept.sort();
        Ok(kept)
    }

    /// Called by `open`: roll a journal forward if one exists and nobody holds the lock.
    pub(crate) fn recover_on_open(&self) -> Result<()> {
        if !journal::journal_path(&self.vault_dir).exists() {
            return Ok(());
        }
        if let Some(_lock) = crate::lock::try_acquire(&self.lock_path())? {
            self.roll_forward(&self.repo())?;
        }
        Ok(())
    }

    /// Finish an interrupted publish (the lock must be held).
    fn roll_forward(&self, repo: &gix::Repository) -> Result<()> {
        let Some(j) = journal::read(&self.vault_dir)? else {
            return Ok(());
        };
        let jpath = journal::journal_path(&self.vault_dir);
        // A writer killed while moving the ref or writing the index leaves git's lock files.
        clear_stale_git_locks(repo, &j.reference, &jpath);
        // A writer killed while writing files leaves its temporary files behind.
        let mut checker = worktree::PathChecker::default();
        let checked: Vec<String> = j
            .paths
            .iter()
            .filter(|p| {
                paths::validate_file_path(p).is_ok() && checker.check(&self.vault_dir, p).is_ok()
            })
            .cloned()
            .collect();
        worktree::remove_stale_temps(&self.vault_dir, &checked);
        let commit = j.commit_id(&jpath)?;
        let parent = j.parent_id(&jpath)?;
        let head_ref = repo
            .head_name()
            .git_ctx(|| "read HEAD".to_string())?
            .map(|n| n.as_bstr().to_string())
            .unwrap_or_else(|| "HEAD".to_string());
        let tip = self.ref_value(repo, &j.reference)?;
        if head_ref != j.reference || tip != Some(commit) {
            // The ref never moved (or moved on / was switched away): nothing safe to do.
            return journal::remove(&self.vault_dir);
        }
        let new_tree = read::commit_tree(repo, commit)?;
        let parent_tree = parent.map(|p| read::commit_tree(repo, p)).transpose()?;
        let index = worktree::load_index(repo)?;
        let mut new_lookup = read::TreeLookup::new(repo, new_tree);
        let mut parent_lookup = parent_tree.map(|t| read::TreeLookup::new(repo, t));
        let mut updates = Vec::new();
        // Files to (re)write: index into `updates`, path, content, executable bit.
        let mut rewrites: Vec<(usize, &str, Vec<u8>, bool)> = Vec::new();
        for path in &checked {
            let repo_path = self.repo_path(path);
            let new = new_lookup.lookup(&repo_path)?.filter(Entry::is_file);
            let old = match &mut parent_lookup {
                Some(t) => t.lookup(&repo_path)?.filter(Entry::is_file),
                None => None,
            };
            let (new_id, old_id) = (new.map(|e| e.id), old.map(|e| e.id));
            let disk = worktree::read_disk(&self.vault_dir, path)?;
            let disk_id = disk.id();
            let new_blob = |e: &Entry| -> Result<Vec<u8>> {
                Ok(repo
                    .find_blob(e.id)
                    .git_ctx(|| format!("read blob {} ({path})", e.id))?
                    .data
                    .clone())
            };
            // A torn in-place write leaves a strict prefix (possibly empty) of the new content.
            let torn = match (&disk, new) {
                (Disk::File { bytes, .. }, Some(e)) if disk_id != new_id && disk_id != old_id => {
                    let data = new_blob(&e)?;
                    (bytes.len() < data.len() && data.starts_with(bytes)).then_some(data)
                }
                _ => None,
            };
            let stat = if disk_id == new_id {
                if let Some(e) = new {
                    worktree::fix_mode(&self.vault_dir, path, e.kind == EntryKind::BlobExecutable)?;
                }
                StatFrom::Path(self.vault_dir.join(path))
            } else if disk_id == old_id || torn.is_some() {
                match new {
                    Some(e) => {
                        let data = match torn {
                            Some(data) => data,
                            None => new_blob(&e)?,
                        };
                        let exec = e.kind == EntryKind::BlobExecutable;
                        rewrites.push((updates.len(), path.as_str(), data, exec));
                    }
                    // Deleted now; the rewrites follow all deletions (as in `publish`).
                    None => worktree::remove(&self.vault_dir, path)?,
                }
                StatFrom::Path(self.vault_dir.join(path))
            } else {
                // Changed by someone since: the file is left alone. Its index entry still
                // follows the commit if it holds the parent's version (nobody staged anything),
                // with zero stat data so git re-hashes the file and shows the edit.
                let staged = index
                    .entry_by_path_and_stage(
                        repo_path.as_bytes().as_bstr(),
                        gix::index::entry::Stage::Unconflicted,
                    )
                    .map(|e| e.id);
                if staged != old_id {
                    continue;
                }
                StatFrom::Zero
            };
            updates.push(IndexUpdate {
                repo_path,
                entry: new.map(|e| (e.id, e.kind == EntryKind::BlobExecutable, stat)),
            });
        }
        let writes: Vec<FileWrite<'_>> = rewrites
            .iter()
            .map(|(_, path, data, exec)| FileWrite {
                path,
                bytes: data,
                exec: *exec,
                checked: None,
            })
            .collect();
        let stats = worktree::write_files(&self.vault_dir, &writes)?.stats;
        for ((i, ..), stat) in rewrites.iter().zip(stats) {
            if let (Some((_, _, from)), Some(stat)) = (&mut updates[*i].entry, stat) {
                *from = StatFrom::Known(stat);
            }
        }
        worktree::update_index(repo, &updates)?;
        journal::remove(&self.vault_dir)
    }
}

/// Remove the lock files a writer killed between its journal and the end of its publish can have
/// left in the git directory: `<reference>.lock` (the ref update) and `index.lock` (the index
/// write). Called with the vault lock held, so no other wiki writer is running; a lock file is
/// only taken as the dead writer's when it is not older than the journal (written before either
/// lock is taken). A git command of a human that happens to hold one of these locks at this
/// very moment sees its own update fail (git's rename of its lock file), nothing is corrupted.
fn clear_stale_git_locks(repo: &gix::Repository, reference: &str, journal: &std::path::Path) {
    let Ok(since) = std::fs::metadata(journal).and_then(|m| m.modified()) else {
        return;
    };
    let git_dir = repo.git_dir();
    let mut locks = vec![git_dir.join("index.lock")];
    if !reference
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        locks.push(git_dir.join(format!("{reference}.lock")));
    }
    for lock in locks {
        let Ok(meta) = std::fs::symlink_metadata(&lock) else {
            continue;
        };
        if meta.is_file() && meta.modified().is_ok_and(|m| m >= since) {
            match std::fs::remove_file(&lock) {
                Ok(()) => eprintln!(
                    "wiki: removed {} left by an interrupted wiki write",
                    lock.display()
                ),
                Err(e) => eprintln!("wiki: cannot remove {}: {e}", lock.display()),
            }
        }
    }
}

/// Lexical checks of a change set: valid paths, each at most once, no path that is also a
/// directory of another.
fn validate_changes(req: &CommitRequest<'_>) -> Result<()> {
    let mut seen = HashSet::new();
    for change in req.changes {
        paths::validate_file_path(&change.path)?;
        if !seen.insert(change.path.as_str()) {
            return Err(Error::InvalidPath {
                path: change.path.clone(),
                reason: "listed more than once in the change set",
            });
        }
    }
    for change in req.changes {
        let mut end = 0;
        while let Some(pos) = change.path[end..].find('/') {
            let ancestor = &change.path[..end + pos];
            if seen.contains(ancestor) {
                return Err(Error::InvalidPath {
                    path: change.path.clone(),
                    reason: "a parent of this path is also a file in the change set",
                });
            }
            end += pos + 1;
        }
    }
    Ok(())
}
