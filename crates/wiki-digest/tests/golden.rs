//! Compiled files compared byte for byte with the ORIGINAL plugin (goldens captured by
//! `scripts/run-original`, see docs/ORIGINAL.md): the rich fixture vault compiled by
//! openclaw 2026.6.11 (the last release writing agent-digest.json and claims.jsonl, with native
//! links relative to the containing page), in native and obsidian render mode, the empty vault,
//! and the broken-frontmatter vault as 2026.9.6 compiles it (2026.6.11 aborts on it).

mod common;

use common::*;

const NATIVE: &str = "2026.6.11-native";
const OBSIDIAN: &str = "2026.6.11-obsidian";

fn compiled_rich(mode: &str) -> wiki_testkit::Vault {
    let v = rich_vault(mode);
    compile(&v, &[]).expect_code(0);
    v
}

fn check_file(label: &str, mode: &str, rel: &str) {
    let v = compiled_rich(mode);
    assert_same(rel, &bytes(&v, rel), &golden(label, "after-compile", rel));
}

macro_rules! golden_file_tests {
    ($($name:ident => $rel:expr;)*) => {
        $(
            #[test]
            fn $name() {
                check_file(NATIVE, "native", $rel);
            }
        )*
    };
}

golden_file_tests! {
    dashboard_open_questions_matches_original => "reports/open-questions.md";
    dashboard_contradictions_matches_original => "reports/contradictions.md";
    dashboard_low_confidence_matches_original => "reports/low-confidence.md";
    dashboard_claim_health_matches_original => "reports/claim-health.md";
    dashboard_stale_pages_matches_original => "reports/stale-pages.md";
    dashboard_person_agent_directory_matches_original => "reports/person-agent-directory.md";
    dashboard_relationship_graph_matches_original => "reports/relationship-graph.md";
    dashboard_provenance_coverage_matches_original => "reports/provenance-coverage.md";
    dashboard_privacy_review_matches_original => "reports/privacy-review.md";
    agent_digest_json_matches_original => ".openclaw-wiki/cache/agent-digest.json";
    claims_jsonl_matches_original => ".openclaw-wiki/cache/claims.jsonl";
    root_index_matches_original => "index.md";
}

/// Every file the original wrote (pages with Related blocks, indexes, dashboards, cache),
/// except the starter files `wiki init` owns.
fn compare_tree(v: &wiki_testkit::Vault, label: &str, stage: &str) {
    let mut compared = 0;
    for rel in golden_files(label, stage) {
        if ["AGENTS.md", "WIKI.md", "inbox.md"].contains(&rel.as_str()) {
            continue;
        }
        assert_same(&rel, &bytes(v, &rel), &golden(label, stage, &rel));
        compared += 1;
    }
    assert!(compared > 0, "no golden files compared for {label}/{stage}");
}

#[test]
fn native_compile_matches_original_byte_for_byte() {
    let v = compiled_rich("native");
    compare_tree(&v, NATIVE, "after-compile");
}

#[test]
fn directory_indexes_and_related_blocks_match_original() {
    let v = compiled_rich("native");
    for rel in [
        "sources/index.md",
        "entities/index.md",
        "concepts/index.md",
        "syntheses/index.md",
        "reports/index.md",
        "entities/alpha.md",
        "concepts/大语言模型概述.md",
        "concepts/release-process.md",
    ] {
        assert_same(rel, &bytes(&v, rel), &golden(NATIVE, "after-compile", rel));
    }
    // Native links are relative to the page that contains them.
    let beta = String::from_utf8(bytes(&v, "entities/alpha.md")).unwrap();
    assert!(beta.contains("- [Alpha Source](../sources/alpha.md)"));
    assert!(beta.contains("- [Beta](beta.md)"));
}

#[test]
fn obsidian_compile_matches_original_byte_for_byte() {
    let v = compiled_rich("obsidian");
    compare_tree(&v, OBSIDIAN, "after-compile");
    let alpha = String::from_utf8(bytes(&v, "entities/alpha.md")).unwrap();
    assert!(
        alpha.contains("- [[sources/alpha|Alpha Source]]"),
        "{alpha}"
    );
}

#[test]
fn render_mode_flag_overrides_state_json() {
    let v = rich_vault("native");
    compile(&v, &["--render-mode", "obsidian"]).expect_code(0);
    assert_same(
        "index.md",
        &bytes(&v, "index.md"),
        &golden(OBSIDIAN, "after-compile", "index.md"),
    );
}

#[test]
fn empty_vault_compile_matches_original() {
    let v = init_vault(&[]);
    let run = compile(&v, &[]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("(9 pages, 17 indexes updated)."),
        "{}",
        run.stdout
    );
    compare_tree(&v, NATIVE, "after-compile-empty");
}

#[test]
fn parse_failure_among_good_pages_compiles_the_rest() {
    let v = init_vault(&[]);
    add_fixture(&v, "broken-vault.sh");
    let bad_before = bytes(&v, "concepts/bad-yaml.md");
    let run = compile(&v, &[]);
    run.expect_code(0);
    // Named on stderr as path:line: message.
    assert!(
        run.stderr
            .contains("concepts/bad-yaml.md:5: invalid YAML frontmatter:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("concepts/list-frontmatter.md:2: Wiki frontmatter must be a YAML mapping"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("(11 pages, 19 indexes updated)."));
    // Bad pages are left alone; everything else is what 2026.9.6 writes (it skips bad pages too).
    assert_eq!(bytes(&v, "concepts/bad-yaml.md"), bad_before);
    for rel in golden_files("2026.9.6-broken", "after-compile") {
        if ["AGENTS.md", "WIKI.md", "inbox.md"].contains(&rel.as_str()) {
            continue;
        }
        assert_same(
            &rel,
            &bytes(&v, &rel),
            &golden("2026.9.6-broken", "after-compile", &rel),
        );
    }
    // The digest records the failures.
    let digest: serde_json::Value =
        serde_json::from_slice(&bytes(&v, ".openclaw-wiki/cache/agent-digest.json")).unwrap();
    let errors = digest["frontmatterErrors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["path"], "concepts/bad-yaml.md");
    assert_eq!(errors[0]["line"], 5);
    assert_eq!(errors[1]["path"], "concepts/list-frontmatter.md");
    let keys: Vec<&str> = digest
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "pageCounts",
            "claimCount",
            "claimHealth",
            "contradictionClusters",
            "frontmatterErrors",
            "pages"
        ]
    );
}
