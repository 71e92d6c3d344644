//! `wiki compile` behaviour on real git repositories: idempotence, `--check`, human text,
//! commits and trailers, agent branches, the compile cache, errors.

mod common;

use common::*;
use wiki_testkit::{Vault, page};

#[test]
fn second_compile_changes_nothing_and_makes_no_commit() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    let count = v.commit_count();
    let before = v.git(&["rev-parse", "HEAD^{tree}"]);
    for args in [&[][..], &["--force"][..]] {
        let run = compile(&v, args);
        run.expect_code(0);
        assert!(
            run.stdout.ends_with("(23 pages, 0 indexes updated).\n"),
            "{}",
            run.stdout
        );
        assert_eq!(v.commit_count(), count, "no commit for {args:?}");
        assert_eq!(v.git(&["rev-parse", "HEAD^{tree}"]), before);
        assert_eq!(v.status(), "");
    }
}

#[test]
fn check_exits_1_listing_stale_files_and_0_when_current() {
    let v = rich_vault("native");
    let count = v.commit_count();
    let tools = v.files_under(".openclaw-wiki");
    let run = compile(&v, &["--check"]);
    run.expect_code(1);
    let listed: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(listed.len(), 29, "{}", run.stdout);
    assert_eq!(listed[0], "entities/alpha.md");
    // The compiled caches are derived, git-ignored files: not part of the check.
    assert!(
        !listed
            .iter()
            .any(|p| p.starts_with(".openclaw-wiki/cache/"))
    );
    assert_eq!(*listed.last().unwrap(), "reports/index.md");
    assert!(run.stderr.contains("29 compiled files are out of date"));
    // Wrote nothing.
    assert_eq!(v.commit_count(), count);
    assert_eq!(v.status(), "");
    assert!(!v.exists("reports/open-questions.md"));
    let nothing = |before: &[(String, Vec<u8>)]| {
        let changed = Vault::changed_files(before, &v.files_under(".openclaw-wiki"));
        assert!(changed.is_empty(), "--check wrote {changed:?}");
    };
    nothing(&tools);

    compile(&v, &[]).expect_code(0);
    let tools = v.files_under(".openclaw-wiki");
    assert!(tools.iter().any(|(p, _)| p.ends_with("/parse-cache.bin")));
    let run = compile(&v, &["--check"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
    compile(&v, &["--check", "--force"]).expect_code(0);
    nothing(&tools);

    // A meaningful edit makes it stale again, listing exactly what would change.
    let text = v.read("entities/carol.md").replace(
        "questions: Is Carol still on the release rotation?",
        "questions: Is Carol on call?",
    );
    v.write("entities/carol.md", text);
    let run = compile(&v, &["--check", "--json"]);
    run.expect_code(1);
    let json = run.json();
    assert_eq!(json["check"], true);
    let files: Vec<&str> = json["updatedFiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "reports/open-questions.md",
            ".openclaw-wiki/cache/agent-digest.json"
        ]
    );
    nothing(&tools);
}

#[test]
fn one_commit_with_trailers_per_compile() {
    let v = rich_vault("native");
    let count = v.commit_count();
    compile(&v, &[]).expect_code(0);
    assert_eq!(v.commit_count(), count + 1);
    let msg = message(&v, "HEAD");
    assert!(
        msg.starts_with("Compile wiki vault: 29 files updated\n\n"),
        "{msg}"
    );
    let trailers: Vec<&str> = msg.lines().skip(2).filter(|l| !l.is_empty()).collect();
    assert_eq!(trailers[0], "Wiki-Op: compile");
    assert_eq!(trailers.last(), Some(&"Wiki-Agent: main"));
    let pages: Vec<&str> = trailers
        .iter()
        .filter_map(|t| t.strip_prefix("Wiki-Page: "))
        .collect();
    assert_eq!(pages.len(), 29);
    assert!(pages.contains(&"entities/alpha.md"));
    assert!(pages.contains(&"reports/privacy-review.md"));
    // The compiled caches are written beside the commit, not in it.
    assert!(!pages.iter().any(|p| p.starts_with(".openclaw-wiki/cache/")));
    assert!(v.exists(".openclaw-wiki/cache/agent-digest.json"));
    assert!(v.exists(".openclaw-wiki/cache/claims.jsonl"));
    assert_eq!(v.git(&["ls-files", ".openclaw-wiki/cache"]), "");
    // The commit changed exactly those files.
    let changed = v.git(&["diff", "--name-only", "HEAD~1", "HEAD"]);
    assert_eq!(changed.lines().count(), 29);
    // Clean work tree, healthy repository.
    assert_eq!(v.status(), "");
    v.git(&["fsck", "--strict", "--no-dangling"]);
    // The local log got one compile line (git-ignored).
    let log = v.read(".openclaw-wiki/log.jsonl");
    let last: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "compile");
    assert_eq!(last["timestamp"], "2026-04-05T12:00:00.000Z");
    assert_eq!(last["details"]["pageCounts"]["report"], 9);
    assert_eq!(last["details"]["updatedFiles"][0], "entities/alpha.md");
}

#[test]
fn page_trailers_are_capped() {
    let v = init_vault(&[]);
    for i in 0..60 {
        v.write(
            &format!("concepts/c{i:02}.md"),
            page(&[&format!("id: concept.c{i:02}")], "# C\n"),
        );
    }
    v.commit_all("pages");
    compile(&v, &[]).expect_code(0);
    let msg = message(&v, "HEAD");
    let pages = msg.lines().filter(|l| l.starts_with("Wiki-Page: ")).count();
    assert_eq!(pages, 50);
    // 60 pages + 9 dashboards + 6 indexes = 75 committed files (the 2 caches are derived).
    assert!(msg.contains("Wiki-Pages-More: 25\n"), "{msg}");
}

#[test]
fn human_text_outside_markers_is_byte_identical() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    // Human text around and inside managed blocks, in a page, a dashboard and an index.
    let page_path = "concepts/release-process.md";
    let original = v.read(page_path);
    let edited = original
        .replace(
            "Releases are cut weekly",
            "Intro kept as is.\n\nReleases are cut weekly",
        )
        .replace(
            "<!-- openclaw:wiki:related:end -->\n",
            "<!-- openclaw:wiki:related:end -->\n\nTrailing human paragraph.\n",
        )
        .replace("- No related pages yet.", "- stale generated line");
    v.write(page_path, &edited);
    let report = v.read("reports/open-questions.md");
    let report_edited = report.replace(
        "# Open Questions\n",
        "# Open Questions\n\nHuman preface for the dashboard.\n",
    ) + "\nHuman footer.\n";
    v.write("reports/open-questions.md", &report_edited);
    let index = format!("{}\nMy own index notes.\n", v.read("index.md"));
    v.write("index.md", &index);
    v.commit_all("human edits");

    compile(&v, &[]).expect_code(0);
    // Only the generated body changed back.
    assert_eq!(
        v.read(page_path),
        edited.replace("- stale generated line", "- No related pages yet.")
    );
    assert_eq!(v.read("reports/open-questions.md"), report_edited);
    assert_eq!(v.read("index.md"), index);
    assert!(v.read(page_path).contains(
        "<!-- openclaw:human:start -->\nHuman-written note: keep the freeze window at 48 hours.\nDo not let generators touch this.\n<!-- openclaw:human:end -->"
    ));
}

#[test]
fn dashboards_keep_updated_at_unless_their_content_changes() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    let stamp = "updatedAt: 2026-04-05T12:00:00.000Z";
    assert!(v.read("reports/open-questions.md").contains(stamp));
    // A day later, a new question: only open-questions (and the digest) change.
    let text = v.read("concepts/plain-notes.md").replacen(
        "# Plain Notes",
        "---\nquestions: [What is plain?]\n---\n\n# Plain Notes",
        1,
    );
    v.write("concepts/plain-notes.md", text);
    v.commit_all("question");
    let run = v.run(
        "wiki",
        &["compile", "--json", "--now", "2026-04-06T08:00:00Z"],
    );
    run.expect_code(0);
    let files: Vec<String> = run.json()["updatedFiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        [
            "reports/open-questions.md",
            ".openclaw-wiki/cache/agent-digest.json"
        ]
    );
    assert!(
        v.read("reports/open-questions.md")
            .contains("updatedAt: 2026-04-06T08:00:00.000Z")
    );
    assert!(v.read("reports/claim-health.md").contains(stamp));
}

#[test]
fn hand_edits_to_written_pages_are_committed_first() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    let count = v.commit_count();
    // An uncommitted hand edit to a page whose Related block the compile then rewrites.
    let text = v
        .read("entities/dana.md")
        .replace("sourceIds: [source.gamma]", "sourceIds: [source.alpha]");
    v.write("entities/dana.md", &text);
    compile(&v, &[]).expect_code(0);
    assert_eq!(v.commit_count(), count + 2);
    let human = message(&v, "HEAD~1");
    assert!(
        human.contains("Wiki-Human-Edit: entities/dana.md"),
        "{human}"
    );
    assert!(!human.contains("Wiki-Op"), "{human}");
    let tool = message(&v, "HEAD");
    assert!(tool.contains("Wiki-Page: entities/dana.md"), "{tool}");
    assert!(
        v.read("entities/dana.md")
            .contains("### Sources\n\n- [Alpha Source](../sources/alpha.md)")
    );
    // The human commit holds exactly the hand edit.
    let diff = v.git(&["diff", "HEAD~2", "HEAD~1", "--stat"]);
    assert!(
        diff.contains("entities/dana.md") && diff.contains("1 file changed"),
        "{diff}"
    );
    assert_eq!(v.status(), "");
}

#[test]
fn agent_branch_compile_leaves_main_untouched() {
    let v = rich_vault("native");
    let main_before = v.git(&["rev-parse", "main"]);
    let tree_before = v.read("entities/alpha.md");
    let run = v.run("wiki", &["--agent", "bot", "compile"]);
    run.expect_code(0);
    assert!(run.stdout.contains("(23 pages, 31 indexes updated)."));
    assert_eq!(v.git(&["rev-parse", "main"]), main_before);
    assert_eq!(v.git(&["branch", "--show-current"]).trim(), "main");
    assert_eq!(v.read("entities/alpha.md"), tree_before);
    assert_eq!(v.status(), "");
    assert!(!v.exists("reports/open-questions.md"));
    // The agent branch has the compiled files, one commit on top of main.
    assert_eq!(
        v.git(&["rev-parse", "agents/bot~1"]).trim(),
        main_before.trim()
    );
    let msg = message(&v, "agents/bot");
    assert!(msg.contains("Wiki-Agent: bot"), "{msg}");
    let index = v.git(&["show", "agents/bot:index.md"]);
    assert!(index.contains("- Total pages: 23"));
    // Compiling the agent branch again changes nothing.
    let tip = v.git(&["rev-parse", "agents/bot"]);
    v.run("wiki", &["--agent", "bot", "compile"]).expect_code(0);
    assert_eq!(v.git(&["rev-parse", "agents/bot"]), tip);
    v.run("wiki", &["--agent", "bot", "compile", "--check"])
        .expect_code(0);
    // Main is still stale.
    compile(&v, &["--check"]).expect_code(1);
    v.git(&["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn compile_cache_hits_and_misses() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    assert!(v.exists(".openclaw-wiki/tmp/compile-cache.json"));
    assert_eq!(v.status(), "", "the cache directory is ignored");
    // Any change to a file compile reads is a miss; a damaged derived cache is rewritten, and
    // `--check` reports it (a derived cache is verified before it is believed).
    let digest = v.read(".openclaw-wiki/cache/agent-digest.json");
    v.write(".openclaw-wiki/cache/agent-digest.json", "{}\n");
    let run = compile(&v, &["--check"]);
    run.expect_code(1);
    assert!(
        run.stdout
            .contains(".openclaw-wiki/cache/agent-digest.json"),
        "{}",
        run.stdout
    );
    let count = v.commit_count();
    compile(&v, &[]).expect_code(0);
    assert_eq!(v.read(".openclaw-wiki/cache/agent-digest.json"), digest);
    assert_eq!(v.commit_count(), count, "derived files make no commit");
    assert_eq!(v.status(), "");
    // Time moving a claim across a freshness boundary is a miss: 2026-03-25 + 30 days.
    let run = v.run(
        "wiki",
        &["compile", "--check", "--now", "2026-04-24T09:30:00Z"],
    );
    run.expect_code(1);
    assert!(
        run.stdout.contains("reports/claim-health.md"),
        "{}",
        run.stdout
    );
    // Inside the window, a hit.
    v.run(
        "wiki",
        &["compile", "--check", "--now", "2026-04-06T00:00:00Z"],
    )
    .expect_code(0);
}

/// The compile cache keeps the blob ids of the derived caches with the stat data they had,
/// settled, when it was recorded, so a compile it answers does not read them. Files the
/// compile wrote itself are too young to be recorded; `--force` (which reads everything and
/// records again) records them once settled. A derived cache edited since, keeping its size and
/// with its modification time put back, is still seen (its change time moved) and written
/// again.
#[test]
fn the_compile_cache_recognises_settled_derived_caches_by_their_stat_data() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    let recorded = |v: &Vault| -> Vec<String> {
        let entry: serde_json::Value =
            serde_json::from_str(&v.read(".openclaw-wiki/tmp/compile-cache.json"))
                .expect("compile cache is JSON");
        entry["derived"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| r["path"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(recorded(&v), Vec::<String>::new());
    std::thread::sleep(std::time::Duration::from_millis(2100));
    compile(&v, &["--force"]).expect_code(0);
    assert_eq!(
        recorded(&v),
        [
            ".openclaw-wiki/cache/agent-digest.json",
            ".openclaw-wiki/cache/claims.jsonl"
        ]
    );
    compile(&v, &["--check"]).expect_code(0);
    let claims = v.read(".openclaw-wiki/cache/claims.jsonl");
    let path = v.path(".openclaw-wiki/cache/claims.jsonl");
    let modified = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    let edited = claims.replacen("\"claim", "\"cla1m", 1);
    assert_eq!(edited.len(), claims.len());
    assert_ne!(edited, claims);
    v.write(".openclaw-wiki/cache/claims.jsonl", &edited);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(modified))
        .expect("set mtime");
    let run = compile(&v, &["--check"]);
    run.expect_code(1);
    assert!(
        run.stdout.contains(".openclaw-wiki/cache/claims.jsonl"),
        "{}",
        run.stdout
    );
    compile(&v, &[]).expect_code(0);
    assert_eq!(v.read(".openclaw-wiki/cache/claims.jsonl"), claims);
    assert_eq!(v.status(), "");
}

#[test]
fn json_output() {
    let v = rich_vault("native");
    let run = compile(&v, &["--json"]);
    run.expect_code(0);
    let j = run.json();
    assert_eq!(j["pageCounts"]["report"], 9);
    assert_eq!(j["claimCount"], 10);
    assert_eq!(j["renderMode"], "native");
    assert_eq!(j["branch"], "main");
    assert_eq!(j["pages"].as_array().unwrap().len(), 23);
    assert_eq!(j["updatedFiles"].as_array().unwrap().len(), 31);
    assert_eq!(j["frontmatterErrors"], serde_json::json!([]));
    let commit = j["commit"].as_str().unwrap();
    assert_eq!(v.git(&["rev-parse", "HEAD"]).trim(), commit);
}

#[test]
fn not_a_vault_is_an_error_with_a_hint() {
    let v = wiki_testkit::Vault::with_git();
    let run = compile(&v, &["--vault", "."]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("not a wiki vault") && run.stderr.contains("wiki init"),
        "{}",
        run.stderr
    );
}

#[test]
fn links_inside_code_and_external_links_are_not_backlinks() {
    let v = init_vault(&[]);
    v.write(
        "entities/a.md",
        page(
            &["id: entity.a", "title: A"],
            "# A\n\n`[B](b.md)`\n\n```\n[[b]]\n```\n[web](https://b.example)\n",
        ),
    );
    v.write(
        "entities/b.md",
        page(&["id: entity.b", "title: B"], "# B\n"),
    );
    v.write(
        "entities/c.md",
        page(
            &["id: entity.c", "title: C"],
            "# C\n\nOld root-relative link: [B](entities/b.md)\n",
        ),
    );
    v.commit_all("pages");
    compile(&v, &[]).expect_code(0);
    let b = v.read("entities/b.md");
    assert!(
        b.ends_with("## Related\n<!-- openclaw:wiki:related:start -->\n### Referenced By\n\n- [C](c.md)\n<!-- openclaw:wiki:related:end -->\n"),
        "{b}"
    );
}

/// The parse cache (`.openclaw-wiki/tmp/parse-cache.bin`) only skips work (parsing, Related
/// blocks of pages whose link graph is unchanged, digest objects and claim lines of unchanged
/// pages): after edits that keep the link graph (a question, a hand-edited Related block), edits
/// that change it (a new page) and a deletion, a compile that reuses it writes exactly the bytes
/// of a compile without it; a damaged cache is ignored.
/// Compile `fresh` without any cache and check that `cached` (compiled with its caches after the
/// same edits) has the same committed tree and derived caches.
#[track_caller]
fn assert_same_as_cache_free(
    cached: &wiki_testkit::Vault,
    fresh: &wiki_testkit::Vault,
    what: &str,
) {
    std::fs::remove_file(fresh.path(".openclaw-wiki/tmp/parse-cache.bin")).unwrap();
    compile(fresh, &["--force"]).expect_code(0);
    assert_eq!(
        cached.git(&["rev-parse", "HEAD^{tree}"]),
        fresh.git(&["rev-parse", "HEAD^{tree}"]),
        "{what}"
    );
    for f in [
        ".openclaw-wiki/cache/agent-digest.json",
        ".openclaw-wiki/cache/claims.jsonl",
    ] {
        assert_same(f, &bytes(cached, f), &bytes(fresh, f));
    }
}

#[test]
fn parse_cache_gives_the_same_result_as_a_full_parse() {
    let cached = rich_vault("native");
    compile(&cached, &[]).expect_code(0);
    assert!(cached.exists(".openclaw-wiki/tmp/parse-cache.bin"));
    let fresh = rich_vault("native");
    compile(&fresh, &[]).expect_code(0);
    let same_graph = |v: &wiki_testkit::Vault| {
        let text = v.read("entities/carol.md").replace(
            "questions: Is Carol still on the release rotation?",
            "questions: Is Carol on call?",
        );
        v.write("entities/carol.md", text);
        let alpha = v.read("entities/alpha.md");
        let start = alpha.find("<!-- openclaw:wiki:related:start -->").unwrap();
        let mut edited = alpha.clone();
        edited.insert_str(
            start + "<!-- openclaw:wiki:related:start -->\n".len(),
            "- [Hand](x.md)\n",
        );
        v.write("entities/alpha.md", edited);
    };
    let new_page = |v: &wiki_testkit::Vault| {
        v.write(
            "concepts/new-idea.md",
            page(
                &[
                    "id: concept.new-idea",
                    "title: New Idea",
                    "sourceIds: [source.alpha]",
                ],
                "# New Idea\n\nSee [Carol](../entities/carol.md).\n",
            ),
        );
    };
    let delete_page = |v: &wiki_testkit::Vault| {
        std::fs::remove_file(v.path("entities/carol.md")).unwrap();
    };
    // Claim lines change (status and confidence): claims.jsonl is spliced, not kept.
    let edit_claim = |v: &wiki_testkit::Vault| {
        let text = v.read("concepts/databases.md").replace(
            "    status: superseded\n    confidence: 0.6\n",
            "    status: contested\n    confidence: 0.2\n",
        );
        assert!(text.contains("status: contested"));
        v.write("concepts/databases.md", text);
    };
    for step in [
        &same_graph as &dyn Fn(&wiki_testkit::Vault),
        &edit_claim,
        &new_page,
        &delete_page,
    ] {
        step(&cached);
        compile(&cached, &[]).expect_code(0);
        step(&fresh);
        assert_same_as_cache_free(
            &cached,
            &fresh,
            "same tree with and without the parse cache",
        );
    }
    assert!(!cached.read("entities/alpha.md").contains("[Hand](x.md)"));

    // Re-rendered dashboards enter the parse cache with the links and blob id a whole parse
    // of their file gives (their links are extracted apart, beside the digest).
    let cache = wiki_vault::pagecache::ParseCache::load(&cached.path(""));
    let reports: Vec<&str> = cache
        .paths()
        .filter(|p| p.starts_with("reports/"))
        .collect();
    assert!(reports.len() >= 9, "{reports:?}");
    for path in reports {
        let cached_info = cache.get_any(path).unwrap();
        let whole = wiki_parse::parse_page(path, &bytes(&cached, path))
            .unwrap()
            .info;
        assert_eq!(cached_info.blob_id, whole.blob_id, "{path}");
        assert_eq!(cached_info.links, whole.links, "{path}");
    }

    // A damaged cache file is ignored: the next compile parses everything and is current.
    let path = cached.path(".openclaw-wiki/tmp/parse-cache.bin");
    let mut damaged = std::fs::read(&path).unwrap();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x5a;
    std::fs::write(&path, damaged).unwrap();
    let run = compile(&cached, &["--check", "--force"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "");
}

/// The pages a compile reads: with settled files, the parse cache's stat data vouches for the
/// unchanged pages (not read at all); an in-place edit that keeps size and modification time is
/// still seen, and a link-graph change (every Related block recomputed, from pages read on
/// demand) gives what a compile without any cache gives.
#[test]
fn stat_data_vouches_for_unchanged_pages_and_edits_are_seen() {
    let cached = rich_vault("native");
    let fresh = rich_vault("native");
    for v in [&cached, &fresh] {
        compile(v, &[]).expect_code(0);
        // A human's frontmatter on a dashboard survives its re-rendering (the parse cache has
        // no frontmatter: the page is parsed again before it is rendered).
        let text = v.read("reports/open-questions.md");
        v.write(
            "reports/open-questions.md",
            text.replacen("status: active\n", "status: pinned\nowner: ops\n", 1),
        );
        v.commit_all("dashboard owner");
        compile(v, &[]).expect_code(0);
    }
    cached.settle();
    // Records the stat data of every (now settled) page.
    compile(&cached, &["--force"]).expect_code(0);
    let vouched = |v: &wiki_testkit::Vault, args: &[&str]| -> (usize, usize) {
        let mut cmd = v.command("wiki");
        cmd.arg("compile").args(args).env("WIKI_COMPILE_TRACE", "1");
        let run = wiki_testkit::output(cmd, None);
        run.expect_code(0);
        let [pages, vouched, ..] = snapshot_counts(&run.stderr);
        (pages, vouched)
    };
    let (total, all) = vouched(&cached, &["--check"]);
    // Every page but the nine dashboards (report pages are always read).
    assert_eq!(total, 23);
    assert_eq!(all, 23 - 9);

    let same_size = |v: &wiki_testkit::Vault| {
        v.edit_keeping_mtime(
            "entities/carol.md",
            "Is Carol still on the release rotation?",
            "Is Carol still on the release schedule?",
        );
    };
    let new_page = |v: &wiki_testkit::Vault| {
        v.write(
            "concepts/new-idea.md",
            page(
                &["id: concept.new-idea", "title: New Idea"],
                "# New Idea\n\nSee [Carol](../entities/carol.md) and [Alpha](../entities/alpha.md).\n",
            ),
        );
    };
    for (i, step) in [&same_size as &dyn Fn(&wiki_testkit::Vault), &new_page]
        .into_iter()
        .enumerate()
    {
        step(&cached);
        if i == 0 {
            // Old enough to be settled again: only the change time differs from the record.
            cached.settle();
        }
        let (_, trusted) = vouched(&cached, &[]);
        // Step 0: all but the edited page; step 1: every page but the new one (the compile of
        // step 0 recorded the edited page again).
        assert_eq!(trusted, [all - 1, all][i], "step {i}: pages vouched for");
        step(&fresh);
        assert_same_as_cache_free(&cached, &fresh, &format!("step {i}: same tree"));
    }
    assert!(
        cached
            .read(".openclaw-wiki/cache/agent-digest.json")
            .contains("Is Carol still on the release schedule?")
    );
    let dashboard = cached.read("reports/open-questions.md");
    assert!(
        dashboard.contains("status: pinned\nowner: ops\n")
            && dashboard.contains("release schedule?"),
        "{dashboard}"
    );
    assert!(
        cached
            .read("entities/carol.md")
            .contains("[New Idea](../concepts/new-idea.md)")
    );
}

/// Files left by a compile that skipped dashboards, or rendered links in another mode, are never
/// taken as current by the incremental compile.
#[test]
fn incremental_compile_follows_flags_and_render_mode() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    let full_check = |v: &wiki_testkit::Vault, args: &[&str]| {
        std::fs::remove_file(v.path(".openclaw-wiki/tmp/parse-cache.bin")).unwrap();
        let mut all = vec!["--check", "--force"];
        all.extend_from_slice(args);
        let run = compile(v, &all);
        assert_eq!(run.stdout, "", "stale after an incremental compile");
        run.expect_code(0);
    };
    let text = v.read("entities/carol.md").replace(
        "questions: Is Carol still on the release rotation?",
        "questions: Is Carol on call?",
    );
    v.write("entities/carol.md", text);
    compile(&v, &["--no-dashboards"]).expect_code(0);
    assert!(
        !v.read("reports/open-questions.md")
            .contains("Is Carol on call?"),
        "dashboards left alone"
    );
    compile(&v, &[]).expect_code(0);
    assert!(
        v.read("reports/open-questions.md")
            .contains("Is Carol on call?")
    );
    full_check(&v, &[]);
    compile(&v, &[]).expect_code(0);
    compile(&v, &["--render-mode", "obsidian"]).expect_code(0);
    assert!(
        v.read("reports/open-questions.md")
            .contains("[[entities/carol|")
    );
    full_check(&v, &["--render-mode", "obsidian"]);
}

/// A vault that still tracks the compiled caches (made before they became derived files): the
/// next compile commit removes them from git, and they stay on disk even when their content did
/// not change.
#[test]
fn tracked_caches_leave_git_and_stay_on_disk() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    v.git(&[
        "add",
        "-f",
        ".openclaw-wiki/cache/agent-digest.json",
        ".openclaw-wiki/cache/claims.jsonl",
    ]);
    v.git(&[
        "commit",
        "-q",
        "-m",
        "caches tracked, as older vaults had them",
    ]);
    let digest = v.read(".openclaw-wiki/cache/agent-digest.json");
    let claims = v.read(".openclaw-wiki/cache/claims.jsonl");
    // A link changes carol's Related block, not the digest.
    let alpha = v.read("entities/alpha.md") + "\nSee also [Carol](carol.md).\n";
    v.write("entities/alpha.md", alpha);
    compile(&v, &[]).expect_code(0);
    assert_eq!(v.git(&["ls-files", ".openclaw-wiki/cache"]), "");
    let changed = v.git(&["show", "--format=", "--name-status", "HEAD"]);
    assert!(
        changed.contains("D\t.openclaw-wiki/cache/agent-digest.json\n")
            && changed.contains("M\tentities/carol.md\n"),
        "{changed}"
    );
    assert_eq!(v.read(".openclaw-wiki/cache/agent-digest.json"), digest);
    assert_eq!(v.read(".openclaw-wiki/cache/claims.jsonl"), claims);
    // The hand edit to alpha stays the human's (compile did not need to write alpha).
    assert_eq!(v.status(), " M entities/alpha.md\n");
}

/// Temporary files that killed writers left beside the derived caches and the parse cache are
/// removed by the next write of the same file; a live writer's are kept.
#[cfg(target_os = "linux")]
#[test]
fn temporary_files_of_killed_writers_are_removed() {
    let v = rich_vault("native");
    compile(&v, &[]).expect_code(0);
    // No process has this pid (pid_max is at most 2^22).
    let dead = [
        ".openclaw-wiki/cache/.agent-digest.json.999999999-0.tmp",
        // A small change saves the parse cache as its delta file.
        ".openclaw-wiki/tmp/.parse-cache.delta.999999999-1.tmp",
    ];
    let live = format!(
        ".openclaw-wiki/cache/.agent-digest.json.{}-0.tmp",
        std::process::id()
    );
    for f in dead.iter().copied().chain([
        live.as_str(),
        ".openclaw-wiki/cache/.agent-digest.json.x-1.tmp",
    ]) {
        v.write(f, "partial");
    }
    // A meaningful edit: the compile rewrites the digest and the parse cache's delta file.
    let text = v.read("entities/carol.md").replace(
        "questions: Is Carol still on the release rotation?",
        "questions: Is Carol on call?",
    );
    v.write("entities/carol.md", text);
    v.run("wiki", &["compile"]).expect_code(0);
    assert!(v.exists(".openclaw-wiki/tmp/parse-cache.delta"));
    for f in dead {
        assert!(!v.exists(f), "{f} removed");
    }
    assert!(v.exists(&live), "a live writer's temporary file is kept");
    assert!(
        v.exists(".openclaw-wiki/cache/.agent-digest.json.x-1.tmp"),
        "not ours"
    );
    // The temporary files are git-ignored; only the hand edit shows.
    assert_eq!(v.status(), " M entities/carol.md\n");
}

/// The compiled caches are never written through a symbolic link: the commit stands, the run
/// fails with a message saying so, and the repository stays consistent.
#[cfg(unix)]
#[test]
fn caches_are_not_written_through_a_symlink() {
    let v = rich_vault("native");
    let outside = v.temp().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let cache = v.path(".openclaw-wiki/cache");
    let _ = std::fs::remove_dir_all(&cache);
    std::os::unix::fs::symlink(&outside, &cache).unwrap();
    let count = v.commit_count();
    let run = compile(&v, &[]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("cannot write the compiled caches under .openclaw-wiki/cache/")
            && run.stderr.contains("was made"),
        "{}",
        run.stderr
    );
    assert_eq!(v.commit_count(), count + 1, "the compile commit stands");
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written outside"
    );
    v.git(&["fsck", "--strict", "--no-dangling"]);
}

/// A first compile replaces every page (their Related blocks); a later compile finds nothing to
/// redo, and nothing is left beside the vault's files.
#[test]
fn a_large_compile_replaces_every_page_and_leaves_nothing_behind() {
    let v = init_vault(&[]);
    for i in 0..300 {
        v.write(
            &format!("concepts/c{i:03}.md"),
            format!(
                "---\npageType: concept\nid: concept.c{i}\ntitle: C{i}\n---\n# C{i}\n\nSee [[concepts/c{:03}]].\n",
                (i + 1) % 300
            ),
        );
    }
    v.commit_all("pages");
    compile(&v, &[]).expect_code(0);
    v.wait_for_background_packers();
    let locks: Vec<_> = std::fs::read_dir(v.path(".openclaw-wiki/locks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".gitignore" && n != "write.lock")
        .collect();
    assert!(locks.is_empty(), "{locks:?}");
    assert!(v.read("concepts/c000.md").contains("[[concepts/c001"));
    assert_eq!(v.status(), "");
    compile(&v, &["--check"]).expect_code(0);
    v.git(&["fsck", "--strict", "--no-progress"]);
}

/// With caches over 1 MiB (`agent-digest.json`, `claims.jsonl`, the parse cache), operations and
/// incremental compiles read them through read-only maps (`wiki_parse::mapped`): what they write
/// is byte for byte what a full `--force` compile writes.
#[test]
fn large_caches_are_read_mapped_and_spliced_exactly() {
    let v = init_vault(&[]);
    let filler = "Ingest pipelines shard by owner and replay the journal on restart. ".repeat(16);
    for i in 0..160 {
        let mut fm = vec![
            format!("id: entity.big-{i}"),
            format!("title: Big {i}"),
            "pageType: entity".to_string(),
            "updatedAt: 2026-03-01".to_string(),
            "claims:".to_string(),
        ];
        for c in 0..6 {
            fm.push(format!("  - id: claim.big-{i}.{c}"));
            fm.push(format!("    text: Claim {c} of page {i}. {filler}"));
            fm.push("    status: supported".to_string());
            fm.push(format!("    confidence: 0.{}", (i + c) % 9 + 1));
            fm.push("    updatedAt: 2026-02-01".to_string());
            fm.push("    evidence:".to_string());
            fm.push(format!("      - sourceId: source.big-{c}"));
            fm.push(format!("        note: {filler}"));
        }
        let fm: Vec<&str> = fm.iter().map(String::as_str).collect();
        v.write(&format!("entities/big-{i}.md"), page(&fm, "Body.\n"));
    }
    v.commit_all("large pages");
    compile(&v, &[]).expect_code(0);
    let threshold: u64 = 1 << 20;
    for rel in [
        ".openclaw-wiki/cache/agent-digest.json",
        ".openclaw-wiki/cache/claims.jsonl",
        ".openclaw-wiki/tmp/parse-cache.bin",
    ] {
        let len = std::fs::metadata(v.path(rel)).unwrap().len();
        assert!(len >= threshold, "{rel}: {len} bytes, not mapped");
    }
    // An operation (digest and claims spliced from the mapped old files), then a hand edit
    // compiled incrementally.
    let ops = concat!(
        r#"{"op":"update_claim","claimId":"claim.big-7.3","status":"contested","confidence":0.2}"#,
        "\n",
        r#"{"op":"add_question","page":"entity.big-90","question":"Mapped?"}"#,
        "\n"
    );
    let cache_files = || {
        [
            ".openclaw-wiki/tmp/parse-cache.bin",
            ".openclaw-wiki/tmp/parse-cache.delta",
        ]
        .map(|rel| std::fs::read(v.path(rel)).ok())
    };
    let cache_before = cache_files();
    let mut cmd = v.command("wiki-apply");
    cmd.env("WIKI_COMPILE_TRACE", "1");
    let run = wiki_testkit::output(cmd, Some(ops.as_bytes()));
    run.expect_code(0);
    // The old files were spliced, not rendered again.
    assert!(run.stderr.contains("digest reused true"), "{}", run.stderr);
    // It saved the parse cache (on a thread beside its commit).
    assert!(
        run.stderr.contains("save parse cache (aside)"),
        "{}",
        run.stderr
    );
    assert_ne!(cache_files(), cache_before);
    let text = v
        .read("entities/big-42.md")
        .replace("title: Big 42", "title: Big Forty-Two");
    v.write("entities/big-42.md", text);
    compile(&v, &[]).expect_code(0);
    let derived = |v: &wiki_testkit::Vault| {
        [
            bytes(v, ".openclaw-wiki/cache/agent-digest.json"),
            bytes(v, ".openclaw-wiki/cache/claims.jsonl"),
        ]
    };
    let spliced = derived(&v);
    assert!(String::from_utf8_lossy(&spliced[1]).contains(r#""status":"contested""#));
    compile(&v, &["--force"]).expect_code(0);
    let full = derived(&v);
    assert_same("agent-digest.json", &spliced[0], &full[0]);
    assert_same("claims.jsonl", &spliced[1], &full[1]);
    // The hand edit is the human's to commit (compile wrote other files only).
    assert_eq!(v.status(), " M entities/big-42.md\n");
}

#[test]
fn pages_take_blob_ids_from_the_git_index_only_when_it_vouches() {
    let v = init_vault(&[]);
    let filler = "Shards replay the journal on restart and keep their owner. ".repeat(1400);
    let fm = [
        "id: entity.big",
        "title: Big",
        "pageType: entity",
        "claims:",
        "  - id: claim.big.a",
        "    text: Original wording here",
        "    status: supported",
    ];
    v.write("entities/big.md", page(&fm, &filler));
    v.write(
        "entities/small.md",
        page(&["id: entity.small", "title: Small"], "Small.\n"),
    );
    v.commit_all("pages");
    compile(&v, &[]).expect_code(0);
    // An index written well after every file: no entry is racily clean, on any clock.
    std::thread::sleep(std::time::Duration::from_millis(50));
    v.git(&["rm", "-q", "--cached", "entities/big.md"]);
    v.git(&["add", "entities/big.md"]);
    // How many blob ids a read-only command's snapshot took from the index.
    let indexed = || {
        let mut cmd = v.command("wiki");
        cmd.args(["lint"]).env("WIKI_COMPILE_TRACE", "1");
        let run = wiki_testkit::output(cmd, None);
        snapshot_counts(&run.stderr)[3]
    };
    // (How many depends on what the parse cache vouches for first, which changes as files
    // settle: at least the two pages here.)
    assert!(indexed() >= 2);
    // A hand edit keeping the size and the modification time: the index no longer vouches for
    // that page (its change time differs), which is hashed, and its new text is compiled (an
    // index trusted on size and modification time alone would give the old blob id, whose
    // parse-cache entry has the old text).
    // `git status` (below) compares change times to the whole second only (git is built
    // without nanosecond stat checks here): the edit must land in a later second than the
    // page's last write, or git itself would take the edited file for the indexed one. Our
    // index vouching compares nanoseconds and needs no such wait.
    let written = std::fs::metadata(v.path("entities/big.md"))
        .map(|m| std::os::unix::fs::MetadataExt::ctime(&m))
        .expect("stat");
    while std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
        < written as f64 + 1.05
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    v.edit_keeping_mtime("entities/big.md", "Original wording", "Replaced wording");
    let op = r#"{"op":"add_question","page":"entity.small","question":"Fresh?"}"#;
    wiki_testkit::output(v.command("wiki-apply"), Some(op.as_bytes())).expect_code(0);
    let claims = v.read(".openclaw-wiki/cache/claims.jsonl");
    assert!(claims.contains("Replaced wording here"), "{claims}");
    assert!(!claims.contains("Original wording here"), "{claims}");
    assert_eq!(v.git(&["status", "--porcelain"]), " M entities/big.md\n");
}
