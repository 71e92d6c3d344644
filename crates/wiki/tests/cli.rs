//! The everyday command line of `wiki`: init here, the short usage, "did you mean", truthful
//! usage lines, examples, and a chosen vault that is not one.

use wiki_testkit::Vault;

/// Split an example command line the way a POSIX shell would for the simple quoting the
/// examples use (single quotes, no escapes); the part after the last `| ` and before a `> `
/// redirection is the command.
fn shell_words(line: &str) -> Vec<String> {
    let line = line.rsplit("| ").next().unwrap_or(line);
    let line = line.split(" > ").next().unwrap_or(line);
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quote in {line:?}");
    if started {
        words.push(word);
    }
    words
}

#[test]
fn init_without_a_directory_initialises_the_current_one() {
    let v = Vault::new();
    let run = v.run("wiki", &["init"]);
    run.expect_code(0);
    let root = std::fs::canonicalize(&v.root).unwrap();
    assert_eq!(
        run.stdout,
        format!(
            "Initialized wiki vault at {} (10 dirs, 7 files).\n",
            root.display()
        )
    );
    assert!(v.path(".openclaw-wiki").is_dir());
    assert!(v.path(".git").is_dir());
    // Not the OpenClaw default under HOME.
    assert!(!v.home().join(".openclaw").exists());
    let run = v.run("wiki", &["init"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        format!(
            "Wiki vault at {} is already initialized; nothing to create.\n",
            root.display()
        )
    );
    assert_eq!(v.commit_count(), 1);
    // `--vault DIR` names the directory like the argument does.
    let run = v.run("wiki", &["--vault", "sub", "init"]);
    run.expect_code(0);
    assert!(v.path("sub/.openclaw-wiki").is_dir());
}

#[test]
fn wiki_alone_prints_a_short_usage_and_exits_2() {
    let v = Vault::new();
    let run = v.run("wiki", &[]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[0],
        "usage: wiki [--vault DIR] [--agent ID] [--json | --format FORMAT] <COMMAND> [ARGS]"
    );
    assert_eq!(lines[2], "Common commands:");
    assert_eq!(
        lines[3],
        "  init       Create the vault layout and commit it (idempotent)"
    );
    assert_eq!(
        lines.last().copied(),
        Some("See 'wiki --help' for every command and option, 'wiki <COMMAND> -h' for examples.")
    );
    assert!(run.stderr.lines().count() < 20, "{}", run.stderr);
}

#[test]
fn unknown_command_suggests_the_closest() {
    let v = Vault::new();
    let run = v.run("wiki", &["serch", "tar"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: 'serch' is not a wiki command (no built-in and no `wiki-serch` on PATH). \
         See 'wiki --help'.\n\nThe most similar command is\n\tsearch\n"
    );
    let run = v.run("wiki", &["lnit"]);
    run.expect_code(2);
    assert!(
        run.stderr
            .ends_with("\n\nThe most similar commands are\n\tlint\n\tlist\n\tinit\n"),
        "{}",
        run.stderr
    );
    let run = v.run("wiki", &["frobnicate"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: 'frobnicate' is not a wiki command (no built-in and no `wiki-frobnicate` on \
         PATH). See 'wiki --help'.\n"
    );
}

#[test]
fn search_usage_says_a_query_is_required() {
    let v = Vault::new();
    v.run("wiki", &["init"]).expect_code(0);
    let run = v.run("wiki", &["search"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "error: the following required arguments were not provided:\n  <QUERY>...\n\n\
         Usage: wiki search [OPTIONS] <QUERY>...\n       wiki search --server <ACTION>\n       \
         wiki search --serve [OPTIONS]\n\nFor more information, try '--help'.\n"
    );
    let help = v.run("wiki", &["search", "-h"]);
    help.expect_code(0);
    assert!(
        help.stdout
            .contains("Usage: wiki search [OPTIONS] <QUERY>...\n"),
        "{}",
        help.stdout
    );
}

#[test]
fn every_command_shows_examples_that_parse() {
    for sub in wiki::builtin() {
        let examples = wiki::usage::examples(sub.name)
            .unwrap_or_else(|| panic!("`wiki {}` has no examples", sub.name));
        assert!(
            (2..=3).contains(&examples.len()),
            "`wiki {}`: {} examples",
            sub.name,
            examples.len()
        );
        for (line, _) in examples {
            let words = shell_words(line);
            assert_eq!(words[0], "wiki", "{line}");
            if let Err(e) = wiki::cli().try_get_matches_from(&words) {
                panic!("example `{line}` does not parse: {e}");
            }
        }
    }
    let v = Vault::new();
    let run = v.run("wiki", &["history", "-h"]);
    run.expect_code(0);
    assert!(
        run.stdout.ends_with(
            "Examples:\n  # The commits that changed a page\n  wiki history entities/alpha.md\n  \
             # A claim's changes, oldest first\n  wiki history claim.alpha.role --order oldest\n"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_chosen_directory_that_is_no_vault_is_an_error_for_every_command_but_init() {
    let v = Vault::new();
    std::fs::create_dir_all(v.path("plain")).unwrap();
    let plain = std::fs::canonicalize(v.path("plain")).unwrap();
    let plain = plain.display().to_string();
    let expected = format!(
        "wiki: error: --vault {plain}: not a wiki vault (no .openclaw-wiki/ directory); create a \
         vault there with `wiki init {plain}`\n"
    );
    for sub in wiki::builtin() {
        if wiki::WITHOUT_VAULT.contains(&sub.name) {
            continue;
        }
        let (line, _) = wiki::usage::examples(sub.name).expect("examples")[0];
        let mut words = shell_words(line);
        words.splice(1..1, ["--vault".to_string(), plain.clone()]);
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let run = v.run_stdin("wiki", &args, Some(b""));
        assert_eq!(run.code, 2, "{line}: {}", run.stderr);
        assert_eq!(run.stderr, expected, "{line}");
        assert_eq!(run.stdout, "", "{line}");
    }
    // The same through $WIKI_VAULT, and for a directory that does not exist.
    let mut cmd = v.command("wiki");
    cmd.args(["search", "tar"]).env("WIKI_VAULT", &plain);
    let run = wiki_testkit::output(cmd, None);
    run.expect_code(2);
    assert!(
        run.stderr.starts_with("wiki: error: $WIKI_VAULT "),
        "{}",
        run.stderr
    );
    let gone = v.temp().join("gone").display().to_string();
    let run = v.run("wiki", &["--vault", &gone, "lint"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: --vault {gone}: no such directory; create a vault there with `wiki init {gone}`\n"
        )
    );
    // Nothing was created anywhere.
    assert!(!v.path("plain/.openclaw-wiki").exists());
    assert!(!v.temp().join("gone").exists());
    // init makes it a vault, and then the same command runs.
    v.run("wiki", &["--vault", &plain, "init"]).expect_code(0);
    v.run("wiki", &["--vault", &plain, "lint"]).expect_code(0);
}

/// A vault with two linked pages, compiled and committed.
fn two_page_vault() -> Vault {
    let v = Vault::new();
    v.run("wiki", &["init"]).expect_code(0);
    v.write(
        "entities/a.md",
        "---\nid: entity.a\npageType: entity\ntitle: A\n---\n# A\n\nSee [[entities/b]].\n",
    );
    v.write(
        "entities/b.md",
        "---\nid: entity.b\npageType: entity\ntitle: B\nquestions:\n  - Why?\n---\n# B\n",
    );
    v.commit_all("two pages");
    v.run("wiki", &["compile"]).expect_code(0);
    v
}

#[test]
fn lint_prints_its_findings_like_a_linter_then_the_summary() {
    let v = two_page_vault();
    v.write(
        "entities/c.md",
        "---\npageType: entity\ntitle: C\n---\n# C\n",
    );
    let run = v.run("wiki", &["lint"]);
    run.expect_code(1);
    let root = v.root.display();
    assert_eq!(
        run.stdout,
        format!(
            "entities/a.md: missing-source-ids: Non-source page is missing `sourceIds` provenance.\n\
             entities/a.md: stale-page: Page freshness needs review (missing updatedAt).\n\
             entities/b.md: missing-source-ids: Non-source page is missing `sourceIds` provenance.\n\
             entities/b.md:5: open-question: Page lists 1 open question.\n\
             entities/b.md: stale-page: Page freshness needs review (missing updatedAt).\n\
             entities/c.md: missing-id: Missing `id` frontmatter.\n\
             entities/c.md: missing-source-ids: Non-source page is missing `sourceIds` provenance.\n\
             entities/c.md: stale-page: Page freshness needs review (missing updatedAt).\n\
             Linted wiki vault at {root} (8 issues, report: {root}/reports/lint.md).\n"
        )
    );
    // No colour into a pipe, even with --color auto.
    assert!(!run.stdout.contains('\x1b'));
    let always = v.run("wiki", &["lint", "--color", "always"]);
    assert!(
        always.stdout.starts_with(
            "\x1b[1mentities/a.md\x1b[0m: \x1b[33mmissing-source-ids\x1b[0m: Non-source"
        ),
        "{}",
        always.stdout
    );
    assert!(
        always
            .stdout
            .contains("\x1b[1mentities/c.md\x1b[0m: \x1b[1;31mmissing-id\x1b[0m: Missing"),
        "{}",
        always.stdout
    );
}

#[test]
fn recording_hand_edits_is_announced_with_the_files_and_the_commit() {
    let v = two_page_vault();
    // A page dropped into the vault that links to a.md: compile rewrites both.
    v.write(
        "entities/c.md",
        "---\nid: entity.c\npageType: entity\ntitle: C\n---\n# C\n\nSee [[entities/a]].\n",
    );
    let run = v.run("wiki", &["compile"]);
    run.expect_code(0);
    let human = v.git(&["log", "--format=%h %s", "--grep=Record human edits"]);
    let (id, subject) = human
        .lines()
        .next()
        .expect("a hand-edit commit")
        .split_once(' ')
        .unwrap();
    assert_eq!(subject, "Record human edits before compile");
    assert_eq!(
        run.stderr,
        format!("wiki: Recorded hand edits to entities/c.md as commit {id}.\n")
    );
    assert_eq!(
        v.git(&["show", "--name-only", "--format=", id]),
        "entities/c.md\n"
    );
    // Nothing to record: nothing said.
    v.write(
        "entities/a.md",
        v.read("entities/a.md").replace("# A\n", "# A!\n"),
    );
    v.commit_all("by hand, committed");
    let run = v.run("wiki", &["compile"]);
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    // Through apply, several files at once.
    v.write("entities/b.md", v.read("entities/b.md") + "\nMore.\n");
    v.write("entities/a.md", v.read("entities/a.md") + "\nMore.\n");
    let run = v.run_stdin(
        "wiki",
        &["apply"],
        Some(br#"{"op":"add_question","page":"entity.a","question":"How?"}"#),
    );
    run.expect_code(0);
    let id = v.git(&[
        "log",
        "-1",
        "--format=%h",
        "--grep=Record human edits before",
    ]);
    assert!(
        run.stderr
            .starts_with("wiki: Recorded hand edits to entities/a.md"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(" as commit {}.\n", id.trim())),
        "{}",
        run.stderr
    );
}

#[test]
fn new_starts_a_page_from_its_template_and_commits_it() {
    let v = Vault::new();
    v.run("wiki", &["init"]).expect_code(0);
    let run = v.run("wiki", &["new", "entity", "Billing Service"]);
    run.expect_code(0);
    let head = v.git(&["rev-parse", "--short=7", "HEAD"]);
    assert_eq!(
        run.stdout,
        format!(
            "Created entities/billing-service.md (entity.billing-service) in commit {}.\n",
            head.trim()
        )
    );
    assert_eq!(
        v.read("entities/billing-service.md"),
        "---\npageType: entity\nid: entity.billing-service\ntitle: Billing Service\nstatus: active\n\
         createdAt: 2026-04-05T12:00:00.000Z\nupdatedAt: 2026-04-05T12:00:00.000Z\n---\n\n\
         # Billing Service\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n\n\
         ## Related\n<!-- openclaw:wiki:related:start -->\n- No related pages yet.\n\
         <!-- openclaw:wiki:related:end -->\n"
    );
    // One commit, with the compiled files; the work tree is clean; the index lists the page.
    assert_eq!(v.commit_count(), 2);
    assert_eq!(
        v.git(&[
            "log",
            "-1",
            "--format=%s%n%(trailers:key=Wiki-Op,valueonly)"
        ]),
        "Create entity page entities/billing-service.md\nnew\n\n"
    );
    assert_eq!(v.status(), "");
    assert!(
        v.read("entities/index.md")
            .contains("[Billing Service](billing-service.md)")
    );
    // A valid page: parses, and lint finds no error in it.
    v.run("wiki", &["lint"]).expect_code(0);
    // Quoting, --id, JSON.
    let run = v.run(
        "wiki",
        &[
            "new",
            "concept",
            "Vectors: a primer",
            "--id",
            "concept.vec",
            "--json",
        ],
    );
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["path"], "concepts/vectors-a-primer.md");
    assert_eq!(doc["id"], "concept.vec");
    assert!(
        v.read("concepts/vectors-a-primer.md")
            .starts_with("---\npageType: concept\nid: concept.vec\ntitle: \"Vectors: a primer\"\n")
    );
    // Refusals write nothing.
    let head = v.git(&["rev-parse", "HEAD"]);
    let run = v.run("wiki", &["new", "entity", "Billing Service"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: entities/billing-service.md: already exists; edit it, or choose another title\n"
    );
    let run = v.run(
        "wiki",
        &["new", "source", "Elsewhere", "--id", "concept.vec"],
    );
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: id concept.vec is already used by concepts/vectors-a-primer.md; choose another with --id\n"
    );
    v.run("wiki", &["new", "report", "X"]).expect_code(2);
    v.run("wiki", &["new", "entity", "  "]).expect_code(2);
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    assert!(!v.exists("sources/elsewhere.md"));
    assert_eq!(v.status(), "");
}

#[test]
fn list_shows_the_pages_of_the_compiled_digest() {
    let v = Vault::new();
    v.run("wiki", &["init"]).expect_code(0);
    let run = v.run("wiki", &["list"]);
    run.expect_code(2);
    assert!(run.stderr.contains("no compiled digest"), "{}", run.stderr);
    v.write(
        "entities/alpha.md",
        "---\nid: entity.alpha\npageType: entity\ntitle: Alpha\nupdatedAt: 2026-04-01T00:00:00Z\n\
         claims:\n  - id: claim.alpha.db\n    text: Alpha uses Postgres.\n    status: contested\n---\n# Alpha\n",
    );
    v.write(
        "entities/beta.md",
        "---\nid: entity.beta\npageType: entity\ntitle: Beta\nconfidence: 0.2\n\
         updatedAt: 2025-01-01T00:00:00Z\n---\n# Beta\n",
    );
    v.write(
        "concepts/gamma.md",
        "---\nid: concept.gamma\npageType: concept\ntitle: Gamma\nupdatedAt: 2026-04-01T00:00:00Z\n\
         claims:\n  - text: Gamma is shaky.\n    confidence: 0.3\n---\n# Gamma\n",
    );
    v.commit_all("pages");
    v.run("wiki", &["compile"]).expect_code(0);
    let run = v.run("wiki", &["list", "--kind", "entity"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "entities/alpha.md  Alpha  [contested]\nentities/beta.md   Beta  [stale, low confidence]\n"
    );
    let run = v.run("wiki", &["list", "--low-confidence", "--format", "jsonl"]);
    run.expect_code(0);
    let paths: Vec<String> = run
        .jsonl()
        .iter()
        .map(|r| {
            assert_eq!(r["type"], "page");
            r["path"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(paths, ["concepts/gamma.md", "entities/beta.md"]);
    let run = v.run("wiki", &["list", "--contested", "--json"]);
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc[0]["path"], "entities/alpha.md");
    assert_eq!(doc[0]["contestedClaims"], 1);
    assert_eq!(doc.as_array().unwrap().len(), 1);
    let run = v.run("wiki", &["list", "--stale"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "entities/beta.md  Beta  [stale, low confidence]\n"
    );
    // Nothing matches: exit 1, nothing printed.
    let run = v.run("wiki", &["list", "--kind", "synthesis"]);
    run.expect_code(1);
    assert_eq!(run.stdout, "");
}

#[test]
fn completions_for_every_shell_and_bash_completes_commands() {
    let v = Vault::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = v.run("wiki", &["completions", shell]);
        run.expect_code(0);
        assert!(run.stdout.contains("completions"), "{shell}");
        assert!(run.stdout.contains("search"), "{shell}");
    }
    v.run("wiki", &["completions", "tcsh"]).expect_code(2);
    let script = v.run("wiki", &["completions", "bash"]).stdout;
    v.write("wiki.bash", &script);
    let complete = |words: &str, cword: usize, cur: &str, prev: &str| {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c")
            .arg(format!(
                "source wiki.bash; COMP_WORDS=({words}); COMP_CWORD={cword}; \
                 _wiki wiki '{cur}' '{prev}'; echo \"${{COMPREPLY[@]}}\""
            ))
            .current_dir(&v.root);
        let out = cmd.output().expect("bash");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(complete("wiki sea", 1, "sea", "wiki"), "search\n");
    assert_eq!(complete("wiki li", 1, "li", "wiki"), "lint list\n");
    assert_eq!(
        complete("wiki new ''", 2, "", "new"),
        "-h --id --vault --agent --format --json --now --color --help entity concept source synthesis\n"
    );
}

#[test]
fn porcelain_prints_text_and_data_on_request_plumbing_keeps_json_lines() {
    let v = two_page_vault();
    v.run("wiki", &["agent", "create", "helper"]).expect_code(0);
    // history, gc, agent list, index: text under `wiki`.
    let run = v.run("wiki", &["history", "entities/a.md"]);
    run.expect_code(0);
    assert!(!run.stdout.starts_with('{'), "{}", run.stdout);
    let jsonl = v.run("wiki", &["history", "entities/a.md", "--format", "jsonl"]);
    assert!(jsonl.jsonl().iter().all(|r| r["type"] == "history"));
    let plumbing = v.run("wiki-apply", &["history", "entities/a.md"]);
    assert_eq!(plumbing.stdout, jsonl.stdout);
    for args in [&["gc"][..], &["agent", "list"], &["index"]] {
        let run = v.run("wiki", args);
        run.expect_code(0);
        assert!(!run.stdout.contains('{'), "{args:?}: {}", run.stdout);
        let data = v.run("wiki", &[args, &["--format", "jsonl"][..]].concat());
        data.expect_code(0);
        assert!(!data.jsonl().is_empty(), "{args:?}");
    }
    // How many files are "touched" (re-hashed, content unchanged) depends on the clock: a file
    // checked within two seconds of its mtime is checked again. The rest of the line does not.
    let run = v.run("wiki", &["index"]);
    let (head, tail) = run.stdout.split_once(" reused, ").expect("index text line");
    assert_eq!(head, "wiki: 11 files, 11 documents (0 tokenized, 0");
    assert!(tail.ends_with(" touched, 0 removed)\n"), "{}", run.stdout);
    // apply: the original's sentences; --format jsonl: records.
    let op = br#"{"op":"add_question","page":"entity.a","question":"Who?"}"#;
    let run = v.run_stdin("wiki", &["apply"], Some(op));
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("Updated entities/a.md via add_question. "),
        "{}",
        run.stdout
    );
    // rollback: a sentence.
    let run = v.run("wiki", &["rollback", "HEAD"]);
    run.expect_code(0);
    assert!(run.stdout.starts_with("Rolled back "), "{}", run.stdout);
    // A command whose data is one document takes --format jsonl: the document on one line.
    for args in [
        &["status"][..],
        &["get", "entities/a.md"],
        &["config", "show"],
    ] {
        let run = v.run("wiki", &[args, &["--format", "jsonl"][..]].concat());
        run.expect_code(0);
        assert_eq!(run.stdout.lines().count(), 1, "{args:?}: {}", run.stdout);
        let pretty = v.run("wiki", &[args, &["--json"][..]].concat());
        let one: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(one, pretty.json(), "{args:?}");
    }
}

#[test]
fn apply_summarises_a_large_batch_in_text() {
    let v = two_page_vault();
    let ops: String = (0..25)
        .map(|i| {
            format!("{{\"op\":\"add_question\",\"page\":\"entity.b\",\"question\":\"Q{i}?\"}}\n")
        })
        .collect();
    let run = v.run_stdin("wiki", &["apply"], Some(ops.as_bytes()));
    run.expect_code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 11, "{}", run.stdout);
    assert!(lines[0].starts_with("Updated entities/b.md via add_question."));
    assert_eq!(
        lines[10],
        "… and 15 more operations (15 changed); --format jsonl lists every operation."
    );
}

/// Run `command` (a shell command line) on a pseudo-terminal with `script`, returning what it
/// printed there.
fn on_terminal(v: &Vault, command: &str, no_color: bool) -> String {
    let mut cmd = std::process::Command::new("script");
    wiki_testkit::isolate(&mut cmd, v.home());
    cmd.args(["-qec", command, "/dev/null"])
        .current_dir(&v.root)
        .env("TERM", "xterm");
    if no_color {
        cmd.env("NO_COLOR", "1");
    } else {
        cmd.env_remove("NO_COLOR");
    }
    let run = wiki_testkit::output(cmd, None);
    run.stdout
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let v = two_page_vault();
    let wiki = wiki_testkit::bin("wiki").display().to_string();
    let tty = on_terminal(&v, &format!("{wiki} lint"), false);
    assert!(
        tty.contains("\x1b[1mentities/a.md\x1b[0m: \x1b[33mmissing-source-ids\x1b[0m: "),
        "{tty:?}"
    );
    let plain = on_terminal(&v, &format!("{wiki} lint"), true);
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert!(
        plain.contains("entities/a.md: missing-source-ids: "),
        "{plain:?}"
    );
    // --color never on a terminal; a pipe gets none either.
    let never = on_terminal(&v, &format!("{wiki} lint --color never"), false);
    assert!(!never.contains('\x1b'), "{never:?}");
    let piped = v.run("wiki", &["lint"]);
    assert!(!piped.stdout.contains('\x1b'));
}
