//! `wiki chatgpt import` and `wiki chatgpt rollback` end to end.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wiki_testkit::Vault;

/// A conversation whose active branch is `messages` (a dead branch hangs off the first one).
fn conversation(id: &str, title: &str, messages: &[(&str, &str)]) -> Value {
    let mut mapping = serde_json::Map::new();
    let mut parent: Option<String> = None;
    for (i, (role, text)) in messages.iter().enumerate() {
        let node = format!("{id}-{i}");
        mapping.insert(
            node.clone(),
            json!({"message": {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}, "parent": parent}),
        );
        parent = Some(node);
    }
    mapping.insert(
        format!("{id}-dead"),
        json!({"message": {"author": {"role": "assistant"}, "content": {"parts": ["abandoned branch"]}}, "parent": format!("{id}-0")}),
    );
    json!({"conversation_id": id, "title": title, "create_time": 1775390400, "update_time": 1775390460, "current_node": parent, "mapping": mapping})
}

fn export(dir: &Path, conversations: &[Value]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("conversations.json"),
        serde_json::to_string(conversations).unwrap(),
    )
    .unwrap();
    dir.to_path_buf()
}

fn first() -> Vec<Value> {
    vec![
        conversation(
            "aaa-111",
            "Sourdough tips",
            &[
                ("user", "I prefer rye flour\nHow long to proof?"),
                ("assistant", "About 4 hours."),
            ],
        ),
        conversation(
            "bbb-222",
            "Visa question",
            &[
                ("user", "My visa expires soon"),
                ("assistant", "Ask the consulate."),
            ],
        ),
    ]
}

fn vault() -> (Vault, PathBuf) {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    let temp = std::fs::canonicalize(v.temp()).unwrap();
    (v, temp)
}

fn run_id(stdout: &str) -> String {
    let at = stdout.find("Run id: ").expect(stdout) + "Run id: ".len();
    let id = stdout[at..].trim_end().trim_end_matches('.').to_string();
    assert!(
        id.len() == 20
            && id.starts_with("chatgpt-")
            && id[8..].chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    id
}

const A: &str = "sources/chatgpt-2026-04-05-aaa111.md";
const B: &str = "sources/chatgpt-2026-04-05-bbb222.md";

#[test]
fn dry_run_writes_nothing_and_import_is_one_commit() {
    let (v, temp) = vault();
    let dir = export(&temp.join("export"), &first());
    let before = v.files_under(".");
    let dry = v.run(
        "wiki",
        &[
            "chatgpt",
            "import",
            "--export",
            dir.to_str().unwrap(),
            "--dry-run",
        ],
    );
    dry.expect_code(0);
    assert_eq!(
        dry.stdout,
        "ChatGPT import dry run scanned 2 conversations (2 new, 0 updated, 0 unchanged).\n"
    );
    assert_eq!(
        Vault::changed_files(&before, &v.files_under(".")),
        Vec::<String>::new()
    );
    assert_eq!(v.commit_count(), 1);

    let run = v.run(
        "wiki",
        &["chatgpt", "import", "--export", dir.to_str().unwrap()],
    );
    run.expect_code(0);
    let id = run_id(&run.stdout);
    assert!(
        run.stdout.starts_with(
            "ChatGPT import applied 2 conversations (2 new, 0 updated, 0 unchanged). Refreshed "
        ),
        "{}",
        run.stdout
    );
    assert_eq!(v.commit_count(), 2);
    assert!(v.git(&["log", "-1", "--format=%B"]).contains(&format!(
        "Wiki-Op: chatgpt-import\nWiki-Page: {A}\nWiki-Page: {B}\nWiki-Run: {id}\n"
    )));
    let a = v.read(A);
    let src = temp.join("export/conversations.json");
    assert!(a.starts_with(&format!(
        "---\npageType: source\nid: source.chatgpt.aaa111\ntitle: \"ChatGPT Export: Sourdough tips\"\nsourceType: chatgpt-export\nsourceSystem: chatgpt\nsourcePath: {}\nconversationId: aaa-111\nriskLevel: low\nriskReasons: []\nlabels:\n  - domain/personal\n  - area/cooking\n  - topic/cooking\nstatus: draft\ncreatedAt: 2026-04-05T12:00:00.000Z\nupdatedAt: 2026-04-05T12:01:00.000Z\n---\n\n# ChatGPT Export: Sourdough tips\n",
        src.display()
    )), "{a}");
    assert!(a.contains("## Auto Digest\n- User messages: 1\n- Assistant messages: 1\n- First user line: I prefer rye flour\n- Last user line: I prefer rye flour\n- Preference signals:\n  - I prefer rye flour\n\n## Active Branch Transcript\n### User\n\nI prefer rye flour\nHow long to proof?\n\n### Assistant\n\nAbout 4 hours.\n\n## Notes\n"), "{a}");
    assert!(!a.contains("abandoned branch"));
    let b = v.read(B);
    assert!(
        b.contains("riskLevel: high\nriskReasons:\n  - legal_tax\n"),
        "{b}"
    );
    assert!(b.contains("## Auto Digest\n- Auto digest withheld from durable-candidate generation until reviewed.\n- Risk reasons: legal_tax\n"), "{b}");
    let record: Value =
        serde_json::from_str(&v.read(&format!(".openclaw-wiki/import-runs/{id}.json"))).unwrap();
    assert_eq!(record["createdPaths"], json!([A, B]));
    assert_eq!(record["commit"], v.git(&["rev-parse", "HEAD"]).trim());
    assert_eq!(v.status(), "");
    // The same export again: nothing to do, no run id, no commit.
    let again = v.run(
        "wiki",
        &[
            "chatgpt",
            "import",
            "--export",
            dir.to_str().unwrap(),
            "--json",
        ],
    );
    again.expect_code(0);
    let j = again.json();
    assert_eq!(j["skippedCount"], 2);
    assert!(j.get("runId").is_none());
    assert_eq!(j["actions"][0]["operation"], "skip");
    assert_eq!(
        j["actions"][0]["preferenceSignals"],
        json!(["I prefer rye flour"])
    );
    assert_eq!(v.commit_count(), 2);
}

/// Import, notes, an updating import, rollback to the exact tree before it, and again.
#[test]
fn update_keeps_notes_and_rollback_restores_the_exact_tree() {
    let (v, temp) = vault();
    let dir = export(&temp.join("export"), &first());
    v.run(
        "wiki",
        &["chatgpt", "import", "--export", dir.to_str().unwrap()],
    )
    .expect_code(0);
    let noted = v.read(A).replace(
        "<!-- openclaw:human:start -->\n",
        "<!-- openclaw:human:start -->\nTry 75% hydration.\n",
    );
    v.write(A, &noted);
    v.commit_all("my note");
    let before = v.git(&["rev-parse", "HEAD"]);
    let mut second = first();
    second[0] = conversation(
        "aaa-111",
        "Sourdough tips",
        &[
            ("user", "I prefer rye flour\nHow long to proof?"),
            ("assistant", "About 5 hours."),
        ],
    );
    export(&dir, &second);
    let run = v.run(
        "wiki",
        &[
            "--now",
            "2026-04-06T00:00:00Z",
            "chatgpt",
            "import",
            "--export",
            dir.to_str().unwrap(),
        ],
    );
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("ChatGPT import applied 2 conversations (0 new, 1 updated, 1 unchanged)."),
        "{}",
        run.stdout
    );
    let id = run_id(&run.stdout);
    let a = v.read(A);
    assert!(
        a.contains("About 5 hours.") && a.contains("Try 75% hydration.\n"),
        "{a}"
    );
    let rb = v.run(
        "wiki",
        &["--now", "2026-04-07T00:00:00Z", "chatgpt", "rollback", &id],
    );
    rb.expect_code(0);
    assert!(
        rb.stdout.starts_with(&format!(
            "Rolled back ChatGPT import run {id} (0 removed, 1 restored). Refreshed "
        )),
        "{}",
        rb.stdout
    );
    assert_eq!(v.git(&["diff", before.trim(), "HEAD"]), "");
    assert_eq!(v.status(), "");
    let commits = v.commit_count();
    let twice = v.run("wiki", &["chatgpt", "rollback", &id]);
    twice.expect_code(0);
    assert_eq!(
        twice.stdout,
        format!("ChatGPT import run {id} was already rolled back.\n")
    );
    assert_eq!(v.commit_count(), commits);
}

#[test]
fn rollback_keeps_later_edits_and_names_pages_it_cannot_restore() {
    let (v, temp) = vault();
    let dir = export(&temp.join("export"), &first());
    v.run(
        "wiki",
        &["chatgpt", "import", "--export", dir.to_str().unwrap()],
    )
    .expect_code(0);
    let mut second = first();
    second[0] = conversation(
        "aaa-111",
        "Sourdough tips",
        &[
            ("user", "I prefer rye flour\nHow long to proof?"),
            ("assistant", "About 5 hours."),
        ],
    );
    second[1] = conversation(
        "bbb-222",
        "Visa question",
        &[
            ("user", "My visa expires soon"),
            ("assistant", "Ask the embassy."),
        ],
    );
    second.push(conversation(
        "ccc-333",
        "Garden beds",
        &[("user", "Raised beds?")],
    ));
    export(&dir, &second);
    let run = v.run(
        "wiki",
        &["chatgpt", "import", "--export", dir.to_str().unwrap()],
    );
    let id = run_id(&run.stdout);
    // After the import: a note on A (elsewhere than the run's change), a conflicting edit on B.
    v.write(
        A,
        v.read(A).replace(
            "<!-- openclaw:human:start -->\n",
            "<!-- openclaw:human:start -->\nlater note\n",
        ),
    );
    v.write(
        B,
        v.read(B)
            .replace("Ask the embassy.", "Ask the embassy (I did)."),
    );
    v.commit_all("later edits");
    let rb = v.run("wiki", &["chatgpt", "rollback", &id, "--json"]);
    rb.expect_code(1);
    let j = rb.json();
    assert_eq!(j["removedCount"], 1);
    assert_eq!(j["restoredCount"], 1);
    assert_eq!(j["notRestored"][0]["path"], B);
    assert!(
        j["notRestored"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("edited after the import ("),
        "{j}"
    );
    let a = v.read(A);
    assert!(
        a.contains("About 4 hours.") && a.contains("later note\n"),
        "{a}"
    );
    assert!(v.read(B).contains("Ask the embassy (I did)."));
    assert!(!v.exists("sources/chatgpt-2026-04-05-ccc333.md"));
}

#[test]
fn rollback_works_from_git_history_without_the_local_record() {
    let (v, temp) = vault();
    let dir = export(&temp.join("export"), &first());
    // A vault the tools keep is compiled; a rollback recompiles, so compare with a compiled tree.
    v.run("wiki", &["compile"]).expect_code(0);
    let before = v.git(&["rev-parse", "HEAD"]);
    let run = v.run(
        "wiki",
        &["chatgpt", "import", "--export", dir.to_str().unwrap()],
    );
    let id = run_id(&run.stdout);
    std::fs::remove_dir_all(v.path(".openclaw-wiki/import-runs")).unwrap();
    let rb = v.run("wiki", &["chatgpt", "rollback", &id]);
    rb.expect_code(0);
    assert!(
        rb.stdout.starts_with(&format!(
            "Rolled back ChatGPT import run {id} (2 removed, 0 restored)."
        )),
        "{}",
        rb.stdout
    );
    assert_eq!(v.git(&["diff", before.trim(), "HEAD"]), "");
    std::fs::remove_dir_all(v.path(".openclaw-wiki/import-runs")).unwrap();
    let twice = v.run("wiki", &["chatgpt", "rollback", &id]);
    assert_eq!(
        twice.stdout,
        format!("ChatGPT import run {id} was already rolled back.\n")
    );
}

#[test]
fn bad_exports_and_run_ids_are_reported() {
    let (v, temp) = vault();
    let bad = temp.join("bad.json");
    std::fs::write(&bad, "[\n  {\"conversation_id\": \"x\",\n  oops\n]").unwrap();
    let run = v.run(
        "wiki",
        &["chatgpt", "import", "--export", bad.to_str().unwrap()],
    );
    run.expect_code(2);
    assert!(
        run.stderr.starts_with(&format!(
            "wiki: error: {}:3: invalid JSON (column 3): ",
            bad.display()
        )),
        "{}",
        run.stderr
    );
    let shape = temp.join("shape.json");
    std::fs::write(&shape, "{\"labels\": {}}").unwrap();
    let run = v.run(
        "wiki",
        &["chatgpt", "import", "--export", shape.to_str().unwrap()],
    );
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: Unrecognized ChatGPT conversations export format: {}\n",
            shape.display()
        )
    );
    let missing_id = temp.join("noid.json");
    std::fs::write(&missing_id, "{\"conversations\": [{\"title\": \"no id\"}]}").unwrap();
    let run = v.run(
        "wiki",
        &[
            "chatgpt",
            "import",
            "--export",
            missing_id.to_str().unwrap(),
        ],
    );
    run.expect_code(1);
    assert_eq!(
        run.stderr,
        format!(
            "wiki: {}: conversation #1 has no conversation_id; skipped\n",
            missing_id.display()
        )
    );
    let run = v.run("wiki", &["chatgpt", "rollback", "../../etc"]);
    run.expect_code(2);
    let run = v.run("wiki", &["chatgpt", "rollback", "chatgpt-000000000000"]);
    run.expect_code(2);
    assert_eq!(
        run.stderr,
        "wiki: error: no ChatGPT import run chatgpt-000000000000: no .openclaw-wiki/import-runs/chatgpt-000000000000.json and no commit with `Wiki-Run: chatgpt-000000000000` on main\n"
    );
}
