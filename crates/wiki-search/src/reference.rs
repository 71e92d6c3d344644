//! The reference scoring of the original plugin (reference §7.3–§7.4, Era A), kept as the
//! `--ranking reference` baseline.
//!
//! It is a faithful re-implementation: whole-query substring and all-tokens gates, integer boosts,
//! claim scores, the five mode boosts, and the snippet rules of §7.7. Unlike our ranking it reads
//! **every** stored page for every query (the original rescans every file), so it is only meant for
//! comparisons and benchmarks. The compiled-digest prefilter of §7.5 is not reproduced.

use wiki_parse::PageKind;
use wiki_parse::time::{self, FreshnessLevel};

use crate::doc::{self, StoredPage};
use crate::rank::{ClaimMatch, Mode};

/// The reference stop words for route-question tokens (§7.3).
const ROUTE_STOP: &[&str] = &[
    "a",
    "about",
    "am",
    "an",
    "are",
    "ask",
    "asking",
    "be",
    "been",
    "being",
    "can",
    "could",
    "did",
    "do",
    "does",
    "for",
    "help",
    "how",
    "i",
    "in",
    "is",
    "know",
    "knows",
    "me",
    "my",
    "need",
    "needs",
    "of",
    "on",
    "or",
    "our",
    "question",
    "questions",
    "should",
    "the",
    "to",
    "us",
    "we",
    "what",
    "when",
    "where",
    "who",
    "whom",
    "whose",
    "why",
    "with",
    "would",
];

/// Query helpers: `q` (trimmed, lowercased) and its tokens (Era A charset `[a-z0-9@._-]`, length
/// ≥ 2, unique, in order).
#[derive(Debug, Clone)]
pub struct RefQuery {
    /// Lowercased trimmed query.
    pub q: String,
    /// Tokens.
    pub tokens: Vec<String>,
    /// Route-question tokens (stop words removed, or all tokens when that leaves none).
    pub route_tokens: Vec<String>,
}

impl RefQuery {
    /// Prepare a query.
    pub fn new(query: &str) -> RefQuery {
        let q = query.trim().to_lowercase();
        let mut tokens: Vec<String> = Vec::new();
        for t in
            q.split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "@._-".contains(c)))
        {
            if t.chars().count() >= 2 && !tokens.iter().any(|x| x == t) {
                tokens.push(t.to_string());
            }
        }
        let mut route_tokens: Vec<String> = tokens
            .iter()
            .filter(|t| !ROUTE_STOP.contains(&t.as_str()))
            .cloned()
            .collect();
        if route_tokens.is_empty() {
            route_tokens = tokens.clone();
        }
        RefQuery {
            q,
            tokens,
            route_tokens,
        }
    }

    /// Line-match: `text` (lowercased) contains `q`, or every token.
    pub fn line_match(&self, text: &str) -> bool {
        let l = text.to_lowercase();
        l.contains(&self.q)
            || (!self.tokens.is_empty() && self.tokens.iter().all(|t| l.contains(t.as_str())))
    }

    /// Route-match: some field contains `q`, or all route tokens occur (across the fields).
    fn route_match(&self, fields: &[&str]) -> bool {
        let lowered: Vec<String> = fields.iter().map(|f| f.to_lowercase()).collect();
        if lowered.iter().any(|f| f.contains(&self.q)) {
            return true;
        }
        !self.route_tokens.is_empty()
            && self
                .route_tokens
                .iter()
                .all(|t| lowered.iter().any(|f| f.contains(t.as_str())))
    }
}

fn count_occurrences(hay: &str, needle: &str) -> usize {
    if needle.is_empty() {
        return 0;
    }
    hay.matches(needle).count()
}

/// `metadata` text of §7.4 (lowercased).
pub fn metadata_text(p: &StoredPage) -> String {
    let s = &p.summary;
    let mut parts: Vec<&str> = vec![p.title.as_str(), p.path.as_str()];
    parts.extend(s.id.as_deref());
    parts.extend(s.page_type.as_deref());
    parts.extend(s.entity_type.as_deref());
    parts.extend(s.canonical_id.as_deref());
    parts.extend(s.aliases.iter().map(String::as_str));
    parts.extend(s.source_ids.iter().map(String::as_str));
    parts.extend(s.questions.iter().map(String::as_str));
    parts.extend(s.contradictions.iter().map(String::as_str));
    parts.extend(s.privacy_tier.as_deref());
    parts.extend(s.best_used_for.iter().map(String::as_str));
    parts.extend(s.not_enough_for.iter().map(String::as_str));
    if let Some(c) = &s.person_card {
        parts.extend(c.canonical_id.as_deref());
        parts.extend(c.handles.iter().map(String::as_str));
        parts.extend(c.socials.iter().map(String::as_str));
        parts.extend(c.emails.iter().map(String::as_str));
        parts.extend(c.timezone.as_deref());
        parts.extend(c.lane.as_deref());
        parts.extend(c.ask_for.iter().map(String::as_str));
        parts.extend(c.avoid_asking_for.iter().map(String::as_str));
        parts.extend(c.best_used_for.iter().map(String::as_str));
        parts.extend(c.not_enough_for.iter().map(String::as_str));
    }
    for r in &s.relationships {
        parts.extend(r.target_id.as_deref());
        parts.extend(r.target_path.as_deref());
        parts.extend(r.target_title.as_deref());
        parts.extend(r.kind.as_deref());
        parts.extend(r.evidence_kind.as_deref());
        parts.extend(r.note.as_deref());
    }
    for c in &s.claims {
        parts.push(&c.text);
    }
    for c in &s.claims {
        parts.extend(c.id.as_deref());
    }
    for c in &s.claims {
        for e in &c.evidence {
            parts.extend(e.kind.as_deref());
            parts.extend(e.source_id.as_deref());
            parts.extend(e.path.as_deref());
            parts.extend(e.lines.as_deref());
            parts.extend(e.note.as_deref());
            parts.extend(e.privacy_tier.as_deref());
        }
    }
    parts.join("\n").to_lowercase()
}

/// Freshness points of a claim.
pub fn freshness_points(level: FreshnessLevel) -> i64 {
    match level {
        FreshnessLevel::Fresh => 8,
        FreshnessLevel::Aging => 4,
        FreshnessLevel::Stale => -2,
        FreshnessLevel::Unknown => -4,
    }
}

/// A scored page.
#[derive(Debug, Clone)]
pub struct RefScore {
    /// The integer score (0 = excluded).
    pub score: i64,
    /// The best matching claim.
    pub claim: Option<ClaimMatch>,
    /// Snippet.
    pub snippet: String,
}

/// A page with the lowercased texts the reference scoring reads (prepared once per page).
#[derive(Debug, Clone)]
pub struct RefPage {
    /// The stored page.
    pub page: StoredPage,
    title: String,
    path: String,
    id: String,
    metadata: String,
    raw: String,
    all: String,
}

impl RefPage {
    /// Prepare a page.
    pub fn new(page: StoredPage) -> RefPage {
        let title = page.title.to_lowercase();
        let path = page.path.to_lowercase();
        let id = page.summary.id.as_deref().unwrap_or("").to_lowercase();
        let metadata = metadata_text(&page);
        let raw = page.text.to_lowercase();
        let all = format!("{title}\n{path}\n{id}\n{metadata}\n{raw}");
        RefPage {
            page,
            title,
            path,
            id,
            metadata,
            raw,
            all,
        }
    }
}

/// Score one page with the reference rules (§7.4).
pub fn score(rp: &RefPage, q: &RefQuery, mode: Mode, now_ms: i64) -> RefScore {
    let none = RefScore {
        score: 0,
        claim: None,
        snippet: String::new(),
    };
    let p = &rp.page;
    let s = &p.summary;
    let (title, path, id, metadata, raw) = (&rp.title, &rp.path, &rp.id, &rp.metadata, &rp.raw);
    let route = doc::route_fields(s);
    let qs = q.q.as_str();
    let any_contains = [title, path, id, metadata, raw]
        .iter()
        .any(|t| t.contains(qs));
    let all_tokens = !q.tokens.is_empty() && q.tokens.iter().all(|t| rp.all.contains(t.as_str()));
    let route_ok = mode == Mode::RouteQuestion && q.route_match(&route);
    if !(any_contains || all_tokens || route_ok) {
        return none;
    }
    let mut score: i64 = 1;
    score += if title.as_str() == qs {
        50
    } else if title.contains(qs) {
        20
    } else {
        0
    };
    if path.contains(qs) {
        score += 10;
    }
    if id.contains(qs) {
        score += 20;
    }
    if s.source_ids.iter().any(|x| x.to_lowercase().contains(qs)) {
        score += 12;
    }
    // Claims.
    let mut matches: Vec<(i64, usize)> = Vec::new();
    for (i, c) in s.claims.iter().enumerate() {
        let text_match = q.line_match(&c.text);
        let id_match = c.id.as_deref().is_some_and(|x| q.line_match(x));
        if !(text_match || id_match) {
            continue;
        }
        let text = c.text.to_lowercase();
        let mut cs: i64 = if text.contains(qs) {
            25
        } else if !q.tokens.is_empty() && q.tokens.iter().all(|t| text.contains(t.as_str())) {
            18
        } else {
            0
        };
        if c.id
            .as_deref()
            .is_some_and(|x| x.to_lowercase().contains(qs))
        {
            cs += 10;
        }
        if let Some(conf) = c.confidence {
            cs += (conf * 10.0).round() as i64;
        }
        let fr = time::claim_freshness(c, s.updated_at.as_deref(), now_ms);
        cs += freshness_points(fr.level);
        cs += if c.is_contested() { -6 } else { 4 };
        matches.push((cs, i));
    }
    matches.sort_by_key(|m| std::cmp::Reverse(m.0));
    let best = matches.first().map(|&(cs, i)| (cs, &s.claims[i]));
    if let Some((cs, _)) = best {
        score += cs + (2 * (matches.len() as i64 - 1)).min(10);
    }
    // Mode boosts.
    score += match mode {
        Mode::Auto => 0,
        Mode::FindPerson => {
            let mut b = if s.is_person_like() { 24 } else { -4 };
            if doc::identity_fields(s).iter().any(|f| q.line_match(f)) {
                b += 24;
            }
            b
        }
        Mode::RouteQuestion => {
            let mut b = 0;
            if s.is_person_like() {
                b += 14;
            }
            if q.route_match(&route) {
                b += 32;
            }
            b + (2 * s.relationships.len() as i64).min(8)
        }
        Mode::SourceEvidence => {
            let mut b = 0;
            if p.kind == PageKind::Source {
                b += 22;
            }
            let ev = s.source_path.as_deref().is_some_and(|x| q.line_match(x))
                || s.source_ids.iter().any(|x| q.line_match(x))
                || s.claims.iter().flat_map(|c| &c.evidence).any(|e| {
                    [&e.kind, &e.source_id, &e.path, &e.lines, &e.note]
                        .iter()
                        .any(|f| f.as_deref().is_some_and(|x| q.line_match(x)))
                });
            if ev {
                b += 30;
            }
            b
        }
        Mode::RawClaim => {
            if matches.is_empty() {
                0
            } else {
                42
            }
        }
    };
    score += count_occurrences(raw, qs).min(10) as i64;
    for t in &q.tokens {
        if title.contains(t.as_str()) {
            score += 8;
        }
        if path.contains(t.as_str()) || id.contains(t.as_str()) {
            score += 6;
        }
        if metadata.contains(t.as_str()) {
            score += 4;
        }
        if raw.contains(t.as_str()) {
            score += 1;
        }
    }
    let claim = best.map(|(_, c)| ClaimMatch::of(c));
    let snippet = match &claim {
        Some(c) => c.text.trim().to_string(),
        None => snippet(p, q),
    };
    RefScore {
        score,
        claim,
        snippet,
    }
}

/// The §7.7 snippet for a page without a matching claim.
fn snippet(p: &StoredPage, q: &RefQuery) -> String {
    let lines: Vec<&str> = p
        .body()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if let Some(l) = lines.iter().find(|l| q.line_match(l)) {
        return l.to_string();
    }
    let mut best: Option<(usize, &str)> = None;
    for l in &lines {
        let lower = l.to_lowercase();
        let hits = q
            .tokens
            .iter()
            .filter(|t| lower.contains(t.as_str()))
            .count();
        if hits > 0 && best.is_none_or(|(b, _)| hits > b) {
            best = Some((hits, l));
        }
    }
    if let Some((_, l)) = best {
        return l.to_string();
    }
    lines
        .iter()
        .find(|l| **l != "---")
        .map(|l| l.to_string())
        .unwrap_or_default()
}
