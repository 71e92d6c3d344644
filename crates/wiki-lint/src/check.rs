//! The lint checks: a pure function over parsed pages, pages that failed to parse, and a clock.
//!
//! [`lint`] runs every check of reference §6.2 with the original messages (the newest, pluralised
//! forms: `Page lists 1 open question.` / `Page lists 2 open questions.`), plus:
//!
//! * `invalid-frontmatter` (error, structure) for each page that failed to parse, on the line of
//!   the YAML error: ``Frontmatter failed to parse: <reason>`` (the newest upstream's code and
//!   wording; our YAML parser's reasons differ from the JavaScript one's). Files that are not
//!   text at all (binary, not UTF-8, symlinks) get ``Page cannot be read: <reason>``.
//! * `duplicate-claim-id` (error, structure): a claim id used again on the same page
//!   (``Duplicate claim id `<id>` on this page.``), reported on the repeated claim.
//! * `broken-wikilink` resolves Markdown links relative to the page (`../sources/a.md` from
//!   `entities/b.md`), and still accepts vault-root-relative targets written by older versions
//!   (`sources/a.md` from `entities/b.md`); wikilinks name a page by path, path without `.md`, or
//!   file name. A page that failed to parse is still a valid link target (the file exists). The
//!   message names the resolved vault path for Markdown links (as the newest upstream does).
//!
//! Order: findings are stable-sorted by path; within a path they keep the emission order of the
//! original: page checks, claim checks, claim conflicts, duplicate ids, broken links.

use std::collections::{HashMap, HashSet};

use wiki_digest::json::to_fixed;
use wiki_parse::health::{self, ClusterKind};
use wiki_parse::links::{self, LinkKind, LinkTargets};
use wiki_parse::time::{self, FreshnessLevel};
use wiki_parse::{Link, PageError, PageInfo, PageKind};

use crate::diagnostic::{Code, Diagnostic};

/// Inputs of [`lint`] besides the pages.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The clock (milliseconds since the epoch) for freshness.
    pub now_ms: i64,
    /// Valid link targets. Default: the given pages plus the pages that failed to parse. Staged
    /// mode passes every page path of the index, since it parses only some pages.
    pub targets: Option<&'a LinkTargets>,
    /// Report findings about these paths only (cross-page checks still see every given page).
    pub only: Option<&'a HashSet<String>>,
}

fn is_bridge(page: &PageInfo) -> bool {
    matches!(
        page.summary.source_type.as_deref(),
        Some("memory-bridge" | "memory-bridge-events")
    )
}

/// `reply_to`, `reply_to_current` and `reply_to:<x>`: transcript directives, not links.
fn is_transcript_directive(target: &str) -> bool {
    target == "reply_to"
        || target == "reply_to_current"
        || target
            .strip_prefix("reply_to:")
            .is_some_and(|rest| !rest.is_empty())
}

/// The target of a bridge page's link resolved against the page's `bridgeRelativePath`.
fn bridge_link_target(page: &PageInfo, link: &Link) -> Option<String> {
    let base = page.summary.bridge_relative_path.as_deref()?;
    let t = link.target.trim();
    if t.is_empty() || is_transcript_directive(t) {
        return None;
    }
    links::resolve_relative(base.trim_start_matches('/'), t)
}

fn unmanaged_raw_source(page: &PageInfo) -> bool {
    page.raw_source
        && page.summary.page_type.is_none()
        && page.summary.source_type.is_none()
        && page.summary.provenance_mode.is_none()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn page_checks(page: &PageInfo, now_ms: i64, out: &mut Vec<Diagnostic>) {
    let s = &page.summary;
    let path = page.path.as_str();
    let raw = unmanaged_raw_source(page);
    let mut push = |code: Code, line: Option<usize>, message: String| {
        out.push(Diagnostic::new(code, path, line, message));
    };
    if s.id.is_none() && !raw {
        push(Code::MissingId, None, "Missing `id` frontmatter.".into());
    }
    match s.page_type.as_deref() {
        None if !raw => push(
            Code::MissingPageType,
            None,
            "Missing `pageType` frontmatter.".into(),
        ),
        None => {}
        Some(found) if found != page.kind.as_str() => push(
            Code::PageTypeMismatch,
            page.key_line("pageType"),
            format!(
                "Expected pageType `{}`, found `{found}`.",
                page.kind.as_str()
            ),
        ),
        Some(_) => {}
    }
    if page.title.trim().is_empty() {
        push(Code::MissingTitle, None, "Missing page title.".into());
    }
    if !matches!(page.kind, PageKind::Source | PageKind::Report) && s.source_ids.is_empty() {
        push(
            Code::MissingSourceIds,
            page.key_line("sourceIds"),
            "Non-source page is missing `sourceIds` provenance.".into(),
        );
    }
    if is_bridge(page)
        && (s.source_path.is_none()
            || s.bridge_relative_path.is_none()
            || s.bridge_workspace_dir.is_none())
    {
        push(
            Code::MissingImportProvenance,
            page.key_line("sourceType"),
            "Bridge-imported source page is missing `sourcePath`, `bridgeRelativePath`, or `bridgeWorkspaceDir` provenance.".into(),
        );
    }
    let unsafe_mode = s.provenance_mode.as_deref() == Some("unsafe-local");
    if (unsafe_mode || s.source_type.as_deref() == Some("memory-unsafe-local"))
        && (s.source_path.is_none()
            || s.unsafe_local_configured_path.is_none()
            || s.unsafe_local_relative_path.is_none())
    {
        let line = if unsafe_mode {
            page.key_line("provenanceMode")
        } else {
            page.key_line("sourceType")
        };
        push(
            Code::MissingImportProvenance,
            line,
            "Unsafe-local source page is missing `sourcePath`, `unsafeLocalConfiguredPath`, or `unsafeLocalRelativePath` provenance.".into(),
        );
    }
    if !s.contradictions.is_empty() {
        push(
            Code::ContradictionPresent,
            page.key_line("contradictions"),
            format!(
                "Page lists {} to resolve.",
                plural(s.contradictions.len(), "contradiction", "contradictions")
            ),
        );
    }
    if !s.questions.is_empty() {
        push(
            Code::OpenQuestion,
            page.key_line("questions"),
            format!(
                "Page lists {}.",
                plural(s.questions.len(), "open question", "open questions")
            ),
        );
    }
    if let Some(c) = s.confidence
        && c < 0.5
    {
        push(
            Code::LowConfidence,
            page.key_line("confidence"),
            format!("Page confidence is low ({}).", to_fixed(c, 2)),
        );
    }
    if page.kind != PageKind::Report && !raw {
        let f = time::page_freshness(s.updated_at.as_deref(), now_ms);
        if matches!(f.level, FreshnessLevel::Stale | FreshnessLevel::Unknown) {
            push(
                Code::StalePage,
                page.key_line("updatedAt"),
                format!("Page freshness needs review ({}).", f.reason()),
            );
        }
    }
}

fn claim_checks(page: &PageInfo, now_ms: i64, out: &mut Vec<Diagnostic>) {
    let path = page.path.as_str();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut repeated: Vec<(&str, Option<usize>)> = Vec::new();
    for claim in &page.summary.claims {
        let label = claim.label();
        if claim.evidence.is_empty() {
            out.push(Diagnostic::new(
                Code::ClaimMissingEvidence,
                path,
                claim.line,
                format!("Claim `{label}` is missing structured evidence."),
            ));
        }
        if let Some(c) = claim.confidence
            && c < 0.5
        {
            out.push(Diagnostic::new(
                Code::ClaimLowConfidence,
                path,
                claim.line,
                format!("Claim `{label}` has low confidence ({}).", to_fixed(c, 2)),
            ));
        }
        let f = time::claim_freshness(claim, page.summary.updated_at.as_deref(), now_ms);
        if matches!(f.level, FreshnessLevel::Stale | FreshnessLevel::Unknown) {
            out.push(Diagnostic::new(
                Code::StaleClaim,
                path,
                claim.line,
                format!("Claim `{label}` freshness needs review ({}).", f.reason()),
            ));
        }
        if let Some(id) = claim.id.as_deref() {
            let n = seen.entry(id).or_insert(0);
            *n += 1;
            if *n > 1 {
                repeated.push((id, claim.line));
            }
        }
    }
    for (id, line) in repeated {
        out.push(Diagnostic::new(
            Code::DuplicateClaimId,
            path,
            line,
            format!("Duplicate claim id `{id}` on this page."),
        ));
    }
}

fn error_message(e: &PageError) -> String {
    if e.is_frontmatter() {
        let reason = e
            .message
            .strip_prefix("invalid YAML frontmatter: ")
            .unwrap_or(&e.message);
        format!("Frontmatter failed to parse: {reason}")
    } else {
        format!("Page cannot be read: {}", e.message)
    }
}

/// Run every check. `pages` may come in any order; the result is sorted by path (stable).
pub fn lint(pages: &[PageInfo], errors: &[PageError], options: &Options<'_>) -> Vec<Diagnostic> {
    let wanted = |path: &str| options.only.is_none_or(|only| only.contains(path));
    // Findings are collected per file (errors first, then pages) in emission order, and the
    // files are then put in path order: the same result as a stable sort of all findings by
    // path, with one comparison sort over files instead of over findings.
    let e = errors.len();
    let mut buckets: Vec<Vec<Diagnostic>> = vec![Vec::new(); e + pages.len()];

    for (i, err) in errors.iter().enumerate().filter(|(_, x)| wanted(&x.path)) {
        buckets[i].push(Diagnostic::new(
            Code::InvalidFrontmatter,
            &err.path,
            Some(err.line),
            error_message(err),
        ));
    }
    for (i, page) in pages.iter().enumerate().filter(|(_, p)| wanted(&p.path)) {
        page_checks(page, options.now_ms, &mut buckets[e + i]);
    }
    for (i, page) in pages.iter().enumerate().filter(|(_, p)| wanted(&p.path)) {
        claim_checks(page, options.now_ms, &mut buckets[e + i]);
    }

    // Claim conflicts: one finding per entry of each competing claim-id cluster.
    let refs: Vec<&PageInfo> = pages.iter().collect();
    for cluster in health::contradiction_clusters(&refs) {
        if cluster.kind != ClusterKind::ClaimId {
            continue;
        }
        let n = cluster.entries.len();
        for entry in &cluster.entries {
            let page = &pages[entry.page];
            if !wanted(&page.path) {
                continue;
            }
            let line = entry
                .claim
                .and_then(|ci| page.summary.claims.get(ci))
                .and_then(|c| c.line);
            buckets[e + entry.page].push(Diagnostic::new(
                Code::ClaimConflict,
                &page.path,
                line,
                format!(
                    "Claim cluster `{}` has competing variants across {n} pages.",
                    cluster.label
                ),
            ));
        }
    }

    // Duplicate page ids.
    let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, page) in pages.iter().enumerate() {
        if let Some(id) = page.summary.id.as_deref() {
            by_id.entry(id).or_default().push(i);
        }
    }
    for (i, page) in pages.iter().enumerate() {
        let Some(id) = page.summary.id.as_deref() else {
            continue;
        };
        if by_id[id].len() > 1 && wanted(&page.path) {
            buckets[e + i].push(Diagnostic::new(
                Code::DuplicateId,
                &page.path,
                page.key_line("id"),
                format!("Duplicate page id `{id}`."),
            ));
        }
    }

    // Broken links.
    let own_targets;
    let targets = match options.targets {
        Some(t) => t,
        None => {
            own_targets = LinkTargets::new(
                pages
                    .iter()
                    .map(|p| p.path.as_str())
                    .chain(errors.iter().map(|e| e.path.as_str())),
            );
            &own_targets
        }
    };
    let bridge_targets: HashSet<String> = pages
        .iter()
        .filter(|p| is_bridge(p))
        .filter_map(|p| p.summary.bridge_relative_path.as_deref())
        .filter_map(|b| links::normalize_path(b.trim_start_matches('/')))
        .collect();
    for (i, page) in pages.iter().enumerate().filter(|(_, p)| wanted(&p.path)) {
        for link in &page.links {
            if targets.is_valid(link, &page.path) || is_transcript_directive(&link.target) {
                continue;
            }
            if is_bridge(page)
                && bridge_link_target(page, link).is_some_and(|t| bridge_targets.contains(&t))
            {
                continue;
            }
            buckets[e + i].push(broken_link(page, link));
        }
    }

    let path_of = |i: usize| -> &str {
        if i < e {
            &errors[i].path
        } else {
            &pages[i - e].path
        }
    };
    let mut order: Vec<usize> = (0..buckets.len())
        .filter(|&i| !buckets[i].is_empty())
        .collect();
    order.sort_by(|&a, &b| health::locale_cmp(path_of(a), path_of(b)));
    let mut out = Vec::with_capacity(order.iter().map(|&i| buckets[i].len()).sum());
    for i in order {
        out.append(&mut buckets[i]);
    }
    out
}

/// Links in the pages at `paths` that named a page `before` a change and name none `after` it
/// (a commit that deletes or renames a page breaks them), as `broken-wikilink` findings sorted
/// by path.
pub fn newly_broken_links(
    pages: &[PageInfo],
    paths: &HashSet<String>,
    before: &LinkTargets,
    after: &LinkTargets,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for page in pages.iter().filter(|p| paths.contains(&p.path)) {
        for link in &page.links {
            if after.is_valid(link, &page.path) || !before.is_valid(link, &page.path) {
                continue;
            }
            out.push(broken_link(page, link));
        }
    }
    out.sort_by(|a, b| health::locale_cmp(&a.path, &b.path));
    out
}

fn broken_link(page: &PageInfo, link: &Link) -> Diagnostic {
    let shown = match (link.kind, &link.resolved) {
        (LinkKind::Markdown, Some(resolved)) => resolved.as_str(),
        _ => link.target.as_str(),
    };
    Diagnostic::new(
        Code::BrokenWikilink,
        &page.path,
        Some(link.line),
        format!("Broken wikilink target `{shown}`."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiki_parse::parse_page;

    /// Confidences print as JavaScript's `toFixed(2)` does (the original plugin's messages):
    /// on the exact value of the double, ties away from zero. Values checked with node:
    /// `(0.015).toFixed(2)` is `0.01` (0.01499999…), `(-0.125).toFixed(2)` is `-0.13`.
    #[test]
    fn confidences_print_as_javascript_to_fixed() {
        let message = |c: f64| {
            let text = format!(
                "---\npageType: entity\nid: entity.a\ntitle: A\nconfidence: {c}\nupdatedAt: 2026-04-01T00:00:00Z\nclaims:\n  - id: claim.a\n    text: A.\n    confidence: {c}\n    evidence:\n      - sourceId: source.a\n---\n# A\n"
            );
            let page = parse_page("entities/a.md", text.as_bytes()).expect("page");
            let found = lint(&[page.info], &[], &Options::default());
            let messages: Vec<String> = found
                .iter()
                .filter(|d| matches!(d.code, Code::LowConfidence | Code::ClaimLowConfidence))
                .map(|d| d.message.clone())
                .collect();
            messages.join(" | ")
        };
        for (c, shown) in [
            (0.3, "0.30"),
            (0.125, "0.13"),
            (0.375, "0.38"),
            (0.499, "0.50"),
            (0.0, "0.00"),
            (0.015, "0.01"),
            (0.045, "0.04"),
            (0.075, "0.07"),
            (-0.2, "-0.20"),
            (-0.125, "-0.13"),
            (-0.005, "-0.01"),
        ] {
            assert_eq!(
                message(c),
                format!(
                    "Page confidence is low ({shown}). | Claim `claim.a` has low confidence ({shown})."
                ),
                "confidence {c}"
            );
        }
    }

    #[test]
    fn directives() {
        assert!(is_transcript_directive("reply_to"));
        assert!(is_transcript_directive("reply_to_current"));
        assert!(is_transcript_directive("reply_to:abc"));
        assert!(!is_transcript_directive("reply_to:"));
        assert!(!is_transcript_directive("reply_tox"));
    }

    #[test]
    fn only_filters_but_cross_checks_see_everything() {
        let a = parse_page(
            "entities/a.md",
            b"---\nid: x\npageType: entity\nsourceIds: s\nupdatedAt: 2026-04-01\n---\n[[b]]\n",
        )
        .unwrap();
        let b = parse_page("entities/b.md", b"---\nid: x\n---\n").unwrap();
        let pages = vec![a.info, b.info];
        let only: HashSet<String> = ["entities/a.md".to_string()].into();
        let now = time::parse_timestamp_ms("2026-04-05T12:00:00Z").unwrap();
        let d = lint(
            &pages,
            &[],
            &Options {
                now_ms: now,
                only: Some(&only),
                ..Default::default()
            },
        );
        let codes: Vec<&str> = d.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, vec!["duplicate-id"]);
        assert_eq!(d[0].line, Some(2));
    }
}
