//! # wiki-lint — lint checks, `reports/lint.md`, `--staged`, hooks
//!
//! * [`check`] — the checks: a pure function over parsed pages ([`wiki_parse::PageInfo`]), the
//!   pages that failed to parse, and a clock. The vault, `wiki-parse` records on stdin and the
//!   git index ([`staged`]) all feed it.
//! * [`diagnostic`] — codes, severities, categories, the JSON Lines records.
//! * [`report`] — `reports/lint.md` exactly as the original plugin writes it.
//! * [`output`] — JSON Lines, text and GitHub annotation printers.
//! * [`staged`] — reading the staged pages from the git index (read-only).
//! * [`hooks`] — the pre-commit hook.
//! * [`cmd`] — the commands: `wiki-lint` (plumbing), `wiki lint` (porcelain) and `wiki hooks`.

use std::path::{Path, PathBuf};

use wiki_cli::{CliError, GlobalArgs};

pub mod check;
pub mod cmd;
pub mod diagnostic;
pub mod hooks;
pub mod output;
pub mod report;
pub mod staged;

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "lint",
            "Compile, lint, write reports/lint.md and commit; CI exit codes",
            cmd::lint::Args,
            cmd::lint::run
        ),
        wiki_cli::subcommand!(
            "hooks",
            "Install git hooks that lint staged wiki pages",
            cmd::hooks::Args,
            cmd::hooks::run
        ),
    ]
}

/// The nearest ancestor of `dir` (itself included) that holds `.git` (a work-tree top level).
pub fn repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The vault's path inside its git work tree with a trailing `/` (empty when the vault is the
/// top level or not in a repository): what GitHub annotations prepend to vault paths.
pub fn repo_prefix(vault: &Path) -> String {
    let vault = std::fs::canonicalize(vault).unwrap_or_else(|_| vault.to_path_buf());
    let Some(root) = repo_root(&vault) else {
        return String::new();
    };
    match vault.strip_prefix(&root) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            format!("{}/", rel.to_string_lossy().replace('\\', "/"))
        }
        _ => String::new(),
    }
}

/// The vault for commands that work on a git repository (`--staged`, `wiki hooks`): `--vault`,
/// `$WIKI_VAULT`, the enclosing vault of the current directory, else the top level of the
/// repository holding the current directory.
pub fn repo_vault(global: &GlobalArgs) -> Result<PathBuf, CliError> {
    let explicit =
        global.vault.is_some() || std::env::var_os("WIKI_VAULT").is_some_and(|v| !v.is_empty());
    if explicit {
        return global.vault_dir();
    }
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Runtime(format!("cannot read the current directory: {e}")))?;
    if let Some(v) = wiki_cli::enclosing_vault(&cwd) {
        return Ok(v);
    }
    repo_root(&cwd).ok_or_else(|| {
        CliError::Runtime(format!(
            "{}: not inside a git repository and no vault given (use --vault)",
            cwd.display()
        ))
    })
}
