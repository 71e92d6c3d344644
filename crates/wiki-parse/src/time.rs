//! Timestamps and freshness (reference §4.2).
//!
//! Freshness compares a "last touched" timestamp with a clock (`now`, pinned by `WIKI_NOW` or
//! `--now` in tests and CI): `days = max(0, floor((now − ts) / 1 day))`; `days ≥ 90` → stale,
//! `≥ 30` → aging, else fresh; no parseable timestamp → unknown (reason `missing updatedAt`).
//!
//! Timestamps are parsed like JavaScript's `Date.parse` for the ISO forms vaults contain:
//! RFC 3339 with `Z` or an offset (`2026-04-05T12:00:00.000Z`), a plain date (`2026-04-05`,
//! midnight UTC) and a date-time without offset (read as UTC, so results do not depend on the
//! machine's time zone).

use serde::{Deserialize, Serialize};

use crate::model::Claim;

/// Days after which a page or claim is "aging".
pub const AGING_DAYS: i64 = 30;
/// Days after which a page or claim is "stale".
pub const STALE_DAYS: i64 = 90;
const DAY_MS: i64 = 86_400_000;

/// Parse a timestamp into milliseconds since the Unix epoch.
pub fn parse_timestamp_ms(raw: &str) -> Option<i64> {
    // Timestamps rarely carry spaces: skip the Unicode-aware trim when both ends are ASCII
    // non-space bytes (then neither end can be whitespace).
    let solid = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii() && !b.is_ascii_whitespace());
    let s = if solid(raw.as_bytes().first()) && solid(raw.as_bytes().last()) {
        raw
    } else {
        raw.trim()
    };
    if s.is_empty() {
        return None;
    }
    if let Some(ms) = parse_common_utc(s.as_bytes()) {
        return Some(ms);
    }
    parse_general_ms(s)
}

/// The forms compile writes and vaults mostly hold, `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` and
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (years 1000–9998, a valid calendar date, seconds up to 59), read
/// without the general parser (a vault's digest parses every claim date several times). `None`:
/// not exactly one of those forms (the general parser decides). Same result as the general
/// parser for every input it accepts (tested).
fn parse_common_utc(b: &[u8]) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b.get(r)?.iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    if !matches!(b.len(), 10 | 20 | 24) || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1000..=9998).contains(&y)
        || !(1..=12).contains(&m)
        || d < 1
        || d > month_days[(m - 1) as usize]
    {
        return None;
    }
    // Days since 1970-01-01 of the civil date (proleptic Gregorian; H. Hinnant's algorithm).
    let yy = if m <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let mut ms = days * DAY_MS;
    if b.len() == 10 {
        return Some(ms);
    }
    if b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[b.len() - 1] != b'Z' {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    ms += ((h * 60 + mi) * 60 + sec) * 1000;
    if b.len() == 24 {
        if b[19] != b'.' {
            return None;
        }
        ms += num(20..23)?;
    }
    Some(ms)
}

/// [`parse_timestamp_ms`] for every form: RFC 3339 with any offset and fraction, date-times
/// without offset (UTC), plain dates.
fn parse_general_ms(s: &str) -> Option<i64> {
    if let Ok(ts) = s.parse::<jiff::Timestamp>() {
        return Some(ts.as_millisecond());
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().as_millisecond());
    }
    if let Ok(d) = s.parse::<jiff::civil::Date>() {
        return d
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp().as_millisecond());
    }
    None
}

/// Freshness level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FreshnessLevel {
    /// Touched less than 30 days ago.
    Fresh,
    /// 30–89 days.
    Aging,
    /// 90 days or more.
    Stale,
    /// No parseable timestamp.
    Unknown,
}

impl FreshnessLevel {
    /// `fresh`, `aging`, `stale`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            FreshnessLevel::Fresh => "fresh",
            FreshnessLevel::Aging => "aging",
            FreshnessLevel::Stale => "stale",
            FreshnessLevel::Unknown => "unknown",
        }
    }

    /// Rank used by claim ordering: fresh 3, aging 2, stale 1, unknown 0.
    pub fn rank(self) -> u8 {
        match self {
            FreshnessLevel::Fresh => 3,
            FreshnessLevel::Aging => 2,
            FreshnessLevel::Stale => 1,
            FreshnessLevel::Unknown => 0,
        }
    }
}

/// Freshness of a page or claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Freshness {
    /// The level.
    pub level: FreshnessLevel,
    /// Whole days since the last touch (absent when unknown).
    pub days_since_touch: Option<i64>,
    /// The winning timestamp as written.
    pub last_touched_at: Option<String>,
}

impl Freshness {
    /// Unknown freshness.
    pub fn unknown() -> Freshness {
        Freshness {
            level: FreshnessLevel::Unknown,
            days_since_touch: None,
            last_touched_at: None,
        }
    }

    /// `last touched <ts>`, or `missing updatedAt` (unknown). Built on demand: dashboards and
    /// lint compute the freshness of every claim of a vault and print few reasons.
    pub fn reason(&self) -> String {
        match &self.last_touched_at {
            Some(ts) => format!("last touched {ts}"),
            None => "missing updatedAt".into(),
        }
    }

    /// The dashboard label: `fresh (<ts>)`, `aging (<ts>)`, `stale (<ts>)`, or the reason for
    /// unknown.
    pub fn label(&self) -> String {
        let mut out = String::new();
        self.push_label(&mut out);
        out
    }

    /// Append [`Freshness::label`] to `out` (dashboards write one per claim of a vault).
    pub fn push_label(&self, out: &mut String) {
        let ts = self.last_touched_at.as_deref();
        match self.level {
            FreshnessLevel::Unknown => out.push_str(&self.reason()),
            level => {
                out.push_str(level.as_str());
                out.push_str(" (");
                out.push_str(match level {
                    FreshnessLevel::Fresh => ts.unwrap_or("recent"),
                    _ => ts.unwrap_or(""),
                });
                out.push(')');
            }
        }
    }
}

fn level_of(days: i64) -> FreshnessLevel {
    if days >= STALE_DAYS {
        FreshnessLevel::Stale
    } else if days >= AGING_DAYS {
        FreshnessLevel::Aging
    } else {
        FreshnessLevel::Fresh
    }
}

fn days_since(ms: i64, now_ms: i64) -> i64 {
    ((now_ms - ms).max(0)) / DAY_MS
}

fn from_touch(ts: &str, ms: i64, now_ms: i64) -> Freshness {
    let days = days_since(ms, now_ms);
    Freshness {
        level: level_of(days),
        days_since_touch: Some(days),
        last_touched_at: Some(ts.to_string()),
    }
}

/// Page freshness: the page's `updatedAt` only.
pub fn page_freshness(updated_at: Option<&str>, now_ms: i64) -> Freshness {
    match touch(updated_at) {
        Some((ts, ms)) => from_touch(ts, ms, now_ms),
        None => Freshness::unknown(),
    }
}

/// Claim freshness: the latest parseable of the claim's `updatedAt`, the page's `updatedAt` and
/// each evidence `updatedAt`. A claim whose own `updatedAt` is present but not a date is unknown
/// (newest upstream behaviour: a malformed claim date is not papered over by the page's date).
pub fn claim_freshness(claim: &Claim, page_updated_at: Option<&str>, now_ms: i64) -> Freshness {
    match claim_last_touch(claim, touch(page_updated_at)) {
        Some((ts, ms)) => from_touch(ts, ms, now_ms),
        None => Freshness::unknown(),
    }
}

/// A timestamp as written with its value in ms, when it parses (e.g. a page's `updatedAt`,
/// parsed once for all its claims by [`claim_freshness_level_at`]'s callers).
pub fn touch(ts: Option<&str>) -> Option<(&str, i64)> {
    let ts = ts?;
    Some((ts, parse_timestamp_ms(ts)?))
}

/// The level of [`claim_freshness`] (without building the rest: counts over every claim of a
/// vault), with the page's `updatedAt` already parsed ([`touch`]).
pub fn claim_freshness_level_at(
    claim: &Claim,
    page: Option<(&str, i64)>,
    now_ms: i64,
) -> FreshnessLevel {
    match claim_last_touch(claim, page) {
        Some((_, ms)) => level_of(days_since(ms, now_ms)),
        None => FreshnessLevel::Unknown,
    }
}

/// The timestamp [`claim_freshness`] measures from (as written, and in ms), if any: the latest
/// of the claim's own, the page's and the evidence's, the first of equal ones; none when the
/// claim's own is not a date.
fn claim_last_touch<'a>(claim: &'a Claim, page: Option<(&'a str, i64)>) -> Option<(&'a str, i64)> {
    let own = match claim.updated_at.as_deref() {
        Some(own) => Some((own, parse_timestamp_ms(own)?)),
        None => None,
    };
    let evidence = claim
        .evidence
        .iter()
        .filter_map(|e| touch(e.updated_at.as_deref()));
    own.into_iter()
        .chain(page)
        .chain(evidence)
        .fold(None, |best, t| match best {
            Some((_, b)) if t.1 <= b => best,
            _ => Some(t),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Evidence;

    fn now() -> i64 {
        parse_timestamp_ms("2026-04-05T12:00:00.000Z").unwrap()
    }

    /// The shortcut for the common forms agrees with the general parser on valid and invalid
    /// dates, times and shapes.
    #[test]
    fn common_forms_parse_like_the_general_parser() {
        let mut inputs: Vec<String> = Vec::new();
        for y in [
            1000, 1582, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2026, 2100, 2400, 9999,
        ] {
            for m in 0..=13 {
                for d in [0, 1, 9, 10, 15, 28, 29, 30, 31, 32] {
                    inputs.push(format!("{y:04}-{m:02}-{d:02}"));
                    for (h, mi, s) in [
                        (0, 0, 0),
                        (12, 34, 56),
                        (23, 59, 59),
                        (24, 0, 0),
                        (7, 60, 1),
                        (7, 5, 60),
                    ] {
                        inputs.push(format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"));
                        inputs.push(format!(
                            "{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
                            (y + d) % 1000
                        ));
                    }
                }
            }
        }
        for odd in [
            "2026-04-05T12:00:00.000z",
            "2026-04-05t12:00:00Z",
            "2026-04-05 12:00:00Z",
            "2026-04-05T12:00:00,000Z",
            "2026-04-05T12:00:00.0000Z",
            "2026-4-05",
            "0999-01-01",
            "2026-04-05T12:00:00.00xZ",
            "2026-04-05T12:00:00.000+00:00",
            "+2026-04-05",
            "2026-04-5 ",
            "２０２６-04-05",
            "2026-04-05T12:00Z",
            "2026-04-05T12:00:00",
        ] {
            inputs.push(odd.to_string());
        }
        for s in &inputs {
            if let Some(ms) = parse_common_utc(s.as_bytes()) {
                assert_eq!(Some(ms), parse_general_ms(s), "{s}");
            }
            assert_eq!(parse_timestamp_ms(s), parse_general_ms(s.trim()), "{s}");
        }
        assert_eq!(
            parse_common_utc(b"2026-04-05T12:00:00.000Z"),
            Some(1_775_390_400_000)
        );
    }

    #[test]
    fn parses_iso_forms() {
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_timestamp_ms("1970-01-02"), Some(DAY_MS));
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:01"), Some(1000));
        assert_eq!(parse_timestamp_ms("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_timestamp_ms("not-a-date"), None);
        assert_eq!(parse_timestamp_ms(""), None);
    }

    #[test]
    fn thresholds() {
        let f = |ts: &str| page_freshness(Some(ts), now());
        assert_eq!(f("2026-04-01T00:00:00.000Z").level, FreshnessLevel::Fresh);
        assert_eq!(f("2026-03-06T12:00:00.000Z").level, FreshnessLevel::Aging); // 30 days
        let aging = f("2026-01-05T12:00:01.000Z"); // 89.99 days
        assert_eq!(aging.level, FreshnessLevel::Aging);
        assert_eq!(aging.days_since_touch, Some(89));
        assert_eq!(f("2025-10-01T00:00:00.000Z").level, FreshnessLevel::Stale);
        assert_eq!(f("2030-01-01").days_since_touch, Some(0));
        assert_eq!(page_freshness(None, now()).label(), "missing updatedAt");
        assert_eq!(page_freshness(None, now()).reason(), "missing updatedAt");
        assert_eq!(
            f("2026-04-01T00:00:00.000Z").reason(),
            "last touched 2026-04-01T00:00:00.000Z"
        );
        assert_eq!(
            f("2025-10-01T00:00:00.000Z").label(),
            "stale (2025-10-01T00:00:00.000Z)"
        );
    }

    #[test]
    fn claim_uses_latest_touch() {
        let claim = Claim {
            text: "x".into(),
            evidence: vec![Evidence {
                updated_at: Some("2026-04-01T00:00:00.000Z".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let f = claim_freshness(&claim, Some("2025-01-01T00:00:00.000Z"), now());
        assert_eq!(f.level, FreshnessLevel::Fresh);
        assert_eq!(
            f.last_touched_at.as_deref(),
            Some("2026-04-01T00:00:00.000Z")
        );
        let bad = Claim {
            text: "x".into(),
            updated_at: Some("not-a-date".into()),
            ..Default::default()
        };
        let f = claim_freshness(&bad, Some("2026-04-01T00:00:00.000Z"), now());
        assert_eq!(f.level, FreshnessLevel::Unknown);
        assert_eq!(f.reason(), "missing updatedAt");
    }

    #[test]
    fn claim_level_is_claim_freshness_level() {
        let dates = [
            None,
            Some("not-a-date"),
            Some("2026-04-01T00:00:00.000Z"),
            Some("2026-03-06T12:00:00.000Z"),
            Some("2026-01-05T12:00:01Z"),
            Some("2025-10-01"),
            Some("2030-01-01"),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for own in dates {
            for page in dates {
                for ev in dates {
                    let claim = Claim {
                        text: "x".into(),
                        updated_at: own.map(String::from),
                        evidence: vec![
                            Evidence {
                                updated_at: ev.map(String::from),
                                ..Default::default()
                            },
                            Evidence::default(),
                        ],
                        ..Default::default()
                    };
                    let level = claim_freshness(&claim, page, now()).level;
                    assert_eq!(claim_freshness_level_at(&claim, touch(page), now()), level);
                    seen.insert(level.as_str());
                }
            }
        }
        assert_eq!(seen.len(), 4, "{seen:?}");
    }
}
