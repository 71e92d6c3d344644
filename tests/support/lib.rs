//! Test helpers for the wiki toolchain: temporary vaults in real git repositories, the real
//! binaries, isolated environments.
//!
//! * [`Vault`] — a temp directory (optionally a git repository) with file helpers and a `git`
//!   runner that never reads the developer's global git config;
//! * [`bin`] — the path of a workspace binary (`wiki`, `wiki-parse`, …) in the same target
//!   directory as the running test (build them first: `cargo build --workspace --bins`);
//! * [`Vault::run`] — run a binary in the vault with a pinned clock (`WIKI_NOW`) and a fixed git
//!   identity, returning stdout, stderr and the exit code.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pinned clock used by tests.
pub const NOW: &str = "2026-04-05T12:00:00.000Z";
/// Git identity used by tests.
pub const TEST_NAME: &str = "Test Human";
/// Git e-mail used by tests.
pub const TEST_EMAIL: &str = "human@example.test";

/// The path of a workspace binary next to the running test executable.
///
/// Panics with a clear message when the binary has not been built.
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    // target/<profile>/deps/<test> → target/<profile>/<name>
    let dir = exe
        .parent()
        .and_then(|d| {
            if d.ends_with("deps") {
                d.parent()
            } else {
                Some(d)
            }
        })
        .expect("target dir")
        .to_path_buf();
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "binary {} not found: run `cargo build --workspace --bins` first (scripts/test does)",
        path.display()
    );
    path
}

/// The result of running a command.
#[derive(Debug, Clone)]
pub struct Run {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Assert the exit code, printing both streams on failure.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "unexpected exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// stdout parsed as JSON Lines.
    pub fn jsonl(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
            .collect()
    }

    /// stdout parsed as one JSON document.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// Apply the isolated test environment to a command: no global/system git config, a fixed
/// identity and clock, HOME inside `home`.
pub fn isolate(cmd: &mut Command, home: &Path) {
    cmd.env("HOME", home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", TEST_NAME)
        .env("GIT_AUTHOR_EMAIL", TEST_EMAIL)
        .env("GIT_COMMITTER_NAME", TEST_NAME)
        .env("GIT_COMMITTER_EMAIL", TEST_EMAIL)
        .env("GIT_AUTHOR_DATE", "2026-04-05T12:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-04-05T12:00:00Z")
        .env("WIKI_NOW", NOW)
        .env_remove("WIKI_VAULT")
        .env_remove("WIKI_AGENT")
        .env_remove("WIKI_AUTHOR_NAME")
        .env_remove("WIKI_AUTHOR_EMAIL")
        .env_remove("WIKI_HUGE_PAGES")
        .env_remove("OPENCLAW_STATE_DIR")
        .env_remove("OPENCLAW_CONFIG_PATH")
        .env_remove("OPENCLAW_WORKSPACE_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
}

/// A temporary vault directory.
pub struct Vault {
    dir: tempfile::TempDir,
    /// The vault root (may be a sub-folder of the temp dir).
    pub root: PathBuf,
    home: PathBuf,
}

impl Default for Vault {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Vault {
    /// Removing the directory under a detached process (a packer started by a commit) would
    /// leave it half removed: wait for those first (only vaults that may have had one).
    fn drop(&mut self) {
        let marks = [".git/wiki-pack.lock", "../.git/wiki-pack.lock"];
        if !marks.iter().any(|l| self.root.join(l).exists()) {
            return;
        }
        let start = std::time::Instant::now();
        while self.background_packers() > 0 && start.elapsed() < std::time::Duration::from_secs(120)
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Vault {
    /// An empty temp directory used as the vault root (no git).
    pub fn new() -> Vault {
        let dir = tempfile::Builder::new()
            .prefix("wiki-test-")
            .tempdir()
            .expect("tempdir");
        let home = dir.path().join(".home");
        std::fs::create_dir_all(&home).expect("home");
        let root = dir.path().join("vault");
        std::fs::create_dir_all(&root).expect("vault dir");
        Vault { dir, root, home }
    }

    /// An empty vault inside a fresh git repository (`git init -b main`).
    pub fn with_git() -> Vault {
        let v = Vault::new();
        v.git(&["init", "-q", "-b", "main"]);
        v
    }

    /// The temp directory holding the vault (and the isolated HOME).
    pub fn temp(&self) -> &Path {
        self.dir.path()
    }

    /// The isolated HOME directory.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Absolute path of a vault-relative path.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Write a file (parents created).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, content).expect("write");
    }

    /// Replace `from` by `to` (same length) in a file in place, keeping its modification time:
    /// only the change time (which no user can set) tells that it changed.
    pub fn edit_keeping_mtime(&self, rel: &str, from: &str, to: &str) {
        assert_eq!(from.len(), to.len(), "an edit that keeps the size");
        let p = self.path(rel);
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} has no {from:?}");
        let mtime = std::fs::metadata(&p)
            .and_then(|m| m.modified())
            .expect("stat");
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .expect("open");
        use std::io::Write;
        (&f).write_all(text.replacen(from, to, 1).as_bytes())
            .expect("write in place");
        f.set_modified(mtime).expect("restore mtime");
        assert_eq!(
            std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .expect("stat"),
            mtime
        );
    }

    /// Wait until every file written so far is old enough for the parse cache to record its
    /// stat data ([`wiki_vault::pagecache::SETTLE_SECS`]), so that the next compile that reads them
    /// lets later runs skip reading them.
    pub fn settle(&self) {
        let settle = wiki_vault::pagecache::SETTLE_SECS.unsigned_abs();
        std::thread::sleep(std::time::Duration::from_millis(settle * 1_000 + 100));
    }

    /// Read a file as UTF-8.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Every file under the vault-relative directory `rel` (recursively, sorted by path), with
    /// its bytes; empty when `rel` does not exist.
    pub fn files_under(&self, rel: &str) -> Vec<(String, Vec<u8>)> {
        fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, Vec<u8>)>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            let mut entries: Vec<_> = entries.map(|e| e.expect("directory entry")).collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let name = format!("{rel}/{}", e.file_name().to_string_lossy());
                if e.file_type().expect("file type").is_dir() {
                    walk(&e.path(), &name, out);
                } else {
                    let bytes = std::fs::read(e.path()).expect("read file");
                    out.push((name, bytes));
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.path(rel), rel, &mut out);
        out
    }

    /// The paths of the files that differ between two [`Vault::files_under`] listings (changed,
    /// added or removed).
    pub fn changed_files(before: &[(String, Vec<u8>)], after: &[(String, Vec<u8>)]) -> Vec<String> {
        let mut changed: Vec<String> = after
            .iter()
            .filter(|f| !before.contains(f))
            .chain(before.iter().filter(|f| !after.contains(f)))
            .map(|(p, _)| p.clone())
            .collect();
        changed.sort();
        changed.dedup();
        changed
    }

    /// Whether a vault-relative path exists.
    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// Run real `git` in the vault root with the isolated environment; panics on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let run = self.git_run(args);
        assert_eq!(run.code, 0, "git {args:?} failed:\n{}", run.stderr);
        run.stdout
    }

    /// Run real `git` and return the result without asserting.
    pub fn git_run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(&self.root);
        isolate(&mut cmd, &self.home);
        output(cmd, None)
    }

    /// Stage and commit everything with real git (as the test human).
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// Number of commits on HEAD (0 when unborn).
    pub fn commit_count(&self) -> usize {
        let run = self.git_run(&["rev-list", "--count", "HEAD"]);
        if run.code != 0 {
            return 0;
        }
        run.stdout.trim().parse().unwrap_or(0)
    }

    /// `git status --porcelain` output.
    pub fn status(&self) -> String {
        self.git(&["status", "--porcelain"])
    }

    /// Run a workspace binary in the vault root with the isolated environment (arguments as
    /// given; the vault is found from the working directory or `--vault`).
    pub fn run(&self, name: &str, args: &[&str]) -> Run {
        self.run_stdin(name, args, None)
    }

    /// Run a workspace binary with the given stdin.
    pub fn run_stdin(&self, name: &str, args: &[&str], stdin: Option<&[u8]>) -> Run {
        let mut cmd = Command::new(bin(name));
        cmd.args(args).current_dir(&self.root);
        isolate(&mut cmd, &self.home);
        output(cmd, stdin)
    }

    /// Detached packers (`wiki_store::background`) started by commits in this vault that are
    /// still running (found through `/proc`; always 0 elsewhere).
    pub fn background_packers(&self) -> usize {
        let Ok(root) = std::fs::canonicalize(&self.root) else {
            return 0;
        };
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return 0;
        };
        procs
            .flatten()
            .filter(|p| {
                p.file_name()
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            })
            .filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
            .filter(|cmdline| {
                let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
                args.len() >= 3
                    && args[1] == b"--wiki-store-background-pack"
                    && args[2] == root.as_os_str().as_encoded_bytes()
            })
            .count()
    }

    /// Wait (up to two minutes) until no detached packer of this vault runs; panics after that.
    pub fn wait_for_background_packers(&self) {
        let start = std::time::Instant::now();
        while self.background_packers() > 0 {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(120),
                "a background packer still runs after two minutes"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// A preconfigured command for a workspace binary (isolated env, cwd = vault root).
    pub fn command(&self, name: &str) -> Command {
        let mut cmd = Command::new(bin(name));
        cmd.current_dir(&self.root);
        isolate(&mut cmd, &self.home);
        cmd
    }
}

/// Run a command, capturing output.
pub fn output(mut cmd: Command, stdin: Option<&[u8]>) -> Run {
    use std::io::Write;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().expect("spawn");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin");
        let data = input.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    let out = child.wait_with_output().expect("wait");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A page with frontmatter lines and a body: `page(&["id: a", "title: A"], "# A\n")`.
pub fn page(frontmatter: &[&str], body: &str) -> String {
    let mut s = String::from("---\n");
    for line in frontmatter {
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("---\n\n");
    s.push_str(body);
    s
}
