//! `wiki-apply history`: pages and claims across commits, manual commits marked.

mod common;

use common::*;

#[test]
fn history_of_a_claim_across_three_commits() {
    let v = vault();
    // Commit 2: status and confidence change.
    apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested","confidence":0.4}"#],
    )
    .expect_code(0);
    let c2 = rev(&v, "HEAD");
    // Commit 3 (by hand, with git): the text changes.
    let text = v
        .read("entities/alpha.md")
        .replace("for the primary database.", "for its main database.");
    v.write("entities/alpha.md", &text);
    v.commit_all("hand edit of the claim text");
    let c3 = rev(&v, "HEAD");
    // Commit 4: evidence added. An unrelated op in the same batch touches another page.
    apply(
        &v,
        &[],
        &[
            r#"{"op":"add_evidence","claimId":"claim.alpha.db","evidence":{"sourceId":"source.alpha","lines":"20-21"}}"#,
            r#"{"op":"add_question","page":"source.alpha","question":"Who wrote it?"}"#,
        ],
    )
    .expect_code(0);
    let c4 = rev(&v, "HEAD");
    // A commit that does not touch the claim (another key of the page) is not listed.
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    )
    .expect_code(0);

    let r = v.run("wiki-apply", &["history", "claim.alpha.db"]);
    r.expect_code(0);
    let recs = r.jsonl();
    let commits: Vec<&str> = recs.iter().map(|r| r["commit"].as_str().unwrap()).collect();
    let c1 = rev(&v, "HEAD~5");
    assert_eq!(
        commits,
        [c4.as_str(), c3.as_str(), c2.as_str(), c1.as_str()]
    );
    // Newest first; the latest entry: evidence added by add_evidence (the other op is omitted).
    assert_eq!(recs[0]["type"], "history");
    assert_eq!(recs[0]["claimId"], "claim.alpha.db");
    assert_eq!(recs[0]["manual"], false);
    assert_eq!(recs[0]["change"], "modified");
    assert_eq!(recs[0]["ops"].as_array().unwrap().len(), 1);
    assert_eq!(recs[0]["ops"][0]["op"], "add_evidence");
    assert_eq!(recs[0]["ops"][0]["agent"], "main");
    assert_eq!(recs[0]["ops"][0]["sources"][0], "source.alpha");
    assert_eq!(recs[0]["changes"].as_array().unwrap().len(), 1);
    assert_eq!(recs[0]["changes"][0]["field"], "evidence");
    assert_eq!(recs[0]["changes"][0]["to"].as_array().unwrap().len(), 2);
    // The hand-made commit is included and marked.
    assert_eq!(recs[1]["manual"], true);
    assert_eq!(recs[1]["subject"], "hand edit of the claim text");
    assert_eq!(recs[1]["ops"].as_array().unwrap().len(), 0);
    assert_eq!(
        recs[1]["changes"],
        serde_json::json!([{
            "field": "text",
            "from": "Alpha uses PostgreSQL for the primary database.",
            "to": "Alpha uses PostgreSQL for its main database."
        }])
    );
    assert_eq!(
        recs[2]["changes"],
        serde_json::json!([
            {"field": "status", "from": "supported", "to": "contested"},
            {"field": "confidence", "from": 0.9, "to": 0.4},
            {"field": "updatedAt", "from": "2026-03-20T00:00:00.000Z", "to": "2026-04-05T12:00:00.000Z"}
        ])
    );
    assert_eq!(recs[2]["ops"][0]["op"], "update_claim");
    assert_eq!(recs[3]["change"], "added");
    assert_eq!(recs[3]["manual"], true);

    // Oldest first, with the claim: prefix, as text.
    let r = v.run(
        "wiki-apply",
        &[
            "history",
            "claim:claim.alpha.db",
            "--order",
            "oldest",
            "--format",
            "text",
        ],
    );
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "claim claim.alpha.db on entities/alpha.md");
    assert!(lines[1].starts_with(&c1[..12]), "{}", r.stdout);
    assert!(lines[1].ends_with("initial vault [manual]"), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "    modified entities/alpha.md claim claim.alpha.db\n    update_claim by main\n    status: supported -> contested\n    confidence: 0.9 -> 0.4\n"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("    text: Alpha uses PostgreSQL for the primary database. -> Alpha uses PostgreSQL for its main database.\n"));
}

/// A claim on two pages: the entries of both pages come newest first along the branch's
/// history, whatever their commits' times say (here a hand commit dated in the future, made
/// before an operation).
#[test]
fn history_of_a_claim_on_two_pages_follows_the_branch_not_the_clock() {
    let v = vault();
    v.write(
        "concepts/copy.md",
        wiki_testkit::page(
            &[
                "id: concept.copy",
                "title: Copy",
                "claims:",
                "  - id: claim.alpha.db",
                "    text: Alpha uses MySQL.",
            ],
            "# Copy\n",
        ),
    );
    v.git(&["add", "-A"]);
    v.git(&[
        "commit",
        "-q",
        "-m",
        "copy, dated later",
        "--date=2030-01-01T00:00:00Z",
    ]);
    let copy = rev(&v, "HEAD");
    apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","page":"entity.alpha","confidence":0.5}"#],
    )
    .expect_code(0);
    let op = rev(&v, "HEAD");
    let r = v.run("wiki-apply", &["history", "claim.alpha.db"]);
    r.expect_code(0);
    let listed: Vec<(String, String)> = r
        .jsonl()
        .iter()
        .map(|e| {
            (
                e["commit"].as_str().unwrap_or_default().to_string(),
                e["pagePath"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let first = rev(&v, "HEAD~3");
    assert_eq!(
        listed,
        [
            (op.clone(), "entities/alpha.md".to_string()),
            (copy.clone(), "concepts/copy.md".to_string()),
            (first, "entities/alpha.md".to_string()),
        ]
    );
    let oldest = v.run(
        "wiki-apply",
        &["history", "claim.alpha.db", "--order", "oldest"],
    );
    oldest.expect_code(0);
    let commits: Vec<String> = oldest
        .jsonl()
        .iter()
        .map(|e| e["commit"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(commits[1..], [copy, op]);
}

#[test]
fn history_of_a_page_by_id_and_path() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"alpha","question":"Q1?"}"#],
    )
    .expect_code(0);
    v.write("sources/alpha.md", "changed by hand\n");
    v.commit_all("unrelated hand edit");
    apply(
        &v,
        &[],
        &[
            r#"{"op":"add_question","page":"alpha","question":"Q2?"}"#,
            r#"{"op":"add_question","page":"sources/alpha.md","question":"Q3?"}"#,
        ],
    )
    .expect_code(0);
    for lookup in ["entity.alpha", "entities/alpha.md", "entities/alpha"] {
        let r = v.run("wiki-apply", &["history", lookup]);
        r.expect_code(0);
        let recs = r.jsonl();
        assert_eq!(recs.len(), 4, "{lookup}: {}", r.stdout);
        assert_eq!(recs[0]["pagePath"], "entities/alpha.md");
        assert_eq!(
            recs[0]["ops"].as_array().unwrap().len(),
            1,
            "only this page's ops"
        );
        assert_eq!(recs[2]["subject"], "Compile");
        assert_eq!(recs[2]["manual"], false);
        assert_eq!(recs[2]["ops"][0]["op"], "compile");
        assert_eq!(recs[3]["change"], "added");
        assert_eq!(recs[3]["manual"], true);
        assert!(recs[0].get("changes").is_none());
    }
    let r = v.run(
        "wiki-apply",
        &["history", "entity.alpha", "--json", "--limit", "1"],
    );
    r.expect_code(0);
    assert_eq!(r.json().as_array().unwrap().len(), 1);
    let r = v.run("wiki-apply", &["history", "nothing.here"]);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: no page or claim matches nothing.here, now or in the history of main\n"
    );
}

/// A claim added and then rolled back no longer exists on any page; its history is found by
/// walking back and lists the commit that added it and the rollback that removed it.
#[test]
fn history_of_a_rolled_back_claim() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.new","text":"Alpha likes tea."}"#],
    )
    .expect_code(0);
    let added = rev(&v, "HEAD");
    v.run("wiki-apply", &["rollback", &added]).expect_code(0);
    let rolled = rev(&v, "HEAD");
    // Unrelated later commits: the walk goes past them.
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    )
    .expect_code(0);
    let r = v.run("wiki-apply", &["history", "claim.alpha.new"]);
    r.expect_code(0);
    let recs = r.jsonl();
    let listed: Vec<(&str, &str)> = recs
        .iter()
        .map(|e| {
            (
                e["commit"].as_str().unwrap_or_default(),
                e["change"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [(rolled.as_str(), "deleted"), (added.as_str(), "added")],
        "{}",
        r.stdout
    );
    assert_eq!(recs[0]["ops"][0]["op"], "rollback");
    assert_eq!(recs[0]["pagePath"], "entities/alpha.md");
    assert_eq!(recs[1]["changes"][0]["field"], "text");
    assert_eq!(recs[1]["changes"][0]["to"], "Alpha likes tea.");
    let r = v.run(
        "wiki-apply",
        &["history", "claim:claim.alpha.new", "--format", "text"],
    );
    r.expect_code(0);
    assert!(
        r.stdout
            .starts_with("claim claim.alpha.new (on no page now; last on entities/alpha.md)\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("    deleted entities/alpha.md claim claim.alpha.new\n")
    );
}

/// A page deleted by hand is found by its id; a page renamed by hand (same id, new path) has
/// its older history, under the old path, followed; a claim moved by hand to another page too.
#[test]
fn history_follows_deleted_renamed_pages_and_moved_claims() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"alpha","question":"Q1?"}"#],
    )
    .expect_code(0);
    let question = rev(&v, "HEAD");
    v.git(&["mv", "entities/alpha.md", "entities/alpha-renamed.md"]);
    v.git(&["commit", "-q", "-m", "rename alpha"]);
    let renamed = rev(&v, "HEAD");
    let r = v.run("wiki-apply", &["history", "entity.alpha"]);
    r.expect_code(0);
    let recs = r.jsonl();
    let listed: Vec<(&str, &str, &str)> = recs
        .iter()
        .map(|e| {
            (
                e["commit"].as_str().unwrap_or_default(),
                e["change"].as_str().unwrap_or_default(),
                e["pagePath"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let first = rev(&v, "HEAD~3");
    assert_eq!(
        listed[..2],
        [
            (renamed.as_str(), "renamed", "entities/alpha-renamed.md"),
            (question.as_str(), "modified", "entities/alpha.md"),
        ],
        "{}",
        r.stdout
    );
    assert_eq!(recs[0]["previousPath"], "entities/alpha.md");
    assert_eq!(
        listed.last().unwrap(),
        &(first.as_str(), "added", "entities/alpha.md")
    );
    // The claim on it moved with the page.
    let r = v.run("wiki-apply", &["history", "claim.alpha.db"]);
    r.expect_code(0);
    let recs = r.jsonl();
    assert_eq!(recs[0]["commit"], renamed.as_str());
    assert_eq!(recs[0]["change"], "moved");
    assert_eq!(recs[0]["previousPath"], "entities/alpha.md");
    assert_eq!(recs.last().unwrap()["commit"], first.as_str());
    assert_eq!(recs.last().unwrap()["change"], "added");

    // Deleted by hand: found by id, the deletion listed first.
    v.git(&["rm", "-q", "entities/alpha-renamed.md"]);
    v.git(&["commit", "-q", "-m", "delete alpha"]);
    let deleted = rev(&v, "HEAD");
    let r = v.run(
        "wiki-apply",
        &["history", "entity.alpha", "--format", "text"],
    );
    r.expect_code(0);
    assert!(r.stdout.starts_with(&deleted[..12]), "{}", r.stdout);
    assert!(
        r.stdout.contains("    deleted entities/alpha-renamed.md\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("    renamed entities/alpha-renamed.md (from entities/alpha.md)\n"),
        "{}",
        r.stdout
    );
    let r = v.run("wiki-apply", &["history", "claim.alpha.db"]);
    r.expect_code(0);
    assert_eq!(r.jsonl()[0]["change"], "deleted");
    assert_eq!(r.jsonl()[0]["commit"], deleted.as_str());
}
