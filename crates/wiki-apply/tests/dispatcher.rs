//! The same commands through the `wiki` dispatcher (`wiki apply`, `wiki history`,
//! `wiki rollback`, `wiki agent`). Needs the `wiki` binary built
//! (`cargo build --workspace --bins`, as scripts/test does); fails clearly otherwise.

mod common;

use common::*;

#[test]
fn wiki_dispatcher_runs_apply_history_rollback_and_agent() {
    // Fails with a clear message when the `wiki` binary is not built (scripts/test builds it).
    wiki_testkit::bin("wiki");
    let v = vault();
    let r = v.run_stdin(
        "wiki",
        &["apply"],
        Some(br#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested"}"#),
    );
    r.expect_code(0);
    let commit = r.jsonl()[0]["commit"].as_str().unwrap().to_string();
    assert_eq!(commit, rev(&v, "HEAD"));
    let r = v.run(
        "wiki",
        &[
            "--format", "text", "apply", "metadata", "alpha", "--status", "review",
        ],
    );
    r.expect_code(0);
    assert!(
        r.stdout
            .starts_with("Updated entities/alpha.md via update_metadata. ")
    );
    let r = v.run("wiki", &["history", "claim.alpha.db", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json().as_array().unwrap().len(), 2);
    let r = v.run("wiki", &["rollback", &commit]);
    r.expect_code(0);
    assert!(
        v.read("entities/alpha.md")
            .contains("    status: supported\n")
    );
    let r = v.run("wiki", &["agent", "create", "helper"]);
    r.expect_code(0);
    let r = v.run_stdin(
        "wiki",
        &["--agent", "helper", "apply"],
        Some(br#"{"op":"add_question","page":"alpha","question":"Q?"}"#),
    );
    r.expect_code(0);
    assert!(show(&v, "agents/helper:entities/alpha.md").contains("  - Q?\n"));
    assert!(!v.read("entities/alpha.md").contains("  - Q?\n"));
    let r = v.run("wiki", &["agent", "list", "--format", "text"]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("helper\tagents/helper\t"));
    assert_eq!(v.status(), "");
}
