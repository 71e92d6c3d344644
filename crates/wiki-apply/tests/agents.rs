//! Per-agent branches: `--agent ID` reads and writes `agents/<ID>` without touching the main
//! work tree or ref; `agent list` / `agent create`.

mod common;

use common::*;

#[test]
fn agent_writes_go_to_their_branch_only() {
    let v = vault();
    // Uncommitted human state on main must survive untouched.
    v.write("inbox.md", "draft idea\n");
    let main_before = rev(&v, "main");
    let status_before = v.status();
    let index_before = std::fs::read(v.path(".git/index")).unwrap();
    let alpha_before = v.read("entities/alpha.md");

    let r = apply(
        &v,
        &["--agent", "research"],
        &[
            r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.r","text":"Research claim."}"#,
            r#"{"op":"synthesis","title":"Agent Notes","body":"b","sourceIds":["source.alpha"]}"#,
        ],
    );
    r.expect_code(0);
    let recs = r.jsonl();
    let summary = &recs[2];
    assert_eq!(summary["agent"], "research");
    assert_eq!(summary["branch"], "agents/research");
    let agent_tip = rev(&v, "agents/research");
    assert_eq!(summary["commit"], agent_tip.as_str());
    // Created from the current branch; main untouched (ref, work tree, index, HEAD).
    assert_eq!(rev(&v, "agents/research~1"), main_before);
    assert_eq!(rev(&v, "main"), main_before);
    assert_eq!(v.git(&["branch", "--show-current"]).trim(), "main");
    assert_eq!(v.status(), status_before);
    assert_eq!(std::fs::read(v.path(".git/index")).unwrap(), index_before);
    assert_eq!(v.read("entities/alpha.md"), alpha_before);
    assert!(!v.exists("syntheses/agent-notes.md"));
    assert!(show(&v, "agents/research:entities/alpha.md").contains("claim.alpha.r"));
    assert!(show(&v, "agents/research:syntheses/agent-notes.md").contains("## Summary"));
    assert_eq!(
        v.git(&[
            "log",
            "-1",
            "agents/research",
            "--format=%(trailers:key=Wiki-Agent,valueonly,separator=%x2C)"
        ])
        .trim(),
        "research,research"
    );

    // The agent reads its own branch: updating its claim works there, not on main.
    apply(
        &v,
        &["--agent", "research"],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.r","status":"contested"}"#],
    )
    .expect_code(0);
    assert_eq!(rev(&v, "agents/research~1"), agent_tip);
    let r = apply(
        &v,
        &[],
        &[r#"{"op":"update_claim","claimId":"claim.alpha.r","status":"contested"}"#],
    );
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: <stdin>:1: claim not found: claim.alpha.r\n"
    );
    // History as the agent sees the agent's commits.
    let r = v.run(
        "wiki-apply",
        &["--agent", "research", "history", "claim.alpha.r"],
    );
    r.expect_code(0);
    assert_eq!(r.jsonl().len(), 2);
    assert_eq!(rev(&v, "main"), main_before);
    assert_eq!(v.status(), status_before);
    v.git(&["fsck", "--strict", "--no-progress"]);
}

#[test]
fn agent_list_and_create() {
    let v = vault();
    let r = v.run("wiki-apply", &["agent", "list"]);
    r.expect_code(0);
    assert_eq!(r.stdout, "");
    let first = rev(&v, "HEAD");
    v.write("entities/beta.md", "# Beta\n");
    v.commit_all("second");
    let r = v.run("wiki-apply", &["agent", "create", "Writer Bot"]);
    r.expect_code(2);
    assert!(r.stderr.contains("(try \"writer-bot\")"), "{}", r.stderr);
    let r = v.run(
        "wiki-apply",
        &["agent", "create", "writer-bot", "--from", "HEAD~1"],
    );
    r.expect_code(0);
    let rec = &r.jsonl()[0];
    assert_eq!(rec["type"], "agent");
    assert_eq!(rec["id"], "writer-bot");
    assert_eq!(rec["branch"], "agents/writer-bot");
    assert_eq!(rec["commit"], first.as_str());
    v.run("wiki-apply", &["agent", "create", "alpha"])
        .expect_code(0);
    let r = v.run("wiki-apply", &["agent", "create", "alpha"]);
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        format!(
            "wiki-apply: error: agent alpha already exists: branch agents/alpha is at {}\n",
            rev(&v, "HEAD")
        )
    );
    let r = v.run("wiki-apply", &["agent", "list", "--format", "text"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        format!(
            "alpha\tagents/alpha\t{}\nwriter-bot\tagents/writer-bot\t{}\n",
            &rev(&v, "HEAD")[..12],
            &first[..12]
        )
    );
    assert_eq!(v.git(&["branch", "--show-current"]).trim(), "main");
    assert_eq!(v.status(), "");
    // A created agent branch is used as is by --agent.
    apply(
        &v,
        &["--agent", "writer-bot"],
        &[r#"{"op":"add_question","page":"alpha","question":"Q?"}"#],
    )
    .expect_code(0);
    assert_eq!(rev(&v, "agents/writer-bot~1"), first);
}

/// An agent's operations keep their own parse cache (`.openclaw-wiki/tmp/agents/<ID>/`): the
/// `agent`'s compiled files (beside the work tree) are what its branch compiles to.
fn assert_agent_files_are_its_branchs(v: &Vault, agent: &str) {
    for (flag, file) in [
        ("--digest", "agent-digest.json"),
        ("--claims", "claims.jsonl"),
    ] {
        let computed = v.run("wiki-digest", &["--agent", agent, flag]);
        computed.expect_code(0);
        assert!(
            computed.stdout == v.read(&format!(".openclaw-wiki/cache/agents/{agent}/{file}")),
            "{agent}: {file} differs from `wiki-digest --agent {agent} {flag}`"
        );
    }
    let check = v.run("wiki", &["--agent", agent, "compile", "--check", "--force"]);
    assert_eq!(
        (check.code, check.stdout.as_str()),
        (0, ""),
        "{}",
        check.stderr
    );
}

/// The first operation of an agent whose branch differs from the checked-out one (started from
/// the uncompiled commit, with a page the checked-out branch lacks) starts from the checked-out
/// branch's compiled files and still compiles its own branch.
#[test]
fn an_agent_first_operation_on_a_different_branch_compiles_its_branch() {
    let v = vault();
    v.run("wiki", &["compile"]).expect_code(0);
    v.run("wiki", &["agent", "create", "old", "--from", "HEAD~1"])
        .expect_code(0);
    let ops = [
        r#"{"op":"create_synthesis","title":"Old Only","body":"Only on the old branch.","sourceIds":["source.alpha"]}"#,
        r#"{"op":"add_question","page":"entity.alpha","question":"Old?"}"#,
    ];
    let mut cmd = v.command("wiki-apply");
    cmd.args(["--agent", "old"]).env("WIKI_COMPILE_TRACE", "1");
    let run = wiki_testkit::output(cmd, Some(ops.join("\n").as_bytes()));
    run.expect_code(0);
    assert_agent_files_are_its_branchs(&v, "old");
    assert!(
        v.read(".openclaw-wiki/cache/agents/old/agent-digest.json")
            .contains("Old Only")
    );
    assert!(
        !v.read(".openclaw-wiki/cache/agent-digest.json")
            .contains("Old Only")
    );
    // A second operation reuses what the first left.
    let mut cmd = v.command("wiki-apply");
    cmd.args(["--agent", "old"]).env("WIKI_COMPILE_TRACE", "1");
    let op = r#"{"op":"add_question","page":"entity.alpha","question":"Again?"}"#;
    let run = wiki_testkit::output(cmd, Some(op.as_bytes()));
    run.expect_code(0);
    assert!(run.stderr.contains("digest reused true"), "{}", run.stderr);
    assert_agent_files_are_its_branchs(&v, "old");
    // A first operation that leaves the claims as the checked-out branch has them (a question
    // on a page without claims) still writes them for the agent.
    let op = r#"{"op":"add_question","page":"source.alpha","question":"Source?"}"#;
    v.run_stdin("wiki-apply", &["--agent", "plain"], Some(op.as_bytes()))
        .expect_code(0);
    assert_eq!(
        v.read(".openclaw-wiki/cache/agents/plain/claims.jsonl"),
        v.read(".openclaw-wiki/cache/claims.jsonl")
    );
    assert_agent_files_are_its_branchs(&v, "plain");
}

/// first one starts from the checked-out branch's (the pages both branches share are not read
/// from git again), the next ones reuse the agent's own compiled files and dashboards, and
/// the checked-out branch's cache is left as it was.
#[test]
fn agent_operations_keep_their_own_parse_cache() {
    let v = vault();
    v.run("wiki", &["compile"]).expect_code(0);
    let main_cache = v.path(".openclaw-wiki/tmp/parse-cache.bin");
    let before = std::fs::read(&main_cache).unwrap();
    let traced = |question: &str| -> String {
        let mut cmd = v.command("wiki-apply");
        cmd.args(["--agent", "ops"]).env("WIKI_COMPILE_TRACE", "1");
        let op =
            format!(r#"{{"op":"add_question","page":"entity.alpha","question":"{question}"}}"#);
        let run = wiki_testkit::output(cmd, Some(op.as_bytes()));
        run.expect_code(0);
        run.stderr
    };
    let first = traced("First?");
    assert!(
        first.contains("compile related scope 0,") && first.contains("digest reused true"),
        "the first operation reuses the checked-out branch's parsed pages and compiled files: \
         {first}"
    );
    assert!(v.exists(".openclaw-wiki/tmp/agents/ops/parse-cache.bin"));
    // Both compiled files are the agent's now, the one the operation left unchanged (claims:
    // a question is not a claim) included.
    assert_agent_files_are_its_branchs(&v, "ops");
    let second = traced("Second?");
    assert!(
        second.contains("compile related scope 0,") && second.contains("digest reused true"),
        "{second}"
    );
    assert_eq!(std::fs::read(&main_cache).unwrap(), before);
    assert!(show(&v, "agents/ops:entities/alpha.md").contains("  - Second?\n"));
    let check = v.run("wiki", &["--agent", "ops", "compile", "--check", "--force"]);
    assert_eq!(
        (check.code, check.stdout.as_str()),
        (0, ""),
        "{}",
        check.stderr
    );
    let digest = v.run("wiki-digest", &["--agent", "ops", "--digest"]);
    digest.expect_code(0);
    assert_eq!(
        digest.stdout,
        v.read(".openclaw-wiki/cache/agents/ops/agent-digest.json")
    );
    // `wiki compile --agent` uses the same cache: nothing to do.
    let compile = v.run("wiki", &["--agent", "ops", "compile"]);
    compile.expect_code(0);
    assert_eq!(std::fs::read(&main_cache).unwrap(), before);
}

/// `wiki gc` removes the caches of agents whose branch was deleted, and nothing else: not those
/// of existing agents, not a directory that is not named like an agent id, not what a symbolic
/// link in the cache directory points to.
#[test]
fn gc_removes_the_caches_of_deleted_agent_branches() {
    let v = vault();
    for agent in ["keep", "gone"] {
        let op = r#"{"op":"add_question","page":"entity.alpha","question":"Q?"}"#;
        v.run_stdin("wiki-apply", &["--agent", agent], Some(op.as_bytes()))
            .expect_code(0);
        for root in [".openclaw-wiki/cache/agents", ".openclaw-wiki/tmp/agents"] {
            assert!(!v.files_under(&format!("{root}/{agent}")).is_empty());
        }
    }
    // Outside the vault, reached through a symbolic link named like an agent.
    let outside = v.temp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "mine").unwrap();
    std::os::unix::fs::symlink(&outside, v.path(".openclaw-wiki/cache/agents/linked")).unwrap();
    v.write(".openclaw-wiki/tmp/agents/Not An Id/file", "x");
    v.git(&["branch", "-D", "agents/gone"]);
    let keep_caches = || {
        [".openclaw-wiki/cache/agents", ".openclaw-wiki/tmp/agents"]
            .map(|root| v.files_under(&format!("{root}/keep")))
    };
    let kept = keep_caches();

    let r = v.run("wiki", &["gc", "--format", "jsonl"]);
    r.expect_code(0);
    let rec = &r.jsonl()[0];
    assert_eq!(
        rec["agentCachesRemoved"],
        serde_json::json!(["gone"]),
        "{rec}"
    );
    assert!(rec["agentCacheBytes"].as_u64().unwrap() > 1000, "{rec}");
    assert!(!v.exists(".openclaw-wiki/cache/agents/gone"));
    assert!(!v.exists(".openclaw-wiki/tmp/agents/gone"));
    assert!(
        keep_caches() == kept,
        "the caches of an existing agent changed"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("keep.txt")).unwrap(),
        "mine"
    );
    assert!(
        std::fs::symlink_metadata(v.path(".openclaw-wiki/cache/agents/linked"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(v.read(".openclaw-wiki/tmp/agents/Not An Id/file"), "x");
    assert_eq!(v.status(), "");

    // Nothing more to remove; the text form says what it removed only when it did.
    let r = v.run("wiki", &["gc", "--format", "jsonl"]);
    assert_eq!(r.jsonl()[0]["agentCachesRemoved"], serde_json::json!([]));
    // The deleted agent writes again: a new branch, caches rebuilt.
    let op = r#"{"op":"add_question","page":"entity.alpha","question":"Back?"}"#;
    v.run_stdin("wiki-apply", &["--agent", "gone"], Some(op.as_bytes()))
        .expect_code(0);
    assert_agent_files_are_its_branchs(&v, "gone");
    v.git(&["branch", "-D", "agents/gone"]);
    let r = v.run("wiki", &["gc", "--format", "text"]);
    r.expect_code(0);
    assert!(
        r.stdout
            .contains("removed the caches of 1 deleted agent branch (gone; "),
        "{}",
        r.stdout
    );
}

/// `wiki agent delete`: the branch (even a packed one) and the agent's caches go, nothing else;
/// the record names the tip, from which `wiki agent create --from` brings the agent back; the
/// checked-out branch, a missing agent and an invalid id are refused.
#[test]
fn agent_delete_removes_the_branch_and_its_caches_and_can_be_undone() {
    let v = vault();
    let op = r#"{"op":"add_question","page":"entity.alpha","question":"Q?"}"#;
    v.run_stdin("wiki-apply", &["--agent", "tmp"], Some(op.as_bytes()))
        .expect_code(0);
    let tip = rev(&v, "agents/tmp");
    let head = rev(&v, "HEAD");
    // The checked-out branch's compiled caches (not the agents').
    let main_caches = || -> Vec<_> {
        v.files_under(".openclaw-wiki/cache")
            .into_iter()
            .filter(|(p, _)| !p.starts_with(".openclaw-wiki/cache/agents/"))
            .collect()
    };
    let main_files = main_caches();
    // Search indexes: the agent's and the work tree's.
    v.run("wiki", &["--agent", "tmp", "search", "Alpha"])
        .expect_code(0);
    v.run("wiki", &["search", "Alpha"]).expect_code(0);
    let indexes = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(v.path(".openclaw-wiki/index"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("wiki-"))
            .collect();
        names.sort();
        names
    };
    let before = indexes();
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before[0].starts_with("wiki-agent-tmp-"), "{before:?}");
    let worktree_index = v.files_under(".openclaw-wiki/index/wiki-worktree");
    v.git(&["pack-refs", "--all"]);
    let r = v.run("wiki", &["agent", "delete", "tmp", "--format", "jsonl"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        format!(
            "{{\"type\":\"agent\",\"id\":\"tmp\",\"branch\":\"agents/tmp\",\"commit\":\"{tip}\",\"current\":false,\"deleted\":true}}\n"
        )
    );
    assert!(
        r.stderr
            .contains(&format!("`wiki agent create tmp --from {tip}` restores it")),
        "{}",
        r.stderr
    );
    assert_eq!(v.git(&["branch", "--list", "agents/*"]), "");
    assert!(!v.exists(".openclaw-wiki/cache/agents/tmp"));
    assert!(!v.exists(".openclaw-wiki/tmp/agents/tmp"));
    assert_eq!(indexes(), ["wiki-worktree"]);
    assert!(v.files_under(".openclaw-wiki/index/wiki-worktree") == worktree_index);
    assert!(main_caches() == main_files);
    assert_eq!(rev(&v, "HEAD"), head);
    assert_eq!(v.status(), "");
    v.git(&["fsck", "--strict", "--no-progress"]);

    let again = v.run("wiki", &["agent", "delete", "tmp"]);
    again.expect_code(2);
    assert!(
        again
            .stderr
            .contains("agent tmp does not exist: there is no branch agents/tmp"),
        "{}",
        again.stderr
    );
    // Undone: the branch is back at its tip, with its history.
    v.run("wiki", &["agent", "create", "tmp", "--from", &tip])
        .expect_code(0);
    assert_eq!(rev(&v, "agents/tmp"), tip);
    assert!(show(&v, "agents/tmp:entities/alpha.md").contains("  - Q?\n"));

    v.git(&["checkout", "-q", "agents/tmp"]);
    let busy = v.run("wiki", &["agent", "delete", "tmp"]);
    busy.expect_code(2);
    assert!(busy.stderr.contains("is checked out"), "{}", busy.stderr);
    assert_eq!(rev(&v, "agents/tmp"), tip);
    v.git(&["checkout", "-q", "main"]);
    v.run("wiki", &["agent", "delete", "a/../b"]).expect_code(2);
}

/// `wiki compile --agent ID` as an agent's first command starts from the checked-out branch's
/// compiled caches too: on a branch identical to the checked-out one it writes the agent's
/// caches without a commit; on a branch that differs, it compiles the branch (and commits).
#[test]
fn an_agent_first_compile_starts_from_the_checked_out_branch_caches() {
    let v = vault();
    v.run("wiki", &["compile"]).expect_code(0);
    v.run("wiki", &["agent", "create", "same"]).expect_code(0);
    let tip = rev(&v, "agents/same");
    let mut cmd = v.command("wiki");
    cmd.args(["--agent", "same", "compile"])
        .env("WIKI_COMPILE_TRACE", "1");
    let run = wiki_testkit::output(cmd, None);
    run.expect_code(0);
    assert!(run.stderr.contains("digest reused true"), "{}", run.stderr);
    assert_eq!(rev(&v, "agents/same"), tip, "nothing to commit");
    assert_agent_files_are_its_branchs(&v, "same");

    v.run("wiki", &["agent", "create", "old", "--from", "HEAD~1"])
        .expect_code(0);
    let old = rev(&v, "agents/old");
    v.run("wiki", &["--agent", "old", "compile"]).expect_code(0);
    assert_ne!(
        rev(&v, "agents/old"),
        old,
        "the uncompiled branch is compiled"
    );
    assert_agent_files_are_its_branchs(&v, "old");
}
