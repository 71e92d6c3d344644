//! End-to-end tests of `wiki-search`, `wiki search`, `wiki get` and `wiki index`: real binaries,
//! real git, pinned clock (`WIKI_NOW=2026-04-05T12:00:00.000Z`).
//!
//! Build the binaries first: `cargo build -p wiki-search -p wiki`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wiki_testkit::{Run, Vault, page};

/// A git vault with the `.openclaw-wiki/` marker.
fn vault() -> Vault {
    let v = Vault::with_git();
    v.write(".openclaw-wiki/.keep", "");
    v
}

fn search(v: &Vault, args: &[&str]) -> Run {
    v.run("wiki-search", args)
}

/// Paths of the JSON Lines hit records.
fn paths(run: &Run) -> Vec<String> {
    run.jsonl()
        .iter()
        .map(|r| {
            assert_eq!(r["type"], "hit", "{r}");
            r["path"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

fn search_paths(v: &Vault, args: &[&str]) -> Vec<String> {
    let run = search(v, args);
    assert!(
        run.code == 0 || run.code == 1,
        "exit {}: {}",
        run.code,
        run.stderr
    );
    paths(&run)
}

/// The routing fixture: a person, a service, a source, a concept with a claim, and a report.
fn routing_vault() -> Vault {
    let v = vault();
    v.write(
        "entities/alice.md",
        page(
            &[
                "pageType: entity",
                "id: entity.alice",
                "title: Alice",
                "entityType: person",
                "aliases: [Ali]",
                "updatedAt: 2026-03-30T00:00:00.000Z",
                "personCard:",
                "  handles: ['@alice']",
                "  lane: databases",
                "  askFor: [postgres tuning, index design]",
                "relationships:",
                "  - targetId: entity.pg",
                "    kind: operates",
            ],
            "# Alice\n\nAlice runs the database team.\n",
        ),
    );
    v.write(
        "entities/postgres-service.md",
        page(
            &[
                "pageType: entity",
                "id: entity.pg",
                "title: Postgres Service",
                "entityType: service",
                "updatedAt: 2026-03-30T00:00:00.000Z",
            ],
            "# Postgres Service\n\nThe shared Postgres cluster. Tuning presets live in the repo.\n",
        ),
    );
    v.write(
        "sources/pg-notes.md",
        page(
            &[
                "pageType: source",
                "id: source.pg-notes",
                "title: PG Notes",
                "sourceType: local-file",
                "sourcePath: /data/postgres-tuning.txt",
                "updatedAt: 2026-03-30T00:00:00.000Z",
            ],
            "# PG Notes\n\nRaw notes from the postgres tuning workshop.\n",
        ),
    );
    v.write(
        "concepts/vacuum.md",
        page(
            &[
                "pageType: concept",
                "id: concept.vacuum",
                "title: Vacuum",
                "updatedAt: 2026-03-30T00:00:00.000Z",
                "claims:",
                "  - id: claim.pg.tuning",
                "    text: Postgres tuning starts with autovacuum settings.",
                "    confidence: 0.8",
                "    evidence:",
                "      - kind: doc",
                "        sourceId: source.pg-notes",
            ],
            "# Vacuum\n\nAutovacuum keeps tables healthy.\n",
        ),
    );
    v.write(
        "reports/open-questions.md",
        page(
            &[
                "pageType: report",
                "id: report.open-questions",
                "title: Open Questions",
            ],
            "# Open Questions\n\n- Who owns postgres tuning?\n",
        ),
    );
    v
}

#[test]
fn stems_exact_forms_question_words_and_page_names() {
    let v = vault();
    v.write(
        "concepts/tar.md",
        page(
            &["title: tar"],
            "# tar\n\nExtract an archive into the current directory:\n\n`tar xf source.tar`\n",
        ),
    );
    v.write(
        "concepts/git-get-tar-commit-id.md",
        page(
            &["title: git get-tar-commit-id"],
            "# git get-tar-commit-id\n\nGet the commit ID out of a tar archive made by git archive.\n",
        ),
    );
    v.write(
        "concepts/unzip.md",
        page(
            &["title: unzip"],
            "# unzip\n\nExtracting files from zip archives:\n",
        ),
    );
    // Question words do not count; `tar` is a page's name.
    assert_eq!(
        search_paths(&v, &["how do I extract a tar archive"]),
        [
            "concepts/tar.md",
            "concepts/git-get-tar-commit-id.md",
            "concepts/unzip.md"
        ]
    );
    // Stems: `extracting` finds `Extract`; the page with the word as written comes first.
    assert_eq!(
        search_paths(&v, &["extracting"]),
        ["concepts/unzip.md", "concepts/tar.md"]
    );
    // `archives` finds `archive` and `archives`.
    assert_eq!(
        search_paths(&v, &["archives"]),
        [
            "concepts/unzip.md",
            "concepts/git-get-tar-commit-id.md",
            "concepts/tar.md"
        ]
    );
}

#[test]
fn each_mode_orders_the_fixture() {
    let v = routing_vault();
    let q = "postgres tuning";
    assert_eq!(
        search_paths(&v, &[q, "--mode", "auto"]),
        [
            "sources/pg-notes.md",
            "concepts/vacuum.md",
            "entities/postgres-service.md",
            "entities/alice.md",
            "reports/open-questions.md"
        ]
    );
    let fp = search(&v, &[q, "--mode", "find-person"]);
    assert_eq!(paths(&fp)[0], "entities/alice.md", "{}", fp.stdout);
    let rq = search(
        &v,
        &[
            "who can help with postgres tuning?",
            "--mode",
            "route-question",
        ],
    );
    assert_eq!(paths(&rq)[0], "entities/alice.md", "{}", rq.stdout);
    assert_eq!(
        search_paths(&v, &[q, "--mode", "source-evidence"])[0],
        "sources/pg-notes.md"
    );
    let raw = search_paths(&v, &[q, "--mode", "raw-claim"]);
    assert_eq!(raw[0], "concepts/vacuum.md");
    // The report page repeats the words but always comes after the content pages.
    for mode in [
        "auto",
        "find-person",
        "route-question",
        "source-evidence",
        "raw-claim",
    ] {
        let p = search_paths(&v, &[q, "--mode", mode]);
        assert_eq!(
            p.last().map(String::as_str),
            Some("reports/open-questions.md"),
            "{mode}: {p:?}"
        );
    }
    let bad = search(&v, &[q, "--mode", "nope"]);
    bad.expect_code(2);
    assert!(bad.stderr.contains(
        "wiki search --mode must be one of: auto, find-person, route-question, source-evidence, raw-claim."
    ));
}

fn claim_page(id: &str, title: &str, status: &str, confidence: f64, updated: &str) -> String {
    page(
        &[
            "pageType: entity",
            &format!("id: {id}"),
            &format!("title: {title}"),
            &format!("updatedAt: {updated}"),
            "claims:",
            "  - id: claim.alpha.db",
            "    text: Alpha uses PostgreSQL for the primary database.",
            &format!("    status: {status}"),
            &format!("    confidence: {confidence}"),
            "    evidence:",
            "      - kind: source",
            &format!("        sourceId: source.{title}"),
        ],
        &format!("# {title}\n\nNotes.\n"),
    )
}

#[test]
fn fresh_supported_claim_outranks_stale_contested_claim() {
    let v = vault();
    // The stale contested page sorts first by title and path, so only ranking can put it second.
    v.write(
        "entities/aaa.md",
        claim_page(
            "entity.aaa",
            "aaa",
            "contested",
            0.3,
            "2025-10-01T00:00:00.000Z",
        ),
    );
    v.write(
        "entities/zzz.md",
        claim_page(
            "entity.zzz",
            "zzz",
            "supported",
            0.9,
            "2026-04-01T00:00:00.000Z",
        ),
    );
    for ranking in ["bm25f", "reference"] {
        let run = search(&v, &["alpha primary database", "--ranking", ranking]);
        run.expect_code(0);
        let recs = run.jsonl();
        assert_eq!(
            paths(&run),
            ["entities/zzz.md", "entities/aaa.md"],
            "{ranking}"
        );
        assert_eq!(recs[0]["matchedClaimStatus"], "supported");
        assert_eq!(recs[1]["matchedClaimStatus"], "contested");
        assert!(recs[0]["score"].as_f64() > recs[1]["score"].as_f64());
    }
}

#[test]
fn json_carries_the_matched_claim_fields() {
    let v = vault();
    v.write(
        "entities/alpha.md",
        claim_page(
            "entity.alpha",
            "Alpha",
            "supported",
            0.88,
            "2026-04-01T00:00:00.000Z",
        ),
    );
    let run = v.run("wiki", &["search", "postgresql primary", "--json"]);
    run.expect_code(0);
    let hits = run.json();
    let mut hit = hits[0].clone();
    assert!(hit["score"].as_f64().is_some_and(|s| s > 0.0));
    hit["score"] = json!(0);
    assert_eq!(
        hit,
        json!({
            "corpus": "wiki",
            "path": "entities/alpha.md",
            "title": "Alpha",
            "kind": "entity",
            "score": 0,
            "snippet": "Alpha uses PostgreSQL for the primary database.",
            "searchMode": "auto",
            "id": "entity.alpha",
            "updatedAt": "2026-04-01T00:00:00.000Z",
            "matchedClaimId": "claim.alpha.db",
            "matchedClaimStatus": "supported",
            "matchedClaimConfidence": 0.88,
            "evidenceKinds": ["source"],
            "evidenceSourceIds": ["source.Alpha"]
        })
    );
    // Key order is part of the format.
    let keys: Vec<&str> = hits[0]
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys[..7],
        [
            "corpus",
            "path",
            "title",
            "kind",
            "score",
            "snippet",
            "searchMode"
        ]
    );
}

#[test]
fn text_output_matches_the_reference_layout() {
    let v = vault();
    v.write(
        "entities/alpha.md",
        claim_page(
            "entity.alpha",
            "Alpha",
            "supported",
            0.9,
            "2026-04-01T00:00:00.000Z",
        ),
    );
    v.write(
        "sources/bridge.md",
        page(
            &[
                "pageType: source",
                "id: source.bridge",
                "title: Bridge Export",
                "sourceType: memory-bridge",
                "bridgeRelativePath: MEMORY.md",
            ],
            "# Bridge Export\n\nPostgreSQL migration notes.\n",
        ),
    );
    let run = v.run("wiki", &["search", "postgresql"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "1. Alpha (wiki/entity)\nPath: entities/alpha.md\nClaim: claim.alpha.db\nEvidence: source\nSnippet: Alpha uses PostgreSQL for the primary database.\n\n\
         2. Bridge Export (wiki/source)\nPath: sources/bridge.md\nProvenance: bridge: MEMORY.md\nSnippet: PostgreSQL migration notes.\n"
    );
    let none = v.run("wiki", &["search", "zzz-no-match-term"]);
    none.expect_code(1);
    assert_eq!(none.stdout, "No wiki or memory results.\n");
    let none = v.run("wiki", &["search", "zzz-no-match-term", "--json"]);
    none.expect_code(1);
    assert_eq!(none.stdout, "[]\n");
}

#[test]
fn natural_language_query_with_a_missing_word() {
    let v = vault();
    v.write(
        "concepts/backups.md",
        page(
            &["pageType: concept", "id: concept.backups", "title: Backups"],
            "# Backups\n\nAlpha rotates the nightly backup encryption every quarter.\n",
        ),
    );
    v.write(
        "concepts/other.md",
        page(
            &["pageType: concept", "id: concept.other", "title: Other"],
            "# Other\n\nThe nightly build runs at midnight.\n",
        ),
    );
    let q = "how does alpha rotate nightly backups keys";
    assert_eq!(search_paths(&v, &[q])[0], "concepts/backups.md");
    // The original scoring needs every word: nothing.
    search(&v, &[q, "--ranking", "reference"]).expect_code(1);
}

#[test]
fn identifiers_are_searchable_whole_and_by_parts() {
    let v = vault();
    v.write(
        "entities/alpha.md",
        claim_page(
            "entity.alpha",
            "Alpha",
            "supported",
            0.9,
            "2026-04-01T00:00:00.000Z",
        ),
    );
    v.write(
        "entities/bob.md",
        page(
            &[
                "pageType: entity",
                "id: entity.bob",
                "title: Bob",
                "personCard:",
                "  handles: ['@bobby']",
            ],
            "# Bob\n\nMet on 2026-04-05 to review sources/alpha.md.\n",
        ),
    );
    assert_eq!(
        search_paths(&v, &["claim.alpha.db"])[0],
        "entities/alpha.md"
    );
    assert_eq!(search_paths(&v, &["@bobby"]), ["entities/bob.md"]);
    assert_eq!(search_paths(&v, &["bobby"]), ["entities/bob.md"]);
    assert_eq!(search_paths(&v, &["2026-04-05"]), ["entities/bob.md"]);
    assert_eq!(
        search_paths(&v, &["sources/alpha.md"])[0],
        "entities/bob.md"
    );
    assert_eq!(search_paths(&v, &["ÁLPHA"])[0], "entities/alpha.md");
}

/// The shared tldr tarball: `WIKI_TLDR_CORPUS` when set, else `shared/corpora/` beside the
/// checkout, else beside the checkout this one was cloned from (a clean clone elsewhere, as CI
/// makes, whose `origin` is a local path).
fn tldr_tarball() -> PathBuf {
    const REL: &str = "shared/corpora/tldr-pages.tar.gz";
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let origin = std::process::Command::new("git")
        .args(["config", "--get", "remote.origin.url"])
        .current_dir(&checkout)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_absolute());
    let candidates: Vec<PathBuf> = std::env::var_os("WIKI_TLDR_CORPUS")
        .map(PathBuf::from)
        .into_iter()
        .chain([checkout.join("..").join(REL)])
        .chain(origin.map(|o| o.join("..").join(REL)))
        .collect();
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| {
            panic!("the tldr corpus is required for the CJK tests; none of {candidates:?} exists")
        })
}

/// Copy tldr pages out of the shared tarball into `concepts/<lang>/<name>.md`.
fn tldr_vault(members: &[(&str, &str)]) -> Vault {
    let tarball = tldr_tarball();
    let v = vault();
    for (member, dest) in members {
        let out = std::process::Command::new("tar")
            .args(["-xzf"])
            .arg(&tarball)
            .args(["-O", member])
            .output()
            .expect("run tar");
        assert!(
            out.status.success() && !out.stdout.is_empty(),
            "cannot extract {member}"
        );
        v.write(dest, out.stdout);
    }
    v
}

#[test]
fn cjk_queries_find_tldr_pages() {
    let v = tldr_vault(&[
        ("tldr/pages.zh/common/tar.md", "concepts/zh/tar.md"),
        ("tldr/pages.zh/common/git.md", "concepts/zh/git.md"),
        ("tldr/pages.zh/common/ls.md", "concepts/zh/ls.md"),
        ("tldr/pages.ja/common/git.md", "concepts/ja/git.md"),
        ("tldr/pages.ja/common/ls.md", "concepts/ja/ls.md"),
        ("tldr/pages.ja/linux/sed.md", "concepts/ja/sed.md"),
        ("tldr/pages.ko/common/tar.md", "concepts/ko/tar.md"),
        ("tldr/pages.ko/common/ls.md", "concepts/ko/ls.md"),
    ]);
    assert_eq!(
        search_paths(&v, &["分布式版本控制系统"])[0],
        "concepts/zh/git.md"
    );
    assert_eq!(search_paths(&v, &["版本控制"])[0], "concepts/zh/git.md");
    assert_eq!(
        search_paths(&v, &["ディレクトリの内容"])[0],
        "concepts/ja/ls.md"
    );
    assert_eq!(search_paths(&v, &["置換"])[0], "concepts/ja/sed.md");
    assert_eq!(
        search_paths(&v, &["아카이브 유틸리티"])[0],
        "concepts/ko/tar.md"
    );
    // Snippets come from the matching line.
    let run = search(&v, &["分布式版本控制系统"]);
    assert!(
        run.jsonl()[0]["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("分布式版本控制系统"))
    );
}

fn index_report(v: &Vault) -> Value {
    let run = v.run("wiki", &["index", "--format", "jsonl"]);
    run.expect_code(0);
    run.jsonl().remove(0)
}

#[test]
fn index_follows_edits_deletes_and_branch_switches() {
    let v = vault();
    v.write(
        "concepts/a.md",
        page(&["title: A"], "# A\n\nalphaword here.\n"),
    );
    v.write(
        "concepts/b.md",
        page(&["title: B"], "# B\n\nbetaword here.\n"),
    );
    v.commit_all("pages");
    assert_eq!(search_paths(&v, &["alphaword"]), ["concepts/a.md"]);
    let r = index_report(&v);
    assert_eq!(
        (r["files"].as_u64(), r["docs"].as_u64()),
        (Some(2), Some(2))
    );
    // Edit: the new word is found, the old one is gone; only the edited page is re-tokenised.
    v.write(
        "concepts/a.md",
        page(&["title: A"], "# A\n\ngammaword now.\n"),
    );
    let run = v.run("wiki", &["search", "gammaword", "--format", "jsonl"]);
    run.expect_code(0);
    assert_eq!(paths(&run), ["concepts/a.md"]);
    search(&v, &["alphaword"]).expect_code(1);
    v.write(
        "concepts/a.md",
        page(&["title: A"], "# A\n\ndeltaword now.\n"),
    );
    // --no-refresh uses the index as it is: the edit is not seen yet.
    search(&v, &["deltaword", "--no-refresh"]).expect_code(1);
    assert_eq!(
        search_paths(&v, &["gammaword", "--no-refresh"]),
        ["concepts/a.md"]
    );
    let r = index_report(&v);
    assert_eq!(r["tokenized"], 1, "{r}");
    // Delete.
    std::fs::remove_file(v.path("concepts/b.md")).unwrap();
    search(&v, &["betaword"]).expect_code(1);
    let r = index_report(&v);
    assert_eq!(r["files"], 1);
    // Branch switch with real git: the other branch has a different page set.
    v.git(&["checkout", "-q", "--", "."]);
    v.git(&["checkout", "-q", "-b", "other"]);
    v.write(
        "concepts/c.md",
        page(&["title: C"], "# C\n\nepsilonword only on other.\n"),
    );
    v.commit_all("other branch");
    assert_eq!(search_paths(&v, &["epsilonword"]), ["concepts/c.md"]);
    assert_eq!(search_paths(&v, &["betaword"]), ["concepts/b.md"]);
    v.git(&["checkout", "-q", "main"]);
    search(&v, &["epsilonword"]).expect_code(1);
    assert_eq!(search_paths(&v, &["alphaword"]), ["concepts/a.md"]);
    // Back and forth: documents seen before are reused, not re-tokenised.
    v.git(&["checkout", "-q", "other"]);
    let r = index_report(&v);
    assert_eq!(r["tokenized"], 0, "{r}");
    assert!(r["reused"].as_u64() >= Some(1), "{r}");
    assert_eq!(search_paths(&v, &["epsilonword"]), ["concepts/c.md"]);
    // The index is git-ignored.
    assert_eq!(v.status(), "");
}

/// Overwrite `path` in place (same inode, same size) and set its mtime `secs_ago` seconds back.
fn overwrite_in_place(path: &Path, text: &str, secs_ago: u64) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
    f.set_modified(t).unwrap();
}

#[test]
fn index_sees_same_size_in_place_edits_through_mtime_and_ctime() {
    let v = vault();
    let a = v.path("concepts/a.md");
    let text = |word: &str| page(&["title: A"], &format!("# A\n\n{word} here.\n"));
    v.write("concepts/a.md", text("alphaword"));
    v.write("concepts/b.md", page(&["title: B"], "# B\n\nother.\n"));
    // Old mtimes: outside the racily-clean window, so only size + mtime are compared.
    overwrite_in_place(&a, &text("alphaword"), 3600);
    assert_eq!(search_paths(&v, &["alphaword"]), ["concepts/a.md"]);
    // Same size, new mtime: seen by the next search.
    overwrite_in_place(&a, &text("omegaword"), 1800);
    assert_eq!(search_paths(&v, &["omegaword"]), ["concepts/a.md"]);
    search(&v, &["alphaword"]).expect_code(1);
    let r = index_report(&v);
    assert_eq!(
        (r["tokenized"].as_u64(), r["files"].as_u64()),
        (Some(0), Some(2)),
        "{r}"
    );
    // Same size and the very same mtime: the status change time still tells (as git's
    // `core.trustctime` and the parse cache do), once the change is old enough not to be racy.
    let meta = std::fs::metadata(&a).unwrap();
    overwrite_in_place(&a, &text("sigmaword"), 0);
    std::fs::File::options()
        .write(true)
        .open(&a)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    assert_eq!(
        std::fs::metadata(&a).unwrap().modified().unwrap(),
        meta.modified().unwrap()
    );
    assert_eq!(search_paths(&v, &["sigmaword"]), ["concepts/a.md"]);
    search(&v, &["omegaword"]).expect_code(1);
    // Settled (the change time more than 2 s before the check): still seen, and only that
    // page is read again.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    v.edit_keeping_mtime("concepts/a.md", "sigmaword", "deltaword");
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    assert_eq!(search_paths(&v, &["deltaword"]), ["concepts/a.md"]);
    let r = index_report(&v);
    assert_eq!(r["tokenized"].as_u64(), Some(0), "{r}");
    // `wiki index --rebuild` re-reads everything.
    v.run("wiki", &["index", "--rebuild"]).expect_code(0);
    assert_eq!(search_paths(&v, &["deltaword"]), ["concepts/a.md"]);
}

/// Set the mtime of directories an hour back (as if nothing changed in them since).
fn age_dirs(v: &Vault, dirs: &[&str]) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for d in dirs {
        std::fs::File::open(v.path(d))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
}

/// Pages created, deleted or added in a new sub-directory are seen by the next search, even in
/// directories whose mtime is old; an edit in place is seen through the file's own stat.
#[test]
fn listing_sees_creates_deletes_and_new_subdirectories() {
    let v = vault();
    let text = |word: &str| page(&["title: P"], &format!("# P\n\n{word} here.\n"));
    v.write("concepts/a.md", text("alphaword"));
    v.write("concepts/team/b.md", text("betaword"));
    v.write("entities/e.md", text("epsilonword"));
    let mut all = vec!["concepts", "concepts/team", "entities"];
    age_dirs(&v, &all);
    assert_eq!(search_paths(&v, &["alphaword"]), ["concepts/a.md"]);
    assert_eq!(search_paths(&v, &["betaword"]), ["concepts/team/b.md"]);
    // Create, in a directory and in a sub-directory.
    v.write("concepts/c.md", text("gammaword"));
    age_dirs(&v, &all);
    assert_eq!(search_paths(&v, &["gammaword"]), ["concepts/c.md"]);
    v.write("concepts/team/d.md", text("deltaword"));
    age_dirs(&v, &all);
    assert_eq!(search_paths(&v, &["deltaword"]), ["concepts/team/d.md"]);
    // Delete.
    std::fs::remove_file(v.path("concepts/a.md")).unwrap();
    age_dirs(&v, &all);
    search(&v, &["alphaword"]).expect_code(1);
    // A new sub-directory.
    v.write("concepts/new/x.md", text("xiword"));
    all.push("concepts/new");
    age_dirs(&v, &all);
    assert_eq!(search_paths(&v, &["xiword"]), ["concepts/new/x.md"]);
    // An edit inside a file is seen through the file's own stat.
    overwrite_in_place(&v.path("entities/e.md"), &text("omicronwd"), 1800);
    assert_eq!(search_paths(&v, &["omicronwd"]), ["entities/e.md"]);
}

#[test]
fn corrupt_or_old_index_is_rebuilt() {
    let v = vault();
    v.write(
        "concepts/a.md",
        page(&["title: A"], "# A\n\nalphaword here.\n"),
    );
    assert_eq!(search_paths(&v, &["alphaword"]), ["concepts/a.md"]);
    let dir = v.path(".openclaw-wiki/index/wiki-worktree");
    // Flip bytes in every segment.
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with("seg-") {
            let mut b = std::fs::read(e.path()).unwrap();
            let n = b.len();
            for x in &mut b[n / 2..] {
                *x ^= 0x5a;
            }
            std::fs::write(e.path(), b).unwrap();
        }
    }
    let run = search(&v, &["alphaword"]);
    run.expect_code(0);
    assert_eq!(paths(&run), ["concepts/a.md"]);
    assert!(
        run.stderr.contains("corrupt") && run.stderr.contains("rebuilding"),
        "{}",
        run.stderr
    );
    let again = search(&v, &["alphaword"]);
    assert_eq!(again.stderr, "");
    // A manifest from another format version.
    let manifest = dir.join("MANIFEST");
    let mut b = std::fs::read(&manifest).unwrap();
    b[8] = 0;
    b[9] = 0;
    std::fs::write(&manifest, b).unwrap();
    let run = search(&v, &["alphaword"]);
    run.expect_code(0);
    assert!(run.stderr.contains("another format"), "{}", run.stderr);
    // Garbage manifest.
    std::fs::write(&manifest, b"garbage").unwrap();
    let run = search(&v, &["alphaword"]);
    run.expect_code(0);
    assert!(run.stderr.contains("rebuilding"), "{}", run.stderr);
    // Forced rebuild.
    let run = v.run("wiki", &["index", "--rebuild", "--format", "jsonl"]);
    run.expect_code(0);
    assert_eq!(run.jsonl()[0]["rebuilt"], "requested");
}

#[test]
fn concurrent_searches_and_edits_stay_consistent() {
    let v = vault();
    for i in 0..30 {
        v.write(
            &format!("concepts/p{i}.md"),
            page(&[&format!("title: P{i}")], "# P\n\nsharedword text.\n"),
        );
    }
    let mut children = Vec::new();
    for i in 0..6 {
        let mut cmd = v.command("wiki-search");
        cmd.args(["sharedword", "--max-results", "50"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        children.push(cmd.spawn().unwrap());
        v.write(
            &format!("concepts/new{i}.md"),
            page(&["title: N"], "# N\n\nsharedword new.\n"),
        );
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
        assert!(
            out.stdout
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count()
                >= 30
        );
    }
    assert_eq!(
        search_paths(&v, &["sharedword", "--max-results", "50"]).len(),
        36
    );
}

fn memory_ws(v: &Vault) -> PathBuf {
    let ws = v.temp().join("workspace");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    ws
}

#[test]
fn memory_recency_orders_today_above_old_notes() {
    let v = vault();
    let ws = memory_ws(&v);
    let text = "Deploy checklist: drain the gateway, then rotate the tokens.\n";
    std::fs::write(ws.join("memory/2026-04-05.md"), text).unwrap();
    std::fs::write(ws.join("memory/2026-02-04-ops.md"), text).unwrap();
    std::fs::write(ws.join("MEMORY.md"), format!("# Memory\n\n{text}")).unwrap();
    let ws_s = ws.to_str().unwrap();
    let run = search(
        &v,
        &[
            "gateway deploy checklist",
            "--corpus",
            "memory",
            "--memory",
            ws_s,
        ],
    );
    run.expect_code(0);
    let recs = run.jsonl();
    let order: Vec<&str> = recs
        .iter()
        .map(|r| r["path"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(order.last(), Some(&"memory/2026-02-04-ops.md"), "{order:?}");
    let score = |p: &str| {
        recs.iter()
            .find(|r| r["path"] == p)
            .and_then(|r| r["score"].as_f64())
            .unwrap()
    };
    let today = score("memory/2026-04-05.md");
    let old = score("memory/2026-02-04-ops.md");
    // 60 days: the decaying 30% of the score is at a quarter, 0.7 + 0.3 × 0.25.
    assert!((old / today - 0.775).abs() < 0.01, "{today} {old}");
    // MEMORY.md is evergreen: not decayed (its chunk has an extra heading line, so compare
    // against the decayed note only).
    assert!(score("MEMORY.md") > old);
    assert_eq!(recs[0]["kind"], "memory");
    assert_eq!(recs[0]["memorySource"], "memory");
    assert_eq!(recs[0]["startLine"], 1);
    // Text output shows line ranges.
    let run = v.run(
        "wiki",
        &[
            "search",
            "gateway deploy checklist",
            "--corpus",
            "memory",
            "--memory",
            ws_s,
        ],
    );
    assert!(
        run.stdout
            .contains("(memory/memory)\nPath: memory/2026-04-05.md\nLines: 1-1\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn memory_recency_from_the_openclaw_config() {
    let v = vault();
    let ws = memory_ws(&v);
    let text = "Deploy checklist: drain the gateway, then rotate the tokens.\n";
    std::fs::write(ws.join("memory/2026-04-05.md"), text).unwrap();
    std::fs::write(ws.join("memory/2026-02-04-ops.md"), text).unwrap();
    let ws_s = ws.to_str().unwrap();
    let config = v.temp().join("openclaw.json");
    let run_with = |config_text: &str| {
        std::fs::write(&config, config_text).unwrap();
        let mut cmd = v.command("wiki-search");
        cmd.args(["gateway deploy checklist", "--corpus", "memory"])
            .args(["--memory", ws_s, "--min-score", "0"])
            .env("OPENCLAW_CONFIG_PATH", &config);
        wiki_testkit::output(cmd, None)
    };
    // Score of the 60-day-old note over today's.
    let ratio = |config_text: &str| {
        let run = run_with(config_text);
        run.expect_code(0);
        let recs = run.jsonl();
        let score = |p: &str| {
            recs.iter()
                .find(|r| r["path"] == p)
                .and_then(|r| r["score"].as_f64())
                .unwrap()
        };
        score("memory/2026-02-04-ops.md") / score("memory/2026-04-05.md")
    };
    let decay = |inner: &str| {
        format!(
            "{{ agents: {{ defaults: {{ memorySearch: {{ query: {{ hybrid: {{ temporalDecay: {{ {inner} }} }} }} }} }} }} }}"
        )
    };
    let close = |a: f64, b: f64| (a - b).abs() < 0.005;
    // No setting: the default blend, 0.7 + 0.3 × 2^(-60/30).
    let r = ratio("{}");
    assert!(close(r, 0.775), "{r}");
    // The original's decay: 2^(-60/30), or 2^(-60/60) with a 60-day half-life.
    let r = ratio(&decay("enabled: true"));
    assert!(close(r, 0.25), "{r}");
    let r = ratio(&decay("enabled: true, halfLifeDays: 60"));
    assert!(close(r, 0.5), "{r}");
    // Recency off: same text, same score.
    let r = ratio(&decay("enabled: false"));
    assert!(close(r, 1.0), "{r}");
    // A half-life that is not a positive number is a usage error naming the key.
    let run = run_with(&decay("enabled: true, halfLifeDays: 0"));
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki-search: error: {}: agents.defaults.memorySearch.query.hybrid.temporalDecay.halfLifeDays must be a number above 0 (found 0)\n",
            config.display()
        )
    );
}

#[test]
fn memory_importance_chunks_and_corpus_all_balancing() {
    let v = vault();
    let ws = memory_ws(&v);
    std::fs::write(ws.join("memory/low.md"), "Router firmware upgrade notes.\n").unwrap();
    std::fs::write(
        ws.join("memory/high.md"),
        "Router firmware upgrade notes. <!-- importance: 10 -->\n",
    )
    .unwrap();
    let long: String = (1..=300)
        .map(|i| format!("line {i} filler words about nothing in particular\n"))
        .collect();
    std::fs::write(
        ws.join("memory/long.md"),
        format!("{long}router firmware at the end\n"),
    )
    .unwrap();
    for i in 0..6 {
        v.write(
            &format!("concepts/r{i}.md"),
            page(
                &[&format!("title: Router {i}")],
                "# Router\n\nrouter firmware page.\n",
            ),
        );
    }
    let ws_s = ws.to_str().unwrap();
    let recs = search(
        &v,
        &["router firmware", "--corpus", "memory", "--memory", ws_s],
    )
    .jsonl();
    let order: Vec<&str> = recs
        .iter()
        .map(|r| r["path"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(order[0], "memory/high.md");
    let long_hit = recs
        .iter()
        .find(|r| r["path"] == "memory/long.md")
        .expect("long chunk");
    assert!(long_hit["startLine"].as_u64() > Some(1), "{long_hit}");
    assert_eq!(long_hit["endLine"], 301);
    // all: 4 results = 2 wiki + 2 memory even though wiki scores are larger.
    let recs = search(
        &v,
        &[
            "router firmware",
            "--corpus",
            "all",
            "--memory",
            ws_s,
            "--max-results",
            "4",
        ],
    )
    .jsonl();
    let corpora: Vec<&str> = recs
        .iter()
        .map(|r| r["corpus"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(corpora, ["wiki", "wiki", "memory", "memory"]);
    // local backend never touches memory.
    let recs = search(
        &v,
        &[
            "router firmware",
            "--corpus",
            "all",
            "--backend",
            "local",
            "--memory",
            ws_s,
        ],
    )
    .jsonl();
    assert!(recs.iter().all(|r| r["corpus"] == "wiki"));
}

/// A workspace where one file matches both query words, one matches one word, and a dated copy
/// of the first is 90.5 days old (recency 0.7 + 0.3 × 2^(-90.5/30) = 0.7370), among filler notes.
/// A sentence the conversation repeats in many notes shares the weight of two lines: the one
/// old note that answers, with one word of the question, comes before six recent notes that
/// repeat the same two sentences with that word.
#[test]
fn memory_repeated_sentences_do_not_bury_the_answer() {
    let v = vault();
    let ws = memory_ws(&v);
    let chatter = "User: The standup keeps drifting into design discussions.\n\
                   Assistant: Timebox the standup and move design topics to a separate meeting.\n";
    for day in 1..=6 {
        std::fs::write(
            ws.join(format!("memory/2026-03-0{day}.md")),
            format!("# 2026-03-0{day}\n\nUser: The boiler makes a banging noise.\n{chatter}"),
        )
        .unwrap();
    }
    std::fs::write(
        ws.join("memory/2025-11-10.md"),
        "# 2025-11-10\n\nUser: The boiler makes a banging noise.\n\
         User: New standup time: 13:00, because of the time zones.\n",
    )
    .unwrap();
    let ws_s = ws.to_str().unwrap();
    let args = [
        "When is our team standup?",
        "--corpus",
        "memory",
        "--memory",
        ws_s,
        "--max-results",
        "3",
    ];
    assert_eq!(
        search_paths(&v, &args),
        [
            "memory/2025-11-10.md",
            "memory/2026-03-06.md",
            "memory/2026-03-05.md"
        ]
    );
}

fn min_score_ws(v: &Vault) -> PathBuf {
    let ws = memory_ws(v);
    let plan = "Zebra quartz rollout plan for the gateway.\n";
    std::fs::write(ws.join("MEMORY.md"), plan).unwrap();
    std::fs::write(ws.join("memory/2026-01-05.md"), plan).unwrap();
    std::fs::write(
        ws.join("memory/lobby.md"),
        "Zebra stripes in the lobby mural.\n",
    )
    .unwrap();
    for i in 1..=8 {
        std::fs::write(
            ws.join(format!("memory/filler-{i}.md")),
            format!("Filler note {i} about the weekly standup.\n"),
        )
        .unwrap();
    }
    ws
}

const HIT_MEMORY: &str = r#"{"type":"hit","corpus":"memory","path":"MEMORY.md","title":"MEMORY","kind":"memory","score":0.7265,"snippet":"Zebra quartz rollout plan for the gateway.","startLine":1,"endLine":1,"memorySource":"memory","searchMode":"auto","citation":"MEMORY.md#L1"}
"#;
const HIT_LOBBY: &str = r#"{"type":"hit","corpus":"memory","path":"memory/lobby.md","title":"lobby","kind":"memory","score":0.4312,"snippet":"Zebra stripes in the lobby mural.","startLine":1,"endLine":1,"memorySource":"memory","searchMode":"auto","citation":"memory/lobby.md#L1"}
"#;
const HIT_OLD: &str = r#"{"type":"hit","corpus":"memory","path":"memory/2026-01-05.md","title":"2026-01-05","kind":"memory","score":0.5355,"snippet":"Zebra quartz rollout plan for the gateway.","startLine":1,"endLine":1,"memorySource":"memory","searchMode":"auto","citation":"memory/2026-01-05.md#L1"}
"#;

#[test]
fn memory_min_score_drops_weak_hits_and_hits_carry_citations() {
    let v = vault();
    let ws = min_score_ws(&v);
    let ws_s = ws.to_str().unwrap();
    let args = ["zebra quartz", "--corpus", "memory", "--memory", ws_s];
    // Default minScore 0.35: the old copy (0.7265 × 0.7370 = 0.5355) is kept, above the weaker
    // match of one word.
    let run = search(&v, &args);
    run.expect_code(0);
    assert_eq!(run.stdout, format!("{HIT_MEMORY}{HIT_OLD}{HIT_LOBBY}"));
    // --min-score 0.5 drops the weak match.
    let run = search(&v, &[&args[..], &["--min-score", "0.5"]].concat());
    run.expect_code(0);
    assert_eq!(run.stdout, format!("{HIT_MEMORY}{HIT_OLD}"));
    // The cut-off is inclusive.
    let run = search(&v, &[&args[..], &["--min-score", "0.7265"]].concat());
    assert_eq!(run.stdout, HIT_MEMORY);
    // Nothing reaches the minimum: the lexical hits are kept (relaxed fallback).
    let run = search(&v, &[&args[..], &["--min-score", "0.99"]].concat());
    run.expect_code(0);
    assert_eq!(run.stdout, format!("{HIT_MEMORY}{HIT_OLD}{HIT_LOBBY}"));
    // Exact path matches score 1 and always pass.
    let run = search(
        &v,
        &[
            "lobby.md",
            "--corpus",
            "memory",
            "--memory",
            ws_s,
            "--min-score",
            "0.99",
        ],
    );
    assert_eq!(run.stdout, HIT_LOBBY.replace("0.4312", "1"));
    // JSON output carries the citation too; wiki hits never do.
    let run = v.run(
        "wiki",
        &[
            "search",
            "zebra quartz",
            "--corpus",
            "memory",
            "--memory",
            ws_s,
            "--json",
        ],
    );
    run.expect_code(0);
    let hits = run.json();
    let citations: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["citation"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        citations,
        [
            "MEMORY.md#L1",
            "memory/2026-01-05.md#L1",
            "memory/lobby.md#L1"
        ]
    );
    v.write(
        "concepts/zebra.md",
        page(
            &["title: Zebra Quartz"],
            "# Zebra Quartz\n\nzebra quartz.\n",
        ),
    );
    let wiki = search(&v, &["zebra quartz"]).jsonl();
    assert_eq!(wiki.len(), 1);
    assert!(wiki[0].get("citation").is_none(), "{}", wiki[0]);
    // Invalid flag values are usage errors.
    let run = search(&v, &[&args[..], &["--min-score", "1.5"]].concat());
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--min-score must be a number from 0 to 1 (found \"1.5\")"),
        "{}",
        run.stderr
    );
}

#[test]
fn memory_min_score_from_the_openclaw_config() {
    let v = vault();
    let ws = min_score_ws(&v);
    let ws_s = ws.to_str().unwrap();
    let config = v.temp().join("openclaw.json");
    let run_with = |config_text: &str, extra: &[&str]| {
        std::fs::write(&config, config_text).unwrap();
        let mut cmd = v.command("wiki-search");
        cmd.args(["zebra quartz", "--corpus", "memory", "--memory", ws_s])
            .args(extra)
            .env("OPENCLAW_CONFIG_PATH", &config);
        wiki_testkit::output(cmd, None)
    };
    // agents.defaults (JSON5).
    let defaults = "{ agents: { defaults: { memorySearch: { query: { minScore: 0.6 } } } } }";
    let run = run_with(defaults, &[]);
    run.expect_code(0);
    assert_eq!(run.stdout, HIT_MEMORY);
    // The flag wins over the config.
    assert_eq!(
        run_with(defaults, &["--min-score", "0"]).stdout,
        format!("{HIT_MEMORY}{HIT_OLD}{HIT_LOBBY}")
    );
    // A per-agent value wins over the defaults (agent branch `agents/ops`).
    v.commit_all("init");
    v.git(&["branch", "agents/ops"]);
    let per_agent = "{ agents: { defaults: { memorySearch: { query: { minScore: 0.6 } } }, \
                     list: [{ id: 'Ops', memorySearch: { query: { minScore: 0 } } }] } }";
    assert_eq!(
        run_with(per_agent, &["--agent", "ops"]).stdout,
        format!("{HIT_MEMORY}{HIT_OLD}{HIT_LOBBY}")
    );
    assert_eq!(run_with(per_agent, &[]).stdout, HIT_MEMORY);
    // A value that is not a score is a usage error naming the key.
    let run = run_with(
        "{ agents: { defaults: { memorySearch: { query: { minScore: 'high' } } } } }",
        &[],
    );
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki-search: error: {}: agents.defaults.memorySearch.query.minScore must be a number from 0 to 1 (found \"high\")\n",
            config.display()
        )
    );
}

fn source_page() -> String {
    page(
        &[
            "pageType: source",
            "id: source.alpha",
            "title: Alpha Source",
            "sourceType: local-file",
            "sourcePath: /data/alpha.txt",
            "updatedAt: 2026-03-28T10:00:00.000Z",
        ],
        "# Alpha Source\n\nline one\nline two\nline three\n",
    )
}

#[test]
fn get_line_windows() {
    let v = vault();
    v.write("sources/alpha.md", source_page());
    let run = v.run(
        "wiki",
        &[
            "get",
            "sources/alpha.md",
            "--from",
            "4",
            "--lines",
            "2",
            "--json",
        ],
    );
    run.expect_code(0);
    assert_eq!(
        run.json(),
        json!({
            "corpus": "wiki",
            "path": "sources/alpha.md",
            "title": "Alpha Source",
            "kind": "source",
            "content": "line one\nline two",
            "fromLine": 4,
            "lineCount": 2,
            "totalLines": 7,
            "truncated": true,
            "id": "source.alpha",
            "sourceType": "local-file",
            "sourcePath": "/data/alpha.txt",
            "updatedAt": "2026-03-28T10:00:00.000Z"
        })
    );
    let run = v.run(
        "wiki",
        &["get", "sources/alpha", "--from", "4", "--lines", "2"],
    );
    run.expect_code(0);
    assert_eq!(run.stdout, "line one\nline two\n");
    let all = v.run("wiki", &["get", "alpha", "--json"]).json();
    assert_eq!(
        all["content"],
        "\n# Alpha Source\n\nline one\nline two\nline three\n"
    );
    assert_eq!(
        (all["lineCount"].clone(), all["truncated"].clone()),
        (json!(200), json!(false))
    );
    assert_eq!(
        v.run("wiki", &["get", "source.alpha", "--json"]).json()["path"],
        "sources/alpha.md"
    );
    let missing = v.run("wiki", &["get", "nope"]);
    missing.expect_code(1);
    assert_eq!(missing.stdout, "Wiki page not found: nope\n");
    let missing = v.run("wiki", &["get", "nope", "--json"]);
    missing.expect_code(1);
    assert_eq!(missing.stdout, "null\n");
}

#[test]
fn get_by_claim_id_after_compile() {
    let v = vault();
    v.write("sources/alpha.md", source_page());
    v.write(
        "entities/alpha.md",
        claim_page(
            "entity.alpha",
            "Alpha",
            "supported",
            0.9,
            "2026-04-01T00:00:00.000Z",
        ),
    );
    // Before a compile there is no claims cache: the claim is found in the pages themselves.
    let r = v.run("wiki", &["get", "claim.alpha.db", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["path"], "entities/alpha.md");
    // claims.jsonl as written by compile (reference §4.6).
    v.write(
        ".openclaw-wiki/cache/claims.jsonl",
        "{\"id\":\"claim.alpha.db\",\"pageId\":\"entity.alpha\",\"pageTitle\":\"Alpha\",\"pageKind\":\"entity\",\"pagePath\":\"entities/alpha.md\",\"aliases\":[],\"text\":\"Alpha uses PostgreSQL for the primary database.\",\"status\":\"supported\"}\n",
    );
    for lookup in [
        "claim.alpha.db",
        "claim:claim.alpha.db",
        "CLAIM:claim.alpha.db",
    ] {
        let r = v.run("wiki", &["get", lookup, "--json"]);
        r.expect_code(0);
        assert_eq!(r.json()["path"], "entities/alpha.md", "{lookup}");
    }
}

#[test]
fn get_falls_back_to_memory_with_corpus_all() {
    let v = vault();
    let ws = memory_ws(&v);
    std::fs::write(ws.join("MEMORY.md"), "# Memory\nfirst\nsecond\n").unwrap();
    let ws_s = ws.to_str().unwrap();
    v.run("wiki", &["get", "MEMORY", "--memory", ws_s])
        .expect_code(1);
    let r = v.run(
        "wiki",
        &[
            "get", "MEMORY", "--corpus", "all", "--memory", ws_s, "--from", "2", "--json",
        ],
    );
    r.expect_code(0);
    assert_eq!(
        r.json(),
        json!({"corpus": "memory", "path": "MEMORY.md", "title": "MEMORY", "kind": "memory",
               "content": "first\nsecond\n", "fromLine": 2, "lineCount": 200})
    );
}

#[test]
fn agent_branch_is_read_from_git_without_checkout() {
    let v = vault();
    v.write("concepts/a.md", page(&["title: A"], "# A\n\nmainword.\n"));
    v.commit_all("main");
    v.git(&["checkout", "-q", "-b", "agents/bot"]);
    v.write(
        "concepts/bot.md",
        page(
            &["title: Bot"],
            "# Bot\n\nbotword only on the agent branch.\n",
        ),
    );
    v.commit_all("agent");
    v.git(&["checkout", "-q", "main"]);
    assert!(!v.exists("concepts/bot.md"));
    search(&v, &["botword"]).expect_code(1);
    assert_eq!(
        search_paths(&v, &["--agent", "bot", "botword"]),
        ["concepts/bot.md"]
    );
    let r = v.run("wiki", &["--agent", "bot", "get", "bot", "--json"]);
    r.expect_code(0);
    assert_eq!(
        r.json()["content"],
        "\n# Bot\n\nbotword only on the agent branch.\n"
    );
    // An agent without a branch yet reads `HEAD`, as every other command does (its first
    // write starts the branch there).
    search(&v, &["--agent", "ghost", "botword"]).expect_code(1);
    assert_eq!(
        search_paths(&v, &["--agent", "ghost", "mainword"]),
        ["concepts/a.md"]
    );
    let r = v.run("wiki", &["--agent", "ghost", "get", "a", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["content"], "\n# A\n\nmainword.\n");
    let bad = search(&v, &["--agent", "a..b", "botword"]);
    bad.expect_code(2);
    assert!(
        bad.stderr
            .contains("`agents/a..b` is not a valid branch name"),
        "{}",
        bad.stderr
    );
}

/// The reference ranking reproduces the original plugin's recorded outputs byte for byte.
#[test]
fn reference_ranking_reproduces_the_original_outputs() {
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/original/2026.6.11-native");
    let v = Vault::new();
    copy_dir(&golden.join("after-compile"), &v.root);
    let mut checked = 0;
    let mut cmds: Vec<PathBuf> = std::fs::read_dir(golden.join("commands"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.to_string_lossy().ends_with(".cmd") && p.to_string_lossy().contains("-search-")
        })
        .collect();
    cmds.sort();
    for cmd in cmds {
        let line = std::fs::read_to_string(&cmd).unwrap();
        let args = shell_words(line.trim().strip_prefix("openclaw wiki search ").unwrap());
        let mut argv: Vec<&str> = vec!["search", "--ranking", "reference"];
        argv.extend(args.iter().map(String::as_str));
        let run = v.run("wiki", &argv);
        let expected = std::fs::read_to_string(cmd.with_extension("stdout")).unwrap();
        assert_eq!(run.stdout, expected, "{}", cmd.display());
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} golden search commands");
}

fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => cur.extend(chars.next()),
            ' ' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Issue 28, defect 4: the claims cache is a derived file, believed only once the page it names
/// is seen to hold the claim. Truncated, garbage, missing or altered, `wiki get` still answers
/// from the pages, and `wiki compile --check` reports a cache that is there but damaged (not a
/// missing one: a fresh clone has none).
#[test]
fn get_by_claim_id_checks_the_claims_cache() {
    let v = vault();
    v.write("sources/alpha.md", source_page());
    v.write(
        "entities/alpha.md",
        claim_page(
            "entity.alpha",
            "Alpha",
            "supported",
            0.9,
            "2026-04-01T00:00:00.000Z",
        ),
    );
    v.git(&["add", "-A"]);
    v.git(&["commit", "-q", "-m", "pages"]);
    v.run("wiki", &["compile"]).expect_code(0);
    let cache = ".openclaw-wiki/cache/claims.jsonl";
    let good = v.read(cache);
    assert!(
        good.contains("\"pagePath\":\"entities/alpha.md\""),
        "{good}"
    );
    let get = |v: &Vault| {
        let r = v.run("wiki", &["get", "claim.alpha.db", "--json"]);
        r.expect_code(0);
        r.json()["path"].as_str().unwrap_or_default().to_string()
    };
    let altered = good.replace("entities/alpha.md", "sources/alpha.md");
    for damaged in [
        String::new(),
        "garbage \u{1} not json\n".to_string(),
        good[..good.len() / 2].to_string(),
        altered,
    ] {
        v.write(cache, &damaged);
        assert_eq!(get(&v), "entities/alpha.md", "cache: {damaged:?}");
        let check = v.run("wiki", &["compile", "--check"]);
        assert_eq!(check.code, 1, "cache {damaged:?}: {}", check.stderr);
        assert_eq!(check.stdout, format!("{cache}\n"));
    }
    std::fs::remove_file(v.path(cache)).unwrap();
    assert_eq!(get(&v), "entities/alpha.md");
    v.run("wiki", &["compile", "--check"]).expect_code(0);
    // `wiki compile` writes it back.
    v.run("wiki", &["compile"]).expect_code(0);
    assert_eq!(v.read(cache), good);
}

/// Issue 28, defect 5: a compiled cache larger than such a file can be (here a sparse 2 GiB
/// `agent-digest.json`) is treated as stale, never read into memory: compile rewrites it.
#[test]
fn an_oversized_compiled_cache_is_rewritten_not_read() {
    let v = vault();
    v.write("sources/alpha.md", source_page());
    v.git(&["add", "-A"]);
    v.git(&["commit", "-q", "-m", "pages"]);
    v.run("wiki", &["compile"]).expect_code(0);
    let digest = ".openclaw-wiki/cache/agent-digest.json";
    let good = v.read(digest);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(v.path(digest))
        .unwrap();
    file.set_len(2 * 1024 * 1024 * 1024).unwrap();
    drop(file);
    v.run("wiki", &["compile"]).expect_code(0);
    assert_eq!(v.read(digest), good);
}
