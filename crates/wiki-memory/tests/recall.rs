//! `wiki memory recall`: filters, citations and the recorded short-term signals.

mod common;

use common::Env;

fn env() -> Env {
    let e = Env::new();
    e.write(
        "MEMORY.md",
        "# Long-Term Memory\n\n- The gateway runs on the castle box.\n",
    );
    e.write(
        "memory/2025-11-27.md",
        "# 2025-11-27\n\nFixed the Baileys crash today.\n\n## Retain\n- W @Peter: Currently in Marrakech for Andy's birthday.\n- B @warelay: I fixed the Baileys WS crash by wrapping handlers in try/catch.\n- O(c=0.95) @Peter: Prefers concise replies on WhatsApp.\n",
    );
    e.write(
        "memory/2026-03-30.md",
        "# 2026-03-30\n\n## Retain\n- O(c=0.7) @Peter: Prefers voice notes for long updates.\n- W @The-Castle: The castle box got a new SSD.\n",
    );
    e.write(
        "memory/2026-04-04-standup.md",
        "# Standup\n\nDiscussed the gateway rollout with Peter.\n",
    );
    e
}

fn sources(e: &Env, args: &[&str]) -> Vec<String> {
    let mut all = vec!["recall", "--json", "--no-record"];
    all.extend_from_slice(args);
    let r = e.memory(&all);
    r.expect_code(0);
    r.jsonl()
        .iter()
        .map(|x| {
            format!(
                "{}:{}",
                x["type"].as_str().unwrap(),
                x["source"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn every_result_cites_path_and_line() {
    let e = env();
    let r = e.memory(&["recall", "--json", "--no-record", "what does Peter prefer"]);
    r.expect_code(0);
    let records = r.jsonl();
    assert!(!records.is_empty());
    for rec in &records {
        let src = rec["source"].as_str().unwrap();
        assert!(src.contains("#L"), "{src}");
    }
    // Opinions about the named entity come first, newest first at equal footing.
    assert_eq!(records[0]["source"], "memory/2026-03-30.md#L4");
    assert_eq!(records[0]["kind"], "opinion");
    assert_eq!(
        records[0]["signals"],
        serde_json::json!(["lexical", "entity", "opinion"])
    );
    assert_eq!(records[1]["source"], "memory/2025-11-27.md#L8");
    assert_eq!(records[1]["confidence"], 0.95);
    let text = e.memory(&[
        "recall",
        "--no-record",
        "--k",
        "1",
        "what does Peter prefer",
    ]);
    assert!(
        text.stdout.starts_with(
            "1. [opinion c=0.7] 2026-03-30 @Peter: Prefers voice notes for long updates. (memory/2026-03-30.md#L4) "
        ),
        "{}",
        text.stdout
    );
    assert_eq!(text.stdout.lines().count(), 1);
}

#[test]
fn filters_by_entity_kind_and_time() {
    let e = env();
    assert_eq!(
        sources(&e, &["--entity", "the castle"]),
        vec!["fact:memory/2026-03-30.md#L5"]
    );
    assert_eq!(
        sources(&e, &["--kind", "opinion", "--at", "2025-11"]),
        vec!["fact:memory/2025-11-27.md#L8"]
    );
    assert_eq!(
        sources(&e, &["--since", "10d", "gateway"]),
        vec!["note:memory/2026-04-04-standup.md#L1-L3"]
    );
    let nov = sources(&e, &["baileys crash", "--at", "2025-11"]);
    assert!(nov.iter().all(|s| s.contains("2025-11-27")), "{nov:?}");
    assert!(nov.contains(&"fact:memory/2025-11-27.md#L7".to_string()));
    // A day written in the query restricts like --at.
    let dated = sources(&e, &["peter on 2026-03-30"]);
    assert!(dated.iter().all(|s| s.contains("2026-03-30")), "{dated:?}");
    let none = e.memory(&["recall", "--no-record", "zebra"]);
    none.expect_code(1);
    assert_eq!(none.stdout, "");
    let bad = e.memory(&["recall"]);
    bad.expect_code(2);
    assert!(bad.stderr.contains("needs a query, or --entity / --kind"));
}

#[test]
fn recalls_are_recorded_in_the_short_term_store() {
    let e = env();
    let store = e.ws.join("memory/.dreams/short-term-recall.json");
    e.memory(&["recall", "--no-record", "peter"]).expect_code(0);
    assert!(!store.exists());
    e.memory(&["recall", "--k", "1", "what does Peter prefer"])
        .expect_code(0);
    e.memory(&["recall", "--k", "1", "voice notes"])
        .expect_code(0);
    let text = e.read("memory/.dreams/short-term-recall.json");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["updatedAt"], "2026-04-05T12:00:00.000Z");
    let entry = &json["entries"]["memory:memory/2026-03-30.md:4:4"];
    assert_eq!(entry["path"], "memory/2026-03-30.md");
    assert_eq!(
        (entry["startLine"].as_u64(), entry["endLine"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(entry["source"], "memory");
    assert_eq!(
        entry["snippet"],
        "- O(c=0.7) @Peter: Prefers voice notes for long updates."
    );
    assert_eq!(entry["recallCount"], 2);
    assert_eq!(entry["dailyCount"], 0);
    assert_eq!(entry["queryHashes"].as_array().unwrap().len(), 2);
    assert_eq!(entry["recallDays"], serde_json::json!(["2026-04-05"]));
    assert_eq!(
        entry["conceptTags"],
        serde_json::json!(["peter", "prefers", "voice", "updates"])
    );
    assert!(entry["totalScore"].as_f64().unwrap() > entry["maxScore"].as_f64().unwrap());
    // The JSON is written as the original writes it.
    assert!(
        text.starts_with("{\n  \"version\": 1,\n  \"updatedAt\": "),
        "{text}"
    );
    assert!(text.ends_with("}\n"));
    // Curated files are not short-term: never recorded.
    assert!(!text.contains("MEMORY.md"));
}
