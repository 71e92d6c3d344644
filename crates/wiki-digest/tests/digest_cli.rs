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

/// `--agent ID` reads the agent's branch without checkout, for `wiki-digest` and `wiki-parse`
/// alike: the claims of an operation made as the agent are there, an uncommitted page of the
/// work tree is not; the digest is the one `wiki-apply --agent` cached for that agent; an agent
/// without a branch yet reads `HEAD`.
#[test]
fn agent_flag_reads_the_agent_branch() {
    let v = compiled();
    let op = r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.agent.only","text":"Only on the agent's branch."}"#;
    v.run_stdin("wiki-apply", &["--agent", "ops"], Some(op.as_bytes()))
        .expect_code(0);
    v.write(
        "concepts/main-only.md",
        wiki_testkit::page(
            &[
                "id: concept.main-only",
                "title: Main Only",
                "claims:",
                "  - id: claim.main.only",
                "    text: Only in the work tree.",
            ],
            "# Main Only\n",
        ),
    );
    let claims = |args: &[&str]| {
        let run = v.run("wiki-digest", &[&["--claims"], args].concat());
        run.expect_code(0);
        run.stdout
    };
    let agent = claims(&["--agent", "ops"]);
    assert!(agent.contains("\"claim.agent.only\"") && !agent.contains("claim.main.only"));
    let work_tree = claims(&[]);
    assert!(work_tree.contains("\"claim.main.only\"") && !work_tree.contains("claim.agent.only"));
    let unborn = claims(&["--agent", "nobody-yet"]);
    assert!(!unborn.contains("claim.agent.only") && !unborn.contains("claim.main.only"));
    // The agent's digest is the one its operation compiled.
    let digest = v.run("wiki-digest", &["--digest", "--agent", "ops"]);
    digest.expect_code(0);
    assert_eq!(
        digest.stdout,
        v.read(".openclaw-wiki/cache/agents/ops/agent-digest.json")
    );
    // `wiki-parse --agent` gives the records of the same pages.
    let records = v.run("wiki-parse", &["--agent", "ops"]);
    records.expect_code(0);
    assert!(!records.stdout.contains("concepts/main-only.md"));
    let piped = v.run_stdin(
        "wiki-digest",
        &["--claims", "-"],
        Some(records.stdout.as_bytes()),
    );
    piped.expect_code(0);
    assert_eq!(piped.stdout, agent);
    // Paths select pages of the branch; a page only in the work tree is not there.
    let entities = v.run(
        "wiki-parse",
        &["--agent", "ops", "entities", "--format", "text"],
    );
    entities.expect_code(0);
    assert!(!entities.stdout.is_empty());
    assert!(
        entities.stdout.lines().all(|l| l.starts_with("entities/")),
        "{}",
        entities.stdout
    );
    let missing = v.run("wiki-parse", &["--agent", "ops", "concepts/main-only.md"]);
    missing.expect_code(2);
    assert!(
        missing
            .stderr
            .contains("concepts/main-only.md: no page there in agents/ops"),
        "{}",
        missing.stderr
    );
    // An agent without a branch reads HEAD: with the work tree clean, the very records (same
    // order) that the work tree gives.
    std::fs::remove_file(v.path("concepts/main-only.md")).unwrap();
    assert_eq!(v.status(), "");
    let head = v.run("wiki-parse", &["--agent", "nobody-yet"]);
    head.expect_code(0);
    let work_tree = v.run("wiki-parse", &[]);
    assert_eq!(head.stdout, work_tree.stdout);
    let bad = v.run("wiki-parse", &["--agent", "a..b"]);
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("not a valid branch name"),
        "{}",
        bad.stderr
    );
}

/// An agent's branch read from git gives what a checkout of it gives: the same records in the
/// same order (a directory's pages where its name sorts), symbolic links where pages would be
/// reported as problems, pages nested too deep for the scan left out. Checked for `wiki-parse`,
/// `wiki-digest` and `wiki-lint`, with the branch checked out and then not.
#[test]
fn an_agent_branch_reads_as_its_checkout() {
    let v = compiled();
    v.git(&["checkout", "-q", "-b", "agents/ag"]);
    let page = |id: &str| wiki_testkit::page(&[&format!("id: {id}"), &format!("title: {id}")], "");
    v.write("concepts/nest.md", page("concept.nest-file"));
    v.write("concepts/nest/inner.md", page("concept.nest-inner"));
    let deep = format!("concepts/{}deep.md", "d/".repeat(17));
    v.write(&deep, page("concept.too-deep"));
    let fits = format!("concepts/{}fits.md", "d/".repeat(16));
    v.write(&fits, page("concept.fits"));
    std::os::unix::fs::symlink("nest.md", v.path("concepts/link.md")).unwrap();
    std::os::unix::fs::symlink("../sources", v.path("concepts/linked-dir.md")).unwrap();
    std::os::unix::fs::symlink("elsewhere", v.path("concepts/not-a-page")).unwrap();
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"bad-\xff-name.md");
        std::fs::write(v.path("concepts").join(name), page("concept.bad-name")).unwrap();
    }
    v.git(&["add", "-A"]);
    v.git(&["commit", "-q", "-m", "agent pages"]);
    let runs = |v: &wiki_testkit::Vault| -> Vec<(i32, String)> {
        [
            ("wiki-parse", &["--agent", "ag"][..]),
            (
                "wiki-parse",
                &["--agent", "ag", "concepts", "--format", "text"],
            ),
            ("wiki-digest", &["--agent", "ag", "--digest"]),
            ("wiki-digest", &["--agent", "ag", "--claims"]),
            ("wiki-lint", &["--agent", "ag", "--format", "jsonl"]),
        ]
        .iter()
        .map(|(bin, args)| {
            let r = v.run(bin, args);
            (r.code, r.stdout)
        })
        .collect()
    };
    let checked_out = runs(&v);
    let listing = &checked_out[1].1;
    assert!(
        listing.contains("concepts/link.md\terror\tconcepts/link.md:1\tsymlink not followed")
            && listing.contains("concepts/linked-dir.md\terror")
            && listing.contains("concepts/bad-\u{fffd}-name.md\terror\tconcepts/bad-\u{fffd}-name.md:1\tfile name is not valid UTF-8")
            && !listing.contains("not-a-page")
            && listing.contains(&fits)
            && !listing.contains("deep.md"),
        "{listing}"
    );
    let order: Vec<&str> = listing
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(""))
        .filter(|p| p.starts_with("concepts/nest") || p.starts_with("concepts/link"))
        .collect();
    assert_eq!(
        order,
        [
            "concepts/link.md",
            "concepts/linked-dir.md",
            "concepts/nest/inner.md",
            "concepts/nest.md"
        ]
    );
    assert_eq!(checked_out[0].0, 1, "a problem is a finding");
    assert!(checked_out[2].1.contains("concepts/link.md"));
    v.git(&["checkout", "-q", "main"]);
    assert!(!v.exists("concepts/nest.md"));
    let from_git = runs(&v);
    for (i, (a, b)) in checked_out.iter().zip(&from_git).enumerate() {
        assert_eq!(a, b, "run {i}");
    }
}

/// A page of an agent's branch whose blob git cannot read (here: its loose object deleted) is
/// reported with its path, never taken as an empty page.
#[test]
fn an_unreadable_blob_of_an_agent_branch_is_reported() {
    let v = compiled();
    v.git(&["checkout", "-q", "-b", "agents/ag"]);
    v.write(
        "concepts/lost.md",
        wiki_testkit::page(&["id: concept.lost", "title: Lost"], "# Lost\n"),
    );
    v.git(&["add", "-A"]);
    v.git(&["commit", "-q", "-m", "lost"]);
    let id = v.git(&["rev-parse", "HEAD:concepts/lost.md"]);
    let id = id.trim();
    v.git(&["checkout", "-q", "main"]);
    std::fs::remove_file(v.path(&format!(".git/objects/{}/{}", &id[..2], &id[2..]))).unwrap();
    let digest = v.run("wiki-digest", &["--agent", "ag", "--digest"]);
    digest.expect_code(0);
    let errors = &digest.json()["frontmatterErrors"];
    assert_eq!(
        errors,
        &serde_json::json!([{
            "path": "concepts/lost.md",
            "line": 1,
            "message": format!("cannot read blob {id} from git")
        }])
    );
    assert!(!digest.stdout.contains("\"concept.lost\""));
    let parse = v.run("wiki-parse", &["--agent", "ag", "concepts/lost.md"]);
    parse.expect_code(2);
    assert!(
        parse.stderr.contains(&format!("read blob {id}")),
        "{}",
        parse.stderr
    );
}

/// Each output has one form; another `--format` is a usage error, not silently ignored.
#[test]
fn other_formats_are_refused() {
    let v = compiled();
    for (args, ok) in [
        (&["--claims", "--format", "jsonl"][..], true),
        (&["--claims", "--format", "text"][..], false),
        (&["--digest", "--json"][..], true),
        (&["--digest", "--format", "jsonl"][..], true),
        (
            &["--report", "open-questions", "--format", "text"][..],
            true,
        ),
        (
            &["--report", "open-questions", "--format", "github"][..],
            false,
        ),
    ] {
        let run = v.run("wiki-digest", args);
        if ok {
            run.expect_code(0);
        } else {
            run.expect_code(2);
            assert!(
                run.stderr.contains("is not supported here"),
                "{args:?}: {}",
                run.stderr
            );
            assert_eq!(run.stdout, "");
        }
    }
}
