use super::*;
use crate::files::MemFiles;
use crate::ops::parse_line;
use std::collections::BTreeMap;

const NOW: &str = "2026-04-05T12:00:00.000Z";

const ALPHA: &str = "---
pageType: entity
id: entity.alpha
title: Alpha
flags: [\"true\", yes]
claims:
  - id: claim.alpha.db
    text: Alpha uses PostgreSQL.
    status: supported
    confidence: 0.9
    evidence:
      - sourceId: source.alpha
        lines: \"12-18\"
    updatedAt: 2026-03-20T00:00:00.000Z
questions:
  - Who owns backups?
updatedAt: 2026-03-25T09:30:00.000Z
---

# Alpha

Body text.\r
## Notes
<!-- openclaw:human:start -->
human words
<!-- openclaw:human:end -->
";

fn files() -> MemFiles {
    MemFiles::new([
        ("entities/alpha.md".to_string(), ALPHA.as_bytes().to_vec()),
        (
            "sources/alpha.md".to_string(),
            b"---\nid: source.alpha\n---\n\n# Alpha Source\n".to_vec(),
        ),
        (
            "entities/beta.md".to_string(),
            b"# Beta\n\nno frontmatter\n".to_vec(),
        ),
    ])
}

fn run(files: &MemFiles, lines: &[&str]) -> (Vec<OpResult>, Vec<FileChange>) {
    let mut ws = Workspace::new(files, NOW);
    let mut results = Vec::new();
    for l in lines {
        let op = parse_line(l).unwrap_or_else(|e| panic!("{l}: {e}"));
        results.push(ws.apply(&op).unwrap_or_else(|e| panic!("{l}: {e}")));
    }
    (results, ws.changes())
}

fn run_err(files: &MemFiles, lines: &[&str]) -> String {
    let mut ws = Workspace::new(files, NOW);
    for l in lines {
        let op = parse_line(l).unwrap();
        if let Err(e) = ws.apply(&op) {
            return e.to_string();
        }
    }
    panic!("no error")
}

fn after(changes: &[FileChange], path: &str) -> String {
    let c = changes.iter().find(|c| c.path == path).expect(path);
    String::from_utf8(c.after.clone().unwrap()).unwrap()
}

fn body_of(text: &str) -> &str {
    let p = text.find("\n---\n").unwrap();
    &text[p + 5..]
}

#[test]
fn metadata_keeps_body_bytes_and_other_keys() {
    let f = files();
    let (r, c) = run(
        &f,
        &[
            r#"{"op":"metadata","lookup":"entity.alpha","questions":["Is the window long enough?"],"confidence":null,"status":"review"}"#,
        ],
    );
    assert!(r[0].changed);
    assert_eq!(r[0].page_path, "entities/alpha.md");
    assert_eq!(r[0].page_id.as_deref(), Some("entity.alpha"));
    let text = after(&c, "entities/alpha.md");
    assert_eq!(body_of(&text), body_of(ALPHA));
    assert!(text.contains("flags: [\"true\", yes]\n"), "{text}");
    assert!(text.contains("questions:\n  - Is the window long enough?\nupdatedAt: 2026-04-05T12:00:00.000Z\nstatus: review\n---\n"), "{text}");
}

#[test]
fn lookup_tiers() {
    let f = files();
    let mut ws = Workspace::new(&f, NOW);
    assert_eq!(
        ws.resolve_page("entities/alpha.md").unwrap().as_deref(),
        Some("entities/alpha.md")
    );
    assert_eq!(
        ws.resolve_page("entities/alpha").unwrap().as_deref(),
        Some("entities/alpha.md")
    );
    assert_eq!(
        ws.resolve_page("alpha").unwrap().as_deref(),
        Some("entities/alpha.md")
    );
    assert_eq!(
        ws.resolve_page(" source.alpha ").unwrap().as_deref(),
        Some("sources/alpha.md")
    );
    assert_eq!(ws.resolve_page("entity.nope").unwrap(), None);
    assert_eq!(
        run_err(&f, &[r#"{"op":"metadata","lookup":"nope","status":"x"}"#]),
        "Wiki page not found: nope"
    );
}

#[test]
fn synthesis_new_and_existing() {
    let f = files();
    let (r, c) = run(
        &f,
        &[
            r#"{"op":"synthesis","title":"Alpha Synthesis","body":" Alpha runs PostgreSQL. ","sourceIds":["source.alpha"]}"#,
        ],
    );
    assert_eq!(r[0].page_path, "syntheses/alpha-synthesis.md");
    assert_eq!(r[0].page_id.as_deref(), Some("synthesis.alpha-synthesis"));
    assert_eq!(
        after(&c, "syntheses/alpha-synthesis.md"),
        "---\npageType: synthesis\nid: synthesis.alpha-synthesis\ntitle: Alpha Synthesis\nsourceIds:\n  - source.alpha\nstatus: active\nupdatedAt: 2026-04-05T12:00:00.000Z\n---\n\n# Alpha Synthesis\n\n## Notes\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n\n## Summary\n<!-- openclaw:wiki:generated:start -->\nAlpha runs PostgreSQL.\n<!-- openclaw:wiki:generated:end -->\n"
    );
    // Refresh an existing synthesis: status reset, summary replaced in place, human text kept.
    let existing = "---\npageType: synthesis\nid: synthesis.x-custom\ntitle: X\nsourceIds: [a]\nstatus: draft\nupdatedAt: 2026-01-01T00:00:00.000Z\n---\n\n# X\n\n## Summary\n<!-- openclaw:wiki:generated:start -->\nold\n<!-- openclaw:wiki:generated:end -->\n\n## Notes\n<!-- openclaw:human:start -->\nmine\n<!-- openclaw:human:end -->\n";
    let f = MemFiles::new([("syntheses/x.md".to_string(), existing.as_bytes().to_vec())]);
    let (r, c) = run(
        &f,
        &[r#"{"op":"synthesis","title":"X","body":"new","sourceIds":["b"],"questions":["q?"]}"#],
    );
    assert_eq!(r[0].page_id.as_deref(), Some("synthesis.x-custom"));
    assert_eq!(
        after(&c, "syntheses/x.md"),
        "---\npageType: synthesis\nid: synthesis.x-custom\ntitle: X\nsourceIds: [b]\nstatus: active\nupdatedAt: 2026-04-05T12:00:00.000Z\nquestions:\n  - q?\n---\n\n# X\n\n## Summary\n<!-- openclaw:wiki:generated:start -->\nnew\n<!-- openclaw:wiki:generated:end -->\n\n## Notes\n<!-- openclaw:human:start -->\nmine\n<!-- openclaw:human:end -->\n"
    );
    // Same op again: no change.
    let f2 = MemFiles::new([(
        "syntheses/x.md".to_string(),
        after(&c, "syntheses/x.md").into_bytes(),
    )]);
    let (r, c) = run(
        &f2,
        &[r#"{"op":"synthesis","title":"X","body":"new","sourceIds":["b"],"questions":["q?"]}"#],
    );
    assert!(!r[0].changed);
    assert!(c.is_empty());
}

#[test]
fn index_title_gets_hashed_stem() {
    let f = MemFiles::default();
    let (r, _) = run(
        &f,
        &[r#"{"op":"synthesis","title":"Index","body":"b","sourceIds":["s"]}"#],
    );
    assert!(r[0].page_path.starts_with("syntheses/index-"));
}

#[test]
fn claim_lifecycle_in_one_batch() {
    let f = files();
    let (r, c) = run(
        &f,
        &[
            r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.lang","text":"Alpha writes Rust.","confidence":"0.6"}"#,
            r#"{"op":"add_evidence","claimId":"claim.alpha.lang","evidence":{"sourceId":"source.alpha","lines":"3-4"}}"#,
            r#"{"op":"add_evidence","claimId":"claim:claim.alpha.lang","evidence":{"sourceId":"source.alpha","lines":"3-4"}}"#,
            r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested","confidence":0.5}"#,
            r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db2","text":"Alpha uses MySQL.","validFrom":"2026-04-01T00:00:00.000Z"}"#,
        ],
    );
    assert!(
        r.iter()
            .map(|r| r.changed)
            .eq([true, true, false, true, true])
    );
    assert_eq!(r[4].claims, vec!["claim.alpha.db", "claim.alpha.db2"]);
    let text = after(&c, "entities/alpha.md");
    assert_eq!(body_of(&text), body_of(ALPHA));
    let expected_claims = "claims:
  - id: claim.alpha.db
    text: Alpha uses PostgreSQL.
    status: superseded
    confidence: 0.5
    evidence:
      - sourceId: source.alpha
        lines: \"12-18\"
    updatedAt: 2026-04-05T12:00:00.000Z
    validUntil: 2026-04-01T00:00:00.000Z
    supersededBy: claim.alpha.db2
  - id: claim.alpha.db2
    text: Alpha uses MySQL.
    evidence: []
    updatedAt: 2026-04-05T12:00:00.000Z
    validFrom: 2026-04-01T00:00:00.000Z
    supersedes: claim.alpha.db
  - id: claim.alpha.lang
    text: Alpha writes Rust.
    confidence: 0.6
    evidence:
      - sourceId: source.alpha
        lines: 3-4
        updatedAt: 2026-04-05T12:00:00.000Z
    updatedAt: 2026-04-05T12:00:00.000Z
questions:";
    assert!(text.contains(expected_claims), "{text}");
    // Replaying the whole batch on the result changes nothing.
    let f2 = MemFiles::new([("entities/alpha.md".to_string(), text.into_bytes())]);
    let (r, c) = run(
        &f2,
        &[
            r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.lang","text":"Alpha writes Rust.","confidence":"0.6"}"#,
            r#"{"op":"add_evidence","claimId":"claim.alpha.lang","evidence":{"sourceId":"source.alpha","lines":"3-4"}}"#,
            r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db2","text":"Alpha uses MySQL."}"#,
        ],
    );
    assert!(r.iter().all(|r| !r.changed));
    assert!(c.is_empty());
}

#[test]
fn claim_errors() {
    let f = files();
    assert_eq!(
        run_err(
            &f,
            &[r#"{"op":"update_claim","claimId":"claim.none","text":"x"}"#]
        ),
        "claim not found: claim.none"
    );
    assert_eq!(
        run_err(
            &f,
            &[
                r#"{"op":"update_claim","page":"sources/alpha.md","claimId":"claim.alpha.db","text":"x"}"#
            ]
        ),
        "claim claim.alpha.db not found on sources/alpha.md"
    );
    assert_eq!(
        run_err(
            &f,
            &[r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.db","text":"Other"}"#]
        ),
        "claim claim.alpha.db already exists on entities/alpha.md with a different text; use update_claim or supersede_claim"
    );
    assert_eq!(
        run_err(
            &f,
            &[
                r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"n1","text":"a"}"#,
                r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"n2","text":"b"}"#
            ]
        ),
        "claim claim.alpha.db on entities/alpha.md is already superseded by n1"
    );
    let dup = MemFiles::new([
        (
            "entities/a.md".to_string(),
            b"---\nclaims:\n  - id: c\n    text: t\n---\n".to_vec(),
        ),
        (
            "entities/b.md".to_string(),
            b"---\nclaims:\n  - id: c\n    text: t\n---\n".to_vec(),
        ),
    ]);
    assert_eq!(
        run_err(&dup, &[r#"{"op":"update_claim","claimId":"c","text":"x"}"#]),
        "claim c is on several pages (entities/a.md, entities/b.md); pass \"page\" to choose one"
    );
}

#[test]
fn notes_and_relationships() {
    let f = files();
    let (r, c) = run(
        &f,
        &[
            r#"{"op":"add_question","page":"beta","question":"Why?"}"#,
            r#"{"op":"add_question","page":"beta","question":"Why?"}"#,
            r#"{"op":"add_contradiction","page":"alpha","contradiction":"PG vs MySQL"}"#,
            r#"{"op":"resolve_question","page":"alpha","question":"Who owns backups?"}"#,
            r#"{"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"works-with","weight":1}"#,
            r#"{"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"works-with","confidence":0.7}"#,
        ],
    );
    assert!(
        r.iter()
            .map(|r| r.changed)
            .eq([true, false, true, true, true, true])
    );
    assert_eq!(
        after(&c, "entities/beta.md"),
        "---\nquestions:\n  - Why?\nupdatedAt: 2026-04-05T12:00:00.000Z\n---\n\n# Beta\n\nno frontmatter\n"
    );
    let alpha = after(&c, "entities/alpha.md");
    assert!(!alpha.contains("questions:"), "{alpha}");
    assert!(
        alpha.contains("contradictions:\n  - PG vs MySQL\n"),
        "{alpha}"
    );
    assert!(
        alpha.contains("relationships:\n  - targetId: entity.beta\n    kind: works-with\n    weight: 1\n    confidence: 0.7\n    updatedAt: 2026-04-05T12:00:00.000Z\n"),
        "{alpha}"
    );
}

#[test]
fn id_index_after_many_lookups() {
    let mut pages = Vec::new();
    for i in 0..20 {
        pages.push((
            format!("entities/e{i:02}.md"),
            format!("---\nid: entity.n{i}\n---\n\n# E{i}\n").into_bytes(),
        ));
    }
    let f = MemFiles::new(pages);
    let mut lines = Vec::new();
    for i in 0..10 {
        lines.push(format!(
            r#"{{"op":"add_claim","page":"entity.n{i}","claimId":"c{i}","text":"t"}}"#
        ));
    }
    for i in 0..10 {
        lines.push(format!(
            r#"{{"op":"update_claim","claimId":"c{i}","status":"ok"}}"#
        ));
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (r, c) = run(&f, &refs);
    assert!(r.iter().all(|r| r.changed));
    assert_eq!(c.len(), 10);
    assert_eq!(r[15].page_path, "entities/e05.md");
}

#[test]
fn set_ordered_positions() {
    let mut m = Mapping::new();
    m.insert(key("text"), string("t"));
    m.insert(key("evidence"), Value::Sequence(vec![]));
    m.insert(key("custom"), string("c"));
    set_ordered(&mut m, "id", string("i"), CLAIM_ORDER);
    set_ordered(&mut m, "status", string("s"), CLAIM_ORDER);
    set_ordered(&mut m, "zzz", string("z"), CLAIM_ORDER);
    let keys: Vec<String> = m.keys().map(wiki_parse::yaml::key_string).collect();
    assert_eq!(keys, ["id", "text", "status", "evidence", "custom", "zzz"]);
}

/// A batch keeps each page in memory and renders it once: the pages it writes are the bytes
/// that the same operations give applied one by one, each on the previous one's output, and
/// every operation reports the same `changed`.
#[test]
fn one_batch_equals_the_operations_one_by_one() {
    let lines = [
        r#"{"op":"add_claim","page":"entity.alpha","claimId":"claim.alpha.lang","text":"Alpha writes Rust."}"#,
        r#"{"op":"add_claim","page":"entities/alpha.md","claimId":"claim.alpha.lang","text":"Alpha writes Rust."}"#,
        r#"{"op":"add_evidence","claimId":"claim.alpha.lang","evidence":{"sourceId":"source.alpha"}}"#,
        r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db2","text":"MySQL."}"#,
        r#"{"op":"update_claim","claimId":"claim.alpha.db2","status":"contested","confidence":0.5}"#,
        r#"{"op":"update_claim","claimId":"claim.alpha.db2","status":"contested"}"#,
        r#"{"op":"add_question","page":"beta","question":"Why?"}"#,
        r#"{"op":"resolve_question","page":"beta","question":"Why?"}"#,
        r#"{"op":"add_question","page":"alpha","question":" Who owns backups? "}"#,
        r#"{"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"uses"}"#,
        r#"{"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"USES","weight":2}"#,
        r#"{"op":"metadata","lookup":"entity.alpha","status":"review","confidence":null}"#,
        r#"{"op":"metadata","lookup":"entity.alpha","status":"review"}"#,
        r#"{"op":"synthesis","title":"Alpha Synthesis","body":"one","sourceIds":["source.alpha"]}"#,
        r#"{"op":"add_claim","page":"synthesis.alpha-synthesis","claimId":"c.s","text":"S."}"#,
        r#"{"op":"synthesis","title":"Alpha Synthesis","body":"two","sourceIds":["source.alpha"]}"#,
        r#"{"op":"add_contradiction","page":"syntheses/alpha-synthesis","contradiction":"x"}"#,
    ];
    let f = files();
    let (batch_results, batch_changes) = run(&f, &lines);
    let mut state: BTreeMap<String, Vec<u8>> = [
        ("entities/alpha.md", ALPHA.as_bytes()),
        (
            "sources/alpha.md",
            b"---\nid: source.alpha\n---\n\n# Alpha Source\n",
        ),
        ("entities/beta.md", b"# Beta\n\nno frontmatter\n"),
    ]
    .into_iter()
    .map(|(p, b)| (p.to_string(), b.to_vec()))
    .collect();
    for (i, line) in lines.iter().enumerate() {
        let step = MemFiles::new(state.clone());
        let (r, c) = run(&step, &[line]);
        assert_eq!(r[0], batch_results[i], "{line}");
        for change in c {
            state.insert(change.path, change.after.unwrap());
        }
    }
    for c in &batch_changes {
        assert_eq!(
            String::from_utf8_lossy(c.after.as_deref().unwrap()),
            String::from_utf8_lossy(&state[&c.path]),
            "{}",
            c.path
        );
    }
    assert_eq!(
        batch_changes
            .iter()
            .map(|c| c.path.as_str())
            .collect::<Vec<_>>(),
        [
            "entities/alpha.md",
            "entities/beta.md",
            "syntheses/alpha-synthesis.md"
        ]
    );
}

/// Every operation (alone, and all in one batch) on pages whose frontmatter is in the form the
/// original plugin's emitter writes: the minimal edit gives exactly the bytes of rendering the
/// whole new frontmatter again (so vaults written by the original see the same files).
#[test]
fn canonical_pages_come_out_as_the_full_render() {
    let canonical = |yaml: &str, body: &str| {
        let fm = wiki_parse::yaml::parse_mapping(yaml, 2).unwrap();
        let emitted = wiki_parse::yaml::emit_mapping(&fm);
        assert_eq!(emitted, yaml, "the fixture is canonical");
        format!("---\n{emitted}---\n{body}").into_bytes()
    };
    let alpha = canonical(
        "pageType: entity\nid: entity.alpha\ntitle: Alpha\naliases:\n  - Al\nsourceIds:\n  - source.alpha\nclaims:\n  - id: claim.alpha.db\n    text: Alpha uses PostgreSQL.\n    status: supported\n    confidence: 0.9\n    evidence:\n      - sourceId: source.alpha\n        lines: 12-18\n    updatedAt: 2026-03-20T00:00:00.000Z\n  - id: claim.alpha.lang\n    text: Alpha writes Rust.\n    evidence: []\nquestions:\n  - Who owns backups?\n  - Why Rust?\ncontradictions:\n  - PG or MySQL?\nrelationships:\n  - targetId: entity.beta\n    kind: works-with\nconfidence: 0.8\nupdatedAt: 2026-03-25T09:30:00.000Z\n",
        "\n# Alpha\n\nBody.\n",
    );
    let synthesis = canonical(
        "pageType: synthesis\nid: synthesis.overview\ntitle: Overview\nsourceIds:\n  - source.alpha\nstatus: draft\nupdatedAt: 2026-03-25T09:30:00.000Z\n",
        "\n# Overview\n\n## Summary\n<!-- openclaw:wiki:generated:start -->\nold\n<!-- openclaw:wiki:generated:end -->\n",
    );
    let ops = [
        r#"{"op":"create_synthesis","title":"Overview","body":"new","sourceIds":["source.alpha","source.beta"],"questions":["Q?"],"confidence":0.5}"#,
        r#"{"op":"update_metadata","lookup":"alpha","sourceIds":["source.beta","source.alpha"],"questions":[],"confidence":null,"status":"review"}"#,
        r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.tea","text":"Alpha likes tea.","confidence":0.4,"evidence":[{"sourceId":"source.alpha","lines":"1-2"}]}"#,
        r#"{"op":"update_claim","claimId":"claim.alpha.db","status":"contested","confidence":0.3}"#,
        r#"{"op":"update_claim","claimId":"claim.alpha.lang","text":"Alpha writes Rust and Go."}"#,
        r#"{"op":"add_evidence","claimId":"claim.alpha.lang","evidence":{"sourceId":"source.alpha","note":"n"}}"#,
        r#"{"op":"add_evidence","claimId":"claim.alpha.db","evidence":{"sourceId":"source.beta"}}"#,
        r#"{"op":"supersede_claim","claimId":"claim.alpha.db","newClaimId":"claim.alpha.db2","text":"Alpha uses MySQL."}"#,
        r#"{"op":"add_relationship","page":"alpha","targetId":"entity.gamma","kind":"reports-to"}"#,
        r#"{"op":"add_relationship","page":"alpha","targetId":"entity.beta","kind":"works-with","confidence":0.6}"#,
        r#"{"op":"add_question","page":"alpha","question":"Since when?"}"#,
        r#"{"op":"resolve_question","page":"alpha","question":"Who owns backups?"}"#,
        r#"{"op":"add_contradiction","page":"alpha","contradiction":"Rust or Go?"}"#,
        r#"{"op":"resolve_contradiction","page":"alpha","contradiction":"PG or MySQL?"}"#,
    ];
    let batches: Vec<Vec<&str>> = ops
        .iter()
        .map(|op| vec![*op])
        .chain([ops.to_vec(), ops.iter().rev().copied().collect()])
        .chain([vec![
            // A list emptied (its key goes) and set again: it comes back last.
            r#"{"op":"resolve_question","page":"alpha","question":"Who owns backups?"}"#,
            r#"{"op":"resolve_question","page":"alpha","question":"Why Rust?"}"#,
            r#"{"op":"add_question","page":"alpha","question":"Since when?"}"#,
        ]])
        .collect();
    for batch in batches {
        let f = MemFiles::new([
            ("entities/alpha.md".to_string(), alpha.clone()),
            ("syntheses/overview.md".to_string(), synthesis.clone()),
            (
                "sources/alpha.md".to_string(),
                b"---\nid: source.alpha\n---\n\n# Alpha Source\n".to_vec(),
            ),
        ]);
        let (r, c) = run(&f, &batch);
        // (In the batches of all operations, a later one may find nothing left to do.)
        assert!(batch.len() > 1 || r[0].changed, "{batch:?}");
        assert!(!c.is_empty());
        for change in &c {
            let text = String::from_utf8(change.after.clone().unwrap()).unwrap();
            let p = page::parse_page_without_links(&change.path, text.as_bytes()).unwrap();
            assert_eq!(
                text,
                p.render_with(&p.frontmatter, p.body()),
                "{batch:?} on {}",
                change.path
            );
        }
    }
}
