//! `wiki memory status|index|search|get|facts` on real workspaces, with the real binary.

mod common;

use common::Env;

const NOTE: &str = "# 2025-11-27\n\nWorked on the Baileys crash today.\n\n## Retain\n- W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.\n- B @warelay: I fixed the Baileys WS crash by wrapping connection.update handlers in try/catch.\n- O(c=0.95) @Peter: Prefers concise replies (<1500 chars) on WhatsApp; long content goes into files.\n- S Quiet day otherwise.\n";

fn env_with_notes() -> Env {
    let e = Env::new();
    e.write(
        "MEMORY.md",
        "# Long-Term Memory\n\n- The gateway runs on the castle box, port 18789.\n",
    );
    e.write("memory/2025-11-27.md", NOTE);
    e.write(
        "memory/2026-03-20-trip.md",
        "## Retain\n- O(c=0.6) @Peter: Prefers long voice notes over text.\n- W @Castle: The castle box has 32 GB of RAM.\n",
    );
    e
}

#[test]
fn facts_lists_every_type_with_sources() {
    let e = env_with_notes();
    let r = e.memory(&["facts"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        concat!(
            r#"{"type":"fact","kind":"world","timestamp":"2025-11-27","entities":["Peter"],"content":"Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.","confidence":null,"source":"memory/2025-11-27.md#L6"}"#,
            "\n",
            r#"{"type":"fact","kind":"experience","timestamp":"2025-11-27","entities":["warelay"],"content":"I fixed the Baileys WS crash by wrapping connection.update handlers in try/catch.","confidence":null,"source":"memory/2025-11-27.md#L7"}"#,
            "\n",
            r#"{"type":"fact","kind":"opinion","timestamp":"2025-11-27","entities":["Peter"],"content":"Prefers concise replies (<1500 chars) on WhatsApp; long content goes into files.","confidence":0.95,"source":"memory/2025-11-27.md#L8"}"#,
            "\n",
            r#"{"type":"fact","kind":"observation","timestamp":"2025-11-27","entities":[],"content":"Quiet day otherwise.","confidence":null,"source":"memory/2025-11-27.md#L9"}"#,
            "\n",
            r#"{"type":"fact","kind":"opinion","timestamp":"2026-03-20","entities":["Peter"],"content":"Prefers long voice notes over text.","confidence":0.6,"source":"memory/2026-03-20-trip.md#L2"}"#,
            "\n",
            r#"{"type":"fact","kind":"world","timestamp":"2026-03-20","entities":["Castle"],"content":"The castle box has 32 GB of RAM.","confidence":null,"source":"memory/2026-03-20-trip.md#L3"}"#,
            "\n",
        )
    );
    assert_eq!(r.stderr, "");
}

#[test]
fn facts_filters_by_kind_entity_and_time() {
    let e = env_with_notes();
    let sources = |args: &[&str]| -> Vec<String> {
        let r = e.memory(args);
        r.expect_code(0);
        r.jsonl()
            .iter()
            .map(|f| f["source"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        sources(&["facts", "--kind", "opinion"]),
        vec!["memory/2025-11-27.md#L8", "memory/2026-03-20-trip.md#L2"]
    );
    assert_eq!(
        sources(&["facts", "--kind", "W", "--entity", "@castle"]),
        vec!["memory/2026-03-20-trip.md#L3"]
    );
    assert_eq!(
        sources(&["facts", "--since", "30d"]),
        vec![
            "memory/2026-03-20-trip.md#L2",
            "memory/2026-03-20-trip.md#L3"
        ]
    );
    assert_eq!(
        sources(&["facts", "--at", "2025-11", "--entity", "warelay"]),
        vec!["memory/2025-11-27.md#L7"]
    );
    let text = e.memory(&["facts", "--format", "text", "--kind", "o", "--at", "2026"]);
    assert_eq!(
        text.stdout,
        "2026-03-20 O(c=0.6) @Peter: Prefers long voice notes over text. (memory/2026-03-20-trip.md#L2)\n"
    );
    let bad = e.memory(&["facts", "--kind", "rumour"]);
    bad.expect_code(2);
    assert!(
        bad.stderr
            .contains("--kind must be world, experience, opinion or observation")
    );
    let bad = e.memory(&["facts", "--since", "soon"]);
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("--since must be a duration"),
        "{}",
        bad.stderr
    );
}

#[test]
fn malformed_retain_bullets_are_reported_with_their_line() {
    let e = Env::new();
    e.write(
        "memory/2026-04-01.md",
        "## Retain\n- W @Ann: Fine.\n- X @Ann: unknown type\n- O(c=1.4) too sure\nplain text line\n- W(c=0.5) not an opinion\n- W @Ann:\n\n## Notes\n- X not in a Retain section\n",
    );
    let r = e.memory(&["facts"]);
    r.expect_code(1);
    assert_eq!(
        r.stderr,
        concat!(
            "wiki: memory/2026-04-01.md:3: unknown fact type `X` (expected W, B, O(c=…) or S)\n",
            "wiki: memory/2026-04-01.md:4: opinion confidence must be a number from 0 to 1 (found `1.4`)\n",
            "wiki: memory/2026-04-01.md:5: not a fact bullet (expected `- W|B|O(c=…)|S …`)\n",
            "wiki: memory/2026-04-01.md:6: only opinions (O) carry a confidence, found `W(c=0.5)`\n",
            "wiki: memory/2026-04-01.md:7: fact has no content\n",
        )
    );
    let records = r.jsonl();
    assert_eq!(records.len(), 6);
    assert_eq!(records[0]["content"], "Fine.");
    assert_eq!(records[1]["type"], "malformed");
    assert_eq!(records[1]["source"], "memory/2026-04-01.md#L3");
}

#[test]
fn unreadable_note_is_reported_and_the_others_listed() {
    let e = env_with_notes();
    std::fs::write(
        e.ws.join("memory/2026-01-02.md"),
        b"## Retain\n- W ok\n\xff\xfe\n",
    )
    .unwrap();
    let r = e.memory(&["facts", "--kind", "world"]);
    r.expect_code(2);
    assert_eq!(r.stderr, "wiki: memory/2026-01-02.md:3: not UTF-8 text\n");
    assert_eq!(r.jsonl().len(), 2);
}

#[test]
fn search_ranks_memory_chunks_with_citations() {
    let e = env_with_notes();
    let r = e.memory(&["search", "--json", "baileys", "crash"]);
    r.expect_code(0);
    let hits = r.jsonl();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["type"], "hit");
    assert_eq!(hits[0]["path"], "memory/2025-11-27.md");
    assert_eq!(hits[0]["citation"], "memory/2025-11-27.md#L1-L9");
    let text = e.memory(&["search", "castle", "box"]);
    text.expect_code(0);
    assert!(
        text.stdout
            .starts_with("1. MEMORY (memory/memory)\nPath: MEMORY.md\nLines: 1-3\n"),
        "{}",
        text.stdout
    );
    let none = e.memory(&["search", "zebra"]);
    none.expect_code(1);
    assert_eq!(none.stdout, "No memory results.\n");
}

#[test]
fn get_reads_lines_and_refuses_paths_outside() {
    let e = env_with_notes();
    let r = e.memory(&["get", "memory/2025-11-27.md#L6-L7"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        "- W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.\n- B @warelay: I fixed the Baileys WS crash by wrapping connection.update handlers in try/catch.\n"
    );
    let j = e.memory(&["get", "--json", "MEMORY.md", "--from", "3", "--lines", "5"]);
    j.expect_code(0);
    assert_eq!(
        j.stdout,
        "{\"type\":\"file\",\"path\":\"MEMORY.md\",\"from\":3,\"lines\":1,\"totalLines\":3,\"truncated\":true,\"text\":\"- The gateway runs on the castle box, port 18789.\"}\n"
    );
    for bad in ["../vault/x.md", "memory/../../x.md", "notes.txt"] {
        let r = e.memory(&["get", bad]);
        r.expect_code(2);
        assert!(
            r.stderr.contains("not a memory file of the workspace"),
            "{bad}: {}",
            r.stderr
        );
    }
    std::os::unix::fs::symlink("/etc/hostname", e.ws.join("memory/escape.md")).unwrap();
    let r = e.memory(&["get", "memory/escape.md"]);
    r.expect_code(2);
    assert!(r.stderr.contains("leaves the workspace"), "{}", r.stderr);
    let missing = e.memory(&["get", "memory/2020-01-01.md"]);
    missing.expect_code(2);
    assert!(
        missing
            .stderr
            .contains("memory/2020-01-01.md: no such file")
    );
}

#[test]
fn status_and_index_report_files_chunks_and_freshness() {
    let e = env_with_notes();
    e.write(
        "memory/imports/codex/MEMORY.md",
        "# Codex\n\n- likes rust\n",
    );
    let ws = e.ws.canonicalize().unwrap();
    let before = e.memory(&["status"]);
    before.expect_code(0);
    let index_dir = before
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Index path: "))
        .unwrap()
        .to_string();
    assert!(
        index_dir.contains("/vault/.openclaw-wiki/index/memory-"),
        "{index_dir}"
    );
    assert_eq!(
        before.stdout,
        format!(
            "Workspace: {}\nFiles: 4 (1 curated, 2 daily, 1 import, 0 dream-report, 0 other)\nIndex: 0 files, 0 chunks, not built (run `wiki memory index`)\nIndex path: {index_dir}\nProvider: none (search: lexical)\nShort-term store: memory/.dreams/short-term-recall.json (none yet)\nDream diary: DREAMS.md (none yet)\n",
            ws.display()
        )
    );
    let idx = e.memory(&["index", "--json"]);
    idx.expect_code(0);
    let rec = &idx.jsonl()[0];
    assert_eq!(
        (rec["files"].as_u64(), rec["docs"].as_u64()),
        (Some(4), Some(4))
    );
    e.write("memory/2026-04-05.md", "# today\n");
    let after = e.memory(&["status", "--json"]);
    let s = &after.jsonl()[0];
    assert_eq!(s["index"]["fresh"], false);
    assert_eq!(s["index"]["added"], 1);
    assert_eq!(s["files"]["daily"], 3);
    let forced = e.memory(&["index", "--force"]);
    forced.expect_code(0);
    assert!(
        forced
            .stdout
            .starts_with("Rebuilt the memory index: 5 files, 5 chunks"),
        "{}",
        forced.stdout
    );
    let fresh = e.memory(&["status", "--json"]);
    assert_eq!(fresh.jsonl()[0]["index"]["fresh"], true);
}

#[test]
fn missing_workspace_is_a_clear_error() {
    let e = Env::new();
    let r = e
        .vault
        .run("wiki", &["memory", "--workspace", "nowhere", "facts"]);
    r.expect_code(2);
    assert!(
        r.stderr.contains("nowhere: no memory workspace here"),
        "{}",
        r.stderr
    );
}
