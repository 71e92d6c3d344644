//! The commands: `search` (plumbing `wiki-search` and porcelain `wiki search`), `get`, `index`.

use std::path::{Path, PathBuf};

use wiki_cli::{CliError, GlobalArgs};

use crate::{Corpus, Error, View};

pub mod get;
pub mod index;
pub mod search;

/// The `--backend` flag (reference §7.1): `local` never touches the memory corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Backend {
    /// Wiki plus the memory corpus when `--corpus` asks for it.
    #[default]
    Shared,
    /// Wiki only.
    Local,
}

/// Map a library error to the CLI edge.
pub fn cli_error(e: Error) -> CliError {
    CliError::Runtime(e.to_string())
}

/// The memory workspace: `--memory DIR` (or `$WIKI_MEMORY_DIR`), else
/// `$OPENCLAW_STATE_DIR/workspace`, else `~/.openclaw/workspace`.
pub fn memory_dir(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Runtime(format!("cannot read the current directory: {e}")))?;
    if let Some(dir) = flag {
        return Ok(wiki_cli::absolutize(dir, &cwd));
    }
    let state = std::env::var_os("OPENCLAW_STATE_DIR")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| wiki_cli::home_dir().join(".openclaw"));
    Ok(state.join("workspace"))
}

/// Effective corpora: `(wiki, memory)`.
pub fn corpora(corpus: Corpus, backend: Backend) -> (bool, bool) {
    let wiki = matches!(corpus, Corpus::Wiki | Corpus::All);
    let memory = backend == Backend::Shared && matches!(corpus, Corpus::Memory | Corpus::All);
    (wiki, memory)
}

/// The vault directory and the view of `--agent`.
pub fn vault_view(global: &GlobalArgs) -> Result<(PathBuf, View), CliError> {
    let vault = global.vault_dir()?;
    if !vault.is_dir() {
        return Err(CliError::Runtime(format!(
            "{}: vault directory does not exist",
            vault.display()
        )));
    }
    let agent = global.agent_id()?;
    let view = crate::resolve_view(&vault, agent.as_deref()).map_err(cli_error)?;
    Ok((vault, view))
}
