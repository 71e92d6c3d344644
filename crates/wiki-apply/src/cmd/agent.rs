//! `wiki agent list|create|delete`.

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};
use wiki_store::Store;

use crate::agent;
use crate::error::Error;

/// Per-agent vaults: each agent `<ID>` has its own branch `agents/<ID>`.
///
/// `wiki --agent ID <command>` reads from and commits to that branch without checking it out
/// (the work tree and the current branch are not touched); the first write as an agent whose
/// branch does not exist yet creates it from the current branch. Reading another agent's branch
/// is a knowledge boundary, not a security boundary: anyone who can read the repository can read
/// every branch.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    #[allow(missing_docs)]
    pub command: AgentCommand,
}

/// `wiki agent` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum AgentCommand {
    /// List agent branches (`agents/*`) with their tips.
    List,
    /// Delete the branch `agents/<ID>` (refused while it is checked out), the git-ignored
    /// caches the agent left beside the work tree and its search index. Its commits stay in the
    /// repository: the record's `commit` is the tip it had, and `wiki agent create <ID> --from
    /// <commit>` brings the agent back.
    Delete {
        /// Agent id.
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Create the branch `agents/<ID>` (from REF, default the current HEAD) without checkout.
    Create {
        /// Agent id (normalised: lowercase letters, digits, `-`, `_`).
        #[arg(value_name = "ID")]
        id: String,
        /// Start the branch at this revision (default: HEAD).
        #[arg(long, value_name = "REF")]
        from: Option<String>,
    },
}

/// Run `wiki agent`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        wiki_cli::output::default_format(Format::Jsonl),
        &[Format::Jsonl, Format::Json, Format::Text],
    )?;
    let vault = global.vault_dir()?;
    let store = Store::open(&vault).map_err(|e| CliError::from(Error::from(e)))?;
    let mut out = Output::new();
    let rows = match &args.command {
        AgentCommand::List => agent::list(&store)?,
        AgentCommand::Create { id, from } => vec![agent::create(&store, id, from.as_deref())?],
        AgentCommand::Delete { id } => {
            let _lock = store.lock().map_err(|e| CliError::from(Error::from(e)))?;
            let gone = agent::delete(&store, id)?;
            wiki_cli::warn(
                "wiki agent",
                &format!(
                    "deleted branch {} (was {}); `wiki agent create {} --from {}` restores it",
                    gone.branch, gone.commit, gone.id, gone.commit
                ),
            );
            vec![gone]
        }
    };
    match format {
        Format::Json => out.json(&rows)?,
        Format::Text => {
            for r in &rows {
                out.line(&format!(
                    "{}{}\t{}\t{}",
                    if r.current {
                        "* "
                    } else if r.deleted {
                        "deleted "
                    } else {
                        ""
                    },
                    r.id,
                    r.branch,
                    &r.commit[..r.commit.len().min(12)]
                ))?;
            }
        }
        _ => {
            for r in &rows {
                out.record(r)?;
            }
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
