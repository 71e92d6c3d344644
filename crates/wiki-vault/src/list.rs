//! Listing the pages of a work tree or of a git tree by the rules of [`wiki_parse::vault`].
//!
//! Discovery walks each page directory recursively (bounded depth), takes regular files ending
//! in `.md` except directory indexes (`index.md`), skips hidden entries, never follows symlinks
//! (a symlinked page is reported as an error, so nothing outside the vault is ever read), and
//! returns paths in scan order: `sources`, `entities`, `concepts`, `syntheses`, `reports`, each
//! sorted by path.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use wiki_parse::PageInfo;
use wiki_parse::page::{self, Page, PageError};
use wiki_parse::vault::{
    MAX_DEPTH, NOT_UTF8, PageKind, SYMLINKED_DIRECTORY, SYMLINKED_PAGE, VaultPages,
    is_scanned_page_path, scan_order, split_results, tree_link_problem, visible, within_scan_depth,
};

/// Errors that stop a whole vault read (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    /// The vault path does not exist.
    #[error("{0}: vault directory does not exist")]
    Missing(PathBuf),
    /// The vault path is not a directory.
    #[error("{0}: not a directory")]
    NotADirectory(PathBuf),
    /// The vault or one of its page directories cannot be read.
    #[error("{path}: cannot read directory: {source}")]
    Unreadable {
        /// Directory that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
}

/// A page file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFile {
    /// Vault-relative path.
    pub path: String,
    /// Absolute path.
    pub abs: PathBuf,
    /// Set when the entry cannot be read as a page (symlink, unreadable sub-directory).
    pub problem: Option<String>,
}

fn check_vault(vault: &Path) -> Result<(), VaultError> {
    match std::fs::metadata(vault) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(VaultError::NotADirectory(vault.to_path_buf())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(VaultError::Missing(vault.to_path_buf()))
        }
        Err(e) => Err(VaultError::Unreadable {
            path: vault.to_path_buf(),
            source: e,
        }),
    }
}

fn walk(dir: &Path, rel: &str, depth: usize, out: &mut Vec<PageFile>) -> Result<(), VaultError> {
    let entries = std::fs::read_dir(dir).map_err(|e| VaultError::Unreadable {
        path: dir.to_path_buf(),
        source: e,
    })?;
    // (name, file type, path); names that are not UTF-8 (no file type) in their U+FFFD form,
    // with their bytes to order them among equal forms.
    type Listed = (String, Option<std::fs::FileType>, PathBuf, Vec<u8>);
    let mut items: Vec<Listed> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| VaultError::Unreadable {
            path: dir.to_path_buf(),
            source: e,
        })?;
        let name = match entry.file_name().into_string() {
            Ok(name) => name,
            Err(raw) => {
                let lossy = raw.to_string_lossy().into_owned();
                items.push((lossy, None, entry.path(), raw.as_encoded_bytes().to_vec()));
                continue;
            }
        };
        if name.starts_with('.') {
            continue;
        }
        let ft = entry.file_type().map_err(|e| VaultError::Unreadable {
            path: entry.path(),
            source: e,
        })?;
        let raw = name.as_bytes().to_vec();
        items.push((name, Some(ft), entry.path(), raw));
    }
    // By name (names that are not UTF-8 where their U+FFFD form sorts, as a listing of git's
    // tree does), then by bytes: the order does not depend on the directory's.
    items.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.3.cmp(&b.3)));
    for (name, ft, abs, _) in items {
        let path = format!("{rel}/{name}");
        let Some(ft) = ft else {
            out.push(PageFile {
                path,
                abs,
                problem: Some(NOT_UTF8.into()),
            });
            continue;
        };
        if ft.is_symlink() {
            if name.ends_with(".md") {
                out.push(PageFile {
                    path,
                    abs,
                    problem: Some(SYMLINKED_PAGE.into()),
                });
            }
        } else if ft.is_dir() {
            if depth >= MAX_DEPTH {
                continue;
            }
            if let Err(e) = walk(&abs, &path, depth + 1, out) {
                out.push(PageFile {
                    path,
                    abs,
                    problem: Some(e.to_string()),
                });
            }
        } else if ft.is_file() && name.ends_with(".md") && name != "index.md" {
            out.push(PageFile {
                path,
                abs,
                problem: None,
            });
        }
    }
    Ok(())
}

/// Stat data of listed page files, each read relative to an open descriptor of its directory
/// (`fstatat`): the kernel resolves one name per page instead of the whole path from the vault's
/// root down.
#[derive(Debug, Default)]
pub struct PageStatter {
    #[cfg(unix)]
    dirs: std::collections::HashMap<PathBuf, std::os::fd::OwnedFd>,
}

impl PageStatter {
    /// At most this many directories are held open (a vault of many small directories must
    /// not use up the process's file descriptors; the pages of the others are statted by path).
    pub const MAX_DIRS: usize = 64;

    /// Open the directories of `files`, the first [`PageStatter::MAX_DIRS`] of them (those not
    /// open are statted by path).
    pub fn new(files: &[PageFile]) -> PageStatter {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let mut dirs = std::collections::HashMap::new();
            for f in files {
                if dirs.len() < Self::MAX_DIRS
                    && let Some(dir) = f.abs.parent()
                    && !dirs.contains_key(dir)
                    && let Ok(fd) = rustix::fs::open(
                        dir,
                        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                {
                    dirs.insert(dir.to_path_buf(), fd);
                }
            }
            PageStatter { dirs }
        }
        #[cfg(not(unix))]
        {
            let _ = files;
            PageStatter {}
        }
    }

    /// The length and stat data of `f`, not following a symbolic link (like
    /// [`std::fs::symlink_metadata`] and [`crate::pagecache::FileStat::of`]).
    pub fn stat(&self, f: &PageFile) -> std::io::Result<(u64, Option<crate::pagecache::FileStat>)> {
        #[cfg(unix)]
        if let (Some(dir), Some(name)) = (f.abs.parent(), f.abs.file_name())
            && let Some(fd) = self.dirs.get(dir)
        {
            let st = rustix::fs::statat(fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
            let stat = crate::pagecache::FileStat::of_stat(&st);
            return Ok((stat.size, Some(stat)));
        }
        let meta = std::fs::symlink_metadata(&f.abs)?;
        Ok((meta.len(), crate::pagecache::FileStat::of(&meta)))
    }
}

/// List the page files of a vault in scan order. Missing page directories are simply empty.
/// The page directories are read side by side, their listings concatenated in
/// [`PageKind::ALL`] order.
pub fn scan(vault: &Path) -> Result<Vec<PageFile>, VaultError> {
    scan_kinds(
        vault,
        |dir, rel| {
            let mut out = Vec::new();
            walk(dir, rel, 0, &mut out)?;
            Ok(out)
        },
        |file| file,
    )
}

/// The page directories of `vault` side by side, each walked by `walk` (directory, vault
/// path), their listings concatenated in [`PageKind::ALL`] order; a symbolic link in place of
/// a page directory is listed as a problem (`problem` makes the entry), a missing one is empty.
fn scan_kinds<T: Send>(
    vault: &Path,
    walk: impl Fn(&Path, &str) -> Result<Vec<T>, VaultError> + Sync,
    problem: impl Fn(PageFile) -> T + Sync,
) -> Result<Vec<T>, VaultError> {
    check_vault(vault)?;
    let listed: Vec<Result<Vec<T>, VaultError>> = PageKind::ALL
        .par_iter()
        .map(|kind| {
            let dir = vault.join(kind.dir());
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.is_dir() => walk(&dir, kind.dir()),
                Ok(m) if m.file_type().is_symlink() => Ok(vec![problem(PageFile {
                    path: kind.dir().to_string(),
                    abs: dir,
                    problem: Some(SYMLINKED_DIRECTORY.into()),
                })]),
                Ok(_) => Ok(Vec::new()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
                Err(e) => Err(VaultError::Unreadable {
                    path: dir,
                    source: e,
                }),
            }
        })
        .collect();
    let mut out = Vec::new();
    for files in listed {
        out.extend(files?);
    }
    Ok(out)
}

/// A listed page file with its length and stat data ([`scan_stat`]).
#[derive(Debug)]
pub struct StatedFile {
    /// The file, as [`scan`] lists it.
    pub file: PageFile,
    /// Its length and stat data, read without following a symbolic link; `None` for an entry
    /// with a [`PageFile::problem`] (not statted).
    pub stat: Option<std::io::Result<(u64, Option<crate::pagecache::FileStat>)>>,
}

/// [`scan`] with each page's stat data (through a [`PageStatter`]), the pages statted side by
/// side.
pub fn scan_stat(vault: &Path) -> Result<Vec<StatedFile>, VaultError> {
    let files = scan(vault)?;
    let statter = PageStatter::new(&files);
    Ok(files
        .into_par_iter()
        .map(|file| {
            let stat = file.problem.is_none().then(|| statter.stat(&file));
            StatedFile { file, stat }
        })
        .collect())
}

/// Read and parse one page file.
pub fn read_page(file: &PageFile) -> Result<Page, PageError> {
    if let Some(problem) = &file.problem {
        return Err(PageError {
            path: file.path.clone(),
            line: 1,
            message: problem.clone(),
        });
    }
    let meta = std::fs::symlink_metadata(&file.abs).map_err(|e| PageError {
        path: file.path.clone(),
        line: 1,
        message: format!("cannot read: {e}"),
    })?;
    if meta.len() as usize > page::MAX_PAGE_BYTES {
        return Err(PageError {
            path: file.path.clone(),
            line: 1,
            message: format!(
                "file is too large to be a page ({} bytes; the limit is {} bytes)",
                meta.len(),
                page::MAX_PAGE_BYTES
            ),
        });
    }
    let bytes =
        wiki_cli::read::read_bounded(&file.abs, crate::PAGE_LIMIT).map_err(|e| PageError {
            path: file.path.clone(),
            line: 1,
            message: format!("cannot read: {e}"),
        })?;
    page::parse_page(&file.path, &bytes)
}

/// Read and parse every page of a vault (in parallel). One bad page never stops the others.
pub fn read_vault(vault: &Path) -> Result<VaultPages, VaultError> {
    let files = scan(vault)?;
    Ok(read_files(&files))
}

/// [`read_vault`] keeping only each page's record ([`PageInfo`]): every page's text and
/// frontmatter are dropped by the thread that parsed it, right after parsing, so a full read
/// holds the records of the vault, not its text (`wiki-lint`).
pub fn read_vault_infos(vault: &Path) -> Result<(Vec<PageInfo>, Vec<PageError>), VaultError> {
    let files = scan(vault)?;
    let results: Vec<Result<PageInfo, PageError>> = files
        .par_iter()
        .map(|f| read_page(f).map(|p| p.info))
        .collect();
    let mut pages = Vec::with_capacity(results.len());
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok(p) => pages.push(p),
            Err(e) => errors.push(e),
        }
    }
    Ok((pages, errors))
}

/// Parse a list of page files (in parallel), keeping their order.
pub fn read_files(files: &[PageFile]) -> VaultPages {
    split_results(files.par_iter().map(read_page).collect())
}

/// The pages of a git tree ([`pages_at`]).
#[derive(Debug, Default)]
pub struct TreePages {
    /// Page paths with their blob ids, in scan order.
    pub pages: Vec<(String, wiki_store::ObjectId)>,
    /// What a scan of a checkout would report ([`tree_problems`]), in scan order.
    pub problems: Vec<PageError>,
}

impl TreePages {
    /// Add `other`'s pages and problems (a listing of another directory of the same tree),
    /// keeping scan order, each path once.
    pub fn merge(&mut self, other: TreePages) {
        self.pages.extend(other.pages);
        self.pages.sort_by(|(a, _), (b, _)| scan_order(a, b));
        self.pages.dedup_by(|(a, _), (b, _)| a == b);
        self.problems.extend(other.problems);
        self.problems.sort_by(|a, b| scan_order(&a.path, &b.path));
        self.problems.dedup_by(|a, b| a.path == b.path);
    }

    /// Read and parse the pages (in parallel): one result per page or problem, in scan order,
    /// as a checkout's read gives them ([`read_files`] of [`scan`]).
    pub fn parse(
        &self,
        store: &wiki_store::Store,
    ) -> Result<Vec<Result<Page, PageError>>, wiki_store::Error> {
        let ids: Vec<wiki_store::ObjectId> = self.pages.iter().map(|(_, id)| *id).collect();
        let blobs = store.read_blobs(&ids)?;
        let mut results: Vec<(&str, Result<Page, PageError>)> = self
            .pages
            .par_iter()
            .zip(blobs.par_iter())
            .map(|((path, _), bytes)| (path.as_str(), page::parse_page(path, bytes)))
            .collect();
        results.extend(
            self.problems
                .iter()
                .map(|e| (e.path.as_str(), Err(e.clone()))),
        );
        results.sort_by(|(a, _), (b, _)| scan_order(a, b));
        Ok(results.into_iter().map(|(_, r)| r).collect())
    }
}

/// The pages of the vault at git revision `rev` below vault directory `under` (`""`: the whole
/// vault), read from git without a checkout, as [`scan`] would list them in a checkout: page
/// paths ([`is_page_path`], at most [`MAX_DEPTH`] directories below their page directory) in
/// scan order (page directories in [`PageKind::ALL`] order, then each directory's entries by
/// name, depth first), and the problems such a scan reports ([`tree_problems`]).
pub fn pages_at(
    store: &wiki_store::Store,
    rev: &str,
    under: &str,
) -> Result<TreePages, wiki_store::Error> {
    let listing = store.list_tree(rev, under)?;
    let mut out = TreePages {
        problems: tree_problems(&listing),
        pages: listing
            .files
            .into_iter()
            .filter(|(p, _)| is_scanned_page_path(p))
            .collect(),
    };
    out.pages.sort_by(|(a, _), (b, _)| scan_order(a, b));
    Ok(out)
}

/// The problems [`scan`] would report in a checkout of a listed tree, in scan order: symbolic
/// links in place of a page directory or named like a page ([`tree_link_problem`]), and
/// entries of the page directories whose name is not UTF-8.
pub fn tree_problems(listing: &wiki_store::Listing) -> Vec<PageError> {
    let mut problems: Vec<PageError> = listing
        .links
        .iter()
        .cloned()
        .filter_map(tree_link_problem)
        .collect();
    problems.extend(listing.not_utf8.iter().filter_map(|path| {
        let (parent, _) = path.rsplit_once('/')?;
        (PageKind::from_path(path).is_some() && visible(parent) && within_scan_depth(path)).then(
            || PageError {
                path: path.clone(),
                line: 1,
                message: NOT_UTF8.into(),
            },
        )
    }));
    problems.sort_by(|a, b| scan_order(&a.path, &b.path));
    problems
}

/// Read and parse the pages of the vault at git revision `rev` ([`pages_at`],
/// [`TreePages::parse`]), as [`read_vault`] reads a checkout.
pub fn read_vault_at(
    store: &wiki_store::Store,
    rev: &str,
) -> Result<VaultPages, wiki_store::Error> {
    Ok(split_results(pages_at(store, rev, "")?.parse(store)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stat data through directory descriptors is the stat data of the path, for pages in more
    /// directories than are held open, a symbolic link (not followed) and a page gone since
    /// the listing.
    #[cfg(unix)]
    #[test]
    fn statter_gives_the_stat_data_of_each_path() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        for i in 0..PageStatter::MAX_DIRS + 6 {
            let sub = vault.join(format!("entities/d{i:03}"));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join("p.md"), format!("# P{i}\n")).unwrap();
        }
        std::fs::write(vault.join("entities/top.md"), "# Top\n").unwrap();
        std::os::unix::fs::symlink("top.md", vault.join("entities/link.md")).unwrap();
        let files = scan(vault).unwrap();
        let statter = PageStatter::new(&files);
        assert_eq!(statter.dirs.len(), PageStatter::MAX_DIRS);
        assert_eq!(files.len(), PageStatter::MAX_DIRS + 8);
        for f in &files {
            let meta = std::fs::symlink_metadata(&f.abs).unwrap();
            let (len, stat) = statter.stat(f).unwrap();
            assert_eq!(len, meta.len(), "{}", f.path);
            assert_eq!(stat, crate::pagecache::FileStat::of(&meta), "{}", f.path);
        }
        let link = files.iter().find(|f| f.path == "entities/link.md").unwrap();
        assert_eq!(statter.stat(link).unwrap().0, "top.md".len() as u64);
        std::fs::remove_file(vault.join("entities/top.md")).unwrap();
        let top = files.iter().find(|f| f.path == "entities/top.md").unwrap();
        let gone = statter.stat(top).unwrap_err();
        assert_eq!(gone.kind(), std::io::ErrorKind::NotFound);
    }

    /// `scan_stat` lists what `scan` lists, in the same order (nested and deep directories,
    /// hidden entries, `index.md`, symbolic links to pages and to directories, names that are
    /// not UTF-8, files that are not pages), with each page's stat data.
    #[cfg(unix)]
    #[test]
    fn scan_stat_lists_what_scan_lists_with_stat_data() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        let write = |rel: &str| {
            let p = vault.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, format!("# {rel}\n")).unwrap();
        };
        for i in 0..300 {
            write(&format!("entities/e{:03}.md", (i * 7919) % 1000));
        }
        for rel in [
            "concepts/a/b/c.md",
            "concepts/a/index.md",
            "concepts/a.md",
            "concepts/z.txt",
            "concepts/.hidden.md",
            "concepts/.dir/x.md",
            "sources/s.md",
            "syntheses/deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/x.md",
            "reports/r.md",
        ] {
            write(rel);
        }
        std::os::unix::fs::symlink("a.md", vault.join("concepts/link.md")).unwrap();
        std::os::unix::fs::symlink("a", vault.join("concepts/dirlink")).unwrap();
        for name in [
            b"bad\xff.md".as_slice(),
            b"bad\xfe-10.md",
            b"bad\xfe-7.md",
            b"bad\xff-8",
            b"c\xff.md",
        ] {
            std::fs::write(
                vault
                    .join("concepts")
                    .join(std::ffi::OsStr::from_bytes(name)),
                "# Bad\n",
            )
            .unwrap();
        }
        let listed = scan(vault).unwrap();
        let stated = scan_stat(vault).unwrap();
        // Every entry in name order (names that are not UTF-8 in their U+FFFD form, equal
        // forms by bytes), not in the directory's order.
        let concepts: Vec<&str> = listed
            .iter()
            .map(|f| f.path.as_str())
            .filter(|p| p.starts_with("concepts/"))
            .collect();
        assert_eq!(
            concepts,
            [
                "concepts/a/b/c.md",
                "concepts/a.md",
                "concepts/bad\u{fffd}-10.md",
                "concepts/bad\u{fffd}-7.md",
                "concepts/bad\u{fffd}-8",
                "concepts/bad\u{fffd}.md",
                "concepts/c\u{fffd}.md",
                "concepts/link.md",
            ]
        );
        assert_eq!(
            stated.iter().map(|s| &s.file).collect::<Vec<_>>(),
            listed.iter().collect::<Vec<_>>()
        );
        assert!(listed.len() > 300);
        for s in &stated {
            match &s.file.problem {
                Some(_) => assert!(s.stat.is_none(), "{}", s.file.path),
                None => {
                    let meta = std::fs::symlink_metadata(&s.file.abs).unwrap();
                    let (len, stat) = s.stat.as_ref().unwrap().as_ref().unwrap();
                    assert_eq!(*len, meta.len(), "{}", s.file.path);
                    assert_eq!(
                        *stat,
                        crate::pagecache::FileStat::of(&meta),
                        "{}",
                        s.file.path
                    );
                }
            }
        }
        assert!(
            stated
                .iter()
                .any(|s| s.file.path == "concepts/link.md" && s.file.problem.is_some())
        );
        assert!(
            stated
                .iter()
                .any(|s| s.file.path.starts_with("concepts/bad") && s.file.problem.is_some())
        );
        assert!(!stated.iter().any(|s| s.file.path.contains("/17/")));
        // A vault that is not a directory, or missing: the same errors.
        assert!(matches!(
            scan_stat(&vault.join("concepts/a.md")),
            Err(VaultError::NotADirectory(_))
        ));
        assert!(matches!(
            scan_stat(&vault.join("nope")),
            Err(VaultError::Missing(_))
        ));
    }
}
