//! Shared helpers of the memory tests: a vault and a workspace beside it.
#![allow(dead_code)]

use std::path::PathBuf;

use wiki_testkit::{Run, Vault};

/// A vault (git) and a workspace folder beside it.
pub struct Env {
    pub vault: Vault,
    pub ws: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let vault = Vault::with_git();
        vault.run("wiki", &["--vault", ".", "init"]).expect_code(0);
        let ws = vault.temp().join("ws");
        std::fs::create_dir_all(ws.join("memory")).unwrap();
        Env { vault, ws }
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.ws.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn memory(&self, args: &[&str]) -> Run {
        let ws = self.ws.to_str().unwrap().to_string();
        let mut all = vec!["memory", "--workspace", ws.as_str()];
        all.extend_from_slice(args);
        self.vault.run("wiki", &all)
    }

    /// Read a workspace file.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.ws.join(rel)).unwrap()
    }

    /// Run git in the workspace.
    pub fn git(&self, args: &[&str]) -> String {
        let mut cmd = std::process::Command::new("git");
        cmd.args(args).current_dir(&self.ws);
        wiki_testkit::isolate(&mut cmd, self.vault.home());
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}
