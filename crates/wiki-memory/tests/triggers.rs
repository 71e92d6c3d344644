//! `wiki memory triggers`: trigger recall per reference §14.7.

mod common;

use common::Env;

const MEMORY: &str = "# Long-Term Memory\n\n- Peter prefers concise replies on WhatsApp. <!-- trigger: whatsapp replies, concise --> <!-- importance: 8 -->\n- The gateway runs on the castle box, port 18789. <!-- trigger: gateway port -->\n- Never deploy on Fridays.\n\n<!-- openclaw-memory-promotion:memory:memory/2026-04-01.md:3:3 -->\n- Backups go to the S3 glacier bucket nightly. [score=0.850 signals=4 recalls=4 avg=0.700 source=memory/2026-04-01.md:3-3] <!-- trigger: backup, glacier, s3 --> <!-- importance: 9 -->\n- Acme deploys need a second reviewer. <!-- trigger: deploy review --> <!-- project: github.com/acme/app -->\n";

fn env() -> Env {
    let e = Env::new();
    e.write("MEMORY.md", MEMORY);
    e.write(
        "USER.md",
        "# User\n\n- Lives in Lisbon; answer in European Portuguese when asked in Portuguese. <!-- trigger: portuguese -->\n",
    );
    // Daily notes and imports never trigger, whatever their annotations.
    e.write(
        "memory/2026-04-01.md",
        "- whatsapp replies were long today <!-- trigger: whatsapp replies -->\n",
    );
    e.write(
        "memory/imports/codex/MEMORY.md",
        "- imported whatsapp rule <!-- trigger: whatsapp -->\n",
    );
    e
}

#[test]
fn matching_entries_print_with_their_source_line() {
    let e = env();
    let r = e.memory(&["triggers", "how long should whatsapp replies be for Peter?"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        "- Peter prefers concise replies on WhatsApp. (Source: MEMORY.md#L3)\n"
    );
    let r = e.memory(&[
        "triggers",
        "is the glacier backup running? And portuguese please",
    ]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        "- Backups go to the S3 glacier bucket nightly. [score=0.850 signals=4 recalls=4 avg=0.700 source=memory/2026-04-01.md:3-3] (Source: MEMORY.md#L8)\n- Lives in Lisbon; answer in European Portuguese when asked in Portuguese. (Source: USER.md#L3)\n"
    );
}

#[test]
fn scores_follow_the_phrase_rules() {
    let e = env();
    let score = |msg: &str| -> Vec<(f64, String)> {
        let r = e.memory(&["triggers", "--json", msg]);
        r.jsonl()
            .iter()
            .map(|t| {
                (
                    t["score"].as_f64().unwrap(),
                    t["phrase"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // A contiguous phrase: 0.8 × 1.0 + 0.2 × relevance (> 0: the entry is a lexical hit).
    let exact = score("gateway port please");
    assert_eq!(exact.len(), 1);
    assert_eq!(exact[0].1, "gateway port");
    assert!(exact[0].0 > 0.8 && exact[0].0 <= 1.0, "{exact:?}");
    // Both words, not contiguous: 0.8 × (0.8 + 0.2) ≥ 0.8.
    let reordered = score("port of the gateway?");
    assert_eq!(reordered[0].1, "gateway port");
    assert!(reordered[0].0 >= 0.8);
    // One single-word phrase: 0.8 × 0.85 = 0.68 at least.
    let single = score("zzz concise yyy");
    assert_eq!(single.len(), 1);
    assert!(single[0].0 >= 0.68 && single[0].0 < 0.9, "{single:?}");
    // Half of a two-word phrase: 0.8 × 0.5 = 0.4 + 0.2 × relevance ≤ 0.6 < 0.65.
    assert!(score("gateway is down").is_empty());
    let r = e.memory(&["triggers", "nothing relevant here"]);
    r.expect_code(1);
    assert_eq!(r.stdout, "");
}

#[test]
fn project_scoped_entries_need_their_project() {
    let e = env();
    let r = e.memory(&["triggers", "deploy review for the release"]);
    r.expect_code(1);
    let r = e.memory(&[
        "triggers",
        "--project",
        "github.com/acme/app",
        "deploy review for the release",
    ]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        "- Acme deploys need a second reviewer. (Source: MEMORY.md#L9)\n"
    );
}

#[test]
fn at_most_three_entries_within_the_character_budget() {
    let e = Env::new();
    let mut text = String::from("# Memory\n\n");
    for i in 0..6 {
        text.push_str(&format!(
            "- Rule {i} about alpha: {} <!-- trigger: alpha -->\n",
            "x".repeat(500)
        ));
    }
    e.write("MEMORY.md", &text);
    let r = e.memory(&["triggers", "alpha"]);
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(r.stdout.trim_end().chars().count() <= 1800);
    assert!(lines[0].ends_with("(Source: MEMORY.md#L3)"));

    let mut big = String::new();
    for i in 0..3 {
        big.push_str(&format!(
            "- Big {i} beta: {} <!-- trigger: beta -->\n",
            "y".repeat(700)
        ));
    }
    e.write("MEMORY.md", &big);
    let r = e.memory(&["triggers", "beta"]);
    assert_eq!(r.stdout.lines().count(), 2);
}
