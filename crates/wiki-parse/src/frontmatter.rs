//! Splitting a page into its YAML frontmatter and its body.
//!
//! A page has frontmatter when its first line is exactly `---` (an optional UTF-8 byte-order mark
//! before it, an optional `\r` and trailing spaces after it). The frontmatter ends at the next line
//! that is exactly `---` (again tolerating `\r` and trailing spaces, so CRLF files work). The body
//! is everything after that closing line's newline: for `---\nid: a\n---\n\n# A\n` the body is
//! `\n# A\n`, so the blank line after the fence is body line 1 (this is what `wiki get` counts).

/// A page split into frontmatter and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML text between the fences (without the fences), `None` when the page has no
    /// frontmatter. CRLF line endings are kept as written.
    pub yaml: Option<&'a str>,
    /// The 1-based file line of the first YAML line (2 when there is frontmatter).
    pub yaml_first_line: usize,
    /// The body: everything after the closing fence line (the whole text without frontmatter).
    pub body: &'a str,
    /// The 1-based file line on which the body starts.
    pub body_first_line: usize,
    /// Byte offset of the body in the original text.
    pub body_offset: usize,
}

/// Why a page's frontmatter fences are unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnterminatedFrontmatter;

fn is_fence(line: &str) -> bool {
    line.trim_end_matches(['\r', ' ', '\t']) == "---"
}

/// Split `text` into frontmatter and body.
///
/// Returns `Err(UnterminatedFrontmatter)` when the first line is a `---` fence but no closing
/// fence follows (almost always a hand-editing mistake, reported as a parse error rather than
/// silently treating the YAML as body text).
pub fn split(text: &str) -> Result<Split<'_>, UnterminatedFrontmatter> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let rest = &text[bom..];
    let first_end = rest.find('\n').unwrap_or(rest.len());
    if !is_fence(&rest[..first_end]) || first_end == rest.len() {
        // No opening fence (or a file that is only `---`): no frontmatter.
        if is_fence(&rest[..first_end]) && first_end == rest.len() {
            return Err(UnterminatedFrontmatter);
        }
        return Ok(Split {
            yaml: None,
            yaml_first_line: 1,
            body: text,
            body_first_line: 1,
            body_offset: 0,
        });
    }
    let yaml_start = bom + first_end + 1;
    let mut pos = yaml_start;
    // Line ends found in one vector pass (the frontmatter is many short lines), then the end of
    // the text for a last line without a newline.
    let ends = memchr::memchr_iter(b'\n', &text.as_bytes()[yaml_start..])
        .map(|i| yaml_start + i)
        .chain(std::iter::once(text.len()));
    for (line_no, line_end) in (2..).zip(ends) {
        if text.as_bytes().get(pos) == Some(&b'-') && is_fence(&text[pos..line_end]) {
            let yaml_end = if pos > yaml_start {
                pos - 1
            } else {
                yaml_start
            };
            let yaml = &text[yaml_start..yaml_end.max(yaml_start)];
            let yaml = yaml.strip_suffix('\r').unwrap_or(yaml);
            let body_offset = if line_end < text.len() {
                line_end + 1
            } else {
                text.len()
            };
            return Ok(Split {
                yaml: Some(yaml),
                yaml_first_line: 2,
                body: &text[body_offset..],
                body_first_line: line_no + 1,
                body_offset,
            });
        }
        pos = line_end + 1;
    }
    Err(UnterminatedFrontmatter)
}

/// The part of a page's bytes that can declare ids and claim ids: its frontmatter with the
/// fences, as [`split`] finds it. Empty for a page without frontmatter (a body that names an
/// id, like a dashboard's rows or a link, declares nothing). Bytes that are not UTF-8, or whose
/// frontmatter is never closed, are returned whole (parsing them reports the problem).
pub fn declaring_part(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes).map(split) {
        Ok(Ok(s)) if s.yaml.is_none() => &[],
        Ok(Ok(s)) => &bytes[..s.body_offset],
        _ => bytes,
    }
}

/// Whether `found` finds what it looks for in the [`declaring_part`] of `bytes`. It is asked of
/// the whole page first, so that the frontmatter (a UTF-8 check of the whole page) is looked
/// for only in pages that name it somewhere.
pub fn declares(bytes: &[u8], found: impl Fn(&[u8]) -> bool) -> bool {
    found(bytes) && found(declaring_part(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lf() {
        let s = split("---\nid: a\n---\n\n# A\n").unwrap();
        assert_eq!(s.yaml, Some("id: a"));
        assert_eq!(s.body, "\n# A\n");
        assert_eq!(s.body_first_line, 4);
    }

    #[test]
    fn splits_crlf() {
        let s = split("---\r\nid: a\r\ntitle: B\r\n---\r\n\r\n# A\r\n").unwrap();
        assert_eq!(s.yaml, Some("id: a\r\ntitle: B"));
        assert_eq!(s.body, "\r\n# A\r\n");
    }

    #[test]
    fn no_frontmatter() {
        let s = split("# Title\n---\n").unwrap();
        assert_eq!(s.yaml, None);
        assert_eq!(s.body, "# Title\n---\n");
        assert_eq!(split("").unwrap().yaml, None);
    }

    #[test]
    fn empty_frontmatter_and_eof_fence() {
        let s = split("---\n---\nbody").unwrap();
        assert_eq!(s.yaml, Some(""));
        assert_eq!(s.body, "body");
        let s = split("---\nid: a\n---").unwrap();
        assert_eq!(s.yaml, Some("id: a"));
        assert_eq!(s.body, "");
    }

    #[test]
    fn bom_is_tolerated() {
        let s = split("\u{feff}---\nid: a\n---\n").unwrap();
        assert_eq!(s.yaml, Some("id: a"));
    }

    #[test]
    fn unterminated() {
        assert_eq!(split("---\nid: a\n"), Err(UnterminatedFrontmatter));
        assert_eq!(split("---"), Err(UnterminatedFrontmatter));
    }

    #[test]
    fn declaring_part_is_the_frontmatter_with_its_fences() {
        let page = b"---\nid: entity.a\n---\n# A\nentity.b in the body\n";
        assert_eq!(declaring_part(page), b"---\nid: entity.a\n---\n");
        // A byte-order mark and CRLF fences, as the parser accepts them.
        let crlf = b"\xef\xbb\xbf---\r\nid: entity.a\r\n---\r\nbody entity.b\r\n";
        assert_eq!(
            declaring_part(crlf),
            b"\xef\xbb\xbf---\r\nid: entity.a\r\n---\r\n"
        );
        // No frontmatter: nothing can be declared.
        assert_eq!(declaring_part(b"# Title\nid: entity.a\n"), b"");
        // Never closed, or not UTF-8: taken whole (the parse reports the page).
        let open = b"---\nid: entity.a\n# no closing fence\n";
        assert_eq!(declaring_part(open), open);
        let binary = b"---\nid: entity.a\n---\n\xff\n";
        assert_eq!(declaring_part(binary), binary);
    }
}
