//! Trigger recall (reference §14.7, "lane 1" of active memory): before a reply, the incoming
//! message is compared with the trigger phrases of trusted curated entries, and at most three
//! compact entries are injected.
//!
//! * **Candidates**: every trigger-bearing entry of the curated root files (`MEMORY.md`,
//!   `memory.md`, `USER.md`; at most [`MAX_CANDIDATES`]). Daily notes, imports and dreaming
//!   reports are never candidates. An entry scoped to projects (`<!-- project: … -->`) is a
//!   candidate only when all its projects are active (`--project`).
//! * **Words**: lowercase runs of letters, digits and `_` longer than one character.
//! * **Phrase score**: a one-word phrase present in the message → 0.85; the phrase's words as a
//!   contiguous sequence of the message → 1.0; else `0.8 × coverage + 0.2 × min(1, overlap / 2)`
//!   (coverage: share of the phrase's words in the message), 0 without overlap.
//! * **Entry score**: `0.8 × best phrase score + 0.2 × relevance`, relevance being the entry's
//!   best lexical memory-search score (24 results, minimum score 0), clamped to 0..1.
//! * **Selection**: entries scoring at least [`MIN_SCORE`], best first (ties: path, line), at most
//!   [`MAX_ENTRIES`], whose lines together stay within [`MAX_CHARS`] characters; each is
//!   `- <entry without annotations> (Source: <path>#L<line>)`.

use crate::curated::{self, Entry};

/// Entries injected at most.
pub const MAX_ENTRIES: usize = 3;
/// Characters injected at most (all lines together, newlines included).
pub const MAX_CHARS: usize = 1800;
/// Minimum entry score.
pub const MIN_SCORE: f64 = 0.65;
/// Trigger-bearing entries considered at most.
pub const MAX_CANDIDATES: usize = 512;
/// Results of the lexical search giving relevance.
pub const SEARCH_RESULTS: usize = 24;

/// A selected entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Triggered {
    /// The entry.
    pub entry: Entry,
    /// Its score.
    pub score: f64,
    /// The phrase that matched best.
    pub phrase: String,
    /// Its lexical relevance.
    pub relevance: f64,
    /// The injected line.
    pub line: String,
}

/// Lowercase words (`[\p{L}\p{N}_]+`, longer than one character).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() > 1)
        .map(str::to_lowercase)
        .collect()
}

/// The score of one trigger phrase against the message's words.
pub fn phrase_score(phrase: &str, message: &[String]) -> f64 {
    let p = words(phrase);
    if p.is_empty() {
        return 0.0;
    }
    if p.len() == 1 {
        return if message.contains(&p[0]) { 0.85 } else { 0.0 };
    }
    if message.windows(p.len()).any(|w| w == p.as_slice()) {
        return 1.0;
    }
    let overlap = p.iter().filter(|w| message.contains(w)).count();
    if overlap == 0 {
        return 0.0;
    }
    let coverage = overlap as f64 / p.len() as f64;
    0.8 * coverage + 0.2 * (overlap as f64 / 2.0).min(1.0)
}

/// The compact line of an entry: `- <text> (Source: <path>#L<line>)`.
pub fn compact_line(entry: &Entry) -> String {
    let stripped = curated::strip_annotations(&entry.text);
    let joined = stripped.split_whitespace().collect::<Vec<_>>().join(" ");
    let body = joined
        .strip_prefix("- ")
        .or_else(|| joined.strip_prefix("* "))
        .or_else(|| joined.strip_prefix("+ "))
        .unwrap_or(&joined);
    format!("- {body} (Source: {}#L{})", entry.path, entry.start_line)
}

/// The entries of `entries` that are candidates for `msg` (the message's words), each with its
/// best phrase and that phrase's score (entries no phrase matches left out).
fn matches<'a>(
    msg: &[String],
    entries: &'a [Entry],
    active_projects: &[String],
) -> Vec<(&'a Entry, f64, &'a String)> {
    entries
        .iter()
        .filter(|e| !e.triggers.is_empty())
        .filter(|e| match &e.projects {
            None => true,
            Some(keys) => !keys.is_empty() && keys.iter().all(|k| active_projects.contains(k)),
        })
        .take(MAX_CANDIDATES)
        .filter_map(|e| {
            let (best, phrase) = e.triggers.iter().map(|p| (phrase_score(p, msg), p)).fold(
                (0.0, None),
                |acc, (s, p)| {
                    if s > acc.0 { (s, Some(p)) } else { acc }
                },
            );
            Some((e, best, phrase?))
        })
        .collect()
}

/// The entry score: `0.8 × best phrase score + 0.2 × relevance` (relevance clamped to 0..1).
fn entry_score(best: f64, relevance: f64) -> f64 {
    0.8 * best + 0.2 * relevance
}

/// Whether some entry could trigger for `message` whatever its lexical relevance: when none
/// can, the relevance (a memory search) is not needed.
pub fn may_select(message: &str, entries: &[Entry], active_projects: &[String]) -> bool {
    matches(&words(message), entries, active_projects)
        .iter()
        .any(|&(_, best, _)| entry_score(best, 1.0) >= MIN_SCORE)
}

/// Select the entries to inject for `message`. `relevance(entry)` is the entry's lexical score;
/// `active_projects` the projects in effect.
pub fn select(
    message: &str,
    entries: &[Entry],
    relevance: impl Fn(&Entry) -> f64,
    active_projects: &[String],
) -> Vec<Triggered> {
    let msg = words(message);
    if msg.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<Triggered> = matches(&msg, entries, active_projects)
        .into_iter()
        .filter_map(|(e, best, phrase)| {
            let rel = relevance(e);
            let rel = if rel.is_finite() {
                rel.clamp(0.0, 1.0)
            } else {
                0.0
            };
            let score = entry_score(best, rel);
            (score >= MIN_SCORE).then(|| Triggered {
                entry: e.clone(),
                score,
                phrase: phrase.clone(),
                relevance: rel,
                line: compact_line(e),
            })
        })
        .collect();
    scored.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.entry.path.cmp(&b.entry.path))
            .then_with(|| a.entry.start_line.cmp(&b.entry.start_line))
    });
    let mut out = Vec::new();
    let mut used = 0usize;
    for t in scored {
        if out.len() == MAX_ENTRIES {
            break;
        }
        let cost = t.line.chars().count() + usize::from(!out.is_empty());
        if used + cost > MAX_CHARS {
            continue;
        }
        used += cost;
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn phrase_scores() {
        let m = msg("Can you send the WhatsApp replies shorter? ok");
        assert_eq!(phrase_score("whatsapp", &m), 0.85);
        assert_eq!(phrase_score("whatsapp replies", &m), 1.0);
        assert_eq!(phrase_score("replies whatsapp", &m), 0.8 + 0.2);
        let partial = phrase_score("whatsapp reply length", &m);
        assert!((partial - (0.8 / 3.0 + 0.1)).abs() < 1e-12, "{partial}");
        assert_eq!(phrase_score("telegram", &m), 0.0);
        assert_eq!(phrase_score("a", &m), 0.0);
        assert_eq!(words("I'm a C3PO_fan"), vec!["c3po_fan"]);
    }

    #[test]
    fn selection_threshold_budget_and_scope() {
        let text = "- Concise replies on WhatsApp. <!-- trigger: whatsapp -->\n- Backups go to S3 glacier. <!-- trigger: backup schedule -->\n- Scoped. <!-- trigger: whatsapp --> <!-- project: acme/x -->\n";
        let entries = curated::entries("MEMORY.md", text);
        let got = select("whatsapp please", &entries, |_| 0.0, &[]);
        assert_eq!(got.len(), 1);
        assert!((got[0].score - 0.68).abs() < 1e-12);
        assert_eq!(
            got[0].line,
            "- Concise replies on WhatsApp. (Source: MEMORY.md#L1)"
        );
        // One of two words: 0.8 × (0.4 + 0.1) = 0.4 < 0.65 even with some relevance.
        assert!(select("backup now", &entries, |_| 0.5, &[]).is_empty());
        // Whether relevance (a memory search) is needed at all: not when no entry can reach
        // the threshold, even with the highest relevance.
        assert!(may_select("whatsapp please", &entries, &[]));
        assert!(!may_select("backup now", &entries, &[]));
        assert!(select("backup now", &entries, |_| 1.0, &[]).is_empty());
        assert!(!may_select("nothing to see", &entries, &[]));
        assert!(may_select("the backup schedule", &entries, &[]));
        assert_eq!(
            select("whatsapp", &entries, |_| 0.0, &["acme/x".into()]).len(),
            2
        );
        let long = format!("- {} <!-- trigger: alpha -->\n", "x".repeat(1000));
        let many: Vec<Entry> = (0..4)
            .flat_map(|_| curated::entries("MEMORY.md", &long))
            .collect();
        assert_eq!(select("alpha", &many, |_| 0.0, &[]).len(), 1);
    }
}
