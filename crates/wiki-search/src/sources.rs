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
        // (`memory_files` is sorted by path.)
        Ok(stat_all(memory_files(&self.dir)))
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
        let w = |p: &str, text: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
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

    /// The work-tree listing: pages only (no `index.md`, hidden entries, other files, symbolic
    /// links or pages deeper than `MAX_DEPTH`), sorted by path, with the stat data of `stat`.
    #[cfg(unix)]
    #[test]
    fn work_tree_lists_pages_with_their_stat_data() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
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
