//! The `## Retain` format of daily notes (seed 003): typed, self-contained facts, one bullet
//! each.
//!
//! ```text
//! ## Retain
//! - W @Peter: Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday.
//! - B @warelay: I fixed the Baileys WS crash by wrapping connection.update handlers.
//! - O(c=0.95) @Peter: Prefers concise replies (<1500 chars) on WhatsApp.
//! - S Busy week; most work went into the gateway.
//! ```
//!
//! * **Type**: `W` world, `B` experience (biographical, first person), `O` opinion, `S`
//!   observation/summary. An opinion may carry its confidence, `O(c=0.0..1.0)`.
//! * **Entities**: `@Name` mentions, before the colon and inside the text (`@The-Castle`); an
//!   e-mail address is not a mention. Names are kept as written; [`entity_key`] compares them.
//! * **Content**: the text after the colon (after the type and mentions when there is none).
//!   Indented lines under a bullet continue it.
//!
//! A section runs from a `Retain` heading (any level) to the next heading of the same or a
//! higher level; fenced code and HTML comments in it are skipped. Anything else in the section
//! that is not a valid fact bullet is **malformed** and reported with its line — never dropped
//! silently.

use jiff::civil::Date;
use serde::Serialize;

/// The type of a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `W`: an objective fact about the world.
    World,
    /// `B`: what the agent did (experience, first person).
    Experience,
    /// `O`: a subjective preference or judgment, with an optional confidence.
    Opinion,
    /// `S`: an observation or summary.
    Observation,
}

impl Kind {
    /// The name used in output (`world`, `experience`, `opinion`, `observation`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::World => "world",
            Kind::Experience => "experience",
            Kind::Opinion => "opinion",
            Kind::Observation => "observation",
        }
    }

    /// The prefix letter.
    pub fn letter(self) -> char {
        match self {
            Kind::World => 'W',
            Kind::Experience => 'B',
            Kind::Opinion => 'O',
            Kind::Observation => 'S',
        }
    }

    /// Parse a `--kind` value: a name or its letter (`opinion`, `o`, `O`, `experience`, `B`).
    pub fn parse(s: &str) -> Option<Kind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "w" | "world" => Some(Kind::World),
            "b" | "experience" | "biographical" => Some(Kind::Experience),
            "o" | "opinion" => Some(Kind::Opinion),
            "s" | "observation" | "summary" => Some(Kind::Observation),
            _ => None,
        }
    }

    fn from_letter(c: char) -> Option<Kind> {
        match c {
            'W' => Some(Kind::World),
            'B' => Some(Kind::Experience),
            'O' => Some(Kind::Opinion),
            'S' => Some(Kind::Observation),
            _ => None,
        }
    }
}

/// One retained fact.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Its type.
    pub kind: Kind,
    /// The day of the note it comes from.
    pub day: Option<Date>,
    /// The note, workspace-relative.
    pub path: String,
    /// The bullet's line (1-based).
    pub line: usize,
    /// The last line of the bullet (continuation lines included).
    pub end_line: usize,
    /// `@` mentions, in order of appearance, without the `@`, de-duplicated by [`entity_key`].
    pub entities: Vec<String>,
    /// The narrative text.
    pub content: String,
    /// An opinion's confidence.
    pub confidence: Option<f64>,
    /// The bullet's lines as written (continuation lines included).
    pub raw: String,
}

impl Fact {
    /// `path#L<line>` (or `#L<line>-L<end>` for a continued bullet).
    pub fn source(&self) -> String {
        wiki_search::memory::citation(&self.path, self.line, self.end_line)
    }
}

/// A line of a Retain section that is not a valid fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Malformed {
    /// The note, workspace-relative.
    pub path: String,
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)
    }
}

/// The key entities are compared by: lowercase, `-`/`_`/spaces folded to `-`.
pub fn entity_key(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().trim_start_matches('@').chars() {
        if c == '_' || c == '-' || c.is_whitespace() {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out.trim_matches('-').to_string()
}

/// Whether `text` may hold a Retain section (a cheap test before parsing).
pub fn may_have_retain(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"Retain").is_some()
        || memchr::memmem::find(text.as_bytes(), b"retain").is_some()
}

/// The facts and malformed lines of a note.
pub fn parse(path: &str, day: Option<Date>, text: &str) -> (Vec<Fact>, Vec<Malformed>) {
    let mut facts: Vec<Fact> = Vec::new();
    let mut bad = Vec::new();
    if !may_have_retain(text) {
        return (facts, bad);
    }
    let mut section: Option<usize> = None; // heading level of the open Retain section
    let mut fence: Option<&str> = None;
    let mut in_comment = false;
    // Whether the previous line belongs to a bullet that indented lines continue.
    let mut continuing = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            continuing = false;
            continue;
        }
        if let Some(level) = heading_level(trimmed) {
            let title = trimmed[level..].trim().trim_end_matches('#').trim();
            match section {
                Some(open) if level > open => continue,
                _ => {}
            }
            section = title.eq_ignore_ascii_case("retain").then_some(level);
            continuing = false;
            continue;
        }
        if section.is_none() {
            continue;
        }
        if in_comment {
            if trimmed.contains("-->") {
                in_comment = false;
            }
            continue;
        }
        if trimmed.starts_with("<!--") {
            in_comment = !trimmed.contains("-->");
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let indented = line.len() > trimmed.len();
        if indented && continuing {
            if let Some(last) = facts.last_mut() {
                let more = strip_bullet(trimmed).unwrap_or(trimmed);
                last.content.push(' ');
                last.content.push_str(more.trim());
                last.end_line = n;
                last.raw.push('\n');
                last.raw.push_str(raw);
                for e in mentions(more) {
                    push_entity(&mut last.entities, e);
                }
            }
            continue;
        }
        let Some(body) = strip_bullet(trimmed) else {
            bad.push(Malformed {
                path: path.to_string(),
                line: n,
                message: "not a fact bullet (expected `- W|B|O(c=…)|S …`)".into(),
            });
            continuing = false;
            continue;
        };
        match parse_bullet(body) {
            Ok(mut fact) => {
                fact.path = path.to_string();
                fact.day = day;
                fact.line = n;
                fact.end_line = n;
                fact.raw = raw.to_string();
                facts.push(fact);
                continuing = true;
            }
            Err(message) => {
                bad.push(Malformed {
                    path: path.to_string(),
                    line: n,
                    message,
                });
                continuing = false;
            }
        }
    }
    (facts, bad)
}

fn heading_level(line: &str) -> Option<usize> {
    let level = line.bytes().take_while(|b| *b == b'#').count();
    ((1..=6).contains(&level) && line[level..].starts_with([' ', '\t'])).then_some(level)
}

fn strip_bullet(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))?;
    Some(rest.trim_start())
}

/// Parse the text after the bullet marker.
fn parse_bullet(body: &str) -> Result<Fact, String> {
    let mut chars = body.chars();
    let letter = chars.next().unwrap_or(' ');
    let after = chars.as_str();
    let kind = Kind::from_letter(letter)
        .filter(|_| after.is_empty() || after.starts_with([' ', '\t', ':', '(']))
        .ok_or_else(|| {
            format!(
                "unknown fact type `{}` (expected W, B, O(c=…) or S)",
                body.split_whitespace().next().unwrap_or("")
            )
        })?;
    let (confidence, rest) = match after.strip_prefix('(') {
        Some(inner) => {
            let close = inner
                .find(')')
                .ok_or_else(|| format!("`{letter}(` is not closed"))?;
            let spec = inner[..close].trim();
            let value = spec
                .strip_prefix('c')
                .map(str::trim_start)
                .and_then(|s| s.strip_prefix('='))
                .map(str::trim)
                .ok_or_else(|| {
                    format!("expected `{letter}(c=0.0..1.0)`, found `{letter}({spec})`")
                })?;
            if kind != Kind::Opinion {
                return Err(format!(
                    "only opinions (O) carry a confidence, found `{letter}({spec})`"
                ));
            }
            let c = value
                .parse::<f64>()
                .ok()
                .filter(|c| c.is_finite() && (0.0..=1.0).contains(c))
                .ok_or_else(|| {
                    format!("opinion confidence must be a number from 0 to 1 (found `{value}`)")
                })?;
            (Some(c), &inner[close + 1..])
        }
        None => (None, after),
    };
    let rest = rest.trim_start();
    let rest = rest.strip_prefix(':').map_or(rest, str::trim_start);
    // Leading mentions, then an optional colon.
    let mut entities = Vec::new();
    let mut cursor = rest;
    loop {
        let t = cursor.trim_start_matches([' ', ',']);
        let Some(after_at) = t.strip_prefix('@') else {
            break;
        };
        let len = mention_len(after_at);
        if len == 0 {
            break;
        }
        push_entity(&mut entities, trim_mention(&after_at[..len]).to_string());
        cursor = &after_at[len..];
    }
    let content = match cursor.trim_start().strip_prefix(':') {
        Some(c) => c.trim(),
        None if entities.is_empty() => cursor.trim(),
        // Mentions without a colon: the mentions are part of the sentence.
        None => rest.trim(),
    };
    if content.is_empty() {
        return Err("fact has no content".into());
    }
    for e in mentions(content) {
        push_entity(&mut entities, e);
    }
    Ok(Fact {
        kind,
        day: None,
        path: String::new(),
        line: 0,
        end_line: 0,
        entities,
        content: content.to_string(),
        confidence,
        raw: String::new(),
    })
}

fn mention_len(s: &str) -> usize {
    let mut len = 0;
    for (i, c) in s.char_indices() {
        if c.is_alphanumeric() || (i > 0 && matches!(c, '_' | '-' | '.')) {
            len = i + c.len_utf8();
        } else {
            break;
        }
    }
    len
}

fn trim_mention(m: &str) -> &str {
    m.trim_end_matches(['.', '-', '_'])
}

/// The `@` mentions inside a text (not e-mail addresses).
pub fn mentions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if c == '@' && !prev.is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '.') {
            let after = &text[i + 1..];
            let len = mention_len(after);
            let m = trim_mention(&after[..len]);
            if !m.is_empty() {
                out.push(m.to_string());
            }
        }
        prev = Some(c);
    }
    out
}

fn push_entity(list: &mut Vec<String>, name: String) {
    let key = entity_key(&name);
    if !key.is_empty() && !list.iter().any(|e| entity_key(e) == key) {
        list.push(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(body: &str) -> Result<Fact, String> {
        parse_bullet(body)
    }

    #[test]
    fn every_type() {
        let w = one("W @Peter: Currently in Marrakech for Andy's birthday.").unwrap();
        assert_eq!(w.kind, Kind::World);
        assert_eq!(w.entities, vec!["Peter"]);
        assert_eq!(w.content, "Currently in Marrakech for Andy's birthday.");
        let b = one("B @warelay: I fixed the crash (see memory/2025-11-27.md).").unwrap();
        assert_eq!(b.kind, Kind::Experience);
        let o = one("O(c=0.95) @Peter: Prefers concise replies.").unwrap();
        assert_eq!((o.kind, o.confidence), (Kind::Opinion, Some(0.95)));
        let o2 = one("O Dark mode is better").unwrap();
        assert_eq!(
            (o2.confidence, o2.content.as_str()),
            (None, "Dark mode is better")
        );
        let s = one("S Busy week with @Alice and @Bob, mostly gateway work.").unwrap();
        assert_eq!(s.kind, Kind::Observation);
        assert_eq!(s.entities, vec!["Alice", "Bob"]);
        assert_eq!(
            s.content,
            "Busy week with @Alice and @Bob, mostly gateway work."
        );
        let many = one("W @The-Castle, @Peter: Moved in. Mail alice@example.com.").unwrap();
        assert_eq!(many.entities, vec!["The-Castle", "Peter"]);
    }

    #[test]
    fn malformed_bullets() {
        assert!(
            one("X @Peter: nope")
                .unwrap_err()
                .contains("unknown fact type `X`")
        );
        assert!(
            one("World: nope")
                .unwrap_err()
                .contains("unknown fact type")
        );
        assert!(
            one("O(c=1.5) too sure")
                .unwrap_err()
                .contains("from 0 to 1")
        );
        assert!(one("O(c=high) x").unwrap_err().contains("`high`"));
        assert!(one("W(c=0.5) x").unwrap_err().contains("only opinions"));
        assert!(one("O(0.5) x").unwrap_err().contains("expected `O(c="));
        assert!(one("W @Peter:").unwrap_err().contains("no content"));
        assert!(one("O(c=0.5 x").unwrap_err().contains("not closed"));
    }

    #[test]
    fn sections_lines_and_continuations() {
        let text = "# 2025-11-27\n\n## Retain\n- W @Peter: In Marrakech.\n  Until Dec 1 with @Andy.\n- Q bad\nplain text\n<!-- a comment -->\n\n### Sub\n- S fine\n## Notes\n- W not a fact here\n## retain\n```\n- X in code\n```\n- B did it\n";
        let (facts, bad) = parse("memory/2025-11-27.md", None, text);
        let summary: Vec<(usize, usize, &str)> = facts
            .iter()
            .map(|f| (f.line, f.end_line, f.content.as_str()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (4, 5, "In Marrakech. Until Dec 1 with @Andy."),
                (11, 11, "fine"),
                (18, 18, "did it"),
            ]
        );
        assert_eq!(facts[0].entities, vec!["Peter", "Andy"]);
        assert_eq!(facts[0].source(), "memory/2025-11-27.md#L4-L5");
        let lines: Vec<usize> = bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, vec![6, 7]);
    }

    #[test]
    fn entity_keys() {
        assert_eq!(entity_key("@The_Castle"), "the-castle");
        assert_eq!(entity_key("Peter"), "peter");
        assert_eq!(mentions("mail bob@x.org or @Ann."), vec!["Ann"]);
    }
}
