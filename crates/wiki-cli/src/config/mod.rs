//! The OpenClaw configuration the wiki tools honour: the whole memory-wiki plugin config of
//! reference §11.1, typed and strictly validated, plus the agents and their workspaces.
//!
//! # Where it is read from
//!
//! OpenClaw's JSON5 config: `$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`,
//! else `~/.openclaw/openclaw.json` ([`config_path`]). A missing file means all defaults.
//!
//! # API (for the other crates)
//!
//! ```text
//! let cfg = wiki_cli::config::load()?;            // WikiConfig; exit 2 on an invalid config
//! cfg.settings.search.corpus                       // SearchCorpus::Wiki (typed §11.1, defaults filled)
//! cfg.settings.ingest.auto_compile                 // true
//! cfg.settings.bridge.read_memory_artifacts        // true
//! cfg.settings.unsafe_local.paths                  // Vec<PathBuf>, ~ expanded
//! cfg.source_of("search.corpus")                   // Source: default | file (| file via ${VAR})
//! cfg.workspace(Some("support"))                   // Setting<PathBuf>: the agent's workspace + source
//! cfg.agent("support")                             // Option<&AgentEntry> (its raw JSON in `.raw`)
//! cfg.root()                                       // the whole parsed file, for keys not typed here
//! cfg.memory_search(Some("ops"))?                   // memorySearch embedding keys (memory_search)
//! global.vault_setting()? / global.agent_setting()? // effective vault / agent with their source
//! ```
//!
//! [`Settings`] mirrors the plugin config key for key (`vaultMode` → `vault_mode`,
//! `unsafeLocal.allowPrivateMemoryCoreAccess` → `unsafe_local.allow_private_memory_core_access`);
//! its `Default` is the seed's defaults. [`schema::PLUGIN_KEYS`] lists every key with its type.
//!
//! # Validation
//!
//! `plugins.entries.memory-wiki.config` is strict, like the original's schema: an unknown key, a
//! value of the wrong type, an enum value outside its set or an integer out of range is an error
//! naming the key path, e.g.
//! `plugins.entries.memory-wiki.config.search.corpus: expected one of wiki, memory, all (found "x")`.
//! The original's two cross-key rules hold too (`vault.scope: agent` with
//! `vaultMode: unsafe-local`, or with `obsidian.useOfficialCli: true`). Outside the plugin
//! config only what we read is checked, as OpenClaw's schema would: `plugins`, `plugins.entries`
//! and the plugin entry are objects, the entry's `enabled` a boolean; `agents.defaults.workspace`
//! a string; `agents.list` a list of objects whose `id` is a non-empty string, `default` a boolean
//! and `workspace` a string; `agents.entries` an object of objects. Other keys of the OpenClaw
//! config (models, channels, gateway…) are not ours and are left alone. Errors read
//! `<file>: <key path>: <what is wrong>`; a JSON5 syntax error reads `<file>:<line>:<column>: …`.
//! All are usage errors (exit 2).
//!
//! String values may reference environment variables as `${NAME}` (upper-case names), as
//! OpenClaw's config does; `$${NAME}` is a literal `${NAME}`; an unset variable is an error naming
//! the key path. Such values have the source `file` with the variables named (`via`).
//!
//! # Sources
//!
//! Every effective value knows where it came from ([`Source`]): `default`, `file` (the config
//! file), `environment` (`WIKI_VAULT`, `WIKI_AGENT`, `OPENCLAW_STATE_DIR`,
//! `OPENCLAW_WORKSPACE_DIR`…), `flag` (`--vault`, `--agent`) or `detected` (the enclosing vault
//! of the current directory). `wiki config show` prints them.
//!
//! # Scope and agents
//!
//! `vault.scope` is `global` (default) or `agent`. The original keeps one vault directory per
//! agent (`<vault.path>/<agentId>`); the git-native equivalent here is one vault repository at
//! `vault.path` with one branch per agent, `agents/<agentId>`. In agent scope every command acts as
//! an agent: `--agent` / `$WIKI_AGENT`, else the configured default agent — the only configured
//! one, or the one marked `default: true`, or `main` when none is configured; with several
//! configured agents and none chosen, commands fail with the original's message.
//!
//! Configured agents come from `agents.entries` keys and `agents.list[].id`. Agent ids are
//! normalised like OpenClaw does (trimmed, lowercased, runs of whitespace become `-`:
//! `" SUPPORT TEAM "` → `support-team`).
//!
//! # Workspaces
//!
//! An agent's workspace (where its `MEMORY.md`, `memory/YYYY-MM-DD.md` and `DREAMS.md` live), as
//! OpenClaw documents it ([`WikiConfig::workspace`]): the entry's own `workspace`; else, with at
//! most one configured agent, `agents.defaults.workspace`, else the default workspace
//! (`$OPENCLAW_WORKSPACE_DIR`, else `$OPENCLAW_STATE_DIR/workspace`, else
//! `~/.openclaw/workspace`); in a roster of several agents, an entry without `workspace` uses
//! `<agents.defaults.workspace>/<id>` when that root is configured, else
//! `<state dir>/workspace-<id>`. Paths get `~` expanded; relative ones are taken against the
//! config file's directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::CliError;

pub mod memory_search;
pub mod schema;
pub mod settings;

pub use settings::{
    BridgeOwnership, BridgeSettings, ContextSettings, IngestSettings, ObsidianSettings, RenderMode,
    RenderSettings, SearchBackend, SearchCorpus, SearchSettings, Settings, UnsafeLocalSettings,
    VaultMode, VaultScope, VaultSettings,
};

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// `default`, `file`, `environment`, `flag` or `detected`.
    pub kind: SourceKind,
    /// The flag, variable or detail behind it (`--vault`, `WIKI_VAULT`, `${WIKI_ROOT}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// The kinds of [`Source`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// Built in.
    Default,
    /// The OpenClaw config file.
    File,
    /// An environment variable.
    Environment,
    /// A command-line flag.
    Flag,
    /// Found from the current directory (the enclosing vault).
    Detected,
}

impl Source {
    /// Built in.
    pub fn default_value() -> Source {
        Source {
            kind: SourceKind::Default,
            via: None,
        }
    }

    /// A default derived from something (`OPENCLAW_STATE_DIR`).
    pub fn default_via(via: &str) -> Source {
        Source {
            kind: SourceKind::Default,
            via: Some(via.into()),
        }
    }

    /// The config file.
    pub fn file() -> Source {
        Source {
            kind: SourceKind::File,
            via: None,
        }
    }

    /// The config file, with `${VAR}` references substituted.
    pub fn file_via(vars: &[String]) -> Source {
        Source {
            kind: SourceKind::File,
            via: (!vars.is_empty()).then(|| {
                vars.iter()
                    .map(|v| format!("${{{v}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
        }
    }

    /// An environment variable.
    pub fn env(name: &str) -> Source {
        Source {
            kind: SourceKind::Environment,
            via: Some(name.into()),
        }
    }

    /// A flag.
    pub fn flag(name: &str) -> Source {
        Source {
            kind: SourceKind::Flag,
            via: Some(name.into()),
        }
    }

    /// Detected from the current directory.
    pub fn detected(what: &str) -> Source {
        Source {
            kind: SourceKind::Detected,
            via: Some(what.into()),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            SourceKind::Default => "default",
            SourceKind::File => "file",
            SourceKind::Environment => "environment",
            SourceKind::Flag => "flag",
            SourceKind::Detected => "detected",
        };
        match &self.via {
            Some(via) => write!(f, "{kind}: {via}"),
            None => f.write_str(kind),
        }
    }
}

/// An effective value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Its source.
    pub source: Source,
}

impl<T> Setting<T> {
    /// Pair a value with its source.
    pub fn new(value: T, source: Source) -> Setting<T> {
        Setting { value, source }
    }
}

/// One configured agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentEntry {
    /// Normalised id.
    pub id: String,
    /// `default: true` in `agents.list`.
    pub default: bool,
    /// Its `workspace`, `~` expanded and absolute, when configured.
    pub workspace: Option<PathBuf>,
    /// The entry as written (an `agents.list` item or an `agents.entries` value), for keys not
    /// typed here (`memorySearch`, `name`…).
    #[serde(skip)]
    pub raw: Value,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WikiConfig {
    /// The file it was read from (`None` when no file exists).
    pub source: Option<PathBuf>,
    /// Where the file is looked for and why there ([`config_path_setting`]).
    pub file: Option<Setting<PathBuf>>,
    /// The typed plugin config, defaults filled in.
    pub settings: Settings,
    /// The source of every plugin key the file sets (dotted path → source); the others are
    /// defaults.
    pub sources: BTreeMap<&'static str, Source>,
    /// `vault.path` as configured (same as `settings.vault.path`).
    pub vault_path: Option<PathBuf>,
    /// `vault.scope: agent`.
    pub agent_scope: bool,
    /// Configured agent ids, normalised, in file order (`agents.entries` keys first),
    /// de-duplicated.
    pub agents: Vec<String>,
    /// The configured agents in the same order.
    pub agent_entries: Vec<AgentEntry>,
    /// `agents.defaults.workspace`, when configured.
    pub workspace_root: Option<PathBuf>,
    /// `plugins.entries.memory-wiki.enabled`, when set.
    pub plugin_enabled: Option<bool>,
    /// The whole parsed file (`Null` without a file).
    pub root: Value,
}

/// Normalise an agent id: trim, lowercase, whitespace runs → `-`.
pub fn normalize_agent_id(raw: &str) -> String {
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

/// The OpenClaw state directory and its source: `$OPENCLAW_STATE_DIR`, else `~/.openclaw`.
pub fn state_dir() -> Setting<PathBuf> {
    match std::env::var_os("OPENCLAW_STATE_DIR").filter(|s| !s.is_empty()) {
        Some(dir) => Setting::new(PathBuf::from(dir), Source::env("OPENCLAW_STATE_DIR")),
        None => Setting::new(crate::home_dir().join(".openclaw"), Source::default_value()),
    }
}

/// Where the config file is looked for, and why there.
pub fn config_path_setting() -> Setting<PathBuf> {
    if let Some(p) = std::env::var_os("OPENCLAW_CONFIG_PATH").filter(|p| !p.is_empty()) {
        return Setting::new(PathBuf::from(p), Source::env("OPENCLAW_CONFIG_PATH"));
    }
    let state = state_dir();
    Setting::new(state.value.join("openclaw.json"), state.source)
}

/// Where the config file is looked for.
pub fn config_path() -> PathBuf {
    config_path_setting().value
}

/// Substitute `${NAME}` references (upper-case names) with environment variables; `$${NAME}`
/// stays literal (`${NAME}`). Returns the text and the variables used; an unset or empty
/// variable is an error naming `at`.
pub fn env_subst(text: &str, at: &str) -> Result<(String, Vec<String>), String> {
    if !text.contains("${") {
        return Ok((text.to_string(), Vec::new()));
    }
    let mut out = String::with_capacity(text.len());
    let mut used = Vec::new();
    let mut rest = text;
    while let Some(pos) = rest.find("${") {
        let escaped = rest[..pos].ends_with('$');
        let after = &rest[pos + 2..];
        let name_len = after
            .find('}')
            .filter(|&n| is_env_name(&after[..n]))
            .unwrap_or(0);
        if name_len == 0 {
            out.push_str(&rest[..pos + 2]);
            rest = after;
            continue;
        }
        let name = &after[..name_len];
        if escaped {
            out.push_str(&rest[..pos - 1]);
            out.push_str(&rest[pos..pos + 3 + name_len]);
        } else {
            let value = std::env::var(name)
                .ok()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    format!(
                        "{at}: environment variable {name} (referenced as ${{{name}}}) is not set"
                    )
                })?;
            out.push_str(&rest[..pos]);
            out.push_str(&value);
            used.push(name.to_string());
        }
        rest = &after[name_len + 1..];
    }
    out.push_str(rest);
    Ok((out, used))
}

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn invalid(file: &Path, message: String) -> CliError {
    CliError::Usage(format!("{}: {message}", file.display()))
}

/// Parse config text (JSON5). `file` names the file in error messages and anchors relative paths.
pub fn parse_config(text: &str, file: &Path) -> Result<WikiConfig, CliError> {
    let root: Value = json5::from_str(text).map_err(|e| match e.position() {
        Some(p) => CliError::Usage(format!(
            "{}:{}:{}: invalid JSON5 config: {}",
            file.display(),
            p.line + 1,
            p.column + 1,
            e.to_string()
                .rsplit_once(" at line ")
                .map_or(e.to_string(), |(m, _)| m.to_string())
        )),
        None => invalid(file, format!("invalid JSON5 config: {e}")),
    })?;
    from_value(root, file)
}

/// Read an already parsed config (`file` for messages and relative paths).
pub fn from_value(root: Value, file: &Path) -> Result<WikiConfig, CliError> {
    let err = |m: String| invalid(file, m);
    schema::check_kind(&root, schema::Kind::Object, "(top level)").map_err(err)?;
    let entry = plugin_entry(&root).map_err(err)?;
    let plugin_enabled = entry
        .and_then(|e| e.get("enabled"))
        .and_then(Value::as_bool);
    let plugin = entry
        .and_then(|e| e.get("config"))
        .cloned()
        .unwrap_or(Value::Null);
    let base = file.parent().unwrap_or(Path::new("/"));
    let (settings, sources) = settings::read(&plugin, base).map_err(err)?;
    let (agent_entries, workspace_root) = read_agents(&root, base).map_err(err)?;
    Ok(WikiConfig {
        source: Some(file.to_path_buf()),
        file: None,
        vault_path: settings.vault.path.clone(),
        agent_scope: settings.vault.scope == VaultScope::Agent,
        agents: agent_entries.iter().map(|a| a.id.clone()).collect(),
        agent_entries,
        workspace_root,
        settings,
        sources,
        plugin_enabled,
        root,
    })
}

/// `plugins.entries.memory-wiki`, checked down to it.
fn plugin_entry(root: &Value) -> Result<Option<&Value>, String> {
    use schema::{Kind, check_optional};
    let plugins = root.get("plugins");
    check_optional(plugins, Kind::Object, "plugins")?;
    let entries = plugins.and_then(|p| p.get("entries"));
    check_optional(entries, Kind::Object, "plugins.entries")?;
    let entry = entries.and_then(|e| e.get("memory-wiki"));
    check_optional(entry, Kind::Object, "plugins.entries.memory-wiki")?;
    check_optional(
        entry.and_then(|e| e.get("enabled")),
        Kind::Bool,
        "plugins.entries.memory-wiki.enabled",
    )?;
    Ok(entry)
}

/// A configured path string (`${VAR}`, `~`, relative to the config file).
fn path_value(value: &Value, at: &str, base: &Path) -> Result<Option<PathBuf>, String> {
    schema::check_kind(value, schema::Kind::Str, at)?;
    let (text, _) = env_subst(value.as_str().unwrap_or_default(), at)?;
    let text = text.trim();
    Ok((!text.is_empty()).then(|| crate::absolutize(Path::new(text), base)))
}

/// The configured agents (`agents.entries`, then `agents.list`) and `agents.defaults.workspace`.
fn read_agents(root: &Value, base: &Path) -> Result<(Vec<AgentEntry>, Option<PathBuf>), String> {
    use schema::{Kind, check_optional};
    let Some(agents) = root.get("agents") else {
        return Ok((Vec::new(), None));
    };
    schema::check_kind(agents, Kind::Object, "agents")?;
    let defaults = agents.get("defaults");
    check_optional(defaults, Kind::Object, "agents.defaults")?;
    let workspace_root = match defaults.and_then(|d| d.get("workspace")) {
        Some(w) => path_value(w, "agents.defaults.workspace", base)?,
        None => None,
    };
    let mut out: Vec<AgentEntry> = Vec::new();
    if let Some(entries) = agents.get("entries") {
        schema::check_kind(entries, Kind::Object, "agents.entries")?;
        for (id, raw) in entries.as_object().into_iter().flatten() {
            push_agent(id, raw, &format!("agents.entries.{id}"), base, &mut out)?;
        }
    }
    if let Some(list) = agents.get("list") {
        if !list.is_array() {
            return Err(format!(
                "agents.list: expected a list (found {})",
                schema::found(list)
            ));
        }
        for (i, item) in list.as_array().into_iter().flatten().enumerate() {
            let at = format!("agents.list[{i}]");
            let id = match item.get("id") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                Some(other) => {
                    return Err(format!(
                        "{at}.id: expected a non-empty string (found {})",
                        schema::found(other)
                    ));
                }
                None if item.is_object() => return Err(format!("{at}: missing required key id")),
                None => String::new(),
            };
            push_agent(&id, item, &at, base, &mut out)?;
        }
    }
    Ok((out, workspace_root))
}

/// Check one agent entry and add it (first occurrence of an id wins).
fn push_agent(
    id: &str,
    raw: &Value,
    at: &str,
    base: &Path,
    out: &mut Vec<AgentEntry>,
) -> Result<(), String> {
    use schema::{Kind, check_optional};
    schema::check_kind(raw, Kind::Object, at)?;
    check_optional(raw.get("default"), Kind::Bool, &format!("{at}.default"))?;
    let workspace = match raw.get("workspace") {
        Some(w) => path_value(w, &format!("{at}.workspace"), base)?,
        None => None,
    };
    let id = normalize_agent_id(id);
    if !id.is_empty() && !out.iter().any(|a| a.id == id) {
        out.push(AgentEntry {
            id,
            default: raw.get("default").and_then(Value::as_bool) == Some(true),
            workspace,
            raw: raw.clone(),
        });
    }
    Ok(())
}

/// The largest OpenClaw config read: a hand-written settings file (a hundred agents with their
/// workspaces and plugin entries are tens of KB); anything near this is not a config.
pub const CONFIG_LIMIT: crate::read::Limit =
    crate::read::Limit::new("the OpenClaw config", 16 << 20);

/// Load the config (defaults when the file does not exist).
pub fn load() -> Result<WikiConfig, CliError> {
    let path = config_path_setting();
    let mut config = match crate::read::read_bounded_string(&path.value, CONFIG_LIMIT) {
        Ok(text) => parse_config(&text, &path.value)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => WikiConfig::default(),
        Err(e) => return Err(CliError::Runtime(format!("{}: {e}", path.value.display()))),
    };
    config.file = Some(path);
    Ok(config)
}

/// The default workspace: `$OPENCLAW_WORKSPACE_DIR`, else `$OPENCLAW_STATE_DIR/workspace`, else
/// `~/.openclaw/workspace`.
pub fn default_workspace_dir() -> Setting<PathBuf> {
    if let Some(dir) = std::env::var_os("OPENCLAW_WORKSPACE_DIR").filter(|d| !d.is_empty()) {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        return Setting::new(
            crate::absolutize(Path::new(&dir), &cwd),
            Source::env("OPENCLAW_WORKSPACE_DIR"),
        );
    }
    let state = state_dir();
    Setting::new(state.value.join("workspace"), state.source)
}

impl WikiConfig {
    /// The source of a dotted plugin key (`search.corpus`): the file when it sets the key, else
    /// the default.
    pub fn source_of(&self, key: &str) -> Source {
        self.sources
            .get(key)
            .cloned()
            .unwrap_or_else(Source::default_value)
    }

    /// The effective `vault.path`: the configured one, else `<state dir>/wiki/main` (the
    /// default vault; in agent scope the per-agent branches live in that one repository).
    pub fn vault_path_setting(&self) -> Setting<PathBuf> {
        match &self.vault_path {
            Some(p) => Setting::new(p.clone(), self.source_of("vault.path")),
            None => {
                let state = state_dir();
                let source = match state.source.kind {
                    SourceKind::Environment => Source::default_via("OPENCLAW_STATE_DIR"),
                    _ => Source::default_value(),
                };
                Setting::new(state.value.join("wiki").join("main"), source)
            }
        }
    }

    /// A configured agent by (normalised) id.
    pub fn agent(&self, id: &str) -> Option<&AgentEntry> {
        let id = normalize_agent_id(id);
        self.agent_entries.iter().find(|a| a.id == id)
    }

    /// The default agent of the config: the only configured agent, else the one marked
    /// `default: true`, else `main` when none is configured; `None` when several are configured
    /// and none is marked.
    pub fn default_agent(&self) -> Option<String> {
        match self.agent_entries.as_slice() {
            [] => Some("main".into()),
            [only] => Some(only.id.clone()),
            many => many.iter().find(|a| a.default).map(|a| a.id.clone()),
        }
    }

    /// The workspace of `agent` (`None`: the default agent), see the module docs.
    pub fn workspace(&self, agent: Option<&str>) -> Setting<PathBuf> {
        let id = agent
            .map(normalize_agent_id)
            .or_else(|| self.default_agent())
            .unwrap_or_else(|| "main".into());
        if let Some(ws) = self.agent(&id).and_then(|a| a.workspace.clone()) {
            return Setting::new(ws, Source::file());
        }
        if self.agent_entries.len() <= 1 {
            return match &self.workspace_root {
                Some(root) => Setting::new(root.clone(), Source::file()),
                None => default_workspace_dir(),
            };
        }
        match &self.workspace_root {
            Some(root) => Setting::new(root.join(&id), Source::file()),
            None => {
                let state = state_dir();
                Setting::new(state.value.join(format!("workspace-{id}")), state.source)
            }
        }
    }

    /// The whole parsed config file, for keys not typed here.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// The agent to act as, given the explicit choice (`--agent` / `$WIKI_AGENT`): in global
    /// scope the explicit id (normalised) or none; in agent scope the explicit id, else the
    /// configured default agent ([`WikiConfig::default_agent`]).
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
            None => self.default_agent().map(Some).ok_or_else(|| {
                CliError::Usage(
                    "No default memory-wiki agent is configured. Pass --agent <id>, or add an agent with `openclaw agents add`.".into(),
                )
            }),
        }
    }
}

#[cfg(test)]
mod tests;
