//! Large vaults (issue 35): a dashboard longer than `wiki_digest::shards::SHARD_ABOVE_ROWS`
//! rows becomes a summary page linking shard pages; the compile that writes them is idempotent,
//! `compile --check` passes, a one-page operation keeps the vault current, and shard pages a
//! dashboard no longer needs are removed.

use std::path::Path;
use std::process::Command;

use wiki_testkit::Vault;

/// A generated vault of `pages` pages, committed.
fn generated(pages: usize, obsidian: bool) -> Vault {
    let v = Vault::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/gen-vault");
    let made = Command::new("python3")
        .arg(&script)
        .arg(pages.to_string())
        .arg(&v.root)
        .args(["--seed", "3"])
        .status()
        .expect("python3 scripts/gen-vault");
    assert!(made.success(), "gen-vault failed");
    if obsidian {
        let state = v.read(".openclaw-wiki/state.json");
        v.write(
            ".openclaw-wiki/state.json",
            state.replace("\"native\"", "\"obsidian\""),
        );
    }
    v.git(&["init", "-q", "-b", "main"]);
    v.commit_all("generated vault");
    v
}

/// The report files (path, text).
fn reports(v: &Vault) -> Vec<(String, String)> {
    v.files_under("reports")
        .into_iter()
        .map(|(p, b)| (p, String::from_utf8(b).expect("utf-8 report")))
        .collect()
}

/// The targets of the Markdown links `](x.md)` and wikilinks `[[reports/x|` to report pages in
/// `text`, as vault paths.
fn report_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split("](").skip(1) {
        if let Some(end) = part.find(')') {
            let target = &part[..end];
            if !target.contains('/') && target.ends_with(".md") {
                out.push(format!("reports/{target}"));
            }
        }
    }
    for part in text.split("[[reports/").skip(1) {
        if let Some(end) = part.find('|') {
            out.push(format!("reports/{}.md", &part[..end]));
        }
    }
    out
}

/// The number in a `- label: N` line of `text`.
fn count(text: &str, label: &str) -> usize {
    text.lines()
        .find_map(|l| l.strip_prefix(label)?.strip_prefix(": ")?.parse().ok())
        .unwrap_or_else(|| panic!("no `{label}` line in\n{text}"))
}

fn check_sharded(v: &Vault, obsidian: bool) {
    let files = reports(v);
    let get = |p: &str| -> &str {
        files
            .iter()
            .find(|(path, _)| path == p)
            .map(|(_, t)| t.as_str())
            .unwrap_or_else(|| panic!("{p} missing"))
    };
    let summary = get("reports/claim-health.md");
    assert!(
        summary.contains("- This dashboard is split into shard pages: "),
        "{summary}"
    );
    let missing = count(summary, "- Claims missing evidence");
    assert!(missing > 100, "{summary}");
    // Every shard is linked from the summary, links back to it, and exists; every row of the
    // sharded sections is on exactly one shard.
    let shards = report_links(summary);
    assert!(shards.len() >= 3, "{shards:?}");
    let mut on_shards = 0;
    for s in &shards {
        let text = get(s);
        assert!(text.contains("pageType: report"), "{s}");
        assert_eq!(report_links(text), ["reports/claim-health.md"], "{s}");
        let body = text.split("### Missing Evidence\n").nth(1).unwrap_or("");
        on_shards += body
            .split("\n\n")
            .next()
            .unwrap_or("")
            .lines()
            .filter(|l| l.starts_with("- "))
            .count();
        if obsidian {
            assert!(
                text.contains("- [[entities/") || text.contains("- [[concepts/"),
                "{s}"
            );
        } else {
            assert!(text.contains("](../"), "{s}");
        }
    }
    assert_eq!(on_shards, missing);
    // No report page is large, and no file in reports/ is a stray shard.
    for (path, text) in &files {
        assert!(text.len() < 1 << 20, "{path} is {} bytes", text.len());
        let linked =
            shards.contains(path) || files.iter().any(|(_, t)| report_links(t).contains(path));
        let stem = path.trim_start_matches("reports/");
        let dashboard = !stem.contains('-')
            || [
                "open-questions",
                "low-confidence",
                "claim-health",
                "stale-pages",
                "person-agent-directory",
                "relationship-graph",
                "provenance-coverage",
                "privacy-review",
            ]
            .iter()
            .any(|d| stem == format!("{d}.md"));
        assert!(dashboard || linked, "{path} is linked from no report");
    }
}

fn compiles_idempotently(obsidian: bool) {
    let v = generated(1500, obsidian);
    v.run("wiki", &["compile"]).expect_code(0);
    check_sharded(&v, obsidian);
    assert_eq!(v.status(), "");
    let commits = v.commit_count();
    let before = reports(&v);
    v.run("wiki", &["compile"]).expect_code(0);
    v.run("wiki", &["compile", "--force"]).expect_code(0);
    assert_eq!(v.commit_count(), commits, "a second compile committed");
    assert_eq!(reports(&v), before);
    v.run("wiki", &["compile", "--check"]).expect_code(0);
    v.run("wiki", &["compile", "--check", "--force"])
        .expect_code(0);

    // One operation on one page keeps the vault what a compile from scratch makes.
    let page = v
        .files_under("entities")
        .into_iter()
        .map(|(p, _)| p)
        .find(|p| !p.ends_with("index.md"))
        .expect("an entity page");
    let op = format!(r#"{{"op":"add_question","page":"{page}","question":"Who pays?"}}"#);
    v.run_stdin("wiki-apply", &[], Some(op.as_bytes()))
        .expect_code(0);
    assert_eq!(v.status(), "");
    v.run("wiki", &["compile", "--check", "--force"])
        .expect_code(0);
    check_sharded(&v, obsidian);
}

#[test]
fn a_long_dashboard_becomes_a_summary_with_shard_pages() {
    compiles_idempotently(false);
}

#[test]
fn shard_pages_link_with_wikilinks_in_obsidian_mode() {
    compiles_idempotently(true);
}

#[test]
fn shard_pages_go_when_the_dashboard_fits_on_one_page_again() {
    let v = generated(1500, false);
    v.run("wiki", &["compile"]).expect_code(0);
    assert!(reports(&v).len() > 12, "no shard pages written");
    // Most pages go: every dashboard fits on one page again.
    for dir in ["entities", "concepts", "syntheses", "sources"] {
        for (path, _) in v.files_under(dir).into_iter().skip(40) {
            if !path.ends_with("index.md") {
                std::fs::remove_file(v.path(&path)).expect("remove page");
            }
        }
    }
    v.commit_all("fewer pages");
    v.run("wiki", &["compile"]).expect_code(0);
    let names: Vec<String> = reports(&v).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        names,
        [
            "reports/claim-health.md",
            "reports/contradictions.md",
            "reports/index.md",
            "reports/low-confidence.md",
            "reports/open-questions.md",
            "reports/person-agent-directory.md",
            "reports/privacy-review.md",
            "reports/provenance-coverage.md",
            "reports/relationship-graph.md",
            "reports/stale-pages.md",
        ]
    );
    assert!(
        !v.read("reports/claim-health.md")
            .contains("split into shard pages")
    );
    assert_eq!(v.status(), "");
    v.run("wiki", &["compile", "--check", "--force"])
        .expect_code(0);
}
