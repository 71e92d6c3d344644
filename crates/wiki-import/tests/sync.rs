//! `wiki bridge import` and `wiki unsafe-local import` end to end.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use wiki_testkit::Vault;

/// 2026-04-05T12:00:00.000Z.
const MTIME: u64 = 1_775_390_400;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(MTIME))
        .unwrap();
}

fn config(v: &Vault, plugin: &str, agents: &str) {
    let p = v.home().join(".openclaw/openclaw.json");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(
        p,
        format!(
            "{{ {agents} plugins: {{ entries: {{ 'memory-wiki': {{ config: {plugin} }} }} }} }}\n"
        ),
    )
    .unwrap();
}

fn vault() -> (Vault, PathBuf) {
    let v = Vault::new();
    v.run("wiki", &["init", "."]).expect_code(0);
    let temp = std::fs::canonicalize(v.temp()).unwrap();
    (v, temp)
}

fn bridge_vault() -> (Vault, PathBuf) {
    let (v, temp) = vault();
    let ws = temp.join("workspace");
    write(&ws.join("MEMORY.md"), "# Memory\n- Prefers tea.\n");
    write(&ws.join("memory/2026-04-05.md"), "Met Bo.\n");
    write(
        &ws.join("memory/dreaming/2026-04-05.md"),
        "# Dream report\n",
    );
    write(&ws.join("memory/.dreams/private.md"), "never listed\n");
    config(
        &v,
        "{ vaultMode: 'bridge', bridge: { enabled: true, followMemoryEvents: false } }",
        &format!(
            "agents: {{ defaults: {{ workspace: '{}' }} }},",
            ws.display()
        ),
    );
    (v, ws)
}

fn sources(v: &Vault) -> Vec<String> {
    let mut s: Vec<String> = std::fs::read_dir(v.path("sources"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "index.md")
        .collect();
    s.sort();
    s
}

fn bridge_page(ws: &Path, rel: &str) -> String {
    let name = ws.file_name().unwrap().to_string_lossy();
    let ws_slug = format!(
        "{}-{}",
        wiki_parse::slug::slugify(&name),
        &wiki_parse::slug::sha1_hex(&ws.to_string_lossy())[..8]
    );
    let stem = rel.trim_end_matches(".md").replace('/', "-");
    let art = format!(
        "{}-{}",
        wiki_parse::slug::slugify(&stem),
        &wiki_parse::slug::sha1_hex(rel)[..8]
    );
    format!("bridge-{ws_slug}-{art}.md")
}

#[test]
fn bridge_imports_public_artifacts_once_and_skips_them_unchanged() {
    let (v, ws) = bridge_vault();
    let run = v.run("wiki", &["bridge", "import"]);
    run.expect_code(0);
    let committed = v.git(&["show", "--name-only", "--format=", "HEAD"]);
    let n = committed.lines().filter(|l| !l.is_empty()).count() - 1 + 2;
    assert_eq!(
        run.stdout,
        format!(
            "Bridge import synced 3 artifacts across 1 workspaces (3 new, 0 updated, 0 unchanged, 0 removed). Indexes refreshed ({n} files).\n"
        )
    );
    let daily = bridge_page(&ws, "memory/2026-04-05.md");
    let mut expected = vec![
        bridge_page(&ws, "MEMORY.md"),
        daily.clone(),
        bridge_page(&ws, "memory/dreaming/2026-04-05.md"),
    ];
    expected.sort();
    assert_eq!(sources(&v), expected);
    let page = v.read(&format!("sources/{daily}"));
    let ws_s = ws.display();
    let ws_slug = format!(
        "workspace-{}",
        &wiki_parse::slug::sha1_hex(&ws.to_string_lossy())[..8]
    );
    assert!(page.starts_with(&format!(
        "---\npageType: source\nid: source.bridge.{ws_slug}.{}\ntitle: \"Memory Bridge (main): 2026-04-05\"\nsourceType: memory-bridge\nsourcePath: {ws_s}/memory/2026-04-05.md\nbridgeRelativePath: memory/2026-04-05.md\nbridgeWorkspaceDir: {ws_s}\nbridgeAgentIds:\n  - main\nstatus: active\nupdatedAt: 2026-04-05T12:00:00.000Z\n---\n\n# Memory Bridge (main): 2026-04-05\n\n## Bridge Source\n- Workspace: `{ws_s}`\n- Relative path: `memory/2026-04-05.md`\n- Kind: `markdown`\n- Agents: main\n- Updated: 2026-04-05T12:00:00.000Z\n\n## Content\n```markdown\nMet Bo.\n\n```\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n",
        daily.trim_start_matches("bridge-").trim_start_matches(&format!("{ws_slug}-")).trim_end_matches(".md")
    )), "{page}");
    assert!(committed.contains(".openclaw-wiki/source-sync.json"));
    assert_eq!(v.status(), "");
    let commits = v.commit_count();
    let again = v.run("wiki", &["bridge", "import", "--json"]);
    again.expect_code(0);
    let j = again.json();
    assert_eq!(
        (
            j["importedCount"].as_u64(),
            j["updatedCount"].as_u64(),
            j["skippedCount"].as_u64()
        ),
        (Some(0), Some(0), Some(3))
    );
    assert_eq!(j["indexRefreshReason"], "no-import-changes");
    assert_eq!(j["indexesRefreshed"], false);
    assert_eq!(v.commit_count(), commits);
    let log = v.read(".openclaw-wiki/log.jsonl");
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("\"type\":\"ingest\""))
            .count(),
        1
    );
}

#[test]
fn bridge_keeps_human_notes_follows_events_and_prunes_deleted_artifacts() {
    let (v, ws) = bridge_vault();
    v.run("wiki", &["bridge", "import"]).expect_code(0);
    let daily = format!("sources/{}", bridge_page(&ws, "memory/2026-04-05.md"));
    let page = v.read(&daily).replace(
        "<!-- openclaw:human:start -->\n",
        "<!-- openclaw:human:start -->\nBo is the new lead.\n",
    );
    v.write(&daily, &page);
    v.commit_all("note");
    write(&ws.join("memory/2026-04-05.md"), "Met Bo again.\n");
    write(
        &ws.join("memory/.dreams/events.jsonl"),
        "{\"type\":\"memory.recall.recorded\",\"timestamp\":\"2026-04-05T12:00:00.000Z\"}\n",
    );
    config(
        &v,
        "{ vaultMode: 'bridge', bridge: { enabled: true } }",
        &format!(
            "agents: {{ defaults: {{ workspace: '{}' }} }},",
            ws.display()
        ),
    );
    let j = v.run("wiki", &["bridge", "import", "--json"]).json();
    assert_eq!(
        (j["importedCount"].as_u64(), j["updatedCount"].as_u64()),
        (Some(1), Some(1))
    );
    let after = v.read(&daily);
    assert!(
        after.contains("Met Bo again.\n") && after.contains("Bo is the new lead.\n"),
        "{after}"
    );
    let events = v.read(&format!(
        "sources/{}",
        bridge_page(&ws, "memory/.dreams/events.jsonl")
    ));
    assert!(
        events.contains("sourceType: memory-bridge-events\n"),
        "{events}"
    );
    assert!(
        events.contains("title: \"Memory Bridge (main): event journal\"\n"),
        "{events}"
    );
    assert!(events.contains("- Kind: `memory-events`\n"), "{events}");
    assert!(events.contains("```json\n{\"type\":\"memory.recall.recorded\",\"timestamp\":\"2026-04-05T12:00:00.000Z\"}\n\n```"), "{events}");
    std::fs::remove_file(ws.join("memory/2026-04-05.md")).unwrap();
    let j = v.run("wiki", &["bridge", "import", "--json"]).json();
    assert_eq!(j["removedCount"], 1);
    assert_eq!(j["removedPagePaths"], serde_json::json!([daily]));
    assert!(!v.exists(&daily));
    assert!(
        !v.read(".openclaw-wiki/source-sync.json")
            .contains("memory/2026-04-05.md\"")
    );
}

#[test]
fn bridge_workspace_option_leaves_other_workspaces_pages_alone() {
    let (v, ws) = bridge_vault();
    v.run("wiki", &["bridge", "import"]).expect_code(0);
    let temp = ws.parent().unwrap();
    let other = temp.join("other");
    write(&other.join("MEMORY.md"), "# Other\n");
    let run = v.run(
        "wiki",
        &["bridge", "import", "--workspace", other.to_str().unwrap()],
    );
    run.expect_code(0);
    assert!(run.stdout.starts_with("Bridge import synced 1 artifacts across 1 workspaces (1 new, 0 updated, 0 unchanged, 0 removed)."), "{}", run.stdout);
    assert_eq!(sources(&v).len(), 4);
}

#[test]
fn bridge_as_an_agent_imports_only_that_agents_artifacts() {
    let (v, temp) = vault();
    let ws = temp.join("shared");
    write(&ws.join("MEMORY.md"), "# Shared\n");
    write(
        &ws.join("memory/.dreams/agents/research/DREAMS.md"),
        "research dream\n",
    );
    write(
        &ws.join("memory/.dreams/agents/writer/DREAMS.md"),
        "writer dream\n",
    );
    write(
        &ws.join("memory/.dreams/agents/writer/events.jsonl"),
        "{}\n",
    );
    write(
        &ws.join("memory/dreaming/legacy.md"),
        "cannot be attributed\n",
    );
    write(&ws.join("memory/.dreams/events.jsonl"), "{}\n");
    config(
        &v,
        "{ vaultMode: 'bridge', vault: { scope: 'agent' }, bridge: { enabled: true } }",
        &format!(
            "agents: {{ list: [{{ id: 'research', default: true, workspace: '{0}' }}, {{ id: 'writer', workspace: '{0}' }}] }},",
            ws.display()
        ),
    );
    let run = v.run("wiki", &["--agent", "research", "bridge", "import"]);
    run.expect_code(0);
    assert!(
        run.stdout
            .starts_with("Bridge import synced 2 artifacts across 1 workspaces (2 new"),
        "{}",
        run.stdout
    );
    let files = v.git(&["ls-tree", "-r", "--name-only", "agents/research", "sources"]);
    assert!(files.contains(&bridge_page(&ws, "MEMORY.md")), "{files}");
    assert!(
        files.contains(&bridge_page(
            &ws,
            "memory/.dreams/agents/research/DREAMS.md"
        )),
        "{files}"
    );
    assert!(
        !files.contains(&bridge_page(&ws, "memory/.dreams/agents/writer/DREAMS.md")),
        "{files}"
    );
    let memory = v.git(&[
        "show",
        &format!("agents/research:sources/{}", bridge_page(&ws, "MEMORY.md")),
    ]);
    assert!(
        memory.contains("title: \"Memory Bridge (research, writer): MEMORY\"\n"),
        "{memory}"
    );
    // The checked-out branch is untouched.
    assert_eq!(sources(&v), Vec::<String>::new());
}

#[test]
fn bridge_is_refused_when_the_config_turns_it_off() {
    let (v, _) = vault();
    let run = v.run("wiki", &["bridge", "import"]);
    run.expect_code(2);
    let config = v.home().join(".openclaw/openclaw.json");
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: bridge import is off: it needs vaultMode \"bridge\" (now \"isolated\"), bridge.enabled true (now false) and bridge.readMemoryArtifacts true (now true) in {}\n",
            config.display()
        )
    );
}

#[test]
fn long_unicode_names_fit_a_file_name() {
    let (v, temp) = vault();
    let ws = temp.join("工作区".repeat(20));
    let rel = format!("memory/{}.md", "日记".repeat(40));
    write(&ws.join(&rel), "x\n");
    config(
        &v,
        "{ vaultMode: 'bridge', bridge: { enabled: true } }",
        &format!(
            "agents: {{ defaults: {{ workspace: '{}' }} }},",
            ws.display()
        ),
    );
    v.run("wiki", &["bridge", "import"]).expect_code(0);
    let names = sources(&v);
    assert_eq!(names.len(), 1);
    assert!(names[0].len() <= 255, "{}", names[0].len());
}

fn unsafe_vault() -> (Vault, PathBuf, PathBuf) {
    let (v, temp) = vault();
    let dir = temp.join("private");
    write(&dir.join("notes.md"), "# Notes\n");
    write(&dir.join("sub/data.JSON"), "{\"a\": 1}\n");
    write(&dir.join("blob.bin"), "ignored\n");
    let log = temp.join("events.log");
    write(&log, "line\n");
    config(
        &v,
        &format!(
            "{{ vaultMode: 'unsafe-local', unsafeLocal: {{ allowPrivateMemoryCoreAccess: true, paths: ['{}', '{}'] }} }}",
            dir.display(),
            log.display()
        ),
        "",
    );
    (v, dir, log)
}

#[test]
fn unsafe_local_imports_configured_paths_and_prunes_only_readable_directories() {
    let (v, dir, log) = unsafe_vault();
    let run = v.run("wiki", &["unsafe-local", "import"]);
    run.expect_code(0);
    assert!(run.stdout.starts_with("Unsafe-local import synced 3 artifacts (3 new, 0 updated, 0 unchanged, 0 removed). Indexes refreshed ("), "{}", run.stdout);
    let names = sources(&v);
    assert_eq!(names.len(), 3);
    let h = |p: &Path| wiki_parse::slug::sha1_hex(&p.to_string_lossy())[..8].to_string();
    let data = format!(
        "sources/unsafe-local-private-{}-data-json-{}.md",
        h(&dir),
        h(&dir.join("sub/data.JSON"))
    );
    let page = v.read(&data);
    assert!(page.contains("title: \"Unsafe Local Import: sub/data.JSON\"\nsourceType: memory-unsafe-local\nprovenanceMode: unsafe-local\n"), "{page}");
    assert!(
        page.contains(&format!(
            "unsafeLocalConfiguredPath: {}\nunsafeLocalRelativePath: sub/data.JSON\n",
            dir.display()
        )),
        "{page}"
    );
    assert!(
        page.contains("## Unsafe Local Source\n") && page.contains("```json\n{\"a\": 1}\n\n```"),
        "{page}"
    );
    let events = format!(
        "sources/unsafe-local-events-log-{}-events-log-{}.md",
        h(&log),
        h(&log)
    );
    assert!(v.read(&events).contains("```markdown\nline\n"));
    let again = v.run("wiki", &["unsafe-local", "import", "--json"]).json();
    assert_eq!(again["skippedCount"], 3);
    // A file deleted from a readable directory loses its page.
    std::fs::remove_file(dir.join("sub/data.JSON")).unwrap();
    let j = v.run("wiki", &["unsafe-local", "import", "--json"]).json();
    assert_eq!(j["removedCount"], 1);
    assert!(!v.exists(&data));
    // A directory away for now keeps its pages and their notes.
    let notes = format!(
        "sources/unsafe-local-private-{}-notes-md-{}.md",
        h(&dir),
        h(&dir.join("notes.md"))
    );
    let noted = v.read(&notes).replace(
        "<!-- openclaw:human:start -->\n",
        "<!-- openclaw:human:start -->\nmine\n",
    );
    v.write(&notes, &noted);
    v.commit_all("note");
    std::fs::rename(&dir, dir.with_extension("away")).unwrap();
    let j = v.run("wiki", &["unsafe-local", "import", "--json"]).json();
    assert_eq!(j["removedCount"], 0);
    assert!(v.read(&notes).contains("mine\n"));
}

#[test]
fn unsafe_local_is_refused_unless_configured() {
    let (v, _) = vault();
    config(
        &v,
        "{ vaultMode: 'unsafe-local', unsafeLocal: { paths: ['/tmp'] } }",
        "",
    );
    let run = v.run("wiki", &["unsafe-local", "import"]);
    run.expect_code(2);
    let config = v.home().join(".openclaw/openclaw.json");
    assert_eq!(
        run.stderr,
        format!(
            "wiki: error: unsafe-local import is off: it needs vaultMode \"unsafe-local\" (now \"unsafe-local\"), unsafeLocal.allowPrivateMemoryCoreAccess true (now false) and at least one unsafeLocal.paths entry (now 1) in {}\n",
            config.display()
        )
    );
}
