//! The memory corpus of `wiki-search` (chunks, BM25, recency decay, importance, MMR, path
//! matches): the one ranking of memory files, used by `wiki memory search` and by the lexical
//! part of recall and trigger recall. Nothing here re-ranks.
//!
//! The index is a derived sidecar: in the vault's `.openclaw-wiki/index/memory-<hash>/` when the
//! vault exists, else in the workspace's own `.openclaw-wiki/index/` (like the original's
//! `.memory/` index beside the notes). Deleting it only costs time.

use std::path::{Path, PathBuf};

use wiki_search::{Hit, Index, Mode, store::Options};

use crate::error::Result;
use crate::workspace::Workspace;

/// The memory core's default number of results (reference §14.1).
pub const DEFAULT_MAX_RESULTS: usize = 6;

/// Where the memory index of `ws` lives: `vault` when it is a directory, else the workspace.
pub fn index_home(vault: &Path, ws: &Workspace) -> PathBuf {
    if vault.is_dir() {
        vault.to_path_buf()
    } else {
        ws.root.clone()
    }
}

/// Open the memory index of `ws`, refreshing it incrementally (or rebuilding it with `rebuild`;
/// `no_refresh` uses it as it is when one exists).
pub fn open(home: &Path, ws: &Workspace, rebuild: bool, no_refresh: bool) -> Result<Index> {
    let opts = Options {
        rebuild,
        program: wiki_cli::program_name(),
        no_refresh,
    };
    Ok(wiki_search::open_memory(home, &ws.root, &opts)?)
}

/// The ranked memory hits for `query` (at most `max`, dropping those under `min_score` unless
/// none reaches it).
pub fn search(
    index: &Index,
    query: &str,
    max: usize,
    min_score: f64,
    now_ms: i64,
) -> Result<Vec<Hit>> {
    Ok(wiki_search::memory::search(
        index,
        query,
        Mode::Auto,
        max.max(1),
        min_score,
        now_ms,
    )?)
}

/// The ranked memory hits of `wiki memory search`: [`search`] with the agent's configured
/// settings (`minScore`, recency, the embedding provider of hybrid search); a named provider
/// that fails is an error (memory search unavailable).
pub fn search_configured(
    index: &Index,
    query: &str,
    max: usize,
    min_score: Option<f64>,
    agent: Option<&str>,
    now_ms: i64,
) -> Result<Vec<Hit>> {
    let settings = wiki_search::cmd::memory_settings(min_score, agent)?;
    Ok(wiki_search::memory::search_with(
        index,
        query,
        Mode::Auto,
        max.max(1),
        &settings,
        now_ms,
    )?)
}

/// The configured minimum score (`--min-score`, else `memorySearch.query.minScore`, else 0.35).
pub fn min_score(flag: Option<f64>, agent: Option<&str>) -> Result<f64> {
    Ok(wiki_search::cmd::memory_min_score(flag, agent)?)
}
