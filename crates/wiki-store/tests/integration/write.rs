use wiki_store::{Change, CommitRequest, EnvSource, Store, Target};

use crate::common::*;

#[test]
fn first_commit_on_unborn_branch() {
    let f = Fixture::repo();
    let store = f.store();
    assert_eq!(
        store.current_branch().expect("branch").as_deref(),
        Some("main")
    );
    assert_eq!(store.branch_tip("main").expect("tip"), None);
    assert_eq!(store.prefix(), "");

    let changes = [
        w("index.md", "# Index\n"),
        w("entities/people/alice.md", "Alice\n"),
    ];
    let out = store
        .commit(
            &req(&changes, "Create vault")
                .trailer("Wiki-Page", "entities/people/alice.md")
                .trailer("Wiki-Agent", "main"),
        )
        .expect("commit");
    let id = out.commit.expect("a commit");
    assert_eq!(out.human_commit, None);
    assert_eq!(out.written, vec!["entities/people/alice.md", "index.md"]);
    assert_eq!(f.rev("HEAD"), id.to_string());
    assert_eq!(f.count("HEAD"), 1);
    assert_eq!(
        f.git(&["log", "-1", "--format=%B"]),
        "Create vault\n\nWiki-Op: test\nWiki-Page: entities/people/alice.md\nWiki-Agent: main\n\n"
    );
    assert_eq!(
        f.read("entities/people/alice.md").as_deref(),
        Some("Alice\n")
    );
    assert_eq!(f.status(), "", "work tree and index follow the commit");
    f.fsck();
    // Identity from the repository config, time from WIKI_NOW.
    assert_eq!(
        f.git(&["log", "-1", "--format=%an|%ae|%cn|%ce|%at|%ct"])
            .trim(),
        format!("Local User|local@example.com|Local User|local@example.com|{NOW_UNIX}|{NOW_UNIX}")
    );
    let info = store.commit_info(id).expect("info");
    assert_eq!(info.time_iso, "2026-04-05T12:00:00+00:00");
    assert!(info.parents.is_empty());
    assert_eq!(
        info.changed_paths,
        vec!["entities/people/alice.md", "index.md"]
    );
}

#[test]
fn open_or_init_creates_a_repository() {
    let f = Fixture::empty();
    let vault = f.path("vault");
    let (store, initialized) = Store::open_or_init(&vault).expect("init");
    assert!(initialized);
    assert!(vault.join(".git").is_dir());
    // gix uses init.defaultBranch from the (non-isolated) git config, else "main".
    let configured = std::process::Command::new("git")
        .args(["config", "--get", "init.defaultBranch"])
        .current_dir(&vault)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "main".to_string());
    assert_eq!(store.current_branch().expect("branch"), Some(configured));
    let store = store.with_env(fixed_env(&[
        ("GIT_AUTHOR_NAME", "Env Author"),
        ("GIT_AUTHOR_EMAIL", "env@example.com"),
    ]));
    assert_eq!(store.identity().name, "Env Author");
    let changes = [w("a.md", "a\n")];
    let out = store.commit(&req(&changes, "first")).expect("commit");
    assert!(out.commit.is_some());
    let g = |args: &[&str]| git_in(&vault, args);
    assert_eq!(g(&["status", "--porcelain", "--untracked-files=all"]), "");
    assert_eq!(
        g(&["log", "-1", "--format=%an <%ae>"]).trim(),
        "Env Author <env@example.com>"
    );
    g(&["fsck", "--strict"]);
    // Opening again finds the repository.
    let (_, initialized) = Store::open_or_init(&vault).expect("reopen");
    assert!(!initialized);
}

#[test]
fn open_fails_outside_a_repository() {
    let f = Fixture::empty();
    let err = Store::open(&f.root).expect_err("no repo");
    assert!(
        matches!(err, wiki_store::Error::NotARepository { .. }),
        "{err}"
    );
    let r = Fixture::repo();
    assert!(
        Store::open(&r.path(".git/refs")).is_err(),
        "no vault inside .git"
    );
}

#[test]
fn modify_add_delete_on_existing_history() {
    let f = Fixture::repo_with(&[
        ("a.md", "a1\n"),
        ("gone/only.md", "bye\n"),
        ("keep.md", "keep\n"),
    ]);
    let before = f.rev("HEAD");
    let store = f.store();
    let changes = [
        w("a.md", "a2\n"),
        w("new/deep/dir/b.md", "b\n"),
        del("gone/only.md"),
        del("never-existed.md"),
    ];
    let mut r = req(&changes, "Mixed change");
    r.body = Some("Why this happened.".to_string());
    let out = store.commit(&r).expect("commit");
    assert_eq!(
        out.written,
        vec!["a.md", "gone/only.md", "new/deep/dir/b.md"]
    );
    assert_eq!(f.rev("HEAD^"), before);
    assert_eq!(f.status(), "");
    assert!(!f.path("gone").exists(), "emptied directory removed");
    assert_eq!(f.read("keep.md").as_deref(), Some("keep\n"));
    f.fsck();
    assert_eq!(
        f.git(&["log", "-1", "--format=%B"]),
        "Mixed change\n\nWhy this happened.\n\nWiki-Op: test\n\n"
    );
    let msg = f.git(&["log", "-1", "--format=%B"]);
    let tmp = f.path(".git/msg.txt");
    std::fs::write(&tmp, msg).expect("write msg");
    assert_eq!(
        f.git(&["interpret-trailers", "--parse", ".git/msg.txt"]),
        "Wiki-Op: test\n"
    );
    assert_eq!(f.show("HEAD:a.md"), "a2\n");
    assert_eq!(
        f.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        "a.md\nkeep.md\nnew/deep/dir/b.md\n"
    );
}

#[test]
fn no_op_changes_make_no_commit() {
    let f = Fixture::repo_with(&[("a.md", "same\n")]);
    let store = f.store();
    let before = f.rev("HEAD");
    let out = store.commit(&req(&[], "nothing")).expect("empty");
    assert_eq!(out.commit, None);
    let changes = [w("a.md", "same\n"), del("missing.md")];
    let out = store.commit(&req(&changes, "same")).expect("same");
    assert_eq!(out, wiki_store::CommitOutcome::default());
    assert_eq!(f.rev("HEAD"), before);
    assert_eq!(f.status(), "");
}

#[test]
fn identity_and_time_from_environment() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let env = EnvSource::fixed([
        ("GIT_AUTHOR_NAME", "Ann Author"),
        ("GIT_AUTHOR_EMAIL", "ann@example.com"),
        ("GIT_COMMITTER_NAME", "Cid Committer"),
        ("GIT_AUTHOR_DATE", "@1700000000 +0000"),
        ("GIT_COMMITTER_DATE", "2026-01-02T03:04:05+02:00"),
        ("WIKI_NOW", NOW),
    ]);
    let store = Store::open_with(&f.root, env).expect("open");
    let changes = [w("a.md", "b\n")];
    store.commit(&req(&changes, "env")).expect("commit");
    assert_eq!(
        f.git(&["log", "-1", "--format=%an|%ae|%cn|%ce|%at|%ct|%ci"])
            .trim(),
        "Ann Author|ann@example.com|Cid Committer|ann@example.com|1700000000|1767315845|2026-01-02 03:04:05 +0200"
    );
    // Without env: repository config, and WIKI_NOW.
    let store = f.store();
    assert_eq!(store.identity().name, "Local User");
    assert_eq!(store.identity().email, "local@example.com");
}

#[test]
fn invalid_trailer_and_duplicate_paths_are_rejected() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let store = f.store();
    let changes = [w("b.md", "b\n")];
    let r = CommitRequest::new(Target::Head, &changes, "s").trailer("Bad Key", "v");
    assert!(matches!(
        store.commit(&r),
        Err(wiki_store::Error::InvalidTrailer { .. })
    ));
    let changes = [w("b.md", "1"), w("b.md", "2")];
    assert!(matches!(
        store.commit(&req(&changes, "dup")),
        Err(wiki_store::Error::InvalidPath { .. })
    ));
    let changes = [w("x", "1"), w("x/y.md", "2")];
    assert!(store.commit(&req(&changes, "file and dir")).is_err());
    assert_eq!(f.status(), "");
    assert_eq!(f.count("HEAD"), 1);
}

#[test]
fn executable_bit_is_kept() {
    let f = Fixture::repo_with(&[("run.sh", "#!/bin/sh\n")]);
    f.git(&["update-index", "--chmod=+x", "run.sh"]);
    f.git(&["commit", "-q", "-m", "x"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let p = f.path("run.sh");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    assert_eq!(f.status(), "");
    let store = f.store();
    let changes = [w("run.sh", "#!/bin/sh\necho hi\n")];
    store.commit(&req(&changes, "edit script")).expect("commit");
    assert!(f.git(&["ls-tree", "HEAD", "run.sh"]).starts_with("100755"));
    assert_eq!(f.status(), "");
}

#[test]
fn detached_head_commits_move_head_only() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    f.write("a.md", "b\n");
    f.git(&["commit", "-qam", "second"]);
    let main_tip = f.rev("main");
    f.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let store = f.store();
    assert_eq!(store.current_branch().expect("b"), None);
    let changes = [w("c.md", "c\n")];
    let out = store.commit(&req(&changes, "detached")).expect("commit");
    assert_eq!(f.rev("HEAD"), out.commit.expect("id").to_string());
    assert_eq!(f.rev("main"), main_tip, "branch untouched");
    assert_eq!(f.status(), "");
    f.fsck();
}

#[test]
fn branch_reflog_records_tool_commits() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let store = f.store();
    let changes = [w("a.md", "b\n")];
    store.commit(&req(&changes, "Reflogged")).expect("commit");
    let log = f.git(&["reflog", "show", "--format=%gs", "refs/heads/main"]);
    assert_eq!(log.lines().next(), Some("commit: Reflogged"), "{log}");
}

#[test]
fn existing_files_are_replaced_atomically() {
    use std::os::unix::fs::MetadataExt;
    let f = Fixture::repo_with(&[("a.md", "a1\n"), ("h.md", "h1\n")]);
    std::fs::hard_link(f.path("h.md"), f.path("h-link.txt")).expect("hard link");
    let ino = |p: &str| std::fs::metadata(f.path(p)).expect("stat").ino();
    let (a_before, h_before) = (ino("a.md"), ino("h.md"));
    let store = f.store();
    let changes = [
        w("a.md", "a2 longer\n"),
        w("h.md", "h2\n"),
        w("n/new.md", "n\n"),
    ];
    store.commit(&req(&changes, "edit")).expect("commit");
    // A new inode: the old bytes were never modified in place (a reader or a crash sees the old
    // or the new file, never a mix), and a hard link elsewhere keeps the old content.
    assert_ne!(ino("a.md"), a_before, "replaced by rename");
    assert_ne!(
        ino("h.md"),
        h_before,
        "hard-linked file replaced, not shared"
    );
    assert_eq!(f.read("h-link.txt").as_deref(), Some("h1\n"));
    assert_eq!(f.read("a.md").as_deref(), Some("a2 longer\n"));
    assert_eq!(f.read("n/new.md").as_deref(), Some("n\n"));
    store
        .commit(&req(&[w("a.md", "a\n")], "shorter"))
        .expect("commit");
    assert_eq!(f.read("a.md").as_deref(), Some("a\n"));
    assert_eq!(f.status(), "?? h-link.txt\n");
    f.fsck();
}

/// Many new blobs in one commit: git and the store read them right away, including through a
/// crash and roll-forward.
#[test]
fn large_commits_are_read_back_through_a_crash() {
    let f = Fixture::repo_with(&[("seed.md", "s")]);
    let store = f.store();
    let mut changes: Vec<wiki_store::Change> = (0..200)
        .map(|i| w(&format!("d{}/f{i}.md", i % 7), &"x".repeat(i * 37)))
        .collect();
    // Duplicate content across paths is one object.
    changes.push(w("dup.md", "x"));
    store.commit(&req(&changes, "bulk")).expect("commit");
    assert_eq!(f.status(), "");
    f.fsck();
    assert_eq!(f.show("HEAD:d3/f3.md"), "x".repeat(3 * 37));
    assert_eq!(
        store.read_file("HEAD", "d3/f199.md").expect("read"),
        Some("x".repeat(199 * 37).into_bytes())
    );
    // A crash after the ref update: roll-forward reads the new blobs.
    let changes: Vec<wiki_store::Change> = (0..100)
        .map(|i| w(&format!("d{}/f{i}.md", i % 7), &format!("v2 {i}\n")))
        .collect();
    store
        .commit_simulating_crash_after_ref_update(&req(&changes, "crashy"))
        .expect("commit");
    let store = f.store();
    assert_eq!(f.read("d0/f0.md").as_deref(), Some("v2 0\n"));
    assert_eq!(f.status(), "");
    store
        .commit(&req(&[w("a.md", "a\n")], "small"))
        .expect("commit");
    f.fsck();
}

/// Files the commit replaces, a few or many at once, leave nothing behind in the store's
/// directories.
#[test]
fn replaced_files_leave_nothing_behind() {
    let leftovers = |f: &Fixture| {
        std::fs::read_dir(f.path(".openclaw-wiki/locks"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    let f = Fixture::repo_with(&[("a.md", "a\n"), ("b.md", "b\n")]);
    let store = Store::open_with(&f.root, fixed_env(&[])).expect("open");
    store
        .commit(&req(&[w("a.md", "a2\n"), w("b.md", "b2\n")], "two"))
        .expect("commit");
    let locks = leftovers(&f);
    store
        .commit(&req(&[w("a.md", "a3\n")], "three"))
        .expect("commit");
    assert_eq!(leftovers(&f), locks);
    assert_eq!(f.read("a.md").as_deref(), Some("a3\n"));
    assert_eq!(f.git(&["status", "--porcelain"]), "");

    let many: Vec<_> = (0..300)
        .map(|i| w(&format!("bulk/{i}.md"), &format!("page {i}\n")))
        .collect();
    store.commit(&req(&many, "bulk")).expect("commit");
    let rewritten: Vec<_> = (0..300)
        .map(|i| w(&format!("bulk/{i}.md"), &format!("page {i}, again\n")))
        .collect();
    store
        .commit(&req(&rewritten, "bulk again"))
        .expect("commit");
    assert_eq!(leftovers(&f), locks);
    assert_eq!(f.read("bulk/299.md").as_deref(), Some("page 299, again\n"));
    assert_eq!(f.git(&["status", "--porcelain"]), "");
    f.fsck();
}

/// A commit keeps the index's cache-tree (`TREE` extension): the directories on the way to the
/// changed paths are marked invalid, the others keep proving themselves unchanged, and git's
/// `write-tree` (which trusts the valid nodes) gives exactly the committed tree.
#[test]
fn commit_invalidates_only_the_cache_tree_nodes_it_touches() {
    let f = Fixture::repo_with(&[
        ("a/one.md", "one\n"),
        ("a/two.md", "two\n"),
        ("b/three.md", "three\n"),
        ("c/d/four.md", "four\n"),
        ("root.md", "root\n"),
    ]);
    f.git(&["write-tree"]);
    let cache_tree = || {
        let repo = gix::open(f.path("")).expect("open");
        let index = repo.open_index().expect("index");
        index.tree().cloned().expect("a cache-tree")
    };
    let node = |tree: &gix::index::extension::Tree, path: &str| {
        let mut n = tree.clone();
        for name in path.split('/').filter(|c| !c.is_empty()) {
            n = n
                .children
                .iter()
                .find(|c| c.name.as_slice() == name.as_bytes())
                .cloned()?;
        }
        Some((n.num_entries, n.id.to_string()))
    };
    let before = cache_tree();
    assert_eq!(before.num_entries, Some(5), "git wrote a valid cache-tree");

    let store = f.store();
    let changes = [w("a/one.md", "one, edited\n")];
    store.commit(&req(&changes, "Edit a")).expect("commit");
    let after = cache_tree();
    assert_eq!(after.num_entries, None);
    assert_eq!(node(&after, "a").map(|n| n.0), Some(None));
    for dir in ["b", "c", "c/d"] {
        let (entries, id) = node(&after, dir).expect(dir);
        assert!(entries.is_some(), "{dir} stays valid");
        assert_eq!(id, f.rev(&format!("HEAD:{dir}")), "{dir}");
    }
    assert_eq!(f.git(&["write-tree"]).trim(), f.rev("HEAD^{tree}"));
    assert_eq!(f.status(), "");

    // A deletion and a new directory.
    let changes = [del("b/three.md"), w("e/new.md", "new\n")];
    store.commit(&req(&changes, "Move")).expect("commit");
    let after = cache_tree();
    assert_eq!(node(&after, "b").map(|n| n.0), Some(None));
    assert_eq!(node(&after, "e"), None);
    assert!(node(&after, "c/d").expect("c/d").0.is_some());
    assert_eq!(f.git(&["write-tree"]).trim(), f.rev("HEAD^{tree}"));
    assert_eq!(f.status(), "");
    f.fsck();
}

#[test]
fn blob_ids_given_with_the_changes_name_their_content() {
    // A compile hands over the ids it computed; the commit stores the bytes under them (loose
    // objects, and a pack for many), exactly as when it hashes them itself.
    let f = Fixture::repo();
    let store = f.store();
    let hashed = |content: &str| {
        let out = isolated_git(&f.root)
            .args(["hash-object", "--stdin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(content.as_bytes())?;
                child.wait_with_output()
            })
            .expect("git hash-object");
        String::from_utf8(out.stdout)
            .expect("utf-8")
            .trim()
            .to_string()
    };
    for count in [3, 80] {
        let changes: Vec<Change> = (0..count)
            .map(|i| {
                let content = format!("page {i} of {count}\n");
                let id = hashed(&content);
                w(&format!("pages/p{i}.md"), &content).with_blob_hex(&id)
            })
            .collect();
        assert!(changes.iter().all(|c| c.blob.is_some()));
        store
            .commit(&req(&changes, &format!("{count} pages")))
            .expect("commit");
        for i in [0, count - 1] {
            assert_eq!(
                f.show(&format!("HEAD:pages/p{i}.md")),
                format!("page {i} of {count}\n")
            );
        }
        assert_eq!(f.status(), "");
        f.fsck();
    }
}
