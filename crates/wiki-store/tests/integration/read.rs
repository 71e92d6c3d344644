use wiki_store::{Store, Target};

use crate::common::*;

/// main: c1 (a=1, b=1) -> c2 (a=2) -> c3 (b=2, only b) -> c4 (a=3) -> c5 (delete a)
/// branch "other" from c2 with a=other.
fn history_fixture() -> (Fixture, Vec<String>) {
    let f = Fixture::repo();
    let mut ids: Vec<String> = Vec::new();
    let commit = |f: &Fixture, ids: &mut Vec<String>, files: &[(&str, Option<&str>)], msg: &str| {
        for (p, c) in files {
            match c {
                Some(c) => f.write(p, c),
                None => {
                    std::fs::remove_file(f.path(p)).expect("rm");
                }
            }
        }
        f.git(&["add", "-A"]);
        f.git(&["commit", "-q", "-m", msg]);
        ids.push(f.rev("HEAD"));
    };
    commit(
        &f,
        &mut ids,
        &[("notes/a.md", Some("1\n")), ("b.md", Some("1\n"))],
        "c1",
    );
    commit(&f, &mut ids, &[("notes/a.md", Some("2\n"))], "c2");
    commit(&f, &mut ids, &[("b.md", Some("2\n"))], "c3");
    commit(&f, &mut ids, &[("notes/a.md", Some("3\n"))], "c4");
    commit(&f, &mut ids, &[("notes/a.md", None)], "c5");
    let second = ids[1].clone();
    f.git(&["branch", "other", &second]);
    f.git(&["checkout", "-q", "other"]);
    commit(&f, &mut ids, &[("notes/a.md", Some("other\n"))], "o1");
    f.git(&["checkout", "-q", "main"]);
    (f, ids)
}

#[test]
fn read_file_at_refs_commits_and_branches() {
    let (f, ids) = history_fixture();
    let store = f.store();
    let read = |rev: &str, p: &str| {
        store
            .read_file(rev, p)
            .expect("read")
            .map(|b| String::from_utf8(b).expect("utf8"))
    };
    assert_eq!(read("HEAD", "notes/a.md"), None, "deleted at the tip");
    assert_eq!(read("HEAD", "b.md").as_deref(), Some("2\n"));
    assert_eq!(read(&ids[0], "notes/a.md").as_deref(), Some("1\n"));
    assert_eq!(read(&ids[3][..8], "notes/a.md").as_deref(), Some("3\n"));
    assert_eq!(read("HEAD~1", "notes/a.md").as_deref(), Some("3\n"));
    assert_eq!(read("main~3", "notes/a.md").as_deref(), Some("2\n"));
    assert_eq!(read("other", "notes/a.md").as_deref(), Some("other\n"));
    assert_eq!(read("refs/heads/other", "b.md").as_deref(), Some("1\n"));
    assert_eq!(read("HEAD", "notes"), None, "a directory is not a file");
    assert!(store.read_file("no-such-branch", "b.md").is_err());
    assert!(store.read_file("HEAD", "../x").is_err());
    // Work tree untouched, still on main.
    assert_eq!(f.status(), "");
    assert_eq!(store.current_branch().expect("b").as_deref(), Some("main"));
    assert_eq!(store.resolve("HEAD").expect("r").to_string(), ids[4]);
    assert_eq!(store.resolve("HEAD^").expect("r").to_string(), ids[3]);
    assert_eq!(store.resolve(&ids[2][..7]).expect("r").to_string(), ids[2]);
    for bad in [
        "HEAD~1é",
        "HEAD^{tree}",
        "~1",
        "HEAD~99",
        "main@{1}",
        "",
        "zzzz",
    ] {
        assert!(store.resolve(bad).is_err(), "{bad}");
    }
    assert_eq!(store.resolve("HEAD^0").expect("r").to_string(), ids[4]);
    assert_eq!(store.resolve("HEAD~2^").expect("r").to_string(), ids[1]);
    assert_eq!(
        store
            .branch_tip("other")
            .expect("tip")
            .map(|i| i.to_string()),
        Some(f.rev("other"))
    );
    assert_eq!(store.branch_tip("nope").expect("tip"), None);
}

#[test]
fn list_files_recursive_sorted() {
    let f = Fixture::repo_with(&[
        ("z.md", "z"),
        ("a/b/c.md", "c"),
        ("a/a.md", "a"),
        ("a.md", "top"),
        ("entities/x.md", "x"),
    ]);
    let store = f.store();
    let all: Vec<String> = store
        .list_files("HEAD", "")
        .expect("list")
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        all,
        vec!["a.md", "a/a.md", "a/b/c.md", "entities/x.md", "z.md"]
    );
    let sub = store.list_files("HEAD", "a/").expect("list");
    assert_eq!(
        sub.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        vec!["a/a.md", "a/b/c.md"]
    );
    assert_eq!(sub[0].1, Store::blob_id_for(b"a"));
    assert_eq!(sub[0].1.to_string(), f.rev("HEAD:a/a.md"));
    assert!(
        store
            .list_files("HEAD", "missing")
            .expect("list")
            .is_empty()
    );
}

#[test]
fn history_of_a_path() {
    let (f, ids) = history_fixture();
    let store = f.store();
    let hist = store.history("HEAD", "notes/a.md").expect("history");
    let got: Vec<String> = hist.iter().map(|c| c.id.to_string()).collect();
    // c5 (delete), c4, c2, c1 (add); c3 did not touch it.
    assert_eq!(
        got,
        vec![
            ids[4].clone(),
            ids[3].clone(),
            ids[1].clone(),
            ids[0].clone()
        ]
    );
    assert_eq!(hist[0].subject, "c5");
    assert_eq!(hist[0].changed_paths, vec!["notes/a.md"]);
    assert_eq!(hist[3].changed_paths, vec!["b.md", "notes/a.md"]);
    assert_eq!(hist[1].author.name, "Git User");
    assert_eq!(hist[1].parents.len(), 1);
    let other = store.history("other", "notes/a.md").expect("history");
    assert_eq!(other.len(), 3);
    assert_eq!(other[0].subject, "o1");
    assert!(store.history("HEAD", "nope.md").expect("h").is_empty());
}

#[test]
fn history_of_several_paths_in_one_walk() {
    let (f, ids) = history_fixture();
    let store = f.store();
    let walks = store
        .history_of_paths("HEAD", &["notes/a.md", "b.md", "nope.md"])
        .expect("history");
    let got: Vec<Vec<(usize, String)>> = walks
        .iter()
        .map(|hits| {
            hits.iter()
                .map(|(at, c)| (*at, c.subject.clone()))
                .collect()
        })
        .collect();
    // Positions along the walk from HEAD (c5 = 0 ... c1 = 4).
    assert_eq!(
        got,
        vec![
            vec![
                (0, "c5".to_string()),
                (1, "c4".to_string()),
                (3, "c2".to_string()),
                (4, "c1".to_string())
            ],
            vec![(2, "c3".to_string()), (4, "c1".to_string())],
            vec![],
        ]
    );
    // c1 changed both files: the same metadata for both.
    assert_eq!(walks[0][3].1, walks[1][1].1);
    assert_eq!(walks[1][1].1.id.to_string(), ids[0]);
    // Each path's history is the single-path one.
    for (path, hits) in ["notes/a.md", "b.md"].iter().zip(&walks) {
        let one = store.history("HEAD", path).expect("history");
        assert_eq!(one, hits.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>());
    }
    assert!(store.history_of_paths("HEAD", &["../x.md"]).is_err());
}

#[test]
fn revert_changes_restores_the_parent() {
    let f = Fixture::repo_with(&[("a.md", "a1\n"), ("b.md", "b1\n")]);
    let store = f.store();
    let changes = [w("a.md", "a2\n"), w("c.md", "new\n"), del("b.md")];
    let middle = store
        .commit(&req(&changes, "middle"))
        .expect("c")
        .commit
        .expect("id");
    let parent = f.rev("HEAD^");
    let later = [w("d.md", "d\n")];
    store.commit(&req(&later, "later")).expect("later");

    let revert = store.revert_changes(middle).expect("revert");
    let mut by_path: Vec<(String, Option<String>)> = revert
        .iter()
        .map(|c| {
            (
                c.path.clone(),
                c.content
                    .clone()
                    .map(|b| String::from_utf8(b).expect("utf8")),
            )
        })
        .collect();
    by_path.sort();
    assert_eq!(
        by_path,
        vec![
            ("a.md".to_string(), Some("a1\n".to_string())),
            ("b.md".to_string(), Some("b1\n".to_string())),
            ("c.md".to_string(), None),
        ]
    );
    let out = store
        .commit(&req(&revert, "Revert middle").trailer("Wiki-Reverts", middle.to_string()))
        .expect("revert commit");
    assert!(out.commit.is_some());
    for p in ["a.md", "b.md"] {
        assert_eq!(
            f.rev(&format!("HEAD:{p}")),
            f.rev(&format!("{parent}:{p}")),
            "{p} equals the parent's"
        );
    }
    assert!(store.read_file("HEAD", "c.md").expect("r").is_none());
    assert_eq!(f.read("d.md").as_deref(), Some("d\n"), "later commit kept");
    assert_eq!(f.status(), "");
    let info = store.commit_info(out.commit.expect("id")).expect("info");
    assert_eq!(info.changed_paths, vec!["a.md", "b.md", "c.md"]);
    assert_eq!(
        info.trailers,
        vec![
            ("Wiki-Op".to_string(), "test".to_string()),
            ("Wiki-Reverts".to_string(), middle.to_string())
        ]
    );
}

#[test]
fn dirty_paths_reports_uncommitted_changes() {
    let f = Fixture::repo_with(&[
        ("clean.md", "c"),
        ("mod.md", "m"),
        ("staged.md", "s"),
        ("del.md", "d"),
    ]);
    f.write("mod.md", "changed");
    f.write("staged.md", "staged change");
    f.git(&["add", "staged.md"]);
    std::fs::remove_file(f.path("del.md")).expect("rm");
    f.write("untracked.md", "u");
    let store = f.store();
    let ask: Vec<String> = [
        "clean.md",
        "mod.md",
        "staged.md",
        "del.md",
        "untracked.md",
        "absent.md",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        store.dirty_paths(&ask).expect("dirty"),
        vec!["mod.md", "staged.md", "del.md", "untracked.md"]
    );
}

#[test]
fn history_scales_to_many_commits() {
    // 10k commits via fast-import: 'hot.md' changes every 100th commit, 'cold.md' every commit.
    let f = Fixture::repo();
    let n = 10_000;
    let script = fast_import_script(n);
    let mut child = isolated_git(&f.root)
        .args(["fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().expect("stdin");
        stdin.write_all(script.as_bytes()).expect("write");
    }
    assert!(child.wait().expect("wait").success());
    let store = f.store();
    let start = std::time::Instant::now();
    let hist = store.history("main", "hot.md").expect("history");
    let took = start.elapsed();
    assert_eq!(hist.len(), 100);
    assert_eq!(hist[0].subject, format!("c{}", n - 100));
    assert_eq!(hist[99].subject, "c0");
    eprintln!("history over {n} commits took {took:?}");
    assert!(took.as_secs() < 60, "history too slow: {took:?}");
}

fn fast_import_script(n: i64) -> String {
    let mut s = String::new();
    for i in 0..n {
        let msg = format!("c{i}");
        s.push_str("commit refs/heads/main\n");
        s.push_str(&format!("mark :{}\n", i + 1));
        s.push_str(&format!("committer T <t@x> {} +0000\n", 1_700_000_000 + i));
        s.push_str(&format!("data {}\n{}\n", msg.len(), msg));
        if i > 0 {
            s.push_str(&format!("from :{i}\n"));
        }
        let cold = format!("{i}\n");
        s.push_str(&format!(
            "M 100644 inline dir/cold.md\ndata {}\n{}",
            cold.len(),
            cold
        ));
        if i % 100 == 0 {
            let hot = format!("hot {i}\n");
            s.push_str(&format!(
                "M 100644 inline hot.md\ndata {}\n{}",
                hot.len(),
                hot
            ));
        }
        s.push('\n');
    }
    s
}

#[test]
fn target_head_equals_branch_name_of_checked_out_branch() {
    let f = Fixture::repo_with(&[("a.md", "a")]);
    let store = f.store();
    let changes = [w("b.md", "b")];
    let mut r = req(&changes, "via branch name");
    r.target = Target::Branch("main".into());
    store.commit(&r).expect("commit");
    assert_eq!(
        f.status(),
        "",
        "checked-out branch via name updates work tree"
    );
    assert_eq!(f.read("b.md").as_deref(), Some("b"));
}
