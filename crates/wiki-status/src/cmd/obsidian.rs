//! `wiki obsidian status|search|open|command|daily`.

use serde_json::json;
use wiki_cli::config::VaultScope;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::obsidian::{self, Action};

/// The official Obsidian CLI on the vault: runs `obsidian [vault=<obsidian.vaultName>]
/// <subcommand> [query=… | path=… | id=…]` (30 s at most) and prints what it printed. Needs an
/// executable `obsidian` on PATH; without one, `status` says so (exit 1) and the other helpers
/// fail (exit 2). Not available with `vault.scope: agent`. `--json` prints `{command, argv,
/// stdout, stderr}` (`status`: `{available, command}`).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: ObsidianCommand,
}

/// `wiki obsidian` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ObsidianCommand {
    /// Whether the Obsidian CLI is on PATH (exit 0) or not (exit 1).
    Status,
    /// Search the Obsidian vault (`obsidian search query=QUERY`).
    Search {
        /// The query.
        #[arg(value_name = "QUERY")]
        query: String,
    },
    /// Open a page in Obsidian (`obsidian open path=PATH`).
    Open {
        /// Vault-relative path of the page.
        #[arg(value_name = "PATH")]
        path: String,
    },
    /// Run an Obsidian command palette command (`obsidian command id=ID`).
    Command {
        /// The command id (e.g. `workspace:quick-switcher`).
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Open today's daily note (`obsidian daily`).
    Daily,
}

/// Run `wiki obsidian`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let mut out = Output::new();
    let exe = obsidian::probe();
    let (action, value) = match &args.command {
        ObsidianCommand::Status => {
            let command = exe.as_ref().map(|p| p.display().to_string());
            match format {
                Format::Json => {
                    out.json(&json!({"available": exe.is_some(), "command": command}))?
                }
                _ => out.line(&match &command {
                    Some(c) => format!("Obsidian CLI available at {c}"),
                    None => obsidian::MISSING.to_string(),
                })?,
            }
            out.flush()?;
            return Ok(if exe.is_some() { exit::OK } else { exit::FOUND });
        }
        ObsidianCommand::Search { query } => (Action::Search, Some(query.as_str())),
        ObsidianCommand::Open { path } => (Action::Open, Some(path.as_str())),
        ObsidianCommand::Command { id } => (Action::Command, Some(id.as_str())),
        ObsidianCommand::Daily => (Action::Daily, None),
    };
    let cfg = wiki_cli::config::load()?;
    if cfg.settings.vault.scope == VaultScope::Agent {
        return Err(CliError::Usage(obsidian::AGENT_SCOPE.into()));
    }
    let exe = exe.ok_or_else(|| CliError::Runtime(obsidian::MISSING.into()))?;
    let argv = obsidian::argv(cfg.settings.obsidian.vault_name.as_deref(), action, value);
    let ran = obsidian::run(&exe, argv).map_err(CliError::Runtime)?;
    match format {
        Format::Json => out.json(&ran)?,
        _ => {
            let text = ran.stdout.trim();
            let text = if text.is_empty() {
                action.success()
            } else {
                text
            };
            if !text.is_empty() {
                out.line(text)?;
            }
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
