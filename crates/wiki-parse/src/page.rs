//! Parsing one page file into a [`Page`].

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use yaml_serde::Mapping;

use crate::frontmatter;
use crate::kind::PageKind;
use crate::links::{self, Link};
use crate::markdown::{self, line_of_offset};
use crate::markers;
use crate::model::{self, PageSummary};
use crate::splice;
use crate::yaml::{self, KeyLines};

/// Pages larger than this are refused (a wiki page is prose, not a data dump).
pub const MAX_PAGE_BYTES: usize = 16 * 1024 * 1024;

/// How many leading bytes are checked for NUL to detect binary files (as git does).
pub const BINARY_SNIFF_BYTES: usize = 8000;

/// A page that could not be parsed: `path:line: message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct PageError {
    /// Vault-relative path.
    pub path: String,
    /// 1-based line the problem is on (1 when it concerns the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl PageError {
    /// Whether the problem is in the frontmatter (unclosed fence, invalid YAML, a root that is not
    /// a mapping) rather than in the file itself (binary, not UTF-8, too large, symlink,
    /// unreadable). Every frontmatter message produced by [`parse_page`] names the frontmatter.
    pub fn is_frontmatter(&self) -> bool {
        self.message.to_ascii_lowercase().contains("frontmatter")
    }
}

/// Everything the toolchain knows about a page except its text: the page record of
/// `wiki-parse` (minus the `type` field), and what digest and lint consume, whether the pages come
/// from the vault or from `wiki-parse` records on stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    /// Vault-relative path with `/` separators.
    pub path: String,
    /// Kind from the first path segment.
    pub kind: PageKind,
    /// Resolved title: frontmatter `title`, else the first H1, else the file name without `.md`.
    pub title: String,
    /// The normalised frontmatter summary.
    #[serde(flatten)]
    pub summary: PageSummary,
    /// Links found in the body (the generated Related block and code excluded).
    #[serde(default)]
    pub links: Vec<Link>,
    /// Git blob id (SHA-1 hex) of the file bytes.
    pub blob_id: String,
    /// File line on which the body starts.
    pub body_line: usize,
    /// File line of each top-level frontmatter key, in order.
    #[serde(default)]
    pub key_lines: KeyLineMap,
    /// The body opens with the raw-source marker (see [`markers::has_raw_source_marker`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raw_source: bool,
    /// Every entry of the frontmatter's `claims` list is one of `summary.claims` (none was
    /// dropped, e.g. for lacking text), so a claim id that `summary.claims` lacks is not on the
    /// page ([`model::claims_complete`]). Not part of page records: false when read from one.
    #[serde(skip)]
    pub claims_complete: bool,
    /// `links` was not filled in: the page's links were not extracted (a dashboard an operation
    /// re-rendered, whose links nothing in an operation reads; see
    /// `wiki_digest::CompileOptions::report_links`). Readers that need links parse the page
    /// again. Not part of page records.
    #[serde(skip)]
    pub links_omitted: bool,
}

impl PageInfo {
    /// The page id, falling back to the path (used as a stable identity).
    pub fn id_or_path(&self) -> &str {
        self.summary.id.as_deref().unwrap_or(&self.path)
    }

    /// The line of a top-level frontmatter key, if present.
    pub fn key_line(&self, key: &str) -> Option<usize> {
        self.key_lines.get(key)
    }
}

/// The file line of each top-level frontmatter key, in order: a map with the semantics of an
/// insertion-ordered map (a key inserted again keeps its place and takes the new line), kept as
/// a list because a page has a handful of keys (the parse cache decodes 10,000 of these per
/// operation on a large vault; hash tables cost more than they save here). Serialized as a JSON
/// object (`keyLines` in page records).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyLineMap(Vec<(String, usize)>);

impl KeyLineMap {
    /// The line of `key`.
    pub fn get(&self, key: &str) -> Option<usize> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, line)| *line)
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `(key, line)` in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.0.iter().map(|(k, line)| (k.as_str(), *line))
    }

    /// Set `key`'s line (a new key goes last).
    pub fn insert(&mut self, key: String, line: usize) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = line,
            None => self.0.push((key, line)),
        }
    }
}

impl FromIterator<(String, usize)> for KeyLineMap {
    fn from_iter<I: IntoIterator<Item = (String, usize)>>(iter: I) -> Self {
        let pairs: Vec<(String, usize)> = iter.into_iter().collect();
        // Distinct keys (the usual case) are taken as they are; repeated ones merged as
        // `insert` does (through a hash table when there are many: no quadratic scan).
        let distinct = if pairs.len() <= 32 {
            pairs
                .iter()
                .enumerate()
                .all(|(i, (k, _))| pairs[..i].iter().all(|(other, _)| other != k))
        } else {
            let mut seen = std::collections::HashSet::with_capacity(pairs.len());
            pairs.iter().all(|(k, _)| seen.insert(k.as_str()))
        };
        if distinct {
            return KeyLineMap(pairs);
        }
        let mut map: IndexMap<String, usize> = IndexMap::with_capacity(pairs.len());
        for (k, line) in pairs {
            map.insert(k, line);
        }
        KeyLineMap(map.into_iter().collect())
    }
}

impl Serialize for KeyLineMap {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, line)| (k, line)))
    }
}

impl<'de> Deserialize<'de> for KeyLineMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The pairs in order, merged as `insert` does (`FromIterator`): no hash table for the
        // handful of keys of each of a vault's pages.
        struct Pairs;
        impl<'de> serde::de::Visitor<'de> for Pairs {
            type Value = KeyLineMap;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of frontmatter keys to lines")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<KeyLineMap, A::Error> {
                let mut pairs: Vec<(String, usize)> =
                    Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
                while let Some(pair) = map.next_entry::<String, usize>()? {
                    pairs.push(pair);
                }
                Ok(pairs.into_iter().collect())
            }
        }
        deserializer.deserialize_map(Pairs)
    }
}

/// A parsed page: its [`PageInfo`] (reachable through `Deref`) plus its text and raw frontmatter.
#[derive(Debug, Clone)]
pub struct Page {
    /// Record-level information.
    pub info: PageInfo,
    /// The raw frontmatter mapping (key order kept).
    pub frontmatter: Mapping,
    /// Whether the file has a frontmatter block at all.
    pub has_frontmatter: bool,
    /// The full file text.
    pub text: String,
    /// Byte offset of the body in `text`.
    pub body_offset: usize,
}

impl std::ops::Deref for Page {
    type Target = PageInfo;
    fn deref(&self) -> &PageInfo {
        &self.info
    }
}

impl Page {
    /// The body (everything after the frontmatter).
    pub fn body(&self) -> &str {
        &self.text[self.body_offset..]
    }

    /// The raw frontmatter text (between the fences), empty when there is none.
    pub fn frontmatter_text(&self) -> &str {
        if !self.has_frontmatter {
            return "";
        }
        let head = &self.text[..self.body_offset];
        let start = head.find('\n').map_or(head.len(), |i| i + 1);
        let end = head[..head.len().saturating_sub(1)]
            .rfind('\n')
            .unwrap_or(start)
            .max(start);
        &head[start..end]
    }

    /// The page re-rendered with a new frontmatter mapping, keeping `body` byte for byte.
    ///
    /// Unlike [`render_page`], nothing of the body is trimmed or normalised: the result is
    /// `---\n<yaml>---\n` followed by `body` exactly as given (pass [`Page::body`] to keep the
    /// current body, blank line after the fence and missing final newline included). A page that
    /// had no frontmatter gets one, separated from its body by a blank line (unless the body
    /// already starts with one). Used by writers that change only the frontmatter (or only their
    /// own managed block) of an existing page.
    pub fn render_with(&self, fm: &Mapping, body: &str) -> String {
        let yaml = yaml::emit_mapping(fm);
        let mut out = String::with_capacity(yaml.len() + body.len() + 10);
        out.push_str("---\n");
        out.push_str(&yaml);
        out.push_str("---\n");
        if !self.has_frontmatter && !body.starts_with('\n') && !body.starts_with("\r\n") {
            out.push('\n');
        }
        out.push_str(body);
        out
    }
}

impl Page {
    /// The page with its frontmatter changed to `fm` and `body` after it, writing only what
    /// changed: the entries of `fm` that differ from the page's frontmatter are spliced into its
    /// frontmatter text ([`crate::splice`]), every other byte of the block (key order, quoting,
    /// flow or block style, comments, CRLF line endings, the fences) stays as it was. A page
    /// without frontmatter gets a new block, as [`Page::render_with`] writes it.
    pub fn render_edit(&self, fm: &Mapping, body: &str) -> String {
        let Some((open, yaml, close)) = self.frontmatter_parts() else {
            return self.render_with(fm, body);
        };
        let Some(spliced) = splice::splice_mapping(yaml, &self.frontmatter, fm) else {
            // The frontmatter's structure could not be located (a flow-style root, complex keys,
            // anchors, tab indentation) or the splice would not read back as `fm`: the whole
            // frontmatter is written again.
            return self.render_with(fm, body);
        };
        let mut out = String::with_capacity(open.len() + spliced.len() + close.len() + body.len());
        out.push_str(open);
        out.push_str(&spliced);
        out.push_str(close);
        out.push_str(body);
        out
    }

    /// The frontmatter block in three parts: the opening fence line, the YAML lines (line
    /// endings included) and the closing fence line; `None` without frontmatter.
    fn frontmatter_parts(&self) -> Option<(&str, &str, &str)> {
        if !self.has_frontmatter {
            return None;
        }
        let head = &self.text[..self.body_offset];
        let open_end = head.find('\n')? + 1;
        let without_last = head.strip_suffix('\n').unwrap_or(head);
        let close_start = without_last.rfind('\n').map_or(0, |i| i + 1).max(open_end);
        if close_start < open_end || close_start > head.len() {
            return None;
        }
        Some((
            &head[..open_end],
            &head[open_end..close_start],
            &head[close_start..],
        ))
    }
}

/// Git blob id (SHA-1 of `blob <len>\0<bytes>`), lowercase hex.
pub fn git_blob_id(bytes: &[u8]) -> String {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    hex_id(&h.digest().bytes(), |s| s.to_string())
}

/// The 40 lower-case hex digits of a 20-byte id (a git object id), handed to `make` as text
/// (no intermediate string: the parse cache builds a shared one directly).
pub fn hex_id<T>(raw: &[u8; 20], make: impl FnOnce(&str) -> T) -> T {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 40];
    for (pair, b) in buf.chunks_exact_mut(2).zip(raw) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 15)];
    }
    // (Hex digits: always UTF-8.)
    make(std::str::from_utf8(&buf).unwrap_or_default())
}

/// The file name without `.md`.
pub fn file_stem(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.strip_suffix(".md").unwrap_or(base)
}

fn page_error(path: &str, line: usize, message: String) -> PageError {
    PageError {
        path: path.to_string(),
        line,
        message,
    }
}

/// The frontmatter YAML `yaml` (starting on line `first_line`) of the page at `path`.
fn parse_yaml(path: &str, yaml: &str, first_line: usize) -> Result<Mapping, PageError> {
    yaml::parse_mapping(yaml, first_line).map_err(|e| page_error(path, e.line, e.message))
}

/// The checks every page read starts with (page directory, size, binary, UTF-8, a closed
/// frontmatter block): the page kind, the text and its frontmatter split.
fn read_text<'a>(
    path: &str,
    bytes: &'a [u8],
) -> Result<(PageKind, &'a str, frontmatter::Split<'a>), PageError> {
    let err = |line: usize, message: String| page_error(path, line, message);
    let kind = PageKind::from_path(path).ok_or_else(|| {
        err(
            1,
            "not inside a page directory (entities/, concepts/, sources/, syntheses/, reports/)"
                .into(),
        )
    })?;
    if bytes.len() > MAX_PAGE_BYTES {
        return Err(err(
            1,
            format!(
                "file is too large to be a page ({} bytes; the limit is {} bytes)",
                bytes.len(),
                MAX_PAGE_BYTES
            ),
        ));
    }
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if let Some(pos) = memchr::memchr(0, sniff) {
        return Err(err(
            line_of_offset(bytes, pos),
            "binary file (contains a NUL byte), not a Markdown page".into(),
        ));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            return Err(err(
                line_of_offset(bytes, at),
                format!("invalid UTF-8 at byte {at}; pages must be UTF-8 text"),
            ));
        }
    };
    let split = frontmatter::split(text).map_err(|_| {
        err(
            1,
            "frontmatter opened with `---` on line 1 is never closed by a `---` line".into(),
        )
    })?;
    Ok((kind, text, split))
}

/// A page's frontmatter mapping and where its body starts, without the rest of [`parse_page`]
/// (summary, links, blob id): for rewriting a page whose cached parse lacks the mapping (a
/// 10,000-page vault's claim-health dashboard is megabytes of links). Same checks and errors.
pub fn parse_frontmatter<'a>(
    path: &str,
    bytes: &'a [u8],
) -> Result<PageFrontmatter<'a>, PageError> {
    let (_, text, split) = read_text(path, bytes)?;
    let frontmatter = match split.yaml {
        Some(y) => parse_yaml(path, y, split.yaml_first_line)?,
        None => Mapping::new(),
    };
    Ok(PageFrontmatter {
        frontmatter,
        text,
        body_offset: split.body_offset,
    })
}

/// What [`parse_frontmatter`] returns.
#[derive(Debug, Clone)]
pub struct PageFrontmatter<'a> {
    /// The raw frontmatter mapping (key order kept; empty without a frontmatter block).
    pub frontmatter: Mapping,
    /// The full file text.
    pub text: &'a str,
    /// Byte offset of the body in `text`.
    pub body_offset: usize,
}

/// Parse a page from its bytes. `path` is vault-relative and must start with a page directory.
pub fn parse_page(path: &str, bytes: &[u8]) -> Result<Page, PageError> {
    parse_page_inner(path, bytes, true)
}

/// [`parse_page`] without the body's links and the blob id (left empty): [`page_links`] gives
/// them later, e.g. on another thread (a 10,000-page vault's claim-health dashboard is megabytes
/// of links). Same checks and errors.
pub fn parse_page_without_links(path: &str, bytes: &[u8]) -> Result<Page, PageError> {
    parse_page_inner(path, bytes, false)
}

/// The links and the blob id [`parse_page`] finds in these bytes (what
/// [`parse_page_without_links`] leaves out).
pub fn page_links(path: &str, bytes: &[u8]) -> Result<(Vec<Link>, String), PageError> {
    let (_, _, split) = read_text(path, bytes)?;
    Ok((
        links::extract_links(split.body, path, split.body_first_line),
        git_blob_id(bytes),
    ))
}

fn parse_page_inner(path: &str, bytes: &[u8], with_links: bool) -> Result<Page, PageError> {
    let (kind, text, split) = read_text(path, bytes)?;
    let (fm, key_lines) = match split.yaml {
        Some(y) => (
            parse_yaml(path, y, split.yaml_first_line)?,
            yaml::scan_key_lines(y, split.yaml_first_line),
        ),
        None => (Mapping::new(), KeyLines::default()),
    };
    let summary = model::summarize(&fm, &key_lines);
    let claims_complete = model::claims_complete(&fm, &summary);
    let title = model::opt_string(fm.get("title"))
        .or_else(|| markdown::first_h1(split.body))
        .unwrap_or_else(|| file_stem(path).to_string());
    let (links, blob_id) = if with_links {
        (
            links::extract_links(split.body, path, split.body_first_line),
            git_blob_id(bytes),
        )
    } else {
        (Vec::new(), String::new())
    };
    Ok(Page {
        info: PageInfo {
            path: path.to_string(),
            kind,
            title,
            summary,
            links,
            blob_id,
            body_line: split.body_first_line,
            key_lines: key_lines.keys.iter().cloned().collect(),
            raw_source: markers::has_raw_source_marker(split.body),
            claims_complete,
            links_omitted: false,
        },
        has_frontmatter: split.yaml.is_some(),
        frontmatter: fm,
        text: text.to_string(),
        body_offset: split.body_offset,
    })
}

/// Render a page file from a frontmatter mapping and a body, the way the toolchain writes pages:
/// `---\n<yaml>---\n\n<body with leading whitespace trimmed>` (no frontmatter block when the
/// mapping is empty), always ending with a newline.
pub fn render_page(fm: &Mapping, body: &str) -> String {
    let body = body.trim_start();
    let mut out = String::with_capacity(body.len() + 256);
    out.push_str(&page_header(fm));
    out.push_str(body);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// What [`render_page`] writes before the body: the frontmatter block and a blank line, or
/// nothing for an empty mapping.
fn page_header(fm: &Mapping) -> String {
    if fm.is_empty() {
        return String::new();
    }
    format!("---\n{}---\n\n", yaml::emit_mapping(fm))
}

/// Whether `text` is exactly `render_page(fm, body)`, without rendering it (a dashboard's page
/// runs to megabytes).
pub fn is_rendered_page(text: &str, fm: &Mapping, body: &str) -> bool {
    let header = page_header(fm);
    let body = body.trim_start();
    let Some(rest) = text.strip_prefix(header.as_str()) else {
        return false;
    };
    // (A header, when there is one, ends with a newline.)
    let ends_with_newline = if body.is_empty() {
        !header.is_empty()
    } else {
        body.ends_with('\n')
    };
    if ends_with_newline {
        rest == body
    } else {
        rest.strip_suffix('\n') == Some(body)
    }
}

/// [`render_page`] of a body the caller owns: the header goes in front of it in place when
/// the body has no leading whitespace and room for it (a dashboard's page runs to megabytes).
pub fn render_page_owned(fm: &Mapping, mut body: String) -> String {
    if body.trim_start().len() != body.len() {
        return render_page(fm, &body);
    }
    body.insert_str(0, &page_header(fm));
    if !body.ends_with('\n') {
        body.push('\n');
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_rendered_page` and `render_page_owned` agree with `render_page` on every shape of
    /// body (empty, blank, leading whitespace, no final newline) with and without a frontmatter.
    #[test]
    fn page_rendering_shortcuts_agree_with_render_page() {
        let mut fm = Mapping::new();
        fm.insert(
            yaml_serde::Value::String("title".into()),
            yaml_serde::Value::String("T".into()),
        );
        let bodies = [
            "",
            "\n",
            "  \n",
            "# T\n",
            "# T",
            "\n\n# T\nrow\n",
            " x",
            "x\n\n",
        ];
        for fm in [Mapping::new(), fm] {
            for body in bodies {
                let rendered = render_page(&fm, body);
                assert_eq!(
                    render_page_owned(&fm, body.to_string()),
                    rendered,
                    "{body:?}"
                );
                assert!(is_rendered_page(&rendered, &fm, body), "{body:?}");
                for other in bodies.iter().map(|b| render_page(&fm, b)) {
                    assert_eq!(
                        is_rendered_page(&other, &fm, body),
                        other == rendered,
                        "{body:?}"
                    );
                }
                assert!(
                    !is_rendered_page(&format!("{rendered}\n"), &fm, body),
                    "{body:?}"
                );
                let mut cut = rendered.clone();
                cut.pop();
                assert!(!is_rendered_page(&cut, &fm, body), "{body:?}");
            }
        }
    }

    /// Key lines behave as the insertion-ordered map they replaced: order kept, a repeated key
    /// keeps its first place and takes the last line (also past 32 keys), a JSON object in page
    /// records both ways.
    #[test]
    fn key_line_map_is_an_ordered_map() {
        let pairs = |keys: &[(&str, usize)]| -> Vec<(String, usize)> {
            keys.iter().map(|(k, l)| (k.to_string(), *l)).collect()
        };
        let map: KeyLineMap = pairs(&[("id", 2), ("title", 3), ("id", 9)])
            .into_iter()
            .collect();
        assert_eq!(map.iter().collect::<Vec<_>>(), [("id", 9), ("title", 3)]);
        assert_eq!(map.get("id"), Some(9));
        assert_eq!(map.get("nope"), None);
        let many: Vec<(String, usize)> = (0..40).map(|i| (format!("k{}", i % 35), i)).collect();
        let map: KeyLineMap = many.into_iter().collect();
        assert_eq!(map.len(), 35);
        assert_eq!(map.get("k0"), Some(35));
        assert_eq!(map.iter().next(), Some(("k0", 35)));
        assert_eq!(map.get("k34"), Some(34));
        let mut m = KeyLineMap::default();
        m.insert("b".into(), 1);
        m.insert("a".into(), 2);
        m.insert("b".into(), 3);
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"b":3,"a":2}"#);
        let back: KeyLineMap = serde_json::from_str(r#"{"z":1,"y":2,"z":5}"#).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), [("z", 5), ("y", 2)]);
    }

    #[test]
    fn links_parsed_apart_are_those_of_a_whole_parse() {
        let pages: [(&str, &[u8]); 4] = [
            (
                "reports/claim-health.md",
                b"---\ntitle: Claim Health\n---\n\n# Claim Health\n\n- [Alpha](../entities/alpha.md) `[x](y.md)`\n- [[concepts/beta|Beta]]\n",
            ),
            ("entities/alpha.md", b"\xef\xbb\xbf# Alpha\r\n\r\nSee [Beta](../concepts/beta.md).\r\n"),
            ("concepts/empty.md", b""),
            ("sources/s.md", b"---\nid: source.s\n---\n```\n[not](a.md)\n```\n[yes](b.md)\n"),
        ];
        for (path, bytes) in pages {
            let whole = parse_page(path, bytes).unwrap();
            let mut apart = parse_page_without_links(path, bytes).unwrap();
            assert!(apart.info.links.is_empty() && apart.info.blob_id.is_empty());
            (apart.info.links, apart.info.blob_id) = page_links(path, bytes).unwrap();
            assert_eq!(apart.info, whole.info, "{path}");
            assert_eq!(apart.text, whole.text);
            assert_eq!(apart.body_offset, whole.body_offset);
        }
        let bad: &[u8] = b"---\ntitle: [unclosed\n---\n";
        assert_eq!(
            parse_page_without_links("entities/bad.md", bad).unwrap_err(),
            parse_page("entities/bad.md", bad).unwrap_err()
        );
    }

    #[test]
    fn blob_id_matches_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(git_blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn titles() {
        let p = parse_page("entities/a-b.md", b"---\ntitle: ' T '\n---\n# H\n").unwrap();
        assert_eq!(p.title, "T");
        let p = parse_page("entities/a-b.md", b"---\nid: x\n---\n\n# Heading One\n").unwrap();
        assert_eq!(p.title, "Heading One");
        let p = parse_page("entities/a-b.md", b"no heading\n").unwrap();
        assert_eq!(p.title, "a-b");
        assert_eq!(p.kind, PageKind::Entity);
    }

    #[test]
    fn errors_have_lines() {
        let e = parse_page("concepts/x.md", b"---\nid: a\ntitle: [oops\n---\n").unwrap_err();
        assert_eq!(e.path, "concepts/x.md");
        assert!(e.line >= 3, "{e}");
        let e = parse_page("concepts/x.md", b"a\nb\0c").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("binary"));
        let e = parse_page("concepts/x.md", b"ok\n\xff\xfe").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_page("concepts/x.md", b"---\n- a\n---\n").unwrap_err();
        assert!(e.message.contains("mapping"));
        let e = parse_page("concepts/x.md", b"---\nid: a\n").unwrap_err();
        assert!(e.message.contains("never closed"));
        assert!(e.is_frontmatter());
        for bad in [&b"---\nid: a\ntitle: [oops\n---\n"[..], b"---\n- a\n---\n"] {
            assert!(
                parse_page("concepts/x.md", bad)
                    .unwrap_err()
                    .is_frontmatter()
            );
        }
        for bad in [&b"a\0"[..], b"\xff"] {
            assert!(
                !parse_page("concepts/x.md", bad)
                    .unwrap_err()
                    .is_frontmatter()
            );
        }
    }

    #[test]
    fn frontmatter_text_and_body() {
        let p = parse_page("sources/s.md", b"---\nid: a\nx: 1\n---\n\nbody\n").unwrap();
        assert_eq!(p.frontmatter_text(), "id: a\nx: 1");
        assert_eq!(p.body(), "\nbody\n");
        let p = parse_page("sources/s.md", b"body only\n").unwrap();
        assert_eq!(p.frontmatter_text(), "");
        let p = parse_page("sources/s.md", b"").unwrap();
        assert_eq!(p.title, "s");
    }

    #[test]
    fn render_with_keeps_body_bytes() {
        let p = parse_page(
            "entities/a.md",
            b"---\r\nid: a\r\ntitle: A\r\n---\r\n# A\r\n\r\nno final newline",
        )
        .unwrap();
        let mut fm = p.frontmatter.clone();
        fm.insert("status".into(), "review".into());
        let out = p.render_with(&fm, p.body());
        assert_eq!(
            out,
            "---\nid: a\ntitle: A\nstatus: review\n---\n# A\r\n\r\nno final newline"
        );
        let p = parse_page("entities/b.md", b"# B\n\ntext\n").unwrap();
        let mut fm = Mapping::new();
        fm.insert("id".into(), "b".into());
        assert_eq!(
            p.render_with(&fm, p.body()),
            "---\nid: b\n---\n\n# B\n\ntext\n"
        );
        let p = parse_page("entities/c.md", b"\n# C\n").unwrap();
        assert_eq!(p.render_with(&fm, p.body()), "---\nid: b\n---\n\n# C\n");
    }

    #[test]
    fn render_edit_keeps_the_frontmatter_bytes() {
        let text = "\u{feff}---\r\n# kept\r\nid: a\r\naliases: [A]   # flow\r\n---  \r\n# A\r\n";
        let p = parse_page("entities/a.md", text.as_bytes()).unwrap();
        let mut fm = p.frontmatter.clone();
        fm.insert("status".into(), "review".into());
        assert_eq!(
            p.render_edit(&fm, p.body()),
            "\u{feff}---\r\n# kept\r\nid: a\r\naliases: [A]   # flow\r\nstatus: review\r\n---  \r\n# A\r\n"
        );
        // Empty frontmatter, and a page without any: written as render_with writes it.
        let p = parse_page("entities/b.md", b"---\n---\nbody\n").unwrap();
        assert_eq!(
            p.render_edit(&fm, p.body()),
            format!("---\n{}---\nbody\n", yaml::emit_mapping(&fm))
        );
        let p = parse_page("entities/c.md", b"# C\n").unwrap();
        assert_eq!(p.render_edit(&fm, p.body()), p.render_with(&fm, p.body()));
        // A frontmatter we cannot splice into (a flow root) is written again whole.
        let p = parse_page("entities/d.md", b"---\n{id: a}\n---\n# D\n").unwrap();
        assert_eq!(p.render_edit(&fm, p.body()), p.render_with(&fm, p.body()));
    }

    #[test]
    fn render_round_trip() {
        let p = parse_page("sources/s.md", b"---\nid: a\ntitle: S\n---\n\n# S\n").unwrap();
        assert_eq!(render_page(&p.frontmatter, p.body()), p.text);
    }
}
