//! `wiki memory bootstrap` (what a session start injects, truncation) and `wiki memory import`
//! (Codex and Claude Code memory, conflicts, --replace, sources untouched).

mod common;

use common::Env;

#[test]
fn bootstrap_loads_memory_and_two_days_of_notes_truncating_only_the_copy() {
    let e = Env::new();
    let memory = format!("# Memory\n\n{}\n", "x".repeat(80));
    e.write("MEMORY.md", &memory);
    e.write("memory/2026-04-03.md", "too old\n");
    e.write("memory/2026-04-04.md", "yesterday\n");
    e.write("memory/2026-04-05.md", "today\n");
    e.write("memory/2026-04-05-standup.md", "standup notes\n");
    let r = e.memory(&["bootstrap", "--file-budget", "40"]);
    r.expect_code(1);
    assert_eq!(
        r.stdout,
        "## MEMORY.md\n\n# Memory\n\nxxxxxxxxxxxxxxxxxx\n[… truncated: kept 36 of 91 characters; read MEMORY.md for the rest …]\nxxxxxxx\n\n\
         ## memory/2026-04-04.md\n\nyesterday\n\n\
         ## memory/2026-04-05-standup.md\n\nstandup notes\n\n\
         ## memory/2026-04-05.md\n\ntoday\n\n\
         (4 files, 66 of 121 characters injected; budgets 40 per file, 150000 in all)\n"
    );
    assert_eq!(
        r.stderr,
        "wiki: MEMORY.md: 91 characters, 36 injected (truncated copy; the file is unchanged)\n"
    );
    assert_eq!(e.read("MEMORY.md"), memory);

    let small = e.memory(&["bootstrap", "--budget", "100", "--json"]);
    small.expect_code(1);
    let recs = small.jsonl();
    assert_eq!(recs[0]["path"], "MEMORY.md");
    assert_eq!(recs[0]["truncated"], false);
    assert_eq!(recs[1]["path"], "memory/2026-04-04.md");
    let total = recs.last().unwrap();
    assert_eq!(total["type"], "bootstrap");
    assert_eq!(
        total["truncated"],
        serde_json::json!(["memory/2026-04-04.md"])
    );
    assert_eq!(
        total["leftOut"],
        serde_json::json!(["memory/2026-04-05-standup.md", "memory/2026-04-05.md"])
    );

    let fits = e.memory(&["bootstrap", "--json"]);
    fits.expect_code(0);
}

fn codex_home(e: &Env) -> std::path::PathBuf {
    let home = e.vault.home().join(".codex");
    std::fs::create_dir_all(home.join("memories")).unwrap();
    std::fs::create_dir_all(home.join("sessions")).unwrap();
    std::fs::write(
        home.join("memories/MEMORY.md"),
        "# Codex memory\n- Uses pnpm.\n",
    )
    .unwrap();
    std::fs::write(home.join("memories/memory_summary.md"), "Summary.\n").unwrap();
    std::fs::write(home.join("memories/raw_memories.md"), "raw\n").unwrap();
    std::fs::write(home.join("AGENTS.md"), "instructions\n").unwrap();
    std::fs::write(home.join("sessions/rollout.jsonl"), "{}\n").unwrap();
    home
}

#[test]
fn import_codex_copies_only_its_memory_and_shows_conflicts_first() {
    let e = Env::new();
    let home = codex_home(&e);
    let r = e.memory(&["import", "codex"]);
    r.expect_code(0);
    let src = home.join("memories");
    let src = src.to_str().unwrap();
    assert!(
        r.stdout.starts_with(&format!(
            "new       memory/imports/codex/MEMORY.md <- {src}/MEMORY.md\nnew       memory/imports/codex/memory_summary.md <- {src}/memory_summary.md\n2 copied, 0 conflicts, 0 unchanged\ncommit "
        )),
        "{}",
        r.stdout
    );
    assert_eq!(
        e.read("memory/imports/codex/MEMORY.md"),
        "# Codex memory\n- Uses pnpm.\n"
    );
    assert!(!e.ws.join("memory/imports/codex/raw_memories.md").exists());
    assert_eq!(
        e.git(&["log", "--format=%s"]),
        "wiki memory import codex: 2 files\n"
    );

    // The source changes: a conflict, listed first, nothing written without --replace.
    std::fs::write(
        home.join("memories/MEMORY.md"),
        "# Codex memory\n- Uses bun.\n",
    )
    .unwrap();
    let c = e.memory(&["import", "codex"]);
    c.expect_code(1);
    assert_eq!(
        c.stdout,
        format!(
            "conflict  memory/imports/codex/MEMORY.md (differs from {src}/MEMORY.md; --replace replaces it)\nunchanged memory/imports/codex/memory_summary.md <- {src}/memory_summary.md\n0 copied, 1 conflicts, 1 unchanged\n"
        )
    );
    assert_eq!(
        e.read("memory/imports/codex/MEMORY.md"),
        "# Codex memory\n- Uses pnpm.\n"
    );

    let dry = e.memory(&["import", "codex", "--replace", "--dry-run"]);
    dry.expect_code(0);
    assert!(
        dry.stdout
            .ends_with("dry run: 1 copied, 0 conflicts, 1 unchanged\n")
    );
    assert_eq!(
        e.read("memory/imports/codex/MEMORY.md"),
        "# Codex memory\n- Uses pnpm.\n"
    );

    let rep = e.memory(&["import", "codex", "--replace"]);
    rep.expect_code(0);
    assert!(rep.stdout.starts_with(&format!(
        "replaced  memory/imports/codex/MEMORY.md <- {src}/MEMORY.md (previous copy: memory/imports/codex/.replaced/20260405T120000Z/MEMORY.md)\n"
    )), "{}", rep.stdout);
    assert_eq!(
        e.read("memory/imports/codex/MEMORY.md"),
        "# Codex memory\n- Uses bun.\n"
    );
    assert_eq!(
        e.read("memory/imports/codex/.replaced/20260405T120000Z/MEMORY.md"),
        "# Codex memory\n- Uses pnpm.\n"
    );
    // The sources are untouched.
    assert_eq!(
        std::fs::read_to_string(home.join("memories/MEMORY.md")).unwrap(),
        "# Codex memory\n- Uses bun.\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("AGENTS.md")).unwrap(),
        "instructions\n"
    );

    // Imported files are searchable memory but never trigger recall.
    let s = e.memory(&["search", "bun"]);
    s.expect_code(0);
    assert!(
        s.stdout.contains("memory/imports/codex/MEMORY.md"),
        "{}",
        s.stdout
    );

    // wiki rollback undoes the replacement.
    let head = e.git(&["rev-parse", "HEAD"]).trim().to_string();
    let ws = e.ws.to_str().unwrap().to_string();
    e.vault
        .run("wiki", &["--vault", &ws, "rollback", &head])
        .expect_code(0);
    assert_eq!(
        e.read("memory/imports/codex/MEMORY.md"),
        "# Codex memory\n- Uses pnpm.\n"
    );
}

#[test]
fn import_claude_code_reads_project_auto_memory_and_the_configured_directory() {
    let e = Env::new();
    let claude = e.vault.temp().join("claude");
    let project = claude.join("projects/-home-me-proj");
    std::fs::create_dir_all(project.join("memory")).unwrap();
    std::fs::write(
        project.join("memory/MEMORY.md"),
        "- Tests run with cargo nextest.\n",
    )
    .unwrap();
    std::fs::write(project.join("memory/notes.txt"), "not markdown\n").unwrap();
    std::fs::write(project.join("session.jsonl"), "{}\n").unwrap();
    std::fs::write(claude.join("CLAUDE.md"), "instructions\n").unwrap();
    let auto = e.vault.temp().join("auto");
    std::fs::create_dir_all(&auto).unwrap();
    std::fs::write(auto.join("prefs.md"), "- Prefers tabs.\n").unwrap();
    std::fs::write(
        claude.join("settings.json"),
        format!("{{\"autoMemoryDirectory\": {:?}}}", auto.to_str().unwrap()),
    )
    .unwrap();
    let r = e.memory(&[
        "import",
        "claude-code",
        "--from",
        claude.to_str().unwrap(),
        "--json",
    ]);
    r.expect_code(0);
    let paths: Vec<String> = r
        .jsonl()
        .iter()
        .map(|x| {
            format!(
                "{} {}",
                x["status"].as_str().unwrap(),
                x["path"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        paths,
        vec![
            "new memory/imports/claude-code/-home-me-proj/MEMORY.md",
            "new memory/imports/claude-code/auto-memory/prefs.md",
        ]
    );
    assert_eq!(
        e.read("memory/imports/claude-code/auto-memory/prefs.md"),
        "- Prefers tabs.\n"
    );
    let none = e.memory(&[
        "import",
        "claude-code",
        "--from",
        e.vault.temp().join("nowhere").to_str().unwrap(),
    ]);
    none.expect_code(1);
    assert!(
        none.stderr.contains("no claude-code memory found"),
        "{}",
        none.stderr
    );
}
