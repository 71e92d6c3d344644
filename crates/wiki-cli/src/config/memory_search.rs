//! The embedding keys of OpenClaw's `memorySearch` (its `docs/reference/memory-config`), typed:
//! what hybrid memory search needs. Each key is the agent's own (`agents.list[]` /
//! `agents.entries` entry of the agent acting, else of the default agent) when it sets it, else
//! `agents.defaults.memorySearch`'s, else the default below, key by key, as OpenClaw merges an
//! agent's overrides over the defaults.
//!
//! | key | type | default |
//! |---|---|---|
//! | `provider` | string | unset (keyword-only here; see [`ProviderChoice`]) |
//! | `fallback` | string | `none` (the provider tried when `provider` fails) |
//! | `model` | string | the provider's |
//! | `remote.baseUrl` | string | the provider's |
//! | `remote.apiKey` | string (`${VAR}` allowed) | `$OPENAI_API_KEY` for `openai` |
//! | `remote.headers` | object of strings | none |
//! | `inputType`, `queryInputType`, `documentInputType` | string | unset |
//! | `query.hybrid.enabled` | boolean | true |
//! | `query.hybrid.vectorWeight` | number 0–1 | 0.7 |
//! | `query.hybrid.textWeight` | number 0–1 | 0.3 |
//! | `query.hybrid.candidateMultiplier` | integer ≥ 1 | 4 |
//!
//! A value of the wrong type is an error naming its key path (a usage error, exit 2). The other
//! `memorySearch` keys (`minScore`, `temporalDecay`… read by the search crate; `sync`, `store`,
//! `cache`… not used here) are left alone.

use serde_json::Value;

use super::{WikiConfig, env_subst, normalize_agent_id, schema};

/// `query.hybrid.vectorWeight` default.
pub const VECTOR_WEIGHT: f64 = 0.7;
/// `query.hybrid.textWeight` default.
pub const TEXT_WEIGHT: f64 = 0.3;
/// `query.hybrid.candidateMultiplier` default.
pub const CANDIDATE_MULTIPLIER: usize = 4;

/// `memorySearch.provider`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProviderChoice {
    /// Not configured: keyword-only search, no network (the original would try OpenAI).
    #[default]
    Unset,
    /// `none`: keyword-only on purpose.
    None,
    /// `auto`: embeddings when a provider can be set up, keyword-only when it fails.
    Auto,
    /// A named provider (`openai`, `openai-compatible`, `ollama`…): a failure makes memory
    /// search unavailable rather than silently keyword-only.
    Named(String),
}

/// The embedding part of an agent's `memorySearch`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemorySearch {
    /// `provider`.
    pub provider: ProviderChoice,
    /// `fallback`: the provider tried when `provider` cannot be set up or fails (`None` for
    /// unset or `none`).
    pub fallback: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `remote.baseUrl`.
    pub base_url: Option<String>,
    /// `remote.apiKey` (environment references substituted).
    pub api_key: Option<String>,
    /// `remote.headers`, in file order.
    pub headers: Vec<(String, String)>,
    /// `queryInputType`, else `inputType`.
    pub query_input_type: Option<String>,
    /// `documentInputType`, else `inputType`.
    pub document_input_type: Option<String>,
    /// `query.hybrid`.
    pub hybrid: Hybrid,
}

/// `memorySearch.query.hybrid`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hybrid {
    /// `enabled`: merge the keyword score in (false: vector score alone).
    pub enabled: bool,
    /// `vectorWeight`.
    pub vector_weight: f64,
    /// `textWeight`.
    pub text_weight: f64,
    /// `candidateMultiplier`: each path brings `maxResults ×` this many candidates.
    pub candidate_multiplier: usize,
}

impl Default for Hybrid {
    fn default() -> Hybrid {
        Hybrid {
            enabled: true,
            vector_weight: VECTOR_WEIGHT,
            text_weight: TEXT_WEIGHT,
            candidate_multiplier: CANDIDATE_MULTIPLIER,
        }
    }
}

/// Looks keys up in the agent's `memorySearch`, then in `agents.defaults.memorySearch`.
struct Lookup<'a> {
    nodes: Vec<(&'a Value, String)>,
}

impl<'a> Lookup<'a> {
    /// The value of `path` (dotted, below `memorySearch`) and its full key path.
    fn get(&self, path: &str) -> Option<(&'a Value, String)> {
        self.nodes.iter().find_map(|(node, owner)| {
            let mut cur = *node;
            for k in path.split('.') {
                cur = cur.get(k)?;
            }
            Some((cur, format!("{owner}.memorySearch.{path}")))
        })
    }

    fn string(&self, path: &str) -> Result<Option<String>, String> {
        let Some((v, at)) = self.get(path) else {
            return Ok(None);
        };
        schema::check_kind(v, schema::Kind::Str, &at)?;
        let (text, _) = env_subst(v.as_str().unwrap_or_default(), &at)?;
        let text = text.trim().to_string();
        Ok((!text.is_empty()).then_some(text))
    }

    fn number(&self, path: &str, default: f64) -> Result<f64, String> {
        match self.get(path) {
            None => Ok(default),
            Some((v, at)) => v
                .as_f64()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| {
                    format!(
                        "{at}: expected a number from 0 to 1 (found {})",
                        schema::found(v)
                    )
                }),
        }
    }
}

impl WikiConfig {
    /// The embedding keys of `memorySearch` for `agent` (`None`: the default agent).
    pub fn memory_search(&self, agent: Option<&str>) -> Result<MemorySearch, String> {
        let id = agent
            .map(normalize_agent_id)
            .or_else(|| self.default_agent());
        let mut nodes = Vec::new();
        if let Some(entry) = id.as_deref().and_then(|id| self.agent(id)) {
            let owner = match self.agents_list_index(&entry.id) {
                Some(i) => format!("agents.list[{i}]"),
                None => format!("agents.entries.{}", entry.id),
            };
            if let Some(ms) = entry.raw.get("memorySearch") {
                nodes.push((ms, owner));
            }
        }
        if let Some(ms) = self
            .root
            .get("agents")
            .and_then(|a| a.get("defaults"))
            .and_then(|d| d.get("memorySearch"))
        {
            nodes.push((ms, "agents.defaults".to_string()));
        }
        read(&Lookup { nodes })
    }

    fn agents_list_index(&self, id: &str) -> Option<usize> {
        let list = self.root.get("agents")?.get("list")?.as_array()?;
        list.iter().position(|a| {
            a.get("id")
                .and_then(Value::as_str)
                .is_some_and(|s| normalize_agent_id(s) == id)
        })
    }
}

fn read(l: &Lookup<'_>) -> Result<MemorySearch, String> {
    let provider = match l.string("provider")?.as_deref() {
        None => ProviderChoice::Unset,
        Some("none") => ProviderChoice::None,
        Some("auto") => ProviderChoice::Auto,
        Some(name) => ProviderChoice::Named(name.to_string()),
    };
    let input_type = l.string("inputType")?;
    let fallback = l.string("fallback")?.filter(|f| f != "none");
    Ok(MemorySearch {
        provider,
        fallback,
        model: l.string("model")?,
        base_url: l.string("remote.baseUrl")?,
        api_key: l.string("remote.apiKey")?,
        headers: headers(l)?,
        query_input_type: l.string("queryInputType")?.or_else(|| input_type.clone()),
        document_input_type: l.string("documentInputType")?.or(input_type),
        hybrid: hybrid(l)?,
    })
}

fn headers(l: &Lookup<'_>) -> Result<Vec<(String, String)>, String> {
    let Some((v, at)) = l.get("remote.headers") else {
        return Ok(Vec::new());
    };
    let Some(map) = v.as_object() else {
        return Err(format!(
            "{at}: expected an object of strings (found {})",
            schema::found(v)
        ));
    };
    let mut out = Vec::new();
    for (name, value) in map {
        let at = format!("{at}.{name}");
        schema::check_kind(value, schema::Kind::Str, &at)?;
        let (text, _) = env_subst(value.as_str().unwrap_or_default(), &at)?;
        out.push((name.clone(), text));
    }
    Ok(out)
}

fn hybrid(l: &Lookup<'_>) -> Result<Hybrid, String> {
    let d = Hybrid::default();
    let enabled = match l.get("query.hybrid.enabled") {
        None => d.enabled,
        Some((v, at)) => {
            schema::check_kind(v, schema::Kind::Bool, &at)?;
            v.as_bool().unwrap_or(d.enabled)
        }
    };
    let candidate_multiplier = match l.get("query.hybrid.candidateMultiplier") {
        None => d.candidate_multiplier,
        Some((v, at)) => {
            schema::check_kind(v, schema::Kind::Int { min: 1 }, &at)?;
            schema::as_int(v).map_or(d.candidate_multiplier, |n| n.min(1000) as usize)
        }
    };
    Ok(Hybrid {
        enabled,
        vector_weight: l.number("query.hybrid.vectorWeight", d.vector_weight)?,
        text_weight: l.number("query.hybrid.textWeight", d.text_weight)?,
        candidate_multiplier,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn parse(text: &str) -> WikiConfig {
        super::super::parse_config(text, Path::new("/cfg/openclaw.json")).unwrap()
    }

    #[test]
    fn defaults_then_agent_overrides_key_by_key() {
        let cfg = parse(
            "{ agents: { defaults: { memorySearch: { provider: 'openai-compatible', model: 'm1', \
             remote: { baseUrl: 'http://127.0.0.1:9/v1', headers: { 'X-A': 'b' } }, inputType: 'x', \
             queryInputType: 'query', fallback: 'ollama' } }, \
             list: [{ id: 'Ops', memorySearch: { model: 'm2', query: { hybrid: { vectorWeight: 0.5 } } } }] } }",
        );
        let d = cfg.memory_search(Some("nobody")).unwrap();
        assert_eq!(
            d.provider,
            ProviderChoice::Named("openai-compatible".into())
        );
        assert_eq!(d.model.as_deref(), Some("m1"));
        assert_eq!(d.fallback.as_deref(), Some("ollama"));
        assert_eq!(d.headers, vec![("X-A".to_string(), "b".to_string())]);
        assert_eq!(d.query_input_type.as_deref(), Some("query"));
        assert_eq!(d.document_input_type.as_deref(), Some("x"));
        assert_eq!(d.hybrid, Hybrid::default());
        let ops = cfg.memory_search(Some("ops")).unwrap();
        assert_eq!(ops.model.as_deref(), Some("m2"));
        assert_eq!(ops.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(ops.hybrid.vector_weight, 0.5);
        assert_eq!(ops.hybrid.text_weight, TEXT_WEIGHT);
        assert_eq!(
            parse("{}").memory_search(None).unwrap(),
            MemorySearch::default()
        );
        let none = parse(
            "{ agents: { defaults: { memorySearch: { provider: 'none', fallback: 'none' } } } }",
        );
        let none = none.memory_search(None).unwrap();
        assert_eq!(none.provider, ProviderChoice::None);
        assert_eq!(none.fallback, None);
    }

    #[test]
    fn wrong_types_name_the_key() {
        let e = |text: &str| parse(text).memory_search(Some("ops")).unwrap_err();
        assert_eq!(
            e(
                "{ agents: { defaults: { memorySearch: { query: { hybrid: { vectorWeight: 2 } } } } } }"
            ),
            "agents.defaults.memorySearch.query.hybrid.vectorWeight: expected a number from 0 to 1 (found 2)"
        );
        assert_eq!(
            e("{ agents: { list: [{ id: 'ops', memorySearch: { provider: 3 } }] } }"),
            "agents.list[0].memorySearch.provider: expected a string (found 3)"
        );
        assert_eq!(
            e("{ agents: { defaults: { memorySearch: { remote: { headers: ['a'] } } } } }"),
            "agents.defaults.memorySearch.remote.headers: expected an object of strings (found [\"a\"])"
        );
        assert_eq!(
            e(
                "{ agents: { defaults: { memorySearch: { query: { hybrid: { candidateMultiplier: 0 } } } } } }"
            ),
            "agents.defaults.memorySearch.query.hybrid.candidateMultiplier: expected an integer >= 1 (found 0)"
        );
    }
}
