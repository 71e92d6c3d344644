//! `wiki-parse` binary: records, errors, exit codes.

use wiki_testkit::{Vault, page};

fn vault_with_pages() -> Vault {
    let v = Vault::with_git();
    v.write(".openclaw-wiki/state.json", "{}\n");
    v.write(
        "entities/alpha.md",
        page(
            &[
                "id: entity.alpha",
                "pageType: entity",
                "title: Alpha",
                "sourceIds: source.alpha",
                "claims:",
                "  - id: claim.alpha.db",
                "    text: Alpha uses PostgreSQL.",
                "    confidence: 0.9",
                "    evidence:",
                "      - {}",
                "      - sourceId: source.alpha",
                "        lines: 12-18",
                "  - id: claim.no-text",
            ],
            "# Alpha\n\nSee [Source](../sources/alpha.md) and `[[code]]`.\n",
        ),
    );
    v.write(
        "sources/alpha.md",
        page(
            &["id: source.alpha", "pageType: source"],
            "# Alpha Source\n",
        ),
    );
    v
}

#[test]
fn emits_one_record_per_page_in_scan_order() {
    let v = vault_with_pages();
    let run = v.run("wiki-parse", &[]);
    run.expect_code(0);
    let recs = run.jsonl();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["path"], "sources/alpha.md");
    let alpha = &recs[1];
    assert_eq!(alpha["type"], "page");
    assert_eq!(alpha["kind"], "entity");
    assert_eq!(alpha["id"], "entity.alpha");
    assert_eq!(alpha["title"], "Alpha");
    assert_eq!(alpha["sourceIds"], serde_json::json!(["source.alpha"]));
    assert_eq!(alpha["claims"].as_array().unwrap().len(), 1);
    assert_eq!(
        alpha["claims"][0]["evidence"],
        serde_json::json!([{"sourceId": "source.alpha", "lines": "12-18"}])
    );
    assert_eq!(alpha["claims"][0]["line"], 7);
    assert_eq!(
        alpha["links"],
        serde_json::json!([{"target": "../sources/alpha.md", "kind": "markdown", "line": 19, "resolved": "sources/alpha.md"}])
    );
    // The blob id is git's.
    let git_id = v.git(&["hash-object", "entities/alpha.md"]);
    assert_eq!(alpha["blobId"], git_id.trim());
}

#[test]
fn bad_pages_yield_error_records_and_exit_1() {
    let v = vault_with_pages();
    v.write(
        "concepts/broken.md",
        "---\nid: concept.broken\ntitle: [oops\n---\n",
    );
    v.write("concepts/list.md", "---\n- a\n- b\n---\n");
    v.write("concepts/bin.md", b"abc\0def".as_slice());
    v.write("concepts/empty.md", "");
    let run = v.run("wiki-parse", &[]);
    run.expect_code(1);
    let recs = run.jsonl();
    let errors: Vec<_> = recs.iter().filter(|r| r["type"] == "error").collect();
    assert_eq!(errors.len(), 3, "{}", run.stdout);
    assert_eq!(errors[0]["path"], "concepts/bin.md");
    assert_eq!(errors[1]["path"], "concepts/broken.md");
    assert!(errors[1]["line"].as_u64().unwrap() >= 3);
    assert!(run.stderr.contains("concepts/broken.md:"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("concepts/list.md:2: Wiki frontmatter must be a YAML mapping"),
        "{}",
        run.stderr
    );
    // Good pages are still emitted, including the empty one.
    assert!(
        recs.iter()
            .any(|r| r["path"] == "concepts/empty.md" && r["title"] == "empty")
    );
    assert!(recs.iter().any(|r| r["path"] == "entities/alpha.md"));
}

#[test]
fn vault_errors_exit_2() {
    let v = Vault::new();
    let run = v.run("wiki-parse", &["--vault", "does-not-exist"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("does-not-exist: vault directory does not exist"),
        "{}",
        run.stderr
    );
    v.write("file.txt", "x");
    let run = v.run("wiki-parse", &["--vault", "file.txt"]);
    run.expect_code(2);
    assert!(run.stderr.contains("not a directory"), "{}", run.stderr);
    let run = v.run("wiki-parse", &["--no-such-flag"]);
    run.expect_code(2);
}

#[test]
fn explicit_paths_and_outside_paths() {
    let v = vault_with_pages();
    let run = v.run("wiki-parse", &["entities/alpha.md"]);
    run.expect_code(0);
    assert_eq!(run.jsonl().len(), 1);
    let run = v.run("wiki-parse", &["../.home"]);
    run.expect_code(2);
    assert!(run.stderr.contains("outside the vault"), "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed() {
    let v = vault_with_pages();
    std::fs::write(v.temp().join("secret.md"), "---\nid: secret\n---\n").unwrap();
    std::os::unix::fs::symlink(v.temp().join("secret.md"), v.path("entities/link.md")).unwrap();
    let run = v.run("wiki-parse", &[]);
    run.expect_code(1);
    assert!(
        run.stderr
            .contains("entities/link.md:1: symlink not followed"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("\"secret\""));
}

#[test]
fn records_match_the_published_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../wiki-parse/schema/page-record.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let page_props = schema["$defs"]["page"]["properties"].as_object().unwrap();
    let required = schema["$defs"]["page"]["required"].as_array().unwrap();
    let v = Vault::with_git();
    v.write(
        "entities/full.md",
        page(
            &[
                "id: entity.full", "pageType: entity", "entityType: person", "canonicalId: person.full",
                "status: active", "privacyTier: private", "sourceType: local-file", "provenanceMode: x",
                "sourcePath: /a", "bridgeRelativePath: b", "bridgeWorkspaceDir: c",
                "unsafeLocalConfiguredPath: d", "unsafeLocalRelativePath: e", "lastRefreshedAt: 2026-01-01",
                "updatedAt: 2026-01-01", "aliases: [a]", "sourceIds: [s]", "contradictions: [c]",
                "questions: [q]", "bestUsedFor: [b]", "notEnoughFor: [n]", "confidence: 0.5",
                "personCard: {handles: ['@x'], lane: l, canonicalId: p, timezone: UTC, confidence: 1, privacyTier: t, lastRefreshedAt: z, socials: [s], emails: [e], askFor: [a], avoidAskingFor: [v], bestUsedFor: [b], notEnoughFor: [n]}",
                "relationships: [{targetId: t, targetPath: p, targetTitle: T, kind: k, weight: 1, confidence: 1, evidenceKind: e, privacyTier: p, note: n, updatedAt: u}]",
                "claims: [{id: c, text: t, status: s, confidence: 1, updatedAt: u, validFrom: f, validUntil: g, supersedes: o, supersededBy: n, evidence: [{kind: k, sourceId: s, path: p, lines: l, weight: 1, confidence: 1, privacyTier: t, note: n, updatedAt: u}]}]",
            ],
            "# Full\n[[x]] [y](y.md)\n",
        ),
    );
    let run = v.run("wiki-parse", &["--vault", ".", "--frontmatter", "--body"]);
    run.expect_code(0);
    let rec = &run.jsonl()[0];
    for (key, value) in rec.as_object().unwrap() {
        assert!(
            page_props.contains_key(key),
            "record key {key} missing from the schema"
        );
        let def = &page_props[key];
        if key == "claims" {
            let claim_props = schema["$defs"]["claim"]["properties"].as_object().unwrap();
            for k in value[0].as_object().unwrap().keys() {
                assert!(
                    claim_props.contains_key(k),
                    "claim key {k} missing from the schema"
                );
            }
            let ev_props = schema["$defs"]["evidence"]["properties"]
                .as_object()
                .unwrap();
            for k in value[0]["evidence"][0].as_object().unwrap().keys() {
                assert!(ev_props.contains_key(k), "evidence key {k} missing");
            }
        }
        let _ = def;
    }
    for r in required {
        assert!(
            rec.get(r.as_str().unwrap()).is_some(),
            "required {r} missing from record"
        );
    }
    let card_props = schema["$defs"]["personCard"]["properties"]
        .as_object()
        .unwrap();
    for k in rec["personCard"].as_object().unwrap().keys() {
        assert!(card_props.contains_key(k), "personCard key {k}");
    }
    assert_eq!(
        card_props.len(),
        rec["personCard"].as_object().unwrap().len()
    );
}

#[test]
fn closed_stdout_pipe_is_a_clean_exit() {
    use std::io::Read;
    let v = Vault::with_git();
    let filler = "word ".repeat(400);
    for i in 0..400 {
        v.write(
            &format!("concepts/c{i:03}.md"),
            page(
                &[
                    &format!("id: concept.c{i}"),
                    &format!("title: Concept {i} {filler}"),
                ],
                "# C\n",
            ),
        );
    }
    let mut cmd = v.command("wiki-parse");
    cmd.args(["--vault", "."])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut first = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
