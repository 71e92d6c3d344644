//! `wiki status`: the original's status object (reference §12) plus what a git-native vault
//! needs — branch and agent, uncommitted changes, compiled files current or stale, the search
//! index and server, the repository's size.
//!
//! A pure read: unlike the original (whose CLI runs the import sync and a compile first), status
//! writes nothing; a vault that needs a compile says so (`compiled-stale`).

use std::path::Path;

use serde::Serialize;
use wiki_cli::config::{self, SourceKind, VaultMode, VaultScope, WikiConfig};
use wiki_cli::{CliError, GlobalArgs};
use wiki_digest::{CompileOptions, RenderConfig, VaultContext};
use wiki_parse::PageKind;

use crate::findings::{self, Finding, Invocation};

/// The resolved bridge settings, as the original prints them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeStatus {
    /// `bridge.enabled`.
    pub enabled: bool,
    /// `bridge.readMemoryArtifacts`.
    pub read_memory_artifacts: bool,
    /// `bridge.indexDreamReports`.
    pub index_dream_reports: bool,
    /// `bridge.indexDailyNotes`.
    pub index_daily_notes: bool,
    /// `bridge.indexMemoryRoot`.
    pub index_memory_root: bool,
    /// `bridge.followMemoryEvents`.
    pub follow_memory_events: bool,
}

/// The official Obsidian CLI.
#[derive(Debug, Clone, Serialize)]
pub struct ObsidianCli {
    /// `obsidian.enabled`.
    pub enabled: bool,
    /// `obsidian.enabled && obsidian.useOfficialCli`.
    pub requested: bool,
    /// An executable `obsidian` is on `PATH`.
    pub available: bool,
    /// Its path.
    pub command: Option<String>,
}

/// `unsafeLocal.*` in short.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsafeLocalStatus {
    /// `unsafeLocal.allowPrivateMemoryCoreAccess`.
    pub allow_private_memory_core_access: bool,
    /// `unsafeLocal.paths` count.
    pub path_count: usize,
}

/// Pages per kind (the pages there now, `index.md` excluded).
#[derive(Debug, Clone, Default, Serialize)]
pub struct PageCounts {
    /// `entities/`.
    pub entity: usize,
    /// `concepts/`.
    pub concept: usize,
    /// `sources/`.
    pub source: usize,
    /// `syntheses/`.
    pub synthesis: usize,
    /// `reports/`.
    pub report: usize,
}

/// Source pages by provenance.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceCounts {
    /// No `sourceType`.
    pub native: usize,
    /// `sourceType: memory-bridge`.
    pub bridge: usize,
    /// `sourceType: memory-bridge-events`.
    pub bridge_events: usize,
    /// `sourceType: memory-unsafe-local` or `provenanceMode: unsafe-local`.
    pub unsafe_local: usize,
    /// Any other `sourceType` (`local-file`, `chatgpt-export`, `okf` …).
    pub other: usize,
}

/// The repository.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitStatus {
    /// The checked-out branch (`None`: detached `HEAD`).
    pub branch: Option<String>,
    /// The branch this status reads (`agents/<id>` for an agent whose branch is not checked
    /// out, else the checked-out branch).
    pub target_branch: Option<String>,
    /// Whether the target branch exists yet (an agent's is created by its first write).
    pub target_exists: bool,
    /// Vault files with uncommitted changes in the work tree (at most 50 listed).
    pub uncommitted: Vec<String>,
    /// How many there are.
    pub uncommitted_count: usize,
    /// Loose object files.
    pub loose_objects: u64,
    /// Their bytes.
    pub loose_bytes: u64,
    /// Packs.
    pub packs: u64,
    /// Their bytes (with indexes).
    pub pack_bytes: u64,
}

/// The compiled files.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompiledStatus {
    /// Committed outputs (Related blocks, indexes, dashboards) match what a compile writes.
    pub current: bool,
    /// The committed files a compile would change.
    pub stale_files: Vec<String>,
    /// `agent-digest.json` and `claims.jsonl` match too.
    pub caches_current: bool,
    /// Pages that cannot be read or parsed (`path:line: message`).
    pub page_errors: Vec<String>,
}

/// The search index of the view read.
#[derive(Debug, Clone, Serialize)]
pub struct IndexStatus {
    /// `fresh`, `stale` or `missing`.
    pub state: &'static str,
    /// Indexed files.
    pub files: usize,
    /// Files changed since the last refresh.
    pub changed: usize,
}

/// The search server.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    /// Whether one runs for the vault.
    pub running: bool,
}

/// The whole status: the original's fields first, in its order, then ours.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// `global` or `agent`.
    pub vault_scope: &'static str,
    /// The agent acted as (`None`: the checked-out branch).
    pub agent_id: Option<String>,
    /// `vaultMode`.
    pub vault_mode: &'static str,
    /// The link style compile uses.
    pub render_mode: &'static str,
    /// The vault directory.
    pub vault_path: String,
    /// Whether it holds `.openclaw-wiki/`.
    pub vault_exists: bool,
    /// `bridge.*`.
    pub bridge: BridgeStatus,
    /// Public memory artifacts the bridge sees (only in bridge mode with the bridge enabled).
    pub bridge_public_artifact_count: Option<usize>,
    /// The Obsidian CLI.
    pub obsidian_cli: ObsidianCli,
    /// `unsafeLocal.*`.
    pub unsafe_local: UnsafeLocalStatus,
    /// Pages per kind.
    pub page_counts: PageCounts,
    /// Source pages by provenance.
    pub source_counts: SourceCounts,
    /// What is wrong.
    pub warnings: Vec<Finding>,
    /// The repository (absent when the vault is missing or not in git).
    pub git: Option<GitStatus>,
    /// The compiled files (absent when the vault cannot be compiled).
    pub compiled: Option<CompiledStatus>,
    /// The search index.
    pub search_index: Option<IndexStatus>,
    /// The search server.
    pub search_server: Option<ServerStatus>,
}

/// Loose objects above this size are worth packing (what makes a commit pack by itself).
pub const LOOSE_BYTES_WARNING: u64 = 64 * 1024 * 1024;

/// The `obsidian` executable on `PATH`, if any.
pub fn find_on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        let candidate = dir.join(name);
        let meta = std::fs::metadata(&candidate).ok()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(candidate)
        }
        #[cfg(not(unix))]
        {
            meta.is_file().then_some(candidate)
        }
    })
}

/// How the suggested fixes address the vault and agent.
fn invocation(global: &GlobalArgs) -> Invocation {
    Invocation {
        vault: global
            .vault
            .as_ref()
            .map(|v| v.to_string_lossy().into_owned()),
        agent: global.agent.clone(),
    }
}

/// Collect the status of the vault `global` designates.
pub fn collect(global: &GlobalArgs) -> Result<Status, CliError> {
    let cfg = config::load()?;
    let vault = global.vault_setting()?.value;
    let agent = global.agent_setting(&cfg)?.value;
    let inv = invocation(global);
    let s = &cfg.settings;
    let exe = find_on_path("obsidian");
    let mut status = Status {
        vault_scope: s.vault.scope.as_str(),
        agent_id: agent.clone(),
        vault_mode: s.vault_mode.as_str(),
        render_mode: s.vault.render_mode.as_str(),
        vault_path: vault.display().to_string(),
        vault_exists: vault.join(wiki_cli::VAULT_MARKER_DIR).is_dir(),
        bridge: BridgeStatus {
            enabled: s.bridge.enabled,
            read_memory_artifacts: s.bridge.read_memory_artifacts,
            index_dream_reports: s.bridge.index_dream_reports,
            index_daily_notes: s.bridge.index_daily_notes,
            index_memory_root: s.bridge.index_memory_root,
            follow_memory_events: s.bridge.follow_memory_events,
        },
        bridge_public_artifact_count: None,
        obsidian_cli: ObsidianCli {
            enabled: s.obsidian.enabled,
            requested: s.obsidian.enabled && s.obsidian.use_official_cli,
            available: exe.is_some(),
            command: exe.map(|p| p.display().to_string()),
        },
        unsafe_local: UnsafeLocalStatus {
            allow_private_memory_core_access: s.unsafe_local.allow_private_memory_core_access,
            path_count: s.unsafe_local.paths.len(),
        },
        page_counts: PageCounts::default(),
        source_counts: SourceCounts::default(),
        warnings: Vec::new(),
        git: None,
        compiled: None,
        search_index: None,
        search_server: None,
    };
    if s.vault_mode == VaultMode::Bridge && s.bridge.enabled {
        let scoped = (s.vault.scope == VaultScope::Agent).then_some(agent.as_deref());
        status.bridge_public_artifact_count = Some(crate::artifacts::count(&cfg, scoped.flatten()));
    }
    status.warnings = config_findings(&cfg, &status, &inv);
    if status.vault_exists {
        vault_facts(global, &cfg, &vault, &inv, &mut status)?;
    }
    Ok(status)
}

/// The original's warnings (reference §12), in its order.
fn config_findings(cfg: &WikiConfig, status: &Status, inv: &Invocation) -> Vec<Finding> {
    let s = &cfg.settings;
    let mut out = Vec::new();
    if !status.vault_exists {
        out.push(findings::vault_missing(inv, &status.vault_path));
    }
    if status.obsidian_cli.requested && !status.obsidian_cli.available {
        out.push(findings::obsidian_cli_missing());
    }
    if s.vault_mode == VaultMode::Bridge {
        if !s.bridge.enabled {
            out.push(findings::bridge_disabled());
        } else if s.bridge.read_memory_artifacts && status.bridge_public_artifact_count == Some(0) {
            out.push(findings::bridge_artifacts_missing());
        }
    }
    let allow = s.unsafe_local.allow_private_memory_core_access;
    if s.vault_mode == VaultMode::UnsafeLocal {
        if !allow {
            out.push(findings::unsafe_local_disabled());
        } else if s.unsafe_local.paths.is_empty() {
            out.push(findings::unsafe_local_paths_missing());
        }
    } else if allow {
        out.push(findings::unsafe_local_without_mode());
    }
    out
}

/// Everything read from the vault itself: pages, git, compiled files, search index.
fn vault_facts(
    global: &GlobalArgs,
    cfg: &WikiConfig,
    vault: &Path,
    inv: &Invocation,
    status: &mut Status,
) -> Result<(), CliError> {
    let mut ctx = match VaultContext::open(global) {
        Ok(ctx) => ctx,
        Err(e) if e.to_string().contains("not inside a git repository") => {
            status
                .warnings
                .push(findings::not_a_git_repository(&status.vault_path));
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let snapshot = ctx.snapshot()?;
    if cfg.source_of("vault.renderMode").kind == SourceKind::Default
        && let Some(mode) = snapshot.render_mode()
    {
        status.render_mode = mode.as_str();
    }
    count_pages(&snapshot, status);
    let opts = CompileOptions::new(ctx.now()?)
        .with_render(RenderConfig::from_config(cfg))
        .with_parse_cache(ctx.root(), true);
    // A pure read: the parse cache is not saved.
    let result = wiki_digest::compile(&snapshot, &opts);
    count_sources(&result.pages, &snapshot, status);
    let (derived, committed): (Vec<_>, Vec<_>) = result
        .updated_files()
        .into_iter()
        .map(str::to_string)
        .partition(|p| wiki_digest::derived::is_derived(p));
    let compiled = CompiledStatus {
        current: committed.is_empty(),
        stale_files: committed,
        caches_current: derived.is_empty(),
        page_errors: result.errors.iter().map(|e| e.to_string()).collect(),
    };
    let uncommitted = ctx
        .store()
        .uncommitted()
        .map_err(|e| CliError::Runtime(e.to_string()))?;
    let objects = ctx.store().object_stats();
    let target_exists = match ctx.mode() {
        wiki_digest::context::Mode::Agent { exists, .. } => *exists,
        wiki_digest::context::Mode::Worktree { .. } => true,
    };
    let w = &mut status.warnings;
    if !uncommitted.is_empty() {
        w.push(findings::uncommitted_changes(
            &status.vault_path,
            &uncommitted,
        ));
    }
    if !compiled.page_errors.is_empty() {
        w.push(findings::page_errors(inv, &compiled.page_errors));
    }
    if !compiled.current {
        w.push(findings::compiled_stale(inv, &compiled.stale_files));
    } else if !compiled.caches_current {
        w.push(findings::compiled_cache_stale(inv));
    }
    if objects.loose_bytes > LOOSE_BYTES_WARNING {
        w.push(findings::loose_objects(
            inv,
            objects.loose_objects,
            &wiki_store::human_size(objects.loose_bytes),
        ));
    }
    status.git = Some(GitStatus {
        branch: ctx.store().current_branch().ok().flatten(),
        target_branch: ctx.branch().map(str::to_string),
        target_exists,
        uncommitted_count: uncommitted.len(),
        uncommitted: uncommitted.into_iter().take(50).collect(),
        loose_objects: objects.loose_objects,
        loose_bytes: objects.loose_bytes,
        packs: objects.packs,
        pack_bytes: objects.pack_bytes,
    });
    status.compiled = Some(compiled);
    status.search_index = Some(index_status(vault, ctx.agent()));
    status.search_server = Some(ServerStatus {
        running: wiki_search::server::running(vault),
    });
    Ok(())
}

fn count_pages(snapshot: &wiki_vault::Snapshot, status: &mut Status) {
    let c = &mut status.page_counts;
    for path in snapshot.page_paths() {
        match PageKind::from_path(path) {
            Some(PageKind::Entity) => c.entity += 1,
            Some(PageKind::Concept) => c.concept += 1,
            Some(PageKind::Source) => c.source += 1,
            Some(PageKind::Synthesis) => c.synthesis += 1,
            Some(PageKind::Report) => c.report += 1,
            None => {}
        }
    }
}

/// Source provenance of the source pages there now (the compile's parsed pages; compile does
/// not create source pages).
fn count_sources(
    pages: &[wiki_parse::PageInfo],
    snapshot: &wiki_vault::Snapshot,
    status: &mut Status,
) {
    let c = &mut status.source_counts;
    for page in pages.iter().filter(|p| p.kind == PageKind::Source) {
        if snapshot.get(&page.path).is_none() {
            continue;
        }
        let summary = &page.summary;
        match summary.source_type.as_deref() {
            Some("memory-bridge-events") => c.bridge_events += 1,
            Some("memory-bridge") => c.bridge += 1,
            Some("memory-unsafe-local") => c.unsafe_local += 1,
            _ if summary.provenance_mode.as_deref() == Some("unsafe-local") => c.unsafe_local += 1,
            None => c.native += 1,
            Some(_) => c.other += 1,
        }
    }
}

fn index_status(vault: &Path, agent: Option<&str>) -> IndexStatus {
    let state = wiki_search::resolve_view(vault, agent)
        .and_then(|view| wiki_search::index_state(vault, &view));
    match state {
        Ok(wiki_search::IndexState::Fresh { files }) => IndexStatus {
            state: "fresh",
            files,
            changed: 0,
        },
        Ok(wiki_search::IndexState::Stale { files, changed }) => IndexStatus {
            state: "stale",
            files,
            changed,
        },
        Ok(wiki_search::IndexState::Missing) | Err(_) => IndexStatus {
            state: "missing",
            files: 0,
            changed: 0,
        },
    }
}
