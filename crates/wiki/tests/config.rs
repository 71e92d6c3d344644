//! The OpenClaw config (`~/.openclaw/openclaw.json`): `vault.path` and `vault.scope: agent`.

use wiki_testkit::Vault;

fn write_config(v: &Vault, body: &str) {
    let dir = v.home().join(".openclaw");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openclaw.json"), body).unwrap();
}

#[test]
fn configured_vault_path_is_used_outside_a_vault() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write("entities/a.md", "---\nid: entity.a\n---\n# A\n");
    write_config(
        &v,
        &format!(
            "// JSON5\n{{ plugins: {{ entries: {{ 'memory-wiki': {{ config: {{ vault: {{ path: '{}' }} }} }} }} }} }}\n",
            v.root.display()
        ),
    );
    let mut cmd = v.command("wiki-parse");
    cmd.current_dir(v.home());
    let run = wiki_testkit::output(cmd, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("\"id\":\"entity.a\""), "{}", run.stdout);
}

#[test]
fn agent_scope_commits_to_the_configured_agent_branch() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write(
        "entities/a.md",
        "---\nid: entity.a\npageType: entity\n---\n# A\n",
    );
    v.commit_all("a page");
    let main_before = v.git(&["rev-parse", "main"]);
    write_config(
        &v,
        "{ plugins: { entries: { 'memory-wiki': { config: { vault: { scope: 'agent' } } } } }, agents: { list: [ { id: ' Support Team ' } ] } }",
    );
    v.run("wiki", &["compile"]).expect_code(0);
    assert_eq!(
        v.git(&["rev-parse", "main"]),
        main_before,
        "main must not move"
    );
    let log = v.git(&[
        "log",
        "--format=%(trailers:key=Wiki-Agent,valueonly)",
        "-1",
        "agents/support-team",
    ]);
    assert_eq!(log.trim(), "support-team");
    assert_eq!(v.status(), "");
}

#[test]
fn agent_scope_with_several_agents_needs_one() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    write_config(
        &v,
        "{ plugins: { entries: { 'memory-wiki': { config: { vault: { scope: 'agent' } } } } }, agents: { entries: { support: {}, marketing: {} } } }",
    );
    let run = v.run("wiki", &["compile"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("No default memory-wiki agent is configured. Pass --agent <id>, or add an agent with `openclaw agents add`."),
        "{}",
        run.stderr
    );
    let run = v.run("wiki", &["--agent", "finance", "compile"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("Unknown memory-wiki agentId: finance."),
        "{}",
        run.stderr
    );
    v.run("wiki", &["--agent", "Marketing", "compile"])
        .expect_code(0);
    assert!(
        v.git(&["branch", "--list", "agents/marketing"])
            .contains("agents/marketing")
    );
}

#[test]
fn invalid_config_is_a_clear_error() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    write_config(
        &v,
        "{ plugins: { entries: { 'memory-wiki': { config: { vaultMode: 'unsafe-local', vault: { scope: 'agent' } } } } } }",
    );
    let run = v.run("wiki", &["compile"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("vaultMode=unsafe-local cannot be combined with vault.scope=agent"),
        "{}",
        run.stderr
    );
}
