//! `wiki mcp` driven by real clients: the official MCP Python SDK (`mcp_client.py`, installed by
//! `.ci/run`; a missing package fails this test) and raw JSON-RPC over pipes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value as Json, json};
use wiki_testkit::{Vault, bin, isolate, output};

/// A compiled vault in git with one entity (a claim, a question) and a source, and a memory
/// workspace beside it.
fn fixture() -> (Vault, PathBuf) {
    let v = Vault::with_git();
    v.run("wiki", &["init", "."]).expect_code(0);
    v.write(
        "entities/alpha.md",
        "---\npageType: entity\nid: entity.alpha\ntitle: Alpha\nsourceIds: [source.notes]\nclaims:\n  - id: claim.alpha.db\n    text: Alpha uses PostgreSQL.\n    status: supported\n    confidence: 0.9\n    updatedAt: 2026-04-01T00:00:00.000Z\nquestions:\n  - Still active?\n---\n# Alpha\n\nAlpha is a service.\n",
    );
    v.write(
        "sources/notes.md",
        "---\npageType: source\nid: source.notes\ntitle: Notes\nsourceType: local-file\n---\n# Notes\n",
    );
    v.commit_all("pages");
    v.run("wiki", &["compile"]).expect_code(0);
    let ws = v.temp().join("ws");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    std::fs::write(
        ws.join("MEMORY.md"),
        "# Memory\n\nThe deploy key rotates monthly.\n",
    )
    .unwrap();
    (v, ws)
}

fn python_session(v: &Vault, ws: &Path, agent: Option<&str>) -> Json {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).current_dir(&v.root);
    isolate(&mut cmd, v.home());
    cmd.env("WIKI_BIN", bin("wiki"))
        .env("WIKI_MCP_VAULT", &v.root)
        .env("WIKI_MCP_WORKSPACE", ws);
    if let Some(a) = agent {
        cmd.env("WIKI_MCP_AGENT", a);
    }
    let run = output(cmd, None);
    run.expect_code(0);
    run.json()
}

fn text(t: &Json, group: &str, call: &str) -> String {
    t[group][call]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn python_sdk_session_calls_every_tool() {
    let (v, ws) = fixture();
    let t = python_session(&v, &ws, None);
    assert_eq!(t["serverName"], "wiki");
    assert_eq!(t["capabilities"], json!(["prompts", "resources", "tools"]));
    assert_eq!(
        t["tools"],
        json!([
            "wiki_status",
            "wiki_search",
            "wiki_get",
            "wiki_apply",
            "wiki_lint",
            "memory_search",
            "memory_get"
        ])
    );
    assert_eq!(t["readOnly"]["wiki_apply"], false);
    assert_eq!(t["readOnly"]["wiki_search"], true);
    // The plugin's evidence keys, exactly (reference §15, tool.test.ts).
    assert_eq!(
        t["evidenceKeys"],
        json!([
            "confidence",
            "kind",
            "lines",
            "note",
            "path",
            "privacyTier",
            "sourceId",
            "updatedAt",
            "weight"
        ])
    );
    for (name, call) in t["calls"].as_object().unwrap() {
        assert_eq!(call["isError"], false, "{name}: {call}");
    }

    let status = text(&t, "calls", "wiki_status");
    assert!(
        status.starts_with("Wiki vault mode: isolated\nVault scope: global\n"),
        "{status}"
    );
    assert!(
        status.contains("\nPages: 1 sources, 1 entities, 0 concepts, 0 syntheses,"),
        "{status}"
    );

    let search = text(&t, "calls", "wiki_search");
    assert!(
        search.starts_with(
            "1. Alpha (wiki/entity)\nPath: entities/alpha.md\nClaim: claim.alpha.db\nSnippet: Alpha uses PostgreSQL.\n\n2. "
        ),
        "{search}"
    );
    let first = &t["calls"]["wiki_search"]["structured"]["results"][0];
    assert_eq!(first["matchedClaimConfidence"], 0.9);
    assert_eq!(first["searchMode"], "auto");

    // Body lines 2–3 of the page the claim id names (its compiled body has a Related block).
    let get = &t["calls"]["wiki_get"];
    assert_eq!(get["text"], "\nAlpha is a service.");
    assert_eq!(get["structured"]["found"], true);
    assert_eq!(get["structured"]["path"], "entities/alpha.md");
    assert_eq!(get["structured"]["fromLine"], 2);
    assert_eq!(get["structured"]["totalLines"], 11);
    assert_eq!(get["structured"]["truncated"], true);

    let apply = &t["calls"]["wiki_apply"];
    assert_eq!(
        apply["text"],
        "Updated syntheses/alpha-synthesis.md via create_synthesis. Refreshed 6 index files."
    );
    assert_eq!(apply["structured"]["agent"], "main");
    assert_eq!(apply["structured"]["pageId"], "synthesis.alpha-synthesis");
    let commit = apply["structured"]["commit"].as_str().unwrap();
    let message = v.git(&["log", "-1", "--format=%B", commit]);
    assert_eq!(
        message.trim_end(),
        "wiki apply: create_synthesis syntheses/alpha-synthesis.md\n\nWiki-Op: create_synthesis\nWiki-Page: syntheses/alpha-synthesis.md\nWiki-Agent: main\nWiki-Source: source.notes"
    );
    assert!(
        v.read("syntheses/alpha-synthesis.md")
            .contains("Alpha runs on PostgreSQL.")
    );

    assert_eq!(
        text(&t, "calls", "wiki_lint"),
        "Issues: 4 total (0 errors, 4 warnings)\nContradictions: 0\nOpen questions: 1\nProvenance gaps: 1\nReport: reports/lint.md"
    );
    assert_eq!(
        t["calls"]["wiki_lint"]["structured"]["reportPath"],
        "reports/lint.md"
    );
    let head = v.git(&["log", "-1", "--format=%B"]);
    assert!(
        head.starts_with("Lint wiki vault: 4 issues (0 errors, 4 warnings)"),
        "{head}"
    );
    assert!(
        head.contains("Wiki-Op: lint\n") && head.contains("Wiki-Agent: main"),
        "{head}"
    );

    assert_eq!(
        text(&t, "calls", "memory_search"),
        "1. MEMORY (memory/memory)\nPath: MEMORY.md\nLines: 1-3\nSnippet: # Memory\n\nThe deploy key rotates monthly."
    );
    let get = &t["calls"]["memory_get"];
    assert_eq!(get["text"], "The deploy key rotates monthly.");
    assert_eq!(get["structured"]["totalLines"], 3);

    // Bad calls: tool errors with the CLI's messages; nothing written.
    let bad = |name: &str| {
        assert_eq!(t["bad"][name]["isError"], true, "{name}");
        text(&t, "bad", name)
    };
    assert_eq!(
        bad("apply_missing_body"),
        "wiki mutation requires body for create_synthesis."
    );
    assert!(
        bad("apply_confidence").contains("confidence must be a finite number"),
        "{}",
        bad("apply_confidence")
    );
    assert_eq!(
        bad("search_mode"),
        "wiki search --mode must be one of: auto, find-person, route-question, source-evidence, raw-claim."
    );
    assert_eq!(
        bad("unknown_argument"),
        "wiki_get: unknown argument `page` (expected: lookup, fromLine, lineCount, corpus, backend)"
    );
    assert_eq!(t["bad"]["unknown_tool"]["code"], -32602);
    assert!(!v.exists("syntheses/x.md"));

    // The hand edit between two searches is seen.
    assert_eq!(
        text(&t, "calls", "before_edit"),
        "No wiki or memory results."
    );
    let after = text(&t, "calls", "after_edit");
    assert!(
        after.starts_with("1. Alpha (wiki/entity)\nPath: entities/alpha.md\n"),
        "{after}"
    );
    assert!(
        after.contains("Snippet: The zebracorn migration is planned."),
        "{after}"
    );

    assert_eq!(t["prompts"], json!(["wiki_context"]));
    let prompt = t["prompt"][0].as_str().unwrap();
    assert!(prompt.starts_with("## Compiled Wiki\n"), "{prompt}");
    assert!(prompt.contains("\n## Compiled Wiki Snapshot\n"), "{prompt}");
    assert!(
        prompt.contains("\n- Alpha: entity, 1 claims, 1 open questions\n"),
        "{prompt}"
    );
    assert_eq!(t["resources"], json!([["wiki://context", "text/markdown"]]));
    assert_eq!(t["resource"][0], t["prompt"][0]);
    assert_eq!(t["ping"], true);
}

#[test]
fn python_sdk_session_as_an_agent_commits_to_its_branch() {
    let (v, ws) = fixture();
    let main_before = v.git(&["rev-parse", "main"]);
    let t = python_session(&v, &ws, Some("bot"));
    let apply = &t["calls"]["wiki_apply"];
    assert_eq!(apply["isError"], false, "{apply}");
    assert_eq!(apply["structured"]["agent"], "bot");
    assert_eq!(apply["structured"]["branch"], "agents/bot");
    let commit = apply["structured"]["commit"].as_str().unwrap();
    let message = v.git(&["log", "-1", "--format=%B", commit]);
    assert!(message.contains("\nWiki-Agent: bot\n"), "{message}");
    let on_branch = v.git(&["merge-base", "--is-ancestor", commit, "agents/bot"]);
    assert_eq!(on_branch, "");
    assert_eq!(v.git(&["rev-parse", "main"]), main_before);
    assert!(!v.exists("syntheses/alpha-synthesis.md"));
}

/// Raw JSON-RPC over pipes: version negotiation, errors, and a clean exit at end of input.
#[test]
fn raw_json_rpc_over_pipes() {
    let (v, ws) = fixture();
    let mut cmd = v.command("wiki");
    cmd.args(["mcp", "--workspace"])
        .arg(&ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read",
               "params": {"uri": "wiki://nothing"}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": "wiki_get", "arguments": {"lookup": "nothing-here"}}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for r in &requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replies: Vec<Json> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: i64| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no reply {id}: {replies:?}"))
    };
    assert_eq!(replies.len(), 6, "{replies:?}");
    assert_eq!(by_id(1)["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(by_id(2)["result"]["tools"].as_array().unwrap().len(), 7);
    assert_eq!(by_id(3)["error"]["code"], -32601);
    assert_eq!(by_id(4)["error"]["code"], -32002);
    assert_eq!(
        by_id(5)["result"],
        json!({"content": [{"type": "text", "text": "Wiki page not found: nothing-here"}],
               "structuredContent": {"found": false}, "isError": false})
    );
    assert_eq!(by_id(6)["result"], json!({}));
}
