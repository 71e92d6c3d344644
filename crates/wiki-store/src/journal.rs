//! The crash-recovery journal (`.openclaw-wiki/locks/pending.json`).
//!
//! Written after a commit object exists and before the branch ref is moved; deleted once the work
//! tree and the index reflect the commit. Finding one means a previous writer died in between.

use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use crate::paths::LOCKS_DIR;
use crate::{Error, Result};

/// File name of the journal inside the locks directory.
pub(crate) const JOURNAL_FILE: &str = "pending.json";

/// The largest journal read: it lists the paths of one commit (a million 100-byte paths is
/// about 100 MB); a larger file is not one a writer of this tool left, and is reported as
/// unreadable (the command stops, exit 2) rather than read into memory at its claimed size.
pub(crate) const JOURNAL_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("crash-recovery journals", 256 << 20);

/// What a writer was about to publish.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Journal {
    /// Format version.
    pub version: u32,
    /// The reference being moved (`refs/heads/<b>`, or `HEAD` when detached).
    pub reference: String,
    /// Its previous value (`None` for the first commit of an unborn branch).
    pub parent: Option<String>,
    /// The new commit.
    pub commit: String,
    /// Vault paths whose work-tree file and index entry must follow the commit.
    pub paths: Vec<String>,
}

impl Journal {
    pub(crate) fn new(
        reference: &str,
        parent: Option<ObjectId>,
        commit: ObjectId,
        paths: Vec<String>,
    ) -> Self {
        Journal {
            version: 1,
            reference: reference.to_string(),
            parent: parent.map(|p| p.to_string()),
            commit: commit.to_string(),
            paths,
        }
    }

    pub(crate) fn parent_id(&self, path: &Path) -> Result<Option<ObjectId>> {
        self.parent
            .as_deref()
            .map(|p| parse_id(p, path))
            .transpose()
    }

    pub(crate) fn commit_id(&self, path: &Path) -> Result<ObjectId> {
        parse_id(&self.commit, path)
    }
}

fn parse_id(hex: &str, path: &Path) -> Result<ObjectId> {
    ObjectId::from_hex(hex.as_bytes()).map_err(|e| Error::Journal {
        path: path.to_path_buf(),
        reason: format!("bad object id {hex:?}: {e}"),
    })
}

/// `<vault>/.openclaw-wiki/locks/pending.json`
pub(crate) fn journal_path(vault_dir: &Path) -> PathBuf {
    vault_dir.join(LOCKS_DIR).join(JOURNAL_FILE)
}

/// Write the journal atomically (temp file + fsync + rename).
pub(crate) fn write(vault_dir: &Path, journal: &Journal) -> Result<()> {
    let path = journal_path(vault_dir);
    let dir = vault_dir.join(LOCKS_DIR);
    crate::lock::ensure_locks_dir(&dir)?;
    let bytes = serde_json::to_vec_pretty(journal).map_err(|e| Error::Journal {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".pending-")
        .tempfile_in(&dir)
        .map_err(|e| Error::io(&dir, e))?;
    tmp.write_all(&bytes)
        .map_err(|e| Error::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_data()
        .map_err(|e| Error::io(tmp.path(), e))?;
    tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
    Ok(())
}

/// Read the journal if there is one.
pub(crate) fn read(vault_dir: &Path) -> Result<Option<Journal>> {
    let path = journal_path(vault_dir);
    let bytes = match wiki_cli::read::read_bounded(&path, JOURNAL_LIMIT) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if wiki_cli::read::Limit::is_too_large(&e) => {
            return Err(Error::Journal {
                path,
                reason: e.to_string(),
            });
        }
        Err(e) => return Err(Error::io(&path, e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::Journal {
            path,
            reason: e.to_string(),
        })
}

/// Delete the journal (absent is fine).
pub(crate) fn remove(vault_dir: &Path) -> Result<()> {
    let path = journal_path(vault_dir);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&path, e)),
    }
}
