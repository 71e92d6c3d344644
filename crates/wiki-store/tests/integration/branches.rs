//! `list_branches`, `create_branch` and `delete_branch` (per-agent branches).

use crate::common::*;

#[test]
fn create_and_list_branches_without_checkout() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    f.write("a.md", "hand edit\n");
    let main = f.rev("main");
    let status = f.status();
    let store = f.store();
    assert!(store.list_branches("agents/").expect("list").is_empty());

    let id = store.create_branch("agents/x", "main").expect("create");
    assert_eq!(id.to_string(), main);
    store.create_branch("agents/b", "HEAD").expect("create b");
    store.create_branch("other", "HEAD").expect("create other");
    let listed = store.list_branches("agents/").expect("list");
    let names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["agents/b", "agents/x"]);
    assert!(listed.iter().all(|(_, tip)| *tip == main));
    assert_eq!(store.list_branches("").expect("all").len(), 4);

    // Creating an existing branch never moves it.
    let err = store.create_branch("agents/x", "HEAD").expect_err("exists");
    assert!(err.is_conflict(), "{err}");
    assert!(store.create_branch("bad..name", "HEAD").is_err());
    assert!(store.create_branch("agents/y", "no-such-rev").is_err());

    // Work tree, index and HEAD untouched; git agrees.
    assert_eq!(f.status(), status);
    assert_eq!(f.git(&["branch", "--show-current"]).trim(), "main");
    assert_eq!(f.rev("agents/x"), main);
    f.fsck();
}

#[test]
fn delete_branch_is_compare_and_swap() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let store = f.store();
    let main = store.branch_tip("main").expect("tip").expect("main");
    store.create_branch("agents/x", "main").expect("create");
    // A stale expected tip: refused, the branch stays.
    let stale = gix::ObjectId::from_hex(b"1111111111111111111111111111111111111111").unwrap();
    let err = store.delete_branch("agents/x", stale).expect_err("moved");
    assert!(err.is_conflict(), "{err}");
    assert_eq!(f.rev("agents/x"), main.to_string());
    store.delete_branch("agents/x", main).expect("delete");
    assert_eq!(store.branch_tip("agents/x").expect("tip"), None);
    // Gone: a conflict too (the branch is not where the caller thought).
    assert!(
        store
            .delete_branch("agents/x", main)
            .expect_err("gone")
            .is_conflict()
    );
    assert!(store.delete_branch("bad..name", main).is_err());
    assert_eq!(f.git(&["branch", "--list", "agents/*"]), "");
    f.fsck();
}
