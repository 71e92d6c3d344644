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
    std::fs::write(
        ws.join("USER.md"),
        "# User\n\n- Answer in European Portuguese when asked in Portuguese. <!-- trigger: portuguese -->\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("memory/2026-03-30.md"),
        "# 2026-03-30\n\n## Retain\n- O(c=0.7) @Peter: Prefers voice notes for long updates.\n- W @The-Castle: The castle box got a new SSD.\n- X @Peter: unknown type\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("memory/2026-04-02.md"),
        "# 2026-04-02\n\nPeter asked about the castle box.\n\n## Retain\n- B @Peter: Moved the castle box to the attic.\n- O(c=0.9) @Peter: Prefers short standups.\n",
    )
    .unwrap();
    (v, ws)
}

/// `wiki memory <args> --json` on the fixture's workspace: its records.
fn memory_cli(v: &Vault, ws: &Path, args: &[&str]) -> Vec<Json> {
    let ws = ws.to_str().unwrap();
    let mut all = vec!["memory", "--workspace", ws];
    all.extend_from_slice(args);
    all.push("--json");
    v.run("wiki", &all).jsonl()
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
            "memory_get",
            "memory_recall",
            "memory_facts",
            "memory_triggers"
        ])
    );
    assert_eq!(t["readOnly"]["wiki_apply"], false);
    assert_eq!(t["readOnly"]["memory_recall"], false);
    assert_eq!(t["readOnly"]["memory_facts"], true);
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

    memory_layer_calls(&t, &v, &ws);

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
    assert_eq!(
        bad("recall_kind"),
        "--kind must be world, experience, opinion or observation (or W, B, O, S), found `fuzzy`"
    );
    assert_eq!(
        bad("recall_since_at"),
        "memory_recall: `since` and `at` cannot be used together"
    );
    assert_eq!(
        bad("recall_nothing"),
        "wiki memory recall needs a query, or --entity / --kind"
    );
    assert_eq!(
        bad("facts_since"),
        "--since must be a duration (30d, 2w, 12h, 3m, 1y) or a day (2025-11-01), found `soon`"
    );
    assert_eq!(
        bad("facts_entity"),
        "memory_facts: `entity` must be an array of strings (got 3)"
    );
    assert_eq!(
        bad("triggers_message"),
        "memory_triggers: `message` is required (a non-empty string)"
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

/// memory_recall, memory_facts and memory_triggers answer what `wiki memory recall|facts|triggers
/// --json` print, and the recall is recorded in the short-term store as the CLI's is.
fn memory_layer_calls(t: &Json, v: &Vault, ws: &Path) {
    let structured = |call: &str| t["calls"][call]["structured"].clone();
    let sources = |records: &Json, key: &str| -> Vec<String> {
        records[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["source"].as_str().unwrap().to_string())
            .collect()
    };

    // Recall by query: the CLI's records and lines, cited.
    let recall = structured("memory_recall");
    assert_eq!(
        sources(&recall, "results"),
        ["memory/2026-04-02.md#L7", "memory/2026-03-30.md#L4"]
    );
    let cli = memory_cli(
        v,
        ws,
        &[
            "recall",
            "--no-record",
            "--k",
            "2",
            "what does Peter prefer",
        ],
    );
    assert_eq!(recall["results"], Json::Array(cli));
    let lines: Vec<String> = text(t, "calls", "memory_recall")
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
        .collect();
    assert_eq!(
        lines,
        [
            "1. [opinion c=0.9] 2026-04-02 @Peter: Prefers short standups. (memory/2026-04-02.md#L7)",
            "2. [opinion c=0.7] 2026-03-30 @Peter: Prefers voice notes for long updates. (memory/2026-03-30.md#L4)"
        ]
    );
    // Structured recall (entity and kind only): entity and recency signals, no lexical score.
    assert_eq!(
        structured("memory_recall_filtered"),
        json!({"results": [
            {"type": "fact", "kind": "opinion", "timestamp": "2026-04-02", "entities": ["Peter"],
             "content": "Prefers short standups.", "confidence": 0.9,
             "source": "memory/2026-04-02.md#L7", "score": 0.3433, "signals": ["entity"]},
            {"type": "fact", "kind": "opinion", "timestamp": "2026-03-30", "entities": ["Peter"],
             "content": "Prefers voice notes for long updates.", "confidence": 0.7,
             "source": "memory/2026-03-30.md#L4", "score": 0.3371, "signals": ["entity"]}
        ]})
    );
    // The first recall is recorded (once: the second said noRecord).
    let store: Json = serde_json::from_str(
        &std::fs::read_to_string(ws.join("memory/.dreams/short-term-recall.json")).unwrap(),
    )
    .unwrap();
    let entries = store["entries"].as_object().unwrap();
    let recorded: Vec<(&str, &Json)> = entries
        .iter()
        .map(|(k, e)| (k.as_str(), &e["recallCount"]))
        .collect();
    assert_eq!(
        recorded,
        [
            ("memory:memory/2026-04-02.md:7:7", &json!(1)),
            ("memory:memory/2026-03-30.md:4:4", &json!(1))
        ]
    );

    // Facts: every fact of the window, the malformed bullet with its line.
    assert_eq!(
        text(t, "calls", "memory_facts"),
        "2026-03-30 O(c=0.7) @Peter: Prefers voice notes for long updates. (memory/2026-03-30.md#L4)\n\
         2026-03-30 W @The-Castle: The castle box got a new SSD. (memory/2026-03-30.md#L5)\n\
         2026-04-02 B @Peter: Moved the castle box to the attic. (memory/2026-04-02.md#L6)\n\
         2026-04-02 O(c=0.9) @Peter: Prefers short standups. (memory/2026-04-02.md#L7)\n\
         memory/2026-03-30.md:6: unknown fact type `X` (expected W, B, O(c=…) or S)"
    );
    let facts = structured("memory_facts");
    let mut cli = memory_cli(v, ws, &["facts", "--since", "30d"]);
    let malformed = cli.split_off(4);
    assert_eq!(facts["facts"], Json::Array(cli));
    assert_eq!(facts["malformed"], Json::Array(malformed));
    assert_eq!(
        structured("memory_facts_filtered"),
        json!({"facts": [{"type": "fact", "kind": "opinion", "timestamp": "2026-04-02",
                          "entities": ["Peter"], "content": "Prefers short standups.",
                          "confidence": 0.9, "source": "memory/2026-04-02.md#L7"}],
               "malformed": []})
    );

    // Triggers: the curated entry with its source line; nothing for an unrelated message.
    assert_eq!(
        text(t, "calls", "memory_triggers"),
        "- Answer in European Portuguese when asked in Portuguese. (Source: USER.md#L3)"
    );
    let triggers = structured("memory_triggers");
    assert_eq!(triggers["triggers"][0]["phrase"], "portuguese");
    assert_eq!(triggers["triggers"][0]["source"], "USER.md#L3");
    let cli = memory_cli(v, ws, &["triggers", "reply in portuguese please"]);
    assert_eq!(triggers["triggers"], Json::Array(cli));
    assert_eq!(
        text(t, "calls", "memory_triggers_none"),
        "No trigger matched."
    );
    assert_eq!(structured("memory_triggers_none"), json!({"triggers": []}));
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
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "memory_facts", "arguments": {"kind": ["experience"]}}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
               "params": {"name": "memory_triggers", "arguments": {"message": 42}}}),
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
    assert_eq!(replies.len(), 8, "{replies:?}");
    assert_eq!(by_id(1)["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(by_id(2)["result"]["tools"].as_array().unwrap().len(), 10);
    assert_eq!(by_id(3)["error"]["code"], -32601);
    assert_eq!(by_id(4)["error"]["code"], -32002);
    assert_eq!(
        by_id(5)["result"],
        json!({"content": [{"type": "text", "text": "Wiki page not found: nothing-here"}],
               "structuredContent": {"found": false}, "isError": false})
    );
    assert_eq!(by_id(6)["result"], json!({}));
    assert_eq!(
        by_id(7)["result"],
        json!({"content": [{"type": "text", "text": "2026-04-02 B @Peter: Moved the castle box to the attic. (memory/2026-04-02.md#L6)\nmemory/2026-03-30.md:6: unknown fact type `X` (expected W, B, O(c=…) or S)"}],
               "structuredContent": {"facts": [{"type": "fact", "kind": "experience",
                   "timestamp": "2026-04-02", "entities": ["Peter"],
                   "content": "Moved the castle box to the attic.", "confidence": null,
                   "source": "memory/2026-04-02.md#L6"}],
                   "malformed": [{"type": "malformed", "source": "memory/2026-03-30.md#L6",
                                  "message": "unknown fact type `X` (expected W, B, O(c=…) or S)"}]},
               "isError": false})
    );
    assert_eq!(
        by_id(8)["result"],
        json!({"content": [{"type": "text", "text": "memory_triggers: `message` must be a string (got 42)"}],
               "isError": true})
    );
}

/// A `wiki mcp` process driven one request at a time over pipes.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next: i64,
}

impl Session {
    fn start(v: &Vault) -> Session {
        let mut cmd = v.command("wiki");
        cmd.arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            stdin,
            stdout,
            next: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "edits", "version": "1"}}),
        );
        writeln!(
            s.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        s
    }

    fn request(&mut self, method: &str, params: Json) -> Json {
        use std::io::BufRead;
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let reply: Json = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], id, "{reply}");
        reply["result"].clone()
    }

    /// The text of a tool call that succeeded.
    fn call(&mut self, tool: &str, args: Json) -> String {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert_eq!(r["isError"], false, "{r}");
        r["content"][0]["text"].as_str().unwrap().to_string()
    }

    /// The paths of the pages a search finds.
    fn found(&mut self, query: &str) -> Vec<String> {
        self.call("wiki_search", json!({"query": query}))
            .lines()
            .filter_map(|l| l.strip_prefix("Path: "))
            .map(str::to_string)
            .collect()
    }

    fn close(mut self) {
        drop(self.stdin);
        assert_eq!(self.child.wait().unwrap().code(), Some(0));
    }
}

fn page(kind: &str, id: &str, title: &str, body: &str) -> String {
    format!("---\npageType: {kind}\nid: {kind}.{id}\ntitle: {title}\n---\n# {title}\n\n{body}\n")
}

/// Edits made by another process between two calls are seen by the next call, whichever way
/// the file changed: an in-place write that keeps the size and the modification time, a new
/// page, a new page in a new directory, a page replaced by a rename, a deleted page.
#[test]
fn edits_between_calls_are_seen_by_the_next_call() {
    let (v, _ws) = fixture();
    let mut s = Session::start(&v);
    assert_eq!(s.found("service"), ["entities/alpha.md"]);
    assert_eq!(s.found("quokkas"), Vec::<String>::new());

    // Same size, same modification time: only the bytes differ.
    let alpha = v.root.join("entities/alpha.md");
    let before = std::fs::read_to_string(&alpha).unwrap();
    let mtime = std::fs::metadata(&alpha).unwrap().modified().unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&alpha)
        .unwrap();
    let at = before.find("a service.").unwrap() + 2;
    std::os::unix::fs::FileExt::write_at(&f, b"quokkas", at as u64).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    assert_eq!(
        std::fs::metadata(&alpha).unwrap().len() as usize,
        before.len()
    );
    assert_eq!(s.found("quokkas"), ["entities/alpha.md"]);
    assert_eq!(s.found("service"), Vec::<String>::new());

    // A new page in a page directory, and one in a directory created after the session began.
    v.write(
        "concepts/wombat.md",
        page("concept", "wombat", "Wombat", "Wombats dig burrows."),
    );
    assert_eq!(s.found("burrows"), ["concepts/wombat.md"]);
    v.write(
        "concepts/marsupials/numbat.md",
        page("concept", "numbat", "Numbat", "Numbats eat termites."),
    );
    assert_eq!(s.found("termites"), ["concepts/marsupials/numbat.md"]);
    let got = s.call(
        "wiki_get",
        json!({"lookup": "concepts/marsupials/numbat.md"}),
    );
    assert!(got.contains("Numbats eat termites."), "{got}");

    // Written beside it under a hidden name, then renamed over the page (an atomic save).
    v.write(
        "concepts/.wombat.md.tmp",
        page("concept", "wombat", "Wombat", "Wombats sleep all day."),
    );
    assert_eq!(s.found("burrows"), ["concepts/wombat.md"]);
    std::fs::rename(
        v.root.join("concepts/.wombat.md.tmp"),
        v.root.join("concepts/wombat.md"),
    )
    .unwrap();
    assert_eq!(s.found("burrows"), Vec::<String>::new());
    assert_eq!(s.found("sleep"), ["concepts/wombat.md"]);

    // A directory moved aside and another of the same name put in its place.
    std::fs::rename(
        v.root.join("concepts/marsupials"),
        v.root.join("concepts/.marsupials-old"),
    )
    .unwrap();
    v.write(
        "concepts/marsupials/bilby.md",
        page("concept", "bilby", "Bilby", "Bilbies eat termites too."),
    );
    assert_eq!(s.found("termites"), ["concepts/marsupials/bilby.md"]);
    v.write(
        "concepts/.marsupials-old/quoll.md",
        page("concept", "quoll", "Quoll", "Quolls hunt at night."),
    );
    v.write(
        "concepts/marsupials/dunnart.md",
        page("concept", "dunnart", "Dunnart", "Dunnarts hunt insects."),
    );
    assert_eq!(s.found("hunt"), ["concepts/marsupials/dunnart.md"]);

    // Deleted pages and a deleted directory.
    std::fs::remove_file(v.root.join("concepts/wombat.md")).unwrap();
    assert_eq!(s.found("sleep"), Vec::<String>::new());
    std::fs::remove_dir_all(v.root.join("concepts/marsupials")).unwrap();
    assert_eq!(s.found("termites"), Vec::<String>::new());
    s.close();
}
