//! `wiki memory reflect`: entity pages with cited claims, opinion confidence moving both ways,
//! contradictions on the page and the dashboard, idempotence, human blocks, rollback.

mod common;

use common::Env;

/// The workspace part of the bridge source ids of the notes (reference §11.3).
fn ws_slug(e: &Env) -> String {
    let ws = std::fs::canonicalize(&e.ws).unwrap();
    format!(
        "ws-{}",
        &wiki_parse::slug::sha1_hex(&ws.to_string_lossy())[..8]
    )
}

fn env() -> Env {
    let e = Env::new();
    e.write(
        "memory/2026-03-30.md",
        "# 2026-03-30\n\n## Retain\n- W @Peter: Lives in Vienna.\n- O(c=0.9) @Peter: Prefers concise replies on WhatsApp.\n- S Quiet day.\n",
    );
    e.write(
        "memory/2026-04-01.md",
        "## Retain\n- O @Peter: Prefers concise replies on WhatsApp.\n- B @warelay @Peter: I shipped the gateway fix for Peter.\n",
    );
    e.write(
        "memory/2026-04-03.md",
        "## Retain\n- O @Peter: Does not prefer concise replies on WhatsApp anymore.\n",
    );
    // Outside the default 7-day window (now is 2026-04-05).
    e.write("memory/2026-03-01.md", "## Retain\n- W @Peter: Old news.\n");
    e
}

const PETER_CLAIMS: &str = "sourceIds:
  - source.bridge.WS.memory-2026-03-30-0a55686b
  - source.bridge.WS.memory-2026-04-01-5b75f68a
  - source.bridge.WS.memory-2026-04-03-4f625131
claims:
  - id: mem.peter.9b11154fba
    text: Lives in Vienna.
    status: supported
    evidence:
      - kind: memory
        sourceId: source.bridge.WS.memory-2026-03-30-0a55686b
        path: memory/2026-03-30.md
        lines: \"4\"
        updatedAt: 2026-03-30
    updatedAt: 2026-04-05T12:00:00.000Z
    validFrom: 2026-03-30
  - id: mem.peter.fb0e9a6b99
    text: Prefers concise replies on WhatsApp.
    status: contested
    confidence: 0.85
    evidence:
      - kind: memory
        sourceId: source.bridge.WS.memory-2026-03-30-0a55686b
        path: memory/2026-03-30.md
        lines: \"5\"
        updatedAt: 2026-03-30
      - kind: memory
        sourceId: source.bridge.WS.memory-2026-04-01-5b75f68a
        path: memory/2026-04-01.md
        lines: \"2\"
        note: reinforces
        updatedAt: 2026-04-01
      - kind: memory
        sourceId: source.bridge.WS.memory-2026-04-03-4f625131
        path: memory/2026-04-03.md
        lines: \"2\"
        note: contradicts
        updatedAt: 2026-04-03
    updatedAt: 2026-04-05T12:00:00.000Z
    validFrom: 2026-03-30
  - id: mem.peter.72181dff8c
    text: I shipped the gateway fix for Peter.
    status: supported
    evidence:
      - kind: memory
        sourceId: source.bridge.WS.memory-2026-04-01-5b75f68a
        path: memory/2026-04-01.md
        lines: \"3\"
        updatedAt: 2026-04-01
    updatedAt: 2026-04-05T12:00:00.000Z
    validFrom: 2026-04-01
status: active
updatedAt: 2026-04-05T12:00:00.000Z
contradictions:
  - \"mem.peter.fb0e9a6b99 \\\"Prefers concise replies on WhatsApp.\\\" is contradicted by memory/2026-04-03.md#L2: \\\"Does not prefer concise replies on WhatsApp anymore.\\\"\"
---

# Peter

## Notes
<!-- openclaw:human:start -->
<!-- openclaw:human:end -->
";

#[test]
fn reflect_creates_entity_pages_with_cited_claims_and_moves_opinions() {
    let e = env();
    let before = e.vault.commit_count();
    let r = e.memory(&["reflect"]);
    r.expect_code(0);
    let head = e.vault.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        r.stdout,
        format!(
            "reflected 5 facts from 3 notes into 2 pages (2 created): 4 claims added, 2 evidence added, confidence raised 1 and lowered 1, 1 contradiction\n  created entities/peter.md\n  created entities/warelay.md\ncommit {}\n",
            &head.trim()[..12]
        )
    );
    assert_eq!(
        r.stderr,
        "wiki: 1 fact mentions no @entity: not reflected\n"
    );
    assert_eq!(e.vault.commit_count(), before + 1);
    let peter = e
        .vault
        .read("entities/peter.md")
        .replace(&ws_slug(&e), "WS");
    assert!(
        peter.starts_with("---\npageType: entity\nid: entity.peter\ntitle: Peter\nsourceIds:\n"),
        "{peter}"
    );
    assert!(peter.contains(PETER_CLAIMS), "{peter}");
    assert!(!peter.contains("Old news"));
    let warelay = e.vault.read("entities/warelay.md");
    assert!(warelay.contains(
        "  - id: mem.warelay.72181dff8c\n    text: I shipped the gateway fix for Peter.\n"
    ));
    // The contradiction is on the dashboard, linked to the page.
    let dash = e.vault.read("reports/contradictions.md");
    assert!(
        dash.contains("- mem.peter.fb0e9a6b99 \"Prefers concise replies on WhatsApp.\" is contradicted by memory/2026-04-03.md#L2: \"Does not prefer concise replies on WhatsApp anymore.\": [Peter](../entities/peter.md)"),
        "{dash}"
    );
    assert_eq!(
        e.vault.git(&["log", "-1", "--format=%s"]),
        "wiki memory reflect: 5 facts into 2 pages\n"
    );
    e.vault.run("wiki", &["lint"]).expect_code(0);
    let lint = e.vault.read("reports/lint.md");
    assert!(lint.contains("- Warnings: 1\n"), "{lint}");
    assert!(lint.contains("- `entities/peter.md`: Page lists 1 contradiction to resolve.\n"));

    // Reflecting the same notes again changes nothing.
    let before = e.vault.commit_count();
    let again = e.memory(&["reflect", "--json"]);
    again.expect_code(0);
    let rec = &again.jsonl()[0];
    assert_eq!(rec["type"], "reflect");
    assert_eq!(rec["commit"], serde_json::Value::Null);
    assert_eq!(
        (rec["facts"].as_u64(), rec["unchanged"].as_u64()),
        (Some(0), Some(5))
    );
    assert_eq!(e.vault.commit_count(), before);
}

#[test]
fn reinforcement_raises_confidence_and_keeps_the_human_block() {
    let e = env();
    e.memory(&["reflect"]).expect_code(0);
    let page = e.vault.read("entities/peter.md").replace(
        "<!-- openclaw:human:start -->\n",
        "<!-- openclaw:human:start -->\nMet him in Vienna; *call before noon*.\n",
    );
    e.vault.write("entities/peter.md", &page);
    e.write(
        "memory/2026-04-04.md",
        "## Retain\n- O @Peter: prefers concise replies on WhatsApp\n",
    );
    let r = e.memory(&["reflect"]);
    r.expect_code(0);
    assert!(
        r.stdout.starts_with("reflected 1 fact from 4 notes into 1 page (0 created): 0 claims added, 1 evidence added, confidence raised 1 and lowered 0, 0 contradictions\n  updated entities/peter.md\n"),
        "{}",
        r.stdout
    );
    let peter = e.vault.read("entities/peter.md");
    assert!(
        peter.contains("    status: contested\n    confidence: 0.9\n"),
        "{peter}"
    );
    assert!(peter.contains(
        "        path: memory/2026-04-04.md\n        lines: \"2\"\n        note: reinforces\n"
    ));
    assert!(peter.contains("  - source.bridge.ws-"));
    assert!(peter.contains(
        "<!-- openclaw:human:start -->\nMet him in Vienna; *call before noon*.\n<!-- openclaw:human:end -->"
    ));
}

#[test]
fn rollback_undoes_a_reflection_and_dry_run_writes_nothing() {
    let e = env();
    let before = e.vault.commit_count();
    let dry = e.memory(&["reflect", "--dry-run", "--since", "2026-04-02"]);
    dry.expect_code(0);
    assert_eq!(
        dry.stdout,
        "would reflect 1 fact from 1 note into 1 page (1 created): 1 claim added, 0 evidence added, confidence raised 0 and lowered 0, 0 contradictions\n  created entities/peter.md\n"
    );
    assert!(!e.vault.exists("entities/peter.md"));
    assert_eq!(e.vault.commit_count(), before);
    let r = e.memory(&["reflect", "--all", "--json"]);
    r.expect_code(0);
    let commit = r.jsonl()[0]["commit"].as_str().unwrap().to_string();
    assert!(
        e.vault
            .read("entities/peter.md")
            .contains("text: Old news.")
    );
    e.vault.run("wiki", &["rollback", &commit]).expect_code(0);
    assert!(!e.vault.exists("entities/peter.md"));
    assert!(!e.vault.exists("entities/warelay.md"));
    assert!(
        !e.vault
            .read("reports/contradictions.md")
            .contains("mem.peter")
    );
}

#[test]
fn malformed_bullets_are_reported_and_the_rest_reflected() {
    let e = Env::new();
    e.write(
        "memory/2026-04-04.md",
        "## Retain\n- W @Ada: Wrote the first program.\n- X @Ada: what is this\n",
    );
    let r = e.memory(&["reflect"]);
    r.expect_code(1);
    assert!(
        r.stderr.starts_with("wiki: memory/2026-04-04.md:3: "),
        "{}",
        r.stderr
    );
    assert!(
        e.vault
            .read("entities/ada.md")
            .contains("text: Wrote the first program.\n")
    );
    let bad = e.memory(&["reflect", "--since", "soon"]);
    bad.expect_code(2);
    assert!(
        bad.stderr.contains("--since must be a duration"),
        "{}",
        bad.stderr
    );
}
