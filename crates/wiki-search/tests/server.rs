//! End-to-end tests of the search server (`wiki-search --serve`, `--server start|stop|status`):
//! real binaries, real git, pinned clock. Every test stops the servers it starts, also when it
//! fails (guards kill them on drop).
//!
//! Build the binaries first: `cargo build -p wiki-search -p wiki`.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use wiki_testkit::{Run, Vault, page};

const SOCKET: &str = ".openclaw-wiki/index/search.sock";
const LOCK: &str = ".openclaw-wiki/index/search-server.lock";

/// A foreground server (`wiki-search --serve`), killed on drop.
struct Foreground(Child);

impl Drop for Foreground {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A detached server started with `--server start`: killed (by the pid in its lock file) on drop.
struct Detached(PathBuf);

impl Drop for Detached {
    fn drop(&mut self) {
        kill_by_lock(&self.0);
    }
}

fn kill_by_lock(root: &Path) {
    if let Ok(pid) = std::fs::read_to_string(root.join(LOCK)) {
        let pid = pid.trim();
        if !pid.is_empty() {
            let _ = std::process::Command::new("kill")
                .args(["-9", pid])
                .stderr(Stdio::null())
                .status();
        }
    }
}

fn vault() -> Vault {
    let v = Vault::with_git();
    v.write(".openclaw-wiki/.keep", "");
    v
}

/// The rich fixture vault (`tests/fixtures/rich-vault.sh`), committed.
fn rich_vault() -> Vault {
    let v = vault();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/rich-vault.sh");
    let ok = std::process::Command::new("sh")
        .arg(&script)
        .arg(&v.root)
        .status()
        .expect("sh");
    assert!(ok.success());
    v.commit_all("fixture");
    v
}

fn serve(v: &Vault) -> Foreground {
    let child = v
        .command("wiki-search")
        .args(["--serve", "--idle-timeout", "600"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn wiki-search --serve");
    let mut fg = Foreground(child);
    wait_ready(v, Some(&mut fg.0));
    fg
}

/// Wait (bounded) until the vault's server answers `status`.
fn wait_ready(v: &Vault, mut child: Option<&mut Child>) {
    let t = Instant::now();
    loop {
        if status(v).is_some() {
            return;
        }
        if let Some(c) = child.as_deref_mut()
            && let Ok(Some(st)) = c.try_wait()
        {
            panic!("the server exited before answering: {st}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the server did not answer"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The server's status record, when one answers.
fn status(v: &Vault) -> Option<Value> {
    let run = v.run("wiki-search", &["--server", "status"]);
    (run.code == 0).then(|| run.jsonl().remove(0))
}

fn requests(v: &Vault) -> u64 {
    status(v).expect("server running")["requests"]
        .as_u64()
        .unwrap_or(u64::MAX)
}

/// Run a search twice, through the server (when it serves it) and in-process
/// (`WIKI_SEARCH_SERVER=off`), assert the same stdout and exit code, and return the first.
fn both(v: &Vault, bin: &str, args: &[&str]) -> Run {
    let served = v.run(bin, args);
    let mut cmd = v.command(bin);
    cmd.args(args).env("WIKI_SEARCH_SERVER", "off");
    let local = wiki_testkit::output(cmd, None);
    assert_eq!(
        (served.code, &served.stdout),
        (local.code, &local.stdout),
        "{bin} {args:?}: server and in-process output differ\n--- stderr\n{}",
        served.stderr
    );
    assert!(served.code == 0 || served.code == 1, "{}", served.stderr);
    served
}

fn paths(run: &Run) -> Vec<String> {
    run.jsonl()
        .iter()
        .map(|r| r["path"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn served_output_is_byte_identical_to_in_process_search() {
    let v = rich_vault();
    let _server = serve(&v);
    let mut served = 0;
    for q in [
        "alpha",
        "postgresql primary database",
        "claim.alpha.db",
        "who owns the database platform",
        "zzz-no-match-term",
        "the",
    ] {
        for mode in [
            "auto",
            "find-person",
            "route-question",
            "source-evidence",
            "raw-claim",
        ] {
            for extra in [
                &[][..],
                &["--format", "text"],
                &["--json"],
                &["--max-results", "2"],
                &["--ranking", "reference"],
                &["--corpus", "all", "--backend", "local"],
            ] {
                let mut args = vec![q, "--mode", mode];
                args.extend_from_slice(extra);
                both(&v, "wiki-search", &args);
                served += 1;
            }
            let mut args = vec!["search", q, "--mode", mode];
            both(&v, "wiki", &args);
            args.push("--json");
            both(&v, "wiki", &args);
            served += 2;
        }
    }
    // `wiki search …` is answered before the dispatcher parses its command line; a global flag
    // before `search` takes the usual way. Both are served, with the same output.
    let root = v.root.to_string_lossy().to_string();
    both(&v, "wiki", &["--vault", &root, "search", "alpha"]);
    both(
        &v,
        "wiki",
        &["search", "--vault", &root, "alpha", "--format", "jsonl"],
    );
    served += 2;
    assert_eq!(
        requests(&v),
        served,
        "every one of these was served (a stale `wiki` binary of another build falls back: \
         `cargo build -p wiki` first)"
    );
    // Requests the server does not serve are searched in-process, with the same output.
    let memory = v.temp().join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(
        memory.join("MEMORY.md"),
        "# Notes\n\nAlpha likes PostgreSQL.\n",
    )
    .unwrap();
    let mem = memory.to_string_lossy().to_string();
    v.git(&["branch", "agents/ops"]);
    for args in [
        &["alpha", "--no-refresh"][..],
        &["alpha", "--corpus", "memory", "--memory", &mem],
        &["alpha", "--corpus", "all", "--memory", &mem],
        &["alpha", "--agent", "ops"],
    ] {
        both(&v, "wiki-search", args);
    }
    let batch = v.run_stdin("wiki-search", &["--batch"], Some(b"alpha\n"));
    batch.expect_code(0);
    assert_eq!(requests(&v), served, "none of these was served");
}

#[test]
fn edits_creates_deletes_renames_and_branch_switches_are_seen_by_the_next_search() {
    let v = vault();
    let p = |title: &str, body: &str| {
        page(
            &["pageType: concept", &format!("title: {title}")],
            &format!("# {title}\n\n{body}\n"),
        )
    };
    v.write(
        "concepts/alpha.md",
        p("Alpha", "The first page, word aaaa."),
    );
    v.write("concepts/team/beta.md", p("Beta", "The second page."));
    v.commit_all("pages");
    let _server = serve(&v);
    let hits = |q: &str| paths(&both(&v, "wiki-search", &[q]));
    assert_eq!(hits("aaaa"), ["concepts/alpha.md"]);
    // Same-size in-place edit.
    v.write(
        "concepts/alpha.md",
        p("Alpha", "The first page, word bbbb."),
    );
    assert_eq!(hits("bbbb"), ["concepts/alpha.md"]);
    assert!(hits("aaaa").is_empty());
    // Create, in an existing directory and in new nested directories.
    v.write("concepts/team/gamma.md", p("Gamma", "Created later, cccc."));
    assert_eq!(hits("cccc"), ["concepts/team/gamma.md"]);
    v.write("entities/new/deep/delta.md", p("Delta", "Deep, dddd."));
    assert_eq!(hits("dddd"), ["entities/new/deep/delta.md"]);
    v.write(
        "entities/new/deep/epsilon.md",
        p("Epsilon", "Deeper still, eeee."),
    );
    assert_eq!(hits("eeee"), ["entities/new/deep/epsilon.md"]);
    // Delete a page, then a whole directory.
    std::fs::remove_file(v.path("concepts/team/gamma.md")).unwrap();
    assert!(hits("cccc").is_empty());
    std::fs::remove_dir_all(v.path("entities/new")).unwrap();
    assert!(hits("dddd").is_empty());
    // Rename a page, then a directory.
    std::fs::rename(v.path("concepts/alpha.md"), v.path("concepts/renamed.md")).unwrap();
    assert_eq!(hits("bbbb"), ["concepts/renamed.md"]);
    std::fs::rename(v.path("concepts/team"), v.path("concepts/crew")).unwrap();
    assert_eq!(hits("second"), ["concepts/crew/beta.md"]);
    std::fs::rename(
        v.path("concepts/crew/beta.md"),
        v.path("concepts/crew/beta2.md"),
    )
    .unwrap();
    assert_eq!(hits("second"), ["concepts/crew/beta2.md"]);
    // Branch switches.
    v.commit_all("renames");
    v.git(&["checkout", "-q", "-b", "other"]);
    v.write(
        "sources/branch.md",
        p("Branch", "Only on the other branch, ffff."),
    );
    v.write(
        "concepts/renamed.md",
        p("Alpha", "Rewritten on the other branch, gggg."),
    );
    v.commit_all("other");
    assert_eq!(hits("ffff"), ["sources/branch.md"]);
    v.git(&["checkout", "-q", "main"]);
    assert!(hits("ffff").is_empty());
    assert!(hits("gggg").is_empty());
    assert_eq!(hits("bbbb"), ["concepts/renamed.md"]);
    v.git(&["checkout", "-q", "other"]);
    assert_eq!(hits("gggg"), ["concepts/renamed.md"]);
    assert_eq!(hits("ffff"), ["sources/branch.md"]);
    // A page directory created at the root after the server started.
    v.write(
        "syntheses/late.md",
        p("Late", "A new page directory, hhhh."),
    );
    assert_eq!(hits("hhhh"), ["syntheses/late.md"]);
    assert_eq!(requests(&v), 18, "all searches above were served");
}

#[test]
fn detached_server_starts_stops_and_exits_when_idle() {
    let v = rich_vault();
    let _guard = Detached(v.root.clone());
    let none = v.run("wiki-search", &["--server", "status"]);
    none.expect_code(1);
    assert_eq!(none.jsonl()[0]["state"], "not-running");
    // `start` returns (its output is captured through pipes: the server holds none of them).
    let started = v.run("wiki-search", &["--server", "start"]);
    started.expect_code(0);
    let rec = &started.jsonl()[0];
    assert_eq!(rec["state"], "running");
    assert_eq!(rec["compatible"], true);
    assert_eq!(rec["pages"], 14);
    let pid = rec["pid"].as_u64().unwrap();
    // A second start finds it running.
    let again = v.run("wiki-search", &["--server", "start"]);
    again.expect_code(0);
    assert_eq!(again.jsonl()[0]["pid"].as_u64(), Some(pid));
    assert!(
        v.read(".openclaw-wiki/tmp/search-server.log")
            .contains("ready")
    );
    // The socket is private and git ignores it and the log.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::symlink_metadata(v.path(SOCKET))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(v.status(), "");
    both(&v, "wiki-search", &["alpha"]);
    assert_eq!(requests(&v), 1);
    // Stop (through the dispatcher), then nothing is left.
    let stopped = v.run("wiki", &["search", "--server", "stop"]);
    stopped.expect_code(0);
    assert_eq!(
        stopped.stdout,
        format!("search server stopped: {}\n", v.root.display())
    );
    assert!(!v.exists(SOCKET));
    v.run("wiki-search", &["--server", "stop"]).expect_code(1);
    v.run("wiki-search", &["--server", "status"]).expect_code(1);
    // Idle timeout (a server started by the dispatcher runs `wiki search --serve`).
    let started = v.run(
        "wiki",
        &["search", "--server", "start", "--idle-timeout", "1"],
    );
    started.expect_code(0);
    assert!(
        started.stdout.starts_with("search server running: "),
        "{}",
        started.stdout
    );
    let t = Instant::now();
    while status(&v).is_some() {
        assert!(t.elapsed() < Duration::from_secs(20), "still running");
        std::thread::sleep(Duration::from_millis(100));
    }
    let t = Instant::now();
    while v.exists(SOCKET) {
        assert!(t.elapsed() < Duration::from_secs(5), "socket left behind");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        v.read(".openclaw-wiki/tmp/search-server.log")
            .contains("search server exits: idle for 1 s")
    );
}

#[test]
fn a_killed_server_leaves_a_stale_socket_that_is_ignored_and_replaced() {
    let v = rich_vault();
    let mut first = serve(&v);
    both(&v, "wiki-search", &["alpha"]);
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    assert!(v.exists(SOCKET), "SIGKILL leaves the socket behind");
    v.run("wiki-search", &["--server", "status"]).expect_code(1);
    // Searches fall back in-process, silently.
    let run = both(&v, "wiki-search", &["alpha"]);
    assert_eq!(run.stderr, "");
    // A new server replaces the socket.
    let _second = serve(&v);
    both(&v, "wiki-search", &["alpha"]);
    assert_eq!(requests(&v), 1);
}

#[test]
fn only_one_server_per_vault() {
    let v = rich_vault();
    let _server = serve(&v);
    let pid = status(&v).unwrap()["pid"].as_u64().unwrap();
    let second = v.run("wiki-search", &["--serve"]);
    second.expect_code(2);
    assert!(
        second.stderr.contains(&format!(
            "a search server is already running for {} (pid {pid})",
            v.root.display()
        )),
        "{}",
        second.stderr
    );
    assert_eq!(status(&v).unwrap()["pid"].as_u64(), Some(pid));
    let bad = v.run("wiki-search", &["--serve", "--agent", "ops"]);
    bad.expect_code(2);
}

#[test]
fn a_socket_that_answers_nonsense_is_ignored() {
    use std::io::{BufRead, BufReader, Write};
    let v = rich_vault();
    std::fs::create_dir_all(v.path(".openclaw-wiki/index")).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(v.path(SOCKET)).unwrap();
    let fake = std::thread::spawn(move || {
        // Another build, a truncated answer, an answer with a wrong length, then silence.
        let replies: [&[u8]; 4] = [
            b"M\x02\0\0\0\0\0\0\0\0",
            b"O\0",
            b"O\0\x09\0\0\0\0\0\0\0{}",
            b"",
        ];
        for reply in replies {
            let (mut s, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(&s).read_line(&mut line).unwrap();
            assert!(line.contains("\"op\":\"search\""), "{line}");
            s.write_all(reply).unwrap();
        }
    });
    for _ in 0..4 {
        let run = both(&v, "wiki-search", &["alpha"]);
        assert_eq!(run.code, 0);
    }
    fake.join().unwrap();
}

/// A search with `WIKI_SEARCH_SERVER=auto`.
fn auto(v: &Vault, bin: &str, args: &[&str]) -> Run {
    let mut cmd = v.command(bin);
    cmd.args(args).env("WIKI_SEARCH_SERVER", "auto");
    wiki_testkit::output(cmd, None)
}

/// Wait (bounded) until no server answers.
fn wait_stopped(v: &Vault) {
    let t = Instant::now();
    while status(v).is_some() {
        assert!(t.elapsed() < Duration::from_secs(20), "still running");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn auto_mode_starts_a_server_in_the_background_and_later_searches_are_served() {
    let v = rich_vault();
    let _guard = Detached(v.root.clone());
    // Without `auto`, a search starts nothing.
    let plain = both(&v, "wiki-search", &["alpha"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(status(&v).is_none(), "a plain search started a server");
    // The first `auto` search answers in-process (same output) and starts the server.
    let first = auto(&v, "wiki-search", &["alpha"]);
    first.expect_code(0);
    assert_eq!(first.stdout, plain.stdout);
    assert_eq!(first.stderr, "");
    wait_ready(&v, None);
    assert_eq!(requests(&v), 0);
    // The next ones are served.
    let second = auto(&v, "wiki-search", &["alpha"]);
    assert_eq!((second.code, &second.stdout), (0, &plain.stdout));
    assert_eq!(requests(&v), 1);
    // Through the dispatcher (which runs `wiki search --server start`), after a stop.
    v.run("wiki-search", &["--server", "stop"]).expect_code(0);
    wait_stopped(&v);
    let text = auto(&v, "wiki", &["search", "alpha"]);
    text.expect_code(0);
    wait_ready(&v, None);
    let served = auto(&v, "wiki", &["search", "alpha"]);
    assert_eq!(served.stdout, text.stdout);
    assert_eq!(requests(&v), 1);
    // Requests the server does not take (here: the memory corpus) start nothing.
    v.run("wiki-search", &["--server", "stop"]).expect_code(0);
    wait_stopped(&v);
    let memory = v.path("memory-workspace");
    std::fs::create_dir_all(&memory).unwrap();
    let mem = memory.to_string_lossy().to_string();
    auto(
        &v,
        "wiki-search",
        &["--corpus", "memory", "--memory", &mem, "alpha"],
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(status(&v).is_none(), "a memory search started a server");
}
