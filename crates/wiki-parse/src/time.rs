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
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
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
    /// `last touched <ts>` or `missing updatedAt`.
    pub reason: String,
}

impl Freshness {
    /// Unknown freshness.
    pub fn unknown() -> Freshness {
        Freshness {
            level: FreshnessLevel::Unknown,
            days_since_touch: None,
            last_touched_at: None,
            reason: "missing updatedAt".into(),
        }
    }

    /// The dashboard label: `fresh (<ts>)`, `aging (<ts>)`, `stale (<ts>)`, or the reason for
    /// unknown.
    pub fn label(&self) -> String {
        match self.level {
            FreshnessLevel::Unknown => self.reason.clone(),
            FreshnessLevel::Fresh => format!(
                "fresh ({})",
                self.last_touched_at.as_deref().unwrap_or("recent")
            ),
            level => format!(
                "{} ({})",
                level.as_str(),
                self.last_touched_at.as_deref().unwrap_or("")
            ),
        }
    }
}

fn from_touch(ts: &str, ms: i64, now_ms: i64) -> Freshness {
    let days = ((now_ms - ms).max(0)) / DAY_MS;
    let level = if days >= STALE_DAYS {
        FreshnessLevel::Stale
    } else if days >= AGING_DAYS {
        FreshnessLevel::Aging
    } else {
        FreshnessLevel::Fresh
    };
    Freshness {
        level,
        days_since_touch: Some(days),
        last_touched_at: Some(ts.to_string()),
        reason: format!("last touched {ts}"),
    }
}

/// Page freshness: the page's `updatedAt` only.
pub fn page_freshness(updated_at: Option<&str>, now_ms: i64) -> Freshness {
    match updated_at.and_then(|ts| parse_timestamp_ms(ts).map(|ms| (ts, ms))) {
        Some((ts, ms)) => from_touch(ts, ms, now_ms),
        None => Freshness::unknown(),
    }
}

/// Claim freshness: the latest parseable of the claim's `updatedAt`, the page's `updatedAt` and
/// each evidence `updatedAt`. A claim whose own `updatedAt` is present but not a date is unknown
/// (newest upstream behaviour: a malformed claim date is not papered over by the page's date).
pub fn claim_freshness(claim: &Claim, page_updated_at: Option<&str>, now_ms: i64) -> Freshness {
    if let Some(own) = claim.updated_at.as_deref()
        && parse_timestamp_ms(own).is_none()
    {
        return Freshness::unknown();
    }
    let mut best: Option<(&str, i64)> = None;
    let candidates = claim
        .updated_at
        .as_deref()
        .into_iter()
        .chain(page_updated_at)
        .chain(
            claim
                .evidence
                .iter()
                .filter_map(|e| e.updated_at.as_deref()),
        );
    for ts in candidates {
        if let Some(ms) = parse_timestamp_ms(ts)
            && best.is_none_or(|(_, b)| ms > b)
        {
            best = Some((ts, ms));
        }
    }
    match best {
        Some((ts, ms)) => from_touch(ts, ms, now_ms),
        None => Freshness::unknown(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Evidence;

    fn now() -> i64 {
        parse_timestamp_ms("2026-04-05T12:00:00.000Z").unwrap()
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
        assert_eq!(f.reason, "missing updatedAt");
    }
}
