//! Command-line behaviour: ordering, exit codes, output formats, stdin records, and a
//! comparison with the original plugin's lint of the rich fixture vault.

use std::path::Path;

use wiki_testkit::{Vault, page};

use crate::common::*;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("workspace root")
}

#[test]
fn findings_are_sorted_by_path_keeping_check_order_within_a_page() {
    let v = Vault::new();
    // Written so that emission order (page checks, claims, conflicts, ids, links) and path
    // order differ.
    v.write(
        "entities/b.md",
        page(
            &[
                "pageType: entity",
                "id: dup",
                "questions: Why?",
                "claims:",
                "  - {id: claim.c, text: B says.}",
            ],
            "[[missing]]\n",
        ),
    );
    v.write(
        "concepts/z.md",
        page(
            &[
                "pageType: concept",
                "id: dup",
                "sourceIds: s",
                &format!("updatedAt: {FRESH}"),
            ],
            "",
        ),
    );
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &[
                "claims:",
                "  - {id: claim.c, text: A says., evidence: [{sourceId: s}]}",
            ],
            "",
        ),
    );
    let run = lint(&v, &[]);
    let order: Vec<(String, String)> = findings(&run).into_iter().map(|f| (f.0, f.1)).collect();
    let expect: Vec<(String, String)> = [
        ("concepts/z.md", "duplicate-id"),
        ("entities/a.md", "claim-conflict"),
        ("entities/b.md", "missing-source-ids"),
        ("entities/b.md", "open-question"),
        ("entities/b.md", "stale-page"),
        ("entities/b.md", "claim-missing-evidence"),
        ("entities/b.md", "stale-claim"),
        ("entities/b.md", "claim-conflict"),
        ("entities/b.md", "duplicate-id"),
        ("entities/b.md", "broken-wikilink"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(order, expect);
    // Same bytes on a second run.
    assert_eq!(lint(&v, &[]).stdout, run.stdout);
}

#[test]
fn exit_codes_follow_the_deny_level() {
    let clean_vault = Vault::new();
    clean_vault.write("entities/a.md", clean("entity", "e.a", &[], ""));
    lint(&clean_vault, &[]).expect_code(0);
    lint(&clean_vault, &["--deny", "warning"]).expect_code(0);

    let warnings = Vault::new();
    warnings.write(
        "entities/a.md",
        clean("entity", "e.a", &["questions: Why?"], ""),
    );
    let run = lint(&warnings, &[]);
    run.expect_code(0);
    assert_eq!(summary(&run)["status"], "passed");
    assert_eq!(summary(&run)["deny"], "error");
    lint(&warnings, &["--deny", "error"]).expect_code(0);
    let run = lint(&warnings, &["--deny", "warning"]);
    run.expect_code(1);
    assert_eq!(summary(&run)["status"], "failed");
    assert_eq!(summary(&run)["deny"], "warning");

    let errors = Vault::new();
    errors.write("entities/a.md", clean("entity", "e.a", &[], ""));
    errors.write("entities/b.md", clean("entity", "e.a", &[], ""));
    lint(&errors, &[]).expect_code(1);
    lint(&errors, &["--deny", "warning"]).expect_code(1);
}

#[test]
fn lint_that_cannot_run_exits_2() {
    let v = Vault::new();
    let missing = v.temp().join("nope");
    let run = v.run("wiki-lint", &["--vault", missing.to_str().unwrap()]);
    run.expect_code(2);
    assert!(
        run.stderr.starts_with("wiki-lint: error: "),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");

    let run = v.run_stdin("wiki-lint", &["--stdin"], Some(b"{\"type\":\"page\"}\n"));
    run.expect_code(2);
    assert!(
        run.stderr.contains("<stdin>:1: invalid record"),
        "{}",
        run.stderr
    );

    lint(&v, &["--format", "json"]).expect_code(2);
    lint(&v, &["--deny", "never"]).expect_code(2);
    lint(&v, &["--stdin", "--staged"]).expect_code(2);
    // Not a git repository.
    let run = lint(&v, &["--staged"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("not inside a git repository"),
        "{}",
        run.stderr
    );
}

#[test]
fn jsonl_records_have_the_documented_shape() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean("entity", "e.a", &["questions: [a, b]"], ""),
    );
    let run = lint(&v, &[]);
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"type":"diagnostic","code":"open-question","severity":"warning","category":"open-questions","path":"entities/a.md","line":6,"message":"Page lists 2 open questions."}"#,
            "\n",
            r#"{"type":"summary","mode":"vault","pages":1,"pageErrors":0,"errors":0,"warnings":1,"deny":"error","status":"passed"}"#,
            "\n"
        )
    );
    v.write(
        "entities/b.md",
        page(
            &[
                "pageType: entity",
                "sourceIds: s",
                &format!("updatedAt: {FRESH}"),
            ],
            "",
        ),
    );
    let d = diagnostics(&lint(&v, &[]));
    assert_eq!(d[1]["code"], "missing-id");
    assert!(
        d[1]["line"].is_null(),
        "a missing key has no line: {}",
        d[1]
    );
}

#[test]
fn text_format() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean("entity", "e.a", &["questions: a"], ""),
    );
    v.write(
        "entities/b.md",
        page(
            &[
                "pageType: entity",
                "sourceIds: s",
                &format!("updatedAt: {FRESH}"),
            ],
            "",
        ),
    );
    let run = lint(&v, &["--format", "text"]);
    run.expect_code(1);
    assert_eq!(
        run.stdout,
        "entities/a.md:6: open-question: Page lists 1 open question.\n\
         entities/b.md: missing-id: Missing `id` frontmatter.\n\
         1 error, 1 warning in 2 pages\n"
    );
}

#[test]
fn github_format_uses_repository_relative_paths() {
    // The test kit's vault lives in `<temp>/vault`: make `<temp>` the repository.
    let v = Vault::new();
    wiki_testkit::output(
        {
            let mut c = std::process::Command::new("git");
            c.args(["init", "-q"]).current_dir(v.temp());
            wiki_testkit::isolate(&mut c, v.home());
            c
        },
        None,
    )
    .expect_code(0);
    v.write(
        "entities/a.md",
        clean("entity", "e.a", &["questions: a"], ""),
    );
    v.write(
        "entities/b,c.md",
        page(
            &[
                "pageType: entity",
                "id: e.b",
                &format!("updatedAt: {FRESH}"),
                "sourceIds: s",
            ],
            "[[gone]]\n",
        ),
    );
    v.write("concepts/x.md", clean("entity", "c.x", &[], ""));
    let run = lint(&v, &["--format", "github"]);
    run.expect_code(1);
    assert_eq!(
        run.stdout,
        "::error file=vault/concepts/x.md,line=2,title=page-type-mismatch::Expected pageType `concept`, found `entity`.\n\
         ::warning file=vault/entities/a.md,line=6,title=open-question::Page lists 1 open question.\n\
         ::warning file=vault/entities/b%2Cc.md,line=8,title=broken-wikilink::Broken wikilink target `gone`.\n"
    );
    assert_eq!(run.stderr, "wiki-lint: 1 error, 2 warnings in 3 pages\n");

    // A vault at the top level of its repository: paths are vault-relative.
    let top = Vault::with_git();
    top.write(
        "entities/a.md",
        clean("entity", "e.a", &["questions: a"], ""),
    );
    let run = lint(&top, &["--format", "github"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "::warning file=entities/a.md,line=6,title=open-question::Page lists 1 open question.\n"
    );
}

#[test]
fn stdin_records_give_the_same_findings_as_the_vault() {
    let v = Vault::new();
    v.write(
        "entities/a.md",
        clean(
            "entity",
            "e.a",
            &["questions: a", "claims:", "  - {id: c, text: T}"],
            "[[b]] [[x]]\n",
        ),
    );
    v.write("entities/b.md", clean("entity", "e.a", &[], ""));
    v.write("concepts/bad.md", "---\nid: [\n---\n");
    let root = v.root.to_string_lossy().into_owned();
    let records = v.run("wiki", &["parse", "--vault", &root]);
    records.expect_code(1); // one page failed to parse
    let from_stdin = v.run_stdin("wiki-lint", &["--stdin"], Some(records.stdout.as_bytes()));
    let from_vault = lint(&v, &[]);
    from_stdin.expect_code(1);
    assert_eq!(findings(&from_stdin), findings(&from_vault));
    assert_eq!(summary(&from_stdin)["mode"], "stdin");
    assert_eq!(summary(&from_stdin)["pages"], 3);
}

#[test]
fn rich_fixture_matches_the_original_2026_9_6_lint() {
    // The vault the original plugin (2026.9.6) linted, and its `wiki lint --json` issues.
    let golden = workspace_root().join("tests/golden/original/2026.9.6-native");
    let vault = golden.join("after-lint");
    let v = Vault::new();
    let run = v.run("wiki-lint", &["--vault", vault.to_str().unwrap()]);
    run.expect_code(1);
    let ours: Vec<(String, String, String, String, String)> = diagnostics(&run)
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (
                s("severity"),
                s("category"),
                s("code"),
                s("path"),
                s("message"),
            )
        })
        .collect();
    let original: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(golden.join("commands/17-lint-json.stdout")).unwrap(),
    )
    .unwrap();
    let mut expected: Vec<(String, String, String, String, String)> = original["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (
                s("severity"),
                s("category"),
                s("code"),
                s("path"),
                s("message"),
            )
        })
        .collect();
    // Known difference: 2026.9.6 dates a claim by its own `updatedAt` (and evidence) before the
    // page's, so `claim.db.vacuum` (claim 90 days old, page 30 days old) is stale there; our
    // claim freshness (wiki-parse, the 2026.6.11 rule) takes the latest of all three: aging.
    let vacuum = expected
        .iter()
        .position(|e| e.2 == "stale-claim" && e.4.contains("claim.db.vacuum"))
        .expect("the original reports claim.db.vacuum");
    expected.remove(vacuum);
    assert_eq!(ours, expected);
}

#[test]
fn broken_fixture_matches_the_original_2026_9_6_codes() {
    // Pages whose frontmatter does not parse: same findings as the original, with our YAML
    // parser's reasons after the same `Frontmatter failed to parse: ` prefix.
    let golden = workspace_root().join("tests/golden/original/2026.9.6-broken");
    let v = Vault::new();
    let run = v.run(
        "wiki-lint",
        &["--vault", golden.join("after-lint").to_str().unwrap()],
    );
    run.expect_code(1);
    let original: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(golden.join("commands/03-lint-json.stdout")).unwrap(),
    )
    .unwrap();
    let key = |d: &serde_json::Value| {
        ["severity", "category", "code", "path"]
            .map(|k| d[k].as_str().unwrap_or_default().to_string())
    };
    let ours = diagnostics(&run);
    let theirs = original["issues"].as_array().unwrap();
    assert_eq!(
        ours.iter().map(key).collect::<Vec<_>>(),
        theirs.iter().map(key).collect::<Vec<_>>()
    );
    for (o, t) in ours.iter().zip(theirs) {
        let prefix = "Frontmatter failed to parse: ";
        assert!(o["message"].as_str().unwrap().starts_with(prefix), "{o}");
        assert!(t["message"].as_str().unwrap().starts_with(prefix), "{t}");
    }
    assert_eq!(
        ours[1]["message"],
        "Frontmatter failed to parse: Wiki frontmatter must be a YAML mapping (found a list)"
    );
}

#[test]
fn agent_flag_lints_the_agent_branch_without_checkout() {
    let v = Vault::with_git();
    v.write("entities/a.md", clean("entity", "entity.a", &[], ""));
    v.commit_all("main");
    v.git(&["checkout", "-q", "-b", "agents/bot"]);
    v.write("entities/bot.md", clean("entity", "entity.a", &[], ""));
    v.commit_all("bot page");
    v.git(&["checkout", "-q", "main"]);
    assert!(!v.exists("entities/bot.md"));

    lint(&v, &[]).expect_code(0);
    let run = lint(&v, &["--agent", "bot"]);
    run.expect_code(1);
    let codes: Vec<(String, String)> = findings(&run).into_iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(
        codes,
        vec![
            ("entities/a.md".to_string(), "duplicate-id".to_string()),
            ("entities/bot.md".to_string(), "duplicate-id".to_string()),
        ]
    );
    // $WIKI_AGENT works the same; a branch that does not exist yet starts at HEAD.
    let mut cmd = v.command("wiki-lint");
    cmd.args(["--vault", v.root.to_str().unwrap()])
        .env("WIKI_AGENT", "bot");
    wiki_testkit::output(cmd, None).expect_code(1);
    lint(&v, &["--agent", "newbie"]).expect_code(0);
    // Checked out: the work tree (with its uncommitted edits) is linted.
    v.git(&["checkout", "-q", "agents/bot"]);
    v.write("entities/bot.md", clean("entity", "entity.bot", &[], ""));
    lint(&v, &["--agent", "bot"]).expect_code(0);
}
