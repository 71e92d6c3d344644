//! The same commands through the `wiki` dispatcher (`wiki apply`, `wiki history`,
//! `wiki rollback`, `wiki agent`). Skipped when the `wiki` binary has not been built
//! (`cargo build --workspace --bins`, as scripts/test does).

mod common;

use common::*;

fn wiki_built() -> bool {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let found = dir
        .join(format!("wiki{}", std::env::consts::EXE_SUFFIX))
        .exists();
    if !found {
        eprintln!("skipped: the `wiki` binary is not built (cargo build -p wiki)");
    }
    found
}

#[test]
fn wiki_dispatcher_runs_apply_history_rollback_and_agent() {
    if !wiki_built() {
        return;
    }
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
