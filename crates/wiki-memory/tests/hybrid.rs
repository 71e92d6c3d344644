//! Hybrid memory search (reference §14.2) against a fake embedding provider this test starts on
//! 127.0.0.1: deterministic vectors from a small concept table, every request recorded.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use common::Env;
use serde_json::{Value, json};
use wiki_testkit::Run;

/// One request the fake provider received.
#[derive(Debug, Clone)]
struct Request {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Request {
    fn inputs(&self) -> Vec<String> {
        self.body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Concepts: a word of a concept adds 1 to its dimension; any other word 0.1 to the last.
const CONCEPTS: &[&[&str]] = &[
    &["car", "automobile", "garage", "brakes", "vehicle"],
    &["pasta", "dinner", "lasagna", "recipe"],
    &["guitar", "concert", "band"],
];

fn embed(text: &str) -> Vec<f64> {
    let mut v = vec![0.0; CONCEPTS.len() + 1];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_lowercase();
        match CONCEPTS.iter().position(|c| c.contains(&w.as_str())) {
            Some(i) => v[i] += 1.0,
            None => v[CONCEPTS.len()] += 0.1,
        }
    }
    v
}

/// Start the fake provider: OpenAI-style `…/embeddings` and Ollama-style `…/api/embed`; any path
/// under `/broken`, and any request for the model `broken`, answers HTTP 500.
fn provider() -> (String, Arc<Mutex<Vec<Request>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap_or(0);
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            let mut headers = Vec::new();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = h.trim_end().split_once(':') {
                    headers.push((k.trim().to_string(), v.trim().to_string()));
                }
            }
            let len = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                .and_then(|(_, v)| v.parse::<usize>().ok())
                .unwrap_or(0);
            let mut body = vec![0u8; len];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let inputs: Vec<String> = body["input"]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_str().unwrap_or("").into()).collect())
                .unwrap_or_default();
            let failing = path.starts_with("/broken") || body["model"] == "broken";
            seen.lock().unwrap().push(Request {
                path: path.clone(),
                headers,
                body,
            });
            let vectors: Vec<Vec<f64>> = inputs.iter().map(|t| embed(t)).collect();
            let (status, answer) = if failing {
                ("500 Internal Server Error", "boom".to_string())
            } else if path.ends_with("/api/embed") {
                ("200 OK", json!({ "embeddings": vectors }).to_string())
            } else {
                let data: Vec<Value> = vectors
                    .iter()
                    .enumerate()
                    .map(|(i, v)| json!({ "object": "embedding", "index": i, "embedding": v }))
                    .collect();
                ("200 OK", json!({ "data": data }).to_string())
            };
            let mut s = stream;
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    (format!("http://{addr}"), log)
}

/// A workspace whose only keyword match for "automobile maintenance" is not the note about it.
fn env() -> Env {
    let env = Env::new();
    env.write(
        "memory/2026-03-01.md",
        "Took the car to the garage; the brakes were squeaking.\n",
    );
    env.write(
        "memory/2026-03-02.md",
        "The automobile club newsletter mentions a pasta dinner and a concert.\n",
    );
    env.write(
        "memory/2026-03-03.md",
        "Made lasagna for dinner with the new recipe.\n",
    );
    env
}

/// `wiki memory search <query> --json --min-score 0` with `config` as the OpenClaw config.
fn search(env: &Env, config: Option<&str>, args: &[&str]) -> Run {
    let path: PathBuf = env.vault.temp().join("openclaw.json");
    let mut cmd = env.vault.command("wiki");
    let ws = env.ws.to_str().unwrap();
    cmd.args([
        "memory",
        "--workspace",
        ws,
        "search",
        "--json",
        "--min-score",
        "0",
    ])
    .args(args);
    if let Some(text) = config {
        std::fs::write(&path, text).unwrap();
        cmd.env("OPENCLAW_CONFIG_PATH", &path);
    }
    wiki_testkit::output(cmd, None)
}

fn paths(run: &Run) -> Vec<String> {
    run.expect_code(0);
    run.jsonl()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

fn config(memory_search: &str) -> String {
    format!("{{ agents: {{ defaults: {{ memorySearch: {{ {memory_search} }} }} }} }}")
}

const QUERY: &str = "automobile maintenance";

#[test]
fn hybrid_ranks_by_meaning_and_reuses_cached_vectors() {
    let env = env();
    let (url, log) = provider();
    // Keyword-only (the default): the newsletter is the only hit, and nobody is asked.
    assert_eq!(
        paths(&search(&env, None, &[QUERY])),
        vec!["memory/2026-03-02.md"]
    );
    let cfg = |model: &str| {
        config(&format!(
            "provider: 'openai-compatible', model: '{model}', \
             remote: {{ baseUrl: '{url}/v1/', apiKey: 'secret', headers: {{ 'X-Team': 'ops' }} }}, \
             queryInputType: 'query', documentInputType: 'passage'"
        ))
    };
    let hybrid = search(&env, Some(&cfg("fake-1")), &[QUERY]);
    // The garage note says nothing of automobiles but means them: first.
    assert_eq!(
        paths(&hybrid)[..2],
        ["memory/2026-03-01.md", "memory/2026-03-02.md"]
    );
    let first: Vec<Request> = log.lock().unwrap().drain(..).collect();
    assert_eq!(first.len(), 2, "{first:?}");
    assert_eq!(first[0].path, "/v1/embeddings");
    assert_eq!(first[0].inputs().len(), 3);
    assert_eq!(first[0].body["model"], "fake-1");
    assert_eq!(first[0].body["input_type"], "passage");
    assert_eq!(first[0].header("authorization"), Some("Bearer secret"));
    assert_eq!(first[0].header("x-team"), Some("ops"));
    assert_eq!(first[1].inputs(), vec![QUERY]);
    assert_eq!(first[1].body["input_type"], "query");
    // Unchanged chunks: only the query is embedded, and the ranking is the same.
    let again = search(&env, Some(&cfg("fake-1")), &[QUERY]);
    assert_eq!(again.stdout, hybrid.stdout);
    let second: Vec<Request> = log.lock().unwrap().drain(..).collect();
    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!(second[0].inputs(), vec![QUERY]);
    // One note changed: only its chunk is sent.
    env.write(
        "memory/2026-03-03.md",
        "Band practice, new guitar strings.\n",
    );
    search(&env, Some(&cfg("fake-1")), &[QUERY]).expect_code(0);
    let third: Vec<Request> = log.lock().unwrap().drain(..).collect();
    assert_eq!(third.len(), 2, "{third:?}");
    assert_eq!(
        third[0].inputs(),
        vec!["Band practice, new guitar strings."]
    );
    // Another model: every vector is made again.
    search(&env, Some(&cfg("fake-2")), &[QUERY]).expect_code(0);
    let fourth: Vec<Request> = log.lock().unwrap().drain(..).collect();
    assert_eq!(fourth.len(), 2, "{fourth:?}");
    assert_eq!(fourth[0].inputs().len(), 3);
    assert_eq!(fourth[0].body["model"], "fake-2");
    // `none` is keyword-only on purpose: no request.
    assert_eq!(
        paths(&search(&env, Some(&config("provider: 'none'")), &[QUERY])),
        vec!["memory/2026-03-02.md"]
    );
    assert!(log.lock().unwrap().is_empty());
}

#[test]
fn ollama_and_the_search_command() {
    let env = env();
    let (url, log) = provider();
    let cfg = config(&format!(
        "provider: 'ollama', model: 'nomic-embed-text', remote: {{ baseUrl: '{url}' }}"
    ));
    assert_eq!(
        paths(&search(&env, Some(&cfg), &[QUERY]))[..2],
        ["memory/2026-03-01.md", "memory/2026-03-02.md"]
    );
    let requests: Vec<Request> = log.lock().unwrap().drain(..).collect();
    assert_eq!(
        requests.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(),
        ["/api/embed", "/api/embed"]
    );
    assert!(requests[0].body.get("input_type").is_none());
    // `wiki search --corpus memory` ranks the same way (vectors already cached).
    let config_path = env.vault.temp().join("openclaw.json");
    let mut cmd = env.vault.command("wiki");
    cmd.args([
        "search",
        QUERY,
        "--corpus",
        "memory",
        "--json",
        "--min-score",
        "0",
    ])
    .args(["--memory", env.ws.to_str().unwrap()])
    .env("OPENCLAW_CONFIG_PATH", &config_path);
    let run = wiki_testkit::output(cmd, None);
    run.expect_code(0);
    let hits: Vec<String> = run.json().as_array().unwrap()[..2]
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(hits, ["memory/2026-03-01.md", "memory/2026-03-02.md"]);
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[test]
fn auto_falls_back_to_keywords_and_a_named_provider_fails_loudly() {
    let env = env();
    let (url, log) = provider();
    let keyword = search(&env, None, &[QUERY]);
    keyword.expect_code(0);
    // `auto` with a failing endpoint: the keyword-only answer, byte for byte.
    let auto = search(
        &env,
        Some(&config(&format!(
            "provider: 'auto', remote: {{ baseUrl: '{url}/broken/v1' }}"
        ))),
        &[QUERY],
    );
    auto.expect_code(0);
    assert_eq!(auto.stdout, keyword.stdout);
    assert_eq!(log.lock().unwrap().drain(..).count(), 1);
    // The same endpoint named explicitly: memory search is unavailable (exit 2).
    let named = search(
        &env,
        Some(&config(&format!(
            "provider: 'openai-compatible', remote: {{ baseUrl: '{url}/broken/v1' }}"
        ))),
        &[QUERY],
    );
    named.expect_code(2);
    assert_eq!(named.stdout, "");
    assert_eq!(
        named.stderr,
        format!(
            "wiki: error: memory search is unavailable: embedding provider `openai-compatible` failed: \
             {url}/broken/v1/embeddings: HTTP 500 boom (fix memorySearch.provider/model/remote in the \
             OpenClaw config, or set provider: \"none\" for keyword-only search)\n"
        )
    );
    assert_eq!(log.lock().unwrap().drain(..).count(), 1);
    // A provider this tool cannot talk to, or one missing its endpoint, is unavailable too
    // (nothing is asked).
    let fix = "(fix memorySearch.provider/model/remote in the OpenClaw config, or set provider: \
               \"none\" for keyword-only search)\n";
    let gemini = search(&env, Some(&config("provider: 'gemini'")), &[QUERY]);
    gemini.expect_code(2);
    assert_eq!(
        gemini.stderr,
        format!(
            "wiki: error: memory search is unavailable: embedding provider `gemini`: provider \
             `gemini` is not supported here (supported: openai, openai-compatible, ollama, auto, \
             none) {fix}"
        )
    );
    let no_url = search(
        &env,
        Some(&config("provider: 'openai-compatible'")),
        &[QUERY],
    );
    no_url.expect_code(2);
    assert_eq!(
        no_url.stderr,
        format!(
            "wiki: error: memory search is unavailable: embedding provider `openai-compatible`: \
             it needs memorySearch.remote.baseUrl {fix}"
        )
    );
    // A wrongly typed key is a usage error naming it.
    let bad = search(
        &env,
        Some(&config(
            "provider: 'ollama', query: { hybrid: { textWeight: 'x' } }",
        )),
        &[QUERY],
    );
    bad.expect_code(2);
    assert_eq!(
        bad.stderr,
        format!(
            "wiki: error: {}: agents.defaults.memorySearch.query.hybrid.textWeight: expected a \
             number from 0 to 1 (found \"x\")\n",
            env.vault.temp().join("openclaw.json").display()
        )
    );
    assert!(log.lock().unwrap().is_empty());
}

#[test]
fn fallback_answers_when_the_named_provider_fails() {
    let env = env();
    let (url, log) = provider();
    // The named provider fails; its fallback (own default model, same endpoint) answers.
    let cfg = config(&format!(
        "provider: 'openai-compatible', model: 'broken', fallback: 'ollama', \
         remote: {{ baseUrl: '{url}/v1' }}"
    ));
    assert_eq!(
        paths(&search(&env, Some(&cfg), &[QUERY]))[..2],
        ["memory/2026-03-01.md", "memory/2026-03-02.md"]
    );
    let requests: Vec<(String, Value)> = log
        .lock()
        .unwrap()
        .drain(..)
        .map(|r| (r.path, r.body["model"].clone()))
        .collect();
    assert_eq!(
        requests,
        [
            ("/v1/embeddings".to_string(), json!("broken")),
            ("/v1/api/embed".to_string(), json!("nomic-embed-text")),
            ("/v1/api/embed".to_string(), json!("nomic-embed-text")),
        ]
    );
    // Both fail: memory search is unavailable, and says why for each.
    let both = search(
        &env,
        Some(&config(&format!(
            "provider: 'openai-compatible', fallback: 'ollama', remote: {{ baseUrl: '{url}/broken/v1' }}"
        ))),
        &[QUERY],
    );
    both.expect_code(2);
    assert_eq!(both.stdout, "");
    assert_eq!(
        both.stderr,
        format!(
            "wiki: error: memory search is unavailable: embedding provider `openai-compatible` failed: \
             {url}/broken/v1/embeddings: HTTP 500 boom; embedding provider `ollama` failed: \
             {url}/broken/v1/api/embed: HTTP 500 boom (fix memorySearch.provider/model/remote in the \
             OpenClaw config, or set provider: \"none\" for keyword-only search)\n"
        )
    );
    // `fallback: 'none'` is no fallback.
    let none = search(
        &env,
        Some(&config(&format!(
            "provider: 'openai-compatible', model: 'broken', fallback: 'none', remote: {{ baseUrl: '{url}/v1' }}"
        ))),
        &[QUERY],
    );
    none.expect_code(2);
    assert_eq!(log.lock().unwrap().drain(..).count(), 3);
}
