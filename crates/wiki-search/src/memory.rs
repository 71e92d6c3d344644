//! The memory corpus (reference §14.1–§14.6): an agent's `MEMORY.md`, `memory.md` and
//! `memory/**/*.md`, chunked and ranked the way OpenClaw's memory core ranks them without
//! embeddings.
//!
//! * **Chunks**: about [`CHUNK_TOKENS`] tokens with [`OVERLAP_TOKENS`] tokens of overlap, on line
//!   boundaries (a line longer than a chunk is a chunk of its own), each with its line range.
//!   Tokens are whitespace-separated words, and each CJK character counts as one.
//! * **Text score**: BM25 over chunk text in its usual form, `idf × tf × (k1 + 1) / (tf + k1 ×
//!   norm)` (k1 1.2, b 0.75: the scale of FTS5's `bm25()`, which the original maps and compares
//!   with `minScore`), times the proximity factor `1 − p + p × w` ([`PROXIMITY_SHARE`] p = 0.7),
//!   where w is the idf-weighted share of the query's words that the best
//!   [`PROXIMITY_LINES`] consecutive non-empty lines hold together (in a conversation log the
//!   answer is one turn or two; words scattered over unrelated turns say less). Mapped to 0–1 as
//!   FTS5 ranks are: `s / (1 + s)`. The pool scored this way is the `2 × max(4 × maxResults,
//!   24)` chunks of best BM25 that hold at least one word of the query.
//! * **Repetition**: in w, each line's words count its weight `min(1, 2 / r)`, where r is the
//!   number of distinct lines of the pool that hold the same query words and say the same
//!   sentence (the Jaccard index of their lowercase word sets, words with a digit left out, at
//!   least [`REPEAT_SIMILARITY`] = 0.5), itself included. A sentence said once or twice (a
//!   fact, its restatement) keeps its weight; one that a conversation repeats in many notes ("the
//!   standup keeps drifting into design discussions") is a recurring topic, and its repetitions
//!   share the weight of two lines, so the one turn that answers with the same word comes first.
//! * **Hybrid** (§14.2, only with an embedding provider configured, see [`crate::embed`]): the
//!   text score above becomes `(vw × vector + tw × text) / (vw + tw)` (`query.hybrid.vectorWeight`
//!   0.7, `textWeight` 0.3; `hybrid.enabled: false` leaves the vector score alone), where
//!   `vector` is the chunk's cosine similarity to the query; the `maxResults ×
//!   candidateMultiplier` (4) chunks most similar to the query join the keyword candidates.
//!   Recency, importance, path tiers, MMR and `minScore` then apply as below.
//! * **Recency** ([`Recency`]): the age of a dated note (`memory/…/YYYY-MM-DD(-slug).md`, midnight
//!   UTC; the clock is `--now`) moves its score by at most a fixed share: the multiplier is
//!   `1 − s + s × exp(−ln 2 / H × ageDays)` with H = [`HALF_LIFE_DAYS`] and s =
//!   [`RECENCY_SHARE`]. Notes that match about equally well come newest first (a restatement or a
//!   correction outranks what it replaces), while an old note that alone matches keeps at least
//!   `1 − s` of its score: it is still found and still passes `minScore` when it matches well.
//!   `MEMORY.md`, `memory.md` and undated files are evergreen (multiplier 1). The original's
//!   multiplier, `exp(−ln 2 / H × ageDays)` alone (§14.3), is chosen with
//!   `memorySearch.query.hybrid.temporalDecay.enabled: true` (H from `halfLifeDays`, default 30);
//!   `enabled: false` turns recency off.
//! * **Importance**: a chunk carrying `<!-- importance: N -->` is multiplied by
//!   `0.75 + 0.05 × clamp(floor(N), 1, 10)` (the highest annotation of the chunk counts).
//! * **Path matches** (§14.6): a query equal to a file's path (tier 3), base name (tier 2) or stem
//!   (tier 1) puts that file's best chunk above every other result, score 1.
//! * **Diversity**: MMR with λ = 0.7 over the best `4 × maxResults` candidates; relevance is the
//!   min–max normalised score, similarity the Jaccard index of the lowercase word sets of each
//!   candidate's best-matching lines (its proximity window; the whole chunk when it has none).
//!   Comparing the lines that matched, not whole chunks, is what demotes a sentence a conversation
//!   repeats in many notes ("our landlord still hasn't fixed the window") below the one note
//!   that says something new with the same words.
//! * **Minimum score** (§14.2): after MMR, results scoring below `minScore` ([`MIN_SCORE`] = 0.35
//!   unless configured: `--min-score`, else `agents.list[<agent>].memorySearch.query.minScore`,
//!   else `agents.defaults.memorySearch.query.minScore` of the OpenClaw config) are dropped. When
//!   none reaches it, the lexical hits are kept as they are (the memory core's "relaxed" keyword
//!   fallback: this engine is lexical only, so every hit is a keyword hit). Exact path matches
//!   score 1 and always pass.
//! * **Citation**: each hit carries `citation`, `<path>#L<start>-L<end>` (`<path>#L<start>` when
//!   the chunk is one line), the format of OpenClaw's memory search citations.
//!
//! The memory index is a second sidecar in the vault: `.openclaw-wiki/index/memory-<hash>/`,
//! where `<hash>` identifies the workspace's absolute path (see [`crate::store`]).

use std::collections::{HashMap, HashSet};

use crate::doc::{Field, IndexDoc, KIND_MEMORY, StoredChunk, StoredDoc, TermCounter};
use crate::rank::{self, Hit, Mode, Prepared};
use crate::store::Index;
use crate::tokenize;

/// Target chunk size in tokens.
pub const CHUNK_TOKENS: usize = 400;
/// Overlap between consecutive chunks in tokens.
pub const OVERLAP_TOKENS: usize = 80;
/// Half-life of the recency decay in days.
pub const HALF_LIFE_DAYS: f64 = 30.0;
/// Share of a dated note's score that recency moves (the default [`Recency::Blend`]).
pub const RECENCY_SHARE: f64 = 0.3;
/// Proximity window: lines (non-empty) that may hold the query's words together.
pub const PROXIMITY_LINES: usize = 2;
/// Share of a chunk's BM25 that depends on its best window's idf-weighted coverage of the query.
pub const PROXIMITY_SHARE: f64 = 0.7;
/// MMR trade-off.
pub const MMR_LAMBDA: f64 = 0.7;
/// Snippet length in characters.
pub const SNIPPET_CHARS: usize = 700;
/// Default minimum score of a memory hit (§14.1 `minScore`).
pub const MIN_SCORE: f64 = 0.35;

fn line_tokens(line: &str) -> usize {
    line.split_whitespace()
        .map(|w| {
            let cjk = w.chars().filter(|&c| tokenize::is_cjk(c)).count();
            if cjk > 0 { cjk.max(1) } else { 1 }
        })
        .sum()
}

/// Split a file into chunks: `(first line, last line)` (1-based, inclusive).
pub fn chunk_lines(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let tokens: Vec<usize> = lines.iter().map(|l| line_tokens(l)).collect();
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < lines.len() {
        let mut end = start;
        let mut total = 0usize;
        while end < lines.len() {
            total += tokens[end];
            end += 1;
            if total >= CHUNK_TOKENS {
                break;
            }
        }
        out.push((start + 1, end));
        if end >= lines.len() {
            break;
        }
        // Step back for the overlap, always moving forward.
        let mut next = end;
        let mut overlap = 0usize;
        while next > start + 1 && overlap < OVERLAP_TOKENS {
            next -= 1;
            overlap += tokens[next];
        }
        start = next.max(start + 1);
    }
    out
}

/// The highest `<!-- importance: N -->` of a text.
pub fn importance(text: &str) -> Option<u8> {
    let mut best: Option<u8> = None;
    let mut rest = text;
    while let Some(i) = rest.find("<!--") {
        rest = &rest[i + 4..];
        let Some(end) = rest.find("-->") else { break };
        let inner = rest[..end].trim();
        if let Some(v) = inner.strip_prefix("importance:")
            && let Ok(n) = v.trim().parse::<f64>()
            && n.is_finite()
        {
            let n = n.floor().clamp(1.0, 10.0) as u8;
            best = Some(best.map_or(n, |b| b.max(n)));
        }
        rest = &rest[end + 3..];
    }
    best
}

/// The importance multiplier (§14.4).
pub fn importance_multiplier(n: Option<u8>) -> f64 {
    n.map_or(1.0, |n| 0.75 + 0.05 * f64::from(n.clamp(1, 10)))
}

/// Segment flags of a memory chunk: this bit says that the low four bits hold its importance
/// (0: none). Ranking reads every chunk of its pool and takes the importance from the text; the
/// flags stay in the index format.
const FLAG_IMPORTANCE: u8 = 0x80;

/// Index documents (one per chunk) of a memory file.
pub fn chunk_docs(path: &str, text: &str, blob: [u8; 20]) -> Vec<IndexDoc> {
    let lines: Vec<&str> = text.lines().collect();
    chunk_lines(text)
        .into_iter()
        .map(|(a, b)| {
            let chunk = lines[a - 1..b].join("\n");
            let mut tc = TermCounter::default();
            tc.add(Field::Body, &chunk);
            tc.add(Field::Path, path);
            let (terms, lens) = tc.finish();
            let importance = importance(&chunk);
            let stored = StoredChunk {
                path: path.to_string(),
                start_line: a,
                end_line: b,
                importance,
                text: chunk,
            };
            IndexDoc {
                path: path.to_string(),
                blob,
                id: None,
                kind: KIND_MEMORY,
                flags: FLAG_IMPORTANCE | importance.unwrap_or(0),
                lens,
                terms,
                stored: serde_json::to_vec(&StoredDoc::Chunk(stored)).unwrap_or_default(),
            }
        })
        .collect()
}

/// The date of a dated memory note (`memory/…/YYYY-MM-DD(-slug).md`), as ms since the epoch.
pub fn note_date_ms(path: &str) -> Option<i64> {
    if !path.starts_with("memory/") {
        return None;
    }
    let base = path.rsplit('/').next()?.strip_suffix(".md")?;
    let date = base.get(..10)?;
    let rest = &base[10..];
    if !(rest.is_empty() || rest.starts_with('-')) {
        return None;
    }
    let b = date.as_bytes();
    if !(b[4] == b'-' && b[7] == b'-') {
        return None;
    }
    let d: jiff::civil::Date = date.parse().ok()?;
    d.to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp().as_millisecond())
}

/// The original's recency multiplier of a memory file at `now_ms` (§14.3), half-life
/// [`HALF_LIFE_DAYS`].
pub fn decay(path: &str, now_ms: i64) -> f64 {
    decay_with(path, now_ms, HALF_LIFE_DAYS)
}

/// `exp(−ln 2 / half_life × ageDays)` of a dated note; 1 for evergreen files.
pub fn decay_with(path: &str, now_ms: i64, half_life_days: f64) -> f64 {
    match note_date_ms(path) {
        Some(ms) => {
            let age_days = ((now_ms - ms) as f64 / 86_400_000.0).max(0.0);
            (-(std::f64::consts::LN_2 / half_life_days) * age_days).exp()
        }
        None => 1.0,
    }
}

/// How the age of a dated note weighs on its score (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recency {
    /// The default: `1 − share + share × decay(halfLifeDays)`, so age moves a note by at most
    /// `share` of its score: it orders notes that match about equally well and never buries the
    /// only one that matches.
    Blend {
        /// Half-life of the decay part in days.
        half_life_days: f64,
        /// Share of the score that decays.
        share: f64,
    },
    /// The original's multiplier, `decay(halfLifeDays)` (`temporalDecay.enabled: true`).
    Decay {
        /// Half-life in days.
        half_life_days: f64,
    },
    /// No recency (`temporalDecay.enabled: false`).
    Off,
}

impl Default for Recency {
    fn default() -> Recency {
        Recency::Blend {
            half_life_days: HALF_LIFE_DAYS,
            share: RECENCY_SHARE,
        }
    }
}

impl Recency {
    /// The multiplier of the note at `path` at `now_ms`.
    pub fn multiplier(self, path: &str, now_ms: i64) -> f64 {
        match self {
            Recency::Blend {
                half_life_days,
                share,
            } => 1.0 - share + share * decay_with(path, now_ms, half_life_days),
            Recency::Decay { half_life_days } => decay_with(path, now_ms, half_life_days),
            Recency::Off => 1.0,
        }
    }
}

/// The form of a query that exact-path tiers compare (§14.6): trimmed, without a leading `./`.
fn path_query(query: &str) -> &str {
    query.trim().trim_start_matches("./")
}

/// The exact-path tier of the file at `path` for the [`path_query`] `q`.
fn path_tier(q: &str, path: &str) -> u8 {
    if q.is_empty() {
        return 0;
    }
    let base = path.rsplit('/').next().unwrap_or(path);
    let stem = base.strip_suffix(".md").unwrap_or(base);
    if q == path {
        3
    } else if q == base {
        2
    } else if q == stem || (q.len() >= 3 && base.starts_with(q)) {
        1
    } else {
        0
    }
}

/// The word sets of snippets as bit sets over their common vocabulary (one bit per distinct
/// lowercase word), with their sizes: the Jaccard index of two sets is then a pass of `AND` and
/// population counts instead of a walk of two trees of strings.
struct WordSets {
    words: usize,
    bits: Vec<u64>,
    sizes: Vec<u32>,
}

impl WordSets {
    fn new<'a>(texts: impl ExactSizeIterator<Item = &'a str>) -> WordSets {
        let mut vocab: foldhash::HashMap<String, u32> = foldhash::HashMap::default();
        // Each word lowercased into one buffer, copied only when it is new.
        let mut word = String::new();
        let ids: Vec<Vec<u32>> = texts
            .map(|t| {
                let mut ids: Vec<u32> = t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(|w| {
                        word.clear();
                        if w.is_ascii() {
                            word.push_str(w);
                            word.make_ascii_lowercase();
                        } else {
                            word.push_str(&w.to_lowercase());
                        }
                        match vocab.get(word.as_str()) {
                            Some(&id) => id,
                            None => {
                                let n = vocab.len() as u32;
                                vocab.insert(word.clone(), n);
                                n
                            }
                        }
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                ids
            })
            .collect();
        let words = vocab.len().div_ceil(64).max(1);
        let mut bits = vec![0u64; words * ids.len()];
        for (i, set) in ids.iter().enumerate() {
            for &w in set {
                bits[i * words + (w / 64) as usize] |= 1 << (w % 64);
            }
        }
        let sizes = ids.iter().map(|s| s.len() as u32).collect();
        WordSets { words, bits, sizes }
    }

    fn jaccard(&self, a: usize, b: usize) -> f64 {
        let (na, nb) = (self.sizes[a], self.sizes[b]);
        if na == 0 && nb == 0 {
            return 1.0;
        }
        let (x, y) = (
            &self.bits[a * self.words..(a + 1) * self.words],
            &self.bits[b * self.words..(b + 1) * self.words],
        );
        let inter: u32 = x.iter().zip(y).map(|(p, q)| (p & q).count_ones()).sum();
        let union = f64::from(na + nb) - f64::from(inter);
        if union == 0.0 {
            0.0
        } else {
            f64::from(inter) / union
        }
    }
}

struct Cand {
    chunk: StoredChunk,
    score: f64,
    tier: u8,
    /// The lines that matched best (the proximity window): MMR compares candidates by them.
    focus: Option<String>,
}

/// Maximal marginal relevance re-ordering (§14.5) of `(score, snippet)` items; returns indices.
pub fn mmr(items: &[(f64, &str)], lambda: f64) -> Vec<usize> {
    Mmr::new(items, lambda).collect()
}

/// The MMR order of [`mmr`], one index at a time: a caller that needs the first few only stops
/// there (each step costs one similarity per candidate left).
pub struct Mmr<'a> {
    items: &'a [(f64, &'a str)],
    lambda: f64,
    rel: Vec<f64>,
    sets: WordSets,
    left: Vec<usize>,
    last: Option<usize>,
    /// Each candidate's highest similarity to the chosen ones, kept up to date as each is
    /// chosen (the same maximum as recomputing it over all chosen at every step).
    sim: Vec<f64>,
}

impl<'a> Mmr<'a> {
    /// The MMR order of `items` with trade-off `lambda`.
    pub fn new(items: &'a [(f64, &'a str)], lambda: f64) -> Mmr<'a> {
        let max = items.iter().map(|i| i.0).fold(f64::MIN, f64::max);
        let min = items.iter().map(|i| i.0).fold(f64::MAX, f64::min);
        let rel = items
            .iter()
            .map(|i| {
                if max > min {
                    (i.0 - min) / (max - min)
                } else {
                    1.0
                }
            })
            .collect();
        Mmr {
            items,
            lambda,
            rel,
            sets: WordSets::new(items.iter().map(|i| i.1)),
            left: (0..items.len()).collect(),
            last: None,
            sim: vec![0.0; items.len()],
        }
    }
}

impl Iterator for Mmr<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if let Some(last) = self.last {
            for &i in &self.left {
                self.sim[i] = self.sim[i].max(self.sets.jaccard(i, last));
            }
        }
        let mut best: Option<(f64, usize, usize)> = None; // value, position in left, index
        for (pos, &i) in self.left.iter().enumerate() {
            let v = self.lambda * self.rel[i] - (1.0 - self.lambda) * self.sim[i];
            let better = match best {
                None => true,
                Some((bv, _, bi)) => v > bv || (v == bv && self.items[i].0 > self.items[bi].0),
            };
            if better {
                best = Some((v, pos, i));
            }
        }
        let (_, pos, i) = best?;
        self.left.remove(pos);
        self.last = Some(i);
        Some(i)
    }
}

/// The candidate pool of a query: chunks in BM25 order, each read and scored exactly
/// (proximity, repetition, recency, importance).
struct Pool<'a> {
    index: &'a Index,
    prep: &'a Prepared,
    idfs: &'a [f64],
    weights: Weights,
}

/// The recency and importance multipliers of a query's chunks (§14.3, §14.4).
#[derive(Clone, Copy)]
struct Weights {
    recency: Recency,
    now_ms: i64,
}

impl Weights {
    /// `score` times the recency multiplier of `path` and the multiplier of `importance`.
    fn apply(self, score: f64, path: &str, importance: Option<u8>) -> f64 {
        score * self.recency.multiplier(path, self.now_ms) * importance_multiplier(importance)
    }
}

/// A chunk of the pool, read: its non-empty lines' coverage units and the weight of each line
/// (see [`repetition_weights`]).
struct ReadChunk {
    key: (usize, u32),
    bm25: f64,
    chunk: StoredChunk,
    /// The chunk's text, folded (`tokenize::fold`).
    folded: String,
    masks: Vec<(usize, u64)>,
    weights: Vec<f64>,
}

/// Two lines are the same sentence said again when the Jaccard index of their word sets
/// (lowercase, words holding a digit left out) is at least this.
pub const REPEAT_SIMILARITY: f64 = 0.5;

/// The per-query maps of [`repetition_weights`]: their keys are short words and line numbers of
/// the workspace's own notes, hashed by the thousand per query, and nothing depends on their
/// iteration order.
type FastMap<K, V> = foldhash::HashMap<K, V>;

/// A sentence said up to this many times keeps its full weight (see [`repetition_weights`]).
pub const REPEATS_KEPT: usize = 2;

/// The words of a (folded) line that say what it is: lowercase, without the words holding a digit (a
/// time, a count, a date: the same sentence with another number is the same sentence).
fn line_words<'t>(folded_line: &'t str, vocab: &mut FastMap<&'t str, u32>) -> Vec<u32> {
    let mut ids: Vec<u32> = folded_line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_numeric()))
        .map(|w| {
            let n = vocab.len() as u32;
            *vocab.entry(w).or_insert(n)
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The weight of each matching line of the pool: `min(1, 2 / r)` ([`REPEATS_KEPT`] = 2),
/// where `r` is the number of distinct lines of the pool (a line of a file counts once, however
/// many chunks overlap it) holding the same query units and saying the same sentence
/// ([`REPEAT_SIMILARITY`]), itself included. A sentence said twice is a restatement and keeps
/// its weight; one the conversation repeats in many notes is a recurring topic, not the turn
/// that answers: its repetitions share the weight of two lines.
fn repetition_weights(reads: &mut [ReadChunk]) {
    let mut file_of: FastMap<&str, usize> = FastMap::default();
    let mut id_of: FastMap<(usize, usize), usize> = FastMap::default();
    let mut lines: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut vocab: FastMap<&str, u32> = FastMap::default();
    let mut ids: Vec<Vec<usize>> = Vec::with_capacity(reads.len());
    for r in reads.iter() {
        let n = file_of.len();
        let file = *file_of.entry(r.chunk.path.as_str()).or_insert(n);
        let text: Vec<&str> = r.folded.lines().collect();
        let mut these = Vec::with_capacity(r.masks.len());
        for &(i, mask) in &r.masks {
            if mask == 0 {
                these.push(usize::MAX);
                continue;
            }
            let id = *id_of
                .entry((file, r.chunk.start_line + i))
                .or_insert_with(|| {
                    let words = line_words(text.get(i).copied().unwrap_or(""), &mut vocab);
                    lines.push((mask, words));
                    lines.len() - 1
                });
            these.push(id);
        }
        ids.push(these);
    }
    // Word sets as bit sets over the vocabulary: a comparison is a pass of `AND` and counts.
    let words = vocab.len().div_ceil(64).max(1);
    let mut bits = vec![0u64; words * lines.len()];
    for (id, (_, set)) in lines.iter().enumerate() {
        for &w in set {
            bits[id * words + (w / 64) as usize] |= 1 << (w % 64);
        }
    }
    let set = |id: usize| &bits[id * words..(id + 1) * words];
    let mut by_mask: FastMap<u64, Vec<usize>> = FastMap::default();
    for (id, (mask, _)) in lines.iter().enumerate() {
        by_mask.entry(*mask).or_default().push(id);
    }
    let mut repeats = vec![1usize; lines.len()];
    for group in by_mask.values_mut() {
        // By size: a set more than `1 / REPEAT_SIMILARITY` times larger cannot be similar.
        group.sort_by_key(|&id| (lines[id].1.len(), id));
        for (x, &a) in group.iter().enumerate() {
            let na = lines[a].1.len();
            for &b in &group[x + 1..] {
                let nb = lines[b].1.len();
                if (na as f64) < REPEAT_SIMILARITY * nb as f64 {
                    break;
                }
                let inter: u32 = set(a)
                    .iter()
                    .zip(set(b))
                    .map(|(p, q)| (p & q).count_ones())
                    .sum();
                let union = (na + nb) as f64 - f64::from(inter);
                let similar = if union == 0.0 {
                    true
                } else {
                    f64::from(inter) / union >= REPEAT_SIMILARITY
                };
                if similar {
                    repeats[a] += 1;
                    repeats[b] += 1;
                }
            }
        }
    }
    for (r, these) in reads.iter_mut().zip(ids) {
        r.weights = these
            .into_iter()
            .map(|id| match repeats.get(id) {
                Some(&n) if n > REPEATS_KEPT => REPEATS_KEPT as f64 / n as f64,
                _ => 1.0,
            })
            .collect();
    }
}

impl Pool<'_> {
    /// The text score of a chunk whose BM25 is `bm25` and whose best window holds the share
    /// `near` of the query, in 0–1.
    fn text_score(bm25: f64, near: f64) -> f64 {
        let bm25 =
            bm25 * (rank::MEMORY_K1 + 1.0) * (1.0 - PROXIMITY_SHARE + PROXIMITY_SHARE * near);
        bm25 / (1.0 + bm25)
    }

    /// The proximity share of a read chunk (its lines weighted) and its best window's text.
    fn window(&self, r: &ReadChunk) -> (f64, String) {
        let (near, span) =
            self.prep
                .best_weighted_window(&r.masks, &r.weights, self.idfs, PROXIMITY_LINES);
        let text = &r.chunk.text;
        let focus = span
            .and_then(|(a, b)| rank::line_span(text, a, b))
            .unwrap_or(text)
            .to_string();
        (near, focus)
    }

    /// Read the chunks of `scored` and weigh their lines.
    fn read(&self, scored: &[((usize, u32), f64)]) -> Result<Vec<ReadChunk>, crate::Error> {
        let mut memo = rank::WordUnits::default();
        let mut reads = Vec::with_capacity(scored.len());
        for &(key, bm25) in scored {
            if let StoredDoc::Chunk(c) = self.index.stored(key.0, key.1)? {
                let folded = tokenize::fold(&c.text);
                let masks = self.prep.folded_line_masks(&folded, &mut memo);
                reads.push(ReadChunk {
                    key,
                    bm25,
                    chunk: c,
                    folded,
                    masks,
                    weights: Vec::new(),
                });
            }
        }
        repetition_weights(&mut reads);
        Ok(reads)
    }

    fn exact(&self, r: ReadChunk) -> Cand {
        let (near, focus) = self.window(&r);
        let score = self.weights.apply(
            Pool::text_score(r.bm25, near),
            &r.chunk.path,
            r.chunk.importance,
        );
        Cand {
            chunk: r.chunk,
            score,
            tier: 0,
            focus: Some(focus),
        }
    }

    /// The candidates of `scored` (the pool, best BM25 first), each scored exactly, the first
    /// chunk of each file named by `tiers` (removed from `tiers`) given its tier.
    fn best(
        &self,
        scored: &[((usize, u32), f64)],
        tiers: &mut Vec<(usize, u8)>,
    ) -> Result<Vec<Cand>, crate::Error> {
        let mut entry_of: foldhash::HashMap<(usize, u32), usize> = foldhash::HashMap::default();
        for (s, d, i) in self.index.live_docs() {
            entry_of.insert((s, d), i);
        }
        let mut tier_of: HashMap<(usize, u32), u8> = HashMap::new();
        tiers.retain(
            |&(i, tier)| match scored.iter().find(|(k, _)| entry_of.get(k) == Some(&i)) {
                Some((k, _)) => {
                    tier_of.insert(*k, tier);
                    false
                }
                None => true,
            },
        );
        let reads = self.read(scored)?;
        Ok(reads
            .into_iter()
            .map(|r| {
                let tier = tier_of.get(&r.key).copied().unwrap_or(0);
                let mut c = self.exact(r);
                c.tier = tier;
                c
            })
            .collect())
    }
}

/// Search the memory index with the default [`Recency`]; hits below `min_score` are dropped
/// unless none reaches it (see the module docs).
pub fn search(
    index: &Index,
    query: &str,
    mode: Mode,
    max_results: usize,
    min_score: f64,
    now_ms: i64,
) -> Result<Vec<Hit>, crate::Error> {
    let settings = Settings {
        min_score,
        ..Settings::default()
    };
    search_with(index, query, mode, max_results, &settings, now_ms)
}

/// The configurable part of memory ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Minimum score (§14.1 `minScore`).
    pub min_score: f64,
    /// Recency.
    pub recency: Recency,
    /// The embedding provider of hybrid search (keyword-only by default).
    pub embeddings: crate::embed::Embeddings,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            min_score: MIN_SCORE,
            recency: Recency::default(),
            embeddings: crate::embed::Embeddings::Off,
        }
    }
}

/// Vector scores of a hybrid search and how to merge them (§14.2).
struct Vectors {
    scores: HashMap<(usize, u32), f64>,
    vector_weight: f64,
    text_weight: f64,
    /// Candidates the vector path brings: `maxResults × candidateMultiplier`.
    pool: usize,
}

impl Vectors {
    /// `vectorWeight × vector + textWeight × text`, the weights scaled to sum to 1.
    fn merge(&self, key: (usize, u32), text: f64) -> f64 {
        let v = self.scores.get(&key).copied().unwrap_or(0.0);
        let sum = self.vector_weight + self.text_weight;
        if sum <= 0.0 {
            return 0.0;
        }
        (self.vector_weight * v + self.text_weight * text) / sum
    }
}

/// The vector scores of `query` under `embeddings`, from the first provider of the chain that
/// answers: `None` for keyword-only (not configured, or `auto` when every provider fails), an
/// error when a named provider and its fallback fail.
fn vectors(
    index: &Index,
    query: &str,
    embeddings: &crate::embed::Embeddings,
    max_results: usize,
) -> Result<Option<Vectors>, crate::Error> {
    use crate::embed::Embeddings;
    let (chain, required) = match embeddings {
        Embeddings::Off => return Ok(None),
        Embeddings::Broken(why) => return Err(crate::Error::Unavailable(why.clone())),
        Embeddings::Auto(c) => (c, false),
        Embeddings::Required(c) => (c, true),
    };
    let hybrid = &chain.hybrid;
    let mut failures = chain.skipped.clone();
    for provider in &chain.providers {
        match crate::embed::scores(index, query, provider)? {
            Ok(scores) => {
                return Ok(Some(Vectors {
                    scores,
                    vector_weight: hybrid.vector_weight,
                    text_weight: if hybrid.enabled {
                        hybrid.text_weight
                    } else {
                        0.0
                    },
                    pool: max_results * hybrid.candidate_multiplier,
                }));
            }
            Err(why) => failures.push(format!(
                "embedding provider `{}` failed: {why}",
                provider.name
            )),
        }
    }
    match required {
        true => Err(crate::Error::Unavailable(failures.join("; "))),
        false => Ok(None),
    }
}

/// Chunks `(segment, document)` with their BM25 score.
type Scored = Vec<((usize, u32), f64)>;

/// What the candidates of one query are gathered from.
struct Ranking<'a> {
    index: &'a Index,
    query: &'a str,
    prep: &'a Prepared,
    max_results: usize,
    weights: Weights,
}

impl Ranking<'_> {
    /// The keyword pool: chunks passing the coverage gate, best BM25 first, at most
    /// `2 × max(4 × maxResults, 24)` (each is read and scored), with the query terms' idfs
    /// (`None` without terms).
    fn keyword_pool(&self) -> Result<Option<(Scored, Vec<f64>)>, crate::Error> {
        if self.prep.terms.is_empty() {
            return Ok(None);
        }
        let (scores, idfs) = rank::bm25_body(self.index, self.prep)?;
        let mut scored: Scored = Vec::new();
        for (&key, &(bm25, mask)) in &scores {
            if !rank::passes_gate(self.prep, mask) {
                continue;
            }
            scored.push((key, bm25));
        }
        // Bound the pool before reading stored chunks.
        scored.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.0.cmp(&b.0))
        });
        scored.truncate((self.max_results * 4).max(24) * 2);
        Ok(Some((scored, idfs)))
    }

    /// Keyword-only candidates: the pool's chunks, scored ([`Pool::best`]), and the best (first in the pool, else first) chunk of each exactly named
    /// file with its tier.
    fn keyword_candidates(&self) -> Result<Vec<Cand>, crate::Error> {
        let mut tiers = self.path_tiers();
        let mut cands: Vec<Cand> = Vec::new();
        if let Some((scored, idfs)) = self.keyword_pool()? {
            let pool = Pool {
                index: self.index,
                prep: self.prep,
                idfs: &idfs,
                weights: self.weights,
            };
            cands = pool.best(&scored, &mut tiers)?;
        }
        // Named files without a chunk in the pool: their first chunk.
        for (i, tier) in tiers {
            cands.extend(self.first_chunk(i, tier)?);
        }
        Ok(cands)
    }

    /// The exactly named files (§14.6) that have chunks: (manifest entry, path tier).
    fn path_tiers(&self) -> Vec<(usize, u8)> {
        let q = path_query(self.query);
        if q.is_empty() {
            return Vec::new();
        }
        let entries = self.index.manifest.entries.iter().enumerate();
        entries
            .filter(|(_, e)| e.ndocs > 0)
            .map(|(i, e)| (i, path_tier(q, &e.path)))
            .filter(|&(_, tier)| tier > 0)
            .collect()
    }

    /// The first chunk of manifest entry `i`, as a candidate of path tier `tier`.
    fn first_chunk(&self, i: usize, tier: u8) -> Result<Option<Cand>, crate::Error> {
        let e = &self.index.manifest.entries[i];
        Ok(match self.index.stored(e.seg as usize, e.doc)? {
            StoredDoc::Chunk(chunk) => Some(Cand {
                chunk,
                score: 0.0,
                tier,
                focus: None,
            }),
            _ => None,
        })
    }

    /// Hybrid candidates: every chunk of the keyword pool with its merged score, the vector
    /// path's own best ones, and the exact-path tiers (the first candidate of a named file, else
    /// its first chunk).
    fn hybrid_candidates(&self, v: &Vectors) -> Result<Vec<Cand>, crate::Error> {
        let (index, weights) = (self.index, self.weights);
        let mut cands: Vec<Cand> = Vec::new();
        let mut seen: HashSet<(usize, u32)> = HashSet::new();
        if let Some((scored, idfs)) = self.keyword_pool()? {
            let pool = Pool {
                index,
                prep: self.prep,
                idfs: &idfs,
                weights,
            };
            for r in pool.read(&scored)? {
                let key = r.key;
                let (near, focus) = pool.window(&r);
                let merged = v.merge(key, Pool::text_score(r.bm25, near));
                let score = weights.apply(merged, &r.chunk.path, r.chunk.importance);
                seen.insert(key);
                cands.push(Cand {
                    chunk: r.chunk,
                    score,
                    tier: 0,
                    focus: Some(focus),
                });
            }
        }
        // The vector path's own candidates (keyword score 0 unless the keyword path had them).
        let mut best: Vec<(&(usize, u32), &f64)> = v.scores.iter().collect();
        best.sort_by(|a, b| b.1.total_cmp(a.1).then_with(|| a.0.cmp(b.0)));
        for (&key, _) in best.into_iter().take(v.pool) {
            if seen.contains(&key) {
                continue;
            }
            if let StoredDoc::Chunk(c) = index.stored(key.0, key.1)? {
                let score = weights.apply(v.merge(key, 0.0), &c.path, c.importance);
                seen.insert(key);
                cands.push(Cand {
                    chunk: c,
                    score,
                    tier: 0,
                    focus: None,
                });
            }
        }
        // Path tiers: the best (first) chunk of an exactly named file.
        for (i, tier) in self.path_tiers() {
            let path = &index.manifest.entries[i].path;
            if let Some(c) = cands.iter_mut().find(|c| c.chunk.path == *path) {
                c.tier = c.tier.max(tier);
            } else {
                cands.extend(self.first_chunk(i, tier)?);
            }
        }
        Ok(cands)
    }
}

/// [`search`] with given [`Settings`].
pub fn search_with(
    index: &Index,
    query: &str,
    mode: Mode,
    max_results: usize,
    settings: &Settings,
    now_ms: i64,
) -> Result<Vec<Hit>, crate::Error> {
    let (min_score, recency) = (settings.min_score, settings.recency);
    let vectors = vectors(index, query, &settings.embeddings, max_results)?;
    let prep = Prepared::new(query);
    let ranking = Ranking {
        index,
        query,
        prep: &prep,
        max_results,
        weights: Weights { recency, now_ms },
    };
    let cands = match &vectors {
        None => ranking.keyword_candidates()?,
        Some(v) => ranking.hybrid_candidates(v)?,
    };
    // Exact-path tiers first (score 1, ordered by tier then content), then MMR over the rest.
    let mut tiered: Vec<Cand> = Vec::new();
    let mut rest: Vec<Cand> = Vec::new();
    for c in cands {
        if c.tier > 0 {
            tiered.push(c)
        } else {
            rest.push(c)
        }
    }
    tiered.sort_by(|a, b| {
        b.tier
            .cmp(&a.tier)
            .then_with(|| {
                b.score
                    .partial_cmp(&a.score)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .then_with(|| a.chunk.path.cmp(&b.chunk.path))
    });
    rest.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.chunk.path.cmp(&b.chunk.path))
            .then_with(|| a.chunk.start_line.cmp(&b.chunk.start_line))
    });
    rest.truncate(max_results * 4);
    let items: Vec<(f64, &str)> = rest
        .iter()
        .map(|c| (c.score, c.focus.as_deref().unwrap_or(&c.chunk.text)))
        .collect();
    // Hits under `min_score` are dropped, unless none reaches it (relaxed fallback: all kept).
    // Exact path tiers score 1.
    let relaxed =
        !(tiered.iter().any(|_| 1.0 >= min_score) || rest.iter().any(|c| c.score >= min_score));
    let keeps = |s: f64| relaxed || s >= min_score;
    let mut out: Vec<Hit> = Vec::new();
    for c in tiered.iter().filter(|_| keeps(1.0)) {
        out.push(chunk_hit(&c.chunk, 1.0, mode));
    }
    // Exact-path tiers first, then the MMR order, as far as needed.
    for i in Mmr::new(&items, MMR_LAMBDA) {
        if out.len() >= max_results {
            break;
        }
        let c = &rest[i];
        if keeps(c.score) {
            let shown = (c.score * 10_000.0).round() / 10_000.0;
            out.push(chunk_hit(&c.chunk, shown, mode));
        }
    }
    out.truncate(max_results);
    Ok(out)
}

/// The citation of lines `start..=end` of `path`: `path#L<start>-L<end>`, or `path#L<start>`.
pub fn citation(path: &str, start: usize, end: usize) -> String {
    if start == end {
        format!("{path}#L{start}")
    } else {
        format!("{path}#L{start}-L{end}")
    }
}

/// The title of a memory file: its base name without extension.
pub fn memory_title(path: &str) -> String {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.rsplit_once('.')
        .map_or(base, |(stem, _)| stem)
        .to_string()
}

fn chunk_hit(c: &StoredChunk, score: f64, mode: Mode) -> Hit {
    let snippet = rank::truncate_chars(c.text.trim(), SNIPPET_CHARS);
    Hit {
        corpus: "memory",
        path: c.path.clone(),
        title: memory_title(&c.path),
        kind: "memory".into(),
        score,
        snippet,
        start_line: Some(c.start_line),
        end_line: Some(c.end_line),
        memory_source: Some("memory".into()),
        search_mode: mode.as_str(),
        citation: Some(citation(&c.path, c.start_line, c.end_line)),
        meta: rank::PageMeta::default(),
        matched_claim_id: None,
        matched_claim_status: None,
        matched_claim_confidence: None,
        evidence_kinds: None,
        evidence_source_ids: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn word_set(text: &str) -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
        if a.is_empty() && b.is_empty() {
            return 1.0;
        }
        let inter = a.intersection(b).count() as f64;
        let union = (a.len() + b.len()) as f64 - inter;
        if union == 0.0 { 0.0 } else { inter / union }
    }

    #[test]
    fn chunks_overlap_and_cover() {
        let text: String = (0..300)
            .map(|i| format!("w{i} a b c d e f g h i\n"))
            .collect();
        let chunks = chunk_lines(&text);
        assert_eq!(chunks[0], (1, 40));
        assert_eq!(chunks[1].0, 33);
        assert_eq!(chunks.last().map(|c| c.1), Some(300));
        for w in chunks.windows(2) {
            assert!(w[1].0 > w[0].0 && w[1].0 <= w[0].1);
        }
        assert_eq!(chunk_lines("one\ntwo\n"), vec![(1, 2)]);
        assert!(chunk_lines("").is_empty());
    }

    #[test]
    fn dates_and_decay() {
        let now = wiki_parse::time::parse_timestamp_ms("2026-04-05T00:00:00Z").unwrap();
        assert_eq!(decay("MEMORY.md", now), 1.0);
        assert_eq!(decay("memory/notes.md", now), 1.0);
        assert!((decay("memory/2026-03-06.md", now) - 0.5).abs() < 1e-9);
        assert!((decay("memory/2026/2026-02-04-trip.md", now) - 0.25).abs() < 1e-9);
        assert_eq!(decay("memory/2026-02-30.md", now), 1.0);
        assert_eq!(decay("memory/2026-03-06x.md", now), 1.0);
    }

    #[test]
    fn importance_annotations() {
        assert_eq!(
            importance("a <!-- importance: 8 --> b <!-- importance: 3 -->"),
            Some(8)
        );
        assert_eq!(importance("<!-- importance: 42 -->"), Some(10));
        assert_eq!(importance("nothing"), None);
        assert!((importance_multiplier(Some(5)) - 1.0).abs() < 1e-12);
        assert!((importance_multiplier(Some(10)) - 1.25).abs() < 1e-12);
    }

    #[test]
    fn citations() {
        assert_eq!(citation("MEMORY.md", 3, 3), "MEMORY.md#L3");
        assert_eq!(
            citation("memory/2026-04-05.md", 1, 40),
            "memory/2026-04-05.md#L1-L40"
        );
    }

    /// The incremental maximum gives the order of the textbook form (each candidate's
    /// similarity to every chosen one recomputed at each step).
    #[test]
    fn mmr_matches_the_recomputing_form() {
        fn naive(items: &[(f64, &str)], lambda: f64) -> Vec<usize> {
            let (max, min) = items.iter().fold((f64::MIN, f64::MAX), |(hi, lo), i| {
                (hi.max(i.0), lo.min(i.0))
            });
            let rel = |i: usize| {
                if max > min {
                    (items[i].0 - min) / (max - min)
                } else {
                    1.0
                }
            };
            let sets: Vec<BTreeSet<String>> = items.iter().map(|i| word_set(i.1)).collect();
            let (mut chosen, mut left): (Vec<usize>, Vec<usize>) =
                (vec![], (0..items.len()).collect());
            while !left.is_empty() {
                let mut best: Option<(f64, usize, usize)> = None;
                for (pos, &i) in left.iter().enumerate() {
                    let sim = chosen
                        .iter()
                        .map(|&j| jaccard(&sets[i], &sets[j]))
                        .fold(0.0, f64::max);
                    let v = lambda * rel(i) - (1.0 - lambda) * sim;
                    if best
                        .is_none_or(|(bv, _, bi)| v > bv || (v == bv && items[i].0 > items[bi].0))
                    {
                        best = Some((v, pos, i));
                    }
                }
                let (_, pos, i) = best.expect("a candidate");
                chosen.push(i);
                left.remove(pos);
            }
            chosen
        }
        // A small vocabulary (many ties, one 64-bit word per set) and a larger one (sets over
        // several words, empty snippets included).
        let small = [
            "standup", "team", "daily", "moved", "noon", "drifting", "again", "notes",
        ];
        let large: Vec<String> = (0..150).map(|i| format!("Word{i}")).collect();
        let texts = |vocab: &[&str], len: usize| -> Vec<String> {
            (0..80u64)
                .map(|n| {
                    let mut x = n
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (0..(n as usize * 7) % (len + 1))
                        .map(|_| {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                            vocab[(x >> 33) as usize % vocab.len()]
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        };
        let large: Vec<&str> = large.iter().map(String::as_str).collect();
        for texts in [texts(&small, 4), texts(&large, 40)] {
            let items: Vec<(f64, &str)> = texts
                .iter()
                .enumerate()
                .map(|(n, t)| (1.0 / (1.0 + (n % 17) as f64), t.as_str()))
                .collect();
            for lambda in [0.0, 0.5, 0.7, 1.0] {
                assert_eq!(
                    mmr(&items, lambda),
                    naive(&items, lambda),
                    "lambda {lambda}"
                );
            }
        }
    }

    #[test]
    fn mmr_demotes_duplicates() {
        let items = [
            (1.0, "alpha beta gamma"),
            (0.9, "alpha beta gamma"),
            (0.85, "delta epsilon"),
        ];
        assert_eq!(mmr(&items, 0.7), vec![0, 2, 1]);
        assert_eq!(mmr(&items, 1.0), vec![0, 1, 2]);
    }

    #[test]
    fn the_best_window_is_the_matching_turns() {
        let prep = Prepared::new("landlord phone number");
        let idfs = vec![1.0; prep.terms.len()];
        let text = "# 2025-07-01\n\nUser: Our landlord still hasn't fixed the window.\n\
                    Assistant: Put it in writing.\n\nUser: The landlord's phone number ends in 42.\n\
                    Assistant: Noted.\nUser: Thanks.";
        let mut memo = rank::WordUnits::default();
        let (cov, window) = prep.best_window(text, &idfs, PROXIMITY_LINES, &mut memo);
        assert_eq!(cov, 1.0);
        assert_eq!(window, "User: The landlord's phone number ends in 42.");
        // No unit occurs: the whole text.
        let (cov, window) =
            Prepared::new("zebra").best_window(text, &[1.0], 2, &mut Default::default());
        assert_eq!((cov, window), (0.0, text));
    }
}
