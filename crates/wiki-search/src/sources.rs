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

/// Stat a list of `(relative path, absolute path)` pairs in parallel; files that vanished or are
/// not regular files are skipped.
fn stat_all(files: Vec<(String, PathBuf)>) -> Vec<SourceFile> {
    files
        .into_par_iter()
        .filter_map(|(path, abs)| {
            let meta = std::fs::symlink_metadata(&abs).ok()?;
            meta.is_file().then(|| SourceFile {
                path,
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
                blob: None,
            })
        })
        .collect()
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
pub struct WorkTree {
    /// Vault directory.
    pub vault: PathBuf,
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
            files.push(SourceFile {
                path: format!("{rel}/{name}"),
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
                blob: None,
            });
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
        std::fs::read(&abs).map_err(|e| Error::Io(abs, e))
    }

    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
        page_docs(path, bytes, blob)
    }
}

/// The pages of a git revision (an agent branch), read without checkout.
pub struct GitTree {
    /// Vault directory (to open the store).
    pub vault: PathBuf,
    /// Revision (`refs/heads/agents/<id>`).
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
            .filter(|(p, _)| wiki_parse::vault::is_page_path(p))
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
        std::fs::read(&abs).map_err(|e| Error::Io(abs, e))
    }

    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc> {
        match std::str::from_utf8(bytes) {
            Ok(text) => memory::chunk_docs(path, text, blob),
            Err(_) => Vec::new(),
        }
    }
}
