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

/// A store on the fixture with `WIKI_AUTO_PACK=<policy>`.
fn packing_store(f: &Fixture, policy: &str) -> Store {
    Store::open_with(&f.root, fixed_env(&[("WIKI_AUTO_PACK", policy)])).expect("open store")
}

/// The pack index files (`pack-*.idx` names), sorted.
fn idx_files(f: &Fixture) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(f.path(".git/objects/pack"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".idx"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
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
    for name in idx_files(f) {
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
    let store = packing_store(&f, "never");
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

    // Nothing loose: a second run packs nothing, and removes what a killed packer left (ours
    // only: git's own temporary files may belong to a running git).
    std::fs::write(f.path(".git/objects/pack/tmp_pack_wiki_Ab12Cd"), "partial").expect("tmp");
    std::fs::write(f.path(".git/objects/pack/tmp_pack_Zz99Yy"), "git's").expect("tmp");
    let again = store.pack_loose_objects().expect("pack again");
    assert_eq!(again, wiki_store::PackOutcome::default());
    assert!(!f.path(".git/objects/pack/tmp_pack_wiki_Ab12Cd").exists());
    assert!(f.path(".git/objects/pack/tmp_pack_Zz99Yy").exists());
    std::fs::remove_file(f.path(".git/objects/pack/tmp_pack_Zz99Yy")).expect("rm");

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
    let store = packing_store(&f, "never");
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
    let always = packing_store(&f, "always");
    let done = always
        .commit(&req(&[w("b.md", "b\n")], "one"))
        .expect("commit");
    let packed = done.packed.expect("packed after the commit");
    assert!(packed.objects >= 4, "{packed:?}");
    assert_eq!(done.pack_error, None);
    assert_eq!(loose_count(&f), 0);
    f.fsck();

    let never = packing_store(&f, "never");
    let done = never
        .commit(&req(&[w("c.md", "c\n")], "two"))
        .expect("commit");
    assert_eq!(done.packed, None);
    assert!(loose_count(&f) >= 3);

    // Default policy, small repository: nothing to do (far below 64 MiB), however many small
    // loose objects git left (its own count-based `gc --auto` is git's business, even with a
    // `gc.auto` of 1).
    for i in 0..300 {
        f.write(&format!("bulk/{i}.md"), &format!("page {i}\n"));
    }
    f.git(&["add", "-A"]);
    f.git(&["-c", "gc.auto=0", "commit", "-q", "-m", "bulk import"]);
    f.git(&["config", "gc.auto", "1"]);
    let loose = loose_count(&f);
    assert!(loose > 300, "{loose}");
    let default = Store::open_with(&f.root, fixed_env(&[])).expect("open store");
    let done = default
        .commit(&req(&[w("d.md", "d\n")], "three"))
        .expect("commit");
    assert_eq!(done.packed, None);
    assert!(loose_count(&f) > loose);
    // `gc.auto = 0` turns off the automatic packing; WIKI_AUTO_PACK=always still packs.
    f.git(&["config", "gc.auto", "0"]);
    let done = always
        .commit(&req(&[w("e.md", "e\n")], "four"))
        .expect("commit");
    assert!(done.packed.is_some());
    assert_eq!(loose_count(&f), 0);
    f.fsck();
}

#[test]
fn a_store_opened_before_packing_still_reads_everything() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let reader = packing_store(&f, "never");
    let writer = packing_store(&f, "always");
    for round in 0..20 {
        // The reader has looked at the current state (indices and loose objects).
        let tip = reader.branch_tip("main").expect("tip").expect("some tip");
        assert!(
            reader
                .read_file(&tip.to_string(), "a.md")
                .expect("read")
                .is_some()
        );
        let content = format!("round {round}\n");
        writer
            .commit(&req(&[w("a.md", &content)], &format!("round {round}")))
            .expect("commit");
        if round % 3 == 2 {
            // Packs the reader has open are merged and removed.
            let done = writer.repack_objects().expect("repack");
            assert!(done.packs_merged >= 2, "{done:?}");
        }
        // Everything the writer made is packed now and no longer loose.
        let tip = reader
            .branch_tip("main")
            .expect("tip after packing")
            .expect("some tip");
        assert_eq!(
            reader
                .read_file(&tip.to_string(), "a.md")
                .expect("read after packing"),
            Some(content.into_bytes()),
            "round {round}"
        );
    }
}

fn pack_count(f: &Fixture) -> usize {
    idx_files(f).len()
}

#[test]
fn packs_are_merged_into_one_except_the_largest_and_kept_ones() {
    let f = Fixture::repo_with(&[("seed.md", "s\n")]);
    let always = packing_store(&f, "always");
    // A large first pack (the vault's first compile makes one), then one pack per commit.
    let bulk: Vec<wiki_store::Change> = (0..100)
        .map(|i| w(&format!("entities/e{i}.md"), &dashboard(200, i, i)))
        .collect();
    always.commit(&req(&bulk, "bulk")).expect("bulk commit");
    let idx_names = || -> Vec<(u64, String)> {
        let mut names: Vec<(u64, String)> = idx_files(&f)
            .into_iter()
            .map(|n| {
                let pack = f.path(&format!(".git/objects/pack/{}", n.replace(".idx", ".pack")));
                (std::fs::metadata(pack).expect("pack").len(), n)
            })
            .collect();
        names.sort();
        names
    };
    // The bulk commit's blobs (a pack of their own) and the rest of it (packed after it).
    let after_bulk = idx_names();
    assert_eq!(after_bulk.len(), 2);
    let kept = after_bulk[0].1.clone();
    for version in 1..=8 {
        let changes = [w("reports/r.md", &dashboard(400, version, version))];
        always
            .commit(&req(&changes, &format!("op {version}")))
            .expect("commit");
    }
    assert_eq!(
        pack_count(&f),
        1 + 1 + 8,
        "bulk pack, its packed loose objects, 8 more"
    );
    // A kept pack is left alone (here: the bulk commit's commit and trees).
    std::fs::write(
        f.path(&format!(
            ".git/objects/pack/{}",
            kept.replace(".idx", ".keep")
        )),
        "",
    )
    .expect("keep file");
    let versions: Vec<String> = (0..8)
        .map(|i| f.show(&format!("HEAD~{i}:reports/r.md")))
        .collect();

    let store = packing_store(&f, "never");
    let done = store.repack_objects().expect("repack");
    // Ten packs: one kept, the largest left, eight merged; the seven older dashboards as
    // deltas (the trees are too small to be worth one).
    assert_eq!(done.packs_merged, 8, "{done:?}");
    assert_eq!(done.deltas, 7, "{done:?}");
    assert_eq!(pack_count(&f), 3);
    assert!(f.path(&format!(".git/objects/pack/{kept}")).exists());
    f.fsck();
    for (i, text) in versions.iter().enumerate() {
        assert_eq!(&f.show(&format!("HEAD~{i}:reports/r.md")), text);
    }
    assert_eq!(f.show("HEAD:entities/e7.md"), dashboard(200, 7, 7));
    // Nothing left to merge.
    assert_eq!(
        store.repack_objects().expect("again"),
        wiki_store::PackOutcome::default()
    );

    // gc.autoPackLimit bounds the packs that automatic packing leaves.
    f.git(&["config", "gc.autoPackLimit", "4"]);
    // (A store reads the configuration when it is opened.)
    let always = packing_store(&f, "always");
    for version in 9..=20 {
        let changes = [w("reports/r.md", &dashboard(400, version, version))];
        let done = always
            .commit(&req(&changes, &format!("op {version}")))
            .expect("commit");
        assert_eq!(done.pack_error, None);
        // Besides the kept pack (which git's limit does not count either).
        let packs = pack_count(&f) - 1;
        assert!(packs <= 4, "{packs} packs after op {version}");
        assert!(packs >= 2, "{packs} packs after op {version}");
    }
    f.fsck();
    assert_eq!(f.show("HEAD:reports/r.md"), dashboard(400, 20, 20));
}

#[test]
fn promisor_and_cruft_packs_are_left_alone() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    let always = packing_store(&f, "always");
    for v in 0..5 {
        let changes = [w("reports/r.md", &dashboard(100 + v * 50, v, v))];
        always
            .commit(&req(&changes, &format!("op {v}")))
            .expect("commit");
    }
    let idx = idx_files(&f);
    assert_eq!(idx.len(), 5);
    let marked = [(&idx[0], "promisor"), (&idx[1], "mtimes")];
    for (name, ext) in marked {
        let marker = name.replace(".idx", &format!(".{ext}"));
        std::fs::write(f.path(&format!(".git/objects/pack/{marker}")), "").expect("marker");
    }
    let store = packing_store(&f, "never");
    let done = store.repack_objects().expect("repack");
    // Five packs: two marked, the largest kept as it is, two merged.
    assert_eq!(done.packs_merged, 2, "{done:?}");
    for (name, _) in marked {
        assert!(
            f.path(&format!(".git/objects/pack/{name}")).exists(),
            "{name}"
        );
    }
    assert_eq!(pack_count(&f), 4);
    f.fsck();
    assert_eq!(f.show("HEAD:reports/r.md"), dashboard(300, 4, 4));
}

/// A small deterministic generator (tests need no randomness crate).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn randomly_edited_files_read_back_exactly_through_git_after_packing() {
    for seed in [7, 11, 23, 101] {
        randomly_edited_file(seed, 400);
    }
}

/// Files large enough to be written as segmented loose objects, each version reusing the
/// compressed segments of the one before: every version reads back exactly, loose and packed.
#[test]
fn randomly_edited_large_files_read_back_exactly_through_git() {
    for seed in [5, 13] {
        randomly_edited_file(seed, 12_000);
    }
}

fn randomly_edited_file(seed: u64, rows: usize) {
    let f = Fixture::repo_with(&[("seed.md", "s\n")]);
    let store = packing_store(&f, "never");
    let mut rng = Lcg(seed);
    // Lines of every kind: text, long lines, short lines, CRLF, bytes that are not UTF-8, NULs.
    let line = |rng: &mut Lcg| -> Vec<u8> {
        match rng.below(6) {
            0 => format!(
                "- [Page {}](../entities/p{}.md): {} claims\n",
                rng.next(),
                rng.below(50),
                rng.below(9)
            )
            .into_bytes(),
            1 => vec![b'x'; 1 + rng.below(3000)]
                .into_iter()
                .chain([b'\n'])
                .collect(),
            2 => b"\n".to_vec(),
            3 => format!("row {}\r\n", rng.below(20)).into_bytes(),
            4 => (0..rng.below(40)).map(|_| rng.below(256) as u8).collect(),
            _ => b"## Heading\n".to_vec(),
        }
    };
    let mut lines: Vec<Vec<u8>> = (0..rows).map(|_| line(&mut rng)).collect();
    let mut versions: Vec<(String, Vec<u8>)> = Vec::new();
    for round in 0..30 {
        for _ in 0..1 + rng.below(12) {
            let at = rng.below(lines.len() + 1);
            match rng.below(3) {
                0 => lines.insert(at, line(&mut rng)),
                1 if at < lines.len() => {
                    lines.remove(at);
                }
                _ if at < lines.len() => lines[at] = line(&mut rng),
                _ => lines.push(line(&mut rng)),
            }
        }
        if round % 7 == 3 {
            // Move a block of lines elsewhere.
            let from = rng.below(lines.len() / 2);
            let block: Vec<Vec<u8>> = lines
                .drain(from..from + 20.min(lines.len() - from))
                .collect();
            let to = rng.below(lines.len() + 1);
            for (i, l) in block.into_iter().enumerate() {
                lines.insert(to + i, l);
            }
        }
        let mut content: Vec<u8> = lines.concat();
        if round % 5 == 0 {
            content.pop(); // no trailing newline sometimes
        }
        let done = store
            .commit(&req(
                &[wiki_store::Change::write(
                    "reports/data.md",
                    content.clone(),
                )],
                &format!("round {round}"),
            ))
            .expect("commit");
        // (An edit can give back the same bytes: no commit then.)
        if let Some(commit) = done.commit {
            versions.push((commit.to_string(), content));
        }
    }
    let read_back = |when: &str| {
        for (i, (commit, content)) in versions.iter().enumerate() {
            let rev = format!("{commit}:reports/data.md");
            let out = isolated_git(&f.root)
                .args(["cat-file", "blob", &rev])
                .output()
                .expect("git cat-file");
            assert!(out.status.success(), "seed {seed}: {rev}");
            assert!(
                out.stdout == *content,
                "seed {seed}: version {i} differs {when}"
            );
            // And through gix, as the tools read them.
            let read = store.read_file(commit, "reports/data.md").expect("read");
            assert!(
                read.as_deref() == Some(content.as_slice()),
                "seed {seed}: version {i} differs {when} (read by the store)"
            );
        }
    };
    f.fsck();
    read_back("loose");
    if rows >= 10_000 {
        let tables = std::fs::read_dir(f.path(".git/objects/info/wiki-segments"))
            .expect("segment tables")
            .count();
        assert_eq!(tables, 1, "seed {seed}: one table for the one large path");
    }
    let done = store.pack_loose_objects().expect("pack");
    assert!(done.deltas >= 20, "seed {seed}: {done:?}");
    assert_eq!(loose_count(&f), 0);
    if rows >= 10_000 {
        let tables = std::fs::read_dir(f.path(".git/objects/info/wiki-segments"))
            .expect("segment tables")
            .count();
        assert_eq!(
            tables, 0,
            "seed {seed}: tables of packed objects are removed"
        );
    }
    f.fsck();
    read_back("after packing");
}
