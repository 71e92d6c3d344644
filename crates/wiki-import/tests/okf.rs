//! `wiki okf import` end to end.

use std::path::{Path, PathBuf};

use wiki_testkit::Vault;

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// okf.test.ts's shape: a root index, a log, typed concepts in nested folders, one without a
/// type, reserved and skipped folders, internal, broken, external and escaping links, code.
fn bundle(v: &Vault) -> PathBuf {
    let b = std::fs::canonicalize(v.temp()).unwrap().join("sales");
    write(
        &b,
        "index.md",
        "---\nid: sales-okf\nokf_version: \"0.1\"\n---\n# Sales\n",
    );
    write(&b, "log.md", "# Log\n");
    write(&b, "tables/index.md", "---\ntype: Index\n---\nreserved\n");
    write(
        &b,
        "tables/orders.md",
        "---\ntype: BigQuery Table\ntitle: Orders\ndescription: One row per completed order.\nresource: bq://sales.orders\ntags: [sales]\ntimestamp: \"2026-03-01T00:00:00Z\"\nproducer_field: kept\n---\n# Orders\n\nSee [customers](customers.md \"The customers\") and [WAU](/metrics/weekly%20active%20users.md?v=1#def).\nKeep `[c](customers.md)`, [web](https://example.com/x.md), [gone](missing.md) and [out](../../outside.md).\n\n```sql\n-- [c](customers.md)\n```\n",
    );
    write(
        &b,
        "tables/customers.md",
        "---\r\ntype: BigQuery Table\r\ntitle: Customers\r\n---\r\n# Customers\r\n",
    );
    write(
        &b,
        "metrics/weekly active users.md",
        "---\ntype: Metric\n---\nDistinct users per week.\n",
    );
    write(&b, "tables/draft.md", "---\ntitle: Draft\n---\nno type\n");
    write(&b, ".git/HEAD.md", "---\ntype: X\n---\n");
    write(&b, "node_modules/pkg/readme.md", "---\ntype: X\n---\n");
    b
}

fn vault() -> Vault {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    v
}

fn page(key: &str, id: &str) -> String {
    let slug = wiki_parse::slug::slugify(&id.replace('/', "-"));
    format!(
        "okf-{key}-{slug}-{}.md",
        &wiki_parse::slug::sha1_hex(id)[..8]
    )
}

#[test]
fn bundle_becomes_flattened_concept_pages_in_one_commit() {
    let v = vault();
    let b = bundle(&v);
    let run = v.run("wiki", &["okf", "import", b.to_str().unwrap(), "--json"]);
    run.expect_code(1);
    let j = run.json();
    assert_eq!(j["okfVersion"], "0.1");
    assert_eq!(j["bundleName"], "sales");
    assert_eq!(j["importedCount"], 3);
    assert_eq!(j["updatedCount"], 0);
    assert_eq!(j["skippedCount"], 2);
    assert_eq!(
        j["warnings"],
        serde_json::json!([
            {"code": "missing-type", "path": "tables/draft.md", "message": "OKF concept is missing required non-empty type frontmatter."},
            {"code": "escaping-link", "path": "tables/orders.md", "message": "Link target `../../outside.md` leaves the bundle; left unchanged."},
        ])
    );
    let b_shown = b.display();
    assert_eq!(
        run.stderr,
        format!(
            "wiki: {b_shown}/tables/draft.md: OKF concept is missing required non-empty type frontmatter. (missing-type)\nwiki: {b_shown}/tables/orders.md: Link target `../../outside.md` leaves the bundle; left unchanged. (escaping-link)\n"
        )
    );
    let orders = page("sales-okf", "tables/orders");
    let customers = page("sales-okf", "tables/customers");
    let wau = page("sales-okf", "metrics/weekly active users");
    let text = v.read(&format!("concepts/{orders}"));
    let fm_end = text.find("\n---\n").unwrap();
    let (fm, body) = text.split_at(fm_end);
    for line in [
        "pageType: concept\n",
        &format!("id: concept.{}\n", orders.trim_end_matches(".md")),
        "sourceType: okf\nprovenanceMode: okf-import\n",
        &format!(
            "sourcePath: {b_shown}/tables/orders.md\nokfConceptId: tables/orders\nokfType: BigQuery Table\nsourceIds:\n  - source.okf.sales-okf\n"
        ),
        "updatedAt: 2026-03-01T00:00:00Z\nstatus: active\ndescription: One row per completed order.\nresource: bq://sales.orders\ntags:\n  - sales\nokfTimestamp: 2026-03-01T00:00:00Z\n",
        &format!(
            "relationships:\n  - targetId: concept.{}\n    targetPath: concepts/{customers}\n    targetTitle: Customers\n    kind: okf-link\n    evidenceKind: okf-markdown-link\n",
            customers.trim_end_matches(".md")
        ),
        "type: BigQuery Table\ntimestamp: 2026-03-01T00:00:00Z\nproducer_field: kept\nokf:\n  version: \"0.1\"\n  bundleName: sales\n  bundleKey: sales-okf\n  conceptId: tables/orders\n  sourceRelativePath: tables/orders.md\n  frontmatter:\n    type: BigQuery Table\n",
    ] {
        assert!(
            fm.contains(line) || text.contains(line),
            "missing {line:?} in\n{text}"
        );
    }
    assert!(body.contains(&format!(
        "See [customers]({customers} \"The customers\") and [WAU]({wau}?v=1#def).\nKeep `[c](customers.md)`, [web](https://example.com/x.md), [gone](missing.md) and [out](../../outside.md).\n\n```sql\n-- [c](customers.md)\n```\n"
    )), "{body}");
    let mut concepts: Vec<String> = std::fs::read_dir(v.path("concepts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    concepts.sort();
    let mut expected = vec![
        "index.md".to_string(),
        orders.clone(),
        customers.clone(),
        wau.clone(),
    ];
    expected.sort();
    assert_eq!(concepts, expected);
    assert_eq!(v.commit_count(), 2);
    assert!(
        v.git(&["log", "-1", "--format=%B"])
            .contains("Wiki-Op: okf-import\n")
    );
    // Search finds the description.
    let found = v.run("wiki", &["search", "completed order", "--format", "text"]);
    assert!(found.stdout.contains(&orders), "{}", found.stdout);
    // Re-import: nothing changes, no commit, nothing pruned (there are warnings).
    let again = v.run(
        "wiki",
        &[
            "--now",
            "2026-06-01T00:00:00Z",
            "okf",
            "import",
            b.to_str().unwrap(),
            "--json",
        ],
    );
    again.expect_code(1);
    assert_eq!(again.json()["importedCount"], 3);
    assert_eq!(again.json()["updatedCount"], 0);
    assert_eq!(v.commit_count(), 2);
}

#[test]
fn clean_reimport_prunes_dropped_concepts_and_sees_body_changes() {
    let v = vault();
    let b = bundle(&v);
    std::fs::remove_file(b.join("tables/draft.md")).unwrap();
    let orders_src = std::fs::read_to_string(b.join("tables/orders.md")).unwrap();
    std::fs::write(
        b.join("tables/orders.md"),
        orders_src.replace(" and [out](../../outside.md)", ""),
    )
    .unwrap();
    let run = v.run("wiki", &["okf", "import", b.to_str().unwrap()]);
    run.expect_code(0);
    assert_eq!(
        run.stdout.split(" into memory wiki.").next().unwrap(),
        format!("Imported 3 OKF concepts from {}", b.display())
    );
    std::fs::remove_file(b.join("metrics/weekly active users.md")).unwrap();
    std::fs::write(
        b.join("tables/customers.md"),
        "---\ntype: BigQuery Table\ntitle: Customers\n---\n# Customers\nupdatedAt: looks like frontmatter\n",
    )
    .unwrap();
    let run = v.run("wiki", &["okf", "import", b.to_str().unwrap(), "--json"]);
    run.expect_code(0);
    let j = run.json();
    let wau = format!(
        "concepts/{}",
        page("sales-okf", "metrics/weekly active users")
    );
    assert_eq!(j["importedCount"], 2);
    assert_eq!(j["updatedCount"], 2);
    assert_eq!(j["removedCount"], 1);
    assert_eq!(j["removedPagePaths"], serde_json::json!([wau]));
    assert!(!v.exists(&wau));
    // The link to the dropped concept is left as written.
    let orders = v.read(&format!("concepts/{}", page("sales-okf", "tables/orders")));
    assert!(
        orders.contains("[WAU](/metrics/weekly%20active%20users.md?v=1#def)"),
        "{orders}"
    );
}

#[test]
fn two_bundles_with_the_same_concept_paths_do_not_collide() {
    let v = vault();
    let a = std::fs::canonicalize(v.temp()).unwrap().join("a");
    let c = std::fs::canonicalize(v.temp()).unwrap().join("c");
    write(&a, "x/item.md", "---\ntype: T\n---\nA\n");
    write(&c, "x/item.md", "---\ntype: T\n---\nC\n");
    v.run("wiki", &["okf", "import", a.to_str().unwrap()])
        .expect_code(0);
    v.run("wiki", &["okf", "import", c.to_str().unwrap()])
        .expect_code(0);
    let key = |p: &Path| {
        format!(
            "{}-{}",
            p.file_name().unwrap().to_string_lossy(),
            &wiki_parse::slug::sha1_hex(&p.to_string_lossy())[..8]
        )
    };
    assert!(
        v.read(&format!("concepts/{}", page(&key(&a), "x/item")))
            .contains("\nA\n")
    );
    assert!(
        v.read(&format!("concepts/{}", page(&key(&c), "x/item")))
            .contains("\nC\n")
    );
    // A second bundle's clean import does not prune the first one's pages.
    assert!(v.exists(&format!("concepts/{}", page(&key(&a), "x/item"))));
}

#[cfg(unix)]
#[test]
fn symbolic_and_hard_links_are_warnings_and_the_rest_is_imported() {
    let v = vault();
    let b = std::fs::canonicalize(v.temp()).unwrap().join("links");
    write(&b, "real.md", "---\ntype: T\n---\nreal\n");
    let outside = std::fs::canonicalize(v.temp()).unwrap().join("outside.md");
    std::fs::write(&outside, "---\ntype: T\n---\nsecret\n").unwrap();
    std::os::unix::fs::symlink(&outside, b.join("sym.md")).unwrap();
    std::fs::hard_link(&outside, b.join("hard.md")).unwrap();
    let run = v.run("wiki", &["okf", "import", b.to_str().unwrap(), "--json"]);
    run.expect_code(1);
    let j = run.json();
    assert_eq!(j["importedCount"], 1);
    assert_eq!(
        j["warnings"],
        serde_json::json!([
            {"code": "unreadable-entry", "path": "sym.md", "message": "Refusing to import OKF concept through symbolic link."},
            {"code": "unreadable-entry", "path": "hard.md", "message": "Refusing to import OKF concept through non-regular or hardlinked file."},
        ])
    );
    let not_dir = v.run("wiki", &["okf", "import", outside.to_str().unwrap()]);
    not_dir.expect_code(2);
    assert_eq!(
        not_dir.stderr,
        "wiki: error: wiki okf import expects an unpacked OKF bundle directory.\n"
    );
}
