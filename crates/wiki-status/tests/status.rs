//! `wiki status`, `wiki doctor` and `wiki context` on healthy and broken vaults: exact texts,
//! JSON shapes, warning codes, fixes and exit codes.

use std::path::Path;

use wiki_testkit::Vault;

fn golden(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden/original")
        .join(rel)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn write_config(v: &Vault, plugin: &str) {
    let dir = v.home().join(".openclaw");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openclaw.json"),
        format!("{{ plugins: {{ entries: {{ 'memory-wiki': {{ config: {plugin} }} }} }} }}"),
    )
    .unwrap();
}

/// A vault after `wiki init` and `wiki compile`.
fn compiled_vault() -> Vault {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write(
        "entities/alpha.md",
        "---\npageType: entity\nid: entity.alpha\ntitle: Alpha\nclaims:\n  - id: claim.alpha.db\n    text: Alpha uses PostgreSQL.\n    status: supported\n    confidence: 0.9\n    updatedAt: 2026-04-01T00:00:00.000Z\nquestions:\n  - Still active?\n---\n# Alpha\n",
    );
    v.write(
        "sources/notes.md",
        "---\npageType: source\nid: source.notes\ntitle: Notes\nsourceType: local-file\n---\n# Notes\n",
    );
    v.commit_all("pages");
    v.run("wiki", &["compile"]).expect_code(0);
    v
}

const ORIGINAL_LINES: &str = "Wiki vault mode: isolated
Vault scope: global
Vault: ready (ROOT)
Render mode: native
Obsidian CLI: missing
Bridge: disabled
Unsafe local: disabled
Pages: 1 sources, 1 entities, 0 concepts, 0 syntheses, 9 reports
Source provenance: 0 native, 0 bridge, 0 bridge-events, 0 unsafe-local, 1 other
";

#[test]
fn healthy_vault_status_and_doctor() {
    let v = compiled_vault();
    let root = v.root.canonicalize().unwrap().display().to_string();
    let run = v.run("wiki", &["status"]);
    run.expect_code(0);
    let original = ORIGINAL_LINES.replace("ROOT", &root);
    assert!(run.stdout.starts_with(&original), "{}", run.stdout);
    let rest = &run.stdout[original.len()..];
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines[0], "Branch: main");
    assert_eq!(lines[1], "Uncommitted changes: none");
    assert_eq!(lines[2], "Compiled files: current");
    assert_eq!(lines[3], "Compiled digest: current");
    assert_eq!(
        lines[4],
        "Search index: missing (the first search builds it)"
    );
    assert_eq!(lines[5], "Search server: not running");
    assert!(lines[6].starts_with("Repository: "), "{}", lines[6]);
    assert_eq!(lines.len(), 7, "no warnings: {rest}");

    let doctor = v.run("wiki", &["doctor"]);
    doctor.expect_code(0);
    assert_eq!(
        doctor.stdout,
        format!("Wiki doctor: healthy\n\n{}", run.stdout)
    );
    let json = v.run("wiki", &["doctor", "--json"]);
    json.expect_code(0);
    let doc = json.json();
    assert_eq!(doc["healthy"], true);
    assert_eq!(doc["warningCount"], 0);
    assert_eq!(doc["fixes"], serde_json::json!([]));
    assert_eq!(doc["status"]["compiled"]["current"], true);
    assert_eq!(doc["status"]["git"]["branch"], "main");

    // A search builds the index; an edit makes it stale.
    v.run("wiki", &["search", "alpha"]).expect_code(0);
    let fresh = v.run("wiki", &["status"]);
    assert!(
        fresh.stdout.contains("\nSearch index: fresh ("),
        "{}",
        fresh.stdout
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    v.write(
        "entities/alpha.md",
        v.read("entities/alpha.md").replace("# Alpha", "# Alpha!"),
    );
    let stale = v.run("wiki", &["status"]);
    assert!(
        stale.stdout.contains("\nSearch index: stale (1 of "),
        "{}",
        stale.stdout
    );
}

#[test]
fn status_json_has_the_original_shape_first() {
    let v = compiled_vault();
    let run = v.run("wiki", &["status", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "vaultScope",
            "agentId",
            "vaultMode",
            "renderMode",
            "vaultPath",
            "vaultExists",
            "bridge",
            "bridgePublicArtifactCount",
            "obsidianCli",
            "unsafeLocal",
            "pageCounts",
            "sourceCounts",
            "warnings",
            "git",
            "compiled",
            "searchIndex",
            "searchServer"
        ]
    );
    // The original's fields, as the original prints them for the same settings.
    let original: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(golden(
            "2026.9.6-native/commands/04-status-empty-json.stdout",
        ))
        .unwrap(),
    )
    .unwrap();
    for key in [
        "vaultScope",
        "agentId",
        "vaultMode",
        "renderMode",
        "vaultExists",
        "bridge",
        "bridgePublicArtifactCount",
        "obsidianCli",
        "unsafeLocal",
        "warnings",
    ] {
        assert_eq!(doc[key], original[key], "{key}");
    }
    assert_eq!(doc["pageCounts"]["report"], 9);
    assert_eq!(doc["sourceCounts"]["other"], 1);
}

#[test]
fn a_vault_compiled_by_the_original_reads_like_the_original() {
    let v = Vault::with_git();
    copy_dir(&golden("2026.6.11-native/after-lint"), &v.root);
    v.run("wiki", &["init", "."]).expect_code(0);
    v.commit_all("vault written by the original plugin");
    let run = v.run("wiki", &["status"]);
    run.expect_code(0);
    let root = v.root.canonicalize().unwrap().display().to_string();
    let original = std::fs::read_to_string(golden("2026.6.11-native/commands/19-status.stdout"))
        .unwrap()
        .replace("/tmp/owg/2026.6.11-native/rich/vault", &root);
    let mut want: Vec<&str> = original.lines().collect();
    want.insert(1, "Vault scope: global");
    let got: Vec<&str> = run.stdout.lines().take(want.len()).collect();
    assert_eq!(got, want, "{}", run.stdout);
    // The original's lint wrote reports/lint.md without refreshing the indexes that list it.
    assert!(
        run.stdout.contains("\n- Compiled files are stale: a compile would change 2 file(s): index.md, reports/index.md.\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn fresh_vault_needs_a_compile() {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    let run = v.run("wiki", &["doctor"]);
    run.expect_code(1);
    assert!(
        run.stdout.starts_with("Wiki doctor: 1 issue(s) found\n\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "\nWarnings:\n- Compiled files are stale: a compile would change 15 file(s): "
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("\nSuggested fixes:\n- Run `wiki compile`.\n"),
        "{}",
        run.stdout
    );
    // status itself always exits 0 and writes nothing.
    let before = v.git(&["rev-parse", "HEAD"]);
    v.run("wiki", &["status"]).expect_code(0);
    assert_eq!(v.git(&["rev-parse", "HEAD"]), before);
    assert_eq!(v.status(), "");
    v.run("wiki", &["compile"]).expect_code(0);
    v.run("wiki", &["doctor"]).expect_code(0);
}

#[test]
fn missing_vault() {
    let v = Vault::new();
    let gone = v.temp().join("nowhere");
    let gone_s = gone.display().to_string();
    let run = v.run("wiki", &["--vault", &gone_s, "status"]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains(&format!("\nVault: missing ({gone_s})\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("\nWarnings:\n- Wiki vault has not been initialized yet.\n"),
        "{}",
        run.stdout
    );
    let run = v.run("wiki", &["--vault", &gone_s, "doctor", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(doc["healthy"], false);
    assert_eq!(
        doc["fixes"],
        serde_json::json!([{"code": "vault-missing", "message": format!("Run `wiki init {gone_s}` to create the vault layout.")}])
    );
    assert_eq!(
        doc["status"]["warnings"],
        serde_json::json!([{"code": "vault-missing", "message": "Wiki vault has not been initialized yet."}])
    );
}

#[test]
fn broken_vault_findings_and_fixes() {
    let v = compiled_vault();
    v.write("concepts/bad.md", "---\ntitle: [unclosed\n---\n# Bad\n");
    v.write(
        "entities/alpha.md",
        v.read("entities/alpha.md")
            .replace("title: Alpha", "title: Alpha Prime"),
    );
    let run = v.run("wiki", &["doctor", "--json"]);
    run.expect_code(1);
    let doc = run.json();
    let codes: Vec<&str> = doc["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["uncommitted-changes", "page-errors", "compiled-stale"]
    );
    let root = v.root.canonicalize().unwrap().display().to_string();
    assert_eq!(
        doc["fixes"][0]["message"],
        format!(
            "Record them as a commit: `git -C {root} add -A . && git -C {root} commit -m 'Hand edits'` (or undo them with `git -C {root} restore .`)."
        )
    );
    assert_eq!(
        doc["fixes"][1]["message"],
        "Fix their frontmatter (`wiki lint` lists each problem with its line)."
    );
    assert_eq!(
        doc["status"]["git"]["uncommitted"],
        serde_json::json!(["concepts/bad.md", "entities/alpha.md"])
    );
    let text = v.run("wiki", &["doctor"]);
    text.expect_code(1);
    assert!(
        text.stdout.starts_with("Wiki doctor: 3 issue(s) found\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(
            "\n- 1 page(s) cannot be read or parsed: concepts/bad.md:3: invalid YAML frontmatter"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn config_warnings_of_the_original() {
    let v = compiled_vault();
    let cases = [
        (
            "{ vaultMode: 'bridge' }",
            "bridge-disabled",
            "Enable `plugins.entries.memory-wiki.config.bridge.enabled` or switch vaultMode away from `bridge`.",
        ),
        (
            "{ vaultMode: 'unsafe-local' }",
            "unsafe-local-disabled",
            "Enable `unsafeLocal.allowPrivateMemoryCoreAccess` or switch vaultMode away from `unsafe-local`.",
        ),
        (
            "{ vaultMode: 'unsafe-local', unsafeLocal: { allowPrivateMemoryCoreAccess: true } }",
            "unsafe-local-paths-missing",
            "Add explicit `unsafeLocal.paths` entries before running unsafe-local imports.",
        ),
        (
            "{ unsafeLocal: { allowPrivateMemoryCoreAccess: true, paths: ['/x'] } }",
            "unsafe-local-without-mode",
            "Disable private memory-core access unless you explicitly want unsafe-local mode.",
        ),
        (
            "{ obsidian: { enabled: true, useOfficialCli: true } }",
            "obsidian-cli-missing",
            "Install the official Obsidian CLI or disable `obsidian.useOfficialCli`.",
        ),
        (
            "{ vaultMode: 'bridge', bridge: { enabled: true } }",
            "bridge-artifacts-missing",
            "Use a memory plugin that exports public artifacts, create/import memory artifacts first, or switch the wiki back to isolated mode.",
        ),
    ];
    for (config, code, fix) in cases {
        write_config(&v, config);
        let mut cmd = v.command("wiki");
        cmd.args(["doctor", "--json"]).env("PATH", "/usr/bin:/bin");
        let run = wiki_testkit::output(cmd, None);
        run.expect_code(1);
        let doc = run.json();
        assert_eq!(
            doc["fixes"],
            serde_json::json!([{"code": code, "message": fix}]),
            "{config}"
        );
    }
    // Bridge mode with artifacts in the workspace: counted, no warning.
    write_config(&v, "{ vaultMode: 'bridge', bridge: { enabled: true } }");
    let ws = v.home().join(".openclaw/workspace");
    std::fs::create_dir_all(ws.join("memory/.dreams")).unwrap();
    std::fs::write(ws.join("MEMORY.md"), "# Memory\n").unwrap();
    std::fs::write(ws.join("memory/2026-04-01.md"), "note\n").unwrap();
    std::fs::write(ws.join("memory/.dreams/private.md"), "hidden\n").unwrap();
    std::fs::write(ws.join("memory/.dreams/events.jsonl"), "{}\n").unwrap();
    let run = v.run("wiki", &["status"]);
    assert!(
        run.stdout
            .contains("\nBridge: enabled (3 exported artifact(s))\n"),
        "{}",
        run.stdout
    );
    v.run("wiki", &["doctor"]).expect_code(0);
}

#[test]
fn doctor_reports_an_invalid_config() {
    let v = compiled_vault();
    write_config(&v, "{ search: { corpus: 'everything' } }");
    let run = v.run("wiki", &["doctor"]);
    run.expect_code(1);
    let file = v.home().join(".openclaw/openclaw.json");
    assert_eq!(
        run.stdout,
        format!(
            "Wiki doctor: 1 issue(s) found\n\nThe OpenClaw config is invalid: {}: plugins.entries.memory-wiki.config.search.corpus: expected one of wiki, memory, all (found \"everything\")\n\nSuggested fixes:\n- Fix or remove the key named above (`wiki config show` checks the file again).\n",
            file.display()
        )
    );
    v.run("wiki", &["status"]).expect_code(2);
}

#[test]
fn status_as_an_agent() {
    let v = compiled_vault();
    let run = v.run("wiki", &["--agent", "ops", "status"]);
    run.expect_code(0);
    assert!(
        run.stdout.contains(
            "\nBranch: main (agent ops reads and writes agents/ops, created by its first write)\n"
        ),
        "{}",
        run.stdout
    );
    let run = v.run("wiki", &["--agent", "ops", "doctor", "--json"]);
    let doc = run.json();
    assert_eq!(doc["status"]["agentId"], "ops");
    assert_eq!(doc["status"]["git"]["targetBranch"], "agents/ops");
    assert_eq!(doc["status"]["git"]["targetExists"], false);
}

#[test]
fn context_prints_guidance_and_the_snapshot() {
    let v = compiled_vault();
    let run = v.run("wiki", &["context", "--tools", "wiki_search,wiki_get"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "## Compiled Wiki\n\
         Use the wiki when the answer depends on accumulated project knowledge, prior syntheses, entity pages, or source-backed notes that should survive beyond one conversation.\n\
         Workflow: `wiki_search` first, then `wiki_get` for the exact page or imported memory file you need. Use this when you want wiki-specific ranking or provenance details instead of the broader shared memory flow.\n\
         \n\
         ## Compiled Wiki Snapshot\n\
         Compiled wiki currently tracks 1 claims across 1 high-signal pages.\n\
         Contradiction clusters: 0.\n\
         - Alpha: entity, 1 claims, 1 open questions\n\
         \x20 - Alpha uses PostgreSQL. (status supported, confidence 0.90, freshness fresh)\n\
         \n"
    );
    let small = v.run("wiki", &["context", "--tools", "", "--max-chars", "80"]);
    small.expect_code(0);
    assert_eq!(small.stdout, "");
    let json = v.run("wiki", &["context", "--json", "--tools="]);
    assert_eq!(json.json()["guidance"], serde_json::json!([]));
    assert_eq!(json.json()["snapshot"][0], "## Compiled Wiki Snapshot");
    // Without a compiled digest: guidance only.
    std::fs::remove_file(v.path(".openclaw-wiki/cache/agent-digest.json")).unwrap();
    let bare = v.run("wiki", &["context", "--tools", "wiki_lint"]);
    assert!(
        bare.stdout.ends_with("before trusting the vault.\n\n"),
        "{}",
        bare.stdout
    );
}
