//! The compile step as a pure function: [`compile`]`(&Snapshot, &CompileOptions) -> CompileResult`.
//!
//! No I/O and no clock: the caller passes the snapshot and `now`, and gets back the list of files
//! whose bytes change ([`wiki_store::Change`]s, ready for one commit), the parsed pages after the
//! compile, and the pages that failed to parse. Steps (reference §4.1, Era A order):
//!
//! 1. parse every page; pages that fail are left alone and reported ([`CompileResult::errors`]);
//! 2. Related blocks on every non-empty non-report page ([`crate::related`]), if `backlinks`;
//! 3. the nine dashboards ([`crate::reports`]), if `dashboards`. A dashboard keeps its
//!    `updatedAt` when the page rendered with the old timestamp equals the file (so a compile
//!    that changes nothing leaves it alone); otherwise `updatedAt` becomes `now`. A dashboard
//!    file that exists but does not parse is not touched;
//! 4. `agent-digest.json` and `claims.jsonl` ([`crate::digest`]);
//! 5. `index.md` and the five `<dir>/index.md` ([`crate::index`]).
//!
//! With the vault's parse cache ([`CompileOptions::parse_cache`]) a compile gives the same
//! result while skipping work the parse cache
//! (`.openclaw-wiki/tmp/parse-cache.bin`, [`wiki_vault::pagecache`]) proves unnecessary: pages
//! whose path and blob id it holds are not parsed again; while every page's link-graph fields
//! are unchanged, only edited pages whose Related block is not the recorded one get it
//! recomputed; dashboards whose per-page inputs ([`crate::reports::inputs`]) no edit changed are
//! not rendered; and `agent-digest.json` / `claims.jsonl` keep the objects and lines of unchanged
//! pages ([`crate::reuse`]). Each shortcut is taken only when the files on disk are exactly those
//! the recorded compile left (checksums) and the clock is inside its freshness window; otherwise
//! that part is computed in full. Tests compare every shortcut with a cache-free compile. The
//! result saves the cache for the next run ([`CompileResult::save_parse_cache`] and its
//! variants, which overlap the save with the caller's commit).
//!
//! Every file is rendered and compared with its current bytes; only differences are returned,
//! in write order (related pages in title order, dashboards, indexes, then the derived
//! `agent-digest.json` and `claims.jsonl`; the original lists the two before the indexes).
//! Compiling the result again yields no changes (as long as the clock does not move a claim
//! across a freshness boundary).

// foldhash: these maps are keyed by the 10,000 page paths of a large vault and never iterated
// in an order that reaches the output.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use std::sync::Arc;

use rayon::prelude::*;
use wiki_parse::layout::{AGENT_DIGEST_PATH, CLAIMS_PATH, RenderMode};
use wiki_parse::markers::{Block, replace_managed_block};
use wiki_parse::page::git_blob_id;
use wiki_parse::page::parse_page_without_links;
use wiki_parse::{Page, PageError, PageInfo};
use wiki_store::Change;
use wiki_vault::VaultPages;
use wiki_vault::pagecache::{ParseCache, TextLayout};
use yaml_serde::Value as Yaml;

use crate::digest;
use crate::index;
use crate::pages::{Linker, PageCounts, title_order};
use crate::related::RelatedIndex;
use crate::reports::{self, DASHBOARDS, Dashboard, ReportInput};
use wiki_vault::snapshot::Snapshot;

/// What a compile needs besides the files.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// The clock: freshness, and `updatedAt` of dashboards that change.
    pub now: jiff::Timestamp,
    /// Link style; `None` = `renderMode` of `.openclaw-wiki/state.json`, else native.
    pub render_mode: Option<RenderMode>,
    /// Rewrite Related blocks (`render.createBacklinks`, default true).
    pub backlinks: bool,
    /// Write the dashboards (`render.createDashboards`, default true). When false, existing
    /// dashboards are left alone.
    pub dashboards: bool,
    /// Record the links of re-rendered dashboards in the result pages and the parse cache
    /// (default true). An operation turns it off: nothing it does reads a dashboard's links,
    /// and extracting them from megabytes of rows is work for nothing. Such pages are marked [`PageInfo::links_omitted`]; a compile that records links
    /// parses them again.
    pub report_links: bool,
    /// The parse cache to reuse (default: none, every page is parsed).
    pub parse_cache: ParseCacheUse,
}

/// Which parse cache a compile reuses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ParseCacheUse {
    /// None: every page is parsed, and the result saves nothing.
    #[default]
    Off,
    /// The parse cache of the vault at `dir` (the one the snapshot loaded, else its branch's
    /// file), unless `reuse` is false (`wiki compile --force`: nothing is reused); the result
    /// can save the refreshed cache there.
    Vault {
        /// The vault directory.
        dir: std::path::PathBuf,
        /// Whether cached pages are reused.
        reuse: bool,
    },
}

impl CompileOptions {
    /// Defaults (backlinks and dashboards on, render mode from the vault) at `now`.
    pub fn new(now: jiff::Timestamp) -> CompileOptions {
        CompileOptions {
            now,
            render_mode: None,
            backlinks: true,
            dashboards: true,
            report_links: true,
            parse_cache: ParseCacheUse::Off,
        }
    }

    /// These options with the parse cache of the vault at `dir` ([`ParseCacheUse::Vault`]).
    pub fn with_parse_cache(mut self, dir: &std::path::Path, reuse: bool) -> CompileOptions {
        self.parse_cache = ParseCacheUse::Vault {
            dir: dir.to_path_buf(),
            reuse,
        };
        self
    }

    /// These options with the OpenClaw config's render settings applied.
    pub fn with_render(mut self, render: RenderConfig) -> CompileOptions {
        self.render_mode = render.render_mode.or(self.render_mode);
        self.backlinks = render.backlinks;
        self.dashboards = render.dashboards;
        self
    }
}

/// What the OpenClaw config says about rendering (reference §11.1), as every compile honours
/// it (`wiki compile`, the compile after `wiki apply` and `wiki lint`): `render.createBacklinks`,
/// `render.createDashboards`, and `vault.renderMode` when the config file sets it (otherwise the
/// mode recorded in `.openclaw-wiki/state.json` at `wiki init`, else native). Command-line flags
/// (`--render-mode`, `--no-backlinks`, `--no-dashboards`) override it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderConfig {
    /// `vault.renderMode` when the config file sets it.
    pub render_mode: Option<RenderMode>,
    /// `render.createBacklinks`.
    pub backlinks: bool,
    /// `render.createDashboards`.
    pub dashboards: bool,
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            render_mode: None,
            backlinks: true,
            dashboards: true,
        }
    }
}

impl RenderConfig {
    /// From a loaded config.
    pub fn from_config(cfg: &wiki_cli::config::WikiConfig) -> RenderConfig {
        use wiki_cli::config::{RenderMode as Configured, SourceKind};
        let explicit = cfg.source_of("vault.renderMode").kind != SourceKind::Default;
        RenderConfig {
            render_mode: explicit.then_some(match cfg.settings.vault.render_mode {
                Configured::Native => RenderMode::Native,
                Configured::Obsidian => RenderMode::Obsidian,
            }),
            backlinks: cfg.settings.render.create_backlinks,
            dashboards: cfg.settings.render.create_dashboards,
        }
    }

    /// From the OpenClaw config file ([`wiki_cli::config::load`]).
    pub fn load() -> Result<RenderConfig, wiki_cli::CliError> {
        Ok(RenderConfig::from_config(&wiki_cli::config::load()?))
    }
}

/// What a compile produced.
#[derive(Debug, Clone)]
pub struct CompileResult {
    /// Files whose bytes change, in write order (never a deletion).
    pub changes: Vec<Change>,
    /// Every parsed page after the compile (new dashboards included), in title order.
    pub pages: Vec<PageInfo>,
    /// Pages that could not be read or parsed (digest `frontmatterErrors`).
    pub errors: Vec<PageError>,
    /// Pages per kind after the compile.
    pub page_counts: PageCounts,
    /// Claims over all pages.
    pub claim_count: usize,
    /// The render mode used.
    pub render_mode: RenderMode,
    /// Whether Related blocks were computed (`backlinks`).
    pub backlinks: bool,
    /// What the next compile needs to reuse this one's digest and claims (`None`: not reusable).
    pub recorded: Option<crate::reuse::Recorded>,
    /// Text layout, for the parse cache, of the pages whose entry is written anew (misses,
    /// pages whose Related block was rewritten, dashboards); the cache's hits have none (their
    /// entries are copied when it is saved).
    pub layouts: HashMap<String, TextLayout>,
    /// The vault directory and the parse cache this compile read ([`ParseCacheUse::Vault`]):
    /// what [`CompileResult::save_parse_cache`] refreshes.
    pub parse_cache: Option<(std::path::PathBuf, Arc<ParseCache>)>,
}

impl CompileResult {
    /// Vault paths of the changed files, in write order.
    pub fn updated_files(&self) -> Vec<&str> {
        self.changes.iter().map(|c| c.path.as_str()).collect()
    }

    /// Whether the compiled files are current (nothing to write).
    pub fn is_current(&self) -> bool {
        self.changes.is_empty()
    }
}

/// Compile a snapshot: the one entry point (see the module docs). With
/// [`CompileOptions::parse_cache`], the parsed pages of the vault's parse cache whose path and
/// blob id match are reused (the result is the same; only work is skipped); save the refreshed
/// cache with [`CompileResult::save_parse_cache`] or its variants.
pub fn compile(snapshot: &Snapshot, opts: &CompileOptions) -> CompileResult {
    let cache = match &opts.parse_cache {
        ParseCacheUse::Off => None,
        ParseCacheUse::Vault { dir, reuse } => {
            let cache = match (reuse, snapshot.parse_cache()) {
                (false, _) => Arc::new(ParseCache::empty()),
                (true, Some(cache)) => Arc::clone(cache),
                (true, None) => Arc::new(ParseCache::load_for(dir, snapshot.parse_cache_agent())),
            };
            Some((dir.clone(), cache))
        }
    };
    let mut result = match &cache {
        Some((_, cache)) => compile_cached(snapshot, opts, cache),
        None => compile_cached(snapshot, opts, &ParseCache::empty()),
    };
    result.parse_cache = cache;
    result
}

/// [`compile`] reusing `cache`.
///
/// Besides parsing, the cache saves the Related phase: every cached page carries the Related
/// block computed for the link graph of the run that saved it (a page's graph fields: path,
/// kind, title, id, `sourceIds`, links), and Related blocks depend on nothing else. When every
/// page's graph fields are those the cache recorded (same pages, same render mode), only the
/// pages the cache did not know (edited or new) get their Related block recomputed.
fn compile_cached(snapshot: &Snapshot, opts: &CompileOptions, cache: &ParseCache) -> CompileResult {
    let t = std::time::Instant::now();
    let (parsed, misses, unloaded) = snapshot.parse_for_compile_cached(cache, !opts.report_links);
    let t = trace("parse (pages)", t);
    let render_mode = opts
        .render_mode
        .or_else(|| snapshot.render_mode())
        .unwrap_or_default();
    // The cached version of every edited page, when the pages are exactly the cached ones.
    let edited = edited_versions(&parsed, &misses, cache);
    let same_graph = cache.label().split(';').next()
        == Some(related_label(render_mode, opts.backlinks).as_str())
        && edited
            .as_ref()
            .is_some_and(|e| e.iter().all(|(page, old, _)| same_graph(old, &page.info)));
    let t = trace("parse (graph check)", t);
    let recorded = crate::reuse::Recorded::from_label(cache.label()).filter(|r| {
        r.matches(
            snapshot.get(AGENT_DIGEST_PATH).unwrap_or_default(),
            snapshot.get(CLAIMS_PATH).unwrap_or_default(),
            opts.now.as_millisecond(),
        )
    });
    trace("parse (recorded check)", t);
    let dashboards = recorded
        .filter(|r| {
            let now = current_reports_checksum(snapshot, &[], &recorded_tag(opts, render_mode));
            if tracing() && r.reports != now {
                wiki_cli::warn(
                    "trace",
                    "compile dashboards: report or index files differ from the record",
                );
            }
            r.reports == now
        })
        .and(edited.as_deref())
        .map(|edited| {
            let managed = snapshot.managed_source_paths();
            let input = reports::ReportInput {
                pages: &[],
                now_ms: opts.now.as_millisecond(),
                linker: Linker::new(render_mode),
                managed_sources: &managed,
                clusters: None,
            };
            dashboards_to_render(edited, Some((&input, &parsed.pages)))
        });
    // Edited pages whose Related block is still the one the cache recorded (and in place) need
    // nothing; the others are recomputed.
    let stale: HashSet<String> = match (&edited, same_graph) {
        (Some(edited), true) => edited
            .iter()
            .filter(|(page, _, layout)| !related_in_place(page, layout))
            .map(|(page, _, _)| page.path.clone())
            .collect(),
        _ => HashSet::new(),
    };
    // The indexes list every page's title and link and count pages and claims: with the files
    // the recorded compile left (checked with the dashboards), the same pages, and no edit
    // changing a title, kind or claim count, they are current.
    let indexes_current = dashboards.is_some()
        && edited.as_ref().is_some_and(|e| {
            e.iter().all(|(page, old, _)| {
                page.info.title == old.title
                    && page.info.kind == old.kind
                    && page.info.summary.claims.len() == old.summary.claims.len()
            })
        });
    // One edited page (an operation's usual change): its rows can be patched into the recorded
    // claim-health, low-confidence and stale-pages dashboards instead of rendering them whole.
    let one_edit: Option<(String, PageInfo)> = match (&dashboards, &edited) {
        (Some(_), Some(e)) if e.len() == 1 => Some((e[0].0.path.clone(), e[0].1.clone())),
        _ => None,
    };
    let inc = Incremental {
        one_edit: one_edit.as_ref().map(|(p, old)| (p.as_str(), old)),
        indexes_current,
        related_scope: same_graph.then_some(&stale),
        misses: Some(&misses),
        unloaded: Some(&unloaded),
        digest: recorded.map(|r| (cache, &misses, r.claims)),
        dashboards: dashboards.as_ref(),
    };
    compile_inner(snapshot, parsed, opts, inc)
}

/// [`title_order`] of `pages` as indices into it, so that the pages can be moved (not cloned)
/// into the result.
fn title_order_idx(pages: &[Page]) -> Vec<usize> {
    let mut idx: Vec<(usize, &PageInfo)> = pages.iter().map(|p| &p.info).enumerate().collect();
    crate::pages::sort_title_order(&mut idx, |(_, p)| p);
    idx.into_iter().map(|(i, _)| i).collect()
}

/// Whether an edited page still carries, unchanged and well-formed, the Related block body its
/// cached version had (`layout`, computed for the same link graph).
fn related_in_place(page: &Page, layout: &TextLayout) -> bool {
    let block = Block::related();
    match (
        layout.related,
        wiki_parse::markers::block_body(&page.text, &block),
    ) {
        (Some(sum), Some(body)) => {
            wiki_vault::checksum::checksum(body.as_bytes()) == sum
                && replace_managed_block(&page.text, &block, body) == page.text
        }
        _ => false,
    }
}

/// The checksum [`crate::reuse::reports_checksum`] of the report pages and index files of
/// `snapshot` with `changes` applied, from their git blob ids: those the snapshot knows (the
/// pages, from its listing: no dashboard is read for this), the others hashed (the index files,
/// and the files `changes` write).
fn current_reports_checksum(snapshot: &Snapshot, changes: &[Change], tag: &str) -> u64 {
    use std::borrow::Cow;
    let indexes: Vec<String> = index::index_files()
        .into_iter()
        .map(|(p, _, _)| p)
        .collect();
    let covered = |p: &str| {
        wiki_parse::PageKind::from_path(p) == Some(wiki_parse::PageKind::Report)
            || indexes.iter().any(|i| i == p)
    };
    // The files changed (written or deleted) by `changes`, the last change of a path winning.
    let mut changed: std::collections::BTreeMap<&str, Option<&[u8]>> =
        std::collections::BTreeMap::new();
    for c in changes.iter().filter(|c| covered(&c.path)) {
        changed.insert(c.path.as_str(), c.content.as_deref());
    }
    let present: Vec<(&str, Option<&[u8]>)> = snapshot
        .page_paths()
        .chain(indexes.iter().map(String::as_str))
        .filter(|p| covered(p) && !changed.contains_key(p))
        .map(|p| (p, None))
        .chain(
            changed
                .iter()
                .filter_map(|(p, c)| c.map(|bytes| (*p, Some(bytes)))),
        )
        .collect();
    let mut ids: Vec<(&str, Cow<'_, str>)> = present
        .par_iter()
        .filter_map(|&(p, bytes)| {
            let id = match (bytes, snapshot.known_blob_id(p)) {
                (Some(bytes), _) => Cow::Owned(git_blob_id(bytes)),
                (None, Some(id)) => Cow::Borrowed(id),
                (None, None) => Cow::Owned(git_blob_id(snapshot.get(p)?)),
            };
            Some((p, id))
        })
        .collect();
    ids.sort_by(|a, b| a.0.cmp(b.0));
    ids.dedup_by(|a, b| a.0 == b.0);
    let sync = snapshot.get(wiki_vault::snapshot::SOURCE_SYNC_PATH);
    crate::reuse::reports_checksum_of_ids(ids.iter().map(|(p, id)| (*p, id.as_ref())), sync, tag)
}

/// How the recorded report and index files were rendered: the link style, and whether
/// dashboards were rendered (a later compile must not take files left by another kind of run as
/// current).
fn recorded_tag(opts: &CompileOptions, mode: RenderMode) -> String {
    format!(
        "links={};dashboards={}",
        mode.as_str(),
        if opts.dashboards { "on" } else { "off" }
    )
}

/// The dashboards whose inputs ([`reports::inputs`]) differ between the cached and the current
/// version of an edited page, and that the edit changes. With `rows` (what the dashboards on
/// disk were rendered with, at this clock, and every page of the vault), an edit that keeps a
/// page's path, title and kind changes:
/// - a dashboard of rows per page ([`reports::page_rows`]) only when it changes the page's rows;
/// - the contradictions dashboard only when it changes the page's id, notes or claim ids, or a
///   claim (or, through its `updatedAt`, every claim of the page) whose id another claim of the
///   vault shares: a claim with an id of its own is in no cluster, before or after.
fn dashboards_to_render(
    edited: &[(&Page, PageInfo, TextLayout)],
    rows: Option<(&reports::ReportInput<'_>, &[Page])>,
) -> HashSet<&'static str> {
    let mut render = HashSet::new();
    for (page, old, _) in edited {
        let new = &page.info;
        let same_head = new.path == old.path && new.title == old.title && new.kind == old.kind;
        for d in DASHBOARDS {
            if render.contains(d.name)
                || reports::inputs(d.name, old) == reports::inputs(d.name, new)
            {
                continue;
            }
            let unchanged = match rows {
                Some((input, all)) if same_head => match d.name {
                    "contradictions" => contradictions_unchanged(old, new, all),
                    name => reports::page_rows(name, input, old)
                        .is_some_and(|rows| Some(rows) == reports::page_rows(name, input, new)),
                },
                _ => false,
            };
            if unchanged {
                continue;
            }
            if tracing() {
                wiki_cli::warn(
                    "trace",
                    &format!("compile dashboard {} changed by {}", d.name, page.path),
                );
            }
            render.insert(d.name);
        }
    }
    render
}

/// Whether the contradictions dashboard is the same for `new` as for `old` (the same page, with
/// the same path, title and kind), `all` being every page of the vault with `new` among them
/// (see [`dashboards_to_render`]).
fn contradictions_unchanged(old: &PageInfo, new: &PageInfo, all: &[Page]) -> bool {
    let (a, b) = (&old.summary, &new.summary);
    let ids = |s: &wiki_parse::PageSummary| -> Vec<Option<String>> {
        s.claims.iter().map(|c| c.id.clone()).collect()
    };
    if a.id != b.id || a.contradictions != b.contradictions || ids(a) != ids(b) {
        return false;
    }
    // The ids of the claims that changed (all of them when the page's `updatedAt`, which
    // their freshness reads, changed).
    let every = a.updated_at != b.updated_at;
    let changed: HashSet<&str> = a
        .claims
        .iter()
        .zip(&b.claims)
        .filter(|(x, y)| every || !same_claim_ignoring_line(x, y))
        .filter_map(|(_, y)| y.id.as_deref())
        .collect();
    if changed.is_empty() {
        return true;
    }
    // Shared ids: used by more than one claim of the vault (this page's current claims
    // included).
    let mut uses: HashMap<&str, usize> = HashMap::with_capacity(changed.len());
    for p in all {
        for c in &p.summary.claims {
            if let Some(id) = c.id.as_deref().filter(|id| changed.contains(id)) {
                let n = uses.entry(id).or_insert(0);
                *n += 1;
                if *n > 1 {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether two versions of a claim are equal but for their file line.
fn same_claim_ignoring_line(a: &wiki_parse::model::Claim, b: &wiki_parse::model::Claim) -> bool {
    let line_less = |c: &wiki_parse::model::Claim| wiki_parse::model::Claim {
        line: None,
        ..c.clone()
    };
    line_less(a) == line_less(b)
}

/// A dashboard body patched for one changed page (see [`Incremental::one_edit`]).
/// A file to write: vault path and text.
type PathText = (String, String);

type PatchFn = fn(&str, &reports::ReportInput<'_>, &PageInfo, usize) -> Option<String>;

/// What [`compile_cached`] found it can skip.
#[derive(Default, Clone, Copy)]
struct Incremental<'a> {
    /// The index files are current (see [`compile_cached`]).
    indexes_current: bool,
    /// Recompute the Related blocks of these pages only (the others are current).
    related_scope: Option<&'a HashSet<String>>,
    /// Reuse the digest objects and claim lines of the cached pages not in the set (the cached
    /// compile's files are on disk and the clock is inside its window); with the recorded
    /// checksum of `claims.jsonl`.
    digest: Option<(&'a ParseCache, &'a HashSet<String>, u64)>,
    /// Render only these dashboards (the others are current).
    dashboards: Option<&'a HashSet<&'static str>>,
    /// The one edited page (path) and its cached version, when the dashboards on disk are
    /// those the cache recorded: claim health, low confidence, stale pages and the person
    /// directory are patched ([`reports::patch_claim_health`], [`reports::patch_low_confidence`],
    /// [`reports::patch_stale_pages`], [`reports::patch_person_directory`]).
    one_edit: Option<(&'a str, &'a PageInfo)>,
    /// The pages not found in the parse cache (`None`: no cache was used).
    misses: Option<&'a HashSet<String>>,
    /// Pages taken from the cache without their text, with their body offsets.
    unloaded: Option<&'a HashMap<String, usize>>,
}

/// The parse-cache label of a compile: the Related rendering it recorded (first field), then
/// what [`crate::reuse::Recorded`] keeps.
fn related_label(mode: RenderMode, backlinks: bool) -> String {
    if backlinks {
        format!("related={}", mode.as_str())
    } else {
        "related=off".to_string()
    }
}

/// The edited pages (`misses`) with their cached version, when the non-report pages of `parsed`
/// are exactly the cached pages (no page added or removed) and every cached version decodes;
/// `None` otherwise (nothing can be taken as current).
fn edited_versions<'a>(
    parsed: &'a VaultPages,
    misses: &HashSet<String>,
    cache: &ParseCache,
) -> Option<Vec<(&'a Page, PageInfo, TextLayout)>> {
    let candidates = parsed
        .pages
        .iter()
        .filter(|p| p.kind != wiki_parse::PageKind::Report);
    let cached_pages = cache
        .paths()
        .filter(|p| wiki_parse::PageKind::from_path(p) != Some(wiki_parse::PageKind::Report))
        .count();
    // Every candidate that is not a miss came from the cache (`parse_for_compile_cached`):
    // only the misses can be missing from it.
    if candidates.clone().count() != cached_pages || misses.iter().any(|p| !cache.contains(p)) {
        return None;
    }
    candidates
        .filter(|p| misses.contains(&p.path))
        .map(|p| {
            let (old, layout) = cache.get_any_with_layout(&p.path)?;
            Some((p, old, layout))
        })
        .collect()
}

/// The fields of a page Related blocks are computed from.
fn same_graph(a: &PageInfo, b: &PageInfo) -> bool {
    a.path == b.path
        && a.kind == b.kind
        && a.title == b.title
        && a.summary.id == b.summary.id
        && a.summary.source_ids == b.summary.source_ids
        && a.links.len() == b.links.len()
        && a.links
            .iter()
            .zip(&b.links)
            .all(|(x, y)| x.target == y.target && x.kind == y.kind && x.resolved == y.resolved)
}

impl CompileResult {
    /// Save the parse cache this compile read ([`ParseCacheUse::Vault`]) for the next run:
    /// the next compile of the resulting files parses only what changed (see
    /// [`wiki_vault::pagecache`]). `snapshot` is the one compiled (the stat data of the pages it
    /// read from disk unchanged is recorded). A cache that cannot be saved only costs time
    /// later: `program` warns about it on stderr. Nothing to do without a parse cache.
    pub fn save_parse_cache(&self, snapshot: &Snapshot, program: &str) {
        self.save_parse_cache_while(snapshot, program, |_| ());
    }

    /// [`CompileResult::save_parse_cache`] on another thread while `meanwhile` runs on the
    /// result (a compile's commit, which mostly waits for the file system).
    pub fn save_parse_cache_while<T>(
        &self,
        snapshot: &Snapshot,
        program: &str,
        meanwhile: impl FnOnce(&CompileResult) -> T,
    ) -> T {
        let Some((dir, cache)) = &self.parse_cache else {
            return meanwhile(self);
        };
        std::thread::scope(|scope| {
            let save = move || {
                let phase = "save parse cache";
                save_parse_cache_or_warn(dir, self, cache, snapshot, program, phase);
            };
            let spawned = std::thread::Builder::new()
                .name("parse-cache-save".into())
                .spawn_scoped(scope, save);
            if spawned.is_err() {
                save();
            }
            meanwhile(self)
        })
    }

    /// For a command that commits the changes next (an operation): the changes at once, the
    /// parse cache saved on another thread meanwhile, beside the commit's writing.
    /// [`finish_saving_aside`] waits for the save (before the vault lock is released); a later
    /// call waits for the previous save first.
    pub fn save_parse_cache_aside(
        mut self,
        snapshot: Snapshot,
        program: &'static str,
    ) -> Vec<Change> {
        finish_saving_aside();
        let changes = std::mem::take(&mut self.changes);
        let Some((dir, cache)) = self.parse_cache.take() else {
            return changes;
        };
        let save = move || {
            let phase = "save parse cache (aside)";
            save_parse_cache_or_warn(&dir, &self, &cache, &snapshot, program, phase);
        };
        match std::thread::Builder::new()
            .name("parse-cache-save".into())
            .spawn(save)
        {
            Ok(handle) => {
                let mut slot = PENDING_SAVE
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                *slot = Some(handle);
            }
            Err(e) => wiki_cli::warn(program, &format!("cannot write the parse cache: {e}")),
        }
        changes
    }
}

/// [`write_parse_cache`], traced as `phase`; a failure is only a warning of `program` (a cache
/// that cannot be saved costs time later, nothing else).
fn save_parse_cache_or_warn(
    vault_dir: &std::path::Path,
    result: &CompileResult,
    cache: &ParseCache,
    snapshot: &Snapshot,
    program: &str,
    phase: &str,
) {
    let t = std::time::Instant::now();
    if let Err(e) = write_parse_cache(vault_dir, result, cache, snapshot) {
        wiki_cli::warn(program, &format!("cannot write the parse cache: {e}"));
    }
    trace(phase, t);
}

/// The parse-cache save of [`CompileResult::save_parse_cache_aside`], running on its own thread.
static PENDING_SAVE: std::sync::Mutex<Option<std::thread::JoinHandle<()>>> =
    std::sync::Mutex::new(None);

/// Wait for the parse-cache save [`CompileResult::save_parse_cache_aside`] started, if any.
pub fn finish_saving_aside() {
    let handle = PENDING_SAVE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(handle) = handle {
        // A panic in the save only costs the cache (the next run parses again).
        let _ = handle.join();
    }
}

/// Write the parse cache of the vault at `vault_dir` from a compile result. `prev` is the
/// cache the compile read (unchanged pages are copied from it).
fn write_parse_cache(
    vault_dir: &std::path::Path,
    result: &CompileResult,
    prev: &ParseCache,
    snapshot: &Snapshot,
) -> std::io::Result<()> {
    let mut label = related_label(result.render_mode, result.backlinks);
    if let Some(r) = result.recorded {
        label.push(';');
        label.push_str(&r.to_label());
    }
    wiki_vault::pagecache::save_copying_for(
        vault_dir,
        snapshot.parse_cache_agent(),
        &label,
        result
            .pages
            .iter()
            .map(|p| (p, result.layouts.get(&p.path).copied())),
        prev,
        |path, blob| snapshot.settled_stat(path, blob),
    )
}

/// The compile, skipping what `inc` says is current (see [`compile_cached`]).
fn compile_inner(
    snapshot: &Snapshot,
    parsed: VaultPages,
    opts: &CompileOptions,
    inc: Incremental<'_>,
) -> CompileResult {
    let now_ms = opts.now.as_millisecond();
    let now_iso = wiki_cli::iso_millis(opts.now);
    let render_mode = opts
        .render_mode
        .or_else(|| snapshot.render_mode())
        .unwrap_or_default();
    let linker = Linker::new(render_mode);
    let VaultPages {
        pages: mut parsed_pages,
        errors,
    } = parsed;
    let mut changes: Vec<Change> = Vec::new();
    let t = std::time::Instant::now();
    // 1. Related blocks (none to recompute when the scope is empty).
    let related_scope = inc.related_scope;
    let new_related = if opts.backlinks && related_scope.is_none_or(|only| !only.is_empty()) {
        load_unloaded_texts(snapshot, &mut parsed_pages, &inc);
        related_blocks(&mut parsed_pages, related_scope, linker, &mut changes)
    } else {
        HashMap::new()
    };
    let t = trace("related", t);
    let mut layouts = text_layouts(&parsed_pages, &new_related, inc.misses);
    let t = trace("layouts", t);
    // Only dashboards need their text from here on: free the rest (a vault's worth of bytes).
    for page in parsed_pages
        .iter_mut()
        .filter(|p| p.kind != wiki_parse::PageKind::Report)
    {
        page.text = String::new();
        page.body_offset = 0;
    }

    // 2. Dashboards.
    let selected: Vec<Dashboard> = DASHBOARDS
        .iter()
        .copied()
        .filter(|d| inc.dashboards.is_none_or(|only| only.contains(d.name)))
        .collect();
    // The pages in title order (as indices: the pages move into the result at the end); the
    // dashboards' order serves the digest too unless rendering them adds, removes or retitles a
    // page.
    let mut title_idx: Option<Vec<usize>> = None;
    // Re-rendered dashboards parsed without their links: (path, index in `changes`).
    let mut pending_links: Vec<(String, usize)> = Vec::new();
    // Contradiction clusters, computed once for the contradictions dashboard and the digest
    // header when both see the same pages in the same order (a re-rendered dashboard keeps its
    // frontmatter, hence its contradiction notes).
    let clusters = reports::Clusters::new();
    let mut clusters_shared = true;
    if opts.dashboards && !selected.is_empty() {
        let view = DashboardView {
            snapshot,
            now_ms,
            now_iso: &now_iso,
            linker,
            one_edit: inc.one_edit,
            clusters: &clusters,
        };
        let mut out = Outputs {
            pages: &mut parsed_pages,
            layouts: &mut layouts,
            changes: &mut changes,
            pending_links: &mut pending_links,
        };
        title_idx = render_dashboards(&view, &selected, &mut out);
        clusters_shared = title_idx.is_some();
    }

    let t = trace("dashboards", t);
    let order_idx = title_idx.unwrap_or_else(|| title_order_idx(&parsed_pages));
    let order: Vec<&PageInfo> = order_idx.iter().map(|&i| &parsed_pages[i].info).collect();
    let counts = PageCounts::of(order.iter().copied());
    let claim_count = digest::claim_count(&order);

    // 3. Digest and claims (beside the links of the re-rendered dashboards).
    let fresh = reports::Clusters::new();
    let clusters = if clusters_shared { &clusters } else { &fresh };
    let (outputs, links) = rayon::join(
        || digest_outputs(snapshot, &order, &counts, &errors, now_ms, clusters, &inc),
        || dashboard_links(&pending_links, &changes, opts.report_links),
    );
    if tracing() {
        wiki_cli::warn(
            "trace",
            &format!(
                "compile related scope {}, dashboards {}, digest reused {}",
                related_scope.map_or("all".to_string(), |s| s.len().to_string()),
                selected.len(),
                outputs.reused
            ),
        );
    }
    let t = trace("digest+claims", t);

    // 4. Indexes (unless known to be current), then the derived files.
    if !inc.indexes_current {
        changes.extend(index_changes(snapshot, &order, &counts, linker));
    }
    drop(order);
    let recorded = outputs.recorded.map(|r| crate::reuse::Recorded {
        reports: current_reports_checksum(snapshot, &changes, &recorded_tag(opts, render_mode)),
        ..r
    });
    changes.extend(outputs.changes);
    trace("indexes", t);

    set_dashboard_links(
        &pending_links,
        links,
        &mut changes,
        &mut parsed_pages,
        opts.report_links,
    );
    let pages = pages_in_order(parsed_pages, order_idx);
    CompileResult {
        changes,
        pages,
        errors,
        page_counts: counts,
        claim_count,
        render_mode,
        backlinks: opts.backlinks,
        layouts,
        recorded,
        parse_cache: None,
    }
}

/// What the dashboards are rendered with.
struct DashboardView<'a> {
    snapshot: &'a Snapshot,
    now_ms: i64,
    now_iso: &'a str,
    linker: Linker,
    /// See [`Incremental::one_edit`].
    one_edit: Option<(&'a str, &'a PageInfo)>,
    /// Contradiction clusters, computed once for the dashboards and the digest header.
    clusters: &'a reports::Clusters,
}

/// What a compile phase updates: the parsed pages, their text layouts, the file changes, and
/// the re-rendered dashboards whose links are still to be extracted (path, index in
/// `changes`).
struct Outputs<'a> {
    pages: &'a mut Vec<Page>,
    layouts: &'a mut HashMap<String, TextLayout>,
    changes: &'a mut Vec<Change>,
    pending_links: &'a mut Vec<(String, usize)>,
}

/// Phase 2 of a compile: render the `selected` dashboards (and their shard pages) into
/// `out.changes`, delete the shard pages they no longer have, and put the re-rendered pages
/// (parsed without their links, which are extracted later: `out.pending_links`) among
/// `out.pages`. The pages' title order
/// (as indices) when rendering kept it, i.e. added, removed or retitled no page; else `None`.
fn render_dashboards(
    view: &DashboardView<'_>,
    selected: &[Dashboard],
    out: &mut Outputs<'_>,
) -> Option<Vec<usize>> {
    let t = std::time::Instant::now();
    let managed = view.snapshot.managed_source_paths();
    let t = trace("dashboards (managed sources)", t);
    let idx = title_order_idx(out.pages);
    // Per dashboard: the files it writes (the page, and its shard pages when it is split)
    // and the shard pages it no longer has.
    let rendered: Vec<(Vec<PathText>, Vec<String>)> = {
        let pages: &[Page] = out.pages;
        let order: Vec<&PageInfo> = idx.iter().map(|&i| &pages[i].info).collect();
        trace("dashboards (title order)", t);
        let input = ReportInput {
            pages: &order,
            now_ms: view.now_ms,
            linker: view.linker,
            managed_sources: &managed,
            clusters: Some(view.clusters),
        };
        selected
            .par_iter()
            .filter_map(|d| render_dashboard_files(view, d, &input, &order, pages))
            .collect()
    };
    let t = std::time::Instant::now();
    let (rendered, stale): (Vec<_>, Vec<_>) = rendered.into_iter().unzip();
    let rendered: Vec<(String, String)> = rendered.into_iter().flatten().collect();
    let stale: Vec<String> = stale.into_iter().flatten().collect();
    trace("dashboards (render)", t);
    // Parsed again (their page records feed the digest and the parse cache), in parallel;
    // their links (a large vault's dashboards are megabytes of them) are extracted while the
    // digest is computed, which does not read them (`pending_links`).
    let reparsed: Vec<_> = rendered
        .par_iter()
        .map(|(path, text)| parse_page_without_links(path, text.as_bytes()))
        .collect();
    let mut same_order = stale.is_empty();
    for path in stale {
        out.layouts.remove(&path);
        out.pages.retain(|p| p.path != path);
        out.changes.push(Change::delete(path));
    }
    for ((path, text), parsed) in rendered.into_iter().zip(reparsed) {
        out.changes.push(Change::write(path.clone(), text));
        match parsed {
            Ok(page) => {
                out.pending_links
                    .push((path.clone(), out.changes.len() - 1));
                out.layouts.insert(path.clone(), TextLayout::of(&page));
                match out.pages.iter_mut().find(|p| p.path == path) {
                    Some(slot) => {
                        same_order &= slot.info.title == page.info.title;
                        *slot = page;
                    }
                    None => {
                        same_order = false;
                        out.pages.push(page);
                    }
                }
            }
            Err(_) => {
                out.layouts.remove(&path);
                same_order &= !out.pages.iter().any(|p| p.path == path);
                out.pages.retain(|p| p.path != path);
            }
        }
    }
    same_order.then_some(idx)
}

/// One dashboard's files (the page, and its shard pages when it is split) and the shard pages
/// it no longer has, in the pages' title `order`; `None` when it is not written (its file
/// cannot be rendered).
fn render_dashboard_files(
    view: &DashboardView<'_>,
    d: &Dashboard,
    input: &ReportInput<'_>,
    order: &[&PageInfo],
    parsed_pages: &[Page],
) -> Option<(Vec<PathText>, Vec<String>)> {
    let started = std::time::Instant::now();
    let (snapshot, now_iso) = (view.snapshot, view.now_iso);
    let path = d.path();
    let page = ReportPage::of(d);
    let (text, body) = with_report_file(snapshot, parsed_pages, &path, |file| {
        let body = dashboard_body(d, input, order, view.one_edit, file)?;
        let sharded = crate::shards::shard(d, &body, view.linker);
        let text = render_report_page(
            file,
            &page,
            sharded
                .as_ref()
                .map_or(body.as_str(), |s| s.summary.as_str()),
            now_iso,
        );
        Some((text, sharded))
    })??;
    let mut files: Vec<(String, String)> = text.map(|t| (path, t)).into_iter().collect();
    let shards = body.map(|s| s.shards).unwrap_or_default();
    let mut stale: Vec<String> = parsed_pages
        .iter()
        .filter(|p| {
            shard_stem(d.name, &p.path).is_some_and(|stem| {
                p.info.summary.id.as_deref() == Some(format!("report.{stem}").as_str())
            })
        })
        .filter(|p| !shards.iter().any(|s| s.path == p.path))
        .map(|p| p.path.clone())
        .collect();
    stale.sort();
    for s in &shards {
        let page = ReportPage {
            name: &s.stem,
            id: format!("report.{}", s.stem),
            title: &s.title,
        };
        let text = with_report_file(snapshot, parsed_pages, &s.path, |file| {
            render_report_page(file, &page, &s.body, now_iso)
        });
        if let Some(Some(text)) = text {
            files.push((s.path.clone(), text));
        }
    }
    if tracing() {
        trace(&format!("dashboard {} (render)", d.name), started);
    }
    Some((files, stale))
}

/// Related blocks are computed on page texts: read those the parse left on disk (in the
/// Related scope).
fn load_unloaded_texts(snapshot: &Snapshot, pages: &mut [Page], inc: &Incremental<'_>) {
    let Some(unloaded) = inc.unloaded.filter(|u| !u.is_empty()) else {
        return;
    };
    let scope = inc.related_scope;
    pages
        .par_iter_mut()
        .filter(|p| scope.is_none_or(|only| only.contains(&p.path)))
        .for_each(|p| {
            if let Some(offset) = unloaded.get(&p.path) {
                snapshot.load_text(p, *offset);
            }
        });
}

/// Rewrite the Related block of the pages in `scope` (all: `None`) whose block changes, as
/// `changes`; the Related checksum of each rewritten page, by index.
fn related_blocks(
    pages: &mut [Page],
    scope: Option<&HashSet<String>>,
    linker: Linker,
    changes: &mut Vec<Change>,
) -> HashMap<usize, Option<u64>> {
    // New texts with their blob ids and Related checksums, all computed in parallel.
    let updates: Vec<(usize, String, String, Option<u64>)> = {
        let infos: Vec<&PageInfo> = pages.iter().map(|p| &p.info).collect();
        let order = title_order(infos.iter().copied());
        let rel = RelatedIndex::new(&order, linker);
        let mut position: HashMap<&str, usize> = HashMap::with_capacity(pages.len());
        for (i, p) in pages.iter().enumerate() {
            position.insert(p.path.as_str(), i);
        }
        order
            .par_iter()
            .filter(|info| scope.is_none_or(|only| only.contains(&info.path)))
            .filter_map(|info| {
                let i = *position.get(info.path.as_str())?;
                let page = &pages[i];
                if page.text.trim().is_empty() {
                    return None;
                }
                let body = rel.body(&page.path)?;
                let updated = replace_managed_block(&page.text, &Block::related(), &body);
                (updated != page.text).then(|| {
                    let blob = git_blob_id(updated.as_bytes());
                    let related = wiki_vault::pagecache::related_checksum(&updated);
                    (i, updated, blob, related)
                })
            })
            .collect()
    };
    let mut new_related = HashMap::with_capacity(updates.len());
    changes.reserve(updates.len());
    for (i, text, blob, related) in updates {
        let page = &mut pages[i];
        changes.push(Change::write(page.path.clone(), text).with_blob_hex(&blob));
        page.info.blob_id = blob;
        new_related.insert(i, related);
    }
    new_related
}

/// Text layouts for the parse cache, of the pages whose entry is written anew. The pages the
/// cache holds unchanged (hits: not misses, not dashboards, Related block untouched) get none:
/// their entries are copied when it is saved (dashboards rendered later get the layout of
/// their new text).
fn text_layouts(
    pages: &[Page],
    new_related: &HashMap<usize, Option<u64>>,
    misses: Option<&HashSet<String>>,
) -> HashMap<String, TextLayout> {
    let hit = |i: usize, p: &Page| {
        !new_related.contains_key(&i)
            && p.kind != wiki_parse::PageKind::Report
            && misses.is_some_and(|m| !m.contains(&p.path))
    };
    pages
        .par_iter()
        .enumerate()
        .filter(|(i, p)| !hit(*i, p))
        .map(|(i, p)| {
            let related = match new_related.get(&i) {
                Some(related) => *related,
                None => wiki_vault::pagecache::related_checksum(&p.text),
            };
            let layout = TextLayout {
                body_offset: p.body_offset,
                has_frontmatter: p.has_frontmatter,
                related,
            };
            (p.path.clone(), layout)
        })
        .collect()
}

/// The digest and claims files of a compile and what the next compile records of them.
struct DigestOutputs {
    /// Writes of `agent-digest.json` and `claims.jsonl` (those that change).
    changes: Vec<Change>,
    /// The record, without the index files' checksum (known later).
    recorded: Option<crate::reuse::Recorded>,
    /// Whether the cached digest objects and claim lines were reused.
    reused: bool,
}

/// The digest and claims (reusing the cached compile's where `inc` allows), as changes.
fn digest_outputs(
    snapshot: &Snapshot,
    order: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
    clusters: &reports::Clusters,
    inc: &Incremental<'_>,
) -> DigestOutputs {
    let t = std::time::Instant::now();
    let reused = inc.digest.and_then(|(cache, misses, claims_sum)| {
        let (agent, claims) = reuse_digest(
            snapshot, order, counts, errors, now_ms, cache, misses, clusters,
        )?;
        Some((agent, claims.ok_or(claims_sum)))
    });
    let was_reused = reused.is_some();
    let t = trace("digest (reuse)", t);
    // `claims`: `Err(checksum)` when the file on disk is current (the lines removed are those
    // added back).
    let ((agent, agent_sum), claims) = reused.unwrap_or_else(|| {
        let (agent, claims) = rayon::join(
            || digest::agent_digest(order, counts, errors, now_ms).into_bytes(),
            || digest::claims_jsonl(order, now_ms).into_bytes(),
        );
        ((agent, None), Ok((claims, None)))
    });
    // Recorded for the next compile (when reports carry no claims: their old lines could not be
    // found again, they are not in the parse cache).
    let recorded = order
        .iter()
        .all(|p| p.kind != wiki_parse::PageKind::Report || p.summary.claims.is_empty())
        .then(|| {
            // Checksums of the outputs (unless computed as the files were spliced), and the
            // clock window: side by side.
            use wiki_vault::checksum::block_checksum;
            let ((digest, claims), window) = rayon::join(
                || {
                    rayon::join(
                        || agent_sum.unwrap_or_else(|| block_checksum(&agent)),
                        || match &claims {
                            Ok((text, sum)) => sum.unwrap_or_else(|| block_checksum(text)),
                            Err(current) => *current,
                        },
                    )
                },
                || wiki_parse::health::validity_of(order, now_ms),
            );
            crate::reuse::Recorded {
                digest,
                claims,
                window,
                // Set once the index files are known.
                reports: 0,
            }
        });
    trace("digest (record)", t);
    // Written last (after the indexes): derived files stay out of the commit, and keeping them at
    // the end lets the committed part be a prefix of the changes (no copy of a vault's worth of
    // page texts; see `derived::prepare`).
    let mut changes = Vec::new();
    for (path, text) in [
        (AGENT_DIGEST_PATH, Some(agent)),
        (CLAIMS_PATH, claims.ok().map(|(text, _)| text)),
    ] {
        // (Seeded files are not the snapshot's own: written even when they stay the same.)
        if let Some(text) = text
            && snapshot.own(path) != Some(text.as_slice())
        {
            changes.push(Change::write(path, text));
        }
    }
    DigestOutputs {
        changes,
        recorded,
        reused: was_reused,
    }
}

/// Links (or only the blob id, without `report_links`) of the re-rendered dashboards.
type DashboardLinks<'a> = Vec<(
    &'a String,
    Result<(Vec<wiki_parse::links::Link>, String), PageError>,
)>;

/// The links of the dashboards `pending` names (path, index in `changes`), in parallel.
fn dashboard_links<'a>(
    pending: &'a [(String, usize)],
    changes: &[Change],
    report_links: bool,
) -> DashboardLinks<'a> {
    pending
        .par_iter()
        .map(|(path, at)| {
            let bytes = changes[*at].content.as_deref().unwrap_or_default();
            let found = if report_links {
                wiki_parse::page::page_links(path, bytes)
            } else {
                Ok((Vec::new(), wiki_parse::page::git_blob_id(bytes)))
            };
            (path, found)
        })
        .collect()
}

/// Put the dashboards' links ([`dashboard_links`]) into their pages, and their blob ids into
/// their changes (the commit takes them from there: hashed once).
fn set_dashboard_links(
    pending: &[(String, usize)],
    links: DashboardLinks<'_>,
    changes: &mut [Change],
    pages: &mut [Page],
    report_links: bool,
) {
    for ((_, at), (_, found)) in pending.iter().zip(&links) {
        if let Ok((_, blob)) = found {
            changes[*at].blob = wiki_store::ObjectId::from_hex(blob.as_bytes()).ok();
        }
    }
    // (The bytes parsed without their links before: reading them again cannot fail.)
    let mut links: HashMap<&String, _> = links.into_iter().collect();
    for page in pages.iter_mut() {
        if let Some(Ok((found, blob_id))) = links.remove(&page.path) {
            page.info.links = found;
            page.info.blob_id = blob_id;
            page.info.links_omitted = !report_links;
        }
    }
}

/// The index files whose managed block changes.
fn index_changes(
    snapshot: &Snapshot,
    order: &[&PageInfo],
    counts: &PageCounts,
    linker: Linker,
) -> Vec<Change> {
    let mut changes = Vec::new();
    for (path, title, block) in index::index_files() {
        let body = match wiki_parse::PageKind::from_path(&path) {
            Some(kind) => index::dir_body(order, kind, linker),
            None => index::root_body(order, counts, linker),
        };
        let original = match snapshot.get(&path) {
            Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            None => format!("# {title}\n"),
        };
        let updated = replace_managed_block(&original, &block, &body);
        if snapshot.get(&path) != Some(updated.as_bytes()) {
            changes.push(Change::write(path, updated));
        }
    }
    changes
}

/// The records of `pages` in the order of `order` (indices into `pages`), without a second
/// vault-sized buffer to fault in (on every operation): the permutation
/// is applied in place, cycle by cycle, and the records are taken out of the pages in place (a
/// `Page` holds its `PageInfo`, so the collect reuses the allocation). Indices that are not a
/// permutation of the pages (not expected; the cost of a mistake would be lost pages) take the
/// copying path.
fn pages_in_order(mut pages: Vec<Page>, order: Vec<usize>) -> Vec<PageInfo> {
    let n = pages.len();
    let mut seen = vec![false; n];
    let permutation = order.len() == n
        && order
            .iter()
            .all(|&i| i < n && !std::mem::replace(&mut seen[i], true));
    if !permutation {
        let mut slots: Vec<Option<Page>> = pages.into_iter().map(Some).collect();
        return order
            .into_iter()
            .filter_map(|i| slots.get_mut(i)?.take().map(|p| p.info))
            .collect();
    }
    // `seen` now marks every position: cleared as each one receives its record.
    for start in 0..n {
        if !seen[start] {
            continue;
        }
        // Follow the cycle through `start`: position `at` receives the record at `order[at]`.
        let mut at = start;
        loop {
            seen[at] = false;
            let from = order[at];
            if from == start {
                break;
            }
            pages.swap(at, from);
            at = from;
        }
    }
    pages.into_iter().map(|p| p.info).collect()
}

fn tracing() -> bool {
    wiki_cli::env_flag("WIKI_COMPILE_TRACE")
}

/// `WIKI_COMPILE_TRACE=1`: phase timings on stderr.
fn trace(phase: &str, since: std::time::Instant) -> std::time::Instant {
    if tracing() {
        wiki_cli::warn(
            "trace",
            &format!(
                "compile {phase} {:.1} ms",
                since.elapsed().as_secs_f64() * 1e3
            ),
        );
    }
    std::time::Instant::now()
}

/// `agent-digest.json` and `claims.jsonl` from the files of the last compile: unchanged cached
/// pages keep their digest object and claim lines, the others are rendered (see
/// [`crate::reuse`]). `None` when the old files do not have the expected shape; `claims.jsonl`
/// is `None` when it does not change (the lines to remove are the lines to add). Each file
/// comes with its [`wiki_vault::checksum::block_checksum`] when it was computed on the way.
#[allow(clippy::too_many_arguments)]
fn reuse_digest(
    snapshot: &Snapshot,
    order: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
    cache: &ParseCache,
    misses: &HashSet<String>,
    clusters: &reports::Clusters,
) -> Option<(Summed, Option<Summed>)> {
    use wiki_parse::PageKind;
    // The old files are spliced as bytes (see `replace_chunks`, `splice_lines`): ~30 MB at
    // 10,000 pages that need no UTF-8 check.
    let old_digest = snapshot.get(AGENT_DIGEST_PATH)?;
    let old_claims = snapshot.get(CLAIMS_PATH)?;
    // Report pages are never hits: their lines are rendered and merged in. Their old lines need
    // no removal: a compile records its files only when no report page carries claims.
    let is_hit = |p: &PageInfo| {
        p.kind != PageKind::Report && !misses.contains(&p.path) && cache.contains(&p.path)
    };
    // Sized once (collecting a filter starts from an empty table and regrows it a dozen times
    // on the way to 10,000 paths).
    let mut kept: HashSet<&str> = HashSet::with_capacity(order.len());
    kept.extend(order.iter().filter(|p| is_hit(p)).map(|p| p.path.as_str()));
    let changed: Vec<&PageInfo> = order.iter().copied().filter(|p| !is_hit(p)).collect();
    // The old versions of the pages that are not hits (edited or gone; reports are never in
    // the old files' claims): their claim lines are removed, their claims taken out of the
    // header's counts.
    let reports = |p: &str| PageKind::from_path(p) == Some(PageKind::Report);
    let removed: Vec<PageInfo> = cache
        .paths()
        .filter(|p| !kept.contains(p) && !reports(p))
        .map(|p| cache.get_any(p))
        .collect::<Option<_>>()?;
    let removed: Vec<&PageInfo> = removed.iter().collect();
    let (digest, claims) = rayon::join(
        // Same pages as the old file (the usual case after an edit): swap the changed objects.
        || {
            let t = std::time::Instant::now();
            let head = crate::reuse::head_from_old(
                old_digest, order, counts, errors, now_ms, clusters, &removed, &changed,
            )
            .unwrap_or_else(|| {
                digest::digest_head_sharing(order, counts, errors, now_ms, clusters)
            });
            let t = trace("digest (reuse: head)", t);
            let objects: Vec<(&str, String)> = changed
                .iter()
                .map(|p| {
                    let mut s = String::new();
                    digest::write_digest_page(p, now_ms, &mut s);
                    (p.path.as_str(), s)
                })
                .collect();
            let buffer = Vec::new();
            let out =
                crate::reuse::replace_chunks(old_digest, &head, order.len(), &objects, buffer)
                    .map(|(bytes, sum)| (bytes, Some(sum)));
            trace("digest (reuse: objects)", t);
            (head, objects, out)
        },
        || {
            let t = std::time::Instant::now();
            // (Sorted together rather than page by page: `same_lines` and `splice_lines` take
            // the lines in any order.)
            let remove = digest::claim_lines(&removed, now_ms);
            let add = digest::claim_lines(&changed, now_ms);
            let out = if crate::reuse::same_lines(&remove, &add) {
                // The file is current, unless it was seeded from another branch
                // ([`Snapshot::own`]): then these same bytes are still to be written.
                let seeded = snapshot.own(CLAIMS_PATH).is_none();
                Some(seeded.then(|| (old_claims.to_vec(), None)))
            } else {
                crate::reuse::splice_lines(old_claims, &remove, add)
                    .map(|(bytes, sum)| Some((bytes, Some(sum))))
            };
            trace("digest (reuse: claims)", t);
            out
        },
    );
    let (head, objects, fast) = digest;
    let claims = claims?;
    let agent = match fast {
        Some(agent) => agent,
        None => {
            // Pages added or removed: index every object of the old file (the header and the
            // objects of the changed pages are those computed above).
            let old_digest = std::str::from_utf8(old_digest).ok()?;
            let chunks = crate::reuse::page_chunks(old_digest)?;
            if kept.iter().any(|p| !chunks.contains_key(*p)) {
                return None;
            }
            let fresh: HashMap<&str, &str> =
                objects.iter().map(|(p, o)| (*p, o.as_str())).collect();
            let bytes = digest::agent_digest_with_head(head, order, now_ms, |p| {
                if is_hit(p) {
                    chunks.get(&p.path).copied()
                } else {
                    fresh.get(p.path.as_str()).copied()
                }
            })
            .into_bytes();
            (bytes, None)
        }
    };
    Some((agent, claims))
}

/// A compiled file and, when known, its [`wiki_vault::checksum::block_checksum`].
type Summed = (Vec<u8>, Option<u64>);

fn yaml_str(s: &str) -> Yaml {
    Yaml::String(s.to_string())
}

fn non_empty_string(v: Option<&Yaml>) -> Option<String> {
    match v {
        Some(Yaml::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A dashboard's current file, as [`render_dashboard`] needs it.
#[derive(Debug, Clone, Copy)]
pub struct DashboardFile<'a> {
    /// Its frontmatter mapping.
    pub frontmatter: &'a yaml_serde::Mapping,
    /// Its whole text.
    pub text: &'a str,
    /// Where its body starts in `text`.
    pub body_offset: usize,
}

impl<'a> From<&'a Page> for DashboardFile<'a> {
    fn from(p: &'a Page) -> Self {
        DashboardFile {
            frontmatter: &p.frontmatter,
            text: &p.text,
            body_offset: p.body_offset,
        }
    }
}

impl<'a> From<&'a wiki_parse::PageFrontmatter<'a>> for DashboardFile<'a> {
    fn from(f: &'a wiki_parse::PageFrontmatter<'a>) -> Self {
        DashboardFile {
            frontmatter: &f.frontmatter,
            text: f.text,
            body_offset: f.body_offset,
        }
    }
}

/// A report page as [`render_report_page`] writes it: a dashboard or one of its shard pages.
pub struct ReportPage<'a> {
    /// The managed block's name (the dashboard's name, or the shard's file stem).
    pub name: &'a str,
    /// `report.<name>`.
    pub id: String,
    /// The page title.
    pub title: &'a str,
}

impl ReportPage<'static> {
    /// The page of dashboard `d`.
    pub fn of(d: &Dashboard) -> ReportPage<'static> {
        ReportPage {
            name: d.name,
            id: d.id(),
            title: d.title,
        }
    }
}

/// Render a dashboard page from its current version (if any) and the new block body; `None`
/// when the file would not change.
pub fn render_dashboard(
    existing: Option<DashboardFile<'_>>,
    d: &Dashboard,
    body: &str,
    now_iso: &str,
) -> Option<String> {
    render_report_page(existing, &ReportPage::of(d), body, now_iso)
}

/// Render a report page (a dashboard or a shard page) from its current version (if any) and
/// the new block body; `None` when the file would not change.
pub fn render_report_page(
    existing: Option<DashboardFile<'_>>,
    d: &ReportPage<'_>,
    body: &str,
    now_iso: &str,
) -> Option<String> {
    let block = Block::report(d.name);
    let default_body = format!("# {}\n", d.title);
    let (mut fm, old_body, original) = match &existing {
        Some(f) => (
            f.frontmatter.clone(),
            f.text.get(f.body_offset..).unwrap_or(""),
            f.text,
        ),
        None => (yaml_serde::Mapping::new(), default_body.as_str(), ""),
    };
    let old_body = if old_body.trim().is_empty() {
        default_body.as_str()
    } else {
        old_body
    };
    // One buffer: the frontmatter goes in front of it at the end (`render_page_owned`).
    let mut new_body = String::new();
    wiki_parse::markers::replace_managed_block_into(&mut new_body, old_body, &block, body);
    let status = non_empty_string(fm.get("status")).unwrap_or_else(|| "active".into());
    let kept_updated = non_empty_string(fm.get("updatedAt"));
    fm.insert(yaml_str("pageType"), yaml_str("report"));
    fm.insert(yaml_str("id"), yaml_str(&d.id));
    fm.insert(yaml_str("title"), yaml_str(d.title));
    fm.insert(yaml_str("status"), yaml_str(&status));
    if existing.is_some() {
        fm.insert(
            yaml_str("updatedAt"),
            yaml_str(kept_updated.as_deref().unwrap_or(now_iso)),
        );
        if wiki_parse::page::is_rendered_page(original, &fm, &new_body) {
            return None;
        }
    }
    fm.insert(yaml_str("updatedAt"), yaml_str(now_iso));
    Some(wiki_parse::page::render_page_owned(&fm, new_body))
}

/// Call `f` with the current version of the report page at `path` (`None` when there is
/// none). `None` without calling it when the file is there but does not parse: it is left to the
/// human (and reported), unless it is only too large to be a page (a dashboard written whole
/// before dashboards were split): that one is rendered anew.
fn with_report_file<R>(
    snapshot: &Snapshot,
    parsed_pages: &[Page],
    path: &str,
    f: impl FnOnce(Option<DashboardFile<'_>>) -> R,
) -> Option<R> {
    let existing = parsed_pages.iter().find(|p| p.path == path);
    let problem = snapshot.problems().iter().find(|e| e.path == path);
    let oversized = problem.is_some_and(|e| e.message.contains("too large to be a page"));
    if existing.is_none() && !oversized && (snapshot.get(path).is_some() || problem.is_some()) {
        return None;
    }
    // A page from the parse cache has no frontmatter mapping: read it (only the frontmatter:
    // the rest of a large dashboard's parse is not needed).
    let reparsed = existing
        .filter(|p| p.has_frontmatter && p.frontmatter.is_empty())
        .and_then(|_| wiki_parse::parse_frontmatter(path, snapshot.get(path)?).ok());
    let file = match (&reparsed, existing) {
        (Some(fm), _) => Some(DashboardFile::from(fm)),
        // From the cache without its text (`parse_hit_for_compile`) and no longer readable:
        // leave it.
        (None, Some(p)) if p.has_frontmatter && p.text.is_empty() => return None,
        (None, existing) => existing.map(DashboardFile::from),
    };
    Some(f(file))
}

/// The body of dashboard `d`: patched into its current body after one page changed when it has
/// a patch ([`reports::patch_claim_health`] and others) and the current body is one page (not a
/// summary of shard pages), else rendered whole.
fn dashboard_body(
    d: &Dashboard,
    input: &ReportInput<'_>,
    order: &[&PageInfo],
    one_edit: Option<(&str, &PageInfo)>,
    file: Option<DashboardFile<'_>>,
) -> Option<String> {
    let patch = match d.name {
        "claim-health" => Some(reports::patch_claim_health as PatchFn),
        "low-confidence" => Some(reports::patch_low_confidence as PatchFn),
        "stale-pages" => Some(reports::patch_stale_pages as PatchFn),
        "person-agent-directory" => Some(reports::patch_person_directory as PatchFn),
        _ => None,
    };
    let patched = one_edit
        .zip(patch)
        .zip(file)
        .and_then(|(((path, old), patch), file)| {
            let at = order.iter().position(|p| p.path == path)?;
            let old_body = wiki_parse::markers::block_body(file.text, &Block::report(d.name))?;
            if old_body.contains(crate::shards::SUMMARY_MARKER) {
                return None;
            }
            patch(old_body, input, old, at)
        });
    if tracing() && patch.is_some() {
        wiki_cli::warn(
            "trace",
            &format!("compile {} patched {}", d.name, patched.is_some()),
        );
    }
    match patched {
        Some(body) => Some(body),
        None => reports::report_body(d.name, input),
    }
}

/// The stem of `path` when it is a shard page of dashboard `name` (`reports/<name>-<key>.md`).
fn shard_stem<'a>(name: &str, path: &'a str) -> Option<&'a str> {
    let stem = path.strip_prefix("reports/")?.strip_suffix(".md")?;
    crate::shards::is_shard_of(name, stem).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(n: usize) -> Vec<Page> {
        (0..n)
            .map(|i| {
                let path = format!("entities/p{i}.md");
                let text = format!("---\nid: entity.p{i}\ntitle: P{i}\n---\n# P{i}\n");
                wiki_parse::parse_page(&path, text.as_bytes()).expect("page parses")
            })
            .collect()
    }

    #[test]
    fn pages_in_order_moves_each_record_to_its_place() {
        let mut next = crate::test_rng(0x9E37_79B9_7F4A_7C15);
        for n in [0, 1, 2, 3, 7, 50] {
            for _ in 0..20 {
                let mut order: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    order.swap(i, next(i + 1));
                }
                let want: Vec<String> =
                    order.iter().map(|&i| format!("entities/p{i}.md")).collect();
                let got: Vec<String> = pages_in_order(pages(n), order.clone())
                    .into_iter()
                    .map(|p| p.path)
                    .collect();
                assert_eq!(got, want, "order {order:?}");
            }
        }
        // Not a permutation (a repeated or missing index, or one out of range): each index
        // still yields its page at most once, in order.
        let got: Vec<String> = pages_in_order(pages(3), vec![2, 2, 0, 9])
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(got, ["entities/p2.md", "entities/p0.md"]);
    }
}
