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
