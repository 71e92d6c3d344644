//! Timing probe for large change sets.

use crate::common::*;

/// Timing probe (not an assertion of speed): `cargo test -p wiki-store -- --ignored --nocapture`.
#[test]
#[ignore = "slow timing probe"]
fn perf_many_files() {
    let f = Fixture::repo_with(&[("seed.md", "s")]);
    let store = f.store();
    let changes: Vec<wiki_store::Change> = (0..10_000)
        .map(|i| w(&format!("d{}/f{i}.md", i % 50), &format!("content {i}\n")))
        .collect();
    let t = std::time::Instant::now();
    store.commit(&req(&changes, "bulk")).expect("commit");
    eprintln!("10k-file commit: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let out = store.commit(&req(&changes, "noop")).expect("commit");
    assert!(out.commit.is_none());
    eprintln!("10k-file no-op: {:?}", t.elapsed());
    let rewritten: Vec<wiki_store::Change> = (0..10_000)
        .map(|i| {
            w(
                &format!("d{}/f{i}.md", i % 50),
                &format!("content {i} v2\n"),
            )
        })
        .collect();
    let t = std::time::Instant::now();
    store.commit(&req(&rewritten, "rewrite")).expect("commit");
    eprintln!("10k-file rewrite of existing files: {:?}", t.elapsed());
    let one = [w("d1/f1.md", "changed\n")];
    let t = std::time::Instant::now();
    store.commit(&req(&one, "one")).expect("commit");
    eprintln!("1-file commit in 10k vault: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let n = store.list_files("HEAD", "").expect("list").len();
    eprintln!("list {n}: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    assert_eq!(f.status(), "");
    eprintln!("git status: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    drop(store);
    drop(f);
    eprintln!("drop: {:?}", t.elapsed());
}
