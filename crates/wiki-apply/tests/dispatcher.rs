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
        &["apply", "--format", "jsonl"],
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

fn loose_objects(v: &wiki_testkit::Vault) -> usize {
    v.git(&["count-objects", "-v"])
        .lines()
        .find_map(|l| l.strip_prefix("count: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("count line")
}

#[test]
fn wiki_gc_packs_loose_objects_and_commits_pack_when_told() {
    wiki_testkit::bin("wiki");
    let v = vault();
    for q in ["First?", "Second?", "Third?"] {
        let op = format!(r#"{{"op":"add_question","page":"alpha","question":"{q}"}}"#);
        let mut cmd = v.command("wiki");
        cmd.args(["apply"]).env("WIKI_AUTO_PACK", "never");
        wiki_testkit::output(cmd, Some(op.as_bytes())).expect_code(0);
    }
    let loose = loose_objects(&v);
    assert!(loose > 20, "{loose} loose objects");
    let versions: Vec<String> = (0..4)
        .map(|i| show(&v, &format!("HEAD~{i}:entities/alpha.md")))
        .collect();

    let r = v.run("wiki", &["gc", "--format", "jsonl"]);
    r.expect_code(0);
    let records = r.jsonl();
    assert_eq!(records.len(), 1);
    let rec = &records[0];
    assert_eq!(rec["type"], "gc");
    assert_eq!(rec["looseObjects"], loose);
    assert_eq!(rec["packs"], 1);
    assert!(rec["packBytes"].as_u64().unwrap() > 0, "{rec}");
    assert_eq!(loose_objects(&v), 0);
    v.git(&["fsck", "--strict", "--no-progress"]);
    for (i, text) in versions.iter().enumerate() {
        assert_eq!(&show(&v, &format!("HEAD~{i}:entities/alpha.md")), text);
    }
    assert_eq!(v.status(), "");

    // Nothing left to pack.
    let r = v.run("wiki", &["gc", "--format", "text"]);
    r.expect_code(0);
    assert_eq!(r.stdout, "nothing to pack\n");

    // WIKI_AUTO_PACK=always: the commit packs what it wrote, here with `gc.autoDetach = false`.
    v.git(&["config", "gc.autoDetach", "false"]);
    let mut cmd = v.command("wiki");
    cmd.args(["apply", "--format", "jsonl"])
        .env("WIKI_AUTO_PACK", "always");
    let r = wiki_testkit::output(
        cmd,
        Some(br#"{"op":"add_question","page":"alpha","question":"Fourth?"}"#),
    );
    r.expect_code(0);
    // Said on stderr (stdout stays the records).
    let said: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(said.len(), 1, "{}", r.stderr);
    assert_eq!(
        said[0],
        "wiki: packed loose git objects (automatic, after the commit)"
    );
    assert!(r.stdout.lines().all(|l| l.starts_with('{')));
    assert_eq!(loose_objects(&v), 0);
    assert!(v.read("entities/alpha.md").contains("  - Fourth?\n"));
    v.git(&["fsck", "--strict", "--no-progress"]);
    assert_eq!(v.background_packers(), 0);

    // By default the commit leaves the packing to a detached copy of the binary, which packs
    // after the command returned.
    v.git(&["config", "--unset", "gc.autoDetach"]);
    for (bin, q) in [("wiki", "Fifth?"), ("wiki-apply", "Sixth?")] {
        let mut cmd = v.command(bin);
        if bin == "wiki" {
            cmd.arg("apply");
        }
        cmd.env("WIKI_AUTO_PACK", "always");
        let op = format!(r#"{{"op":"add_question","page":"alpha","question":"{q}"}}"#);
        let r = wiki_testkit::output(cmd, Some(op.as_bytes()));
        r.expect_code(0);
        let said: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(said.len(), 1, "{}", r.stderr);
        let pid = said[0]
            .strip_prefix(&format!(
                "{bin}: packing loose git objects in the background (process "
            ))
            .and_then(|rest| rest.strip_suffix("; `wiki gc` packs in the foreground)"))
            .unwrap_or_else(|| panic!("{}", r.stderr));
        assert!(pid.parse::<u32>().is_ok(), "{pid}");
        v.wait_for_background_packers();
        assert_eq!(loose_objects(&v), 0, "{bin}");
        assert!(v.read("entities/alpha.md").contains(&format!("  - {q}\n")));
        v.git(&["fsck", "--strict", "--no-progress"]);
    }
    assert_eq!(v.status(), "");

    // A detached packer that failed left its error; the next commit that packs says so once.
    std::fs::write(v.path(".git/wiki-pack.log"), "disk full\n").expect("log");
    let mut cmd = v.command("wiki-apply");
    cmd.env("WIKI_AUTO_PACK", "always");
    let r = wiki_testkit::output(
        cmd,
        Some(br#"{"op":"add_question","page":"alpha","question":"Seventh?"}"#),
    );
    r.expect_code(0);
    assert_eq!(
        r.stderr,
        "wiki-apply: warning: could not pack loose git objects after the commit (nothing lost; run `wiki gc` to retry): a background packing failed: disk full\n"
    );
    assert!(!v.exists("../.git/wiki-pack.log") && !v.exists(".git/wiki-pack.log"));
    v.wait_for_background_packers();
    v.git(&["fsck", "--strict", "--no-progress"]);
}
