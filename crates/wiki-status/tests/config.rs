//! `wiki config show` and the typed OpenClaw config: precedence of the sources, validation
//! errors at the edge, and the render settings honoured by compile.

use wiki_testkit::{Run, Vault};

fn write_config(v: &Vault, body: &str) {
    let dir = v.home().join(".openclaw");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openclaw.json"), body).unwrap();
}

fn plugin_config(v: &Vault, body: &str) {
    write_config(
        v,
        &format!("{{ plugins: {{ entries: {{ 'memory-wiki': {{ config: {body} }} }} }} }}"),
    );
}

fn setting(run: &Run, key: &str) -> serde_json::Value {
    run.json()["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == key)
        .cloned()
        .unwrap_or_else(|| panic!("no setting {key}"))
}

#[test]
fn show_without_a_file_prints_every_default() {
    let v = Vault::new();
    let run = v.run("wiki", &["--vault", ".", "config", "show"]);
    run.expect_code(0);
    let home = v.home().display().to_string();
    assert!(
        run.stdout.starts_with(&format!(
            "Config file: {home}/.openclaw/openclaw.json (not found, defaults apply)\nVault: {} (flag: --vault)\nAgent: none (the checked-out branch) (default)\n\nplugins.entries.memory-wiki.config:\n",
            v.root.display()
        )),
        "{}",
        run.stdout
    );
    for line in [
        "  vaultMode                                 isolated",
        "  search.corpus                             wiki",
        "  ingest.maxConcurrentJobs                  1",
        "  unsafeLocal.paths                         []",
        "  obsidian.vaultName                        (unset)",
    ] {
        assert!(run.stdout.contains(line), "{line}\n{}", run.stdout);
    }
    assert!(
        run.stdout.ends_with(&format!(
            "\nAgents:\n  main (default): workspace {home}/.openclaw/workspace (default)\n"
        )),
        "{}",
        run.stdout
    );
    let json = v.run("wiki", &["--vault", ".", "config", "show", "--json"]);
    json.expect_code(0);
    let doc = json.json();
    assert_eq!(doc["file"]["found"], false);
    assert_eq!(doc["config"]["ingest"]["maxConcurrentJobs"], 1);
    assert_eq!(
        doc["config"]["vault"]["path"],
        format!("{home}/.openclaw/wiki/main")
    );
    assert_eq!(doc["settings"].as_array().unwrap().len(), 26);
    assert_eq!(
        setting(&json, "render.createDashboards")["source"],
        "default"
    );
}

#[test]
fn file_values_and_their_sources() {
    let v = Vault::new();
    plugin_config(
        &v,
        "{ vaultMode: 'bridge', search: { corpus: 'all' }, bridge: { enabled: true }, unsafeLocal: { paths: ['~/p'] } }",
    );
    let run = v.run("wiki", &["--vault", ".", "config", "show", "--json"]);
    run.expect_code(0);
    assert_eq!(setting(&run, "search.corpus")["value"], "all");
    assert_eq!(setting(&run, "search.corpus")["source"], "file");
    assert_eq!(setting(&run, "search.backend")["source"], "default");
    assert_eq!(setting(&run, "vaultMode")["value"], "bridge");
    assert_eq!(
        setting(&run, "unsafeLocal.paths")["value"],
        serde_json::json!([v.home().join("p").display().to_string()])
    );
    assert_eq!(run.json()["file"]["found"], true);
}

#[test]
fn vault_precedence_flag_env_detected_file_default() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    let other = v.temp().join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    plugin_config(
        &v,
        &format!("{{ vault: {{ path: '{}' }} }}", other.display()),
    );
    let vault_of = |cmd: &mut std::process::Command| {
        let run = wiki_testkit::output(
            std::mem::replace(cmd, std::process::Command::new("true")),
            None,
        );
        run.expect_code(0);
        let doc = run.json();
        (
            doc["vault"]["path"].as_str().unwrap().to_string(),
            doc["vault"]["source"].as_str().unwrap().to_string(),
        )
    };
    // Outside any vault: the config file's vault.path.
    let mut cmd = v.command("wiki");
    cmd.args(["config", "show", "--json"]).current_dir(v.home());
    assert_eq!(
        vault_of(&mut cmd),
        (other.display().to_string(), "file".into())
    );
    // Inside a vault: the enclosing vault wins over the file.
    let mut cmd = v.command("wiki");
    cmd.args(["config", "show", "--json"]);
    assert_eq!(
        vault_of(&mut cmd),
        (v.root.display().to_string(), "detected".into())
    );
    // $WIKI_VAULT wins over the enclosing vault.
    let mut cmd = v.command("wiki");
    cmd.args(["config", "show", "--json"])
        .env("WIKI_VAULT", "/srv/env-vault");
    assert_eq!(
        vault_of(&mut cmd),
        ("/srv/env-vault".into(), "environment".into())
    );
    // --vault wins over everything.
    let mut cmd = v.command("wiki");
    cmd.args(["--vault", "/srv/flag-vault", "config", "show", "--json"])
        .env("WIKI_VAULT", "/srv/env-vault");
    assert_eq!(
        vault_of(&mut cmd),
        ("/srv/flag-vault".into(), "flag".into())
    );
    // No file: the default under $OPENCLAW_STATE_DIR.
    let state = v.temp().join("state");
    let mut cmd = v.command("wiki");
    cmd.args(["config", "show", "--json"])
        .current_dir(v.home())
        .env("OPENCLAW_STATE_DIR", &state);
    assert_eq!(
        vault_of(&mut cmd),
        (
            state.join("wiki/main").display().to_string(),
            "default".into()
        )
    );
}

#[test]
fn agent_precedence_and_workspaces() {
    let v = Vault::new();
    write_config(
        &v,
        "{ plugins: { entries: { 'memory-wiki': { config: { vault: { scope: 'agent' } } } } },
           agents: { defaults: { workspace: '/srv/ws' },
                     list: [ { id: 'support', default: true }, { id: 'Ops Team', workspace: '~/ops' } ] } }",
    );
    let run = v.run("wiki", &["--vault", ".", "config", "show", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["agent"]["id"], "support");
    assert_eq!(doc["agent"]["source"], "file");
    let agents = doc["agents"].as_array().unwrap();
    assert_eq!(agents[0]["id"], "support");
    assert_eq!(agents[0]["workspace"], "/srv/ws/support");
    assert_eq!(agents[1]["id"], "ops-team");
    assert_eq!(
        agents[1]["workspace"],
        v.home().join("ops").display().to_string()
    );
    let mut cmd = v.command("wiki");
    cmd.args(["--vault", ".", "config", "show", "--json"])
        .env("WIKI_AGENT", "ops-team");
    let env = wiki_testkit::output(cmd, None);
    assert_eq!(env.json()["agent"]["id"], "ops-team");
    assert_eq!(env.json()["agent"]["source"], "environment");
    let mut cmd = v.command("wiki");
    cmd.args([
        "--vault", ".", "--agent", "Support", "config", "show", "--json",
    ])
    .env("WIKI_AGENT", "ops-team");
    let flag = wiki_testkit::output(cmd, None);
    assert_eq!(flag.json()["agent"]["id"], "support");
    assert_eq!(flag.json()["agent"]["source"], "flag");
    let text = v.run("wiki", &["--vault", ".", "config", "show"]);
    assert!(
        text.stdout
            .contains("Agent: support (file: vault.scope: agent, the default agent)\n"),
        "{}",
        text.stdout
    );
}

#[test]
fn an_invalid_config_stops_every_command_with_the_key_path() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    let file = v.home().join(".openclaw/openclaw.json");
    plugin_config(&v, "{ search: { corpus: 'everything' } }");
    for args in [
        &["config", "show"][..],
        &["compile"][..],
        &["search", "x"][..],
    ] {
        let run = v.run("wiki", args);
        run.expect_code(2);
        assert_eq!(
            run.stderr,
            format!(
                "wiki: error: {}: plugins.entries.memory-wiki.config.search.corpus: expected one of wiki, memory, all (found \"everything\")\n",
                file.display()
            ),
            "{args:?}"
        );
    }
    plugin_config(&v, "{ ingest: { autoCompile: true, paralel: 2 } }");
    let run = v.run("wiki", &["config", "show"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("plugins.entries.memory-wiki.config.ingest.paralel: unknown key (expected one of: autoCompile, maxConcurrentJobs, allowUrlIngest)"),
        "{}",
        run.stderr
    );
    write_config(&v, "{ plugins: {\n  entries: [,\n}");
    let run = v.run("wiki", &["config", "show"]);
    run.expect_code(2);
    assert!(
        run.stderr.starts_with(&format!(
            "wiki: error: {}:2:13: invalid JSON5 config:",
            file.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn compile_honours_the_render_settings() {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write(
        "entities/a.md",
        "---\nid: entity.a\npageType: entity\ntitle: A\n---\n# A\n\nSee [B](b.md).\n",
    );
    v.write(
        "entities/b.md",
        "---\nid: entity.b\npageType: entity\ntitle: B\n---\n# B\n",
    );
    v.commit_all("pages");
    plugin_config(
        &v,
        "{ vault: { renderMode: 'obsidian' }, render: { createDashboards: false } }",
    );
    v.run("wiki", &["compile"]).expect_code(0);
    assert!(!v.exists("reports/open-questions.md"), "dashboards off");
    assert!(
        v.read("entities/b.md").contains("[[entities/a|A]]"),
        "{}",
        v.read("entities/b.md")
    );
    plugin_config(&v, "{ render: { createBacklinks: false } }");
    v.write(
        "entities/c.md",
        "---\nid: entity.c\npageType: entity\ntitle: C\n---\n# C\n\nSee [B](b.md).\n",
    );
    v.commit_all("c");
    v.run("wiki", &["compile"]).expect_code(0);
    assert!(v.exists("reports/open-questions.md"), "dashboards back on");
    assert!(
        !v.read("entities/b.md").contains("entities/c"),
        "{}",
        v.read("entities/b.md")
    );
}
