//! One test per check: codes, lines, and the exact message texts (singular and plural forms).

use wiki_testkit::{Vault, page};

use crate::common::*;

#[test]
fn clean_pages_have_no_findings() {
    let v = Vault::new();
    v.write(
        "sources/base.md",
        clean("source", "source.base", &[], "# Base\n"),
    );
    v.write("entities/a.md", clean("entity", "entity.a", &[], "# A\n"));
    let run = lint(&v, &[]);
    run.expect_code(0);
    assert_eq!(findings(&run), vec![]);
    let s = summary(&run);
    assert_eq!(s["errors"], 0);
    assert_eq!(s["warnings"], 0);
    assert_eq!(s["pages"], 2);
    assert_eq!(s["status"], "passed");
}

#[test]
fn missing_id_and_missing_page_type() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        page(&["sourceIds: [s]", &format!("updatedAt: {FRESH}")], "# A\n"),
    );
    let run = lint(&v, &[]);
    run.expect_code(1);
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/a.md".into(),
                "missing-id".into(),
                None,
                "Missing `id` frontmatter.".into()
            ),
            (
                "entities/a.md".into(),
                "missing-page-type".into(),
                None,
                "Missing `pageType` frontmatter.".into()
            ),
        ]
    );
    let d = &diagnostics(&run)[0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["category"], "structure");
}

#[test]
fn page_type_mismatch_names_expected_and_found() {
    let v = Vault::new();
    v.write("concepts/x.md", clean("entity", "concept.x", &[], ""));
    v.write("concepts/y.md", clean("Concept", "concept.y", &[], ""));
    let run = lint(&v, &[]);
    run.expect_code(1);
    assert_eq!(
        findings(&run),
        vec![
            (
                "concepts/x.md".into(),
                "page-type-mismatch".into(),
                Some(2),
                "Expected pageType `concept`, found `entity`.".into()
            ),
            (
                "concepts/y.md".into(),
                "page-type-mismatch".into(),
                Some(2),
                "Expected pageType `concept`, found `Concept`.".into()
            ),
        ]
    );
}

#[test]
fn missing_title_from_records_on_stdin() {
    // A title always falls back to the file name when parsing, so only a record can lack one.
    let v = Vault::new();
    let record = r#"{"type":"page","path":"entities/a.md","kind":"entity","title":"  ","id":"entity.a","pageType":"entity","sourceIds":["s"],"updatedAt":"2026-04-01","blobId":"0000000000000000000000000000000000000000","bodyLine":1}"#;
    let run = v.run_stdin("wiki-lint", &["--stdin"], Some(record.as_bytes()));
    run.expect_code(1);
    assert_eq!(
        messages_for(&run, "entities/a.md"),
        pairs(&[("missing-title", "Missing page title.")])
    );
}

#[test]
fn missing_source_ids_only_on_non_source_pages() {
    let v = Vault::new();
    let fm = ["id: x", &format!("updatedAt: {FRESH}")];
    v.write(
        "entities/e.md",
        page(&["pageType: entity", fm[0], fm[1]], ""),
    );
    v.write(
        "concepts/c.md",
        page(&["pageType: concept", "id: c", "sourceIds: []", fm[1]], ""),
    );
    v.write(
        "sources/s.md",
        page(&["pageType: source", "id: s", fm[1]], ""),
    );
    v.write("reports/r.md", page(&["pageType: report", "id: r"], ""));
    let run = lint(&v, &[]);
    run.expect_code(0);
    let msg = "Non-source page is missing `sourceIds` provenance.";
    assert_eq!(
        findings(&run),
        vec![
            (
                "concepts/c.md".into(),
                "missing-source-ids".into(),
                Some(4),
                msg.into()
            ),
            (
                "entities/e.md".into(),
                "missing-source-ids".into(),
                None,
                msg.into()
            ),
        ]
    );
    assert_eq!(diagnostics(&run)[0]["category"], "provenance");
    assert_eq!(diagnostics(&run)[0]["severity"], "warning");
}

#[test]
fn missing_import_provenance_for_bridge_and_unsafe_local_sources() {
    let v = Vault::new();
    let base = |extra: &[&str]| clean("source", "source.x", extra, "");
    v.write(
        "sources/bridge.md",
        base(&["sourceType: memory-bridge", "sourcePath: /a"]),
    );
    v.write(
        "sources/bridge-ok.md",
        base(&[
            "sourceType: memory-bridge-events",
            "sourcePath: /a",
            "bridgeRelativePath: memory/a.md",
            "bridgeWorkspaceDir: /w",
        ]),
    );
    v.write(
        "sources/unsafe.md",
        base(&["provenanceMode: unsafe-local", "sourcePath: /a"]),
    );
    v.write(
        "sources/unsafe2.md",
        base(&["sourceType: memory-unsafe-local"]),
    );
    let run = lint(&v, &[]);
    let bridge = "Bridge-imported source page is missing `sourcePath`, `bridgeRelativePath`, or `bridgeWorkspaceDir` provenance.";
    let unsafe_local = "Unsafe-local source page is missing `sourcePath`, `unsafeLocalConfiguredPath`, or `unsafeLocalRelativePath` provenance.";
    let f: Vec<_> = findings(&run)
        .into_iter()
        .filter(|f| f.1 != "duplicate-id")
        .collect();
    assert_eq!(
        f,
        vec![
            (
                "sources/bridge.md".into(),
                "missing-import-provenance".into(),
                Some(6),
                bridge.into()
            ),
            (
                "sources/unsafe.md".into(),
                "missing-import-provenance".into(),
                Some(6),
                unsafe_local.into()
            ),
            (
                "sources/unsafe2.md".into(),
                "missing-import-provenance".into(),
                Some(6),
                unsafe_local.into()
            ),
        ]
    );
}

#[test]
fn contradiction_present_singular_and_plural() {
    let v = Vault::new();
    v.write(
        "entities/one.md",
        clean(
            "entity",
            "e.one",
            &["contradictions: Postgres or MySQL?"],
            "",
        ),
    );
    v.write(
        "entities/two.md",
        clean("entity", "e.two", &["contradictions: [a, b]"], ""),
    );
    let run = lint(&v, &[]);
    run.expect_code(0);
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/one.md".into(),
                "contradiction-present".into(),
                Some(6),
                "Page lists 1 contradiction to resolve.".into()
            ),
            (
                "entities/two.md".into(),
                "contradiction-present".into(),
                Some(6),
                "Page lists 2 contradictions to resolve.".into()
            ),
        ]
    );
    assert_eq!(diagnostics(&run)[0]["category"], "contradictions");
}

#[test]
fn open_question_singular_and_plural() {
    let v = Vault::new();
    v.write(
        "entities/one.md",
        clean("entity", "e.one", &["questions: Who owns it?"], ""),
    );
    v.write(
        "entities/two.md",
        clean(
            "entity",
            "e.two",
            &["questions:", "  - Why?", "  - When?"],
            "",
        ),
    );
    let run = lint(&v, &[]);
    run.expect_code(0);
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/one.md".into(),
                "open-question".into(),
                Some(6),
                "Page lists 1 open question.".into()
            ),
            (
                "entities/two.md".into(),
                "open-question".into(),
                Some(6),
                "Page lists 2 open questions.".into()
            ),
        ]
    );
    assert_eq!(diagnostics(&run)[0]["category"], "open-questions");
}

#[test]
fn low_confidence_below_one_half_with_two_decimals() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean("entity", "e.a", &["confidence: 0.3"], ""),
    );
    v.write(
        "entities/b.md",
        clean("entity", "e.b", &["confidence: 0.5"], ""),
    );
    v.write(
        "entities/c.md",
        clean("entity", "e.c", &["confidence: 0.125"], ""),
    );
    v.write(
        "entities/d.md",
        clean("entity", "e.d", &["confidence: '0.1'"], ""),
    );
    let run = lint(&v, &[]);
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/a.md".into(),
                "low-confidence".into(),
                Some(6),
                "Page confidence is low (0.30).".into()
            ),
            (
                "entities/c.md".into(),
                "low-confidence".into(),
                Some(6),
                "Page confidence is low (0.13).".into()
            ),
        ]
    );
    assert_eq!(diagnostics(&run)[0]["category"], "quality");
}

#[test]
fn stale_page_for_stale_and_unknown_but_not_aging() {
    let v = Vault::new();
    let p = |updated: &str| {
        wiki_testkit::page(
            &["pageType: entity", "id: x", "sourceIds: [s]", updated],
            "",
        )
    };
    v.write(
        "entities/stale.md",
        p("updatedAt: 2026-01-05T12:00:00.000Z"),
    ); // exactly 90 days
    v.write(
        "entities/aging.md",
        p("updatedAt: 2026-03-06T12:00:00.000Z"),
    ); // exactly 30 days
    v.write("entities/missing.md", p("status: active"));
    v.write("entities/garbled.md", p("updatedAt: last tuesday"));
    v.write(
        "reports/r.md",
        page(&["pageType: report", "id: report.r"], ""),
    );
    let run = lint(&v, &[]);
    let f: Vec<_> = findings(&run)
        .into_iter()
        .filter(|f| f.1 == "stale-page")
        .collect();
    assert_eq!(
        f,
        vec![
            (
                "entities/garbled.md".into(),
                "stale-page".into(),
                Some(5),
                "Page freshness needs review (missing updatedAt).".into()
            ),
            (
                "entities/missing.md".into(),
                "stale-page".into(),
                None,
                "Page freshness needs review (missing updatedAt).".into()
            ),
            (
                "entities/stale.md".into(),
                "stale-page".into(),
                Some(5),
                "Page freshness needs review (last touched 2026-01-05T12:00:00.000Z).".into()
            ),
        ]
    );
}

#[test]
fn claim_missing_evidence_names_the_id_or_the_text() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &[
                "claims:",
                "  - id: claim.a.one",
                "    text: First.",
                "  - text: Second claim without id.",
                "    evidence: []",
                "  - id: claim.a.ok",
                "    text: Backed.",
                "    evidence:",
                "      - sourceId: source.base",
            ],
            "",
        ),
    );
    let run = lint(&v, &[]);
    run.expect_code(0);
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/a.md".into(),
                "claim-missing-evidence".into(),
                Some(7),
                "Claim `claim.a.one` is missing structured evidence.".into()
            ),
            (
                "entities/a.md".into(),
                "claim-missing-evidence".into(),
                Some(9),
                "Claim `Second claim without id.` is missing structured evidence.".into()
            ),
        ]
    );
    assert_eq!(diagnostics(&run)[0]["category"], "provenance");
}

#[test]
fn claim_low_confidence() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &[
                "claims:",
                "  - id: claim.low",
                "    text: Low.",
                "    confidence: 0.2",
                "    evidence: [{sourceId: s}]",
                "  - id: claim.half",
                "    text: Half.",
                "    confidence: 0.5",
                "    evidence: [{sourceId: s}]",
            ],
            "",
        ),
    );
    let run = lint(&v, &[]);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/a.md".into(),
            "claim-low-confidence".into(),
            Some(7),
            "Claim `claim.low` has low confidence (0.20).".into()
        )]
    );
}

#[test]
fn stale_claim_uses_the_latest_touch() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        page(
            &[
                "pageType: entity",
                "id: e.a",
                "sourceIds: [s]",
                "updatedAt: 2025-10-01T00:00:00.000Z",
                "claims:",
                "  - id: claim.old",
                "    text: Old.",
                "    evidence: [{sourceId: s}]",
                "  - id: claim.refreshed",
                "    text: Refreshed by evidence.",
                "    evidence: [{sourceId: s, updatedAt: 2026-03-30T00:00:00.000Z}]",
                "  - id: claim.garbled",
                "    text: Garbled date.",
                "    updatedAt: soon",
                "    evidence: [{sourceId: s}]",
            ],
            "",
        ),
    );
    let run = lint(&v, &[]);
    let f: Vec<_> = findings(&run)
        .into_iter()
        .filter(|f| f.1 == "stale-claim")
        .collect();
    assert_eq!(
        f,
        vec![
            (
                "entities/a.md".into(),
                "stale-claim".into(),
                Some(7),
                "Claim `claim.old` freshness needs review (last touched 2025-10-01T00:00:00.000Z)."
                    .into()
            ),
            (
                "entities/a.md".into(),
                "stale-claim".into(),
                Some(13),
                "Claim `claim.garbled` freshness needs review (missing updatedAt).".into()
            ),
        ]
    );
}

#[test]
fn claim_conflict_once_per_entry_counting_entries() {
    let v = Vault::new();
    let claim = |text: &str, status: &str| {
        vec![
            "claims:".to_string(),
            "  - id: claim.db".to_string(),
            format!("    text: {text}"),
            format!("    status: {status}"),
            "    evidence: [{sourceId: s}]".to_string(),
        ]
    };
    let w = |path: &str, id: &str, lines: Vec<String>| {
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        v.write(path, clean("entity", id, &refs, ""));
    };
    w(
        "entities/a.md",
        "e.a",
        claim("Uses PostgreSQL.", "supported"),
    );
    w("entities/b.md", "e.b", claim("Uses MySQL.", "contested"));
    // Same text and status (after normalisation) never conflict.
    let same = |t: &str| {
        vec![
            "claims:".to_string(),
            "  - id: claim.same".to_string(),
            format!("    text: {t}"),
            "    evidence: [{sourceId: s}]".to_string(),
        ]
    };
    w("entities/c.md", "e.c", same("Same  text"));
    w("entities/d.md", "e.d", same("same text"));
    let run = lint(&v, &[]);
    run.expect_code(0);
    let msg = "Claim cluster `claim.db` has competing variants across 2 pages.";
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/a.md".into(),
                "claim-conflict".into(),
                Some(7),
                msg.into()
            ),
            (
                "entities/b.md".into(),
                "claim-conflict".into(),
                Some(7),
                msg.into()
            ),
        ]
    );
    assert_eq!(diagnostics(&run)[0]["category"], "contradictions");
}

#[test]
fn claim_conflict_counts_entries_not_pages() {
    // As in the original: "across N pages" counts claim entries, one finding per entry.
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &[
                "claims:",
                "  - {id: claim.x, text: One., evidence: [{sourceId: s}]}",
                "  - {id: claim.x, text: Two., evidence: [{sourceId: s}]}",
            ],
            "",
        ),
    );
    v.write(
        "entities/b.md",
        clean(
            "entity",
            "e.b",
            &[
                "claims:",
                "  - {id: claim.x, text: Three., evidence: [{sourceId: s}]}",
            ],
            "",
        ),
    );
    let run = lint(&v, &[]);
    let msg = "Claim cluster `claim.x` has competing variants across 3 pages.";
    assert_eq!(
        findings(&run),
        vec![
            (
                "entities/a.md".into(),
                "duplicate-claim-id".into(),
                Some(8),
                "Duplicate claim id `claim.x` on this page.".into()
            ),
            (
                "entities/a.md".into(),
                "claim-conflict".into(),
                Some(7),
                msg.into()
            ),
            (
                "entities/a.md".into(),
                "claim-conflict".into(),
                Some(8),
                msg.into()
            ),
            (
                "entities/b.md".into(),
                "claim-conflict".into(),
                Some(7),
                msg.into()
            ),
        ]
    );
}

#[test]
fn duplicate_id_on_every_page_sharing_it() {
    let v = Vault::new();
    v.write("concepts/a.md", clean("concept", "concept.db", &[], ""));
    v.write("concepts/b.md", clean("concept", "concept.db", &[], ""));
    v.write("concepts/c.md", clean("concept", "concept.other", &[], ""));
    let run = lint(&v, &[]);
    run.expect_code(1);
    let msg = "Duplicate page id `concept.db`.";
    assert_eq!(
        findings(&run),
        vec![
            (
                "concepts/a.md".into(),
                "duplicate-id".into(),
                Some(3),
                msg.into()
            ),
            (
                "concepts/b.md".into(),
                "duplicate-id".into(),
                Some(3),
                msg.into()
            ),
        ]
    );
}

#[test]
fn duplicate_claim_id_within_one_page() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &[
                "claims:",
                "  - {id: claim.a, text: Same., evidence: [{sourceId: s}]}",
                "  - {id: claim.b, text: Other., evidence: [{sourceId: s}]}",
                "  - {id: claim.a, text: Same., evidence: [{sourceId: s}]}",
            ],
            "",
        ),
    );
    let run = lint(&v, &[]);
    run.expect_code(1);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/a.md".into(),
            "duplicate-claim-id".into(),
            Some(9),
            "Duplicate claim id `claim.a` on this page.".into()
        )]
    );
    assert_eq!(diagnostics(&run)[0]["severity"], "error");
    assert_eq!(diagnostics(&run)[0]["category"], "structure");
}

#[test]
fn broken_wikilink_resolves_relative_and_root_relative_links() {
    let v = Vault::new();
    v.write("sources/base.md", clean("source", "source.base", &[], ""));
    v.write("sources/broken.md", "---\nid: [oops\n---\n");
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &[],
            "Relative [S](../sources/base.md), root-relative [S](sources/base.md), absolute [S](/sources/base.md#x).\n\
             Same dir [B](b.md) and [[b]], [[sources/base]], [[sources/base.md|Base]], [[base]].\n\
             Unparsable but present: [[sources/broken]].\n\
             Ignored: [web](https://example.com) [top](#top) [mail](mailto:a@b.c) [[reply_to_current]] [[reply_to:123]] `[[in-code]]` ![img](pic.png)\n\
             ```\n[[fenced]]\n```\n\
             Broken: [Gone](missing-page.md) [[nowhere]] [Up](../../outside.md) [Index](../index.md)\n",
        ),
    );
    v.write("entities/b.md", clean("entity", "e.b", &[], ""));
    let run = lint(&v, &[]);
    let f: Vec<_> = findings(&run)
        .into_iter()
        .filter(|f| f.0 == "entities/a.md")
        .collect();
    let broken = |t: &str| {
        (
            "entities/a.md".to_string(),
            "broken-wikilink".to_string(),
            Some(15),
            format!("Broken wikilink target `{t}`."),
        )
    };
    assert_eq!(
        f,
        // Within a line, wikilinks are listed before Markdown links (link extraction order).
        vec![
            broken("nowhere"),
            broken("entities/missing-page.md"),
            broken("../../outside.md"),
            broken("index.md"),
        ]
    );
    let d = diagnostics(&run);
    let link = d.iter().find(|d| d["code"] == "broken-wikilink").unwrap();
    assert_eq!(link["category"], "links");
    assert_eq!(link["severity"], "warning");
}

#[test]
fn invalid_frontmatter_reports_the_yaml_line_and_other_pages_are_still_linted() {
    let v = Vault::new();
    v.write("concepts/bad-yaml.md", "---\npageType: concept\nid: concept.bad\ntitle: [unclosed\n  bad: : indentation\n---\n\n# Bad\n");
    v.write(
        "concepts/list.md",
        "---\n- pageType: concept\n- id: concept.list\n---\n",
    );
    v.write("concepts/open.md", "---\nid: concept.open\n");
    v.write("concepts/binary.md", b"---\nid: x\n---\n\0\0".as_slice());
    v.write(
        "concepts/good.md",
        clean("concept", "concept.good", &["questions: Why?"], ""),
    );
    let run = lint(&v, &[]);
    run.expect_code(1);
    let f = findings(&run);
    let codes: Vec<(&str, &str)> = f.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect();
    assert_eq!(
        codes,
        vec![
            ("concepts/bad-yaml.md", "invalid-frontmatter"),
            ("concepts/binary.md", "invalid-frontmatter"),
            ("concepts/good.md", "open-question"),
            ("concepts/list.md", "invalid-frontmatter"),
            ("concepts/open.md", "invalid-frontmatter"),
        ]
    );
    let bad = &f[0];
    assert!(
        bad.2.is_some_and(|l| (4..=5).contains(&l)),
        "YAML error line: {bad:?}"
    );
    assert!(
        bad.3.starts_with("Frontmatter failed to parse: "),
        "{bad:?}"
    );
    assert!(!bad.3.contains("invalid YAML frontmatter"), "{bad:?}");
    assert!(
        f[1].3.starts_with("Page cannot be read: binary file"),
        "{:?}",
        f[1]
    );
    assert_eq!(f[1].2, Some(4));
    assert_eq!(
        f[3].3,
        "Frontmatter failed to parse: Wiki frontmatter must be a YAML mapping (found a list)"
    );
    assert_eq!(f[3].2, Some(2));
    assert_eq!(f[4].2, Some(1));
    assert!(
        f[4].3
            .starts_with("Frontmatter failed to parse: frontmatter opened with `---`")
    );
    let d = diagnostics(&run);
    assert_eq!(d[0]["severity"], "error");
    assert_eq!(d[0]["category"], "structure");
    assert_eq!(summary(&run)["pageErrors"], 4);
    assert_eq!(summary(&run)["pages"], 5);
}

#[test]
fn raw_source_pages_are_exempt_from_metadata_checks_but_not_duplicate_ids() {
    let v = Vault::new();
    v.write(
        "sources/raw.md",
        "# Raw notes\n\n<!-- openclaw:wiki:raw-source -->\n\nPasted text.\n",
    );
    v.write(
        "sources/raw-id.md",
        "---\nid: source.dup\n---\n<!-- openclaw:wiki:raw-source -->\n",
    );
    v.write("sources/dup.md", clean("source", "source.dup", &[], ""));
    v.write(
        "sources/unmarked.md",
        "# Unmarked\n\nNo frontmatter, no marker.\n",
    );
    // A marker on a managed page (it has a pageType) exempts nothing.
    v.write(
        "sources/managed.md",
        page(&["pageType: source"], "<!-- openclaw:wiki:raw-source -->\n"),
    );
    let run = lint(&v, &[]);
    let codes: Vec<(String, String)> = findings(&run).into_iter().map(|f| (f.0, f.1)).collect();
    let expect: Vec<(String, String)> = [
        ("sources/dup.md", "duplicate-id"),
        ("sources/managed.md", "missing-id"),
        ("sources/managed.md", "stale-page"),
        ("sources/raw-id.md", "duplicate-id"),
        ("sources/unmarked.md", "missing-id"),
        ("sources/unmarked.md", "missing-page-type"),
        ("sources/unmarked.md", "stale-page"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(codes, expect);
}
