//! Work-tree files and the index: safe reads, atomic writes, per-path index updates.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};

use crate::error::GitResultExt;
use crate::{Error, Result};

/// The git blob id of `bytes` (SHA-1 over `blob <len>\0<bytes>`, with gix's hasher).
pub(crate) fn blob_id(bytes: &[u8]) -> ObjectId {
    let mut h = gix::hash::hasher(gix::hash::Kind::Sha1);
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.try_finalize()
        .unwrap_or_else(|_| ObjectId::null(gix::hash::Kind::Sha1))
}

/// Write `blobs` (each with the id [`blob_id`] computed from its bytes) as loose objects in
/// `objects_dir`, through gix's loose object store, spread over a few threads.
pub(crate) fn write_blobs(objects_dir: &Path, blobs: &[(ObjectId, &[u8])]) -> Result<()> {
    let store = gix::odb::loose::Store::at(objects_dir, gix::hash::Kind::Sha1);
    par_map(blobs, |(id, bytes)| {
        gix::objs::Write::write_buf_with_known_id(&store, gix::objs::Kind::Blob, bytes, *id)
            .map(|_| ())
            .map_err(|e| Error::io(objects_dir, std::io::Error::other(e.to_string())))
    })
    .into_iter()
    .collect()
}

/// `f` applied to every item, in order; spread over rayon's threads when there are many items
/// (hashing and reading thousands of files).
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    if items.len() < 64 {
        return items.iter().map(f).collect();
    }
    items.par_iter().map(f).collect()
}

/// What a vault path holds on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Disk {
    /// Nothing there.
    Absent,
    /// A regular file.
    File { bytes: Vec<u8>, exec: bool },
}

impl Disk {
    pub(crate) fn id(&self) -> Option<ObjectId> {
        match self {
            Disk::Absent => None,
            Disk::File { bytes, .. } => Some(blob_id(bytes)),
        }
    }
}

fn unsafe_path(path: &str, reason: impl Into<String>) -> Error {
    Error::UnsafePath {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Check that writing `vault_path` below `vault_dir` cannot escape or clobber anything: every
/// existing ancestor directory must be a real directory (not a symlink), and the path itself must
/// be absent or a regular file (not a symlink, directory, socket, ...).
pub(crate) fn check_writable(vault_dir: &Path, vault_path: &str) -> Result<()> {
    let mut current = vault_dir.to_path_buf();
    let components: Vec<&str> = vault_path.split('/').collect();
    let last = components.len().saturating_sub(1);
    for (i, component) in components.iter().enumerate() {
        current.push(component);
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                return Err(unsafe_path(
                    vault_path,
                    "a parent component is not a directory",
                ));
            }
            Err(e) => return Err(Error::io(&current, e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let what = if i == last {
                "it is a symbolic link".to_string()
            } else {
                format!("parent {:?} is a symbolic link", components[..=i].join("/"))
            };
            return Err(unsafe_path(vault_path, what));
        }
        if i == last {
            if !ft.is_file() {
                return Err(unsafe_path(
                    vault_path,
                    if ft.is_dir() {
                        "it is a directory"
                    } else {
                        "it is not a regular file"
                    },
                ));
            }
        } else if !ft.is_dir() {
            return Err(unsafe_path(
                vault_path,
                format!("parent {:?} is not a directory", components[..=i].join("/")),
            ));
        }
    }
    Ok(())
}

/// Read a path whose parent directories passed [`check_writable`] (or
/// [`PathChecker::check_parents`]); anything but a regular file or nothing is refused.
pub(crate) fn read_disk(vault_dir: &Path, vault_path: &str) -> Result<Disk> {
    let full = vault_dir.join(vault_path);
    let meta = match std::fs::symlink_metadata(&full) {
        Ok(meta) => meta,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Disk::Absent);
        }
        Err(e) => return Err(Error::io(&full, e)),
    };
    if !meta.file_type().is_file() {
        // The precise reason (symbolic link, directory, ...).
        check_writable(vault_dir, vault_path)?;
        return Err(unsafe_path(vault_path, "it is not a regular file"));
    }
    let bytes =
        wiki_cli::read::read_bounded(&full, WORKTREE_LIMIT).map_err(|e| Error::io(&full, e))?;
    Ok(Disk::File {
        bytes,
        exec: is_executable(&meta),
    })
}

/// What git would record for whatever is at a path (file content or symlink target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DiskId {
    Absent,
    Blob(ObjectId),
    /// A directory or special file where a file was expected.
    Other,
}

/// Like [`read_disk`] but never refuses: symlinks hash their target, directories are `Other`.
pub(crate) fn disk_id_lenient(full: &Path) -> Result<DiskId> {
    let meta = match std::fs::symlink_metadata(full) {
        Ok(meta) => meta,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(DiskId::Absent);
        }
        Err(e) => return Err(Error::io(full, e)),
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        let target = std::fs::read_link(full).map_err(|e| Error::io(full, e))?;
        return Ok(DiskId::Blob(blob_id(&link_bytes(&target))));
    }
    if ft.is_file() {
        let bytes =
            wiki_cli::read::read_bounded(full, WORKTREE_LIMIT).map_err(|e| Error::io(full, e))?;
        return Ok(DiskId::Blob(blob_id(&bytes)));
    }
    Ok(DiskId::Other)
}

#[cfg(unix)]
fn link_bytes(target: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    target.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn link_bytes(target: &Path) -> Vec<u8> {
    target.to_string_lossy().replace('\\', "/").into_bytes()
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

/// What [`PathChecker`] found at a vault-relative directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DirState {
    /// A real directory (not a symbolic link).
    Dir,
    /// Nothing there (nor below).
    Missing,
}

/// The vault-relative directory of `vault_path` (`""` for a file at the vault root).
fn parent_of(vault_path: &str) -> &str {
    vault_path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// [`check_writable`] for many paths, looking each distinct directory up once (one `lstat` per
/// directory plus one per file, instead of one per path component of every file). Also creates
/// missing directories for [`write_files`]. Only the verdict is cached: a path that fails is
/// checked again by [`check_writable`], which produces the error.
#[derive(Debug, Default)]
pub(crate) struct PathChecker {
    /// Vault-relative directories already looked up (`""`, the vault itself, is never stored).
    dirs: HashMap<String, DirState>,
}

impl PathChecker {
    /// The state of `dir`; `Err(())` when it or an ancestor is not a real directory, or cannot
    /// be looked up.
    fn dir(&mut self, vault_dir: &Path, dir: &str) -> std::result::Result<DirState, ()> {
        if dir.is_empty() {
            return Ok(DirState::Dir);
        }
        if let Some(state) = self.dirs.get(dir) {
            return Ok(*state);
        }
        let state = match self.dir(vault_dir, parent_of(dir))? {
            DirState::Missing => DirState::Missing,
            DirState::Dir => match std::fs::symlink_metadata(vault_dir.join(dir)) {
                Ok(meta) if meta.file_type().is_dir() => DirState::Dir,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => DirState::Missing,
                _ => return Err(()),
            },
        };
        self.dirs.insert(dir.to_string(), state);
        Ok(state)
    }

    /// Same verdict as [`check_writable`]`(vault_dir, vault_path)`.
    pub(crate) fn check(&mut self, vault_dir: &Path, vault_path: &str) -> Result<()> {
        let ok = match self.dir(vault_dir, parent_of(vault_path)) {
            Ok(DirState::Missing) => true,
            Ok(DirState::Dir) => match std::fs::symlink_metadata(vault_dir.join(vault_path)) {
                Ok(meta) => meta.file_type().is_file(),
                Err(e) => e.kind() == std::io::ErrorKind::NotFound,
            },
            Err(()) => false,
        };
        if ok {
            Ok(())
        } else {
            check_writable(vault_dir, vault_path)
        }
    }

    /// The part of [`check_writable`] about the parent directories, for every path of `paths`
    /// (each distinct directory looked up once); the files themselves are left to the caller
    /// (e.g. [`read_disk`], which refuses anything but a regular file with the same messages).
    pub(crate) fn check_parents<'p>(
        &mut self,
        vault_dir: &Path,
        paths: impl IntoIterator<Item = &'p str>,
    ) -> Result<()> {
        for path in paths {
            if self.dir(vault_dir, parent_of(path)).is_err() {
                check_writable(vault_dir, path)?;
            }
        }
        Ok(())
    }

    /// Make sure the vault-relative directory `dir` exists, creating it and its missing
    /// ancestors; refuses symbolic links and non-directories (errors name `for_path`).
    fn ensure_dir(&mut self, vault_dir: &Path, dir: &str, for_path: &str) -> Result<()> {
        if dir.is_empty() || self.dirs.get(dir) == Some(&DirState::Dir) {
            return Ok(());
        }
        self.ensure_dir(vault_dir, parent_of(dir), for_path)?;
        let current = vault_dir.join(dir);
        let not_a_dir = || {
            unsafe_path(
                for_path,
                format!("{} is not a directory", current.display()),
            )
        };
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_dir() => {}
            Ok(_) => return Err(not_a_dir()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&current) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        // Raced with someone creating it; it must be a real directory now.
                        let meta = std::fs::symlink_metadata(&current)
                            .map_err(|e| Error::io(&current, e))?;
                        if !meta.file_type().is_dir() {
                            return Err(not_a_dir());
                        }
                    }
                    Err(e) => return Err(Error::io(&current, e)),
                }
            }
            Err(e) => return Err(Error::io(&current, e)),
        }
        self.dirs.insert(dir.to_string(), DirState::Dir);
        Ok(())
    }
}

/// Prefix and suffix of the temporary files [`write_files`] renames into place.
/// The largest work-tree file the store reads (the files a commit replaces, whose hand edits it
/// records first, and the files whose content it compares): the largest file a tool of this
/// toolchain commits is a compiled cache or run record (`wiki_parse::layout::MAX_DERIVED_BYTES`,
/// the same value, asserted where `wiki-vault` defines its limits); pages are at most 16 MiB. A larger file
/// is `path: too large (…)` (exit 2) where its bytes are needed, and counts as changed where
/// they are only compared; it is never read into memory at its claimed size.
pub const WORKTREE_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("files a commit writes", 512 << 20);

pub(crate) const TEMP_PREFIX: &str = ".wiki-store-";
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// Remove temporary files ([`TEMP_PREFIX`]`*`[`TEMP_SUFFIX`], regular files only) left in the
/// directories of `paths` by a writer that was killed between creating and renaming them. Called
/// during roll-forward, with the vault lock held (so no live writer owns them).
pub(crate) fn remove_stale_temps(vault_dir: &Path, paths: &[String]) {
    let mut dirs: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| vault_dir.join(p).parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// One file for [`write_files`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileWrite<'a> {
    /// Vault-relative path (validated).
    pub path: &'a str,
    /// The new content.
    pub bytes: &'a [u8],
    /// Whether the file must be executable.
    pub exec: bool,
    /// What the file held when the commit checked it: when it holds something else right
    /// before the rename (a hand edit made meanwhile), it is left alone.
    pub checked: Option<&'a Checked>,
}

/// What a work-tree file held when a commit checked it (see [`Checked::holds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Its blob id (`None`: no file).
    pub id: Option<ObjectId>,
    /// Its stat data (`None`: no file).
    pub stat: Option<gix::index::entry::Stat>,
}

/// File times this close to now may change again without their stat data showing it (they
/// are kept at the kernel's clock tick): such a file is compared by content.
const RACY_SECONDS: u32 = 2;

impl Checked {
    /// What the file at `full` holds now.
    pub(crate) fn of(full: &Path, bytes: Option<&[u8]>) -> Checked {
        Checked {
            id: bytes.map(blob_id),
            stat: file_stat(full).ok(),
        }
    }

    /// Whether the file at `full` still holds what was checked: the same stat data (unless it
    /// is recent enough to hide a change), otherwise the same bytes.
    pub(crate) fn holds(&self, full: &Path) -> bool {
        self.holds_at(full, file_stat(full).ok())
    }

    /// [`Checked::holds`], the file's stat data taken already (`now`).
    fn holds_at(&self, full: &Path, now: Option<gix::index::entry::Stat>) -> bool {
        if now == self.stat && !now.is_some_and(is_racy) {
            return true;
        }
        let id = match std::fs::symlink_metadata(full) {
            Ok(meta) if meta.file_type().is_file() => {
                // Unreadable or too large: not what was checked.
                match wiki_cli::read::read_bounded(full, WORKTREE_LIMIT) {
                    Ok(bytes) => Some(blob_id(&bytes)),
                    Err(_) => return false,
                }
            }
            Ok(_) => return false,
            Err(_) => None,
        };
        id == self.id
    }
}

fn is_racy(stat: gix::index::entry::Stat) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    u64::from(stat.mtime.secs.max(stat.ctime.secs)) + u64::from(RACY_SECONDS) >= now
}

/// Distinguishes the temporary files of one process (their names also carry the process id).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write every file of `files` atomically: each goes to a temporary file
/// (`.wiki-store-<pid>-<n>.tmp`, created with `O_CREAT|O_EXCL`) in its own directory, which is
/// then renamed over the target, so neither a reader nor a killed process ever sees a partially
/// written file (a killed writer leaves temporary files, removed by the roll-forward). Like git's
/// default for work-tree files, no fsync: durability across power loss is not attempted; process
/// crashes are covered by the journal. Existing permissions are kept; new files get 0644 (0755
/// if `exec`). Missing parent directories are created; symbolic links and non-directories on
/// the way, and targets that are not regular files, are refused (each distinct directory is
/// checked once). Returns the stat data of every written file (for its index entry), in order;
/// `None` for a file left alone because it no longer held what [`FileWrite::checked`] says.
///
/// The work runs in two phases, each spread over threads for large batches: all temporary files
/// are created and written first, then all are renamed. On an error the temporary files not yet renamed are removed and the first error (in `files` order)
/// is returned; files already renamed stay (the journal's roll-forward finishes the rest).
pub(crate) fn write_files(vault_dir: &Path, files: &[FileWrite<'_>]) -> Result<Written> {
    let mut checker = PathChecker::default();
    let mut dirs: Vec<(&str, &str)> = files.iter().map(|f| (parent_of(f.path), f.path)).collect();
    dirs.sort_unstable();
    dirs.dedup_by(|a, b| a.0 == b.0);
    for (dir, path) in dirs {
        checker.ensure_dir(vault_dir, dir, path)?;
    }
    let umask = current_umask();
    let pid = std::process::id();
    let temps = par_map(files, |f| create_temp(vault_dir, f, umask, pid));
    let mut first_err = None;
    let mut created = Vec::with_capacity(temps.len());
    for temp in temps {
        match temp {
            Ok(path) => created.push(path),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        for (path, _) in &created {
            let _ = std::fs::remove_file(path);
        }
        return Err(e);
    }
    let jobs: Vec<(&FileWrite<'_>, PathBuf)> = files
        .iter()
        .zip(created)
        .map(|(f, (temp, _existed))| (f, temp))
        .collect();
    let stats = par_map(&jobs, |(f, temp)| {
        let full = vault_dir.join(f.path);
        let ours = file_stat(temp)?;
        // Checked again at the swap: a hand edit made since the commit's check is kept, not
        // replaced.
        let replaced = match f.checked {
            Some(checked) => replace_checked(temp, &full, checked),
            None => std::fs::rename(temp, &full)
                .map(|()| true)
                .map_err(|e| Error::io(&full, e)),
        };
        let replaced = replaced?;
        // `temp` now holds ours (left alone) or the file taken out (replaced), or is gone.
        let _ = std::fs::remove_file(temp);
        if !replaced {
            return Ok(None);
        }
        // The index records this stat data as proof the file holds the new blob: a file an
        // editor saved over ours right after the rename is not ours (treated as a hand edit
        // kept in place, and git re-hashes it).
        let now = file_stat(&full)?;
        Ok(same_file(&ours, &now).then_some(now))
    })
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    Ok(Written { stats })
}

/// What [`write_files`] did.
#[derive(Debug)]
pub(crate) struct Written {
    /// The stat data of every written file, in order (`None`: left alone, see
    /// [`FileWrite::checked`]).
    pub(crate) stats: Vec<Option<gix::index::entry::Stat>>,
}

/// The temporary file holding `f`'s new content, created next to the target (whose parent
/// directory must exist), written and closed, with the permissions the target will have.
fn create_temp(
    vault_dir: &Path,
    f: &FileWrite<'_>,
    umask: Option<u32>,
    pid: u32,
) -> Result<(PathBuf, bool)> {
    let full = vault_dir.join(f.path);
    let existing = match std::fs::symlink_metadata(&full) {
        Ok(meta) if meta.file_type().is_file() => Some(meta),
        Ok(_) => {
            check_writable(vault_dir, f.path)?;
            return Err(unsafe_path(f.path, "it is not a regular file"));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(unsafe_path(f.path, "a parent component is not a directory"));
        }
        Err(e) => return Err(Error::io(&full, e)),
    };
    let mode = target_mode(existing.as_ref(), f.exec);
    let dir = vault_dir.join(parent_of(f.path));
    let mut attempts = 0;
    let (temp, mut file) = loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!("{TEMP_PREFIX}{pid}-{n}{TEMP_SUFFIX}"));
        match open_new(&temp, mode) {
            Ok(file) => break (temp, file),
            // A leftover of an earlier process with the same id: take the next name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 100 => {
                attempts += 1;
            }
            Err(e) => return Err(Error::io(&dir, e)),
        }
    };
    let written = file.write_all(f.bytes).and_then(|()| {
        // The mode given to open() was reduced by the umask; fix it only when that changed it.
        if umask.is_none_or(|u| mode & 0o777 & !u != mode) {
            set_permissions(&file, mode)
        } else {
            Ok(())
        }
    });
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(Error::io(&temp, e));
    }
    Ok((temp, existing.is_some()))
}

/// Put `temp` at `full` unless `full` no longer holds what was `checked`; `Ok(false)`: left
/// alone. On Linux the last check and the replacement cannot be split by an editor's save: the
/// two files are exchanged (`RENAME_EXCHANGE`) and the one taken out must be the file that was
/// checked, else it is exchanged back; a file that did not exist is created only if none
/// appeared (`RENAME_NOREPLACE`). Where the flags are unsupported, a check right before a
/// plain rename leaves a short window.
fn replace_checked(temp: &Path, full: &Path, checked: &Checked) -> Result<bool> {
    // The stat data the check accepts is the one the file taken out must still have.
    let before = file_stat(full).ok();
    if !checked.holds_at(full, before) {
        return Ok(false);
    }
    let failed = |e| {
        let _ = std::fs::remove_file(temp);
        Err(Error::io(full, e))
    };
    match exchange(temp, full, before.is_some()) {
        Swap::Done => {}
        Swap::Unsupported => return std::fs::rename(temp, full).map_or_else(failed, |()| Ok(true)),
        Swap::Changed => return Ok(false),
        Swap::Failed(e) => return failed(e),
    }
    let Some(before) = before else {
        return Ok(true);
    };
    // `temp` now holds the file taken out of `full`.
    if file_stat(temp).is_ok_and(|taken| same_file(&before, &taken)) {
        return Ok(true);
    }
    match exchange(temp, full, true) {
        Swap::Done => Ok(false),
        // The hand edit stays in `temp`, which the error names.
        Swap::Failed(e) => Err(Error::io(temp, e)),
        Swap::Unsupported | Swap::Changed => Err(Error::io(
            temp,
            std::io::Error::other(format!(
                "holds a hand edit of {} saved during the write, which could not be put back",
                full.display()
            )),
        )),
    }
}

/// What [`exchange`] did.
enum Swap {
    Done,
    /// The file system or platform has no atomic exchange / no-replace rename.
    Unsupported,
    /// The target appeared or disappeared meanwhile: nothing was moved.
    Changed,
    Failed(std::io::Error),
}

/// Exchange `temp` and `full` (`existing`), or move `temp` to a `full` that must not exist.
#[cfg(target_os = "linux")]
fn exchange(temp: &Path, full: &Path, existing: bool) -> Swap {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    let flags = if existing {
        RenameFlags::EXCHANGE
    } else {
        RenameFlags::NOREPLACE
    };
    match renameat_with(CWD, temp, CWD, full, flags) {
        Ok(()) => Swap::Done,
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Swap::Unsupported,
        Err(Errno::NOENT | Errno::EXIST) => Swap::Changed,
        Err(e) => Swap::Failed(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_temp: &Path, _full: &Path, _existing: bool) -> Swap {
    Swap::Unsupported
}

/// Whether `now` (after a rename) is the stat data of the file that had `before` (the rename
/// changes its ctime only).
fn same_file(before: &gix::index::entry::Stat, now: &gix::index::entry::Stat) -> bool {
    (before.dev, before.ino, before.size, before.mtime) == (now.dev, now.ino, now.size, now.mtime)
}

/// The stat data of the file at `path` when it holds blob `id` (read and hashed between two
/// stats that agree), else `None`: stat data taken by path alone could be that of a file saved
/// over it since its content was checked, and the index would then vouch for the wrong bytes.
fn verified_stat(path: &Path, id: ObjectId) -> Result<Option<gix::index::entry::Stat>> {
    let Ok(before) = file_stat(path) else {
        return Ok(None);
    };
    let Ok(bytes) = wiki_cli::read::read_bounded(path, WORKTREE_LIMIT) else {
        return Ok(None);
    };
    let after = file_stat(path).ok();
    Ok((after == Some(before) && blob_id(&bytes) == id).then_some(before))
}

/// The stat data git records for the file at `path` (not following symbolic links).
fn file_stat(path: &Path) -> Result<gix::index::entry::Stat> {
    let meta =
        gix::index::fs::Metadata::from_path_no_follow(path).map_err(|e| Error::io(path, e))?;
    gix::index::entry::Stat::from_fs(&meta).map_err(|e| Error::io(path, std::io::Error::other(e)))
}

/// The permissions a written file gets: the existing file's (new files: 0644), with the
/// executable bits set (where readable) or cleared.
#[cfg(unix)]
fn target_mode(existing: Option<&std::fs::Metadata>, exec: bool) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let base = existing.map_or(0o644, |meta| meta.permissions().mode() & 0o7777);
    if exec {
        base | ((base & 0o444) >> 2) | 0o100
    } else {
        base & !0o111
    }
}

#[cfg(not(unix))]
fn target_mode(_existing: Option<&std::fs::Metadata>, _exec: bool) -> u32 {
    0
}

/// Create a new file (`O_CREAT|O_EXCL`, write-only) with permissions `mode` (minus the umask).
#[cfg(unix)]
fn open_new(path: &Path, mode: u32) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode & 0o777)
        .open(path)
}

#[cfg(not(unix))]
fn open_new(path: &Path, _mode: u32) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(unix)]
fn set_permissions(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_permissions(_file: &std::fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// The process's umask (Linux: from `/proc/self/status`, read without changing it); `None`
/// when unknown, in which case every written file gets an explicit `fchmod`.
#[cfg(target_os = "linux")]
fn current_umask() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let value = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
    u32::from_str_radix(value.trim(), 8).ok()
}

#[cfg(not(target_os = "linux"))]
fn current_umask() -> Option<u32> {
    None
}

/// Set the executable bit of an existing regular file at `vault_path` (no-op when it matches).
pub(crate) fn fix_mode(vault_dir: &Path, vault_path: &str, exec: bool) -> Result<()> {
    check_writable(vault_dir, vault_path)?;
    let full = vault_dir.join(vault_path);
    let meta = std::fs::symlink_metadata(&full).map_err(|e| Error::io(&full, e))?;
    if !meta.file_type().is_file() || is_executable(&meta) == exec {
        return Ok(());
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&full)
        .map_err(|e| Error::io(&full, e))?;
    set_permissions(&file, target_mode(Some(&meta), exec)).map_err(|e| Error::io(&full, e))
}

/// Remove `vault_path` (a regular file, checked) and then any parent directories inside the vault
/// that became empty.
pub(crate) fn remove(vault_dir: &Path, vault_path: &str) -> Result<()> {
    check_writable(vault_dir, vault_path)?;
    let full = vault_dir.join(vault_path);
    match std::fs::remove_file(&full) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(&full, e)),
    }
    let mut dir = full.parent().map(Path::to_path_buf);
    while let Some(d) = dir {
        if d == vault_dir || !d.starts_with(vault_dir) {
            break;
        }
        // Fails (and stops) when the directory is not empty.
        if std::fs::remove_dir(&d).is_err() {
            break;
        }
        dir = d.parent().map(Path::to_path_buf);
    }
    Ok(())
}

/// Where the stat data of an index entry comes from.
pub(crate) enum StatFrom {
    /// Already known (taken right after the file was written).
    Known(gix::index::entry::Stat),
    /// The file on disk at this path should hold the blob: stat it, after checking it does.
    Path(PathBuf),
    /// The disk does not hold this blob: zero stat data makes git re-hash the file.
    Zero,
}

/// One index entry to set (or remove, when `entry` is `None`).
pub(crate) struct IndexUpdate {
    /// Repository-relative path.
    pub repo_path: String,
    /// Blob id, executable bit and where the entry's stat data comes from.
    pub entry: Option<(ObjectId, bool, StatFrom)>,
}

/// Load the index (an empty one when the repository has none yet).
pub(crate) fn load_index(repo: &gix::Repository) -> Result<gix::index::File> {
    let path = repo.index_path();
    if path.exists() {
        repo.open_index()
            .git_ctx(|| format!("read index {}", path.display()))
    } else {
        let state = gix::index::State::new(repo.object_hash());
        Ok(gix::index::File::from_state(state, path))
    }
}

/// The index as the human-edit check reads it: a work-tree file that the index says holds the
/// blob a commit expects is not read back (see [`IndexVouch::vouches`]).
pub(crate) struct IndexVouch {
    index: gix::index::File,
}

impl IndexVouch {
    /// The repository's index, or `None` when it has none.
    pub(crate) fn load(repo: &gix::Repository) -> Result<Option<IndexVouch>> {
        if !repo.index_path().exists() {
            return Ok(None);
        }
        Ok(Some(IndexVouch {
            index: load_index(repo)?,
        }))
    }

    /// Whether the regular file with stat data `meta` at `repo_path` holds the blob `id`, by the
    /// index alone, as `git status` decides without reading a file: the index's (unmerged-free)
    /// entry for the path has blob `id`, the same stat data (times to the nanosecond, size,
    /// inode, owner), no flag asking to skip the check, and was written after the file was last
    /// changed (an entry the index file is not strictly younger than is "racily clean": a write
    /// in the same clock tick would not have changed the times, so it is read).
    pub(crate) fn vouches(
        &self,
        repo_path: &str,
        meta: &gix::index::fs::Metadata,
        id: ObjectId,
    ) -> bool {
        self.vouched_id(repo_path, meta) == Some(id)
    }

    /// The blob the regular file with stat data `meta` at `repo_path` holds, when the index
    /// vouches for it (see [`IndexVouch::vouches`]).
    pub(crate) fn vouched_id(
        &self,
        repo_path: &str,
        meta: &gix::index::fs::Metadata,
    ) -> Option<ObjectId> {
        use gix::index::entry::{Flags, Mode, Stat, stat};
        let index = &self.index;
        let entry = index.entry_by_path(repo_path.as_bytes().as_bstr())?;
        let opts = stat::Options {
            trust_ctime: true,
            check_stat: true,
            use_nsec: true,
            use_stdev: false,
        };
        let skip = Flags::ASSUME_VALID | Flags::SKIP_WORKTREE | Flags::INTENT_TO_ADD;
        let vouched = meta.is_file()
            && entry.stage_raw() == 0
            && matches!(entry.mode, Mode::FILE | Mode::FILE_EXECUTABLE)
            && !entry.flags.intersects(skip)
            && Stat::from_fs(meta).is_ok_and(|st| entry.stat.matches(&st, opts))
            && !entry.stat.is_racy(index.timestamp(), opts);
        vouched.then_some(entry.id)
    }
}

/// Set exactly the entries in `updates` (all stages of those paths are replaced), keep every other
/// entry untouched, invalidate the cache-tree nodes on the way to each updated path (the others
/// keep proving their directories unchanged, for git and for `wiki-lint --staged`) and write the
/// index atomically (lock file + rename).
pub(crate) fn update_index(repo: &gix::Repository, updates: &[IndexUpdate]) -> Result<()> {
    if updates.is_empty() {
        return Ok(());
    }
    let mut index = load_index(repo)?;
    let index_path = index.path().to_path_buf();
    let paths: HashSet<&[u8]> = updates.iter().map(|u| u.repo_path.as_bytes()).collect();
    index.remove_entries(|_, path, _| paths.contains(path.as_bytes()));
    let stats = par_map(updates, |update| match &update.entry {
        Some((id, _, StatFrom::Path(path))) => verified_stat(path, *id),
        _ => Ok(None),
    });
    for (update, stat) in updates.iter().zip(stats) {
        let Some((id, exec, from)) = &update.entry else {
            continue;
        };
        let stat = match (from, stat?) {
            (StatFrom::Known(stat), _) => *stat,
            (_, Some(stat)) => stat,
            _ => gix::index::entry::Stat::default(),
        };
        let mode = if *exec {
            gix::index::entry::Mode::FILE_EXECUTABLE
        } else {
            gix::index::entry::Mode::FILE
        };
        let path: &BStr = update.repo_path.as_bytes().as_bstr();
        index.dangerously_push_entry(stat, *id, gix::index::entry::Flags::empty(), mode, path);
    }
    index.sort_entries();
    if let Some(tree) = index.tree_mut() {
        for update in updates {
            invalidate_cache_tree(tree, update.repo_path.as_bytes());
        }
    }
    write_index(&index, &index_path)
}

/// Write `index` to `path` as `gix::index::File::write` does (git's `index.lock`, taken without
/// waiting, then renamed over the index, with the trailing checksum). The bytes are those gix
/// writes (tested).
fn write_index(index: &gix::index::File, path: &Path) -> Result<()> {
    use std::io::Write;
    let what = || format!("write index {}", path.display());
    let mut bytes = Vec::with_capacity(64 + index.entries().len() * 96);
    let state: &gix::index::State = index;
    state
        .write_to(&mut bytes, gix::index::write::Options::default())
        .git_ctx(what)?;
    let mut hasher = gix::hash::hasher(gix::hash::Kind::Sha1);
    hasher.update(&bytes);
    let checksum = hasher
        .try_finalize()
        .map_err(|e| Error::io(path, std::io::Error::other(e.to_string())))?;
    bytes.extend_from_slice(checksum.as_slice());
    let mut lock = gix::lock::File::acquire_to_update_resource(
        path,
        gix::lock::acquire::Fail::Immediately,
        None,
        0,
    )
    .map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!("cannot lock the index: {e}")),
    })?;
    lock.write_all(&bytes).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    lock.commit().map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}

/// Mark invalid the cache-tree nodes (the index's `TREE` extension) of the directories holding
/// `repo_path`, from the root down (git's `cache_tree_invalidate_path`): git and readers then
/// recompute those from the entries and keep trusting the untouched sub-trees. A node for
/// `repo_path` itself (a directory replaced by a file) is dropped.
fn invalidate_cache_tree(root: &mut gix::index::extension::Tree, repo_path: &[u8]) {
    let mut node = root;
    let mut components = repo_path.split(|b| *b == b'/').peekable();
    while let Some(name) = components.next() {
        node.num_entries = None;
        if components.peek().is_none() {
            node.children.retain(|c| c.name.as_slice() != name);
            return;
        }
        match node.children.iter_mut().find(|c| c.name.as_slice() == name) {
            Some(child) => node = child,
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_git as git;

    /// Set a file's modification time to `at`.
    fn set_mtime(path: &Path, at: std::time::SystemTime) {
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .expect("open");
        f.set_times(std::fs::FileTimes::new().set_modified(at))
            .expect("set times");
    }

    /// `write_index` writes the bytes gix's own `write` does (extensions included), and git
    /// reads them.
    #[test]
    fn write_index_writes_what_gix_writes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        git(root, &["init", "-q"]);
        for (name, text) in [
            ("a.md", "alpha\n"),
            ("d/b.md", "beta\n"),
            ("d/e/c.md", "γ\n"),
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
        }
        git(root, &["add", "."]);
        // A tree-cache extension, as `git commit` leaves one.
        git(
            root,
            &[
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@x",
                "commit",
                "-qm",
                "c",
            ],
        );
        git(root, &["update-index", "--refresh"]);
        let repo = gix::open(root).expect("open repo");
        let path = repo.index_path();
        let mut index = repo.open_index().expect("index");
        assert!(index.tree().is_some(), "the fixture has a tree cache");
        index
            .write(gix::index::write::Options::default())
            .expect("gix writes");
        let by_gix = std::fs::read(&path).expect("read");
        std::fs::remove_file(&path).expect("remove");
        write_index(&index, &path).expect("write_index");
        assert_eq!(std::fs::read(&path).expect("read"), by_gix);
        assert!(!path.with_extension("lock").exists(), "no lock left");
        let listed = std::process::Command::new("git")
            .args(["ls-files", "--stage"])
            .current_dir(root)
            .output()
            .expect("git");
        assert!(listed.status.success());
        assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 3);
        // A lock held by another writer (git): refused, nothing replaced.
        std::fs::write(path.with_extension("lock"), "other").expect("lock");
        let err = write_index(&index, &path).expect_err("locked");
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert!(
            source
                .as_deref()
                .is_some_and(|s| s.contains("cannot lock the index")),
            "{err}: {source:?}"
        );
        assert_eq!(std::fs::read(&path).expect("read"), by_gix);
    }

    #[test]
    fn the_index_vouches_only_for_files_it_saw_unchanged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        git(root, &["init", "-q"]);
        let file = root.join("page.md");
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(100);
        std::fs::write(&file, "alpha\n").expect("write");
        set_mtime(&file, past);
        git(root, &["add", "page.md"]);
        let repo = gix::open(root).expect("open repo");
        let id = blob_id(b"alpha\n");
        let meta = || gix::index::fs::Metadata::from_path_no_follow(&file).expect("stat");
        let vouch = IndexVouch::load(&repo).expect("load").expect("an index");
        assert!(vouch.vouches("page.md", &meta(), id));
        assert!(!vouch.vouches("page.md", &meta(), blob_id(b"other\n")));
        assert!(!vouch.vouches("missing.md", &meta(), id));
        drop(vouch);

        // Same size, the modification time put back: the change time still tells.
        std::fs::write(&file, "alphb\n").expect("write");
        set_mtime(&file, past);
        let vouch = IndexVouch::load(&repo).expect("load").expect("an index");
        assert!(!vouch.vouches("page.md", &meta(), id));
        drop(vouch);

        // Racily clean: an index file not younger than the file proves nothing. (Git compares
        // whole seconds: it would take the edit above for no change, so the entry is re-added;
        // `-f`: whether git itself sees the edit as staged-and-changed depends on the second.)
        git(root, &["rm", "-q", "-f", "--cached", "page.md"]);
        git(root, &["add", "page.md"]);
        let id = blob_id(b"alphb\n");
        let index_file = root.join(".git").join("index");
        let vouch = IndexVouch::load(&repo).expect("load").expect("an index");
        assert!(vouch.vouches("page.md", &meta(), id));
        drop(vouch);
        set_mtime(&index_file, past - std::time::Duration::from_secs(1));
        let vouch = IndexVouch::load(&repo).expect("load").expect("an index");
        assert!(!vouch.vouches("page.md", &meta(), id));
    }

    fn temps_in(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().expect("type").is_dir() {
                found.extend(temps_in(&entry.path()));
            } else if name.starts_with(TEMP_PREFIX) {
                found.push(name);
            }
        }
        found
    }

    #[cfg(unix)]
    fn mode_of(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::symlink_metadata(path)
            .expect("stat")
            .permissions()
            .mode()
            & 0o7777
    }

    #[cfg(unix)]
    #[test]
    fn write_files_keeps_modes_creates_directories_and_leaves_no_temps() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = std::fs::canonicalize(tmp.path()).expect("canonical");
        let set_mode = |p: &str, mode: u32| {
            std::fs::set_permissions(vault.join(p), std::fs::Permissions::from_mode(mode))
                .expect("chmod")
        };
        std::fs::write(vault.join("private.md"), "old\n").expect("w");
        set_mode("private.md", 0o600);
        std::fs::write(vault.join("tool.sh"), "old\n").expect("w");
        set_mode("tool.sh", 0o640);
        std::fs::write(vault.join("was-exec.sh"), "old\n").expect("w");
        set_mode("was-exec.sh", 0o755);
        let files = [
            ("private.md", false),
            ("tool.sh", true),
            ("was-exec.sh", false),
            ("a/b/new.md", false),
            ("a/b/new.sh", true),
            ("a/other.md", false),
        ];
        let writes: Vec<FileWrite<'_>> = files
            .iter()
            .map(|(path, exec)| FileWrite {
                path,
                bytes: path.as_bytes(),
                exec: *exec,
                checked: None,
            })
            .collect();
        let stats = write_files(&vault, &writes).expect("write").stats;
        assert_eq!(stats.len(), files.len());
        for ((path, _), stat) in files.iter().zip(&stats) {
            assert_eq!(
                std::fs::read(vault.join(path)).expect("read"),
                path.as_bytes()
            );
            let fresh = file_stat(&vault.join(path)).expect("stat");
            assert_eq!(*stat, Some(fresh), "{path}: stat data of the renamed file");
        }
        assert_eq!(mode_of(&vault.join("private.md")), 0o600);
        assert_eq!(mode_of(&vault.join("tool.sh")), 0o750);
        assert_eq!(mode_of(&vault.join("was-exec.sh")), 0o644);
        // New files: 0644 / 0755 whatever the umask.
        assert_eq!(mode_of(&vault.join("a/b/new.md")), 0o644);
        assert_eq!(mode_of(&vault.join("a/b/new.sh")), 0o755);
        assert_eq!(temps_in(&vault), Vec::<String>::new());
    }

    #[test]
    fn write_files_skips_leftover_temp_names_of_the_same_pid() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = std::fs::canonicalize(tmp.path()).expect("canonical");
        let pid = std::process::id();
        let next = TEMP_COUNTER.load(Ordering::Relaxed);
        let decoys: Vec<PathBuf> = (next..next + 20)
            .map(|n| vault.join(format!("{TEMP_PREFIX}{pid}-{n}{TEMP_SUFFIX}")))
            .collect();
        for d in &decoys {
            std::fs::write(d, "someone else's\n").expect("w");
        }
        let writes = [FileWrite {
            path: "page.md",
            bytes: b"page\n",
            exec: false,
            checked: None,
        }];
        write_files(&vault, &writes).expect("write");
        assert_eq!(std::fs::read(vault.join("page.md")).expect("r"), b"page\n");
        for d in &decoys {
            assert_eq!(std::fs::read(d).expect("decoy kept"), b"someone else's\n");
        }
    }

    #[cfg(unix)]
    #[test]
    fn write_files_refuses_unsafe_targets_before_renaming_anything() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = std::fs::canonicalize(tmp.path()).expect("canonical");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(vault.join("a.md"), "a1\n").expect("w");
        std::fs::create_dir(vault.join("dir.md")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), vault.join("link")).expect("symlink");
        for bad in ["dir.md", "link/x.md", "a.md/x.md"] {
            let writes = [
                FileWrite {
                    path: "a.md",
                    bytes: b"a2\n",
                    exec: false,
                    checked: None,
                },
                FileWrite {
                    path: bad,
                    bytes: b"x\n",
                    exec: false,
                    checked: None,
                },
            ];
            let err = write_files(&vault, &writes).expect_err(bad);
            assert!(err.to_string().contains(bad), "{bad}: {err}");
            assert_eq!(
                std::fs::read(vault.join("a.md")).expect("r"),
                b"a1\n",
                "{bad}"
            );
            assert_eq!(temps_in(&vault), Vec::<String>::new(), "{bad}");
        }
        assert_eq!(std::fs::read_dir(outside.path()).expect("ls").count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn path_checker_agrees_with_check_writable() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vault = std::fs::canonicalize(tmp.path()).expect("canonical");
        std::fs::create_dir_all(vault.join("d/e")).expect("mkdir");
        std::fs::write(vault.join("d/f.md"), "f").expect("w");
        std::fs::write(vault.join("top.md"), "t").expect("w");
        std::os::unix::fs::symlink(vault.join("d"), vault.join("ld")).expect("symlink");
        std::os::unix::fs::symlink(vault.join("top.md"), vault.join("lf.md")).expect("symlink");
        std::os::unix::fs::symlink(vault.join("d"), vault.join("d/e/up")).expect("symlink");
        let paths = [
            "new.md",
            "top.md",
            "lf.md",
            "ld",
            "ld/x.md",
            "d",
            "d/f.md",
            "d/new.md",
            "d/f.md/x.md",
            "d/e/x.md",
            "d/e/up/x.md",
            "d/missing/deeper/x.md",
            "top.md/x.md",
            "missing/x.md",
        ];
        let mut checker = PathChecker::default();
        // Twice: the second round answers from the cache.
        for _ in 0..2 {
            for path in paths {
                let expected = check_writable(&vault, path).map_err(|e| e.to_string());
                let got = checker.check(&vault, path).map_err(|e| e.to_string());
                assert_eq!(got, expected, "{path}");
                // The split form: directories first, then the file while reading it.
                let split = checker
                    .check_parents(&vault, [path])
                    .and_then(|()| read_disk(&vault, path).map(|_| ()))
                    .map_err(|e| e.to_string());
                assert_eq!(split, expected, "{path} (check_parents + read_disk)");
            }
        }
    }

    /// Issue 28, defect 1: the index only records stat data of a file proven to hold the blob.
    /// An editor that saves over the file (a new file renamed over it) after its content was
    /// checked changes its identity, and the stat data is not taken.
    #[test]
    fn stat_data_is_taken_only_for_a_file_holding_the_blob() {
        let dir = tempfile::tempdir().expect("tempdir");
        let page = dir.path().join("page.md");
        std::fs::write(&page, b"tool\n").expect("write");
        let ours = file_stat(&page).expect("stat");
        assert_eq!(
            verified_stat(&page, blob_id(b"tool\n")).expect("stat"),
            Some(ours)
        );
        let saved = dir.path().join("page.md.swp");
        std::fs::write(&saved, b"tool\nhand edit\n").expect("write");
        std::fs::rename(&saved, &page).expect("save");
        let now = file_stat(&page).expect("stat");
        assert!(!same_file(&ours, &now));
        assert_eq!(
            verified_stat(&page, blob_id(b"tool\n")).expect("stat"),
            None
        );
        assert_eq!(
            verified_stat(&dir.path().join("gone.md"), blob_id(b"")).expect("stat"),
            None
        );
        // A rename alone keeps the file's identity (only its ctime may change).
        let moved = dir.path().join("moved.md");
        std::fs::rename(&page, &moved).expect("rename");
        assert!(same_file(&now, &file_stat(&moved).expect("stat")));
    }

    #[test]
    fn blob_ids_match_git() {
        assert_eq!(
            blob_id(b"").to_string(),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            blob_id(b"hello\n").to_string(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }
}
