//! Claim health shared by digest, dashboards, lint and search: ordering (reference §4.3),
//! contradiction clusters (§4.5) and the locale-like string order used for titles and paths.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::Claim;
use crate::page::PageInfo;
use crate::time::{self, Freshness};

/// An approximation of JavaScript's `localeCompare` (ICU root collation, the default of the
/// original plugin's runtime) that is deterministic and locale-independent.
///
/// Strings are compared in two passes, like ICU's primary and tertiary levels:
///
/// 1. **primary**: characters compared by [`primary_weight`]: ASCII in CLDR root order
///    (control whitespace, space, punctuation `_-,;:!?.'"()[]{}@*/\&#%`, symbols `` `^+<=>|~$``,
///    digits, then letters with upper and lower case equal), every other character after ASCII,
///    by its lowercase code point (so CJK titles sort after Latin ones, as in ICU); a string that
///    is a prefix of the other sorts first;
/// 2. **tertiary**: at the first position where the strings differ only in case, lowercase sorts
///    first (`alpha` < `Alpha`).
///
/// Known differences from ICU: accented Latin letters sort after `z` instead of next to their
/// base letter, and non-Latin scripts are ordered by code point. Identical strings compare
/// `Equal`, so stable sorts keep input order for ties, as JavaScript's `toSorted` does.
pub fn locale_cmp(a: &str, b: &str) -> Ordering {
    // Identical leading characters weigh the same on every level: skip the common prefix (at a
    // character boundary) and compare the rest.
    let common = a
        .as_bytes()
        .iter()
        .zip(b.as_bytes())
        .take_while(|(x, y)| x == y)
        .count();
    let mut i = common;
    while !a.is_char_boundary(i) || !b.is_char_boundary(i) {
        i -= 1;
    }
    let (a, b) = (&a[i..], &b[i..]);
    let fa = a.chars().flat_map(char::to_lowercase).map(primary_weight);
    let fb = b.chars().flat_map(char::to_lowercase).map(primary_weight);
    fa.cmp(fb).then_with(|| {
        // Tertiary: lowercase before uppercase at the first case difference.
        for (x, y) in a.chars().zip(b.chars()) {
            if x != y {
                return match (x.is_lowercase(), y.is_lowercase()) {
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    _ => x.cmp(&y),
                };
            }
        }
        a.len().cmp(&b.len())
    })
}

/// Weights kept in a [`LocaleKey`].
const KEY_WEIGHTS: usize = 16;

/// A precomputed prefix of a string's primary weights (see [`locale_cmp`]): comparing two keys
/// decides most comparisons without walking the strings again; equal keys fall back to
/// [`locale_cmp`]. Shorter strings are padded with weight 0, which no real character outweighs,
/// so "a prefix sorts first" is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LocaleKey([u32; KEY_WEIGHTS]);

impl LocaleKey {
    /// The key of `s`.
    pub fn of(s: &str) -> LocaleKey {
        let mut k = [0u32; KEY_WEIGHTS];
        for (slot, w) in k
            .iter_mut()
            .zip(s.chars().flat_map(char::to_lowercase).map(primary_weight))
        {
            *slot = w;
        }
        LocaleKey(k)
    }
}

/// Sort `items` stably by [`locale_cmp`] of `text(item)`, exactly like
/// `items.sort_by(|a, b| locale_cmp(text(a), text(b)))`, computing each string's weights once.
pub fn sort_by_locale<T: Sync>(items: &mut Vec<T>, text: impl Fn(&T) -> &str + Sync) {
    sort_by_locale_then(items, text, |_, _| Ordering::Equal);
}

/// [`sort_by_locale`] with equal texts ordered by `then` (stable for the rest): the order of
/// `items.sort_by(then)` followed by `sort_by_locale(items, text)`, in one sort whose `then`
/// runs only for equal texts.
pub fn sort_by_locale_then<T: Sync>(
    items: &mut Vec<T>,
    text: impl Fn(&T) -> &str + Sync,
    then: impl Fn(&T, &T) -> Ordering + Sync,
) {
    use rayon::prelude::*;
    // Keys and sort in parallel (a vault's titles: ~10,000 keys, each a walk over its text).
    let mut keyed: Vec<(LocaleKey, usize)> = items
        .par_iter()
        .enumerate()
        .map(|(i, t)| (LocaleKey::of(text(t)), i))
        .collect();
    keyed.par_sort_by(|a, b| {
        let (x, y) = (&items[a.1], &items[b.1]);
        a.0.cmp(&b.0)
            .then_with(|| locale_cmp(text(x), text(y)))
            .then_with(|| then(x, y))
    });
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(keyed.into_iter().filter_map(|(_, i)| slots[i].take()));
}

/// CLDR root order of the printable ASCII characters other than letters and digits.
const ASCII_ORDER: &[u8] = b" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789";

/// Primary weights of the 128 ASCII characters (see [`primary_weight`]).
const ASCII_WEIGHTS: [u32; 128] = {
    let mut w = [0u32; 128];
    let mut c = 0;
    while c < 128 {
        // Control characters first; the whitespace controls in their CLDR order.
        w[c] = match c {
            0x09 => 0,
            0x0a => 1,
            0x0b => 2,
            0x0c => 3,
            0x0d => 4,
            _ => (c & 0x1f) as u32,
        };
        c += 1;
    }
    let mut i = 0;
    while i < ASCII_ORDER.len() {
        w[ASCII_ORDER[i] as usize] = 10 + i as u32;
        i += 1;
    }
    let mut l = 0;
    while l < 26 {
        w[b'a' as usize + l] = 100 + l as u32;
        w[b'A' as usize + l] = 100 + l as u32;
        l += 1;
    }
    w
};

/// The primary collation weight of a (lowercased) character used by [`locale_cmp`]: ASCII in
/// CLDR root order (control whitespace, other controls, space, punctuation, symbols, digits,
/// letters), every other character after ASCII by code point.
pub fn primary_weight(c: char) -> u32 {
    if c.is_ascii() {
        ASCII_WEIGHTS[c as usize]
    } else {
        0x200 + c as u32
    }
}

/// Claim order (reference §4.3): confidence descending (missing = −1), then freshness rank
/// descending (fresh, aging, stale, unknown), then text.
pub fn claim_order(a: (&Claim, &Freshness), b: (&Claim, &Freshness)) -> Ordering {
    let ca = a.0.confidence.unwrap_or(-1.0);
    let cb = b.0.confidence.unwrap_or(-1.0);
    cb.partial_cmp(&ca)
        .unwrap_or(Ordering::Equal)
        .then_with(|| b.1.level.rank().cmp(&a.1.level.rank()))
        .then_with(|| locale_cmp(&a.0.text, &b.0.text))
}

/// A claim with its freshness.
#[derive(Debug, Clone)]
pub struct RatedClaim<'a> {
    /// The claim.
    pub claim: &'a Claim,
    /// Index of the claim in the page's `claims`.
    pub index: usize,
    /// Its freshness.
    pub freshness: Freshness,
}

/// The claims of a page with their freshness, in claim order.
pub fn sorted_claims(page: &PageInfo, now_ms: i64) -> Vec<RatedClaim<'_>> {
    let mut out: Vec<RatedClaim<'_>> = page
        .summary
        .claims
        .iter()
        .enumerate()
        .map(|(index, claim)| RatedClaim {
            claim,
            index,
            freshness: time::claim_freshness(claim, page.summary.updated_at.as_deref(), now_ms),
        })
        .collect();
    out.sort_by(|a, b| claim_order((a.claim, &a.freshness), (b.claim, &b.freshness)));
    out
}

/// Cluster kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterKind {
    /// Page `contradictions` notes that normalise to the same key.
    PageNote,
    /// Claims sharing an explicit id with competing text or status.
    ClaimId,
}

/// One member of a contradiction cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterEntry {
    /// Index of the page in the input slice.
    pub page: usize,
    /// For claim-id clusters: index of the claim in the page's claims.
    pub claim: Option<usize>,
    /// For page-note clusters: the note text.
    pub note: Option<String>,
}

/// A contradiction cluster (digest `contradictionClusters`).
#[derive(Debug, Clone, PartialEq)]
pub struct ContradictionCluster {
    /// Grouping key (normalised note, or claim id).
    pub key: String,
    /// Display label (first note as written, or claim id).
    pub label: String,
    /// Kind.
    pub kind: ClusterKind,
    /// Members sorted by page path ([`locale_cmp`]; stable, so one page's entries keep their
    /// order).
    pub entries: Vec<ClusterEntry>,
    /// Sorted unique page paths.
    pub paths: Vec<String>,
}

/// Normalise a contradiction note like the original plugin: trimmed and lowercased, then every
/// run of characters that are not letters, numbers or marks becomes one space. The result is
/// not trimmed again, so `Alpha's DB: Postgres vs MySQL?` (key ending in a space) and
/// `alpha's db -- postgres vs MySQL` stay in different clusters, as they do upstream.
pub fn note_key(note: &str) -> String {
    let mut out = String::with_capacity(note.len());
    let mut in_gap = false;
    for c in note.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || is_mark(c) {
            in_gap = false;
            out.push(c);
        } else if !in_gap {
            in_gap = true;
            out.push(' ');
        }
    }
    out
}

/// Combining marks (general category M), so `किताब` and `कीताब` stay distinct: the ranges of the
/// class `\p{M}` as the regex crate knows it (its Unicode tables), looked up by binary search.
/// Compiling the regex itself would build a whole automaton for one class; parsing the class
/// only reads the table.
pub fn is_mark(c: char) -> bool {
    static RANGES: std::sync::OnceLock<Vec<(char, char)>> = std::sync::OnceLock::new();
    if c.is_ascii() {
        return false;
    }
    let ranges = RANGES.get_or_init(|| {
        use regex_syntax::hir::{Class, HirKind};
        match regex_syntax::Parser::new()
            .parse(r"\p{M}")
            .map(|h| h.into_kind())
        {
            Ok(HirKind::Class(Class::Unicode(class))) => class
                .ranges()
                .iter()
                .map(|r| (r.start(), r.end()))
                .collect(),
            // (A fixed, valid pattern: not reached.)
            _ => Vec::new(),
        }
    });
    let at = ranges.partition_point(|&(_, end)| end < c);
    ranges.get(at).is_some_and(|&(start, _)| start <= c)
}

fn text_key(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Contradiction clusters over `pages` (give them in title order): one page-note cluster per
/// distinct note key (labelled with the first note in page order), and one claim-id cluster per
/// explicit claim id that occurs at least twice with differing normalised text or status. Sorted
/// by label; the entries of each cluster are sorted by page path.
pub fn contradiction_clusters(pages: &[&PageInfo]) -> Vec<ContradictionCluster> {
    let mut clusters: Vec<ContradictionCluster> = Vec::new();
    let mut note_index: HashMap<String, usize> = HashMap::new();
    for (pi, page) in pages.iter().enumerate() {
        for note in &page.summary.contradictions {
            let key = note_key(note);
            if key.is_empty() {
                continue;
            }
            let idx = *note_index.entry(key.clone()).or_insert_with(|| {
                clusters.push(ContradictionCluster {
                    key: key.clone(),
                    label: note.clone(),
                    kind: ClusterKind::PageNote,
                    entries: Vec::new(),
                    paths: Vec::new(),
                });
                clusters.len() - 1
            });
            clusters[idx].entries.push(ClusterEntry {
                page: pi,
                claim: None,
                note: Some(note.clone()),
            });
        }
    }
    // Claim ids used more than once, in order of first use (most ids are used once: counted
    // first, without copying them).
    let claim_ids = || {
        pages.iter().enumerate().flat_map(|(pi, page)| {
            page.summary
                .claims
                .iter()
                .enumerate()
                .filter_map(move |(ci, c)| Some((pi, ci, c.id.as_deref()?)))
        })
    };
    // One hash per claim (foldhash: std's SipHash was most of the digest header's time on large
    // vaults): each id's first use, and the entries of ids used again (most ids are used once,
    // so nothing is copied for them); nothing iterates the map.
    let ids = pages.iter().map(|p| p.summary.claims.len()).sum::<usize>();
    let mut seen: HashMap<&str, usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(ids, foldhash::fast::RandomState::default());
    let mut first_use: Vec<(&str, ClusterEntry)> = Vec::with_capacity(ids);
    let mut again: Vec<Vec<ClusterEntry>> = Vec::with_capacity(ids);
    for (pi, ci, id) in claim_ids() {
        let entry = ClusterEntry {
            page: pi,
            claim: Some(ci),
            note: None,
        };
        match seen.entry(id) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(first_use.len());
                first_use.push((id, entry));
                again.push(Vec::new());
            }
            std::collections::hash_map::Entry::Occupied(o) => again[*o.get()].push(entry),
        }
    }
    let by_id: Vec<(String, Vec<ClusterEntry>)> = first_use
        .into_iter()
        .zip(again)
        .filter(|(_, more)| !more.is_empty())
        .map(|((id, first), more)| {
            let mut entries = Vec::with_capacity(more.len() + 1);
            entries.push(first);
            entries.extend(more);
            (id.to_string(), entries)
        })
        .collect();
    for (id, entries) in by_id {
        let claim_of = |e: &ClusterEntry| &pages[e.page].summary.claims[e.claim.unwrap_or(0)];
        let first = claim_of(&entries[0]);
        let (t0, s0) = (text_key(&first.text), first.normalized_status());
        let competing = entries.iter().skip(1).any(|e| {
            let c = claim_of(e);
            text_key(&c.text) != t0 || c.normalized_status() != s0
        });
        if competing {
            clusters.push(ContradictionCluster {
                key: id.clone(),
                label: id,
                kind: ClusterKind::ClaimId,
                entries,
                paths: Vec::new(),
            });
        }
    }
    for c in &mut clusters {
        c.entries
            .sort_by(|x, y| locale_cmp(&pages[x.page].path, &pages[y.page].path));
        let mut paths: Vec<String> = c
            .entries
            .iter()
            .map(|e| pages[e.page].path.clone())
            .collect();
        paths.sort();
        paths.dedup();
        c.paths = paths;
    }
    clusters.sort_by(|a, b| locale_cmp(&a.label, &b.label));
    clusters
}

/// The clock window `[from, until)` around `now_ms` in which no freshness level of `pages`
/// changes.
pub fn validity(pages: &[PageInfo], now_ms: i64) -> (i64, i64) {
    validity_of(&pages.iter().collect::<Vec<_>>(), now_ms)
}

/// [`validity`] over page references, in parallel (every timestamp of a vault is parsed: a
/// minimum and a maximum, so the result does not depend on how the work is split).
pub fn validity_of(pages: &[&PageInfo], now_ms: i64) -> (i64, i64) {
    use rayon::prelude::*;
    pages
        .par_iter()
        .with_min_len(256)
        .map(|p| page_validity(p, now_ms))
        .reduce(|| (i64::MIN, i64::MAX), |a, b| (a.0.max(b.0), a.1.min(b.1)))
}

fn page_validity(p: &PageInfo, now_ms: i64) -> (i64, i64) {
    let (mut lo, mut hi) = (i64::MIN, i64::MAX);
    let mut consider = |ts: Option<&str>| {
        let Some(ms) = ts.and_then(time::parse_timestamp_ms) else {
            return;
        };
        for days in [time::AGING_DAYS, time::STALE_DAYS] {
            let t = ms.saturating_add(days * 86_400_000);
            if t <= now_ms {
                lo = lo.max(t);
            } else {
                hi = hi.min(t);
            }
        }
    };
    consider(p.summary.updated_at.as_deref());
    for c in &p.summary.claims {
        consider(c.updated_at.as_deref());
        for e in &c.evidence {
            consider(e.updated_at.as_deref());
        }
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    #[test]
    fn window_brackets_now() {
        let page = crate::parse_page(
            "entities/a.md",
            b"---\nupdatedAt: 2026-03-01T00:00:00.000Z\nclaims:\n  - text: x\n    evidence:\n      - updatedAt: 2026-01-01T00:00:00.000Z\n---\n",
        )
        .unwrap();
        let now = crate::time::parse_timestamp_ms("2026-04-05T12:00:00Z").unwrap();
        let (lo, hi) = super::validity(std::slice::from_ref(&page.info), now);
        // 2026-03-01 + 30d = 2026-03-31 (passed); 2026-01-01 + 90d = 2026-04-01 (passed);
        // next: 2026-03-01 + 90d = 2026-05-30.
        assert_eq!(
            lo,
            crate::time::parse_timestamp_ms("2026-04-01T00:00:00Z").unwrap()
        );
        assert_eq!(
            hi,
            crate::time::parse_timestamp_ms("2026-05-30T00:00:00Z").unwrap()
        );
        assert_eq!(super::validity(&[], now), (i64::MIN, i64::MAX));
    }

    #[test]
    fn sort_by_locale_is_sort_by_locale_cmp() {
        let words = [
            "alpha",
            "Alpha",
            "alphabet",
            "alpha beta",
            "alpha-beta",
            "Ärger",
            "zeta",
            "",
            "a",
            "A",
            "éclair",
            "eclair",
            "東京",
            "x1",
            "x10",
            "x2",
            "same prefix for sixteen+ one",
            "same prefix for sixteen+ two",
            "same prefix for sixteen+ One",
            "İstanbul",
            "istanbul",
            "a\u{1}",
            "a\u{0}",
            "a",
        ];
        let mut want: Vec<&str> = words.to_vec();
        want.sort_by(|a, b| super::locale_cmp(a, b));
        let mut got: Vec<&str> = words.to_vec();
        super::sort_by_locale(&mut got, |s| s);
        assert_eq!(got, want);
    }

    use super::*;

    #[test]
    fn is_mark_is_the_regex_class_of_marks() {
        let re = regex::Regex::new(r"^\p{M}$").expect("valid regex");
        let mut buf = [0u8; 4];
        let differ: Vec<u32> = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| is_mark(c) != re.is_match(c.encode_utf8(&mut buf)))
            .map(u32::from)
            .take(20)
            .collect();
        assert!(differ.is_empty(), "code points that differ: {differ:x?}");
        assert!(
            is_mark('\u{0301}') && is_mark('\u{093F}') && !is_mark('a') && !is_mark('\u{0915}')
        );
    }
    use crate::page::parse_page;

    #[test]
    fn note_keys() {
        assert_eq!(
            note_key("  Conflicts with: source.BETA!! "),
            "conflicts with source beta "
        );
        assert_eq!(
            note_key("alpha's db -- postgres vs MySQL"),
            "alpha s db postgres vs mysql"
        );
        assert_eq!(
            note_key("Alpha's DB: Postgres vs MySQL?"),
            "alpha s db postgres vs mysql "
        );
        assert_ne!(note_key("किताब"), note_key("कीताब"));
    }

    #[test]
    fn clusters() {
        let a = parse_page(
            "entities/a.md",
            b"---\ncontradictions: [Conflicts with source.beta]\nclaims:\n  - id: claim.x\n    text: Uses PG\n  - id: claim.same\n    text: Same\n---\n",
        )
        .unwrap();
        let b = parse_page(
            "entities/b.md",
            b"---\ncontradictions: ['conflicts with source beta']\nclaims:\n  - id: claim.x\n    text: Uses MySQL\n  - id: claim.same\n    text: '  same '\n---\n",
        )
        .unwrap();
        let pages = [&a.info, &b.info];
        let cl = contradiction_clusters(&pages);
        assert_eq!(cl.len(), 2);
        assert_eq!(cl[0].label, "claim.x");
        assert_eq!(cl[0].kind, ClusterKind::ClaimId);
        assert_eq!(cl[0].paths, vec!["entities/a.md", "entities/b.md"]);
        assert_eq!(cl[1].kind, ClusterKind::PageNote);
        assert_eq!(cl[1].label, "Conflicts with source.beta");
        assert_eq!(cl[1].entries.len(), 2);
    }

    #[test]
    fn locale_order() {
        let mut v = vec!["beta", "Alpha", "alpha", "Gamma"];
        v.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(v, vec!["alpha", "Alpha", "beta", "Gamma"]);
        // Orders produced by node's `localeCompare` (ICU root).
        let mut v = vec![
            "ab",
            "a-b",
            "a_b",
            "a b",
            "a.b",
            "A-b",
            "aB",
            "Ab",
            "ab2",
            "af",
            "a\u{4e00}",
            "e",
            "z",
            "Z",
            "a",
        ];
        v.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(
            v,
            vec![
                "a",
                "a b",
                "a_b",
                "a-b",
                "A-b",
                "a.b",
                "ab",
                "aB",
                "Ab",
                "ab2",
                "af",
                "a\u{4e00}",
                "e",
                "z",
                "Z"
            ]
        );
        let mut ascii: Vec<String> = (32u8..127).map(|b| (b as char).to_string()).collect();
        ascii.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(
            ascii.concat(),
            " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
        );
        assert_eq!(
            locale_cmp("claim.a.db\"", "claim.a.db.x\""),
            Ordering::Greater
        );
        assert_eq!(locale_cmp("x", "x"), Ordering::Equal);
    }
}
