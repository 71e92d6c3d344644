use wiki_store::{CommitRequest, Target};

use crate::common::*;

fn on_branch<'a>(
    branch: &str,
    changes: &'a [wiki_store::Change],
    subject: &str,
) -> CommitRequest<'a> {
    CommitRequest::new(Target::Branch(branch.to_string()), changes, subject)
        .trailer("Wiki-Agent", "agent-x")
}

#[test]
fn commit_to_branch_not_checked_out() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    // A hand edit and a staged change on main must stay exactly as they are.
    f.write("a.md", "hand edit\n");
    f.write("s.md", "staged\n");
    f.git(&["add", "s.md"]);
    let main_before = f.rev("main");
    let status_before = f.status();
    let index_before = std::fs::read(f.path(".git/index")).expect("index");

    let store = f.store();
    let changes = [w("a.md", "agent version\n"), w("agents/x/notes.md", "n\n")];
    let out = store
        .commit(&on_branch("agents/x", &changes, "Agent work"))
        .expect("commit");
    let id = out.commit.expect("commit");
    assert!(
        out.human_commit.is_none(),
        "no human-edit check off the checked-out branch"
    );

    // Branch created from HEAD, commit on top.
    assert_eq!(f.rev("agents/x"), id.to_string());
    assert_eq!(f.rev("agents/x^"), main_before);
    assert_eq!(f.show("agents/x:a.md"), "agent version\n");
    // main, work tree and index unchanged.
    assert_eq!(f.rev("main"), main_before);
    assert_eq!(f.status(), status_before);
    assert_eq!(
        std::fs::read(f.path(".git/index")).expect("index"),
        index_before
    );
    assert_eq!(f.read("a.md").as_deref(), Some("hand edit\n"));
    assert!(!f.path("agents").exists());
    assert_eq!(store.current_branch().expect("b").as_deref(), Some("main"));

    // A second commit continues the branch; CAS against the branch tip.
    let more = [w("agents/x/more.md", "m\n")];
    let mut r = on_branch("agents/x", &more, "More");
    r.expected_parent = Some(id);
    let out2 = store.commit(&r).expect("second");
    assert_eq!(f.rev("agents/x^"), id.to_string());
    assert_eq!(out2.written, vec!["agents/x/more.md"]);
    // Reading the branch without checkout.
    assert_eq!(
        store.read_file("agents/x", "agents/x/notes.md").expect("r"),
        Some(b"n\n".to_vec())
    );
    f.fsck();
}

#[test]
fn branch_created_from_a_given_revision() {
    let f = Fixture::repo_with(&[("a.md", "1\n")]);
    let first = f.rev("HEAD");
    f.write("a.md", "2\n");
    f.git(&["commit", "-qam", "second"]);
    let store = f.store();
    let changes = [w("b.md", "b\n")];
    let mut r = on_branch("from-first", &changes, "b");
    r.create_from = Some(first.clone());
    store.commit(&r).expect("commit");
    assert_eq!(f.rev("from-first^"), first);
    assert_eq!(f.show("from-first:a.md"), "1\n");

    // No-op on a new branch still creates the branch at the start point, without a commit.
    let same = [w("a.md", "2\n")];
    let out = store
        .commit(&on_branch("noop", &same, "noop"))
        .expect("noop");
    assert_eq!(out.commit, None);
    assert_eq!(f.rev("noop"), f.rev("main"));

    // A stale expectation does not even create the branch.
    let mut r = on_branch("never", &changes, "x");
    r.expected_parent = Some(store.resolve(&first).expect("r"));
    assert!(store.commit(&r).expect_err("conflict").is_conflict());
    assert_eq!(store.branch_tip("never").expect("tip"), None);

    // Invalid branch names are rejected.
    assert!(matches!(
        store.commit(&on_branch("bad..name", &changes, "x")),
        Err(wiki_store::Error::InvalidBranch { .. })
    ));
}

#[test]
fn branch_on_unborn_repository_starts_a_root_commit() {
    let f = Fixture::repo();
    let store = f.store();
    let changes = [w("a.md", "a\n")];
    store
        .commit(&on_branch("side", &changes, "root"))
        .expect("commit");
    assert_eq!(f.count("side"), 1);
    assert_eq!(store.branch_tip("main").expect("tip"), None);
    assert_eq!(f.status(), "");
}
