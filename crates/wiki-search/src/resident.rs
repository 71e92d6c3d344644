//! Indexes kept in memory between the requests of a long-running process (`wiki mcp`).
//!
//! A [`Resident`] answers many searches and lookups from one process. Each request still sees
//! the vault as it is now:
//!
//! * the work tree is a [`LiveTree`]: file events (inotify) say which pages changed since the
//!   last request, and only those are stat-ed and read again; without events (another
//!   platform, a failed watch, a queue overflow, a new directory) the work tree is listed and
//!   every page stat-ed, as a plain search does;
//! * an agent branch (the tree of its tip) and a memory workspace are listed again for every
//!   request, and the index kept from the previous request is used only when that listing
//!   agrees with its manifest exactly (the refresh rule of [`store::open`], racily clean
//!   entries included). Otherwise the index is refreshed with that listing
//!   ([`store::open_listed`]: only the changed files are read again).
//!
//! Either way the stored documents of the segments both indexes share are carried over
//! ([`Index::keep_decoded`]). What a request saves is the manifest load, the segment opens, the
//! decoding of postings and stored documents and, for the work tree, the listing; an edit made
//! by hand (or by another process) between two requests is always seen.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use wiki_cli::{CliError, GlobalArgs};

use crate::cmd::search::{Args, Indexes, run_queries};
use crate::cmd::{Backend, cli_error, corpora, memory_settings, vault_view};
use crate::get::GetResult;
use crate::live::LiveTree;
use crate::rank::{Hit, Mode, Ranking};
use crate::store::{self, Options, Source};
use crate::{Corpus, Error, Index, View, sources};

/// One search, as a long-running process receives it (the flags of `wiki search`).
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query text.
    pub query: String,
    /// Ranking mode.
    pub mode: Mode,
    /// Corpus: wiki, memory or both.
    pub corpus: Corpus,
    /// `local` never reads the memory corpus.
    pub backend: Backend,
    /// At most this many results (at least 1).
    pub max_results: usize,
    /// Ranking function.
    pub ranking: Ranking,
    /// Memory corpus cut-off (`None`: the configured one, see [`memory_min_score`](crate::cmd::memory_min_score)).
    pub min_score: Option<f64>,
}

/// What a wiki lookup found (`wiki get`).
#[derive(Debug)]
pub enum Found {
    /// The page (or memory file) window.
    Page(Box<GetResult>),
    /// The lookup names a page that does not parse.
    Broken(wiki_parse::PageError),
    /// Nothing matches.
    Nothing,
}

/// Indexes kept between requests, by index directory.
#[derive(Default)]
pub struct Resident {
    /// Agent branches and memory workspaces.
    indexes: HashMap<PathBuf, Index>,
    /// Work trees.
    trees: HashMap<PathBuf, LiveTree>,
    program: String,
}

impl Resident {
    /// An empty set; `program` names the process in stderr messages.
    pub fn new(program: &str) -> Resident {
        Resident {
            indexes: HashMap::new(),
            trees: HashMap::new(),
            program: program.to_string(),
        }
    }

    fn options(&self, rebuild: bool) -> Options {
        Options {
            rebuild,
            program: self.program.clone(),
            no_refresh: false,
        }
    }

    /// Bring the index in `dir` of `source` up to date (see the module docs).
    fn refresh(&mut self, dir: &Path, source: &dyn Source, rebuild: bool) -> Result<(), Error> {
        let files = source.list()?;
        if !rebuild
            && let Some(kept) = self.indexes.get(dir)
            && store::is_current(&kept.manifest, &files)
        {
            return Ok(());
        }
        let previous = self.indexes.remove(dir);
        let mut index = store::open_listed(dir, source, &files, &[], &self.options(rebuild))?;
        index.keep_decoded(if rebuild { None } else { previous.as_ref() })?;
        self.indexes.insert(dir.to_path_buf(), index);
        Ok(())
    }

    /// The index kept in `dir`.
    fn index(&self, dir: &Path) -> Option<&Index> {
        match self.trees.get(dir) {
            Some(tree) => tree.index(),
            None => self.indexes.get(dir),
        }
    }

    /// The wiki index of `view`, refreshed; its directory.
    fn wiki(&mut self, vault: &Path, view: &View, rebuild: bool) -> Result<PathBuf, Error> {
        let dir = crate::wiki_index_dir(vault, view);
        match view {
            View::WorkTree => {
                let opts = self.options(rebuild);
                self.trees
                    .entry(dir.clone())
                    .or_insert_with(|| LiveTree::new(vault))
                    .refresh(&opts)?;
            }
            View::Agent { rev, .. } => self.refresh(
                &dir,
                &sources::GitTree {
                    vault: vault.to_path_buf(),
                    rev: rev.clone(),
                },
                rebuild,
            )?,
        }
        Ok(dir)
    }

    /// The memory index of the workspace `memory_dir`, refreshed; its directory.
    fn memory(&mut self, vault: &Path, memory_dir: &Path, rebuild: bool) -> Result<PathBuf, Error> {
        let dir = crate::memory_index_dir(vault, memory_dir);
        self.refresh(
            &dir,
            &sources::MemoryDir {
                dir: memory_dir.to_path_buf(),
            },
            rebuild,
        )?;
        Ok(dir)
    }

    /// Search like `wiki search` with `global`'s vault and agent; `memory_dir` is the memory
    /// workspace (needed when the request reads the memory corpus). A corrupt index is rebuilt
    /// once, as the command does.
    pub fn search(
        &mut self,
        global: &GlobalArgs,
        memory_dir: &Path,
        req: &SearchRequest,
    ) -> Result<Vec<Hit>, CliError> {
        let (vault, view) = vault_view(global)?;
        let (want_wiki, want_memory) = corpora(req.corpus, req.backend);
        // The memory corpus is searched with the configured cut-off and recency, as the CLI does.
        let mem = if want_memory {
            memory_settings(req.min_score, global.agent_id()?.as_deref())?
        } else {
            crate::memory::Settings::default()
        };
        let now_ms = global.now()?.as_millisecond();
        let args = Args {
            mode: req.mode,
            corpus: req.corpus,
            backend: req.backend,
            max_results: req.max_results,
            min_score: req.min_score,
            ranking: req.ranking,
            ..Args::plain(vec![req.query.clone()])
        };
        let attempt = |this: &mut Resident, rebuild: bool| -> Result<Vec<Hit>, Error> {
            let wiki = match want_wiki {
                true => Some(this.wiki(&vault, &view, rebuild)?),
                false => None,
            };
            let memory = match want_memory {
                true => Some(this.memory(&vault, memory_dir, rebuild)?),
                false => None,
            };
            let idx = Indexes {
                wiki: wiki.as_ref().and_then(|d| this.index(d)),
                memory: memory.as_ref().and_then(|d| this.index(d)),
            };
            run_queries(&idx, &args, &req.query, &mem, now_ms)
        };
        match attempt(self, false) {
            Err(Error::Corrupt(dir, why)) => {
                wiki_cli::warn(
                    &self.program,
                    &format!("index {} is corrupt ({why}): rebuilding it", dir.display()),
                );
                attempt(self, true).map_err(cli_error)
            }
            other => other.map_err(cli_error),
        }
    }

    /// Look a page up like `wiki get` (claim id, path, base name or page id) in `global`'s vault
    /// and agent view, returning lines `from..from + lines` of its body.
    pub fn get(
        &mut self,
        global: &GlobalArgs,
        lookup: &str,
        from: usize,
        lines: usize,
    ) -> Result<Found, CliError> {
        let (vault, view) = vault_view(global)?;
        crate::cmd::get::find_wiki(&vault, &view, lookup, from, lines, |vault, view| {
            let dir = self.wiki(vault, view, false).map_err(cli_error)?;
            let index = self
                .index(&dir)
                .ok_or_else(|| CliError::Runtime("search index vanished".into()))?;
            crate::cmd::get::listed(index)
        })
    }
}
