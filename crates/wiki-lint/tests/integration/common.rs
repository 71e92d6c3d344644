//! Helpers shared by the integration tests.

use serde_json::Value;
use wiki_testkit::{Run, Vault};

/// A fresh, clean date (4 days before the pinned clock).
pub const FRESH: &str = "2026-04-01T00:00:00.000Z";

/// A page whose frontmatter passes every check (plus `extra` lines).
pub fn clean(kind: &str, id: &str, extra: &[&str], body: &str) -> String {
    let mut lines = vec![
        format!("pageType: {kind}"),
        format!("id: {id}"),
        "sourceIds: [source.base]".to_string(),
        format!("updatedAt: {FRESH}"),
    ];
    lines.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    wiki_testkit::page(&refs, body)
}

/// Run `wiki-lint --vault <root> args…`.
pub fn lint(v: &Vault, args: &[&str]) -> Run {
    let root = v.root.to_string_lossy().into_owned();
    let mut all = vec!["--vault", root.as_str()];
    all.extend_from_slice(args);
    v.run("wiki-lint", &all)
}

/// The diagnostic records of a JSON Lines run.
pub fn diagnostics(run: &Run) -> Vec<Value> {
    run.jsonl()
        .into_iter()
        .filter(|r| r["type"] == "diagnostic")
        .collect()
}

/// `(path, code, line, message)` of each diagnostic.
pub fn findings(run: &Run) -> Vec<(String, String, Option<u64>, String)> {
    diagnostics(run)
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default().to_string(),
                d["code"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64(),
                d["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `(code, message)` of the findings about `path`.
pub fn messages_for(run: &Run, path: &str) -> Vec<(String, String)> {
    findings(run)
        .into_iter()
        .filter(|f| f.0 == path)
        .map(|f| (f.1, f.3))
        .collect()
}

/// `(code, message)` pairs from string literals.
pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The summary record of a JSON Lines run.
pub fn summary(run: &Run) -> Value {
    run.jsonl()
        .into_iter()
        .last()
        .filter(|r| r["type"] == "summary")
        .unwrap_or_else(|| panic!("no summary record:\n{}", run.stdout))
}
