//! Shared helpers of the wiki-digest integration tests: vaults built with the real `wiki init`,
//! the fixture scripts of `tests/fixtures/` and real git; goldens of the original plugin.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use wiki_testkit::{Run, Vault};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A golden file of the original plugin: `tests/golden/original/<label>/<stage>/<rel>`.
pub fn golden(label: &str, stage: &str, rel: &str) -> Vec<u8> {
    let p = workspace()
        .join("tests/golden/original")
        .join(label)
        .join(stage)
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("golden {}: {e}", p.display()))
}

/// Every golden file of a stage except the local log, as vault-relative paths.
pub fn golden_files(label: &str, stage: &str) -> Vec<String> {
    let root = workspace()
        .join("tests/golden/original")
        .join(label)
        .join(stage);
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("golden dir") {
            let e = e.expect("entry");
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(&root)
                    .expect("prefix")
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel != ".openclaw-wiki/log.jsonl" {
                    out.push(rel);
                }
            }
        }
    }
    out.sort();
    out
}

/// A new vault made by `wiki init` (a fresh git repository with the init commit).
pub fn init_vault(args: &[&str]) -> Vault {
    let v = Vault::new();
    let mut all = vec!["init", "."];
    all.extend_from_slice(args);
    v.run("wiki", &all).expect_code(0);
    v
}

/// Run a fixture script (`tests/fixtures/<name>`) into the vault and commit the pages.
pub fn add_fixture(v: &Vault, name: &str) {
    let script = workspace().join("tests/fixtures").join(name);
    let status = std::process::Command::new("sh")
        .arg(&script)
        .arg(&v.root)
        .status()
        .expect("run fixture script");
    assert!(status.success(), "{name} failed");
    v.commit_all("fixture pages");
}

/// The rich fixture vault (`tests/fixtures/rich-vault.sh`), committed, in `mode`.
pub fn rich_vault(mode: &str) -> Vault {
    let v = init_vault(&["--render-mode", mode]);
    add_fixture(&v, "rich-vault.sh");
    v
}

/// `wiki compile` with extra arguments.
pub fn compile(v: &Vault, args: &[&str]) -> Run {
    let mut all = vec!["compile"];
    all.extend_from_slice(args);
    v.run("wiki", &all)
}

/// Read a vault file as bytes.
pub fn bytes(v: &Vault, rel: &str) -> Vec<u8> {
    std::fs::read(v.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// Assert two files are byte-identical, showing a line diff when not.
#[track_caller]
pub fn assert_same(rel: &str, got: &[u8], want: &[u8]) {
    if got == want {
        return;
    }
    let g = String::from_utf8_lossy(got);
    let w = String::from_utf8_lossy(want);
    let mut msg = format!("{rel} differs from the original's bytes\n");
    for (i, (a, b)) in g.lines().zip(w.lines()).enumerate() {
        if a != b {
            msg.push_str(&format!(
                "first difference at line {}:\n  got:  {a}\n  want: {b}\n",
                i + 1
            ));
            break;
        }
    }
    msg.push_str(&format!(
        "(got {} lines, want {} lines)",
        g.lines().count(),
        w.lines().count()
    ));
    panic!("{msg}");
}

/// `git log --format=%B -1` of a revision.
pub fn message(v: &Vault, rev: &str) -> String {
    v.git(&["log", "--format=%B", "-1", rev])
}

/// The counts of the snapshot trace line (`WIKI_COMPILE_TRACE=1`) in `stderr`: pages, pages
/// vouched for by the parse cache, settled pages, blob ids from the git index, other files.
pub fn snapshot_counts(stderr: &str) -> [usize; 5] {
    let line = stderr
        .lines()
        .find(|l| l.contains("trace: snapshot: "))
        .unwrap_or_else(|| panic!("no snapshot trace in\n{stderr}"));
    let nums: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    nums.get(..5)
        .and_then(|n| n.try_into().ok())
        .unwrap_or_else(|| panic!("no counts in {line}"))
}
