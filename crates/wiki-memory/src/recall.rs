//! Recall (seed 003): facts and notes for a query, combining four signals, every result citing
//! its path and line.
//!
//! * **Lexical** — the memory corpus ranking of `wiki-search` (never re-ranked here): a note
//!   chunk's score is its search score; a fact inside a hit chunk gets that score weighted by the
//!   share of the query's words it contains (`score × (0.5 + 0.5 × coverage)`).
//! * **Entity** — 1 when the fact mentions an entity the query names (`@Peter`, or a word or
//!   hyphen-joined words equal to an entity's key) or one of `--entity`.
//! * **Temporal** — `--since` / `--at` restrict the notes by day (a day or month written in the
//!   query, `2025-11-27` or `2025-11`, restricts too); within the window newer notes weigh more
//!   (half-life 30 days from `--now`).
//! * **Opinion** — when the query asks for a preference or judgment (`prefer`, `opinion`,
//!   `think`, `like`, `favorite`…), opinions weigh by their confidence (0.5 without one).
//!
//! `score = 0.55 × lexical + 0.25 × entity + 0.10 × opinion + 0.10 × recency` for a fact,
//! `0.50 × lexical + 0.10 × recency` for a note chunk (a fact holding all the query's words ranks
//! above the chunk it is in). Facts come from
//! the notes the search hit (and from every note in the window when `--entity` or `--kind` asks
//! for structured recall); note chunks are results too, unless `--entity` or `--kind` restricts
//! to facts. Results are ordered by score, then newest first, then source.

use std::collections::{BTreeSet, HashMap};

use jiff::civil::Date;
use serde::Serialize;

use crate::facts::Filter;
use crate::retain::{self, Fact, Kind};
use crate::time::Window;

/// Default number of results.
pub const DEFAULT_K: usize = 25;

const STOP: &[&str] = &[
    "the", "and", "for", "are", "was", "were", "what", "when", "where", "who", "whom", "which",
    "how", "did", "does", "do", "is", "in", "on", "of", "to", "a", "an", "at", "by", "with",
    "about", "we", "i", "you", "he", "she", "it", "they", "that", "this", "there", "last", "time",
    "tell", "me", "us", "our", "my", "his", "her", "their", "has", "have", "had", "be", "been",
];

const OPINION_WORDS: &[&str] = &[
    "prefer",
    "prefers",
    "preferred",
    "preference",
    "preferences",
    "opinion",
    "opinions",
    "think",
    "thinks",
    "believe",
    "believes",
    "like",
    "likes",
    "dislike",
    "dislikes",
    "favorite",
    "favourite",
    "feel",
    "feels",
    "want",
    "wants",
    "should",
    "rather",
];

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recalled {
    /// `fact` or `note`.
    #[serde(rename = "type")]
    pub record: &'static str,
    /// world, experience, opinion, observation, or `note`.
    pub kind: &'static str,
    /// The day of the note.
    pub timestamp: Option<String>,
    /// Entities of a fact.
    pub entities: Vec<String>,
    /// The fact, or the chunk's text.
    pub content: String,
    /// An opinion's confidence.
    pub confidence: Option<f64>,
    /// `path#L<line>` or `path#L<a>-L<b>`.
    pub source: String,
    /// The combined score (4 decimals).
    pub score: f64,
    /// The signals that contributed: lexical, entity, temporal, opinion.
    pub signals: Vec<&'static str>,
    /// Workspace-relative path.
    #[serde(skip)]
    pub path: String,
    /// First line.
    #[serde(skip)]
    pub start_line: usize,
    /// Last line.
    #[serde(skip)]
    pub end_line: usize,
    /// The lines as written (what the short-term store records).
    #[serde(skip)]
    pub raw: String,
    /// The day, for ordering.
    #[serde(skip)]
    pub day: Option<Date>,
}

/// A lexical hit of the memory corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHit {
    /// Workspace-relative path.
    pub path: String,
    /// First line.
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
    /// The search score (0..1).
    pub score: f64,
    /// The chunk's text (snippet).
    pub text: String,
}

/// What the query asks, beyond its words.
#[derive(Debug, Clone, Default)]
pub struct Intent {
    /// Content words (lowercase, stop words removed).
    pub words: BTreeSet<String>,
    /// Word sequences joined by `-` (to match multi-word entity keys), and `@` mentions.
    pub entity_keys: BTreeSet<String>,
    /// The query asks for an opinion.
    pub opinion: bool,
    /// A day or month written in the query.
    pub window: Option<Window>,
}

fn lower_words(text: &str) -> Vec<String> {
    raw_words(text).map(str::to_lowercase).collect()
}

/// The words of `text` as written: split at anything but letters, digits, `_`, `-` and `@`,
/// `-` and `_` trimmed at both ends, empty ones left out.
fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '@'))
        .map(|w| w.trim_matches(|c| c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Analyse a query.
pub fn intent(query: &str) -> Intent {
    let mut out = Intent::default();
    let raw = lower_words(query);
    for m in retain::mentions(query) {
        out.entity_keys.insert(retain::entity_key(&m));
    }
    let plain: Vec<String> = raw
        .iter()
        .map(|w| w.trim_start_matches('@').to_string())
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in plain.iter().enumerate() {
        out.entity_keys.insert(retain::entity_key(w));
        if let Some(next) = plain.get(i + 1) {
            out.entity_keys.insert(format!("{w}-{next}"));
            if let Some(third) = plain.get(i + 2) {
                out.entity_keys.insert(format!("{w}-{next}-{third}"));
            }
        }
        if OPINION_WORDS.contains(&w.as_str()) {
            out.opinion = true;
        }
        if !STOP.contains(&w.as_str()) && w.chars().count() > 1 {
            out.words.insert(w.clone());
        }
        if out.window.is_none() {
            if let Ok(d) = w.parse::<Date>() {
                out.window = Some(Window {
                    from: Some(d),
                    to: Some(d),
                });
            } else if w.len() == 7 && w.as_bytes()[4] == b'-' {
                out.window = crate::time::parse_at(w).ok();
            }
        }
    }
    out
}

/// How many of `words` (the query's) are among the words of `texts`: the words of
/// [`lower_words`] without a leading `@`, compared one by one as they are read (no set of the
/// text's words is built; each is lowercased into one buffer).
fn covered(words: &BTreeSet<String>, texts: &[&str]) -> usize {
    let mut found: BTreeSet<&str> = BTreeSet::new();
    let mut word = String::new();
    for t in texts.iter().flat_map(|text| raw_words(text)) {
        word.clear();
        if t.is_ascii() {
            word.push_str(t);
            word.make_ascii_lowercase();
        } else {
            word.push_str(&t.to_lowercase());
        }
        if let Some(w) = words.get(word.trim_start_matches('@')) {
            found.insert(w.as_str());
        }
    }
    found.len()
}

/// The recency weight of a day at `today` (half-life 30 days; undated: 1).
pub fn recency(day: Option<Date>, today: Date) -> f64 {
    match day {
        Some(d) => {
            let age = (today - d).get_days().max(0) as f64;
            (-(std::f64::consts::LN_2 / 30.0) * age).exp()
        }
        None => 1.0,
    }
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

/// Everything a recall ranks.
pub struct Inputs<'a> {
    /// The query.
    pub query: &'a str,
    /// Structured filters.
    pub filter: &'a Filter,
    /// Facts of the candidate notes (already filtered).
    pub facts: &'a [Fact],
    /// Lexical hits.
    pub hits: &'a [ChunkHit],
    /// The current day.
    pub today: Date,
    /// Whether note chunks are results.
    pub with_notes: bool,
}

/// Rank facts and notes; at most `k` results.
pub fn rank(input: &Inputs<'_>, k: usize) -> Vec<Recalled> {
    let intent = intent(input.query);
    let windowed = input.filter.window != Window::ALL;
    let mut out: Vec<Recalled> = Vec::new();
    // The hits of each note, in hit order.
    let mut hits_of: HashMap<&str, Vec<&ChunkHit>> = HashMap::new();
    for h in input.hits {
        hits_of.entry(h.path.as_str()).or_default().push(h);
    }
    for f in input.facts {
        let lexical_hit = hits_of
            .get(f.path.as_str())
            .into_iter()
            .flatten()
            .filter(|h| h.start_line <= f.line && h.end_line >= f.line)
            .map(|h| h.score)
            .fold(0.0, f64::max);
        let coverage = if intent.words.is_empty() {
            0.0
        } else {
            let mut texts: Vec<&str> = vec![f.content.as_str()];
            texts.extend(f.entities.iter().map(String::as_str));
            covered(&intent.words, &texts) as f64 / intent.words.len() as f64
        };
        let lexical = if lexical_hit > 0.0 {
            lexical_hit * (0.5 + 0.5 * coverage)
        } else {
            0.0
        };
        let entity = f.entities.iter().any(|e| {
            let key = retain::entity_key(e);
            intent.entity_keys.contains(&key) || input.filter.entities.contains(&key)
        });
        let opinion = if intent.opinion && f.kind == Kind::Opinion {
            f.confidence.unwrap_or(0.5)
        } else {
            0.0
        };
        let structured = !input.filter.entities.is_empty() || !input.filter.kinds.is_empty();
        if lexical == 0.0 && !entity && !(structured || input.query.trim().is_empty()) {
            continue;
        }
        let rec = recency(f.day, input.today);
        let score =
            0.55 * lexical + 0.25 * f64::from(u8::from(entity)) + 0.10 * opinion + 0.10 * rec;
        let mut signals = Vec::new();
        if lexical > 0.0 {
            signals.push("lexical");
        }
        if entity {
            signals.push("entity");
        }
        if windowed {
            signals.push("temporal");
        }
        if opinion > 0.0 {
            signals.push("opinion");
        }
        out.push(Recalled {
            record: "fact",
            kind: f.kind.name(),
            timestamp: f.day.map(|d| d.to_string()),
            entities: f.entities.clone(),
            content: f.content.clone(),
            confidence: f.confidence,
            source: f.source(),
            score: round4(score),
            signals,
            path: f.path.clone(),
            start_line: f.line,
            end_line: f.end_line,
            raw: f.raw.clone(),
            day: f.day,
        });
    }
    if input.with_notes {
        for h in input.hits {
            let day = crate::workspace::note_day(&h.path);
            if !input.filter.window.contains(day) {
                continue;
            }
            let score = 0.50 * h.score + 0.10 * recency(day, input.today);
            let mut signals = vec!["lexical"];
            if windowed {
                signals.push("temporal");
            }
            out.push(Recalled {
                record: "note",
                kind: "note",
                timestamp: day.map(|d| d.to_string()),
                entities: Vec::new(),
                content: h.text.trim().to_string(),
                confidence: None,
                source: wiki_search::memory::citation(&h.path, h.start_line, h.end_line),
                score: round4(score),
                signals,
                path: h.path.clone(),
                start_line: h.start_line,
                end_line: h.end_line,
                raw: h.text.clone(),
                day,
            });
        }
    }
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| b.day.cmp(&a.day))
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.start_line.cmp(&b.start_line))
    });
    out.truncate(k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn query_intent() {
        let i = intent("What does @Peter prefer about The Castle on 2025-11-27?");
        assert!(i.opinion);
        assert!(i.entity_keys.contains("peter"));
        assert!(i.entity_keys.contains("the-castle"));
        assert!(i.words.contains("castle") && !i.words.contains("the"));
        assert_eq!(i.window.unwrap().from, Some(date(2025, 11, 27)));
        assert_eq!(
            intent("backups in 2025-11").window.unwrap().to,
            Some(date(2025, 11, 30))
        );
        assert!(!intent("gateway port").opinion);
    }

    #[test]
    fn recency_halves_every_thirty_days() {
        let today = date(2026, 4, 5);
        assert_eq!(recency(Some(today), today), 1.0);
        assert!((recency(Some(date(2026, 3, 6)), today) - 0.5).abs() < 1e-12);
        assert_eq!(recency(None, today), 1.0);
    }
}
