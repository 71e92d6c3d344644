//! # wiki-search — search and get
//!
//! `wiki search <query>` / `wiki-search <query>`, `wiki get <lookup>` and `wiki index`, compatible
//! with the original plugin's interface (reference §7, §8) but with a real retrieval core: an
//! incremental, blob-keyed index sidecar and BM25F ranking with the plugin's structural signals on
//! top. No query scans every page.
//!
//! ## Modules
//! * [`tokenize`] — Unicode folding, identifiers whole and by parts, CJK bigrams, Snowball
//!   English stems beside exact forms;
//! * [`doc`] — what is indexed per field and stored per page or memory chunk;
//! * [`segment`], [`store`] — the index sidecar (format, incremental refresh, concurrency);
//! * [`sources`] — work tree, agent branch (git, no checkout), memory workspace;
//! * [`rank`] — BM25F + structural signals; [`reference`](mod@reference) — the original §7.4 scoring
//!   (`--ranking reference`), kept as a baseline;
//! * [`memory`] — the memory corpus: chunks, decay, importance, MMR;
//! * [`get`] — `wiki get`;
//! * [`resident`] — indexes kept in memory between the requests of a long-running process
//!   (`wiki mcp`), each request still seeing the pages as they are;
//! * [`live`], [`watch`] — a work-tree index kept current by file events (inotify) rather than
//!   by listing every page for each request;
//! * [`server`] — the optional per-vault search server (Linux, inotify) and its client;
//! * [`cmd`] — the `search`, `get` and `index` commands.
//!
//! ## Ranking (default, `--ranking bm25f`)
//!
//! **Retrieval.** The query is tokenised like the pages ([`tokenize`]): English words are looked
//! up by their Snowball stem (`extracting` finds `extract`, `containers` finds `container`), and a
//! word whose stem differs from it also by its exact form, whose idf counts half
//! ([`rank::EXACT_FACTOR`]), so a page using the word as written ranks above one sharing only its
//! stem. Each page is indexed in
//! seven fields *f* with weights *w_f* and length normalisation *b_f* ([`rank::WEIGHTS`],
//! [`rank::B`]): title (3.0, 0.5), ids — page id, canonical ids, aliases, handles, e-mails,
//! socials — (3.0, 0.5), path (1.0, 0.5), claims — texts and ids — (2.0, 0.6), routing fields
//! (1.5, 0.5), other metadata (1.0, 0.6) and body (1.0, 0.75). For every query term *t* and page
//! *d*:
//!
//! ```text
//! tf̃(t,d)  = Σ_f w_f · tf_f(t,d) / (1 − b_f + b_f · len_f(d) / avglen_f)
//! idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))          (N, df over live pages)
//! bm25f(d) = Σ_t idf(t) · tf̃(t,d) / (k1 + tf̃(t,d)),  k1 = 2.0
//! ```
//!
//! Stop words ([`tokenize::STOP_WORDS`], question words included: *how*, *what*, *which*…) are
//! ignored when the query has other terms. In
//! `find-person` mode the weights are title 3, ids 5, path 1, claims 1, route 4, meta 1, body 0.5
//! ([`rank::WEIGHTS_PERSON`]); in `route-question` mode title 2, ids 2, path 0.5, claims 1.5,
//! route 5, meta 1, body 0.75 ([`rank::WEIGHTS_ROUTE`]).
//!
//! *Coverage units* are the query's words and CJK terms that are not stop words (whole
//! identifiers such as `claim.alpha.db` and exact forms add score but are not units). A page is a
//! hit when it contains at least one unit: a person describing a page uses many words the page
//! does not have, and coverage below orders the pages. Its relevance is
//! `rel(d) = bm25f(d) · (0.5 + 0.5 · cov(d))`, where `cov` is the idf-weighted fraction of units
//! it contains, and `R(d) = 100 · rel(d) / max rel` (the best page has 100).
//!
//! **Structural signals** are then computed for the best `max(50, 5 × maxResults)` pages
//! (pre-sorted by relevance × a mode prior of 1.5 for person pages in `find-person` /
//! `route-question`, source pages in `source-evidence`, pages with claims in `raw-claim`, and 0.5
//! for reports) from their stored metadata. In points, like the reference (§7.4):
//!
//! * name: the folded title or file stem is one of the query's words, or a run of them (`tar` in
//!   "how do I extract a tar archive") +15 ([`rank::NAME_POINTS`]);
//! * phrase: folded title equal to the folded query +30, containing it +15; page id, canonical id
//!   or an alias equal to it +20, containing it +10; body containing a multi-term query as a phrase
//!   +30 (+1 per further occurrence, at most +5), else a routing field, question or contradiction
//!   note containing it +30 ([`rank::PHRASE_BODY`]);
//! * claims: a claim *matches* when its text and id contain at least half of the units (or the
//!   phrase); its score is `20 · coverage + round(10 · confidence) + freshness (fresh +8, aging +4,
//!   stale −2, unknown −4) + status (supported +4, contested/contradicted/refuted/superseded −6)`.
//!   The best matching claim's score is added, plus `min(6, 2 · (matching claims − 1))`; that
//!   claim drives the snippet and the `matchedClaim*` / `evidence*` fields;
//! * modes: `find-person` +24 for person-like pages (else −4) and +24 when an identity field
//!   (canonical ids, aliases, handles, e-mails, socials) contains the phrase or all units;
//!   `route-question` +14 for person-like pages, `32 × coverage` of the routing fields, and
//!   `min(8, 2 × relationships)`; `source-evidence` +22 for source pages and +30 when the source
//!   path, source ids or claim evidence contain the phrase or all units; `raw-claim`
//!   `42 × coverage` of the best matching claim.
//!
//! `score(d) = (R(d) + points(d)) · (0.5 if d is a report page else 1)`, rounded to two decimals;
//! ties are broken by title, then path. Report pages (dashboards) repeat the content of other
//! pages, so they rank below content pages with the same evidence.
//!
//! Snippet: the best matching claim's text; else the first body line containing the phrase or
//! all units; else the body line with the most units; else the first body line with text
//! (frontmatter, the Related block and marker lines excluded); at most 700 characters.
//!
//! ## Reference ranking (`--ranking reference`)
//! The original §7.4 integer scoring, exactly, with its substring gates and boosts; it reads
//! every stored page (see [`reference`](mod@reference)). It exists to measure the new ranking against.
//!
//! ## Corpora
//! `--corpus wiki` (default), `memory` or `all` ([`memory`] describes the memory ranking, its
//! `minScore` cut-off — `--min-score`, else the OpenClaw config's `memorySearch.query.minScore`,
//! else 0.35 — and the `citation` of memory hits, `<path>#L<start>-L<end>`). With `all` and hits
//! in both, the top `ceil(max/2)` of each are taken first, the rest is filled from the leftovers
//! by score, and the selection is sorted by score (§7.6).

pub mod cmd;
pub mod codec;
pub mod doc;
pub mod embed;
pub mod get;
pub mod live;
pub mod memory;
pub mod rank;
pub mod reference;
pub mod resident;
pub mod segment;
pub mod server;
pub mod sources;
pub mod store;
pub mod tokenize;
pub mod watch;

use std::path::{Path, PathBuf};

pub use rank::{Hit, Mode, Query, Ranking};
pub use store::{Index, RefreshReport};

/// Errors of the search library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// File-system failure.
    #[error("{path}: {1}", path = .0.display())]
    Io(PathBuf, std::io::Error),
    /// The vault cannot be read.
    #[error("{0}")]
    Vault(wiki_vault::VaultError),
    /// Git failure (agent branches).
    #[error("{0}")]
    Git(String),
    /// The index is corrupt (detected while querying).
    #[error("{path}: corrupt index: {1}", path = .0.display())]
    Corrupt(PathBuf, String),
    /// The index kept changing under us.
    #[error("{path}: index is being rewritten by other processes; try again", path = .0.display())]
    Busy(PathBuf),
    /// A named embedding provider failed: memory search is unavailable.
    #[error(
        "memory search is unavailable: {0} (fix memorySearch.provider/model/remote in the OpenClaw config, or set provider: \"none\" for keyword-only search)"
    )]
    Unavailable(String),
}

/// Which corpora to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Corpus {
    /// Wiki pages only.
    #[default]
    Wiki,
    /// Memory files only.
    Memory,
    /// Both, balanced.
    All,
}

/// Where the wiki pages are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    /// The vault's work tree.
    WorkTree,
    /// Agent `id`'s branch `agents/<id>`, read from git at `rev` (its tip, or `HEAD` while the
    /// branch does not exist: it will start there).
    Agent {
        /// The agent id.
        id: String,
        /// The commit read (its id).
        rev: String,
    },
}

/// The index root of a vault: `<vault>/.openclaw-wiki/index`.
pub fn index_root(vault: &Path) -> PathBuf {
    wiki_vault::index_dir::root(vault)
}

/// The index directory of a view ([`wiki_vault::index_dir`]).
pub fn wiki_index_dir(vault: &Path, view: &View) -> PathBuf {
    match view {
        View::WorkTree => wiki_vault::index_dir::worktree(vault),
        View::Agent { id, .. } => wiki_vault::index_dir::agent(vault, id),
    }
}

/// The index directory of a memory workspace (inside the vault's index root).
pub fn memory_index_dir(vault: &Path, memory_dir: &Path) -> PathBuf {
    let abs = std::fs::canonicalize(memory_dir).unwrap_or_else(|_| memory_dir.to_path_buf());
    let key = codec::checksum(abs.to_string_lossy().as_bytes());
    index_root(vault).join(format!("memory-{key:016x}"))
}

/// The view for `agent`: the work tree when no agent is given or when `agents/<id>` is the
/// checked-out branch, else what the agent reads from git
/// ([`wiki_store::Store::agent_branch`]).
pub fn resolve_view(vault: &Path, agent: Option<&str>) -> Result<View, Error> {
    let Some(id) = agent else {
        return Ok(View::WorkTree);
    };
    let store = wiki_store::Store::open(vault).map_err(|e| Error::Git(e.to_string()))?;
    let branch = store
        .agent_branch(id)
        .map_err(|e| Error::Git(e.to_string()))?;
    Ok(match branch.rev() {
        None => View::WorkTree,
        // Resolved once (`HEAD` too): the listing and every read see the same commit.
        Some(rev) => View::Agent {
            id: id.to_string(),
            rev: store
                .resolve(&rev)
                .map_err(|e| Error::Git(e.to_string()))?
                .to_string(),
        },
    })
}

/// Open (refresh) the wiki index of a view.
pub fn open_wiki(vault: &Path, view: &View, opts: &store::Options) -> Result<Index, Error> {
    let dir = wiki_index_dir(vault, view);
    match view {
        View::WorkTree => store::open(
            &dir,
            &sources::WorkTree {
                vault: vault.to_path_buf(),
            },
            opts,
        ),
        View::Agent { rev, .. } => store::open(
            &dir,
            &sources::GitTree {
                vault: vault.to_path_buf(),
                rev: rev.clone(),
            },
            opts,
        ),
    }
}

/// How current a view's wiki index is, read without writing anything (`wiki status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexState {
    /// No index yet (the first search builds it).
    Missing,
    /// The index covers exactly the pages as they are now.
    Fresh {
        /// Indexed files.
        files: usize,
    },
    /// Some pages changed, appeared or went since the last refresh (the next search refreshes
    /// those).
    Stale {
        /// Indexed files.
        files: usize,
        /// Pages added, changed or removed since.
        changed: usize,
    },
}

/// The [`IndexState`] of a view's wiki index: its manifest against the current listing (stat
/// data for the work tree, blob ids for an agent branch). An unreadable index reads as missing.
pub fn index_state(vault: &Path, view: &View) -> Result<IndexState, Error> {
    let dir = wiki_index_dir(vault, view);
    let manifest = match store::load_manifest(&dir) {
        Some(m) => m,
        None => return Ok(IndexState::Missing),
    };
    let listed = match view {
        View::WorkTree => store::Source::list(&sources::WorkTree {
            vault: vault.to_path_buf(),
        })?,
        View::Agent { rev, .. } => store::Source::list(&sources::GitTree {
            vault: vault.to_path_buf(),
            rev: rev.clone(),
        })?,
    };
    let files = manifest.entries.len();
    let changed = store::changed_files(&manifest, &listed);
    Ok(if changed == 0 {
        IndexState::Fresh { files }
    } else {
        IndexState::Stale { files, changed }
    })
}

/// Open (refresh) the memory index of a workspace.
pub fn open_memory(vault: &Path, memory_dir: &Path, opts: &store::Options) -> Result<Index, Error> {
    store::open(
        &memory_index_dir(vault, memory_dir),
        &sources::MemoryDir {
            dir: memory_dir.to_path_buf(),
        },
        opts,
    )
}

/// Merge wiki and memory hits (§7.6): balanced when both are present with `all`.
pub fn merge(wiki: Vec<Hit>, memory: Vec<Hit>, corpus: Corpus, max: usize) -> Vec<Hit> {
    let mut wiki = wiki;
    let mut memory = memory;
    rank::sort_hits(&mut wiki);
    rank::sort_hits(&mut memory);
    if corpus == Corpus::All && !wiki.is_empty() && !memory.is_empty() {
        let half = max.div_ceil(2);
        let mut selected: Vec<Hit> = Vec::new();
        let wiki_rest = wiki.split_off(half.min(wiki.len()));
        let memory_rest = memory.split_off(half.min(memory.len()));
        selected.extend(wiki);
        selected.extend(memory);
        let mut rest: Vec<Hit> = wiki_rest.into_iter().chain(memory_rest).collect();
        rank::sort_hits(&mut rest);
        let room = max.saturating_sub(selected.len());
        selected.extend(rest.into_iter().take(room));
        rank::sort_hits(&mut selected);
        selected.truncate(max);
        selected
    } else {
        let mut all: Vec<Hit> = wiki.into_iter().chain(memory).collect();
        rank::sort_hits(&mut all);
        all.truncate(max);
        all
    }
}

/// Built-in `wiki` subcommands contributed by this crate: `search`, `get`, `index`.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "search",
            "Search the wiki (and memory) with ranked results",
            cmd::search::Args,
            cmd::search::run
        ),
        wiki_cli::subcommand!(
            "get",
            "Read a page (or memory file) by claim id, path, basename or id",
            cmd::get::Args,
            cmd::get::run
        ),
        wiki_cli::subcommand!(
            "index",
            "Refresh (or rebuild) the search index sidecar",
            cmd::index::Args,
            cmd::index::run
        ),
    ]
}

/// Helpers shared by the unit tests of several modules.
#[cfg(test)]
mod testutil {
    /// Write `text` to `root/rel`, creating its directories.
    pub(crate) fn put(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}
