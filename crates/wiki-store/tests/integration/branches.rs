//! `list_branches` and `create_branch` (per-agent branches).

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
