//! Index documents: what is tokenised per field and what is stored for ranking and snippets.
//!
//! A wiki page is one document; a memory file is one document per chunk (see [`crate::memory`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use wiki_parse::markers::{self, Block};
use wiki_parse::{Page, PageKind, PageSummary};

use crate::tokenize;

/// Number of BM25F fields.
pub const FIELDS: usize = 7;

/// The BM25F fields of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Field {
    /// Page title.
    Title = 0,
    /// Page id, canonical ids, aliases, person-card handles, e-mails and socials.
    Ids = 1,
    /// Vault-relative path.
    Path = 2,
    /// Claim texts and claim ids.
    Claims = 3,
    /// Routing fields: lane, ask-for / avoid-asking-for, best-used-for / not-enough-for,
    /// relationship kinds, target titles and notes.
    Route = 4,
    /// Other metadata: page and entity type, source ids, questions, contradictions, privacy tier,
    /// source path, relationship targets, claim evidence.
    Meta = 5,
    /// Body text (frontmatter, generated Related block and marker lines removed).
    Body = 6,
}

/// Document kinds stored in the fixed doc table (`u8`).
pub const KIND_SOURCE: u8 = 0;
/// Entity page.
pub const KIND_ENTITY: u8 = 1;
/// Concept page.
pub const KIND_CONCEPT: u8 = 2;
/// Synthesis page.
pub const KIND_SYNTHESIS: u8 = 3;
/// Report page.
pub const KIND_REPORT: u8 = 4;
/// Memory chunk.
pub const KIND_MEMORY: u8 = 5;

/// Doc flag: person-like page.
pub const FLAG_PERSON: u8 = 1;
/// Doc flag: the page has claims.
pub const FLAG_CLAIMS: u8 = 2;

/// The kind byte of a page kind.
pub fn kind_byte(kind: PageKind) -> u8 {
    match kind {
        PageKind::Source => KIND_SOURCE,
        PageKind::Entity => KIND_ENTITY,
        PageKind::Concept => KIND_CONCEPT,
        PageKind::Synthesis => KIND_SYNTHESIS,
        PageKind::Report => KIND_REPORT,
    }
}

/// A document ready to be written to a segment.
#[derive(Debug, Clone, Default)]
pub struct IndexDoc {
    /// Vault- (or workspace-) relative path of the file.
    pub path: String,
    /// Git blob id of the file bytes.
    pub blob: [u8; 20],
    /// Page id, if any (used by `wiki get`).
    pub id: Option<String>,
    /// Kind byte.
    pub kind: u8,
    /// Flags.
    pub flags: u8,
    /// Field lengths in terms.
    pub lens: [u32; FIELDS],
    /// Distinct terms with their per-field frequencies, sorted by term.
    pub terms: Vec<(String, [u32; FIELDS])>,
    /// Serialized [`StoredDoc`].
    pub stored: Vec<u8>,
}

/// What is stored per document for reranking, snippets and output.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "camelCase")]
#[allow(clippy::large_enum_variant)]
pub enum StoredDoc {
    /// A wiki page.
    Page(StoredPage),
    /// A memory chunk.
    Chunk(StoredChunk),
}

/// A stored wiki page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredPage {
    /// Vault-relative path.
    pub path: String,
    /// Resolved title.
    pub title: String,
    /// Page kind.
    pub kind: PageKind,
    /// Normalised frontmatter summary.
    pub summary: PageSummary,
    /// The file text with the generated Related block removed (frontmatter included).
    pub text: String,
    /// Byte offset of the body in `text`.
    pub body_start: usize,
    /// Folded forms of the texts ranking compares with a query (computed on first use; a
    /// search server keeps them with the document).
    #[serde(skip)]
    pub folded: FoldedPage,
}

/// Folded forms ([`crate::tokenize::fold`]) of a stored page's title, identifiers, body and
/// claims, each computed once when first asked for.
#[derive(Debug, Clone, Default)]
pub struct FoldedPage {
    title: std::sync::OnceLock<String>,
    ids: std::sync::OnceLock<Vec<String>>,
    body: std::sync::OnceLock<String>,
    claims: std::sync::OnceLock<Vec<FoldedClaim>>,
}

/// A claim's folded text, and the folded form of its text and id joined by a newline.
#[derive(Debug, Clone)]
pub struct FoldedClaim {
    /// `fold(text)`.
    pub text: String,
    /// `fold(text + "\n" + id)` (`fold(text)` for a claim without id).
    pub with_id: String,
}

impl StoredPage {
    /// `fold(title)`.
    pub fn folded_title(&self) -> &str {
        self.folded
            .title
            .get_or_init(|| crate::tokenize::fold(&self.title))
    }

    /// The folded id, canonical id and aliases, in that order.
    pub fn folded_ids(&self) -> &[String] {
        self.folded.ids.get_or_init(|| {
            let s = &self.summary;
            s.id.iter()
                .chain(&s.canonical_id)
                .chain(&s.aliases)
                .map(|x| crate::tokenize::fold(x))
                .collect()
        })
    }

    /// `fold(body())`.
    pub fn folded_body(&self) -> &str {
        self.folded
            .body
            .get_or_init(|| crate::tokenize::fold(self.body()))
    }

    /// The folded forms of each claim, in claim order.
    pub fn folded_claims(&self) -> &[FoldedClaim] {
        self.folded.claims.get_or_init(|| {
            self.summary
                .claims
                .iter()
                .map(|c| {
                    let text = crate::tokenize::fold(&c.text);
                    // `fold(a + "\n" + b)` is the two folded forms joined when both are ASCII.
                    let with_id = match c.id.as_deref() {
                        None => text.clone(),
                        Some(id) if c.text.is_ascii() && id.is_ascii() => {
                            let mut f = text.clone();
                            f.push('\n');
                            f.push_str(&id.to_ascii_lowercase());
                            f
                        }
                        Some(id) => crate::tokenize::fold(&format!("{}\n{id}", c.text)),
                    };
                    FoldedClaim { text, with_id }
                })
                .collect()
        })
    }

    /// Compute every folded form now (a search server does it once per document).
    pub fn fold_all(&self) {
        self.folded_title();
        self.folded_ids();
        self.folded_body();
        self.folded_claims();
    }

    /// The body (after the frontmatter, Related block removed).
    pub fn body(&self) -> &str {
        self.text.get(self.body_start..).unwrap_or("")
    }

    /// Body lines that carry text: not blank, not a `---` line, not a marker line.
    pub fn body_lines(&self) -> impl Iterator<Item = &str> {
        self.body()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && *l != "---" && !markers::is_marker_line(l))
    }
}

/// A stored memory chunk.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredChunk {
    /// Workspace-relative path of the memory file.
    pub path: String,
    /// First line (1-based) of the chunk.
    pub start_line: usize,
    /// Last line (1-based, inclusive) of the chunk.
    pub end_line: usize,
    /// The chunk text.
    pub text: String,
    /// `<!-- importance: N -->` annotation found in the chunk (1–10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<u8>,
}

/// Accumulates per-field term frequencies.
#[derive(Default)]
pub struct TermCounter {
    counts: HashMap<String, [u32; FIELDS]>,
    lens: [u32; FIELDS],
}

impl TermCounter {
    /// Tokenise `text` into `field`.
    pub fn add(&mut self, field: Field, text: &str) {
        let f = field as usize;
        tokenize::for_each_term(text, true, |t, kind, _| {
            if kind != tokenize::TermKind::Exact {
                self.lens[f] += 1;
            }
            if let Some(c) = self.counts.get_mut(t) {
                c[f] += 1;
            } else {
                let mut c = [0u32; FIELDS];
                c[f] = 1;
                self.counts.insert(t.to_string(), c);
            }
        });
    }

    /// Tokenise each string of `items` into `field`.
    pub fn add_all<'a>(&mut self, field: Field, items: impl IntoIterator<Item = &'a String>) {
        for s in items {
            self.add(field, s);
        }
    }

    /// Tokenise an optional string into `field`.
    pub fn add_opt(&mut self, field: Field, item: &Option<String>) {
        if let Some(s) = item {
            self.add(field, s);
        }
    }

    /// Sorted terms and field lengths.
    pub fn finish(self) -> (Vec<(String, [u32; FIELDS])>, [u32; FIELDS]) {
        let mut terms: Vec<(String, [u32; FIELDS])> = self.counts.into_iter().collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        (terms, self.lens)
    }
}

/// The text of a page minus its generated Related block, and the body offset in it.
pub fn searchable_text(page: &Page) -> (String, usize) {
    let head = &page.text[..page.body_offset];
    let body = markers::strip_block(page.body(), &Block::related());
    let mut text = String::with_capacity(head.len() + body.len());
    text.push_str(head);
    text.push_str(&body);
    (text, head.len())
}

/// Route fields of a page (reference §7.3/§7.4): card lane, ask-for, avoid-asking-for, page and
/// card best-used-for / not-enough-for, relationship kind, target title and note.
pub fn route_fields(s: &PageSummary) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    if let Some(card) = &s.person_card {
        out.extend(card.lane.as_deref());
        out.extend(card.ask_for.iter().map(String::as_str));
        out.extend(card.avoid_asking_for.iter().map(String::as_str));
    }
    out.extend(s.best_used_for.iter().map(String::as_str));
    out.extend(s.not_enough_for.iter().map(String::as_str));
    if let Some(card) = &s.person_card {
        out.extend(card.best_used_for.iter().map(String::as_str));
        out.extend(card.not_enough_for.iter().map(String::as_str));
    }
    for r in &s.relationships {
        out.extend(r.kind.as_deref());
        out.extend(r.target_title.as_deref());
        out.extend(r.note.as_deref());
    }
    out
}

/// Identity fields used by find-person: canonical id, aliases, card canonical id, handles,
/// e-mails and socials.
pub fn identity_fields(s: &PageSummary) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    out.extend(s.canonical_id.as_deref());
    out.extend(s.aliases.iter().map(String::as_str));
    if let Some(card) = &s.person_card {
        out.extend(card.canonical_id.as_deref());
        out.extend(card.handles.iter().map(String::as_str));
        out.extend(card.emails.iter().map(String::as_str));
        out.extend(card.socials.iter().map(String::as_str));
    }
    out
}

/// Build the index document of a parsed page.
pub fn page_doc(page: &Page, blob: [u8; 20]) -> IndexDoc {
    let s = &page.summary;
    let (text, body_start) = searchable_text(page);
    let mut tc = TermCounter::default();
    tc.add(Field::Title, &page.title);
    tc.add_opt(Field::Ids, &s.id);
    tc.add_opt(Field::Ids, &s.canonical_id);
    tc.add_all(Field::Ids, &s.aliases);
    if let Some(card) = &s.person_card {
        tc.add_opt(Field::Ids, &card.canonical_id);
        tc.add_all(Field::Ids, &card.handles);
        tc.add_all(Field::Ids, &card.emails);
        tc.add_all(Field::Ids, &card.socials);
        tc.add_opt(Field::Meta, &card.timezone);
        tc.add_opt(Field::Meta, &card.privacy_tier);
    }
    tc.add(Field::Path, &page.path);
    for c in &s.claims {
        tc.add(Field::Claims, &c.text);
        tc.add_opt(Field::Claims, &c.id);
        for e in &c.evidence {
            tc.add_opt(Field::Meta, &e.kind);
            tc.add_opt(Field::Meta, &e.source_id);
            tc.add_opt(Field::Meta, &e.path);
            tc.add_opt(Field::Meta, &e.note);
        }
    }
    for r in route_fields(s) {
        tc.add(Field::Route, r);
    }
    for r in &s.relationships {
        tc.add_opt(Field::Meta, &r.target_id);
        tc.add_opt(Field::Meta, &r.target_path);
        tc.add_opt(Field::Meta, &r.evidence_kind);
    }
    tc.add_opt(Field::Meta, &s.page_type);
    tc.add_opt(Field::Meta, &s.entity_type);
    tc.add_opt(Field::Meta, &s.privacy_tier);
    tc.add_opt(Field::Meta, &s.source_type);
    tc.add_opt(Field::Meta, &s.source_path);
    tc.add_all(Field::Meta, &s.source_ids);
    tc.add_all(Field::Meta, &s.questions);
    tc.add_all(Field::Meta, &s.contradictions);
    let stored = StoredPage {
        path: page.path.clone(),
        title: page.title.clone(),
        kind: page.kind,
        summary: s.clone(),
        text,
        body_start,
        folded: FoldedPage::default(),
    };
    for line in stored.body().lines() {
        if !markers::is_marker_line(line) {
            tc.add(Field::Body, line);
        }
    }
    let (terms, lens) = tc.finish();
    let mut flags = 0;
    if s.is_person_like() {
        flags |= FLAG_PERSON;
    }
    if !s.claims.is_empty() {
        flags |= FLAG_CLAIMS;
    }
    IndexDoc {
        path: page.path.clone(),
        blob,
        id: s.id.clone(),
        kind: kind_byte(page.kind),
        flags,
        lens,
        terms,
        stored: serde_json::to_vec(&StoredDoc::Page(stored)).unwrap_or_default(),
    }
}
