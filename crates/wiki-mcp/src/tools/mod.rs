//! The tools: one table of [`ToolSpec`]s, one function each.
//!
//! Adding a tool is adding an entry to the table of its module ([`wiki::tools`], [`recall::tools`],
//! [`memory::tools`]) — or a new module whose `tools()` [`all`] appends — with its input schema
//! and a function from the [`State`] and the call's [`Params`] to a [`Reply`] or the error
//! message the client sees (`isError: true`).

use std::path::PathBuf;

use serde_json::{Map, Value as Json};
use wiki_cli::GlobalArgs;
use wiki_search::resident::Resident;

pub mod memory;
pub mod params;
pub mod recall;
pub mod wiki;

pub use params::Params;

/// What a tool call returns: the text shown to the model and the same result as JSON.
#[derive(Debug, Clone)]
pub struct Reply {
    /// `content[0].text`.
    pub text: String,
    /// `structuredContent` (an object).
    pub structured: Map<String, Json>,
}

impl Reply {
    /// A reply from its text and any serialisable object (anything else is put under
    /// `result`).
    pub fn new(text: impl Into<String>, structured: impl serde::Serialize) -> Reply {
        let structured = match serde_json::to_value(structured) {
            Ok(Json::Object(m)) => m,
            Ok(other) => Map::from_iter([("result".to_string(), other)]),
            Err(e) => Map::from_iter([("error".to_string(), Json::String(e.to_string()))]),
        };
        Reply {
            text: text.into(),
            structured,
        }
    }
}

/// The result of a tool function: the reply, or the message of a tool error.
pub type Outcome = Result<Reply, String>;

/// One tool of the server.
pub struct ToolSpec {
    /// Name (`wiki_search`).
    pub name: &'static str,
    /// Human-readable title.
    pub title: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// Whether it only reads (`readOnlyHint`); a tool that commits says false.
    pub read_only: bool,
    /// The input JSON Schema (an object schema).
    pub schema: fn() -> Json,
    /// The function.
    pub call: fn(&mut State, &Params<'_>) -> Outcome,
}

/// Every tool of the server, in `tools/list` order.
pub fn all() -> Vec<ToolSpec> {
    let mut tools = wiki::tools();
    tools.extend(memory::tools());
    tools.extend(recall::tools());
    tools
}

/// What the server keeps between calls.
pub struct State {
    /// The vault (`--vault`, resolved once), agent (`--agent`) and clock (`--now`) of the
    /// command line, passed to every library function.
    pub global: GlobalArgs,
    /// `--workspace` (memory tools).
    pub workspace: Option<PathBuf>,
    /// Search indexes kept in memory between calls.
    pub search: Resident,
}

impl State {
    /// The state of a new server.
    pub fn new(global: GlobalArgs, workspace: Option<PathBuf>) -> State {
        State {
            global,
            workspace,
            search: Resident::new("wiki mcp"),
        }
    }

    /// The agent's memory workspace (`--workspace`, `$WIKI_MEMORY_DIR`, the config).
    pub fn memory_workspace(&self) -> Result<wiki_memory::workspace::Workspace, String> {
        let agent = self.global.agent_id().map_err(|e| e.to_string())?;
        wiki_memory::workspace::locate(self.workspace.as_deref(), agent.as_deref())
            .map_err(|e| e.to_string())
    }
}
