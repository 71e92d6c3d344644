//! `wiki hooks install` and real `git commit`s going through the installed hook.

use std::path::PathBuf;
use std::process::Command;

use wiki_testkit::{Run, Vault, page};

use crate::common::*;

/// PATH with the directory of the built binaries first, so the hook finds `wiki-lint`.
fn path_with_bins() -> String {
    let bins = wiki_testkit::bin("wiki-lint")
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", bins.display())
}

/// Run real git in the vault with the binaries on PATH.
fn git_with_bins(v: &Vault, args: &[&str]) -> Run {
    let mut c = Command::new("git");
    c.args(args).current_dir(&v.root);
    wiki_testkit::isolate(&mut c, v.home());
    c.env("PATH", path_with_bins());
    wiki_testkit::output(c, None)
}

fn install(v: &Vault, args: &[&str]) -> Run {
    let mut all = vec!["hooks", "install"];
    all.extend_from_slice(args);
    v.run("wiki", &all)
}

fn hook_path(v: &Vault) -> PathBuf {
    v.root.join(".git/hooks/pre-commit")
}

fn committed_vault() -> Vault {
    let v = Vault::with_git();
    v.write("entities/a.md", clean("entity", "entity.a", &[], ""));
    v.commit_all("init");
    v
}

#[test]
fn installed_hook_blocks_errors_and_allows_warnings() {
    let v = committed_vault();
    let run = install(&v, &[]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        format!(
            "Installed pre-commit hook {} (runs wiki-lint --staged --deny error).\n",
            hook_path(&v).display()
        )
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(hook_path(&v))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "hook must be executable");
    }

    // An error (duplicate id) blocks the commit, and the hook says why.
    v.write("entities/b.md", clean("entity", "entity.a", &[], ""));
    v.git(&["add", "entities/b.md"]);
    let run = git_with_bins(&v, &["commit", "-q", "-m", "dup"]);
    assert_ne!(run.code, 0, "commit must be blocked:\n{}", run.stderr);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("entities/b.md:3: duplicate-id: Duplicate page id `entity.a`."),
        "{all}"
    );
    assert_eq!(v.commit_count(), 1);

    // Warnings only: the commit goes through.
    v.write(
        "entities/b.md",
        clean("entity", "entity.b", &["questions: Why?"], ""),
    );
    v.git(&["add", "entities/b.md"]);
    let run = git_with_bins(&v, &["commit", "-q", "-m", "warn"]);
    run.expect_code(0);
    assert!(format!("{}{}", run.stdout, run.stderr).contains("Page lists 1 open question."));
    assert_eq!(v.commit_count(), 2);

    // `git commit -a` (a temporary index) is linted too.
    v.write(
        "entities/b.md",
        page(&["pageType: entity", "sourceIds: s"], ""),
    );
    let run = git_with_bins(&v, &["commit", "-q", "-a", "-m", "missing id"]);
    assert_ne!(
        run.code, 0,
        "commit -a must be blocked:\n{}{}",
        run.stdout, run.stderr
    );
    assert_eq!(v.commit_count(), 2);
}

#[test]
fn install_chains_an_existing_hook_and_is_idempotent() {
    let v = committed_vault();
    let hook = hook_path(&v);
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    // The existing hook records that it ran, and fails when asked to.
    let script = "#!/bin/sh\necho ran >> \"$(git rev-parse --show-toplevel)/.hook-ran\"\n[ ! -e \"$(git rev-parse --show-toplevel)/.hook-fail\" ]\n";
    std::fs::write(&hook, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let run = install(&v, &[]);
    run.expect_code(0);
    let local = hook.with_file_name("pre-commit.local");
    assert_eq!(std::fs::read_to_string(&local).unwrap(), script);
    assert!(
        run.stdout
            .contains(&format!("; runs {} first.", local.display())),
        "{}",
        run.stdout
    );

    // Idempotent: a second install changes nothing and keeps the chained hook.
    let ours = std::fs::read_to_string(&hook).unwrap();
    let run = install(&v, &["--format", "json"]);
    run.expect_code(0);
    let rec = run.json();
    assert_eq!(rec["type"], "hook");
    assert_eq!(rec["status"], "unchanged");
    assert_eq!(rec["chained"], local.to_str().unwrap());
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), ours);
    assert_eq!(std::fs::read_to_string(&local).unwrap(), script);
    // Changing the deny level updates our hook only.
    let run = install(&v, &["--deny", "warning", "--format", "json"]);
    assert_eq!(run.json()["status"], "updated");
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("--deny warning")
    );
    install(&v, &[]).expect_code(0);

    // The chained hook runs first on a clean commit...
    v.write("entities/b.md", clean("entity", "entity.b", &[], ""));
    v.git(&["add", "entities/b.md"]);
    git_with_bins(&v, &["commit", "-q", "-m", "ok"]).expect_code(0);
    assert_eq!(v.read(".hook-ran"), "ran\n");
    // ...and its failure blocks the commit even when lint would pass.
    v.write(".hook-fail", "");
    v.write("entities/c.md", clean("entity", "entity.c", &[], ""));
    v.git(&["add", "entities/c.md"]);
    let run = git_with_bins(&v, &["commit", "-q", "-m", "blocked by local"]);
    assert_ne!(run.code, 0);
    assert_eq!(v.read(".hook-ran"), "ran\nran\n");
    assert_eq!(v.commit_count(), 2);
}

#[test]
fn install_refuses_to_clobber_two_foreign_hooks() {
    let v = committed_vault();
    let hook = hook_path(&v);
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(
        hook.with_file_name("pre-commit.local"),
        "#!/bin/sh\nexit 0\n",
    )
    .unwrap();
    let run = install(&v, &[]);
    run.expect_code(2);
    assert!(run.stderr.contains("merge them by hand"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}

#[test]
fn install_honours_core_hooks_path() {
    let v = committed_vault();
    v.git(&["config", "core.hooksPath", "custom-hooks"]);
    let run = install(&v, &["--format", "json"]);
    run.expect_code(0);
    let hook = v.root.join("custom-hooks/pre-commit");
    assert_eq!(run.json()["path"], hook.to_str().unwrap());
    assert!(hook.exists());
    assert!(!hook_path(&v).exists());
    v.write("entities/b.md", page(&["pageType: entity"], ""));
    v.git(&["add", "entities/b.md"]);
    let run = git_with_bins(&v, &["commit", "-q", "-m", "bad"]);
    assert_ne!(run.code, 0, "the hook in core.hooksPath must run");
    assert!(
        run.stderr.contains("Missing `id` frontmatter."),
        "{}",
        run.stderr
    );
}

#[test]
fn hook_without_wiki_lint_on_path_fails_with_advice() {
    let v = committed_vault();
    install(&v, &[]).expect_code(0);
    v.write("entities/b.md", clean("entity", "entity.b", &[], ""));
    v.git(&["add", "entities/b.md"]);
    let mut c = Command::new("git");
    c.args(["commit", "-q", "-m", "x"]).current_dir(&v.root);
    wiki_testkit::isolate(&mut c, v.home());
    c.env("PATH", "/usr/bin:/bin");
    let run = wiki_testkit::output(c, None);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("wiki-lint not found on PATH"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--no-verify"), "{}", run.stderr);
}
