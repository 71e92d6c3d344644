//! `wiki-apply`: operations, validation messages, atomic batches, trailers, dry runs.

mod common;

use common::*;

#[test]
fn synthesis_shortcut_creates_and_repeats_like_the_original() {
    let v = vault();
    let run = v.run(
        "wiki-apply",
        &[
            "--format",
            "text",
            "synthesis",
            "Alpha Synthesis",
            "--body",
            "Alpha runs PostgreSQL; see the Alpha source.",
            "--source-id",
            "source.alpha",
        ],
    );
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Updated syntheses/alpha-synthesis.md via create_synthesis. Refreshed 6 index files.\n"
    );
    assert_eq!(
        v.read("syntheses/alpha-synthesis.md"),
        "---\npageType: synthesis\nid: synthesis.alpha-synthesis\ntitle: Alpha Synthesis\nsourceIds:\n  - source.alpha\nstatus: active\nupdatedAt: 2026-04-05T12:00:00.000Z\n---\n\n# Alpha Synthesis\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n\n## Summary\n<!-- openclaw:wiki:generated:start -->\nAlpha runs PostgreSQL; see the Alpha source.\n<!-- openclaw:wiki:generated:end -->\n\n## Related\n<!-- openclaw:wiki:related:start -->\n### Sources\n\n- [Alpha Source](../sources/alpha.md)\n\n### Related Pages\n\n- [Alpha](../entities/alpha.md)\n<!-- openclaw:wiki:related:end -->\n"
    );
    // The same commit refreshed the compiled files (indexes, dashboards, digest, backlinks).
    let files = v.git(&["show", "--format=", "--name-only", "HEAD"]);
    assert_eq!(
        files,
        "entities/alpha.md\nindex.md\nsources/alpha.md\nsyntheses/alpha-synthesis.md\nsyntheses/index.md\n"
    );
    // The compiled caches are derived files: refreshed in the work tree, not committed.
    assert!(
        v.read(".openclaw-wiki/cache/agent-digest.json")
            .contains("\"path\": \"syntheses/alpha-synthesis.md\"")
    );
    assert_eq!(v.status(), "");
    assert!(
        v.read("index.md")
            .contains("[Alpha Synthesis](syntheses/alpha-synthesis.md)")
    );
    assert_eq!(v.status(), "");
    let again = v.run(
        "wiki-apply",
        &[
            "--format",
            "text",
            "synthesis",
            "Alpha Synthesis",
            "--body",
            "Alpha runs PostgreSQL; see the Alpha source.",
            "--source-id",
            "source.alpha",
        ],
    );
    again.expect_code(0);
    assert_eq!(
        again.stdout,
        "No changes for syntheses/alpha-synthesis.md via create_synthesis. Indexes unchanged.\n"
    );
    assert_eq!(v.commit_count(), 3, "a no-op makes no commit");
}

#[test]
fn shortcut_validation_messages() {
    let v = vault();
    let r = v.run("wiki-apply", &["synthesis", "No Source", "--body", "x"]);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: wiki apply synthesis requires at least one --source-id.\n"
    );
    let r = v.run("wiki-apply", &["synthesis", "T", "--source-id", "s"]);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: wiki apply synthesis requires --body or --body-file.\n"
    );
    let r = v.run(
        "wiki-apply",
        &["metadata", "no-such-page", "--status", "review"],
    );
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: Wiki page not found: no-such-page\n"
    );
    let r = v.run("wiki-apply", &["metadata", "alpha", "--confidence", "1.5"]);
    r.expect_code(2);
    assert!(
        r.stderr
            .contains("--confidence must be a number between 0 and 1."),
        "{}",
        r.stderr
    );
    assert_eq!(v.commit_count(), 2);
}

#[test]
fn metadata_keeps_body_and_human_block_byte_identical() {
    let v = vault();
    let r = v.run(
        "wiki-apply",
        &[
            "metadata",
            "entity.alpha",
            "--question",
            "Is the backup window long enough?",
            "--question",
            " Is the backup window long enough? ",
            "--clear-confidence",
            "--status",
            "review",
        ],
    );
    r.expect_code(0);
    let rec = &r.jsonl()[0];
    assert_eq!(rec["type"], "result");
    assert_eq!(rec["op"], "update_metadata");
    assert_eq!(rec["changed"], true);
    assert_eq!(rec["pagePath"], "entities/alpha.md");
    assert_eq!(rec["pageId"], "entity.alpha");
    assert_eq!(rec["commit"].as_str().unwrap(), rev(&v, "HEAD"));
    let text = v.read("entities/alpha.md");
    assert_eq!(body(&text), body(&alpha0(&v)), "body bytes unchanged");
    // Only the keys the operation sets are written again (the original plugin re-emitted the
    // whole frontmatter: flow lists became block lists, quotes went).
    assert_eq!(
        &text[..text.find("\n---\n").unwrap()],
        "---
pageType: entity
id: entity.alpha
title: Alpha
aliases: [Al]
sourceIds: [source.alpha]
claims:
  - id: claim.alpha.db
    text: Alpha uses PostgreSQL for the primary database.
    status: supported
    confidence: 0.9
    evidence:
      - sourceId: source.alpha
        lines: \"12-18\"
    updatedAt: 2026-03-20T00:00:00.000Z
questions:
  - Is the backup window long enough?
updatedAt: 2026-04-05T12:00:00.000Z
status: review"
    );
    assert_eq!(v.status(), "");
}

#[test]
fn stdin_validation_names_line_and_field() {
    let v = vault();
    let cases: &[(&str, &str)] = &[
        (
            r#"{"op":"metadata","lookup":"alpha","claims":[{"text":"x","confidence":1.5}]}"#,
            "claims[0].confidence must be a number between 0 and 1; received 1.5.",
        ),
        (
            r#"{"op":"metadata","lookup":"alpha","confidence":"1.5"}"#,
            "confidence must be a finite number between 0 and 1; received 1.5.",
        ),
        (
            r#"{"op":"create_synthesis","body":"b","sourceIds":["s"]}"#,
            "wiki mutation requires title for create_synthesis.",
        ),
        (
            r#"{"op":"synthesis","title":"T","sourceIds":["s"]}"#,
            "wiki mutation requires body for create_synthesis.",
        ),
        (
            r#"{"op":"synthesis","title":"T","body":"b"}"#,
            "wiki mutation requires at least one sourceId for create_synthesis.",
        ),
        (
            r#"{"op":"update_metadata"}"#,
            "wiki mutation requires lookup for update_metadata.",
        ),
        (
            r#"{"op":"nope"}"#,
            "wiki mutation op must be one of \"create_synthesis\", \"update_metadata\", \"add_claim\", \"update_claim\", \"add_evidence\", \"supersede_claim\", \"add_relationship\", \"add_question\", \"resolve_question\", \"add_contradiction\", \"resolve_contradiction\" (aliases: \"synthesis\", \"metadata\").",
        ),
        (
            r#"{"op":"add_claim","page":"alpha","text":"t"}"#,
            "wiki mutation requires claimId for add_claim.",
        ),
        (
            r#"{"op":"update_claim","claimId":"claim.alpha.db"}"#,
            "wiki mutation requires text, status or confidence for update_claim.",
        ),
        (
            r#"{"op":"add_evidence","claimId":"c","evidence":[{"sourceId":"s","weight":-2}]}"#,
            "evidence[0].weight must be a finite number >= 0; received -2.",
        ),
        (
            r#"{"op":"supersede_claim","claimId":"c","newClaimId":"d"}"#,
            "wiki mutation requires text for supersede_claim.",
        ),
        (
            r#"{"op":"add_relationship","page":"alpha"}"#,
            "wiki mutation requires targetId or targetPath for add_relationship.",
        ),
        (
            r#"{"op":"add_question","page":"alpha"}"#,
            "wiki mutation requires question for add_question.",
        ),
        (
            r#"{"op":"resolve_contradiction","page":"alpha"}"#,
            "wiki mutation requires contradiction for resolve_contradiction.",
        ),
        (
            r#"{"op":"add_claim","page":"alpha","claimId":"c","text":"t","confidence":"high"}"#,
            "confidence must be a number between 0 and 1; received \"high\".",
        ),
        (
            r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"x","extra":1}"#,
            "unknown field \"extra\" for update_claim (allowed: op, page, claimId, text, status, confidence).",
        ),
    ];
    let good = r#"{"op":"add_question","page":"alpha","question":"Q?"}"#;
    for (line, message) in cases {
        let r = apply(&v, &[], &[good, "", line]);
        r.expect_code(2);
        assert_eq!(
            r.stderr,
            format!("wiki-apply: error: <stdin>:3: {message}\n"),
            "for {line}"
        );
        assert_eq!(r.stdout, "");
    }
    let r = apply(&v, &[], &["{not json"]);
    r.expect_code(2);
    assert!(
        r.stderr
            .starts_with("wiki-apply: error: <stdin>:1: invalid JSON: "),
        "{}",
        r.stderr
    );
    assert_eq!(v.commit_count(), 2);
    assert_eq!(v.status(), "");
}

/// Input that is not UTF-8 is refused with the line and column of its first bad byte, from
/// stdin and from `--file`, and nothing is written.
#[test]
fn input_that_is_not_utf8_names_its_line_and_column() {
    let v = vault();
    let head = rev(&v, "HEAD");
    let prefix = r#"{"op":"add_question","page":"alpha","question":"Caf"#;
    let mut input = br#"{"op":"add_question","page":"alpha","question":"Fine?"}"#.to_vec();
    input.extend_from_slice(b"\n");
    input.extend_from_slice(prefix.as_bytes());
    input.extend_from_slice(b"\xe9?\"}\n");
    let r = v.run_stdin("wiki-apply", &[], Some(&input));
    r.expect_code(2);
    let column = prefix.len() + 1;
    assert_eq!(
        r.stderr,
        format!("wiki-apply: error: <stdin>:2: not valid UTF-8 (byte 0xe9 at column {column})\n")
    );
    assert_eq!(r.stdout, "");
    std::fs::write(v.path("ops.jsonl"), &input).unwrap();
    let r = v.run_stdin("wiki-apply", &["--file", "ops.jsonl"], None);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        format!("wiki-apply: error: ops.jsonl:2: not valid UTF-8 (byte 0xe9 at column {column})\n")
    );
    std::fs::remove_file(v.path("ops.jsonl")).unwrap();
    assert_eq!(rev(&v, "HEAD"), head);
    assert_eq!(v.status(), "");
}

/// A claim id is looked up in the frontmatter of the pages, where claims are declared: a page
/// written with a byte-order mark and CRLF line endings still holds its claim, and a page that
/// only names the claim id in its body (as the dashboards do) does not make it ambiguous.
#[test]
fn claim_lookup_reads_frontmatter_only() {
    let v = vault();
    let beta = "---\npageType: entity\nid: entity.beta\ntitle: Beta\nclaims:\n  - id: claim.beta.one\n    text: Beta runs nightly.\n---\n\n# Beta\n"
        .replace('\n', "\r\n");
    v.write("entities/beta.md", format!("\u{feff}{beta}"));
    v.write(
        "concepts/listing.md",
        "---\npageType: concept\nid: concept.listing\ntitle: Listing\n---\n\nClaims: claim.beta.one and claim.alpha.db.\n",
    );
    v.commit_all("beta and a listing");
    // `op` succeeds on the page at `path`.
    let applied_to = |op: &str, path: &str| {
        let r = apply(&v, &[], &[op]);
        r.expect_code(0);
        let page = format!(r#""pagePath":"{path}""#);
        assert!(r.stdout.contains(&page), "{}", r.stdout);
    };
    applied_to(
        r#"{"op":"update_claim","claimId":"claim.beta.one","confidence":0.4}"#,
        "entities/beta.md",
    );
    assert!(v.read("entities/beta.md").contains("confidence: 0.4"));
    applied_to(
        r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}"#,
        "entities/alpha.md",
    );
}

#[test]
fn numeric_strings_are_coerced() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"metadata","lookup":"entities/alpha.md","confidence":"0.7"}"#],
    )
    .expect_code(0);
    assert!(v.read("entities/alpha.md").contains("\nconfidence: 0.7\n"));
}

#[test]
fn batch_is_atomic() {
    let v = vault();
    let head = rev(&v, "HEAD");
    // Line 3 is invalid: nothing from lines 1-2 is written.
    let r = apply(
        &v,
        &[],
        &[
            r#"{"op":"add_question","page":"alpha","question":"One?"}"#,
            r#"{"op":"synthesis","title":"New","body":"b","sourceIds":["source.alpha"]}"#,
            r#"{"op":"add_claim","page":"alpha","claimId":"c","text":"t","confidence":2}"#,
        ],
    );
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: <stdin>:3: confidence must be a number between 0 and 1; received 2.\n"
    );
    // A valid line that names a missing page fails the batch the same way.
    let r = apply(
        &v,
        &[],
        &[
            r#"{"op":"add_question","page":"alpha","question":"One?"}"#,
            r#"{"op":"add_claim","page":"entity.missing","claimId":"c","text":"t"}"#,
        ],
    );
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: <stdin>:2: Wiki page not found: entity.missing\n"
    );
    assert_eq!(rev(&v, "HEAD"), head);
    assert_eq!(v.status(), "");
    assert!(!v.exists("syntheses/new.md"));
    assert_eq!(v.read("entities/alpha.md"), alpha0(&v));
}

#[test]
fn claim_operations_end_to_end_with_trailers() {
    let v = vault();
    let r = apply(
        &v,
        &[],
        &[
            r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.lang","text":"Alpha writes Rust.","status":"supported","confidence":0.6,"evidence":[{"kind":"source","sourceId":"source.alpha","lines":"3-4"}]}"#,
            r#"{"op":"add_evidence","claimId":"claim.alpha.db","evidence":{"sourceId":"source.beta","note":"second source"}}"#,
            r#"{"op":"update_claim","claimId":"claim:claim.alpha.db","confidence":0.5,"status":"contested"}"#,
            r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db.v2","text":"Alpha moved to MySQL.","confidence":0.7,"validFrom":"2026-04-01T00:00:00.000Z"}"#,
            r#"{"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"works-with","confidence":0.8}"#,
            r#"{"op":"add_contradiction","page":"alpha","contradiction":"PostgreSQL vs MySQL?"}"#,
            r#"{"op":"resolve_question","page":"alpha","question":"Who owns the backup policy?"}"#,
            r#"{"op":"add_question","page":"alpha","question":"When did the move happen?"}"#,
        ],
    );
    r.expect_code(0);
    let recs = r.jsonl();
    assert_eq!(recs.len(), 9);
    assert!(
        recs[..8]
            .iter()
            .all(|r| r["changed"] == true && r["pagePath"] == "entities/alpha.md")
    );
    let head = rev(&v, "HEAD");
    assert_eq!(recs[8]["type"], "summary");
    assert_eq!(recs[8]["commit"], head.as_str());
    assert_eq!(v.commit_count(), 3, "one commit for the batch");
    let text = v.read("entities/alpha.md");
    assert_eq!(body(&text), body(&alpha0(&v)));
    assert!(
        text.contains(
            "claims:
  - id: claim.alpha.db
    text: Alpha uses PostgreSQL for the primary database.
    status: superseded
    confidence: 0.5
    evidence:
      - sourceId: source.alpha
        lines: \"12-18\"
      - sourceId: source.beta
        note: second source
        updatedAt: 2026-04-05T12:00:00.000Z
    updatedAt: 2026-04-05T12:00:00.000Z
    validUntil: 2026-04-01T00:00:00.000Z
    supersededBy: claim.alpha.db.v2
  - id: claim.alpha.db.v2
    text: Alpha moved to MySQL.
    confidence: 0.7
    evidence: []
    updatedAt: 2026-04-05T12:00:00.000Z
    validFrom: 2026-04-01T00:00:00.000Z
    supersedes: claim.alpha.db
  - id: claim.alpha.lang
    text: Alpha writes Rust.
    status: supported
    confidence: 0.6
    evidence:
      - kind: source
        sourceId: source.alpha
        lines: 3-4
    updatedAt: 2026-04-05T12:00:00.000Z
confidence: 0.8
updatedAt: 2026-04-05T12:00:00.000Z
relationships:
  - targetId: entity.beta
    kind: works-with
    confidence: 0.8
    updatedAt: 2026-04-05T12:00:00.000Z
contradictions:
  - PostgreSQL vs MySQL?
questions:
  - When did the move happen?
---
"
        ),
        "{text}"
    );
    // Trailers, one set per operation, readable by git.
    let trailers = v.git(&["log", "-1", "--format=%(trailers:only,unfold)"]);
    let expected = "Wiki-Op: add_claim
Wiki-Page: entities/alpha.md
Wiki-Claim: claim.alpha.lang
Wiki-Agent: main
Wiki-Source: source.alpha
Wiki-Op: add_evidence
Wiki-Page: entities/alpha.md
Wiki-Claim: claim.alpha.db
Wiki-Agent: main
Wiki-Source: source.beta
Wiki-Op: update_claim
Wiki-Page: entities/alpha.md
Wiki-Claim: claim.alpha.db
Wiki-Agent: main
Wiki-Op: supersede_claim
Wiki-Page: entities/alpha.md
Wiki-Claim: claim.alpha.db
Wiki-Claim: claim.alpha.db.v2
Wiki-Agent: main
Wiki-Op: add_relationship
Wiki-Page: entities/alpha.md
Wiki-Agent: main
Wiki-Op: add_contradiction
Wiki-Page: entities/alpha.md
Wiki-Agent: main
Wiki-Op: resolve_question
Wiki-Page: entities/alpha.md
Wiki-Agent: main
Wiki-Op: add_question
Wiki-Page: entities/alpha.md
Wiki-Agent: main
";
    assert_eq!(trailers.trim_end(), expected.trim_end());
    assert_eq!(
        v.git(&["log", "-1", "--format=%s"]).trim(),
        "wiki apply: 8 operations on 1 page"
    );
    let ops = v.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Wiki-Op,valueonly,separator=%x2C)",
    ]);
    assert_eq!(
        ops.trim(),
        "add_claim,add_evidence,update_claim,supersede_claim,add_relationship,add_contradiction,resolve_question,add_question"
    );
    assert_eq!(v.status(), "");
    v.git(&["fsck", "--strict", "--no-progress"]);

    // Replaying the same batch is a no-op: no commit.
    let again = apply(
        &v,
        &[],
        &[
            r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.lang","text":"Alpha writes Rust."}"#,
            r#"{"op":"add_evidence","claimId":"claim.alpha.db","evidence":{"sourceId":"source.beta","note":"second source"}}"#,
            r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db.v2","text":"Alpha moved to MySQL."}"#,
            r#"{"op":"add_question","page":"alpha","question":"When did the move happen?"}"#,
        ],
    );
    again.expect_code(0);
    assert!(
        again.jsonl()[..4]
            .iter()
            .all(|r| r["changed"] == false && r["commit"].is_null())
    );
    assert_eq!(rev(&v, "HEAD"), head);
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let v = vault();
    // The parse cache of a compile is there, and a dry run does not rewrite it.
    v.run("wiki", &["compile", "--force"]).expect_code(0);
    assert_eq!(v.commit_count(), 2);
    let tools = v.files_under(".openclaw-wiki");
    assert!(
        tools
            .iter()
            .any(|(p, _)| p == ".openclaw-wiki/tmp/parse-cache.bin"),
        "{:?}",
        tools.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    let r = apply(
        &v,
        &["--dry-run"],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}"#],
    );
    r.expect_code(0);
    assert!(
        r.stdout.starts_with(
            "diff --git a/entities/alpha.md b/entities/alpha.md\n--- a/entities/alpha.md\n+++ b/entities/alpha.md\n@@ "
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("\n-    status: supported\n+    status: contested\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("\n+updatedAt: 2026-04-05T12:00:00.000Z\n")
    );
    // The dashboards compile changes are diffed against their current content (not shown as
    // new files).
    assert!(
        r.stdout.contains(
            "diff --git a/reports/claim-health.md b/reports/claim-health.md\n--- a/reports/claim-health.md\n"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("new file mode"), "{}", r.stdout);
    assert_eq!(v.commit_count(), 2);
    assert_eq!(v.status(), "");
    // With an explicit JSON Lines format, the diff comes as records.
    let r = apply(
        &v,
        &["--dry-run", "--format", "jsonl"],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    );
    r.expect_code(0);
    let recs = r.jsonl();
    assert_eq!(recs[0]["type"], "diff");
    assert_eq!(recs[0]["path"], "entities/alpha.md");
    let result = recs.iter().find(|r| r["type"] == "result").unwrap();
    assert!(result["commit"].is_null());
    assert_eq!(recs.last().unwrap()["dryRun"], true);
    assert_eq!(v.commit_count(), 2);
    // As an agent whose branch does not exist yet: no branch, no cache of its own.
    let r = apply(
        &v,
        &["--dry-run", "--agent", "dry"],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    );
    r.expect_code(0);
    assert!(
        r.stdout.starts_with("diff --git a/entities/alpha.md"),
        "{}",
        r.stdout
    );
    assert_eq!(v.git(&["branch", "--list", "agents/*"]), "");
    let changed = Vault::changed_files(&tools, &v.files_under(".openclaw-wiki"));
    assert!(changed.is_empty(), "a dry run changed {changed:?}");
    assert_eq!(v.status(), "");
}

#[test]
fn human_edits_are_committed_first_and_kept() {
    let v = vault();
    let edited = alpha0(&v).replace("Human note: do not touch.", "Human note: edited by hand.");
    v.write("entities/alpha.md", &edited);
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    );
    r.expect_code(0);
    assert_eq!(
        v.commit_count(),
        4,
        "human edit commit, then the tool commit"
    );
    assert_eq!(
        v.git(&["log", "-1", "--format=%s%n%(trailers:only)", "HEAD~1"])
            .trim(),
        "Record human edits before add_question\nWiki-Human-Edit: entities/alpha.md"
    );
    let text = v.read("entities/alpha.md");
    assert!(text.contains("Human note: edited by hand."));
    assert!(text.contains("  - Q?\n"));
    assert_eq!(v.status(), "");
}

#[test]
fn ops_from_a_file_report_the_file_name() {
    let v = vault();
    v.write(
        "../ops.jsonl",
        "{\"op\":\"add_question\",\"page\":\"alpha\",\"question\":\"Q?\"}\n{\"op\":\"add_claim\"}\n",
    );
    let path = v.path("../ops.jsonl");
    let r = v.run("wiki-apply", &["--file", path.to_str().unwrap()]);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        format!(
            "wiki-apply: error: {}:2: wiki mutation requires page for add_claim.\n",
            path.display()
        )
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_never_written_through() {
    let v = vault();
    let outside = v.path("../outside.md");
    std::fs::write(&outside, "outside\n").unwrap();
    std::fs::create_dir_all(v.path("syntheses")).unwrap();
    std::os::unix::fs::symlink(&outside, v.path("syntheses/evil.md")).unwrap();
    v.git(&["add", "syntheses/evil.md"]);
    v.git(&["commit", "-q", "-m", "a symlinked page"]);
    let head = rev(&v, "HEAD");
    // The symlink is not a page: lookups do not find it…
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"syntheses/evil.md","question":"Q?"}"#],
    );
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: <stdin>:1: Wiki page not found: syntheses/evil.md\n"
    );
    // …and creating a page at its path is refused by the store.
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"synthesis","title":"Evil","body":"b","sourceIds":["s"]}"#],
    );
    r.expect_code(2);
    assert!(r.stderr.contains("syntheses/evil.md"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
    assert_eq!(rev(&v, "HEAD"), head);
    assert_eq!(v.status(), "");
}

/// A vault made before the compiled caches became derived files tracks them: the first apply
/// removes them from git in its own commit, rewrites them on disk and leaves a clean work tree.
#[test]
fn tracked_caches_of_older_vaults_leave_git_with_the_first_commit() {
    let v = raw_vault();
    compile_with(&v, true);
    let tracked = v.git(&["ls-files", ".openclaw-wiki/cache"]);
    assert_eq!(
        tracked,
        ".openclaw-wiki/cache/agent-digest.json\n.openclaw-wiki/cache/claims.jsonl\n"
    );
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"entity.alpha","question":"Who owns Alpha?"}"#],
    )
    .expect_code(0);
    assert_eq!(v.git(&["ls-files", ".openclaw-wiki/cache"]), "");
    let changed = v.git(&["show", "--format=", "--name-status", "HEAD"]);
    assert!(
        changed.contains("D\t.openclaw-wiki/cache/agent-digest.json\n")
            && changed.contains("D\t.openclaw-wiki/cache/claims.jsonl\n"),
        "{changed}"
    );
    assert!(
        v.read(".openclaw-wiki/cache/agent-digest.json")
            .contains("Who owns Alpha?")
    );
    assert!(v.exists(".openclaw-wiki/cache/claims.jsonl"));
    assert_eq!(v.status(), "");
    v.git(&["fsck", "--strict", "--no-dangling"]);
}

/// Each operation records the report and index files it leaves, so the next one trusts them and
/// re-renders only the dashboards its edit changes (the record must hold the checksums of the
/// rewritten dashboards, not of those it read).
#[test]
fn operations_trust_the_dashboards_the_previous_one_recorded() {
    let v = vault();
    v.run("wiki", &["compile"]).expect_code(0);
    for (i, question) in ["First?", "Second?", "Third?"].into_iter().enumerate() {
        let mut cmd = v.command("wiki-apply");
        cmd.env("WIKI_COMPILE_TRACE", "1");
        let op =
            format!(r#"{{"op":"add_question","page":"entity.alpha","question":"{question}"}}"#);
        let run = wiki_testkit::output(cmd, Some(op.as_bytes()));
        run.expect_code(0);
        assert!(
            !run.stderr.contains("differ from the record"),
            "operation {i}: {}",
            run.stderr
        );
        // (All nine are rendered when the recorded files are not trusted; an edit here changes
        // one to four of them.)
        assert!(
            run.stderr.contains("compile related scope 0, dashboards ")
                && !run.stderr.contains("dashboards 9,"),
            "operation {i}: {}",
            run.stderr
        );
        assert!(v.read("reports/open-questions.md").contains(question));
    }
    let check = v.run("wiki", &["compile", "--check", "--force"]);
    assert_eq!(check.stdout, "");
    check.expect_code(0);
}

/// The record of the report files holds their blob ids, so the next operation checks the
/// dashboards on disk without reading them: a hand edit of one that the operation's edit does
/// not touch (here a note appended below its managed block, by hand, without a compile) is
/// still seen (the dashboards are then rendered in full), the vault stays what a compile from
/// scratch gives, and the operation after it trusts the record again.
#[test]
fn a_dashboard_edited_by_hand_is_not_taken_as_recorded() {
    let v = vault();
    v.run("wiki", &["compile"]).expect_code(0);
    let path = "reports/person-agent-directory.md";
    let edited = format!("{}\nA note by hand.\n", v.read(path));
    v.write(path, &edited);
    for (i, question) in ["First?", "Second?"].into_iter().enumerate() {
        let mut cmd = v.command("wiki-apply");
        cmd.env("WIKI_COMPILE_TRACE", "1");
        let op =
            format!(r#"{{"op":"add_question","page":"entity.alpha","question":"{question}"}}"#);
        let run = wiki_testkit::output(cmd, Some(op.as_bytes()));
        run.expect_code(0);
        assert_eq!(
            run.stderr.contains("differ from the record"),
            i == 0,
            "operation {i}: {}",
            run.stderr
        );
    }
    // (The operations changed nothing in that file: the hand edit stays uncommitted.)
    assert!(v.read(path).ends_with("\nA note by hand.\n"));
    assert_eq!(v.status(), format!(" M {path}\n"));
    let check = v.run("wiki", &["compile", "--check", "--force"]);
    assert_eq!(check.stdout, "");
    check.expect_code(0);
}

/// An operation re-renders only the dashboards whose rows its edit changes: a new confidence
/// that keeps a claim off the low-confidence and claim-health rows changes no dashboard, one
/// below 0.5 changes low confidence only; a claim whose id no other claim shares is on no
/// contradictions row, while a status change of a claim whose id another page shares with the
/// same text and status makes a competing cluster there. The vault stays what a compile from
/// scratch gives.
#[test]
fn operations_render_only_the_dashboards_whose_rows_change() {
    let v = raw_vault();
    let claim = |id: &str, text: &str| {
        [
            "claims:".to_string(),
            format!("  - id: {id}"),
            format!("    text: {text}"),
            "    status: supported".to_string(),
            "    confidence: 0.9".to_string(),
            "    updatedAt: 2026-04-01T00:00:00.000Z".to_string(),
            "    evidence:".to_string(),
            "      - sourceId: source.alpha".to_string(),
        ]
    };
    for (path, id, claim_id) in [
        ("concepts/unique.md", "concept.unique", "claim.unique"),
        ("concepts/same-a.md", "concept.same-a", "claim.same"),
        ("concepts/same-b.md", "concept.same-b", "claim.same"),
    ] {
        let mut fm = vec![format!("id: {id}"), format!("title: {id}")];
        fm.extend(claim(claim_id, "Shared words."));
        let fm: Vec<&str> = fm.iter().map(String::as_str).collect();
        v.write(path, wiki_testkit::page(&fm, "# Page\n"));
    }
    v.commit_all("pages");
    v.run("wiki", &["compile"]).expect_code(0);
    assert!(!v.read("reports/contradictions.md").contains("claim.same"));
    let traced = |op: &str| -> String {
        let mut cmd = v.command("wiki-apply");
        cmd.env("WIKI_COMPILE_TRACE", "1");
        let run = wiki_testkit::output(cmd, Some(format!("{op}\n").as_bytes()));
        run.expect_code(0);
        let check = v.run("wiki", &["compile", "--check", "--force"]);
        assert_eq!((check.code, check.stdout.as_str()), (0, ""), "{op}");
        let mut rendered: Vec<String> = run
            .stderr
            .lines()
            .filter_map(|l| l.strip_prefix("trace: compile dashboard "))
            .filter_map(|l| l.split_once(" changed by ").map(|(d, _)| d.to_string()))
            .collect();
        rendered.sort();
        rendered.join(",")
    };
    let unique = |field: &str| {
        format!(
            r#"{{"op":"update_claim","claimId":"claim.unique","page":"concept.unique",{field}}}"#
        )
    };
    // Still supported with evidence and confidence >= 0.5: no row anywhere.
    assert_eq!(traced(&unique(r#""confidence":0.8"#)), "");
    assert_eq!(traced(&unique(r#""confidence":0.3"#)), "low-confidence");
    assert!(v.read("reports/low-confidence.md").contains("claim.unique"));
    // Contested: a claim-health row (and the low-confidence row shows the status); its id is
    // its own, so no contradictions row.
    assert_eq!(
        traced(&unique(r#""status":"contested""#)),
        "claim-health,low-confidence"
    );
    assert!(!v.read("reports/contradictions.md").contains("claim.unique"));
    // The shared id now competes: a cluster appears.
    let same = r#"{"op":"update_claim","claimId":"claim.same","page":"concept.same-a","status":"contested"}"#;
    assert_eq!(traced(same), "claim-health,contradictions");
    assert!(v.read("reports/contradictions.md").contains("`claim.same`"));
}

/// Pages the parse cache's stat data vouches for are not read by apply; a hand edit that keeps
/// the size and modification time (only the change time differs) is still seen, and the
/// vault ends up as a full compile makes it.
#[test]
fn apply_sees_hand_edits_that_keep_size_and_mtime() {
    let v = vault();
    v.settle();
    // Records the stat data of the settled pages.
    v.run("wiki", &["compile", "--force"]).expect_code(0);
    v.edit_keeping_mtime(
        "sources/alpha.md",
        "title: Alpha Source",
        "title: Alpha Sourcf",
    );
    v.settle();
    let mut cmd = v.command("wiki-apply");
    cmd.env("WIKI_COMPILE_TRACE", "1");
    let run = wiki_testkit::output(
        cmd,
        Some(br#"{"op":"add_question","page":"entity.alpha","question":"Who rotates the keys?"}"#),
    );
    run.expect_code(0);
    assert!(
        run.stderr
            .contains("snapshot: 11 pages (1 vouched for by the parse cache, 2 settled, "),
        "{}",
        run.stderr
    );
    assert!(
        v.read("entities/alpha.md")
            .contains("[Alpha Sourcf](../sources/alpha.md)")
    );
    let check = v.run("wiki", &["compile", "--check", "--force"]);
    assert_eq!(check.stdout, "");
    check.expect_code(0);
    let digest = v.run("wiki-digest", &["--digest"]);
    digest.expect_code(0);
    assert_eq!(
        digest.stdout,
        v.read(".openclaw-wiki/cache/agent-digest.json")
    );
    assert!(digest.stdout.contains("Alpha Sourcf"));

    // Page-id lookups skip the pages whose cached parsed form rules the id out, and still see
    // an id changed by hand in place (same size and mtime).
    v.edit_keeping_mtime(
        "entities/alpha.md",
        "id: entity.alpha\n",
        "id: entity.alphz\n",
    );
    v.settle();
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"entity.alphz","question":"Renamed?"}"#],
    )
    .expect_code(0);
    assert!(v.read("entities/alpha.md").contains("  - Renamed?\n"));
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"entity.alpha","question":"Old id?"}"#],
    );
    r.expect_code(2);
    assert!(
        r.stderr.contains("Wiki page not found: entity.alpha"),
        "{}",
        r.stderr
    );
    v.settle();
    let mut cmd = v.command("wiki-apply");
    cmd.env("WIKI_COMPILE_TRACE", "1");
    let run = wiki_testkit::output(
        cmd,
        Some(br#"{"op":"add_question","page":"source.alpha","question":"Kept where?"}"#),
    );
    run.expect_code(0);
    assert!(
        run.stderr.contains("(1 vouched for by the parse cache"),
        "{}",
        run.stderr
    );
    assert!(v.read("sources/alpha.md").contains("  - Kept where?\n"));
}

/// After any operation, the files are exactly what a full compile without any cache writes:
/// the incremental compile (parse cache, Related scope, reused digest objects and claim lines,
/// skipped dashboards) never leaves a committed or derived file stale.
#[test]
fn every_operation_leaves_the_vault_as_a_full_compile_would() {
    let v = vault();
    let ops = [
        r#"{"op":"add_question","page":"entity.alpha","question":"Who rotates the keys?"}"#,
        r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.cache","text":"Alpha caches in Redis.","confidence":0.3}"#,
        r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested","confidence":0.4}"#,
        r#"{"op":"add_evidence","claimId":"claim.alpha.cache","evidence":{"kind":"file","sourceId":"source.alpha","lines":"3-4","privacyTier":"private"}}"#,
        r#"{"op":"add_relationship","page":"entity.alpha","targetId":"source.alpha","targetTitle":"Alpha Source","kind":"documented-by","privacyTier":"team"}"#,
        r#"{"op":"supersede_claim","claimId":"claim.alpha.cache","newClaimId":"claim.alpha.cache2","text":"Alpha caches in Valkey.","confidence":0.7}"#,
        r#"{"op":"add_contradiction","page":"entity.alpha","contradiction":"Redis or Valkey?"}"#,
        r#"{"op":"resolve_question","page":"entity.alpha","question":"Who owns the backup policy?"}"#,
        r#"{"op":"update_metadata","lookup":"entity.alpha","confidence":0.2,"status":"draft"}"#,
        r#"{"op":"create_synthesis","title":"Alpha Overview","body":"Alpha in short.","sourceIds":["source.alpha"]}"#,
        r#"{"op":"add_question","page":"synthesis.alpha-overview","question":"Is this current?"}"#,
    ];
    for (i, op) in ops.iter().enumerate() {
        apply(&v, &[], &[op]).expect_code(0);
        assert_eq!(v.status(), "", "op {i}");
        // A full compile from scratch finds nothing to change in the committed files...
        let _ = std::fs::remove_file(v.path(".openclaw-wiki/tmp/parse-cache.bin"));
        let check = v.run("wiki", &["compile", "--check", "--force"]);
        assert_eq!(check.stdout, "", "op {i} {op}: stale committed files");
        check.expect_code(0);
        // ...and computes the same derived caches.
        let digest = v.run("wiki-digest", &["--digest"]);
        digest.expect_code(0);
        assert_eq!(
            digest.stdout,
            v.read(".openclaw-wiki/cache/agent-digest.json"),
            "op {i} {op}: agent-digest.json"
        );
        let claims = v.run("wiki-digest", &["--claims"]);
        claims.expect_code(0);
        assert_eq!(
            claims.stdout,
            v.read(".openclaw-wiki/cache/claims.jsonl"),
            "op {i} {op}: claims.jsonl"
        );
        // Put the cache back the way the next apply finds it after a normal run.
        v.run("wiki", &["compile"]).expect_code(0);
    }
}

/// Claim-id lookups (no `page` given) skip the pages whose parse-cache entry proves they lack
/// the id, but a page whose `claims` list has an entry its parsed form dropped (no text) is
/// always read: its claims are still found by id.
#[test]
fn claim_id_lookups_find_claims_the_parsed_form_drops() {
    let v = raw_vault();
    v.write(
        "concepts/hidden.md",
        "---\nid: concept.hidden\npageType: concept\ntitle: Hidden\nclaims:\n  - id: claim.hidden.shown\n    text: Shown claim.\n  - id: claim.hidden.bare\n    status: supported\n---\n\n# Hidden\n",
    );
    compile(&v);
    v.settle();
    // Records the stat data (and which pages have every claim in their parsed form).
    v.run("wiki", &["compile", "--force"]).expect_code(0);
    v.settle();
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.hidden.bare","confidence":0.3}"#],
    );
    r.expect_code(0);
    assert!(
        v.read("concepts/hidden.md")
            .contains("  - id: claim.hidden.bare\n    status: supported\n    confidence: 0.3\n"),
        "{}",
        v.read("concepts/hidden.md")
    );
    // A claim with text is found as before, and an unknown id is not.
    apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","confidence":0.8}"#],
    )
    .expect_code(0);
    assert!(v.read("entities/alpha.md").contains("confidence: 0.8"));
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.nowhere","confidence":0.8}"#],
    );
    r.expect_code(2);
    assert!(
        r.stderr.contains("claim not found: claim.nowhere"),
        "{}",
        r.stderr
    );
}

/// An operation does not extract the links of the dashboards it re-renders (nothing it does
/// reads them): their parse-cache entries say so, the next operation takes them as they are,
/// and the next `wiki compile` (which records links) parses them again, so its page records and
/// the cache carry the links a whole parse of the dashboard gives.
#[test]
fn operations_leave_dashboard_links_to_the_next_compile() {
    let v = vault();
    v.run("wiki", &["compile", "--force"]).expect_code(0);
    let path = "reports/open-questions.md";
    let whole = || {
        wiki_parse::parse_page(path, v.read(path).as_bytes())
            .unwrap()
            .info
    };
    let cached = || {
        wiki_vault::pagecache::ParseCache::load(&v.root)
            .get_any(path)
            .unwrap()
    };
    assert!(!cached().links_omitted);
    for (i, question) in ["Why?", "How?"].iter().enumerate() {
        let op =
            format!(r#"{{"op":"add_question","page":"entity.alpha","question":"{question}"}}"#);
        apply(&v, &[], &[&op]).expect_code(0);
        assert!(v.read(path).contains(question), "operation {i}");
        let entry = cached();
        assert!(
            entry.links_omitted && entry.links.is_empty(),
            "operation {i}"
        );
        assert_eq!(entry.blob_id, whole().blob_id, "operation {i}");
    }
    let links = whole().links;
    assert!(!links.is_empty());
    // A compile that records links parses such pages again; one that does not takes them.
    let snapshot = wiki_vault::Snapshot::from_worktree_cached(&v.root).unwrap();
    let cache = snapshot.parse_cache().unwrap();
    for links_optional in [false, true] {
        let (parsed, _, _) = snapshot.parse_for_compile_cached(cache, links_optional);
        let page = parsed.pages.iter().find(|p| p.path == path).unwrap();
        assert_eq!(page.info.links_omitted, links_optional);
        assert_eq!(page.info.links.is_empty(), links_optional);
        if !links_optional {
            assert_eq!(page.info.links, links);
        }
    }
    let run = v.run("wiki", &["compile", "--json"]);
    run.expect_code(0);
    let pages = run.json()["pages"].as_array().unwrap().clone();
    let record = pages.iter().find(|p| p["path"] == path).unwrap();
    assert_eq!(record["links"], serde_json::to_value(&links).unwrap());
    let entry = cached();
    assert!(!entry.links_omitted);
    assert_eq!(entry.links, links);
}

/// A batch that changes no page still compiles, as the original's operations always do: pages
/// edited by hand since the last compile are reflected and committed under `wiki compile`'s
/// subject and trailers. With nothing pending it makes no commit.
#[test]
fn a_batch_that_changes_nothing_still_compiles_hand_edits() {
    let v = vault();
    let op = r#"{"op":"add_question","page":"entity.alpha","question":"Who rotates the keys?"}"#;
    apply(&v, &[], &[op]).expect_code(0);
    let head = rev(&v, "HEAD");
    // The same operation again, nothing pending: no change, no commit.
    let again = apply(&v, &[], &[op]);
    again.expect_code(0);
    assert_eq!(again.jsonl()[0]["changed"], false);
    assert_eq!(rev(&v, "HEAD"), head);
    // A page written by hand, then the same operation.
    v.write(
        "concepts/hand.md",
        wiki_testkit::page(
            &[
                "id: concept.hand",
                "pageType: concept",
                "title: Hand",
                "claims:",
                "  - id: claim.hand.1",
                "    text: Written by hand.",
                "    confidence: 0.1",
            ],
            "# Hand\n\nSee [Alpha](../entities/alpha.md).\n",
        ),
    );
    let run = apply(&v, &["--format", "text"], &[op]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "No changes for entities/alpha.md via add_question. Refreshed 9 index files.\n"
    );
    assert_ne!(rev(&v, "HEAD"), head);
    let log = v.git(&["log", "-1", "--format=%s%n%(trailers:only,unfold)"]);
    assert!(
        log.starts_with("Compile wiki vault: 7 files updated\n")
            && log.contains("Wiki-Op: compile\n")
            && log.contains("Wiki-Page: reports/low-confidence.md\n")
            && log.contains("Wiki-Agent: main\n"),
        "{log}"
    );
    assert!(v.read("reports/low-confidence.md").contains("claim.hand.1"));
    assert!(
        v.read("entities/alpha.md")
            .contains("[Hand](../concepts/hand.md)")
    );
    let check = v.run("wiki", &["compile", "--check", "--force"]);
    assert_eq!(check.stdout, "");
    check.expect_code(0);
}

/// Issue 28, defect 3: two operations of 9 MB each on one page would make it larger than the
/// 16 MiB every reader enforces: the batch is refused (exit 2, naming the page and the limit)
/// and nothing is written, so the page stays readable.
#[test]
fn a_batch_that_would_make_a_page_too_large_to_read_is_refused() {
    let v = vault();
    let head = rev(&v, "HEAD");
    let before = v.read("entities/alpha.md");
    let big = "x".repeat(9 * 1024 * 1024);
    let lines: Vec<String> = (0..2)
        .map(|i| {
            format!(
                r#"{{"op":"add_claim","page":"entity.alpha","claimId":"claim.big.{i}","text":"{big}"}}"#
            )
        })
        .collect();
    let run = apply(&v, &[], &[&lines[0], &lines[1]]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("entities/alpha.md: the page would be ")
            && run.stderr.contains(
                " bytes, over the page size limit of 16777216 bytes (16 MiB) that every command reading the vault enforces; nothing was written"
            ),
        "{}",
        run.stderr
    );
    assert_eq!(rev(&v, "HEAD"), head);
    assert_eq!(v.read("entities/alpha.md"), before);
    // One of them alone fits, and the page stays readable.
    apply(&v, &[], &[&lines[0]]).expect_code(0);
    let get = v.run("wiki", &["get", "entities/alpha.md"]);
    assert_eq!(get.code, 0, "{}", get.stderr);
}
