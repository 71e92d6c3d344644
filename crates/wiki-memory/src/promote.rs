//! Dreaming (reference §14.8): rank the short-term store's candidates, gate them, and write the
//! light, REM and deep phases' outputs. Pure functions over texts and the store; the command
//! (`cmd::promote`) reads the files, holds the lock and commits.
//!
//! **Score** of an entry (every component clamped to [0, 1]):
//! `0.24·frequency + 0.30·relevance + 0.15·diversity + 0.15·recency + 0.10·consolidation +
//! 0.06·conceptual + phase boosts`, with signals = recall + daily + grounded counts,
//! frequency = `ln(1+signals)/ln(11)`, relevance = `totalScore/signals`, diversity =
//! `uniqueQueries/5` (the grounded-backfill query not counted), recency = `0.5^(days since the
//! last recall/14)`, consolidation = max(day spread, `groundedCount/3`) where one day gives 0.2
//! and more `0.55·ln(days)/ln(5) + 0.45·min(1, span/7)`, conceptual = `conceptTags/6`; light and
//! REM boosts `0.06` and `0.09 × ln(1+hits)/ln(7) × 0.5^(days since the phase's last hit/14)`.
//!
//! **Gates** (all must pass): score ≥ `min_score`, signals ≥ `min_recall_count`, unique queries
//! ≥ `min_unique_queries`, last recall at most `max_age_days` old, not promoted yet, a
//! short-term path, a promotable snippet. Candidates sort by score, then recall count, then path,
//! then line; at most `limit` are promoted.

use jiff::Timestamp;

use crate::curated;
use crate::shortterm::{self, Entry, PhaseEntry, Store};

/// The promotion settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gates {
    /// Minimum score.
    pub min_score: f64,
    /// Minimum signals (recall + daily + grounded).
    pub min_recall_count: u64,
    /// Minimum distinct queries.
    pub min_unique_queries: usize,
    /// Maximum age of the last recall, in days.
    pub max_age_days: f64,
    /// At most this many promotions per run.
    pub limit: usize,
    /// A promoted snippet keeps at most this many words.
    pub max_snippet_tokens: usize,
    /// The share of MEMORY.md's prior entries a promotion may drop.
    pub max_prior_loss: f64,
}

impl Default for Gates {
    /// The library defaults of the original's `memory promote` (no deep-phase config).
    fn default() -> Self {
        Gates {
            min_score: 0.75,
            min_recall_count: 3,
            min_unique_queries: 2,
            max_age_days: 30.0,
            limit: 10,
            max_snippet_tokens: 160,
            max_prior_loss: 0.25,
        }
    }
}

/// Recency half-life of the score, in days.
pub const RECENCY_HALF_LIFE_DAYS: f64 = 14.0;
/// Light phase: days looked back and candidates listed.
pub const LIGHT_LOOKBACK_DAYS: f64 = 2.0;
/// Light phase: at most this many candidates.
pub const LIGHT_LIMIT: usize = 100;
/// REM phase: days looked back.
pub const REM_LOOKBACK_DAYS: f64 = 7.0;
/// REM phase: at most this many patterns.
pub const REM_LIMIT: usize = 10;
/// REM phase: minimum pattern strength.
pub const REM_MIN_STRENGTH: f64 = 0.75;

/// The components of a score.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Components {
    /// Signal frequency.
    pub frequency: f64,
    /// Mean score of the signals.
    pub relevance: f64,
    /// Distinct queries.
    pub diversity: f64,
    /// Recency of the last recall.
    pub recency: f64,
    /// Spread over days, or grounding.
    pub consolidation: f64,
    /// Concept tags.
    pub conceptual: f64,
    /// Light and REM boosts.
    pub phase_boost: f64,
}

/// A ranked candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The store entry.
    pub entry: Entry,
    /// Its score.
    pub score: f64,
    /// The score's parts.
    pub components: Components,
    /// Distinct user queries.
    pub unique_queries: usize,
    /// Why it is not promoted (`None`: it passes every gate).
    pub refused: Option<String>,
}

fn clamp01(v: f64) -> f64 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Days from `iso` to `now` (0 when unreadable or in the future).
pub fn days_since(iso: &str, now: Timestamp) -> f64 {
    match iso.parse::<Timestamp>() {
        Ok(t) => ((now.as_millisecond() - t.as_millisecond()) as f64 / 86_400_000.0).max(0.0),
        Err(_) => 0.0,
    }
}

fn consolidation(e: &Entry) -> f64 {
    let mut days: Vec<jiff::civil::Date> = e
        .recall_days
        .iter()
        .filter_map(|d| d.parse().ok())
        .collect();
    days.sort();
    days.dedup();
    let spread = match days.len() {
        0 => 0.0,
        1 => 0.2,
        n => {
            let span = (days[n - 1] - days[0]).get_days() as f64;
            0.55 * ((n - 1) as f64).ln_1p() / 4f64.ln_1p() + 0.45 * (span / 7.0).min(1.0)
        }
    };
    clamp01(spread.max(e.grounded_count as f64 / 3.0))
}

fn boost(max: f64, hits: u64, last: Option<&str>, now: Timestamp) -> f64 {
    if hits == 0 {
        return 0.0;
    }
    let age = last.map_or(0.0, |t| days_since(t, now));
    max * clamp01((hits as f64).ln_1p() / 6f64.ln_1p()) * 0.5f64.powf(age / RECENCY_HALF_LIFE_DAYS)
}

/// Distinct user queries of an entry (the grounded-backfill query not counted).
pub fn unique_queries(e: &Entry) -> usize {
    let grounded = shortterm::query_hash(shortterm::GROUNDED_QUERY);
    e.query_hashes.iter().filter(|h| **h != grounded).count()
}

/// The score of `e` at `now`.
pub fn score(e: &Entry, phase: Option<&PhaseEntry>, now: Timestamp) -> (f64, Components) {
    let signals = e.signal_count();
    let c = Components {
        frequency: clamp01((signals as f64).ln_1p() / 10f64.ln_1p()),
        relevance: if signals == 0 {
            0.0
        } else {
            clamp01(e.total_score / signals as f64)
        },
        diversity: clamp01(unique_queries(e) as f64 / 5.0),
        recency: clamp01(
            0.5f64.powf(days_since(&e.last_recalled_at, now) / RECENCY_HALF_LIFE_DAYS),
        ),
        consolidation: consolidation(e),
        conceptual: clamp01(e.concept_tags.len() as f64 / 6.0),
        phase_boost: phase.map_or(0.0, |p| {
            boost(0.06, p.light_hits, p.last_light_at.as_deref(), now)
                + boost(0.09, p.rem_hits, p.last_rem_at.as_deref(), now)
        }),
    };
    let total = 0.24 * c.frequency
        + 0.30 * c.relevance
        + 0.15 * c.diversity
        + 0.15 * c.recency
        + 0.10 * c.consolidation
        + 0.06 * c.conceptual
        + c.phase_boost;
    (clamp01(total), c)
}

fn refusal(e: &Entry, score: f64, uq: usize, g: &Gates, now: Timestamp) -> Option<String> {
    if e.promoted_at.is_some() {
        return Some("already promoted".into());
    }
    if !shortterm::is_short_term_path(&e.path) || shortterm::unpromotable(&e.snippet) {
        return Some("not a short-term memory".into());
    }
    if days_since(&e.last_recalled_at, now) > g.max_age_days {
        return Some(format!("last recalled over {} days ago", g.max_age_days));
    }
    if e.signal_count() < g.min_recall_count {
        return Some(format!(
            "{} signals < {}",
            e.signal_count(),
            g.min_recall_count
        ));
    }
    if uq < g.min_unique_queries {
        return Some(format!("{uq} queries < {}", g.min_unique_queries));
    }
    if score < g.min_score {
        return Some(format!("score {score:.3} < {}", g.min_score));
    }
    None
}

/// Every entry of the store, scored and gated, in promotion order.
pub fn rank(store: &Store, phases: &[PhaseEntry], g: &Gates, now: Timestamp) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = store
        .entries
        .iter()
        .map(|e| {
            let phase = phases.iter().find(|p| p.key == e.key);
            let (score, components) = score(e, phase, now);
            let uq = unique_queries(e);
            Candidate {
                refused: refusal(e, score, uq, g, now),
                entry: e.clone(),
                score,
                components,
                unique_queries: uq,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.entry.recall_count.cmp(&a.entry.recall_count))
            .then_with(|| a.entry.path.cmp(&b.entry.path))
            .then(a.entry.start_line.cmp(&b.entry.start_line))
    });
    let mut passed = 0;
    for c in &mut out {
        if c.refused.is_none() {
            passed += 1;
            if passed > g.limit {
                c.refused = Some(format!("over the limit of {}", g.limit));
            }
        }
    }
    out
}

/// The lines `start..=end` (1-based) of `text`, joined; `None` when the range is gone.
pub fn lines_of(text: &str, start: u64, end: u64) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let (s, e) = (start.max(1) as usize, end.max(start) as usize);
    (e <= lines.len()).then(|| lines[s - 1..e].join("\n"))
}

/// A snippet as a promoted bullet's text: list markers dropped, whitespace collapsed, at most
/// `max_words` words.
pub fn promoted_text(snippet: &str, max_words: usize) -> String {
    let flat: Vec<&str> = snippet
        .lines()
        .map(|l| l.trim().trim_start_matches(['-', '*', '+']).trim_start())
        .filter(|l| !l.is_empty())
        .collect();
    let joined = flat.join(" ");
    let words: Vec<&str> = joined.split_whitespace().collect();
    let mut out = words[..words.len().min(max_words)].join(" ");
    if words.len() > max_words {
        out.push('…');
    }
    out
}

/// Importance 1–10 of a promoted entry: its score on a scale of ten.
pub fn importance(score: f64) -> u8 {
    ((score * 10.0).round() as u8).clamp(1, 10)
}

/// One promotion: where it comes from and what is written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Promotion {
    /// The store key.
    pub key: String,
    /// The note.
    pub path: String,
    /// First line.
    pub start_line: u64,
    /// Last line.
    pub end_line: u64,
    /// The promoted text.
    pub text: String,
    /// Its score.
    pub score: f64,
    /// Trigger phrases (at most 3 concept tags).
    pub triggers: Vec<String>,
    /// Importance 1–10.
    pub importance: u8,
}

/// The heading of a day's promotions.
pub fn section_heading(day: &str) -> String {
    format!("## Promoted From Short-Term Memory ({day})")
}

/// The entry lines of a promotion in MEMORY.md.
pub fn render_promotion(p: &Promotion) -> String {
    let mut bullet = format!("- {}", p.text);
    if !p.triggers.is_empty() {
        bullet.push_str(&format!(" <!-- trigger: {} -->", p.triggers.join(", ")));
    }
    bullet.push_str(&format!(" <!-- importance: {} -->", p.importance));
    format!(
        "<!-- openclaw-memory-promotion:memory:{}:{}:{} -->\n{bullet}\n",
        p.path, p.start_line, p.end_line
    )
}

/// MEMORY.md with `promotions` appended under today's section (created at the end when the
/// file's last section is not today's). Prior text is kept byte for byte.
pub fn append_promotions(existing: &str, day: &str, promotions: &[Promotion]) -> String {
    let heading = section_heading(day);
    let mut out = existing.to_string();
    let last_heading = existing
        .lines()
        .rfind(|l| l.starts_with("## ") || l.starts_with("# "));
    if out.trim().is_empty() {
        out = "# Long-Term Memory\n".to_string();
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if last_heading != Some(heading.as_str()) {
        out.push_str(&format!("\n{heading}\n"));
    }
    for p in promotions {
        out.push('\n');
        out.push_str(&render_promotion(p));
    }
    out
}

/// The share of `prior`'s entries (by text) missing from `next`.
pub fn prior_loss(prior: &str, next: &str) -> f64 {
    let before = curated::entries("MEMORY.md", prior);
    if before.is_empty() {
        return 0.0;
    }
    let after: std::collections::HashSet<String> = curated::entries("MEMORY.md", next)
        .into_iter()
        .map(|e| shortterm::normalize_snippet(&e.text))
        .collect();
    let lost = before
        .iter()
        .filter(|e| !after.contains(&shortterm::normalize_snippet(&e.text)))
        .count();
    lost as f64 / before.len() as f64
}

/// Whether MEMORY.md already holds `text` as an entry (after its annotations are stripped).
pub fn already_curated(memory: &str, text: &str) -> bool {
    let want = shortterm::normalize_snippet(text);
    curated::entries("MEMORY.md", memory).iter().any(|e| {
        let t = curated::strip_annotations(&e.text);
        promoted_text(&t, usize::MAX) == want
    })
}

/// A staged-candidate line of the light and REM blocks (the original's managed-line shape,
/// which recall never records back).
pub fn candidate_line(lead: &str, text: &str, score: f64, e: &Entry) -> String {
    format!(
        "- {lead}: {text} - confidence: {score:.2} - evidence: {}:{}-{} - recalls: {} - status: staged",
        e.path,
        e.start_line,
        e.end_line,
        e.signal_count()
    )
}

/// A REM pattern: a concept tag recurring across recent entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// The tag.
    pub tag: String,
    /// `min(1, ln(1+entries)/ln(5))`: 3 entries give 0.86.
    pub strength: f64,
    /// The entries carrying it, in store order.
    pub keys: Vec<String>,
    /// Their signals together.
    pub signals: u64,
    /// The first entry (its evidence).
    pub first: Entry,
}

/// Patterns of the entries recalled within the REM lookback, strongest first.
pub fn patterns(store: &Store, now: Timestamp) -> Vec<Pattern> {
    let recent: Vec<&Entry> = store
        .entries
        .iter()
        .filter(|e| days_since(&e.last_recalled_at, now) <= REM_LOOKBACK_DAYS)
        .collect();
    let mut tags: Vec<String> = recent
        .iter()
        .flat_map(|e| e.concept_tags.iter().cloned())
        .collect();
    tags.sort();
    tags.dedup();
    let mut out: Vec<Pattern> = tags
        .into_iter()
        .filter_map(|tag| {
            let with: Vec<&&Entry> = recent
                .iter()
                .filter(|e| e.concept_tags.contains(&tag))
                .collect();
            let strength = clamp01((with.len() as f64).ln_1p() / 4f64.ln_1p());
            (strength >= REM_MIN_STRENGTH).then(|| Pattern {
                strength,
                keys: with.iter().map(|e| e.key.clone()).collect(),
                signals: with.iter().map(|e| e.signal_count()).sum(),
                first: (**with[0]).clone(),
                tag,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.strength
            .total_cmp(&a.strength)
            .then(b.signals.cmp(&a.signals))
            .then_with(|| a.tag.cmp(&b.tag))
    });
    out.truncate(REM_LIMIT);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promoted_text_and_importance() {
        assert_eq!(
            promoted_text("- Gateway binds\n  loopback", 160),
            "Gateway binds loopback"
        );
        assert_eq!(promoted_text("a b c d", 2), "a b…");
        assert_eq!(importance(0.83), 8);
        assert_eq!(importance(0.0), 1);
    }

    #[test]
    fn the_quarter_guard_counts_lost_prior_entries() {
        let prior = "# M\n\n- one\n- two\n- three\n- four\n";
        assert_eq!(prior_loss(prior, &format!("{prior}\n- five\n")), 0.0);
        assert_eq!(prior_loss(prior, "# M\n\n- one\n- two\n- three\n"), 0.25);
        assert_eq!(prior_loss(prior, "# M\n\n- one\n- two\n"), 0.5);
    }
}
