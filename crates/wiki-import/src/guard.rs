//! Where an import may write: page paths it computed itself or read from a record are checked
//! before use, so nothing is written (or deleted) outside the vault's page folders, through a
//! symbolic link, or over something that is not a regular file. The messages are the original's
//! (`Refusing to write imported source page …`).

use std::path::Path;

/// Whether `rel` is a plain vault page path under `dir` (`sources`, `concepts`): relative,
/// `/`-separated, no empty, `.` or `..` component, no backslash, ending in `.md`, not a
/// directory index. Paths read from sync state or run records must pass this before being
/// written or deleted.
pub fn is_page_under(rel: &str, dir: &str) -> bool {
    let Some(rest) = rel.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) else {
        return false;
    };
    !rel.contains('\\')
        && !rel.contains('\0')
        && rest.ends_with(".md")
        && rest != "index.md"
        && rest
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Check, in the work tree of `vault`, that writing `rel` stays in the vault: no component is a
/// symbolic link, the parents are directories and `rel` itself is absent or a regular file.
/// `what` names the page in messages (`imported source page`, `OKF concept page`).
pub fn check_writable(vault: &Path, rel: &str, what: &str) -> Result<(), String> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut path = vault.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("Cannot check {what} {rel}: {e}")),
        };
        let last = i + 1 == parts.len();
        if meta.file_type().is_symlink() {
            return Err(if last {
                format!("Refusing to write {what} through symlink: {rel}")
            } else {
                format!("Refusing to write {what} outside vault: {rel}")
            });
        }
        if last && !meta.is_file() {
            return Err(format!("Refusing to write {what} over non-file: {rel}"));
        }
        if !last && !meta.is_dir() {
            return Err(format!("Refusing to write {what} outside vault: {rel}"));
        }
    }
    Ok(())
}

/// `path` made absolute against `cwd` (`~` expanded) and normalised without touching the
/// file system, like Node's `path.resolve` (`/a/b/../c` → `/a/c`; symbolic links are kept).
pub fn absolute(path: &Path, cwd: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let abs = wiki_cli::absolutize(path, cwd);
    let mut out = std::path::PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_normalised() {
        let cwd = Path::new("/work/v");
        assert_eq!(absolute(Path::new("../b/./c"), cwd), Path::new("/work/b/c"));
        assert_eq!(absolute(Path::new("/x/../../y"), cwd), Path::new("/y"));
    }

    #[test]
    fn page_paths() {
        assert!(is_page_under("sources/a.md", "sources"));
        assert!(is_page_under("sources/x/a.md", "sources"));
        for bad in [
            "sources/../a.md",
            "sources/index.md",
            "/sources/a.md",
            "sources//a.md",
            "sources/a.txt",
            "concepts/a.md",
            "sources\\a.md",
            "sources/./a.md",
        ] {
            assert!(!is_page_under(bad, "sources"), "{bad}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_and_non_files_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let v = t.path();
        std::fs::create_dir(v.join("sources")).unwrap();
        std::fs::create_dir(v.join("sources/d.md")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", v.join("sources/l.md")).unwrap();
        std::os::unix::fs::symlink("/tmp", v.join("concepts")).unwrap();
        assert_eq!(
            check_writable(v, "sources/new.md", "imported source page"),
            Ok(())
        );
        assert_eq!(
            check_writable(v, "sources/l.md", "imported source page").unwrap_err(),
            "Refusing to write imported source page through symlink: sources/l.md"
        );
        assert_eq!(
            check_writable(v, "sources/d.md", "imported source page").unwrap_err(),
            "Refusing to write imported source page over non-file: sources/d.md"
        );
        assert_eq!(
            check_writable(v, "concepts/x.md", "OKF concept page").unwrap_err(),
            "Refusing to write OKF concept page outside vault: concepts/x.md"
        );
    }
}
