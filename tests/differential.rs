//! Differential test of the incremental paths (parse cache, stat data, Related scope, patched
//! dashboards, spliced digest and claim lines, kept indexes, segmented blobs, search and memory
//! indexes, the search server). On a vault from `scripts/gen-vault` (native links for odd
//! seeds, obsidian for even ones), random steps: operations and batches (also as an agent, two
//! writers at once, dry runs, without compiling), hand edits (some keeping size and
//! modification time; CRLF, non-ASCII titles, broken frontmatter, deleted and new pages), hand
//! commits, plain compiles, `wiki lint`, rollbacks, `wiki gc`, writers killed mid-way, clock
//! moves and edits of the memory workspace. After every step the vault is exactly what a
//! compile from scratch makes (`wiki compile --check --force` without the parse cache finds
//! nothing to change, the derived
//! caches are what `wiki-digest` computes from the pages), and lint, searches in every mode
//! (in-process and served), memory recall and `wiki get` answer as they do without caches and
//! indexes. At the end `wiki history` of a few claims lists exactly the commits that changed
//! them (every version parsed again), and `git fsck --strict` is clean.
//!
//! `WIKI_DIFF_STEPS` (default 40), `WIKI_DIFF_SEED` (default 1) and `WIKI_DIFF_PAGES` (default
//! 80) run other sequences locally, e.g.
//! `WIKI_DIFF_STEPS=300 WIKI_DIFF_SEED=7 cargo test -p wiki-testkit --test differential`;
//! `WIKI_DIFF_KEEP=DIR` leaves a copy of a vault that failed its check in `DIR`.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use wiki_testkit::{Run, Vault};

/// xorshift64*: a seeded sequence, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn confidence(&mut self) -> f64 {
        self.below(101) as f64 / 100.0
    }
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The vault as the next step sees it (computed from the pages, not from the caches).
struct State {
    /// Every non-report page.
    pages: Vec<PageState>,
    /// (claim id, page path, status) of every claim with an id.
    claims: Vec<(String, String, String)>,
    sources: Vec<String>,
    entities: Vec<String>,
}

#[derive(Clone)]
struct PageState {
    path: String,
    id: Option<String>,
    kind: String,
    questions: Vec<String>,
    contradictions: Vec<String>,
}

struct Ctx<'a> {
    v: &'a Vault,
    now: String,
    /// The agent's memory workspace (`MEMORY.md`, `memory/*.md` daily notes).
    ws: std::path::PathBuf,
}

impl Ctx<'_> {
    fn run(&self, name: &str, args: &[&str], stdin: Option<&str>) -> Run {
        let mut cmd = self.v.command(name);
        cmd.args(args).env("WIKI_NOW", &self.now);
        wiki_testkit::output(cmd, stdin.map(str::as_bytes))
    }

    /// The pages and claims of the work tree, or of an agent's branch (`agent`: `--agent ID`).
    fn state(&self, agent: &[&str]) -> State {
        let digest = self.run("wiki-digest", &[&["--digest"], agent].concat(), None);
        digest.expect_code(0);
        let digest = digest.json();
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut s = State {
            pages: Vec::new(),
            claims: Vec::new(),
            sources: Vec::new(),
            entities: Vec::new(),
        };
        for p in digest["pages"].as_array().expect("pages") {
            let kind = p["kind"].as_str().unwrap_or_default().to_string();
            let path = p["path"].as_str().unwrap_or_default().to_string();
            let id = p["id"].as_str().map(String::from);
            if kind == "report" {
                continue;
            }
            if let Some(id) = &id {
                match kind.as_str() {
                    "source" => s.sources.push(id.clone()),
                    "entity" => s.entities.push(id.clone()),
                    _ => {}
                }
            }
            s.pages.push(PageState {
                path,
                id,
                kind,
                questions: strings(&p["questions"]),
                contradictions: strings(&p["contradictions"]),
            });
        }
        let claims = self.run("wiki-digest", &[&["--claims"], agent].concat(), None);
        claims.expect_code(0);
        for c in claims.jsonl() {
            if let (Some(id), Some(path)) = (c["id"].as_str(), c["pagePath"].as_str())
                && !path.starts_with("reports/")
            {
                let status = c["status"].as_str().unwrap_or_default().to_string();
                s.claims.push((id.to_string(), path.to_string(), status));
            }
        }
        s
    }
}

const STATUSES: [&str; 5] = ["supported", "contested", "superseded", "refuted", "draft"];
const WORDS: [&str; 12] = [
    "ingest", "cache", "shard", "replica", "lease", "quota", "trace", "schema", "queue", "token",
    "audit", "window",
];

/// Fragments that YAML, JSON, Markdown or the managed blocks treat specially.
const AWKWARD: [&str; 24] = [
    ": colon",
    " #hash",
    "\"quoted\"",
    "'single'",
    "back\\slash",
    "{brace}",
    "[bracket]",
    "*star*",
    "&anchor",
    "!tag",
    "%pct",
    "@at",
    "`tick`",
    "<angle>",
    "| pipe",
    "> gt",
    "Zoë 東京",
    "rocket 🚀",
    "--- dashes",
    "<!-- openclaw:wiki:related:start -->",
    "[[link]]",
    "~tilde",
    "a,b",
    "[x](y.md)",
];
/// Whole texts a YAML reader would take for another type, or for structure, unless quoted.
const SCALARS: [&str; 10] = [
    "null", "true", "0.5", "yes", "- dash", "? q", "~", "1e3", "0x1f", "'",
];

fn sentence(rng: &mut Rng, step: usize) -> String {
    if rng.chance(5) {
        return rng.pick(&SCALARS).to_string();
    }
    let n = 3 + rng.below(6);
    let mut words: Vec<&str> = (0..n).map(|_| *rng.pick(&WORDS)).collect();
    if rng.chance(25) {
        let at = rng.below(words.len() + 1);
        words.insert(at, *rng.pick(&AWKWARD));
    }
    // (Texts are trimmed by the operations, as by the original.)
    let mut s = words.join(" ").trim().to_string();
    if s.is_char_boundary(1) {
        s[..1].make_ascii_uppercase();
    }
    format!("{s} {step}.")
}

/// One random operation that is valid on `s` (`step` makes new ids unique).
fn operation(rng: &mut Rng, s: &State, step: usize, k: usize) -> Value {
    let page = rng.pick(&s.pages).clone();
    // A page named by id or by path (both lookups are exercised).
    let lookup = match (&page.id, rng.chance(50)) {
        (Some(id), true) => id.clone(),
        _ => page.path.clone(),
    };
    let source = || s.sources.first().cloned().unwrap_or_default();
    let new_claim = format!("claim.diff.{step}-{k}");
    let claim = (!s.claims.is_empty()).then(|| rng.pick(&s.claims).clone());
    let evidence = |rng: &mut Rng| {
        json!({
            "kind": *rng.pick(&["source", "file", "ticket"]),
            "sourceId": rng.pick(&s.sources).clone(),
            "lines": format!("{}-{}", 1 + rng.below(5), 6 + rng.below(20)),
        })
    };
    match (rng.below(12), claim) {
        (0..=2, Some((id, path, _))) => {
            let mut op = json!({"op": "update_claim", "claimId": id, "page": path});
            match rng.below(4) {
                0 => op["status"] = json!(*rng.pick(&STATUSES)),
                1 => op["text"] = json!(sentence(rng, step)),
                2 => {
                    op["status"] = json!(*rng.pick(&STATUSES));
                    op["confidence"] = json!(rng.confidence());
                }
                _ => op["confidence"] = json!(rng.confidence()),
            }
            op
        }
        (3, Some((id, path, _))) if !s.sources.is_empty() => json!({
            "op": "add_evidence", "claimId": id, "page": path, "evidence": evidence(rng),
        }),
        (4, Some((id, path, status))) if status != "superseded" => json!({
            "op": "supersede_claim", "claimId": id, "page": path, "newClaimId": new_claim,
            "text": sentence(rng, step), "confidence": rng.confidence(),
        }),
        (5, _) if !s.sources.is_empty() => {
            let mut op = json!({
                "op": "add_claim", "page": lookup, "claimId": new_claim,
                "text": sentence(rng, step), "confidence": rng.confidence(),
            });
            if rng.chance(60) {
                op["evidence"] = json!([evidence(rng)]);
            }
            op
        }
        (6, _) if !s.entities.is_empty() => json!({
            "op": "add_relationship", "page": lookup,
            "targetId": rng.pick(&s.entities).clone(),
            "kind": *rng.pick(&["works-with", "reports-to", "depends-on"]),
            "confidence": rng.confidence(),
        }),
        (7, _) if !page.questions.is_empty() => json!({
            "op": "resolve_question", "page": page.path, "question": rng.pick(&page.questions).clone(),
        }),
        (8, _) if !page.contradictions.is_empty() => json!({
            "op": "resolve_contradiction", "page": page.path,
            "contradiction": rng.pick(&page.contradictions).clone(),
        }),
        (9, _) => json!({
            "op": "add_contradiction", "page": lookup, "contradiction": sentence(rng, step),
        }),
        (10, _) => {
            let mut op = json!({"op": "update_metadata", "lookup": lookup,
                "confidence": rng.confidence()});
            if rng.chance(50) {
                op["status"] = json!(*rng.pick(&["active", "draft", "stale"]));
            }
            op
        }
        (11, _) if !s.sources.is_empty() => json!({
            "op": "create_synthesis", "title": format!("Diff Synthesis {step} {k}"),
            "body": format!("{}\n\nSee [[{}]].", sentence(rng, step), page.path.trim_end_matches(".md")),
            "sourceIds": [source()],
        }),
        _ => {
            json!({"op": "add_question", "page": lookup, "question": format!("{}?", sentence(rng, step).trim_end_matches('.'))})
        }
    }
}

/// `n` operations valid together: no claim is named twice (a second supersede would find it
/// superseded) and no question or contradiction is resolved twice.
fn batch(rng: &mut Rng, s: &State, step: usize, n: usize) -> Vec<String> {
    let key = |op: &Value| -> Option<String> {
        let kind = op["op"].as_str().unwrap_or_default();
        if let Some(claim) = op["claimId"].as_str() {
            return Some(format!("claim {claim} {}", op["page"]));
        }
        kind.starts_with("resolve_").then(|| {
            format!(
                "{kind} {} {}",
                op["page"],
                op["question"]
                    .as_str()
                    .or(op["contradiction"].as_str())
                    .unwrap_or_default()
            )
        })
    };
    let mut ops: Vec<Value> = Vec::with_capacity(n);
    for k in 0..n {
        let mut op = operation(rng, s, step, k);
        for _ in 0..20 {
            match key(&op) {
                Some(key_of) if ops.iter().any(|o| key(o).as_ref() == Some(&key_of)) => {
                    op = operation(rng, s, step, k);
                }
                _ => break,
            }
        }
        ops.push(op);
    }
    ops.iter().map(Value::to_string).collect()
}

/// A hand edit of a random page (not compiled, not committed); returns what it did.
fn hand_edit(v: &Vault, rng: &mut Rng, s: &State, step: usize) -> String {
    let PageState { path, kind, .. } = rng.pick(&s.pages).clone();
    let text = v.read(&path);
    match rng.below(13) {
        11 => {
            // A symbolic link named like a page (to a page): reported, never followed.
            // (A step may make several hand edits: the first free name.)
            let link = (0..)
                .map(|n| format!("concepts/link-{step}-{n}.md"))
                .find(|l| std::fs::symlink_metadata(v.path(l)).is_err())
                .unwrap();
            std::os::unix::fs::symlink(format!("../{path}"), v.path(&link)).unwrap();
            format!("linked {link} to {path}")
        }
        12 => {
            // A page whose file name is not UTF-8: reported, not read.
            use std::os::unix::ffi::OsStrExt;
            let name = [b"bad-\xff-".as_slice(), step.to_string().as_bytes(), b".md"].concat();
            let file = v.path("concepts").join(std::ffi::OsStr::from_bytes(&name));
            std::fs::write(&file, &text).unwrap();
            format!("copied {path} under a file name that is not UTF-8")
        }
        10 => {
            // A copy under another name: two pages with one id, every claim id on both.
            let copy = format!("{}-copy-{step}.md", path.trim_end_matches(".md"));
            v.write(&copy, &text);
            format!("copied {path} to {copy}")
        }
        7 => {
            // Windows line endings.
            v.write(&path, text.replace("\r\n", "\n").replace('\n', "\r\n"));
            format!("CRLF {path}")
        }
        9 if kind != "source" => {
            // Frontmatter that no longer parses: the page is reported, the others compile.
            let edited = text.replacen("title: ", "title: [unclosed ", 1);
            v.write(&path, edited);
            format!("broke the frontmatter of {path}")
        }
        which @ (0 | 8) => {
            // Retitle (indexes, Related blocks and dashboards list titles); 8: a non-ASCII
            // title (title order, slugs, JSON escapes).
            let Some(line) = text.lines().find(|l| l.starts_with("title: ")) else {
                return format!("nothing to retitle in {path}");
            };
            let title = match which {
                0 => format!("{line} Renamed {step}"),
                _ => format!("title: Zoë Ærø 東京 {step}"),
            };
            v.write(&path, text.replacen(line, &title, 1));
            format!("retitled {path}: {title}")
        }
        1 if kind != "source" => {
            std::fs::remove_file(v.path(&path)).unwrap();
            format!("deleted {path}")
        }
        2 => {
            // Same size, same modification time: only the change time tells.
            for (from, to) in [
                ("status: supported", "status: contested"),
                ("status: contested", "status: supported"),
                ("confidence: 0.", "confidence: 1."),
                ("ingest", "INGEST"),
            ] {
                if text.contains(from) {
                    v.edit_keeping_mtime(&path, from, to);
                    return format!("{from} -> {to} in place in {path}");
                }
            }
            format!("nothing to edit in place in {path}")
        }
        3 => {
            // A date moves back (freshness, stale-pages dashboard).
            let edited = text.replacen("updatedAt: 2026-", "updatedAt: 2025-", 1);
            v.write(&path, edited);
            format!("aged {path}")
        }
        4 => {
            let new = format!("concepts/hand-{step}.md");
            let target = path.trim_end_matches(".md");
            v.write(
                &new,
                format!(
                    "---\nid: concept.hand-{step}\npageType: concept\ntitle: Hand {step}\nclaims:\n  - id: claim.hand-{step}.1\n    text: Written by hand.\n    status: contested\n    confidence: 0.2\n---\n\n# Hand {step}\n\nSee [[{target}]].\n"
                ),
            );
            format!("created {new}")
        }
        5 => {
            // Text appended to the body (outside any managed block).
            v.write(&path, format!("{text}\nA hand note {step}.\n"));
            format!("appended to {path}")
        }
        _ => {
            // A claim's confidence changes (low-confidence and claim-health rows).
            match text.find("    confidence: ") {
                Some(at) => {
                    let end = at + text[at..].find('\n').unwrap_or(text.len() - at);
                    let mut edited = text.clone();
                    edited.replace_range(at..end, &format!("    confidence: 0.0{}", step % 10));
                    v.write(&path, edited);
                    format!("claim confidence edited in {path}")
                }
                None => format!("no claim confidence in {path}"),
            }
        }
    }
}

/// The vault's search server (`wiki-search --serve`), killed on drop.
struct Server(std::process::Child);

impl Server {
    fn start(v: &Vault) -> Server {
        let child = v
            .command("wiki-search")
            .args(["--serve", "--idle-timeout", "600"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn wiki-search --serve");
        let server = Server(child);
        let started = std::time::Instant::now();
        while server.status(v).is_none() {
            assert!(
                started.elapsed().as_secs() < 60,
                "the search server did not answer"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        server
    }

    fn status(&self, v: &Vault) -> Option<Value> {
        let run = v.run("wiki-search", &["--server", "status"]);
        (run.code == 0).then(|| run.jsonl().remove(0))
    }

    fn requests(&self, v: &Vault) -> u64 {
        self.status(v).expect("the search server runs")["requests"]
            .as_u64()
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The pinned clock (2026-04-05T12:00) moved `days` days on (civil calendar).
fn date_after_pinned_clock(days: usize) -> String {
    // Days since 1970-01-01 -> (year, month, day), Howard Hinnant's `civil_from_days`.
    let z = 20_548 + days as i64 + 719_468; // 2026-04-05 is day 20,548.
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T12:00:00.000Z")
}

/// A random edit of the memory workspace: a new daily note, a line appended, a word replaced
/// in place keeping size and modification time, a note deleted, `MEMORY.md` rewritten.
fn memory_edit(ws: &Path, rng: &mut Rng, step: usize) -> String {
    let mut notes: Vec<std::path::PathBuf> = std::fs::read_dir(ws.join("memory"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    notes.sort();
    let note = (!notes.is_empty()).then(|| rng.pick(&notes).clone());
    match (rng.below(5), note) {
        (0, Some(note)) => {
            let mut text = std::fs::read_to_string(&note).unwrap();
            text.push_str(&format!("- {}\n", sentence(rng, step)));
            std::fs::write(&note, text).unwrap();
            format!("memory: appended to {}", note.display())
        }
        (1, Some(note)) => {
            let text = std::fs::read_to_string(&note).unwrap();
            let Some((from, to)) = WORDS
                .iter()
                .zip(WORDS.iter().rev())
                .find(|(a, b)| a.len() == b.len() && a != b && text.contains(**a))
            else {
                return format!("memory: nothing to edit in place in {}", note.display());
            };
            let mtime = std::fs::metadata(&note).unwrap().modified().unwrap();
            let f = std::fs::OpenOptions::new().write(true).open(&note).unwrap();
            use std::io::Write;
            (&f).write_all(text.replacen(from, to, 1).as_bytes())
                .unwrap();
            f.set_modified(mtime).unwrap();
            format!("memory: {from} -> {to} in place in {}", note.display())
        }
        (2, Some(note)) if notes.len() > 2 => {
            std::fs::remove_file(&note).unwrap();
            format!("memory: deleted {}", note.display())
        }
        (3, _) => {
            let text = format!("# Memory\n\n{}\n", sentence(rng, step));
            std::fs::write(ws.join("MEMORY.md"), text).unwrap();
            "memory: MEMORY.md rewritten".to_string()
        }
        _ => {
            let path = ws.join(format!("memory/{}", &date_after_pinned_clock(step)[..10]));
            let path = path.with_extension("md");
            std::fs::write(&path, format!("- {}\n", sentence(rng, step))).unwrap();
            format!("memory: wrote {}", path.display())
        }
    }
}

/// The text an operation gave (a claim's, a question, a contradiction) is what the compiled
/// vault reads back, character for character.
fn check_text_landed(r: &Ctx<'_>, op: &str, what: &str) {
    let op: Value = serde_json::from_str(op).unwrap();
    let kind = op["op"].as_str().unwrap_or_default();
    if let (Some(text), Some(id)) = (
        op["text"].as_str(),
        op["newClaimId"].as_str().or(op["claimId"].as_str()),
    ) {
        let claims = r.run("wiki-digest", &["--claims"], None);
        let found = claims
            .jsonl()
            .into_iter()
            .filter(|c| c["id"] == id)
            .map(|c| c["text"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>();
        assert!(
            found.iter().any(|t| t == text),
            "{what}: claim {id} reads {found:?}"
        );
    }
    let listed = match kind {
        "add_question" => Some(("question", "questions")),
        "add_contradiction" => Some(("contradiction", "contradictions")),
        _ => None,
    };
    if let Some((field, list)) = listed {
        let text = op[field].as_str().unwrap_or_default();
        let digest = r.run("wiki-digest", &["--digest"], None).json();
        let page = op["page"].as_str().unwrap_or_default();
        let found = digest["pages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["path"] == page || p["id"] == page)
            .any(|p| {
                p[list]
                    .as_array()
                    .is_some_and(|l| l.iter().any(|q| q == text))
            });
        assert!(found, "{what}: {list} of {page} lack {text:?}");
    }
}

/// The claim `id` as the page at `path` had it in commit `rev` (`None`: no such page or claim),
/// parsed by `wiki-parse` in a scratch vault: its history fields only.
fn claim_at(
    r: &Ctx<'_>,
    rev: &str,
    path: &str,
    id: &str,
    parsed: &mut std::collections::HashMap<String, Option<Value>>,
) -> Option<Value> {
    let blob =
        r.v.git_run(&["rev-parse", "--verify", "-q", &format!("{rev}:{path}")]);
    if blob.code != 0 {
        return None;
    }
    let blob = blob.stdout.trim().to_string();
    if let Some(known) = parsed.get(&blob) {
        return known.clone();
    }
    let bytes = std::process::Command::new("git")
        .args(["cat-file", "blob", &blob])
        .current_dir(&r.v.root)
        .output()
        .expect("git cat-file")
        .stdout;
    let scratch = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(scratch.path().join(".openclaw-wiki")).unwrap();
    std::fs::create_dir_all(scratch.path().join("entities")).unwrap();
    std::fs::write(scratch.path().join("entities/page.md"), bytes).unwrap();
    let run = r.run(
        "wiki-parse",
        &["--vault", scratch.path().to_str().unwrap()],
        None,
    );
    let claim = run.jsonl().into_iter().find_map(|rec| {
        rec["claims"]
            .as_array()?
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| {
                let fields = [
                    "text",
                    "status",
                    "confidence",
                    "evidence",
                    "validFrom",
                    "validUntil",
                    "supersedes",
                    "supersededBy",
                    "updatedAt",
                ];
                Value::Object(
                    fields
                        .iter()
                        .map(|f| (f.to_string(), c[*f].clone()))
                        .collect(),
                )
            })
    });
    parsed.insert(blob, claim.clone());
    claim
}

/// `wiki history CLAIM` (entries on `path`) against the versions of the page.
fn check_claim_history(r: &Ctx<'_>, id: &str, path: &str) {
    let mut parsed = std::collections::HashMap::new();
    let log =
        r.v.git(&["log", "--first-parent", "--format=%H", "--", path]);
    let mut expected = Vec::new();
    for commit in log.lines() {
        let after = claim_at(r, commit, path, id, &mut parsed);
        let before = claim_at(r, &format!("{commit}^"), path, id, &mut parsed);
        if after != before {
            expected.push(commit.to_string());
        }
    }
    let run = r.run("wiki", &["history", id, "--format", "jsonl"], None);
    assert!(
        run.code == 0 || run.code == 1,
        "history {id}\n{}",
        run.stderr
    );
    let entries = run.jsonl();
    // All of the claim's entries (every page it is on): newest first along the branch.
    let walk: std::collections::HashMap<String, usize> =
        r.v.git(&["log", "--first-parent", "--format=%H"])
            .lines()
            .enumerate()
            .map(|(i, c)| (c.to_string(), i))
            .collect();
    let positions: Vec<Option<usize>> = entries
        .iter()
        .map(|e| walk.get(e["commit"].as_str().unwrap_or_default()).copied())
        .collect();
    assert!(
        positions.iter().all(Option::is_some) && positions.windows(2).all(|w| w[0] <= w[1]),
        "wiki history {id}: entries not newest first along the branch: {positions:?}"
    );
    let listed: Vec<String> = entries
        .into_iter()
        .filter(|e| e["pagePath"] == path)
        .map(|e| e["commit"].as_str().unwrap_or_default().to_string())
        .collect();
    if listed != expected {
        keep_for_inspection(r);
    }
    assert_eq!(listed, expected, "wiki history {id} on {path}");
}

/// `name args` on the vault and on `copy` (a copy without its caches and indexes) print the
/// same (found or not: exit 0 or 1).
fn assert_same_output(r: &Ctx<'_>, what: &str, copy: &str, name: &str, args: &[&str]) {
    let run_on = |dir: &str| {
        let run = r.run(name, &[args, &["--vault", dir]].concat(), None);
        assert!(
            run.code == 0 || run.code == 1,
            "{what}: {name} {args:?}\n{}",
            run.stderr
        );
        run.stdout
    };
    assert_eq!(
        run_on(r.v.root.to_str().unwrap()),
        run_on(copy),
        "{what}: {name} {args:?} differs from a run without caches"
    );
}

/// `WIKI_DIFF_KEEP=DIR`: a copy of the failing vault (and its git repository) is left in `DIR`.
fn keep_for_inspection(r: &Ctx<'_>) {
    if let Some(dir) = std::env::var_os("WIKI_DIFF_KEEP") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::remove_dir_all(&dir);
        copy_tree(&r.v.root, &dir);
        eprintln!("kept the vault in {}", dir.display());
    }
}

fn copy_tree(from: &Path, to: &Path) {
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp");
    assert!(ok.success(), "cp -a failed");
}

/// A copy of the vault, compiled from scratch without touching the vault, must find nothing to
/// change; the derived caches must be what the pages give.
fn check_against_scratch(r: &Ctx<'_>, what: &str, queries: &[(&str, String)], lookups: &[String]) {
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("vault");
    copy_tree(&r.v.root, &copy);
    for f in ["parse-cache.bin", "parse-cache.delta"] {
        let _ = std::fs::remove_file(copy.join(".openclaw-wiki/tmp").join(f));
    }
    let vault = copy.to_str().unwrap();
    // Searches: the vault's index, refreshed incrementally from step to step, ranks exactly as
    // an index built from scratch (the copy's, without its sidecar).
    let _ = std::fs::remove_dir_all(copy.join(".openclaw-wiki/index"));
    // Lint reads the vault through the same caches: the same findings as from scratch.
    assert_same_output(r, what, vault, "wiki-lint", &["--format", "jsonl"]);
    // The vault's search server (inotify) answers the same too.
    for (mode, query) in queries {
        let search = |dir: &str, server: &str| {
            let mut cmd = r.v.command("wiki-search");
            let args = [
                query.as_str(),
                "--mode",
                mode,
                "--format",
                "jsonl",
                "--vault",
                dir,
            ];
            cmd.args(args)
                .env("WIKI_NOW", &r.now)
                .env("WIKI_SEARCH_SERVER", server);
            let run = wiki_testkit::output(cmd, None);
            assert!(
                run.code == 0 || run.code == 1,
                "{what}: search {query:?}\n{}",
                run.stderr
            );
            run.stdout
        };
        let fresh = search(vault, "off");
        let root = r.v.root.to_str().unwrap();
        assert_eq!(
            search(root, "off"),
            fresh,
            "{what}: search {mode} {query:?}: the vault's index differs from a fresh one"
        );
        assert_eq!(
            search(root, "on"),
            fresh,
            "{what}: search {mode} {query:?}: the server differs from a fresh index"
        );
    }
    // Recall from the memory layer: the vault's memory index, refreshed incrementally, ranks
    // as a fresh one (the copy's index directory is gone).
    for lookup in lookups {
        assert_same_output(r, what, vault, "wiki", &["get", lookup, "--format", "json"]);
    }
    let ws = r.ws.to_str().unwrap();
    for (_, query) in queries {
        let args = [
            query.as_str(),
            "--corpus",
            "memory",
            "--memory",
            ws,
            "--format",
            "jsonl",
        ];
        assert_same_output(r, what, vault, "wiki-search", &args);
    }
    let check = r.run(
        "wiki",
        &["compile", "--check", "--force", "--vault", vault],
        None,
    );
    if check.code != 0 {
        keep_for_inspection(r);
    }
    assert_eq!(
        (check.code, check.stdout.as_str()),
        (0, ""),
        "{what}: a compile from scratch would change files\n{}",
        check.stderr
    );
    for (flag, file) in [
        ("--digest", ".openclaw-wiki/cache/agent-digest.json"),
        ("--claims", ".openclaw-wiki/cache/claims.jsonl"),
    ] {
        let fresh = r.run("wiki-digest", &[flag, "--vault", vault], None);
        fresh.expect_code(0);
        let kept = std::fs::read_to_string(copy.join(file)).unwrap_or_default();
        if fresh.stdout != kept {
            let (a, b): (Vec<&str>, Vec<&str>) =
                (fresh.stdout.lines().collect(), kept.lines().collect());
            let first = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{what}: {file} is not what the pages give (line {}):\n fresh: {}\n kept:  {}",
                first + 1,
                a.get(first).unwrap_or(&"<end>"),
                b.get(first).unwrap_or(&"<end>")
            );
        }
    }
}

/// What `--agent diff` reads from git is what a checkout of `agents/diff` gives: the page
/// records, the digest (also the one its operations cached), the claims, lint's findings and
/// search results, each against the same command in a clone with that branch checked out.
fn check_agent_reads_its_checkout(r: &Ctx<'_>, what: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let clone = scratch.path().join("clone");
    let cloned = Command::new("git")
        .args(["clone", "-q", "--branch", "agents/diff"])
        .arg(&r.v.root)
        .arg(&clone)
        .status()
        .expect("git clone");
    assert!(cloned.success(), "{what}: git clone of agents/diff failed");
    let clone = clone.to_str().unwrap();
    let root = r.v.root.to_str().unwrap();
    let runs: [(&str, &[&str]); 6] = [
        ("wiki-parse", &[]),
        ("wiki-digest", &["--digest"]),
        ("wiki-digest", &["--claims"]),
        ("wiki-lint", &["--format", "jsonl"]),
        ("wiki-search", &["claim", "--format", "jsonl"]),
        (
            "wiki-search",
            &["--mode", "raw-claim", "supported", "--format", "jsonl"],
        ),
    ];
    for (name, args) in runs {
        let agent = r.run(
            name,
            &[args, &["--agent", "diff", "--vault", root]].concat(),
            None,
        );
        let checkout = r.run(name, &[args, &["--vault", clone]].concat(), None);
        assert!(
            agent.code == 0 || agent.code == 1,
            "{what}: {name} {args:?} --agent diff\n{}",
            agent.stderr
        );
        if (agent.code, &agent.stdout) != (checkout.code, &checkout.stdout) {
            keep_for_inspection(r);
            let first = agent
                .stdout
                .lines()
                .zip(checkout.stdout.lines())
                .find(|(a, b)| a != b);
            panic!(
                "{what}: {name} {args:?} --agent diff differs from a checkout of agents/diff \
                 (exit {} against {}); first differing lines:\n agent:    {:?}\n checkout: {:?}",
                agent.code,
                checkout.code,
                first.map(|f| f.0),
                first.map(|f| f.1)
            );
        }
        if args == ["--digest"] {
            let cached = std::fs::read_to_string(
                r.v.root
                    .join(".openclaw-wiki/cache/agents/diff/agent-digest.json"),
            )
            .unwrap_or_default();
            assert_eq!(
                agent.stdout, cached,
                "{what}: the agent's cached digest is not what its branch gives"
            );
        }
    }
}

#[test]
fn the_clock_moves_by_calendar_days() {
    assert_eq!(date_after_pinned_clock(0), wiki_testkit::NOW);
    assert_eq!(date_after_pinned_clock(26), "2026-05-01T12:00:00.000Z");
    assert_eq!(date_after_pinned_clock(270), "2026-12-31T12:00:00.000Z");
    assert_eq!(date_after_pinned_clock(271), "2027-01-01T12:00:00.000Z");
    assert_eq!(date_after_pinned_clock(330), "2027-03-01T12:00:00.000Z");
}

#[test]
fn random_operations_and_hand_edits_leave_the_vault_as_a_compile_from_scratch() {
    let steps = env_num("WIKI_DIFF_STEPS", 40) as usize;
    let seed = env_num("WIKI_DIFF_SEED", 1);
    let pages = env_num("WIKI_DIFF_PAGES", 80);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x1000_0000_01B3));
    let v = Vault::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/gen-vault");
    let made = Command::new("python3")
        .arg(&script)
        .arg(pages.to_string())
        .arg(&v.root)
        .args(["--seed", &seed.to_string()])
        .status()
        .expect("python3 scripts/gen-vault");
    assert!(made.success(), "gen-vault failed");
    // Odd seeds keep the generator's native links, even ones switch the vault to obsidian links.
    if seed.is_multiple_of(2) {
        let state = v.read(".openclaw-wiki/state.json");
        assert!(state.contains("\"renderMode\": \"native\""), "{state}");
        v.write(
            ".openclaw-wiki/state.json",
            state.replace("\"native\"", "\"obsidian\""),
        );
    }
    v.git(&["init", "-q", "-b", "main"]);
    v.commit_all("generated vault");
    let ws = v.temp().join("workspace");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    std::fs::write(
        ws.join("MEMORY.md"),
        "# Memory\n\nKeep the lease window short.\n",
    )
    .unwrap();
    for day in 1..=6 {
        let mut note = String::new();
        for _ in 0..3 {
            note.push_str(&format!("- {}\n", sentence(&mut rng, day)));
        }
        std::fs::write(ws.join(format!("memory/2026-03-{day:02}.md")), note).unwrap();
    }
    let mut r = Ctx {
        v: &v,
        now: wiki_testkit::NOW.to_string(),
        ws,
    };
    r.run("wiki", &["compile"], None).expect_code(0);
    // Settled files: the next compile records their stat data, so that later steps trust it.
    v.settle();
    r.run("wiki", &["compile", "--force"], None).expect_code(0);
    check_against_scratch(&r, "after the first compile", &[], &[]);
    let server = Server::start(&v);
    let mut day = 0;
    let mut log: Vec<String> = Vec::new();
    // Hand edits or a clock move that no compile has seen yet.
    let mut uncompiled = false;
    for step in 0..steps {
        let s = r.state(&[]);
        let mut did = Vec::new();
        if rng.chance(30) {
            for _ in 0..1 + rng.below(2) {
                did.push(hand_edit(&v, &mut rng, &s, step));
            }
        }
        if rng.chance(8) {
            day += 1 + rng.below(60);
            r.now = date_after_pinned_clock(day);
            did.push(format!("clock {}", r.now));
        }
        uncompiled |= !did.is_empty();
        if rng.chance(15) {
            // The memory layer is not compiled: its edits leave the vault current.
            did.push(memory_edit(&r.ws, &mut rng, step));
        }
        // Hand edits may have deleted pages: operations are drawn from what is there now.
        let s = if did.is_empty() { s } else { r.state(&[]) };
        match rng.below(21) {
            0 | 1 => {
                let c = r.run("wiki", &["compile"], None);
                c.expect_code(0);
                did.push("compile".into());
                uncompiled = false;
            }
            2 | 3 => {
                v.commit_all(&format!("hand commit {step}"));
                did.push("hand commit".into());
            }
            4 if !uncompiled && v.git(&["log", "-1", "--format=%B"]).contains("Wiki-Op: ") => {
                // Undo the last operation's commit (nothing came after it: no conflict).
                let head = v.git(&["rev-parse", "HEAD"]);
                let back = r.run("wiki", &["rollback", head.trim()], None);
                assert_eq!(back.code, 0, "step {step}: rollback\n{}", back.stderr);
                did.push(format!("rollback {}", head.trim()));
            }
            5 => {
                r.run("wiki", &["gc"], None).expect_code(0);
                did.push("gc".into());
            }
            13 => {
                // A writer killed (SIGKILL) at a random moment: the next command rolls its
                // commit forward or back, and no step after it sees a torn vault.
                let n = 1 + rng.below(3);
                let ops = batch(&mut rng, &s, step, n);
                let mut cmd = v.command("wiki-apply");
                cmd.env("WIKI_NOW", &r.now)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
                let mut child = cmd.spawn().expect("spawn wiki-apply");
                {
                    use std::io::Write;
                    let mut stdin = child.stdin.take().expect("stdin");
                    let _ = stdin.write_all((ops.join("\n") + "\n").as_bytes());
                }
                let delay = rng.below(40) as u64;
                std::thread::sleep(std::time::Duration::from_millis(delay));
                let _ = child.kill();
                let status = child.wait().expect("wait");
                did.push(format!(
                    "killed after {delay} ms ({status}): {}",
                    ops.join(" | ")
                ));
                // Any wiki command that opens the repository finishes or undoes the killed
                // commit and removes the git lock files it held (a human's `git commit` before
                // that finds `main.lock`, as after a killed git).
                r.run("wiki", &["agent", "list"], None).expect_code(0);
                for lock in [".git/index.lock", ".git/refs/heads/main.lock"] {
                    assert!(!v.exists(lock), "step {step}: {lock} left after recovery");
                }
                // Whether it landed or not, the next compile or operation catches up.
                uncompiled = true;
            }
            12 => {
                // `wiki lint` writes and commits reports/lint.md (findings: exit 1).
                let lint = r.run("wiki", &["lint"], None);
                assert!(
                    lint.code == 0 || lint.code == 1,
                    "step {step}: lint\n{}",
                    lint.stderr
                );
                did.push("lint".into());
            }
            10 if !uncompiled => {
                // Undo an older operation: applied, or refused (exit 1, nothing written) when
                // later commits changed the same lines.
                let log = v.git(&["log", "-n", "30", "--format=%H", "--grep=^Wiki-Op: "]);
                let commits: Vec<&str> = log.lines().collect();
                if commits.is_empty() {
                    continue;
                }
                let commit = rng.pick(&commits).to_string();
                let (head, status) = (v.git(&["rev-parse", "HEAD"]), v.status());
                let back = r.run("wiki", &["rollback", &commit], None);
                match back.code {
                    0 => {}
                    1 => assert_eq!(
                        (v.git(&["rev-parse", "HEAD"]), v.status()),
                        (head, status),
                        "step {step}: a refused rollback wrote something"
                    ),
                    _ => panic!("step {step}: rollback {commit}\n{}", back.stderr),
                }
                did.push(format!("rollback {commit}: exit {}", back.code));
            }
            11 => {
                // Two writers at once, on different pages: both land (compare-and-swap, the
                // loser re-applies its operation on the new head).
                let target = |op: &Value| {
                    let t = op["page"].as_str().or(op["lookup"].as_str()).unwrap_or("");
                    s.pages
                        .iter()
                        .find(|p| p.id.as_deref() == Some(t))
                        .map_or(t.to_string(), |p| p.path.clone())
                };
                let first = operation(&mut rng, &s, step, 0);
                let mut second = operation(&mut rng, &s, step, 1);
                while target(&second) == target(&first) {
                    second = operation(&mut rng, &s, step, 1);
                }
                let spawn = |op: &Value| {
                    let mut cmd = v.command("wiki-apply");
                    cmd.env("WIKI_NOW", &r.now)
                        .stdin(std::process::Stdio::piped())
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped());
                    let mut child = cmd.spawn().expect("spawn wiki-apply");
                    use std::io::Write;
                    let mut stdin = child.stdin.take().expect("stdin");
                    stdin
                        .write_all(format!("{op}\n").as_bytes())
                        .expect("write stdin");
                    drop(stdin);
                    child
                };
                let (a, b) = (spawn(&first), spawn(&second));
                for (child, op) in [(a, &first), (b, &second)] {
                    let out = child.wait_with_output().expect("wait");
                    assert!(
                        out.status.success(),
                        "step {step}: concurrent {op}\n{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                did.push(format!("concurrently {first} and {second}"));
                uncompiled = false;
            }
            6 | 7 => {
                // As an agent: its branch changes, the work tree and the current branch do not.
                if v.git_run(&["rev-parse", "--verify", "-q", "refs/heads/agents/diff"])
                    .code
                    != 0
                {
                    r.run("wiki", &["agent", "create", "diff"], None)
                        .expect_code(0);
                }
                let head = v.git(&["rev-parse", "HEAD"]);
                let status = v.status();
                let s = r.state(&["--agent", "diff"]);
                let op = operation(&mut rng, &s, step, 0).to_string();
                let a = r.run("wiki-apply", &["--agent", "diff"], Some(&format!("{op}\n")));
                assert_eq!(a.code, 0, "step {step}: --agent diff {op}\n{}", a.stderr);
                assert_eq!(v.git(&["rev-parse", "HEAD"]), head, "step {step}");
                assert_eq!(v.status(), status, "step {step}");
                let check = r.run(
                    "wiki",
                    &["compile", "--check", "--force", "--agent", "diff"],
                    None,
                );
                assert_eq!(
                    (check.code, check.stdout.as_str()),
                    (0, ""),
                    "step {step}: --agent diff {op}: a compile from scratch would change files\n{}",
                    check.stderr
                );
                check_agent_reads_its_checkout(&r, &format!("step {step}: --agent diff {op}"));
                did.push(format!("--agent diff {op}"));
            }
            8 => {
                // A dry run writes nothing.
                let op = operation(&mut rng, &s, step, 0).to_string();
                let (head, status) = (v.git(&["rev-parse", "HEAD"]), v.status());
                let dry = r.run("wiki-apply", &["--dry-run"], Some(&format!("{op}\n")));
                assert_eq!(dry.code, 0, "step {step}: --dry-run {op}\n{}", dry.stderr);
                assert_eq!((v.git(&["rev-parse", "HEAD"]), v.status()), (head, status));
                did.push(format!("--dry-run {op}"));
            }
            9 => {
                // Without a compile: the files are stale until the next compile or operation.
                let op = operation(&mut rng, &s, step, 0).to_string();
                let a = r.run("wiki-apply", &["--no-compile"], Some(&format!("{op}\n")));
                assert_eq!(a.code, 0, "step {step}: --no-compile {op}\n{}", a.stderr);
                did.push(format!("--no-compile {op}"));
                uncompiled = true;
            }
            _ => {
                let n = if rng.chance(25) { 2 + rng.below(3) } else { 1 };
                let ops = batch(&mut rng, &s, step, n);
                let input = ops.join("\n") + "\n";
                let a = r.run("wiki-apply", &[], Some(&input));
                assert_eq!(
                    a.code,
                    0,
                    "step {step}: {input}\n{}\nsteps so far:\n{}",
                    a.stderr,
                    log.join("\n")
                );
                if let [op] = ops.as_slice() {
                    check_text_landed(&r, op, &format!("step {step}: {op}"));
                }
                did.extend(ops);
                uncompiled = false;
            }
        }
        let what = format!("step {step} (seed {seed}): {}", did.join(" | "));
        log.push(what.clone());
        if uncompiled {
            // (A hand commit of uncompiled edits: the next compile or operation catches up.)
            continue;
        }
        let modes = [
            "auto",
            "find-person",
            "route-question",
            "source-evidence",
            "raw-claim",
        ];
        let queries: Vec<(&str, String)> = (0..2)
            .map(|_| {
                (
                    *rng.pick(&modes),
                    format!("{} {}", rng.pick(&WORDS), rng.pick(&WORDS)),
                )
            })
            .collect();
        // `wiki get` by claim id and by page id or path (from before the step: gone is fine).
        let mut lookups = Vec::new();
        if !s.claims.is_empty() {
            lookups.push(rng.pick(&s.claims).0.clone());
        }
        let page = rng.pick(&s.pages);
        lookups.push(page.id.clone().unwrap_or_else(|| page.path.clone()));
        check_against_scratch(
            &r,
            &format!("{what}\nsteps so far:\n{}", log.join("\n")),
            &queries,
            &lookups,
        );
    }
    // `wiki history` of a few claims lists exactly the commits where a page's version of the
    // claim differs from its first parent's, as read from every version with `wiki-parse`.
    let s = r.state(&[]);
    for _ in 0..3 {
        if s.claims.is_empty() {
            break;
        }
        let (id, path, _) = rng.pick(&s.claims).clone();
        check_claim_history(&r, &id, &path);
    }
    assert!(server.requests(&v) > 0, "the server answered no search");
    drop(server);
    v.commit_all("final hand commit");
    r.run("wiki", &["compile"], None).expect_code(0);
    assert_eq!(v.status(), "");
    let fsck = v.git_run(&["fsck", "--strict", "--no-progress"]);
    assert_eq!(fsck.code, 0, "{}", fsck.stderr);
}
