//! Dashboards of large vaults: a summary page and shard pages (issue 35).
//!
//! A dashboard body of at most [`SHARD_ABOVE_ROWS`] rows is written as it is (byte for byte the
//! original plugin's). A longer one (at 100,000 pages `claim-health` is tens of megabytes, past
//! what the tools read as a page, and past what a person or an Obsidian window can use) becomes:
//!
//! - the summary `reports/<name>.md`: the dashboard's count lines, one link per shard page with
//!   its row count, then each section with its first [`SUMMARY_TOP_ROWS`] rows (a section that
//!   short is shown whole and not sharded);
//! - shard pages `reports/<name>-<key>.md` beside it (same directory: the rows' links stay as
//!   they are): the rows whose title starts with `key` (lower-case letters and digits; `other`
//!   for titles starting with anything else), in the dashboard's order, under the dashboard's
//!   section headings. A key with more than [`SHARD_MAX_ROWS`] rows is split by one more
//!   character (up to [`MAX_KEY_LEN`]), so every shard stays small at any vault size.
//!
//! Sharding works on the rendered body (rows are the `- ` lines of its sections, with their
//! continuation lines), so every dashboard shards the same way and below the threshold nothing
//! changes.

use std::collections::BTreeMap;

use crate::pages::Linker;
use crate::reports::Dashboard;

/// A dashboard with more rows than this (all sections together) is split into a summary and
/// shard pages. Sized so that a dashboard page stays well under a megabyte.
pub const SHARD_ABOVE_ROWS: usize = 2_000;

/// Rows of each section shown on a summary page.
pub const SUMMARY_TOP_ROWS: usize = 20;

/// A shard key with more rows than this is split by one more character of the titles.
pub const SHARD_MAX_ROWS: usize = 10_000;

/// The longest shard key (characters); a key this long is not split further.
pub const MAX_KEY_LEN: usize = 3;

/// The line that marks a summary body (and so an incremental patch of the whole dashboard does
/// not apply to it).
pub const SUMMARY_MARKER: &str = "- This dashboard is split into shard pages: ";

/// One page written for a sharded dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardPage {
    /// `reports/<name>-<key>.md`.
    pub path: String,
    /// `<name>-<key>` (the page's managed block name; the id is `report.<stem>`).
    pub stem: String,
    /// `<Title> (<key>)`.
    pub title: String,
    /// The managed block body.
    pub body: String,
}

/// A dashboard split into a summary body and shard pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sharded {
    /// The body of `reports/<name>.md`.
    pub summary: String,
    /// The shard pages, by key.
    pub shards: Vec<ShardPage>,
}

/// A section of a dashboard body: its heading line (if any) and its rows.
struct Section<'a> {
    heading: Option<&'a str>,
    rows: Vec<&'a str>,
}

/// The count lines that open a body (`- label: N`, no link), then its sections.
fn parse<'a>(body: &'a str) -> (Vec<&'a str>, Vec<Section<'a>>) {
    let mut header = Vec::new();
    let mut sections: Vec<Section<'a>> = Vec::new();
    let mut in_header = true;
    // Byte offset of each line start, so that a row with continuation lines stays one slice.
    let mut row_start: Option<usize> = None;
    let mut row_end = 0;
    let mut offset = 0;
    let flush = |sections: &mut Vec<Section<'a>>, start: &mut Option<usize>, end: usize| {
        if let Some(s) = start.take() {
            if sections.is_empty() {
                sections.push(Section {
                    heading: None,
                    rows: Vec::new(),
                });
            }
            if let Some(last) = sections.last_mut() {
                last.rows.push(&body[s..end]);
            }
        }
    };
    for line in body.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        if in_header && is_count_line(line) {
            header.push(line);
            continue;
        }
        in_header = false;
        if line.is_empty() {
            flush(&mut sections, &mut row_start, row_end);
            // A blank line ends the section: rows after it without a heading start a new one.
            if sections.last().is_some_and(|s| !s.rows.is_empty()) {
                sections.push(Section {
                    heading: None,
                    rows: Vec::new(),
                });
            }
        } else if line.starts_with("### ") {
            flush(&mut sections, &mut row_start, row_end);
            if sections
                .last()
                .is_some_and(|s| s.heading.is_none() && s.rows.is_empty())
            {
                sections.pop();
            }
            sections.push(Section {
                heading: Some(line),
                rows: Vec::new(),
            });
        } else if line.starts_with("- ") || row_start.is_none() {
            flush(&mut sections, &mut row_start, row_end);
            row_start = Some(start);
            row_end = start + line.len();
        } else {
            // A continuation line of the row above.
            row_end = start + line.len();
        }
    }
    flush(&mut sections, &mut row_start, row_end);
    sections.retain(|s| s.heading.is_some() || !s.rows.is_empty());
    (header, sections)
}

/// `- label: 123` without a link: a dashboard's count line.
fn is_count_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("- ") else {
        return false;
    };
    let Some((label, n)) = rest.rsplit_once(": ") else {
        return false;
    };
    !label.contains('[') && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
}

/// The title a row starts with: the text of its first link (`[Title](…)`, `[[path|Title]]`), of
/// its code span, or the row text.
fn row_title(row: &str) -> &str {
    let s = row.strip_prefix("- ").unwrap_or(row);
    if let Some(rest) = s.strip_prefix("[[") {
        let end = rest.find("]]").unwrap_or(rest.len());
        let inner = &rest[..end];
        return match inner.split_once('|') {
            Some((_, title)) => title,
            None => inner.rsplit('/').next().unwrap_or(inner),
        };
    }
    s.strip_prefix('[')
        .or_else(|| s.strip_prefix('`'))
        .unwrap_or(s)
}

/// The shard key of a title at `len` characters: its first `len` characters when they are all
/// ASCII letters or digits (lower-cased; fewer when the title is shorter or another character
/// comes first), `other` when the first is not.
fn key_of(title: &str, len: usize) -> String {
    let key: String = title
        .chars()
        .take(len)
        .take_while(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if key.is_empty() { "other".into() } else { key }
}

/// The key of every row: one character, and one more for the rows of a key that would hold more
/// than [`SHARD_MAX_ROWS`] rows.
fn assign_keys(titles: &[&str]) -> Vec<String> {
    let mut keys: Vec<String> = titles.iter().map(|t| key_of(t, 1)).collect();
    for len in 2..=MAX_KEY_LEN {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for k in &keys {
            *counts.entry(k.as_str()).or_default() += 1;
        }
        let split: std::collections::HashSet<String> = counts
            .into_iter()
            .filter(|(k, n)| *n > SHARD_MAX_ROWS && *k != "other" && k.len() == len - 1)
            .map(|(k, _)| k.to_string())
            .collect();
        if split.is_empty() {
            break;
        }
        for (k, t) in keys.iter_mut().zip(titles) {
            if split.contains(k.as_str()) {
                *k = key_of(t, len);
            }
        }
    }
    keys
}

/// The body of a dashboard as written: `None` when it stays one page (at most
/// [`SHARD_ABOVE_ROWS`] rows), else the summary and shard pages.
pub fn shard(d: &Dashboard, body: &str, linker: Linker) -> Option<Sharded> {
    let (header, sections) = parse(body);
    let total: usize = sections.iter().map(|s| s.rows.len()).sum();
    if total <= SHARD_ABOVE_ROWS {
        return None;
    }
    let from = d.path();
    // The sections too long for the summary are sharded; each of their rows gets a key.
    let sharded: Vec<bool> = sections
        .iter()
        .map(|s| s.rows.len() > SUMMARY_TOP_ROWS)
        .collect();
    let titles: Vec<&str> = sections
        .iter()
        .zip(&sharded)
        .filter(|(_, sharded)| **sharded)
        .flat_map(|(s, _)| s.rows.iter().map(|r| row_title(r)))
        .collect();
    let keys = assign_keys(&titles);
    // key -> per section, its rows (in order).
    let mut by_key: BTreeMap<&str, Vec<Vec<&str>>> = BTreeMap::new();
    let mut k = keys.iter();
    for (i, s) in sections.iter().enumerate().filter(|(i, _)| sharded[*i]) {
        for row in &s.rows {
            let key = k.next().map(String::as_str).unwrap_or("other");
            by_key
                .entry(key)
                .or_insert_with(|| vec![Vec::new(); sections.len()])[i]
                .push(row);
        }
    }
    let shard_rows: usize = by_key.values().flatten().map(Vec::len).sum();
    let shards: Vec<ShardPage> = by_key
        .iter()
        .map(|(key, rows)| {
            let stem = format!("{}-{key}", d.name);
            let n: usize = rows.iter().map(Vec::len).sum();
            let mut out = format!(
                "- Rows on this page: {n}\n- Titles starting with: `{key}`\n- Summary: {}",
                linker.link(&format!("reports/{stem}.md"), &from, d.title)
            );
            for (s, rows) in sections.iter().zip(rows).filter(|(_, r)| !r.is_empty()) {
                out.push_str("\n\n");
                if let Some(h) = s.heading {
                    out.push_str(h);
                    out.push('\n');
                }
                out.push_str(&rows.join("\n"));
            }
            ShardPage {
                path: format!("reports/{stem}.md"),
                title: format!("{} ({key})", d.title),
                stem,
                body: out,
            }
        })
        .collect();
    let mut summary = header.join("\n");
    if !summary.is_empty() {
        summary.push('\n');
    }
    summary.push_str(&format!(
        "{SUMMARY_MARKER}{} (more than {SHARD_ABOVE_ROWS} rows; {shard_rows} rows on them, by the \
         first letters of their titles)\n\n### Shards",
        shards.len()
    ));
    for (s, rows) in shards.iter().zip(by_key.values()) {
        let n: usize = rows.iter().map(Vec::len).sum();
        summary.push_str(&format!(
            "\n- {}: {n}",
            linker.link(&from, &s.path, &s.title)
        ));
    }
    for (s, sharded) in sections.iter().zip(&sharded) {
        summary.push_str("\n\n");
        if let Some(h) = s.heading {
            summary.push_str(h);
            summary.push('\n');
        }
        let shown = s.rows.len().min(SUMMARY_TOP_ROWS);
        summary.push_str(&s.rows[..shown].join("\n"));
        if *sharded {
            summary.push_str(&format!(
                "\n- … {} more rows on the shard pages",
                s.rows.len() - shown
            ));
        }
    }
    Some(Sharded { summary, shards })
}

/// Whether `stem` (`reports/<stem>.md`) names a shard page of dashboard `name`.
pub fn is_shard_of(name: &str, stem: &str) -> bool {
    stem.strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|key| {
            key == "other"
                || (!key.is_empty()
                    && key.len() <= MAX_KEY_LEN
                    && key
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiki_parse::layout::RenderMode;

    fn dash() -> Dashboard {
        Dashboard::by_name("claim-health").expect("dashboard")
    }

    #[test]
    fn short_bodies_stay_one_page() {
        let body = "- Claims missing evidence: 1\n\n### Missing Evidence\n- [A](../a.md): x";
        assert_eq!(shard(&dash(), body, Linker::new(RenderMode::Native)), None);
    }

    #[test]
    fn long_bodies_split_by_title_letter() {
        let mut body = String::from("- Claims missing evidence: 2100\n- Contested claims: 1\n");
        body.push_str("\n### Missing Evidence");
        for i in 0..2100 {
            let t = ["Alpha", "beta", "Ünï", "42"][i % 4];
            body.push_str(&format!("\n- [{t} {i}](../entities/p{i}.md): `c{i}`"));
        }
        body.push_str("\n\n### Contested Claims\n- [Zed](../entities/z.md): `z`\n  more");
        let s = shard(&dash(), &body, Linker::new(RenderMode::Native)).expect("sharded");
        let keys: Vec<&str> = s.shards.iter().map(|p| p.stem.as_str()).collect();
        assert_eq!(
            keys,
            [
                "claim-health-4",
                "claim-health-a",
                "claim-health-b",
                "claim-health-other"
            ]
        );
        assert_eq!(s.shards[1].path, "reports/claim-health-a.md");
        assert!(s.shards[1].body.starts_with(
            "- Rows on this page: 525\n- Titles starting with: `a`\n- Summary: [Claim Health](claim-health.md)\n\n### Missing Evidence\n- [Alpha 0](../entities/p0.md): `c0`\n- [Alpha 4]"
        ));
        assert!(s.summary.starts_with(
            "- Claims missing evidence: 2100\n- Contested claims: 1\n- This dashboard is split into shard pages: 4 (more than 2000 rows; 2100 rows on them, by the first letters of their titles)\n\n### Shards\n- [Claim Health (4)](claim-health-4.md): 525\n"
        ));
        assert!(
            s.summary.ends_with(
                "- … 2080 more rows on the shard pages\n\n### Contested Claims\n- [Zed](../entities/z.md): `z`\n  more"
            ),
            "{}",
            s.summary
        );
    }

    #[test]
    fn keys_grow_past_the_shard_limit() {
        let titles: Vec<String> = (0..SHARD_MAX_ROWS + 2)
            .map(|i| format!("s{}x", ["a", "b"][i % 2]))
            .chain(["t".to_string()])
            .collect();
        let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
        let keys = assign_keys(&refs);
        assert_eq!(keys[0], "sa");
        assert_eq!(keys[1], "sb");
        assert_eq!(keys.last().map(String::as_str), Some("t"));
        assert!(is_shard_of("claim-health", "claim-health-sa"));
        assert!(!is_shard_of("claim-health", "claim-health-notes"));
        assert!(!is_shard_of("claim-health", "claim-healthy"));
    }

    #[test]
    fn obsidian_rows_use_the_alias() {
        assert_eq!(row_title("- [[entities/x|Xen]]: y"), "Xen");
        assert_eq!(row_title("- [[entities/x]]"), "x");
        assert_eq!(row_title("- `claim.a`: b"), "claim.a`: b");
    }
}
