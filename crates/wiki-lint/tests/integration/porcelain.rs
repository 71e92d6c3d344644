//! `wiki lint`: compile + lint + `reports/lint.md` in one commit, exactly as the original.

use std::path::Path;

use wiki_testkit::Vault;

use crate::common::*;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("workspace root")
}

/// A committed vault made by `wiki init`, plus `pages`.
fn vault_with(pages: &[(&str, String)]) -> Vault {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    for (path, text) in pages {
        v.write(path, text);
    }
    v.commit_all("pages");
    v
}

fn rich_vault() -> Vault {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    let script = workspace_root().join("tests/fixtures/rich-vault.sh");
    let out = std::process::Command::new("sh")
        .arg(&script)
        .arg(&v.root)
        .output()
        .expect("run fixture script");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v.commit_all("rich fixture");
    v
}

#[test]
fn report_matches_the_original_and_is_committed_once_with_the_compile() {
    let v = rich_vault();
    let before = v.commit_count();
    let run = v.run("wiki", &["lint"]);
    run.expect_code(1); // the fixture has errors
    // The findings as `path:line: code: message` (those of `wiki-lint --format text`), then the
    // original plugin's summary line.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 32, "{}", run.stdout);
    assert_eq!(
        lines[31],
        format!(
            "Linted wiki vault at {} (31 issues, report: {}).",
            v.root.display(),
            v.root.join("reports/lint.md").display()
        )
    );
    let plumbing = v.run("wiki-lint", &["--format", "text"]);
    let plumbing: Vec<&str> = plumbing.stdout.lines().collect();
    assert_eq!(lines[..31], plumbing[..31]);
    // The original 2026.9.6 report, minus its one known difference (claim freshness of
    // `claim.db.vacuum`, see cli::rich_fixture_matches_the_original_2026_9_6_lint).
    let golden = std::fs::read_to_string(
        workspace_root().join("tests/golden/original/2026.9.6-native/after-lint/reports/lint.md"),
    )
    .unwrap();
    let expected: String = golden
        .lines()
        .filter(|l| !l.contains("Claim `claim.db.vacuum` freshness needs review"))
        .map(|l| {
            if l == "- Warnings: 27" {
                "- Warnings: 26".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    assert_eq!(v.read("reports/lint.md"), expected);

    // One commit holding the compiled files and the report.
    assert_eq!(v.commit_count(), before + 1);
    let msg = v.git(&["log", "-1", "--format=%B"]);
    assert!(
        msg.starts_with("Lint wiki vault: 31 issues (5 errors, 26 warnings)\n"),
        "{msg}"
    );
    assert!(msg.contains("\nWiki-Op: lint\n"), "{msg}");
    assert!(msg.contains("\nWiki-Page: reports/lint.md\n"), "{msg}");
    assert!(
        !msg.contains("\nWiki-Page: .openclaw-wiki/cache/"),
        "the compiled caches are derived, not committed: {msg}"
    );
    assert!(msg.contains("\nWiki-Page: entities/alpha.md\n"), "{msg}");
    assert_eq!(v.status(), "");
    // The compiled files list the new report: nothing left to compile.
    v.run("wiki", &["compile", "--check"]).expect_code(0);
    assert!(
        v.read("reports/index.md")
            .contains("[Lint Report](lint.md)")
    );
    // Linting again changes nothing and makes no commit.
    v.run("wiki", &["lint"]).expect_code(1);
    assert_eq!(v.commit_count(), before + 1);
    assert_eq!(v.status(), "");
}

#[test]
fn json_result_has_the_original_shape() {
    let v = rich_vault();
    let run = v.run("wiki", &["lint", "--json"]);
    run.expect_code(1);
    let r = run.json();
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        vec![
            "vaultRoot",
            "issueCount",
            "issues",
            "issuesByCategory",
            "reportPath",
            "errors",
            "warnings",
            "commit"
        ]
    );
    assert_eq!(r["vaultRoot"], v.root.to_str().unwrap());
    assert_eq!(r["issueCount"], 31);
    assert_eq!(r["errors"], 5);
    assert_eq!(r["warnings"], 26);
    let first = r["issues"][0].as_object().unwrap();
    let issue_keys: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(
        issue_keys,
        vec!["severity", "category", "code", "path", "message", "line"]
    );
    assert_eq!(r["issues"][0]["code"], "claim-missing-evidence");
    let cats: Vec<&str> = r["issuesByCategory"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        cats,
        vec![
            "structure",
            "provenance",
            "links",
            "contradictions",
            "open-questions",
            "quality"
        ]
    );
    assert_eq!(r["issuesByCategory"]["links"].as_array().unwrap().len(), 1);
    assert_eq!(
        r["reportPath"],
        v.root.join("reports/lint.md").to_str().unwrap()
    );
    assert_eq!(r["commit"].as_str().unwrap().len(), 40);
}

#[test]
fn clean_vault_reports_no_issues_and_exits_0() {
    let v = vault_with(&[
        (
            "sources/base.md",
            clean("source", "source.base", &[], "# Base\n"),
        ),
        ("entities/a.md", clean("entity", "entity.a", &[], "# A\n")),
    ]);
    let run = v.run("wiki", &["lint"]);
    run.expect_code(0);
    assert!(run.stdout.contains("(0 issues, report: "), "{}", run.stdout);
    assert_eq!(
        v.read("reports/lint.md"),
        "---\npageType: report\nid: report.lint\ntitle: Lint Report\nstatus: active\n---\n\n# Lint Report\n\n## Generated\n<!-- openclaw:wiki:lint:start -->\nNo issues found.\n<!-- openclaw:wiki:lint:end -->\n"
    );
    assert_eq!(v.status(), "");
}

#[test]
fn deny_levels_and_formats() {
    let v = vault_with(&[
        ("sources/base.md", clean("source", "source.base", &[], "")),
        (
            "entities/a.md",
            clean("entity", "entity.a", &["questions: Why?"], ""),
        ),
    ]);
    v.run("wiki", &["lint"]).expect_code(0);
    v.run("wiki", &["lint", "--deny", "warning"]).expect_code(1);
    let run = v.run("wiki", &["lint", "--format", "jsonl"]);
    run.expect_code(0);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/a.md".into(),
            "open-question".into(),
            Some(6),
            "Page lists 1 open question.".into()
        )]
    );
    assert_eq!(summary(&run)["status"], "passed");
    let run = v.run("wiki", &["lint", "--format", "github"]);
    assert_eq!(
        run.stdout,
        "::warning file=entities/a.md,line=6,title=open-question::Page lists 1 open question.\n"
    );
    // Not a vault: exit 2.
    let plain = Vault::with_git();
    plain.run("wiki", &["lint"]).expect_code(2);
}

#[test]
fn text_outside_the_generated_block_is_kept() {
    let v = vault_with(&[
        ("sources/base.md", clean("source", "source.base", &[], "")),
        (
            "reports/lint.md",
            "---\npageType: report\nid: report.lint\ntitle: Lint Report\nstatus: active\nowner: ops\n---\n\n# Lint Report\n\nTriage every Monday.\n\n## Generated\n<!-- openclaw:wiki:lint:start -->\n- stale\n<!-- openclaw:wiki:lint:end -->\n\n## Notes\nKeep me.\n".to_string(),
        ),
    ]);
    v.run("wiki", &["lint"]).expect_code(0);
    assert_eq!(
        v.read("reports/lint.md"),
        "---\npageType: report\nid: report.lint\ntitle: Lint Report\nstatus: active\nowner: ops\n---\n\n# Lint Report\n\nTriage every Monday.\n\n## Generated\n<!-- openclaw:wiki:lint:start -->\nNo issues found.\n<!-- openclaw:wiki:lint:end -->\n\n## Notes\nKeep me.\n"
    );
}

#[test]
fn pages_that_fail_to_parse_are_reported_and_the_rest_is_compiled() {
    let v = vault_with(&[
        ("sources/base.md", clean("source", "source.base", &[], "")),
        (
            "concepts/bad.md",
            "---\npageType: concept\nid: [oops\n---\n".to_string(),
        ),
    ]);
    let run = v.run("wiki", &["lint", "--format", "jsonl"]);
    run.expect_code(1);
    let f = findings(&run);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].1, "invalid-frontmatter");
    assert!(
        v.read("reports/lint.md")
            .contains("- `concepts/bad.md`: Frontmatter failed to parse: ")
    );
    assert!(v.exists(".openclaw-wiki/cache/agent-digest.json"));
}
