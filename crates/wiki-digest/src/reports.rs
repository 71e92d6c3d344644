//! The nine dashboard reports under `reports/` (reference §5), with the exact lines and empty
//! texts of the original plugin.
//!
//! Every report is computed from all pages in title order (report pages included, as upstream)
//! and a clock. Links are relative to `reports/<name>.md` in native mode. Numbers use two
//! decimals (JavaScript `toFixed(2)`).
//!
//! | name | lists |
//! | --- | --- |
//! | `open-questions` | pages with `questions` |
//! | `contradictions` | page-note clusters and competing claim-id clusters |
//! | `low-confidence` | pages and claims with confidence < 0.5, ascending |
//! | `claim-health` | claims missing evidence, contested, stale or unknown |
//! | `stale-pages` | entity and source pages that are not fresh (concepts, syntheses, reports and unmanaged raw sources excluded, as in current upstream versions) |
//! | `person-agent-directory` | person-like pages with routing details |
//! | `relationship-graph` | every structured relationship |
//! | `provenance-coverage` | evidence kinds, top evidence sources, claims without evidence |
//! | `privacy-review` | non-public privacy tiers on pages, cards, relationships, evidence |

use foldhash::{HashMap, HashMapExt};

use rayon::prelude::*;

use wiki_parse::health::{ClusterKind, ContradictionCluster, contradiction_clusters, locale_cmp};
use wiki_parse::model::{Claim, Evidence, Relationship};
use wiki_parse::time::{Freshness, FreshnessLevel, claim_freshness, page_freshness};
use wiki_parse::{PageInfo, PageKind};

use crate::json::to_fixed;
use crate::pages::Linker;

/// A dashboard: file stem and title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dashboard {
    /// File stem (`open-questions`), also the marker name.
    pub name: &'static str,
    /// Page title (`Open Questions`).
    pub title: &'static str,
}

impl Dashboard {
    /// `reports/<name>.md`.
    pub fn path(&self) -> String {
        format!("reports/{}.md", self.name)
    }

    /// `report.<name>`.
    pub fn id(&self) -> String {
        format!("report.{}", self.name)
    }

    /// Look a dashboard up by name.
    pub fn by_name(name: &str) -> Option<Dashboard> {
        DASHBOARDS.iter().copied().find(|d| d.name == name)
    }
}

/// The nine dashboards, in write order.
pub const DASHBOARDS: [Dashboard; 9] = [
    Dashboard {
        name: "open-questions",
        title: "Open Questions",
    },
    Dashboard {
        name: "contradictions",
        title: "Contradictions",
    },
    Dashboard {
        name: "low-confidence",
        title: "Low Confidence",
    },
    Dashboard {
        name: "claim-health",
        title: "Claim Health",
    },
    Dashboard {
        name: "stale-pages",
        title: "Stale Pages",
    },
    Dashboard {
        name: "person-agent-directory",
        title: "Person Agent Directory",
    },
    Dashboard {
        name: "relationship-graph",
        title: "Relationship Graph",
    },
    Dashboard {
        name: "provenance-coverage",
        title: "Provenance Coverage",
    },
    Dashboard {
        name: "privacy-review",
        title: "Privacy Review",
    },
];

/// What every report needs.
pub struct ReportInput<'a> {
    /// All pages in title order.
    pub pages: &'a [&'a PageInfo],
    /// The clock, in milliseconds since the epoch.
    pub now_ms: i64,
    /// Link style.
    pub linker: Linker,
    /// Source pages managed by an import (`.openclaw-wiki/source-sync.json` `pagePath`s); they
    /// stay on the stale-pages report even when marked as raw sources.
    pub managed_sources: &'a std::collections::HashSet<String>,
    /// The contradiction clusters of `pages`, when shared with another consumer (the digest
    /// header of the same compile): computed by the first that needs them. `None`: computed for
    /// the report.
    pub clusters: Option<&'a Clusters>,
}

/// Contradiction clusters computed once for a compile's dashboards and digest.
pub type Clusters = std::sync::OnceLock<Vec<ContradictionCluster>>;

/// One claim with its page and freshness, in page (title) order then claim order.
struct ClaimRow<'a> {
    page: &'a PageInfo,
    claim: &'a Claim,
    status: String,
    freshness: Freshness,
}

fn claim_rows<'a>(pages: &[&'a PageInfo], now_ms: i64) -> Vec<ClaimRow<'a>> {
    claim_rows_where(pages, now_ms, |_| true)
}

/// [`claim_rows`] of the claims `keep` accepts (the others cost nothing).
fn claim_rows_where<'a>(
    pages: &[&'a PageInfo],
    now_ms: i64,
    keep: impl Fn(&Claim) -> bool + Copy + Sync,
) -> Vec<ClaimRow<'a>> {
    // Tens of thousands of claims in a large vault (a freshness and a status each): in
    // parallel, by chunks of pages, in order.
    pages
        .par_chunks(256)
        .map(|chunk| {
            chunk
                .iter()
                .flat_map(|page| {
                    page.summary
                        .claims
                        .iter()
                        .filter(move |c| keep(c))
                        .map(move |claim| ClaimRow {
                            page,
                            claim,
                            status: claim.normalized_status(),
                            freshness: claim_freshness(
                                claim,
                                page.summary.updated_at.as_deref(),
                                now_ms,
                            ),
                        })
                })
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// `` `id`: text `` or `text`.
pub fn claim_identity(claim: &Claim) -> String {
    let mut out = String::new();
    push_claim_identity(&mut out, claim);
    out
}

/// Append [`claim_identity`] to `out`.
fn push_claim_identity(out: &mut String, claim: &Claim) {
    if let Some(id) = claim.id.as_deref() {
        out.push('`');
        out.push_str(id);
        out.push_str("`: ");
    }
    out.push_str(&claim.text);
}

impl ReportInput<'_> {
    fn link(&self, from: &str, page: &PageInfo) -> String {
        self.linker.page(from, page)
    }

    /// Append `- <link>: <claim identity> (status …[, confidence …], <evidence>, <freshness>)`
    /// to `out` (dashboards of a large vault have tens of thousands of these lines: one buffer,
    /// and each page's link computed once per dashboard through `links`).
    fn claim_health_line(
        &self,
        out: &mut String,
        links: &mut PageLinks,
        from: &str,
        row: &ClaimRow<'_>,
    ) {
        use std::fmt::Write;
        out.push_str("- ");
        out.push_str(links.get(self, from, row.page));
        out.push_str(": ");
        push_claim_identity(out, row.claim);
        out.push_str(" (status ");
        out.push_str(&row.status);
        if let Some(c) = row.claim.confidence {
            out.push_str(", confidence ");
            out.push_str(&to_fixed(c, 2));
        }
        if row.claim.evidence.is_empty() {
            out.push_str(", missing evidence");
        } else {
            let _ = write!(out, ", {} evidence", row.claim.evidence.len());
        }
        out.push_str(", ");
        row.freshness.push_label(out);
        out.push(')');
    }

    fn relationship_target(&self, from: &str, r: &Relationship) -> String {
        if let (Some(path), Some(title)) = (r.target_path.as_deref(), r.target_title.as_deref()) {
            return self.linker.link(from, path, title);
        }
        r.target_title
            .clone()
            .or_else(|| r.target_id.clone())
            .or_else(|| r.target_path.clone())
            .unwrap_or_else(|| "unknown".into())
    }
}

/// The links from one dashboard to pages, each computed once (keyed by the page's address:
/// the pages outlive the dashboard's rendering).
#[derive(Default)]
struct PageLinks(HashMap<usize, String>);

impl PageLinks {
    fn get(&mut self, input: &ReportInput<'_>, from: &str, page: &PageInfo) -> &str {
        self.0
            .entry(std::ptr::from_ref(page) as usize)
            .or_insert_with(|| input.link(from, page))
    }
}

/// What dashboard `name` reads of one page, as text: two versions of a page with the same
/// inputs (and the same clock window) contribute the same to the dashboard. Every dashboard
/// reads a page's path, title and kind (links, order, filters); the rest is per dashboard.
/// Used to skip dashboards an edit cannot change (see `compile_cached`). An unknown name reads
/// everything. Claims count without their file lines.
pub fn inputs(name: &str, p: &PageInfo) -> String {
    let s = &p.summary;
    // Claims as the dashboards read them (for the three that read whole claims): every field
    // but the file line, which no dashboard prints and which moves when something above the
    // claims changes (a question added to the frontmatter moves every claim down a line without
    // changing what a dashboard shows).
    let claims = || -> Vec<Claim> {
        s.claims
            .iter()
            .map(|c| Claim {
                line: None,
                ..c.clone()
            })
            .collect()
    };
    let head = (&p.path, &p.title, p.kind);
    match name {
        "open-questions" => format!("{head:?}{:?}", s.questions),
        "contradictions" => format!(
            "{head:?}{:?}{:?}{:?}{:?}",
            s.id,
            s.contradictions,
            s.updated_at,
            claims()
        ),
        // A page's rows here are its own confidence when below 0.5 and its claims below 0.5
        // (with their freshness, so the page's `updatedAt` counts when it has such claims).
        "low-confidence" => {
            let low = |c: &Option<f64>| c.is_some_and(|c| c < 0.5);
            let page = s.confidence.filter(|_| low(&s.confidence));
            let rows: Vec<Claim> = claims()
                .into_iter()
                .filter(|c| low(&c.confidence))
                .collect();
            let touched = s.updated_at.as_ref().filter(|_| !rows.is_empty());
            format!("{head:?}{page:?}{touched:?}{rows:?}")
        }
        "claim-health" => format!("{head:?}{:?}{:?}", s.updated_at, claims()),
        // Only entity and source pages can be rows here.
        "stale-pages" if !matches!(p.kind, PageKind::Entity | PageKind::Source) => {
            format!("{head:?}")
        }
        "stale-pages" => format!(
            "{head:?}{:?}{:?}{:?}{:?}{:?}",
            p.raw_source, s.page_type, s.source_type, s.provenance_mode, s.updated_at
        ),
        // Only person-like pages (not reports) are rows here.
        "person-agent-directory" if p.kind == PageKind::Report || !s.is_person_like() => {
            format!("{head:?}")
        }
        "person-agent-directory" => format!(
            "{head:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
            s.id,
            s.page_type,
            s.entity_type,
            s.canonical_id,
            s.aliases,
            s.best_used_for,
            s.privacy_tier,
            s.last_refreshed_at,
            s.updated_at,
            s.person_card
        ),
        "relationship-graph" => format!("{head:?}{:?}", s.relationships),
        // Of a claim, this prints its identity and reads its evidence only (an edit of a
        // claim's status or confidence leaves it as it is).
        "provenance-coverage" => format!("{head:?}{:?}", identities_and_evidence(&s.claims)),
        // A page's rows here: its non-public tiers (page, person card, relationships with their
        // targets, evidence with its claim's identity).
        "privacy-review" => {
            let tier = |t: &Option<String>| t.clone().filter(|t| reviewable(Some(t)));
            let relationships: Vec<&Relationship> = s
                .relationships
                .iter()
                .filter(|r| reviewable(r.privacy_tier.as_deref()))
                .collect();
            let evidence: Vec<(&Option<String>, &String, &Evidence)> = s
                .claims
                .iter()
                .flat_map(|c| {
                    c.evidence
                        .iter()
                        .filter(|e| reviewable(e.privacy_tier.as_deref()))
                        .map(move |e| (&c.id, &c.text, e))
                })
                .collect();
            format!(
                "{head:?}{:?}{:?}{relationships:?}{evidence:?}",
                tier(&s.privacy_tier),
                s.person_card.as_ref().and_then(|c| tier(&c.privacy_tier))
            )
        }
        _ => format!("{p:?}"),
    }
}

/// Each claim's id, text and evidence: what the provenance dashboard reads of it.
fn identities_and_evidence(claims: &[Claim]) -> Vec<(&Option<String>, &String, &Vec<Evidence>)> {
    claims
        .iter()
        .map(|c| (&c.id, &c.text, &c.evidence))
        .collect()
}

/// The generated body of dashboard `name`, `None` for an unknown name.
pub fn report_body(name: &str, input: &ReportInput<'_>) -> Option<String> {
    let d = Dashboard::by_name(name)?;
    let from = d.path();
    let from = from.as_str();
    Some(match name {
        "open-questions" => open_questions(input, from),
        "contradictions" => contradictions(input, from),
        "low-confidence" => low_confidence(input, from),
        "claim-health" => claim_health(input, from),
        "stale-pages" => stale_pages(input, from),
        "person-agent-directory" => person_directory(input, from),
        "relationship-graph" => relationship_graph(input, from),
        "provenance-coverage" => provenance(input, from),
        "privacy-review" => privacy(input, from),
        _ => return None,
    })
}

fn open_questions(input: &ReportInput<'_>, from: &str) -> String {
    let matches: Vec<&&PageInfo> = input
        .pages
        .iter()
        .filter(|p| !p.summary.questions.is_empty())
        .collect();
    if matches.is_empty() {
        return "- No open questions right now.".into();
    }
    let mut lines = vec![
        format!("- Pages with open questions: {}", matches.len()),
        String::new(),
    ];
    for p in matches {
        lines.push(format!(
            "- {}: {}",
            input.link(from, p),
            p.summary.questions.join(" | ")
        ));
    }
    lines.join("\n")
}

fn contradictions(input: &ReportInput<'_>, from: &str) -> String {
    let computed;
    let clusters = match input.clusters {
        Some(shared) => shared.get_or_init(|| contradiction_clusters(input.pages)),
        None => {
            computed = contradiction_clusters(input.pages);
            &computed
        }
    };
    let notes: Vec<_> = clusters
        .iter()
        .filter(|c| c.kind == ClusterKind::PageNote)
        .collect();
    let claims: Vec<_> = clusters
        .iter()
        .filter(|c| c.kind == ClusterKind::ClaimId)
        .collect();
    if notes.is_empty() && claims.is_empty() {
        return "- No contradictions flagged right now.".into();
    }
    let mut lines = vec![
        format!("- Contradiction note clusters: {}", notes.len()),
        format!("- Competing claim clusters: {}", claims.len()),
    ];
    if !notes.is_empty() {
        lines.push(String::new());
        lines.push("### Page Notes".into());
        for c in &notes {
            let refs: Vec<String> = c
                .entries
                .iter()
                .map(|e| input.link(from, input.pages[e.page]))
                .collect();
            lines.push(format!("- {}: {}", c.label, refs.join(" | ")));
        }
    }
    if !claims.is_empty() {
        lines.push(String::new());
        lines.push("### Claim Clusters".into());
        for c in &claims {
            let refs: Vec<String> = c
                .entries
                .iter()
                .filter_map(|e| {
                    let page = input.pages[e.page];
                    let claim = page.summary.claims.get(e.claim?)?;
                    let f =
                        claim_freshness(claim, page.summary.updated_at.as_deref(), input.now_ms);
                    Some(format!(
                        "{} -> {} ({}, {})",
                        input.link(from, page),
                        claim_identity(claim),
                        claim.normalized_status(),
                        f.label()
                    ))
                })
                .collect();
            lines.push(format!("- `{}`: {}", c.label, refs.join(" | ")));
        }
    }
    lines.join("\n")
}

fn conf_asc(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    a.unwrap_or(1.0)
        .partial_cmp(&b.unwrap_or(1.0))
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// A confidence low enough for the low-confidence dashboard (below 0.5).
fn low(confidence: Option<f64>) -> Option<f64> {
    confidence.filter(|c| *c < 0.5)
}

/// The first lines of the low-confidence body (the labels of the counts).
const LOW_CONFIDENCE_LABELS: [&str; 2] = ["- Low-confidence pages: ", "- Low-confidence claims: "];

/// A page's row on the low-confidence dashboard.
fn low_confidence_page_row(link: &str, confidence: f64) -> String {
    format!("- {link}: confidence {}", to_fixed(confidence, 2))
}

fn low_confidence(input: &ReportInput<'_>, from: &str) -> String {
    let mut pages: Vec<&&PageInfo> = input
        .pages
        .iter()
        .filter(|p| low(p.summary.confidence).is_some())
        .collect();
    pages.sort_by(|a, b| conf_asc(a.summary.confidence, b.summary.confidence));
    let mut claims: Vec<ClaimRow<'_>> =
        claim_rows_where(input.pages, input.now_ms, |c| low(c.confidence).is_some());
    claims.sort_by(|a, b| conf_asc(a.claim.confidence, b.claim.confidence));
    if pages.is_empty() && claims.is_empty() {
        return "- No low-confidence pages or claims right now.".into();
    }
    let mut lines = vec![count_header(
        &LOW_CONFIDENCE_LABELS,
        &[pages.len(), claims.len()],
    )];
    if !pages.is_empty() {
        lines.push(String::new());
        lines.push("### Pages".into());
        for p in pages {
            lines.push(low_confidence_page_row(
                &input.link(from, p),
                p.summary.confidence.unwrap_or(0.0),
            ));
        }
    }
    let mut out = lines.join("\n");
    if !claims.is_empty() {
        out.push_str("\n\n### Claims");
        let mut links = PageLinks::default();
        for r in &claims {
            out.push('\n');
            input.claim_health_line(&mut out, &mut links, from, r);
        }
    }
    out
}

/// Count lines (`label` then the count), one per label, as dashboards open.
fn count_header(labels: &[&str], counts: &[usize]) -> String {
    let lines: Vec<String> = labels
        .iter()
        .zip(counts)
        .map(|(label, n)| format!("{label}{n}"))
        .collect();
    lines.join("\n")
}

/// The counts of a [`count_header`] with these labels; `None` when `header` is not exactly that.
fn parse_count_header<const N: usize>(header: &str, labels: [&str; N]) -> Option<[usize; N]> {
    let mut counts = [0usize; N];
    let mut lines = header.split('\n');
    for (count, label) in counts.iter_mut().zip(labels) {
        *count = lines.next()?.strip_prefix(label)?.parse().ok()?;
    }
    lines.next().is_none().then_some(counts)
}

/// The parts of a dashboard body separated by blank lines (`"\n\n"`; the header, then one per
/// section).
fn blank_line_parts(body: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for at in memchr::memmem::find_iter(body.as_bytes(), b"\n\n") {
        parts.push(&body[start..at]);
        start = at + 2;
    }
    parts.push(&body[start..]);
    parts
}

/// The rows of `page`'s claims that `keep` accepts, as claim-health and low confidence print
/// them, in claim order.
fn page_claim_lines(
    input: &ReportInput<'_>,
    from: &str,
    page: &PageInfo,
    keep: impl Fn(&ClaimRow<'_>) -> bool,
) -> Vec<String> {
    let mut links = PageLinks::default();
    claim_rows(&[page], input.now_ms)
        .iter()
        .filter(|r| keep(r))
        .map(|r| {
            let mut line = String::new();
            input.claim_health_line(&mut line, &mut links, from, r);
            line
        })
        .collect()
}

/// A page's rows on dashboard `name`, for the dashboards whose body is rows of pages and counts
/// of those rows (claim health, low confidence, stale pages): at one clock, such a dashboard is
/// unchanged by an edit that keeps the page's path, title and rows (their order follows from
/// their text and the title order). `None` for the other dashboards.
pub fn page_rows(name: &str, input: &ReportInput<'_>, page: &PageInfo) -> Option<Vec<Vec<String>>> {
    let from = Dashboard::by_name(name)?.path();
    match name {
        "claim-health" => Some(
            CLAIM_HEALTH_SECTIONS
                .iter()
                .map(|(_, keep)| page_claim_lines(input, &from, page, keep))
                .collect(),
        ),
        "low-confidence" => {
            let page_row = low(page.summary.confidence)
                .map(|c| low_confidence_page_row(&input.link(&from, page), c));
            let claims =
                page_claim_lines(input, &from, page, |r| low(r.claim.confidence).is_some());
            Some(vec![page_row.into_iter().collect(), claims])
        }
        "stale-pages" => Some(vec![
            stale_listed(input, page)
                .map(|f| stale_pages_row(&input.link(&from, page), f))
                .into_iter()
                .collect(),
        ]),
        _ => None,
    }
}

/// For a dashboard patched after one page changed: the new version of the page
/// (`input.pages[at]`) and the dashboard's path, when the page kept its path and title (so its
/// links and its place in title order are those of `old`).
fn one_page_changed<'a>(
    name: &str,
    input: &ReportInput<'a>,
    old: &PageInfo,
    at: usize,
) -> Option<(&'a PageInfo, String)> {
    let new = *input.pages.get(at)?;
    (new.path == old.path && new.title == old.title)
        .then(|| Some((new, Dashboard::by_name(name)?.path())))
        .flatten()
}

/// The low-confidence body after one page changed, patched into the body rendered before the
/// change (as [`patch_claim_health`], whose conditions apply): the page's rows are removed and
/// its new ones inserted where the sort puts them (confidence ascending, then title order, then
/// claim order), found from the confidences of all pages and claims without rendering their
/// rows. `None` when the patch does not apply: render the body whole.
pub fn patch_low_confidence(
    old_body: &str,
    input: &ReportInput<'_>,
    old: &PageInfo,
    at: usize,
) -> Option<String> {
    let (new, from) = one_page_changed("low-confidence", input, old, at)?;
    let from = from.as_str();
    // The new order: (confidence, page index, claim index), stably sorted as the rendering does.
    let mut page_keys: Vec<(f64, usize)> = input
        .pages
        .iter()
        .enumerate()
        .filter_map(|(i, p)| low(p.summary.confidence).map(|c| (c, i)))
        .collect();
    page_keys.sort_by(|a, b| conf_asc(Some(a.0), Some(b.0)));
    let mut claim_keys: Vec<(f64, usize, usize)> = input
        .pages
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            p.summary
                .claims
                .iter()
                .enumerate()
                .filter_map(move |(j, c)| low(c.confidence).map(|c| (c, i, j)))
        })
        .collect();
    claim_keys.sort_by(|a, b| conf_asc(Some(a.0), Some(b.0)));
    // The old body: header, then "### Pages" and "### Claims" parts as present, one line per row.
    let parts = blank_line_parts(old_body);
    let mut parts = parts.into_iter();
    let [old_pages, old_claims] = parse_count_header(parts.next()?, LOW_CONFIDENCE_LABELS)?;
    if (old_pages == 0) != page_keys.is_empty()
        || (old_claims == 0) != claim_keys.is_empty()
        || memchr::memchr_iter(b'\n', old_body.as_bytes()).count()
            != 1 + [old_pages, old_claims]
                .iter()
                .filter(|n| **n > 0)
                .map(|n| 2 + n)
                .sum::<usize>()
    {
        return None;
    }
    let link = input.link(from, new);
    let mut out = count_header(&LOW_CONFIDENCE_LABELS, &[page_keys.len(), claim_keys.len()]);
    for (heading, count) in [("### Pages", old_pages), ("### Claims", old_claims)] {
        if count == 0 {
            continue;
        }
        let part = parts.next()?;
        let mut rows: Vec<std::borrow::Cow<'_, str>> = part
            .strip_prefix(heading)?
            .strip_prefix('\n')?
            .split('\n')
            .map(std::borrow::Cow::Borrowed)
            .collect();
        if rows.len() != count {
            return None;
        }
        // The page's rows before and after, with where each new one goes.
        let (old_rows, new_rows): (Vec<String>, Vec<(usize, String)>) = if heading == "### Pages" {
            let row =
                |p: &PageInfo| low(p.summary.confidence).map(|c| low_confidence_page_row(&link, c));
            let old_row = row(old).into_iter().collect();
            let new_row = row(new)
                .map(|r| Some((page_keys.iter().position(|k| k.1 == at)?, r)))
                .into_iter()
                .collect::<Option<Vec<_>>>()?;
            (old_row, new_row)
        } else {
            let rows_of = |p: &PageInfo| {
                page_claim_lines(input, from, p, |r| low(r.claim.confidence).is_some())
            };
            let old_rows = rows_of(old);
            // The page's new rows in claim order, each to its place in the sorted list.
            let rows = rows_of(new);
            let in_page: Vec<usize> = new
                .summary
                .claims
                .iter()
                .enumerate()
                .filter(|(_, c)| low(c.confidence).is_some())
                .map(|(j, _)| j)
                .collect();
            if in_page.len() != rows.len() {
                return None;
            }
            let new_rows = claim_keys
                .iter()
                .enumerate()
                .filter(|(_, k)| k.1 == at)
                .map(|(pos, k)| {
                    let n = in_page.iter().position(|j| *j == k.2)?;
                    Some((pos, rows[n].clone()))
                })
                .collect::<Option<Vec<_>>>()?;
            (old_rows, new_rows)
        };
        for old_row in &old_rows {
            let i = rows.iter().position(|r| r == old_row)?;
            rows.remove(i);
        }
        for (pos, row) in new_rows {
            if pos > rows.len() {
                return None;
            }
            rows.insert(pos, std::borrow::Cow::Owned(row));
        }
        let expected = if heading == "### Pages" {
            page_keys.len()
        } else {
            claim_keys.len()
        };
        if rows.len() != expected {
            return None;
        }
        out.reserve(part.len() + 256);
        out.push_str("\n\n");
        out.push_str(heading);
        for row in rows {
            out.push('\n');
            out.push_str(&row);
        }
    }
    parts.next().is_none().then_some(out)
}

/// Which claim rows a claim-health section lists.
type RowFilter = fn(&ClaimRow<'_>) -> bool;

/// The three claim-health sections: heading and which claim rows they list.
const CLAIM_HEALTH_SECTIONS: [(&str, RowFilter); 3] = [
    ("### Missing Evidence", |r| r.claim.evidence.is_empty()),
    ("### Contested Claims", |r| r.claim.is_contested()),
    ("### Stale Claims", |r| {
        matches!(
            r.freshness.level,
            FreshnessLevel::Stale | FreshnessLevel::Unknown
        )
    }),
];

/// The first lines of the claim-health body (the labels of the section counts).
const CLAIM_HEALTH_LABELS: [&str; 3] = [
    "- Claims missing evidence: ",
    "- Contested claims: ",
    "- Stale or unknown claims: ",
];

fn claim_health(input: &ReportInput<'_>, from: &str) -> String {
    let rows = claim_rows(input.pages, input.now_ms);
    let lists: Vec<Vec<&ClaimRow<'_>>> = CLAIM_HEALTH_SECTIONS
        .iter()
        .map(|(_, keep)| rows.iter().filter(|r| keep(r)).collect())
        .collect();
    if lists.iter().all(Vec::is_empty) {
        return "- No claim health issues right now.".into();
    }
    let counts: Vec<usize> = lists.iter().map(Vec::len).collect();
    let mut out = count_header(&CLAIM_HEALTH_LABELS, &counts);
    // The largest dashboard (megabytes at 10,000 pages): its three sections side by side.
    let section = |i: usize| {
        let (heading, _) = CLAIM_HEALTH_SECTIONS[i];
        let list = &lists[i];
        let mut part = String::new();
        if list.is_empty() {
            return part;
        }
        part.push_str("\n\n");
        part.push_str(heading);
        let mut links = PageLinks::default();
        for r in list {
            part.push('\n');
            input.claim_health_line(&mut part, &mut links, from, r);
        }
        part
    };
    let (missing, (contested, stale)) =
        rayon::join(|| section(0), || rayon::join(|| section(1), || section(2)));
    out.reserve(missing.len() + contested.len() + stale.len());
    out.push_str(&missing);
    out.push_str(&contested);
    out.push_str(&stale);
    out
}

/// The claim-health body after one page changed, patched into the body rendered before the
/// change instead of rendered whole (at 10,000 pages the body is megabytes of rows, while an
/// operation changes the rows of one page). `old_body` is the body rendered for `input.pages`
/// with `old` in place of `input.pages[at]`, at a clock inside the same freshness window (so
/// every other row is unchanged); the page keeps its path and title, so its rows stay where
/// they were in each section (pages in title order, claims in page order). `None` when the
/// patch does not apply (the old body is not in the expected shape, a section appears or
/// disappears): render the body whole.
pub fn patch_claim_health(
    old_body: &str,
    input: &ReportInput<'_>,
    old: &PageInfo,
    at: usize,
) -> Option<String> {
    let (new, from) = one_page_changed("claim-health", input, old, at)?;
    let from = from.as_str();
    // Header, then one part per non-empty section ("heading\nrow\nrow…"), separated by blank
    // lines. Every row must be one line: the body has exactly the newlines this shape has (a
    // claim text spanning lines would make rows ambiguous).
    let parts = blank_line_parts(old_body);
    let (header, sections) = parts.split_first()?;
    let counts = parse_count_header(header, CLAIM_HEALTH_LABELS)?;
    let present: Vec<usize> = (0..3).filter(|&i| counts[i] > 0).collect();
    if present.len() != sections.len()
        || memchr::memchr_iter(b'\n', old_body.as_bytes()).count()
            != 2 + present.iter().map(|&i| 2 + counts[i]).sum::<usize>()
    {
        return None;
    }
    // One page's rows of section `i`, as the text they form ("row\nrow").
    let rows_of = |page: &PageInfo, i: usize| -> (usize, String) {
        let lines = page_claim_lines(input, from, page, CLAIM_HEALTH_SECTIONS[i].1);
        (lines.len(), lines.join("\n"))
    };
    // The page's rows in every section, before and after; a section that would appear or
    // disappear changes the layout: rendered whole.
    let rows: Vec<((usize, String), (usize, String))> =
        (0..3).map(|i| (rows_of(old, i), rows_of(new, i))).collect();
    let mut new_counts = counts;
    for (i, ((old_n, _), (new_n, _))) in rows.iter().enumerate() {
        new_counts[i] = (counts[i] + new_n).checked_sub(*old_n)?;
        if (new_counts[i] == 0) != (counts[i] == 0) {
            return None;
        }
    }
    // Written straight into the result (the sections are megabytes of rows).
    let mut out = count_header(&CLAIM_HEALTH_LABELS, &new_counts);
    out.reserve(old_body.len() + 1024);
    for (&i, section) in present.iter().zip(sections) {
        out.push_str("\n\n");
        let (heading, keep) = CLAIM_HEALTH_SECTIONS[i];
        let rows_start = section.strip_prefix(heading)?.strip_prefix('\n')?;
        let rows_at = section.len() - rows_start.len();
        let ((old_n, old_rows), (new_n, new_rows)) = &rows[i];
        let (old_n, new_n) = (*old_n, *new_n);
        // Where the page's rows are (or go): found by the link that starts each of its rows.
        let block_of = |page: &PageInfo, rows: &str| -> Option<std::ops::Range<usize>> {
            let mut links = PageLinks::default();
            let needle = format!("\n- {}: ", links.get(input, from, page));
            let start = if rows_start.starts_with(&needle[1..]) {
                rows_at
            } else {
                rows_at + memchr::memmem::find(rows_start.as_bytes(), needle.as_bytes())? + 1
            };
            let end = start + rows.len();
            (section.get(start..end)? == rows
                && (end == section.len() || section.as_bytes()[end] == b'\n'))
                .then_some(start..end)
        };
        if old_n > 0 {
            let at = block_of(old, old_rows)?;
            out.push_str(&section[..at.start]);
            out.push_str(new_rows);
            if new_n == 0 {
                // The row text and the newline before it go (the page's rows were not first)
                // or the newline after it (they were).
                if at.start > rows_at {
                    out.pop();
                    out.push_str(&section[at.end..]);
                } else {
                    out.push_str(section.get(at.end + 1..)?);
                }
            } else {
                out.push_str(&section[at.end..]);
            }
        } else if new_n > 0 {
            // After the rows of the nearest page before this one that has rows here.
            let before = input.pages[..at]
                .iter()
                .rev()
                .find(|p| claim_rows(&[p], input.now_ms).iter().any(|r| keep(r)));
            let insert_at = match before {
                Some(p) => block_of(p, &rows_of(p, i).1)?.end,
                None => rows_at - 1,
            };
            out.push_str(&section[..insert_at]);
            out.push('\n');
            out.push_str(new_rows);
            out.push_str(&section[insert_at..]);
        } else {
            out.push_str(section);
        }
    }
    Some(out)
}

/// Whether a page is an unmanaged raw source (excluded from stale-pages): a source page whose
/// body opens with the raw-source marker and whose frontmatter has none of `pageType`,
/// `sourceType`, `provenanceMode`.
pub fn is_unmanaged_raw_source(page: &PageInfo) -> bool {
    page.kind == PageKind::Source
        && page.raw_source
        && page.summary.page_type.is_none()
        && page.summary.source_type.is_none()
        && page.summary.provenance_mode.is_none()
}

/// The freshness of `p` when the stale-pages dashboard lists it (an entity or a managed source
/// that is not fresh).
fn stale_listed(input: &ReportInput<'_>, p: &PageInfo) -> Option<Freshness> {
    if !matches!(p.kind, PageKind::Entity | PageKind::Source)
        || (is_unmanaged_raw_source(p) && !input.managed_sources.contains(&p.path))
    {
        return None;
    }
    let f = page_freshness(p.summary.updated_at.as_deref(), input.now_ms);
    (f.level != FreshnessLevel::Fresh).then_some(f)
}

const NO_STALE_PAGES: &str = "- No aging or stale pages older than 30 days.";

/// The first line of the stale-pages body (the label of the count).
const STALE_PAGES_LABELS: [&str; 1] = ["- Stale pages: "];

/// A page's row on the stale-pages dashboard.
fn stale_pages_row(link: &str, f: Freshness) -> String {
    format!("- {link}: {}", f.label())
}

fn stale_pages(input: &ReportInput<'_>, from: &str) -> String {
    let matches: Vec<(&PageInfo, Freshness)> = input
        .pages
        .iter()
        .filter_map(|p| stale_listed(input, p).map(|f| (*p, f)))
        .collect();
    // Already in title order (stable).
    if matches.is_empty() {
        return NO_STALE_PAGES.into();
    }
    let mut lines = vec![
        count_header(&STALE_PAGES_LABELS, &[matches.len()]),
        String::new(),
    ];
    for (p, f) in matches {
        lines.push(stale_pages_row(&input.link(from, p), f));
    }
    lines.join("\n")
}

/// The stale-pages body after one page changed, patched into the body rendered before the
/// change (the page kept its path and title, and no other page's freshness level changed since:
/// the conditions of [`patch_claim_health`]): the page's row is removed and its new one, if it
/// is listed, inserted at its place in title order; the count follows. Nothing else is
/// formatted. `None` when the old body does not have the expected shape: render it whole.
pub fn patch_stale_pages(
    old_body: &str,
    input: &ReportInput<'_>,
    old: &PageInfo,
    at: usize,
) -> Option<String> {
    let (new, from) = one_page_changed("stale-pages", input, old, at)?;
    let link = input.link(&from, new);
    let row = |p: &PageInfo| stale_listed(input, p).map(|f| stale_pages_row(&link, f));
    let list = RowList {
        label: STALE_PAGES_LABELS[0],
        after_count: "\n\n",
        empty: NO_STALE_PAGES,
    };
    list.patch(old_body, input, at, (row(old), row(new)), |p| {
        stale_listed(input, p).is_some()
    })
}

/// A dashboard body that lists one row per page in title order under a count line (stale pages,
/// the person directory), and its patch for one changed page.
struct RowList {
    /// The count line's label.
    label: &'static str,
    /// Between the count line and the rows.
    after_count: &'static str,
    /// The body when no page is listed.
    empty: &'static str,
}

impl RowList {
    /// `old_body` with the changed page's row (`rows`: its old and new one, `None` where it is
    /// not listed) replaced: the old row removed, the new one inserted at its place among the
    /// pages `listed` accepts (page `at` of the title order); the count follows. `None` when the
    /// old body does not have the expected shape (one line per listed page before the change).
    fn patch(
        &self,
        old_body: &str,
        input: &ReportInput<'_>,
        at: usize,
        (old_row, new_row): (Option<String>, Option<String>),
        listed: impl Fn(&PageInfo) -> bool,
    ) -> Option<String> {
        let mut rows: Vec<&str> = if old_body == self.empty {
            Vec::new()
        } else {
            let (header, rest) = old_body.split_once(self.after_count)?;
            let [count] = parse_count_header(header, [self.label])?;
            let rows: Vec<&str> = rest.split('\n').collect();
            (rows.len() == count).then_some(rows)?
        };
        if let Some(old_row) = &old_row {
            let i = rows.iter().position(|r| r == old_row)?;
            rows.remove(i);
        }
        // The listed pages, and those before the changed one (rows are in title order).
        let (mut count, mut before) = (0, 0);
        for (i, p) in input.pages.iter().enumerate() {
            if listed(p) {
                count += 1;
                before += usize::from(i < at);
            }
        }
        if let Some(new_row) = &new_row {
            if before > rows.len() {
                return None;
            }
            rows.insert(before, new_row);
        }
        // Every other listed page keeps its row: as many rows as listed pages.
        if rows.len() != count {
            return None;
        }
        if rows.is_empty() {
            return Some(self.empty.into());
        }
        let mut out = count_header(&[self.label], &[rows.len()]);
        out.push_str(self.after_count);
        out.push_str(&rows.join("\n"));
        Some(out)
    }
}

fn preview(values: &[String]) -> Option<String> {
    if values.is_empty() {
        return None;
    }
    let shown = values[..values.len().min(3)].join(", ");
    Some(if values.len() > 3 {
        format!("{shown}, +{}", values.len() - 3)
    } else {
        shown
    })
}

const NO_PEOPLE: &str = "- No person-like entity pages with agent cards yet.";

/// The first line of the person-agent-directory body (the label of the count).
const PEOPLE_LABELS: [&str; 1] = ["- People with routing metadata: "];

/// Whether a page has a row on the person-agent-directory dashboard.
fn person_listed(p: &PageInfo) -> bool {
    p.kind != PageKind::Report && p.summary.is_person_like()
}

/// A person-like page's row on the person-agent-directory dashboard.
fn person_directory_row(input: &ReportInput<'_>, from: &str, p: &PageInfo) -> String {
    let s = &p.summary;
    let card = s.person_card.as_ref();
    let empty: Vec<String> = Vec::new();
    let mut best = s.best_used_for.clone();
    best.extend(card.map(|c| c.best_used_for.clone()).unwrap_or_default());
    let freshness = page_freshness(s.updated_at.as_deref(), input.now_ms);
    let details: Vec<String> = [
        (
            "id",
            s.canonical_id
                .clone()
                .or_else(|| card.and_then(|c| c.canonical_id.clone()))
                .or_else(|| s.id.clone()),
        ),
        ("aliases", preview(&s.aliases)),
        ("handles", preview(card.map_or(&empty, |c| &c.handles))),
        ("lane", card.and_then(|c| c.lane.clone())),
        ("ask", preview(card.map_or(&empty, |c| &c.ask_for))),
        ("best", preview(&best)),
        (
            "privacy",
            s.privacy_tier
                .clone()
                .or_else(|| card.and_then(|c| c.privacy_tier.clone())),
        ),
        (
            "refreshed",
            s.last_refreshed_at
                .clone()
                .or_else(|| card.and_then(|c| c.last_refreshed_at.clone())),
        ),
        ("freshness", Some(freshness.label())),
    ]
    .into_iter()
    .filter_map(|(label, v)| v.filter(|v| !v.is_empty()).map(|v| format!("{label} {v}")))
    .collect();
    let link = input.link(from, p);
    if details.is_empty() {
        format!("- {link}")
    } else {
        format!("- {link}: {}", details.join("; "))
    }
}

fn person_directory(input: &ReportInput<'_>, from: &str) -> String {
    let matches: Vec<&&PageInfo> = input.pages.iter().filter(|p| person_listed(p)).collect();
    if matches.is_empty() {
        return NO_PEOPLE.into();
    }
    let mut lines = vec![count_header(&PEOPLE_LABELS, &[matches.len()])];
    for p in matches {
        lines.push(person_directory_row(input, from, p));
    }
    lines.join("\n")
}

/// The person-agent-directory body after one page changed, patched into the body rendered
/// before the change (as [`patch_stale_pages`], whose conditions apply): the page's row is
/// removed and its new one, if it is listed, inserted at its place in title order; the count
/// follows. `None` when the old body does not have the expected shape (the count line, then
/// one line per row): render it whole.
pub fn patch_person_directory(
    old_body: &str,
    input: &ReportInput<'_>,
    old: &PageInfo,
    at: usize,
) -> Option<String> {
    let (new, from) = one_page_changed("person-agent-directory", input, old, at)?;
    let row = |p: &PageInfo| person_listed(p).then(|| person_directory_row(input, &from, p));
    let list = RowList {
        label: PEOPLE_LABELS[0],
        after_count: "\n",
        empty: NO_PEOPLE,
    };
    list.patch(old_body, input, at, (row(old), row(new)), person_listed)
}

fn relationship_graph(input: &ReportInput<'_>, from: &str) -> String {
    let mut rels: Vec<(&PageInfo, &Relationship, String)> = input
        .pages
        .iter()
        .flat_map(|p| {
            p.summary.relationships.iter().map(move |r| {
                let target = r
                    .target_title
                    .as_deref()
                    .or(r.target_id.as_deref())
                    .unwrap_or("");
                (*p, r, format!("{} {target}", p.title))
            })
        })
        .collect();
    rels.sort_by(|a, b| locale_cmp(&a.2, &b.2));
    if rels.is_empty() {
        return "- No structured relationships yet.".into();
    }
    let mut lines = vec![
        format!("- Structured relationships: {}", rels.len()),
        String::new(),
    ];
    for (p, r, _) in rels {
        let mut details = vec![r.kind.clone().unwrap_or_else(|| "related".into())];
        if let Some(w) = r.weight {
            details.push(format!("weight {}", to_fixed(w, 2)));
        }
        if let Some(c) = r.confidence {
            details.push(format!("confidence {}", to_fixed(c, 2)));
        }
        if let Some(k) = &r.evidence_kind {
            details.push(format!("evidence {k}"));
        }
        if let Some(t) = &r.privacy_tier {
            details.push(format!("privacy {t}"));
        }
        if let Some(n) = &r.note {
            details.push(n.clone());
        }
        lines.push(format!(
            "- {} -> {} ({})",
            input.link(from, p),
            input.relationship_target(from, r),
            details.join(", ")
        ));
    }
    lines.join("\n")
}

/// Count labels, then order by count descending and label ([`locale_cmp`]).
fn count_lines<'a>(labels: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut order: Vec<&str> = Vec::new();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for l in labels {
        let n = counts.entry(l).or_insert(0);
        if *n == 0 {
            order.push(l);
        }
        *n += 1;
    }
    let mut rows: Vec<(&str, usize)> = order.into_iter().map(|l| (l, counts[l])).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| locale_cmp(a.0, b.0)));
    if rows.is_empty() {
        return vec!["- None".into()];
    }
    rows.into_iter()
        .map(|(l, n)| format!("- {l}: {n}"))
        .collect()
}

fn provenance(input: &ReportInput<'_>, from: &str) -> String {
    let evidence: Vec<&Evidence> = input
        .pages
        .iter()
        .flat_map(|p| p.summary.claims.iter().flat_map(|c| c.evidence.iter()))
        .collect();
    let missing: Vec<(&PageInfo, &Claim)> = input
        .pages
        .iter()
        .flat_map(|p| {
            p.summary
                .claims
                .iter()
                .filter(|c| c.evidence.is_empty())
                .map(move |c| (*p, c))
        })
        .collect();
    if evidence.is_empty() && missing.is_empty() {
        return "- No structured claims with provenance coverage yet.".into();
    }
    let mut lines = vec![
        format!("- Evidence entries: {}", evidence.len()),
        format!("- Claims missing evidence: {}", missing.len()),
        String::new(),
        "### Evidence Classes".into(),
    ];
    lines.extend(count_lines(
        evidence
            .iter()
            .map(|e| e.kind.as_deref().unwrap_or("unspecified")),
    ));
    lines.push(String::new());
    lines.push("### Top Evidence Sources".into());
    lines.extend(
        count_lines(evidence.iter().map(|e| {
            e.source_id
                .as_deref()
                .or(e.path.as_deref())
                .unwrap_or("inline")
        }))
        .into_iter()
        .take(20),
    );
    if !missing.is_empty() {
        lines.push(String::new());
        lines.push("### Missing Evidence".into());
        for (p, c) in missing {
            lines.push(format!("- {}: {}", input.link(from, p), claim_identity(c)));
        }
    }
    lines.join("\n")
}

fn reviewable(tier: Option<&str>) -> bool {
    tier.map(|t| t.trim().to_lowercase())
        .is_some_and(|t| !t.is_empty() && t != "public")
}

fn privacy(input: &ReportInput<'_>, from: &str) -> String {
    let mut entries: Vec<String> = Vec::new();
    for p in input.pages {
        let s = &p.summary;
        let link = input.link(from, p);
        if reviewable(s.privacy_tier.as_deref()) {
            entries.push(format!(
                "- {link}: page privacy {}",
                s.privacy_tier.as_deref().unwrap_or("")
            ));
        }
        if let Some(tier) = s
            .person_card
            .as_ref()
            .and_then(|c| c.privacy_tier.as_deref())
            && reviewable(Some(tier))
        {
            entries.push(format!("- {link}: person card privacy {tier}"));
        }
        for r in &s.relationships {
            if let Some(tier) = r.privacy_tier.as_deref()
                && reviewable(Some(tier))
            {
                entries.push(format!(
                    "- {link}: relationship privacy {tier} -> {}",
                    input.relationship_target(from, r)
                ));
            }
        }
        for c in &s.claims {
            for e in &c.evidence {
                let Some(tier) = e.privacy_tier.as_deref() else {
                    continue;
                };
                if !reviewable(Some(tier)) {
                    continue;
                }
                let detail: Vec<String> = [
                    e.kind.as_deref().map(|k| format!("kind {k}")),
                    e.source_id.as_deref().map(|k| format!("source {k}")),
                    e.path.as_deref().map(|k| format!("path {k}")),
                    e.lines.as_deref().map(|k| format!("lines {k}")),
                ]
                .into_iter()
                .flatten()
                .collect();
                let detail = if detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", detail.join(", "))
                };
                entries.push(format!(
                    "- {link}: evidence privacy {tier} on {}{detail}",
                    claim_identity(c)
                ));
            }
        }
    }
    if entries.is_empty() {
        return "- No non-public privacy tiers flagged right now.".into();
    }
    let mut lines = vec![
        format!("- Privacy review entries: {}", entries.len()),
        String::new(),
    ];
    lines.extend(entries);
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(path: &str, text: &str) -> PageInfo {
        wiki_parse::parse_page(path, text.as_bytes())
            .expect("page")
            .info
    }

    fn page(questions: &str, claim_text: &str) -> PageInfo {
        parse(
            "entities/a.md",
            &format!(
                "---\npageType: entity\nid: entity.a\ntitle: A\n{questions}claims:\n  - id: claim.a\n    text: {claim_text}\n    confidence: 0.2\nupdatedAt: 2026-04-01T00:00:00Z\n---\n# A\n"
            ),
        )
    }

    /// 2026-04-05T12:00:00Z.
    const NOW_MS: i64 = 1_775_390_400_000;

    /// A dashboard's whole rendering and its patch for one changed page.
    type Render = fn(&ReportInput<'_>, &str) -> String;
    type Patch = fn(&str, &ReportInput<'_>, &PageInfo, usize) -> Option<String>;

    fn rendered(render: Render, name: &str, pages: &[&PageInfo]) -> String {
        with_input(pages, NOW_MS, |i| render(i, &format!("reports/{name}.md")))
    }

    /// The body rendered for `before` patched for `after`, where page `at` changed.
    fn patched(
        render: Render,
        patch: Patch,
        name: &str,
        before: &[&PageInfo],
        after: &[&PageInfo],
        at: usize,
    ) -> Option<String> {
        let old_body = rendered(render, name, before);
        with_input(after, NOW_MS, |i| patch(&old_body, i, before[at], at))
    }

    /// Each case (a page index of `base` and its new version) patched is the whole rendering.
    fn assert_patches(
        render: Render,
        patch: Patch,
        name: &str,
        base: &[PageInfo],
        cases: &[(usize, PageInfo)],
    ) {
        let before: Vec<&PageInfo> = base.iter().collect();
        for (at, new) in cases {
            let mut after = before.clone();
            after[*at] = new;
            let whole = rendered(render, name, &after);
            assert_ne!(
                rendered(render, name, &before),
                whole,
                "{} changes nothing",
                new.path
            );
            let got = patched(render, patch, name, &before, &after, *at);
            assert_eq!(got.as_deref(), Some(whole.as_str()), "case {}", new.path);
        }
    }

    /// An entity page `name` (title = name) updated at `updated` with `claims` given as YAML
    /// list items (`- id: …` lines, indented two spaces).
    fn claims_page(name: &str, updated: &str, claims: &str) -> PageInfo {
        parse(
            &format!("entities/{name}.md"),
            &format!(
                "---\npageType: entity\nid: entity.{name}\ntitle: {name}\nupdatedAt: {updated}\nclaims:\n{claims}---\n# {name}\n"
            ),
        )
    }

    const FRESH: &str = "2026-04-01T00:00:00Z";
    const STALE: &str = "2025-01-01T00:00:00Z";
    const BARE: &str = "  - id: claim.{n}.bare\n    text: Bare {n}.\n";
    const BACKED: &str = "  - id: claim.{n}.backed\n    text: Backed {n}.\n    evidence:\n      - sourceId: source.x\n";
    const CONTESTED: &str = "  - id: claim.{n}.contested\n    text: Contested {n}.\n    status: contested\n    evidence:\n      - sourceId: source.x\n";

    fn claims(name: &str, kinds: &[&str]) -> String {
        kinds.iter().map(|k| k.replace("{n}", name)).collect()
    }

    /// `f` of the report input of `pages` (native links, no managed sources) at `now_ms`.
    fn with_input<R>(pages: &[&PageInfo], now_ms: i64, f: impl FnOnce(&ReportInput<'_>) -> R) -> R {
        let managed = std::collections::HashSet::new();
        f(&ReportInput {
            pages,
            now_ms,
            linker: Linker::new(wiki_parse::layout::RenderMode::Native),
            managed_sources: &managed,
            clusters: None,
        })
    }

    /// Patching the claim-health body for one changed page gives the body rendered whole, for
    /// rows changed in place, added after the page's rows, added where the page had none (after
    /// the nearest page before it with rows, or first in the section), and removed (first, in
    /// the middle, last); a section appearing or disappearing is left to the whole rendering.
    #[test]
    fn claim_health_patch_is_the_whole_rendering() {
        let (render, patch): (Render, Patch) = (claim_health, patch_claim_health);
        let base = [
            claims_page("a", STALE, &claims("a", &[BARE, CONTESTED])),
            claims_page("b", STALE, &claims("b", &[BARE, BACKED])),
            claims_page("c", FRESH, &claims("c", &[BACKED, BARE])),
            claims_page("d", FRESH, &claims("d", &[CONTESTED, BARE])),
        ];
        let cases: Vec<(usize, PageInfo)> = vec![
            // b fresh: its stale rows go (middle of the section), its bare row changes.
            (1, claims_page("b", FRESH, &claims("b", &[BARE, BACKED]))),
            // b gains a bare claim: added after its other bare row.
            (
                1,
                claims_page("b", STALE, &claims("b", &[BARE, BACKED, BARE])),
            ),
            // b contested where it had no row: after a's contested row.
            (1, claims_page("b", STALE, &claims("b", &[BARE, CONTESTED]))),
            // c contested: after a's row too (b has none).
            (2, claims_page("c", FRESH, &claims("c", &[CONTESTED, BARE]))),
            // a loses its contested claim: first row of the section removed.
            (0, claims_page("a", STALE, &claims("a", &[BARE, BACKED]))),
            // d loses its contested claim: last row removed.
            (3, claims_page("d", FRESH, &claims("d", &[BACKED, BARE]))),
            // a fresh: stale rows of a (first) go, b's stay.
            (0, claims_page("a", FRESH, &claims("a", &[BARE, CONTESTED]))),
            // A claim text changes.
            (
                2,
                claims_page(
                    "c",
                    FRESH,
                    &claims("c", &[BACKED, BARE]).replace("Bare c.", "Naked c."),
                ),
            ),
            // Nothing of the page in a section before or after.
            (2, claims_page("c", FRESH, &claims("c", &[BACKED, BACKED]))),
        ];
        assert_patches(render, patch, "claim-health", &base, &cases);
        // Rows of the first page with rows in a section: inserted before all others.
        let later = [
            claims_page("a", FRESH, &claims("a", &[BACKED])),
            claims_page("b", FRESH, &claims("b", &[CONTESTED, BARE])),
        ];
        let first = claims_page("a", FRESH, &claims("a", &[BARE, CONTESTED]));
        assert_patches(render, patch, "claim-health", &later, &[(0, first)]);
        // A section appearing (the only contested claims go) or disappearing: rendered whole.
        let plain = [
            claims_page("a", FRESH, &claims("a", &[BACKED])),
            claims_page("b", FRESH, &claims("b", &[BARE])),
        ];
        let contested_b = claims_page("b", FRESH, &claims("b", &[BARE, CONTESTED]));
        let without: Vec<&PageInfo> = plain.iter().collect();
        let with = vec![&plain[0], &contested_b];
        let name = "claim-health";
        assert_eq!(patched(render, patch, name, &without, &with, 1), None);
        assert_eq!(patched(render, patch, name, &with, &without, 1), None);
        // A claim text over two lines: rows are ambiguous, rendered whole.
        let two_lines = claims_page(
            "b",
            FRESH,
            "  - id: claim.b\n    text: |\n      One\n      - Two\n",
        );
        let pages = vec![&plain[0], &two_lines];
        assert_eq!(patched(render, patch, name, &pages, &pages, 1), None);
    }

    /// An entity page `name` with page confidence `conf` (if any) and claims `(id, confidence)`.
    fn conf_page(name: &str, conf: Option<f64>, claims: &[(&str, f64)]) -> PageInfo {
        let conf = conf
            .map(|c| format!("confidence: {c}\n"))
            .unwrap_or_default();
        let claims: String = claims
            .iter()
            .map(|(id, c)| {
                format!("  - id: claim.{id}\n    text: Claim {id}.\n    confidence: {c}\n")
            })
            .collect();
        parse(
            &format!("entities/{name}.md"),
            &format!(
                "---\npageType: entity\nid: entity.{name}\ntitle: {name}\n{conf}updatedAt: {FRESH}\nclaims:\n{claims}---\n# {name}\n"
            ),
        )
    }

    /// Patching the low-confidence body for one changed page gives the body rendered whole:
    /// pages and claims moving up or down the confidence order (ties kept in title then claim
    /// order), added, removed, or changed in place; a section appearing or disappearing is left
    /// to the whole rendering.
    #[test]
    fn low_confidence_patch_is_the_whole_rendering() {
        let (render, patch): (Render, Patch) = (low_confidence, patch_low_confidence);
        let base = [
            conf_page("a", Some(0.2), &[("a1", 0.3), ("a2", 0.9)]),
            conf_page("b", Some(0.4), &[("b1", 0.45), ("b2", 0.3)]),
            conf_page("c", Some(0.3), &[("c1", 0.1), ("c2", 0.3)]),
            conf_page("d", Some(0.8), &[("d1", 0.3)]),
        ];
        let cases = [
            (1, conf_page("b", Some(0.1), &[("b1", 0.45), ("b2", 0.3)])),
            (1, conf_page("b", Some(0.9), &[("b1", 0.45), ("b2", 0.3)])),
            (1, conf_page("b", None, &[("b1", 0.45), ("b2", 0.3)])),
            (3, conf_page("d", Some(0.3), &[("d1", 0.3)])),
            (0, conf_page("a", Some(0.3), &[("a1", 0.3), ("a2", 0.9)])),
            (1, conf_page("b", Some(0.4), &[("b1", 0.05), ("b2", 0.3)])),
            (
                1,
                conf_page("b", Some(0.4), &[("b1", 0.45), ("b2", 0.3), ("b3", 0.3)]),
            ),
            (1, conf_page("b", Some(0.4), &[("b1", 0.9), ("b2", 0.3)])),
            (
                2,
                conf_page("c", Some(0.3), &[("c1", 0.1), ("c2", 0.3), ("c3", 0.499)]),
            ),
            (2, conf_page("c", Some(0.45), &[("c2", 0.3), ("c1", 0.1)])),
            (3, conf_page("d", Some(0.49), &[("d1", 0.2), ("d2", 0.0)])),
        ];
        assert_patches(render, patch, "low-confidence", &base, &cases);
        // The only low-confidence page (or claim) goes, or a first one comes: rendered whole.
        let high = conf_page("a", Some(0.9), &[("a1", 0.2)]);
        let low = conf_page("a", Some(0.1), &[("a1", 0.2)]);
        let none = conf_page("a", Some(0.1), &[("a1", 0.9)]);
        let name = "low-confidence";
        for (before, after) in [(&low, &high), (&high, &low), (&low, &none)] {
            assert_eq!(patched(render, patch, name, &[before], &[after], 0), None);
        }
    }

    /// Patching the stale-pages body for one changed page gives the body rendered whole: a
    /// stale page made fresh (first, middle, last, the only one), a fresh one gone stale (its
    /// row where title order puts it, the first row of an empty dashboard), a label changed in
    /// place; concepts are never listed.
    #[test]
    fn stale_pages_patch_is_the_whole_rendering() {
        let (render, patch): (Render, Patch) = (stale_pages, patch_stale_pages);
        const AGING: &str = "2026-02-15T00:00:00Z";
        let page = |name: &str, updated: &str| claims_page(name, updated, "");
        let base = [
            page("a", STALE),
            page("b", FRESH),
            page("c", STALE),
            page("d", AGING),
            page("e", FRESH),
            page("f", STALE),
        ];
        let cases = [
            (0, page("a", FRESH)),
            (2, page("c", FRESH)),
            (5, page("f", FRESH)),
            (1, page("b", STALE)),
            (4, page("e", AGING)),
            (3, page("d", STALE)),
            (0, page("a", AGING)),
        ];
        assert_patches(render, patch, "stale-pages", &base, &cases);
        let only = [page("a", STALE), page("b", FRESH)];
        assert_patches(
            render,
            patch,
            "stale-pages",
            &only,
            &[(0, page("a", FRESH))],
        );
        let none = [page("a", FRESH), page("b", FRESH)];
        assert_patches(
            render,
            patch,
            "stale-pages",
            &none,
            &[(1, page("b", STALE))],
        );
        // A body that is not what the pages would render: rendered whole.
        let before = [&base[0], &base[1]];
        let new = page("a", FRESH);
        let after = [&new, &base[1]];
        let got = with_input(&after, NOW_MS, |i| {
            patch(
                "- Stale pages: 2\n\n- [a](../entities/a.md): stale",
                i,
                before[0],
                0,
            )
        });
        assert_eq!(got, None);
    }

    /// Patching the person directory for one changed page gives the body rendered whole: a
    /// person's row changed in place (first, middle, last), a page becoming a person and one
    /// ceasing to be, the only person leaving and the first one arriving, a row spanning lines;
    /// a body not in the expected shape (a row spanning lines among them) is left to the whole
    /// rendering.
    #[test]
    fn person_directory_patch_is_the_whole_rendering() {
        let (render, patch): (Render, Patch) = (person_directory, patch_person_directory);
        let name = "person-agent-directory";
        let page = |name: &str, updated: &str, extra: &str| {
            parse(
                &format!("entities/{name}.md"),
                &format!(
                    "---\npageType: entity\nid: entity.{name}\ntitle: {name}\nupdatedAt: {updated}\n{extra}---\n# {name}\n"
                ),
            )
        };
        let person = |name: &str, updated: &str| page(name, updated, "entityType: person\n");
        let card = |name: &str, lane: &str| {
            page(
                name,
                FRESH,
                &format!("personCard:\n  lane: {lane}\n  handles: [\"@{name}\"]\n"),
            )
        };
        let base = [
            person("a", STALE),
            page("b", FRESH, ""),
            card("c", "ops"),
            person("d", FRESH),
            page("e", STALE, ""),
            person("f", STALE),
        ];
        let cases = [
            (0, person("a", FRESH)),
            (2, card("c", "research")),
            (5, person("f", FRESH)),
            (1, person("b", STALE)),
            (4, card("e", "ops")),
            (3, page("d", FRESH, "")),
            (0, page("a", STALE, "aliases: [Ay]\n")),
        ];
        assert_patches(render, patch, name, &base, &cases);
        let only = [person("a", STALE), page("b", FRESH, "")];
        assert_patches(render, patch, name, &only, &[(0, page("a", STALE, ""))]);
        let none = [page("a", FRESH, ""), page("b", FRESH, "")];
        assert_patches(render, patch, name, &none, &[(1, person("b", STALE))]);
        // A body that is not what the pages would render: rendered whole.
        let new = person("a", FRESH);
        let after = [&new, &base[1]];
        let got = with_input(&after, NOW_MS, |i| {
            patch(
                "- People with routing metadata: 2\n- [a](../entities/a.md): id entity.a",
                i,
                &base[0],
                0,
            )
        });
        assert_eq!(got, None);
        // A row spanning lines (a value with a line break) patches in like any other, but a
        // body holding one is not patched again: rendered whole.
        let multiline = page("a", STALE, "entityType: person\naliases: [\"A\\nB\"]\n");
        assert_patches(render, patch, name, &base, &[(0, multiline.clone())]);
        let before: Vec<&PageInfo> = base.iter().collect();
        let mut spanning = before.clone();
        spanning[0] = &multiline;
        let new_d = person("d", STALE);
        let mut after = spanning.clone();
        after[3] = &new_d;
        assert_eq!(patched(render, patch, name, &spanning, &after, 3), None);
    }

    /// The dashboards whose inputs differ between `a` and `b`.
    fn differing(a: &PageInfo, b: &PageInfo) -> Vec<&'static str> {
        DASHBOARDS
            .iter()
            .filter(|d| inputs(d.name, a) != inputs(d.name, b))
            .map(|d| d.name)
            .collect()
    }

    /// A page's inputs to a dashboard are what its rows there show: a question added above the
    /// claims moves them down a line without changing any dashboard but the open questions; a
    /// claim's status and confidence count only where they are printed; a page that is no row
    /// of a dashboard (no low confidence, not a person, a concept for stale pages, no
    /// non-public tier) is no reason to re-render it.
    #[test]
    fn dashboard_inputs_are_what_the_rows_show() {
        let before = page("", "Alpha.");
        let moved = page("questions:\n  - Why?\n", "Alpha.");
        assert_ne!(before.summary.claims[0].line, moved.summary.claims[0].line);
        assert_eq!(differing(&before, &moved), ["open-questions"]);
        // A claim's text: the dashboards listing it (it has confidence 0.2 and no evidence).
        let edited = page("", "Beta.");
        assert_eq!(
            differing(&before, &edited),
            [
                "contradictions",
                "low-confidence",
                "claim-health",
                "provenance-coverage"
            ]
        );
        let mut reweighed = before.clone();
        reweighed.summary.claims[0].confidence = Some(0.9);
        reweighed.summary.claims[0].status = Some("contested".into());
        assert_eq!(
            differing(&before, &reweighed),
            ["contradictions", "low-confidence", "claim-health"]
        );
        // Confident claims only, not a person: the page's date matters to fewer dashboards.
        let mut touched = reweighed.clone();
        touched.summary.updated_at = Some("2026-04-04T00:00:00Z".into());
        assert_eq!(
            differing(&reweighed, &touched),
            ["contradictions", "claim-health", "stale-pages"]
        );
        let mut touched_low = before.clone();
        touched_low.summary.updated_at = Some("2026-04-04T00:00:00Z".into());
        assert_eq!(
            differing(&before, &touched_low),
            [
                "contradictions",
                "low-confidence",
                "claim-health",
                "stale-pages"
            ]
        );
        // A person: the directory shows its freshness.
        let person = |updated: &str| {
            parse(
                "entities/p.md",
                &format!(
                    "---\npageType: entity\nentityType: person\nid: entity.p\ntitle: P\nupdatedAt: {updated}\n---\n# P\n"
                ),
            )
        };
        assert_eq!(
            differing(&person("2026-04-01"), &person("2026-04-04")),
            [
                "contradictions",
                "claim-health",
                "stale-pages",
                "person-agent-directory"
            ]
        );
        // A concept is never a stale-pages row.
        let concept = |updated: &str| {
            parse(
                "concepts/c.md",
                &format!(
                    "---\npageType: concept\nid: concept.c\ntitle: C\nupdatedAt: {updated}\n---\n# C\n"
                ),
            )
        };
        assert_eq!(
            differing(&concept("2026-04-01"), &concept("2026-04-04")),
            ["contradictions", "claim-health"]
        );
        // Evidence: public evidence is no privacy row, private evidence is (with its claim).
        let with_evidence = |tier: &str, text: &str| {
            parse(
                "entities/e.md",
                &format!(
                    "---\npageType: entity\nid: entity.e\ntitle: E\nclaims:\n  - id: claim.e\n    text: {text}\n    evidence:\n      - sourceId: source.s\n        privacyTier: {tier}\n---\n# E\n"
                ),
            )
        };
        assert!(
            !differing(
                &with_evidence("public", "One."),
                &with_evidence("public", "Two.")
            )
            .contains(&"privacy-review")
        );
        assert!(
            differing(
                &with_evidence("private", "One."),
                &with_evidence("private", "Two.")
            )
            .contains(&"privacy-review")
        );
        assert!(
            differing(
                &with_evidence("public", "One."),
                &with_evidence("private", "One.")
            )
            .contains(&"privacy-review")
        );
    }
}
