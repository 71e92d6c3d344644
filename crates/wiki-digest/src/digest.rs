//! The machine-facing compiled cache: `.openclaw-wiki/cache/agent-digest.json` and
//! `.openclaw-wiki/cache/claims.jsonl` (reference §4.5, §4.6, Era A schema).
//!
//! # `agent-digest.json`
//!
//! `JSON.stringify(digest, null, 2)` plus a newline. Keys, in order:
//!
//! ```text
//! pageCounts {entity, concept, source, synthesis, report}
//! claimCount
//! claimHealth {freshness {fresh, aging, stale, unknown}, contested, lowConfidence, missingEvidence}
//! contradictionClusters [{key, label, kind: page-note|claim-id, entryCount, paths}]   (by label)
//! frontmatterErrors [{path, line, message}]   (only when some page failed to parse; our addition)
//! pages [ (every parsed page, by path)
//!   {id?, title, kind, path, aliases, sourceIds, questions, contradictions, bestUsedFor,
//!    notEnoughFor, relationshipCount, topRelationships (first 5), pageType?, entityType?,
//!    canonicalId?, confidence?, privacyTier?, personCard?, freshnessLevel, lastTouchedAt?,
//!    lastRefreshedAt?, claimCount,
//!    topClaims (first 5 in claim order) [{id?, text, status, confidence?, evidenceCount,
//!      missingEvidence, evidence, freshnessLevel, lastTouchedAt?}]} ]
//! ```
//!
//! Optional keys (`?`) are omitted when absent. A vault whose pages all parse gets exactly the
//! bytes the original plugin writes.
//!
//! # `claims.jsonl`
//!
//! One compact JSON object per claim (pages in title order, each page's claims in claim order),
//! then the lines sorted with `localeCompare` ([`locale_cmp`]), joined with `\n`, plus a final
//! `\n` (no claims: the file is a single `\n`). Keys: `id?, pageId?, pageTitle, pageKind,
//! pagePath, pageType?, entityType?, canonicalId?, aliases, text, status, confidence?, sourceIds,
//! evidenceKinds, privacyTiers, evidenceCount, missingEvidence, evidence, freshnessLevel,
//! lastTouchedAt?`.

use serde_json::{Map, Value};
use wiki_parse::health::{
    ClusterKind, ContradictionCluster, contradiction_clusters, locale_cmp, sorted_claims,
};
use wiki_parse::time::{FreshnessLevel, claim_freshness_level_at, page_freshness, touch};
use wiki_parse::{PageError, PageInfo};

use crate::json;
use crate::pages::PageCounts;
use crate::reports::Clusters;

/// Build `agent-digest.json` (the whole file, newline included). `pages` in title order.
pub fn agent_digest(
    pages: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
) -> String {
    agent_digest_reusing(pages, counts, errors, now_ms, |_| None)
}

/// [`agent_digest`], taking a page's object text from `reuse` when it returns one (the object
/// as an earlier [`agent_digest`] wrote it for the same page and freshness levels).
pub fn agent_digest_reusing<'a>(
    pages: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
    reuse: impl Fn(&PageInfo) -> Option<&'a str>,
) -> String {
    agent_digest_with_head(
        digest_head(pages, counts, errors, now_ms),
        pages,
        now_ms,
        reuse,
    )
}

/// [`agent_digest_reusing`] with the header already computed ([`digest_head`] of the same
/// pages).
pub fn agent_digest_with_head<'a>(
    head: String,
    pages: &[&PageInfo],
    now_ms: i64,
    reuse: impl Fn(&PageInfo) -> Option<&'a str>,
) -> String {
    let mut by_path: Vec<&PageInfo> = pages.to_vec();
    wiki_parse::health::sort_by_locale(&mut by_path, |p| &p.path);
    let mut out = head;
    // Room for the pages (objects average ~2 KB on generated vaults): one allocation instead of
    // a dozen doubling copies of a multi-megabyte string.
    out.reserve(by_path.len() * 2048);
    out.push_str(PAGES_OPEN);
    if by_path.is_empty() {
        out.push_str("[]");
    } else {
        out.push('[');
        for (i, p) in by_path.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            match reuse(p) {
                Some(chunk) => out.push_str(chunk),
                None => write_digest_page(p, now_ms, &mut out),
            }
        }
        out.push_str("\n  ]");
    }
    out.push_str("\n}\n");
    out
}

/// What follows the digest header: the `pages` key (then its array).
pub const PAGES_OPEN: &str = ",\n  \"pages\": ";

/// Append the digest object of a page (indented as inside the `pages` array, from `{` to `}`).
pub fn write_digest_page(p: &PageInfo, now_ms: i64, out: &mut String) {
    let s = &p.summary;
    let f = page_freshness(s.updated_at.as_deref(), now_ms);
    let ranked = sorted_claims(p, now_ms);
    let page = DigestPage {
        id: s.id.as_deref(),
        title: &p.title,
        kind: p.kind.as_str(),
        path: &p.path,
        aliases: &s.aliases,
        source_ids: &s.source_ids,
        questions: &s.questions,
        contradictions: &s.contradictions,
        best_used_for: &s.best_used_for,
        not_enough_for: &s.not_enough_for,
        relationship_count: s.relationships.len(),
        top_relationships: &s.relationships[..s.relationships.len().min(5)],
        page_type: s.page_type.as_deref(),
        entity_type: s.entity_type.as_deref(),
        canonical_id: s.canonical_id.as_deref(),
        confidence: s.confidence,
        privacy_tier: s.privacy_tier.as_deref(),
        person_card: s.person_card.as_deref(),
        freshness_level: f.level.as_str(),
        last_touched_at: f.last_touched_at.as_deref(),
        last_refreshed_at: s.last_refreshed_at.as_deref(),
        claim_count: s.claims.len(),
        top_claims: ranked
            .iter()
            .take(5)
            .map(|rc| TopClaim {
                id: rc.claim.id.as_deref(),
                text: &rc.claim.text,
                status: rc.claim.normalized_status(),
                confidence: rc.claim.confidence,
                evidence_count: rc.claim.evidence.len(),
                missing_evidence: rc.claim.evidence.is_empty(),
                evidence: &rc.claim.evidence,
                freshness_level: rc.freshness.level.as_str(),
                last_touched_at: rc.freshness.last_touched_at.as_deref(),
            })
            .collect(),
    };
    json::write_serialize(&page, Some(2), out)
}

/// The digest object of a page, serialised directly (keys in the file's order).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct DigestPage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    title: &'a str,
    kind: &'a str,
    path: &'a str,
    aliases: &'a [String],
    source_ids: &'a [String],
    questions: &'a [String],
    contradictions: &'a [String],
    best_used_for: &'a [String],
    not_enough_for: &'a [String],
    relationship_count: usize,
    top_relationships: &'a [wiki_parse::model::Relationship],
    #[serde(skip_serializing_if = "Option::is_none")]
    page_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    privacy_tier: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    person_card: Option<&'a wiki_parse::model::PersonCard>,
    freshness_level: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_touched_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_refreshed_at: Option<&'a str>,
    claim_count: usize,
    top_claims: Vec<TopClaim<'a>>,
}

/// One of a digest page's `topClaims`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TopClaim<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    text: &'a str,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<f64>,
    evidence_count: usize,
    missing_evidence: bool,
    evidence: &'a [wiki_parse::model::Evidence],
    freshness_level: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_touched_at: Option<&'a str>,
}

/// The digest up to (not including) [`PAGES_OPEN`]: every key before `pages` (counts, claim
/// health, contradiction clusters, parse errors), which depend on all pages.
pub fn digest_head(
    pages: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
) -> String {
    digest_head_sharing(pages, counts, errors, now_ms, &Clusters::new())
}

/// [`digest_head`] with the contradiction clusters of `pages` taken from `clusters` (or
/// computed into it when the dashboards did not need them).
pub fn digest_head_sharing(
    pages: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
    clusters: &Clusters,
) -> String {
    // Independent passes over every claim: side by side.
    let (health, clusters) = rayon::join(
        || claim_health_counts(pages, now_ms),
        || cluster_values(clusters.get_or_init(|| contradiction_clusters(pages))),
    );
    head_of_parts(pages, counts, health, clusters, errors)
}

/// The digest header from its parts: `health` as [`claim_health_counts`] counts it, `clusters`
/// the `contradictionClusters` array.
pub fn head_of_parts(
    pages: &[&PageInfo],
    counts: &PageCounts,
    health: ClaimHealth,
    clusters: Value,
    errors: &[PageError],
) -> String {
    let mut head = Map::new();
    head.insert("pageCounts".into(), counts.to_json());
    head.insert("claimCount".into(), Value::from(claim_count(pages)));
    head.insert("claimHealth".into(), health.to_json());
    head.insert("contradictionClusters".into(), clusters);
    if !errors.is_empty() {
        let errs: Vec<Value> = errors
            .iter()
            .map(|e| serde_json::json!({"path": e.path, "line": e.line, "message": e.message}))
            .collect();
        head.insert("frontmatterErrors".into(), Value::Array(errs));
    }
    // The pages are written one at a time after this (a JSON tree of the whole digest would
    // cost hundreds of MB on large vaults); the bytes are those of
    // `JSON.stringify(digest, null, 2)`.
    let mut out = json::to_pretty(&Value::Object(head));
    out.truncate(out.len() - 2); // "\n}"
    out
}

/// How many claims `pages` have (`claimCount`).
pub fn claim_count(pages: &[&PageInfo]) -> usize {
    pages.iter().map(|p| p.summary.claims.len()).sum()
}

/// The `claimHealth` counts of the digest header: `[fresh, aging, stale, unknown, contested,
/// lowConfidence, missingEvidence]`, a sum over claims (so over pages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClaimHealth(pub [usize; 7]);

impl ClaimHealth {
    /// The counts as the digest writes them.
    pub fn to_json(self) -> Value {
        let n = self.0;
        serde_json::json!({
            "freshness": {"fresh": n[0], "aging": n[1], "stale": n[2], "unknown": n[3]},
            "contested": n[4],
            "lowConfidence": n[5],
            "missingEvidence": n[6],
        })
    }

    /// The counts of a `claimHealth` value as [`ClaimHealth::to_json`] writes it; `None` for
    /// any other shape.
    pub fn from_json(v: &Value) -> Option<ClaimHealth> {
        let n = |v: Option<&Value>| v?.as_u64().and_then(|n| usize::try_from(n).ok());
        let f = v.get("freshness")?;
        let out = ClaimHealth([
            n(f.get("fresh"))?,
            n(f.get("aging"))?,
            n(f.get("stale"))?,
            n(f.get("unknown"))?,
            n(v.get("contested"))?,
            n(v.get("lowConfidence"))?,
            n(v.get("missingEvidence"))?,
        ]);
        // Exactly that shape (a value with other keys would not be written back the same).
        (v.as_object()?.len() == 4 && f.as_object()?.len() == 4 && out.to_json() == *v)
            .then_some(out)
    }

    /// These counts with `minus` taken out and `plus` added (`None` if a count would drop
    /// below zero).
    pub fn adjusted(self, minus: ClaimHealth, plus: ClaimHealth) -> Option<ClaimHealth> {
        let mut out = self.0;
        for ((x, m), p) in out.iter_mut().zip(minus.0).zip(plus.0) {
            *x = x.checked_sub(m)?.checked_add(p)?;
        }
        Some(ClaimHealth(out))
    }
}

/// The `claimHealth` counts of the claims of `pages` at `now_ms` (in parallel: claim freshness
/// parses every timestamp).
pub fn claim_health_counts(pages: &[&PageInfo], now_ms: i64) -> ClaimHealth {
    use rayon::prelude::*;
    let n = pages
        .par_iter()
        .map(|p| {
            let mut n = [0usize; 7];
            let page = touch(p.summary.updated_at.as_deref());
            for c in &p.summary.claims {
                n[match claim_freshness_level_at(c, page, now_ms) {
                    FreshnessLevel::Fresh => 0,
                    FreshnessLevel::Aging => 1,
                    FreshnessLevel::Stale => 2,
                    FreshnessLevel::Unknown => 3,
                }] += 1;
                n[4] += usize::from(c.is_contested());
                n[5] += usize::from(c.confidence.is_some_and(|x| x < 0.5));
                n[6] += usize::from(c.evidence.is_empty());
            }
            n
        })
        .reduce(
            || [0usize; 7],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    ClaimHealth(n)
}

/// The `contradictionClusters` array of the digest header.
pub fn cluster_values(all: &[ContradictionCluster]) -> Value {
    // Page-note clusters first, then claim-id clusters, then a stable sort by label (as upstream).
    let mut ordered: Vec<_> = all
        .iter()
        .filter(|c| c.kind == ClusterKind::PageNote)
        .chain(all.iter().filter(|c| c.kind == ClusterKind::ClaimId))
        .collect();
    ordered.sort_by(|a, b| locale_cmp(&a.label, &b.label));
    Value::Array(
        ordered
            .into_iter()
            .map(|c| {
                serde_json::json!({
                    "key": c.key,
                    "label": c.label,
                    "kind": match c.kind {
                        ClusterKind::PageNote => "page-note",
                        ClusterKind::ClaimId => "claim-id",
                    },
                    "entryCount": c.entries.len(),
                    "paths": c.paths,
                })
            })
            .collect(),
    )
}

/// The `claims.jsonl` lines, sorted. `pages` in title order.
pub fn claim_lines(pages: &[&PageInfo], now_ms: i64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for p in pages {
        let s = &p.summary;
        for rc in sorted_claims(p, now_ms) {
            let c = rc.claim;
            let mut kinds: Vec<&str> = Vec::new();
            for k in c.evidence.iter().filter_map(|e| e.kind.as_deref()) {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
            let mut tiers: Vec<&str> = Vec::new();
            let candidates = s
                .privacy_tier
                .iter()
                .chain(s.person_card.iter().filter_map(|c| c.privacy_tier.as_ref()))
                .chain(c.evidence.iter().filter_map(|e| e.privacy_tier.as_ref()));
            for t in candidates {
                if !tiers.contains(&t.as_str()) {
                    tiers.push(t);
                }
            }
            let line = ClaimLine {
                id: c.id.as_deref(),
                page_id: s.id.as_deref(),
                page_title: &p.title,
                page_kind: p.kind.as_str(),
                page_path: &p.path,
                page_type: s.page_type.as_deref(),
                entity_type: s.entity_type.as_deref(),
                canonical_id: s.canonical_id.as_deref(),
                aliases: &s.aliases,
                text: &c.text,
                status: c.normalized_status(),
                confidence: c.confidence,
                source_ids: &s.source_ids,
                evidence_kinds: kinds,
                privacy_tiers: tiers,
                evidence_count: c.evidence.len(),
                missing_evidence: c.evidence.is_empty(),
                evidence: &c.evidence,
                freshness_level: rc.freshness.level.as_str(),
                last_touched_at: rc.freshness.last_touched_at.as_deref(),
            };
            let mut text = String::with_capacity(512);
            json::write_serialize(&line, None, &mut text);
            lines.push(text);
        }
    }
    wiki_parse::health::sort_by_locale(&mut lines, |l| l);
    lines
}

/// One line of `claims.jsonl`, serialised directly (keys in the file's order).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ClaimLine<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page_id: Option<&'a str>,
    page_title: &'a str,
    page_kind: &'a str,
    page_path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    page_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical_id: Option<&'a str>,
    aliases: &'a [String],
    text: &'a str,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<f64>,
    source_ids: &'a [String],
    evidence_kinds: Vec<&'a str>,
    privacy_tiers: Vec<&'a str>,
    evidence_count: usize,
    missing_evidence: bool,
    evidence: &'a [wiki_parse::model::Evidence],
    freshness_level: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_touched_at: Option<&'a str>,
}

/// Build `claims.jsonl` (the whole file). `pages` in title order.
pub fn claims_jsonl(pages: &[&PageInfo], now_ms: i64) -> String {
    let lines = claim_lines(pages, now_ms);
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 1);
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(l);
    }
    out.push('\n');
    out
}

/// The implementations [`claim_lines`] and [`write_digest_page`] replaced (through a
/// [`serde_json::Value`] of every object): the differential tests compare against them.
#[cfg(test)]
pub(crate) mod reference {
    use super::*;
    use crate::json::{put_opt, put_str};

    fn strings(v: &[String]) -> Value {
        Value::Array(v.iter().map(|s| Value::String(s.clone())).collect())
    }

    /// The keys a claim object ends with, in the digest and in `claims.jsonl`.
    fn evidence_and_freshness(m: &mut Map<String, Value>, rc: &wiki_parse::health::RatedClaim<'_>) {
        let c = rc.claim;
        m.insert("evidenceCount".into(), Value::from(c.evidence.len()));
        m.insert("missingEvidence".into(), Value::Bool(c.evidence.is_empty()));
        m.insert("evidence".into(), json::to_value(&c.evidence));
        m.insert(
            "freshnessLevel".into(),
            Value::String(rc.freshness.level.as_str().into()),
        );
        put_str(m, "lastTouchedAt", rc.freshness.last_touched_at.as_deref());
    }

    pub(crate) fn write_digest_page(page: &PageInfo, now_ms: i64, out: &mut String) {
        json::write_pretty_at(&digest_page(page, now_ms), 2, out)
    }

    pub(crate) fn digest_page(p: &PageInfo, now_ms: i64) -> Value {
        let s = &p.summary;
        let mut m = Map::new();
        put_str(&mut m, "id", s.id.as_deref());
        m.insert("title".into(), Value::String(p.title.clone()));
        m.insert("kind".into(), Value::String(p.kind.as_str().into()));
        m.insert("path".into(), Value::String(p.path.clone()));
        m.insert("aliases".into(), strings(&s.aliases));
        m.insert("sourceIds".into(), strings(&s.source_ids));
        m.insert("questions".into(), strings(&s.questions));
        m.insert("contradictions".into(), strings(&s.contradictions));
        m.insert("bestUsedFor".into(), strings(&s.best_used_for));
        m.insert("notEnoughFor".into(), strings(&s.not_enough_for));
        m.insert(
            "relationshipCount".into(),
            Value::from(s.relationships.len()),
        );
        m.insert(
            "topRelationships".into(),
            json::to_value(&s.relationships.iter().take(5).collect::<Vec<_>>()),
        );
        put_str(&mut m, "pageType", s.page_type.as_deref());
        put_str(&mut m, "entityType", s.entity_type.as_deref());
        put_str(&mut m, "canonicalId", s.canonical_id.as_deref());
        put_opt(&mut m, "confidence", json::opt_number(s.confidence));
        put_str(&mut m, "privacyTier", s.privacy_tier.as_deref());
        put_opt(
            &mut m,
            "personCard",
            s.person_card.as_ref().map(json::to_value),
        );
        let f = page_freshness(s.updated_at.as_deref(), now_ms);
        m.insert(
            "freshnessLevel".into(),
            Value::String(f.level.as_str().into()),
        );
        put_str(&mut m, "lastTouchedAt", f.last_touched_at.as_deref());
        put_str(&mut m, "lastRefreshedAt", s.last_refreshed_at.as_deref());
        m.insert("claimCount".into(), Value::from(s.claims.len()));
        let top: Vec<Value> = sorted_claims(p, now_ms)
            .into_iter()
            .take(5)
            .map(|rc| {
                let c = rc.claim;
                let mut cm = Map::new();
                put_str(&mut cm, "id", c.id.as_deref());
                cm.insert("text".into(), Value::String(c.text.clone()));
                cm.insert("status".into(), Value::String(c.normalized_status()));
                put_opt(&mut cm, "confidence", json::opt_number(c.confidence));
                evidence_and_freshness(&mut cm, &rc);
                Value::Object(cm)
            })
            .collect();
        m.insert("topClaims".into(), Value::Array(top));
        Value::Object(m)
    }

    pub(crate) fn claim_lines(pages: &[&PageInfo], now_ms: i64) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for p in pages {
            let s = &p.summary;
            for rc in sorted_claims(p, now_ms) {
                let c = rc.claim;
                let mut m = Map::new();
                put_str(&mut m, "id", c.id.as_deref());
                put_str(&mut m, "pageId", s.id.as_deref());
                m.insert("pageTitle".into(), Value::String(p.title.clone()));
                m.insert("pageKind".into(), Value::String(p.kind.as_str().into()));
                m.insert("pagePath".into(), Value::String(p.path.clone()));
                put_str(&mut m, "pageType", s.page_type.as_deref());
                put_str(&mut m, "entityType", s.entity_type.as_deref());
                put_str(&mut m, "canonicalId", s.canonical_id.as_deref());
                m.insert("aliases".into(), strings(&s.aliases));
                m.insert("text".into(), Value::String(c.text.clone()));
                m.insert("status".into(), Value::String(c.normalized_status()));
                put_opt(&mut m, "confidence", json::opt_number(c.confidence));
                m.insert("sourceIds".into(), strings(&s.source_ids));
                let mut kinds: Vec<String> = Vec::new();
                for k in c.evidence.iter().filter_map(|e| e.kind.as_ref()) {
                    if !kinds.contains(k) {
                        kinds.push(k.clone());
                    }
                }
                m.insert("evidenceKinds".into(), strings(&kinds));
                let mut tiers: Vec<String> = Vec::new();
                let candidates = s
                    .privacy_tier
                    .iter()
                    .chain(s.person_card.iter().filter_map(|c| c.privacy_tier.as_ref()))
                    .chain(c.evidence.iter().filter_map(|e| e.privacy_tier.as_ref()));
                for t in candidates {
                    if !tiers.contains(t) {
                        tiers.push(t.clone());
                    }
                }
                m.insert("privacyTiers".into(), strings(&tiers));
                evidence_and_freshness(&mut m, &rc);
                lines.push(json::to_compact(&Value::Object(m)));
            }
        }
        wiki_parse::health::sort_by_locale(&mut lines, |l| l);
        lines
    }
}

#[cfg(test)]
mod direct_tests {
    use super::*;

    const NOW: i64 = 1_775_390_400_000; // 2026-04-05T12:00:00Z

    /// Scalars that stress the writer: escapes, control characters, non-ASCII, numbers in
    /// both JavaScript notations, integral doubles.
    const WORDS: [&str; 16] = [
        "plain",
        "\\\"quoted\\\"",
        "back\\\\slash",
        "tab\\there",
        "bell\\u0007",
        "del\\u007f",
        "東京 café",
        "line\\u2028sep",
        "",
        "emoji 🙂",
        "new\\nline",
        "ctl\\u001f",
        "x",
        "Ümlaut",
        "a: b",
        "# not a comment",
    ];
    const NUMBERS: [&str; 12] = [
        "0.7",
        "1",
        "1.0",
        "0",
        "-0.5",
        "1e21",
        "5e-7",
        "0.30000000000000004",
        "123456789.125",
        "-3",
        "2.5e-3",
        "0.1",
    ];

    /// A random page: every field the digest and claim lines write, present or not.
    fn page(rng: &mut impl FnMut(usize) -> usize, n: usize) -> PageInfo {
        let word = |rng: &mut dyn FnMut(usize) -> usize| format!("\"{}\"", WORDS[rng(WORDS.len())]);
        let mut fm = String::from("---\n");
        fm.push_str(&format!("title: {}\n", word(rng)));
        let maybe = |rng: &mut dyn FnMut(usize) -> usize, key: &str, fm: &mut String| {
            if rng(3) > 0 {
                fm.push_str(&format!("{key}: {}\n", word(rng)));
            }
        };
        for key in ["id", "pageType", "entityType", "canonicalId", "privacyTier"] {
            maybe(rng, key, &mut fm);
        }
        for key in ["updatedAt", "lastRefreshedAt"] {
            if rng(2) == 0 {
                fm.push_str(&format!(
                    "{key}: 2026-0{}-0{}T00:00:00Z\n",
                    1 + rng(4),
                    1 + rng(9)
                ));
            }
        }
        if rng(2) == 0 {
            fm.push_str(&format!("confidence: {}\n", NUMBERS[rng(NUMBERS.len())]));
        }
        for key in [
            "aliases",
            "sourceIds",
            "questions",
            "contradictions",
            "bestUsedFor",
            "notEnoughFor",
        ] {
            let k = rng(4);
            if k > 0 {
                fm.push_str(&format!("{key}:\n"));
                for _ in 1..k {
                    fm.push_str(&format!("  - {}\n", word(rng)));
                }
            }
        }
        let rels = rng(8);
        if rels > 0 {
            fm.push_str("relationships:\n");
            for i in 0..rels {
                fm.push_str(&format!("  - targetId: t.{i}\n    kind: {}\n", word(rng)));
                if rng(2) == 0 {
                    fm.push_str(&format!("    weight: {}\n", NUMBERS[rng(NUMBERS.len())]));
                }
                if rng(2) == 0 {
                    fm.push_str(&format!("    note: {}\n", word(rng)));
                }
            }
        }
        if rng(3) == 0 {
            fm.push_str(&format!(
                "personCard:\n  handles:\n    - {}\n  timezone: {}\n  confidence: {}\n  privacyTier: {}\n",
                word(rng),
                word(rng),
                NUMBERS[rng(NUMBERS.len())],
                word(rng)
            ));
        }
        let claims = rng(9);
        if claims > 0 {
            fm.push_str("claims:\n");
            for i in 0..claims {
                fm.push_str(&format!("  - text: {}\n", word(rng)));
                if rng(4) > 0 {
                    fm.push_str(&format!("    id: claim.{n}.{i}\n"));
                }
                if rng(2) == 0 {
                    let status = ["supported", "contested", "Refuted", " ", "superseded"];
                    fm.push_str(&format!("    status: \"{}\"\n", status[rng(status.len())]));
                }
                if rng(2) == 0 {
                    fm.push_str(&format!(
                        "    confidence: {}\n",
                        NUMBERS[rng(NUMBERS.len())]
                    ));
                }
                if rng(2) == 0 {
                    fm.push_str(&format!(
                        "    updatedAt: 2025-1{}-0{}T00:00:00Z\n",
                        rng(3),
                        1 + rng(9)
                    ));
                }
                let ev = rng(4);
                if ev > 0 {
                    fm.push_str("    evidence:\n");
                    for _ in 0..ev {
                        fm.push_str(&format!("      - kind: {}\n", word(rng)));
                        for key in ["sourceId", "path", "lines", "privacyTier", "note"] {
                            if rng(2) == 0 {
                                fm.push_str(&format!("        {key}: {}\n", word(rng)));
                            }
                        }
                        for key in ["weight", "confidence"] {
                            if rng(2) == 0 {
                                let x = NUMBERS[rng(NUMBERS.len())];
                                fm.push_str(&format!("        {key}: {x}\n"));
                            }
                        }
                    }
                }
            }
        }
        fm.push_str("---\n\n# Page\n");
        let dirs = ["entities", "concepts", "sources", "syntheses"];
        let path = format!("{}/p{n}.md", dirs[rng(dirs.len())]);
        wiki_parse::parse_page(&path, fm.as_bytes())
            .unwrap_or_else(|e| panic!("{e:?}\n{fm}"))
            .info
    }

    #[test]
    fn direct_serialisation_writes_what_the_json_values_wrote() {
        let mut rng = crate::test_rng(0x5eed_0042);
        let pages: Vec<PageInfo> = (0..400).map(|n| page(&mut rng, n)).collect();
        let refs: Vec<&PageInfo> = pages.iter().collect();
        assert!(
            pages.iter().any(|p| p.summary.person_card.is_some())
                && pages.iter().any(|p| p.summary.relationships.len() > 5)
                && pages
                    .iter()
                    .flat_map(|p| &p.summary.claims)
                    .any(|c| c.evidence.iter().any(|e| e.weight.is_some())),
            "the generator covers the optional parts"
        );
        for p in &pages {
            let (mut got, mut want) = (String::new(), String::new());
            write_digest_page(p, NOW, &mut got);
            reference::write_digest_page(p, NOW, &mut want);
            assert_eq!(got, want, "{}", p.path);
        }
        let got = claim_lines(&refs, NOW);
        assert!(got.len() > 1000, "{}", got.len());
        assert_eq!(got, reference::claim_lines(&refs, NOW));
        assert!(
            got.iter()
                .any(|l| l.contains("\\u0007") && l.contains("\\u001f"))
        );
        assert!(
            got.iter()
                .any(|l| l.contains("1e+21") && l.contains("5e-7"))
        );
    }
}
