//! Reading: revisions, files at any commit, listings, history, commit metadata, dirty checks.

use std::collections::{BTreeMap, HashMap};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::error::GitResultExt;
use crate::worktree::{self, DiskId};
use crate::{Change, CommitInfo, Error, Identity, Result, Store, env, message, paths};

/// A tree entry reduced to what the store cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub id: ObjectId,
    pub kind: EntryKind,
}

impl Entry {
    /// A regular file (the only kind that counts as a vault file).
    pub(crate) fn is_file(&self) -> bool {
        matches!(self.kind, EntryKind::Blob | EntryKind::BlobExecutable)
    }
}

/// The current value of a reference (peeled to an object id), `None` if it does not exist.
pub(crate) fn ref_tip(repo: &gix::Repository, full_name: &str) -> Result<Option<ObjectId>> {
    let reference = repo
        .try_find_reference(full_name)
        .git_ctx(|| format!("read reference {full_name}"))?;
    match reference {
        None => Ok(None),
        Some(mut r) => {
            let id = r
                .peel_to_id()
                .git_ctx(|| format!("peel reference {full_name}"))?;
            Ok(Some(id.detach()))
        }
    }
}

/// `HEAD`'s commit, `None` while unborn.
pub(crate) fn head_tip(repo: &gix::Repository) -> Result<Option<ObjectId>> {
    let head = repo.head().git_ctx(|| "read HEAD".to_string())?;
    Ok(head.id().map(|id| id.detach()))
}

/// Peel `id` (tags) to a commit.
fn peel_to_commit(repo: &gix::Repository, id: ObjectId, rev: &str) -> Result<ObjectId> {
    let object = repo
        .try_find_object(id)
        .git_ctx(|| format!("read object {id}"))?
        .ok_or_else(|| Error::RevNotFound {
            rev: rev.to_string(),
        })?;
    let commit = object.peel_to_commit().map_err(|_| Error::NotACommit {
        rev: rev.to_string(),
    })?;
    Ok(commit.id)
}

/// Resolve the base of a revision (before any `~`/`^` suffix).
fn resolve_base(repo: &gix::Repository, base: &str, rev: &str) -> Result<ObjectId> {
    let not_found = || Error::RevNotFound {
        rev: rev.to_string(),
    };
    if base == "HEAD" || base == "@" {
        return head_tip(repo)?.ok_or_else(not_found);
    }
    let hex_len = repo.object_hash().len_in_hex();
    let is_hex = !base.is_empty() && base.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex
        && base.len() == hex_len
        && let Ok(id) = ObjectId::from_hex(base.as_bytes())
    {
        return Ok(id);
    }
    // References, with git's lookup rules (refs/<name>, refs/tags/, refs/heads/, refs/remotes/...).
    let as_ref: Result<Option<ObjectId>> = match repo.try_find_reference(base) {
        Ok(Some(mut r)) => r
            .peel_to_id()
            .map(|id| Some(id.detach()))
            .git_ctx(|| format!("peel reference {base}")),
        Ok(None) => Ok(None),
        // Not a valid reference name: maybe an abbreviated id.
        Err(_) => Ok(None),
    };
    if let Some(id) = as_ref? {
        return Ok(id);
    }
    if is_hex && base.len() >= 4 && base.len() < hex_len {
        let prefix = gix::hash::Prefix::from_hex(base).map_err(|_| not_found())?;
        let found = repo
            .objects
            .lookup_prefix(prefix, None)
            .git_ctx(|| format!("look up abbreviated id {base}"))?;
        return match found {
            Some(Ok(id)) => Ok(id),
            Some(Err(())) => Err(Error::AmbiguousRev {
                rev: rev.to_string(),
            }),
            None => Err(not_found()),
        };
    }
    Err(not_found())
}

/// Resolve `rev` to a commit: `HEAD`/`@`, branch/tag/remote names, full `refs/...` names, full or
/// abbreviated (≥ 4) hex ids, followed by any number of `~N`, `^N`, `^` suffixes
/// (first-parent steps and parent selection). Tags are peeled to their commit.
pub(crate) fn resolve(repo: &gix::Repository, rev: &str) -> Result<ObjectId> {
    let rev_trim = rev.trim();
    let split = rev_trim.find(['~', '^']).unwrap_or(rev_trim.len());
    let (base, mut suffix) = rev_trim.split_at(split);
    if base.is_empty() {
        return Err(Error::RevNotFound {
            rev: rev.to_string(),
        });
    }
    let base_id = resolve_base(repo, base, rev)?;
    let mut id = peel_to_commit(repo, base_id, rev)?;
    while !suffix.is_empty() {
        let mut chars = suffix.chars();
        let op = match chars.next() {
            Some(c @ ('~' | '^')) => c,
            _ => {
                return Err(Error::RevNotFound {
                    rev: rev.to_string(),
                });
            }
        };
        suffix = chars.as_str();
        let digits_end = suffix
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(suffix.len());
        let (digits, rest) = suffix.split_at(digits_end);
        suffix = rest;
        let n: usize = if digits.is_empty() {
            1
        } else {
            digits.parse().map_err(|_| Error::RevNotFound {
                rev: rev.to_string(),
            })?
        };
        let parents = |id: ObjectId| -> Result<Vec<ObjectId>> {
            let commit = repo
                .find_commit(id)
                .git_ctx(|| format!("read commit {id}"))?;
            Ok(commit.parent_ids().map(|p| p.detach()).collect())
        };
        match op {
            '~' => {
                for _ in 0..n {
                    id = *parents(id)?.first().ok_or_else(|| Error::RevNotFound {
                        rev: rev.to_string(),
                    })?;
                }
            }
            _ => {
                if n > 0 {
                    id = *parents(id)?.get(n - 1).ok_or_else(|| Error::RevNotFound {
                        rev: rev.to_string(),
                    })?;
                }
            }
        }
    }
    Ok(id)
}

/// The tree of commit `id`.
pub(crate) fn commit_tree(repo: &gix::Repository, id: ObjectId) -> Result<ObjectId> {
    let commit = repo
        .find_commit(id)
        .git_ctx(|| format!("read commit {id}"))?;
    Ok(commit
        .tree_id()
        .git_ctx(|| format!("read tree of commit {id}"))?
        .detach())
}

/// Look up repository path `repo_path` (`/`-separated, non-empty) in tree `tree`.
pub(crate) fn lookup(
    repo: &gix::Repository,
    tree: ObjectId,
    repo_path: &str,
) -> Result<Option<Entry>> {
    let tree_obj = repo
        .find_tree(tree)
        .git_ctx(|| format!("read tree {tree}"))?;
    let entry = tree_obj
        .lookup_entry(repo_path.split('/'))
        .git_ctx(|| format!("look up {repo_path} in tree {tree}"))?;
    Ok(entry.map(|e| Entry {
        id: e.object_id(),
        kind: e.mode().kind(),
    }))
}

/// Many [`lookup`]s in one tree, each directory of it read and decoded at most once (a
/// per-path [`lookup`] re-reads and scans every tree on the way, which is quadratic for large
/// directories). Same answers as [`lookup`].
pub(crate) struct TreeLookup<'r> {
    repo: &'r gix::Repository,
    root: ObjectId,
    /// Repository directory (`""` = root) → its entries, `None` when it is absent or no tree.
    dirs: HashMap<String, Option<BTreeMap<BString, Entry>>>,
}

impl<'r> TreeLookup<'r> {
    pub(crate) fn new(repo: &'r gix::Repository, root: ObjectId) -> TreeLookup<'r> {
        TreeLookup {
            repo,
            root,
            dirs: HashMap::new(),
        }
    }

    /// Make sure `dir` is in the cache.
    fn load(&mut self, dir: &str) -> Result<()> {
        if self.dirs.contains_key(dir) {
            return Ok(());
        }
        let entries = if dir.is_empty() {
            Some(tree_entries(self.repo, self.root)?)
        } else {
            match self.lookup(dir)? {
                Some(e) if e.kind == EntryKind::Tree => Some(tree_entries(self.repo, e.id)?),
                _ => None,
            }
        };
        self.dirs.insert(dir.to_string(), entries);
        Ok(())
    }

    /// Look up repository path `repo_path` (`/`-separated, non-empty).
    pub(crate) fn lookup(&mut self, repo_path: &str) -> Result<Option<Entry>> {
        let (dir, name) = repo_path.rsplit_once('/').unwrap_or(("", repo_path));
        self.load(dir)?;
        Ok(self.dirs[dir]
            .as_ref()
            .and_then(|entries| entries.get(name.as_bytes()).copied()))
    }
}

/// The tree at directory `repo_dir` (`""` = root) of `tree`, `None` if absent or not a tree.
pub(crate) fn subtree(
    repo: &gix::Repository,
    tree: ObjectId,
    repo_dir: &str,
) -> Result<Option<ObjectId>> {
    if repo_dir.is_empty() {
        return Ok(Some(tree));
    }
    Ok(lookup(repo, tree, repo_dir)?
        .filter(|e| e.kind == EntryKind::Tree)
        .map(|e| e.id))
}

/// Entries of tree `id`, by name.
pub(crate) fn tree_entries(
    repo: &gix::Repository,
    id: ObjectId,
) -> Result<BTreeMap<BString, Entry>> {
    let tree = repo.find_tree(id).git_ctx(|| format!("read tree {id}"))?;
    let decoded = tree.decode().git_ctx(|| format!("decode tree {id}"))?;
    Ok(decoded
        .entries
        .iter()
        .map(|e| {
            (
                e.filename.to_owned(),
                Entry {
                    id: e.oid.to_owned(),
                    kind: e.mode.kind(),
                },
            )
        })
        .collect())
}

pub(crate) fn join(base: &str, name: &[u8]) -> String {
    let name = name.to_str_lossy();
    if base.is_empty() {
        name.into_owned()
    } else {
        format!("{base}/{name}")
    }
}

/// The files of a tree ([`Store::list_tree`]), each list sorted by path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Regular files, with their blob ids.
    pub files: Vec<(String, ObjectId)>,
    /// Symbolic links.
    pub links: Vec<String>,
    /// Entries (files, links or directories, which are not entered) whose name is not UTF-8,
    /// named with U+FFFD in place of the bytes that are not.
    pub not_utf8: Vec<String>,
}

/// The entries below tree `id` into `out`, with paths relative to it (`base` in front).
fn collect_files(
    repo: &gix::Repository,
    id: ObjectId,
    base: &str,
    out: &mut Listing,
) -> Result<()> {
    for (name, entry) in tree_entries(repo, id)? {
        let path = join(base, &name);
        if std::str::from_utf8(&name).is_err() {
            out.not_utf8.push(path);
        } else if entry.kind == EntryKind::Tree {
            collect_files(repo, entry.id, &path, out)?;
        } else if entry.is_file() {
            out.files.push((path, entry.id));
        } else if entry.kind == EntryKind::Link {
            out.links.push(path);
        }
    }
    Ok(())
}

/// Paths of regular files that differ between trees `a` and `b` (either may be absent).
pub(crate) fn diff_trees(
    repo: &gix::Repository,
    a: Option<ObjectId>,
    b: Option<ObjectId>,
    base: &str,
    out: &mut Vec<String>,
) -> Result<()> {
    if a == b {
        return Ok(());
    }
    let ea = match a {
        Some(id) => tree_entries(repo, id)?,
        None => BTreeMap::new(),
    };
    let eb = match b {
        Some(id) => tree_entries(repo, id)?,
        None => BTreeMap::new(),
    };
    let names: std::collections::BTreeSet<&BString> = ea.keys().chain(eb.keys()).collect();
    for name in names {
        let path = join(base, name);
        let x = ea.get(name).copied();
        let y = eb.get(name).copied();
        let tree_of = |e: Option<Entry>| e.filter(|e| e.kind == EntryKind::Tree).map(|e| e.id);
        let file_of = |e: Option<Entry>| e.filter(Entry::is_file).map(|e| (e.id, e.kind));
        let (ta, tb) = (tree_of(x), tree_of(y));
        if ta.is_some() || tb.is_some() {
            diff_trees(repo, ta, tb, &path, out)?;
        }
        if file_of(x) != file_of(y) {
            out.push(path);
        }
    }
    Ok(())
}

fn identity_of(sig: gix::actor::SignatureRef<'_>) -> Identity {
    let sig = sig.trim();
    Identity {
        name: sig.name.to_str_lossy().into_owned(),
        email: sig.email.to_str_lossy().into_owned(),
    }
}

/// Reads blobs by id from any thread (see [`Store::blob_source`]): each thread opens the
/// repository once (a repository handle is not shared between threads).
#[derive(Debug, Clone)]
pub struct BlobSource {
    vault_dir: std::path::PathBuf,
}

impl BlobSource {
    /// The bytes of blob `id`.
    pub fn read(&self, id: ObjectId) -> Result<Vec<u8>> {
        thread_local! {
            static STORES: std::cell::RefCell<Vec<(std::path::PathBuf, Store)>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        STORES.with(|stores| {
            let mut stores = stores.borrow_mut();
            let at = match stores.iter().position(|(dir, _)| *dir == self.vault_dir) {
                Some(at) => at,
                None => {
                    stores.push((self.vault_dir.clone(), Store::open(&self.vault_dir)?));
                    stores.len() - 1
                }
            };
            // (One id in, one blob out, or an error.)
            Ok(stores[at].1.read_blobs(&[id])?.pop().unwrap_or_default())
        })
    }
}

impl Store {
    /// A handle that reads blobs by id on any thread, for contents read on first use (a
    /// branch's pages whose parsed form a cache holds need not be read at all).
    pub fn blob_source(&self) -> BlobSource {
        BlobSource {
            vault_dir: self.vault_dir.clone(),
        }
    }

    /// Resolve `rev` to a commit id: `HEAD`, branch, tag and remote names, `refs/...`, full or
    /// abbreviated hex ids, with optional `~N` / `^N` suffixes (e.g. `HEAD~1`, `main^2`).
    pub fn resolve(&self, rev: &str) -> Result<ObjectId> {
        resolve(&self.repo(), rev)
    }

    /// The content of vault file `path` at `rev` (any commit or branch; no checkout), `None` when
    /// it does not exist there (or is not a regular file).
    pub fn read_file(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>> {
        paths::validate_file_path(path)?;
        let repo = self.repo();
        let commit = resolve(&repo, rev)?;
        let tree = commit_tree(&repo, commit)?;
        let repo_path = self.repo_path(path);
        match lookup(&repo, tree, &repo_path)? {
            Some(entry) if entry.is_file() => {
                let blob = repo
                    .find_blob(entry.id)
                    .git_ctx(|| format!("read blob {} ({path} at {rev})", entry.id))?;
                Ok(Some(blob.data.clone()))
            }
            _ => Ok(None),
        }
    }

    /// The contents of several blobs (e.g. the ids [`Store::list_files`] returned), in order,
    /// read through one repository handle: the bulk path for loading a whole vault from a
    /// branch without checkout.
    pub fn read_blobs(&self, ids: &[ObjectId]) -> Result<Vec<Vec<u8>>> {
        let repo = self.repo();
        ids.iter()
            .map(|id| {
                repo.find_blob(*id)
                    .map(|blob| blob.data.clone())
                    .git_ctx(|| format!("read blob {id}"))
            })
            .collect()
    }

    /// All regular files below vault directory `under` (`""` = the whole vault) at `rev`,
    /// recursively, as `(vault path, blob id)` sorted by path. Empty when `under` does not exist.
    pub fn list_files(&self, rev: &str, under: &str) -> Result<Vec<(String, ObjectId)>> {
        Ok(self.list_tree(rev, under)?.files)
    }

    /// [`Store::list_files`], and the vault paths of the symbolic links and of the entries whose
    /// name is not UTF-8 found there (a reader reports those where a page would be, as it does
    /// in the work tree).
    pub fn list_tree(&self, rev: &str, under: &str) -> Result<Listing> {
        let under = paths::normalize_dir(under)?;
        let repo = self.repo();
        let commit = resolve(&repo, rev)?;
        let tree = commit_tree(&repo, commit)?;
        let mut out = Listing::default();
        let repo_dir = format!("{}{}", self.prefix, under);
        let repo_dir = repo_dir.strip_suffix('/').unwrap_or(&repo_dir);
        if repo_dir.is_empty() {
            collect_files(&repo, tree, "", &mut out)?;
        } else {
            match lookup(&repo, tree, repo_dir)? {
                Some(e) if e.kind == EntryKind::Tree => {
                    collect_files(&repo, e.id, &under, &mut out)?
                }
                Some(e) if e.is_file() && !under.is_empty() => {
                    out.files.push((under.clone(), e.id))
                }
                Some(e) if e.kind == EntryKind::Link && !under.is_empty() => {
                    out.links.push(under.clone())
                }
                _ => {}
            }
        }
        out.files.sort();
        out.links.sort();
        out.not_utf8.sort();
        Ok(out)
    }

    /// Commits reachable from `rev` along first parents, newest first, whose blob for vault file
    /// `path` differs from their first parent's (additions and deletions included; a root commit
    /// is included when it has the file). One path lookup per commit, no full tree diffs.
    pub fn history(&self, rev: &str, path: &str) -> Result<Vec<CommitInfo>> {
        let mut walk = self.history_of_paths(rev, &[path])?;
        Ok(walk
            .pop()
            .map(|hits| hits.into_iter().map(|(_, info)| info).collect())
            .unwrap_or_default())
    }

    /// [`Store::history`] of several vault files in one first-parent walk from `rev`: for each
    /// of `paths` (in order), the commits that changed it, newest first, each with its position
    /// along the walk (0: `rev`'s commit, 1 its first parent, ...), so that the histories of
    /// several files can be merged in the walk's order.
    pub fn history_of_paths(
        &self,
        rev: &str,
        paths: &[&str],
    ) -> Result<Vec<Vec<(usize, CommitInfo)>>> {
        for path in paths {
            paths::validate_file_path(path)?;
        }
        let repo = self.repo();
        let repo_paths: Vec<_> = paths.iter().map(|p| self.repo_path(p)).collect();
        // The blob of every path in `tree` (`None` where it is not a file).
        let files_at = |tree: ObjectId| -> Result<Vec<Option<ObjectId>>> {
            repo_paths
                .iter()
                .map(|p| Ok(lookup(&repo, tree, p)?.filter(Entry::is_file).map(|e| e.id)))
                .collect()
        };
        let mut hits: Vec<Vec<(usize, ObjectId)>> = vec![Vec::new(); paths.len()];
        // The tree each commit's blobs were looked up in, and those blobs (its parent's, for the
        // next commit of the walk: the parent's tree is read once).
        let mut known: Option<(ObjectId, Vec<Option<ObjectId>>)> = None;
        let mut current = Some(resolve(&repo, rev)?);
        let mut position = 0;
        while let Some(id) = current {
            let commit = repo
                .find_commit(id)
                .git_ctx(|| format!("read commit {id}"))?;
            let tree = commit
                .tree_id()
                .git_ctx(|| format!("read tree of commit {id}"))?
                .detach();
            let parent = commit.parent_ids().next().map(|p| p.detach());
            let blobs = match known.take() {
                Some((t, b)) if t == tree => b,
                _ => files_at(tree)?,
            };
            let (parent_tree, parent_blobs) = match parent {
                Some(p) => {
                    let pt = commit_tree(&repo, p)?;
                    let pb = if pt == tree {
                        blobs.clone()
                    } else {
                        files_at(pt)?
                    };
                    (Some(pt), pb)
                }
                None => (None, vec![None; paths.len()]),
            };
            for (i, (now, before)) in blobs.iter().zip(&parent_blobs).enumerate() {
                if now != before {
                    hits[i].push((position, id));
                }
            }
            known = parent_tree.map(|t| (t, parent_blobs));
            current = parent;
            position += 1;
        }
        // Each commit's metadata is read once, however many of the files it changed.
        let shared = paths.len() > 1;
        let mut infos: HashMap<ObjectId, CommitInfo> = HashMap::new();
        hits.into_iter()
            .map(|file_hits| {
                file_hits
                    .into_iter()
                    .map(|(at, id)| {
                        let info = match infos.get(&id) {
                            Some(info) => info.clone(),
                            None => {
                                let info = self.commit_info_in(&repo, id)?;
                                if shared {
                                    infos.insert(id, info.clone());
                                }
                                info
                            }
                        };
                        Ok((at, info))
                    })
                    .collect()
            })
            .collect()
    }

    /// Metadata of commit `id`, including the vault paths it changed relative to its first parent.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        self.commit_info_in(&self.repo(), id)
    }

    fn commit_info_in(&self, repo: &gix::Repository, id: ObjectId) -> Result<CommitInfo> {
        let commit = repo
            .find_commit(id)
            .git_ctx(|| format!("read commit {id}"))?;
        let decoded = commit.decode().git_ctx(|| format!("decode commit {id}"))?;
        let author = decoded
            .author()
            .git_ctx(|| format!("parse author of commit {id}"))?;
        let committer = decoded
            .committer()
            .git_ctx(|| format!("parse committer of commit {id}"))?;
        let author_time = author
            .time()
            .git_ctx(|| format!("parse author time of commit {id}"))?;
        let commit_time = committer
            .time()
            .git_ctx(|| format!("parse committer time of commit {id}"))?;
        let message = decoded.message.to_str_lossy().into_owned();
        let parents: Vec<ObjectId> = decoded.parents().collect();
        let tree = decoded.tree();
        let changed_paths = self.changed_paths(repo, parents.first().copied(), tree)?;
        Ok(CommitInfo {
            id,
            parents,
            author: identity_of(author),
            author_time: author_time.seconds,
            committer: identity_of(committer),
            commit_time: commit_time.seconds,
            time_iso: env::iso(author_time),
            subject: message::subject_of(&message),
            trailers: message::parse_trailers(&message),
            message,
            changed_paths,
        })
    }

    /// Vault paths that differ between the first parent's tree (if any) and `tree`.
    fn changed_paths(
        &self,
        repo: &gix::Repository,
        parent: Option<ObjectId>,
        tree: ObjectId,
    ) -> Result<Vec<String>> {
        let vault_dir = self.prefix.strip_suffix('/').unwrap_or(&self.prefix);
        let a = match parent {
            Some(p) => subtree(repo, commit_tree(repo, p)?, vault_dir)?,
            None => None,
        };
        let b = subtree(repo, tree, vault_dir)?;
        let mut out = Vec::new();
        diff_trees(repo, a, b, "", &mut out)?;
        out.sort();
        Ok(out)
    }

    /// The changes that undo commit `id`'s changes to vault files: for each path it changed, the
    /// content at its first parent, or `None` (delete) where the commit added the file.
    pub fn revert_changes(&self, id: ObjectId) -> Result<Vec<Change>> {
        let repo = self.repo();
        let commit = repo
            .find_commit(id)
            .git_ctx(|| format!("read commit {id}"))?;
        let tree = commit
            .tree_id()
            .git_ctx(|| format!("read tree of commit {id}"))?
            .detach();
        let parent = commit.parent_ids().next().map(|p| p.detach());
        let changed = self.changed_paths(&repo, parent, tree)?;
        let parent_tree = parent.map(|p| commit_tree(&repo, p)).transpose()?;
        let mut out = Vec::with_capacity(changed.len());
        for path in changed {
            let content = match parent_tree {
                Some(pt) => match lookup(&repo, pt, &self.repo_path(&path))? {
                    Some(e) if e.is_file() => Some(
                        repo.find_blob(e.id)
                            .git_ctx(|| format!("read blob {} ({path})", e.id))?
                            .data
                            .clone(),
                    ),
                    _ => None,
                },
                None => None,
            };
            out.push(Change {
                path,
                content,
                blob: None,
            });
        }
        Ok(out)
    }

    /// Which of `paths` (vault paths) have uncommitted changes: the index entry differs from
    /// `HEAD`, the work-tree file differs from the index, or the file is untracked. Returned in
    /// the order given.
    pub fn dirty_paths(&self, paths: &[String]) -> Result<Vec<String>> {
        for p in paths {
            paths::validate_file_path(p)?;
        }
        let repo = self.repo();
        let head_tree = match head_tip(&repo)? {
            Some(id) => Some(commit_tree(&repo, id)?),
            None => None,
        };
        let index = worktree::load_index(&repo)?;
        let mut dirty = Vec::new();
        for path in paths {
            let repo_path = self.repo_path(path);
            let head = match head_tree {
                Some(t) => lookup(&repo, t, &repo_path)?.map(|e| e.id),
                None => None,
            };
            let key = repo_path.as_bytes().as_bstr();
            let staged = index
                .entry_by_path_and_stage(key, gix::index::entry::Stage::Unconflicted)
                .map(|e| e.id);
            let conflicted = index
                .entry_range(key)
                .is_some_and(|r| r.len() > 1 || staged.is_none());
            let disk = worktree::disk_id_lenient(&self.vault_dir.join(path))?;
            let disk_id = match disk {
                DiskId::Absent => None,
                DiskId::Blob(id) => Some(id),
                DiskId::Other => {
                    if head.is_some() || staged.is_some() {
                        dirty.push(path.clone());
                    }
                    continue;
                }
            };
            if conflicted || staged != head || disk_id != staged {
                dirty.push(path.clone());
            }
        }
        Ok(dirty)
    }
}
