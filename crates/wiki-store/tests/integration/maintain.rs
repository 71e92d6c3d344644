//! Packing through git's own tools: `Store::gc` and the automatic `git gc --auto` after commits.

use crate::common::*;
use wiki_store::Store;

/// A store on the fixture with `WIKI_AUTO_PACK=<policy>`.
fn packing_store(f: &Fixture, policy: &str) -> Store {
    Store::open_with(&f.root, fixed_env(&[("WIKI_AUTO_PACK", policy)])).expect("open store")
}

fn loose_count(f: &Fixture) -> usize {
    let out = f.git(&["count-objects", "-v"]);
    out.lines()
        .find_map(|l| l.strip_prefix("count: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("count line")
}

#[test]
fn gc_packs_every_loose_object_with_git() {
    let f = Fixture::repo_with(&[("seed.md", "s\n")]);
    let store = packing_store(&f, "never");
    for version in 1..=5 {
        let page = format!("entities/page-{version}.md");
        store
            .commit(&req(&[w(&page, &format!("# Page {version}\n"))], "op"))
            .expect("commit");
    }
    let loose = loose_count(&f);
    assert!(loose >= 5 * 4, "{loose}");
    let expected: Vec<String> = (1..=5)
        .map(|v| f.show(&format!("HEAD:entities/page-{v}.md")))
        .collect();

    let done = store.gc().expect("gc");
    assert_eq!(done.before.loose, loose as u64);
    assert_eq!(done.after.loose, 0);
    assert_eq!(done.after.packs, 1);
    assert!(
        done.summary()
            .starts_with(&format!("packed {loose} loose objects ("))
    );
    assert_eq!(loose_count(&f), 0);
    for (v, text) in (1..=5).zip(&expected) {
        assert_eq!(&f.show(&format!("HEAD:entities/page-{v}.md")), text);
    }
    f.fsck();
    // Nothing left to pack.
    assert_eq!(store.gc().expect("gc again").summary(), "nothing to pack");
}

#[test]
fn commits_ask_git_to_pack_by_its_own_rule_unless_told_not_to() {
    let f = Fixture::repo_with(&[("a.md", "a\n")]);
    // Without the binary hook (a library user) the packing runs in the committing process.
    let always = packing_store(&f, "always");
    let done = always
        .commit(&req(&[w("b.md", "b\n")], "one"))
        .expect("commit");
    assert!(done.packed);
    assert_eq!(done.pack_error, None);
    assert_eq!(
        done.packing_message().as_deref(),
        Some("packed loose git objects (automatic, after the commit)")
    );
    assert_eq!(loose_count(&f), 0);
    f.fsck();

    let never = packing_store(&f, "never");
    let done = never
        .commit(&req(&[w("c.md", "c\n")], "two"))
        .expect("commit");
    assert!(!done.packed);
    assert!(loose_count(&f) >= 3);

    // Default policy: git's own `gc --auto` rule. Few loose objects: nothing to do.
    let default = Store::open_with(&f.root, fixed_env(&[])).expect("open store");
    let done = default
        .commit(&req(&[w("d.md", "d\n")], "three"))
        .expect("commit");
    assert!(!done.packed);
    // Many loose objects (more than `gc.auto`, sampled from objects/17 as git does): packed.
    for i in 0..3000 {
        f.write(&format!("bulk/{i}.md"), &format!("page {i}\n"));
    }
    f.git(&["add", "-A"]);
    f.git(&["-c", "gc.auto=0", "commit", "-q", "-m", "bulk import"]);
    f.git(&["config", "gc.auto", "256"]);
    // (A store reads the configuration when it is opened.)
    let default = Store::open_with(&f.root, fixed_env(&[])).expect("open store");
    let done = default
        .commit(&req(&[w("e.md", "e\n")], "four"))
        .expect("commit");
    assert!(done.packed, "{done:?}");
    assert_eq!(loose_count(&f), 0);
    f.fsck();
    // `gc.auto = 0` turns the rule off.
    f.git(&["config", "gc.auto", "0"]);
    let default = Store::open_with(&f.root, fixed_env(&[])).expect("open store");
    let done = default
        .commit(&req(&[w("f.md", "f\n")], "five"))
        .expect("commit");
    assert!(!done.packed);
}
