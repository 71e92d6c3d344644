//! The compact prompt digest (reference §13): tool guidance lines, then a snapshot of the
//! compiled digest — the top pages by contradictions, questions and claims, up to two claims each
//! with their qualifiers.
//!
//! The original adds it to an agent's prompt when `context.includeCompiledDigestPrompt` is on.
//! Here it is `wiki context` (an explicit request, so the snapshot is always included), the MCP
//! prompt and resource `wiki_context`, and the MCP server's instructions (snapshot included only
//! when `context.includeCompiledDigestPrompt` is true, as in the original).

use std::cmp::Ordering;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// Pages in the snapshot.
pub const MAX_PAGES: usize = 4;
/// Claims per page.
pub const MAX_CLAIMS_PER_PAGE: usize = 2;

/// The tools the guidance lines know about.
pub const GUIDED_TOOLS: &[&str] = &[
    "memory_search",
    "memory_get",
    "wiki_search",
    "wiki_get",
    "wiki_apply",
    "wiki_lint",
];

/// What the snapshot reads of `agent-digest.json` (the rest is skipped, not kept).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Digest {
    #[serde(default)]
    claim_count: Option<f64>,
    #[serde(default)]
    pages: Vec<DigestPage>,
    #[serde(default)]
    contradiction_clusters: Option<Vec<IgnoredAny>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DigestPage {
    #[serde(default)]
    title: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    claim_count: Option<f64>,
    #[serde(default)]
    questions: Option<Vec<IgnoredAny>>,
    #[serde(default)]
    contradictions: Option<Vec<IgnoredAny>>,
    #[serde(default)]
    top_claims: Vec<DigestClaim>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DigestClaim {
    #[serde(default)]
    text: String,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    freshness_level: Option<String>,
}

/// `## Compiled Wiki` and one line per available tool (reference §13); nothing when none of the
/// guided tools is available.
pub fn tool_guidance(available: &[&str]) -> Vec<String> {
    let has = |t: &str| available.contains(&t);
    if !GUIDED_TOOLS.iter().any(|t| has(t)) {
        return Vec::new();
    }
    let mut lines = vec![
        "## Compiled Wiki".to_string(),
        "Use the wiki when the answer depends on accumulated project knowledge, prior syntheses, entity pages, or source-backed notes that should survive beyond one conversation.".to_string(),
    ];
    if has("memory_search") {
        lines.push("Prefer `memory_search` with `corpus=all` for one recall pass across durable memory and the compiled wiki when both are relevant.".into());
    }
    if has("memory_get") {
        lines.push("Use `memory_get` with `corpus=wiki` or `corpus=all` when you already know the page path and want a small excerpt without leaving the shared memory tool flow.".into());
    }
    match (has("wiki_search"), has("wiki_get")) {
        (true, true) => lines.push("Workflow: `wiki_search` first, then `wiki_get` for the exact page or imported memory file you need. Use this when you want wiki-specific ranking or provenance details instead of the broader shared memory flow.".into()),
        (true, false) => lines.push("Use `wiki_search` before answering from stored knowledge when you want wiki-specific ranking or provenance details.".into()),
        (false, true) => lines.push("Use `wiki_get` to inspect specific wiki pages or imported memory files by path/id.".into()),
        (false, false) => {}
    }
    if has("wiki_apply") {
        lines.push("Use `wiki_apply` for narrow synthesis filing and metadata repair instead of rewriting managed markdown blocks by hand.".into());
    }
    if has("wiki_lint") {
        lines.push(
            "After meaningful wiki updates, run `wiki_lint` before trusting the vault.".into(),
        );
    }
    lines.push(String::new());
    lines
}

fn len(v: &Option<Vec<IgnoredAny>>) -> usize {
    v.as_ref().map_or(0, Vec::len)
}

fn count(v: Option<f64>) -> f64 {
    v.unwrap_or(0.0)
}

/// A JavaScript number as `${n}` prints it (integers without a fraction).
fn js_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn page_rank(p: &DigestPage) -> f64 {
    6.0 * len(&p.contradictions) as f64
        + 4.0 * len(&p.questions) as f64
        + 2.0 * count(p.claim_count).min(6.0)
        + p.top_claims.len().min(3) as f64
}

fn freshness_rank(level: Option<&str>) -> u8 {
    match level {
        Some("fresh") => 3,
        Some("aging") => 2,
        Some("stale") => 1,
        _ => 0,
    }
}

fn claim_order(a: &DigestClaim, b: &DigestClaim) -> Ordering {
    let conf = |c: &DigestClaim| c.confidence.unwrap_or(-1.0);
    conf(b)
        .partial_cmp(&conf(a))
        .unwrap_or(Ordering::Equal)
        .then_with(|| {
            freshness_rank(b.freshness_level.as_deref())
                .cmp(&freshness_rank(a.freshness_level.as_deref()))
        })
        .then_with(|| a.text.cmp(&b.text))
}

fn claim_line(c: &DigestClaim) -> String {
    let mut q = Vec::new();
    if let Some(s) = c.status.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        q.push(format!("status {s}"));
    }
    if let Some(conf) = c.confidence {
        q.push(format!("confidence {conf:.2}"));
    }
    if let Some(f) = c
        .freshness_level
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        q.push(format!("freshness {f}"));
    }
    if q.is_empty() {
        format!("  - {}", c.text)
    } else {
        format!("  - {} ({})", c.text, q.join(", "))
    }
}

/// The snapshot lines of a digest (`agent-digest.json` bytes); nothing when it does not parse,
/// has no pages, or no page has claims, questions or contradictions.
pub fn snapshot(digest: &[u8]) -> Vec<String> {
    let Ok(digest) = serde_json::from_slice::<Digest>(digest) else {
        return Vec::new();
    };
    let mut pages: Vec<&DigestPage> = digest
        .pages
        .iter()
        .filter(|p| {
            count(p.claim_count) > 0.0 || len(&p.questions) > 0 || len(&p.contradictions) > 0
        })
        .collect();
    pages.sort_by(|a, b| {
        page_rank(b)
            .partial_cmp(&page_rank(a))
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.title.cmp(&b.title))
    });
    pages.truncate(MAX_PAGES);
    if pages.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![
        "## Compiled Wiki Snapshot".to_string(),
        format!(
            "Compiled wiki currently tracks {} claims across {} high-signal pages.",
            js_number(count(digest.claim_count)),
            pages.len()
        ),
    ];
    if let Some(clusters) = &digest.contradiction_clusters {
        lines.push(format!("Contradiction clusters: {}.", clusters.len()));
    }
    for p in pages {
        let mut details = vec![
            p.kind.clone(),
            format!("{} claims", js_number(count(p.claim_count))),
        ];
        if len(&p.questions) > 0 {
            details.push(format!("{} open questions", len(&p.questions)));
        }
        if len(&p.contradictions) > 0 {
            details.push(format!("{} contradiction notes", len(&p.contradictions)));
        }
        lines.push(format!("- {}: {}", p.title, details.join(", ")));
        let mut claims: Vec<&DigestClaim> = p.top_claims.iter().collect();
        claims.sort_by(|a, b| claim_order(a, b));
        lines.extend(claims.into_iter().take(MAX_CLAIMS_PER_PAGE).map(claim_line));
    }
    lines.push(String::new());
    lines
}

/// The digest of the view `agent` reads: `.openclaw-wiki/cache/agent-digest.json`, or the
/// agent's copy under `.openclaw-wiki/cache/agents/<ID>/` when its branch is not checked out.
pub fn read_digest(vault: &Path, agent: Option<&str>) -> Option<Vec<u8>> {
    read_cache(vault, agent, wiki_parse::layout::AGENT_DIGEST_PATH)
}

/// A compiled cache file (`rel`: [`wiki_parse::layout::AGENT_DIGEST_PATH`] or `CLAIMS_PATH`) of
/// the view `agent` reads (see [`read_digest`]).
pub fn read_cache(vault: &Path, agent: Option<&str>, rel: &str) -> Option<Vec<u8>> {
    let detached_agent = match agent {
        None => None,
        Some(id) => match wiki_search::resolve_view(vault, Some(id)) {
            Ok(wiki_search::View::Agent { .. }) => Some(id),
            _ => None,
        },
    };
    let rel = wiki_parse::layout::cache_location(rel, detached_agent);
    wiki_cli::read::read_bounded(&vault.join(rel), wiki_vault::DERIVED_LIMIT).ok()
}

/// Guidance then snapshot, as one text (lines joined by newlines), cut to at most `max_chars`
/// characters at a line boundary (a snapshot whose first page no longer fits is left out whole).
pub fn render(guidance: &[String], snapshot: &[String], max_chars: Option<usize>) -> String {
    let mut out = String::new();
    let mut used = 0usize;
    let fits =
        |used: usize, line: &str| max_chars.is_none_or(|max| used + line.chars().count() < max);
    for line in guidance {
        if !fits(used, line) {
            return out;
        }
        used += line.chars().count() + 1;
        out.push_str(line);
        out.push('\n');
    }
    // The snapshot's header lines only make sense with at least one page line.
    let header = snapshot
        .iter()
        .position(|l| l.starts_with("- "))
        .unwrap_or(snapshot.len());
    let head_len: usize = snapshot[..(header + 1).min(snapshot.len())]
        .iter()
        .map(|l| l.chars().count() + 1)
        .sum();
    if max_chars.is_some_and(|max| used + head_len > max) {
        return out;
    }
    for line in snapshot {
        if !fits(used, line) {
            break;
        }
        used += line.chars().count() + 1;
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = r#"{"claimCount": 8, "contradictionClusters": [{"key": "claim.alpha.db"}],
      "pages": [
        {"title": "Beta", "kind": "concept", "claimCount": 1, "topClaims": [{"text": "B one"}]},
        {"title": "Empty", "kind": "entity", "claimCount": 0, "topClaims": []},
        {"title": "Alpha", "kind": "entity", "claimCount": 3, "questions": ["Still active?"],
         "contradictions": ["Conflicts with source.beta"],
         "topClaims": [
           {"text": "Alpha is old.", "confidence": 0.4, "freshnessLevel": "stale"},
           {"text": "Alpha uses PostgreSQL for production writes.", "status": "supported",
            "confidence": 0.91, "freshnessLevel": "fresh"},
           {"text": "Alpha has no owner."}]}
      ]}"#;

    #[test]
    fn snapshot_matches_the_original_format() {
        assert_eq!(
            snapshot(DIGEST.as_bytes()).join("\n"),
            "## Compiled Wiki Snapshot\n\
             Compiled wiki currently tracks 8 claims across 2 high-signal pages.\n\
             Contradiction clusters: 1.\n\
             - Alpha: entity, 3 claims, 1 open questions, 1 contradiction notes\n\
             \x20 - Alpha uses PostgreSQL for production writes. (status supported, confidence 0.91, freshness fresh)\n\
             \x20 - Alpha is old. (confidence 0.40, freshness stale)\n\
             - Beta: concept, 1 claims\n\
             \x20 - B one\n"
        );
        assert!(snapshot(b"{\"pages\": []}").is_empty());
        assert!(snapshot(b"not json").is_empty());
    }

    #[test]
    fn guidance_depends_on_the_tools() {
        assert!(tool_guidance(&["web_search"]).is_empty());
        let g = tool_guidance(&["wiki_search"]);
        assert_eq!(g.len(), 4);
        assert!(g[2].starts_with("Use `wiki_search` before answering"));
        assert_eq!(tool_guidance(GUIDED_TOOLS).len(), 8);
    }

    #[test]
    fn max_chars_cuts_at_lines_and_never_leaves_a_bare_header() {
        let snap = snapshot(DIGEST.as_bytes());
        let full = render(&[], &snap, None);
        assert_eq!(render(&[], &snap, Some(full.chars().count())), full);
        let cut = render(&[], &snap, Some(200));
        assert!(cut.chars().count() <= 200, "{cut}");
        assert!(cut.contains("- Alpha:"), "{cut}");
        assert_eq!(render(&[], &snap, Some(60)), "");
    }
}
