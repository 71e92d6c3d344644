//! The git index as `wiki-lint --staged` reads it: what is about to be committed, read-only.
//!
//! [`StagedIndex::load`] lists the stage-0 index entries below the vault that the caller's
//! rules call pages, each marked changed when it differs from `HEAD`, and `HEAD`'s pages in the
//! page directories the index's cache-tree does not prove identical to `HEAD` (so the cost
//! follows what is staged, not the vault's size). Nothing is written: unlike [`crate::Store`]
//! this never rolls a journal forward.
//!
//! An unchanged page is read from the work tree when git's stat data says the file is exactly
//! the indexed blob (same size, times and inode, not racily clean: [`Vouched::read`]), else from
//! the object database ([`StagedIndex::read_blob`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::{Mode, Stage};

/// Errors that stop staged reading (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StagedError {
    /// No git repository contains the vault.
    #[error("{path}: not inside a git repository (--staged reads the git index): {message}")]
    NoRepository {
        /// The vault directory.
        path: PathBuf,
        /// What gix reported.
        message: String,
    },
    /// The repository has no work tree.
    #[error("{0}: bare repository (--staged needs a work tree with an index)")]
    Bare(PathBuf),
    /// The vault is not inside the repository's work tree.
    #[error("{vault}: the vault is not inside the work tree {workdir}")]
    OutsideWorkTree {
        /// The vault directory.
        vault: PathBuf,
        /// The work tree root.
        workdir: PathBuf,
    },
    /// Reading git data failed.
    #[error("cannot read {what}: {message}")]
    Git {
        /// What was being read.
        what: String,
        /// The underlying error.
        message: String,
    },
}

fn git_err<E: std::fmt::Display>(what: impl Into<String>) -> impl FnOnce(E) -> StagedError {
    let what = what.into();
    move |e| StagedError::Git {
        what,
        message: e.to_string(),
    }
}

/// A page of the index (stage 0).
#[derive(Debug, Clone)]
pub struct IndexPage {
    /// Vault-relative path.
    pub rel: String,
    /// The staged blob.
    pub id: ObjectId,
    /// Staged as a symbolic link.
    pub symlink: bool,
    /// Differs from `HEAD` (added or modified).
    pub changed: bool,
    /// The stat data git recorded for the file when it was staged.
    stat: gix::index::entry::Stat,
    /// The entry is not racily clean (the index file is younger than the stat data).
    settled: bool,
}

/// The staged pages of a vault and `HEAD`'s pages (see the module docs).
pub struct StagedIndex {
    repo: gix::Repository,
    /// The vault's path inside the repository, with a trailing `/` (empty at the root).
    pub prefix: String,
    /// The index's pages under the vault, in index order.
    pub pages: Vec<IndexPage>,
    /// `HEAD`'s pages (vault path → blob) in the page directories that may differ from the
    /// index; see [`StagedIndex::is_clean`] for the others.
    pub head_blobs: HashMap<String, ObjectId>,
    /// Page directories (`entities/` …) whose index content is exactly `HEAD`'s, by the
    /// cache-tree extension: their entries are unchanged and were not listed.
    clean_dirs: Vec<String>,
    vouched: Vouched,
}

/// Reads work-tree files the index vouches for, from any thread ([`StagedIndex::vouched`]).
#[derive(Debug, Clone)]
pub struct Vouched {
    workdir: PathBuf,
    prefix: String,
    options: gix::index::entry::stat::Options,
}

impl Vouched {
    /// The work-tree bytes of `page` when git's stat data says the file is exactly the indexed
    /// blob (same size, times, inode; not racily clean); `None` otherwise.
    pub fn read(&self, page: &IndexPage) -> Option<Vec<u8>> {
        use std::io::Read;
        if page.symlink || !page.settled {
            return None;
        }
        let path = self.workdir.join(format!("{}{}", self.prefix, page.rel));
        let mut file = std::fs::File::open(path).ok()?;
        let meta = gix::index::fs::Metadata::from_file(&file).ok()?;
        let disk = gix::index::entry::Stat::from_fs(&meta).ok()?;
        // Past the work-tree limit the caller's bounded read says why; never allocate it here.
        if !meta.is_file()
            || meta.len() > crate::WORKTREE_LIMIT.bytes
            || !page.stat.matches(&disk, self.options)
        {
            return None;
        }
        // The size matches the index: one read, no end-of-file probe.
        let mut bytes = vec![0; usize::try_from(meta.len()).ok()?];
        file.read_exact(&mut bytes).ok()?;
        Some(bytes)
    }
}

/// The vault's position in its repository: `(work tree root, prefix)`.
fn locate(repo: &gix::Repository, vault: &Path) -> Result<(PathBuf, String), StagedError> {
    let workdir = repo
        .workdir()
        .ok_or_else(|| StagedError::Bare(vault.to_path_buf()))?;
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (workdir, vault_c) = (canon(workdir), canon(vault));
    let rel = vault_c
        .strip_prefix(&workdir)
        .map_err(|_| StagedError::OutsideWorkTree {
            vault: vault.to_path_buf(),
            workdir: workdir.clone(),
        })?;
    let mut prefix = rel.to_string_lossy().replace('\\', "/");
    if !prefix.is_empty() {
        prefix.push('/');
    }
    Ok((workdir, prefix))
}

/// The cache-tree node of `path` (`/`-separated, relative to the repository root), if valid.
fn cache_tree_node<'a>(
    root: Option<&'a gix::index::extension::Tree>,
    path: &str,
) -> Option<&'a gix::index::extension::Tree> {
    let mut node = root?;
    for comp in path.split('/').filter(|c| !c.is_empty()) {
        node = node
            .children
            .iter()
            .find(|c| c.name.as_slice() == comp.as_bytes())?;
    }
    node.num_entries.is_some().then_some(node)
}

/// `HEAD`'s pages below `dirs`, skipping the directories the cache-tree proves clean:
/// `(blobs, clean directories with a trailing '/')`.
fn head_pages(
    repo: &gix::Repository,
    prefix: &str,
    dirs: &[&str],
    is_page: &dyn Fn(&str) -> bool,
    cache_tree: Option<&gix::index::extension::Tree>,
) -> Result<(HashMap<String, ObjectId>, Vec<String>), StagedError> {
    let (mut blobs, mut clean) = (HashMap::new(), Vec::new());
    let tree_id = repo
        .head_tree_id_or_empty()
        .map_err(git_err("HEAD"))?
        .detach();
    let tree = repo.find_tree(tree_id).map_err(git_err("the HEAD tree"))?;
    for dir in dirs {
        let full = format!("{prefix}{dir}");
        let Some(entry) = tree
            .lookup_entry_by_path(&full)
            .map_err(git_err(format!("{full} in HEAD")))?
        else {
            continue;
        };
        if !entry.mode().is_tree() {
            continue;
        }
        if cache_tree_node(cache_tree, &full).is_some_and(|n| n.id == entry.object_id()) {
            clean.push(format!("{dir}/"));
            continue;
        }
        let sub = repo
            .find_tree(entry.object_id())
            .map_err(git_err(format!("{full} in HEAD")))?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        sub.traverse()
            .breadthfirst(&mut recorder)
            .map_err(git_err(format!("{full} in HEAD")))?;
        for r in recorder.records {
            if r.mode.is_tree() || r.mode.is_commit() {
                continue;
            }
            let rel = format!("{dir}/{}", r.filepath.to_str_lossy());
            if is_page(&rel) {
                blobs.insert(rel, r.oid);
            }
        }
    }
    Ok((blobs, clean))
}

impl StagedIndex {
    /// Read the index of the repository holding `vault`: its pages (vault paths below `dirs`
    /// for which `is_page` holds) and `HEAD`'s.
    pub fn load(
        vault: &Path,
        dirs: &[&str],
        is_page: impl Fn(&str) -> bool,
    ) -> Result<StagedIndex, StagedError> {
        let repo = gix::discover(vault).map_err(|e| StagedError::NoRepository {
            path: vault.to_path_buf(),
            message: e.to_string(),
        })?;
        let (workdir, prefix) = locate(&repo, vault)?;
        let index = repo.index_or_empty().map_err(git_err("the git index"))?;
        let options = repo
            .stat_options()
            .map_err(git_err("core.* stat options"))?;
        let (head_blobs, clean_dirs) = head_pages(&repo, &prefix, dirs, &is_page, index.tree())?;
        let is_clean = |rel: &str| clean_dirs.iter().any(|d| rel.starts_with(d.as_str()));
        // Stage 0 only: conflicted paths cannot be committed.
        let timestamp = index.timestamp();
        let mut pages = Vec::new();
        for entry in index.entries() {
            if entry.stage() != Stage::Unconflicted || entry.mode == Mode::COMMIT {
                continue;
            }
            let Ok(path) = entry.path(&index).to_str() else {
                continue;
            };
            let Some(rel) = path.strip_prefix(prefix.as_str()) else {
                continue;
            };
            if !is_page(rel) {
                continue;
            }
            pages.push(IndexPage {
                rel: rel.to_string(),
                id: entry.id,
                symlink: entry.mode == Mode::SYMLINK,
                changed: !is_clean(rel) && head_blobs.get(rel) != Some(&entry.id),
                stat: entry.stat,
                settled: !entry.stat.is_racy(timestamp, options),
            });
        }
        let vouched = Vouched {
            workdir,
            prefix: prefix.clone(),
            options,
        };
        Ok(StagedIndex {
            repo,
            prefix,
            pages,
            head_blobs,
            clean_dirs,
            vouched,
        })
    }

    /// Whether `rel` lies in a page directory whose index content is exactly `HEAD`'s.
    pub fn is_clean(&self, rel: &str) -> bool {
        self.clean_dirs.iter().any(|d| rel.starts_with(d.as_str()))
    }

    /// The staged blob of `page`, from the object database.
    pub fn read_blob(&self, page: &IndexPage) -> Result<Vec<u8>, StagedError> {
        self.repo
            .find_object(page.id)
            .map(|o| o.detach().data)
            .map_err(git_err(format!("the staged blob of {}", page.rel)))
    }

    /// The reader of work-tree files the index vouches for (shareable between threads).
    pub fn vouched(&self) -> &Vouched {
        &self.vouched
    }
}

/// The hooks directory of the repository holding `vault` (`core.hooksPath`, a relative value
/// taken from the work-tree top level as git does, else `<common git dir>/hooks`, shared by
/// linked work trees) and the vault's path in the work tree (`""` at the top level, no
/// trailing `/`). A bad `core.hooksPath` is a [`StagedError::Git`] whose `what` is the config
/// file.
pub fn hooks_dir(vault: &Path) -> Result<(PathBuf, String), StagedError> {
    let repo = gix::discover(vault).map_err(|e| StagedError::NoRepository {
        path: vault.to_path_buf(),
        message: e.to_string(),
    })?;
    let (workdir, mut prefix) = locate(&repo, vault)?;
    if prefix.ends_with('/') {
        prefix.pop();
    }
    let configured = repo
        .config_snapshot()
        .trusted_path("core.hooksPath")
        .map_err(|e| StagedError::Git {
            what: repo.git_dir().join("config").display().to_string(),
            message: format!("core.hooksPath: {e}"),
        })?;
    let dir = match configured {
        Some(p) if p.is_absolute() => p,
        Some(p) => workdir.join(p),
        None => repo.common_dir().join("hooks"),
    };
    Ok((dir, prefix))
}
