//! `wiki get` (reference §8): read a page by claim id, path or id, as a line window of its body.
//!
//! Resolution (wiki corpus):
//! 1. a claim id (a leading `claim:` is stripped, case-insensitively) found as `id` in
//!    `.openclaw-wiki/cache/claims.jsonl` (written by compile) → that line's `pagePath`;
//! 2. else, with `key` = the lookup trimmed, `\` → `/`, a trailing `/` removed (unless it ends
//!    in `.md`), the first of: a page whose path is `key`; `key.md`; whose path minus `.md` is
//!    `key`; whose base name minus `.md` is `key` (first in path order); whose `id` is `key`.
//!
//! The content is the page **body** (after the frontmatter; the blank line after the closing
//! `---` is line 1), split on `\r?\n`, lines `[from − 1, from − 1 + lines)`. `totalLines` counts
//! all body lines and `truncated` tells whether lines remain after the window.
//!
//! Memory (with `--corpus memory`, or as a fallback with `--corpus all`): the file `key`, then
//! `key.md`, relative to the memory workspace, as lines of the whole file.

use std::path::Path;

use serde::Serialize;

use crate::rank::{self};

/// A `wiki get` result.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GetResult {
    /// `wiki` or `memory`.
    pub corpus: &'static str,
    /// Path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Page kind or `memory`.
    pub kind: String,
    /// The line window.
    pub content: String,
    /// First line (1-based).
    pub from_line: usize,
    /// Requested line count.
    pub line_count: usize,
    /// Body lines (wiki only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<usize>,
    /// Whether lines remain after the window (wiki only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// Page provenance metadata (wiki only).
    #[serde(flatten)]
    pub meta: rank::PageMeta,
}

/// Normalise a lookup key (§8 step 2).
pub fn lookup_key(lookup: &str) -> String {
    let mut key = lookup.trim().replace('\\', "/");
    if !key.ends_with(".md") {
        while key.ends_with('/') {
            key.pop();
        }
    }
    key
}

/// The path of the claims cache written by compile.
pub const CLAIMS_CACHE: &str = wiki_parse::layout::CLAIMS_PATH;

/// The claim id a lookup names (a leading `claim:` stripped, case-insensitively); `None` when
/// blank.
pub fn claim_id(lookup: &str) -> Option<&str> {
    let t = lookup.trim();
    let id = if t.len() >= 6 && t.is_char_boundary(6) && t[..6].eq_ignore_ascii_case("claim:") {
        t[6..].trim()
    } else {
        t
    };
    (!id.is_empty()).then_some(id)
}

/// The claim-id tier: `pagePath` of the `claims.jsonl` line whose `id` is the lookup (a leading
/// `claim:` stripped, case-insensitively). Blank and unparsable lines are ignored.
pub fn claim_page(claims_jsonl: &str, lookup: &str) -> Option<String> {
    let id = claim_id(lookup)?;
    for line in claims_jsonl.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v.get("id").and_then(|x| x.as_str()) == Some(id)
            && let Some(p) = v.get("pagePath").and_then(|x| x.as_str())
        {
            return Some(p.to_string());
        }
    }
    None
}

/// Resolve a key among page paths (sorted) and `(path, id)` pairs.
pub fn resolve_path(key: &str, paths: &[String], ids: &[(String, String)]) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    let with_md = format!("{key}.md");
    let tiers: [&dyn Fn(&str) -> bool; 4] = [
        &|p: &str| p == key,
        &|p: &str| p == with_md,
        &|p: &str| p.strip_suffix(".md") == Some(key),
        &|p: &str| {
            let base = p.rsplit('/').next().unwrap_or(p);
            base.strip_suffix(".md") == Some(key)
        },
    ];
    for tier in tiers {
        if let Some(p) = paths.iter().find(|p| tier(p)) {
            return Some(p.clone());
        }
    }
    ids.iter().find(|(_, id)| id == key).map(|(p, _)| p.clone())
}

/// Slice `[from − 1, from − 1 + count)` of the lines of `text` (split on `\r?\n`).
pub fn window(text: &str, from: usize, count: usize) -> (String, usize, bool) {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let total = lines.len();
    let start = from.saturating_sub(1).min(total);
    let end = start.saturating_add(count).min(total);
    let content = lines[start..end].join("\n");
    let truncated = from.saturating_sub(1).saturating_add(count) < total;
    (content, total, truncated)
}

/// Build the wiki result for a parsed page.
pub fn page_result(page: &wiki_parse::Page, from: usize, count: usize) -> GetResult {
    let (content, total, truncated) = window(page.body(), from, count);
    let stored = crate::doc::StoredPage {
        path: page.path.clone(),
        title: page.title.clone(),
        kind: page.kind,
        summary: page.summary.clone(),
        text: String::new(),
        body_start: 0,
        folded: crate::doc::FoldedPage::default(),
    };
    GetResult {
        corpus: "wiki",
        path: page.path.clone(),
        title: page.title.clone(),
        kind: page.kind.as_str().to_string(),
        content,
        from_line: from,
        line_count: count,
        total_lines: Some(total),
        truncated: Some(truncated),
        meta: rank::PageMeta::of(&stored),
    }
}

/// Read a memory file window (`key`, then `key.md`, relative to the workspace).
pub fn memory_result(memory_dir: &Path, key: &str, from: usize, count: usize) -> Option<GetResult> {
    let mut candidates = vec![key.to_string()];
    if !key.ends_with(".md") {
        candidates.push(format!("{key}.md"));
    }
    for rel in candidates {
        if rel.is_empty()
            || rel.starts_with('/')
            || rel.split('/').any(|s| s == ".." || s.is_empty())
        {
            continue;
        }
        let abs = memory_dir.join(&rel);
        if !std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let Ok(text) = wiki_cli::read::read_bounded_string(&abs, wiki_cli::read::MEMORY_NOTES)
        else {
            continue;
        };
        let (content, _, _) = window(&text, from, count);
        return Some(GetResult {
            corpus: "memory",
            path: rel.clone(),
            title: crate::memory::memory_title(&rel),
            kind: "memory".into(),
            content,
            from_line: from,
            line_count: count,
            total_lines: None,
            truncated: None,
            meta: rank::PageMeta::default(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_window_example() {
        let body = "\n# Alpha Source\n\nline one\nline two\nline three\n";
        let (content, total, truncated) = window(body, 4, 2);
        assert_eq!(content, "line one\nline two");
        assert_eq!(total, 7);
        assert!(truncated);
        let (content, _, truncated) = window(body, 1, 200);
        assert_eq!(content, body);
        assert!(!truncated);
        let (content, _, _) = window(body, 50, 2);
        assert_eq!(content, "");
        let (c, total, _) = window("a\r\nb\r\n", 1, 1);
        assert_eq!((c.as_str(), total), ("a", 3));
    }

    #[test]
    fn path_tiers() {
        let paths: Vec<String> = ["entities/alpha.md", "sources/alpha.md", "sources/beta.md"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ids = vec![("sources/beta.md".to_string(), "source.beta".to_string())];
        assert_eq!(
            resolve_path("sources/alpha.md", &paths, &ids).as_deref(),
            Some("sources/alpha.md")
        );
        assert_eq!(
            resolve_path("sources/alpha", &paths, &ids).as_deref(),
            Some("sources/alpha.md")
        );
        assert_eq!(
            resolve_path("alpha", &paths, &ids).as_deref(),
            Some("entities/alpha.md")
        );
        assert_eq!(
            resolve_path("source.beta", &paths, &ids).as_deref(),
            Some("sources/beta.md")
        );
        assert_eq!(resolve_path("nope", &paths, &ids), None);
        assert_eq!(lookup_key(" sources\\alpha/ "), "sources/alpha");
    }
}
