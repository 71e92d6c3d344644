//! Wiki ranking: BM25F retrieval, then structural signals (see the crate docs for the formula).

use std::collections::HashMap;

use serde::Serialize;
use wiki_parse::health::locale_cmp;
use wiki_parse::time;
use wiki_parse::{Claim, PageKind};

use crate::doc::{
    self, FIELDS, FLAG_CLAIMS, FLAG_PERSON, KIND_REPORT, KIND_SOURCE, StoredDoc, StoredPage,
};
use crate::reference::{self, RefQuery};
use crate::store::Index;
use crate::tokenize::{self, QueryTerm, TermKind};

/// Search modes (reference §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Mode {
    /// No mode boost.
    #[default]
    Auto,
    /// Favour person-like pages and identity matches.
    FindPerson,
    /// Favour who-to-ask routing: person pages, routing fields, relationships.
    RouteQuestion,
    /// Favour source pages and evidence matches.
    SourceEvidence,
    /// Favour pages whose claims match.
    RawClaim,
}

impl Mode {
    /// The name written in results (`searchMode`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::FindPerson => "find-person",
            Mode::RouteQuestion => "route-question",
            Mode::SourceEvidence => "source-evidence",
            Mode::RawClaim => "raw-claim",
        }
    }
}

/// Ranking functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Ranking {
    /// BM25F over the index, then structural signals (the default).
    #[default]
    Bm25f,
    /// The original plugin's integer scoring (§7.4), scanning every stored page: a baseline.
    Reference,
}

/// The claim that drove a result.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimMatch {
    /// Claim id.
    pub id: Option<String>,
    /// Claim text.
    pub text: String,
    /// Status as written.
    pub status: Option<String>,
    /// Confidence.
    pub confidence: Option<f64>,
    /// Unique evidence kinds.
    pub evidence_kinds: Vec<String>,
    /// Unique evidence source ids.
    pub evidence_source_ids: Vec<String>,
}

impl ClaimMatch {
    /// Summarise a claim.
    pub fn of(c: &Claim) -> ClaimMatch {
        let mut kinds: Vec<String> = Vec::new();
        let mut ids: Vec<String> = Vec::new();
        for e in &c.evidence {
            if let Some(k) = &e.kind
                && !kinds.contains(k)
            {
                kinds.push(k.clone());
            }
            if let Some(s) = &e.source_id
                && !ids.contains(s)
            {
                ids.push(s.clone());
            }
        }
        ClaimMatch {
            id: c.id.clone(),
            text: c.text.clone(),
            status: c.status.clone(),
            confidence: c.confidence,
            evidence_kinds: kinds,
            evidence_source_ids: ids,
        }
    }
}

/// The page metadata shared by search hits and `get` results (§7.7, §8): id and provenance.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    /// Page id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Source type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_type: Option<String>,
    /// Provenance mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance_mode: Option<String>,
    /// Source path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// Provenance label (bridge / unsafe-local pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance_label: Option<String>,
    /// Page `updatedAt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Entity type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<String>,
    /// Canonical id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_id: Option<String>,
    /// Aliases (only when non-empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Privacy tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub privacy_tier: Option<String>,
}

impl PageMeta {
    /// The metadata of a stored page.
    pub fn of(p: &StoredPage) -> PageMeta {
        let s = &p.summary;
        PageMeta {
            id: s.id.clone(),
            source_type: s.source_type.clone(),
            provenance_mode: s.provenance_mode.clone(),
            source_path: s.source_path.clone(),
            provenance_label: provenance_label(p),
            updated_at: s.updated_at.clone(),
            entity_type: s.entity_type.clone(),
            canonical_id: s.canonical_id.clone(),
            aliases: s.aliases.clone(),
            privacy_tier: s.privacy_tier.clone(),
        }
    }
}

/// A search result (reference §7.7; memory results add `startLine`, `endLine`,
/// `memorySource`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// `wiki` or `memory`.
    pub corpus: &'static str,
    /// Vault- or workspace-relative path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Page kind, or `memory`.
    pub kind: String,
    /// Score (integers in reference ranking).
    #[serde(serialize_with = "ser_score")]
    pub score: f64,
    /// Snippet.
    pub snippet: String,
    /// Memory: first line of the chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<usize>,
    /// Memory: last line of the chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// Memory: source (`memory`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_source: Option<String>,
    /// The mode searched with.
    pub search_mode: &'static str,
    /// Memory: where the hit is, `<path>#L<start>-L<end>` (`#L<start>` for one line), as
    /// OpenClaw's memory search cites results (reference §7.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
    /// Page provenance metadata (§7.7; absent for memory hits).
    #[serde(flatten)]
    pub meta: PageMeta,
    /// Id of the matched claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_claim_id: Option<String>,
    /// Status of the matched claim, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_claim_status: Option<String>,
    /// Confidence of the matched claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_claim_confidence: Option<f64>,
    /// Evidence kinds of the matched claim (present when a claim matched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_kinds: Option<Vec<String>>,
    /// Evidence source ids of the matched claim (present when a claim matched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_source_ids: Option<Vec<String>>,
}

fn ser_score<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64((*v * 10_000.0).round() / 10_000.0)
    }
}

/// `provenanceLabel` of a page (§7.7).
pub fn provenance_label(p: &StoredPage) -> Option<String> {
    let s = &p.summary;
    match s.source_type.as_deref() {
        Some("memory-bridge-events") => {
            return Some(format!(
                "bridge events: {}",
                s.bridge_relative_path.as_deref().unwrap_or(&p.path)
            ));
        }
        Some("memory-bridge") => {
            return Some(format!(
                "bridge: {}",
                s.bridge_relative_path.as_deref().unwrap_or(&p.path)
            ));
        }
        _ => {}
    }
    let unsafe_local = s.provenance_mode.as_deref() == Some("unsafe-local")
        || s.source_type.as_deref() == Some("memory-unsafe-local");
    unsafe_local.then(|| {
        format!(
            "unsafe-local: {}",
            s.unsafe_local_relative_path.as_deref().unwrap_or(&p.path)
        )
    })
}

/// Build a wiki hit.
pub fn page_hit(
    p: &StoredPage,
    score: f64,
    snippet: String,
    claim: Option<ClaimMatch>,
    mode: Mode,
) -> Hit {
    Hit {
        corpus: "wiki",
        path: p.path.clone(),
        title: p.title.clone(),
        kind: p.kind.as_str().to_string(),
        score,
        snippet,
        start_line: None,
        end_line: None,
        memory_source: None,
        search_mode: mode.as_str(),
        citation: None,
        meta: PageMeta::of(p),
        matched_claim_id: claim.as_ref().and_then(|c| c.id.clone()),
        matched_claim_status: claim.as_ref().and_then(|c| c.status.clone()),
        matched_claim_confidence: claim.as_ref().and_then(|c| c.confidence),
        evidence_kinds: claim.as_ref().map(|c| c.evidence_kinds.clone()),
        evidence_source_ids: claim.as_ref().map(|c| c.evidence_source_ids.clone()),
    }
}

/// BM25F field weights: title, ids, path, claims, route, meta, body.
pub const WEIGHTS: [f64; FIELDS] = [3.0, 3.0, 1.0, 2.0, 1.5, 1.0, 1.0];
/// Field weights in `find-person` mode (identity and routing fields count more).
pub const WEIGHTS_PERSON: [f64; FIELDS] = [3.0, 5.0, 1.0, 1.0, 4.0, 1.0, 0.5];
/// Field weights in `route-question` mode (routing fields count most).
pub const WEIGHTS_ROUTE: [f64; FIELDS] = [2.0, 2.0, 0.5, 1.5, 5.0, 1.0, 0.75];

/// The field weights of a mode.
pub fn weights(mode: Mode) -> &'static [f64; FIELDS] {
    match mode {
        Mode::FindPerson => &WEIGHTS_PERSON,
        Mode::RouteQuestion => &WEIGHTS_ROUTE,
        _ => &WEIGHTS,
    }
}
/// BM25F length normalisation per field.
pub const B: [f64; FIELDS] = [0.5, 0.5, 0.5, 0.6, 0.5, 0.6, 0.75];
/// BM25 saturation of wiki pages.
pub const K1: f64 = 2.0;
/// BM25 saturation of memory chunks.
pub const MEMORY_K1: f64 = 1.2;
/// The idf of a word's exact form ([`TermKind::Exact`]) is multiplied by this: a page using the
/// word as written ranks above one that only shares its stem.
pub const EXACT_FACTOR: f64 = 0.5;
/// Points for a page whose title or file stem is one of the query's words (or a run of them).
pub const NAME_POINTS: f64 = 15.0;
/// Points for a body containing a multi-term query as a phrase.
pub const PHRASE_BODY: f64 = 30.0;
/// Report pages are multiplied by this factor.
pub const REPORT_FACTOR: f64 = 0.5;

/// The query as seen by the ranker.
#[derive(Debug, Clone)]
pub struct Query {
    /// The raw query text.
    pub text: String,
    /// Mode.
    pub mode: Mode,
    /// Maximum results.
    pub max_results: usize,
    /// Ranking function.
    pub ranking: Ranking,
}

/// The coverage units (a bit per unit) of folded words, kept by [`Prepared::best_window`]
/// across the chunks of one query (foldhash: one lookup per word of every chunk ranked).
pub type WordUnits = foldhash::HashMap<String, u64>;

/// Prepared query terms.
pub struct Prepared {
    /// Distinct terms (at most 64).
    pub terms: Vec<QueryTerm>,
    /// Indices of the coverage units (words and CJK terms that are not stop words; all words and
    /// CJK terms when every one is a stop word).
    pub units: Vec<usize>,
    /// Folded, whitespace-collapsed query (phrase checks).
    pub phrase: String,
    /// The units as a term mask (bit `i` for `terms[i]`).
    pub unit_mask: u64,
    /// Per unit, a string every text holding the unit contains once folded (the term, or a
    /// stem without its last letter: Snowball may rewrite it, `happy` → `happi`).
    probes: Vec<String>,
    /// The folded query's words (letters and digits), in order, for name matches.
    pub words: Vec<String>,
}

impl Prepared {
    /// Prepare a query text.
    pub fn new(text: &str) -> Prepared {
        let mut terms = tokenize::query_terms(text);
        terms.truncate(64);
        let mut units: Vec<usize> = terms
            .iter()
            .enumerate()
            .filter(|(_, t)| is_unit_kind(t.kind) && !t.stop)
            .map(|(i, _)| i)
            .collect();
        if units.is_empty() {
            units = terms
                .iter()
                .enumerate()
                .filter(|(_, t)| is_unit_kind(t.kind))
                .map(|(i, _)| i)
                .collect();
        }
        if units.is_empty() {
            units = (0..terms.len()).collect();
        }
        let phrase = tokenize::fold(text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let unit_mask = units.iter().fold(0u64, |m, &i| m | (1 << i));
        let probes = units
            .iter()
            .map(|&i| {
                let t = &terms[i];
                let mut p = t.term.clone();
                if t.kind == TermKind::Word && p.len() >= 3 && p.is_ascii() {
                    p.pop();
                }
                p
            })
            .collect();
        let words = tokenize::fold(text)
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        Prepared {
            terms,
            units,
            phrase,
            unit_mask,
            probes,
            words,
        }
    }

    /// Whether a name (a title or a file stem), folded, is one of the query's words or a run of
    /// them.
    pub fn names(&self, folded_name: &str) -> bool {
        let name: Vec<&str> = folded_name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        !name.is_empty()
            && self.words.len() >= name.len()
            && self
                .words
                .windows(name.len())
                .any(|w| w.iter().zip(&name).all(|(a, b)| a == b))
    }

    /// The coverage units among the terms of the text whose folded form
    /// (`tokenize::fold(text)`) is `folded`: bit `k` is set when unit `k` (the term
    /// `terms[units[k]]`) is one of them. Same answer as looking each unit up in
    /// [`tokenize::term_set`], without building the set. Every term of a text is a substring of
    /// its folded form (parts, their stems — prefixes —, chunks and CJK characters all are), so
    /// a text whose folded form contains no unit is not tokenised at all.
    pub(crate) fn units_in_folded(&self, folded: &str) -> u64 {
        if self.unit_substrings(folded) == 0 {
            return 0;
        }
        let n = self.units.len().min(64);
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut mask = 0u64;
        tokenize::for_each_folded_term(folded, true, |t, _, _| {
            if mask == all {
                return;
            }
            for (k, &i) in self.units.iter().enumerate().take(64) {
                if self.terms[i].term == t {
                    mask |= 1 << k;
                }
            }
        });
        mask
    }

    /// The coverage units that occur as substrings of a folded text: a superset of
    /// [`Self::units_in_folded`].
    fn unit_substrings(&self, folded: &str) -> u64 {
        let mut mask = 0u64;
        for (k, p) in self.probes.iter().enumerate().take(64) {
            if folded.contains(p.as_str()) {
                mask |= 1 << k;
            }
        }
        mask
    }

    /// Proximity: the idf-weighted share of the coverage units (`idfs` per term) that the best
    /// run of `lines` consecutive non-empty lines of `text` holds (1 when no unit has weight).
    /// In a conversation log the answer is one turn or two: a chunk whose matching words sit in
    /// one place says more than one where they are scattered over unrelated turns.
    ///
    /// Terms never span whitespace, so a line's units are those of its whitespace-separated
    /// words; `memo` keeps each folded word's units across the texts of one query (a chat
    /// repeats its words: each is tokenised and stemmed once).
    pub fn window_coverage(
        &self,
        text: &str,
        idfs: &[f64],
        lines: usize,
        memo: &mut WordUnits,
    ) -> f64 {
        self.best_window(text, idfs, lines, memo).0
    }

    /// [`Self::window_coverage`] and the best window itself: the lines of `text` from the
    /// first of its non-empty lines holding a unit to its last (the first best window; the whole
    /// text when no unit has weight or none occurs). `memo` keeps the units of each folded word
    /// across the calls of one query.
    pub fn best_window<'t>(
        &self,
        text: &'t str,
        idfs: &[f64],
        lines: usize,
        memo: &mut WordUnits,
    ) -> (f64, &'t str) {
        let masks = self.line_masks(text, memo);
        let weights = vec![1.0; masks.len()];
        let (cov, span) = self.best_weighted_window(&masks, &weights, idfs, lines);
        let window = span
            .and_then(|(first, last)| line_span(text, first, last))
            .unwrap_or(text);
        (cov, window)
    }

    /// The non-empty lines of `text` as `(line index, coverage units held)` (units as a mask
    /// over [`Self::units`]; the index as `str::lines` counts). `memo` keeps each folded word's
    /// units (see [`Self::window_coverage`]).
    pub fn line_masks(&self, text: &str, memo: &mut WordUnits) -> Vec<(usize, u64)> {
        // Folding keeps line breaks: the i-th line of the folded text is the i-th of `text`.
        self.folded_line_masks(&tokenize::fold(text), memo)
    }

    /// [`Self::line_masks`] of a text given its folded form (`tokenize::fold(text)`).
    pub fn folded_line_masks(&self, folded: &str, memo: &mut WordUnits) -> Vec<(usize, u64)> {
        folded
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                // A line holding no unit as a substring holds none as a term.
                if self.unit_substrings(l) == 0 {
                    return (i, 0);
                }
                let mask = l.split_whitespace().fold(0u64, |m, w| {
                    m | match memo.get(w) {
                        Some(&u) => u,
                        None => {
                            let u = self.units_in_folded(w);
                            memo.insert(w.to_string(), u);
                            u
                        }
                    }
                });
                (i, mask)
            })
            .collect()
    }

    /// The idf-weighted share of the coverage units (`idfs` per term) held by the best run of
    /// `lines` consecutive entries of `masks` (from [`Self::line_masks`]), each line's units
    /// counting its weight (`weights`, one per entry, in 0–1; a unit held by several lines of a
    /// run counts the highest), and that run as `(first line index, last line index)` without
    /// its leading lines that hold no unit (the first best run; `None` when no unit has weight
    /// or none occurs). The share is 1 when no unit has weight.
    pub fn best_weighted_window(
        &self,
        masks: &[(usize, u64)],
        weights: &[f64],
        idfs: &[f64],
        lines: usize,
    ) -> (f64, Option<(usize, usize)>) {
        let idf_of = |k: usize| -> f64 {
            self.units
                .get(k)
                .and_then(|&i| idfs.get(i))
                .copied()
                .unwrap_or(0.0)
        };
        let n = self.units.len().min(64);
        let total: f64 = (0..n).map(idf_of).sum();
        if total <= 0.0 {
            return (1.0, None);
        }
        let w = lines.max(1);
        let mut best_weight = 0.0f64;
        let mut best_start = None;
        let mut held = vec![0.0f64; n];
        for start in 0..masks.len() {
            let run = start..(start + w).min(masks.len());
            if masks[run.clone()].iter().all(|m| m.1 == 0) {
                continue;
            }
            held.iter_mut().for_each(|h| *h = 0.0);
            for j in run {
                let (m, lw) = (masks[j].1, weights.get(j).copied().unwrap_or(1.0));
                for (k, h) in held.iter_mut().enumerate() {
                    if m & (1 << k) != 0 && lw > *h {
                        *h = lw;
                    }
                }
            }
            let mw: f64 = held.iter().enumerate().map(|(k, h)| idf_of(k) * h).sum();
            if mw > best_weight {
                best_weight = mw;
                best_start = Some(start);
            }
        }
        let span = best_start.map(|s| {
            let end = (s + w).min(masks.len());
            // Without the leading lines that hold no unit.
            let s = (s..end).find(|&i| masks[i].1 != 0).unwrap_or(s);
            (masks[s].0, masks[end - 1].0)
        });
        (best_weight / total, span)
    }

    /// Fraction of coverage units among the terms of `text` (`coverage(&term_set(text))`).
    pub fn coverage_of(&self, text: &str) -> f64 {
        self.coverage_of_folded(&tokenize::fold(text))
    }

    /// [`Self::coverage_of`] given `folded = tokenize::fold(text)`.
    pub fn coverage_of_folded(&self, folded: &str) -> f64 {
        if self.units.is_empty() {
            return 0.0;
        }
        f64::from(self.units_in_folded(folded).count_ones()) / self.units.len() as f64
    }

    /// Fraction of coverage units found in a term set.
    pub fn coverage(&self, set: &std::collections::BTreeSet<String>) -> f64 {
        if self.units.is_empty() {
            return 0.0;
        }
        let hit = self
            .units
            .iter()
            .filter(|&&i| set.contains(&self.terms[i].term))
            .count();
        hit as f64 / self.units.len() as f64
    }
}

/// Lines `first..=last` (0-based, as `str::lines` counts them) of `text`, as one slice.
pub(crate) fn line_span(text: &str, first: usize, last: usize) -> Option<&str> {
    let mut start = None;
    let mut offset = 0usize;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == first {
            start = Some(offset);
        }
        if i == last {
            let end = offset + line.trim_end_matches(['\n', '\r']).len();
            return text.get(start?..end);
        }
        offset += line.len();
    }
    None
}

fn is_unit_kind(kind: TermKind) -> bool {
    matches!(kind, TermKind::Word | TermKind::Cjk)
}

/// A scored document: `((segment, doc), (score, matched-term mask))`.
type Scored = ((usize, u32), (f64, u64));

/// BM25 score and matched-term mask per `(segment, doc)`.
pub type DocScores = HashMap<(usize, u32), (f64, u64)>;

/// Per-document accumulator.
#[derive(Clone, Copy, Default)]
struct Acc {
    bm25: f64,
    mask: u64,
}

/// Search the wiki index.
pub fn search(index: &Index, q: &Query, now_ms: i64) -> Result<Vec<Hit>, crate::Error> {
    match q.ranking {
        Ranking::Reference => search_reference(index, q, now_ms),
        Ranking::Bm25f => search_bm25f(index, q, now_ms),
    }
}

fn search_reference(index: &Index, q: &Query, now_ms: i64) -> Result<Vec<Hit>, crate::Error> {
    let rq = RefQuery::new(&q.text);
    if rq.q.is_empty() {
        return Ok(Vec::new());
    }
    let mut hits = Vec::new();
    for rp in index.reference_pages()? {
        let r = reference::score(rp, &rq, q.mode, now_ms);
        if r.score > 0 {
            hits.push(page_hit(
                &rp.page,
                r.score as f64,
                r.snippet,
                r.claim,
                q.mode,
            ));
        }
    }
    sort_hits(&mut hits);
    hits.truncate(q.max_results);
    Ok(hits)
}

/// Sort by score (descending), then title, then path.
pub fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| locale_cmp(&a.title, &b.title))
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// BM25F scores of every live document matching at least one query term:
/// `((segment, doc), (score, matched-term mask))` in document order, plus the idf of each term.
fn bm25f(
    index: &Index,
    prep: &Prepared,
    weights: &[f64; FIELDS],
    k1: f64,
) -> Result<(Vec<Scored>, Vec<f64>), crate::Error> {
    let avg = index.avg_lens();
    let n = index.manifest.live_docs as f64;
    // One accumulator per document of each segment (a document is scored when its mask is set).
    let mut acc: Vec<Vec<Acc>> = index
        .segments
        .iter()
        .map(|s| vec![Acc::default(); s.ndocs as usize])
        .collect();
    let mut idfs = vec![0.0; prep.terms.len()];
    let has_content = prep.terms.iter().any(|t| !t.stop);
    for (ti, t) in prep.terms.iter().enumerate() {
        if t.stop && has_content {
            // Stop words only count when the query has nothing else.
            continue;
        }
        let postings = index.postings(&t.term)?;
        if postings.is_empty() {
            continue;
        }
        let df = postings.len() as f64;
        let mut idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        if t.kind == TermKind::Exact {
            idf *= EXACT_FACTOR;
        }
        idfs[ti] = idf;
        // The weighted, length-normalised frequency of the term in each posting's document.
        let weigh = |&(s, (d, tfs)): &(usize, crate::segment::Posting)| -> f64 {
            let Some(seg) = index.segments.get(s) else {
                return 0.0;
            };
            let lens = seg.lens(d);
            let mut tfw = 0.0;
            for f in 0..FIELDS {
                if tfs[f] > 0 && weights[f] > 0.0 {
                    let norm = 1.0 - B[f] + B[f] * f64::from(lens[f]) / avg[f];
                    tfw += weights[f] * f64::from(tfs[f]) / norm;
                }
            }
            tfw
        };
        let mut add = |s: usize, d: u32, tfw: f64| {
            if tfw <= 0.0 {
                return;
            }
            if let Some(a) = acc.get_mut(s).and_then(|v| v.get_mut(d as usize)) {
                a.bm25 += idf * tfw / (k1 + tfw);
                a.mask |= 1 << ti;
            }
        };
        // A search server keeps them per term and weights; a single search computes them here.
        match index.term_weights(&t.term, weights, || postings.iter().map(weigh).collect()) {
            Some(w) => {
                for (&(s, (d, _)), &tfw) in postings.iter().zip(w.iter()) {
                    add(s, d, tfw);
                }
            }
            None => {
                for p in postings.iter() {
                    add(p.0, p.1.0, weigh(p));
                }
            }
        }
    }
    let mut scored = Vec::new();
    for (s, docs) in acc.iter().enumerate() {
        for (d, a) in docs.iter().enumerate() {
            if a.mask != 0 {
                scored.push(((s, d as u32), (a.bm25, a.mask)));
            }
        }
    }
    Ok((scored, idfs))
}

/// BM25 scores over the body field only (memory chunks; k1 [`MEMORY_K1`]), and the idf of
/// each query term (0 for a term no chunk holds).
pub fn bm25_body(index: &Index, prep: &Prepared) -> Result<(DocScores, Vec<f64>), crate::Error> {
    let mut w = [0.0; FIELDS];
    w[doc::Field::Body as usize] = 1.0;
    let (scored, idfs) = bm25f(index, prep, &w, MEMORY_K1)?;
    Ok((scored.into_iter().collect(), idfs))
}

/// Whether `mask` matches at least one coverage unit (a document matching only whole
/// identifiers, exact forms or ignored stop words is not a hit).
pub fn passes_gate(prep: &Prepared, mask: u64) -> bool {
    mask & prep.unit_mask != 0
}

fn search_bm25f(index: &Index, q: &Query, now_ms: i64) -> Result<Vec<Hit>, crate::Error> {
    let prep = Prepared::new(&q.text);
    if prep.terms.is_empty() {
        return Ok(Vec::new());
    }
    let (scores, idfs) = bm25f(index, &prep, weights(q.mode), K1)?;
    let unit_idf: f64 = prep.units.iter().map(|&i| idfs[i]).sum();
    // Gate and relevance.
    // key, relevance, relevance × prior (the candidate order)
    let mut cands: Vec<((usize, u32), f64, f64)> = Vec::new();
    for &((s, d), (bm25, mask)) in &scores {
        if !passes_gate(&prep, mask) {
            continue;
        }
        let covered: f64 = prep
            .units
            .iter()
            .filter(|&&i| mask & (1 << i) != 0)
            .map(|&i| idfs[i])
            .sum();
        let cov = if unit_idf > 0.0 {
            covered / unit_idf
        } else {
            1.0
        };
        let rel = bm25 * (0.5 + 0.5 * cov);
        let seg = &index.segments[s];
        let (kind, flags) = (seg.kind(d), seg.flags(d));
        let mut prior = 1.0;
        match q.mode {
            Mode::FindPerson | Mode::RouteQuestion if flags & FLAG_PERSON != 0 => prior = 1.5,
            Mode::SourceEvidence if kind == KIND_SOURCE => prior = 1.5,
            Mode::RawClaim if flags & FLAG_CLAIMS != 0 => prior = 1.5,
            _ => {}
        }
        if kind == KIND_REPORT {
            prior *= REPORT_FACTOR;
        }
        cands.push(((s, d), rel, rel * prior));
    }
    if cands.is_empty() {
        return Ok(Vec::new());
    }
    let rel_max = cands.iter().map(|c| c.1).fold(f64::MIN, f64::max).max(1e-9);
    let pool = (q.max_results * 5).max(50);
    // Best first; the keys are distinct, so this order is total and selecting the best `pool`
    // before sorting them gives what sorting everything and truncating gives.
    let order = |a: &((usize, u32), f64, f64), b: &((usize, u32), f64, f64)| {
        b.2.partial_cmp(&a.2)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.0.cmp(&b.0))
    };
    if cands.len() > pool {
        cands.select_nth_unstable_by(pool - 1, order);
        cands.truncate(pool);
    }
    cands.sort_by(order);
    fn page(d: &StoredDoc) -> Option<&StoredPage> {
        match d {
            StoredDoc::Page(p) => Some(p),
            _ => None,
        }
    }
    // Score every candidate of the pool; build hits (snippet, metadata) for the best
    // `max_results` only: the snippet does not change a score.
    let mut scored = Vec::with_capacity(cands.len());
    for ((s, d), rel, _) in cands {
        let doc = index.stored_shared(s, d)?;
        let StoredDoc::Page(p) = &*doc else {
            continue;
        };
        let r = 100.0 * rel / rel_max;
        let (points, claim) = signals(p, &prep, q.mode, now_ms);
        let mut score = r + points;
        if p.kind == PageKind::Report {
            score *= REPORT_FACTOR;
        }
        let score = (score * 100.0).round() / 100.0;
        scored.push((score, claim, doc));
    }
    // The order of `sort_hits`.
    scored.sort_by(|a, b| {
        let (pa, pb) = (page(&a.2), page(&b.2));
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| locale_cmp(pa.map_or("", |p| &p.title), pb.map_or("", |p| &p.title)))
            .then_with(|| pa.map(|p| &p.path).cmp(&pb.map(|p| &p.path)))
    });
    scored.truncate(q.max_results);
    let mut hits = Vec::with_capacity(scored.len());
    for (score, claim, doc) in scored {
        let Some(p) = page(&doc) else {
            continue;
        };
        let claim = claim.and_then(|i| p.summary.claims.get(i));
        let snippet = match claim {
            Some(c) => c.text.trim().to_string(),
            None => body_snippet(p, &prep),
        };
        hits.push(page_hit(
            p,
            score,
            truncate_chars(&snippet, 700),
            claim.map(ClaimMatch::of),
            q.mode,
        ));
    }
    sort_hits(&mut hits);
    Ok(hits)
}

fn contains_phrase(text: &str, phrase: &str) -> bool {
    !phrase.is_empty() && tokenize::fold(text).contains(phrase)
}

/// Compute the structural signals of a candidate page (see the crate docs): the points added to
/// its relevance and the index of its best matching claim (which drives the snippet).
pub fn signals(p: &StoredPage, prep: &Prepared, mode: Mode, now_ms: i64) -> (f64, Option<usize>) {
    let s = &p.summary;
    let phrase = prep.phrase.as_str();
    let mut points = 0.0;
    // A name of the page (title, file stem) among the query's words.
    let stem = wiki_parse::page::file_stem(&p.path);
    if prep.names(p.folded_title()) || prep.names(&tokenize::fold(stem)) {
        points += NAME_POINTS;
    }
    // Phrase signals.
    if !phrase.is_empty() {
        let title = p.folded_title();
        if title == phrase {
            points += 30.0;
        } else if title.contains(phrase) {
            points += 15.0;
        }
        let ids = p.folded_ids();
        if ids.iter().any(|x| x == phrase) {
            points += 20.0;
        } else if ids.iter().any(|x| x.contains(phrase)) {
            points += 10.0;
        }
    }
    if !phrase.is_empty() && prep.terms.len() > 1 {
        let body = p.folded_body();
        // Non-overlapping occurrences, as `str::matches` counts them.
        let n = memchr::memmem::find_iter(body.as_bytes(), phrase.as_bytes()).count();
        if n > 0 {
            points += PHRASE_BODY + (n as f64 - 1.0).min(5.0);
        } else {
            // The phrase in a routing field, a question or a contradiction note counts the same.
            let mut meta = doc::route_fields(s);
            meta.extend(s.questions.iter().map(String::as_str));
            meta.extend(s.contradictions.iter().map(String::as_str));
            if meta.iter().any(|m| contains_phrase(m, phrase)) {
                points += PHRASE_BODY;
            }
        }
    }
    // Claims.
    let mut matches: Vec<(f64, f64, usize)> = Vec::new(); // score, coverage, index
    for (i, (c, f)) in s.claims.iter().zip(p.folded_claims()).enumerate() {
        let phrase_hit = !phrase.is_empty() && f.text.contains(phrase);
        // The claim's text and id, folded.
        let folded = f.with_id.as_str();
        // A unit that is not a substring of the folded text is not one of its terms: when too
        // few are, the coverage is below one half without tokenising the text.
        let possible = prep.unit_substrings(folded).count_ones() as usize;
        if !phrase_hit && (prep.units.is_empty() || possible * 2 < prep.units.len()) {
            continue;
        }
        let cov = prep.coverage_of_folded(folded);
        if cov < 0.5 && !phrase_hit {
            continue;
        }
        let cov = if phrase_hit { 1.0 } else { cov };
        let fr = time::claim_freshness(c, s.updated_at.as_deref(), now_ms);
        let mut cs = 20.0 * cov;
        if let Some(conf) = c.confidence {
            cs += (conf * 10.0).round();
        }
        cs += reference::freshness_points(fr.level) as f64;
        cs += if c.is_contested() { -6.0 } else { 4.0 };
        matches.push((cs, cov, i));
    }
    matches.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let best = matches.first().copied();
    if let Some((cs, _, _)) = best {
        points += cs + (2.0 * (matches.len() as f64 - 1.0)).min(6.0);
    }
    // Mode boosts.
    let all_units = |texts: &[&str]| -> f64 {
        let joined = texts.join("\n");
        prep.coverage_of(&joined)
    };
    let any_phrase = |texts: &[&str]| texts.iter().any(|t| contains_phrase(t, phrase));
    points += match mode {
        Mode::Auto => 0.0,
        Mode::FindPerson => {
            let mut b = if s.is_person_like() { 24.0 } else { -4.0 };
            let ids = doc::identity_fields(s);
            if any_phrase(&ids) || all_units(&ids) >= 1.0 {
                b += 24.0;
            }
            b
        }
        Mode::RouteQuestion => {
            let mut b = if s.is_person_like() { 14.0 } else { 0.0 };
            let route = doc::route_fields(s);
            let rc = if any_phrase(&route) {
                1.0
            } else {
                all_units(&route)
            };
            b += 32.0 * rc;
            b + (2.0 * s.relationships.len() as f64).min(8.0)
        }
        Mode::SourceEvidence => {
            let mut b = if p.kind == PageKind::Source {
                22.0
            } else {
                0.0
            };
            let mut ev: Vec<&str> = Vec::new();
            ev.extend(s.source_path.as_deref());
            ev.extend(s.source_ids.iter().map(String::as_str));
            for e in s.claims.iter().flat_map(|c| &c.evidence) {
                for f in [&e.kind, &e.source_id, &e.path, &e.lines, &e.note] {
                    ev.extend(f.as_deref());
                }
            }
            if any_phrase(&ev) || (!ev.is_empty() && all_units(&ev) >= 1.0) {
                b += 30.0;
            }
            b
        }
        Mode::RawClaim => best.map_or(0.0, |(_, cov, _)| 42.0 * cov),
    };
    (points, best.map(|(_, _, i)| i))
}

/// The first body line containing the phrase or all coverage units; else the line with the most
/// units; else the first line with text.
///
/// When the body is ASCII, folding is per byte, so a line's folded form is the same span of the
/// folded body (no folding per line).
fn body_snippet(p: &StoredPage, prep: &Prepared) -> String {
    let body = p.body();
    let folded_body = body
        .is_ascii()
        .then(|| p.folded_body())
        .filter(|f| f.len() == body.len());
    let lines: Vec<&str> = p.body_lines().collect();
    let mut best: Option<(usize, &str)> = None;
    for l in &lines {
        let span = folded_body.and_then(|fb| {
            let start = (l.as_ptr() as usize).checked_sub(body.as_ptr() as usize)?;
            fb.get(start..start.checked_add(l.len())?)
        });
        let owned;
        let folded = match span {
            Some(f) => f,
            None => {
                owned = tokenize::fold(l);
                owned.as_str()
            }
        };
        if !prep.phrase.is_empty() && folded.contains(prep.phrase.as_str()) {
            return l.to_string();
        }
        // A line cannot have more units than it has as substrings: skip it when that cannot
        // beat the best line so far (ties keep the earlier line).
        let possible = prep.unit_substrings(folded).count_ones() as usize;
        if possible == 0 || best.is_some_and(|(b, _)| possible <= b) {
            continue;
        }
        let hits = prep.units_in_folded(folded).count_ones() as usize;
        if hits == prep.units.len() && hits > 0 {
            return l.to_string();
        }
        if hits > 0 && best.is_none_or(|(b, _)| hits > b) {
            best = Some((hits, l));
        }
    }
    best.map(|(_, l)| l.to_string())
        .or_else(|| lines.first().map(|l| l.to_string()))
        .unwrap_or_default()
}

/// Truncate to at most `n` characters.
pub fn truncate_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}
