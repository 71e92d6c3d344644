//! The OpenClaw configuration the wiki tools honour (reference §11.1).
//!
//! The file is OpenClaw's JSON5 config: `$OPENCLAW_CONFIG_PATH`, else
//! `$OPENCLAW_STATE_DIR/openclaw.json`, else `~/.openclaw/openclaw.json`. A missing file means all
//! defaults. From `plugins.entries["memory-wiki"].config` we read:
//!
//! * `vault.path` — the vault directory (`~` expanded) used when neither `--vault` nor
//!   `$WIKI_VAULT` is given and the current directory is not inside a vault;
//! * `vault.scope` — `global` (default) or `agent`. The original keeps one vault directory per
//!   agent (`<vault.path>/<agentId>`); the git-native equivalent here is one vault repository at
//!   `vault.path` with one branch per agent, `agents/<agentId>`. In agent scope every command
//!   acts as an agent: `--agent` / `$WIKI_AGENT`, else the only configured agent (or `main` when
//!   none is configured); with several configured agents and none given, commands fail with the
//!   original's message;
//! * `vaultMode` and `obsidian.useOfficialCli`, for the two scope validation rules.
//!
//! Configured agents come from `agents.entries` keys or `agents.list[].id`. Agent ids are
//! normalised like OpenClaw does (trimmed, lowercased, runs of whitespace become `-`:
//! `" SUPPORT TEAM "` → `support-team`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::CliError;

/// The resolved wiki configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WikiConfig {
    /// The file it was read from (`None` when no file exists).
    pub source: Option<PathBuf>,
    /// `vault.path`, `~` expanded (relative paths are taken against the config file's directory).
    pub vault_path: Option<PathBuf>,
    /// `vault.scope: agent`.
    pub agent_scope: bool,
    /// Configured agent ids, normalised, in file order, de-duplicated.
    pub agents: Vec<String>,
}

/// Normalise an agent id: trim, lowercase, whitespace runs → `-`.
pub fn normalize_agent_id(raw: &str) -> String {
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

/// Where the config file is looked for.
pub fn config_path() -> PathBuf {
    if let Some(p) = std::env::var_os("OPENCLAW_CONFIG_PATH").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let state = std::env::var_os("OPENCLAW_STATE_DIR")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::home_dir().join(".openclaw"));
    state.join("openclaw.json")
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    cur.as_str()
}

/// Parse config text (JSON5). `file` names the file in error messages and anchors relative paths.
pub fn parse_config(text: &str, file: &Path) -> Result<WikiConfig, CliError> {
    let root: Value = json5::from_str(text)
        .map_err(|e| CliError::Usage(format!("{}: invalid JSON5 config: {e}", file.display())))?;
    let plugin = root
        .get("plugins")
        .and_then(|p| p.get("entries"))
        .and_then(|e| e.get("memory-wiki"))
        .and_then(|m| m.get("config"))
        .cloned()
        .unwrap_or(Value::Null);
    let scope = str_at(&plugin, &["vault", "scope"]).unwrap_or("global");
    let agent_scope = match scope {
        "global" => false,
        "agent" => true,
        other => {
            return Err(CliError::Usage(format!(
                "{}: vault.scope must be \"global\" or \"agent\" (found \"{other}\")",
                file.display()
            )));
        }
    };
    if agent_scope {
        if str_at(&plugin, &["vaultMode"]) == Some("unsafe-local") {
            return Err(CliError::Usage(format!(
                "{}: vaultMode=unsafe-local cannot be combined with vault.scope=agent",
                file.display()
            )));
        }
        if plugin
            .get("obsidian")
            .and_then(|o| o.get("useOfficialCli"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            return Err(CliError::Usage(format!(
                "{}: obsidian.useOfficialCli cannot be enabled with vault.scope=agent",
                file.display()
            )));
        }
    }
    let base = file.parent().unwrap_or(Path::new("/"));
    let vault_path = str_at(&plugin, &["vault", "path"])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| crate::absolutize(Path::new(p), base));
    let mut agents: Vec<String> = Vec::new();
    let agents_node = root.get("agents");
    if let Some(entries) = agents_node
        .and_then(|a| a.get("entries"))
        .and_then(Value::as_object)
    {
        agents.extend(entries.keys().map(|k| normalize_agent_id(k)));
    }
    if let Some(list) = agents_node
        .and_then(|a| a.get("list"))
        .and_then(Value::as_array)
    {
        agents.extend(
            list.iter()
                .filter_map(|a| a.get("id").and_then(Value::as_str))
                .map(normalize_agent_id),
        );
    }
    agents.retain(|a| !a.is_empty());
    let mut seen = std::collections::HashSet::new();
    agents.retain(|a| seen.insert(a.clone()));
    Ok(WikiConfig {
        source: Some(file.to_path_buf()),
        vault_path,
        agent_scope,
        agents,
    })
}

/// Load the config (defaults when the file does not exist).
pub fn load() -> Result<WikiConfig, CliError> {
    let path = config_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_config(&text, &path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(WikiConfig::default()),
        Err(e) => Err(CliError::Runtime(format!("{}: {e}", path.display()))),
    }
}

impl WikiConfig {
    /// The agent to act as, given the explicit choice (`--agent` / `$WIKI_AGENT`): in global
    /// scope the explicit id (normalised) or none; in agent scope the explicit id, else the only
    /// configured agent, else `main` when none is configured.
    pub fn resolve_agent(&self, explicit: Option<&str>) -> Result<Option<String>, CliError> {
        let explicit = explicit.map(normalize_agent_id).filter(|a| !a.is_empty());
        if !self.agent_scope {
            return Ok(explicit);
        }
        match explicit {
            Some(id) => {
                if !self.agents.is_empty() && !self.agents.contains(&id) {
                    return Err(CliError::Usage(format!(
                        "Unknown memory-wiki agentId: {id}."
                    )));
                }
                Ok(Some(id))
            }
            None => match self.agents.as_slice() {
                [] => Ok(Some("main".into())),
                [only] => Ok(Some(only.clone())),
                _ => Err(CliError::Usage(
                    "No default memory-wiki agent is configured. Pass --agent <id>, or add an agent with `openclaw agents add`.".into(),
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> Result<WikiConfig, CliError> {
        parse_config(text, Path::new("/etc/openclaw/openclaw.json"))
    }

    #[test]
    fn defaults_and_json5() {
        let c = cfg("{ // comment\n plugins: { entries: { 'memory-wiki': { config: { vault: { path: 'vaults/main', }, }, }, }, }, }").unwrap();
        assert_eq!(
            c.vault_path,
            Some(PathBuf::from("/etc/openclaw/vaults/main"))
        );
        assert!(!c.agent_scope);
        assert_eq!(c.resolve_agent(None).unwrap(), None);
        assert_eq!(
            c.resolve_agent(Some(" SUPPORT TEAM ")).unwrap(),
            Some("support-team".into())
        );
        assert!(cfg("{").is_err());
    }

    #[test]
    fn agent_scope_rules() {
        let one = cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}, agents:{list:[{id:'Main'}]}}").unwrap();
        assert!(one.agent_scope);
        assert_eq!(one.resolve_agent(None).unwrap(), Some("main".into()));
        let none =
            cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}}").unwrap();
        assert_eq!(none.resolve_agent(None).unwrap(), Some("main".into()));
        let two = cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}, agents:{entries:{support:{}, MARKETING:{}}}}").unwrap();
        assert_eq!(two.agents, vec!["support", "marketing"]);
        let err = two.resolve_agent(None).unwrap_err().to_string();
        assert!(
            err.starts_with("No default memory-wiki agent is configured."),
            "{err}"
        );
        assert_eq!(
            two.resolve_agent(Some("finance")).unwrap_err().to_string(),
            "Unknown memory-wiki agentId: finance."
        );
        assert_eq!(
            two.resolve_agent(Some("Marketing")).unwrap(),
            Some("marketing".into())
        );
    }

    #[test]
    fn validation_errors() {
        let e = cfg("{plugins:{entries:{'memory-wiki':{config:{vaultMode:'unsafe-local', vault:{scope:'agent'}}}}}}").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("vaultMode=unsafe-local cannot be combined with vault.scope=agent")
        );
        let e = cfg("{plugins:{entries:{'memory-wiki':{config:{obsidian:{useOfficialCli:true}, vault:{scope:'agent'}}}}}}").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("obsidian.useOfficialCli cannot be enabled with vault.scope=agent")
        );
        assert!(
            cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'team'}}}}}}").is_err()
        );
    }
}
