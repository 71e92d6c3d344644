//! The `wiki-digest` plumbing binary: records from `wiki-parse` on stdin, or the vault.

mod common;

use common::*;

fn compiled() -> wiki_testkit::Vault {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    v
}

#[test]
fn claims_from_wiki_parse_records_are_the_claims_jsonl_lines() {
    let v = compiled();
    let records = v.run("wiki-parse", &[]);
    records.expect_code(0);
    let run = v.run_stdin(
        "wiki-digest",
        &["--claims"],
        Some(records.stdout.as_bytes()),
    );
    run.expect_code(0);
    assert_eq!(run.stdout, v.read(".openclaw-wiki/cache/claims.jsonl"));
    // Each line is a JSON object a `jq` filter can read.
    for line in run.jsonl() {
        assert!(line["pagePath"].is_string());
        assert!(line.get("type").is_none());
    }
}

#[test]
fn digest_from_records_and_from_the_vault_match_the_cache_file() {
    let v = compiled();
    let want = v.read(".openclaw-wiki/cache/agent-digest.json");
    // From the vault (stdin is not a pipe here).
    let run = v.run("wiki-digest", &["--digest"]);
    run.expect_code(0);
    assert_eq!(run.stdout, want);
    // From records, explicitly with `-`.
    let records = v.run("wiki-parse", &[]).stdout;
    let run = v.run_stdin("wiki-digest", &["--digest", "-"], Some(records.as_bytes()));
    run.expect_code(0);
    assert_eq!(run.stdout, want);
}

#[test]
fn report_body_is_the_dashboard_block() {
    let v = compiled();
    for (name, mode) in [("privacy-review", None), ("stale-pages", Some("obsidian"))] {
        let mut args = vec!["--report", name];
        if let Some(m) = mode {
            args.extend(["--render-mode", m]);
        }
        let run = v.run("wiki-digest", &args);
        run.expect_code(0);
        let page = v.read(&format!("reports/{name}.md"));
        let start = format!("<!-- openclaw:wiki:{name}:start -->\n");
        let end = format!("<!-- openclaw:wiki:{name}:end -->");
        let body = &page[page.find(&start).unwrap() + start.len()..page.find(&end).unwrap()];
        if mode.is_none() {
            assert_eq!(run.stdout, body);
        } else {
            assert!(
                run.stdout
                    .contains("- [[entities/beta|Beta]]: stale (2025-10-01T00:00:00.000Z)")
            );
        }
    }
}

#[test]
fn error_records_become_frontmatter_errors() {
    let v = init_vault(&[]);
    add_fixture(&v, "broken-vault.sh");
    let records = v.run("wiki-parse", &[]);
    records.expect_code(1);
    let run = v.run_stdin(
        "wiki-digest",
        &["--digest"],
        Some(records.stdout.as_bytes()),
    );
    run.expect_code(0);
    let d = run.json();
    assert_eq!(d["pageCounts"]["concept"], 0);
    assert_eq!(d["frontmatterErrors"][0]["path"], "concepts/bad-yaml.md");
    assert!(
        run.stderr.contains("concepts/bad-yaml.md:5: "),
        "{}",
        run.stderr
    );
}

#[test]
fn an_output_is_required_and_names_are_checked() {
    let v = compiled();
    v.run("wiki-digest", &[]).expect_code(2);
    v.run("wiki-digest", &["--report", "nope"]).expect_code(2);
    v.run("wiki-digest", &["--claims", "--digest"])
        .expect_code(2);
    // Also reachable as `wiki digest`.
    let run = v.run("wiki", &["digest", "--claims"]);
    run.expect_code(0);
    assert_eq!(run.stdout, v.read(".openclaw-wiki/cache/claims.jsonl"));
}
