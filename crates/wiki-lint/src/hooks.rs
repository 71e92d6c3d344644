//! Git hooks that run `wiki-lint`: `wiki hooks install`.
//!
//! The pre-commit hook is a small POSIX shell script that runs `wiki-lint --staged --format text`
//! on the vault (its path inside the repository is written into the script, relative to the
//! work-tree top level, so the repository can move), and blocks the commit when a finding
//! reaches the deny level (errors by default).
//!
//! * **Where**: `core.hooksPath` when set (relative values are taken from the work-tree top
//!   level, as git does), else the `hooks` directory of the repository's common git directory
//!   (shared by linked work trees).
//! * **Existing hook**: a `pre-commit` that is not ours is renamed to `pre-commit.local` and our
//!   hook runs it first (with the same arguments and stdin); if it fails, the commit is blocked
//!   with its exit status and `wiki-lint` does not run. When both `pre-commit` (not ours) and
//!   `pre-commit.local` exist, installation refuses rather than guess.
//! * **Idempotent**: re-running install rewrites our hook only when its content changes (new
//!   vault path or deny level) and never touches `pre-commit.local`.
//! * **Finding the binary**: `$WIKI_LINT` when set, else `wiki-lint` on `PATH`; when neither
//!   exists the hook fails with a message naming `git commit --no-verify` as the way out.

use std::path::{Path, PathBuf};

use crate::diagnostic::Deny;

/// The line that marks a hook as ours.
pub const MARKER: &str = "# wiki-lint pre-commit hook";
/// The name the previous hook is kept under.
pub const LOCAL_HOOK: &str = "pre-commit.local";
/// The largest existing hook read to tell whether it is this hook (which is a few hundred
/// bytes): a larger or unreadable one is someone else's hook, kept as [`LOCAL_HOOK`] and
/// chained, never read into memory at its claimed size.
pub const HOOK_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new("pre-commit hooks", 1 << 20);

/// Errors of hook installation.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// The vault is not in a git repository.
    #[error("{path}: not inside a git repository: {message}")]
    NoRepository {
        /// The vault directory.
        path: PathBuf,
        /// What gix reported.
        message: String,
    },
    /// Bare repository.
    #[error("{0}: bare repository (hooks need a work tree)")]
    Bare(PathBuf),
    /// The vault is outside the work tree.
    #[error("{vault}: the vault is not inside the work tree {workdir}")]
    OutsideWorkTree {
        /// Vault.
        vault: PathBuf,
        /// Work tree.
        workdir: PathBuf,
    },
    /// Both an unknown `pre-commit` and `pre-commit.local` exist.
    #[error(
        "{hook} is not a wiki-lint hook and {local} already exists: merge them by hand, then run `wiki hooks install` again"
    )]
    BothExist {
        /// The existing hook.
        hook: PathBuf,
        /// The existing local hook.
        local: PathBuf,
    },
    /// Reading configuration or writing files failed.
    #[error("{path}: {message}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> HookError + '_ {
    move |e| HookError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallStatus {
    /// The hook was written.
    Installed,
    /// Our hook was there with other settings and was rewritten.
    Updated,
    /// Our hook was already there as is.
    Unchanged,
}

/// The result of [`install`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct InstallOutcome {
    /// The hook file.
    pub path: PathBuf,
    /// What happened.
    pub status: InstallStatus,
    /// The previous hook, now run first by ours (when there is one).
    pub chained: Option<PathBuf>,
    /// The vault's path inside the repository (empty for the top level).
    pub vault: String,
}

/// Quote a string for a POSIX shell (single quotes).
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The hook script for a vault at `prefix` (relative to the work-tree top level, `/`-separated,
/// empty for the top level).
pub fn script(prefix: &str, deny: Deny) -> String {
    let vault = if prefix.is_empty() {
        "\"$top\"".to_string()
    } else {
        format!("\"$top\"/{}", sh_quote(prefix.trim_end_matches('/')))
    };
    let deny = match deny {
        Deny::Error => "error",
        Deny::Warning => "warning",
    };
    format!(
        r#"#!/bin/sh
{MARKER} (installed by `wiki hooks install`; re-run it to update this file).
# Lints the staged wiki pages and blocks the commit when a finding reaches the deny level.
# A hook that was here before is kept as {LOCAL_HOOK} and runs first.
# Skip once with `git commit --no-verify`.
hook_dir=$(dirname "$0")
if [ -x "$hook_dir/{LOCAL_HOOK}" ]; then
    "$hook_dir/{LOCAL_HOOK}" "$@" || exit $?
fi
top=$(git rev-parse --show-toplevel) || exit 2
wiki_lint=${{WIKI_LINT:-wiki-lint}}
if ! command -v "$wiki_lint" >/dev/null 2>&1; then
    echo "pre-commit: $wiki_lint not found on PATH (install the wiki toolchain or set WIKI_LINT); skip this check with git commit --no-verify" >&2
    exit 1
fi
exec "$wiki_lint" --staged --format text --deny {deny} --vault {vault}
"#
    )
}

fn write_executable(path: &Path, content: &str) -> Result<(), HookError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let tmp = dir.join(".pre-commit.wiki-lint.tmp");
    std::fs::write(&tmp, content).map_err(io_err(&tmp))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Install (or update) the pre-commit hook of the repository holding `vault`.
pub fn install(vault: &Path, deny: Deny) -> Result<InstallOutcome, HookError> {
    use wiki_store::staged::StagedError;
    let (dir, rel) = wiki_store::staged::hooks_dir(vault).map_err(|e| match e {
        StagedError::NoRepository { path, message } => HookError::NoRepository { path, message },
        StagedError::Bare(path) => HookError::Bare(path),
        StagedError::OutsideWorkTree { vault, workdir } => {
            HookError::OutsideWorkTree { vault, workdir }
        }
        StagedError::Git { what, message } => HookError::Io {
            path: PathBuf::from(what),
            message,
        },
    })?;
    let hook = dir.join("pre-commit");
    let local = dir.join(LOCAL_HOOK);
    let content = script(&rel, deny);
    let existing = match std::fs::symlink_metadata(&hook) {
        Ok(_) => Some(wiki_cli::read::read_bounded(&hook, HOOK_LIMIT).unwrap_or_default()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err(&hook)(e)),
    };
    let chained_if_present = || local.exists().then(|| local.clone());
    let status = match existing {
        Some(bytes) if String::from_utf8_lossy(&bytes).contains(MARKER) => {
            if bytes == content.as_bytes() {
                InstallStatus::Unchanged
            } else {
                write_executable(&hook, &content)?;
                InstallStatus::Updated
            }
        }
        Some(_) => {
            if std::fs::symlink_metadata(&local).is_ok() {
                return Err(HookError::BothExist { hook, local });
            }
            std::fs::rename(&hook, &local).map_err(io_err(&hook))?;
            write_executable(&hook, &content)?;
            InstallStatus::Installed
        }
        None => {
            write_executable(&hook, &content)?;
            InstallStatus::Installed
        }
    };
    Ok(InstallOutcome {
        path: hook.clone(),
        status,
        chained: chained_if_present(),
        vault: rel,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
        assert!(script("", Deny::Error).contains("--deny error --vault \"$top\"\n"));
        assert!(
            script("notes/vault", Deny::Warning)
                .contains("--deny warning --vault \"$top\"/'notes/vault'\n")
        );
    }
}
