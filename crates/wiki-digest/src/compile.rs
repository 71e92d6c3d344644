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
//! Every file is rendered and compared with its current bytes; only differences are returned,
//! in write order (related pages in title order, dashboards, digest, claims, indexes), which is
//! also the `updatedFiles` order of the original. Compiling the result again yields no changes
//! (as long as the clock does not move a claim across a freshness boundary).

use rayon::prelude::*;
use wiki_parse::layout::RenderMode;
use wiki_parse::markers::{Block, replace_managed_block};
use wiki_parse::page::{git_blob_id, render_page};
use wiki_parse::pagecache::{ParseCache, TextLayout};
use wiki_parse::vault::VaultPages;
use wiki_parse::{Page, PageError, PageInfo, parse_page};
use wiki_store::Change;
use yaml_serde::Value as Yaml;

use crate::digest;
use crate::index;
use crate::pages::{Linker, PageCounts, title_order};
use crate::related::RelatedIndex;
use crate::reports::{self, DASHBOARDS, Dashboard, ReportInput};
use crate::snapshot::Snapshot;

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
}

impl CompileOptions {
    /// Defaults (backlinks and dashboards on, render mode from the vault) at `now`.
    pub fn new(now: jiff::Timestamp) -> CompileOptions {
        CompileOptions {
            now,
            render_mode: None,
            backlinks: true,
            dashboards: true,
        }
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
    /// Text layout of every non-report page after the compile (for the parse cache).
    pub layouts: std::collections::HashMap<String, TextLayout>,
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

/// Compile a snapshot (parses its pages first; see [`compile_parsed`]).
pub fn compile(snapshot: &Snapshot, opts: &CompileOptions) -> CompileResult {
    compile_cached(snapshot, opts, &ParseCache::empty())
}

/// [`compile`], reusing the parsed pages of `cache` whose path and blob id match (the result is
/// the same; only parsing is skipped). Save the cache for the next run with
/// [`save_parse_cache`].
pub fn compile_cached(
    snapshot: &Snapshot,
    opts: &CompileOptions,
    cache: &ParseCache,
) -> CompileResult {
    let t = std::time::Instant::now();
    let parsed = snapshot.parse_for_compile_cached(cache);
    trace("parse", t);
    compile_parsed(snapshot, parsed, opts)
}

/// Write the parse cache of the vault at `vault_dir` from a compile result: the next compile of
/// the resulting files parses only what changed (see [`wiki_parse::pagecache`]).
pub fn save_parse_cache(
    vault_dir: &std::path::Path,
    result: &CompileResult,
) -> std::io::Result<()> {
    wiki_parse::pagecache::save(
        vault_dir,
        result
            .pages
            .iter()
            .filter_map(|p| result.layouts.get(&p.path).map(|l| (p, *l))),
    )
}

/// Compile a snapshot whose pages the caller already parsed (with [`Snapshot::parse`]), so
/// callers that also need the pages (lint) parse only once.
pub fn compile_parsed(
    snapshot: &Snapshot,
    parsed: VaultPages,
    opts: &CompileOptions,
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
    let mut t = std::time::Instant::now();

    // 2. Related blocks.
    if opts.backlinks {
        let updates: Vec<(usize, String)> = {
            let infos: Vec<&PageInfo> = parsed_pages.iter().map(|p| &p.info).collect();
            let order = title_order(infos.iter().copied());
            let rel = RelatedIndex::new(&order, linker);
            let mut position: std::collections::HashMap<&str, usize> =
                std::collections::HashMap::with_capacity(parsed_pages.len());
            for (i, p) in parsed_pages.iter().enumerate() {
                position.insert(p.path.as_str(), i);
            }
            order
                .par_iter()
                .filter_map(|info| {
                    let i = *position.get(info.path.as_str())?;
                    let page = &parsed_pages[i];
                    if page.text.trim().is_empty() {
                        return None;
                    }
                    let body = rel.body(&page.path)?;
                    let updated = replace_managed_block(&page.text, &Block::related(), &body);
                    (updated != page.text).then_some((i, updated))
                })
                .collect()
        };
        for (i, text) in updates {
            let page = &mut parsed_pages[i];
            page.info.blob_id = git_blob_id(text.as_bytes());
            changes.push(Change::write(page.path.clone(), text));
        }
    }
    t = trace("related", t);
    let layouts: std::collections::HashMap<String, TextLayout> = parsed_pages
        .iter()
        .filter(|p| p.kind != wiki_parse::PageKind::Report)
        .map(|p| (p.path.clone(), TextLayout::of(p)))
        .collect();
    // Only dashboards need their text from here on: free the rest (a vault's worth of bytes).
    for page in parsed_pages
        .iter_mut()
        .filter(|p| p.kind != wiki_parse::PageKind::Report)
    {
        page.text = String::new();
        page.body_offset = 0;
    }

    // 3. Dashboards.
    if opts.dashboards {
        let managed = snapshot.managed_source_paths();
        let rendered: Vec<(Dashboard, String)> = {
            let order = title_order(parsed_pages.iter().map(|p| &p.info));
            let input = ReportInput {
                pages: &order,
                now_ms,
                linker,
                managed_sources: &managed,
            };
            DASHBOARDS
                .par_iter()
                .filter_map(|d| {
                    let path = d.path();
                    let existing = parsed_pages.iter().find(|p| p.path == path);
                    let unreadable = snapshot.problems().iter().any(|e| e.path == path);
                    if existing.is_none() && (snapshot.get(&path).is_some() || unreadable) {
                        // The file exists but does not parse: leave it to the human (reported).
                        return None;
                    }
                    let body = reports::report_body(d.name, &input)?;
                    render_dashboard(existing, d, &body, &now_iso).map(|t| (*d, t))
                })
                .collect()
        };
        for (d, text) in rendered {
            let path = d.path();
            changes.push(Change::write(path.clone(), text.clone()));
            match parse_page(&path, text.as_bytes()) {
                Ok(page) => match parsed_pages.iter_mut().find(|p| p.path == path) {
                    Some(slot) => *slot = page,
                    None => parsed_pages.push(page),
                },
                Err(_) => parsed_pages.retain(|p| p.path != path),
            }
        }
    }

    t = trace("dashboards", t);
    // Title order as indices, so the pages can be moved (not cloned) into the result.
    let order_idx: Vec<usize> = {
        let mut idx: Vec<usize> = (0..parsed_pages.len()).collect();
        let info = |i: &usize| &parsed_pages[*i].info;
        idx.sort_by(|a, b| crate::pages::scan_cmp(info(a), info(b)));
        idx.sort_by(|a, b| wiki_parse::health::locale_cmp(&info(a).title, &info(b).title));
        idx
    };
    let order: Vec<&PageInfo> = order_idx.iter().map(|&i| &parsed_pages[i].info).collect();
    let counts = PageCounts::of(order.iter().copied());
    let claim_count: usize = order.iter().map(|p| p.summary.claims.len()).sum();

    t = trace("order", t);
    // 4. Digest and claims.
    let (agent, claims) = rayon::join(
        || digest::agent_digest(&order, &counts, &errors, now_ms),
        || digest::claims_jsonl(&order, now_ms),
    );
    for (path, text) in [
        (wiki_parse::layout::AGENT_DIGEST_PATH, agent),
        (wiki_parse::layout::CLAIMS_PATH, claims),
    ] {
        if snapshot.get(path) != Some(text.as_bytes()) {
            changes.push(Change::write(path, text));
        }
    }

    t = trace("digest+claims", t);
    // 5. Indexes.
    for (path, title, block) in index::index_files() {
        let body = match wiki_parse::PageKind::from_path(&path) {
            Some(kind) => index::dir_body(&order, kind, linker),
            None => index::root_body(&order, &counts, linker),
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
    drop(order);
    trace("indexes", t);

    let mut slots: Vec<Option<Page>> = parsed_pages.into_iter().map(Some).collect();
    let pages: Vec<PageInfo> = order_idx
        .into_iter()
        .filter_map(|i| slots[i].take().map(|p| p.info))
        .collect();
    CompileResult {
        changes,
        pages,
        errors,
        page_counts: counts,
        claim_count,
        render_mode,
        layouts,
    }
}

/// `WIKI_COMPILE_TRACE=1`: phase timings on stderr.
fn trace(phase: &str, since: std::time::Instant) -> std::time::Instant {
    if std::env::var_os("WIKI_COMPILE_TRACE").is_some_and(|v| !v.is_empty() && v != "0") {
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

fn yaml_str(s: &str) -> Yaml {
    Yaml::String(s.to_string())
}

fn non_empty_string(v: Option<&Yaml>) -> Option<String> {
    match v {
        Some(Yaml::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// Render a dashboard page from its current version (if any) and the new block body; `None`
/// when the file would not change.
pub fn render_dashboard(
    existing: Option<&Page>,
    d: &Dashboard,
    body: &str,
    now_iso: &str,
) -> Option<String> {
    let block = Block::report(d.name);
    let default_body = format!("# {}\n", d.title);
    let (mut fm, old_body, original) = match existing {
        Some(p) => (p.frontmatter.clone(), p.body(), p.text.as_str()),
        None => (yaml_serde::Mapping::new(), default_body.as_str(), ""),
    };
    let old_body = if old_body.trim().is_empty() {
        default_body.as_str()
    } else {
        old_body
    };
    let new_body = replace_managed_block(old_body, &block, body);
    let status = non_empty_string(fm.get("status")).unwrap_or_else(|| "active".into());
    let kept_updated = non_empty_string(fm.get("updatedAt"));
    fm.insert(yaml_str("pageType"), yaml_str("report"));
    fm.insert(yaml_str("id"), yaml_str(&d.id()));
    fm.insert(yaml_str("title"), yaml_str(d.title));
    fm.insert(yaml_str("status"), yaml_str(&status));
    if existing.is_some() {
        fm.insert(
            yaml_str("updatedAt"),
            yaml_str(kept_updated.as_deref().unwrap_or(now_iso)),
        );
        if render_page(&fm, &new_body) == original {
            return None;
        }
    }
    fm.insert(yaml_str("updatedAt"), yaml_str(now_iso));
    Some(render_page(&fm, &new_body))
}
