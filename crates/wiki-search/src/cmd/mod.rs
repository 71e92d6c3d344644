//! The commands: `search` (plumbing `wiki-search` and porcelain `wiki search`), `get`, `index`.

use std::path::{Path, PathBuf};

use wiki_cli::{CliError, GlobalArgs};

use crate::{Corpus, Error, View};

pub mod get;
pub mod index;
pub mod search;

/// The `--backend` flag (reference §7.1): `local` never touches the memory corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Backend {
    /// Wiki plus the memory corpus when `--corpus` asks for it.
    #[default]
    Shared,
    /// Wiki only.
    Local,
}

/// Map a library error to the CLI edge.
pub fn cli_error(e: Error) -> CliError {
    CliError::Runtime(e.to_string())
}

/// The memory workspace: `--memory DIR` (or `$WIKI_MEMORY_DIR`), else
/// `$OPENCLAW_STATE_DIR/workspace`, else `~/.openclaw/workspace`.
pub fn memory_dir(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Runtime(format!("cannot read the current directory: {e}")))?;
    if let Some(dir) = flag {
        return Ok(wiki_cli::absolutize(dir, &cwd));
    }
    let state = std::env::var_os("OPENCLAW_STATE_DIR")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| wiki_cli::home_dir().join(".openclaw"));
    Ok(state.join("workspace"))
}

/// Parse `--min-score`: a number from 0 to 1.
pub fn parse_min_score(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| format!("--min-score must be a number from 0 to 1 (found {s:?})"))
}

/// The memory corpus minimum score (reference §14.1/§14.2): `--min-score`, else
/// `agents.list[<agent>].memorySearch.query.minScore` (the agent of `--agent`), else
/// `agents.defaults.memorySearch.query.minScore` of the OpenClaw config
/// ([`wiki_cli::config::config_path`]), else [`crate::memory::MIN_SCORE`].
pub fn memory_min_score(flag: Option<f64>, agent: Option<&str>) -> Result<f64, CliError> {
    if let Some(v) = flag {
        return Ok(v);
    }
    let Some(found) = memory_query_setting(agent, &["minScore"])? else {
        return Ok(crate::memory::MIN_SCORE);
    };
    found
        .value
        .as_f64()
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| found.error("a number from 0 to 1"))
}

/// The memory corpus settings of a search: [`memory_min_score`], [`memory_recency`] and
/// [`memory_embeddings`] for the agent, one place for the CLI and the search server.
pub fn memory_settings(
    min_score: Option<f64>,
    agent: Option<&str>,
) -> Result<crate::memory::Settings, CliError> {
    Ok(crate::memory::Settings {
        min_score: memory_min_score(min_score, agent)?,
        recency: memory_recency(agent)?,
        embeddings: memory_embeddings(agent)?,
    })
}

/// The embedding provider of memory search ([`crate::embed::resolve`]) from the agent's
/// `memorySearch` (else `agents.defaults`'), through the typed config.
pub fn memory_embeddings(agent: Option<&str>) -> Result<crate::embed::Embeddings, CliError> {
    let cfg = wiki_cli::config::load()?;
    let ms = cfg.memory_search(agent).map_err(|e| {
        let file = cfg.source.as_deref().unwrap_or(Path::new("openclaw.json"));
        CliError::Usage(format!("{}: {e}", file.display()))
    })?;
    let env_key = std::env::var("OPENAI_API_KEY")
        .ok()
        .filter(|k| !k.trim().is_empty());
    Ok(crate::embed::resolve(&ms, env_key))
}

/// The recency of memory hits ([`crate::memory::Recency`]) from
/// `memorySearch.query.hybrid.temporalDecay` (per agent, else `agents.defaults`): `enabled: true`
/// is the original's decay with `halfLifeDays` (default 30), `enabled: false` no recency, and
/// no setting the default blend.
pub fn memory_recency(agent: Option<&str>) -> Result<crate::memory::Recency, CliError> {
    use crate::memory::Recency;
    let enabled = memory_query_setting(agent, &["hybrid", "temporalDecay", "enabled"])?;
    let half_life = memory_query_setting(agent, &["hybrid", "temporalDecay", "halfLifeDays"])?;
    let half_life_days = match half_life {
        Some(found) => found
            .value
            .as_f64()
            .filter(|v| *v > 0.0)
            .ok_or_else(|| found.error("a number above 0"))?,
        None => crate::memory::HALF_LIFE_DAYS,
    };
    Ok(match enabled {
        None => match Recency::default() {
            Recency::Blend { share, .. } => Recency::Blend {
                half_life_days,
                share,
            },
            other => other,
        },
        Some(found) => match found.value.as_bool() {
            Some(true) => Recency::Decay { half_life_days },
            Some(false) => Recency::Off,
            None => return Err(found.error("true or false")),
        },
    })
}

/// A setting found in the OpenClaw config.
struct Setting {
    value: serde_json::Value,
    /// Its full key.
    key: String,
    config: PathBuf,
}

impl Setting {
    fn error(&self, expected: &str) -> CliError {
        CliError::Usage(format!(
            "{}: {} must be {expected} (found {})",
            self.config.display(),
            self.key,
            self.value
        ))
    }
}

/// `memorySearch.query.<rel…>` of the OpenClaw config: `agents.list[<agent>]`'s, else
/// `agents.defaults`'s; `None` when neither has it or there is no config.
fn memory_query_setting(agent: Option<&str>, rel: &[&str]) -> Result<Option<Setting>, CliError> {
    use serde_json::Value;
    let path = wiki_cli::config::config_path();
    let text = match wiki_cli::read::read_bounded_string(&path, wiki_cli::config::CONFIG_LIMIT) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CliError::Runtime(format!("{}: {e}", path.display()))),
    };
    let root: Value = json5::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{}: invalid JSON5 config: {e}", path.display())))?;
    let agents = root.get("agents");
    let setting_of = |node: Option<&Value>| -> Option<Value> {
        let mut v = node?.get("memorySearch")?.get("query")?;
        for k in rel {
            v = v.get(k)?;
        }
        Some(v.clone())
    };
    let agent_node = agent.and_then(|id| {
        agents?.get("list")?.as_array()?.iter().find(|a| {
            a.get("id")
                .and_then(Value::as_str)
                .is_some_and(|a| wiki_cli::config::normalize_agent_id(a) == id)
        })
    });
    let (value, owner) = match setting_of(agent_node) {
        Some(v) => (v, format!("agents.list[{}]", agent.unwrap_or_default())),
        None => match setting_of(agents.and_then(|a| a.get("defaults"))) {
            Some(v) => (v, "agents.defaults".to_string()),
            None => return Ok(None),
        },
    };
    Ok(Some(Setting {
        value,
        key: format!("{owner}.memorySearch.query.{}", rel.join(".")),
        config: path,
    }))
}

/// Effective corpora: `(wiki, memory)`.
pub fn corpora(corpus: Corpus, backend: Backend) -> (bool, bool) {
    let wiki = matches!(corpus, Corpus::Wiki | Corpus::All);
    let memory = backend == Backend::Shared && matches!(corpus, Corpus::Memory | Corpus::All);
    (wiki, memory)
}

/// The vault directory and the view of `--agent`.
pub fn vault_view(global: &GlobalArgs) -> Result<(PathBuf, View), CliError> {
    let vault = global.vault_dir()?;
    if !vault.is_dir() {
        return Err(CliError::Runtime(format!(
            "{}: vault directory does not exist",
            vault.display()
        )));
    }
    let agent = global.agent_id()?;
    let view = crate::resolve_view(&vault, agent.as_deref()).map_err(cli_error)?;
    Ok((vault, view))
}
