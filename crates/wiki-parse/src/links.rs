//! Link extraction and resolution (reference §2.6).
//!
//! Extraction works on a page body: the generated `## Related` block is skipped, fenced code
//! blocks and inline code spans are ignored, images (`![..](..)`, `![[..]]`) are not page links.
//!
//! * Obsidian links `[[target]]` / `[[target|alias]]` → `target` (trimmed).
//! * Markdown links `[label](target)` (also `<target>` and `"title"` forms) whose target is not
//!   empty, not `#…` and has no URL scheme (`https:`, `mailto:` …) → target with `#fragment` and
//!   `?query` removed, `\` turned into `/`, percent-escapes decoded, trimmed.
//!
//! Markdown link targets are resolved relative to the page that contains them
//! (`../sources/alpha.md` inside `entities/beta.md` → `sources/alpha.md`); a leading `/` means the
//! vault root. Older vaults wrote vault-root-relative targets everywhere (`sources/alpha.md` inside
//! `entities/beta.md`); [`LinkTargets::resolve`] accepts those too when the page-relative reading
//! does not name a page.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::markdown;
use crate::markers::{self, Block};

/// The syntax a link was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// `[[target]]` / `[[target|alias]]`.
    Wikilink,
    /// `[label](target)`.
    Markdown,
}

/// A link found in a page body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// The cleaned target as written (see the module docs).
    pub target: String,
    /// Link syntax.
    pub kind: LinkKind,
    /// 1-based file line of the link.
    pub line: usize,
    /// For Markdown links: the target resolved against the page's directory as a vault-relative
    /// path; absent when it escapes the vault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
}

fn has_scheme(target: &str) -> bool {
    let mut chars = target.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    for c in chars {
        if c == ':' {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || c == '+' || c == '.' || c == '-') {
            return false;
        }
    }
    false
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let (hi, lo) = (bytes[i + 1], bytes[i + 2]);
            if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit() {
                let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                out.push(digit(hi) * 16 + digit(lo));
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Clean a Markdown link destination; `None` when it is not a page link.
pub fn clean_markdown_target(raw: &str) -> Option<String> {
    let t = raw.trim();
    if t.is_empty() || t.starts_with('#') || has_scheme(t) {
        return None;
    }
    let cut = t.find(['#', '?']).unwrap_or(t.len());
    let t = t[..cut].replace('\\', "/");
    let t = percent_decode(t.trim());
    let t = t.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Normalise a `/`-separated path: drop `.` and empty segments, apply `..`. `None` when `..`
/// climbs above the root.
pub fn normalize_path(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Resolve a Markdown target against the page at `page_path` (vault-relative).
pub fn resolve_relative(page_path: &str, target: &str) -> Option<String> {
    if let Some(abs) = target.strip_prefix('/') {
        return normalize_path(abs);
    }
    let dir = page_path.rsplit_once('/').map_or("", |(d, _)| d);
    if dir.is_empty() {
        normalize_path(target)
    } else {
        normalize_path(&format!("{dir}/{target}"))
    }
}

/// Find the closing `]` of a label starting at `open` (the `[`), allowing nested brackets.
fn label_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parse a destination starting right after `(`; returns (destination, index after `)`).
fn destination(line: &str, start: usize) -> Option<(String, usize)> {
    let bytes = line.as_bytes();
    let mut i = start;
    while i < bytes.len() && bytes[i] == b' ' {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'<' {
        let close = line[i + 1..].find('>')? + i + 1;
        let dest = line[i + 1..close].to_string();
        let rest = line[close + 1..].find(')')? + close + 1;
        return Some((dest, rest + 1));
    }
    let mut depth = 0usize;
    let begin = i;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            b' ' | b'\t' => break,
            _ => {}
        }
        i += 1;
    }
    let dest = line.get(begin..i.min(bytes.len()))?.to_string();
    // Optional title, then `)`.
    let close = line[i.min(line.len())..].find(')')? + i;
    Some((dest, close + 1))
}

/// Extract links from one line (already free of inline code). Returns (target, kind) pairs.
fn line_links(line: &str) -> Vec<(String, LinkKind)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    // Wikilinks first; their spans are blanked for the Markdown pass.
    let mut masked = line.as_bytes().to_vec();
    let mut i = 0;
    while let Some(pos) = line[i..].find("[[") {
        let open = i + pos;
        let Some(close_rel) = line[open + 2..].find("]]") else {
            break;
        };
        let close = open + 2 + close_rel;
        let inner = &line[open + 2..close];
        let embed = open > 0 && bytes[open - 1] == b'!';
        if !embed && !inner.contains('[') {
            let target = inner.split('|').next().unwrap_or("").trim();
            if !target.is_empty() {
                out.push((target.to_string(), LinkKind::Wikilink));
            }
        }
        for b in &mut masked[open..close + 2] {
            *b = b' ';
        }
        i = close + 2;
    }
    let masked = String::from_utf8(masked).unwrap_or_default();
    let mb = masked.as_bytes();
    let mut i = 0;
    while i < mb.len() {
        if mb[i] != b'[' || (i > 0 && mb[i - 1] == b'\\') {
            i += 1;
            continue;
        }
        let Some(end) = label_end(mb, i) else {
            i += 1;
            continue;
        };
        if end + 1 < mb.len() && mb[end + 1] == b'(' {
            let image = i > 0 && mb[i - 1] == b'!';
            if let Some((dest, after)) = destination(&masked, end + 2) {
                if !image && let Some(t) = clean_markdown_target(&dest) {
                    out.push((t, LinkKind::Markdown));
                }
                i = after;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Extract the links of a page body. `page_path` is vault-relative; `first_line` is the file
/// line on which `body` starts (so reported lines are file lines).
pub fn extract_links(body: &str, page_path: &str, first_line: usize) -> Vec<Link> {
    let related = markers::find_blocks(body, &Block::related());
    let mut out = Vec::new();
    for line in markdown::lines(body) {
        if line.in_code {
            continue;
        }
        if related
            .iter()
            .any(|s| line.start >= s.start && line.start < s.end)
        {
            continue;
        }
        if !line.text.contains('[') {
            continue;
        }
        let text = markdown::mask_inline_code(line.text);
        for (target, kind) in line_links(&text) {
            let resolved = match kind {
                LinkKind::Markdown => resolve_relative(page_path, &target),
                LinkKind::Wikilink => None,
            };
            out.push(Link {
                target,
                kind,
                line: first_line + line.number - 1,
                resolved,
            });
        }
    }
    out
}

/// Normalise a link target or page key for backlink comparison (reference §2.7): trim, `\` → `/`,
/// drop a trailing `.md`, a leading `./` and a trailing `/`, lowercase.
pub fn normalize_key(s: &str) -> String {
    let mut t = s.trim().replace('\\', "/");
    if let Some(stripped) = t.strip_prefix("./") {
        t = stripped.to_string();
    }
    while t.ends_with('/') {
        t.pop();
    }
    if t.to_ascii_lowercase().ends_with(".md") {
        t.truncate(t.len() - 3);
    }
    t.to_lowercase()
}

/// The set of valid link targets of a vault: page paths, paths without `.md`, and basenames
/// without `.md` (reference §6.2 `broken-wikilink`).
#[derive(Debug, Default, Clone)]
pub struct LinkTargets {
    by_path: HashMap<String, usize>,
    by_stem_path: HashMap<String, usize>,
    by_basename: HashMap<String, usize>,
}

impl LinkTargets {
    /// Build from vault-relative page paths (index = position in the slice). The first page wins
    /// when two pages share a basename.
    pub fn new<'a>(paths: impl IntoIterator<Item = &'a str>) -> LinkTargets {
        let mut t = LinkTargets::default();
        for (idx, path) in paths.into_iter().enumerate() {
            t.by_path.entry(path.to_string()).or_insert(idx);
            let stem = path.strip_suffix(".md").unwrap_or(path);
            t.by_stem_path.entry(stem.to_string()).or_insert(idx);
            let base = stem.rsplit('/').next().unwrap_or(stem);
            t.by_basename.entry(base.to_string()).or_insert(idx);
        }
        t
    }

    fn lookup(&self, key: &str) -> Option<usize> {
        self.by_path
            .get(key)
            .or_else(|| self.by_stem_path.get(key))
            .or_else(|| self.by_basename.get(key))
            .copied()
    }

    /// Resolve a link found in `page_path` to the index of the page it names.
    pub fn resolve(&self, link: &Link, page_path: &str) -> Option<usize> {
        match link.kind {
            LinkKind::Wikilink => {
                let t = link.target.split('#').next().unwrap_or("").trim();
                let t = t.strip_prefix("./").unwrap_or(t);
                self.lookup(t)
            }
            LinkKind::Markdown => {
                if let Some(r) = &link.resolved
                    && let Some(i) = self.by_path.get(r.as_str()).or_else(|| {
                        self.by_path
                            .get(format!("{r}.md").as_str())
                            .or_else(|| self.by_stem_path.get(r.as_str()))
                    })
                {
                    return Some(*i);
                }
                let _ = page_path;
                // Older vault-root-relative targets and bare basenames.
                let t = link.target.trim_start_matches("./");
                normalize_path(t).and_then(|n| self.lookup(&n))
            }
        }
    }

    /// Whether the link names a page of the vault.
    pub fn is_valid(&self, link: &Link, page_path: &str) -> bool {
        self.resolve(link, page_path).is_some()
    }
}

/// Format a link to `target_path` (vault-relative) with `title`, as written by the toolchain in
/// `from_path` (reference §2.6, newest behaviour): obsidian → `[[target-without-.md|title]]`;
/// native → `[title](relative/path.md)` relative to the directory of `from_path`.
pub fn format_link(obsidian: bool, from_path: &str, target_path: &str, title: &str) -> String {
    // Written into one string (no `format!`, no intermediate path): dashboards, indexes and
    // Related blocks format hundreds of thousands of links in a large vault's compile.
    let mut out = String::with_capacity(title.len() + target_path.len() + 16);
    if obsidian {
        let stem = target_path.strip_suffix(".md").unwrap_or(target_path);
        out.push_str("[[");
        out.push_str(stem);
        out.push('|');
        out.push_str(title);
        out.push_str("]]");
    } else {
        out.push('[');
        out.push_str(title);
        out.push_str("](");
        push_relative_path(&mut out, from_path, target_path);
        out.push(')');
    }
    out
}

/// The `/`-separated path of `target` relative to the directory of `from` (both vault-relative).
pub fn relative_path(from: &str, target: &str) -> String {
    let mut out = String::with_capacity(target.len() + 8);
    push_relative_path(&mut out, from, target);
    out
}

/// [`relative_path`] appended to `out`: one `..` per component of `from`'s directory after
/// those it shares with `target`, then the rest of `target`, joined by `/`.
fn push_relative_path(out: &mut String, from: &str, target: &str) {
    let from_dir = from.rsplit_once('/').map(|(d, _)| d);
    let from_parts = from_dir.map_or(0, |d| d.matches('/').count() + 1);
    let target_parts = target.matches('/').count() + 1;
    // The leading components both share, and where the rest of `target` starts.
    let mut common = 0;
    let mut rest_at = 0;
    if let Some(dir) = from_dir {
        for (f, t) in dir.split('/').zip(target.split('/')) {
            if f != t {
                break;
            }
            common += 1;
            rest_at += t.len() + 1;
        }
    }
    let ups = from_parts - common;
    for i in 0..ups {
        if i > 0 {
            out.push('/');
        }
        out.push_str("..");
    }
    if target_parts > common {
        if ups > 0 {
            out.push('/');
        }
        out.push_str(&target[rest_at.min(target.len())..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(body: &str, page: &str) -> Vec<(String, LinkKind, Option<String>)> {
        extract_links(body, page, 1)
            .into_iter()
            .map(|l| (l.target, l.kind, l.resolved))
            .collect()
    }

    #[test]
    fn wikilinks_and_markdown() {
        let body = "see [[sources/alpha|Alpha]] and [[ beta ]]\n[B](../sources/b.md#sec) [web](https://x.y) [anchor](#top) [home](/home)\n";
        let t = targets(body, "entities/e.md");
        assert_eq!(
            t,
            vec![
                ("sources/alpha".into(), LinkKind::Wikilink, None),
                ("beta".into(), LinkKind::Wikilink, None),
                (
                    "../sources/b.md".into(),
                    LinkKind::Markdown,
                    Some("sources/b.md".into())
                ),
                ("/home".into(), LinkKind::Markdown, Some("home".into())),
            ]
        );
    }

    #[test]
    fn code_and_related_are_ignored() {
        let body = "`[[x]]` ``[y](y.md)``\n```\n[[z]]\n```\n[[real]]\n\n## Related\n<!-- openclaw:wiki:related:start -->\n- [[gen]]\n<!-- openclaw:wiki:related:end -->\n";
        let t = extract_links(body, "a.md", 5);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].target, "real");
        assert_eq!(t[0].line, 9);
    }

    #[test]
    fn images_titles_and_angle_brackets() {
        let body =
            "![img](x.png) [t](<my page.md> \"T\") [q](a.md?x=1) [p](b%20c.md) [w](c\\d.md)\n";
        let t: Vec<String> = extract_links(body, "x.md", 1)
            .into_iter()
            .map(|l| l.target)
            .collect();
        assert_eq!(t, vec!["my page.md", "a.md", "b c.md", "c/d.md"]);
    }

    #[test]
    fn resolution_accepts_relative_and_root_forms() {
        let pages = ["sources/alpha.md", "entities/beta.md"];
        let lt = LinkTargets::new(pages.iter().copied());
        let rel = &extract_links("[A](../sources/alpha.md)", "entities/beta.md", 1)[0];
        assert_eq!(lt.resolve(rel, "entities/beta.md"), Some(0));
        let root = &extract_links("[A](sources/alpha.md)", "entities/beta.md", 1)[0];
        assert_eq!(lt.resolve(root, "entities/beta.md"), Some(0));
        let wl = &extract_links("[[alpha]] [[entities/beta]]", "x.md", 1);
        assert_eq!(lt.resolve(&wl[0], "x.md"), Some(0));
        assert_eq!(lt.resolve(&wl[1], "x.md"), Some(1));
        let broken = &extract_links("[[nope]]", "x.md", 1)[0];
        assert!(!lt.is_valid(broken, "x.md"));
    }

    #[test]
    fn relative_formatting() {
        assert_eq!(
            relative_path("entities/beta.md", "sources/alpha.md"),
            "../sources/alpha.md"
        );
        assert_eq!(
            relative_path("index.md", "sources/alpha.md"),
            "sources/alpha.md"
        );
        assert_eq!(
            relative_path("sources/index.md", "sources/alpha.md"),
            "alpha.md"
        );
        assert_eq!(
            format_link(true, "entities/b.md", "sources/alpha.md", "Alpha"),
            "[[sources/alpha|Alpha]]"
        );
        assert_eq!(
            format_link(false, "reports/x.md", "entities/a.md", "A"),
            "[A](../entities/a.md)"
        );
    }

    #[test]
    fn keys() {
        assert_eq!(normalize_key(" ./Sources/Alpha.md/ "), "sources/alpha");
        assert_eq!(normalize_key("a\\b.MD"), "a/b");
    }

    /// The former implementation (split into vectors, joined), as the oracle.
    fn relative_path_by_vectors(from: &str, target: &str) -> String {
        let from_dir: Vec<&str> = match from.rsplit_once('/') {
            Some((d, _)) => d.split('/').collect(),
            None => Vec::new(),
        };
        let target_parts: Vec<&str> = target.split('/').collect();
        let common = from_dir
            .iter()
            .zip(target_parts.iter())
            .take_while(|(a, b)| a == b)
            .count();
        let mut out: Vec<&str> = Vec::new();
        out.extend(std::iter::repeat_n("..", from_dir.len() - common));
        out.extend(&target_parts[common..]);
        out.join("/")
    }

    #[test]
    fn relative_paths_match_the_vector_implementation() {
        let parts = ["a", "b", "", "entities", "x.md", "é", "sources"];
        let mut paths = vec![String::new()];
        for a in parts {
            paths.push(a.to_string());
            for b in parts {
                paths.push(format!("{a}/{b}"));
                for c in parts {
                    paths.push(format!("{a}/{b}/{c}"));
                }
            }
        }
        for from in &paths {
            for target in &paths {
                assert_eq!(
                    relative_path(from, target),
                    relative_path_by_vectors(from, target),
                    "{from:?} -> {target:?}"
                );
            }
        }
    }
}
