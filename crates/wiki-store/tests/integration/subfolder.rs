use crate::common::*;

#[test]
fn vault_in_a_sub_folder() {
    let f = Fixture::repo_with(&[
        ("README.md", "repo readme\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("notes/wiki/index.md", "# wiki\n"),
        ("notes/other.md", "outside the vault\n"),
    ]);
    // Uncommitted work outside the vault must stay as it is.
    f.write("src/main.rs", "fn main() { /* wip */ }\n");
    let store = f.store_at("notes/wiki");
    assert_eq!(store.prefix(), "notes/wiki/");
    assert_eq!(store.vault_dir(), f.path("notes/wiki"));
    assert_eq!(store.work_dir(), f.root);

    let changes = [w("index.md", "# wiki v2\n"), w("entities/a.md", "A\n")];
    let out = store.commit(&req(&changes, "vault write")).expect("commit");
    assert_eq!(out.written, vec!["entities/a.md", "index.md"]);
    assert_eq!(f.read("notes/wiki/entities/a.md").as_deref(), Some("A\n"));
    assert_eq!(
        f.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        "README.md\nnotes/other.md\nnotes/wiki/entities/a.md\nnotes/wiki/index.md\nsrc/main.rs\n"
    );
    assert_eq!(f.show("HEAD:README.md"), "repo readme\n");
    assert_eq!(f.show("HEAD:src/main.rs"), "fn main() {}\n");
    assert_eq!(f.status(), " M src/main.rs\n");
    f.fsck();

    // Reads are vault-relative.
    let files: Vec<String> = store
        .list_files("HEAD", "")
        .expect("list")
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(files, vec!["entities/a.md", "index.md"]);
    assert_eq!(
        store.read_file("HEAD", "index.md").expect("r"),
        Some(b"# wiki v2\n".to_vec())
    );
    let info = store.commit_info(out.commit.expect("id")).expect("info");
    assert_eq!(info.changed_paths, vec!["entities/a.md", "index.md"]);
    assert_eq!(store.history("HEAD", "index.md").expect("h").len(), 2);
    let revert = store
        .revert_changes(out.commit.expect("id"))
        .expect("revert");
    assert_eq!(revert.len(), 2);

    // A commit outside the vault (by git) does not show up in vault changed paths.
    f.git(&["commit", "-qam", "code"]);
    let code = store.resolve("HEAD").expect("r");
    assert!(
        store
            .commit_info(code)
            .expect("info")
            .changed_paths
            .is_empty()
    );
    assert_eq!(
        store.dirty_paths(&["index.md".to_string()]).expect("dirty"),
        Vec::<String>::new()
    );
}
