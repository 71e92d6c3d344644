//! Where indexed files come from: the vault work tree, an agent branch read from git, or a memory
//! workspace.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::Error;
use crate::doc::{self, IndexDoc};
use crate::memory;
use crate::store::{Source, SourceFile};

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// The status change time (0 where there is none, or before the epoch).
fn ctime_ns(meta: &std::fs::Metadata) -> i64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.ctime() < 0 {
            return 0;
        }
        meta.ctime()
            .saturating_mul(1_000_000_000)
            .saturating_add(meta.ctime_nsec())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

/// The listing record of a regular file with stat data `meta`.
fn stated(path: String, meta: &std::fs::Metadata) -> SourceFile {
    SourceFile {
        path,
        size: meta.len(),
        mtime_ns: mtime_ns(meta),
        ctime_ns: ctime_ns(meta),
        blob: None,
    }
}

/// Stat a list of `(relative path, absolute path)` pairs in parallel; files that vanished or are
/// not regular files are skipped.
fn stat_all(files: Vec<(String, PathBuf)>) -> Vec<SourceFile> {
    files
        .into_par_iter()
        .filter_map(|(path, abs)| {
            let meta = std::fs::symlink_metadata(&abs).ok()?;
            meta.is_file().then(|| stated(path, &meta))
        })
        .collect()
}

/// The stat data of the page at vault-relative `rel` (`None` when it is not a regular file now),
/// as the work-tree listing would report it (the search server re-stats the pages it was told
/// about by file events).
pub fn stat_page(vault: &Path, rel: &str) -> Option<SourceFile> {
    let meta = std::fs::symlink_metadata(vault.join(rel)).ok()?;
    meta.is_file().then(|| stated(rel.to_string(), &meta))
}

/// Parse a page into its document (none when it does not parse or is too large).
fn page_docs(path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
    if bytes.len() > wiki_parse::page::MAX_PAGE_BYTES {
        return Vec::new();
    }
    match wiki_parse::parse_page(path, bytes) {
        Ok(page) => vec![doc::page_doc(&page, blob)],
        Err(_) => Vec::new(),
    }
}

/// The pages of a vault work tree.
///
/// Listing is the main cost of a warm search (one `statx` per page, mostly the name lookup).
/// On Linux it is done with `getdents64` and
/// `statx` relative to directory fds (module `fast`), and a directory whose inode and mtime are
/// unchanged since it was last read is not read again (its listing comes from `dir_cache`);
/// elsewhere with `std::fs::read_dir` and `DirEntry::metadata` (`walk_pages`).
pub struct WorkTree {
    /// Vault directory.
    pub vault: PathBuf,
    /// Where the directory listings are cached (`None`: always read every directory).
    pub dir_cache: Option<PathBuf>,
}

/// Walk one page directory: the discovery rules of `wiki_parse::vault::scan` (recursive up to
/// `MAX_DEPTH`, hidden entries and symlinks skipped, `.md` files except `index.md`), taking each
/// file's metadata from its directory entry (`fstatat` relative to the directory: no full path
/// lookup per file). Sub-directories are walked in parallel.
fn walk_pages(dir: &Path, rel: &str, depth: usize) -> Vec<SourceFile> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let mut subdirs = Vec::new();
    for e in rd.flatten() {
        let Ok(name) = e.file_name().into_string() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if depth < wiki_parse::vault::MAX_DEPTH {
                subdirs.push((e.path(), format!("{rel}/{name}")));
            }
        } else if ft.is_file()
            && name.ends_with(".md")
            && name != "index.md"
            && let Ok(meta) = e.metadata()
        {
            files.push(stated(format!("{rel}/{name}"), &meta));
        }
    }
    let nested: Vec<Vec<SourceFile>> = subdirs
        .par_iter()
        .map(|(abs, r)| walk_pages(abs, r, depth + 1))
        .collect();
    files.extend(nested.into_iter().flatten());
    files
}

impl Source for WorkTree {
    fn list(&self) -> Result<Vec<SourceFile>, Error> {
        match std::fs::metadata(&self.vault) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::Vault(wiki_parse::VaultError::NotADirectory(
                    self.vault.clone(),
                )));
            }
            Err(_) => {
                return Err(Error::Vault(wiki_parse::VaultError::Missing(
                    self.vault.clone(),
                )));
            }
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(out) = fast::list_pages(&self.vault, self.dir_cache.as_deref()) {
            return Ok(out);
        }
        let per_kind: Vec<Vec<SourceFile>> = wiki_parse::PageKind::ALL
            .par_iter()
            .map(|k| {
                let dir = self.vault.join(k.dir());
                match std::fs::symlink_metadata(&dir) {
                    Ok(m) if m.is_dir() => walk_pages(&dir, k.dir(), 0),
                    _ => Vec::new(),
                }
            })
            .collect();
        let mut out: Vec<SourceFile> = per_kind.into_iter().flatten().collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn read(&self, file: &SourceFile) -> Result<Vec<u8>, Error> {
        let abs = self.vault.join(&file.path);
        wiki_cli::read::read_bounded(&abs, wiki_parse::page::PAGE_LIMIT)
            .map_err(|e| Error::Io(abs, e))
    }

    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
        page_docs(path, bytes, blob)
    }
}

/// The work-tree listing on Linux: `getdents64` into one buffer per directory (the entry type
/// comes from `d_type`, so directories and non-files are never stat-ed) and one
/// `statx(dirfd, name, AT_SYMLINK_NOFOLLOW)` per candidate page (no path lookup from the vault
/// root, no allocation per directory entry). Every directory read is a task of the thread pool,
/// which hands its pages on as further tasks of a few hundred `statx` calls each, so the work is
/// spread over the threads whatever the directory sizes. Same discovery rules as [`walk_pages`].
///
/// **Directory cache.** A directory whose inode and mtime are those recorded in the cache file
/// ([`crate::store::DIR_CACHE`] in the index directory) has the same entries as when it was
/// recorded (creating, deleting or renaming an entry updates the directory's mtime), so its page
/// names and sub-directories are taken from the cache instead of `getdents64`; its pages are
/// still `statx`-ed one by one, so edits inside files are seen as before. As for racily clean
/// files, a record is only trusted when the directory's mtime is more than two seconds older
/// than the moment it was read (a change within the same timestamp tick cannot hide). The file
/// is rewritten (atomically) when a directory had to be read; a cache that fails validation is
/// ignored.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod fast {
    use std::ffi::CStr;
    use std::os::fd::OwnedFd;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex, PoisonError};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, StatxFlags};
    use rustix::io::Errno;

    /// Type, size, and modification and status change times (ns) of a directory entry.
    type Stat = (FileType, u64, i64, i64);

    use crate::store::SourceFile;

    const CACHE_MAGIC: &[u8; 8] = b"WSRCHDIR";
    const CACHE_VERSION: u32 = 2;
    /// A directory record is trusted when its mtime is this much older than its reading.
    const RACY_NS: i64 = 2_000_000_000;

    /// One directory as last read: its identity and what it held.
    #[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    struct DirRecord {
        rel: String,
        ino: u64,
        mtime_ns: i64,
        read_ns: i64,
        /// Candidate page names, each NUL-terminated, back to back.
        #[serde(with = "serde_bytes")]
        pages: Vec<u8>,
        /// Sub-directories to walk.
        subdirs: Vec<String>,
    }

    /// A name that can only designate an entry of the directory itself.
    fn plain_name(name: &[u8]) -> bool {
        !name.is_empty()
            && name[0] != b'.'
            && !name.contains(&b'/')
            && !name.contains(&0)
            && std::str::from_utf8(name).is_ok()
    }

    fn encode_cache(records: &[DirRecord]) -> Vec<u8> {
        wiki_parse::sealed::seal(CACHE_MAGIC, CACHE_VERSION, records, &[])
    }

    /// Decode a cache file (`None` when it is not a valid one: it is then ignored). Records come
    /// out sorted by directory.
    fn decode_cache(bytes: &[u8]) -> Option<Vec<DirRecord>> {
        let (records, tail, _) =
            wiki_parse::sealed::unseal::<Vec<DirRecord>>(bytes, CACHE_MAGIC, CACHE_VERSION).ok()?;
        let names_ok = |r: &DirRecord| {
            let pages = r.pages.strip_suffix(b"\0").unwrap_or(&r.pages);
            (r.pages.is_empty() || r.pages.ends_with(b"\0"))
                && (r.pages.is_empty() || pages.split(|&b| b == 0).all(plain_name))
                && r.subdirs.iter().all(|d| plain_name(d.as_bytes()))
        };
        (tail.is_empty()
            && records.iter().all(names_ok)
            && records.windows(2).all(|w| w[0].rel < w[1].rel))
        .then_some(records)
    }

    fn now_ns() -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }

    /// Inode and mtime of an open directory.
    fn dir_identity(fd: &OwnedFd) -> Option<(u64, i64)> {
        let st = rustix::fs::statx(
            fd,
            c"",
            AtFlags::EMPTY_PATH,
            StatxFlags::INO | StatxFlags::MTIME,
        )
        .ok()?;
        let t = st.stx_mtime;
        Some((
            st.stx_ino,
            t.tv_sec
                .saturating_mul(1_000_000_000)
                .saturating_add(i64::from(t.tv_nsec)),
        ))
    }

    /// `statx` calls per parallel task.
    const CHUNK: usize = 256;
    /// `getdents64` buffer size.
    const DIRENT_BUF: usize = 64 * 1024;

    /// The candidate pages of one directory: names (each NUL-terminated) back to back, and the
    /// span of each.
    struct Names {
        fd: OwnedFd,
        rel: String,
        bytes: Vec<u8>,
        spans: Vec<(usize, usize)>,
    }

    impl Names {
        fn name(&self, i: usize) -> Option<&CStr> {
            let &(start, end) = self.spans.get(i)?;
            CStr::from_bytes_with_nul(self.bytes.get(start..end)?).ok()
        }

        /// Sort the names (with their NUL, so a name sorts before its extensions, as in paths).
        fn sort(&mut self) {
            let bytes = &self.bytes;
            self.spans
                .sort_unstable_by(|a, b| bytes[a.0..a.1].cmp(&bytes[b.0..b.1]));
        }
    }

    fn open_dir(dirfd: impl rustix::fd::AsFd, name: &CStr) -> Option<OwnedFd> {
        rustix::fs::openat(
            dirfd,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok()
    }

    /// Type, size, modification and status change times (ns); `Err` when `statx` is not
    /// available (the caller falls back to the portable walk).
    fn stat(dirfd: impl rustix::fd::AsFd, name: &CStr) -> Result<Option<Stat>, ()> {
        match rustix::fs::statx(
            dirfd,
            name,
            AtFlags::SYMLINK_NOFOLLOW,
            StatxFlags::TYPE | StatxFlags::SIZE | StatxFlags::MTIME | StatxFlags::CTIME,
        ) {
            Ok(st) => {
                // Like `SystemTime::duration_since(UNIX_EPOCH)`: 0 before the epoch.
                let ns = |t: rustix::fs::StatxTimestamp| {
                    if t.tv_sec < 0 {
                        0
                    } else {
                        t.tv_sec
                            .saturating_mul(1_000_000_000)
                            .saturating_add(i64::from(t.tv_nsec))
                    }
                };
                Ok(Some((
                    FileType::from_raw_mode(u32::from(st.stx_mode)),
                    st.stx_size,
                    ns(st.stx_mtime),
                    ns(st.stx_ctime),
                )))
            }
            Err(Errno::NOSYS) => Err(()),
            Err(_) => Ok(None),
        }
    }

    fn is_page_name(name: &[u8]) -> bool {
        name.ends_with(b".md") && name != b"index.md"
    }

    fn join(rel: &str, name: &str) -> String {
        let mut p = String::with_capacity(rel.len() + 1 + name.len());
        p.push_str(rel);
        p.push('/');
        p.push_str(name);
        p
    }

    /// The listing of one walk: stat-ed pages per task, whether `statx` is unavailable, the
    /// directory cache read and the directory records of this walk.
    struct Found {
        files: Mutex<Vec<Vec<SourceFile>>>,
        no_statx: AtomicBool,
        cache: Vec<DirRecord>,
        records: Mutex<Vec<DirRecord>>,
        /// Directories read, and taken from the cache.
        read: AtomicUsize,
        cached: AtomicUsize,
    }

    impl Found {
        fn add(&self, files: Vec<SourceFile>) {
            if !files.is_empty() {
                self.files
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(files);
            }
        }
    }

    /// Read one directory, then hand its candidate pages to the pool in chunks of [`CHUNK`]
    /// `statx` calls and its sub-directories as further tasks (so both threads stat while
    /// directories are still being read). Files whose type had to be stat-ed (`DT_UNKNOWN`) are
    /// added directly.
    fn walk<'s>(s: &rayon::Scope<'s>, fd: OwnedFd, rel: String, depth: usize, found: &'s Found) {
        let identity = dir_identity(&fd);
        let cached = identity.and_then(|(ino, mtime_ns)| {
            let i = found
                .cache
                .binary_search_by(|r| r.rel.as_str().cmp(rel.as_str()))
                .ok()?;
            let r = &found.cache[i];
            (r.ino == ino && r.mtime_ns == mtime_ns && mtime_ns.saturating_add(RACY_NS) < r.read_ns)
                .then_some(r)
        });
        if let Some(r) = cached {
            let mut names = Names {
                fd,
                rel,
                bytes: r.pages.clone(),
                spans: Vec::new(),
            };
            let mut start = 0;
            for (i, &b) in r.pages.iter().enumerate() {
                if b == 0 {
                    names.spans.push((start, i + 1));
                    start = i + 1;
                }
            }
            for d in &r.subdirs {
                let Ok(cname) = std::ffi::CString::new(d.as_str()) else {
                    continue;
                };
                if let Some(sub) = open_dir(&names.fd, &cname) {
                    let sub_rel = join(&names.rel, d);
                    s.spawn(move |s| walk(s, sub, sub_rel, depth + 1, found));
                }
            }
            found
                .records
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(r.clone());
            found.cached.fetch_add(1, Ordering::Relaxed);
            stat_tasks(s, names, found);
            return;
        }
        let read_ns = now_ns();
        let mut names = Names {
            fd,
            rel,
            bytes: Vec::new(),
            spans: Vec::new(),
        };
        let mut subdirs: Vec<(OwnedFd, String)> = Vec::new();
        let mut subdir_names: Vec<String> = Vec::new();
        let mut ready: Vec<SourceFile> = Vec::new();
        let mut buf: Vec<u8> = Vec::with_capacity(DIRENT_BUF);
        {
            let mut dir = RawDir::new(&names.fd, buf.spare_capacity_mut());
            while let Some(Ok(e)) = dir.next() {
                let cname = e.file_name();
                let name = cname.to_bytes();
                if name.first().is_none_or(|&b| b == b'.') {
                    continue;
                }
                let Ok(name_str) = std::str::from_utf8(name) else {
                    continue;
                };
                let mut ft = e.file_type();
                let mut known = None;
                if ft == FileType::Unknown {
                    match stat(&names.fd, cname) {
                        Ok(Some((t, size, mtime, ctime))) => {
                            ft = t;
                            known = Some((size, mtime, ctime));
                        }
                        Ok(None) => continue,
                        Err(()) => {
                            found.no_statx.store(true, Ordering::Relaxed);
                            return;
                        }
                    }
                }
                if ft == FileType::Directory {
                    if depth < wiki_parse::vault::MAX_DEPTH
                        && let Some(sub) = open_dir(&names.fd, cname)
                    {
                        subdirs.push((sub, join(&names.rel, name_str)));
                        subdir_names.push(name_str.to_string());
                    }
                } else if ft == FileType::RegularFile && is_page_name(name) {
                    let start = names.bytes.len();
                    names.bytes.extend_from_slice(cname.to_bytes_with_nul());
                    match known {
                        Some((size, mtime_ns, ctime_ns)) => ready.push(SourceFile {
                            path: join(&names.rel, name_str),
                            size,
                            mtime_ns,
                            ctime_ns,
                            blob: None,
                        }),
                        None => names.spans.push((start, names.bytes.len())),
                    }
                }
            }
        }
        drop(buf);
        found.read.fetch_add(1, Ordering::Relaxed);
        if let Some((ino, mtime_ns)) = identity {
            subdir_names.sort_unstable();
            found
                .records
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(DirRecord {
                    rel: names.rel.clone(),
                    ino,
                    mtime_ns,
                    read_ns,
                    pages: names.bytes.clone(),
                    subdirs: subdir_names,
                });
        }
        found.add(ready);
        for (sub, rel) in subdirs {
            s.spawn(move |s| walk(s, sub, rel, depth + 1, found));
        }
        stat_tasks(s, names, found);
    }

    /// Hand the pages of a directory to the pool, [`CHUNK`] `statx` calls per task.
    fn stat_tasks<'s>(s: &rayon::Scope<'s>, mut names: Names, found: &'s Found) {
        // Each task then yields a sorted run of paths.
        names.sort();
        let names = Arc::new(names);
        let n = names.spans.len();
        for start in (0..n).step_by(CHUNK) {
            let names = Arc::clone(&names);
            s.spawn(
                move |_| match stat_names(&names, start..(start + CHUNK).min(n)) {
                    Ok(files) => found.add(files),
                    Err(()) => found.no_statx.store(true, Ordering::Relaxed),
                },
            );
        }
    }

    /// Replace the cache file (temporary file + rename; failures only cost speed).
    fn write_cache(path: &Path, records: &[DirRecord]) {
        let Some(dir) = path.parent() else { return };
        let tmp = crate::store::temp_path(dir, "dirs");
        if std::fs::write(&tmp, encode_cache(records)).is_err()
            || std::fs::rename(&tmp, path).is_err()
        {
            let _ = std::fs::remove_file(&tmp);
        }
    }

    /// Stat names `range` of `names`.
    fn stat_names(names: &Names, range: std::ops::Range<usize>) -> Result<Vec<SourceFile>, ()> {
        let mut out = Vec::with_capacity(range.len());
        for i in range {
            let Some(cname) = names.name(i) else { continue };
            let Ok(name) = cname.to_str() else { continue };
            if let Some((FileType::RegularFile, size, mtime_ns, ctime_ns)) = stat(&names.fd, cname)?
            {
                out.push(SourceFile {
                    path: join(&names.rel, name),
                    size,
                    mtime_ns,
                    ctime_ns,
                    blob: None,
                });
            }
        }
        Ok(out)
    }

    /// The pages of the work tree sorted by path, or `None` when `statx` is unavailable. `cache`:
    /// the directory cache file, read, and rewritten when a directory had to be read.
    pub(super) fn list_pages(vault: &Path, cache: Option<&Path>) -> Option<Vec<SourceFile>> {
        let root = rustix::fs::open(
            vault,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        let found = Found {
            files: Mutex::new(Vec::new()),
            no_statx: AtomicBool::new(false),
            cache: cache
                .and_then(|p| {
                    wiki_cli::read::read_bounded(p, wiki_parse::layout::DERIVED_LIMIT).ok()
                })
                .and_then(|b| decode_cache(&b))
                .unwrap_or_default(),
            records: Mutex::new(Vec::new()),
            read: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
        };
        let mut kinds: Vec<(OwnedFd, &str)> = Vec::new();
        for k in wiki_parse::PageKind::ALL {
            let name = std::ffi::CString::new(k.dir()).ok()?;
            if let Some(fd) = open_dir(&root, &name) {
                kinds.push((fd, k.dir()));
            }
        }
        let found_ref = &found;
        rayon::scope(|s| {
            for (fd, dir) in kinds {
                s.spawn(move |s| walk(s, fd, dir.to_string(), 0, found_ref));
            }
        });
        if found.no_statx.load(Ordering::Relaxed) {
            return None;
        }
        let read = found.read.load(Ordering::Relaxed);
        if std::env::var_os("WIKI_SEARCH_TRACE").is_some() {
            let cached = found.cached.load(Ordering::Relaxed);
            eprintln!("trace: dirs {cached} cached, {read} read");
        }
        if let Some(path) = cache
            && read > 0
        {
            let mut records = found
                .records
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner);
            records.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
            records.dedup_by(|a, b| a.rel == b.rel);
            write_cache(path, &records);
        }
        let mut parts = found
            .files
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        // Each part is a sorted run of one directory (see `stat_tasks`; the few files stat-ed
        // while reading are sorted here). Ordered by their first path, the runs usually follow
        // each other (no sub-directory falls inside a run): then concatenating them is enough.
        for p in parts.iter_mut() {
            if !p.is_sorted_by(|a, b| a.path < b.path) {
                p.sort_unstable_by(|a, b| a.path.cmp(&b.path));
            }
        }
        parts.retain(|p| !p.is_empty());
        parts.sort_unstable_by(|a, b| a[0].path.cmp(&b[0].path));
        let in_order = parts
            .windows(2)
            .all(|w| w[0].last().is_some_and(|l| l.path < w[1][0].path));
        let mut files = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        for p in parts {
            files.extend(p);
        }
        if !in_order {
            files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        }
        Some(files)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn record(rel: &str, pages: &[&str], subdirs: &[&str]) -> DirRecord {
            DirRecord {
                rel: rel.to_string(),
                ino: 42,
                mtime_ns: -5,
                read_ns: 1_700_000_000_000_000_000,
                pages: pages
                    .iter()
                    .flat_map(|p| [p.as_bytes(), b"\0"].concat())
                    .collect(),
                subdirs: subdirs.iter().map(|d| d.to_string()).collect(),
            }
        }

        #[test]
        fn cache_round_trip_and_validation() {
            let records = vec![
                record("concepts", &["a.md", "b.md"], &["team"]),
                record("concepts/team", &[], &[]),
            ];
            let bytes = encode_cache(&records);
            assert_eq!(decode_cache(&bytes), Some(records.clone()));
            // Any damaged byte, truncation or another version: ignored.
            for i in 0..bytes.len() {
                let mut b = bytes.clone();
                b[i] ^= 0x01;
                assert_eq!(decode_cache(&b), None, "byte {i}");
            }
            assert_eq!(decode_cache(&bytes[..bytes.len() - 1]), None);
            // Names that would reach outside their directory are refused even when the
            // checksum is right.
            for bad in ["../x.md", "a/b.md", ".hidden.md"] {
                let r = vec![record("concepts", &[bad], &[])];
                assert_eq!(decode_cache(&encode_cache(&r)), None, "{bad:?}");
            }
            for bad in ["..", "a/b", ".git", ""] {
                let r = vec![record("concepts", &[], &[bad])];
                assert_eq!(decode_cache(&encode_cache(&r)), None, "{bad:?}");
            }
            // Records must be sorted and unique.
            let r = vec![record("b", &[], &[]), record("a", &[], &[])];
            assert_eq!(decode_cache(&encode_cache(&r)), None);
        }
    }
}

/// The pages of a git revision (an agent branch), read without checkout.
pub struct GitTree {
    /// Vault directory (to open the store).
    pub vault: PathBuf,
    /// Revision (a commit id: lists and reads see the same tree).
    pub rev: String,
}

impl GitTree {
    fn store(&self) -> Result<wiki_store::Store, Error> {
        wiki_store::Store::open(&self.vault).map_err(|e| Error::Git(e.to_string()))
    }
}

impl Source for GitTree {
    fn list(&self) -> Result<Vec<SourceFile>, Error> {
        let store = self.store()?;
        let files = store
            .list_files(&self.rev, "")
            .map_err(|e| Error::Git(e.to_string()))?;
        let mut out: Vec<SourceFile> = files
            .into_iter()
            .filter(|(p, _)| wiki_parse::vault::is_scanned_page_path(p))
            .map(|(path, id)| {
                let mut blob = [0u8; 20];
                let bytes = id.as_bytes();
                if bytes.len() == 20 {
                    blob.copy_from_slice(bytes);
                }
                SourceFile {
                    path,
                    size: 0,
                    mtime_ns: 0,
                    ctime_ns: 0,
                    blob: Some(blob),
                }
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn read(&self, file: &SourceFile) -> Result<Vec<u8>, Error> {
        let store = self.store()?;
        store
            .read_file(&self.rev, &file.path)
            .map_err(|e| Error::Git(e.to_string()))?
            .ok_or_else(|| Error::Git(format!("{}: not found at {}", file.path, self.rev)))
    }

    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
        page_docs(path, bytes, blob)
    }
}

/// A memory workspace: `MEMORY.md`, `memory.md` and `memory/**/*.md`.
pub struct MemoryDir {
    /// Workspace directory.
    pub dir: PathBuf,
}

/// The memory files of a workspace as `(relative path, absolute path)`, sorted.
pub fn memory_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for name in ["MEMORY.md", "memory.md"] {
        let p = dir.join(name);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            out.push((name.to_string(), p));
        }
    }
    fn walk(dir: &Path, rel: &str, depth: usize, out: &mut Vec<(String, PathBuf)>) {
        if depth > 16 {
            return;
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let Ok(ft) = e.file_type() else { continue };
            let path = format!("{rel}/{name}");
            if ft.is_dir() {
                walk(&e.path(), &path, depth + 1, out);
            } else if ft.is_file() && name.ends_with(".md") {
                out.push((path, e.path()));
            }
        }
    }
    walk(&dir.join("memory"), "memory", 0, &mut out);
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

impl Source for MemoryDir {
    fn list(&self) -> Result<Vec<SourceFile>, Error> {
        let mut out = stat_all(memory_files(&self.dir));
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn read(&self, file: &SourceFile) -> Result<Vec<u8>, Error> {
        let abs = self.dir.join(&file.path);
        wiki_cli::read::read_bounded(&abs, wiki_cli::read::MEMORY_NOTES)
            .map_err(|e| Error::Io(abs, e))
    }

    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
        match std::str::from_utf8(bytes) {
            Ok(text) => memory::chunk_docs(path, text, blob),
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Linux listing finds exactly what the portable walk finds, with the same stat data.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn fast_listing_matches_the_portable_walk() {
        let root = std::env::temp_dir().join(format!(
            "wiki-search-walk-{}-{}",
            std::process::id(),
            line!()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let w = |p: &str, text: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("entities/alpha.md", "# Alpha\n");
        w("entities/index.md", "# Index\n");
        w("entities/notes.txt", "not a page\n");
        w("entities/.hidden.md", "# Hidden\n");
        w("entities/.git/x.md", "# Hidden dir\n");
        w("entities/team/beta.md", "# Beta, longer\n");
        w("entities/team/index.md", "# Team index\n");
        w("concepts/a/b/c/gamma.md", "# Gamma\n");
        w("sources/s.md", "");
        w("other/ignored.md", "# Not a page directory\n");
        w("outside.md", "# Outside\n");
        std::os::unix::fs::symlink(root.join("outside.md"), root.join("concepts/link.md")).unwrap();
        std::os::unix::fs::symlink(root.join("other"), root.join("concepts/linked-dir")).unwrap();
        std::os::unix::fs::symlink(root.join("entities"), root.join("syntheses")).unwrap();
        let mut deep = String::from("reports");
        for i in 0..20 {
            deep.push_str(&format!("/d{i}"));
            w(&format!("{deep}/p{i}.md"), "# Deep\n");
        }
        let fast = fast::list_pages(&root, None).unwrap();
        let mut portable: Vec<SourceFile> = wiki_parse::PageKind::ALL
            .iter()
            .filter(|k| std::fs::symlink_metadata(root.join(k.dir())).is_ok_and(|m| m.is_dir()))
            .flat_map(|k| walk_pages(&root.join(k.dir()), k.dir(), 0))
            .collect();
        portable.sort_by(|a, b| a.path.cmp(&b.path));
        let paths: Vec<&str> = fast.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            &paths[..4],
            [
                "concepts/a/b/c/gamma.md",
                "entities/alpha.md",
                "entities/team/beta.md",
                "reports/d0/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/d13/d14/d15/p15.md",
            ]
        );
        // 16 levels below `reports/` (MAX_DEPTH), the deepest page is not listed.
        assert_eq!(paths.len(), 3 + 16 + 1, "{paths:?}");
        assert_eq!(paths[18], "reports/d0/p0.md");
        assert_eq!(paths.last(), Some(&"sources/s.md"));
        assert_eq!(fast, portable);
        let beta = &fast[2];
        assert_eq!(beta.size, 15);
        let meta = std::fs::metadata(root.join("entities/team/beta.md")).unwrap();
        assert_eq!(beta.mtime_ns, mtime_ns(&meta));
        let _ = std::fs::remove_dir_all(&root);
    }
}
