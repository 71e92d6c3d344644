//! Vault compatibility: a vault compiled by the original plugin (openclaw 2026.6.11, golden copy in
//! tests/golden/original) is already current for our compile, and lint/search/get work on it.

use std::path::Path;

use wiki_testkit::Vault;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn original_compiled_vault_is_current_for_our_compile() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden/original/2026.6.11-native/after-compile");
    let v = Vault::new();
    copy_dir(&golden, &v.root);
    v.run("wiki", &["init", "."]).expect_code(0);
    v.commit_all("vault written by the original plugin");
    let run = v.run("wiki", &["compile", "--check"]);
    assert_eq!(
        run.code, 0,
        "our compile would change the original's output:\n{}",
        run.stdout
    );
    // The rest of the toolchain reads it.
    let run = v.run("wiki-lint", &["--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr); // the fixture has deliberate errors
    assert!(run.jsonl().iter().any(|r| r["code"] == "duplicate-id"));
    let run = v.run("wiki", &["search", "alpha database", "--json"]);
    run.expect_code(0);
    assert!(!run.json().as_array().unwrap().is_empty());
    v.run("wiki", &["get", "claim:claim.alpha.db"])
        .expect_code(0);
    // And a real compile makes no commit.
    let head = v.git(&["rev-parse", "HEAD"]);
    v.run("wiki", &["compile"]).expect_code(0);
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
}
