//! Vault-path validation.

use crate::{Error, Result};

/// Directory (vault-relative) holding the lock file and the crash journal.
pub(crate) const LOCKS_DIR: &str = ".openclaw-wiki/locks";

/// Validate a vault-relative path used for reading or writing a file.
///
/// Rejected: empty paths, absolute paths, backslashes, NUL, empty components (`a//b`, trailing
/// `/`), `.` and `..` components, any `.git` component (case-insensitive), and anything inside
/// the store's own lock directory.
pub(crate) fn validate_file_path(path: &str) -> Result<()> {
    let bad = |reason: &'static str| {
        Err(Error::InvalidPath {
            path: path.to_string(),
            reason,
        })
    };
    if path.is_empty() {
        return bad("empty path");
    }
    validate_components(path)?;
    let lower = path.to_ascii_lowercase();
    if lower == LOCKS_DIR || lower.starts_with(&format!("{LOCKS_DIR}/")) {
        return bad("inside the store's lock directory");
    }
    Ok(())
}

/// Validate a vault-relative directory (`""` = the whole vault; a trailing `/` is allowed).
/// Returns the normalized form without trailing slash.
pub(crate) fn normalize_dir(path: &str) -> Result<String> {
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    if trimmed.is_empty() {
        if path.is_empty() {
            return Ok(String::new());
        }
        return Err(Error::InvalidPath {
            path: path.to_string(),
            reason: "absolute path",
        });
    }
    validate_components(trimmed).map_err(|e| match e {
        Error::InvalidPath { reason, .. } => Error::InvalidPath {
            path: path.to_string(),
            reason,
        },
        other => other,
    })?;
    Ok(trimmed.to_string())
}

fn validate_components(path: &str) -> Result<()> {
    let bad = |reason: &'static str| {
        Err(Error::InvalidPath {
            path: path.to_string(),
            reason,
        })
    };
    if path.starts_with('/') {
        return bad("absolute path");
    }
    if path.contains('\\') {
        return bad("backslash in path (use '/')");
    }
    if path.contains('\0') {
        return bad("NUL byte in path");
    }
    for component in path.split('/') {
        match component {
            "" => return bad("empty path component"),
            "." | ".." => return bad("'.' or '..' component"),
            c if c.eq_ignore_ascii_case(".git") => return bad("'.git' component"),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        for ok in [
            "a.md",
            "entities/a.md",
            ".openclaw-wiki/x.json",
            "a/.gitignore",
        ] {
            assert!(validate_file_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/abs",
            "a/../b",
            "..",
            "./a",
            "a//b",
            "a/",
            ".git/config",
            "x/.GIT/y",
            "a\\b",
            ".openclaw-wiki/locks/write.lock",
        ] {
            assert!(validate_file_path(bad).is_err(), "{bad}");
        }
        assert_eq!(normalize_dir("").expect("ok"), "");
        assert_eq!(normalize_dir("a/b/").expect("ok"), "a/b");
        assert!(normalize_dir("/").is_err());
        assert!(normalize_dir("../x").is_err());
    }
}
