//! The OpenClaw config keys the memory layer reads, through `wiki_cli::config` (the typed,
//! validated config):
//!
//! * the agent workspace: [`wiki_cli::config::WikiConfig::workspace`] (`agents.list[].workspace`,
//!   `agents.defaults.workspace`, else `$OPENCLAW_WORKSPACE_DIR`, else
//!   `$OPENCLAW_STATE_DIR/workspace`);
//! * the memory search provider: `memorySearch.provider` of the agent's entry, else of
//!   `agents.defaults` (shown by `wiki memory status`);
//! * the bootstrap budgets: `bootstrapMaxChars` (per file, default 20,000) and
//!   `bootstrapTotalMaxChars` (all files, default 150,000), the agent's then the defaults'.
//!
//! Ranking keys (`minScore`) are read by the search crate.

use std::path::PathBuf;

use serde_json::Value;

use crate::error::Result;

/// OpenClaw's default per-file bootstrap budget (characters).
pub const DEFAULT_BOOTSTRAP_MAX_CHARS: usize = 20_000;
/// OpenClaw's default budget for all bootstrap files together (characters).
pub const DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS: usize = 150_000;

/// The memory-related keys of the config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryConfig {
    /// The agent workspace (configured or default).
    pub workspace: PathBuf,
    /// The configured embedding provider (`none`, `openai`, …).
    pub provider: Option<String>,
    /// Per-file bootstrap budget.
    pub bootstrap_max_chars: Option<usize>,
    /// Total bootstrap budget.
    pub bootstrap_total_max_chars: Option<usize>,
}

/// Load the keys for `agent` (the default agent when `None`).
pub fn load(agent: Option<&str>) -> Result<MemoryConfig> {
    let cfg = wiki_cli::config::load()?;
    let agent_node = agent.and_then(|id| cfg.agent(id)).map(|a| &a.raw);
    let defaults = cfg.root().get("agents").and_then(|a| a.get("defaults"));
    let lookup = |path: &[&str]| -> Option<&Value> {
        [agent_node, defaults]
            .into_iter()
            .flatten()
            .find_map(|node| at(node, path))
    };
    let count = |key: &str| {
        lookup(&[key])
            .and_then(Value::as_f64)
            .filter(|n| n.is_finite() && *n > 0.0)
            .map(|n| n.floor() as usize)
    };
    Ok(MemoryConfig {
        workspace: cfg.workspace(agent).value,
        provider: lookup(&["memorySearch", "provider"])
            .and_then(Value::as_str)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
        bootstrap_max_chars: count("bootstrapMaxChars"),
        bootstrap_total_max_chars: count("bootstrapTotalMaxChars"),
    })
}

fn at<'a>(node: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = node;
    for key in path {
        cur = cur.get(key)?;
    }
    Some(cur)
}
