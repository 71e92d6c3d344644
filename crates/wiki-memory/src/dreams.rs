//! `DREAMS.md`, the dream diary for human review (reference §14.8), byte-compatible with the
//! original's layout:
//!
//! ```text
//! # Dream Diary
//!
//! <!-- openclaw:dreaming:diary:start -->
//! ---
//!
//! *April 5, 2026, 3:00 AM*
//!
//! <narrative>
//!
//! ---
//!
//! *January 1, 2025*
//!
//! <!-- openclaw:dreaming:backfill-entry day=2025-01-01 source=memory/2025-01-01.md -->
//!
//! What Happened
//! 1. …
//!
//! <!-- openclaw:dreaming:diary:end -->
//!
//! ## Deep Sleep
//! <!-- openclaw:dreaming:deep:start -->
//! - …
//! <!-- openclaw:dreaming:deep:end -->
//! ```
//!
//! Entries live between the diary markers, separated by `---` lines; each starts with an italic
//! date line. Backfilled entries carry the backfill marker, so `rem-backfill --rollback` removes
//! exactly them. Text outside the managed regions is never touched.

use wiki_parse::markers::{self, Block};

/// Diary region start.
pub const DIARY_START: &str = "<!-- openclaw:dreaming:diary:start -->";
/// Diary region end.
pub const DIARY_END: &str = "<!-- openclaw:dreaming:diary:end -->";
/// The marker of backfilled entries.
pub const BACKFILL_MARKER: &str = "openclaw:dreaming:backfill-entry";

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The `## Deep Sleep` block of DREAMS.md.
pub fn deep_block() -> Block {
    Block {
        heading: "## Deep Sleep".into(),
        start: "<!-- openclaw:dreaming:deep:start -->".into(),
        end: "<!-- openclaw:dreaming:deep:end -->".into(),
    }
}

/// The `## Light Sleep` / `## REM Sleep` block of a daily note.
pub fn phase_block(light: bool) -> Block {
    let (heading, name) = if light {
        ("## Light Sleep", "light")
    } else {
        ("## REM Sleep", "rem")
    };
    Block {
        heading: heading.into(),
        start: format!("<!-- openclaw:dreaming:{name}:start -->"),
        end: format!("<!-- openclaw:dreaming:{name}:end -->"),
    }
}

/// Replace (or append) a managed block.
pub fn replace_block(original: &str, block: &Block, body: &str) -> String {
    markers::replace_managed_block(original, block, body)
}

/// `January 1, 2025` for `2025-01-01` (the backfill date line; the day is kept as written).
pub fn backfill_date(iso_day: &str) -> String {
    match iso_day.parse::<jiff::civil::Date>() {
        Ok(d) => format!(
            "{} {}, {}",
            MONTHS[d.month() as usize - 1],
            d.day(),
            d.year()
        ),
        Err(_) => iso_day.to_string(),
    }
}

/// `April 5, 2026, 3:00 AM` (UTC) for a diary entry written at `ts`.
pub fn narrative_date(ts: jiff::Timestamp) -> String {
    let z = ts.to_zoned(jiff::tz::TimeZone::UTC);
    let hour = z.hour();
    let (h12, ampm) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    format!(
        "{} {}, {}, {h12}:{:02} {ampm}",
        MONTHS[z.month() as usize - 1],
        z.day(),
        z.year(),
        z.minute()
    )
}

/// The text with the diary region present (a `# Dream Diary` section is put first when absent).
pub fn ensure_diary(existing: &str) -> String {
    if existing.contains(DIARY_START) && existing.contains(DIARY_END) {
        return existing.to_string();
    }
    let section = format!("# Dream Diary\n\n{DIARY_START}\n{DIARY_END}\n");
    if existing.trim().is_empty() {
        section
    } else {
        format!("{section}\n{existing}")
    }
}

fn region(text: &str) -> Option<(usize, usize)> {
    let start = text.find(DIARY_START)? + DIARY_START.len();
    let end = text.find(DIARY_END)?;
    (end >= start).then_some((start, end))
}

/// The diary entries (blocks between `---` separators, trimmed).
pub fn diary_entries(text: &str) -> Vec<String> {
    match region(text) {
        Some((a, b)) => split_blocks(&text[a..b]),
        None => Vec::new(),
    }
}

fn split_blocks(inner: &str) -> Vec<String> {
    let normalized = format!("\n{}\n", inner.replace("\r\n", "\n"));
    normalized
        .split("\n---\n")
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(String::from)
        .collect()
}

fn join_blocks(blocks: &[String]) -> String {
    blocks
        .iter()
        .map(|b| format!("---\n\n{}\n", b.trim()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn replace_region(existing: &str, content: &str) -> String {
    let ensured = ensure_diary(existing);
    let Some((a, b)) = region(&ensured) else {
        return ensured;
    };
    let inner = if content.trim().is_empty() {
        "\n".to_string()
    } else {
        format!("\n{}\n", content.trim())
    };
    format!("{}{inner}{}", &ensured[..a], &ensured[b..])
}

/// Remove the backfilled entries; returns the new text and how many were removed.
pub fn strip_backfill(existing: &str) -> (String, usize) {
    let ensured = ensure_diary(existing);
    let blocks = diary_entries(&ensured);
    let kept: Vec<String> = blocks
        .iter()
        .filter(|b| !b.contains(BACKFILL_MARKER))
        .cloned()
        .collect();
    let removed = blocks.len() - kept.len();
    (replace_region(&ensured, &join_blocks(&kept)), removed)
}

/// One backfilled entry for `iso_day` from `source`.
pub fn backfill_entry(iso_day: &str, body_lines: &[String], source: &str) -> String {
    let marker = format!("<!-- {BACKFILL_MARKER} day={iso_day} source={source} -->");
    let body = body_lines
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    [format!("*{}*", backfill_date(iso_day)), marker, body]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Replace the backfilled entries by `entries`; returns the text, how many were written and how
/// many replaced.
pub fn write_backfill(existing: &str, entries: &[String]) -> (String, usize, usize) {
    let (stripped, replaced) = strip_backfill(existing);
    let mut blocks = diary_entries(&stripped);
    blocks.extend(entries.iter().cloned());
    (
        replace_region(&stripped, &join_blocks(&blocks)),
        entries.len(),
        replaced,
    )
}

/// Append a dated entry with `narrative` at the end of the diary region.
pub fn append_entry(existing: &str, narrative: &str, date_line: &str) -> String {
    let entry = format!("\n---\n\n*{date_line}*\n\n{}\n", narrative.trim());
    let out = if existing.contains(DIARY_START) && existing.contains(DIARY_END) {
        let end = existing.rfind(DIARY_END).unwrap_or(existing.len());
        format!("{}{entry}\n{}", &existing[..end], &existing[end..])
    } else if let Some(i) = existing.find(DIARY_START) {
        let at = i + DIARY_START.len();
        format!(
            "{}{entry}\n{DIARY_END}\n{}",
            &existing[..at],
            &existing[at..]
        )
    } else {
        let section = format!("# Dream Diary\n\n{DIARY_START}{entry}\n{DIARY_END}\n");
        if existing.trim().is_empty() {
            section
        } else {
            format!("{section}\n{existing}")
        }
    };
    if out.ends_with('\n') {
        out
    } else {
        format!("{out}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(backfill_date("2025-01-01"), "January 1, 2025");
        let ts: jiff::Timestamp = "2026-04-05T03:00:00Z".parse().unwrap();
        assert_eq!(narrative_date(ts), "April 5, 2026, 3:00 AM");
        let pm: jiff::Timestamp = "2026-04-05T12:07:00Z".parse().unwrap();
        assert_eq!(narrative_date(pm), "April 5, 2026, 12:07 PM");
    }

    #[test]
    fn append_then_backfill_then_rollback() {
        let ts: jiff::Timestamp = "2026-04-05T03:00:00Z".parse().unwrap();
        let a = append_entry("", "Keep this normal dream.", &narrative_date(ts));
        assert_eq!(
            a,
            "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 5, 2026, 3:00 AM*\n\nKeep this normal dream.\n\n<!-- openclaw:dreaming:diary:end -->\n"
        );
        let entry = backfill_entry(
            "2025-01-01",
            &["What Happened".into(), "1. Remove this entry.".into()],
            "memory/2025-01-01.md",
        );
        let (b, written, replaced) = write_backfill(&a, &[entry]);
        assert_eq!((written, replaced), (1, 0));
        assert_eq!(
            b,
            "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n---\n\n*April 5, 2026, 3:00 AM*\n\nKeep this normal dream.\n\n---\n\n*January 1, 2025*\n\n<!-- openclaw:dreaming:backfill-entry day=2025-01-01 source=memory/2025-01-01.md -->\n\nWhat Happened\n1. Remove this entry.\n<!-- openclaw:dreaming:diary:end -->\n"
        );
        assert_eq!(diary_entries(&b).len(), 2);
        let (c, removed) = strip_backfill(&b);
        assert_eq!(removed, 1);
        assert!(c.contains("Keep this normal dream.") && !c.contains("Remove this entry."));
        let with_human = format!("{c}\n## My notes\nhand written\n");
        let d = replace_block(&with_human, &deep_block(), "- No durable changes.");
        assert!(d.contains("## My notes\nhand written\n\n## Deep Sleep\n"));
    }
}
