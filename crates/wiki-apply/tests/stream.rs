//! `wiki-apply --stream`: one batch (one commit) per input line, answered and flushed before the
//! next line is read; a failing line is reported and the stream goes on.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use common::*;

const ADD_QUESTION: &str = r#"{"op":"add_question","page":"alpha","question":"Who runs backups?"}"#;
const CLAIM_BATCH: &str = r#"[{"op":"update_claim","claimId":"claim.alpha.db","confidence":0.5},{"op":"add_evidence","claimId":"claim.alpha.db","evidence":{"sourceId":"source.alpha","lines":"20-22"}}]"#;
const MISSING_CLAIM: &str = r#"{"op":"update_claim","claimId":"claim.nope","status":"contested"}"#;
const RESOLVE: &str = r#"{"op":"resolve_question","page":"alpha","question":"Who runs backups?"}"#;

/// The JSON Lines operations of one array line, one per line (a plain batch's input).
fn as_batch(line: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(line).expect("json") {
        serde_json::Value::Array(items) => {
            items.iter().map(|i| format!("{i}\n")).collect::<String>()
        }
        other => format!("{other}\n"),
    }
}

#[test]
fn each_line_is_one_commit_like_a_separate_run_and_errors_do_not_stop_the_stream() {
    let streamed = vault();
    let separate = vault();
    assert_eq!(rev(&streamed, "HEAD"), rev(&separate, "HEAD"));
    let lines = [
        ADD_QUESTION,
        "",
        CLAIM_BATCH,
        MISSING_CLAIM,
        ADD_QUESTION, // already there: no commit
        "[]",
        "{not json",
        RESOLVE,
    ];
    let run = apply(&streamed, &["--stream"], &lines);
    run.expect_code(2);

    // The same batches as separate runs on a twin vault: same records, same commits.
    let mut expected = String::new();
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        match *line {
            "" => {}
            MISSING_CLAIM => expected.push_str(&format!(
                "{{\"type\":\"error\",\"line\":{n},\"message\":\"<stdin>:{n}: claim not found: claim.nope\"}}\n"
            )),
            "[]" => expected.push_str(&format!(
                "{{\"type\":\"error\",\"line\":{n},\"message\":\"<stdin>:{n}: an array of operations must not be empty\"}}\n"
            )),
            "{not json" => expected.push_str(&format!(
                "{{\"type\":\"error\",\"line\":{n},\"message\":\"<stdin>:{n}: invalid JSON: key must be a string at line 1 column 2\"}}\n"
            )),
            _ => {
                let r = separate.run_stdin("wiki-apply", &[], Some(as_batch(line).as_bytes()));
                r.expect_code(0);
                expected.push_str(&r.stdout);
            }
        }
    }
    assert_eq!(run.stdout, expected);
    assert_eq!(
        run.stderr,
        "wiki-apply: error: <stdin>:4: claim not found: claim.nope\n\
         wiki-apply: error: <stdin>:6: an array of operations must not be empty\n\
         wiki-apply: error: <stdin>:7: invalid JSON: key must be a string at line 1 column 2\n"
    );
    // Three commits (the repeated question changed nothing), equal to the separate runs'.
    assert_eq!(streamed.commit_count(), separate.commit_count());
    assert_eq!(streamed.commit_count(), 5);
    assert_eq!(rev(&streamed, "HEAD"), rev(&separate, "HEAD"));
    assert_eq!(
        streamed.git(&["log", "--format=%s", "-3"]),
        "wiki apply: resolve_question entities/alpha.md\n\
         wiki apply: 2 operations on 1 page\n\
         wiki apply: add_question entities/alpha.md\n"
    );
    assert_eq!(streamed.status(), "");
    assert_eq!(
        streamed.read(".openclaw-wiki/cache/agent-digest.json"),
        separate.read(".openclaw-wiki/cache/agent-digest.json")
    );
    assert_eq!(
        streamed.read(".openclaw-wiki/cache/claims.jsonl"),
        separate.read(".openclaw-wiki/cache/claims.jsonl")
    );
}

#[test]
fn each_batch_is_committed_and_answered_before_the_next_line_is_read() {
    let v = vault();
    let before = v.commit_count();
    let mut child = v
        .command("wiki-apply")
        .args(["--stream", "--format", "text"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn wiki-apply --stream");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    // Lines read on another thread, so that a stream that does not answer fails the test
    // instead of hanging it.
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.expect("read stdout")).is_err() {
                break;
            }
        }
    });
    // Send one line; its answer must come while the stream waits for the next one, with the
    // batch already committed.
    let mut send = |line: &str, answer: &str, commits: usize| {
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
        let got = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("an answer before the next line");
        assert_eq!(got, answer);
        assert_eq!(v.commit_count(), commits);
    };
    send(
        ADD_QUESTION,
        "Updated entities/alpha.md via add_question. Refreshed 3 index files.",
        before + 1,
    );
    assert!(v.read("entities/alpha.md").contains("Who runs backups?"));
    send(
        RESOLVE,
        "Updated entities/alpha.md via resolve_question. Refreshed 2 index files.",
        before + 2,
    );

    drop(stdin);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    reader.join().expect("reader");
    assert!(rx.try_recv().is_err(), "nothing after the last answer");
    assert_eq!(v.status(), "");
}

#[test]
fn stream_reads_a_file_and_refuses_the_shortcuts() {
    let v = vault();
    v.write("ops.jsonl", format!("{ADD_QUESTION}\n{RESOLVE}"));
    // (`ops.jsonl` is not a vault page: it stays untracked.)
    let r = v.run(
        "wiki-apply",
        &["--stream", "--file", "ops.jsonl", "--format", "text"],
    );
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        "Updated entities/alpha.md via add_question. Refreshed 3 index files.\n\
         Updated entities/alpha.md via resolve_question. Refreshed 2 index files.\n"
    );
    assert_eq!(r.stderr, "");
    let r = v.run(
        "wiki-apply",
        &["--stream", "metadata", "alpha", "--status", "review"],
    );
    r.expect_code(2);
    assert_eq!(
        r.stderr,
        "wiki-apply: error: --stream reads operations from stdin or --file; it takes no synthesis/metadata shortcut\n"
    );
    let missing = v.run("wiki-apply", &["--stream", "--file", "nope.jsonl"]);
    missing.expect_code(2);
    assert!(
        missing
            .stderr
            .starts_with("wiki-apply: error: nope.jsonl: "),
        "{}",
        missing.stderr
    );
}

#[test]
fn stream_as_an_agent_commits_each_line_to_its_branch_only() {
    let v = vault();
    let main_before = rev(&v, "main");
    let run = apply(
        &v,
        &["--agent", "bot", "--stream"],
        &[ADD_QUESTION, RESOLVE],
    );
    run.expect_code(0);
    // The first line created the branch from main; the second read it back.
    assert_eq!(
        v.git(&["log", "--format=%s", "main..agents/bot"]),
        "wiki apply: resolve_question entities/alpha.md\n\
         wiki apply: add_question entities/alpha.md\n"
    );
    assert_eq!(rev(&v, "agents/bot^^"), main_before);
    assert_eq!(rev(&v, "main"), main_before);
    assert_eq!(v.status(), "");
    let summaries: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .filter(|r: &serde_json::Value| r["type"] == "summary")
        .collect();
    assert_eq!(summaries.len(), 2);
    for (s, tip) in summaries.iter().zip(["agents/bot^", "agents/bot"]) {
        assert_eq!(s["agent"], "bot");
        assert_eq!(s["branch"], "agents/bot");
        assert_eq!(s["commit"], rev(&v, tip).as_str());
    }
}
