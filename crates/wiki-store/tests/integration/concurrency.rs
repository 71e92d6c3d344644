use wiki_store::{Error, Store};

use crate::common::*;

#[test]
fn compare_and_swap_detects_a_foreign_commit() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let store = f.store();
    let old_tip = store.resolve("HEAD").expect("tip");
    // Someone else commits with real git in between.
    f.write("other.md", "by git\n");
    f.git(&["add", "other.md"]);
    f.git(&["commit", "-q", "-m", "foreign"]);
    let new_tip = f.rev("HEAD");

    let changes = [w("a.md", "tool\n")];
    let mut r = req(&changes, "stale");
    r.expected_parent = Some(old_tip);
    let err = store.commit(&r).expect_err("conflict");
    match &err {
        Error::Conflict {
            branch,
            expected,
            actual,
        } => {
            assert_eq!(branch, "refs/heads/main");
            assert_eq!(*expected, Some(old_tip));
            assert_eq!(actual.map(|a| a.to_string()), Some(new_tip.clone()));
        }
        other => panic!("expected conflict, got {other}"),
    }
    assert!(err.is_conflict());
    assert_eq!(f.rev("HEAD"), new_tip, "ref unchanged");
    assert_eq!(
        f.read("a.md").as_deref(),
        Some("a\n"),
        "work tree unchanged"
    );
    assert_eq!(f.status(), "");

    // Same on a branch that is not checked out.
    f.git(&["branch", "side"]);
    let side_tip = store.branch_tip("side").expect("tip").expect("exists");
    f.git(&["update-ref", "refs/heads/side", &f.rev("HEAD~1")]);
    let mut r =
        wiki_store::CommitRequest::new(wiki_store::Target::Branch("side".into()), &changes, "x");
    r.expected_parent = Some(side_tip);
    assert!(store.commit(&r).expect_err("conflict").is_conflict());
}

#[test]
fn concurrent_writers_never_lose_commits() {
    let f = Fixture::repo_with(&[("seed.md", "seed\n")]);
    let per_thread = 20;
    let mut handles = Vec::new();
    for t in 0..2 {
        // Each thread opens its own store (gix repositories are not `Send` in this build).
        let root = f.root.clone();
        handles.push(std::thread::spawn(move || {
            let store = Store::open_with(&root, fixed_env(&[])).expect("open");
            for i in 0..per_thread {
                let changes = [w(
                    &format!("t{t}/file{i}.md"),
                    &format!("thread {t} file {i}\n"),
                )];
                let out = store
                    .commit(&req(&changes, &format!("t{t} #{i}")))
                    .expect("commit");
                assert!(out.commit.is_some());
            }
        }));
    }
    for h in handles {
        h.join().expect("thread");
    }
    assert_eq!(f.count("HEAD"), 1 + 2 * per_thread);
    let store = f.store();
    let files = store.list_files("HEAD", "").expect("list");
    assert_eq!(files.len(), 1 + 2 * per_thread);
    assert_eq!(f.status(), "");
    f.fsck();
}

#[test]
fn lock_is_exclusive_and_commit_locked_works() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let mut store = f.store();
    store.set_lock_timeout(std::time::Duration::from_millis(200));
    let lock = store.lock().expect("lock");
    assert!(lock.path().ends_with(".openclaw-wiki/locks/write.lock"));
    // Another store cannot take it while held.
    let mut other = f.store();
    other.set_lock_timeout(std::time::Duration::from_millis(200));
    let changes = [w("b.md", "b\n")];
    match other.commit(&req(&changes, "blocked")) {
        Err(Error::LockTimeout { path, .. }) => assert!(path.ends_with("write.lock")),
        other => panic!("expected lock timeout, got {other:?}"),
    }
    // The holder commits through commit_locked.
    let out = store
        .commit_locked(&lock, &req(&changes, "locked"))
        .expect("commit");
    assert!(out.commit.is_some());
    // A foreign lock is rejected.
    let g = Fixture::repo_with(&[("x.md", "x\n")]);
    let g_store = g.store();
    let g_lock = g_store.lock().expect("lock g");
    assert!(matches!(
        store.commit_locked(&g_lock, &req(&changes, "foreign")),
        Err(Error::ForeignLock { .. })
    ));
    drop(lock);
    let more = [w("c.md", "c\n")];
    other
        .commit(&req(&more, "after release"))
        .expect("commit after release");
    assert_eq!(f.status(), "");
}
