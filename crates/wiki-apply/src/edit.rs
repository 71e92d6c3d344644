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
use std::collections::{BTreeSet, HashMap};

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

    /// Page `path` gained claim `id` (without reading its other claims again).
    fn add_claim(&mut self, path: &str, id: &str) {
        self.claims
            .entry(id.to_string())
            .or_default()
            .insert(path.to_string());
        self.by_path
            .entry(path.to_string())
            .or_default()
            .1
            .push(id.to_string());
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

/// A page a batch changes (or read to change): parsed once, changed in place by each operation
/// on it, rendered once when the batch ends ([`Workspace::changes`]). Rendering and parsing the
/// whole page again for every operation made a batch quadratic in its operations on one page.
struct Doc {
    /// The bytes at the start of the batch (`None`: the batch creates the page).
    before: Option<Vec<u8>>,
    /// The page as last parsed (as read, or as `create_synthesis` rendered it). Its
    /// frontmatter stays as parsed, the one rendering compares against; the current one is `fm`.
    page: Page,
    /// The current frontmatter.
    fm: Mapping,
    /// The exact current text when `page` was parsed from it and `fm` has not changed since
    /// (`None`: `fm` rendered into `page`).
    text: Option<String>,
    /// Whether an operation changed the page.
    dirty: bool,
    /// Position in `claims` of each explicit claim id (its first occurrence), built on first
    /// use.
    claim_pos: Option<HashMap<String, usize>>,
}

impl Doc {
    fn read(path: &str, before: Vec<u8>) -> Result<Doc> {
        let page = page::parse_page_without_links(path, &before)
            .map_err(|e| Error::Invalid(format!("cannot change {path}: {e}")))?;
        Ok(Doc {
            fm: page.frontmatter.clone(),
            page,
            before: Some(before),
            text: None,
            dirty: false,
            claim_pos: None,
        })
    }

    /// The page's current bytes.
    fn current(&self) -> Cow<'_, [u8]> {
        match (&self.text, &self.before) {
            (_, Some(b)) if !self.dirty => Cow::Borrowed(b),
            (Some(t), _) => Cow::Borrowed(t.as_bytes()),
            _ => Cow::Owned(
                self.page
                    .render_edit(&self.fm, self.page.body())
                    .into_bytes(),
            ),
        }
    }

    /// Parse the current text into `page` (for an operation that works on the whole page).
    fn materialize(&mut self) -> Result<()> {
        if self.dirty && self.text.is_none() {
            let text = self.page.render_edit(&self.fm, self.page.body());
            self.page = page::parse_page_without_links(&self.page.path, text.as_bytes())
                .map_err(|e| Error::Invalid(format!("cannot change {}: {e}", self.page.path)))?;
            self.text = Some(text);
        }
        Ok(())
    }

    /// An operation changed the frontmatter: the page's `updatedAt` becomes `now`.
    fn touched(&mut self, now: &str) {
        self.fm
            .insert(key("updatedAt"), Value::String(now.to_string()));
        self.text = None;
        self.dirty = true;
    }

    fn id(&self) -> Option<String> {
        model::opt_string(self.fm.get("id"))
    }

    /// Index in `claims` of the claim with explicit id `id`.
    fn claim_index(&mut self, id: &str) -> Option<usize> {
        let fm = &self.fm;
        self.claim_pos
            .get_or_insert_with(|| {
                let mut pos = HashMap::new();
                for (i, c) in claims_seq(fm).into_iter().flatten().enumerate() {
                    if let Value::Mapping(m) = c
                        && let Some(id) = opt_str(m.get("id"))
                    {
                        pos.entry(id.to_string()).or_insert(i);
                    }
                }
                pos
            })
            .get(id)
            .copied()
    }

    /// A claim with id `id` was inserted at `at` in `claims` (`at` is the end when `appended`).
    fn claim_inserted(&mut self, at: usize, id: &str, appended: bool) {
        if let Some(pos) = &mut self.claim_pos {
            if !appended {
                pos.values_mut().filter(|v| **v >= at).for_each(|v| *v += 1);
            }
            pos.entry(id.to_string()).or_insert(at);
        }
    }
}

/// The vault as a batch of operations sees it.
pub struct Workspace<'a> {
    files: &'a dyn VaultFiles,
    now: String,
    /// Every page an operation read to change it, as the operations so far left it.
    docs: HashMap<String, Doc>,
    /// Page paths created by the batch.
    created: BTreeSet<String>,
    index: Option<IdIndex>,
    scans: usize,
    /// Page lookups resolved so far (forgotten when a page is created or gets another id).
    resolved: HashMap<String, String>,
}

impl<'a> Workspace<'a> {
    /// A workspace over `files`; `now` is the ISO timestamp written to `updatedAt`.
    pub fn new(files: &'a dyn VaultFiles, now: &str) -> Workspace<'a> {
        Workspace {
            files,
            now: now.to_string(),
            docs: HashMap::new(),
            created: BTreeSet::new(),
            index: None,
            scans: 0,
            resolved: HashMap::new(),
        }
    }

    /// The files changed so far (content differs from the start), sorted by path. Each page is
    /// rendered here, once, whatever the number of operations on it.
    pub fn changes(&self) -> Vec<FileChange> {
        let mut out: Vec<FileChange> = self
            .docs
            .iter()
            .filter(|(_, d)| d.dirty)
            .filter_map(|(path, d)| {
                let after = d.current().into_owned();
                (Some(&after) != d.before.as_ref()).then(|| FileChange {
                    path: path.clone(),
                    before: d.before.clone(),
                    after: Some(after),
                    blob: None,
                })
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
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

    /// The page at `path` to change (`None`: no such file), read and parsed on first use.
    fn load(&mut self, path: &str) -> Result<Option<&mut Doc>> {
        if !self.docs.contains_key(path) {
            let Some(bytes) = self.files.read(path)? else {
                return Ok(None);
            };
            let doc = Doc::read(path, bytes.into_owned())?;
            self.docs.insert(path.to_string(), doc);
        }
        Ok(self.docs.get_mut(path))
    }

    fn require(&mut self, path: &str) -> Result<&mut Doc> {
        self.load(path)?
            .ok_or_else(|| Error::Invalid(format!("Wiki page not found: {path}")))
    }

    /// Parse the current version of a page (`None` when it does not exist). A page the batch
    /// changed is rendered for this (callers outside the batch's operations).
    pub fn page(&self, path: &str) -> Result<Option<Page>> {
        let bytes = match self.docs.get(path) {
            Some(doc) => doc.current(),
            None => match self.files.read(path)? {
                Some(b) => b,
                None => return Ok(None),
            },
        };
        page::parse_page(path, &bytes)
            .map(Some)
            .map_err(|e| Error::Invalid(format!("cannot change {path}: {e}")))
    }

    /// The frontmatter of the page at `path` as the batch left it, when the batch read it.
    fn known_frontmatter(&self, path: &str) -> Option<&Mapping> {
        self.docs.get(path).map(|d| &d.fm)
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

    /// Whether `path` is a page path (without listing them all).
    fn is_page(&self, path: &str) -> bool {
        self.created.contains(path)
            || self
                .files
                .page_paths()
                .binary_search_by(|p| p.as_str().cmp(path))
                .is_ok()
    }

    fn ensure_index(&mut self) -> Result<()> {
        if self.index.is_some() {
            return Ok(());
        }
        let mut index = IdIndex::default();
        let paths = self.all_paths();
        self.files.prefetch(&paths);
        for path in paths {
            if let Some(fm) = self.known_frontmatter(&path) {
                index.add(&path, fm);
            } else if let Some(b) = self.files.read(&path)?
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
            .filter(|(p, k)| self.docs.contains_key(p) || *k != Some(false))
            .map(|(p, _)| p)
            .collect();
        self.files.prefetch(&paths);
        for path in paths {
            if let Some(fm) = self.known_frontmatter(&path) {
                if matches(fm) {
                    out.push(path);
                }
                continue;
            }
            let Some(b) = self.files.read(&path)? else {
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
        if let Some(path) = self.resolved.get(&key) {
            return Ok(Some(path.clone()));
        }
        let found = self.resolve_uncached(&key)?;
        if let Some(path) = &found {
            self.resolved.insert(key, path.clone());
        }
        Ok(found)
    }

    fn resolve_uncached(&mut self, key: &str) -> Result<Option<String>> {
        let with_ext = if key.ends_with(".md") {
            key.to_string()
        } else {
            format!("{key}.md")
        };
        // The first two tiers are exact paths: no need to list every page for them.
        for exact in [key, with_ext.as_str()] {
            if self.is_page(exact) {
                return Ok(Some(exact.to_string()));
            }
        }
        let paths = self.all_paths();
        let tiers: [&dyn Fn(&str) -> bool; 2] =
            [&|p| p.strip_suffix(".md").unwrap_or(p) == key, &|p| {
                page::file_stem(p) == key
            }];
        for tier in tiers {
            if let Some(p) = paths.iter().find(|p| tier(p)) {
                return Ok(Some(p.clone()));
            }
        }
        // The page id: the cache's parsed form has it (`summary.id` is the same trimmed string).
        let by_id = self.scan(
            key,
            Needle::PageId,
            |ix| {
                ix.pages
                    .get(key)
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default()
            },
            |fm| opt_str(fm.get("id")) == Some(key),
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

    /// The page holding claim `claim_id` (and the claim's index in its `claims`): on `page`
    /// when given, else the only page of the vault that has it.
    fn claim_page(&mut self, page: Option<&str>, claim_id: &str) -> Result<(String, usize)> {
        let path = match page {
            Some(lookup) => self.require_lookup(lookup)?,
            None => {
                // Not a parsed-field test: the parsed form drops claims without text, which
                // this lookup still finds (the cache says which pages have none).
                let found =
                    self.pages_with_claim(claim_id, |fm| claim_index(fm, claim_id).is_some())?;
                match found.len() {
                    0 => return Err(Error::Invalid(format!("claim not found: {claim_id}"))),
                    1 => found.into_iter().next().unwrap_or_default(),
                    _ => {
                        return Err(Error::Invalid(format!(
                            "claim {claim_id} is on several pages ({}); pass \"page\" to choose one",
                            found.join(", ")
                        )));
                    }
                }
            }
        };
        match self.require(&path)?.claim_index(claim_id) {
            Some(i) => Ok((path, i)),
            None => Err(Error::Invalid(format!(
                "claim {claim_id} not found on {path}"
            ))),
        }
    }

    // ----- writing -------------------------------------------------------------------------

    /// Forget resolved lookups and re-index `path`: a page was created or changed its id or
    /// its claims wholesale.
    fn reindexed(&mut self, path: &str) {
        self.resolved.clear();
        if let (Some(index), Some(doc)) = (&mut self.index, self.docs.get(path)) {
            index.remove(path);
            index.add(path, &doc.fm);
        }
    }

    fn result(changed: bool, page: &str, page_id: Option<String>) -> OpResult {
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
    //
    // Each operation changes the page's frontmatter in place and says whether it changed
    // anything (comparing or copying the whole frontmatter per operation would make a batch
    // quadratic again).

    fn create_synthesis(&mut self, op: &CreateSynthesis) -> Result<OpResult> {
        let stem = slug::slugify_page_stem(&op.title);
        let path = format!("syntheses/{}", slug::page_filename(&stem));
        // The whole page is rebuilt: work on its current text.
        if let Some(doc) = self.load(&path)? {
            doc.materialize()?;
        }
        let existing = self.docs.get(&path).map(|d| &d.page);
        let text = synthesis_text(op, existing, &self.now);
        let current = self.docs.get(&path);
        if current.is_some_and(|d| d.current() == text.as_bytes()) {
            let id = current.and_then(Doc::id);
            let mut r = Self::result(false, &path, id);
            r.claims = synthesis_claims(op);
            return Ok(r);
        }
        let before = match self.docs.remove(&path) {
            Some(d) => d.before,
            None => {
                self.created.insert(path.clone());
                None
            }
        };
        let page = page::parse_page_without_links(&path, text.as_bytes())
            .map_err(|e| Error::Invalid(format!("cannot change {path}: {e}")))?;
        let doc = Doc {
            fm: page.frontmatter.clone(),
            page,
            before,
            text: Some(text),
            dirty: true,
            claim_pos: None,
        };
        let id = doc.id();
        self.docs.insert(path.clone(), doc);
        self.reindexed(&path);
        let mut r = Self::result(true, &path, id);
        r.claims = synthesis_claims(op);
        Ok(r)
    }

    fn update_metadata(&mut self, op: &UpdateMetadata) -> Result<OpResult> {
        let path = self.require_lookup(&op.lookup)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let fm = &mut doc.fm;
        let mut changed = set(fm, "updatedAt", Value::String(now));
        if let Some(ids) = &op.source_ids {
            changed |= set(fm, "sourceIds", string_list(ids));
        }
        let claims_changed = match &op.claims {
            Some(claims) if claims.is_empty() => fm.shift_remove("claims").is_some(),
            Some(claims) => set(
                fm,
                "claims",
                Value::Sequence(claims.iter().map(claim_value).collect()),
            ),
            None => false,
        };
        changed |= claims_changed;
        for (name, list) in [
            ("contradictions", &op.contradictions),
            ("questions", &op.questions),
        ] {
            changed |= match list {
                Some(list) if list.is_empty() => fm.shift_remove(name).is_some(),
                Some(list) => set(fm, name, string_list(list)),
                None => false,
            };
        }
        changed |= match op.confidence {
            Some(ConfidenceChange::Clear) => fm.shift_remove("confidence").is_some(),
            Some(ConfidenceChange::Set(c)) => set(fm, "confidence", number(c)),
            None => false,
        };
        if let Some(s) = &op.status {
            changed |= set(fm, "status", string(s));
        }
        if changed {
            doc.text = None;
            doc.dirty = true;
        }
        if claims_changed {
            doc.claim_pos = None;
        }
        let mut r = Self::result(changed, &path, doc.id());
        if claims_changed {
            self.reindexed(&path);
        }
        if let Some(claims) = &op.claims {
            r.claims = claims.iter().filter_map(|c| c.id.clone()).collect();
        }
        Ok(r)
    }

    fn add_claim(&mut self, op: &AddClaim) -> Result<OpResult> {
        let path = self.require_lookup(&op.page)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let id = op.claim.id.clone().unwrap_or_default();
        let changed = if let Some(i) = doc.claim_index(&id) {
            let existing = claims_seq(&doc.fm)
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
            claim.updated_at = Some(now.clone());
            let claims = claims_seq_mut(&mut doc.fm, &path)?;
            claims.push(claim_value(&claim));
            let at = claims.len() - 1;
            doc.claim_inserted(at, &id, true);
            doc.touched(&now);
            true
        };
        let mut r = Self::result(changed, &path, doc.id());
        if changed && let Some(index) = &mut self.index {
            index.add_claim(&path, &id);
        }
        r.claims = vec![id];
        Ok(r)
    }

    fn update_claim(&mut self, op: &UpdateClaim) -> Result<OpResult> {
        let (path, i) = self.claim_page(op.page.as_deref(), &op.claim_id)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let claim = claim_mapping_mut(&mut doc.fm, i, &path)?;
        let mut touched = false;
        if let Some(text) = &op.text
            && opt_str(claim.get("text")) != Some(text.as_str())
        {
            set_ordered(claim, "text", string(text), CLAIM_ORDER);
            touched = true;
        }
        if let Some(status) = &op.status
            && opt_str(claim.get("status")) != Some(status.as_str())
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
            set_ordered(claim, "updatedAt", Value::String(now.clone()), CLAIM_ORDER);
            doc.touched(&now);
        }
        let mut r = Self::result(touched, &path, doc.id());
        r.claims = vec![op.claim_id.clone()];
        Ok(r)
    }

    fn add_evidence(&mut self, op: &AddEvidence) -> Result<OpResult> {
        let (path, i) = self.claim_page(op.page.as_deref(), &op.claim_id)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let claim = claim_mapping_mut(&mut doc.fm, i, &path)?;
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
        let changed = !added.is_empty();
        if changed {
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
            doc.touched(&now);
        }
        let mut r = Self::result(changed, &path, doc.id());
        r.claims = vec![op.claim_id.clone()];
        Ok(r)
    }

    fn supersede_claim(&mut self, op: &SupersedeClaim) -> Result<OpResult> {
        let (path, i) = self.claim_page(op.page.as_deref(), &op.claim_id)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let new_id = op.new_claim.id.clone().unwrap_or_default();
        let superseded_by = claims_seq(&doc.fm)
            .and_then(|s| s.get(i))
            .and_then(|v| match v {
                Value::Mapping(m) => model::opt_string(m.get("supersededBy")),
                _ => None,
            });
        let claims = vec![op.claim_id.clone(), new_id.clone()];
        let new_exists = doc.claim_index(&new_id).is_some();
        match superseded_by {
            Some(by) if by == new_id && new_exists => {
                // Already done (a replayed batch).
                let mut r = Self::result(false, &path, doc.id());
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
        if new_exists {
            return Err(Error::Invalid(format!(
                "claim {new_id} already exists on {path}; choose another newClaimId"
            )));
        }
        let valid_from = op
            .new_claim
            .valid_from
            .clone()
            .unwrap_or_else(|| now.clone());
        {
            let claim = claim_mapping_mut(&mut doc.fm, i, &path)?;
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
        new_claim.updated_at = Some(now.clone());
        let seq = claims_seq_mut(&mut doc.fm, &path)?;
        seq.insert(i + 1, claim_value(&new_claim));
        let appended = i + 2 == seq.len();
        doc.claim_inserted(i + 1, &new_id, appended);
        doc.touched(&now);
        let mut r = Self::result(true, &path, doc.id());
        if let Some(index) = &mut self.index {
            index.add_claim(&path, &new_id);
        }
        r.claims = claims;
        Ok(r)
    }

    fn add_relationship(&mut self, op: &AddRelationship) -> Result<OpResult> {
        let path = self.require_lookup(&op.page)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let rel = &op.relationship;
        let seq = seq_mut(&mut doc.fm, "relationships", &path)?;
        let same = |m: &Mapping| {
            let target_ok = match (&rel.target_id, &rel.target_path) {
                (Some(id), _) => opt_str(m.get("targetId")) == Some(id.as_str()),
                (None, Some(p)) => opt_str(m.get("targetPath")) == Some(p.as_str()),
                (None, None) => false,
            };
            let kind = |k: Option<&str>| k.map(str::to_lowercase);
            target_ok && kind(opt_str(m.get("kind"))) == kind(rel.kind.as_deref())
        };
        let existing = seq.iter_mut().find_map(|v| match v {
            Value::Mapping(m) if same(m) => Some(m),
            _ => None,
        });
        let changed = match existing {
            Some(m) => {
                let mut touched = false;
                for (name, value) in relationship_fields(rel) {
                    if m.get(name) != Some(&value) {
                        set_ordered(m, name, value, RELATIONSHIP_ORDER);
                        touched = true;
                    }
                }
                if touched {
                    set_ordered(
                        m,
                        "updatedAt",
                        Value::String(now.clone()),
                        RELATIONSHIP_ORDER,
                    );
                }
                touched
            }
            None => {
                let mut m = Mapping::new();
                for (name, value) in relationship_fields(rel) {
                    m.insert(key(name), value);
                }
                m.insert(key("updatedAt"), Value::String(now.clone()));
                seq.push(Value::Mapping(m));
                true
            }
        };
        if changed {
            doc.touched(&now);
        }
        Ok(Self::result(changed, &path, doc.id()))
    }

    fn page_note(&mut self, op: &PageNote, field: &str, add: bool) -> Result<OpResult> {
        let path = self.require_lookup(&op.page)?;
        let now = self.now.clone();
        let doc = self.require(&path)?;
        let fm = &mut doc.fm;
        let text = op.text.as_str();
        let present = match fm.get(field) {
            Some(Value::Sequence(items)) => items.iter().any(|i| opt_str(Some(i)) == Some(text)),
            v @ Some(Value::String(_)) => opt_str(v) == Some(text),
            _ => false,
        };
        if add && !present {
            match fm.get_mut(field) {
                Some(Value::Sequence(seq)) => seq.push(string(text)),
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
                    seq.retain(|v| opt_str(Some(v)) != Some(text));
                    seq.is_empty()
                }
                _ => true,
            };
            if now_empty {
                fm.shift_remove(field);
            }
        }
        let changed = add != present;
        if changed {
            doc.touched(&now);
        }
        Ok(Self::result(changed, &path, doc.id()))
    }
}

/// The text of the page `op` makes of `existing` (the page as the batch left it, if any).
fn synthesis_text(op: &CreateSynthesis, existing: Option<&Page>, now: &str) -> String {
    let mut fm = existing.map(|p| p.frontmatter.clone()).unwrap_or_default();
    let id = existing
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
    fm.insert(key("updatedAt"), Value::String(now.to_string()));

    let original_body = existing.map(|p| p.body()).unwrap_or("");
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
    match existing {
        Some(p) if !original_body.trim().is_empty() => p.render_edit(&fm, &body),
        _ => page::render_page(&fm, &body),
    }
}

fn synthesis_claims(op: &CreateSynthesis) -> Vec<String> {
    op.claims
        .iter()
        .flatten()
        .filter_map(|c| c.id.clone())
        .collect()
}

/// Set `name` to `value` unless it has that value already; whether it changed.
fn set(fm: &mut Mapping, name: &str, value: Value) -> bool {
    if fm.get(name) == Some(&value) {
        return false;
    }
    fm.insert(key(name), value);
    true
}

/// A trimmed, non-empty string value (`model::opt_string` without the copy).
fn opt_str(v: Option<&Value>) -> Option<&str> {
    let mut v = v?;
    while let Value::Tagged(t) = v {
        v = &t.value;
    }
    match v {
        Value::String(s) => Some(s.trim()).filter(|t| !t.is_empty()),
        _ => None,
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
        Value::Mapping(m) => opt_str(m.get("id")) == Some(id),
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
