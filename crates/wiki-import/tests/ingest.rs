//! `wiki ingest` end to end: the real binary on real git repositories.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use wiki_testkit::{NOW, Vault};

/// A vault made by `wiki init` (one commit), and a folder for inputs beside it.
fn vault() -> (Vault, PathBuf) {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    let inputs = std::fs::canonicalize(v.temp()).unwrap().join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    (v, inputs)
}

fn write(dir: &Path, rel: &str, bytes: impl AsRef<[u8]>) -> String {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

fn expected_page(path: &str) -> String {
    format!(
        "---\npageType: source\nid: source.meeting-notes\ntitle: meeting notes\nsourceType: local-file\nsourcePath: {path}\ningestedAt: {NOW}\nupdatedAt: {NOW}\nstatus: active\n---\n\n# meeting notes\n\n## Source\n- Type: `local-file`\n- Path: `{path}`\n- Bytes: 18\n- Updated: {NOW}\n\n## Content\n```text\nhello from source\n\n```\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n\n## Related\n<!-- openclaw:wiki:related:start -->\n- No related pages yet.\n<!-- openclaw:wiki:related:end -->\n"
    )
}

/// Reference §3.2's acceptance vector, byte for byte, in one commit with the indexes.
#[test]
fn reference_vector_is_one_commit() {
    let (v, input) = vault();
    let file = write(&input, "meeting-notes.txt", "hello from source\n");
    let run = v.run("wiki", &["ingest", &file]);
    run.expect_code(0);
    let page = v.read("sources/meeting-notes.md");
    assert_eq!(page, expected_page(&file));
    assert!(
        v.read("index.md")
            .contains("[meeting notes](sources/meeting-notes.md)")
    );
    assert!(
        v.read("sources/index.md")
            .contains("[meeting notes](meeting-notes.md)")
    );
    assert_eq!(v.commit_count(), 2);
    assert_eq!(v.status(), "");
    let files = v.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        files.lines().any(|l| l == "sources/meeting-notes.md"),
        "{files}"
    );
    assert!(files.lines().any(|l| l == "index.md"), "{files}");
    let message = v.git(&["log", "-1", "--format=%B"]);
    assert_eq!(
        message,
        "wiki ingest: sources/meeting-notes.md\n\nWiki-Op: ingest\nWiki-Page: sources/meeting-notes.md\nWiki-Agent: main\n\n"
    );
    // Compile also refreshed the two derived caches, which are not committed.
    let n = files.lines().filter(|l| !l.is_empty()).count() + 2;
    assert_eq!(
        run.stdout,
        format!("Ingested {file} into sources/meeting-notes.md. Refreshed {n} index files.\n")
    );
    let log = v.read(".openclaw-wiki/log.jsonl");
    assert_eq!(
        log.lines().last().unwrap(),
        format!(
            "{{\"type\":\"ingest\",\"timestamp\":\"{NOW}\",\"details\":{{\"inputPath\":\"{file}\",\"pageId\":\"source.meeting-notes\",\"pagePath\":\"sources/meeting-notes.md\",\"bytes\":18,\"created\":true}}}}"
        )
    );
}

#[test]
fn json_result_and_unchanged_reingest_makes_no_commit() {
    let (v, input) = vault();
    let file = write(&input, "meeting-notes.txt", "hello from source\n");
    let first = v.run("wiki", &["ingest", &file, "--json"]);
    first.expect_code(0);
    let j = first.json();
    assert_eq!(j["sourcePath"], file.as_str());
    assert_eq!(j["pageId"], "source.meeting-notes");
    assert_eq!(j["pagePath"], "sources/meeting-notes.md");
    assert_eq!(j["title"], "meeting notes");
    assert_eq!(j["bytes"], 18);
    assert_eq!(j["created"], true);
    assert_eq!(j["changed"], true);
    assert!(
        j["indexUpdatedFiles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "index.md")
    );
    let head = v.git(&["rev-parse", "HEAD"]);
    assert_eq!(j["commit"], head.trim());
    let again = v.run("wiki", &["--now", "2026-05-01T00:00:00Z", "ingest", &file]);
    again.expect_code(0);
    assert_eq!(
        again.stdout,
        format!("Ingested {file} into sources/meeting-notes.md. Refreshed 0 index files.\n")
    );
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(v.read("sources/meeting-notes.md"), expected_page(&file));
}

#[test]
fn reingest_updates_in_place_and_keeps_human_notes() {
    let (v, input) = vault();
    let file = write(&input, "meeting-notes.txt", "hello from source\n");
    v.run("wiki", &["ingest", &file]).expect_code(0);
    let page = v.read("sources/meeting-notes.md").replace(
        "<!-- openclaw:human:start -->\n",
        "<!-- openclaw:human:start -->\nAsk Bo about the budget.\n## Notes\n<!-- openclaw:human:start -->\nnested\n",
    );
    v.write("sources/meeting-notes.md", &page);
    v.commit_all("my notes");
    write(
        &input,
        "meeting-notes.txt",
        "hello again\n<!-- openclaw:human:start -->\nnot a note\n<!-- openclaw:human:end -->\n",
    );
    let run = v.run("wiki", &["--now", "2026-05-01T00:00:00Z", "ingest", &file]);
    run.expect_code(0);
    let after = v.read("sources/meeting-notes.md");
    assert!(
        after.contains(
            "ingestedAt: 2026-04-05T12:00:00.000Z\nupdatedAt: 2026-05-01T00:00:00.000Z\n"
        ),
        "{after}"
    );
    assert!(
        after.contains("- Bytes: 81\n- Updated: 2026-05-01T00:00:00.000Z\n"),
        "{after}"
    );
    assert!(after.contains(
        "## Notes\n<!-- openclaw:human:start -->\nAsk Bo about the budget.\n## Notes\n<!-- openclaw:human:start -->\nnested\n<!-- openclaw:human:end -->\n"
    ), "{after}");
    assert!(
        after.contains("```text\nhello again\n<!-- openclaw:human:start -->\nnot a note\n"),
        "{after}"
    );
    assert_eq!(v.commit_count(), 4);
    assert!(!v.exists("sources/meeting-notes-2.md"));
}

#[test]
fn colliding_slugs_get_a_hashed_variant_and_hand_written_pages_are_never_overwritten() {
    let (v, input) = vault();
    let a = write(&input, "a/report.txt", "first\n");
    let b = write(&input, "b/report.txt", "second\n");
    v.run("wiki", &["ingest", &a, "--title", "Q3 Report"])
        .expect_code(0);
    v.run("wiki", &["ingest", &b, "--title", "Q3-Report"])
        .expect_code(0);
    let hash = &wiki_parse::slug::sha1_hex(&b)[..12];
    let second = format!("sources/q3-report-{hash}.md");
    assert!(v.read("sources/q3-report.md").contains("first\n"));
    assert!(
        v.read(&second)
            .contains(&format!("id: source.q3-report-{hash}\n"))
    );
    // Re-ingesting either file finds its own page.
    write(&input, "b/report.txt", "second, edited\n");
    let run = v.run("wiki", &["ingest", &b, "--title", "Q3-Report"]);
    run.expect_code(0);
    assert!(
        run.stdout.contains(&format!("into {second}.")),
        "{}",
        run.stdout
    );
    assert!(v.read(&second).contains("second, edited\n"));
    assert!(v.read("sources/q3-report.md").contains("first\n"));

    v.write("sources/notes.md", "# My notes\n\nhand written\n");
    v.commit_all("hand-written page");
    let notes = write(&input, "notes.md", "ingested\n");
    let run = v.run("wiki", &["ingest", &notes]);
    run.expect_code(0);
    assert!(
        v.read("sources/notes.md")
            .starts_with("# My notes\n\nhand written\n\n## Related\n")
    );
    let hash = &wiki_parse::slug::sha1_hex(&notes)[..12];
    assert!(v.exists(&format!("sources/notes-{hash}.md")));

    let index = write(&input, "Index.md", "x\n");
    v.run("wiki", &["ingest", &index]).expect_code(0);
    let stem = format!("index-{}", &wiki_parse::slug::sha1_hex("index")[..12]);
    assert!(
        v.read(&format!("sources/{stem}.md"))
            .contains("id: source.index\n")
    );
    assert!(!v.read("sources/index.md").contains("x\n```"));
}

#[test]
fn binary_files_are_refused_with_the_reference_message() {
    let (v, input) = vault();
    let bin = write(&input, "image.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let run = v.run("wiki", &["ingest", &bin]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!("wiki: error: Cannot ingest binary file as markdown source: {bin}\n")
    );
    assert_eq!(v.commit_count(), 1);
    let missing = v.run("wiki", &["ingest", "../nope.md"]);
    missing.expect_code(2);
    assert!(
        missing
            .stderr
            .ends_with("nope.md: no such file or directory\n"),
        "{}",
        missing.stderr
    );
}

#[cfg(unix)]
#[test]
fn directory_ingest_leaves_out_hidden_binary_and_linked_entries_in_one_commit() {
    let (v, input) = vault();
    let dir = input.join("notes");
    write(&dir, "alpha.md", "# Alpha\n");
    write(&dir, "deep/beta-notes.txt", "beta\n");
    write(&dir, ".hidden.md", "secret\n");
    write(&dir, ".git/config", "[core]\n");
    write(&dir, "logo.png", b"\0\x01\x02");
    let bad = write(&dir, "bad.md", b"ok\nbad \xff here\n");
    let outside = write(&input, "outside.md", "outside\n");
    std::os::unix::fs::symlink(&outside, dir.join("link.md")).unwrap();
    std::os::unix::fs::symlink(&input, dir.join("loop")).unwrap();
    let before = v.commit_count();
    let run = v.run("wiki", &["ingest", dir.to_str().unwrap()]);
    run.expect_code(1);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: {bad}:2: not valid UTF-8 (byte 0xff at column 5); convert the file to UTF-8\n"
        )
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    let committed = v.git(&["show", "--name-only", "--format=", "HEAD"]);
    let n = committed.lines().filter(|l| !l.is_empty()).count() + 2;
    assert_eq!(
        lines[0],
        format!(
            "Ingested 2 files into sources/ (2 new, 0 updated, 0 unchanged). Refreshed {n} index files."
        )
    );
    assert_eq!(
        lines[1],
        "Left out 3 entries: binary file, symbolic link (not followed)."
    );
    assert_eq!(lines[2], "Could not ingest 1 input (see above).");
    assert_eq!(v.commit_count(), before + 1);
    assert!(v.exists("sources/alpha.md"));
    assert!(
        v.read("sources/beta-notes.md")
            .contains("title: beta notes\n")
    );
    for absent in [
        "sources/hidden.md",
        "sources/outside.md",
        "sources/logo.md",
        "sources/bad.md",
        "sources/config.md",
        "sources/link.md",
    ] {
        assert!(!v.exists(absent), "{absent}");
    }
    let json = v
        .run("wiki", &["ingest", dir.to_str().unwrap(), "--json"])
        .json();
    assert_eq!(json["unchangedCount"], 2);
    assert_eq!(json["skipped"].as_array().unwrap().len(), 3);
    assert_eq!(json["problems"][0]["line"], 2);
    assert_eq!(json["commit"], serde_json::Value::Null);
}

/// Every file under `dir` (`.git` included): path → (bytes, inode, modification time). A file
/// written again, even with the same bytes, gets another inode or time.
fn tree_state(dir: &Path) -> std::collections::BTreeMap<PathBuf, (Vec<u8>, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.insert(p, (bytes, m.ino(), m.mtime(), m.mtime_nsec()));
            }
        }
    }
    out
}

/// Three files in a directory, ingested once (one commit).
fn ingested_directory() -> (Vault, PathBuf) {
    let (v, input) = vault();
    let dir = input.join("notes");
    write(&dir, "alpha.md", "# Alpha\n");
    write(&dir, "beta.md", "# Beta\n");
    write(&dir, "deep/gamma.txt", "gamma\n");
    let run = v.run("wiki", &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("Ingested 3 files into sources/ (3 new, 0 updated, 0 unchanged).")
    );
    (v, dir)
}

/// An unchanged re-ingest writes nothing at all (no commit, no page, no cache, not even the
/// lock file) and does not wait for the vault lock: it finishes while another process holds it.
#[test]
fn unchanged_reingest_writes_nothing_and_does_not_wait_for_the_lock() {
    let (v, dir) = ingested_directory();
    let head = v.git(&["rev-parse", "HEAD"]);
    let before = tree_state(&v.path(""));
    let mut store = wiki_store::Store::open(&v.path("")).unwrap();
    store.set_lock_timeout(std::time::Duration::from_secs(1));
    let lock = store.lock().unwrap();
    for _ in 0..2 {
        let run = v.run(
            "wiki",
            &[
                "--now",
                "2026-05-01T00:00:00Z",
                "ingest",
                dir.to_str().unwrap(),
            ],
        );
        run.expect_code(0);
        assert_eq!(
            run.stdout,
            "Ingested 3 files into sources/ (0 new, 0 updated, 3 unchanged). Refreshed 0 index files.\n"
        );
        assert_eq!(run.stderr, "");
    }
    let json = v
        .run("wiki", &["ingest", dir.to_str().unwrap(), "--json"])
        .json();
    drop(lock);
    assert_eq!(json["unchangedCount"], 3);
    assert_eq!(json["commit"], serde_json::Value::Null);
    assert_eq!(json["sources"][0]["pagePath"], "sources/alpha.md");
    assert_eq!(json["sources"][2]["pageId"], "source.gamma");
    assert_eq!(v.git(&["rev-parse", "HEAD"]), head);
    let after = tree_state(&v.path(""));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (path, state) in &before {
        assert!(after[path] == *state, "{} was written", path.display());
    }
}

/// After unchanged runs, a changed file is ingested again (its page updated in place, the notes
/// written there kept), a new one is added, and a page edited by hand is not taken for
/// unchanged: its content is rendered again.
#[test]
fn changes_after_an_unchanged_reingest_are_ingested() {
    let (v, dir) = ingested_directory();
    let args = [
        "--now",
        "2026-05-01T00:00:00Z",
        "ingest",
        dir.to_str().unwrap(),
    ];
    v.run("wiki", &args).expect_code(0);
    let page = v.read("sources/alpha.md").replace(
        "<!-- openclaw:human:start -->\n",
        "<!-- openclaw:human:start -->\nAsk Bo.\n",
    );
    v.write("sources/alpha.md", &page);
    v.commit_all("my notes");
    // Same size, same second: only the bytes differ.
    write(&dir, "alpha.md", "# Alfa\n");
    write(&dir, "delta.md", "delta\n");
    let head = v.git(&["rev-parse", "HEAD"]);
    let run = v.run("wiki", &args);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("Ingested 4 files into sources/ (1 new, 1 updated, 2 unchanged)."),
        "{}",
        run.stdout
    );
    assert_ne!(v.git(&["rev-parse", "HEAD"]), head);
    let alpha = v.read("sources/alpha.md");
    assert!(alpha.contains("```text\n# Alfa\n\n```"), "{alpha}");
    assert!(
        alpha.contains("<!-- openclaw:human:start -->\nAsk Bo.\n<!-- openclaw:human:end -->"),
        "{alpha}"
    );
    assert!(v.exists("sources/delta.md"));
    assert_eq!(v.status(), "");
    // The page's content replaced by hand (not its notes): the next ingest renders it again.
    let beta = v.read("sources/beta.md");
    v.write(
        "sources/beta.md",
        beta.replace("# Beta\n\n```", "# Bêta\n\n```"),
    );
    let run = v.run("wiki", &args);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("Ingested 4 files into sources/ (0 new, 1 updated, 3 unchanged)."),
        "{}",
        run.stdout
    );
    assert_eq!(
        v.read("sources/beta.md"),
        beta.replace(
            "2026-04-05T12:00:00.000Z\nstatus",
            "2026-05-01T00:00:00.000Z\nstatus"
        )
        .replace(
            "- Updated: 2026-04-05T12:00:00.000Z",
            "- Updated: 2026-05-01T00:00:00.000Z"
        )
    );
    assert_eq!(v.status(), "");
}

/// A damaged record of the last ingest is not believed: the run goes the usual way.
#[test]
fn a_damaged_ingest_record_is_ignored() {
    let (v, dir) = ingested_directory();
    let record = v.path(".openclaw-wiki/tmp/ingest-record.bin");
    let mut bytes = std::fs::read(&record).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&record, bytes).unwrap();
    let page = v.read("sources/beta.md");
    v.write(
        "sources/beta.md",
        page.replace("# Beta\n\n```", "# Bêta\n\n```"),
    );
    let run = v.run("wiki", &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("Ingested 3 files into sources/ (0 new, 1 updated, 2 unchanged)."),
        "{}",
        run.stdout
    );
    assert_eq!(v.read("sources/beta.md"), page);
}

/// What an ingest did: its exit code and output, and the vault it left (committed tree, commit
/// count, `git status`, the pages under `sources/` and the compiled caches on disk).
#[derive(Debug, PartialEq)]
struct Effect {
    code: i32,
    stdout: String,
    stderr: String,
    tree: String,
    commits: usize,
    status: String,
    files: Vec<(String, String)>,
}

fn effect(root: &Path, run: &wiki_testkit::Run) -> Effect {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let mut files = Vec::new();
    for rel in [
        "sources",
        "concepts",
        "reports",
        ".openclaw-wiki/cache",
        "index.md",
    ] {
        let mut todo = vec![root.join(rel)];
        while let Some(p) = todo.pop() {
            if p.is_dir() {
                todo.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            } else if let Ok(bytes) = std::fs::read(&p) {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                files.push((rel, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    files.sort();
    Effect {
        code: run.code,
        stdout: run.stdout.clone(),
        stderr: run.stderr.clone(),
        tree: git(&["rev-parse", "HEAD^{tree}"]),
        commits: git(&["rev-list", "--count", "HEAD"])
            .trim()
            .parse()
            .unwrap(),
        status: git(&["status", "--porcelain"]),
        files,
    }
}

/// Run `wiki args` in `v`, which holds the record of its last ingest, and in a copy of `v`
/// without the record (the full ingest under the vault lock): both do exactly the same (output,
/// exit code, commit, files). The run in `v`.
fn same_as_without_the_record(v: &Vault, args: &[&str]) -> wiki_testkit::Run {
    assert!(v.exists(".openclaw-wiki/tmp/ingest-record.bin"));
    v.wait_for_background_packers();
    let copy = (0..)
        .map(|n| v.temp().join(format!("copy-{n}")))
        .find(|p| !p.exists())
        .unwrap();
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(&v.root)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(cp.success());
    std::fs::remove_file(copy.join(".openclaw-wiki/tmp/ingest-record.bin")).unwrap();
    let with = v.run("wiki", args);
    let mut cmd = v.command("wiki");
    cmd.args(args).current_dir(&copy);
    let without = wiki_testkit::output(cmd, None);
    assert_eq!(effect(&v.root, &with), effect(&copy, &without));
    with
}

/// [`ingested_directory`] ingested again unchanged (decided from the record).
fn reingested_directory() -> (Vault, PathBuf) {
    let (v, dir) = ingested_directory();
    let run = v.run("wiki", &["ingest", dir.to_str().unwrap()]);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 0 updated, 3 unchanged). Refreshed 0 index files.\n"
    );
    (v, dir)
}

#[test]
fn the_record_decides_a_changed_file_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    write(&dir, "alpha.md", "# Alfa\n");
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 1 updated, 2 unchanged). Refreshed 0 index files.\n"
    );
    assert!(
        v.read("sources/alpha.md")
            .contains("```text\n# Alfa\n\n```")
    );
    assert_eq!(v.commit_count(), 3);
}

#[test]
fn the_record_decides_a_new_file_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    write(&dir, "deep/delta.md", "delta\n");
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 4 files into sources/ (1 new, 0 updated, 3 unchanged). Refreshed 4 index files.\n"
    );
    assert_eq!(v.commit_count(), 3);
}

/// Ingest never removes a page: a file gone from the directory leaves its page, and the others
/// are unchanged (no commit), with or without the record.
#[test]
fn the_record_decides_a_deleted_file_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    std::fs::remove_file(dir.join("beta.md")).unwrap();
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 2 files into sources/ (0 new, 0 updated, 2 unchanged). Refreshed 0 index files.\n"
    );
    assert!(v.exists("sources/beta.md"));
    assert_eq!(v.commit_count(), 2);
}

#[test]
fn the_record_decides_a_hand_edited_source_page_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    let beta = v.read("sources/beta.md");
    v.write(
        "sources/beta.md",
        beta.replace("# Beta\n\n```", "# Bêta\n\n```"),
    );
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 1 updated, 2 unchanged). Refreshed 0 index files.\n"
    );
    assert_eq!(v.read("sources/beta.md"), beta);
    assert_eq!(v.commit_count(), 4);
}

/// A page written by hand outside `sources/` (which the record of v1 did not cover) changes
/// what compile writes: the ingest records the edit and compiles it in.
#[test]
fn the_record_decides_a_hand_written_page_elsewhere_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    v.write(
        "concepts/billing.md",
        "---\nid: concept.billing\npageType: concept\ntitle: Billing\n---\n\n# Billing\n\nSee [Alpha](../sources/alpha.md).\n",
    );
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 0 updated, 3 unchanged). Refreshed 5 index files.\n"
    );
    assert!(v.read("concepts/index.md").contains("Billing"));
    assert_eq!(v.commit_count(), 4);
    assert_eq!(v.status(), "");
}

/// A compiled cache removed: compile writes it again.
#[test]
fn the_record_decides_a_removed_compiled_cache_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    std::fs::remove_file(v.path(".openclaw-wiki/cache/agent-digest.json")).unwrap();
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 0 updated, 3 unchanged). Refreshed 1 index file.\n"
    );
    assert!(v.exists(".openclaw-wiki/cache/agent-digest.json"));
}

/// Another render setting: compile renders the pages again.
#[test]
fn the_record_decides_a_changed_config_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    let config = v.home().join(".openclaw");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("openclaw.json"),
        "{ plugins: { entries: { 'memory-wiki': { config: { vault: { renderMode: 'obsidian' } } } } } }",
    )
    .unwrap();
    let run = same_as_without_the_record(&v, &["ingest", dir.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 0 updated, 3 unchanged). Refreshed 3 index files.\n"
    );
    assert!(v.read("index.md").contains("[[sources/alpha|alpha]]"));
}

/// `--title` renames the page's title: the page is rendered again.
#[test]
fn the_record_decides_a_new_title_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    let alpha = dir.join("alpha.md");
    let run = same_as_without_the_record(
        &v,
        &["ingest", alpha.to_str().unwrap(), "--title", "First letter"],
    );
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        format!(
            "Ingested {} into sources/alpha.md. Refreshed 3 index files.\n",
            alpha.display()
        )
    );
    assert!(v.read("sources/alpha.md").contains("title: First letter\n"));
    // The same file under its own title again: back to the file name's title.
    let run = same_as_without_the_record(&v, &["ingest", alpha.to_str().unwrap()]);
    run.expect_code(0);
    assert!(v.read("sources/alpha.md").contains("title: alpha\n"));
}

/// Time crossing a freshness boundary (30 days after the pages were updated) changes the
/// dashboards: the record's clock window sends the run the usual way.
#[test]
fn the_record_decides_a_later_clock_as_the_full_ingest() {
    let (v, dir) = reingested_directory();
    let args = [
        "--now",
        "2026-06-01T00:00:00Z",
        "ingest",
        dir.to_str().unwrap(),
    ];
    let run = same_as_without_the_record(&v, &args);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "Ingested 3 files into sources/ (0 new, 0 updated, 3 unchanged). Refreshed 2 index files.\n"
    );
    assert_eq!(v.commit_count(), 3);
}

#[test]
fn inputs_inside_the_vault_page_folders_are_refused() {
    let (v, _) = vault();
    v.write("sources/own.md", "# Own\n");
    let run = v.run("wiki", &["ingest", "sources/own.md"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("is inside the vault's own folders"),
        "{}",
        run.stderr
    );
    let run = v.run("wiki", &["ingest", "sources"]);
    run.expect_code(2);
}

/// A tiny HTTP/1.1 server on 127.0.0.1 for the URL tests; stops when the test ends.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = req.split_whitespace().nth(1).unwrap_or("/").to_string();
                let reply = |s: &mut std::net::TcpStream, head: &str, body: &[u8]| {
                    let _ = s.write_all(
                        format!(
                            "HTTP/1.1 {head}\r\nContent-Length: {}\r\nConnection: close\r\n",
                            body.len()
                        )
                        .as_bytes(),
                    );
                    let _ = s.write_all(b"\r\n");
                    let _ = s.write_all(body);
                };
                match path.as_str() {
                    "/guide.md" => reply(
                        &mut s,
                        "200 OK\r\nContent-Type: text/markdown; charset=utf-8",
                        b"# Guide\n\nRead me.\n",
                    ),
                    "/page.html" => reply(
                        &mut s,
                        "200 OK\r\nContent-Type: text/html",
                        b"<html><head><title>Rust &amp; Git</title></head><body>hi</body></html>\n",
                    ),
                    "/old" => reply(&mut s, "301 Moved Permanently\r\nLocation: /guide.md", b""),
                    "/logo.png" => reply(&mut s, "200 OK\r\nContent-Type: image/png", b"\x89PNG"),
                    "/big.txt" => reply(
                        &mut s,
                        "200 OK\r\nContent-Type: text/plain",
                        &vec![b'a'; 4096],
                    ),
                    "/slow" => {
                        std::thread::sleep(std::time::Duration::from_secs(4));
                        reply(&mut s, "200 OK\r\nContent-Type: text/plain", b"late\n");
                    }
                    _ => reply(&mut s, "404 Not Found\r\nContent-Type: text/plain", b"no\n"),
                }
            });
        }
    });
    format!("http://{addr}")
}

#[test]
fn url_ingest_fetches_text_and_records_url_and_fetch_time() {
    let (v, _) = vault();
    let base = serve();
    let url = format!("{base}/guide.md");
    let run = v.run("wiki", &["ingest", &url]);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with(&format!("Ingested {url} into sources/guide.md. Refreshed ")),
        "{}",
        run.stdout
    );
    let page = v.read("sources/guide.md");
    assert!(page.starts_with(&format!(
        "---\npageType: source\nid: source.guide\ntitle: guide\nsourceType: url\nsourceUrl: {url}\ncontentType: text/markdown; charset=utf-8\nfetchedAt: {NOW}\ningestedAt: {NOW}\nupdatedAt: {NOW}\nstatus: active\n---\n\n# guide\n\n## Source\n- Type: `url`\n- URL: `{url}`\n- Content type: `text/markdown; charset=utf-8`\n- Fetched: {NOW}\n- Bytes: 18\n- Updated: {NOW}\n\n## Content\n```text\n# Guide\n\nRead me.\n\n```\n"
    )), "{page}");
    // A redirect is followed; the page records where the content came from.
    let old = format!("{base}/old");
    v.run("wiki", &["ingest", &old, "--title", "Old guide"])
        .expect_code(0);
    assert!(
        v.read("sources/old-guide.md")
            .contains(&format!("finalUrl: {base}/guide.md\n"))
    );
    // An HTML page is titled by its <title>.
    v.run("wiki", &["ingest", &format!("{base}/page.html")])
        .expect_code(0);
    assert!(
        v.read("sources/rust-git.md")
            .contains("title: Rust & Git\n")
    );
}

#[test]
fn url_ingest_refuses_slow_large_binary_and_missing_pages() {
    let (v, _) = vault();
    let base = serve();
    let before = v.commit_count();
    let cases = [
        (
            "/slow",
            vec!["--timeout", "1"],
            "no complete answer within 1 s (--timeout)",
        ),
        (
            "/big.txt",
            vec!["--max-bytes", "1000"],
            "the body is larger than 1000 bytes (--max-bytes)",
        ),
        (
            "/logo.png",
            vec![],
            "content type `image/png` is not text; only text pages (text/*, JSON, XML, YAML, …) can be ingested",
        ),
        ("/missing", vec![], "HTTP 404 Not Found"),
    ];
    for (path, flags, message) in cases {
        let url = format!("{base}{path}");
        let mut args = vec!["ingest", url.as_str()];
        args.extend(flags);
        let run = v.run("wiki", &args);
        run.expect_code(2);
        assert_eq!(run.stderr, format!("wiki: error: {url}: {message}\n"));
    }
    assert_eq!(v.commit_count(), before);
}

#[test]
fn url_ingest_is_refused_when_the_config_disables_it() {
    let (v, _) = vault();
    let config = v.home().join(".openclaw/openclaw.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "{ plugins: { entries: { 'memory-wiki': { config: { ingest: { allowUrlIngest: false } } } } } }\n").unwrap();
    let run = v.run("wiki", &["ingest", "http://127.0.0.1:9/x.md"]);
    run.expect_code(2);
    let message = format!(
        "http://127.0.0.1:9/x.md: URL ingest is disabled (ingest.allowUrlIngest is false in {})",
        config.display()
    );
    assert_eq!(run.stderr, format!("wiki: error: {message}\n"));
}
