//! The everyday command line of `wiki`: init here, the short usage, "did you mean", truthful
//! usage lines, examples, and a chosen vault that is not one.

use wiki_testkit::Vault;

/// Split an example command line the way a POSIX shell would for the simple quoting the
/// examples use (single quotes, no escapes); the part after the last `| ` is the command.
fn shell_words(line: &str) -> Vec<String> {
    let line = line.rsplit("| ").next().unwrap_or(line);
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
            .ends_with("\n\nThe most similar commands are\n\tlint\n\tinit\n"),
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
