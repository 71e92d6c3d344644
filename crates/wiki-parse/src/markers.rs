//! Managed blocks and human blocks (reference §2.5), with the exact marker strings.
//!
//! A managed block is `<heading>\n<start marker>\n<body>\n<end marker>`. The toolchain owns what is
//! between the markers; everything outside is human text and is never touched.
//!
//! Replace rule ([`replace_managed_block`]): when the document already contains the markers, the
//! region from the heading (the closest non-blank line before the start marker, when it is the
//! block's heading; blank lines and CRLF in between are tolerated) to the end marker is replaced in
//! place; later duplicate blocks are removed. Otherwise the block is appended as
//! `trimEnd(original) + "\n\n" + block + "\n"` (or `block + "\n"` for an empty document). The
//! result always ends with `\n`. Markers are only recognised on a line of their own and never
//! inside fenced code (so a source page quoting markers in its content cannot be hijacked).

use crate::markdown;

/// A kind of managed block: heading plus start/end markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The heading line written before the start marker (e.g. `## Related`).
    pub heading: String,
    /// The start marker line.
    pub start: String,
    /// The end marker line.
    pub end: String,
}

/// Human block start marker.
pub const HUMAN_START: &str = "<!-- openclaw:human:start -->";
/// Human block end marker.
pub const HUMAN_END: &str = "<!-- openclaw:human:end -->";
/// Raw-source designation marker (newer plugin versions).
pub const RAW_SOURCE: &str = "<!-- openclaw:wiki:raw-source -->";

impl Block {
    fn new(heading: &str, name: &str) -> Block {
        Block {
            heading: heading.into(),
            start: format!("<!-- openclaw:wiki:{name}:start -->"),
            end: format!("<!-- openclaw:wiki:{name}:end -->"),
        }
    }

    /// Root `index.md`: `## Generated`, `<!-- openclaw:wiki:index:start|end -->`.
    pub fn root_index() -> Block {
        Block::new("## Generated", "index")
    }

    /// `<dir>/index.md`: `## Generated`, `<!-- openclaw:wiki:<dir>:index:start|end -->`.
    pub fn dir_index(dir: &str) -> Block {
        Block::new("## Generated", &format!("{dir}:index"))
    }

    /// Dashboard `reports/<name>.md` (and `reports/lint.md` with name `lint`).
    pub fn report(name: &str) -> Block {
        Block::new("## Generated", name)
    }

    /// The Related block on every non-report page.
    pub fn related() -> Block {
        Block::new("## Related", "related")
    }

    /// The synthesis summary block written by apply.
    pub fn summary() -> Block {
        Block::new("## Summary", "generated")
    }

    /// The empty human block as written by generators (`## Notes` heading not included).
    pub fn render(&self, body: &str) -> String {
        let mut out = String::new();
        self.render_into(&mut out, body, true);
        out
    }

    /// Append the block to `out`: heading line (when `heading`), start marker, body, end marker
    /// (no final newline), as [`Block::render`] writes it.
    fn render_into(&self, out: &mut String, body: &str, heading: bool) {
        if heading {
            out.push_str(&self.heading);
            out.push('\n');
        }
        for part in [self.start.as_str(), "\n", body, "\n", self.end.as_str()] {
            out.push_str(part);
        }
    }
}

/// The empty human block (`start\nend`).
pub fn empty_human_block() -> String {
    format!("{HUMAN_START}\n{HUMAN_END}")
}

/// Whether a page body opts out of page metadata as an unmanaged raw source: its first non-blank
/// line (outside code) is the [`RAW_SOURCE`] marker, or that first line is an H1 (`# …`) and the
/// next non-blank line is the marker (newest upstream behaviour; lint exempts such pages from
/// `missing-id`, `missing-page-type` and `stale-page` when they also lack `pageType`,
/// `sourceType` and `provenanceMode`).
pub fn has_raw_source_marker(body: &str) -> bool {
    if memchr::memmem::find(body.as_bytes(), RAW_SOURCE.as_bytes()).is_none() {
        return false;
    }
    let mut seen_h1 = false;
    for line in markdown::lines(body) {
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        if line.in_code {
            return false;
        }
        if t == RAW_SOURCE {
            return true;
        }
        if !seen_h1 && t.starts_with("# ") {
            seen_h1 = true;
            continue;
        }
        return false;
    }
    false
}

/// Where a managed block sits in a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Start of the region (the heading line when present, else the start marker line).
    pub start: usize,
    /// Byte offset of the start marker line.
    pub marker_start: usize,
    /// Byte offset just past the start marker line.
    pub body_start: usize,
    /// Byte offset of the end marker line (= end of the body, including its last newline).
    pub body_end: usize,
    /// Byte offset just past the end marker text (before its newline).
    pub end: usize,
    /// Whether the heading line was found before the start marker.
    pub has_heading: bool,
    /// 1-based line of the start marker within the scanned text.
    pub start_line: usize,
}

fn trimmed(line: &str) -> &str {
    line.trim()
}

/// Find every complete block (start marker followed by its end marker), outside code.
pub fn find_blocks(text: &str, block: &Block) -> Vec<Span> {
    let plain = |m: &str| !m.is_empty() && m.trim() == m;
    let bytes = text.as_bytes();
    if plain(&block.start)
        && plain(&block.end)
        && memchr::memmem::find(bytes, b"```").is_none()
        && memchr::memmem::find(bytes, b"~~~").is_none()
    {
        find_blocks_without_fences(text, block)
    } else {
        find_blocks_by_lines(text, block)
    }
}

/// The line around byte `at`: its start and its end (before its `\n`, or the end of `text`).
fn line_around(text: &str, at: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &bytes[at..]).map_or(text.len(), |i| at + i);
    (start, end)
}

/// The first line starting at or after `from` (a line start) that is `marker` once trimmed:
/// its start and end.
fn next_marker_line(text: &str, from: usize, marker: &str) -> Option<(usize, usize)> {
    memchr::memmem::find_iter(&text.as_bytes()[from..], marker.as_bytes())
        .map(|i| line_around(text, from + i))
        .find(|&(s, e)| trimmed(&text[s..e]) == marker)
}

/// [`find_blocks`] for a text without fence characters (no line is code, as
/// [`markdown::lines`] would mark it): the markers are found by substring search instead of
/// walking every line, which on a dashboard of megabytes is most of the work.
fn find_blocks_without_fences(text: &str, block: &Block) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some((ls, le)) = next_marker_line(text, from, &block.start) {
        let body_start = (le + 1).min(text.len());
        let Some((es, ee)) = next_marker_line(text, body_start, &block.end) else {
            break;
        };
        // Heading: closest non-blank line before the marker.
        let mut start = ls;
        let mut has_heading = false;
        let mut k = ls;
        while k > 0 {
            let (ps, pe) = line_around(text, k - 1);
            let t = trimmed(&text[ps..pe]);
            if !t.is_empty() {
                if t == block.heading {
                    start = ps;
                    has_heading = true;
                }
                break;
            }
            k = ps;
        }
        let end_text = text[es..ee].trim_end_matches('\r');
        spans.push(Span {
            start,
            marker_start: ls,
            body_start,
            body_end: es,
            end: es + end_text.len(),
            has_heading,
            start_line: crate::markdown::line_of_offset(text.as_bytes(), ls),
        });
        from = (ee + 1).min(text.len());
    }
    spans
}

/// [`find_blocks`] line by line, code fences tracked.
fn find_blocks_by_lines(text: &str, block: &Block) -> Vec<Span> {
    let lines = markdown::lines(text);
    let mut spans = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        if line.in_code || trimmed(line.text) != block.start {
            i += 1;
            continue;
        }
        let Some(j) = (i + 1..lines.len())
            .find(|&j| !lines[j].in_code && trimmed(lines[j].text) == block.end)
        else {
            break;
        };
        // Heading: closest non-blank line before the marker.
        let mut k = i;
        let mut start = line.start;
        let mut has_heading = false;
        while k > 0 {
            k -= 1;
            if trimmed(lines[k].text).is_empty() {
                continue;
            }
            if !lines[k].in_code && trimmed(lines[k].text) == block.heading {
                start = lines[k].start;
                has_heading = true;
            }
            break;
        }
        let end_line = &lines[j];
        let end_text = end_line.text.trim_end_matches('\r');
        spans.push(Span {
            start,
            marker_start: line.start,
            body_start: line.end,
            body_end: end_line.start,
            end: end_line.start + end_text.len(),
            has_heading,
            start_line: line.number,
        });
        i = j + 1;
    }
    spans
}

/// The current body of the first block (without the newline before the end marker), if any.
pub fn block_body<'a>(text: &'a str, block: &Block) -> Option<&'a str> {
    let span = find_blocks(text, block).into_iter().next()?;
    let body = &text[span.body_start..span.body_end];
    Some(
        body.strip_suffix('\n')
            .map(|b| b.strip_suffix('\r').unwrap_or(b))
            .unwrap_or(body),
    )
}

/// Replace (or append) a managed block; see the module docs for the exact rule.
pub fn replace_managed_block(original: &str, block: &Block, body: &str) -> String {
    let mut out = String::new();
    replace_managed_block_into(&mut out, original, block, body);
    out
}

/// [`replace_managed_block`], appending its result to `out` (no intermediate copies: a
/// dashboard's block runs to megabytes).
pub fn replace_managed_block_into(out: &mut String, original: &str, block: &Block, body: &str) {
    let from = out.len();
    out.reserve(original.len() + body.len() + block.heading.len() + 2);
    let spans = find_blocks(original, block);
    if let Some(first) = spans.first() {
        out.push_str(&original[..first.start]);
        block.render_into(out, body, first.has_heading);
        let mut cursor = first.end;
        for dup in &spans[1..] {
            out.push_str(&original[cursor..dup.start]);
            cursor = dup.end;
            // Drop the newline that ended the duplicate's end marker line.
            if original[cursor..].starts_with("\r\n") {
                cursor += 2;
            } else if original[cursor..].starts_with('\n') {
                cursor += 1;
            }
        }
        out.push_str(&original[cursor..]);
    } else {
        let trimmed = original.trim_end();
        if !trimmed.is_empty() {
            out.push_str(trimmed);
            out.push_str("\n\n");
        }
        block.render_into(out, body, true);
        out.push('\n');
    }
    if !out[from..].ends_with('\n') {
        out.push('\n');
    }
}

/// Remove every occurrence of a managed block (heading included) — used to exclude the generated
/// Related block from link extraction and search text.
pub fn strip_block(text: &str, block: &Block) -> String {
    let spans = find_blocks(text, block);
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for span in spans {
        out.push_str(&text[cursor..span.start]);
        cursor = span.end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// Byte range of a human block: from the start of the start marker line to the end of the end
/// marker text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanBlock {
    /// Offset of the start marker line.
    pub start: usize,
    /// Offset just past the end marker text.
    pub end: usize,
    /// Offset just past the start marker line (the human content starts here).
    pub content_start: usize,
    /// Offset of the end marker line (the human content ends here).
    pub content_end: usize,
}

/// The first human block at or after byte offset `from`, outside code. The block ends at the
/// **last** end marker before the next start marker that follows an end marker, so notes that
/// quote a nested start marker are kept whole.
pub fn find_human_block(text: &str, from: usize) -> Option<HumanBlock> {
    let lines = markdown::lines(text);
    let start_idx = lines
        .iter()
        .position(|l| l.start >= from && !l.in_code && trimmed(l.text) == HUMAN_START)?;
    let mut end_idx = None;
    for (idx, l) in lines.iter().enumerate().skip(start_idx + 1) {
        if l.in_code {
            continue;
        }
        let t = trimmed(l.text);
        if t == HUMAN_END {
            end_idx = Some(idx);
        } else if t == HUMAN_START && end_idx.is_some() {
            break;
        }
    }
    let end_idx = end_idx?;
    let s = &lines[start_idx];
    let e = &lines[end_idx];
    Some(HumanBlock {
        start: s.start,
        end: e.start + e.text.trim_end_matches('\r').len(),
        content_start: s.end,
        content_end: e.start,
    })
}

/// Whether the text contains a complete human block.
pub fn has_human_block(text: &str) -> bool {
    find_human_block(text, 0).is_some()
}

/// Whether a line is only a `<!-- openclaw:wiki…` or `<!-- openclaw:human…` marker.
pub fn is_marker_line(line: &str) -> bool {
    let t = line.trim();
    (t.starts_with("<!-- openclaw:wiki") || t.starts_with("<!-- openclaw:human"))
        && t.ends_with("-->")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without fence characters, the substring search finds exactly the blocks the line walk
    /// finds: random documents of marker lines (indented, CRLF, trailing spaces, with extra
    /// text, doubled), headings, blank and whitespace-only lines, text, with or without a final
    /// newline.
    #[test]
    fn blocks_found_without_fences_are_those_found_by_lines() {
        let b = Block::related();
        let pieces: Vec<String> = vec![
            b.start.clone(),
            b.end.clone(),
            format!("  {}", b.start),
            format!("{}\r", b.end),
            format!("{} \t", b.start),
            format!("x {}", b.start),
            format!("{} y", b.end),
            format!("{}{}", b.start, b.start),
            format!("\u{a0}{}", b.end),
            b.heading.clone(),
            format!("{}\r", b.heading),
            "## Other".into(),
            String::new(),
            "   ".into(),
            "\r".into(),
            "- [Page](../entities/p.md): row".into(),
            "é text `code` ~ tilde".into(),
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        for _ in 0..3_000 {
            let lines = 1 + next(14);
            let mut text: String = (0..lines)
                .map(|_| pieces[next(pieces.len())].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            if next(2) == 0 {
                text.push('\n');
            }
            assert_eq!(
                find_blocks_without_fences(&text, &b),
                find_blocks_by_lines(&text, &b),
                "{text:?}"
            );
        }
    }

    #[test]
    fn appends_when_missing() {
        let b = Block::related();
        assert_eq!(
            replace_managed_block("# A\n\nbody\n\n\n", &b, "- x"),
            "# A\n\nbody\n\n## Related\n<!-- openclaw:wiki:related:start -->\n- x\n<!-- openclaw:wiki:related:end -->\n"
        );
        assert_eq!(
            replace_managed_block("", &b, "- x"),
            "## Related\n<!-- openclaw:wiki:related:start -->\n- x\n<!-- openclaw:wiki:related:end -->\n"
        );
    }

    #[test]
    fn replaces_in_place_keeping_outside_text() {
        let b = Block::root_index();
        let doc = "# Wiki Index\n\nmine\n\n## Generated\n<!-- openclaw:wiki:index:start -->\n- old\n<!-- openclaw:wiki:index:end -->\n\ntail text\n";
        let out = replace_managed_block(doc, &b, "- new\n- two");
        assert_eq!(
            out,
            "# Wiki Index\n\nmine\n\n## Generated\n<!-- openclaw:wiki:index:start -->\n- new\n- two\n<!-- openclaw:wiki:index:end -->\n\ntail text\n"
        );
        // Idempotent.
        assert_eq!(replace_managed_block(&out, &b, "- new\n- two"), out);
        assert_eq!(block_body(&out, &b), Some("- new\n- two"));
    }

    #[test]
    fn tolerates_blank_lines_and_crlf() {
        let b = Block::related();
        let doc = "x\r\n## Related\r\n\r\n<!-- openclaw:wiki:related:start -->\r\n- a\r\n<!-- openclaw:wiki:related:end -->\r\n";
        let out = replace_managed_block(doc, &b, "- b");
        assert_eq!(
            out,
            "x\r\n## Related\n<!-- openclaw:wiki:related:start -->\n- b\n<!-- openclaw:wiki:related:end -->\r\n"
        );
    }

    #[test]
    fn collapses_duplicates() {
        let b = Block::related();
        let blk = b.render("- a");
        let doc = format!("x\n\n{blk}\n\n{blk}\n");
        let out = replace_managed_block(&doc, &b, "- b");
        assert_eq!(find_blocks(&out, &b).len(), 1);
        assert_eq!(block_body(&out, &b), Some("- b"));
        assert_eq!(replace_managed_block(&out, &b, "- b"), out);
    }

    #[test]
    fn markers_in_code_are_ignored() {
        let b = Block::related();
        let doc = format!("```\n{}\n```\n", b.render("- fake"));
        let out = replace_managed_block(&doc, &b, "- real");
        assert!(out.starts_with(&doc.trim_end().to_string()));
        assert_eq!(find_blocks(&out, &b).len(), 1);
        assert_eq!(block_body(&out, &b), Some("- real"));
    }

    #[test]
    fn strip_related() {
        let b = Block::related();
        let doc = format!("a [[x]]\n\n{}\n", b.render("- [[y]]"));
        assert_eq!(strip_block(&doc, &b), "a [[x]]\n\n\n");
    }

    #[test]
    fn human_blocks() {
        let doc = "## Notes\n<!-- openclaw:human:start -->\nmine\n<!-- openclaw:human:start -->\nquoted\n<!-- openclaw:human:end -->\n";
        let hb = find_human_block(doc, 0).unwrap();
        assert_eq!(
            &doc[hb.content_start..hb.content_end],
            "mine\n<!-- openclaw:human:start -->\nquoted\n"
        );
        assert!(has_human_block(doc));
        assert!(!has_human_block("<!-- openclaw:human:start -->\n"));
        assert!(!has_human_block(
            "```\n<!-- openclaw:human:start -->\n<!-- openclaw:human:end -->\n```\n"
        ));
    }

    #[test]
    fn raw_source_marker() {
        assert!(has_raw_source_marker(
            "<!-- openclaw:wiki:raw-source -->\nx\n"
        ));
        assert!(has_raw_source_marker(
            "\n# Title\n\n<!-- openclaw:wiki:raw-source -->\n"
        ));
        assert!(!has_raw_source_marker(
            "# T\ntext\n<!-- openclaw:wiki:raw-source -->\n"
        ));
        assert!(!has_raw_source_marker(
            "```\n<!-- openclaw:wiki:raw-source -->\n```\n"
        ));
        assert!(!has_raw_source_marker(""));
    }
}
