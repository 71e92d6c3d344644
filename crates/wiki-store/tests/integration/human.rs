use crate::common::*;

#[test]
fn hand_edits_are_committed_first() {
    let f = Fixture::repo_with(&[
        ("page.md", "original\n"),
        ("other.md", "other\n"),
        ("staged.md", "s1\n"),
        ("handdel.md", "will be deleted by hand\n"),
    ]);
    let base = f.rev("HEAD");
    // Hand edits: one in the change set, one not; a staged change elsewhere; an untracked new
    // file in the change set; a file deleted by hand in the change set.
    f.write("page.md", "edited by a human\n");
    f.write("other.md", "other edited by hand\n");
    f.write("staged.md", "s2 staged\n");
    f.git(&["add", "staged.md"]);
    f.write("fresh.md", "created by hand\n");
    std::fs::remove_file(f.path("handdel.md")).expect("rm");

    let store = f.store();
    let changes = [
        w("page.md", "tool content\n"),
        w("fresh.md", "tool fresh\n"),
        w("handdel.md", "tool restores\n"),
    ];
    let out = store
        .commit(&req(&changes, "Compile page").trailer("Wiki-Op", "second-op"))
        .expect("commit");
    let human = out.human_commit.expect("human commit");
    let tool = out.commit.expect("tool commit");
    assert_eq!(f.rev("HEAD"), tool.to_string());
    assert_eq!(f.rev("HEAD^"), human.to_string());
    assert_eq!(f.rev("HEAD^^"), base);

    // The human commit holds exactly the hand-made state of those paths.
    assert_eq!(
        f.git(&["log", "-1", "--format=%B", &human.to_string()]),
        "Record human edits before test\n\n\
         Wiki-Human-Edit: page.md\nWiki-Human-Edit: fresh.md\nWiki-Human-Edit: handdel.md\n\n"
    );
    assert_eq!(
        f.git(&["diff", "--name-status", &base, &human.to_string()]),
        "A\tfresh.md\nD\thanddel.md\nM\tpage.md\n"
    );
    assert_eq!(f.show(&format!("{human}:page.md")), "edited by a human\n");
    assert_eq!(f.show(&format!("{human}:fresh.md")), "created by hand\n");
    assert_eq!(
        f.git(&["log", "-1", "--format=%an", &human.to_string()])
            .trim(),
        "Local User"
    );

    // The tool commit has the tool's content, and the work tree matches HEAD for those paths.
    assert_eq!(f.show("HEAD:page.md"), "tool content\n");
    assert_eq!(f.read("page.md").as_deref(), Some("tool content\n"));
    assert_eq!(f.read("handdel.md").as_deref(), Some("tool restores\n"));
    assert_eq!(f.read("fresh.md").as_deref(), Some("tool fresh\n"));

    // Untouched: the hand edit outside the change set stays modified and uncommitted, the staged
    // change stays staged.
    let status = f.status();
    let mut lines: Vec<&str> = status.lines().collect();
    lines.sort();
    assert_eq!(lines, vec![" M other.md", "M  staged.md"]);
    assert_eq!(
        f.read("other.md").as_deref(),
        Some("other edited by hand\n")
    );
    assert_eq!(f.git(&["diff", "--cached", "--name-only"]), "staged.md\n");
    assert_eq!(f.show(":staged.md"), "s2 staged\n");
    assert_eq!(f.show("HEAD:other.md"), "other\n");
    f.fsck();
}

#[test]
fn no_human_commit_when_work_tree_is_clean() {
    let f = Fixture::repo_with(&[("page.md", "x\n")]);
    let store = f.store();
    let changes = [w("page.md", "y\n")];
    let out = store.commit(&req(&changes, "edit")).expect("commit");
    assert!(out.human_commit.is_none());
    assert_eq!(f.count("HEAD"), 2);
}

#[test]
fn hand_edit_then_tool_writes_the_committed_content() {
    // The tool writes what the tip already has while a human changed the file: the human edit is
    // recorded, then the tool's (old) content is committed on top.
    let f = Fixture::repo_with(&[("page.md", "x\n")]);
    f.write("page.md", "human\n");
    let store = f.store();
    let changes = [w("page.md", "x\n")];
    let out = store.commit(&req(&changes, "rewrite")).expect("commit");
    assert!(out.human_commit.is_some());
    assert!(out.commit.is_some());
    assert_eq!(f.read("page.md").as_deref(), Some("x\n"));
    assert_eq!(f.status(), "");
    assert_eq!(
        store
            .history("HEAD", "page.md")
            .expect("h")
            .iter()
            .map(|c| c.subject.clone())
            .collect::<Vec<_>>(),
        vec!["rewrite", "Record human edits before test", "initial"]
    );
}

#[test]
fn a_same_size_hand_edit_after_a_tool_commit_is_recorded() {
    // The tool's commit leaves index entries that vouch for its files (their stat data): a hand
    // edit keeping the size and putting the modification time back still changes the change
    // time, so it is read and recorded, not overwritten.
    let f = Fixture::repo_with(&[("page.md", "aaaa\n"), ("big.md", "x\n")]);
    let store = f.store();
    let big = "row\n".repeat(300_000);
    let changes = [w("page.md", "bbbb\n"), w("big.md", &big)];
    let first = store.commit(&req(&changes, "tool")).expect("commit");
    assert!(first.human_commit.is_none());
    let mtime = std::fs::metadata(f.path("page.md"))
        .and_then(|m| m.modified())
        .expect("mtime");
    f.write("page.md", "cccc\n");
    std::fs::File::options()
        .write(true)
        .open(f.path("page.md"))
        .and_then(|file| file.set_times(std::fs::FileTimes::new().set_modified(mtime)))
        .expect("set mtime");
    let changes = [w("page.md", "dddd\n"), w("big.md", &format!("{big}more\n"))];
    let out = store.commit(&req(&changes, "tool again")).expect("commit");
    let human = out.human_commit.expect("the hand edit is recorded");
    assert_eq!(
        f.git(&[
            "diff",
            "--name-only",
            &first.commit.expect("c").to_string(),
            &human.to_string()
        ]),
        "page.md\n"
    );
    assert_eq!(f.show(&format!("{human}:page.md")), "cccc\n");
    assert_eq!(f.show("HEAD:page.md"), "dddd\n");
    assert_eq!(f.status(), "");
    f.fsck();
}
