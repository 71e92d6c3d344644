//! The OpenClaw configuration keys the importers read (reference §11.1), from the same file as
//! `wiki_cli::config` (`$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`, else
//! `~/.openclaw/openclaw.json`; a missing file means every default):
//!
//! * `plugins.entries["memory-wiki"].config`: `vaultMode`, `vault.scope`, `bridge.*`,
//!   `unsafeLocal.*`, `ingest.*`;
//! * the agents and their workspaces as OpenClaw resolves them: `agents.list[]` (`id`,
//!   `default`, `workspace`), `agents.defaults.workspace`; the default agent's workspace is
//!   otherwise `~/.openclaw/workspace` (`workspace-<profile>` with `$OPENCLAW_PROFILE`), another
//!   agent's `$OPENCLAW_STATE_DIR/workspace-<id>` (`~/.openclaw/workspace-<id>`).
//!
//! Relative paths are taken against the config file's directory, like `vault.path`
//! (`wiki_cli::config`); `~` is expanded.

use std::path::{Path, PathBuf};

use serde_json::Value;
use wiki_cli::CliError;
use wiki_cli::config::normalize_agent_id;

/// `vaultMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VaultMode {
    /// `isolated` (default).
    #[default]
    Isolated,
    /// `bridge`.
    Bridge,
    /// `unsafe-local`.
    UnsafeLocal,
}

impl VaultMode {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            VaultMode::Isolated => "isolated",
            VaultMode::Bridge => "bridge",
            VaultMode::UnsafeLocal => "unsafe-local",
        }
    }
}

/// `bridge.*` (every toggle defaults to true except `enabled`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeConfig {
    /// `bridge.enabled` (default false).
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

impl Default for BridgeConfig {
    fn default() -> Self {
        BridgeConfig {
            enabled: false,
            read_memory_artifacts: true,
            index_dream_reports: true,
            index_daily_notes: true,
            index_memory_root: true,
            follow_memory_events: true,
        }
    }
}

/// One configured agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// Normalised id.
    pub id: String,
    /// `workspace`, resolved.
    pub workspace: Option<PathBuf>,
}

/// What the importers read from the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportConfig {
    /// The file it came from (`None`: no file, all defaults).
    pub source: Option<PathBuf>,
    /// `vaultMode`.
    pub vault_mode: VaultMode,
    /// `vault.scope: agent`.
    pub agent_scope: bool,
    /// `bridge.*`.
    pub bridge: BridgeConfig,
    /// `unsafeLocal.allowPrivateMemoryCoreAccess`.
    pub allow_private_memory_core_access: bool,
    /// `unsafeLocal.paths`, resolved.
    pub unsafe_local_paths: Vec<PathBuf>,
    /// `ingest.autoCompile` (default true).
    pub auto_compile: bool,
    /// `ingest.allowUrlIngest` (default true).
    pub allow_url_ingest: bool,
    /// `agents.list[]`, in order, ids normalised and de-duplicated.
    pub agents: Vec<Agent>,
    /// The default agent: the list entry with `default: true`, else the first, else `main`.
    pub default_agent: String,
    /// `agents.defaults.workspace`, resolved.
    pub default_workspace: Option<PathBuf>,
}

impl Default for ImportConfig {
    fn default() -> Self {
        ImportConfig {
            source: None,
            vault_mode: VaultMode::Isolated,
            agent_scope: false,
            bridge: BridgeConfig::default(),
            allow_private_memory_core_access: false,
            unsafe_local_paths: Vec::new(),
            auto_compile: true,
            allow_url_ingest: true,
            agents: Vec::new(),
            default_agent: "main".into(),
            default_workspace: None,
        }
    }
}

/// Load the config (defaults when the file does not exist).
pub fn load() -> Result<ImportConfig, CliError> {
    let path = wiki_cli::config::config_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text, &path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ImportConfig::default()),
        Err(e) => Err(CliError::Runtime(format!("{}: {e}", path.display()))),
    }
}

/// A typed reader of one object of the config, naming keys by their dotted path in errors.
struct Reader<'a> {
    file: &'a Path,
    node: Option<&'a Value>,
    prefix: &'a str,
}

impl<'a> Reader<'a> {
    fn child(&self, key: &str, prefix: &'a str) -> Reader<'a> {
        Reader {
            file: self.file,
            node: self.node.and_then(|n| n.get(key)),
            prefix,
        }
    }

    fn error(&self, key: &str, what: &str) -> CliError {
        CliError::Usage(format!(
            "{}: {}{key} must be {what}",
            self.file.display(),
            self.prefix
        ))
    }

    fn bool(&self, key: &str, default: bool) -> Result<bool, CliError> {
        match self.node.and_then(|n| n.get(key)) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.error(key, "true or false")),
        }
    }

    fn string(&self, key: &str) -> Result<Option<&'a str>, CliError> {
        match self.node.and_then(|n| n.get(key)) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(self.error(key, "a string")),
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<&'a str>, CliError> {
        match self.node.and_then(|n| n.get(key)) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| self.error(key, "a list of strings"))
                })
                .collect(),
            Some(_) => Err(self.error(key, "a list of strings")),
        }
    }
}

/// Expand `~` and make `raw` absolute against `base`; `None` for a blank value.
fn resolve_path(raw: &str, base: &Path) -> Option<PathBuf> {
    let raw = raw.trim();
    (!raw.is_empty()).then(|| crate::guard::absolute(Path::new(raw), base))
}

/// Parse config text (JSON5); `file` names the file in errors and anchors relative paths.
pub fn parse(text: &str, file: &Path) -> Result<ImportConfig, CliError> {
    let root: Value = json5::from_str(text)
        .map_err(|e| CliError::Usage(format!("{}: invalid JSON5 config: {e}", file.display())))?;
    let base = file.parent().unwrap_or(Path::new("/"));
    let plugin = root
        .get("plugins")
        .and_then(|p| p.get("entries"))
        .and_then(|e| e.get("memory-wiki"))
        .and_then(|m| m.get("config"));
    let top = Reader {
        file,
        node: plugin,
        prefix: "",
    };
    let vault_mode = match top.string("vaultMode")? {
        None | Some("isolated") => VaultMode::Isolated,
        Some("bridge") => VaultMode::Bridge,
        Some("unsafe-local") => VaultMode::UnsafeLocal,
        Some(_) => {
            return Err(top.error("vaultMode", "\"isolated\", \"bridge\" or \"unsafe-local\""));
        }
    };
    let vault = top.child("vault", "vault.");
    let agent_scope = vault.string("scope")? == Some("agent");
    let b = top.child("bridge", "bridge.");
    let bridge = BridgeConfig {
        enabled: b.bool("enabled", false)?,
        read_memory_artifacts: b.bool("readMemoryArtifacts", true)?,
        index_dream_reports: b.bool("indexDreamReports", true)?,
        index_daily_notes: b.bool("indexDailyNotes", true)?,
        index_memory_root: b.bool("indexMemoryRoot", true)?,
        follow_memory_events: b.bool("followMemoryEvents", true)?,
    };
    let u = top.child("unsafeLocal", "unsafeLocal.");
    let i = top.child("ingest", "ingest.");
    let (agents, default_agent) = parse_agents(&root, file, base)?;
    let defaults = Reader {
        file,
        node: root.get("agents").and_then(|a| a.get("defaults")),
        prefix: "agents.defaults.",
    };
    Ok(ImportConfig {
        source: Some(file.to_path_buf()),
        vault_mode,
        agent_scope,
        bridge,
        allow_private_memory_core_access: u.bool("allowPrivateMemoryCoreAccess", false)?,
        unsafe_local_paths: u
            .strings("paths")?
            .into_iter()
            .filter_map(|p| resolve_path(p, base))
            .collect(),
        auto_compile: i.bool("autoCompile", true)?,
        allow_url_ingest: i.bool("allowUrlIngest", true)?,
        agents,
        default_agent,
        default_workspace: defaults
            .string("workspace")?
            .and_then(|w| resolve_path(w, base)),
    })
}

/// `agents.list[]` (ids normalised, first entry of an id wins) and the default agent.
fn parse_agents(root: &Value, file: &Path, base: &Path) -> Result<(Vec<Agent>, String), CliError> {
    let mut agents: Vec<Agent> = Vec::new();
    let mut default = None;
    let list = root.get("agents").and_then(|a| a.get("list"));
    for entry in list.and_then(Value::as_array).into_iter().flatten() {
        let r = Reader {
            file,
            node: Some(entry),
            prefix: "agents.list[].",
        };
        let Some(id) = r
            .string("id")?
            .map(normalize_agent_id)
            .filter(|i| !i.is_empty())
        else {
            continue;
        };
        if default.is_none() && r.bool("default", false)? {
            default = Some(id.clone());
        }
        if agents.iter().all(|a| a.id != id) {
            agents.push(Agent {
                workspace: r.string("workspace")?.and_then(|w| resolve_path(w, base)),
                id,
            });
        }
    }
    let default = default
        .or_else(|| agents.first().map(|a| a.id.clone()))
        .unwrap_or_else(|| "main".to_string());
    Ok((agents, default))
}

impl ImportConfig {
    /// Every agent id (the configured ones, else the default agent alone).
    pub fn agent_ids(&self) -> Vec<String> {
        if self.agents.is_empty() {
            vec![self.default_agent.clone()]
        } else {
            self.agents.iter().map(|a| a.id.clone()).collect()
        }
    }

    /// The workspace directory of `agent` as OpenClaw resolves it.
    pub fn workspace_of(&self, agent: &str) -> PathBuf {
        if let Some(w) = self
            .agents
            .iter()
            .find(|a| a.id == agent)
            .and_then(|a| a.workspace.clone())
        {
            return w;
        }
        if agent == self.default_agent {
            if let Some(w) = &self.default_workspace {
                return w.clone();
            }
            let name = match std::env::var("OPENCLAW_PROFILE") {
                Ok(p) if !p.trim().is_empty() && !p.trim().eq_ignore_ascii_case("default") => {
                    format!("workspace-{}", p.trim())
                }
                _ => "workspace".to_string(),
            };
            return wiki_cli::home_dir().join(".openclaw").join(name);
        }
        state_dir().join(format!("workspace-{agent}"))
    }
}

/// `$OPENCLAW_STATE_DIR`, else `~/.openclaw`.
fn state_dir() -> PathBuf {
    std::env::var_os("OPENCLAW_STATE_DIR")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| wiki_cli::home_dir().join(".openclaw"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> Result<ImportConfig, CliError> {
        parse(text, Path::new("/etc/openclaw/openclaw.json"))
    }

    #[test]
    fn defaults() {
        let c = cfg("{}").unwrap();
        assert_eq!(c.source, Some(PathBuf::from("/etc/openclaw/openclaw.json")));
        assert_eq!(ImportConfig { source: None, ..c }, ImportConfig::default());
    }

    #[test]
    fn keys_and_agents() {
        let c = cfg(r#"{
            agents: { defaults: { workspace: "ws/main" },
                      list: [{ id: "Main" }, { id: "Writer", default: true, workspace: "/w/writer" }] },
            plugins: { entries: { "memory-wiki": { config: {
                vaultMode: "unsafe-local",
                bridge: { enabled: true, indexDailyNotes: false },
                unsafeLocal: { allowPrivateMemoryCoreAccess: true, paths: ["notes", "/abs"] },
                ingest: { allowUrlIngest: false },
            } } } } }"#)
        .unwrap();
        assert_eq!(c.vault_mode, VaultMode::UnsafeLocal);
        assert!(c.bridge.enabled && !c.bridge.index_daily_notes && c.bridge.index_memory_root);
        assert_eq!(
            c.unsafe_local_paths,
            vec![PathBuf::from("/etc/openclaw/notes"), PathBuf::from("/abs")]
        );
        assert!(!c.allow_url_ingest && c.auto_compile);
        assert_eq!(c.default_agent, "writer");
        assert_eq!(c.agent_ids(), vec!["main", "writer"]);
        assert_eq!(c.workspace_of("writer"), PathBuf::from("/w/writer"));
        let e =
            cfg(r#"{plugins:{entries:{"memory-wiki":{config:{ingest:{allowUrlIngest:"no"}}}}}}"#)
                .unwrap_err()
                .to_string();
        assert_eq!(
            e,
            "/etc/openclaw/openclaw.json: ingest.allowUrlIngest must be true or false"
        );
    }
}
