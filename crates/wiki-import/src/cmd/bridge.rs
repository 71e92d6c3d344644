//! `wiki bridge import [--workspace DIR]`.

use std::cell::Cell;
use std::path::PathBuf;

use serde_json::json;
use wiki_apply::session::Session;
use wiki_cli::{CliError, GlobalArgs};

use crate::bridge;
use crate::sync::SyncBatch;
use wiki_cli::config::settings::VaultMode;

/// The memory bridge: public memory artifacts of agent workspaces.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: BridgeCommand,
}

/// `wiki bridge` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum BridgeCommand {
    /// Import `MEMORY.md`, `memory/**/*.md` (daily notes, dream reports) and event logs of the
    /// agent workspaces as `sources/bridge-*.md` pages, in one commit.
    ///
    /// Needs `vaultMode: "bridge"`, `bridge.enabled` and `bridge.readMemoryArtifacts` in the
    /// OpenClaw config; `bridge.indexMemoryRoot`, `indexDailyNotes`, `indexDreamReports` and
    /// `followMemoryEvents` choose the kinds. The workspaces are the configured agents'
    /// (`agents.list[].workspace`, `agents.defaults.workspace`, `~/.openclaw/workspace`), or
    /// `--workspace`. Unchanged artifacts are skipped (`.openclaw-wiki/source-sync.json`);
    /// pages of artifacts gone from a workspace that was read are removed. Exit status: 0
    /// done, 1 done but some artifacts could not be read, 2 error.
    Import {
        /// Read this workspace instead of the configured agents' workspaces.
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
    },
}

/// Run `wiki bridge`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let BridgeCommand::Import { workspace } = &args.command;
    let format = super::format(global)?;
    let now = super::now(global)?;
    let cfg = wiki_cli::config::load()?;
    let file = cfg.source.as_ref().map_or_else(
        || wiki_cli::config::config_path().display().to_string(),
        |p| p.display().to_string(),
    );
    let b = &cfg.settings.bridge;
    if cfg.settings.vault_mode != VaultMode::Bridge || !b.enabled || !b.read_memory_artifacts {
        return Err(CliError::Usage(format!(
            "bridge import is off: it needs vaultMode \"bridge\" (now \"{}\"), bridge.enabled true (now {}) and bridge.readMemoryArtifacts true (now {}) in {file}",
            cfg.settings.vault_mode.as_str(),
            b.enabled,
            b.read_memory_artifacts
        )));
    }
    let session = Session::open(global)?;
    let agent = global.agent_id()?;
    let cwd = std::env::current_dir().map_err(CliError::runtime)?;
    let explicit = workspace.as_ref().map(|w| crate::guard::absolute(w, &cwd));
    let plan = bridge::plan(&cfg, explicit.as_deref(), agent.as_deref());
    let read = plan.workspaces.clone();
    let keep = move |e: &crate::sync::Entry| bridge::keep_unseen(&read, e);
    let refresh = Cell::new(false);
    let mut batch = SyncBatch {
        group: "bridge",
        op: "bridge-import",
        command: "bridge import",
        docs: &plan.docs,
        keep_unseen: &keep,
        now: &now,
        worktree: session.checked_out.then_some(session.vault.as_path()),
        refresh: &refresh,
        auto_compile: cfg.settings.ingest.auto_compile,
        outcome: Default::default(),
    };
    let what = format!(
        "Bridge import synced {} artifacts across {} workspaces",
        plan.docs.len(),
        plan.workspace_count
    );
    super::run_sync(
        &session,
        &mut batch,
        format,
        &what,
        json!({ "workspaces": plan.workspace_count }),
    )
}
