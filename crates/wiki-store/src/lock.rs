//! The vault-wide write lock.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// File name of the lock one packer of a repository holds (in its common git directory).
pub(crate) const PACK_LOCK_NAME: &str = "wiki-pack.lock";

/// Default time [`Store::lock`](crate::Store::lock) waits for another writer.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// An exclusive, vault-wide write lock (an advisory `flock` on
/// `<vault>/.openclaw-wiki/locks/write.lock`).
///
/// Released when dropped, and by the operating system when the process dies, so a crashed writer
/// never leaves a stale lock behind. The lock is per open file description: two `Store`s (or
/// threads) in the same process exclude each other too.
#[derive(Debug)]
pub struct VaultLock {
    file: File,
    path: PathBuf,
}

impl VaultLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for VaultLock {
    fn drop(&mut self) {
        // Closing the file releases the lock anyway; unlocking explicitly is just tidier.
        let _ = fs4::FileExt::unlock(&self.file);
    }
}

/// Create the locks directory (with a `.gitignore` that ignores everything in it, so lock and
/// journal never show up in `git status`).
pub(crate) fn ensure_locks_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(
            &ignore,
            "# written by wiki-store: lock file and crash journal\n*\n",
        )
        .map_err(|e| Error::io(&ignore, e))?;
    }
    Ok(())
}

fn open_lock_file(path: &Path) -> Result<File> {
    // The pack lock lives in the git directory, which needs no `.gitignore`.
    if let Some(dir) = path.parent()
        && !path.ends_with(PACK_LOCK_NAME)
    {
        ensure_locks_dir(dir)?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// Try once; `None` when another holder has it.
pub(crate) fn try_acquire(path: &Path) -> Result<Option<VaultLock>> {
    let file = open_lock_file(path)?;
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => Ok(Some(VaultLock {
            file,
            path: path.to_path_buf(),
        })),
        Err(fs4::TryLockError::WouldBlock) => Ok(None),
        Err(fs4::TryLockError::Error(e)) => Err(Error::io(path, e)),
    }
}

/// Wait up to `timeout` for the lock, polling with a short back-off.
pub(crate) fn acquire(path: &Path, timeout: Duration) -> Result<VaultLock> {
    let file = open_lock_file(path)?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {
                return Ok(VaultLock {
                    file,
                    path: path.to_path_buf(),
                });
            }
            Err(fs4::TryLockError::WouldBlock) => {}
            Err(fs4::TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
        let waited = start.elapsed();
        if waited >= timeout {
            return Err(Error::LockTimeout {
                path: path.to_path_buf(),
                waited,
            });
        }
        std::thread::sleep(pause.min(timeout.saturating_sub(waited)));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}
