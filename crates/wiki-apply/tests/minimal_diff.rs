//! Minimal diffs: every operation leaves every byte of the frontmatter it does not change as it
//! was (key order, quoting, flow or block style, comments, CRLF line endings); only the changed
//! entries (a key, one claim, one key of a claim) are written again. End to end with the real
//! binary, on pages written by hand.

mod common;

use common::*;

const NOW: &str = "2026-04-05T12:00:00.000Z";

/// A page written by hand: comments, quotes, flow collections, a flow claim between block ones.
const HAND: &str = "---
# Alpha, kept by hand
pageType: entity
id: entity.alpha
title: \"Alpha\"   # display name
aliases: [Al, 'A. L.']
sourceIds: [source.alpha]
status: 'active'
claims:
  - {id: claim.alpha.db, text: \"Alpha uses PostgreSQL.\", status: supported, confidence: 0.9}
  # the next one needs evidence
  - id: claim.alpha.backups
    text: 'Alpha runs nightly backups.'   # quoted by hand
    confidence: 0.50
    evidence: [{sourceId: source.alpha, lines: \"12-18\"}]
questions: [\"Who owns it?\"]
contradictions:
  - 'Postgres or MySQL?'   # from the March notes
  - Nightly or hourly backups?
relationships:
  - {targetId: entity.beta, kind: works-with}
updatedAt: 2026-03-25T09:30:00.000Z
---

# Alpha

Body text.
";

/// A synthesis written by hand (the original's two operations).
const SYNTHESIS: &str = "---
pageType: synthesis
id: synthesis.alpha-overview
title: 'Alpha Overview'
sourceIds: [source.alpha]   # one source so far
status: draft
confidence: 0.60
---

# Alpha Overview

## Summary
<!-- openclaw:wiki:generated:start -->
old summary
<!-- openclaw:wiki:generated:end -->

## Notes
<!-- openclaw:human:start -->
<!-- openclaw:human:end -->
";

fn hand_vault() -> Vault {
    hand_vault_with(false)
}

/// The hand-written vault; with `crlf`, its two hand-written pages have CRLF line endings.
fn hand_vault_with(crlf: bool) -> Vault {
    let eol = |s: &str| {
        if crlf {
            s.replace('\n', "\r\n")
        } else {
            s.to_string()
        }
    };
    let v = Vault::with_git();
    v.write(".openclaw-wiki/state.json", "{}\n");
    v.write("entities/alpha.md", eol(HAND));
    v.write("sources/alpha.md", SOURCE);
    v.write("syntheses/alpha-overview.md", eol(SYNTHESIS));
    v.write(
        "entities/beta.md",
        "---\r\npageType: entity\r\nid: entity.beta\r\ntitle: Beta   # CRLF page\r\nclaims:\r\n- id: claim.beta.launch\r\n  text: \"Beta launched.\"\r\nquestions: [\"When?\"]\r\n---\r\n\r\n# Beta\r\n",
    );
    v.commit_all("pages written by hand");
    v
}

/// The frontmatter block of a page (fences included).
fn frontmatter(text: &str) -> &str {
    let end = text[4..].find("\n---").expect("closing fence") + 4 + 4;
    &text[..end]
}

/// Apply one operation (no compile) on a fresh vault; the page's frontmatter afterwards.
fn after(op: &str, path: &str) -> String {
    after_with(op, path, false)
}

/// [`after`], on the vault with CRLF pages when `crlf`.
fn after_with(op: &str, path: &str, crlf: bool) -> String {
    let v = hand_vault_with(crlf);
    apply(&v, &["--no-compile"], &[op]).expect_code(0);
    let text = v.read(path);
    let before = show(&v, &format!("HEAD~1:{path}"));
    // (create_synthesis rewrites its Summary block.)
    if !op.contains("create_synthesis") {
        assert_eq!(
            &text[frontmatter(&text).len()..],
            &before[frontmatter(&before).len()..],
            "body unchanged"
        );
    }
    frontmatter(&text).to_string()
}

/// The last commit's diff of `entities/alpha.md`, and its changed lines before the body (and
/// its Related block).
fn frontmatter_diff(v: &Vault) -> (String, Vec<String>) {
    let diff = v.git(&["diff", "-U0", "HEAD~1", "HEAD", "--", "entities/alpha.md"]);
    let changed = diff
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .take_while(|l| *l != "+" && !l.contains("## Related"))
        .map(str::to_string)
        .collect();
    (diff, changed)
}

/// `HAND`'s frontmatter with `updatedAt` set to now and `edits` (from, to) applied.
fn expected(edits: &[(&str, &str)]) -> String {
    let mut s = frontmatter(HAND).replace("2026-03-25T09:30:00.000Z", NOW);
    for (from, to) in edits {
        assert!(s.contains(from), "{from}");
        s = s.replacen(from, to, 1);
    }
    s
}

#[test]
fn claim_operations_write_only_the_claim() {
    // A new claim: one item appended after the last one.
    assert_eq!(
        after(
            r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.tea","text":"Alpha likes tea."}"#,
            "entities/alpha.md"
        ),
        expected(&[(
            "    evidence: [{sourceId: source.alpha, lines: \"12-18\"}]\n",
            "    evidence: [{sourceId: source.alpha, lines: \"12-18\"}]\n  - id: claim.alpha.tea\n    text: Alpha likes tea.\n    evidence: []\n    updatedAt: 2026-04-05T12:00:00.000Z\n"
        )])
    );
    // One key of a block claim: that line (its comment kept on the line before), and the
    // claim's updatedAt.
    assert_eq!(
        after(
            r#"{"op":"update_claim","claimId":"claim.alpha.backups","status":"contested","confidence":0.3}"#,
            "entities/alpha.md"
        ),
        expected(&[
            (
                "   # quoted by hand\n    confidence: 0.50\n",
                "   # quoted by hand\n    status: contested\n    confidence: 0.3\n"
            ),
            (
                "lines: \"12-18\"}]\n",
                "lines: \"12-18\"}]\n    updatedAt: 2026-04-05T12:00:00.000Z\n"
            ),
        ])
    );
    // Evidence added to a flow list: appended inside it.
    assert_eq!(
        after(
            r#"{"op":"add_evidence","claimId":"claim.alpha.backups","evidence":{"sourceId":"source.alpha","lines":"20-21"}}"#,
            "entities/alpha.md"
        ),
        expected(&[(
            "lines: \"12-18\"}]\n",
            "lines: \"12-18\"}, {sourceId: source.alpha, lines: 20-21, updatedAt: 2026-04-05T12:00:00.000Z}]\n"
        )])
    );
    // A flow claim that changes is written again (in flow style), and only it.
    assert_eq!(
        after(
            r#"{"op":"update_claim","claimId":"claim.alpha.db","confidence":0.4}"#,
            "entities/alpha.md"
        ),
        expected(&[(
            "  - {id: claim.alpha.db, text: \"Alpha uses PostgreSQL.\", status: supported, confidence: 0.9}\n",
            "  - {id: claim.alpha.db, text: Alpha uses PostgreSQL., status: supported, confidence: 0.4, updatedAt: 2026-04-05T12:00:00.000Z}\n"
        )])
    );
    // Supersede: the old claim's new keys, the new claim right after it.
    let fm = after(
        r#"{"op":"supersede_claim","claimId":"claim.alpha.backups","newClaimId":"claim.alpha.backups2","text":"Alpha runs hourly backups."}"#,
        "entities/alpha.md",
    );
    assert_eq!(
        fm,
        expected(&[
            (
                "   # quoted by hand\n",
                "   # quoted by hand\n    status: superseded\n"
            ),
            (
                "lines: \"12-18\"}]\n",
                "lines: \"12-18\"}]\n    updatedAt: 2026-04-05T12:00:00.000Z\n    validUntil: 2026-04-05T12:00:00.000Z\n    supersededBy: claim.alpha.backups2\n  - id: claim.alpha.backups2\n    text: Alpha runs hourly backups.\n    evidence: []\n    updatedAt: 2026-04-05T12:00:00.000Z\n    validFrom: 2026-04-05T12:00:00.000Z\n    supersedes: claim.alpha.backups\n"
            ),
        ])
    );
}

#[test]
fn page_operations_write_only_their_key() {
    // A question: appended inside the flow list; resolved: the key goes, nothing else.
    assert_eq!(
        after(
            r#"{"op":"add_question","page":"alpha","question":"Since when?"}"#,
            "entities/alpha.md"
        ),
        expected(&[("[\"Who owns it?\"]", "[\"Who owns it?\", Since when?]")])
    );
    assert_eq!(
        after(
            r#"{"op":"resolve_question","page":"alpha","question":"Who owns it?"}"#,
            "entities/alpha.md"
        ),
        expected(&[("questions: [\"Who owns it?\"]\n", "")])
    );
    // A block list: one item appended, or the resolved item's line (its comment with it) cut.
    assert_eq!(
        after(
            r#"{"op":"add_contradiction","page":"alpha","contradiction":"Rust or Go?"}"#,
            "entities/alpha.md"
        ),
        expected(&[(
            "  - Nightly or hourly backups?\n",
            "  - Nightly or hourly backups?\n  - Rust or Go?\n"
        )])
    );
    assert_eq!(
        after(
            r#"{"op":"resolve_contradiction","page":"alpha","contradiction":"Postgres or MySQL?"}"#,
            "entities/alpha.md"
        ),
        expected(&[("  - 'Postgres or MySQL?'   # from the March notes\n", "")])
    );
    assert_eq!(
        after(
            r#"{"op":"resolve_contradiction","page":"alpha","contradiction":"Nightly or hourly backups?"}"#,
            "entities/alpha.md"
        ),
        expected(&[("  - Nightly or hourly backups?\n", "")])
    );
    // A relationship: one item appended.
    assert_eq!(
        after(
            r#"{"op":"add_relationship","page":"alpha","targetId":"entity.gamma","kind":"reports-to"}"#,
            "entities/alpha.md"
        ),
        expected(&[(
            "  - {targetId: entity.beta, kind: works-with}\n",
            "  - {targetId: entity.beta, kind: works-with}\n  - targetId: entity.gamma\n    kind: reports-to\n    updatedAt: 2026-04-05T12:00:00.000Z\n"
        )])
    );
}

/// The original plugin's two operations (update_metadata, create_synthesis on an existing page)
/// re-emitted its whole frontmatter; here only the keys they set change.
#[test]
fn the_original_operations_write_only_their_keys() {
    assert_eq!(
        after(
            r#"{"op":"update_metadata","lookup":"alpha","status":"review","confidence":0.7}"#,
            "entities/alpha.md"
        ),
        expected(&[
            ("status: 'active'\n", "status: review\n"),
            (
                "updatedAt: 2026-04-05T12:00:00.000Z\n",
                "updatedAt: 2026-04-05T12:00:00.000Z\nconfidence: 0.7\n"
            ),
        ])
    );
    assert_eq!(
        after(
            r#"{"op":"create_synthesis","title":"Alpha Overview","body":"new summary","sourceIds":["source.alpha","source.beta"]}"#,
            "syntheses/alpha-overview.md"
        )
        .replace(NOW, "NOW"),
        "---
pageType: synthesis
id: synthesis.alpha-overview
title: 'Alpha Overview'
sourceIds: [source.alpha, source.beta]   # one source so far
status: active
confidence: 0.60
updatedAt: NOW
---"
    );
}

#[test]
fn crlf_frontmatter_stays_crlf() {
    let fm = after(
        r#"{"op":"add_claim","page":"beta","claimId":"claim.beta.date","text":"Beta launched in May."}"#,
        "entities/beta.md",
    );
    assert_eq!(
        fm,
        "---\r\npageType: entity\r\nid: entity.beta\r\ntitle: Beta   # CRLF page\r\nclaims:\r\n- id: claim.beta.launch\r\n  text: \"Beta launched.\"\r\n- id: claim.beta.date\r\n  text: Beta launched in May.\r\n  evidence: []\r\n  updatedAt: 2026-04-05T12:00:00.000Z\r\nquestions: [\"When?\"]\r\nupdatedAt: 2026-04-05T12:00:00.000Z\r\n---"
    );
    let fm = after(
        r#"{"op":"update_claim","claimId":"claim.beta.launch","status":"contested"}"#,
        "entities/beta.md",
    );
    assert_eq!(
        fm,
        "---\r\npageType: entity\r\nid: entity.beta\r\ntitle: Beta   # CRLF page\r\nclaims:\r\n- id: claim.beta.launch\r\n  text: \"Beta launched.\"\r\n  status: contested\r\n  updatedAt: 2026-04-05T12:00:00.000Z\r\nquestions: [\"When?\"]\r\nupdatedAt: 2026-04-05T12:00:00.000Z\r\n---"
    );
}

/// With the compile that follows (Related blocks), a batch of operations and its rollback: the
/// commit's diff of the page's frontmatter is the changed lines only, and the rollback gives
/// back the hand-written bytes.
#[test]
fn a_batch_and_its_rollback_with_compile() {
    let v = hand_vault();
    apply(
        &v,
        &[],
        &[
            r#"{"op":"add_question","page":"alpha","question":"Since when?"}"#,
            r#"{"op":"update_claim","claimId":"claim.alpha.backups","status":"contested"}"#,
        ],
    )
    .expect_code(0);
    let (diff, changed) = frontmatter_diff(&v);
    assert_eq!(
        changed,
        [
            "+    status: contested",
            "-questions: [\"Who owns it?\"]",
            "+    updatedAt: 2026-04-05T12:00:00.000Z",
            "+questions: [\"Who owns it?\", Since when?]",
            "-updatedAt: 2026-03-25T09:30:00.000Z",
            "+updatedAt: 2026-04-05T12:00:00.000Z",
        ],
        "{diff}"
    );
    let target = rev(&v, "HEAD");
    v.run("wiki-apply", &["rollback", &target]).expect_code(0);
    let text = v.read("entities/alpha.md");
    assert_eq!(frontmatter(&text), frontmatter(HAND));
}

/// Every operation on the same hand-written pages with CRLF line endings: the same result, in
/// CRLF (nothing of the frontmatter turns to LF, nothing else is written again).
#[test]
fn every_operation_keeps_crlf() {
    let ops = [
        (
            r#"{"op":"update_metadata","lookup":"alpha","status":"review","confidence":0.7}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"create_synthesis","title":"Alpha Overview","body":"new summary","sourceIds":["source.alpha","source.beta"]}"#,
            "syntheses/alpha-overview.md",
        ),
        (
            r#"{"op":"add_claim","page":"alpha","claimId":"claim.alpha.tea","text":"Alpha likes tea."}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"update_claim","claimId":"claim.alpha.backups","status":"contested"}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"update_claim","claimId":"claim.alpha.db","confidence":0.4}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"add_evidence","claimId":"claim.alpha.backups","evidence":{"sourceId":"source.alpha"}}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"supersede_claim","claimId":"claim.alpha.backups","newClaimId":"claim.alpha.b2","text":"Hourly."}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"add_relationship","page":"alpha","targetId":"entity.gamma","kind":"reports-to"}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"add_question","page":"alpha","question":"Since when?"}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"resolve_question","page":"alpha","question":"Who owns it?"}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"add_contradiction","page":"alpha","contradiction":"Rust or Go?"}"#,
            "entities/alpha.md",
        ),
        (
            r#"{"op":"resolve_contradiction","page":"alpha","contradiction":"Postgres or MySQL?"}"#,
            "entities/alpha.md",
        ),
    ];
    for (op, path) in ops {
        let lf = after_with(op, path, false);
        let crlf = after_with(op, path, true);
        assert_ne!(lf, frontmatter(HAND), "{op} changes the frontmatter");
        assert_eq!(crlf, lf.replace('\n', "\r\n"), "{op}");
    }
}

/// Rolling back an older operation under a later one (a three-way merge of the frontmatter):
/// only the entries that operation changed go back; the later one's entries and every
/// hand-written byte stay (the rollback's compile adds the Related block to the body).
#[test]
fn rollback_under_a_later_operation_writes_only_its_entries() {
    let v = hand_vault();
    let one = |op: &str| {
        apply(&v, &["--no-compile"], &[op]).expect_code(0);
        rev(&v, "HEAD")
    };
    let first =
        one(r#"{"op":"update_claim","claimId":"claim.alpha.backups","status":"contested"}"#);
    one(r#"{"op":"add_question","page":"alpha","question":"Since when?"}"#);
    v.run("wiki-apply", &["rollback", &first]).expect_code(0);
    let text = v.read("entities/alpha.md");
    assert_eq!(
        frontmatter(&text),
        frontmatter(HAND).replace("[\"Who owns it?\"]", "[\"Who owns it?\", Since when?]")
    );
    let (diff, changed) = frontmatter_diff(&v);
    assert_eq!(
        changed,
        [
            "-    status: contested",
            "-    updatedAt: 2026-04-05T12:00:00.000Z",
            "-updatedAt: 2026-04-05T12:00:00.000Z",
            "+updatedAt: 2026-03-25T09:30:00.000Z",
        ],
        "{diff}"
    );
}
