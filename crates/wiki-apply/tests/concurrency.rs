//! Concurrent writers (lock + compare-and-swap, retry on a moved branch) and crash safety
//! (SIGKILL mid-batch).

mod common;

use std::process::Stdio;

use common::*;
use wiki_apply::edit::FileChange;
use wiki_apply::files::VaultFiles;
use wiki_apply::ops::parse_line;
use wiki_apply::session::{self, BatchOptions, Compiler, LineOp, Session};
use wiki_store::Store;

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn eight_processes_fifty_operations_each_lose_nothing() {
    let v = vault();
    // Packing workers (below) merge the packs once there are more than 8, removing packs the
    // other processes may have open.
    v.git(&["config", "gc.autoPackLimit", "8"]);
    let base_commits = v.commit_count();
    let workers: Vec<std::thread::JoinHandle<(Vec<i32>, usize)>> = (0..8)
        .map(|w| {
            let cmd_for = {
                let v_root = v.root.clone();
                move |i: usize| {
                    let page = if i.is_multiple_of(2) { "entity.alpha" } else { "source.alpha" };
                    let line = format!(
                        "{{\"op\":\"add_claim\",\"page\":\"{page}\",\"claimId\":\"claim.w{w}.{i}\",\"text\":\"Worker {w} claim {i}.\"}}\n"
                    );
                    (v_root.clone(), line)
                }
            };
            let mut template = v.command("wiki-apply");
            template.stdin(Stdio::piped());
            let program = std::path::PathBuf::from(template.get_program());
            let envs: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> = template
                .get_envs()
                .map(|(k, v)| (k.to_os_string(), v.map(|v| v.to_os_string())))
                .collect();
            std::thread::spawn(move || {
                let mut codes = Vec::new();
                let mut detached = 0;
                for i in 0..50 {
                    let (root, line) = cmd_for(i);
                    // Lost updates are about the ref and the pages: compile (covered by the
                    // other tests) is skipped to keep this test fast in debug builds.
                    let mut cmd = std::process::Command::new(&program);
                    cmd.current_dir(&root).arg("--no-compile");
                    for (k, val) in &envs {
                        match val {
                            Some(val) => cmd.env(k, val),
                            None => cmd.env_remove(k),
                        };
                    }
                    // Two workers pack the loose objects after each of their commits (in
                    // detached packers that run beside the writers), so the others keep finding
                    // the objects they read moved into new packs.
                    if w == 1 || w == 6 {
                        cmd.env("WIKI_AUTO_PACK", "always");
                    }
                    let run = wiki_testkit::output(cmd, Some(line.as_bytes()));
                    if run.code != 0 {
                        eprintln!("worker {w} op {i}: {}", run.stderr);
                    }
                    if run.stderr.contains("packing loose git objects in the background") {
                        detached += 1;
                    }
                    codes.push(run.code);
                }
                (codes, detached)
            })
        })
        .collect();
    let mut detached = 0;
    for h in workers {
        let (codes, started) = h.join().expect("worker");
        assert!(codes.iter().all(|c| *c == 0), "{codes:?}");
        detached += started;
    }
    // Packers ran beside the writers (each packer is started only while no other one runs).
    assert!(detached >= 2, "{detached} detached packers");
    let alpha = v.read("entities/alpha.md");
    let source = v.read("sources/alpha.md");
    let mut missing = Vec::new();
    for w in 0..8 {
        for i in 0..50usize {
            let id = format!("id: claim.w{w}.{i}\n");
            let text = if i.is_multiple_of(2) { &alpha } else { &source };
            if count(text, &id) != 1 {
                missing.push(id);
            }
        }
    }
    assert!(missing.is_empty(), "missing or duplicated: {missing:?}");
    assert_eq!(count(&alpha, "  - id: claim.w"), 200);
    assert_eq!(count(&source, "  - id: claim.w"), 200);
    assert_eq!(
        v.commit_count(),
        base_commits + 400,
        "one commit per operation"
    );
    assert_eq!(v.status(), "");
    v.wait_for_background_packers();
    v.git(&["fsck", "--strict", "--no-progress"]);
    let packs = std::fs::read_dir(v.path(".git/objects/pack"))
        .expect("pack dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".idx"))
        .count();
    assert!((1..=8).contains(&packs), "{packs} packs");
}

/// A "compiler" that makes a commit with real git the first time it runs: the branch moves
/// between the batch's read and its compare-and-swap.
struct Interloper<'a> {
    vault: &'a Vault,
    done: std::cell::Cell<bool>,
}

impl Compiler for Interloper<'_> {
    fn compile(
        &self,
        _: &dyn VaultFiles,
        _: &[FileChange],
        _: &str,
    ) -> wiki_apply::error::Result<Vec<FileChange>> {
        if !self.done.replace(true) {
            self.vault.write("inbox.md", "someone else\n");
            self.vault.git(&["add", "inbox.md"]);
            self.vault.git(&["commit", "-q", "-m", "concurrent writer"]);
        }
        Ok(Vec::new())
    }
}

#[test]
fn a_moved_branch_is_reread_and_the_batch_reapplied() {
    let v = vault();
    // The test process talks to git through the library: pin the identity and clock.
    let store = Store::open_with(
        &v.root,
        wiki_store::EnvSource::fixed([
            ("WIKI_NOW", "2026-04-05T12:00:00Z"),
            ("GIT_AUTHOR_NAME", "Test"),
            ("GIT_AUTHOR_EMAIL", "t@example.test"),
        ]),
    )
    .expect("store");
    let session = Session::with_agent(store, None).expect("session");
    let op = parse_line(r#"{"op":"add_question","page":"alpha","question":"Q?"}"#).unwrap();
    let compiler = Interloper {
        vault: &v,
        done: std::cell::Cell::new(false),
    };
    let out = session::apply_batch(
        &session,
        &[LineOp { line: 1, op }],
        &BatchOptions {
            origin: Some("<test>".into()),
            now: "2026-04-05T12:00:00.000Z".into(),
            dry_run: false,
            compiler: &compiler,
            trace: false,
        },
    )
    .expect("batch");
    assert_eq!(out.retries, 1);
    let head = rev(&v, "HEAD");
    assert_eq!(out.commit.map(|c| c.to_string()), Some(head));
    assert_eq!(
        v.git(&["log", "--format=%s", "-3"]).trim(),
        "wiki apply: add_question entities/alpha.md\nconcurrent writer\nCompile"
    );
    assert!(v.read("entities/alpha.md").contains("  - Q?\n"));
    assert_eq!(v.read("inbox.md"), "someone else\n");
    assert_eq!(v.status(), "");
}

#[test]
fn sigkill_mid_batch_leaves_no_partial_page_and_a_rerun_succeeds() {
    const PAGES: usize = 150;
    let mut batch = String::new();
    for p in 0..PAGES {
        for q in 0..6 {
            batch.push_str(&format!(
                "{{\"op\":\"add_question\",\"page\":\"entities/p{p:03}.md\",\"question\":\"Question {q} about page {p}?\"}}\n"
            ));
        }
        batch.push_str(&format!(
            "{{\"op\":\"add_claim\",\"page\":\"entity.p{p}\",\"claimId\":\"claim.p{p}\",\"text\":\"Claim of page {p}.\"}}\n"
        ));
    }
    let make_vault = || {
        let v = vault();
        for p in 0..PAGES {
            v.write(
                &format!("entities/p{p:03}.md"),
                format!("---\nid: entity.p{p}\ntitle: P{p}\n---\n\n# P{p}\n\nBody {p}.\n"),
            );
        }
        v.commit_all("pages");
        v
    };
    // How long a whole run takes here; kills are spread over it (late ones land in the commit:
    // objects, ref update, file writes, index).
    let full = {
        let v = make_vault();
        let start = std::time::Instant::now();
        v.run_stdin("wiki-apply", &[], Some(batch.as_bytes()))
            .expect_code(0);
        start.elapsed()
    };
    let mut committed_kills = 0;
    for fraction in [0.1, 0.5, 0.8, 0.9, 0.95, 0.98, 1.0] {
        let delay = full.mul_f64(fraction);
        let delay_ms = delay.as_millis();
        let v = make_vault();
        let initial = rev(&v, "HEAD");
        let mut cmd = v.command("wiki-apply");
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            let _ = stdin.write_all(batch.as_bytes());
        }
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().expect("wait");
        let head = rev(&v, "HEAD");
        eprintln!(
            "run takes {} ms; killed after {delay_ms} ms: exit {:?}, committed: {}",
            full.as_millis(),
            status.code(),
            head != initial
        );
        if head != initial {
            committed_kills += 1;
        }
        // Refs are intact and the repository is consistent.
        v.git(&["fsck", "--strict", "--no-progress"]);
        // Every page is whole: either its version before the batch or the committed one.
        for p in 0..PAGES {
            let path = format!("entities/p{p:03}.md");
            let now = v.read(&path);
            let before = show(&v, &format!("{initial}:{path}"));
            let committed = show(&v, &format!("{head}:{path}"));
            assert!(
                now == before || now == committed,
                "partial page {path} after kill at {delay_ms} ms:\n{now}"
            );
        }
        // A rerun succeeds and the result has every change exactly once.
        let r = v.run_stdin("wiki-apply", &[], Some(batch.as_bytes()));
        r.expect_code(0);
        for p in 0..PAGES {
            let text = v.read(&format!("entities/p{p:03}.md"));
            assert_eq!(count(&text, "  - Question "), 6, "{text}");
            assert_eq!(count(&text, "id: claim.p"), 1, "{text}");
        }
        let status = v.status();
        assert!(
            status.is_empty(),
            "after kill at {delay_ms} ms and a rerun: {status}\nlog:\n{}\nrerun stderr:\n{}\ncached diff:\n{}\nwork-tree diff:\n{}",
            v.git(&["log", "--format=%h %s", "-4"]),
            r.stderr,
            v.git(&["diff", "--cached", "--stat"]),
            v.git(&["diff", "entities/p000.md"]),
        );
        v.git(&["fsck", "--strict", "--no-progress"]);
    }
    eprintln!("{committed_kills} kill(s) landed after the ref update");
}

/// Issue 28, defect 1: a person saves a page about every 100 ms (each save adds a line to what
/// the file holds; written to a temporary file renamed over the page, as editors save) while
/// one writer runs operations on that same page, one process each. No hand edit is lost: every line is in the final page, which
/// the last operation committed, and no commit of the writer drops a line a commit before it
/// had. Every operation either succeeded or was refused saying why.
#[test]
fn hand_edits_made_while_operations_write_the_page_are_never_lost() {
    const EDITS: usize = 30;
    let v = vault();
    let page = v.path("entities/alpha.md");
    let editor = std::thread::spawn(move || {
        for n in 0..EDITS {
            let text = std::fs::read_to_string(&page).expect("read the page");
            let temp = page.with_extension("md.swp");
            std::fs::write(&temp, format!("{text}hand edit {n}\n")).expect("save the page");
            std::fs::rename(&temp, &page).expect("save the page");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    let mut ops = 0;
    let mut refused = 0;
    while !editor.is_finished() {
        let line = format!(
            r#"{{"op":"add_claim","page":"entity.alpha","claimId":"claim.w.{ops}","text":"Writer claim {ops}."}}"#
        );
        let run = apply(&v, &["--no-compile"], &[&line]);
        match run.code {
            0 => {}
            2 if run.stderr.contains("changed on disk") || run.stderr.contains("kept changing") => {
                refused += 1
            }
            code => panic!("operation {ops}: exit {code}: {}", run.stderr),
        }
        ops += 1;
    }
    editor.join().expect("editor");
    assert!(ops >= 3, "the writer ran only {ops} operations");
    // The last hand edits are recorded by the next operation.
    apply(
        &v,
        &[],
        &[r#"{"op":"add_question","page":"entity.alpha","question":"All saved?"}"#],
    )
    .expect_code(0);
    let committed = show(&v, "HEAD:entities/alpha.md");
    assert_eq!(v.read("entities/alpha.md"), committed);
    for n in 0..EDITS {
        assert!(
            committed.contains(&format!("\nhand edit {n}\n")),
            "hand edit {n} lost ({ops} operations, {refused} refused):\n{committed}"
        );
    }
    // History: once a commit holds a hand edit, every later commit of the page keeps it.
    let log = v.git(&["log", "--reverse", "--format=%H", "--", "entities/alpha.md"]);
    let mut seen = 0;
    for commit in log.lines() {
        let text = show(&v, &format!("{commit}:entities/alpha.md"));
        let lines = (0..EDITS)
            .take_while(|n| text.contains(&format!("\nhand edit {n}\n")))
            .count();
        assert!(
            lines >= seen,
            "commit {commit} reverted hand edits:\n{text}"
        );
        seen = lines;
    }
    assert_eq!(seen, EDITS);
}
