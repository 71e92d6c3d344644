//! Reflect (seed 003): retained facts become vault knowledge, deterministically (no model call).
//!
//! Each fact that mentions entities goes to every mentioned entity's page,
//! `entities/<slug>.md` (id `entity.<slug>`, created when missing with an empty `## Notes` human
//! block), as a claim whose evidence points at the daily-note lines
//! (`{kind: memory, path: memory/2025-11-27.md, lines: "12"}`):
//!
//! * the claim id is `mem.<entity slug>.<hash>`, the hash of the fact's kind and statement, so
//!   the same fact retained on another day adds evidence to the same claim (reinforcement);
//! * an **opinion** claim starts at the fact's `O(c=…)` (0.5 without one); a later opinion with
//!   the same statement moves it up by [`REINFORCE_STEP`], one with the opposite polarity (the
//!   same words with `not`, `no longer`, `never`… added or removed) moves it down by
//!   [`CONTRADICT_STEP`], marks the claim `contested` and records the contradiction on the page
//!   (its `contradictions`, which the compile puts on the contradictions dashboard);
//! * a fact whose lines are already evidence of its claim changes nothing, so reflecting the
//!   same notes twice makes no second commit.
//!
//! The changes go through `wiki-apply`'s operations (`add_claim`, `add_evidence`,
//! `update_claim`, `add_contradiction`) and its [`commit_batch`](wiki_apply::session::commit_batch):
//! validation, compile and the one commit are those of `wiki apply`, so `wiki rollback` undoes a
//! reflection. Bodies are never rewritten; human blocks stay as they are.

use std::borrow::Cow;
use std::collections::BTreeMap;

use wiki_apply::edit::{FileChange, OpResult, Workspace};
use wiki_apply::files::VaultFiles;
use wiki_apply::ops::{
    AddClaim, AddEvidence, ConfidenceChange, Op, PageNote, UpdateClaim, UpdateMetadata,
};
use wiki_apply::session::Batch;
use wiki_parse::model::{self, Claim, Evidence};
use wiki_parse::{markers, page, slug};

use crate::retain::{Fact, Kind, entity_key};

/// How much a reinforcing opinion raises its claim's confidence.
pub const REINFORCE_STEP: f64 = 0.05;
/// How much a contradicting opinion lowers its claim's confidence.
pub const CONTRADICT_STEP: f64 = 0.1;
/// The confidence of an opinion retained without `O(c=…)`.
pub const DEFAULT_OPINION_CONFIDENCE: f64 = 0.5;

/// Words that flip an opinion's polarity.
const NEGATIONS: [&str; 12] = [
    "not", "no", "never", "don't", "doesn't", "didn't", "isn't", "won't", "dont", "doesnt",
    "nobody", "neither",
];
/// Auxiliaries dropped from a statement's key (`does not prefer` ≡ `prefers`).
const AUXILIARIES: [&str; 5] = ["does", "do", "did", "longer", "anymore"];

/// What a reflection did.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Facts turned into claims or evidence.
    pub facts: usize,
    /// Facts already reflected (their lines are evidence already).
    pub unchanged: usize,
    /// Facts that mention no entity (not reflected).
    pub without_entity: usize,
    /// Entity pages created.
    pub pages_created: Vec<String>,
    /// Entity pages updated.
    pub pages_updated: Vec<String>,
    /// Claims added.
    pub claims_added: usize,
    /// Evidence added to existing claims.
    pub evidence_added: usize,
    /// Opinion confidences raised.
    pub confidence_raised: usize,
    /// Opinion confidences lowered.
    pub confidence_lowered: usize,
    /// Contradictions recorded.
    pub contradictions: usize,
}

/// A reflection of `facts` as a [`Batch`] of `wiki-apply`.
pub struct Reflection<'a> {
    facts: &'a [Fact],
    now: String,
    /// The workspace directory (for the bridge source ids of the notes).
    workspace: std::path::PathBuf,
    /// The operations' results (after [`Batch::prepare`]).
    pub results: Vec<OpResult>,
    /// What the last preparation did.
    pub summary: Summary,
}

impl<'a> Reflection<'a> {
    /// A reflection of `facts` (in note and line order) at `now` (ISO timestamp).
    pub fn new(facts: &'a [Fact], workspace: &std::path::Path, now: &str) -> Reflection<'a> {
        Reflection {
            facts,
            now: now.to_string(),
            workspace: workspace.to_path_buf(),
            results: Vec::new(),
            summary: Summary::default(),
        }
    }
}

/// The vault files plus the entity pages a reflection creates (so that `wiki-apply`'s
/// operations can add claims to them).
struct Overlay<'f> {
    base: &'f dyn VaultFiles,
    created: BTreeMap<String, Vec<u8>>,
    paths: Vec<String>,
}

impl<'f> Overlay<'f> {
    fn new(base: &'f dyn VaultFiles) -> Overlay<'f> {
        Overlay {
            base,
            created: BTreeMap::new(),
            paths: base.page_paths().to_vec(),
        }
    }

    fn create(&mut self, path: &str, text: String) {
        self.created.insert(path.to_string(), text.into_bytes());
        if let Err(i) = self.paths.binary_search_by(|p| p.as_str().cmp(path)) {
            self.paths.insert(i, path.to_string());
        }
    }
}

impl VaultFiles for Overlay<'_> {
    fn page_paths(&self) -> &[String] {
        &self.paths
    }

    fn read(&self, path: &str) -> wiki_apply::error::Result<Option<Cow<'_, [u8]>>> {
        match self.created.get(path) {
            Some(b) => Ok(Some(Cow::Borrowed(b.as_slice()))),
            None => self.base.read(path),
        }
    }
}

/// An entity: its page path, id and title.
#[derive(Debug, Clone)]
struct Entity {
    path: String,
    id: String,
    title: String,
    slug: String,
}

fn entity_of(name: &str) -> Entity {
    let title = name.trim().trim_start_matches('@').to_string();
    let stem = slug::slugify_page_stem(&title);
    Entity {
        path: format!("entities/{}", slug::page_filename(&stem)),
        id: format!("entity.{}", slug::slugify(&title)),
        slug: entity_key(&title),
        title,
    }
}

/// The text of a new entity page.
fn new_page(e: &Entity, now: &str) -> String {
    let mut fm = yaml_serde::Mapping::new();
    let s = |v: &str| yaml_serde::Value::String(v.to_string());
    fm.insert(s("pageType"), s("entity"));
    fm.insert(s("id"), s(&e.id));
    fm.insert(s("title"), s(&e.title));
    fm.insert(s("sourceIds"), yaml_serde::Value::Sequence(Vec::new()));
    fm.insert(s("claims"), yaml_serde::Value::Sequence(Vec::new()));
    fm.insert(s("status"), s("active"));
    fm.insert(s("updatedAt"), s(now));
    let body = format!(
        "# {}\n\n## Notes\n{}\n",
        e.title,
        markers::empty_human_block()
    );
    page::render_page(&fm, &body)
}

/// The words of a statement: lowercase runs of letters, digits and apostrophes.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('’', "'").to_lowercase())
        .collect()
}

/// An opinion's statement key (negations and auxiliaries dropped, a plural/3rd-person `s`
/// folded) and its polarity (`true`: negated).
pub fn statement(text: &str) -> (String, bool) {
    let mut negated = false;
    let mut key = Vec::new();
    for w in words(text) {
        if NEGATIONS.contains(&w.as_str()) {
            negated = !negated;
            continue;
        }
        if AUXILIARIES.contains(&w.as_str()) {
            continue;
        }
        let folded = match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        };
        key.push(folded);
    }
    (key.join(" "), negated)
}

/// The claim id of `fact` on `entity`'s page.
pub fn claim_id(entity_slug: &str, fact: &Fact) -> String {
    let key = match fact.kind {
        Kind::Opinion => format!("O {}", statement(&fact.content).0),
        k => format!("{} {}", k.letter(), words(&fact.content).join(" ")),
    };
    format!("mem.{entity_slug}.{}", &slug::sha1_hex(&key)[..10])
}

fn lines_of(fact: &Fact) -> String {
    if fact.end_line > fact.line {
        format!("{}-{}", fact.line, fact.end_line)
    } else {
        fact.line.to_string()
    }
}

fn round2(x: f64) -> f64 {
    (x.clamp(0.01, 0.99) * 100.0).round() / 100.0
}

/// The claim `id` of the page at `path`, as the workspace has it now.
fn current_claim(
    ws: &Workspace<'_>,
    path: &str,
    id: &str,
) -> wiki_apply::error::Result<Option<Claim>> {
    let Some(p) = ws.page(path)? else {
        return Ok(None);
    };
    Ok(match p.frontmatter.get("claims") {
        Some(yaml_serde::Value::Sequence(items)) => items
            .iter()
            .filter_map(model::normalize_claim)
            .find(|c| c.id.as_deref() == Some(id)),
        _ => None,
    })
}

impl Reflection<'_> {
    /// The id of the note's source page as `wiki bridge import` names it (§11.3).
    fn source_id(&self, fact: &Fact) -> String {
        wiki_import::bridge::page_identity(&self.workspace, &fact.path).0
    }

    fn evidence(&self, fact: &Fact, note: Option<&str>) -> Evidence {
        Evidence {
            kind: Some("memory".into()),
            source_id: Some(self.source_id(fact)),
            path: Some(fact.path.clone()),
            lines: Some(lines_of(fact)),
            note: note.map(String::from),
            updated_at: fact.day.map(|d| d.to_string()),
            ..Evidence::default()
        }
    }

    fn apply(&mut self, ws: &mut Workspace<'_>, op: Op) -> wiki_apply::error::Result<()> {
        let r = ws.apply(&op)?;
        self.results.push(r);
        Ok(())
    }

    /// Add the note's source id to the page's `sourceIds` (its provenance).
    fn add_source(
        &mut self,
        ws: &mut Workspace<'_>,
        e: &Entity,
        fact: &Fact,
    ) -> wiki_apply::error::Result<()> {
        let id = self.source_id(fact);
        let Some(p) = ws.page(&e.path)? else {
            return Ok(());
        };
        let mut ids = model::single_or_list(p.frontmatter.get("sourceIds"));
        if ids.contains(&id) {
            return Ok(());
        }
        ids.push(id);
        self.apply(
            ws,
            Op::UpdateMetadata(UpdateMetadata {
                lookup: e.path.clone(),
                source_ids: Some(ids),
                claims: None,
                contradictions: None,
                questions: None,
                confidence: None,
                status: None,
            }),
        )
    }

    /// Reflect one fact onto one entity's page; whether anything changed.
    fn reflect_one(
        &mut self,
        ws: &mut Workspace<'_>,
        e: &Entity,
        fact: &Fact,
    ) -> wiki_apply::error::Result<bool> {
        let id = claim_id(&e.slug, fact);
        let existing = current_claim(ws, &e.path, &id)?;
        let lines = lines_of(fact);
        let Some(claim) = existing else {
            let confidence = (fact.kind == Kind::Opinion)
                .then(|| round2(fact.confidence.unwrap_or(DEFAULT_OPINION_CONFIDENCE)));
            let claim = Claim {
                id: Some(id),
                text: fact.content.clone(),
                status: Some("supported".into()),
                confidence,
                evidence: vec![self.evidence(fact, None)],
                valid_from: fact.day.map(|d| d.to_string()),
                ..Claim::default()
            };
            self.apply(
                ws,
                Op::AddClaim(AddClaim {
                    page: e.path.clone(),
                    claim,
                }),
            )?;
            self.summary.claims_added += 1;
            return Ok(true);
        };
        if claim
            .evidence
            .iter()
            .any(|ev| ev.path.as_deref() == Some(&fact.path) && ev.lines.as_deref() == Some(&lines))
        {
            return Ok(false);
        }
        let contradicts =
            fact.kind == Kind::Opinion && statement(&claim.text).1 != statement(&fact.content).1;
        let note = match (fact.kind, contradicts) {
            (Kind::Opinion, true) => Some("contradicts"),
            (Kind::Opinion, false) => Some("reinforces"),
            _ => None,
        };
        self.apply(
            ws,
            Op::AddEvidence(AddEvidence {
                page: Some(e.path.clone()),
                claim_id: id.clone(),
                evidence: vec![self.evidence(fact, note)],
            }),
        )?;
        self.summary.evidence_added += 1;
        if fact.kind != Kind::Opinion {
            return Ok(true);
        }
        let before = claim.confidence.unwrap_or(DEFAULT_OPINION_CONFIDENCE);
        let after = if contradicts {
            round2(before - CONTRADICT_STEP)
        } else {
            round2(before + REINFORCE_STEP)
        };
        self.apply(
            ws,
            Op::UpdateClaim(UpdateClaim {
                page: Some(e.path.clone()),
                claim_id: id.clone(),
                text: None,
                status: contradicts.then(|| "contested".to_string()),
                confidence: Some(ConfidenceChange::Set(after)),
            }),
        )?;
        if contradicts {
            self.summary.confidence_lowered += 1;
            self.summary.contradictions += 1;
            self.apply(
                ws,
                Op::AddContradiction(PageNote {
                    page: e.path.clone(),
                    text: format!(
                        "{id} \"{}\" is contradicted by {}: \"{}\"",
                        claim.text,
                        fact.source(),
                        fact.content
                    ),
                }),
            )?;
        } else if after > before {
            self.summary.confidence_raised += 1;
        }
        Ok(true)
    }
}

impl Batch for Reflection<'_> {
    fn prepare(&mut self, files: &dyn VaultFiles) -> wiki_apply::error::Result<Vec<FileChange>> {
        self.results.clear();
        self.summary = Summary::default();
        // Entities in order of first mention, one per key.
        let mut entities: BTreeMap<String, Entity> = BTreeMap::new();
        for f in self.facts {
            for name in &f.entities {
                let e = entity_of(name);
                entities.entry(e.slug.clone()).or_insert(e);
            }
        }
        let mut overlay = Overlay::new(files);
        for e in entities.values() {
            if files.read(&e.path)?.is_none() {
                overlay.create(&e.path, new_page(e, &self.now));
            }
        }
        let created: Vec<String> = overlay.created.keys().cloned().collect();
        let mut ws = Workspace::new(&overlay, &self.now);
        for fact in self.facts {
            if fact.entities.is_empty() {
                self.summary.without_entity += 1;
                continue;
            }
            let mut changed = false;
            for name in &fact.entities {
                let e = entities[&entity_key(name)].clone();
                if self.reflect_one(&mut ws, &e, fact)? {
                    changed = true;
                    self.add_source(&mut ws, &e, fact)?;
                }
            }
            if changed {
                self.summary.facts += 1;
            } else {
                self.summary.unchanged += 1;
            }
        }
        let mut changes = ws.changes();
        for c in &mut changes {
            if created.contains(&c.path) {
                c.before = None;
                self.summary.pages_created.push(c.path.clone());
            } else {
                self.summary.pages_updated.push(c.path.clone());
            }
        }
        Ok(changes)
    }

    fn message(&self, compiled: &[FileChange], agent: &str) -> (String, Vec<(String, String)>) {
        let pages = self.summary.pages_created.len() + self.summary.pages_updated.len();
        let subject = format!(
            "wiki memory reflect: {} fact{} into {pages} page{}",
            self.summary.facts,
            if self.summary.facts == 1 { "" } else { "s" },
            if pages == 1 { "" } else { "s" }
        );
        let trailers = wiki_apply::session::trailers(&self.results, compiled, agent);
        (subject, trailers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_and_polarity() {
        assert_eq!(
            statement("Prefers concise replies on WhatsApp."),
            ("prefer concise replie on whatsapp".to_string(), false)
        );
        assert_eq!(
            statement("Does not prefer concise replies on WhatsApp"),
            ("prefer concise replie on whatsapp".to_string(), true)
        );
        assert_eq!(
            statement("No longer prefers concise replies on WhatsApp").0,
            statement("prefers concise replies on WhatsApp").0
        );
        assert!(statement("Doesn't like mornings").1);
    }
}
