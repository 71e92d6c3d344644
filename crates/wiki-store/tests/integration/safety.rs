use wiki_store::Error;

use crate::common::*;

#[test]
fn refuses_bad_paths_before_committing() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let store = f.store();
    for bad in [
        "../escape.md",
        "/abs.md",
        "a/../../x.md",
        ".git/hooks/pre-commit",
        "a//b.md",
        "x\\y.md",
    ] {
        let changes = [w(bad, "x")];
        let err = store.commit(&req(&changes, "bad")).expect_err(bad);
        assert!(matches!(err, Error::InvalidPath { .. }), "{bad}: {err}");
        assert!(
            err.to_string().contains(&format!("{bad:?}")),
            "error names the path: {err}"
        );
    }
    assert_eq!(f.count("HEAD"), 1);
    assert!(!f.root.parent().expect("parent").join("escape.md").exists());
}

#[cfg(unix)]
#[test]
fn refuses_to_write_through_symlinks() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let outside = Fixture::empty();
    std::fs::write(outside.path("target.md"), "outside\n").expect("w");
    std::os::unix::fs::symlink(outside.path("target.md"), f.path("link.md")).expect("symlink");
    std::os::unix::fs::symlink(&outside.root, f.path("linkdir")).expect("symlink dir");
    let store = f.store();
    let before = f.rev("HEAD");

    for path in ["link.md", "linkdir/new.md"] {
        let changes = [w(path, "evil\n")];
        let err = store
            .commit(&req(&changes, "through link"))
            .expect_err(path);
        assert!(matches!(err, Error::UnsafePath { .. }), "{path}: {err}");
        assert!(err.to_string().contains(path), "{err}");
    }
    assert_eq!(
        std::fs::read_to_string(outside.path("target.md")).expect("r"),
        "outside\n"
    );
    assert!(!outside.path("new.md").exists());
    assert_eq!(f.rev("HEAD"), before, "nothing committed");

    // A directory where a file should go.
    std::fs::create_dir(f.path("adir")).expect("mkdir");
    std::fs::write(f.path("adir/x.md"), "x").expect("w");
    let changes = [w("adir", "file?\n")];
    assert!(matches!(
        store.commit(&req(&changes, "dir")),
        Err(Error::UnsafePath { .. })
    ));
    // A file of the tip used as a directory.
    let changes = [w("a.md/b.md", "x")];
    assert!(matches!(
        store.commit(&req(&changes, "file as dir")),
        Err(Error::UnsafePath { .. })
    ));
    assert_eq!(f.rev("HEAD"), before);
}
