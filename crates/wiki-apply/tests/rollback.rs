//! `wiki-apply rollback`: undo a commit, keep later changes elsewhere, refuse on conflicts,
//! twice is a no-op.

mod common;

use common::*;

#[test]
fn rollback_restores_the_pages_and_twice_is_a_noop() {
    let v = vault();
    apply(
        &v,
        &[],
        &[
            r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}"#,
            r#"{"op":"synthesis","title":"Alpha Synthesis","body":"b","sourceIds":["source.alpha"]}"#,
        ],
    )
    .expect_code(0);
    let target = rev(&v, "HEAD");
    let r = v.run("wiki-apply", &["rollback", &target]);
    r.expect_code(0);
    let rec = &r.jsonl()[0];
    assert_eq!(rec["type"], "rollback");
    assert_eq!(rec["target"], target.as_str());
    assert_eq!(rec["changed"], true);
    assert_eq!(
        rec["files"],
        serde_json::json!([
            "entities/alpha.md",
            "sources/alpha.md",
            "syntheses/alpha-synthesis.md"
        ])
    );
    assert_eq!(rec["commit"].as_str().unwrap(), rev(&v, "HEAD"));
    // Byte-identical to before the commit; the created page is gone.
    assert_eq!(v.read("entities/alpha.md"), alpha0(&v));
    assert!(!v.exists("syntheses/alpha-synthesis.md"));
    assert_eq!(v.status(), "");
    assert_eq!(
        v.git(&[
            "log",
            "-1",
            "--format=%(trailers:key=Wiki-Op,valueonly)%(trailers:key=Wiki-Rollback,valueonly)"
        ])
        .trim(),
        format!("rollback\n{target}")
    );
    assert!(
        v.git(&["log", "-1", "--format=%s"])
            .starts_with(&format!("Roll back {}", &target[..12]))
    );
    assert_eq!(
        v.git(&["diff", &format!("{target}~1"), "HEAD", "--stat"])
            .trim(),
        "",
        "the tree is the one before the commit"
    );
    // Twice: nothing to do, no commit.
    let head = rev(&v, "HEAD");
    let r = v.run("wiki-apply", &["rollback", &target, "--format", "text"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        format!(
            "Nothing to roll back for {}: it was already rolled back by {} (Roll back {}: {}).\n",
            &target[..12],
            &head[..12],
            &target[..12],
            v.git(&["log", "-1", "--format=%s", &target]).trim()
        )
    );
    assert_eq!(rev(&v, "HEAD"), head);
    let r = v.run("wiki-apply", &["rollback", &target, "--json"]);
    r.expect_code(0);
    let rec = r.json();
    assert_eq!(rec["changed"], false);
    assert_eq!(rec["noChange"]["reason"], "rolledBack");
    assert_eq!(rec["noChange"]["by"], head.as_str());
    assert_eq!(rev(&v, "HEAD"), head);
}

/// Rolling back a compile commit (only compiled output and generated Related blocks) or a
/// change already undone by hand says why nothing changes.
#[test]
fn rollback_explains_why_nothing_changed() {
    let v = raw_vault();
    compile(&v);
    let compiled = rev(&v, "HEAD");
    let head = compiled.clone();
    let r = v.run("wiki-apply", &["rollback", &compiled, "--format", "text"]);
    r.expect_code(0);
    let files = v
        .git(&["show", "--name-only", "--format=", &compiled])
        .lines()
        .count();
    assert!(files > 1);
    assert_eq!(
        r.stdout,
        format!(
            "Nothing to roll back for {}: it changed only compiled output ({files} files: indexes, dashboards, caches or generated Related blocks), which `wiki compile` rebuilds from the pages.\n",
            &compiled[..12]
        )
    );
    assert_eq!(rev(&v, "HEAD"), head);
    let rec = &v.run("wiki-apply", &["rollback", &compiled]).jsonl()[0];
    assert_eq!(
        rec["noChange"],
        serde_json::json!({"reason": "onlyGenerated", "files": files})
    );

    // Undone by hand: the vault already has what was there before.
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    )
    .expect_code(0);
    let target = rev(&v, "HEAD");
    v.write(
        "entities/alpha.md",
        show(&v, &format!("{target}~1:entities/alpha.md")),
    );
    v.commit_all("undo by hand");
    let head = rev(&v, "HEAD");
    let r = v.run("wiki-apply", &["rollback", &target, "--format", "text"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        format!(
            "Nothing to roll back for {}: its changes are already undone (the vault has what was there before it).\n",
            &target[..12]
        )
    );
    assert_eq!(rev(&v, "HEAD"), head);
}

#[test]
fn rollback_keeps_later_changes_to_other_lines() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"add_contradiction","page":"alpha","contradiction":"PG or MySQL?"}"#],
    )
    .expect_code(0);
    let target = rev(&v, "HEAD");
    // Later: another claim is added (different lines), and the body is edited by hand.
    apply(
        &v,
        &[],
        &[r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.lang","text":"Alpha writes Rust."}"#],
    )
    .expect_code(0);
    let text = v
        .read("entities/alpha.md")
        .replace("Alpha is a person.", "Alpha is a person (edited).");
    v.write("entities/alpha.md", &text);
    v.commit_all("body edit");

    let r = v.run("wiki-apply", &["rollback", &target]);
    r.expect_code(0);
    let after = v.read("entities/alpha.md");
    assert!(!after.contains("contradictions"), "{after}");
    assert!(after.contains("claim.alpha.lang"), "{after}");
    assert!(after.contains("Alpha is a person (edited)."), "{after}");
    assert!(after.contains("Human note: do not touch."));
    // Rolling back again changes nothing.
    let head = rev(&v, "HEAD");
    v.run("wiki-apply", &["rollback", &target]).expect_code(0);
    assert_eq!(rev(&v, "HEAD"), head);
}

#[test]
fn rollback_refuses_when_later_commits_changed_the_same_lines() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}"#],
    )
    .expect_code(0);
    let target = rev(&v, "HEAD");
    apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"refuted"}"#],
    )
    .expect_code(0);
    let head = rev(&v, "HEAD");
    let r = v.run("wiki-apply", &["rollback", &target]);
    r.expect_code(1);
    assert_eq!(
        r.stderr,
        format!(
            "wiki-apply: cannot roll back {s}: later commits changed the same lines in entities/alpha.md (claim claim.alpha.db); pass --force to restore them as they were before {s}, or --keep-later to keep the later changes\n",
            s = &target[..12]
        )
    );
    assert_eq!(r.stdout, "");
    assert_eq!(rev(&v, "HEAD"), head);
    assert_eq!(v.status(), "");

    // --keep-later: the claim keeps its later status: nothing else to undo.
    let r = v.run("wiki-apply", &["rollback", &target, "--keep-later"]);
    r.expect_code(0);
    assert!(v.read("entities/alpha.md").contains("status: refuted"));
    // --force: the claim is restored as it was before the commit.
    let r = v.run("wiki-apply", &["rollback", &target, "--force"]);
    r.expect_code(0);
    let rec = &r.jsonl()[0];
    assert_eq!(rec["conflicts"][0]["path"], "entities/alpha.md");
    let text = v.read("entities/alpha.md");
    assert!(text.contains("    status: supported\n"), "{text}");
    assert!(
        text.contains("    updatedAt: 2026-03-20T00:00:00.000Z\n"),
        "{text}"
    );
    assert_eq!(body(&text), body(&alpha0(&v)));
    assert_eq!(v.status(), "");
}

#[test]
fn rollback_rejects_commits_not_on_the_branch() {
    let v = vault();
    v.git(&["checkout", "-q", "-b", "side"]);
    v.write("entities/side.md", "side\n");
    v.commit_all("side work");
    let side = rev(&v, "HEAD");
    v.git(&["checkout", "-q", "main"]);
    let r = v.run("wiki-apply", &["rollback", &side]);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        format!(
            "wiki-apply: error: {side} ({}) is not on branch main\n",
            &side[..12]
        )
    );
    let r = v.run("wiki-apply", &["rollback", "no-such-commit"]);
    r.expect_code(2);
}

/// Issue 28, defect 1 for rollback: a page saved by hand after the rollback read it (the test
/// hook appends a line just before the commit) is never written over; the rollback runs again on
/// the new bytes and keeps the edit.
#[test]
fn rollback_keeps_a_hand_edit_made_while_it_runs() {
    let v = vault();
    apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}"#],
    )
    .expect_code(0);
    let target = rev(&v, "HEAD");
    let mut cmd = v.command("wiki-apply");
    cmd.args(["rollback", &target])
        .env("WIKI_TEST_HAND_EDIT", "entities/alpha.md");
    let run = wiki_testkit::output(cmd, None);
    run.expect_code(0);
    let expected = format!("{}hand edit during the command\n", alpha0(&v));
    assert_eq!(v.read("entities/alpha.md"), expected);
    assert_eq!(show(&v, "HEAD:entities/alpha.md"), expected);
    assert_eq!(v.status(), "");
}
