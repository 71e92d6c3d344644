//! `wiki mcp`: run the server on stdio until the client closes stdin.

use std::path::PathBuf;

use wiki_cli::{CliError, GlobalArgs, exit};

/// Serve the vault to a Model Context Protocol client on stdio (newline-delimited JSON-RPC on
/// stdin/stdout; diagnostics on stderr).
///
/// Tools: wiki_status, wiki_search, wiki_get, wiki_apply, wiki_lint, memory_search,
/// memory_get, memory_recall, memory_facts and memory_triggers, each running the library
/// function of the command of the same name (same validation, same messages; failures are tool
/// errors with the command's message; a memory_recall is recorded in the short-term store as
/// `wiki memory recall` records it). Prompt
/// `wiki_context` and resource `wiki://context`: the digest of `wiki context`. Every call reads
/// and commits to the branch of `--agent` (or `$WIKI_AGENT`, or the configured default agent
/// with `vault.scope: agent`); `wiki_apply` makes one commit per call with the agent in its
/// trailers. Search indexes stay in memory between calls, and every call still sees the pages
/// as they are (edits made by hand in between included).
///
/// Register it in an MCP client as the command `wiki` with the arguments `mcp` (and `--vault
/// DIR`, `--agent ID` as needed). Exits 0 when the client closes the connection.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Memory workspace of the memory_* tools. Default: $WIKI_MEMORY_DIR, else the
    /// agent's `workspace` in the OpenClaw config, else $OPENCLAW_STATE_DIR/workspace
    /// (~/.openclaw/workspace).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

/// Run `wiki mcp`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    // Resolve once up front so that a bad `--vault` / `--agent` / config fails at start, with
    // the command's message and exit code, rather than on every call.
    let vault = global.vault_dir()?;
    global.agent_id()?;
    let mut global = global.clone();
    global.vault = Some(vault);
    global.json = false;
    global.format = None;
    let state = crate::tools::State::new(global, args.workspace.clone());
    crate::server::serve(state)?;
    Ok(exit::OK)
}
