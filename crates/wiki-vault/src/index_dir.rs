//! Where `wiki-search` keeps its indexes (`.openclaw-wiki/index/`): one directory per view,
//! each with a writer lock file. The rule lives in the vault layer so that whoever removes an
//! agent branch (`wiki agent delete`) removes its index too without reaching into search.

use std::fs::File;
use std::path::{Path, PathBuf};

/// A file-system failure on `path`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct IoError {
    /// The file or directory.
    pub path: PathBuf,
    /// The error.
    pub source: std::io::Error,
}

/// The directory holding every search index of the vault.
pub fn root(vault: &Path) -> PathBuf {
    vault.join(wiki_cli::VAULT_MARKER_DIR).join("index")
}

/// The index directory of the work tree's pages.
pub fn worktree(vault: &Path) -> PathBuf {
    root(vault).join("wiki-worktree")
}

/// The index directory of agent `id`'s branch (read from git).
pub fn agent(vault: &Path, id: &str) -> PathBuf {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    root(vault).join(format!(
        "wiki-agent-{safe}-{:08x}",
        checksum(id.as_bytes()) as u32
    ))
}

/// A 64-bit checksum (word-at-a-time multiply/rotate mix; not cryptographic): index directory
/// names and the checksums inside search's files.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = 0xCBF2_9CE4_8422_2325 ^ (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(K).rotate_left(29);
    }
    h ^ (h >> 32)
}

/// The writer lock of an index directory (released when dropped).
#[derive(Debug)]
pub struct WriterLock(File);

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Take the writer lock of the index directory `dir` (waits for another writer).
pub fn lock(dir: &Path) -> Result<WriterLock, IoError> {
    let path = dir.join("lock");
    let err = |source| IoError {
        path: path.clone(),
        source,
    };
    let f = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(err)?;
    f.lock().map_err(err)?;
    Ok(WriterLock(f))
}

/// Remove the search index of agent `id`: its directory, with its writer lock held so that no
/// refresh is writing it. Returns the bytes removed (0 when there was no index). Nothing is
/// followed through a symbolic link: the index root must be a real directory, and a link in
/// the index's place is only unlinked.
pub fn remove_agent(vault: &Path, id: &str) -> Result<u64, IoError> {
    let rel = format!("{}/index", wiki_cli::VAULT_MARKER_DIR);
    if !wiki_parse::layout::real_directories(vault, &rel) {
        return Ok(0);
    }
    let dir = agent(vault, id);
    let err = |source| IoError {
        path: dir.clone(),
        source,
    };
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return std::fs::remove_file(&dir).map(|()| 0).map_err(err),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(err(e)),
    }
    let _lock = lock(&dir)?;
    let bytes = wiki_parse::layout::tree_bytes(&dir);
    std::fs::remove_dir_all(&dir).map_err(err)?;
    Ok(bytes)
}
