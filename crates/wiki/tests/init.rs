//! `wiki init` and the dispatcher.

use wiki_testkit::{NOW, Vault};

const AGENTS: &str = "# Memory Wiki Agent Guide\n\n- Treat generated blocks as plugin-owned.\n- Preserve human notes outside managed markers.\n- Prefer source-backed claims over wiki-to-wiki citation loops.\n- Prefer structured `claims` with evidence over burying key beliefs only in prose.\n- Use `.openclaw-wiki/cache/agent-digest.json` and `claims.jsonl` for machine reads; markdown pages are the human view.\n";

#[test]
fn init_creates_layout_byte_for_byte_and_one_commit() {
    let v = Vault::new();
    let run = v.run("wiki", &["init", "."]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        format!(
            "Initialized wiki vault at {} (10 dirs, 7 files).\n",
            std::fs::canonicalize(&v.root).unwrap().display()
        )
    );
    for dir in [
        "entities",
        "concepts",
        "syntheses",
        "sources",
        "reports",
        "_attachments",
        "_views",
        ".openclaw-wiki",
        ".openclaw-wiki/locks",
        ".openclaw-wiki/cache",
    ] {
        assert!(v.path(dir).is_dir(), "{dir}");
    }
    assert_eq!(v.read("AGENTS.md"), AGENTS);
    assert_eq!(
        v.read("index.md"),
        "# Wiki Index\n\n## Generated\n<!-- openclaw:wiki:index:start -->\n- No compiled pages yet.\n<!-- openclaw:wiki:index:end -->\n"
    );
    assert_eq!(
        v.read("inbox.md"),
        "# Inbox\n\nDrop raw ideas, questions, and source links here.\n"
    );
    assert_eq!(
        v.read(".openclaw-wiki/state.json"),
        format!(
            "{{\n  \"version\": 1,\n  \"createdAt\": \"{NOW}\",\n  \"renderMode\": \"native\"\n}}\n"
        )
    );
    assert!(v.read("WIKI.md").contains("- Render mode: `native`\n"));
    assert!(
        v.read("WIKI.md")
            .ends_with("## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n")
    );
    let log = v.read(".openclaw-wiki/log.jsonl");
    assert_eq!(log.lines().count(), 1);
    assert!(log.starts_with(&format!("{{\"type\":\"init\",\"timestamp\":\"{NOW}\"")));
    // git: one commit with trailers, clean status, fsck clean.
    assert_eq!(v.commit_count(), 1);
    let msg = v.git(&["log", "--format=%B"]);
    assert!(
        msg.starts_with("Initialize wiki vault\n\nWiki-Op: init\nWiki-Page: AGENTS.md\n"),
        "{msg}"
    );
    let trailers = v.git(&["log", "--format=%(trailers:key=Wiki-Op,valueonly)"]);
    assert_eq!(trailers.trim(), "init");
    assert_eq!(v.status(), "");
    v.git(&["fsck", "--strict"]);
    let tracked = v.git(&["ls-files"]);
    assert_eq!(
        tracked,
        ".gitignore\n.openclaw-wiki/state.json\nAGENTS.md\nWIKI.md\ninbox.md\nindex.md\n"
    );
}

#[test]
fn init_is_idempotent() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    let head = v.git(&["rev-parse", "HEAD"]);
    let run = v.run("wiki", &["init", ".", "--json"]);
    run.expect_code(0);
    let res = run.json();
    assert_eq!(res["created"], false);
    assert_eq!(res["createdFiles"], serde_json::json!([]));
    assert_eq!(res["createdDirectories"], serde_json::json!([]));
    assert!(res.get("commit").is_none());
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(v.read(".openclaw-wiki/log.jsonl").lines().count(), 1);
}

#[test]
fn init_never_overwrites_and_obsidian_mode() {
    let v = Vault::new();
    v.write("AGENTS.md", "# Mine\n");
    v.write(".gitignore", "node_modules\n");
    v.run("wiki", &["init", ".", "--render-mode", "obsidian"])
        .expect_code(0);
    assert_eq!(v.read("AGENTS.md"), "# Mine\n");
    assert!(v.read("WIKI.md").contains("- Render mode: `obsidian`"));
    assert!(
        v.read(".openclaw-wiki/state.json")
            .contains("\"renderMode\": \"obsidian\"")
    );
    let gi = v.read(".gitignore");
    assert!(gi.starts_with("node_modules\n# Derived"), "{gi}");
    assert!(gi.contains(".openclaw-wiki/index/\n"));
    // The hand-made AGENTS.md stays untracked, untouched.
    assert_eq!(v.status(), "?? AGENTS.md\n");
}

#[test]
fn init_inside_existing_repository_as_subfolder() {
    let v = Vault::with_git();
    v.write("README.md", "project\n");
    v.commit_all("project");
    let run = v.run("wiki", &["init", "notes/wiki"]);
    run.expect_code(0);
    assert!(!v.exists("notes/wiki/.git"));
    assert_eq!(v.commit_count(), 2);
    let files = v.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(files.contains("notes/wiki/AGENTS.md"), "{files}");
    assert!(
        files.lines().all(|l| l.starts_with("notes/wiki/")),
        "{files}"
    );
    assert_eq!(v.status(), "");
    assert_eq!(v.read("README.md"), "project\n");
}

#[test]
fn init_errors() {
    let v = Vault::new();
    v.write("afile", "x");
    let run = v.run("wiki", &["init", "afile"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("afile: exists and is not a directory"),
        "{}",
        run.stderr
    );
    let run = v.run("wiki", &["init", "--render-mode", "fancy"]);
    run.expect_code(2);
    let run = v.run("wiki", &["init", "--bogus"]);
    run.expect_code(2);
}

#[test]
fn dispatcher_runs_external_commands_and_agrees_with_components() {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write("entities/a.md", "---\nid: entity.a\n---\n# A\n");
    // Built-in and component binary agree.
    let a = v.run("wiki", &["--vault", ".", "parse"]);
    let b = v.run("wiki-parse", &["--vault", "."]);
    a.expect_code(0);
    assert_eq!(a.stdout, b.stdout);
    // External command on PATH, with globals passed through the environment.
    let bin = v.temp().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("wiki-hello");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"hello $1 vault=$WIKI_VAULT\"\nexit 3\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut cmd = v.command("wiki");
    cmd.args(["--vault", "/some/vault", "hello", "world"]).env(
        "PATH",
        format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
    );
    let run = wiki_testkit::output(cmd, None);
    assert_eq!(run.code, 3);
    assert_eq!(run.stdout, "hello world vault=/some/vault\n");
    let run = v.run("wiki", &["no-such-command"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("'no-such-command' is not a wiki command"),
        "{}",
        run.stderr
    );
    let run = v.run("wiki", &["--help"]);
    run.expect_code(0);
    assert!(run.stdout.contains("init") && run.stdout.contains("parse"));
}

#[test]
fn init_files_match_the_original_plugin() {
    // Golden bytes captured from openclaw 2026.6.11 (the last release writing the file caches).
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden/original/2026.6.11-native/after-init-empty");
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    for f in ["AGENTS.md", "WIKI.md", "index.md", "inbox.md"] {
        let expected = std::fs::read_to_string(golden.join(f)).unwrap();
        assert_eq!(v.read(f), expected, "{f}");
    }
}
