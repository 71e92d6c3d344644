use super::*;

fn cfg(text: &str) -> Result<WikiConfig, CliError> {
    parse_config(text, Path::new("/etc/openclaw/openclaw.json"))
}

fn plugin(body: &str) -> Result<WikiConfig, CliError> {
    cfg(&format!(
        "{{plugins:{{entries:{{'memory-wiki':{{config:{body}}}}}}}}}"
    ))
}

fn err(r: Result<WikiConfig, CliError>) -> String {
    r.expect_err("expected a config error").to_string()
}

#[test]
fn defaults_and_json5() {
    let c = cfg("{ // comment\n plugins: { entries: { 'memory-wiki': { config: { vault: { path: 'vaults/main', }, }, }, }, }, }").unwrap();
    assert_eq!(
        c.vault_path,
        Some(PathBuf::from("/etc/openclaw/vaults/main"))
    );
    assert!(!c.agent_scope);
    assert_eq!(c.resolve_agent(None).unwrap(), None);
    assert_eq!(
        c.resolve_agent(Some(" SUPPORT TEAM ")).unwrap(),
        Some("support-team".into())
    );
    assert_eq!(c.source_of("vault.path"), Source::file());
    assert_eq!(c.source_of("search.corpus"), Source::default_value());
    let d = cfg("{}").unwrap();
    assert_eq!(d.settings, Settings::default());
}

#[test]
fn syntax_errors_give_line_and_column() {
    assert_eq!(
        err(cfg("{\n  plugins: {\n    entries: ,\n}")),
        "/etc/openclaw/openclaw.json:3:14: invalid JSON5 config: expected value"
    );
}

#[test]
fn the_seed_example_reads_back_typed() {
    let c = plugin(
        "{vaultMode:'bridge', vault:{scope:'global', path:'~/w', renderMode:'obsidian'},
          obsidian:{enabled:true, useOfficialCli:true, vaultName:' OpenClaw Wiki ', openAfterWrites:false},
          bridge:{enabled:true, readMemoryArtifacts:false, indexDreamReports:true, indexDailyNotes:false,
                  indexMemoryRoot:true, followMemoryEvents:false, ownership:'owner'},
          unsafeLocal:{allowPrivateMemoryCoreAccess:true, paths:['~/private', 'rel', '  ']},
          ingest:{autoCompile:false, maxConcurrentJobs:3, allowUrlIngest:false},
          search:{backend:'local', corpus:'all'},
          context:{includeCompiledDigestPrompt:true},
          render:{preserveHumanBlocks:true, createBacklinks:false, createDashboards:false}}",
    )
    .unwrap();
    let s = &c.settings;
    let home = crate::home_dir();
    assert_eq!(s.vault_mode, VaultMode::Bridge);
    assert_eq!(s.vault.path, Some(home.join("w")));
    assert_eq!(s.vault.render_mode, RenderMode::Obsidian);
    assert_eq!(s.obsidian.vault_name.as_deref(), Some("OpenClaw Wiki"));
    assert!(s.obsidian.enabled && s.obsidian.use_official_cli && !s.obsidian.open_after_writes);
    assert!(s.bridge.enabled && !s.bridge.read_memory_artifacts && !s.bridge.index_daily_notes);
    assert_eq!(s.bridge.ownership, BridgeOwnership::Owner);
    assert_eq!(
        s.unsafe_local.paths,
        vec![home.join("private"), PathBuf::from("/etc/openclaw/rel")]
    );
    assert_eq!(s.ingest.max_concurrent_jobs, 3);
    assert!(!s.ingest.auto_compile && !s.ingest.allow_url_ingest);
    assert_eq!(s.search.backend, SearchBackend::Local);
    assert_eq!(s.search.corpus, SearchCorpus::All);
    assert!(s.context.include_compiled_digest_prompt);
    assert!(!s.render.create_backlinks && !s.render.create_dashboards);
    // Every key the file sets has the file as its source.
    for k in schema::PLUGIN_KEYS {
        if k.kind != schema::Kind::Object {
            assert_eq!(c.source_of(k.path), Source::file(), "{}", k.path);
        }
    }
}

#[test]
fn every_kind_of_validation_error_names_the_key_path() {
    let p = "/etc/openclaw/openclaw.json: plugins.entries.memory-wiki.config";
    let cases = [
        (
            "{search:{corpus:'everything'}}",
            format!("{p}.search.corpus: expected one of wiki, memory, all (found \"everything\")"),
        ),
        (
            "{search:{backend:'remote'}}",
            format!("{p}.search.backend: expected one of shared, local (found \"remote\")"),
        ),
        (
            "{vaultMode:'open'}",
            format!(
                "{p}.vaultMode: expected one of isolated, bridge, unsafe-local (found \"open\")"
            ),
        ),
        (
            "{vault:{scope:'team'}}",
            format!("{p}.vault.scope: expected one of global, agent (found \"team\")"),
        ),
        (
            "{vault:{renderMode:'html'}}",
            format!("{p}.vault.renderMode: expected one of native, obsidian (found \"html\")"),
        ),
        (
            "{bridge:{ownership:'anyone'}}",
            format!(
                "{p}.bridge.ownership: expected one of sandboxed-only, owner, delegation (found \"anyone\")"
            ),
        ),
        (
            "{ingest:{autoCompile:'yes'}}",
            format!("{p}.ingest.autoCompile: expected true or false (found \"yes\")"),
        ),
        (
            "{ingest:{maxConcurrentJobs:0}}",
            format!("{p}.ingest.maxConcurrentJobs: expected an integer >= 1 (found 0)"),
        ),
        (
            "{vault:{path:42}}",
            format!("{p}.vault.path: expected a string (found 42)"),
        ),
        (
            "{unsafeLocal:{paths:'~/x'}}",
            format!("{p}.unsafeLocal.paths: expected a list of strings (found \"~/x\")"),
        ),
        (
            "{render:true}",
            format!("{p}.render: expected an object (found true)"),
        ),
        (
            "{colour:'red'}",
            format!(
                "{p}.colour: unknown key (expected one of: vaultMode, vault, obsidian, bridge, unsafeLocal, ingest, search, context, render)"
            ),
        ),
        (
            "{context:{includeCompiledDigest:true}}",
            format!(
                "{p}.context.includeCompiledDigest: unknown key (expected one of: includeCompiledDigestPrompt)"
            ),
        ),
        (
            "{obsidian:{vaultName:null}}",
            format!("{p}.obsidian.vaultName: expected a string (found null)"),
        ),
        ("[]", format!("{p}: expected an object (found [])")),
    ];
    for (body, want) in cases {
        assert_eq!(err(plugin(body)), want, "{body}");
    }
}

#[test]
fn the_original_cross_key_rules() {
    let p = "/etc/openclaw/openclaw.json: plugins.entries.memory-wiki.config";
    assert_eq!(
        err(plugin("{vaultMode:'unsafe-local', vault:{scope:'agent'}}")),
        format!("{p}.vaultMode: vaultMode=unsafe-local cannot be combined with vault.scope=agent")
    );
    assert_eq!(
        err(plugin(
            "{obsidian:{useOfficialCli:true}, vault:{scope:'agent'}}"
        )),
        format!(
            "{p}.obsidian.useOfficialCli: obsidian.useOfficialCli cannot be enabled with vault.scope=agent"
        )
    );
}

#[test]
fn outside_the_plugin_only_what_we_read_is_checked() {
    let f = "/etc/openclaw/openclaw.json";
    assert!(cfg("{models:{whatever:[1,2]}, gateway:3, plugins:{entries:{other:{x:1}}}}").is_ok());
    assert_eq!(
        err(cfg("{plugins:{entries:{'memory-wiki':{enabled:'yes'}}}}")),
        format!("{f}: plugins.entries.memory-wiki.enabled: expected true or false (found \"yes\")")
    );
    assert_eq!(
        err(cfg("{plugins:[]}")),
        format!("{f}: plugins: expected an object (found [])")
    );
    assert_eq!(
        err(cfg("{agents:{list:[{id:'a'},{name:'b'}]}}")),
        format!("{f}: agents.list[1]: missing required key id")
    );
    assert_eq!(
        err(cfg("{agents:{list:[{id:7}]}}")),
        format!("{f}: agents.list[0].id: expected a non-empty string (found 7)")
    );
    assert_eq!(
        err(cfg("{agents:{list:['main']}}")),
        format!("{f}: agents.list[0]: expected an object (found \"main\")")
    );
    assert_eq!(
        err(cfg("{agents:{list:{}}}")),
        format!("{f}: agents.list: expected a list (found {{}})")
    );
    assert_eq!(
        err(cfg("{agents:{list:[{id:'a', workspace:1}]}}")),
        format!("{f}: agents.list[0].workspace: expected a string (found 1)")
    );
    assert_eq!(
        err(cfg("{agents:{list:[{id:'a', default:'yes'}]}}")),
        format!("{f}: agents.list[0].default: expected true or false (found \"yes\")")
    );
    assert_eq!(
        err(cfg("{agents:{defaults:{workspace:false}}}")),
        format!("{f}: agents.defaults.workspace: expected a string (found false)")
    );
    assert_eq!(
        err(cfg("{agents:{entries:{a:3}}}")),
        format!("{f}: agents.entries.a: expected an object (found 3)")
    );
    assert!(cfg("{agents:{list:[{id:'a', model:'x', tools:{deny:[]}}]}}").is_ok());
}

#[test]
fn agent_scope_rules() {
    let one = cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}, agents:{list:[{id:'Main'}]}}").unwrap();
    assert!(one.agent_scope);
    assert_eq!(one.resolve_agent(None).unwrap(), Some("main".into()));
    let none = cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}}").unwrap();
    assert_eq!(none.resolve_agent(None).unwrap(), Some("main".into()));
    let two = cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}, agents:{entries:{support:{}, MARKETING:{}}}}").unwrap();
    assert_eq!(two.agents, vec!["support", "marketing"]);
    let e = err(Ok(two.clone()).and_then(|c| c.resolve_agent(None).map(|_| c)));
    assert!(
        e.starts_with("No default memory-wiki agent is configured."),
        "{e}"
    );
    assert_eq!(
        two.resolve_agent(Some("finance")).unwrap_err().to_string(),
        "Unknown memory-wiki agentId: finance."
    );
    assert_eq!(
        two.resolve_agent(Some("Marketing")).unwrap(),
        Some("marketing".into())
    );
    let marked = cfg("{plugins:{entries:{'memory-wiki':{config:{vault:{scope:'agent'}}}}}, agents:{list:[{id:'a'},{id:'b', default:true}]}}").unwrap();
    assert_eq!(marked.resolve_agent(None).unwrap(), Some("b".into()));
}

#[test]
fn workspaces_follow_openclaw() {
    let home = crate::home_dir();
    let c = cfg("{}").unwrap();
    assert!(c.workspace(None).value.ends_with("workspace"));
    let sole = cfg("{agents:{defaults:{workspace:'~/ws'}, list:[{id:'solo'}]}}").unwrap();
    assert_eq!(sole.workspace(Some("solo")).value, home.join("ws"));
    assert_eq!(sole.workspace(None).source, Source::file());
    let roster =
        cfg("{agents:{defaults:{workspace:'/srv/ws'}, list:[{id:'a', workspace:'/a'},{id:'b'}]}}")
            .unwrap();
    assert_eq!(roster.workspace(Some("a")).value, PathBuf::from("/a"));
    assert_eq!(
        roster.workspace(Some("b")).value,
        PathBuf::from("/srv/ws/b")
    );
    let bare = cfg("{agents:{list:[{id:'a'},{id:'b'}]}}").unwrap();
    assert!(bare.workspace(Some("b")).value.ends_with("workspace-b"));
}

#[test]
fn env_references_are_substituted() {
    // SAFETY-free: a variable only this test reads.
    let (text, used) = env_subst("${HOME}/x and $${HOME}", "k").unwrap();
    assert_eq!(
        text,
        format!("{}/x and ${{HOME}}", crate::home_dir().display())
    );
    assert_eq!(used, vec!["HOME"]);
    assert_eq!(env_subst("${lower} $5", "k").unwrap().0, "${lower} $5");
    assert_eq!(
        env_subst("${WIKI_TEST_SURELY_UNSET_9}", "a.b").unwrap_err(),
        "a.b: environment variable WIKI_TEST_SURELY_UNSET_9 (referenced as ${WIKI_TEST_SURELY_UNSET_9}) is not set"
    );
    let c = plugin("{vault:{path:'${HOME}/v'}}").unwrap();
    assert_eq!(c.vault_path, Some(crate::home_dir().join("v")));
    assert_eq!(c.source_of("vault.path").via.as_deref(), Some("${HOME}"));
}
