//! Where indexed files come from: the vault work tree, an agent branch read from git, or a memory
//! workspace.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::Error;
use crate::doc::{self, IndexDoc};
use crate::memory;
use crate::store::{DirStamp, Entry, Manifest, Source, SourceFile};

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

/// The pages of a vault work tree, as the vault layer lists them ([`wiki_vault::scan_stat`]).
/// Entries that are not pages (symbolic links, names that are not UTF-8) are not
/// indexed.
pub struct WorkTree {
    /// Vault directory.
    pub vault: PathBuf,
}

/// Nanoseconds since the epoch of a `(seconds, nanoseconds)` time (0 before the epoch).
fn nanos(secs: i64, nsec: i64) -> i64 {
    if secs < 0 {
        return 0;
    }
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

impl Source for WorkTree {
    fn list(&self) -> Result<Vec<SourceFile>, Error> {
        let listed = wiki_vault::scan_stat(&self.vault).map_err(Error::Vault)?;
        let mut out: Vec<SourceFile> = listed
            .into_iter()
            .filter_map(|s| {
                let (size, stat) = s.stat?.ok()?;
                Some(SourceFile {
                    path: s.file.path,
                    size,
                    mtime_ns: stat.map_or(0, |st| nanos(st.mtime, st.mtime_nsec)),
                    ctime_ns: stat.map_or(0, |st| nanos(st.ctime, st.ctime_nsec)),
                    blob: None,
                })
            })
            .collect();
        out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn read(&self, file: &SourceFile) -> Result<Vec<u8>, Error> {
        let abs = self.vault.join(&file.path);
        wiki_cli::read::read_bounded(&abs, wiki_vault::PAGE_LIMIT).map_err(|e| Error::Io(abs, e))
    }

    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
        page_docs(path, bytes, blob)
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
            .filter(|(p, _)| wiki_vault::is_scanned_page_path(p))
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

/// The curated files at the root of a memory workspace.
const ROOT_FILES: [&str; 2] = ["MEMORY.md", "memory.md"];

/// The memory files of a workspace as `(relative path, absolute path)`, sorted.
pub fn memory_files(dir: &Path) -> Vec<(String, PathBuf)> {
    memory_files_stamped(dir).0
}

/// The stamp of the directory at `path` whose stat data is `meta` (`None` where a directory has
/// no identity to compare: not Unix).
fn dir_stamp(path: &str, meta: &std::fs::Metadata) -> Option<DirStamp> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(DirStamp {
            path: path.to_string(),
            dev: meta.dev(),
            ino: meta.ino(),
            mtime_ns: mtime_ns(meta),
            ctime_ns: ctime_ns(meta),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = (path, meta);
        None
    }
}

/// [`memory_files`] with the stamps of the directories read (sorted by path), each taken
/// before the directory was read; `None` without them (not Unix).
fn memory_files_stamped(dir: &Path) -> (Vec<(String, PathBuf)>, Option<Vec<DirStamp>>) {
    let mut out = Vec::new();
    for name in ROOT_FILES {
        let p = dir.join(name);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            out.push((name.to_string(), p));
        }
    }
    type Stamps = Option<Vec<DirStamp>>;
    fn walk(
        dir: &Path,
        rel: &str,
        depth: usize,
        out: &mut Vec<(String, PathBuf)>,
        st: &mut Stamps,
    ) {
        if depth > 16 {
            return;
        }
        // Stamped before it is read: whatever changes it afterwards changes the stamp.
        let Ok(meta) = std::fs::metadata(dir) else {
            return;
        };
        let stamp = dir_stamp(rel, &meta);
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        match (st.as_mut(), stamp) {
            (Some(stamps), Some(s)) => stamps.push(s),
            _ => *st = None,
        }
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
                walk(&e.path(), &path, depth + 1, out, st);
            } else if ft.is_file() && name.ends_with(".md") {
                out.push((path, e.path()));
            }
        }
    }
    let mut stamps = Some(Vec::new());
    walk(&dir.join("memory"), "memory", 0, &mut out, &mut stamps);
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    if let Some(s) = stamps.as_mut() {
        s.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    }
    (out, stamps)
}

/// Whether the file at `abs` is a regular file with the unchanged stat data of `e`.
fn same_file(abs: &Path, e: &Entry) -> bool {
    std::fs::symlink_metadata(abs).is_ok_and(|meta| {
        meta.is_file() && crate::store::same_stat(e, meta.len(), mtime_ns(&meta), ctime_ns(&meta))
    })
}

/// Notes above which [`MemoryDir::unchanged`] spreads its `stat` calls over threads.
const PARALLEL_NOTES: usize = 512;

/// `check` of every part of `items`, the parts checked on up to as many threads as the machine
/// runs at once (at most four), the first on this one; `false` when a part is.
fn all_parallel<T: Sync>(items: &[T], check: impl Fn(&[T]) -> bool + Sync) -> bool {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 || items.len() < PARALLEL_NOTES {
        return check(items);
    }
    let size = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let check = &check;
        let others: Vec<_> = items
            .chunks(size)
            .skip(1)
            .map(|part| {
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || check(part));
                (part, spawned)
            })
            .collect();
        check(&items[..size.min(items.len())])
            && others.into_iter().all(|(part, spawned)| match spawned {
                Ok(h) => h.join().unwrap_or(false),
                // No thread: checked here.
                Err(_) => check(part),
            })
    })
}

impl Source for MemoryDir {
    fn list(&self) -> Result<Vec<SourceFile>, Error> {
        Ok(self.list_stamped()?.0)
    }

    fn list_stamped(&self) -> Result<(Vec<SourceFile>, Option<Vec<DirStamp>>), Error> {
        let (files, stamps) = memory_files_stamped(&self.dir);
        // (`memory_files` is sorted by path.)
        Ok((stat_all(files), stamps))
    }

    fn vouches(&self) -> bool {
        cfg!(unix)
    }

    /// Every directory the listing read (`m.dirs`) still has its stamp (so no file was added,
    /// removed or renamed in it), and every indexed file its stat data (size, mtime, ctime, not
    /// racily clean): one `stat` per file and per directory, no directory read.
    fn unchanged(&self, m: &Manifest) -> bool {
        if !cfg!(unix) || m.dirs_checked_ns == 0 || m.dirs.iter().any(|d| d.racy(m.dirs_checked_ns))
        {
            return false;
        }
        for name in ROOT_FILES {
            let abs = self.dir.join(name);
            let same = match m.entry(name) {
                Some(e) => same_file(&abs, e),
                None => !std::fs::symlink_metadata(&abs).is_ok_and(|meta| meta.is_file()),
            };
            if !same {
                return false;
            }
        }
        // Only `memory` itself may be a symbolic link to its directory, as in the listing.
        let stamped = |d: &DirStamp| {
            let abs = self.dir.join(&d.path);
            let meta = match d.path.as_str() {
                "memory" => std::fs::metadata(abs),
                _ => std::fs::symlink_metadata(abs),
            };
            meta.is_ok_and(|meta| meta.is_dir() && dir_stamp(&d.path, &meta).as_ref() == Some(d))
        };
        if !m.dirs.iter().all(stamped) || (m.dirs.is_empty() && self.dir.join("memory").is_dir()) {
            return false;
        }
        let notes: Vec<&Entry> = m
            .entries
            .iter()
            .filter(|e| !ROOT_FILES.contains(&e.path.as_str()))
            .collect();
        all_parallel(&notes, |part| {
            part.iter().all(|e| same_file(&self.dir.join(&e.path), e))
        })
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

    /// The memory listing: the files of `memory_files` (curated files, notes at any depth;
    /// no hidden entries, other files or symbolic links), each with its own stat data.
    #[cfg(unix)]
    #[test]
    fn memory_listing_is_memory_files_with_their_stat_data() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let w = |p: &str, text: &str| crate::testutil::put(root, p, text);
        w("MEMORY.md", "# Memory\n");
        w("USER.md", "# Not a memory file\n");
        w("memory/2026-04-01.md", "one\n");
        w("memory/2025/2025-11-27-trip.md", "two, longer\n");
        w("memory/a/b/c/deep.md", "three\n");
        w("memory/notes.txt", "not markdown\n");
        w("memory/.dreams/state.md", "hidden dir\n");
        w("memory/.hidden.md", "hidden file\n");
        std::os::unix::fs::symlink(root.join("MEMORY.md"), root.join("memory/link.md")).unwrap();
        std::os::unix::fs::symlink(root.join("memory/a"), root.join("memory/linked-dir")).unwrap();
        let listed = MemoryDir {
            dir: root.to_path_buf(),
        }
        .list()
        .unwrap();
        let paths: Vec<&str> = listed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "MEMORY.md",
                "memory/2025/2025-11-27-trip.md",
                "memory/2026-04-01.md",
                "memory/a/b/c/deep.md",
            ]
        );
        let expected: Vec<(String, PathBuf)> = memory_files(root);
        assert_eq!(expected.len(), listed.len());
        for (f, (rel, abs)) in listed.iter().zip(&expected) {
            let meta = std::fs::symlink_metadata(abs).unwrap();
            assert_eq!(f, &stated(rel.clone(), &meta));
        }
        let missing = MemoryDir {
            dir: root.join("nowhere"),
        };
        assert!(missing.list().unwrap().is_empty());
    }

    /// Sets the modification time of every file and directory under `dir` (and its own).
    #[cfg(unix)]
    fn set_mtimes(dir: &Path, t: std::time::SystemTime) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                set_mtimes(&p, t);
            } else {
                let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                f.set_times(std::fs::FileTimes::new().set_modified(t))
                    .unwrap();
            }
        }
        let d = std::fs::File::open(dir).unwrap();
        d.set_times(std::fs::FileTimes::new().set_modified(t))
            .unwrap();
    }

    /// The manifest a refresh would write from the listing of `source` now, recorded an hour
    /// ahead (so that nothing is racily clean: the test changes files within one clock tick).
    #[cfg(unix)]
    fn vouching_manifest(source: &MemoryDir) -> Manifest {
        let (files, stamps) = source.list_stamped().unwrap();
        let later = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i64
            + 3_600_000_000_000;
        Manifest {
            entries: files
                .into_iter()
                .map(|f| crate::store::Entry {
                    path: f.path,
                    size: f.size,
                    mtime_ns: f.mtime_ns,
                    ctime_ns: f.ctime_ns,
                    checked_ns: later,
                    blob: [0; 20],
                    seg: u32::MAX,
                    doc: 0,
                    ndocs: 0,
                })
                .collect(),
            dirs: stamps.unwrap(),
            dirs_checked_ns: later,
            ..Manifest::default()
        }
    }

    /// The memory source vouches for an index from the stamps of the directories its listing
    /// read and one `stat` per note: a note added, removed, renamed or edited (a same-size edit
    /// that puts the modification time back included: its status change time moves), in any
    /// directory or at the root, makes it list again; changes in hidden directories (the dreaming
    /// state that recall records) do not.
    #[cfg(unix)]
    #[test]
    fn memory_manifest_vouches_until_a_note_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let w = |p: &str, text: &str| crate::testutil::put(root, p, text);
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
        let source = MemoryDir {
            dir: root.to_path_buf(),
        };
        type Change = Box<dyn Fn(&Path)>;
        let changes: Vec<(&str, Change)> = vec![
            ("nothing", Box::new(|_| {})),
            (
                "a hidden file",
                Box::new(|r| std::fs::write(r.join("memory/.dreams/state.json"), "{}").unwrap()),
            ),
            (
                "an append",
                Box::new(|r| {
                    use std::io::Write;
                    let mut f = std::fs::OpenOptions::new()
                        .append(true)
                        .open(r.join("memory/2026-04-01.md"))
                        .unwrap();
                    f.write_all(b"more\n").unwrap();
                }),
            ),
            (
                "a same-size edit, mtime put back",
                Box::new(move |r| {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    let p = r.join("memory/2025/2025-11-27.md");
                    std::fs::write(&p, "TWO\n").unwrap();
                    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                    f.set_times(std::fs::FileTimes::new().set_modified(old))
                        .unwrap();
                }),
            ),
            (
                "a note in an empty directory",
                Box::new(|r| std::fs::write(r.join("memory/empty/new.md"), "new\n").unwrap()),
            ),
            (
                "a note in a new directory",
                Box::new(|r| {
                    std::fs::create_dir_all(r.join("memory/2027")).unwrap();
                    std::fs::write(r.join("memory/2027/2027-01-01.md"), "x\n").unwrap();
                }),
            ),
            (
                "a removed note",
                Box::new(|r| std::fs::remove_file(r.join("memory/2025/2025-11-27.md")).unwrap()),
            ),
            (
                "a renamed note",
                Box::new(|r| {
                    std::fs::rename(
                        r.join("memory/2026-04-01.md"),
                        r.join("memory/2026-04-02.md"),
                    )
                    .unwrap()
                }),
            ),
            (
                "memory.md created",
                Box::new(|r| std::fs::write(r.join("memory.md"), "# m\n").unwrap()),
            ),
            (
                "MEMORY.md removed",
                Box::new(|r| std::fs::remove_file(r.join("MEMORY.md")).unwrap()),
            ),
        ];
        for (what, change) in changes {
            for p in ["MEMORY.md", "memory.md", "memory"] {
                let p = root.join(p);
                if p.is_dir() {
                    std::fs::remove_dir_all(p).unwrap();
                } else if p.exists() {
                    std::fs::remove_file(p).unwrap();
                }
            }
            w("MEMORY.md", "# Memory\n");
            w("memory/2026-04-01.md", "one\n");
            w("memory/2025/2025-11-27.md", "two\n");
            w("memory/.dreams/state.json", "[]");
            std::fs::create_dir_all(root.join("memory/empty")).unwrap();
            set_mtimes(root, old);
            let m = vouching_manifest(&source);
            assert_eq!(m.entries.len(), 3);
            let dirs: Vec<&str> = m.dirs.iter().map(|d| d.path.as_str()).collect();
            assert_eq!(dirs, ["memory", "memory/2025", "memory/empty"]);
            assert!(source.unchanged(&m), "before: {what}");
            change(root);
            let unchanged = what == "nothing" || what == "a hidden file";
            assert_eq!(source.unchanged(&m), unchanged, "{what}");
        }
        // Racily clean: the stamps were recorded within two seconds of the last change.
        let mut m = vouching_manifest(&source);
        assert!(source.unchanged(&m));
        m.dirs_checked_ns = m.dirs.iter().map(|d| d.ctime_ns).max().unwrap() + 1_000_000_000;
        assert!(!source.unchanged(&m));
        // Without stamps (a listed file could not be read, or another writer), never.
        let mut m = vouching_manifest(&source);
        m.dirs_checked_ns = 0;
        assert!(!source.unchanged(&m));
    }

    /// Through the index: once the directories are older than the racy window, a query opens
    /// the index from its manifest (nothing written), and an edit in place is still seen.
    #[cfg(unix)]
    #[test]
    fn a_vouched_memory_index_still_sees_an_edit() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("memory/2026")).unwrap();
        std::fs::write(ws.join("memory/2026/2026-04-01.md"), "alpha\n").unwrap();
        std::fs::write(ws.join("MEMORY.md"), "# Memory\n").unwrap();
        let index_dir = dir.path().join("index");
        let source = MemoryDir { dir: ws.clone() };
        let opts = crate::store::Options::default();
        let open = || crate::store::open(&index_dir, &source, &opts).unwrap();
        open();
        // Past the racy window of the notes and directories just written: written once more,
        // with stamps that vouch.
        std::thread::sleep(std::time::Duration::from_millis(2100));
        assert_eq!(open().report.tokenized, 0);
        let manifest = std::fs::read(index_dir.join("MANIFEST")).unwrap();
        let idx = open();
        assert_eq!(std::fs::read(index_dir.join("MANIFEST")).unwrap(), manifest);
        assert!(idx.manifest.dirs_checked_ns > 0);
        assert!(source.unchanged(&idx.manifest));
        let hits = |idx: &crate::store::Index, q: &str| {
            crate::memory::search(idx, q, crate::rank::Mode::Auto, 5, 0.0, 0)
                .unwrap()
                .len()
        };
        assert_eq!(hits(&idx, "beta"), 0);
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(ws.join("memory/2026/2026-04-01.md"))
                .unwrap();
            f.write_all(b"beta\n").unwrap();
        }
        let idx = open();
        assert_eq!(idx.report.tokenized, 1);
        assert_eq!(hits(&idx, "beta"), 1);
    }

    /// The work-tree listing: pages only (no `index.md`, hidden entries, other files, symbolic
    /// links or pages deeper than `MAX_DEPTH`), sorted by path, with the stat data of `stat`.
    #[cfg(unix)]
    #[test]
    fn work_tree_lists_pages_with_their_stat_data() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let w = |p: &str, text: &str| crate::testutil::put(root, p, text);
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
        let listed = WorkTree {
            vault: root.to_path_buf(),
        }
        .list()
        .unwrap();
        let paths: Vec<&str> = listed.iter().map(|f| f.path.as_str()).collect();
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
        let beta = &listed[2];
        assert_eq!(beta.size, 15);
        let meta = std::fs::metadata(root.join("entities/team/beta.md")).unwrap();
        assert_eq!(beta.mtime_ns, mtime_ns(&meta));
        assert_eq!(beta.ctime_ns, ctime_ns(&meta));
    }
}
