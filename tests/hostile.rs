//! Hostile vaults and inputs (issue 28): a page or cache file built to break the tools gives a
//! clear `path:line: message` for that file and a documented exit code, and every other page is
//! processed as usual; nothing the user wrote is lost.

use wiki_testkit::{Vault, page};

/// A committed vault of two small pages (`wiki init` layout, compiled).
fn small_vault() -> Vault {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write(
        "entities/alpha.md",
        page(
            &[
                "id: entity.alpha",
                "pageType: entity",
                "title: Alpha",
                "claims:",
                "  - id: claim.alpha.db",
                "    text: Alpha uses PostgreSQL.",
            ],
            "# Alpha\n\nAlpha runs the billing database.\n",
        ),
    );
    v.write(
        "concepts/beta.md",
        page(
            &["id: concept.beta", "pageType: concept", "title: Beta"],
            "# Beta\n\nBeta is a concept about billing.\n",
        ),
    );
    v.commit_all("pages");
    v.run("wiki", &["compile"]).expect_code(0);
    v
}

/// A page whose frontmatter nests `depth` block mappings under `extra`.
fn deeply_nested_page(depth: usize) -> String {
    let mut lines = vec![
        "id: concept.deep".to_string(),
        "pageType: concept".to_string(),
        "title: Deep".to_string(),
        "extra:".to_string(),
    ];
    for level in 1..=depth {
        lines.push(format!("{}k{level}:", "  ".repeat(level)));
    }
    lines.push(format!("{}leaf: 1", "  ".repeat(depth + 1)));
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    page(&lines, "# Deep\n")
}

#[test]
fn deeply_nested_yaml_is_an_error_of_its_page_only() {
    let v = small_vault();
    v.write("concepts/deep.md", deeply_nested_page(3_300));
    v.commit_all("a deep page");
    let error = "concepts/deep.md:133: invalid YAML frontmatter: nested deeper than 128 levels";

    let run = v.run("wiki-parse", &[]);
    run.expect_code(1);
    assert_eq!(run.stderr, format!("wiki-parse: {error}\n"));
    let records = run.jsonl();
    let kinds: Vec<String> = records
        .iter()
        .filter(|r| {
            !r["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("reports/"))
        })
        .map(|r| format!("{} {}", r["type"], r["path"]))
        .collect();
    assert_eq!(
        kinds,
        [
            r#""page" "entities/alpha.md""#,
            r#""page" "concepts/beta.md""#,
            r#""error" "concepts/deep.md""#,
        ]
    );

    let run = v.run("wiki-lint", &["--format", "text"]);
    run.expect_code(1);
    let lint = run
        .stdout
        .lines()
        .filter(|l| l.contains("deep.md"))
        .collect::<Vec<_>>();
    assert_eq!(
        lint,
        [
            "concepts/deep.md:133: invalid-frontmatter: Frontmatter failed to parse: nested deeper than 128 levels"
        ]
    );
    assert!(
        run.stdout.ends_with("1 error, 6 warnings in 12 pages\n"),
        "{}",
        run.stdout
    );

    let run = v.run("wiki", &["search", "billing", "--json"]);
    run.expect_code(0);
    assert_eq!(
        run.json().as_array().map(Vec::len),
        Some(2),
        "{}",
        run.stdout
    );

    let op = r#"{"op":"add_question","page":"concepts/beta.md","question":"Who pays?"}"#;
    let run = v.run_stdin("wiki-apply", &[], Some(op.as_bytes()));
    run.expect_code(0);
    assert!(v.read("concepts/beta.md").contains("Who pays?"));

    let run = v.run("wiki", &["compile"]);
    run.expect_code(0);
    assert_eq!(run.stderr, format!("{error}\n"));
}

#[test]
fn get_reports_the_parse_error_of_the_page_it_names() {
    let v = small_vault();
    v.write(
        "concepts/broken.md",
        "---\nid: concept.broken\ntitle: [unclosed\n---\n\n# Broken\n",
    );
    v.commit_all("a broken page");
    let error = "concepts/broken.md:4: invalid YAML frontmatter: did not find expected ',' or ']'";
    for lookup in ["concepts/broken.md", "concepts/broken", "broken"] {
        let run = v.run("wiki", &["get", lookup]);
        run.expect_code(1);
        assert_eq!(run.stdout, "");
        assert_eq!(run.stderr, format!("wiki: {error}\n"));
    }
    let run = v.run("wiki", &["get", "broken", "--json"]);
    run.expect_code(1);
    assert_eq!(
        run.json(),
        serde_json::json!({
            "type": "error",
            "path": "concepts/broken.md",
            "line": 4,
            "message": "invalid YAML frontmatter: did not find expected ',' or ']'",
        })
    );
    // A lookup that matches nothing is still "not found", and other pages read as before.
    let run = v.run("wiki", &["get", "gamma"]);
    run.expect_code(1);
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        ("Wiki page not found: gamma\n", "")
    );
    v.run("wiki", &["get", "beta"]).expect_code(0);
}

#[test]
fn agent_ids_that_need_normalising_are_refused() {
    let v = small_vault();
    let head = v.git(&["rev-parse", "HEAD"]);
    let op = r#"{"op":"add_question","page":"concepts/beta.md","question":"Who pays?"}"#;
    for (flag, env, message) in [
        (
            Some("a b"),
            None,
            r#"--agent "a b": an agent id is used as given, in its normal form (lowercase, no spaces): use "a-b""#,
        ),
        (
            None,
            Some("Research"),
            r#"WIKI_AGENT "Research": an agent id is used as given, in its normal form (lowercase, no spaces): use "research""#,
        ),
        (
            Some(" main"),
            None,
            r#"--agent " main": an agent id is used as given, in its normal form (lowercase, no spaces): use "main""#,
        ),
    ] {
        let mut cmd = v.command("wiki-apply");
        if let Some(flag) = flag {
            cmd.args(["--agent", flag]);
        }
        if let Some(env) = env {
            cmd.env("WIKI_AGENT", env);
        }
        let run = wiki_testkit::output(cmd, Some(op.as_bytes()));
        run.expect_code(2);
        assert_eq!(run.stderr, format!("wiki-apply: error: {message}\n"));
        let run = v.run(
            "wiki",
            &["--agent", flag.or(env).unwrap_or_default(), "compile"],
        );
        run.expect_code(2);
    }
    // `wiki agent create` takes ids by the same rule.
    let run = v.run("wiki", &["agent", "create", "Research"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: invalid agent id \"Research\": use lowercase letters, digits, `-`, `_` and `.` (at most 64) (try \"research\")\n"
    );
    assert_eq!(v.git(&["branch", "--list", "agents/*"]), "");
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    // An id in normal form acts as that agent.
    v.run_stdin("wiki-apply", &["--agent", "a-b"], Some(op.as_bytes()))
        .expect_code(0);
    assert_eq!(v.git(&["branch", "--list", "agents/*"]), "  agents/a-b\n");
}

// ----- issue 28, defect 5: every file read is bounded by what its kind can be -------------------

/// The address space the capped runs get: far more than any of these commands needs on a small
/// vault, far less than the 2 GiB a sparse file claims (allocating it aborts the run).
const ADDRESS_SPACE_CAP: &str = "--as=1610612736";

/// A file at `path` that claims 2 GiB and takes no disk (sparse).
fn sparse_2gib(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::File::create(path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
}

/// Run `wiki` in `v` with the address space capped (`prlimit`), `env` added.
fn capped(v: &Vault, args: &[&str], env: &[(&str, &std::path::Path)]) -> wiki_testkit::Run {
    capped_bin(v, "wiki", args, env)
}

/// [`capped`] for the binary `name`.
fn capped_bin(
    v: &Vault,
    name: &str,
    args: &[&str],
    env: &[(&str, &std::path::Path)],
) -> wiki_testkit::Run {
    let mut cmd = std::process::Command::new("prlimit");
    cmd.arg(ADDRESS_SPACE_CAP)
        .arg("--")
        .arg(wiki_testkit::bin(name))
        .args(args)
        .current_dir(&v.root);
    wiki_testkit::isolate(&mut cmd, v.home());
    for (k, val) in env {
        cmd.env(k, val);
    }
    wiki_testkit::output(cmd, None)
}

#[test]
fn an_oversized_page_is_an_error_of_that_page_only() {
    let v = small_vault();
    sparse_2gib(&v.path("concepts/huge.md"));
    let run = capped_bin(&v, "wiki-parse", &[], &[]);
    run.expect_code(1);
    assert_eq!(
        run.stderr,
        "wiki-parse: concepts/huge.md:1: file is too large to be a page (2147483648 bytes; the limit is 16777216 bytes)\n"
    );
    let paths: Vec<String> = run
        .jsonl()
        .iter()
        .filter(|r| r["type"] == "page")
        .map(|r| r["path"].as_str().unwrap().to_string())
        .filter(|p| !p.starts_with("reports/"))
        .collect();
    assert_eq!(paths, ["entities/alpha.md", "concepts/beta.md"]);
    let run = capped(&v, &["get", "entity.alpha"], &[]);
    run.expect_code(0);
    assert!(run.stdout.contains("Alpha runs the billing database."));
}

#[test]
fn oversized_compiled_caches_are_stale_not_read() {
    let v = small_vault();
    let digest = ".openclaw-wiki/cache/agent-digest.json";
    let claims = ".openclaw-wiki/cache/claims.jsonl";
    let (good_digest, good_claims) = (v.read(digest), v.read(claims));
    sparse_2gib(&v.path(claims));
    // `wiki get` finds the claim in the pages when the cache cannot be believed.
    let run = capped(&v, &["get", "claim.alpha.db"], &[]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("Alpha runs the billing database."),
        "{}",
        run.stdout
    );
    sparse_2gib(&v.path(digest));
    // Too large to be what compile writes: treated as absent (not read), so not reported stale.
    capped(&v, &["compile", "--check"], &[]).expect_code(0);
    capped(&v, &["compile"], &[]).expect_code(0);
    assert_eq!(v.read(digest), good_digest);
    assert_eq!(v.read(claims), good_claims);
}

#[test]
fn an_oversized_openclaw_config_is_refused() {
    let v = small_vault();
    let config = v.temp().join("openclaw.json");
    sparse_2gib(&config);
    let run = capped(
        &v,
        &["config", "show"],
        &[("OPENCLAW_CONFIG_PATH", &config)],
    );
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: {}: too large (2147483648 bytes; the limit for the OpenClaw config is 16777216)\n",
            config.display()
        )
    );
}

#[test]
fn an_oversized_memory_note_is_refused() {
    let v = small_vault();
    let ws = v.temp().join("ws");
    sparse_2gib(&ws.join("memory/2026-04-05.md"));
    let ws = ws.to_str().unwrap();
    let run = capped(
        &v,
        &["memory", "--workspace", ws, "get", "memory/2026-04-05.md"],
        &[],
    );
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: memory/2026-04-05.md: too large (2147483648 bytes; the limit for memory notes is 16777216)\n"
    );
}

#[test]
fn an_oversized_ingest_source_is_refused() {
    let v = small_vault();
    let source = v.temp().join("huge.txt");
    sparse_2gib(&source);
    let shown = source.to_str().unwrap();
    // The text becomes a page: the page limit holds whatever `--max-bytes` says.
    let run = capped(&v, &["ingest", shown, "--max-bytes", "3000000000"], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: {shown}: too large (2147483648 bytes; the limit for pages is 16777216)\n"
        )
    );
    let run = capped(&v, &["ingest", shown], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: {shown}: too large (2147483648 bytes; the limit for ingest sources (--max-bytes) is 10485760)\n"
        )
    );
}

#[test]
fn an_oversized_chatgpt_export_is_refused() {
    let v = small_vault();
    let export = v.temp().join("conversations.json");
    sparse_2gib(&export);
    let shown = export.to_str().unwrap();
    let run = capped(&v, &["chatgpt", "import", "--export", shown], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: {shown}: too large (2147483648 bytes; the limit for ChatGPT exports is 1073741824)\n"
        )
    );
}

// ----- the files of the machinery: journal, logs, lock files, hooks, .gitignore, work tree -------

/// A question added to `concepts/beta.md` through `wiki-apply` (one commit).
const QUESTION: &str = r#"{"op":"add_question","page":"concepts/beta.md","question":"Who pays?"}"#;

/// [`capped_bin`] with `stdin`.
fn capped_stdin(v: &Vault, name: &str, env: &[(&str, &str)], stdin: &str) -> wiki_testkit::Run {
    let mut cmd = std::process::Command::new("prlimit");
    cmd.arg(ADDRESS_SPACE_CAP)
        .arg("--")
        .arg(wiki_testkit::bin(name))
        .current_dir(&v.root);
    wiki_testkit::isolate(&mut cmd, v.home());
    for (k, val) in env {
        cmd.env(k, val);
    }
    wiki_testkit::output(cmd, Some(stdin.as_bytes()))
}

#[test]
fn an_oversized_crash_journal_stops_writers_cleanly() {
    let v = small_vault();
    let head = v.git(&["rev-parse", "HEAD"]);
    let journal = v.path(".openclaw-wiki/locks/pending.json");
    sparse_2gib(&journal);
    let run = capped_stdin(&v, "wiki-apply", &[], QUESTION);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki-apply: error: crash-recovery journal {} is unreadable (too large (2147483648 bytes; the limit for crash-recovery journals is 268435456)); inspect and delete it\n",
            journal.display()
        )
    );
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    assert!(!v.read("concepts/beta.md").contains("Who pays?"));
}

#[test]
fn an_oversized_packer_log_is_reported_by_its_size() {
    let v = small_vault();
    let log = std::fs::canonicalize(v.path(".git"))
        .unwrap()
        .join("wiki-pack.log");
    sparse_2gib(&log);
    let run = capped_stdin(&v, "wiki-apply", &[("WIKI_AUTO_PACK", "always")], QUESTION);
    run.expect_code(0);
    assert_eq!(
        run.stderr,
        format!(
            "wiki-apply: warning: could not pack loose git objects after the commit (nothing lost; run `wiki gc` to retry): a background packing failed: {}: too large (2147483648 bytes; the limit for background packing logs is 65536)\n",
            log.display()
        )
    );
    assert!(!log.exists());
    assert!(v.read("concepts/beta.md").contains("Who pays?"));
    v.wait_for_background_packers();
}

/// A compiled file the commit replaces, grown by hand past anything a tool writes: the commit
/// would record it as a hand edit first; it stops instead, and writes nothing.
#[test]
fn an_oversized_work_tree_file_a_commit_replaces_stops_it_cleanly() {
    let v = small_vault();
    let head = v.git(&["rev-parse", "HEAD"]);
    let index = v.path("concepts/index.md");
    sparse_2gib(&index);
    let run = capped(&v, &["compile"], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: I/O error on {}: too large (2147483648 bytes; the limit for files a commit writes is 536870912)\n",
            index.display()
        )
    );
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(std::fs::metadata(&index).unwrap().len(), 2 << 30);
}

#[test]
fn an_oversized_parse_cache_is_ignored() {
    let v = small_vault();
    let plant = || {
        sparse_2gib(&v.path(".openclaw-wiki/tmp/parse-cache.bin"));
        sparse_2gib(&v.path(".openclaw-wiki/tmp/parse-cache.delta"));
    };
    let lint = |run: wiki_testkit::Run| (run.code, run.stdout, run.stderr);
    let expected = lint(v.run("wiki-lint", &["--format", "text"]));
    plant();
    assert_eq!(
        lint(capped_bin(&v, "wiki-lint", &["--format", "text"], &[])),
        expected
    );
    plant();
    let run = capped(&v, &["compile"], &[]);
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    assert_eq!(v.status(), "");
}

#[test]
fn an_oversized_gitignore_stops_init_cleanly() {
    let v = Vault::with_git();
    let gitignore = v.path(".gitignore");
    sparse_2gib(&gitignore);
    let run = capped(&v, &["init", "."], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: {}: too large (2147483648 bytes; the limit for .gitignore files is 16777216)\n",
            gitignore.display()
        )
    );
    assert_eq!(v.git_run(&["rev-parse", "--verify", "-q", "HEAD"]).code, 1);
    assert!(!v.exists("index.md"));
}

/// Someone else's pre-commit hook of any size is chained, not read.
#[test]
fn an_oversized_pre_commit_hook_is_chained_unread() {
    let v = small_vault();
    let hook = v.path(".git/hooks/pre-commit");
    sparse_2gib(&hook);
    let run = capped(&v, &["hooks", "install"], &[]);
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    let local = v.path(".git/hooks/pre-commit.local");
    assert_eq!(std::fs::metadata(&local).unwrap().len(), 2 << 30);
    assert!(
        v.read(".git/hooks/pre-commit")
            .contains("# wiki-lint pre-commit hook")
    );
}

/// A search server lock file grown past a pid: the pid is unknown, said so.
#[test]
fn an_oversized_search_server_lock_file_gives_no_pid() {
    let v = small_vault();
    let start = v.run(
        "wiki-search",
        &["--server", "start", "--idle-timeout", "60"],
    );
    start.expect_code(0);
    let lock = v.path(".openclaw-wiki/index/search-server.lock");
    let pid = std::fs::read_to_string(&lock).unwrap().trim().to_string();
    // The same file (the server holds its lock), grown.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let run = capped_bin(&v, "wiki-search", &["--serve"], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki-search: error: a search server is already running for {} (pid unknown: {} is not a lock file this tool wrote)\n",
            v.root.display(),
            lock.display()
        )
    );
    // Stopping asks the server (its pid is not needed).
    let stop = capped_bin(&v, "wiki-search", &["--server", "stop"], &[]);
    stop.expect_code(0);
    v.run("wiki-search", &["--server", "status"]).expect_code(1);
    assert!(!pid.is_empty());
}

/// A server that cannot start: its error is the last line of its log, however large the log.
#[test]
fn an_oversized_search_server_log_gives_its_last_line() {
    let v = small_vault();
    let log = v.path(".openclaw-wiki/tmp/search-server.log");
    sparse_2gib(&log);
    // The index directory cannot be made: the server stops at once, saying why in its log.
    std::fs::create_dir_all(v.path(".openclaw-wiki")).unwrap();
    std::fs::write(v.path(".openclaw-wiki/index"), "").unwrap();
    let run = capped_bin(&v, "wiki-search", &["--server", "start"], &[]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki-search: error: the search server exited (exit status: 2): wiki-search: error: {}: cannot write the index directory (log: {})\n",
            v.path(".openclaw-wiki/index/wiki-worktree").display(),
            log.display()
        )
    );
}

/// A memory writers' lock grown past `<pid>:<ms>`: an unknown owner, stolen once it is old.
#[test]
fn an_oversized_memory_lock_file_has_no_owner() {
    let v = small_vault();
    let ws = v.temp().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    std::fs::write(
        ws.join("memory/2026-04-05.md"),
        "# Notes\n\nBilling moved.\n",
    )
    .unwrap();
    let lock = ws.join("memory/.dreams/short-term-promotion.lock");
    sparse_2gib(&lock);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(120);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let ws = ws.to_str().unwrap();
    let run = capped(&v, &["memory", "--workspace", ws, "recall", "billing"], &[]);
    assert_eq!(run.stderr, "");
    run.expect_code(0);
    // Stolen, then released.
    assert!(!lock.exists());
}

/// An operations file grown past any batch: refused by the limit, nothing committed, with and
/// without `--stream` (a line is bounded as the whole input is).
#[test]
fn an_oversized_operations_input_is_refused_without_a_commit() {
    let v = small_vault();
    let head = v.git_run(&["rev-parse", "HEAD"]).stdout;
    let ops = v.path("ops.jsonl");
    sparse_2gib(&ops);
    let file = ops.to_str().unwrap();
    for args in [
        vec!["apply", "--file", file],
        vec!["apply", "--stream", "--file", file],
    ] {
        let run = capped(&v, &args, &[]);
        run.expect_code(2);
        assert!(
            run.stderr.ends_with(&format!(
                "{file}: too large (more than 67108864 bytes; the limit for operations input is 67108864)\n"
            )),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(v.git_run(&["rev-parse", "HEAD"]).stdout, head);
    }
}
