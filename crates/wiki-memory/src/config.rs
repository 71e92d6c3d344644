//! The OpenClaw config keys the memory layer reads (`wiki_cli::config::config_path`, JSON5).
//!
//! * the agent workspace: `agents.list[<agent>].workspace`, else `agents.defaults.workspace`
//!   (`~` expanded, relative paths against the config file's directory);
//! * the memory search provider: `agents.list[<agent>].memorySearch.provider`, else
//!   `agents.defaults.memorySearch.provider` (shown by `wiki memory status`);
//! * the bootstrap budgets: `bootstrapMaxChars` (per file, default 20,000) and
//!   `bootstrapTotalMaxChars` (all files, default 150,000), per agent then defaults.
//!
//! Everything else (ranking, `minScore`) is read by the search crate. A missing file means all
//! defaults.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};

/// OpenClaw's default per-file bootstrap budget (characters).
pub const DEFAULT_BOOTSTRAP_MAX_CHARS: usize = 20_000;
/// OpenClaw's default budget for all bootstrap files together (characters).
pub const DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS: usize = 150_000;

/// The memory-related keys of the config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryConfig {
    /// The file read (`None` when there is none).
    pub source: Option<PathBuf>,
    /// The agent workspace.
    pub workspace: Option<PathBuf>,
    /// The configured embedding provider (`none`, `openai`, …).
    pub provider: Option<String>,
    /// Per-file bootstrap budget.
    pub bootstrap_max_chars: Option<usize>,
    /// Total bootstrap budget.
    pub bootstrap_total_max_chars: Option<usize>,
}

/// Load the keys for `agent` (default agent when `None`).
pub fn load(agent: Option<&str>) -> Result<MemoryConfig> {
    let path = wiki_cli::config::config_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text, &path, agent),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(MemoryConfig::default()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Parse config text; `file` names the file in errors and anchors relative paths.
pub fn parse(text: &str, file: &Path, agent: Option<&str>) -> Result<MemoryConfig> {
    let root: Value = json5::from_str(text)
        .map_err(|e| Error::Usage(format!("{}: invalid JSON5 config: {e}", file.display())))?;
    let agents = root.get("agents");
    let agent_node = agent.and_then(|id| {
        agents?.get("list")?.as_array()?.iter().find(|a| {
            a.get("id")
                .and_then(Value::as_str)
                .is_some_and(|a| wiki_cli::config::normalize_agent_id(a) == id)
        })
    });
    let defaults = agents.and_then(|a| a.get("defaults"));
    let lookup = |path: &[&str]| -> Option<&Value> {
        [agent_node, defaults]
            .into_iter()
            .flatten()
            .find_map(|node| at(node, path))
    };
    let base = file.parent().unwrap_or(Path::new("/"));
    let workspace = lookup(&["workspace"])
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| wiki_cli::absolutize(Path::new(p), base));
    let provider = lookup(&["memorySearch", "provider"])
        .and_then(Value::as_str)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let count = |key: &str| {
        lookup(&[key])
            .and_then(Value::as_f64)
            .filter(|n| n.is_finite() && *n > 0.0)
            .map(|n| n.floor() as usize)
    };
    Ok(MemoryConfig {
        source: Some(file.to_path_buf()),
        workspace,
        provider,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_keys_override_defaults() {
        let text = "{agents:{defaults:{workspace:'~/ws', bootstrapMaxChars: 5000, memorySearch:{provider:'openai'}}, list:[{id:'Ops', workspace:'ops-ws'}]}}";
        let file = Path::new("/etc/oc/openclaw.json");
        let d = parse(text, file, None).unwrap();
        assert!(d.workspace.unwrap().ends_with("ws"));
        assert_eq!(d.provider.as_deref(), Some("openai"));
        assert_eq!(d.bootstrap_max_chars, Some(5000));
        let ops = parse(text, file, Some("ops")).unwrap();
        assert_eq!(ops.workspace, Some(PathBuf::from("/etc/oc/ops-ws")));
        assert_eq!(ops.bootstrap_max_chars, Some(5000));
        assert!(parse("{", file, None).is_err());
    }
}
