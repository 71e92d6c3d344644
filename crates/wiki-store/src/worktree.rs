//! Work-tree files and the index: safe reads, atomic writes, per-path index updates.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};

use crate::error::GitResultExt;
use crate::{Error, Result};

/// The git blob id of `bytes` (SHA-1 over `blob <len>\0<bytes>`).
pub(crate) fn blob_id(bytes: &[u8]) -> ObjectId {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    ObjectId::Sha1(h.digest().bytes())
}

/// `f` applied to every item, in order; spread over a few threads when there are many items
/// (hashing and reading thousands of files).
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    if threads == 1 || items.len() < 64 {
        return items.iter().map(f).collect();
    }
    let chunk_len = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk_len)
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
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

/// Read a path that passed [`check_writable`].
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
        return Err(unsafe_path(vault_path, "it is not a regular file"));
    }
    let bytes = std::fs::read(&full).map_err(|e| Error::io(&full, e))?;
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
        let bytes = std::fs::read(full).map_err(|e| Error::io(full, e))?;
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

/// Create the missing parent directories of `vault_path`, refusing symlinks and non-directories.
fn create_parents(vault_dir: &Path, vault_path: &str) -> Result<PathBuf> {
    let mut current = vault_dir.to_path_buf();
    let components: Vec<&str> = vault_path.split('/').collect();
    for component in components.iter().take(components.len().saturating_sub(1)) {
        current.push(component);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_dir() => {}
            Ok(_) => {
                return Err(unsafe_path(
                    vault_path,
                    format!("{} is not a directory", current.display()),
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&current) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        // Raced with someone creating it; it must be a real directory now.
                        let meta = std::fs::symlink_metadata(&current)
                            .map_err(|e| Error::io(&current, e))?;
                        if !meta.file_type().is_dir() {
                            return Err(unsafe_path(
                                vault_path,
                                format!("{} is not a directory", current.display()),
                            ));
                        }
                    }
                    Err(e) => return Err(Error::io(&current, e)),
                }
            }
            Err(e) => return Err(Error::io(&current, e)),
        }
    }
    Ok(current)
}

/// Prefix and suffix of the temporary files [`write_atomic`] renames into place.
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

/// Write `bytes` to `vault_path` atomically: a temporary file in the same directory, renamed over
/// the target (readers never see a partial file). Like git's default for work-tree files, no
/// fsync: durability across power loss is not attempted; process crashes are covered by the
/// journal. Existing permissions are kept; new files get 0644 (0755 if `exec`).
pub(crate) fn write_atomic(
    vault_dir: &Path,
    vault_path: &str,
    bytes: &[u8],
    exec: bool,
) -> Result<()> {
    let parent = create_parents(vault_dir, vault_path)?;
    check_writable(vault_dir, vault_path)?;
    let full = vault_dir.join(vault_path);
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(&parent)
        .map_err(|e| Error::io(&parent, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    set_mode(tmp.as_file(), &full, exec).map_err(|e| Error::io(tmp.path(), e))?;
    tmp.persist(&full).map_err(|e| Error::io(&full, e.error))?;
    Ok(())
}

/// Write `bytes` to `vault_path`: always atomically ([`write_atomic`]: temporary file in the same
/// directory, then rename), so no reader and no crash ever sees a partially written page. (An
/// in-place overwrite was measured faster on large commits, but a process killed mid-write left a
/// torn page on disk until the next roll-forward, which the toolchain's "no partial page after
/// SIGKILL" guarantee forbids.)
pub(crate) fn write_file(
    vault_dir: &Path,
    vault_path: &str,
    bytes: &[u8],
    exec: bool,
) -> Result<()> {
    write_atomic(vault_dir, vault_path, bytes, exec)
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
    set_mode(&file, &full, exec).map_err(|e| Error::io(&full, e))
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, target: &Path, exec: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let base = match std::fs::symlink_metadata(target) {
        Ok(meta) if meta.file_type().is_file() => meta.permissions().mode() & 0o7777,
        _ => 0o644,
    };
    let mode = if exec {
        base | ((base & 0o444) >> 2) | 0o100
    } else {
        base & !0o111
    };
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _target: &Path, _exec: bool) -> std::io::Result<()> {
    Ok(())
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

/// One index entry to set (or remove, when `entry` is `None`).
pub(crate) struct IndexUpdate {
    /// Repository-relative path.
    pub repo_path: String,
    /// Blob id, executable bit and the file on disk to take stat data from (`None`: the disk
    /// does not hold this blob; zero stat data makes git re-hash the file).
    pub entry: Option<(ObjectId, bool, Option<PathBuf>)>,
}

/// Load the index (an empty one when the repository has none yet).
pub(crate) fn load_index(repo: &gix::Repository) -> Result<gix::index::File> {
    let path = repo.index_path();
    if path.exists() {
        repo.open_index()
            .git_ctx(|| format!("read index {}", path.display()))
    } else {
        Ok(gix::index::File::from_state(
            gix::index::State::new(repo.object_hash()),
            path,
        ))
    }
}

/// Set exactly the entries in `updates` (all stages of those paths are replaced), keep every other
/// entry untouched, drop the (now stale) tree cache and write the index atomically (lock file +
/// rename).
pub(crate) fn update_index(repo: &gix::Repository, updates: &[IndexUpdate]) -> Result<()> {
    if updates.is_empty() {
        return Ok(());
    }
    let mut index = load_index(repo)?;
    let index_path = index.path().to_path_buf();
    let paths: HashSet<&[u8]> = updates.iter().map(|u| u.repo_path.as_bytes()).collect();
    index.remove_entries(|_, path, _| paths.contains(path.as_bytes()));
    for update in updates {
        let Some((id, exec, disk)) = &update.entry else {
            continue;
        };
        let stat = match disk {
            Some(disk) => {
                let meta = gix::index::fs::Metadata::from_path_no_follow(disk)
                    .map_err(|e| Error::io(disk, e))?;
                gix::index::entry::Stat::from_fs(&meta)
                    .map_err(|e| Error::io(disk, std::io::Error::other(e)))?
            }
            None => gix::index::entry::Stat::default(),
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
    index.remove_tree();
    index
        .write(gix::index::write::Options::default())
        .git_ctx(|| format!("write index {}", index_path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
