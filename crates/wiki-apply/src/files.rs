//! Where operations read vault files from: a `wiki-digest` [`Snapshot`] of the work tree (the
//! checked-out branch, human edits included) or of a commit (any branch, no checkout), plus
//! direct reads for the few vault files a snapshot does not hold (rollback of `WIKI.md` …).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use wiki_store::Store;
use wiki_vault as vault;
use wiki_vault::Snapshot;
use wiki_vault::snapshot::tracks;

use crate::error::{Error, Result};

/// Read access to the vault files an operation batch starts from.
pub trait VaultFiles {
    /// Every page path (`entities/…`, `concepts/…`, …; `index.md` excluded), sorted.
    fn page_paths(&self) -> &[String];
    /// The bytes of a vault file, `None` when it does not exist (borrowed when in memory).
    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>>;
    /// The compile snapshot these files come from, when there is one.
    fn snapshot(&self) -> Option<&Snapshot> {
        None
    }
    /// About to read many of these files: read them ahead where that is faster.
    fn prefetch(&self, _paths: &[String]) {}
    /// For each of `paths`: `Some(false)` when the page is known, without reading it, to have
    /// another page id than `id` (from the parse cache); `None` when unknown.
    fn may_have_page_id(&self, paths: &[String], _id: &str) -> Vec<Option<bool>> {
        vec![None; paths.len()]
    }
    /// For each of `paths`: `Some(false)` when the page is known, without reading it, to have no
    /// claim with id `claim_id` (from the parse cache); `None` when unknown.
    fn may_have_claim(&self, paths: &[String], _claim_id: &str) -> Vec<Option<bool>> {
        vec![None; paths.len()]
    }
    /// What was read of the work-tree files among `paths` (see
    /// [`wiki_store::CommitRequest::read`]); empty when the files do not come from the work
    /// tree.
    fn read_state(&self, _paths: &mut dyn Iterator<Item = &str>) -> wiki_store::ReadState {
        wiki_store::ReadState::new()
    }
}

/// In-memory files (tests).
#[derive(Debug, Default, Clone)]
pub struct MemFiles {
    files: BTreeMap<String, Vec<u8>>,
    pages: Vec<String>,
}

impl MemFiles {
    /// Files from `(path, bytes)` pairs.
    pub fn new(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> MemFiles {
        let files: BTreeMap<String, Vec<u8>> = files.into_iter().collect();
        let pages = files
            .keys()
            .filter(|p| vault::is_page_path(p))
            .cloned()
            .collect();
        MemFiles { files, pages }
    }
}

impl VaultFiles for MemFiles {
    fn page_paths(&self) -> &[String] {
        &self.pages
    }
    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>> {
        Ok(self.files.get(path).map(|b| Cow::Borrowed(b.as_slice())))
    }
}

/// Where files a snapshot does not track are read from.
enum Untracked<'a> {
    /// The vault directory on disk.
    Worktree(PathBuf),
    /// A commit (hex id).
    Commit(&'a Store, String),
    /// Nowhere (an unborn branch).
    Nothing,
}

/// Vault files from a [`Snapshot`].
pub struct SnapshotFiles<'a> {
    snap: Snapshot,
    pages: Vec<String>,
    untracked: Untracked<'a>,
}

impl<'a> SnapshotFiles<'a> {
    fn new(snap: Snapshot, untracked: Untracked<'a>) -> SnapshotFiles<'a> {
        let mut pages: Vec<String> = snap.page_paths().map(str::to_string).collect();
        pages.sort();
        SnapshotFiles {
            snap,
            pages,
            untracked,
        }
    }

    /// The work tree of the vault at `root` (`store`: its repository, for the blob ids the git
    /// index vouches for).
    pub fn worktree(root: PathBuf, store: &Store) -> Result<SnapshotFiles<'static>> {
        let snap = Snapshot::from_worktree_cached_with(&root, Some(store))
            .map_err(|e| Error::Runtime(e.to_string()))?;
        Ok(SnapshotFiles::new(snap, Untracked::Worktree(root)))
    }

    /// The vault at `commit` (`None`: an unborn branch, no files), agent `agent`'s branch:
    /// the pages its parse cache holds are not read from git, and compiles save that cache
    /// ([`Snapshot::use_agent_parse_cache`]).
    pub fn commit(
        store: &'a Store,
        commit: Option<wiki_store::ObjectId>,
        agent: &str,
    ) -> Result<Self> {
        Ok(match commit {
            None => SnapshotFiles::new(Snapshot::new(), Untracked::Nothing),
            Some(id) => {
                let rev = id.to_string();
                let mut snap =
                    Snapshot::from_rev(store, &rev).map_err(|e| Error::Runtime(e.to_string()))?;
                // The agent's compiled caches live beside the work tree: what its last compile
                // recorded is checked against them (see `wiki_digest::derived`).
                wiki_digest::derived::overlay_agent_files(
                    &mut snap,
                    store.vault_dir(),
                    Some(agent),
                );
                snap.use_agent_parse_cache(store.vault_dir(), agent, true);
                SnapshotFiles::new(snap, Untracked::Commit(store, rev))
            }
        })
    }
}

/// What a work-tree file can be: a compiled cache, or a page (or another file a page's rules
/// bound).
fn read_limit(path: &str) -> wiki_cli::read::Limit {
    if wiki_digest::derived::is_derived(path) {
        wiki_vault::DERIVED_LIMIT
    } else {
        wiki_vault::PAGE_LIMIT
    }
}

impl VaultFiles for SnapshotFiles<'_> {
    fn page_paths(&self) -> &[String] {
        &self.pages
    }

    fn read(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>> {
        if tracks(path) {
            return Ok(self.snap.get(path).map(Cow::Borrowed));
        }
        match &self.untracked {
            Untracked::Nothing => Ok(None),
            Untracked::Commit(store, rev) => Ok(store.read_file(rev, path)?.map(Cow::Owned)),
            Untracked::Worktree(root) => {
                let abs = root.join(path);
                match std::fs::symlink_metadata(&abs) {
                    Ok(m) if m.file_type().is_symlink() => Err(Error::Runtime(format!(
                        "{path}: is a symbolic link; refusing to read or write through it"
                    ))),
                    Ok(m) if m.is_file() => wiki_cli::read::read_bounded(&abs, read_limit(path))
                        .map(|b| Some(Cow::Owned(b)))
                        .map_err(|e| Error::Runtime(format!("{path}: cannot read: {e}"))),
                    Ok(_) => Ok(None),
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                        ) =>
                    {
                        Ok(None)
                    }
                    Err(e) => Err(Error::Runtime(format!("{path}: cannot read: {e}"))),
                }
            }
        }
    }

    fn snapshot(&self) -> Option<&Snapshot> {
        Some(&self.snap)
    }

    fn prefetch(&self, paths: &[String]) {
        self.snap.prefetch(paths);
    }

    fn may_have_page_id(&self, paths: &[String], id: &str) -> Vec<Option<bool>> {
        self.snap.cached_pages_have_id(paths, id)
    }

    fn may_have_claim(&self, paths: &[String], claim_id: &str) -> Vec<Option<bool>> {
        self.snap.cached_pages_may_have_claim(paths, claim_id)
    }

    fn read_state(&self, paths: &mut dyn Iterator<Item = &str>) -> wiki_store::ReadState {
        self.snap.read_state(paths)
    }
}
