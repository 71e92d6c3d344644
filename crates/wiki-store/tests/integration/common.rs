//! Shared fixtures: temporary repositories built and inspected with the real `git` binary,
//! isolated from the user's configuration.

use std::path::{Path, PathBuf};
use std::process::Command;

use wiki_store::{Change, CommitRequest, EnvSource, Store, Target};

pub const NOW: &str = "2026-04-05T12:00:00Z";
pub const NOW_UNIX: i64 = 1_775_390_400;

/// A temporary directory holding a repository (and possibly more).
pub struct Fixture {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
}

impl Fixture {
    /// An empty temp dir (no repository).
    pub fn empty() -> Fixture {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(tmp.path()).expect("canonicalize");
        Fixture { _tmp: tmp, root }
    }

    /// A fresh `git init -b main` repository with a repository-local identity, no commits.
    pub fn repo() -> Fixture {
        let f = Fixture::empty();
        f.git(&["init", "-q", "-b", "main"]);
        f.git(&["config", "user.name", "Local User"]);
        f.git(&["config", "user.email", "local@example.com"]);
        f
    }

    /// A repository with one commit containing `files`.
    pub fn repo_with(files: &[(&str, &str)]) -> Fixture {
        let f = Fixture::repo();
        for (path, content) in files {
            f.write(path, content);
        }
        f.git(&["add", "-A"]);
        f.git(&["commit", "-q", "-m", "initial"]);
        f
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, content: &str) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, content).expect("write");
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel)).ok()
    }

    /// Run git in the fixture root; panics on failure; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.root, args)
    }

    pub fn status(&self) -> String {
        self.git(&["status", "--porcelain", "--untracked-files=all"])
    }

    pub fn fsck(&self) {
        self.git(&["fsck", "--strict", "--no-progress"]);
    }

    pub fn rev(&self, rev: &str) -> String {
        self.git(&["rev-parse", rev]).trim().to_string()
    }

    pub fn count(&self, rev: &str) -> usize {
        self.git(&["rev-list", "--count", rev])
            .trim()
            .parse()
            .expect("count")
    }

    pub fn show(&self, rev_path: &str) -> String {
        self.git(&["show", rev_path])
    }

    /// Open a store on `rel` (relative vault dir) with a deterministic environment.
    pub fn store_at(&self, rel: &str) -> Store {
        Store::open_with(&self.path(rel), fixed_env(&[])).expect("open store")
    }

    pub fn store(&self) -> Store {
        self.store_at("")
    }
}

pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = isolated_git(dir).args(args).output().expect("spawn git");
    assert!(
        out.status.success(),
        "git {args:?} failed in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn isolated_git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("GIT_AUTHOR_NAME", "Git User")
        .env("GIT_AUTHOR_EMAIL", "git@example.com")
        .env("GIT_COMMITTER_NAME", "Git User")
        .env("GIT_COMMITTER_EMAIL", "git@example.com")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_AUTHOR_DATE")
        .env_remove("GIT_COMMITTER_DATE");
    cmd
}

/// A fixed environment with `WIKI_NOW` set plus `extra`.
pub fn fixed_env(extra: &[(&str, &str)]) -> EnvSource {
    let mut pairs: Vec<(String, String)> = vec![("WIKI_NOW".into(), NOW.into())];
    pairs.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    EnvSource::fixed(pairs)
}

pub fn w(path: &str, content: &str) -> Change {
    Change::write(path, content)
}

pub fn del(path: &str) -> Change {
    Change::delete(path)
}

/// A Head-targeted request with a `Wiki-Op: test` trailer.
pub fn req<'a>(changes: &'a [Change], subject: &str) -> CommitRequest<'a> {
    CommitRequest::new(Target::Head, changes, subject).trailer("Wiki-Op", "test")
}
