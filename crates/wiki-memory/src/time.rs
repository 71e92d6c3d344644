//! Time windows of `--since` and `--at`, on days (daily notes are dated by day, in UTC like the
//! rest of the toolchain's clock).

use jiff::civil::Date;
use jiff::{Timestamp, tz::TimeZone};

/// An inclusive range of days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First day (inclusive), if bounded.
    pub from: Option<Date>,
    /// Last day (inclusive), if bounded.
    pub to: Option<Date>,
}

impl Window {
    /// Every day.
    pub const ALL: Window = Window {
        from: None,
        to: None,
    };

    /// Whether `day` is inside (an undated fact is inside only the unbounded window).
    pub fn contains(&self, day: Option<Date>) -> bool {
        match day {
            Some(d) => self.from.is_none_or(|f| d >= f) && self.to.is_none_or(|t| d <= t),
            None => self.from.is_none() && self.to.is_none(),
        }
    }

    /// The intersection of two windows.
    pub fn and(self, other: Window) -> Window {
        Window {
            from: match (self.from, other.from) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
            to: match (self.to, other.to) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// The day of a timestamp (UTC).
pub fn day_of(ts: Timestamp) -> Date {
    ts.to_zoned(TimeZone::UTC).date()
}

/// `YYYY-MM-DD` of a timestamp (UTC): the dreaming day bucket.
pub fn day_string(ts: Timestamp) -> String {
    day_of(ts).to_string()
}

/// Parse `--since`: a duration back from `now` (`30d`, `2w`, `12h`, `3m` months, `1y`) or a
/// day (`2025-11-01`). The window starts on that day and is open at the end.
pub fn parse_since(raw: &str, now: Timestamp) -> Result<Window, String> {
    let s = raw.trim();
    let err = || {
        format!(
            "--since must be a duration (30d, 2w, 12h, 3m, 1y) or a day (2025-11-01), found `{raw}`"
        )
    };
    if let Ok(d) = s.parse::<Date>() {
        return Ok(Window {
            from: Some(d),
            to: None,
        });
    }
    let unit = s.chars().last().ok_or_else(err)?;
    let n: i64 = s[..s.len() - unit.len_utf8()]
        .trim()
        .parse()
        .ok()
        .filter(|n| *n >= 0 && *n <= 100_000)
        .ok_or_else(err)?;
    let today = day_of(now);
    let from = match unit {
        'h' => day_of(now - jiff::SignedDuration::from_hours(n)),
        'd' => today
            .checked_sub(jiff::Span::new().days(n))
            .map_err(|_| err())?,
        'w' => today
            .checked_sub(jiff::Span::new().weeks(n))
            .map_err(|_| err())?,
        'm' => today
            .checked_sub(jiff::Span::new().months(n))
            .map_err(|_| err())?,
        'y' => today
            .checked_sub(jiff::Span::new().years(n))
            .map_err(|_| err())?,
        _ => return Err(err()),
    };
    Ok(Window {
        from: Some(from),
        to: None,
    })
}

/// Parse `--at`: a year (`2025`), a month (`2025-11`) or a day (`2025-11-27`).
pub fn parse_at(raw: &str) -> Result<Window, String> {
    let s = raw.trim();
    let err = || {
        format!(
            "--at must be a year (2025), a month (2025-11) or a day (2025-11-27), found `{raw}`"
        )
    };
    if let Ok(d) = s.parse::<Date>() {
        return Ok(Window {
            from: Some(d),
            to: Some(d),
        });
    }
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, len: usize| -> Option<i16> {
        (p.len() == len && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    match parts.as_slice() {
        [y] => {
            let y = num(y, 4).ok_or_else(err)?;
            let from = Date::new(y, 1, 1).map_err(|_| err())?;
            let to = Date::new(y, 12, 31).map_err(|_| err())?;
            Ok(Window {
                from: Some(from),
                to: Some(to),
            })
        }
        [y, m] => {
            let y = num(y, 4).ok_or_else(err)?;
            let m = num(m, 2).ok_or_else(err)?;
            let from = Date::new(y, m as i8, 1).map_err(|_| err())?;
            Ok(Window {
                from: Some(from),
                to: Some(from.last_of_month()),
            })
        }
        _ => Err(err()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn windows() {
        let now: Timestamp = "2026-04-05T12:00:00Z".parse().unwrap();
        assert_eq!(
            parse_since("30d", now).unwrap().from,
            Some(date(2026, 3, 6))
        );
        assert_eq!(
            parse_since("2w", now).unwrap().from,
            Some(date(2026, 3, 22))
        );
        assert_eq!(
            parse_since("13h", now).unwrap().from,
            Some(date(2026, 4, 4))
        );
        assert_eq!(parse_since("1m", now).unwrap().from, Some(date(2026, 3, 5)));
        assert_eq!(
            parse_since("2025-11-01", now).unwrap().from,
            Some(date(2025, 11, 1))
        );
        assert!(parse_since("soon", now).is_err());
        assert!(parse_since("-3d", now).is_err());
        let nov = parse_at("2025-11").unwrap();
        assert_eq!(
            (nov.from, nov.to),
            (Some(date(2025, 11, 1)), Some(date(2025, 11, 30)))
        );
        assert!(nov.contains(Some(date(2025, 11, 27))));
        assert!(!nov.contains(Some(date(2025, 12, 1))));
        assert!(!nov.contains(None));
        assert_eq!(parse_at("2024").unwrap().to, Some(date(2024, 12, 31)));
        assert!(parse_at("2025-13").is_err());
        assert!(parse_at("25").is_err());
        assert!(Window::ALL.contains(None));
    }
}
