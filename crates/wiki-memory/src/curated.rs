//! Entries of the curated files (`MEMORY.md`, `memory.md`, `USER.md`) and their recall
//! annotations: `<!-- trigger: phrase one, phrase two -->`, `<!-- importance: N -->` (1–10) and
//! `<!-- project: key; key -->`.
//!
//! An entry is a list item with its continuation lines, or a paragraph; headings, blank lines and
//! standalone comment lines (the promotion marker `<!-- openclaw-memory-promotion:… -->` above a
//! promoted bullet) separate entries. Annotations count on lines of the entry that end with
//! `-->`, as the original reads them; trigger values split on `,` and `;`.

/// The curated files, in the order they are read.
pub const CURATED_ROOT_FILES: [&str; 3] = ["MEMORY.md", "memory.md", "USER.md"];

/// One curated entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Workspace-relative file.
    pub path: String,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
    /// The entry's lines as written.
    pub text: String,
    /// Trigger phrases.
    pub triggers: Vec<String>,
    /// Importance (1–10).
    pub importance: Option<u8>,
    /// Project keys (`None`: not scoped; an invalid annotation gives an empty list).
    pub projects: Option<Vec<String>>,
}

/// Annotations found in `text`: `(kind, value)` for `<!-- kind: value -->`, kind lowercased.
pub fn annotations(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("<!--") {
        let after = &rest[i + 4..];
        let Some(end) = after.find("-->") else { break };
        let inner = after[..end].trim();
        if let Some((kind, value)) = inner.split_once(':') {
            let kind = kind.trim().to_ascii_lowercase();
            if matches!(kind.as_str(), "trigger" | "importance" | "project") {
                out.push((kind, value.trim().to_string()));
            }
        }
        rest = &after[end + 3..];
    }
    out
}

/// The text without its annotation comments (trailing spaces of changed lines removed).
pub fn strip_annotations(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut out = String::new();
            let mut rest = line;
            let mut changed = false;
            while let Some(i) = rest.find("<!--") {
                let after = &rest[i + 4..];
                let Some(end) = after.find("-->") else { break };
                let inner = after[..end].trim_start().to_ascii_lowercase();
                out.push_str(&rest[..i]);
                if ["trigger", "importance", "project"]
                    .iter()
                    .any(|k| inner.starts_with(k) && inner[k.len()..].trim_start().starts_with(':'))
                {
                    changed = true;
                } else {
                    out.push_str(&rest[i..i + 4 + end + 3]);
                }
                rest = &after[end + 3..];
            }
            out.push_str(rest);
            if changed {
                out.trim_end().to_string()
            } else {
                out
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") || {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && t[digits..].starts_with(". ")
    }
}

fn is_comment_line(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("<!--") && t.ends_with("-->")
}

/// The entries of a curated file.
pub fn entries(path: &str, text: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    let mut fence = false;
    let lines: Vec<&str> = text.lines().collect();
    let flush = |cur: &mut Option<(usize, Vec<&str>)>, out: &mut Vec<Entry>| {
        if let Some((start, ls)) = cur.take() {
            out.push(make(path, start, &ls));
        }
    };
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            flush(&mut current, &mut out);
            continue;
        }
        if fence {
            continue;
        }
        if t.is_empty() || t.starts_with('#') || is_comment_line(line) {
            flush(&mut current, &mut out);
            continue;
        }
        let indented = line.len() > line.trim_start().len();
        match &mut current {
            Some((_, ls)) if !is_list_item(line) || indented => ls.push(line),
            _ => {
                flush(&mut current, &mut out);
                current = Some((n, vec![line]));
            }
        }
    }
    flush(&mut current, &mut out);
    out
}

fn make(path: &str, start: usize, lines: &[&str]) -> Entry {
    let text = lines.join("\n");
    let mut triggers: Vec<String> = Vec::new();
    let mut importance: Option<u8> = None;
    let mut projects: Option<Vec<String>> = None;
    for line in lines {
        if !line.trim_end().ends_with("-->") {
            continue;
        }
        for (kind, value) in annotations(line) {
            match kind.as_str() {
                "trigger" => {
                    for p in value
                        .split([',', ';'])
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                    {
                        if !triggers.iter().any(|t| t == p) {
                            triggers.push(p.to_string());
                        }
                    }
                }
                "importance" => {
                    if let Ok(n) = value.parse::<u8>()
                        && (1..=10).contains(&n)
                    {
                        importance = Some(importance.map_or(n, |i| i.max(n)));
                    }
                }
                _ => {
                    let keys: Vec<String> = value
                        .split(';')
                        .map(str::trim)
                        .filter(|k| !k.is_empty() && !k.contains(['<', '>']))
                        .map(String::from)
                        .collect();
                    let all_valid = !keys.is_empty() && keys.len() == value.split(';').count();
                    let list = projects.get_or_insert_with(Vec::new);
                    if all_valid {
                        list.extend(keys);
                    } else {
                        // An invalid scope never turns an entry global.
                        list.push("!invalid-project-annotation".into());
                    }
                }
            }
        }
    }
    Entry {
        path: path.to_string(),
        start_line: start,
        end_line: start + lines.len() - 1,
        text,
        triggers,
        importance,
        projects,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_annotations() {
        let text = "# Long-Term Memory\n\n- Peter prefers concise replies. <!-- trigger: whatsapp replies, concise; reply length --> <!-- importance: 8 -->\n- Plain entry\n  continued here\n\nA paragraph\nover two lines.\n\n<!-- openclaw-memory-promotion:memory:memory/2026-04-03.md:3:3 -->\n- Gateway port 18789 <!-- trigger: gateway --> <!-- project: github.com/acme/x -->\n";
        let e = entries("MEMORY.md", text);
        let spans: Vec<(usize, usize)> = e.iter().map(|e| (e.start_line, e.end_line)).collect();
        assert_eq!(spans, vec![(3, 3), (4, 5), (7, 8), (11, 11)]);
        assert_eq!(
            e[0].triggers,
            vec!["whatsapp replies", "concise", "reply length"]
        );
        assert_eq!(e[0].importance, Some(8));
        assert_eq!(e[3].projects, Some(vec!["github.com/acme/x".to_string()]));
        assert_eq!(
            strip_annotations(&e[0].text),
            "- Peter prefers concise replies."
        );
        assert_eq!(strip_annotations("a <!-- note --> b"), "a <!-- note --> b");
    }
}
