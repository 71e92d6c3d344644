//! Embeddings for hybrid memory search (reference §14.2): an optional provider turns memory
//! chunks and the query into vectors; a chunk's vector score is the cosine similarity of the two
//! (negative counts as 0), merged with its keyword score by [`crate::memory`].
//!
//! * **Providers** (`memorySearch.provider` of the OpenClaw config): `openai` (`POST
//!   <remote.baseUrl or https://api.openai.com/v1>/embeddings`, key `remote.apiKey` else
//!   `$OPENAI_API_KEY`, model `text-embedding-3-small`), `openai-compatible` (the same request to
//!   `remote.baseUrl`, which it needs; key optional) and `ollama` (`POST <remote.baseUrl or
//!   http://127.0.0.1:11434>/api/embed`, model `nomic-embed-text`). `remote.headers` are sent
//!   with every request; `queryInputType` / `documentInputType` (else `inputType`) add the
//!   `input_type` field to OpenAI-style requests for asymmetric models.
//! * **Choice**: unset or `none` — keyword-only, no network. `auto` — the OpenAI-style endpoint
//!   when `remote.baseUrl` or an API key is configured; when it cannot be set up or a request
//!   fails, keyword-only. A named provider that cannot be set up or fails makes memory search
//!   fail with [`crate::Error::Unavailable`] (exit 2): a broken configuration stays visible.
//!   `fallback` (default `none`) names a provider tried, with its own default model and the same
//!   `remote` settings, when the first cannot be set up or fails; memory search is unavailable
//!   (or, for `auto`, keyword-only) when both do.
//! * **Cache**: vectors are kept beside the memory index, in `<index dir>/embeddings.bin`,
//!   keyed by the SHA-1 of the chunk's text; only chunks not in it are sent to the provider
//!   (in batches of [`BATCH`]). The file records the provider, endpoint, model and document
//!   input type it was made with: when any of them changes, every vector is made again. It holds
//!   the vectors of the index's current chunks only.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use wiki_cli::config::memory_search::{Hybrid, MemorySearch, ProviderChoice};

use crate::doc::StoredDoc;
use crate::store::Index;

/// Chunks per embedding request.
pub const BATCH: usize = 64;
/// Largest provider answer read.
const MAX_ANSWER: u64 = 256 << 20;
/// The cache file's name in the memory index directory.
pub const CACHE_FILE: &str = "embeddings.bin";
const MAGIC: &[u8; 8] = b"WIKIEMB1";

/// The request shape of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST …/embeddings`, `{model, input}` → `{data: [{embedding, index}]}`.
    OpenAi,
    /// `POST …/api/embed`, `{model, input}` → `{embeddings: [[…]]}`.
    Ollama,
}

/// A provider ready to be asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    /// The configured name (`openai`, `ollama`, `auto`…), for messages.
    pub name: String,
    /// Request shape.
    pub api: Api,
    /// The endpoint URL.
    pub url: String,
    /// Model.
    pub model: String,
    /// Bearer token.
    pub api_key: Option<String>,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// `input_type` of query requests.
    pub query_input_type: Option<String>,
    /// `input_type` of document requests.
    pub document_input_type: Option<String>,
    /// Per-request timeout.
    pub timeout: Duration,
}

/// What memory search does about embeddings.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Embeddings {
    /// Keyword-only.
    #[default]
    Off,
    /// Hybrid; when every provider of the chain fails, keyword-only (`auto`).
    Auto(Chain),
    /// Hybrid; when every provider of the chain fails, memory search is unavailable (a named
    /// provider).
    Required(Chain),
    /// A named provider (and its fallback) that cannot be set up: memory search is unavailable.
    Broken(String),
}

/// The providers hybrid search tries, in order: the configured one, then `fallback`.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// The providers that could be set up (never empty).
    pub providers: Vec<Provider>,
    /// Why the others could not (`embedding provider `x`: …`).
    pub skipped: Vec<String>,
    /// `query.hybrid`.
    pub hybrid: Hybrid,
}

/// Resolve the configured provider and its fallback (`openai_key_env` is `$OPENAI_API_KEY`).
///
/// `auto` is the OpenAI-style endpoint when `remote.baseUrl` or an API key is configured. The
/// fallback (`memorySearch.fallback`) is asked with its own default model and the same `remote`
/// settings; it is skipped when it names the provider itself.
pub fn resolve(ms: &MemorySearch, openai_key_env: Option<String>) -> Embeddings {
    let (primary, required) = match &ms.provider {
        ProviderChoice::Unset | ProviderChoice::None => return Embeddings::Off,
        ProviderChoice::Auto => {
            let key = ms.api_key.clone().or(openai_key_env.clone());
            let set_up = (ms.base_url.is_some() || key.is_some())
                .then(|| provider(ms, "auto", Api::OpenAi, ms.model.as_deref(), key));
            (set_up, false)
        }
        ProviderChoice::Named(n) => (
            Some(named(ms, n, ms.model.as_deref(), openai_key_env.clone())),
            true,
        ),
    };
    let mut chain = Chain {
        providers: Vec::new(),
        skipped: Vec::new(),
        hybrid: ms.hybrid,
    };
    let primary_name = match &ms.provider {
        ProviderChoice::Named(n) => n.as_str(),
        _ => "auto",
    };
    let fallback = ms
        .fallback
        .as_deref()
        .filter(|f| *f != primary_name)
        .map(|f| named(ms, f, None, openai_key_env.clone()));
    for made in primary.into_iter().chain(fallback) {
        match made {
            Ok(p) => chain.providers.push(p),
            Err(why) => chain.skipped.push(why),
        }
    }
    match (chain.providers.is_empty(), required) {
        (false, true) => Embeddings::Required(chain),
        (false, false) => Embeddings::Auto(chain),
        (true, true) => Embeddings::Broken(chain.skipped.join("; ")),
        (true, false) => Embeddings::Off,
    }
}

/// A provider named in the configuration (`model`: the configured model, `None` for the
/// provider's default).
fn named(
    ms: &MemorySearch,
    name: &str,
    model: Option<&str>,
    openai_key_env: Option<String>,
) -> Result<Provider, String> {
    let made = match name {
        "openai" => match ms.api_key.clone().or(openai_key_env) {
            Some(key) => provider(ms, name, Api::OpenAi, model, Some(key)),
            None => {
                Err("no API key (set memorySearch.remote.apiKey or $OPENAI_API_KEY)".to_string())
            }
        },
        "openai-compatible" => match ms.base_url {
            Some(_) => provider(ms, name, Api::OpenAi, model, ms.api_key.clone()),
            None => Err("it needs memorySearch.remote.baseUrl".to_string()),
        },
        "ollama" => provider(ms, name, Api::Ollama, model, ms.api_key.clone()),
        other => Err(format!(
            "provider `{other}` is not supported here (supported: openai, openai-compatible, ollama, auto, none)"
        )),
    };
    made.map_err(|why| format!("embedding provider `{name}`: {why}"))
}

fn provider(
    ms: &MemorySearch,
    name: &str,
    api: Api,
    model: Option<&str>,
    api_key: Option<String>,
) -> Result<Provider, String> {
    let (base, path, default_model, timeout) = match api {
        Api::OpenAi => (
            "https://api.openai.com/v1",
            "/embeddings",
            "text-embedding-3-small",
            120,
        ),
        Api::Ollama => (
            "http://127.0.0.1:11434",
            "/api/embed",
            "nomic-embed-text",
            600,
        ),
    };
    let base = ms.base_url.as_deref().unwrap_or(base).trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(format!(
            "memorySearch.remote.baseUrl must be an http(s) URL (found {base:?})"
        ));
    }
    Ok(Provider {
        name: name.to_string(),
        api,
        url: format!("{base}{path}"),
        model: model.unwrap_or(default_model).to_string(),
        api_key,
        headers: ms.headers.clone(),
        query_input_type: ms.query_input_type.clone(),
        document_input_type: ms.document_input_type.clone(),
        timeout: Duration::from_secs(timeout),
    })
}

impl Provider {
    /// Embed `texts` (documents, or the query): one vector each, in order.
    pub fn embed(&self, texts: &[&str], query: bool) -> Result<Vec<Vec<f32>>, String> {
        let mut body = json!({ "model": self.model, "input": texts });
        let input_type = match query {
            true => &self.query_input_type,
            false => &self.document_input_type,
        };
        if let (Api::OpenAi, Some(t)) = (self.api, input_type) {
            body["input_type"] = Value::String(t.clone());
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("wiki-search/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let mut req = agent
            .post(&self.url)
            .header("content-type", "application/json");
        if let Some(key) = &self.api_key {
            req = req.header("authorization", &format!("Bearer {key}"));
        }
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let fail = |what: String| format!("{}: {what}", self.url);
        let mut resp = req
            .send(body.to_string())
            .map_err(|e| fail(e.to_string()))?;
        let status = resp.status();
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .map_err(|e| fail(e.to_string()))?;
        if !status.is_success() {
            let detail: String = text.trim().chars().take(200).collect();
            return Err(fail(format!("HTTP {} {detail}", status.as_u16())));
        }
        let answer: Value =
            serde_json::from_str(&text).map_err(|e| fail(format!("invalid JSON answer: {e}")))?;
        let vectors = parse_answer(self.api, &answer).map_err(fail)?;
        if vectors.len() != texts.len() {
            return Err(fail(format!(
                "{} vectors for {} inputs",
                vectors.len(),
                texts.len()
            )));
        }
        Ok(vectors)
    }

    /// What the cached vectors depend on.
    fn identity(&self) -> String {
        json!([self.name, self.url, self.model, self.document_input_type]).to_string()
    }
}

fn parse_answer(api: Api, answer: &Value) -> Result<Vec<Vec<f32>>, String> {
    let vector = |v: &Value| -> Option<Vec<f32>> {
        v.as_array()?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect()
    };
    let bad = || "the answer has no embeddings".to_string();
    match api {
        Api::OpenAi => {
            let data = answer
                .get("data")
                .and_then(Value::as_array)
                .ok_or_else(bad)?;
            let mut out: Vec<(u64, Vec<f32>)> = Vec::new();
            for (i, item) in data.iter().enumerate() {
                let index = item
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(i as u64);
                out.push((
                    index,
                    item.get("embedding").and_then(vector).ok_or_else(bad)?,
                ));
            }
            out.sort_by_key(|(i, _)| *i);
            Ok(out.into_iter().map(|(_, v)| v).collect())
        }
        Api::Ollama => answer
            .get("embeddings")
            .and_then(Value::as_array)
            .ok_or_else(bad)?
            .iter()
            .map(|v| vector(v).ok_or_else(bad))
            .collect(),
    }
}

/// Content key of a chunk.
fn key(text: &str) -> [u8; 20] {
    sha1_smol::Sha1::from(text).digest().bytes()
}

/// The cache: vectors by chunk key, valid for one provider identity.
fn load_cache(path: &Path, identity: &str) -> HashMap<[u8; 20], Vec<f32>> {
    let mut out = HashMap::new();
    let Ok(bytes) = std::fs::read(path) else {
        return out;
    };
    let Some(rest) = bytes.strip_prefix(MAGIC.as_slice()) else {
        return out;
    };
    let word = |b: &[u8], at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let (Some(id_len), Some(dims)) = (word(rest, 0), word(rest, 4)) else {
        return out;
    };
    if rest.get(8..8 + id_len) != Some(identity.as_bytes()) || dims == 0 {
        return out;
    }
    let record = 20 + 4 * dims;
    for r in rest[8 + id_len..].chunks_exact(record) {
        let mut k = [0u8; 20];
        k.copy_from_slice(&r[..20]);
        let v = r[20..]
            .chunks_exact(4)
            .map(|f| f32::from_le_bytes([f[0], f[1], f[2], f[3]]))
            .collect();
        out.insert(k, v);
    }
    out
}

fn save_cache(
    dir: &Path,
    identity: &str,
    vectors: &[(&[u8; 20], &Vec<f32>)],
) -> Result<(), crate::Error> {
    let dims = vectors.first().map_or(0, |(_, v)| v.len());
    let mut bytes = MAGIC.to_vec();
    bytes.extend((identity.len() as u32).to_le_bytes());
    bytes.extend((dims as u32).to_le_bytes());
    bytes.extend(identity.as_bytes());
    for (k, v) in vectors.iter().filter(|(_, v)| v.len() == dims) {
        bytes.extend_from_slice(&k[..]);
        for f in v.iter() {
            bytes.extend(f.to_le_bytes());
        }
    }
    let tmp = crate::store::temp_path(dir, "embeddings");
    let io = |e| crate::Error::Io(dir.join(CACHE_FILE), e);
    std::fs::write(&tmp, &bytes).map_err(io)?;
    std::fs::rename(&tmp, dir.join(CACHE_FILE)).map_err(io)
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na.sqrt() * nb.sqrt())).max(0.0)
    }
}

/// Vector scores by `(segment, doc)`.
pub type ChunkScores = HashMap<(usize, u32), f64>;

/// The vector score of every live chunk of the memory index for `query`, by `(segment, doc)`.
/// Chunks without a cached vector are embedded first and the cache rewritten. Provider failures
/// are `Err(message)`; a cache that cannot be written is an index error.
pub fn scores(
    index: &Index,
    query: &str,
    p: &Provider,
) -> Result<Result<ChunkScores, String>, crate::Error> {
    let mut chunks: Vec<((usize, u32), [u8; 20], String)> = Vec::new();
    for (seg, doc, _) in index.live_docs() {
        if let StoredDoc::Chunk(c) = index.stored(seg, doc)? {
            chunks.push(((seg, doc), key(&c.text), c.text));
        }
    }
    let identity = p.identity();
    let path = index.dir.join(CACHE_FILE);
    let mut cache = load_cache(&path, &identity);
    let mut asked = std::collections::HashSet::new();
    let mut missing: Vec<(&[u8; 20], &str)> = Vec::new();
    for (_, k, text) in &chunks {
        if !cache.contains_key(k) && asked.insert(*k) {
            missing.push((k, text));
        }
    }
    for batch in missing.chunks(BATCH) {
        let texts: Vec<&str> = batch.iter().map(|(_, t)| *t).collect();
        let vectors = match p.embed(&texts, false) {
            Ok(v) => v,
            Err(e) => return Ok(Err(e)),
        };
        for ((k, _), v) in batch.iter().zip(vectors) {
            cache.insert(**k, v);
        }
    }
    let live: std::collections::BTreeMap<&[u8; 20], &Vec<f32>> = chunks
        .iter()
        .filter_map(|(_, k, _)| Some((k, cache.get(k)?)))
        .collect();
    // Rewrite when vectors were added or the cache holds chunks that are gone.
    if !missing.is_empty() || live.len() != cache.len() {
        let live: Vec<(&[u8; 20], &Vec<f32>)> = live.into_iter().collect();
        save_cache(&index.dir, &identity, &live)?;
    }
    let q = match p.embed(&[query], true) {
        Ok(mut v) => v.pop().unwrap_or_default(),
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(chunks
        .iter()
        .map(|(at, k, _)| (*at, cache.get(k).map_or(0.0, |v| cosine(&q, v))))
        .collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_round_trip_and_identity() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (key("a"), key("b"));
        let (va, vb) = (vec![1.0f32, 0.5], vec![-2.0f32, 0.25]);
        save_cache(dir.path(), "id1", &[(&a, &va), (&b, &vb)]).unwrap();
        let got = load_cache(&dir.path().join(CACHE_FILE), "id1");
        assert_eq!(got.len(), 2);
        assert_eq!(got[&a], va);
        assert_eq!(got[&b], vb);
        assert!(load_cache(&dir.path().join(CACHE_FILE), "id2").is_empty());
    }

    #[test]
    fn cosine_is_clamped() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[1.0, 0.0], &[-1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn provider_resolution() {
        let ms = |p: ProviderChoice, base: Option<&str>, fallback: Option<&str>| MemorySearch {
            provider: p,
            base_url: base.map(String::from),
            fallback: fallback.map(String::from),
            model: Some("m".into()),
            ..MemorySearch::default()
        };
        let urls = |c: &Chain| -> Vec<(String, String)> {
            c.providers
                .iter()
                .map(|p| (p.url.clone(), p.model.clone()))
                .collect()
        };
        assert_eq!(
            resolve(&ms(ProviderChoice::Unset, None, None), Some("k".into())),
            Embeddings::Off
        );
        assert_eq!(
            resolve(&ms(ProviderChoice::Auto, None, None), None),
            Embeddings::Off
        );
        let Embeddings::Auto(c) = resolve(&ms(ProviderChoice::Auto, None, None), Some("k".into()))
        else {
            panic!("auto with a key");
        };
        assert_eq!(
            urls(&c),
            [("https://api.openai.com/v1/embeddings".into(), "m".into())]
        );
        let Embeddings::Auto(c) = resolve(&ms(ProviderChoice::Auto, None, Some("ollama")), None)
        else {
            panic!("auto with a fallback");
        };
        assert_eq!(
            urls(&c),
            [(
                "http://127.0.0.1:11434/api/embed".into(),
                "nomic-embed-text".into()
            )]
        );
        let named = |n: &str, base, fallback| {
            resolve(&ms(ProviderChoice::Named(n.into()), base, fallback), None)
        };
        let Embeddings::Required(c) = named("ollama", None, None) else {
            panic!("ollama")
        };
        assert_eq!(
            urls(&c),
            [("http://127.0.0.1:11434/api/embed".into(), "m".into())]
        );
        let Embeddings::Required(c) =
            named("openai-compatible", Some("http://h:1/v1/"), Some("ollama"))
        else {
            panic!("compatible")
        };
        assert_eq!(
            urls(&c),
            [
                ("http://h:1/v1/embeddings".into(), "m".into()),
                ("http://h:1/v1/api/embed".into(), "nomic-embed-text".into())
            ]
        );
        assert!(c.skipped.is_empty());
        assert_eq!(
            named("openai-compatible", None, None),
            Embeddings::Broken(
                "embedding provider `openai-compatible`: it needs memorySearch.remote.baseUrl"
                    .into()
            )
        );
        // A provider that cannot be set up is skipped for its fallback, and said why.
        let Embeddings::Required(c) = named("gemini", None, Some("ollama")) else {
            panic!("gemini then ollama")
        };
        assert_eq!(c.providers.len(), 1);
        assert_eq!(
            c.skipped,
            [
                "embedding provider `gemini`: provider `gemini` is not supported here (supported: openai, openai-compatible, ollama, auto, none)"
            ]
        );
        assert_eq!(
            named("openai", None, Some("voyage")),
            Embeddings::Broken(
                "embedding provider `openai`: no API key (set memorySearch.remote.apiKey or $OPENAI_API_KEY); \
                 embedding provider `voyage`: provider `voyage` is not supported here (supported: openai, openai-compatible, ollama, auto, none)"
                    .into()
            )
        );
    }
}
