//! Dreaming: `wiki memory promote` (score, gates, light/REM/deep outputs, diary, rollback) and
//! `wiki memory rem-backfill` (entries, staging, both rollbacks).

mod common;

use common::Env;

const MEMORY: &str = "# Long-Term Memory\n\n- The gateway runs on the castle box.\n";

/// A store as OpenClaw leaves it after a few days of recalls.
const STORE: &str = r#"{
  "version": 1,
  "updatedAt": "2026-04-05T10:00:00.000Z",
  "entries": {
    "memory:memory/2026-04-03.md:3:3": {
      "key": "memory:memory/2026-04-03.md:3:3",
      "path": "memory/2026-04-03.md",
      "startLine": 3,
      "endLine": 3,
      "source": "memory",
      "snippet": "- Gateway binds loopback on port 18789 for the castle box.",
      "recallCount": 4,
      "dailyCount": 0,
      "groundedCount": 0,
      "totalScore": 3.6,
      "maxScore": 0.95,
      "firstRecalledAt": "2026-04-01T09:00:00.000Z",
      "lastRecalledAt": "2026-04-05T10:00:00.000Z",
      "queryHashes": ["aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc", "dddddddddddd"],
      "recallDays": ["2026-04-01", "2026-04-03", "2026-04-05"],
      "conceptTags": ["gateway", "loopback", "port", "castle"]
    },
    "memory:memory/2026-04-03.md:4:4": {
      "key": "memory:memory/2026-04-03.md:4:4",
      "path": "memory/2026-04-03.md",
      "startLine": 4,
      "endLine": 4,
      "source": "memory",
      "snippet": "- Lunch at the castle was fine.",
      "recallCount": 1,
      "dailyCount": 0,
      "groundedCount": 0,
      "totalScore": 0.9,
      "maxScore": 0.9,
      "firstRecalledAt": "2026-04-04T09:00:00.000Z",
      "lastRecalledAt": "2026-04-04T09:00:00.000Z",
      "queryHashes": ["eeeeeeeeeeee"],
      "recallDays": ["2026-04-04"],
      "conceptTags": ["lunch", "castle"]
    },
    "memory:memory/2026-04-04.md:1:1": {
      "key": "memory:memory/2026-04-04.md:1:1",
      "path": "memory/2026-04-04.md",
      "startLine": 1,
      "endLine": 1,
      "source": "memory",
      "snippet": "- The castle backup job runs nightly to s3-backup.",
      "recallCount": 3,
      "dailyCount": 0,
      "groundedCount": 0,
      "totalScore": 1.5,
      "maxScore": 0.6,
      "firstRecalledAt": "2026-04-04T09:00:00.000Z",
      "lastRecalledAt": "2026-04-04T09:30:00.000Z",
      "queryHashes": ["ffffffffffff", "aaaaaaaaaaaa"],
      "recallDays": ["2026-04-04"],
      "conceptTags": ["castle", "backup", "s3-backup"]
    }
  }
}
"#;

fn env() -> Env {
    let e = Env::new();
    e.write("MEMORY.md", MEMORY);
    e.write(
        "memory/2026-04-03.md",
        "# 2026-04-03\n\n- Gateway binds loopback on port 18789 for the castle box.\n- Lunch at the castle was fine.\n",
    );
    e.write(
        "memory/2026-04-04.md",
        "- The castle backup job runs nightly to s3-backup.\n",
    );
    e.write("memory/.dreams/short-term-recall.json", STORE);
    e.git(&["init", "-q", "-b", "main"]);
    e.git(&["add", "-A"]);
    e.git(&["commit", "-q", "-m", "notes"]);
    e
}

fn subjects(e: &Env) -> String {
    e.git(&["log", "--format=%s"])
}

#[test]
fn promote_ranks_gates_and_writes_every_phase() {
    let e = env();
    let dry = e.memory(&["promote", "--dry-run"]);
    dry.expect_code(0);
    assert_eq!(
        dry.stdout,
        "light: 3, would write memory/2026-04-05.md, memory/dreaming/light/2026-04-05.md, memory/.dreams/phase-signals.json\n\
         rem: 1, would write memory/2026-04-05.md, memory/dreaming/rem/2026-04-05.md, memory/.dreams/phase-signals.json\n\
         0.857 memory/2026-04-03.md#L3 promote\n\
         0.605 memory/2026-04-03.md#L4 skip (1 signals < 3)\n\
         0.594 memory/2026-04-04.md#L1 skip (score 0.594 < 0.75)\n\
         deep: 1, would write MEMORY.md, DREAMS.md, memory/dreaming/deep/2026-04-05.md, memory/.dreams/short-term-recall.json\n"
    );
    assert_eq!(e.read("MEMORY.md"), MEMORY);
    assert_eq!(subjects(&e), "notes\n");

    let r = e.memory(&["promote"]);
    r.expect_code(0);
    assert_eq!(
        subjects(&e),
        "wiki memory promote: deep phase, 1 promoted\nwiki memory promote: rem phase, 1 patterns\nwiki memory promote: light phase, 3 candidates\nnotes\n"
    );
    assert_eq!(e.git(&["status", "--porcelain"]), "");
    assert_eq!(
        e.read("MEMORY.md"),
        format!(
            "{MEMORY}\n## Promoted From Short-Term Memory (2026-04-05)\n\n<!-- openclaw-memory-promotion:memory:memory/2026-04-03.md:3:3 -->\n- Gateway binds loopback on port 18789 for the castle box. <!-- trigger: gateway, loopback, port --> <!-- importance: 9 -->\n"
        )
    );
    let today = e.read("memory/2026-04-05.md");
    assert_eq!(
        today,
        "# 2026-04-05\n\n## Light Sleep\n<!-- openclaw:dreaming:light:start -->\n\
         - Candidate: Gateway binds loopback on port 18789 for the castle box. - confidence: 0.80 - evidence: memory/2026-04-03.md:3-3 - recalls: 4 - status: staged\n\
         - Candidate: Lunch at the castle was fine. - confidence: 0.55 - evidence: memory/2026-04-03.md:4-4 - recalls: 1 - status: staged\n\
         - Candidate: The castle backup job runs nightly to s3-backup. - confidence: 0.54 - evidence: memory/2026-04-04.md:1-1 - recalls: 3 - status: staged\n\
         <!-- openclaw:dreaming:light:end -->\n\n## REM Sleep\n<!-- openclaw:dreaming:rem:start -->\n\
         - Reflection: `castle` recurs in 3 memories - confidence: 0.86 - evidence: memory/2026-04-03.md:3-3 - recalls: 4 - status: staged\n\
         <!-- openclaw:dreaming:rem:end -->\n"
    );
    assert!(
        e.read("memory/dreaming/rem/2026-04-05.md")
            .starts_with("# REM Sleep — 2026-04-05\n\n- Reflection: `castle`")
    );
    let dreams = e.read("DREAMS.md");
    assert_eq!(
        dreams,
        "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 5, 2026, 12:00 PM*\n\n\
         Deep sleep kept 1 of the day's memories for good:\n\n\
         - Gateway binds loopback on port 18789 for the castle box. (memory/2026-04-03.md#L3, score 0.86, importance 9)\n\n\
         <!-- openclaw:dreaming:diary:end -->\n\n## Deep Sleep\n<!-- openclaw:dreaming:deep:start -->\n\
         - Gateway binds loopback on port 18789 for the castle box. (memory/2026-04-03.md#L3, score 0.86, importance 9)\n\
         <!-- openclaw:dreaming:deep:end -->\n"
    );
    let store: serde_json::Value =
        serde_json::from_str(&e.read("memory/.dreams/short-term-recall.json")).unwrap();
    assert_eq!(
        store["entries"]["memory:memory/2026-04-03.md:3:3"]["promotedAt"],
        "2026-04-05T12:00:00.000Z"
    );
    let phases: serde_json::Value =
        serde_json::from_str(&e.read("memory/.dreams/phase-signals.json")).unwrap();
    assert_eq!(
        phases["entries"]["memory:memory/2026-04-03.md:3:3"]["remHits"],
        1
    );

    // The promoted entry is now a trusted curated entry that trigger recall finds.
    let t = e.memory(&["triggers", "which port does the gateway use"]);
    t.expect_code(0);
    assert_eq!(
        t.stdout,
        "- Gateway binds loopback on port 18789 for the castle box. (Source: MEMORY.md#L8)\n"
    );

    // A second sweep promotes nothing more (the entry is marked promoted).
    let again = e.memory(&["promote", "--phase", "deep", "--json"]);
    again.expect_code(0);
    let recs = again.jsonl();
    assert_eq!(recs[0]["refused"], "already promoted");
    assert_eq!(recs.last().unwrap()["type"], "phase");
    assert_eq!(recs.last().unwrap()["commit"], serde_json::Value::Null);
}

#[test]
fn wiki_rollback_undoes_each_promote_step() {
    let e = env();
    e.memory(&["promote"]).expect_code(0);
    let ws = e.ws.to_str().unwrap().to_string();
    // The workspace is its own repository: `--no-compile` keeps vault files out of it.
    let undo = |rev: &str| {
        let id = e.git(&["rev-parse", rev]).trim().to_string();
        e.vault
            .run("wiki", &["--vault", &ws, "rollback", "--no-compile", &id])
            .expect_code(0);
    };
    undo("HEAD");
    assert_eq!(e.read("MEMORY.md"), MEMORY);
    assert!(!e.ws.join("DREAMS.md").exists());
    assert_eq!(
        e.read("memory/.dreams/short-term-recall.json"),
        STORE,
        "the store is back as OpenClaw wrote it"
    );
    undo("HEAD~2"); // REM
    undo("HEAD~4"); // light
    assert!(!e.ws.join("memory/2026-04-05.md").exists());
    assert!(!e.ws.join("memory/.dreams/phase-signals.json").exists());
    assert!(!e.ws.join("index.md").exists());
    assert_eq!(e.git(&["status", "--porcelain"]), "");
}

#[test]
fn a_workspace_inside_the_vault_commits_there() {
    let e = Env::new();
    let ws = e.vault.path("agent-ws");
    std::fs::create_dir_all(ws.join("memory/.dreams")).unwrap();
    std::fs::write(ws.join("MEMORY.md"), MEMORY).unwrap();
    std::fs::write(
        ws.join("memory/2026-04-03.md"),
        "# 2026-04-03\n\n- Gateway binds loopback on port 18789 for the castle box.\n- Lunch at the castle was fine.\n",
    )
    .unwrap();
    std::fs::write(ws.join("memory/.dreams/short-term-recall.json"), STORE).unwrap();
    let before = e.vault.commit_count();
    let r = e.vault.run(
        "wiki",
        &[
            "memory",
            "--workspace",
            "agent-ws",
            "promote",
            "--phase",
            "deep",
        ],
    );
    r.expect_code(0);
    // The untracked workspace files are recorded as human edits first, then the promotion.
    assert_eq!(e.vault.commit_count(), before + 2);
    assert!(
        e.vault
            .git(&["log", "-1", "--format=%s", "HEAD~1"])
            .starts_with("Record human edits"),
    );
    assert_eq!(
        e.vault.git(&["log", "-1", "--format=%s", "--name-only"]),
        "wiki memory promote: deep phase, 1 promoted\n\nagent-ws/DREAMS.md\nagent-ws/MEMORY.md\nagent-ws/memory/.dreams/short-term-recall.json\nagent-ws/memory/dreaming/deep/2026-04-05.md\n"
    );
    e.vault.run("wiki", &["rollback", "HEAD"]).expect_code(0);
    assert_eq!(e.vault.read("agent-ws/MEMORY.md"), MEMORY);
}

#[test]
fn gates_are_flags() {
    let e = env();
    let r = e.memory(&[
        "promote",
        "--phase",
        "deep",
        "--dry-run",
        "--min-score",
        "0.5",
        "--min-unique-queries",
        "2",
    ]);
    r.expect_code(0);
    // Without the light and REM phases of this run, no phase boost.
    assert_eq!(
        r.stdout,
        "0.804 memory/2026-04-03.md#L3 promote\n0.551 memory/2026-04-03.md#L4 skip (1 signals < 3)\n0.541 memory/2026-04-04.md#L1 promote\ndeep: 2, would write MEMORY.md, DREAMS.md, memory/dreaming/deep/2026-04-05.md, memory/.dreams/short-term-recall.json\n"
    );
    let bad = e.memory(&["promote", "--min-score", "3"]);
    bad.expect_code(2);
    assert_eq!(
        bad.stderr,
        "wiki: error: --min-score must be between 0 and 1, found 3\n"
    );
}

#[test]
fn rem_backfill_stages_and_both_rollbacks_undo_only_their_part() {
    let e = Env::new();
    e.write(
        "memory/2025-01-01.md",
        "# New year\n\n## Retain\n- W @Ada: Moved to Lisbon.\n- O(c=0.8) @Ada: Likes long walks.\n",
    );
    e.write(
        "memory/2025-01-02.md",
        "- Fixed the printer.\n\nQuiet evening.\n",
    );
    e.write(
        "DREAMS.md",
        "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 1, 2026, 3:00 AM*\n\nA normal dream.\n<!-- openclaw:dreaming:diary:end -->\n",
    );
    let ws = e.ws.to_str().unwrap().to_string();
    let r = e.memory(&[
        "rem-backfill",
        "--path",
        &format!("{ws}/memory"),
        "--stage-short-term",
    ]);
    r.expect_code(0);
    assert!(r.stdout.starts_with(
        "backfilled 2 diary entries from 2 notes (replacing 0), staged 4 grounded short-term candidates\ncommit "
    ), "{}", r.stdout);
    assert_eq!(
        e.read("DREAMS.md"),
        "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 1, 2026, 3:00 AM*\n\nA normal dream.\n\n---\n\n\
         *January 1, 2025*\n\n<!-- openclaw:dreaming:backfill-entry day=2025-01-01 source=memory/2025-01-01.md -->\n\n\
         What Happened\n1. Moved to Lisbon.\n2. Likes long walks.\n\n---\n\n\
         *January 2, 2025*\n\n<!-- openclaw:dreaming:backfill-entry day=2025-01-02 source=memory/2025-01-02.md -->\n\n\
         What Happened\n1. Fixed the printer.\n2. Quiet evening.\n<!-- openclaw:dreaming:diary:end -->\n"
    );
    let store: serde_json::Value =
        serde_json::from_str(&e.read("memory/.dreams/short-term-recall.json")).unwrap();
    let entries = store["entries"].as_object().unwrap();
    assert_eq!(entries.len(), 4);
    assert!(
        entries
            .values()
            .all(|v| v["groundedCount"] == 1 && v["recallCount"] == 0)
    );

    // A live recall of the same note is an ordinary entry: rollback-short-term keeps it.
    e.memory(&["recall", "printer"]).expect_code(0);

    let rb = e.memory(&["rem-backfill", "--rollback"]);
    rb.expect_code(0);
    assert!(
        rb.stdout
            .starts_with("removed 2 backfilled diary entries\ncommit ")
    );
    let diary = e.read("DREAMS.md");
    assert!(diary.contains("A normal dream.") && !diary.contains("backfill-entry"));

    let rs = e.memory(&["rem-backfill", "--rollback-short-term"]);
    rs.expect_code(0);
    assert!(
        rs.stdout
            .starts_with("removed 4 staged short-term entries\ncommit "),
        "{}",
        rs.stdout
    );
    let store: serde_json::Value =
        serde_json::from_str(&e.read("memory/.dreams/short-term-recall.json")).unwrap();
    let left: Vec<&serde_json::Value> = store["entries"].as_object().unwrap().values().collect();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["path"], "memory/2025-01-02.md");
    assert_eq!(
        (
            left[0]["recallCount"].as_u64(),
            left[0]["groundedCount"].as_u64()
        ),
        (Some(1), Some(0))
    );
    assert_eq!(
        e.git(&["log", "--format=%s"]),
        // What was in the workspace before each step (the diary, the recall's store update) is
        // recorded first, as human edits.
        "wiki memory rem-backfill: removed 4 staged short-term entries\nRecord human edits before memory-rem-backfill\nwiki memory rem-backfill: removed 2 backfilled diary entries\nwiki memory rem-backfill: backfilled 2 diary entries from 2 notes (replacing 0), staged 4 grounded short-term candidates\nRecord human edits before memory-rem-backfill\n"
    );
}

#[test]
fn wiki_rollback_undoes_a_rem_backfill() {
    let e = Env::new();
    e.write(
        "memory/2025-01-01.md",
        "# New year\n\n## Retain\n- W @Ada: Moved to Lisbon.\n",
    );
    let diary = "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 1, 2026, 3:00 AM*\n\nA normal dream.\n<!-- openclaw:dreaming:diary:end -->\n";
    e.write("DREAMS.md", diary);
    let ws = e.ws.to_str().unwrap().to_string();
    e.memory(&[
        "rem-backfill",
        "--path",
        &format!("{ws}/memory"),
        "--stage-short-term",
    ])
    .expect_code(0);
    assert!(
        e.read("DREAMS.md")
            .contains("backfill-entry day=2025-01-01")
    );
    assert!(e.ws.join("memory/.dreams/short-term-recall.json").exists());
    let id = e.git(&["rev-parse", "HEAD"]).trim().to_string();
    e.vault
        .run("wiki", &["--vault", &ws, "rollback", "--no-compile", &id])
        .expect_code(0);
    assert_eq!(e.read("DREAMS.md"), diary);
    assert!(!e.ws.join("memory/.dreams/short-term-recall.json").exists());
    // The note it read is untouched (rem-backfill never writes notes).
    assert_eq!(
        e.read("memory/2025-01-01.md"),
        "# New year\n\n## Retain\n- W @Ada: Moved to Lisbon.\n"
    );
}
