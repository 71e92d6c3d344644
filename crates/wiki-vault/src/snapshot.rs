//! [`Snapshot`]: an in-memory view of the vault files compile reads and writes.
//!
//! A snapshot holds the bytes of
//!
//! * every page (`entities/ concepts/ sources/ syntheses/ reports/`, recursively, `.md`, not
//!   `index.md`, no hidden path segments — [`crate::is_page_path`]),
//! * the index files (`index.md`, `<dir>/index.md`),
//! * the compiled cache (`.openclaw-wiki/cache/agent-digest.json`, `claims.jsonl`),
//! * `.openclaw-wiki/state.json` (render mode) and `.openclaw-wiki/source-sync.json` (pages managed
//!   by imports),
//!
//! keyed by vault-relative path. It is loaded from the work tree ([`Snapshot::from_worktree`]) or
//! from any git revision through `wiki-store` without touching the work tree
//! ([`Snapshot::from_rev`], used for agent branches), and callers can apply their own edits
//! ([`Snapshot::overlay`]) before compiling, e.g. apply's mutations, so that one commit carries
//! both the edit and the recompiled files.
//!
//! Entries that exist but cannot be read as pages (symbolic links, unreadable files) are kept as
//! [`PageError`]s ([`Snapshot::problems`]) and reported like parse failures.
//!
//! [`Snapshot::from_worktree_cached`] does not read the pages whose stat data the parse cache
//! recorded and still matches ([`ParseCache::trusted_blob`], like git's index): their blob id
//! comes from the cache and their bytes are read only if something asks for them
//! ([`Snapshot::get`]); parsing takes them from the cache without their text (see
//! [`Snapshot::parse_for_compile_cached`]).

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::pagecache::{FileStat, ParseCache};
use crate::{self as vault, VaultPages};
use rayon::prelude::*;
use wiki_parse::layout::{self, RenderMode};
use wiki_parse::{Page, PageError, PageKind};
use wiki_store::{Change, ObjectId, Store};

/// `.openclaw-wiki/source-sync.json`: import sync state (bridge / unsafe-local imports).
pub const SOURCE_SYNC_PATH: &str = ".openclaw-wiki/source-sync.json";

/// Where a snapshot was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Built in memory.
    Memory,
    /// The work tree at this (vault) directory.
    Worktree(PathBuf),
    /// A commit.
    Commit {
        /// The revision as given (`agents/x`, `HEAD`, a hex id …).
        rev: String,
        /// The commit it resolved to.
        id: ObjectId,
    },
}

/// Why a snapshot could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The vault directory cannot be read.
    #[error(transparent)]
    Vault(#[from] vault::VaultError),
    /// A non-page file (index, cache, state) exists but cannot be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Reading from git failed.
    #[error("{0}")]
    Store(String),
}

fn store_err(e: wiki_store::Error) -> SnapshotError {
    SnapshotError::Store(error_chain(&e))
}

/// An error with its sources, `: `-separated.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(src) = cur {
        let text = src.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        cur = src.source();
    }
    s
}

/// Vault files other than pages that compile reads (and partly writes).
pub const EXTRA_PATHS: [&str; 10] = [
    "index.md",
    "sources/index.md",
    "entities/index.md",
    "concepts/index.md",
    "syntheses/index.md",
    "reports/index.md",
    layout::AGENT_DIGEST_PATH,
    layout::CLAIMS_PATH,
    layout::STATE_PATH,
    SOURCE_SYNC_PATH,
];

/// The [`EXTRA_PATHS`] that are regular files of the vault at `vault_dir`, read (in parallel).
/// The derived caches (tens of megabytes on a large vault) are not read here but on first use
/// ([`Content::Derived`]): a compile that the compile cache answers never reads them. Their
/// stat data is kept when settled before `now` (Unix seconds; see
/// [`FileStat::settled`]), for the compile cache to recognise them.
fn read_extra(vault_dir: &Path, now: i64) -> Result<Vec<(&'static str, Content)>, SnapshotError> {
    let read = |rel: &'static str| -> Result<Option<(&'static str, Content)>, SnapshotError> {
        let abs = vault_dir.join(rel);
        match std::fs::symlink_metadata(&abs) {
            // A file larger than its kind can be is stale (compile writes it again), not read.
            Ok(m) if m.is_file() && layout::is_derived(rel) => {
                if m.len() > crate::DERIVED_LIMIT.bytes {
                    return Ok(None);
                }
                let stat = FileStat::of(&m).filter(|st| st.settled(now));
                let file = DerivedFile {
                    abs,
                    stat,
                    bytes: OnceLock::new(),
                };
                Ok(Some((rel, Content::Derived(Arc::new(file)))))
            }
            Ok(m) if m.is_file() => match wiki_cli::read::read_bounded(&abs, crate::PAGE_LIMIT) {
                Ok(bytes) => Ok(Some((rel, Content::bytes(bytes)))),
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Ok(None),
                Err(source) => Err(SnapshotError::Io { path: abs, source }),
            },
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(SnapshotError::Io { path: abs, source }),
        }
    };
    let read: Vec<_> = EXTRA_PATHS.par_iter().map(|rel| read(rel)).collect();
    read.into_iter().filter_map(Result::transpose).collect()
}

/// Whether a vault path is part of a snapshot (a page or one of [`EXTRA_PATHS`]).
pub fn tracks(path: &str) -> bool {
    EXTRA_PATHS.contains(&path) || vault::is_page_path(path)
}

/// The content of a snapshot file.
#[derive(Debug, Clone)]
enum Content {
    /// Bytes in memory or mapped (the derived caches: [`wiki_parse::mapped`]), with their blob
    /// id when it is known (read from disk and hashed). A file read into a `Vec` is kept as it
    /// is: taking its buffer copies nothing.
    Bytes(Arc<Vec<u8>>, Option<Arc<str>>),
    /// A page the parse cache vouches for (its stat data is unchanged): read on first use.
    OnDisk(Arc<OnDisk>),
    /// A file of a commit's tree, with its blob id: read from git on first use (a page whose
    /// parsed form the parse cache holds is not read at all).
    InGit(Arc<InGit>),
    /// A derived cache of the work tree (see [`read_extra`]): read on first use (unreadable or
    /// too large by then: no bytes, as if absent).
    Derived(Arc<DerivedFile>),
}

#[derive(Debug)]
struct DerivedFile {
    abs: PathBuf,
    /// Its stat data at listing, when settled then.
    stat: Option<FileStat>,
    bytes: OnceLock<Option<Vec<u8>>>,
}

#[derive(Debug)]
struct InGit {
    id: ObjectId,
    blob: Arc<str>,
    source: wiki_store::BlobSource,
    bytes: OnceLock<Option<Vec<u8>>>,
}

#[derive(Debug)]
struct OnDisk {
    abs: PathBuf,
    blob: Arc<str>,
    bytes: OnceLock<Option<Vec<u8>>>,
}

impl Content {
    fn bytes(b: impl Into<Vec<u8>>) -> Content {
        Content::Bytes(Arc::new(b.into()), None)
    }

    fn get(&self) -> Option<&[u8]> {
        match self {
            Content::Bytes(b, _) => Some(b),
            Content::OnDisk(d) => d
                .bytes
                .get_or_init(|| wiki_cli::read::read_bounded(&d.abs, crate::PAGE_LIMIT).ok())
                .as_deref(),
            Content::InGit(g) => g.bytes.get_or_init(|| g.source.read(g.id).ok()).as_deref(),
            Content::Derived(d) => d
                .bytes
                .get_or_init(|| wiki_cli::read::read_bounded(&d.abs, crate::DERIVED_LIMIT).ok())
                .as_deref(),
        }
    }

    /// The blob id when known without hashing.
    fn known_blob(&self) -> Option<&str> {
        match self {
            Content::Bytes(_, id) => id.as_deref(),
            Content::OnDisk(d) => Some(&d.blob),
            Content::InGit(g) => Some(&g.blob),
            Content::Derived(_) => None,
        }
    }
}

/// The vault files compile reads and writes, in memory (see the module docs).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Shared byte buffers: cloning a snapshot (to overlay edits) copies no file content.
    files: BTreeMap<String, Content>,
    problems: Vec<PageError>,
    origin: Origin,
    /// Stat data and blob id of the settled page files as read from disk (for the parse cache).
    disk: Arc<HashMap<String, (FileStat, [u8; 20])>>,
    /// The parse cache the snapshot trusted ([`Snapshot::from_worktree_cached`],
    /// [`Snapshot::use_agent_parse_cache`]).
    cache: Option<Arc<ParseCache>>,
    /// The vault and the agent whose branch's parse cache compiles of this snapshot use
    /// (`None`: the checked-out branch's; see [`crate::pagecache::cache_dir`]).
    cache_agent: Option<(PathBuf, String)>,
    /// Derived files put in from the checked-out branch's work tree for an agent's first
    /// compile (`wiki_digest::derived::seed_agent_files`): read for reuse, not the agent's own.
    seeded: Vec<&'static str>,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot::new()
    }
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Snapshot {
        Snapshot {
            files: BTreeMap::new(),
            problems: Vec::new(),
            origin: Origin::Memory,
            disk: Arc::default(),
            cache: None,
            cache_agent: None,
            seeded: Vec::new(),
        }
    }

    /// Read the work tree of the vault at `vault_dir` (pages read in parallel; symbolic links
    /// are never followed).
    pub fn from_worktree(vault_dir: &Path) -> Result<Snapshot, SnapshotError> {
        Snapshot::read_worktree(vault_dir, || None, None)
    }

    /// [`Snapshot::from_worktree`] with the vault's parse cache: pages whose stat data the cache
    /// recorded and still matches are not read (see the module docs). The cache is kept for
    /// the compile ([`Snapshot::parse_cache`]).
    pub fn from_worktree_cached(vault_dir: &Path) -> Result<Snapshot, SnapshotError> {
        Snapshot::from_worktree_cached_with(vault_dir, None)
    }

    /// [`Snapshot::from_worktree_cached`] where `store` (the vault's) gives the blob ids of the
    /// files it reads when the git index vouches for them ([`wiki_store::IndexBlobs`]): the
    /// dashboards the last operation rewrote (megabytes) and the pages of a first compile are
    /// then not hashed to find their parse-cache entries.
    pub fn from_worktree_cached_with(
        vault_dir: &Path,
        store: Option<&wiki_store::Store>,
    ) -> Result<Snapshot, SnapshotError> {
        let cache = || Some(Arc::new(ParseCache::load(vault_dir)));
        Snapshot::read_worktree(vault_dir, cache, store)
    }

    /// Read the work tree; `cache` loads the parse cache (alongside the directory scan and the
    /// reading of the other files, which do not need it).
    fn read_worktree(
        vault_dir: &Path,
        cache: impl FnOnce() -> Option<Arc<ParseCache>> + Send,
        store: Option<&wiki_store::Store>,
    ) -> Result<Snapshot, SnapshotError> {
        // Stat data is recorded only for files whose times are settled before this instant.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let started = std::time::Instant::now();
        let (cache, (page_files, extra)) = rayon::join(cache, || {
            rayon::join(
                || vault::scan_stat(vault_dir),
                || read_extra(vault_dir, now),
            )
        });
        let listed = started.elapsed();
        let page_files = page_files?;
        let index = store.and_then(wiki_store::Store::index_blobs);
        let indexed_count = std::sync::atomic::AtomicUsize::new(0);
        // With the index, a page is read from an open file whose stat data (taken after the
        // read: a write during it shows) the index may vouch for: the same system calls as
        // `std::fs::read`, and a lookup instead of hashing the bytes.
        let read_page = |f: &crate::PageFile| match index.as_ref() {
            Some(index) => {
                let file = std::fs::File::open(&f.abs)?;
                let bytes = wiki_cli::read::read_open(file.try_clone()?, crate::PAGE_LIMIT)?;
                let id = index.blob_id(&f.path, &file).map(|id| id.to_string());
                if id.is_some() {
                    indexed_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                Ok::<_, std::io::Error>((bytes, id))
            }
            None => Ok((
                wiki_cli::read::read_bounded(&f.abs, crate::PAGE_LIMIT)?,
                None,
            )),
        };
        type Read = (String, Content, Option<(FileStat, [u8; 20])>);
        // Each listed file moves into its entry (its paths are not copied); its stat data came
        // with the listing.
        let results: Vec<Result<Read, PageError>> = page_files
            .into_par_iter()
            .map(|vault::StatedFile { file: f, stat }| {
                let err = |message: String| PageError {
                    path: f.path.clone(),
                    line: 1,
                    message,
                };
                if let Some(problem) = &f.problem {
                    return Err(err(problem.clone()));
                }
                let (len, stat) = stat
                    .unwrap_or_else(|| Err(std::io::Error::other("not statted")))
                    .map_err(|e| err(format!("cannot read: {e}")))?;
                if len as usize > wiki_parse::page::MAX_PAGE_BYTES {
                    return Err(err(format!(
                        "file is too large to be a page ({len} bytes; the limit is {} bytes)",
                        wiki_parse::page::MAX_PAGE_BYTES
                    )));
                }
                let stat = stat.filter(|st| st.settled(now));
                if let (Some(st), Some(cache)) = (&stat, &cache)
                    && let Some((blob, raw)) = cache.trusted_blob(&f.path, st)
                {
                    let content = Content::OnDisk(Arc::new(OnDisk {
                        abs: f.abs,
                        blob,
                        bytes: OnceLock::new(),
                    }));
                    return Ok((f.path, content, Some((*st, raw))));
                }
                let (bytes, indexed) =
                    read_page(&f).map_err(|e| err(format!("cannot read: {e}")))?;
                // Settled pages the parse cache can hold (not reports) are hashed now (the parse
                // reuses the id) so that the cache can record their stat data with the blob id
                // of exactly these bytes.
                match stat.filter(|_| PageKind::from_path(&f.path) != Some(PageKind::Report)) {
                    Some(st) => {
                        let blob = indexed.unwrap_or_else(|| wiki_parse::page::git_blob_id(&bytes));
                        let raw = crate::pagecache::hex_to_raw(&blob);
                        let content = Content::Bytes(Arc::new(bytes), Some(Arc::from(blob)));
                        Ok((f.path, content, raw.map(|r| (st, r))))
                    }
                    None => {
                        let content = Content::Bytes(Arc::new(bytes), indexed.map(Arc::from));
                        Ok((f.path, content, None))
                    }
                }
            })
            .collect();
        let statted = started.elapsed();
        let mut snap = Snapshot {
            files: BTreeMap::new(),
            problems: Vec::new(),
            origin: Origin::Worktree(vault_dir.to_path_buf()),
            disk: Arc::default(),
            cache,
            cache_agent: None,
            seeded: Vec::new(),
        };
        let mut disk = HashMap::with_capacity(results.len());
        let mut files = Vec::with_capacity(results.len());
        for r in results {
            match r {
                Ok((p, content, stat)) => {
                    if let Some(stat) = stat {
                        disk.insert(p.clone(), stat);
                    }
                    files.push((p, content));
                }
                Err(e) => snap.problems.push(e),
            }
        }
        // Built in bulk (the listing comes in sorted runs, one per page directory) instead of
        // 10,000 inserts searching the tree.
        snap.files = files.into_iter().collect();
        snap.disk = Arc::new(disk);
        for (rel, content) in extra? {
            snap.files.insert(rel.to_string(), content);
        }
        if wiki_cli::env_flag("WIKI_COMPILE_TRACE") {
            let trusted = snap
                .files
                .values()
                .filter(|c| matches!(c, Content::OnDisk(_)))
                .count();
            let pages = snap.page_paths().count();
            wiki_cli::warn(
                "trace",
                &format!(
                    "snapshot: {pages} pages ({trusted} vouched for by the parse cache, {} settled, {} blob ids from the git index), {} other files; cache, listing with stat data and other files {:.1} ms, then the rest {:.1} ms (assembled in {:.1} ms)",
                    snap.disk.len(),
                    indexed_count.into_inner(),
                    snap.files.len() - pages,
                    listed.as_secs_f64() * 1e3,
                    (started.elapsed() - listed).as_secs_f64() * 1e3,
                    (started.elapsed() - statted).as_secs_f64() * 1e3,
                ),
            );
        }
        Ok(snap)
    }

    /// Read the given files now, in parallel, if they were left on disk (a caller about to look
    /// at many of them; [`Snapshot::get`] would read them one at a time).
    pub fn prefetch(&self, paths: &[String]) {
        paths.par_iter().for_each(|p| {
            if let Some(c @ (Content::OnDisk(_) | Content::InGit(_))) = self.files.get(p) {
                c.get();
            }
        });
    }

    /// For each of `paths`, when the parse cache holds the page's version
    /// ([`Snapshot::ask_cache`]): whether its page id is `id` ([`ParseCache::entry_has_id`]);
    /// `None` for the others. In parallel.
    pub fn cached_pages_have_id(&self, paths: &[String], id: &str) -> Vec<Option<bool>> {
        self.ask_cache(paths, |cache, p, blob| cache.entry_has_id(p, blob, id))
    }

    /// For each of `paths` ([`ParseCache::entry_may_have_claim`]): `Some(false)` when the parse
    /// cache holds the page's version ([`Snapshot::ask_cache`]) and it has no claim with id
    /// `claim_id`; `None` when unknown. In parallel, with one searcher.
    pub fn cached_pages_may_have_claim(
        &self,
        paths: &[String],
        claim_id: &str,
    ) -> Vec<Option<bool>> {
        let finder = memchr::memmem::Finder::new(claim_id);
        self.ask_cache(paths, |cache, p, blob| {
            cache.entry_may_have_claim(p, blob, &finder)
        })
    }

    /// `ask(cache, path, blob id)` for each of `paths` whose blob id is known (left on disk and
    /// vouched for by the parse cache, or read and hashed or vouched for by the git index);
    /// `None` for the others (a page changed in memory, or no cache), in parallel.
    fn ask_cache(
        &self,
        paths: &[String],
        ask: impl Fn(&ParseCache, &str, &str) -> Option<bool> + Sync,
    ) -> Vec<Option<bool>> {
        let Some(cache) = self.cache.as_deref() else {
            return vec![None; paths.len()];
        };
        // The blob id of each path: sorted paths (the usual case: every page) are matched
        // against the sorted files in one walk instead of a lookup each.
        let blobs: Vec<Option<&str>> = if paths.is_sorted() {
            let mut files = self.files.iter().peekable();
            paths
                .iter()
                .map(|p| {
                    while files.next_if(|(k, _)| k.as_str() < p.as_str()).is_some() {}
                    files
                        .peek()
                        .filter(|(k, _)| *k == p)
                        .and_then(|(_, c)| c.known_blob())
                })
                .collect()
        } else {
            paths
                .iter()
                .map(|p| self.files.get(p).and_then(Content::known_blob))
                .collect()
        };
        paths
            .par_iter()
            .zip(blobs)
            .map(|(p, blob)| ask(cache, p, blob?))
            .collect()
    }

    /// The parse cache [`Snapshot::from_worktree_cached`] loaded, if any.
    pub fn parse_cache(&self) -> Option<&Arc<ParseCache>> {
        self.cache.as_ref()
    }

    /// For a snapshot of agent `agent`'s branch ([`Snapshot::from_rev`]): compiles use that
    /// branch's parse cache ([`ParseCache::load_for`], [`crate::pagecache::cache_dir`]),
    /// and with `trust` the snapshot loads it now, so that the pages it holds are never read
    /// from git (their parsed form is the cache's, keyed by blob id).
    pub fn use_agent_parse_cache(&mut self, vault_dir: &Path, agent: &str, trust: bool) {
        self.cache_agent = Some((vault_dir.to_path_buf(), agent.to_string()));
        if trust {
            self.cache = Some(Arc::new(ParseCache::load_for(vault_dir, Some(agent))));
        }
    }

    /// The agent whose branch's parse cache compiles of this snapshot use (`None`: the
    /// checked-out branch's).
    pub fn parse_cache_agent(&self) -> Option<&str> {
        self.cache_agent.as_ref().map(|(_, agent)| agent.as_str())
    }

    /// The vault whose agent parse cache this snapshot uses ([`Snapshot::use_agent_parse_cache`]).
    pub fn parse_cache_vault(&self) -> Option<&Path> {
        self.cache_agent.as_ref().map(|(vault, _)| vault.as_path())
    }

    /// The stat data to record in the parse cache for the page at `path` whose entry has blob
    /// id `blob`: the stat data read from disk when the file held exactly those bytes and its
    /// times were settled (see [`crate::pagecache`]).
    pub fn settled_stat(&self, path: &str, blob: &[u8; 20]) -> Option<FileStat> {
        self.disk
            .get(path)
            .filter(|(_, b)| b == blob)
            .map(|(st, _)| *st)
    }

    /// What this snapshot of the work tree read of each of `paths` (see
    /// [`wiki_store::CommitRequest::read`]): the blob id of the file (`None`: no file). Empty
    /// for a snapshot of anything but the work tree; paths it does not track, or could not
    /// read, are left out.
    pub fn read_state<'p>(&self, paths: impl Iterator<Item = &'p str>) -> wiki_store::ReadState {
        if !matches!(self.origin, Origin::Worktree(_)) {
            return wiki_store::ReadState::new();
        }
        paths
            .filter(|p| tracks(p) && !self.seeded.iter().any(|s| s == p))
            .filter(|p| !self.problems.iter().any(|e| e.path == *p))
            .map(|p| {
                let id = self.files.get(p).map(|c| match c.known_blob() {
                    Some(id) => id.to_string(),
                    None => wiki_parse::page::git_blob_id(c.get().unwrap_or_default()),
                });
                (p, id)
            })
            .filter_map(|(p, id)| match id {
                None => Some((p.to_string(), None)),
                Some(hex) => ObjectId::from_hex(hex.as_bytes())
                    .ok()
                    .map(|id| (p.to_string(), Some(id))),
            })
            .collect()
    }

    /// The git blob id of every file (from the parse cache or the disk read where known,
    /// else hashed), sorted by path.
    pub fn blob_ids(&self) -> Vec<(&str, String)> {
        self.blob_ids_trusting(|_, _| None)
    }

    /// [`Snapshot::blob_ids`], taking the id of a derived cache with settled stat data
    /// ([`Snapshot::derived_stat`]) from `trusted(path, stat)` when it knows it (a caller that
    /// recorded the id of the file with that stat data), instead of reading and hashing it.
    pub fn blob_ids_trusting(
        &self,
        trusted: impl Fn(&str, &FileStat) -> Option<String> + Sync,
    ) -> Vec<(&str, String)> {
        let files: Vec<(&str, &Content)> =
            self.files.iter().map(|(p, c)| (p.as_str(), c)).collect();
        files
            .par_iter()
            .map(|(p, c)| {
                let known = match c {
                    Content::Derived(d) => d.stat.as_ref().and_then(|st| trusted(p, st)),
                    _ => c.known_blob().map(str::to_string),
                };
                let id = known
                    .unwrap_or_else(|| wiki_parse::page::git_blob_id(c.get().unwrap_or_default()));
                (*p, id)
            })
            .collect()
    }

    /// The stat data of a derived cache of the work tree taken when the snapshot listed it,
    /// when it was settled then (see [`FileStat::settled`]); `None` for any other file.
    pub fn derived_stat(&self, path: &str) -> Option<FileStat> {
        match self.files.get(path)? {
            Content::Derived(d) => d.stat,
            _ => None,
        }
    }

    /// Read the tracked files of the vault at git revision `rev` (a branch such as
    /// `agents/x`, `HEAD`, a commit id …) without checking anything out.
    pub fn from_rev(store: &Store, rev: &str) -> Result<Snapshot, SnapshotError> {
        let id = store.resolve(rev).map_err(store_err)?;
        let hex = id.to_string();
        let listing = store.list_tree(&hex, "").map_err(store_err)?;
        // As a checkout's read: pages too deep to be scanned are not pages, and links or names
        // that are not UTF-8 where a page would be are problems.
        let problems = vault::tree_problems(&listing);
        let (paths, ids): (Vec<String>, Vec<_>) = listing
            .files
            .into_iter()
            .filter(|(p, _)| {
                tracks(p) && (!vault::is_page_path(p) || vault::is_scanned_page_path(p))
            })
            .unzip();
        // Pages are read on first use: a compile with a parse cache reads only those it does
        // not hold. The few other files (indexes, state, compiled caches) are read now, so
        // that one git cannot read stops the command as before.
        let source = store.blob_source();
        type Files = Vec<(String, ObjectId)>;
        let (extra, pages): (Files, Files) = paths
            .into_iter()
            .zip(ids)
            .partition(|(p, _)| EXTRA_PATHS.contains(&p.as_str()));
        let extra_ids: Vec<ObjectId> = extra.iter().map(|(_, id)| *id).collect();
        let extra_bytes = store.read_blobs(&extra_ids).map_err(store_err)?;
        let mut files: BTreeMap<String, Content> = extra
            .into_iter()
            .zip(extra_bytes)
            .map(|((path, _), bytes)| (path, Content::bytes(bytes)))
            .collect();
        files.extend(pages.into_iter().map(|(path, id)| {
            let content = Content::InGit(Arc::new(InGit {
                id,
                blob: Arc::from(id.to_string()),
                source: source.clone(),
                bytes: OnceLock::new(),
            }));
            (path, content)
        }));
        let snap = Snapshot {
            files,
            problems,
            disk: Arc::default(),
            cache: None,
            cache_agent: None,
            seeded: Vec::new(),
            origin: Origin::Commit {
                rev: rev.to_string(),
                id,
            },
        };
        Ok(snap)
    }

    /// Apply changes (writes and deletions) on top of the snapshot. Paths a snapshot does not
    /// track are ignored; a change to a page also clears a read problem recorded for it.
    pub fn overlay(&mut self, changes: &[Change]) {
        for c in changes {
            if !tracks(&c.path) {
                continue;
            }
            self.problems.retain(|p| p.path != c.path);
            // Overlaid content is the snapshot's own.
            self.seeded.retain(|p| *p != c.path);
            match &c.content {
                Some(bytes) => {
                    self.files
                        .insert(c.path.clone(), Content::bytes(bytes.clone()));
                }
                None => {
                    self.files.remove(&c.path);
                }
            }
        }
    }

    /// Put the derived file `path` (see [`layout::is_derived`]) as `vault_dir`'s work tree holds it
    /// into this snapshot (mapped: such files are only ever replaced by a rename), as a seeded
    /// file ([`Snapshot::own`] leaves it out); `false` when it is not a regular file there or
    /// cannot be read.
    pub fn insert_worktree_derived(&mut self, vault_dir: &Path, path: &'static str) -> bool {
        let abs = vault_dir.join(path);
        let bytes = match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.is_file() && layout::is_derived(path) => {
                wiki_cli::read::read_bounded(&abs, crate::DERIVED_LIMIT)
            }
            _ => return false,
        };
        match bytes {
            Ok(bytes) => {
                self.files.insert(path.to_string(), Content::bytes(bytes));
                self.seeded.push(path);
                true
            }
            Err(_) => false,
        }
    }

    /// [`Snapshot::get`], except for the derived files seeded from another branch
    /// ([`Snapshot::insert_worktree_derived`]): what the snapshot's own branch holds, which is
    /// what a compile compares its output with to decide what to write.
    pub fn own(&self, path: &str) -> Option<&[u8]> {
        if self.seeded.contains(&path) {
            return None;
        }
        self.get(path)
    }

    /// The git blob id (hex) of a file when the snapshot knows it without reading or hashing
    /// the file (a page listed from the work tree or a tree, a change with its blob id).
    pub fn known_blob_id(&self, path: &str) -> Option<&str> {
        self.files.get(path).and_then(Content::known_blob)
    }

    /// The bytes of a file, if present.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).and_then(Content::get)
    }

    /// Page paths, sorted.
    pub fn page_paths(&self) -> impl Iterator<Item = &str> {
        self.pages().map(|(p, _)| p)
    }

    /// The pages with their contents, in path order.
    fn pages(&self) -> impl Iterator<Item = (&str, &Content)> {
        self.files
            .iter()
            .map(|(p, c)| (p.as_str(), c))
            .filter(|(p, _)| vault::is_page_path(p))
    }

    /// Page entries that could not be read (reported as page errors).
    pub fn problems(&self) -> &[PageError] {
        &self.problems
    }

    /// Where the snapshot came from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The render mode recorded in `.openclaw-wiki/state.json` (`renderMode`), if any.
    pub fn render_mode(&self) -> Option<RenderMode> {
        let bytes = self.get(layout::STATE_PATH)?;
        let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        RenderMode::parse(v.get("renderMode")?.as_str()?)
    }

    /// Page paths managed by imports (`pagePath` of each entry of
    /// `.openclaw-wiki/source-sync.json`).
    pub fn managed_source_paths(&self) -> std::collections::HashSet<String> {
        let mut out = std::collections::HashSet::new();
        let Some(bytes) = self.get(SOURCE_SYNC_PATH) else {
            return out;
        };
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
            return out;
        };
        if let Some(entries) = v.get("entries").and_then(|e| e.as_object()) {
            for e in entries.values() {
                if let Some(p) = e.get("pagePath").and_then(|p| p.as_str()) {
                    out.insert(p.replace('\\', "/"));
                }
            }
        }
        out
    }

    /// Parse every page (in parallel), in scan order (`sources`, `entities`, `concepts`,
    /// `syntheses`, `reports`, each by path). Read problems come first in `errors`, then parse
    /// failures in scan order.
    pub fn parse(&self) -> VaultPages {
        self.parse_inner(true, None).0
    }

    /// [`Snapshot::parse`] without keeping the raw frontmatter mapping of non-report pages
    /// (compile needs it only for dashboards; the YAML trees are most of a vault's memory),
    /// reusing the pages of `cache` whose path and blob id match
    /// (report pages too: a cached report page has no frontmatter mapping, so a dashboard about
    /// to be rendered is parsed again from its bytes). Also returns the
    /// paths of the non-report pages that were not found in the cache (parsed from their bytes),
    /// and the pages taken from the cache without reading them (their [`Page::text`] is empty
    /// and `body_offset` 0; the map gives their real body offset: see
    /// [`Snapshot::load_text`]).
    ///
    /// Cached pages whose links were not recorded ([`PageInfo::links_omitted`]) are taken as
    /// they are when `links_optional`, else parsed again.
    pub fn parse_for_compile_cached(
        &self,
        cache: &ParseCache,
        links_optional: bool,
    ) -> (VaultPages, HashSet<String>, HashMap<String, usize>) {
        self.parse_inner(false, Some((cache, links_optional)))
    }

    /// Fill in the text of a page [`Snapshot::parse_for_compile_cached`] returned without it
    /// (`body_offset`: the offset it gave). A page that can no longer be read, or no longer
    /// has a body at that offset, keeps an empty text.
    pub fn load_text(&self, page: &mut Page, body_offset: usize) {
        if let Some(text) = self
            .get(&page.path)
            .and_then(|b| std::str::from_utf8(b).ok())
            && text.is_char_boundary(body_offset)
        {
            page.text = text.to_string();
            page.body_offset = body_offset;
        }
    }

    fn parse_inner(
        &self,
        keep_frontmatter: bool,
        cache: Option<(&ParseCache, bool)>,
    ) -> (VaultPages, HashSet<String>, HashMap<String, usize>) {
        // The pages with their contents (taken in the walk, not looked up again per page).
        let mut paths: Vec<(&str, &Content)> = self.pages().collect();
        paths.sort_by_key(|(p, _)| {
            PageKind::from_path(p)
                .and_then(|k| PageKind::ALL.iter().position(|x| *x == k))
                .unwrap_or(0)
        });
        type Parsed = (Result<Page, PageError>, bool, Option<usize>);
        let results: Vec<Parsed> = paths
            .par_iter()
            .map(|&(p, content)| {
                // A page of a commit that cannot be read from git is reported, not taken as
                // empty (the other readers take an unreadable file as missing).
                if let Content::InGit(g) = content
                    && !cache.is_some_and(|(c, _)| c.contains_version(p, &g.blob))
                    && content.get().is_none()
                {
                    let error = PageError {
                        path: p.to_string(),
                        line: 1,
                        message: format!("cannot read blob {} from git", g.id),
                    };
                    return (Err(error), false, None);
                }
                let (parsed, hit, unloaded) = match cache {
                    Some((c, links_optional)) => {
                        let usable = |page: &Page| links_optional || !page.info.links_omitted;
                        // A page the cache vouches for is not read at all.
                        let trusted = match content {
                            Content::OnDisk(_) | Content::InGit(_) => c
                                .page_without_text(p, content.known_blob().unwrap_or_default())
                                .filter(|(page, _)| usable(page)),
                            _ => None,
                        };
                        match trusted {
                            Some((page, offset)) => (Ok(page), true, Some(offset)),
                            None => {
                                let bytes = content.get().unwrap_or_default();
                                let known = content.known_blob();
                                match c.parse_hit_for_compile(p, bytes, known) {
                                    (Ok(page), true) if !usable(&page) => {
                                        (wiki_parse::parse_page(p, bytes), false, None)
                                    }
                                    (parsed, hit) => (parsed, hit, None),
                                }
                            }
                        }
                    }
                    _ => {
                        let bytes = content.get().unwrap_or_default();
                        (wiki_parse::parse_page(p, bytes), false, None)
                    }
                };
                let parsed = parsed.map(|mut page| {
                    if !keep_frontmatter && page.kind != PageKind::Report {
                        page.frontmatter = yaml_serde::Mapping::new();
                    }
                    page
                });
                (parsed, hit, unloaded)
            })
            .collect();
        let mut out = VaultPages::default();
        let mut misses = HashSet::new();
        let mut unloaded = HashMap::with_capacity(results.len());
        out.errors.extend(self.problems.iter().cloned());
        for (r, hit, offset) in &results {
            match r {
                Ok(p) => {
                    if !hit && p.kind != PageKind::Report {
                        misses.insert(p.path.clone());
                    }
                    if let Some(offset) = offset {
                        unloaded.insert(p.path.clone(), *offset);
                    }
                }
                Err(e) => out.errors.push(e.clone()),
            }
        }
        // Collected in place (the pages stay where the parallel parse put them: no second copy
        // of a vault's worth of ~1 KB records to fault in).
        out.pages = results.into_iter().filter_map(|(r, _, _)| r.ok()).collect();
        (out, misses, unloaded)
    }
}
