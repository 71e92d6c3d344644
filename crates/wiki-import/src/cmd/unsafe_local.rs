//! `wiki unsafe-local import`.

use std::cell::Cell;

use serde_json::json;
use wiki_apply::session::Session;
use wiki_cli::{CliError, GlobalArgs};

use crate::sync::SyncBatch;
use crate::unsafe_local;
use wiki_cli::config::settings::VaultMode;

/// Unsafe-local mode: explicitly configured private paths on this machine.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: UnsafeLocalCommand,
}

/// `wiki unsafe-local` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum UnsafeLocalCommand {
    /// Import the files of `unsafeLocal.paths` as `sources/unsafe-local-*.md` pages, in one
    /// commit.
    ///
    /// Needs `vaultMode: "unsafe-local"`, `unsafeLocal.allowPrivateMemoryCoreAccess: true` and
    /// at least one `unsafeLocal.paths` entry in the OpenClaw config. A directory contributes
    /// its `.json .jsonl .md .txt .yaml .yml` files, a file itself. Unchanged files are skipped;
    /// files deleted from a readable directory lose their page, a directory that is missing for
    /// now keeps its pages. Exit status: 0 done, 1 done but some files could not be read, 2
    /// error (including the mode being off).
    Import,
}

/// Run `wiki unsafe-local`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let UnsafeLocalCommand::Import = &args.command;
    let format = super::format(global)?;
    let now = super::now(global)?;
    let cfg = wiki_cli::config::load()?;
    let u = &cfg.settings.unsafe_local;
    let file = cfg.source.as_ref().map_or_else(
        || wiki_cli::config::config_path().display().to_string(),
        |p| p.display().to_string(),
    );
    if cfg.settings.vault_mode != VaultMode::UnsafeLocal
        || !u.allow_private_memory_core_access
        || u.paths.is_empty()
    {
        return Err(CliError::Usage(format!(
            "unsafe-local import is off: it needs vaultMode \"unsafe-local\" (now \"{}\"), unsafeLocal.allowPrivateMemoryCoreAccess true (now {}) and at least one unsafeLocal.paths entry (now {}) in {file}",
            cfg.settings.vault_mode.as_str(),
            u.allow_private_memory_core_access,
            u.paths.len()
        )));
    }
    let session = Session::open(global)?;
    let plan = unsafe_local::plan(&u.paths);
    let unavailable = plan.unavailable.clone();
    let keep = move |e: &crate::sync::Entry| unsafe_local::keep_unseen(&unavailable, e);
    let refresh = Cell::new(false);
    let mut batch = SyncBatch {
        group: "unsafe-local",
        op: "unsafe-local-import",
        command: "unsafe-local import",
        docs: &plan.docs,
        keep_unseen: &keep,
        now: &now,
        worktree: session.checked_out.then_some(session.vault.as_path()),
        refresh: &refresh,
        auto_compile: cfg.settings.ingest.auto_compile,
        outcome: Default::default(),
    };
    let what = format!("Unsafe-local import synced {} artifacts", plan.docs.len());
    super::run_sync(
        &session,
        &mut batch,
        format,
        &what,
        json!({ "configuredPathCount": u.paths.len(), "workspaces": 0 }),
    )
}
