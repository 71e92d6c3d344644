use crate::common::*;

#[test]
fn interrupted_commit_is_rolled_forward() {
    let f = Fixture::repo_with(&[("a.md", "a1\n"), ("b.md", "b1\n"), ("c.md", "c1\n")]);
    let store = f.store();
    let changes = [
        w("a.md", "a2\n"),
        del("b.md"),
        w("new/d.md", "d\n"),
        w("c.md", "c2\n"),
    ];
    let out = store
        .commit_simulating_crash_after_ref_update(&req(&changes, "crashy"))
        .expect("commit");
    let id = out.commit.expect("id");
    assert_eq!(f.rev("HEAD"), id.to_string(), "ref moved");
    let journal = f.path(".openclaw-wiki/locks/pending.json");
    assert!(journal.exists(), "journal left behind");
    assert_eq!(
        f.read("a.md").as_deref(),
        Some("a1\n"),
        "files not yet written"
    );
    assert!(!f.status().is_empty());
    // Lock dir never shows up in status.
    assert!(!f.status().contains(".openclaw-wiki"), "{}", f.status());

    // Meanwhile a human edits c.md: roll-forward must leave it alone.
    f.write("c.md", "human c\n");

    // Re-opening rolls forward.
    let store = f.store();
    assert!(!journal.exists(), "journal removed");
    assert_eq!(f.read("a.md").as_deref(), Some("a2\n"));
    assert!(!f.path("b.md").exists());
    assert_eq!(f.read("new/d.md").as_deref(), Some("d\n"));
    assert_eq!(f.read("c.md").as_deref(), Some("human c\n"));
    assert_eq!(f.status(), " M c.md\n");

    // The next commit proceeds normally (and records the human edit to c.md first).
    let more = [w("c.md", "c3\n")];
    let out = store.commit(&req(&more, "after")).expect("commit");
    assert!(out.human_commit.is_some());
    assert_eq!(f.status(), "");
    f.fsck();
}

#[test]
fn journal_is_rolled_forward_before_the_next_commit() {
    let f = Fixture::repo_with(&[("a.md", "a1\n")]);
    let store = f.store();
    let changes = [w("a.md", "a2\n")];
    store
        .commit_simulating_crash_after_ref_update(&req(&changes, "crashy"))
        .expect("commit");
    // Same store instance (no re-open): the next commit rolls forward first.
    let more = [w("z.md", "z\n")];
    let out = store.commit(&req(&more, "next")).expect("next");
    assert!(out.human_commit.is_none(), "a.md was not a human edit");
    assert_eq!(f.read("a.md").as_deref(), Some("a2\n"));
    assert_eq!(f.status(), "");
    assert_eq!(f.count("HEAD"), 3);
}

#[test]
fn stale_journal_without_ref_update_is_discarded() {
    let f = Fixture::repo_with(&[("a.md", "a1\n")]);
    let store = f.store();
    // A journal naming a commit the ref never reached.
    std::fs::create_dir_all(f.path(".openclaw-wiki/locks")).expect("mkdir");
    std::fs::write(
        f.path(".openclaw-wiki/locks/pending.json"),
        format!(
            r#"{{"version":1,"reference":"refs/heads/main","parent":"{}","commit":"{}","paths":["a.md"]}}"#,
            f.rev("HEAD"),
            "1234567890123456789012345678901234567890"
        ),
    )
    .expect("w");
    let changes = [w("b.md", "b\n")];
    store.commit(&req(&changes, "go")).expect("commit");
    assert!(!f.path(".openclaw-wiki/locks/pending.json").exists());
    assert_eq!(f.read("a.md").as_deref(), Some("a1\n"));
    assert_eq!(f.status(), "");
}

/// A writer killed while writing the index leaves git's `index.lock`: recovery removes it (it is
/// not older than the journal) and brings the index in line with the commit.
#[test]
fn roll_forward_removes_the_index_lock_of_a_killed_writer() {
    let f = Fixture::repo_with(&[("a.md", "a1\n")]);
    let store = f.store();
    store
        .commit_simulating_crash_after_ref_update(&req(&[w("a.md", "a2\n")], "crashy"))
        .expect("commit");
    f.write("a.md", "a2\n"); // the file was renamed into place before the kill
    let git_dir = f.path(".git");
    std::fs::write(git_dir.join("index.lock"), "partial index").expect("lock");
    drop(store);
    let store = f.store();
    assert!(
        !git_dir.join("index.lock").exists(),
        "stale index.lock removed"
    );
    assert!(!f.path(".openclaw-wiki/locks/pending.json").exists());
    assert_eq!(f.status(), "");
    store
        .commit(&req(&[w("b.md", "b\n")], "next"))
        .expect("next commit");
    assert_eq!(f.status(), "");
    f.fsck();
}

/// A writer killed during its ref update (journal written, ref not moved) leaves
/// `refs/heads/main.lock`: the next commit removes it and succeeds. A lock file older than the
/// journal is not the dead writer's and is left alone.
#[test]
fn a_ref_lock_left_by_a_killed_writer_does_not_block_the_next_commit() {
    let f = Fixture::repo_with(&[("a.md", "a1\n")]);
    let git_dir = f.path(".git");
    let lock = git_dir.join("refs/heads/main.lock");
    // Older than the journal: somebody else's, kept (and the commit fails on it, as git would).
    std::fs::write(&lock, "other\n").expect("lock");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .and_then(|f| f.set_modified(old))
        .expect("age the lock");
    let journal = format!(
        r#"{{"version":1,"reference":"refs/heads/main","parent":"{}","commit":"{}","paths":["a.md"]}}"#,
        f.rev("HEAD"),
        "1234567890123456789012345678901234567890"
    );
    std::fs::create_dir_all(f.path(".openclaw-wiki/locks")).expect("mkdir");
    std::fs::write(f.path(".openclaw-wiki/locks/pending.json"), &journal).expect("journal");
    let store = f.store();
    assert!(lock.exists(), "a lock older than the journal is kept");
    assert!(store.commit(&req(&[w("b.md", "b\n")], "blocked")).is_err());
    assert_eq!(f.count("HEAD"), 1);

    // Now as a killed writer leaves it: journal first, then the ref lock.
    std::fs::write(f.path(".openclaw-wiki/locks/pending.json"), &journal).expect("journal");
    std::fs::write(&lock, "").expect("lock");
    let store = f.store();
    assert!(!lock.exists(), "the dead writer's ref lock is removed");
    store
        .commit(&req(&[w("b.md", "b\n")], "go"))
        .expect("commit after recovery");
    assert_eq!(f.count("HEAD"), 2);
    assert_eq!(f.status(), "");
    f.fsck();
}

#[test]
fn malformed_journal_blocks_commits_but_not_reads() {
    let f = Fixture::repo_with(&[("a.md", "a1\n")]);
    std::fs::create_dir_all(f.path(".openclaw-wiki/locks")).expect("mkdir");
    std::fs::write(f.path(".openclaw-wiki/locks/pending.json"), "{ not json").expect("w");
    let store = f.store();
    assert_eq!(
        store.read_file("HEAD", "a.md").expect("read"),
        Some(b"a1\n".to_vec())
    );
    let changes = [w("b.md", "b\n")];
    match store.commit(&req(&changes, "blocked")) {
        Err(wiki_store::Error::Journal { path, .. }) => assert!(path.ends_with("pending.json")),
        other => panic!("expected journal error, got {other:?}"),
    }
    assert_eq!(f.count("HEAD"), 1);
}

#[test]
fn roll_forward_removes_temp_files_of_a_killed_writer() {
    let f = Fixture::repo_with(&[("notes/a.md", "a1\n"), ("b.md", "b1\n")]);
    let store = f.store();
    let changes = [w("notes/a.md", "a2\n"), w("b.md", "b2\n")];
    store
        .commit_simulating_crash_after_ref_update(&req(&changes, "crashy"))
        .expect("commit");
    // What a SIGKILL between creating and renaming a temporary file leaves behind.
    f.write("notes/.wiki-store-Ab12Cd.tmp", "a2\n");
    f.write(".wiki-store-Zz99Yy.tmp", "b");
    f.write("notes/.wiki-store-keep.txt", "not ours\n");
    drop(store);
    let _store = f.store();
    assert!(!f.path("notes/.wiki-store-Ab12Cd.tmp").exists());
    assert!(!f.path(".wiki-store-Zz99Yy.tmp").exists());
    assert!(f.path("notes/.wiki-store-keep.txt").exists());
    assert_eq!(f.read("notes/a.md").as_deref(), Some("a2\n"));
    assert_eq!(f.status(), "?? notes/.wiki-store-keep.txt\n");
}

/// Defensive roll-forward rule: a journaled file holding a prefix (possibly empty) of the new
/// content (a torn write by anything that bypassed the atomic rename) is completed; a real hand
/// edit made after the crash is left alone.
#[test]
fn torn_write_is_completed_but_hand_edit_is_kept() {
    let f = Fixture::repo_with(&[
        ("a.md", "a1\n"),
        ("b.md", "b1\n"),
        ("c.md", "c1\n"),
        ("d.md", "d1\n"),
    ]);
    let store = f.store();
    let changes = [
        w("a.md", "a2 is a longer version\n"),
        w("b.md", "b2 new\n"),
        w("c.md", "c2 new\n"),
        w("d.md", "d2 new\n"),
    ];
    store
        .commit_simulating_crash_after_ref_update(&req(&changes, "crashy"))
        .expect("commit");
    // Torn writes: a strict prefix of the new content, and an empty (just truncated) file.
    f.write("a.md", "a2 is a lon");
    f.write("b.md", "");
    // Hand edits after the crash: not a prefix of the committed version.
    f.write("c.md", "human c\n");
    // d.md holds the committed version already.
    f.write("d.md", "d2 new\n");

    let store2 = f.store();
    assert!(!f.path(".openclaw-wiki/locks/pending.json").exists());
    assert_eq!(f.read("a.md").as_deref(), Some("a2 is a longer version\n"));
    assert_eq!(f.read("b.md").as_deref(), Some("b2 new\n"));
    assert_eq!(f.read("c.md").as_deref(), Some("human c\n"));
    assert_eq!(f.read("d.md").as_deref(), Some("d2 new\n"));
    assert_eq!(f.status(), " M c.md\n");
    drop(store);

    // Same through the next commit (no re-open).
    let changes = [w("a.md", "a3 much longer than before\n")];
    store2
        .commit_simulating_crash_after_ref_update(&req(&changes, "crashy 2"))
        .expect("commit");
    f.write("a.md", "a3 much");
    let out = store2
        .commit(&req(&[w("z.md", "z\n")], "next"))
        .expect("next");
    assert!(
        out.human_commit.is_none(),
        "a torn write is not a human edit"
    );
    assert_eq!(
        f.read("a.md").as_deref(),
        Some("a3 much longer than before\n")
    );
    assert_eq!(f.status(), " M c.md\n");
    f.fsck();
}
