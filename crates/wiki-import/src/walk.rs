//! Listing the files under a directory the way every importer needs it: recursive, sorted,
//! never following a symbolic link (a link is reported, not entered or read), optionally
//! skipping hidden entries and named directories.

use std::path::{Path, PathBuf};

/// A regular file found by [`walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Path relative to the walked root, `/`-separated.
    pub rel: String,
    /// Absolute path.
    pub abs: PathBuf,
    /// Hard links to the file (`st_nlink`).
    pub links: u64,
}

/// Something [`walk`] did not list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Left {
    /// A symbolic link (never followed).
    Symlink(String),
    /// A directory that could not be read (relative path, `.` for the root).
    Unreadable(String, String),
    /// Neither a regular file, a directory nor a link (socket, device, FIFO).
    Special(String),
}

/// What to skip.
#[derive(Debug, Clone, Default)]
pub struct Options<'a> {
    /// Skip entries whose name starts with `.`.
    pub skip_hidden: bool,
    /// Directory names never entered (`.git`, `node_modules`).
    pub skip_names: &'a [&'a str],
    /// Absolute directories never entered (the vault's own page directories).
    pub skip_dirs: &'a [PathBuf],
}

/// Every regular file under `root` (sorted by relative path, byte order), and what was left out.
pub fn walk(root: &Path, opts: &Options<'_>) -> (Vec<Found>, Vec<Left>) {
    let mut found = Vec::new();
    let mut left = Vec::new();
    walk_dir(root, "", opts, &mut found, &mut left);
    found.sort_by(|a, b| a.rel.cmp(&b.rel));
    (found, left)
}

fn walk_dir(
    dir: &Path,
    rel: &str,
    opts: &Options<'_>,
    found: &mut Vec<Found>,
    left: &mut Vec<Left>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            let name = if rel.is_empty() { "." } else { rel };
            left.push(Left::Unreadable(name.to_string(), e.to_string()));
            return;
        }
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if opts.skip_hidden && name.starts_with('.') {
            continue;
        }
        let child_rel = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let abs = entry.path();
        // `DirEntry::metadata` does not follow symbolic links.
        let Ok(meta) = entry.metadata() else {
            left.push(Left::Unreadable(
                child_rel,
                "cannot read its metadata".into(),
            ));
            continue;
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            left.push(Left::Symlink(child_rel));
        } else if ft.is_dir() {
            if opts.skip_names.contains(&name.as_str()) || opts.skip_dirs.contains(&abs) {
                continue;
            }
            walk_dir(&abs, &child_rel, opts, found, left);
        } else if ft.is_file() {
            found.push(Found {
                rel: child_rel,
                abs,
                links: nlink(&meta),
            });
        } else {
            left.push(Left::Special(child_rel));
        }
    }
}

#[cfg(unix)]
fn nlink(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn nlink(_: &std::fs::Metadata) -> u64 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_sorted_files_and_never_follows_links() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join("b/.hidden")).unwrap();
        std::fs::create_dir_all(root.join("node_modules")).unwrap();
        std::fs::write(root.join("b/z.md"), "z").unwrap();
        std::fs::write(root.join("a.md"), "a").unwrap();
        std::fs::write(root.join(".h.md"), "h").unwrap();
        std::fs::write(root.join("b/.hidden/x.md"), "x").unwrap();
        std::fs::write(root.join("node_modules/n.md"), "n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
        let (found, left) = walk(
            root,
            &Options {
                skip_hidden: true,
                skip_names: &["node_modules"],
                skip_dirs: &[],
            },
        );
        let rels: Vec<&str> = found.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["a.md", "b/z.md"]);
        #[cfg(unix)]
        assert_eq!(left, [Left::Symlink("link".into())]);
    }
}
