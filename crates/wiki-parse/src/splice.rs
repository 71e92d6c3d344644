//! Minimal edits of frontmatter text: only the entries that change are written again.
//!
//! [`splice_mapping`] rewrites the YAML text of a frontmatter block so that it reads as a new
//! mapping while every byte of what did not change stays as it was: key order, quoting, flow or
//! block style, comments, blank lines and CRLF line endings. It locates the byte span of each
//! top-level entry of the block mapping, and inside a changed entry whose value is a block
//! sequence (`claims`, `questions`, `relationships`, …) the span of each item, and inside a
//! changed block mapping (a claim) the span of each of its entries. Only a changed entry (or
//! item) is replaced by the emitter's rendering ([`crate::yaml`]); removed ones are cut out, new
//! ones are inserted after the entry that precedes them in the new mapping. A changed scalar
//! keeps its key as written and the comment at the end of its line.
//!
//! On text written by the emitter, the result is byte for byte what re-emitting the whole
//! mapping gives, so pages the tools write from scratch come out as before. When the structure
//! cannot be located (flow-style root, complex keys, anchors, tabs for indentation, …) the
//! changed entry or item is written whole; when not even the root can be located, or when the
//! spliced text does not read back as the new mapping, `None` tells the caller to re-emit the
//! whole frontmatter.

use std::borrow::Cow;
use std::collections::HashMap;

use yaml_serde::{Mapping, Value};

use crate::yaml;

/// The frontmatter YAML `text` (whose mapping is `old`) changed to read as `new`, rewriting only
/// the entries that differ; `None` when the text's structure cannot be located, or the result
/// would not read back as `new`. `text` is the text between the fences, final line ending
/// included.
pub fn splice_mapping(text: &str, old: &Mapping, new: &Mapping) -> Option<String> {
    if same_map(old, new) {
        return Some(text.to_string());
    }
    let doc = Doc::new(text)?;
    let region = Region {
        first: 0,
        end: doc.lines.len(),
        col: 0,
        first_col: None,
    };
    let mut edits = Vec::new();
    doc.map_edits(region, old, new, &mut edits)?;
    let out = doc.apply(edits);
    // The splice must read back as exactly the new mapping, in its key order.
    let back = yaml::parse_mapping(&out, 2).ok()?;
    (yaml::emit_mapping(&back) == yaml::emit_mapping(new)).then_some(out)
}

/// Whether two mappings are equal in their key order too (`==` on mappings ignores the order,
/// which the text shows).
fn same_map(a: &Mapping, b: &Mapping) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
}

fn same_seq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// Whether two values are equal, the key order of their mappings included.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Mapping(a), Value::Mapping(b)) => same_map(a, b),
        (Value::Sequence(a), Value::Sequence(b)) => same_seq(a, b),
        (Value::Tagged(a), Value::Tagged(b)) => a.tag == b.tag && same(&a.value, &b.value),
        _ => a == b,
    }
}

/// One line of the text.
#[derive(Debug, Clone, Copy)]
struct Line {
    /// Offset of its first byte.
    start: usize,
    /// Offset of its end (before `\r\n` or `\n`).
    end: usize,
    /// Offset of the next line.
    next: usize,
    /// Leading spaces.
    indent: usize,
    /// Only spaces.
    blank: bool,
    /// A comment line (`#` after the indentation).
    comment: bool,
}

/// Lines `first..end` of a block collection whose entries start at column `col`; the first line
/// may hold the collection after a `- ` (a sequence item), its content at column `first_col`.
#[derive(Debug, Clone, Copy)]
struct Region {
    first: usize,
    end: usize,
    col: usize,
    first_col: Option<usize>,
}

/// One entry of a block mapping.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Its first line.
    line: usize,
    /// Offset of its key.
    key_start: usize,
    /// Offset just past the `:` after its key.
    colon_end: usize,
    /// Offset of the end of its last line (line ending included).
    end: usize,
    /// Index of its last line.
    last: usize,
}

/// A replacement of `start..end` by `text` (an insertion when `start == end`).
type Edit = (usize, usize, String);

struct Doc<'a> {
    text: &'a str,
    lines: Vec<Line>,
    crlf: bool,
}

impl<'a> Doc<'a> {
    fn new(text: &'a str) -> Option<Doc<'a>> {
        let mut lines = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let nl = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let next = (nl + 1).min(text.len());
            let end = if nl > start && text.as_bytes()[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            let line = &text[start..end];
            let content = line.trim_start_matches(' ');
            if content.starts_with('\t') {
                return None; // tabs for indentation: leave it to the full re-emit
            }
            lines.push(Line {
                start,
                end,
                next: if nl == text.len() { text.len() } else { next },
                indent: line.len() - content.len(),
                blank: content.trim().is_empty(),
                comment: content.starts_with('#'),
            });
            start = next.max(nl + 1);
        }
        Some(Doc {
            text,
            lines,
            crlf: text.contains("\r\n"),
        })
    }

    /// Emitted text with this document's line endings.
    fn eol(&self, s: String) -> String {
        if self.crlf {
            s.replace('\n', "\r\n")
        } else {
            s
        }
    }

    fn apply(&self, mut edits: Vec<Edit>) -> String {
        edits.sort_by_key(|(start, end, _)| (*start, *end));
        let mut out = String::with_capacity(self.text.len() + 256);
        let mut cursor = 0;
        for (start, end, text) in edits {
            out.push_str(&self.text[cursor..start]);
            out.push_str(&text);
            cursor = end;
        }
        out.push_str(&self.text[cursor..]);
        out
    }

    /// Whether line `i` holds content (neither blank nor a comment at or left of `col`).
    fn is_content(&self, i: usize, col: usize) -> bool {
        let l = &self.lines[i];
        !(l.blank || (l.comment && l.indent <= col))
    }

    /// The column where line `i`'s content starts within `region`.
    fn content_col(&self, region: Region, i: usize) -> usize {
        match region.first_col {
            Some(c) if i == region.first => c,
            _ => self.lines[i].indent,
        }
    }

    /// Whether the text at `offset` starts a sequence item (`-` then a space or the line end).
    fn is_dash(&self, offset: usize, line_end: usize) -> bool {
        let rest = &self.text[offset..line_end];
        rest == "-" || rest.starts_with("- ")
    }

    /// The entries of the block mapping in `region`, or `None` when it is not one we can read.
    fn entries(&self, region: Region) -> Option<Vec<Entry>> {
        self.spans(region, &|offset, end| {
            if self.is_dash(offset, end) {
                // A sequence written at the key's own indentation: part of the entry.
                Some(None)
            } else {
                Some(Some(key_end(&self.text[offset..end])? + offset))
            }
        })
    }

    /// The items of the block sequence in `region` (dashes at `region.col`).
    fn items(&self, region: Region) -> Option<Vec<Entry>> {
        self.spans(region, &|offset, end| {
            self.is_dash(offset, end).then_some(Some(offset + 1))
        })
    }

    /// The spans of the entries (or items) in `region`. A content line at `region.col` starts
    /// one where `start(offset, line end)` gives the offset past its key (or dash), continues
    /// the current one where it gives `Some(None)`; deeper lines continue the current one.
    fn spans(
        &self,
        region: Region,
        start: &dyn Fn(usize, usize) -> Option<Option<usize>>,
    ) -> Option<Vec<Entry>> {
        let mut out: Vec<Entry> = Vec::new();
        for i in region.first..region.end {
            if !self.is_content(i, region.col) {
                continue;
            }
            let line = self.lines[i];
            let col = self.content_col(region, i);
            if col < region.col {
                return None;
            }
            let offset = line.start + col.min(line.end - line.start);
            match (col == region.col).then(|| start(offset, line.end)) {
                Some(None) => return None,
                Some(Some(Some(colon_end))) => out.push(Entry {
                    line: i,
                    key_start: offset,
                    colon_end,
                    end: 0,
                    last: i,
                }),
                _ => out.last_mut()?.last = i,
            }
        }
        for e in &mut out {
            e.end = self.lines[e.last].next;
        }
        Some(out)
    }

    /// Edits turning the block mapping in `region` (read as `old`) into `new`.
    fn map_edits(
        &self,
        region: Region,
        old: &Mapping,
        new: &Mapping,
        edits: &mut Vec<Edit>,
    ) -> Option<()> {
        let entries = self.entries(region)?;
        if entries.len() != old.len() {
            return None;
        }
        // Each entry's key, checked against the mapping's keys in order.
        for (e, k) in entries.iter().zip(old.keys()) {
            let token = &self.text[e.key_start..e.colon_end - 1];
            if !key_matches(token, k) {
                return None;
            }
        }
        // Kept keys that keep their relative order stay where they are; the others move (a
        // key removed and set again by one batch comes back at the end).
        let index: HashMap<&Value, usize> = old.keys().enumerate().map(|(i, k)| (k, i)).collect();
        let kept: Vec<usize> = new.keys().filter_map(|k| index.get(k).copied()).collect();
        let stays = longest_increasing(&kept, old.len());
        let on_dash_line = |e: &Entry| e.line == region.first && region.first_col.is_some();
        let mut insert_at = match entries.first() {
            Some(e) if on_dash_line(e) => None,
            Some(e) => Some(self.lines[e.line].start),
            None if region.first_col.is_none() => Some(self.text.len()),
            None => None,
        };
        for (k, v) in new {
            match index.get(k).copied() {
                Some(i) if stays[i] => {
                    let e = entries[i];
                    insert_at = Some(e.end);
                    let before = old.get(k)?;
                    if !same(before, v) {
                        self.entry_edits(region, e, before, v, edits);
                    }
                }
                moved => {
                    // A new (or moved) key goes after the entry that precedes it in the new
                    // mapping; a moved one that did not change keeps its lines as written.
                    let at = insert_at?;
                    let text = match moved.map(|i| entries[i]) {
                        Some(e) if old.get(k).is_some_and(|o| same(o, v)) => {
                            self.text[self.lines[e.line].start..e.end].to_string()
                        }
                        _ => self.eol(yaml::emit_entry(k, v, region.col)),
                    };
                    edits.push((at, at, text));
                }
            }
        }
        for (i, e) in entries.iter().enumerate() {
            if !stays[i] {
                if on_dash_line(e) {
                    return None; // the key on a `- ` line: the caller rewrites the item
                }
                edits.push((self.lines[e.line].start, e.end, String::new()));
            }
        }
        Some(())
    }

    /// Edits changing the value of entry `e` from `old` to `new`: inside the value when it is a
    /// block collection we can read, else the entry written again (key as written, comment at
    /// the end of a one-line scalar kept).
    fn entry_edits(
        &self,
        region: Region,
        e: Entry,
        old: &Value,
        new: &Value,
        edits: &mut Vec<Edit>,
    ) {
        let line = self.lines[e.line];
        let after = &self.text[e.colon_end..line.end];
        let inline = after.trim();
        let block_value = inline.is_empty() || inline.starts_with('#');
        if block_value && e.last > e.line {
            let inner = Region {
                first: e.line + 1,
                end: e.last + 1,
                col: 0,
                first_col: None,
            };
            let mut nested = Vec::new();
            if self
                .collection_edits(inner, old, new, &mut nested)
                .is_some()
            {
                edits.extend(nested);
                return;
            }
        }
        if let Some(edit) = self.flow_edit(e, old, new) {
            edits.push(edit);
            return;
        }
        // A one-line flow collection stays one (`[a, b]`, `{k: v}`).
        let mut text =
            if e.last == e.line && is_flow(inline) && is_collection(old) && is_collection(new) {
                format!(" {}\n", yaml::emit_flow(new))
            } else {
                yaml::emit_value_after_key(new, region.col)
            };
        if e.last == e.line
            && !text.trim_end().contains('\n')
            && let Some(comment) = trailing_comment(after, old)
        {
            text = format!("{}{comment}\n", text.trim_end_matches('\n'));
        }
        edits.push((e.colon_end, e.end, self.eol(text)));
    }

    /// Edits inside a block collection (the lines after a key, or of a `- ` item): items of a
    /// block sequence, entries of a block mapping.
    fn collection_edits(
        &self,
        region: Region,
        old: &Value,
        new: &Value,
        edits: &mut Vec<Edit>,
    ) -> Option<()> {
        let first =
            (region.first..region.end).find(|&i| !self.lines[i].blank && !self.lines[i].comment)?;
        let col = self.content_col(region, first);
        let region = Region {
            first: if region.first_col.is_some() {
                region.first
            } else {
                first
            },
            col,
            ..region
        };
        match (old, new) {
            (Value::Sequence(o), Value::Sequence(n)) => self.seq_edits(region, o, n, edits),
            (Value::Mapping(o), Value::Mapping(n)) if !n.is_empty() => {
                self.map_edits(region, o, n, edits)
            }
            _ => None,
        }
    }

    /// Edits turning the block sequence in `region` (read as `old`) into `new`: equal items at
    /// both ends are kept; in between, items are paired by identity (their `id`, or their
    /// value) and changed in place, new ones inserted, gone ones cut out.
    fn seq_edits(
        &self,
        region: Region,
        old: &[Value],
        new: &[Value],
        edits: &mut Vec<Edit>,
    ) -> Option<()> {
        let items = self.items(region)?;
        // An empty list has no block form: the caller writes `[]`.
        if items.len() != old.len() || old.is_empty() || new.is_empty() {
            return None;
        }
        let prefix = old.iter().zip(new).take_while(|(a, b)| same(a, b)).count();
        let max_suffix = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(max_suffix)
            .take_while(|(a, b)| same(a, b))
            .count();
        let (old_mid, new_mid) = (prefix..old.len() - suffix, prefix..new.len() - suffix);
        let after_mid = if old_mid.end < old.len() {
            self.lines[items[old_mid.end].line].start
        } else {
            items[old.len() - 1].end
        };
        let cut = |it: &Entry| (self.lines[it.line].start, it.end, String::new());
        // Where each identity occurs among the old items in between, in order: pairing is a
        // look-up, not a scan (a batch may change thousands of claims of one page).
        let mut at_identity: HashMap<&Value, Vec<usize>> = HashMap::new();
        for k in old_mid.clone() {
            at_identity.entry(identity(&old[k])).or_default().push(k);
        }
        let mut i = old_mid.start;
        for j in new_mid {
            let partner = at_identity.get(identity(&new[j])).and_then(|ks| {
                let p = ks.partition_point(|&k| k < i);
                ks.get(p).copied()
            });
            match partner {
                Some(k) => {
                    // Old items before its partner are gone.
                    edits.extend(items[i..k].iter().map(cut));
                    self.item_edits(region, items[k], &old[k], &new[j], edits);
                    i = k + 1;
                }
                None => {
                    let at = if i < old_mid.end {
                        self.lines[items[i].line].start
                    } else {
                        after_mid
                    };
                    edits.push((at, at, self.eol(yaml::emit_item(&new[j], region.col))));
                }
            }
        }
        edits.extend(items[i..old_mid.end].iter().map(cut));
        Some(())
    }

    /// Edits changing one sequence item from `old` to `new`: inside it when it is a block
    /// mapping or sequence we can read, else the item written again.
    fn item_edits(
        &self,
        region: Region,
        it: Entry,
        old: &Value,
        new: &Value,
        edits: &mut Vec<Edit>,
    ) {
        if same(old, new) {
            return;
        }
        let line = self.lines[it.line];
        let after_dash = &self.text[it.key_start + 1..line.end];
        let spaces = after_dash.len() - after_dash.trim_start_matches(' ').len();
        let inner = if after_dash.trim().is_empty() {
            (it.last > it.line).then_some(Region {
                first: it.line + 1,
                end: it.last + 1,
                col: 0,
                first_col: None,
            })
        } else {
            let col = region.col + 1 + spaces;
            Some(Region {
                first: it.line,
                end: it.last + 1,
                col,
                first_col: Some(col),
            })
        };
        if let Some(inner) = inner
            && matches!((old, new), (Value::Mapping(_), Value::Mapping(_)))
        {
            let mut nested = Vec::new();
            if self
                .collection_edits(inner, old, new, &mut nested)
                .is_some()
            {
                edits.extend(nested);
                return;
            }
        }
        let text = if it.last == it.line
            && is_flow(after_dash.trim())
            && is_collection(old)
            && is_collection(new)
        {
            // A one-line flow item stays one, after its dash as written.
            let prefix = &self.text[line.start..it.key_start + 1 + spaces];
            format!("{prefix}{}\n", yaml::emit_flow(new))
        } else {
            yaml::emit_item(new, region.col)
        };
        edits.push((line.start, it.end, self.eol(text)));
    }

    /// An entry whose value is a one-line flow sequence (`[a, 'b']`) that gained items at its
    /// end or lost some: the new items are added before the `]`, the items kept stay as
    /// written (quotes, spacing), and so does a comment after it.
    fn flow_edit(&self, e: Entry, old: &Value, new: &Value) -> Option<Edit> {
        let (Value::Sequence(o), Value::Sequence(n)) = (old, new) else {
            return None;
        };
        // `[]` is how the emitter writes every empty list: no style of its own to keep.
        if e.last != e.line || o.is_empty() || n.is_empty() {
            return None;
        }
        let line = self.lines[e.line];
        let after = &self.text[e.colon_end..line.end];
        if n.len() > o.len() && same_seq(&n[..o.len()], o) {
            // Only added items: inserted before the `]` (whatever the items hold).
            let close = after.rfind(']')?;
            if !after.trim_start().starts_with('[') || !after[close + 1..].trim().is_empty() {
                return None;
            }
            let added: Vec<String> = n[o.len()..].iter().map(yaml::emit_flow).collect();
            let before_close = after[..close].trim_end();
            let sep = if before_close.ends_with(',') {
                ""
            } else {
                ", "
            };
            let at = e.colon_end + before_close.len();
            return Some((at, at, format!("{sep}{}", added.join(", "))));
        }
        let open = after.len() - after.trim_start().len();
        let (spans, close) = flow_items(&after[open..])?;
        if spans.len() != o.len() {
            return None;
        }
        // The old items in order, each kept when it is the next new one; the new ones left
        // over are added at the end.
        let mut next = 0;
        let mut items: Vec<Cow<'_, str>> = Vec::new();
        for (item, span) in o.iter().zip(&spans) {
            if n.get(next).is_some_and(|v| same(v, item)) {
                items.push(Cow::Borrowed(&after[open + span.0..open + span.1]));
                next += 1;
            }
        }
        items.extend(n[next..].iter().map(|v| Cow::Owned(yaml::emit_flow(v))));
        let (from, to) = (e.colon_end + open + 1, e.colon_end + open + close);
        Some((from, to, items.join(", ")))
    }
}

/// The spans of the items of the one-line flow sequence at the start of `s` (`[a, 'b', "c"]`)
/// and the offset of its `]`; `None` for anything else (nested collections, pairs, comments).
fn flow_items(s: &str) -> Option<(Vec<(usize, usize)>, usize)> {
    let b = s.as_bytes();
    if b.first() != Some(&b'[') {
        return None;
    }
    let skip_spaces = |mut i: usize| {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        i
    };
    let mut items = Vec::new();
    let mut i = skip_spaces(1);
    loop {
        match *b.get(i)? {
            b']' => return Some((items, i)),
            b'[' | b'{' | b'#' | b',' => return None,
            quote @ (b'"' | b'\'') => {
                let end = quoted_end(b, i, quote)?;
                items.push((i, end));
                i = end;
            }
            _ => {
                let end = i + s[i..].find([',', ']'])?;
                let token = s[i..end].trim_end();
                if token.contains(": ") || token.contains(" #") || token.ends_with(':') {
                    return None;
                }
                items.push((i, i + token.len()));
                i = end;
            }
        }
        i = skip_spaces(i);
        match *b.get(i)? {
            b',' => i = skip_spaces(i + 1),
            b']' => return Some((items, i)),
            _ => return None,
        }
    }
}

/// The offset just past the quoted scalar starting at `b[start] == quote` (`''` escapes a
/// single quote, a backslash escapes in double quotes).
fn quoted_end(b: &[u8], start: usize, quote: u8) -> Option<usize> {
    let mut i = start + 1;
    loop {
        match *b.get(i)? {
            b'\\' if quote == b'"' => i += 2,
            c if c == quote => {
                if quote == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                } else {
                    return Some(i + 1);
                }
            }
            _ => i += 1,
        }
    }
}

/// Whether a value's text (trimmed) is written in flow style.
fn is_flow(text: &str) -> bool {
    text.starts_with('[') || text.starts_with('{')
}

/// A sequence or mapping with something in it (empty ones are written `[]`, `{}` anyway).
fn is_collection(v: &Value) -> bool {
    match v {
        Value::Sequence(s) => !s.is_empty(),
        Value::Mapping(m) => !m.is_empty(),
        _ => false,
    }
}

/// Which of the indices `0..len` appearing in `seq` form a longest increasing subsequence of it
/// (the entries that can stay where they are when `seq` is their new order).
fn longest_increasing(seq: &[usize], len: usize) -> Vec<bool> {
    // Patience sorting: `tails[l]` ends the smallest-ending increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev = vec![None; seq.len()];
    for (i, &x) in seq.iter().enumerate() {
        let pos = tails.partition_point(|&t| seq[t] < x);
        prev[i] = pos.checked_sub(1).map(|p| tails[p]);
        if pos == tails.len() {
            tails.push(i);
        } else {
            tails[pos] = i;
        }
    }
    let mut stays = vec![false; len];
    let mut at = tails.last().copied();
    while let Some(i) = at {
        stays[seq[i]] = true;
        at = prev[i];
    }
    stays
}

/// What pairs two items of a sequence across versions: a mapping's `id`, else the value.
fn identity(v: &Value) -> &Value {
    match v {
        Value::Mapping(m) => match m.get("id") {
            Some(id @ Value::String(_)) => id,
            _ => v,
        },
        other => other,
    }
}

/// Offset just past the `:` that ends the key at the start of `line` (plain or quoted key,
/// followed by a space or the line end); `None` for complex keys, anchors, tags and aliases.
fn key_end(line: &str) -> Option<usize> {
    let first = line.chars().next()?;
    if "?&*!|>%@`{[-#".contains(first) || line.starts_with("<<") {
        return None;
    }
    let search_from = match first {
        '"' | '\'' => {
            let close = line[1..].find(first)? + 2;
            if line[..close].contains('\\') {
                return None;
            }
            close
        }
        _ => 0,
    };
    let rest = &line[search_from..];
    let mut from = 0;
    loop {
        let colon = rest[from..].find(':')? + from;
        let after = &rest[colon + 1..];
        if after.is_empty() || after.starts_with(' ') {
            return Some(search_from + colon + 1);
        }
        from = colon + 1;
    }
}

/// Whether the key `token` (as written) reads as `key`.
fn key_matches(token: &str, key: &Value) -> bool {
    let token = token.trim_end();
    match yaml_serde::from_str::<Value>(token) {
        Ok(v) => v == *key,
        Err(_) => false,
    }
}

/// The comment at the end of a one-line scalar value (`after` is the text after the key's
/// `:`), with the spaces before it: where the text before it reads as `old`.
fn trailing_comment<'t>(after: &'t str, old: &Value) -> Option<&'t str> {
    let mut from = 0;
    while let Some(i) = after[from..].find(" #") {
        let at = from + i;
        if let Ok(v) = yaml_serde::from_str::<Value>(&format!("k:{}", &after[..at])) {
            let reads = match &v {
                Value::Mapping(m) => m.get("k") == Some(old),
                _ => false,
            };
            if reads {
                let start = after[..at].trim_end().len();
                return Some(&after[start..]);
            }
        }
        from = at + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> Mapping {
        yaml::parse_mapping(text, 2).unwrap()
    }

    fn val(text: &str) -> Value {
        yaml_serde::from_str(text).unwrap()
    }

    /// `text` changed by `edit`, spliced (and checked to read back as the edited mapping).
    fn splice(text: &str, edit: impl FnOnce(&mut Mapping)) -> Option<String> {
        let old = map(text);
        let mut new = old.clone();
        edit(&mut new);
        splice_mapping(text, &old, &new)
    }

    fn claims(m: &mut Mapping) -> &mut Vec<Value> {
        match m.get_mut("claims") {
            Some(Value::Sequence(s)) => s,
            _ => panic!("no claims"),
        }
    }

    fn claim_map(m: &mut Mapping, i: usize) -> &mut Mapping {
        match &mut claims(m)[i] {
            Value::Mapping(c) => c,
            _ => panic!("not a mapping"),
        }
    }

    const CANONICAL: &str = "pageType: entity\nid: entity.a\ntitle: A\nsourceIds:\n  - source.a\nclaims:\n  - id: c1\n    text: One.\n    status: supported\n    evidence:\n      - sourceId: source.a\n        lines: 12-18\n  - id: c2\n    text: Two.\nquestions:\n  - Q1?\n  - Q2?\ncontradictions: []\nupdatedAt: 2026-03-25T09:30:00.000Z\n";

    /// Every kind of edit, on text the emitter wrote: the same bytes as emitting the whole
    /// mapping again.
    #[test]
    fn emitted_text_gives_what_the_emitter_gives() {
        type EditFn = fn(&mut Mapping);
        let edits: &[(&str, EditFn)] = &[
            ("set a key", |m| {
                m.insert("status".into(), "review".into());
            }),
            ("change a scalar", |m| {
                m.insert("updatedAt".into(), "2026-04-05T12:00:00.000Z".into());
            }),
            ("remove a key", |m| {
                m.shift_remove("questions");
            }),
            ("append a claim", |m| {
                claims(m).push(val("{id: c3, text: Three., updatedAt: t}"));
            }),
            ("change a claim field", |m| {
                claim_map(m, 0).insert("status".into(), "contested".into());
            }),
            ("add evidence", |m| {
                let c = claim_map(m, 0);
                if let Some(Value::Sequence(e)) = c.get_mut("evidence") {
                    e.push(val("{sourceId: source.b}"));
                }
            }),
            ("insert a claim between two", |m| {
                claim_map(m, 0).insert("supersededBy".into(), "c9".into());
                claims(m).insert(1, val("{id: c9, text: Nine.}"));
            }),
            ("remove a question", |m| {
                m.insert("questions".into(), val("[Q2?]"));
            }),
            ("remove a claim", |m| {
                claims(m).remove(0);
            }),
            ("fill an empty list", |m| {
                m.insert("contradictions".into(), val("[X or Y?]"));
            }),
            ("empty a list", |m| {
                m.insert("sourceIds".into(), val("[]"));
            }),
            ("a key set again goes to the end", |m| {
                m.shift_remove("questions");
                m.insert("questions".into(), val("[Q3?]"));
            }),
            ("a key moves unchanged", |m| {
                let q = m.shift_remove("sourceIds").unwrap();
                m.insert("sourceIds".into(), q);
            }),
            ("two claim keys swap", |m| {
                let c = claim_map(m, 0);
                let t = c.shift_remove("text").unwrap();
                c.insert("text".into(), t);
            }),
        ];
        for (what, edit) in edits {
            let old = map(CANONICAL);
            assert_eq!(yaml::emit_mapping(&old), CANONICAL);
            let mut new = old.clone();
            edit(&mut new);
            let out = splice_mapping(CANONICAL, &old, &new).unwrap_or_else(|| panic!("{what}"));
            assert_eq!(out, yaml::emit_mapping(&new), "{what}");
        }
    }

    #[test]
    fn flow_quoted_and_commented_entries_stay() {
        let text = "# written by hand\nid: entity.a\ntitle: \"Alpha\"   # the title\naliases: [Al, 'A. L.']\nstatus: 'active'  # why: reviewed\nclaims:\n  - {id: c1, text: \"One.\"}\n  # the next one is disputed\n  - id: c2\n    text: 'Two.'   # quoted\n    status: supported\nconfidence: 0.80\n";
        // A new claim: appended as one item; everything else as it was.
        let out = splice(text, |m| {
            claims(m).push(val("{id: c3, text: Three.}"));
        })
        .unwrap();
        assert_eq!(
            out,
            text.replace(
                "    status: supported\n",
                "    status: supported\n  - id: c3\n    text: Three.\n"
            )
        );
        // A changed scalar keeps its key and its comment.
        let out = splice(text, |m| {
            m.insert("status".into(), "review".into());
        })
        .unwrap();
        assert_eq!(
            out,
            text.replace("status: 'active'  # why", "status: review  # why")
        );
        // A changed claim field: only that line.
        let out = splice(text, |m| {
            claim_map(m, 1).insert("status".into(), "contested".into());
        })
        .unwrap();
        assert_eq!(
            out,
            text.replace("    status: supported\n", "    status: contested\n")
        );
        // A flow list gains an item in place.
        let out = splice(text, |m| {
            m.insert("aliases".into(), val("[Al, 'A. L.', Alf]"));
        })
        .unwrap();
        assert_eq!(out, text.replace("'A. L.']", "'A. L.', Alf]"));
        // A flow claim that changes is written again, in flow style.
        let out = splice(text, |m| {
            claim_map(m, 0).insert("status".into(), "contested".into());
        })
        .unwrap();
        assert_eq!(
            out,
            text.replace(
                "  - {id: c1, text: \"One.\"}\n",
                "  - {id: c1, text: One., status: contested}\n"
            )
        );
        // So does a flow list that changes otherwise than at its end.
        let out = splice(text, |m| {
            m.insert("aliases".into(), val("[Alf]"));
        })
        .unwrap();
        assert_eq!(out, text.replace("[Al, 'A. L.']", "[Alf]"));
        // Items taken out of a flow list: the others stay as written, and so does a comment.
        let out = splice(text, |m| {
            m.insert("aliases".into(), val("['A. L.', Alf]"));
        })
        .unwrap();
        assert_eq!(out, text.replace("[Al, 'A. L.']", "['A. L.', Alf]"));
        let text2 = "questions: [\"Who?\",  'it''s',\"When?\"]  # open\nid: a\n";
        let out = splice(text2, |m| {
            m.insert("questions".into(), val("[\"it's\", When?]"));
        })
        .unwrap();
        assert_eq!(out, "questions: ['it''s', \"When?\"]  # open\nid: a\n");
        // A new key goes after the key before it; a removed key takes only its own lines.
        let out = splice(text, |m| {
            m.shift_remove("aliases");
            m.insert("updatedAt".into(), "2026-04-05".into());
        })
        .unwrap();
        assert_eq!(
            out,
            format!(
                "{}updatedAt: 2026-04-05\n",
                text.replace("aliases: [Al, 'A. L.']\n", "")
            )
        );
    }

    #[test]
    fn moved_keys_keep_their_lines() {
        let text =
            "id: a   # the id\nquestions: [Q1?]  # q\naliases: [A, 'B']  # hand\nstatus: active\n";
        // Removed and set again by one batch: the key goes last, written again as it changed.
        let out = splice(text, |m| {
            m.shift_remove("questions");
            m.insert("questions".into(), val("[Q2?]"));
        })
        .unwrap();
        assert_eq!(
            out,
            "id: a   # the id\naliases: [A, 'B']  # hand\nstatus: active\nquestions:\n  - Q2?\n"
        );
        // A key that only moves keeps its line as written.
        let out = splice(text, |m| {
            let id = m.shift_remove("id").unwrap();
            m.insert("id".into(), id);
        })
        .unwrap();
        assert_eq!(
            out,
            "questions: [Q1?]  # q\naliases: [A, 'B']  # hand\nstatus: active\nid: a   # the id\n"
        );
        // Keys of a claim that change places: the fewest move.
        let text = "claims:\n  - id: c1\n    text: 'One.'  # as said\n    status: supported\n";
        let out = splice(text, |m| {
            let c = claim_map(m, 0);
            let t = c.shift_remove("text").unwrap();
            c.insert("text".into(), t);
        })
        .unwrap();
        assert_eq!(
            out,
            "claims:\n  - id: c1\n    status: supported\n    text: 'One.'  # as said\n"
        );
    }

    #[test]
    fn crlf_and_compact_sequences() {
        let text = "id: a\r\nclaims:\r\n- id: c1\r\n  text: One.\r\nquestions:\r\n- Q1?\r\n";
        let out = splice(text, |m| {
            claims(m).push(val("{id: c2, text: Two.}"));
            m.insert("questions".into(), val("[Q1?, Q2?]"));
        })
        .unwrap();
        assert_eq!(
            out,
            "id: a\r\nclaims:\r\n- id: c1\r\n  text: One.\r\n- id: c2\r\n  text: Two.\r\nquestions:\r\n- Q1?\r\n- Q2?\r\n"
        );
        let out = splice(text, |m| {
            claim_map(m, 0).insert("status".into(), "contested".into());
        })
        .unwrap();
        assert_eq!(
            out,
            "id: a\r\nclaims:\r\n- id: c1\r\n  text: One.\r\n  status: contested\r\nquestions:\r\n- Q1?\r\n"
        );
    }

    #[test]
    fn unreadable_structure_is_left_to_the_full_emit() {
        // A flow root, complex keys, anchors: the caller re-emits.
        assert_eq!(
            splice("{id: a}\n", |m| {
                m.insert("b".into(), "c".into());
            }),
            None
        );
        assert_eq!(
            splice("? id\n: a\n", |m| {
                m.insert("b".into(), "c".into());
            }),
            None
        );
        // A splice that would not read back as the new mapping (an anchor replaced under its
        // alias).
        assert_eq!(
            splice("a: &x 1\nb: *x\n", |m| {
                m.insert("a".into(), 2.into());
            }),
            None
        );
        // No change: the text as it is.
        assert_eq!(splice("{id: a}\n", |_| {}).as_deref(), Some("{id: a}\n"));
        // An empty frontmatter gains its keys.
        assert_eq!(
            splice("", |m| {
                m.insert("id".into(), "a".into());
            })
            .as_deref(),
            Some("id: a\n")
        );
    }
}
