//! Applying operations to an in-memory view of the vault ([`Workspace`]).
//!
//! Pure: a workspace reads the files a batch starts from ([`VaultFiles`]) and keeps every page it
//! changes in memory; nothing touches the disk or git. Operations run in order, so a later
//! operation sees the pages as earlier ones left them (a batch can add a claim and then add
//! evidence to it).
//!
//! Rules every operation follows:
//! * frontmatter is parsed by `wiki_parse` and written back with minimal edits
//!   ([`wiki_parse::Page::render_edit`]): only the entries the operation changes (a key, one
//!   claim, one key of a claim) are written again, by `wiki_parse::yaml`'s emitter; every other
//!   byte of the frontmatter (key order, quoting, flow or block style, comments, CRLF) stays;
//! * the body is kept byte for byte ([`wiki_parse::Page::render_with`]); only
//!   `create_synthesis` changes it, and only inside its `## Summary` managed block (plus an empty
//!   `## Notes` human block appended when the page has none);
//! * a page the operation does not change keeps its bytes, and the result says `changed: false`;
//! * a page that changes gets `updatedAt` = now (claims touched by claim operations too);
//! * re-running an operation that already took effect changes nothing (adding an existing claim
//!   with the same text, an existing question or identical evidence is a no-op), so a batch can be
//!   replayed safely after a crash.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use yaml_serde::{Mapping, Value};

use wiki_parse::markers::{self, Block};
use wiki_parse::model::{self, Claim, Evidence, Relationship};
use wiki_parse::{Page, page, slug};

use crate::error::{Error, Result};
use crate::files::VaultFiles;
use crate::ops::{
    AddClaim, AddEvidence, AddRelationship, ConfidenceChange, CreateSynthesis, Op, OpKind,
    PageNote, SupersedeClaim, UpdateClaim, UpdateMetadata,
};

/// What one operation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpResult {
    /// The operation.
    pub op: OpKind,
    /// Whether the page changed.
    pub changed: bool,
    /// The page's vault-relative path.
    pub page_path: String,
    /// The page's id (after the operation), if it has one.
    pub page_id: Option<String>,
    /// Claim ids the operation touched (`Wiki-Claim` trailers).
    pub claims: Vec<String>,
    /// Source ids the operation refers to (`Wiki-Source` trailers).
    pub sources: Vec<String>,
}

/// One changed file: its content before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Vault-relative path.
    pub path: String,
    /// Content before (`None`: created).
    pub before: Option<Vec<u8>>,
    /// Content after (`None`: deleted).
    pub after: Option<Vec<u8>>,
    /// The git blob id of `after` when the compile computed it (see `wiki_store::Change::blob`);
    /// whoever replaces `after` sets this too.
    pub blob: Option<wiki_store::ObjectId>,
}

/// After how many full-vault scans (id lookups) the workspace builds an id index instead.
const SCANS_BEFORE_INDEX: usize = 3;

/// Ids of pages and claims, built once a batch does many lookups.
#[derive(Debug, Default)]
struct IdIndex {
    pages: HashMap<String, BTreeSet<String>>,
    claims: HashMap<String, BTreeSet<String>>,
    /// What each path contributed (to update the maps when a page changes).
    by_path: HashMap<String, (Option<String>, Vec<String>)>,
}

impl IdIndex {
    fn remove(&mut self, path: &str) {
        if let Some((id, claims)) = self.by_path.remove(path) {
            if let Some(id) = id
                && let Some(set) = self.pages.get_mut(&id)
            {
                set.remove(path);
            }
            for c in claims {
                if let Some(set) = self.claims.get_mut(&c) {
                    set.remove(path);
                }
            }
        }
    }

    fn add(&mut self, path: &str, fm: &Mapping) {
        let id = model::opt_string(fm.get("id"));
        let claims = claim_ids(fm);
        if let Some(id) = &id {
            self.pages
                .entry(id.clone())
                .or_default()
                .insert(path.to_string());
        }
        for c in &claims {
            self.claims
                .entry(c.clone())
                .or_default()
                .insert(path.to_string());
        }
        self.by_path.insert(path.to_string(), (id, claims));
    }
}

/// Explicit claim ids of a frontmatter mapping.
fn claim_ids(fm: &Mapping) -> Vec<String> {
    match fm.get("claims") {
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(|c| match c {
                Value::Mapping(m) => model::opt_string(m.get("id")),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The vault as a batch of operations sees it.
pub struct Workspace<'a> {
    files: &'a dyn VaultFiles,
    now: String,
    /// Current bytes of every file written so far (others are read from `files`).
    current: HashMap<String, Option<Vec<u8>>>,
    /// Original bytes of every file written.
    original: BTreeMap<String, Option<Vec<u8>>>,
    /// Page paths created by the batch.
    created: BTreeSet<String>,
    index: Option<IdIndex>,
    scans: usize,
}

impl<'a> Workspace<'a> {
    /// A workspace over `files`; `now` is the ISO timestamp written to `updatedAt`.
    pub fn new(files: &'a dyn VaultFiles, now: &str) -> Workspace<'a> {
        Workspace {
            files,
            now: now.to_string(),
            current: HashMap::new(),
            original: BTreeMap::new(),
            created: BTreeSet::new(),
            index: None,
            scans: 0,
        }
    }

    /// The files changed so far (content differs from the start), sorted by path.
    pub fn changes(&self) -> Vec<FileChange> {
        self.original
            .iter()
            .filter_map(|(path, before)| {
                let after = self.current.get(path).cloned().flatten();
                (after != *before).then(|| FileChange {
                    path: path.clone(),
                    before: before.clone(),
                    after,
                    blob: None,
                })
            })
            .collect()
    }

    /// Apply one operation.
    pub fn apply(&mut self, op: &Op) -> Result<OpResult> {
        let mut result = match op {
            Op::CreateSynthesis(o) => self.create_synthesis(o),
            Op::UpdateMetadata(o) => self.update_metadata(o),
            Op::AddClaim(o) => self.add_claim(o),
            Op::UpdateClaim(o) => self.update_claim(o),
            Op::AddEvidence(o) => self.add_evidence(o),
            Op::SupersedeClaim(o) => self.supersede_claim(o),
            Op::AddRelationship(o) => self.add_relationship(o),
            Op::AddQuestion(o) => self.page_note(o, "questions", true),
            Op::ResolveQuestion(o) => self.page_note(o, "questions", false),
            Op::AddContradiction(o) => self.page_note(o, "contradictions", true),
            Op::ResolveContradiction(o) => self.page_note(o, "contradictions", false),
        }?;
        result.op = op.kind();
        result.sources = op.source_ids();
        Ok(result)
    }

    // ----- reading -------------------------------------------------------------------------

    fn bytes(&self, path: &str) -> Result<Option<Cow<'_, [u8]>>> {
        if let Some(b) = self.current.get(path) {
            return Ok(b.as_deref().map(Cow::Borrowed));
        }
        self.files.read(path)
    }

    /// Parse the current version of a page (`None` when it does not exist).
    pub fn page(&self, path: &str) -> Result<Option<Page>> {
        match self.bytes(path)? {
            None => Ok(None),
            Some(b) => page::parse_page(path, &b)
                .map(Some)
                .map_err(|e| Error::Invalid(format!("cannot change {path}: {e}"))),
        }
    }

    fn require_page(&self, path: &str) -> Result<Page> {
        self.page(path)?
            .ok_or_else(|| Error::Invalid(format!("Wiki page not found: {path}")))
    }

    /// All page paths (the batch's start plus pages it created), sorted.
    fn all_paths(&self) -> Vec<String> {
        if self.created.is_empty() {
            return self.files.page_paths().to_vec();
        }
        let mut set: BTreeSet<String> = self.files.page_paths().iter().cloned().collect();
        set.extend(self.created.iter().cloned());
        set.into_iter().collect()
    }

    fn ensure_index(&mut self) -> Result<()> {
        if self.index.is_some() {
            return Ok(());
        }
        let mut index = IdIndex::default();
        let paths = self.all_paths();
        self.files.prefetch(&paths);
        for path in paths {
            if let Some(b) = self.bytes(&path)?
                && let Ok(p) = page::parse_page(&path, &b)
            {
                index.add(&path, &p.frontmatter);
            }
        }
        self.index = Some(index);
        Ok(())
    }

    /// Pages (sorted by path) whose frontmatter satisfies `matches`, found by scanning the pages
    /// whose frontmatter contains `needle` (or by the id index once built). `known`: what a page
    /// must hold to match, so that pages whose parse-cache entry proves otherwise are not even
    /// read.
    fn scan(
        &mut self,
        needle: &str,
        known: Needle,
        use_index: impl Fn(&IdIndex) -> Vec<String>,
        matches: impl Fn(&Mapping) -> bool,
    ) -> Result<Vec<String>> {
        if self.index.is_none() {
            self.scans += 1;
            if self.scans > SCANS_BEFORE_INDEX {
                self.ensure_index()?;
            }
        }
        if let Some(index) = &self.index {
            return Ok(use_index(index));
        }
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut out = Vec::new();
        let all = self.all_paths();
        let known = match known {
            Needle::PageId => self.files.may_have_page_id(&all, needle),
            Needle::ClaimId => self.files.may_have_claim(&all, needle),
        };
        let paths: Vec<String> = all
            .into_iter()
            .zip(known)
            .filter(|(p, k)| self.current.contains_key(p) || *k != Some(false))
            .map(|(p, _)| p)
            .collect();
        self.files.prefetch(&paths);
        for path in paths {
            let Some(b) = self.bytes(&path)? else {
                continue;
            };
            // Ids are declared in frontmatter: a page whose body alone names the id (a
            // dashboard lists every claim id) is not parsed.
            if !wiki_parse::frontmatter::declares(&b, |part| finder.find(part).is_some()) {
                continue;
            }
            if let Ok(p) = page::parse_page(&path, &b)
                && matches(&p.frontmatter)
            {
                out.push(path);
            }
        }
        Ok(out)
    }

    /// Resolve a page lookup like `wiki get` (reference §8 step 2): exact path, path + `.md`,
    /// path without `.md`, file name without `.md` (first in path order), then page id.
    pub fn resolve_page(&mut self, lookup: &str) -> Result<Option<String>> {
        let key = normalize_lookup_key(lookup);
        if key.is_empty() {
            return Ok(None);
        }
        let paths = self.all_paths();
        let with_ext = if key.ends_with(".md") {
            key.clone()
        } else {
            format!("{key}.md")
        };
        let tiers: [&dyn Fn(&str) -> bool; 4] = [
            &|p| p == key,
            &|p| p == with_ext,
            &|p| p.strip_suffix(".md").unwrap_or(p) == key,
            &|p| page::file_stem(p) == key,
        ];
        for tier in tiers {
            if let Some(p) = paths.iter().find(|p| tier(p)) {
                return Ok(Some(p.clone()));
            }
        }
        // The page id: the cache's parsed form has it (`summary.id` is the same trimmed string).
        let by_id = self.scan(
            &key,
            Needle::PageId,
            |ix| {
                ix.pages
                    .get(&key)
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default()
            },
            |fm| model::opt_string(fm.get("id")).as_deref() == Some(key.as_str()),
        )?;
        Ok(by_id.into_iter().next())
    }

    fn require_lookup(&mut self, lookup: &str) -> Result<String> {
        self.resolve_page(lookup)?
            .ok_or_else(|| Error::Invalid(format!("Wiki page not found: {lookup}")))
    }

    /// The pages (sorted by path) whose frontmatter holds claim `claim_id` by `matches`, found as
    /// an operation's claim lookup finds them: pages whose parse-cache entry proves they lack
    /// the claim are not read, and a page whose frontmatter does not contain the id is not
    /// parsed.
    pub fn pages_with_claim(
        &mut self,
        claim_id: &str,
        matches: impl Fn(&Mapping) -> bool,
    ) -> Result<Vec<String>> {
        if claim_id.is_empty() {
            return Ok(Vec::new());
        }
        self.scan(
            claim_id,
            Needle::ClaimId,
            |ix| {
                ix.claims
                    .get(claim_id)
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default()
            },
            matches,
        )
    }

    /// The page holding claim `claim_id`: on `page` when given, else the only page of the vault
    /// that has it.
    fn claim_page(&mut self, page: Option<&str>, claim_id: &str) -> Result<String> {
        if let Some(lookup) = page {
            let path = self.require_lookup(lookup)?;
            let p = self.require_page(&path)?;
            if claim_index(&p.frontmatter, claim_id).is_none() {
                return Err(Error::Invalid(format!(
                    "claim {claim_id} not found on {path}"
                )));
            }
            return Ok(path);
        }
        // Not a parsed-field test: the parsed form drops claims without text, which this
        // lookup still finds (the cache says which pages have none).
        let found = self.pages_with_claim(claim_id, |fm| claim_index(fm, claim_id).is_some())?;
        match found.len() {
            0 => Err(Error::Invalid(format!("claim not found: {claim_id}"))),
            1 => Ok(found.into_iter().next().unwrap_or_default()),
            _ => Err(Error::Invalid(format!(
                "claim {claim_id} is on several pages ({}); pass \"page\" to choose one",
                found.join(", ")
            ))),
        }
    }

    // ----- writing -------------------------------------------------------------------------

    fn write(&mut self, path: &str, text: String) -> Result<bool> {
        let before = self.bytes(path)?.map(Cow::into_owned);
        let after = Some(text.into_bytes());
        if before == after {
            return Ok(false);
        }
        if before.is_none() {
            self.created.insert(path.to_string());
        }
        self.original
            .entry(path.to_string())
            .or_insert_with(|| before.clone());
        if let Some(index) = &mut self.index {
            index.remove(path);
            if let Some(b) = &after
                && let Ok(p) = page::parse_page(path, b)
            {
                index.add(path, &p.frontmatter);
            }
        }
        self.current.insert(path.to_string(), after);
        Ok(true)
    }

    /// Write `fm` (body unchanged) when it differs from the page's frontmatter, bumping the
    /// page's `updatedAt`.
    fn save_frontmatter(&mut self, page: &Page, mut fm: Mapping) -> Result<bool> {
        if fm == page.frontmatter {
            return Ok(false);
        }
        fm.insert(key("updatedAt"), Value::String(self.now.clone()));
        let text = page.render_edit(&fm, page.body());
        self.write(&page.path, text)
    }

    fn result(&self, changed: bool, page: &str, fm: Option<&Mapping>) -> OpResult {
        let page_id = match fm {
            Some(fm) => model::opt_string(fm.get("id")),
            None => self
                .current
                .get(page)
                .and_then(|b| b.as_ref())
                .and_then(|b| page::parse_page(page, b).ok())
                .and_then(|p| model::opt_string(p.frontmatter.get("id"))),
        };
        OpResult {
            op: OpKind::UpdateMetadata,
            changed,
            page_path: page.to_string(),
            page_id,
            claims: Vec::new(),
            sources: Vec::new(),
        }
    }

    // ----- operations ----------------------------------------------------------------------

    fn create_synthesis(&mut self, op: &CreateSynthesis) -> Result<OpResult> {
        let stem = slug::slugify_page_stem(&op.title);
        let path = format!("syntheses/{}", slug::page_filename(&stem));
        let existing = self.page(&path)?;
        let mut fm = existing
            .as_ref()
            .map(|p| p.frontmatter.clone())
            .unwrap_or_default();
        let id = existing
            .as_ref()
            .and_then(|p| model::opt_string(p.frontmatter.get("id")))
            .unwrap_or_else(|| format!("synthesis.{}", slug::slugify(&op.title)));
        fm.insert(key("pageType"), string("synthesis"));
        fm.insert(key("id"), string(&id));
        fm.insert(key("title"), string(&op.title));
        fm.insert(key("sourceIds"), string_list(&op.source_ids));
        if let Some(claims) = &op.claims {
            fm.insert(
                key("claims"),
                Value::Sequence(claims.iter().map(claim_value).collect()),
            );
        }
        if let Some(c) = &op.contradictions {
            fm.insert(key("contradictions"), string_list(c));
        }
        if let Some(q) = &op.questions {
            fm.insert(key("questions"), string_list(q));
        }
        if let Some(c) = op.confidence {
            fm.insert(key("confidence"), number(c));
        }
        fm.insert(
            key("status"),
            string(op.status.as_deref().unwrap_or("active")),
        );
        fm.insert(key("updatedAt"), Value::String(self.now.clone()));

        let original_body = existing.as_ref().map(|p| p.body()).unwrap_or("");
        let base = if original_body.trim().is_empty() {
            format!(
                "# {}\n\n## Notes\n{}\n",
                op.title,
                markers::empty_human_block()
            )
        } else {
            original_body.to_string()
        };
        let mut body = markers::replace_managed_block(&base, &Block::summary(), op.body.trim());
        if !markers::has_human_block(&body) {
            let trimmed = body.trim_end();
            body = format!(
                "{}## Notes\n{}\n",
                if trimmed.is_empty() {
                    String::new()
                } else {
                    format!("{trimmed}\n\n")
                },
                markers::empty_human_block()
            );
        }
        let text = match &existing {
            Some(p) if !original_body.trim().is_empty() => p.render_edit(&fm, &body),
            _ => page::render_page(&fm, &body),
        };
        let changed = self.write(&path, text)?;
        let mut r = self.result(changed, &path, Some(&fm));
        if let Some(claims) = &op.claims {
            r.claims = claims.iter().filter_map(|c| c.id.clone()).collect();
        }
        Ok(r)
    }

    fn update_metadata(&mut self, op: &UpdateMetadata) -> Result<OpResult> {
        let path = self.require_lookup(&op.lookup)?;
        let page = self.require_page(&path)?;
        let mut fm = page.frontmatter.clone();
        fm.insert(key("updatedAt"), Value::String(self.now.clone()));
        if let Some(ids) = &op.source_ids {
            fm.insert(key("sourceIds"), string_list(ids));
        }
        if let Some(claims) = &op.claims {
            if claims.is_empty() {
                fm.shift_remove("claims");
            } else {
                fm.insert(
                    key("claims"),
                    Value::Sequence(claims.iter().map(claim_value).collect()),
                );
            }
        }
        for (name, list) in [
            ("contradictions", &op.contradictions),
            ("questions", &op.questions),
        ] {
            if let Some(list) = list {
                if list.is_empty() {
                    fm.shift_remove(name);
                } else {
                    fm.insert(key(name), string_list(list));
                }
            }
        }
        match op.confidence {
            Some(ConfidenceChange::Clear) => {
                fm.shift_remove("confidence");
            }
            Some(ConfidenceChange::Set(c)) => {
                fm.insert(key("confidence"), number(c));
            }
            None => {}
        }
        if let Some(s) = &op.status {
            fm.insert(key("status"), string(s));
        }
        let changed = if fm == page.frontmatter {
            false
        } else {
            let text = page.render_edit(&fm, page.body());
            self.write(&path, text)?
        };
        let mut r = self.result(changed, &path, Some(&fm));
        if let Some(claims) = &op.claims {
            r.claims = claims.iter().filter_map(|c| c.id.clone()).collect();
        }
        Ok(r)
    }

    fn add_claim(&mut self, op: &AddClaim) -> Result<OpResult> {
        let path = self.require_lookup(&op.page)?;
        let page = self.require_page(&path)?;
        let id = op.claim.id.clone().unwrap_or_default();
        let mut fm = page.frontmatter.clone();
        let changed = if let Some(i) = claim_index(&fm, &id) {
            let existing = claims_seq(&fm)
                .and_then(|s| s.get(i))
                .and_then(model::normalize_claim);
            if existing.map(|c| c.text) != Some(op.claim.text.clone()) {
                return Err(Error::Invalid(format!(
                    "claim {id} already exists on {path} with a different text; use update_claim or supersede_claim"
                )));
            }
            false
        } else {
            let mut claim = op.claim.clone();
            claim.updated_at = Some(self.now.clone());
            claims_seq_mut(&mut fm, &path)?.push(claim_value(&claim));
            self.save_frontmatter(&page, fm.clone())?
        };
        let mut r = self.result(changed, &path, Some(&fm));
        r.claims = vec![id];
        Ok(r)
    }

    fn update_claim(&mut self, op: &UpdateClaim) -> Result<OpResult> {
        let path = self.claim_page(op.page.as_deref(), &op.claim_id)?;
        let page = self.require_page(&path)?;
        let mut fm = page.frontmatter.clone();
        let i = claim_index(&fm, &op.claim_id).unwrap_or_default();
        let now = self.now.clone();
        let claim = claim_mapping_mut(&mut fm, i, &path)?;
        let mut touched = false;
        if let Some(text) = &op.text
            && model::opt_string(claim.get("text")).as_deref() != Some(text.as_str())
        {
            set_ordered(claim, "text", string(text), CLAIM_ORDER);
            touched = true;
        }
        if let Some(status) = &op.status
            && model::opt_string(claim.get("status")).as_deref() != Some(status.as_str())
        {
            set_ordered(claim, "status", string(status), CLAIM_ORDER);
            touched = true;
        }
        match op.confidence {
            Some(ConfidenceChange::Set(c)) if model::finite(claim.get("confidence")) != Some(c) => {
                set_ordered(claim, "confidence", number(c), CLAIM_ORDER);
                touched = true;
            }
            Some(ConfidenceChange::Clear) if claim.contains_key("confidence") => {
                claim.shift_remove("confidence");
                touched = true;
            }
            _ => {}
        }
        if touched {
            set_ordered(claim, "updatedAt", Value::String(now), CLAIM_ORDER);
        }
        let changed = self.save_frontmatter(&page, fm.clone())?;
        let mut r = self.result(changed, &path, Some(&fm));
        r.claims = vec![op.claim_id.clone()];
        Ok(r)
    }

    fn add_evidence(&mut self, op: &AddEvidence) -> Result<OpResult> {
        let path = self.claim_page(op.page.as_deref(), &op.claim_id)?;
        let page = self.require_page(&path)?;
        let mut fm = page.frontmatter.clone();
        let i = claim_index(&fm, &op.claim_id).unwrap_or_default();
        let now = self.now.clone();
        let claim = claim_mapping_mut(&mut fm, i, &path)?;
        let mut known: Vec<Evidence> = model::normalize_claim(&Value::Mapping(claim.clone()))
            .map(|c| c.evidence)
            .unwrap_or_default()
            .into_iter()
            .map(without_time)
            .collect();
        let mut added = Vec::new();
        for e in &op.evidence {
            let bare = without_time(e.clone());
            if known.contains(&bare) {
                continue;
            }
            known.push(bare);
            let mut e = e.clone();
            if e.updated_at.is_none() {
                e.updated_at = Some(now.clone());
            }
            added.push(evidence_value(&e));
        }
        if !added.is_empty() {
            match claim.get_mut("evidence") {
                Some(Value::Sequence(seq)) => seq.extend(added),
                None | Some(Value::Null) => {
                    set_ordered(claim, "evidence", Value::Sequence(added), CLAIM_ORDER)
                }
                Some(_) => {
                    return Err(Error::Invalid(format!(
                        "the evidence of claim {} on {path} is not a list; fix the page by hand",
                        op.claim_id
                    )));
                }
            }
        }
        let changed = self.save_frontmatter(&page, fm.clone())?;
        let mut r = self.result(changed, &path, Some(&fm));
        r.claims = vec![op.claim_id.clone()];
        Ok(r)
    }

    fn supersede_claim(&mut self, op: &SupersedeClaim) -> Result<OpResult> {
        let path = self.claim_page(op.page.as_deref(), &op.claim_id)?;
        let page = self.require_page(&path)?;
        let mut fm = page.frontmatter.clone();
        let new_id = op.new_claim.id.clone().unwrap_or_default();
        let i = claim_index(&fm, &op.claim_id).unwrap_or_default();
        let old = claims_seq(&fm)
            .and_then(|s| s.get(i))
            .and_then(|v| match v {
                Value::Mapping(m) => Some(m.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let superseded_by = model::opt_string(old.get("supersededBy"));
        let claims = vec![op.claim_id.clone(), new_id.clone()];
        match superseded_by {
            Some(by) if by == new_id && claim_index(&fm, &new_id).is_some() => {
                // Already done (a replayed batch).
                let mut r = self.result(false, &path, Some(&fm));
                r.claims = claims;
                return Ok(r);
            }
            Some(by) => {
                return Err(Error::Invalid(format!(
                    "claim {} on {path} is already superseded by {by}",
                    op.claim_id
                )));
            }
            None => {}
        }
        if claim_index(&fm, &new_id).is_some() {
            return Err(Error::Invalid(format!(
                "claim {new_id} already exists on {path}; choose another newClaimId"
            )));
        }
        let valid_from = op
            .new_claim
            .valid_from
            .clone()
            .unwrap_or_else(|| self.now.clone());
        let now = self.now.clone();
        {
            let claim = claim_mapping_mut(&mut fm, i, &path)?;
            set_ordered(claim, "status", string("superseded"), CLAIM_ORDER);
            set_ordered(claim, "updatedAt", Value::String(now.clone()), CLAIM_ORDER);
            set_ordered(
                claim,
                "validUntil",
                Value::String(valid_from.clone()),
                CLAIM_ORDER,
            );
            set_ordered(claim, "supersededBy", string(&new_id), CLAIM_ORDER);
        }
        let mut new_claim = op.new_claim.clone();
        new_claim.valid_from = Some(valid_from);
        new_claim.updated_at = Some(now);
        claims_seq_mut(&mut fm, &path)?.insert(i + 1, claim_value(&new_claim));
        let changed = self.save_frontmatter(&page, fm.clone())?;
        let mut r = self.result(changed, &path, Some(&fm));
        r.claims = claims;
        Ok(r)
    }

    fn add_relationship(&mut self, op: &AddRelationship) -> Result<OpResult> {
        let path = self.require_lookup(&op.page)?;
        let page = self.require_page(&path)?;
        let mut fm = page.frontmatter.clone();
        let rel = &op.relationship;
        let now = self.now.clone();
        let seq = seq_mut(&mut fm, "relationships", &path)?;
        let same = |m: &Mapping| {
            let target_ok = match (&rel.target_id, &rel.target_path) {
                (Some(id), _) => model::opt_string(m.get("targetId")).as_deref() == Some(id),
                (None, Some(p)) => model::opt_string(m.get("targetPath")).as_deref() == Some(p),
                (None, None) => false,
            };
            target_ok
                && model::opt_string(m.get("kind")).map(|k| k.to_lowercase())
                    == rel.kind.as_ref().map(|k| k.to_lowercase())
        };
        let existing = seq.iter_mut().find_map(|v| match v {
            Value::Mapping(m) if same(m) => Some(m),
            _ => None,
        });
        match existing {
            Some(m) => {
                let mut touched = false;
                for (name, value) in relationship_fields(rel) {
                    if m.get(name) != Some(&value) {
                        set_ordered(m, name, value, RELATIONSHIP_ORDER);
                        touched = true;
                    }
                }
                if touched {
                    set_ordered(m, "updatedAt", Value::String(now), RELATIONSHIP_ORDER);
                }
            }
            None => {
                let mut m = Mapping::new();
                for (name, value) in relationship_fields(rel) {
                    m.insert(key(name), value);
                }
                m.insert(key("updatedAt"), Value::String(now));
                seq.push(Value::Mapping(m));
            }
        }
        let changed = self.save_frontmatter(&page, fm.clone())?;
        Ok(self.result(changed, &path, Some(&fm)))
    }

    fn page_note(&mut self, op: &PageNote, field: &str, add: bool) -> Result<OpResult> {
        let path = self.require_lookup(&op.page)?;
        let page = self.require_page(&path)?;
        let mut fm = page.frontmatter.clone();
        let present = model::single_or_list(fm.get(field)).contains(&op.text);
        if add && !present {
            match fm.get_mut(field) {
                Some(Value::Sequence(seq)) => seq.push(string(&op.text)),
                Some(Value::String(s)) if !s.trim().is_empty() => {
                    let first = s.trim().to_string();
                    fm.insert(key(field), string_list(&[first, op.text.clone()]));
                }
                None | Some(Value::Null) | Some(Value::String(_)) => {
                    fm.insert(key(field), string_list(std::slice::from_ref(&op.text)));
                }
                Some(_) => {
                    return Err(Error::Invalid(format!(
                        "{field} on {path} is not a list of strings; fix the page by hand"
                    )));
                }
            }
        } else if !add && present {
            let now_empty = match fm.get_mut(field) {
                Some(Value::Sequence(seq)) => {
                    seq.retain(|v| model::opt_string(Some(v)).as_deref() != Some(op.text.as_str()));
                    seq.is_empty()
                }
                _ => true,
            };
            if now_empty {
                fm.shift_remove(field);
            }
        }
        let changed = self.save_frontmatter(&page, fm.clone())?;
        Ok(self.result(changed, &path, Some(&fm)))
    }
}

/// Normalise a lookup like the original (`normalizeLookupKey`): trim, `\` → `/`, trailing `/`
/// removed unless the key ends in `.md`.
pub fn normalize_lookup_key(lookup: &str) -> String {
    let k = lookup.trim().replace('\\', "/");
    if k.ends_with(".md") {
        k
    } else {
        k.trim_end_matches('/').to_string()
    }
}

// ----- YAML helpers --------------------------------------------------------------------------

/// Key order of a claim mapping written by apply.
pub const CLAIM_ORDER: &[&str] = crate::ops::CLAIM_FIELDS;
/// Key order of a relationship mapping written by apply.
pub const RELATIONSHIP_ORDER: &[&str] = crate::ops::RELATIONSHIP_FIELDS;

fn key(name: &str) -> Value {
    Value::String(name.to_string())
}

fn string(s: &str) -> Value {
    Value::String(s.to_string())
}

fn string_list(items: &[String]) -> Value {
    Value::Sequence(items.iter().map(|s| string(s)).collect())
}

/// A YAML number; whole numbers are written as integers (`1`, not `1.0`).
fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::Number((f as i64).into())
    } else {
        Value::Number(f.into())
    }
}

/// What a page found by [`Workspace::scan`] must hold.
#[derive(Clone, Copy)]
enum Needle {
    /// Its page id (the parsed `id` field) is the needle.
    PageId,
    /// A claim whose id is the needle.
    ClaimId,
}

fn claims_seq(fm: &Mapping) -> Option<&Vec<Value>> {
    match fm.get("claims") {
        Some(Value::Sequence(s)) => Some(s),
        _ => None,
    }
}

/// Index of the claim with explicit id `id` in `claims`.
fn claim_index(fm: &Mapping, id: &str) -> Option<usize> {
    claims_seq(fm)?.iter().position(|c| match c {
        Value::Mapping(m) => model::opt_string(m.get("id")).as_deref() == Some(id),
        _ => false,
    })
}

fn seq_mut<'m>(fm: &'m mut Mapping, field: &str, path: &str) -> Result<&'m mut Vec<Value>> {
    if matches!(fm.get(field), None | Some(Value::Null)) {
        fm.insert(key(field), Value::Sequence(Vec::new()));
    }
    match fm.get_mut(field) {
        Some(Value::Sequence(s)) => Ok(s),
        _ => Err(Error::Invalid(format!(
            "{field} on {path} is not a list; fix the page by hand"
        ))),
    }
}

fn claims_seq_mut<'m>(fm: &'m mut Mapping, path: &str) -> Result<&'m mut Vec<Value>> {
    seq_mut(fm, "claims", path)
}

fn claim_mapping_mut<'m>(fm: &'m mut Mapping, i: usize, path: &str) -> Result<&'m mut Mapping> {
    match claims_seq_mut(fm, path)?.get_mut(i) {
        Some(Value::Mapping(m)) => Ok(m),
        _ => Err(Error::Invalid(format!(
            "claims[{i}] on {path} is not a mapping"
        ))),
    }
}

/// Set `name` in `map`: replaced in place when present, otherwise inserted after the last key
/// that precedes it in `order` (at the end when `name` is not in `order`).
fn set_ordered(map: &mut Mapping, name: &str, value: Value, order: &[&str]) {
    if map.contains_key(name) {
        map.insert(key(name), value);
        return;
    }
    let Some(rank) = order.iter().position(|o| *o == name) else {
        map.insert(key(name), value);
        return;
    };
    let before = &order[..rank];
    let mut at = 0;
    for (i, (k, _)) in map.iter().enumerate() {
        if let Value::String(k) = k
            && before.contains(&k.as_str())
        {
            at = i + 1;
        }
    }
    if at == map.len() {
        map.insert(key(name), value);
        return;
    }
    let old = std::mem::take(map);
    let mut value = Some(value);
    for (i, (k, v)) in old.into_iter().enumerate() {
        if i == at
            && let Some(v) = value.take()
        {
            map.insert(key(name), v);
        }
        map.insert(k, v);
    }
}

fn without_time(mut e: Evidence) -> Evidence {
    e.updated_at = None;
    e
}

/// A claim as a YAML mapping, keys in [`CLAIM_ORDER`]; `evidence` is always written.
pub fn claim_value(c: &Claim) -> Value {
    let mut m = Mapping::new();
    if let Some(id) = &c.id {
        m.insert(key("id"), string(id));
    }
    m.insert(key("text"), string(&c.text));
    if let Some(s) = &c.status {
        m.insert(key("status"), string(s));
    }
    if let Some(n) = c.confidence {
        m.insert(key("confidence"), number(n));
    }
    m.insert(
        key("evidence"),
        Value::Sequence(c.evidence.iter().map(evidence_value).collect()),
    );
    for (name, v) in [
        ("updatedAt", &c.updated_at),
        ("validFrom", &c.valid_from),
        ("validUntil", &c.valid_until),
        ("supersedes", &c.supersedes),
        ("supersededBy", &c.superseded_by),
    ] {
        if let Some(v) = v {
            m.insert(key(name), string(v));
        }
    }
    Value::Mapping(m)
}

/// An evidence entry as a YAML mapping (the original's key order).
pub fn evidence_value(e: &Evidence) -> Value {
    let mut m = Mapping::new();
    let strings = [
        ("kind", &e.kind),
        ("sourceId", &e.source_id),
        ("path", &e.path),
        ("lines", &e.lines),
    ];
    for (name, v) in strings {
        if let Some(v) = v {
            m.insert(key(name), string(v));
        }
    }
    if let Some(w) = e.weight {
        m.insert(key("weight"), number(w));
    }
    if let Some(c) = e.confidence {
        m.insert(key("confidence"), number(c));
    }
    for (name, v) in [
        ("privacyTier", &e.privacy_tier),
        ("note", &e.note),
        ("updatedAt", &e.updated_at),
    ] {
        if let Some(v) = v {
            m.insert(key(name), string(v));
        }
    }
    Value::Mapping(m)
}

/// The fields a relationship operation sets, in [`RELATIONSHIP_ORDER`].
fn relationship_fields(r: &Relationship) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let mut s = |name: &'static str, v: &Option<String>| {
        if let Some(v) = v {
            out.push((name, string(v)));
        }
    };
    s("targetId", &r.target_id);
    s("targetPath", &r.target_path);
    s("targetTitle", &r.target_title);
    s("kind", &r.kind);
    if let Some(w) = r.weight {
        out.push(("weight", number(w)));
    }
    if let Some(c) = r.confidence {
        out.push(("confidence", number(c)));
    }
    let mut s = |name: &'static str, v: &Option<String>| {
        if let Some(v) = v {
            out.push((name, string(v)));
        }
    };
    s("evidenceKind", &r.evidence_kind);
    s("privacyTier", &r.privacy_tier);
    s("note", &r.note);
    out
}

#[cfg(test)]
mod tests;
