//! # wiki-mcp — the vault as a Model Context Protocol server
//!
//! `wiki mcp [--agent ID] [--workspace DIR]` serves the vault to an MCP client (Claude Desktop,
//! Claude Code, Cursor, an agent framework) on stdio: newline-delimited JSON-RPC 2.0 on stdin
//! and stdout, as MCP clients launch local servers. stderr carries diagnostics only.
//!
//! ## Protocol: the official Rust SDK
//! The protocol is [`rmcp`], the Model Context Protocol's own Rust SDK (server role, stdio
//! transport; no HTTP, no macros), on a single-threaded tokio runtime. It negotiates the
//! protocol version in `initialize` (every revision from 2024-11-05 to the newest the SDK knows),
//! answers `ping`, the `initialized` notification and cancellations, and returns the JSON-RPC
//! error codes of the specification (-32601 unknown method, -32602 invalid params — an unknown
//! tool —, -32002 unknown resource). A hand-written implementation would have had to follow
//! every revision of the specification by hand; the SDK is maintained by the protocol's authors
//! and builds offline here (its cost is tokio and about a minute of a cold build).
//!
//! ## Tools (reference §7–§9, §12, §6)
//! The tools are one table ([`tools::all`]): a name, a title, a description, an input JSON
//! Schema, whether it only reads, and a function. Each call runs the same library function as
//! the CLI command of the same name, with the same validation and messages:
//!
//! | tool | CLI | result text | `structuredContent` |
//! | --- | --- | --- | --- |
//! | `wiki_status` | `wiki status` | the status text | the status object (`--json`) |
//! | `wiki_search` | `wiki search` | the §7.8 text | `{results}` (§7.7 fields) |
//! | `wiki_get` | `wiki get` | the lines | `{found, …}` (§8 fields) |
//! | `wiki_apply` | `wiki apply` | `Updated <page> via <op>. …` | `{changed, operation, pagePath, pageId, commit, …}` |
//! | `wiki_lint` | `wiki lint` | `Issues: …` lines (§6.3) | the lint result, `reportPath` vault-relative |
//! | `memory_search` | `wiki memory search` / `wiki search --corpus …` | the §7.8 text | `{results}` |
//! | `memory_get` | `wiki memory get` / `wiki get` | the lines | the file window |
//! | `memory_recall` | `wiki memory recall` | the result lines | `{results}` (`--json` records) |
//! | `memory_facts` | `wiki memory facts` | fact lines, then `path:line: message` | `{facts, malformed}` |
//! | `memory_triggers` | `wiki memory triggers` | `- entry (Source: …)` lines | `{triggers}` |
//!
//! A failure is a tool result with `isError: true` whose text is the CLI's error message (an
//! invalid operation, a page that does not parse, an unknown argument); nothing is written then.
//! `wiki_apply` takes one operation (the plugin's `create_synthesis` / `update_metadata` and the
//! claim-level operations of `wiki apply`) and makes one commit whose trailers name the agent
//! (`Wiki-Agent`).
//!
//! ## Prompt and resource
//! `wiki_context` (prompt) and `wiki://context` (resource): the compact prompt digest of
//! `wiki context` (reference §13), built for the tools this server has.
//!
//! ## Agent and freshness
//! `--agent ID` (or `$WIKI_AGENT`, or `vault.scope: agent` with the default agent of the OpenClaw
//! config) chooses the branch every call reads and commits to, as for every command. The search
//! indexes stay in memory between calls ([`wiki_search::resident`]) and every call still sees
//! edits made by hand or by other processes since the previous one: for the work tree, file
//! events (inotify, [`wiki_search::live`]) name the pages to read again, so a call with no
//! event lists nothing; otherwise (an agent branch, the memory workspace, no file events) the
//! files are listed again.

pub mod cmd;
pub mod context;
pub mod server;
pub mod tools;

/// Built-in `wiki` subcommands contributed by this crate: `mcp`.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![wiki_cli::subcommand!(
        "mcp",
        "Serve the vault to an MCP client on stdio (tools, prompt digest)",
        cmd::Args,
        cmd::run
    )]
}
