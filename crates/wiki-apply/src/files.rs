//! Where operations read vault files from: the work tree of the checked-out branch, or a commit
//! (any branch, no checkout).

use std::collections::BTreeMap;
use std::path::PathBuf;

use wiki_parse::vault;
use wiki_store::{ObjectId, Store};

use crate::error::Error;

/// Read access to the vault files an operation batch starts from.
pub trait VaultFiles {
    /// Every page path (`entities/…`, `concepts/…`, …; `index.md` excluded), sorted.
    fn page_paths(&self) -> &[String];
    /// The bytes of a vault file, `None` when it does not exist.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, Error>;
}

/// In-memory files (tests, and overlays).
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
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.files.get(path).cloned())
    }
}

/// The vault directory on disk (the checked-out branch, human edits included). Symbolic links
/// are never followed.
#[derive(Debug)]
pub struct WorkTreeFiles {
    root: PathBuf,
    pages: Vec<String>,
}

impl WorkTreeFiles {
    /// Scan the page directories of `root`.
    pub fn new(root: PathBuf) -> Result<WorkTreeFiles, Error> {
        let mut pages: Vec<String> = vault::scan(&root)
            .map_err(|e| Error::Runtime(e.to_string()))?
            .into_iter()
            .filter(|f| f.problem.is_none())
            .map(|f| f.path)
            .collect();
        pages.sort();
        Ok(WorkTreeFiles { root, pages })
    }
}

impl VaultFiles for WorkTreeFiles {
    fn page_paths(&self) -> &[String] {
        &self.pages
    }
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, Error> {
        let abs = self.root.join(path);
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.file_type().is_symlink() => Err(Error::Runtime(format!(
                "{path}: is a symbolic link; refusing to read or write through it"
            ))),
            Ok(m) if m.is_file() => std::fs::read(&abs)
                .map(Some)
                .map_err(|e| Error::Runtime(format!("{path}: cannot read: {e}"))),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(None),
            Err(e) => Err(Error::Runtime(format!("{path}: cannot read: {e}"))),
        }
    }
}

/// The vault files of one commit (no checkout; the work tree is not involved).
pub struct CommitFiles<'a> {
    store: &'a Store,
    rev: String,
    pages: Vec<String>,
}

impl<'a> CommitFiles<'a> {
    /// The files of `commit` (`None`: an unborn branch, no files).
    pub fn new(store: &'a Store, commit: Option<ObjectId>) -> Result<CommitFiles<'a>, Error> {
        let Some(commit) = commit else {
            return Ok(CommitFiles {
                store,
                rev: String::new(),
                pages: Vec::new(),
            });
        };
        let rev = commit.to_string();
        let mut pages: Vec<String> = store
            .list_files(&rev, "")?
            .into_iter()
            .map(|(p, _)| p)
            .filter(|p| vault::is_page_path(p))
            .collect();
        pages.sort();
        Ok(CommitFiles { store, rev, pages })
    }
}

impl VaultFiles for CommitFiles<'_> {
    fn page_paths(&self) -> &[String] {
        &self.pages
    }
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, Error> {
        if self.rev.is_empty() {
            return Ok(None);
        }
        Ok(self.store.read_file(&self.rev, path)?)
    }
}
