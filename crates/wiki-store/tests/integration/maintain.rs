//! Packing loose objects: `Store::pack_loose_objects` and the automatic packing after commits.

use crate::common::*;
use wiki_store::Store;

/// A dashboard-like file of `rows` lines where row `changed` carries `version`.
fn dashboard(rows: usize, changed: usize, version: usize) -> String {
    (0..rows)
        .map(|i| {
            let v = if i == changed { version } else { 0 };
            format!("- [Page {i}](../entities/page-{i}.md): {v} open questions, fresh\n")
        })
        .collect()
}

fn loose_count(f: &Fixture) -> usize {
    let out = f.git(&["count-objects", "-v"]);
    out.lines()
        .find_map(|l| l.strip_prefix("count: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("count line")
}

fn pack_stats(f: &Fixture) -> (usize, usize) {
    // (objects stored whole, objects stored as deltas) over every pack.
    let mut whole = 0;
    let mut deltas = 0;
    for entry in std::fs::read_dir(f.path(".git/objects/pack"))
        .expect("pack dir")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".idx") {
            continue;
        }
        let out = f.git(&["verify-pack", "-v", &format!(".git/objects/pack/{name}")]);
        for line in out.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() >= 5 && fields[0].len() == 40 {
                if fields.len() == 7 {
                    deltas += 1;
                } else {
                    whole += 1;
                }
            }
        }
    }
    (whole, deltas)
}

#[test]
fn loose_objects_become_one_pack_with_deltas() {
    let f = Fixture::repo_with(&[("seed.md", "s\n")]);
    let store =
        Store::open_with(&f.root, fixed_env(&[("WIKI_AUTO_PACK", "never")])).expect("open store");
    let rows = 3000;
    for version in 1..=12 {
        let changes = [
            w(
                "reports/claim-health.md",
                &dashboard(rows, version * 97, version),
            ),
            w(
                &format!("entities/page-{version}.md"),
                &format!("# Page {version}\n"),
            ),
        ];
        store
            .commit(&req(&changes, &format!("op {version}")))
            .expect("commit");
    }
    let loose_before = loose_count(&f);
    // 12 commits x (commit, root tree, 2 subtrees, 2 blobs) + the git-made first commit's 3.
    assert_eq!(loose_before, 12 * 6 + 3);
    let expected: Vec<String> = (1..=12)
        .map(|v| f.show(&format!("HEAD~{}:reports/claim-health.md", 12 - v)))
        .collect();

    let done = store.pack_loose_objects().expect("pack");
    assert_eq!(done.objects, loose_before);
    // Deltas against their newer versions: the eleven older dashboards and the five older
    // `entities` trees of at least 256 bytes (7 to 11 entries of 37-38 bytes); smaller trees,
    // the pages and the commits are stored whole.
    assert_eq!(done.deltas, 16, "{done:?}");
    assert!(
        done.pack_bytes * 8 < done.loose_bytes,
        "pack {} bytes vs loose {} bytes",
        done.pack_bytes,
        done.loose_bytes
    );
    assert_eq!(loose_count(&f), 0);
    assert_eq!(pack_stats(&f), (loose_before - 16, 16));
    f.fsck();
    f.git(&[
        "verify-pack",
        &done
            .pack
            .as_ref()
            .expect("pack path")
            .with_extension("idx")
            .to_string_lossy(),
    ]);
    // Every version reads back, through git and through the store.
    for (i, content) in expected.iter().enumerate() {
        assert_eq!(content, &dashboard(rows, (i + 1) * 97, i + 1));
        let rev = f.rev(&format!("HEAD~{}", 11 - i));
        assert_eq!(
            store
                .read_file(&rev, "reports/claim-health.md")
                .expect("read"),
            Some(content.clone().into_bytes())
        );
    }
    assert_eq!(f.status(), "");

    // Nothing loose: a second run packs nothing.
    let again = store.pack_loose_objects().expect("pack again");
    assert_eq!(again, wiki_store::PackOutcome::default());

    // Later commits pack on top; git's own gc still works on the result.
    for version in 13..=15 {
        let changes = [w(
            "reports/claim-health.md",
            &dashboard(rows, version, version),
        )];
        store
            .commit(&req(&changes, &format!("op {version}")))
            .expect("commit");
    }
    let done = store.pack_loose_objects().expect("pack");
    // 3 x (commit, root tree, `reports` tree, dashboard); the two older dashboards as deltas.
    assert_eq!((done.objects, done.deltas), (12, 2), "{done:?}");
    f.fsck();
    f.git(&["gc", "-q"]);
    f.fsck();
    assert_eq!(f.show("HEAD~3:reports/claim-health.md"), expected[11]);
}

#[test]
fn unreachable_and_other_branch_objects_are_packed_too() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let store =
        Store::open_with(&f.root, fixed_env(&[("WIKI_AUTO_PACK", "never")])).expect("open store");
    let big = dashboard(500, 1, 1);
    store
        .commit(&wiki_store::CommitRequest::new(
            wiki_store::Target::Branch("agents/x".into()),
            &[w("reports/r.md", &big)],
            "agent commit",
        ))
        .expect("agent commit");
    // A blob nothing refers to (as `git hash-object -w` leaves).
    f.write("stray.txt", "nobody points here\n");
    let stray = f
        .git(&["hash-object", "-w", "stray.txt"])
        .trim()
        .to_string();
    std::fs::remove_file(f.path("stray.txt")).expect("rm");
    let before = loose_count(&f);
    let done = store.pack_loose_objects().expect("pack");
    assert_eq!(done.objects, before);
    assert_eq!(loose_count(&f), 0);
    assert_eq!(f.git(&["cat-file", "-p", &stray]), "nobody points here\n");
    assert_eq!(f.show("agents/x:reports/r.md"), big);
    f.fsck();
}

#[test]
fn commits_pack_by_themselves_unless_told_not_to() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let always =
        Store::open_with(&f.root, fixed_env(&[("WIKI_AUTO_PACK", "always")])).expect("open store");
    let done = always
        .commit(&req(&[w("b.md", "b\n")], "one"))
        .expect("commit");
    let packed = done.packed.expect("packed after the commit");
    assert!(packed.objects >= 4, "{packed:?}");
    assert_eq!(done.pack_error, None);
    assert_eq!(loose_count(&f), 0);
    f.fsck();

    let never =
        Store::open_with(&f.root, fixed_env(&[("WIKI_AUTO_PACK", "never")])).expect("open store");
    let done = never
        .commit(&req(&[w("c.md", "c\n")], "two"))
        .expect("commit");
    assert_eq!(done.packed, None);
    assert!(loose_count(&f) >= 3);

    // Default policy, small repository: nothing to do (far below 64 MiB and gc.auto).
    let default = Store::open_with(&f.root, fixed_env(&[])).expect("open store");
    let done = default
        .commit(&req(&[w("d.md", "d\n")], "three"))
        .expect("commit");
    assert_eq!(done.packed, None);
    // `gc.auto = 0` only turns off the automatic estimate: WIKI_AUTO_PACK=always still packs.
    f.git(&["config", "gc.auto", "0"]);
    let done = always
        .commit(&req(&[w("e.md", "e\n")], "four"))
        .expect("commit");
    assert!(done.packed.is_some());
    assert_eq!(loose_count(&f), 0);
    f.fsck();
}
