//! Small Markdown helpers shared by the vault model: line iteration that knows about fenced code
//! blocks, inline-code masking, and H1 lookup. These are deliberately tiny (no full CommonMark
//! parser): the vault model only needs to know which lines are code.

/// One line of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number relative to the start of the scanned text.
    pub number: usize,
    /// Byte offset of the line start.
    pub start: usize,
    /// Byte offset just past the line (past its `\n`, or the end of text).
    pub end: usize,
    /// The line without its `\n` (a trailing `\r` is kept).
    pub text: &'a str,
    /// True for fence lines and lines inside a fenced code block.
    pub in_code: bool,
}

#[derive(Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
}

fn fence_open(line: &str) -> Option<Fence> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let bytes = trimmed.as_bytes();
    let ch = *bytes.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = bytes.iter().take_while(|&&b| b == ch).count();
    if len < 3 {
        return None;
    }
    if ch == b'`' && trimmed[len..].contains('`') {
        return None;
    }
    Some(Fence { ch, len })
}

fn fence_closes(line: &str, open: Fence) -> bool {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return false;
    }
    let bytes = trimmed.as_bytes();
    let len = bytes.iter().take_while(|&&b| b == open.ch).count();
    len >= open.len && trimmed[len..].trim().is_empty()
}

/// `text.split('\n')`, with the newlines found by the memchr crate's vector search in one pass
/// (std's character search starts over for every line, byte by byte on short ones, and a
/// page's frontmatter is many short lines).
pub fn split_newlines(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', text.as_bytes());
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        match ends.next() {
            Some(end) => {
                let line = &text[start..end];
                start = end + 1;
                Some(line)
            }
            None => {
                done = true;
                Some(&text[start..])
            }
        }
    })
}

/// Iterate over the lines of `text`, marking fenced code.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut open: Option<Fence> = None;
    let mut start = 0;
    let mut number = 1;
    while start < text.len() {
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i + 1);
        let line = text[start..end]
            .strip_suffix('\n')
            .unwrap_or(&text[start..end]);
        let in_code = match open {
            Some(f) => {
                if fence_closes(line, f) {
                    open = None;
                }
                true
            }
            None => {
                if let Some(f) = fence_open(line) {
                    open = Some(f);
                    true
                } else {
                    false
                }
            }
        };
        out.push(Line {
            number,
            start,
            end,
            text: line,
            in_code,
        });
        start = end;
        number += 1;
    }
    out
}

/// Replace inline code spans (`` `x` ``, ``` `` y `` ```) of one line by spaces, keeping byte
/// offsets. An unmatched backtick run is left as is.
pub fn mask_inline_code(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        // Find a closing run of exactly the same length.
        let mut j = i + run;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let r = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(c) => {
                for b in &mut out[i..c + run] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                i = c + run;
            }
            None => i += run,
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces inside spans delimited by ASCII backticks,
    // but a span may cut through multi-byte characters: replace whole span bytes, which keeps
    // UTF-8 valid because every byte of the span became a space.
    String::from_utf8(out).unwrap_or_else(|_| line.to_string())
}

/// The text of the first `# ` heading outside code, trimmed.
pub fn first_h1(text: &str) -> Option<String> {
    lines(text)
        .into_iter()
        .filter(|l| !l.in_code)
        .find_map(|l| {
            let t = l.text.trim_end_matches('\r');
            let rest = t.strip_prefix("# ")?;
            let title = rest.trim().trim_end_matches('#').trim();
            (!title.is_empty()).then(|| title.to_string())
        })
}

/// The 1-based line of byte `offset` in `bytes` (one more than the newlines before it).
pub fn line_of_offset(bytes: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &bytes[..offset.min(bytes.len())]).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_are_tracked() {
        let text = "a\n```rust\nb\n```\nc\n~~~~\nd\n~~~\ne\n~~~~\nf";
        let code: Vec<bool> = lines(text).iter().map(|l| l.in_code).collect();
        assert_eq!(
            code,
            vec![
                false, true, true, true, false, true, true, true, true, true, false
            ]
        );
    }

    #[test]
    fn inline_code_masked() {
        assert_eq!(mask_inline_code("a `[[x]]` b"), "a         b");
        assert_eq!(mask_inline_code("a ``x ` y`` b"), "a           b");
        assert_eq!(mask_inline_code("a ` b"), "a ` b");
        assert_eq!(mask_inline_code("`漢`x"), "     x");
    }

    #[test]
    fn h1() {
        assert_eq!(first_h1("\n```\n# no\n```\n# Yes #\n"), Some("Yes".into()));
        assert_eq!(first_h1("## h2\n"), None);
    }

    #[test]
    fn split_newlines_is_split_on_newline() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "\na",
            "a\nb",
            "a\r\nb\n\n",
            "é\nü\n\n\nx",
            &"row\n".repeat(100),
        ] {
            let ours: Vec<&str> = split_newlines(text).collect();
            let std: Vec<&str> = text.split('\n').collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }
}
