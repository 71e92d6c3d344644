//! `wiki-lint --staged`: the git index, not the working tree; cross-page checks against HEAD
//! plus the staged changes; only staged pages reported.

use wiki_testkit::{Vault, page};

use crate::common::*;

fn staged(v: &Vault, args: &[&str]) -> wiki_testkit::Run {
    let mut all = vec!["--staged"];
    all.extend_from_slice(args);
    v.run("wiki-lint", &all)
}

fn base_vault() -> Vault {
    let v = Vault::with_git();
    v.write(
        "sources/base.md",
        clean("source", "source.base", &[], "# Base\n"),
    );
    v.write(
        "entities/alpha.md",
        clean(
            "entity",
            "entity.alpha",
            &["claims:", "  - {id: claim.alpha.db, text: Alpha uses PostgreSQL., evidence: [{sourceId: source.base}]}"],
            "See [Base](../sources/base.md).\n",
        ),
    );
    v.commit_all("base");
    v
}

#[test]
fn nothing_staged_is_clean() {
    let v = base_vault();
    // Unstaged problems are not the commit's business.
    v.write("entities/alpha.md", "---\nid: [broken\n---\n");
    v.write("entities/untracked.md", "no frontmatter\n");
    let run = staged(&v, &[]);
    run.expect_code(0);
    assert_eq!(findings(&run), vec![]);
    assert_eq!(summary(&run)["mode"], "staged");
    assert_eq!(summary(&run)["pages"], 0);
}

#[test]
fn staged_version_is_linted_not_the_working_tree() {
    let v = base_vault();
    // Stage a version with an error, then fix it in the working tree only.
    v.write(
        "entities/beta.md",
        page(
            &[
                "pageType: entity",
                "sourceIds: s",
                &format!("updatedAt: {FRESH}"),
            ],
            "",
        ),
    );
    v.git(&["add", "entities/beta.md"]);
    v.write("entities/beta.md", clean("entity", "entity.beta", &[], ""));
    let run = staged(&v, &[]);
    run.expect_code(1);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/beta.md".into(),
            "missing-id".into(),
            None,
            "Missing `id` frontmatter.".into()
        )]
    );
    assert_eq!(summary(&run)["pages"], 1);
    // The other way round: a clean staged version and a broken working tree.
    v.git(&["add", "entities/beta.md"]);
    v.write("entities/beta.md", "---\nid: [broken\n---\n");
    let run = staged(&v, &[]);
    run.expect_code(0);
    assert_eq!(findings(&run), vec![]);
}

#[test]
fn only_staged_pages_are_reported() {
    let v = base_vault();
    // A committed problem elsewhere (questions) does not block an unrelated commit.
    v.write(
        "entities/old.md",
        clean(
            "entity",
            "entity.old",
            &["questions: Open?"],
            "[[nowhere]]\n",
        ),
    );
    v.commit_all("old problems");
    v.write(
        "entities/new.md",
        clean("entity", "entity.new", &["questions: [a, b]"], ""),
    );
    v.git(&["add", "-A"]);
    let run = staged(&v, &[]);
    run.expect_code(0);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/new.md".into(),
            "open-question".into(),
            Some(6),
            "Page lists 2 open questions.".into()
        )]
    );
    staged(&v, &["--deny", "warning"]).expect_code(1);
}

#[test]
fn cross_page_checks_see_head_plus_staged_changes() {
    let v = base_vault();
    // A page added in the same commit is a valid link target; an untracked one is not.
    v.write(
        "entities/friend.md",
        clean("entity", "entity.friend", &[], ""),
    );
    v.write(
        "entities/untracked.md",
        clean("entity", "entity.untracked", &[], ""),
    );
    v.write(
        "entities/beta.md",
        clean(
            "entity",
            // Same id as a HEAD page, and a competing claim.
            "entity.alpha",
            &["claims:", "  - {id: claim.alpha.db, text: Alpha uses MySQL., evidence: [{sourceId: source.base}]}"],
            "[[friend]] [[untracked]] [[alpha]] [B](../sources/base.md)\n",
        ),
    );
    v.git(&["add", "entities/beta.md", "entities/friend.md"]);
    let run = staged(&v, &["--format", "text"]);
    run.expect_code(1);
    assert_eq!(
        run.stdout,
        "entities/beta.md:7: claim-conflict: Claim cluster `claim.alpha.db` has competing variants across 2 pages.\n\
         entities/beta.md:3: duplicate-id: Duplicate page id `entity.alpha`.\n\
         entities/beta.md:10: broken-wikilink: Broken wikilink target `untracked`.\n\
         1 error, 2 warnings in 2 pages\n"
    );
}

/// Unchanged pages are searched for the staged page's ids in their frontmatter only (where ids
/// and claim ids are declared): a page written with a byte-order mark and CRLF line endings
/// that declares the same id is still found, and a page that names the id and claim id only in
/// its body (as the dashboards do) shares nothing.
#[test]
fn ids_are_looked_up_in_the_frontmatter_of_other_pages() {
    let v = base_vault();
    let crlf = clean("entity", "entity.gamma", &[], "# Gamma\n").replace('\n', "\r\n");
    v.write("entities/gamma.md", format!("\u{feff}{crlf}"));
    v.write(
        "concepts/listing.md",
        clean(
            "concept",
            "concept.listing",
            &[],
            "Pages: entity.gamma, claim.gamma.one and entity.alpha.\n",
        ),
    );
    v.commit_all("gamma and a listing");
    v.write(
        "entities/delta.md",
        clean(
            "entity",
            "entity.gamma",
            &["claims:", "  - {id: claim.gamma.one, text: Gamma is new., evidence: [{sourceId: source.base}]}"],
            "",
        ),
    );
    v.git(&["add", "entities/delta.md"]);
    let run = staged(&v, &["--format", "text"]);
    run.expect_code(1);
    assert_eq!(
        run.stdout,
        "entities/delta.md:3: duplicate-id: Duplicate page id `entity.gamma`.\n\
         1 error, 0 warnings in 1 page\n"
    );
}

#[test]
fn unstaged_edits_of_other_pages_do_not_hide_conflicts() {
    let v = base_vault();
    // HEAD's alpha has id entity.alpha; the working tree renames it (not staged).
    let edited = v
        .read("entities/alpha.md")
        .replace("id: entity.alpha", "id: entity.renamed");
    v.write("entities/alpha.md", edited);
    v.write("entities/copy.md", clean("entity", "entity.alpha", &[], ""));
    v.git(&["add", "entities/copy.md"]);
    let run = staged(&v, &[]);
    run.expect_code(1);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/copy.md".into(),
            "duplicate-id".into(),
            Some(3),
            "Duplicate page id `entity.alpha`.".into()
        )]
    );
}

#[test]
fn staged_deletion_reports_links_it_breaks() {
    let v = base_vault();
    v.git(&["rm", "-q", "sources/base.md"]);
    let run = staged(&v, &[]);
    run.expect_code(0);
    assert_eq!(
        findings(&run),
        vec![(
            "entities/alpha.md".into(),
            "broken-wikilink".into(),
            Some(10),
            "Broken wikilink target `sources/base.md`.".into()
        )]
    );
}

#[test]
fn staged_invalid_frontmatter_blocks() {
    let v = base_vault();
    v.write(
        "concepts/bad.md",
        "---\npageType: concept\nid: [oops\n---\n",
    );
    v.git(&["add", "concepts/bad.md"]);
    let run = staged(&v, &[]);
    run.expect_code(1);
    let f = findings(&run);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].1, "invalid-frontmatter");
    assert!(f[0].3.starts_with("Frontmatter failed to parse: "), "{f:?}");
    assert_eq!(summary(&run)["pageErrors"], 1);
}

#[test]
fn vault_in_a_sub_folder_of_the_repository() {
    // Repository at <temp>, vault at <temp>/vault; run from the repository top level.
    let v = Vault::new();
    let git = |args: &[&str]| {
        let mut c = std::process::Command::new("git");
        c.args(args).current_dir(v.temp());
        wiki_testkit::isolate(&mut c, v.home());
        wiki_testkit::output(c, None).expect_code(0).clone()
    };
    git(&["init", "-q", "-b", "main"]);
    v.write("entities/a.md", clean("entity", "entity.a", &[], ""));
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "a"]);
    v.write(
        "entities/b.md",
        clean("entity", "entity.a", &[], "[[a]] [[zzz]]\n"),
    );
    git(&["add", "-A"]);
    let vault = v.root.to_string_lossy().into_owned();
    let mut cmd = v.command("wiki-lint");
    cmd.args(["--staged", "--vault", &vault, "--format", "github"])
        .current_dir(v.temp());
    let run = wiki_testkit::output(cmd, None);
    run.expect_code(1);
    assert_eq!(
        run.stdout,
        "::error file=vault/entities/b.md,line=3,title=duplicate-id::Duplicate page id `entity.a`.\n\
         ::warning file=vault/entities/b.md,line=8,title=broken-wikilink::Broken wikilink target `zzz`.\n"
    );
}

#[test]
fn first_commit_of_a_new_repository() {
    let v = Vault::with_git();
    v.write("entities/a.md", clean("entity", "entity.a", &[], "[[b]]\n"));
    v.write("entities/b.md", clean("entity", "entity.a", &[], ""));
    v.git(&["add", "-A"]);
    let run = staged(&v, &[]);
    run.expect_code(1);
    let codes: Vec<(String, String)> = findings(&run).into_iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(
        codes,
        vec![
            ("entities/a.md".to_string(), "duplicate-id".to_string()),
            ("entities/b.md".to_string(), "duplicate-id".to_string()),
        ]
    );
    assert_eq!(summary(&run)["pages"], 2);
}

#[test]
fn staged_rename_reports_links_to_the_old_path() {
    let v = base_vault();
    v.git(&["mv", "sources/base.md", "sources/renamed.md"]);
    let run = staged(&v, &["--format", "text"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "entities/alpha.md:10: broken-wikilink: Broken wikilink target `sources/base.md`.\n\
         0 errors, 1 warning in 1 page\n"
    );
}

#[test]
fn staged_after_a_tool_commit() {
    // `wiki lint` commits through wiki-store, which rewrites the index without git's cache-tree
    // extension: --staged must then list HEAD itself.
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write("entities/a.md", clean("entity", "entity.a", &[], ""));
    v.run("wiki", &["lint"]).expect_code(0);
    assert_eq!(v.status(), "");
    v.write(
        "entities/b.md",
        clean("entity", "entity.a", &[], "[[a]] [[c]]\n"),
    );
    v.git(&["add", "entities/b.md"]);
    let run = staged(&v, &["--format", "text"]);
    run.expect_code(1);
    assert_eq!(
        run.stdout,
        "entities/b.md:3: duplicate-id: Duplicate page id `entity.a`.\n\
         entities/b.md:8: broken-wikilink: Broken wikilink target `c`.\n\
         1 error, 1 warning in 1 page\n"
    );
}
