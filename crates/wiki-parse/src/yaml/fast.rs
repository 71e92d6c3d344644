//! A fast reader for the plain block YAML that frontmatter almost always is (nested block
//! mappings and sequences of one-line scalars), used by [`crate::yaml::parse_mapping`] before
//! [`yaml_serde`]: it gives exactly the value `yaml_serde` gives, or `None` as soon as the text
//! uses anything else (flow collections, block or multi-line scalars, anchors, tags, comments,
//! quoted or non-string keys, duplicate keys, tabs, control characters, unusual escapes…), and
//! `yaml_serde` reads the text instead (with its error messages and locations). Reading through
//! libyaml's events was about half of parsing a page.
//!
//! Plain scalars are resolved with `yaml_serde`'s own rules (YAML 1.2 core schema: `null`,
//! booleans, integers in four bases, floats; `0123` stays a string), ported in [`resolve`];
//! numbers that do not fit 64 bits go back to `yaml_serde`. The tests compare both readers on
//! every value they produce.

use yaml_serde::{Mapping, Number, Value};

/// One non-blank line: its indentation and the text after it.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    indent: usize,
    text: &'a str,
}

/// The mapping `yaml` holds, when it stays inside the subset this module reads.
pub(crate) fn parse(yaml: &str) -> Option<Mapping> {
    // Printable ASCII and newlines (almost every page) without decoding characters.
    let ascii = yaml
        .bytes()
        .all(|b| b == b'\n' || (0x20..0x7f).contains(&b));
    if !ascii && !yaml.chars().all(allowed_char) {
        return None;
    }
    let mut lines = Vec::with_capacity(32);
    for raw in crate::markdown::split_newlines(yaml) {
        let text = raw.trim_start_matches(' ');
        if text.is_empty() {
            continue;
        }
        // Comments, directives and document markers: left to yaml_serde.
        if text.starts_with(['#', '%']) || raw.starts_with("---") || raw.starts_with("...") {
            return None;
        }
        lines.push(Line {
            indent: raw.len() - text.len(),
            text: text.trim_end_matches(' '),
        });
    }
    let first = lines.first()?;
    if first.indent != 0 {
        return None;
    }
    let mut reader = Reader {
        lines,
        pos: 0,
        depth: 0,
    };
    let map = reader.mapping(0, None)?;
    (reader.pos == reader.lines.len()).then_some(map)
}

/// Characters the subset allows anywhere: no tabs, no carriage returns, no control characters
/// (libyaml rejects most), and none of the characters libyaml takes as line breaks or marks.
fn allowed_char(c: char) -> bool {
    c == '\n'
        || !(c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            ))
}

struct Reader<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    /// Collections open around the current line (the root mapping is 1).
    depth: usize,
}

impl<'a> Reader<'a> {
    /// A block mapping whose keys are at `indent`; `first` is the text of its first entry when
    /// it starts on a sequence item's line (`- key: value`).
    fn mapping(&mut self, indent: usize, mut first: Option<&'a str>) -> Option<Mapping> {
        self.enter()?;
        let mut map = Mapping::new();
        loop {
            let text = match first.take() {
                Some(text) => text,
                None => match self.lines.get(self.pos) {
                    Some(line) if line.indent == indent => {
                        self.pos += 1;
                        line.text
                    }
                    Some(line) if line.indent > indent => return None,
                    _ => break,
                },
            };
            let (key, rest) = split_key(text)?;
            let value = if rest.is_empty() {
                self.nested(indent, true)?
            } else {
                // (A more indented line after it would continue it, or be an error: the loop
                // refuses it.)
                scalar(rest)?
            };
            if map.insert(Value::String(key.to_string()), value).is_some() {
                return None; // duplicate key: yaml_serde's error
            }
        }
        self.depth -= 1;
        Some(map)
    }

    /// Opens one more collection; `None` (yaml_serde then reports the nesting as an error) past
    /// the depth yaml_serde accepts, so a deeply nested page cannot exhaust the stack.
    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= super::MAX_DEPTH).then_some(())
    }

    /// The value of a key (`in_mapping`) or a sequence item at `indent` with nothing after it on
    /// its line: a nested block, a sequence at the same indentation (keys only), or null.
    fn nested(&mut self, indent: usize, in_mapping: bool) -> Option<Value> {
        match self.lines.get(self.pos) {
            Some(line) if line.indent > indent => {
                let at = line.indent;
                if is_item(line.text) {
                    self.sequence(at).map(Value::Sequence)
                } else {
                    self.mapping(at, None).map(Value::Mapping)
                }
            }
            Some(line) if in_mapping && line.indent == indent && is_item(line.text) => {
                self.sequence(indent).map(Value::Sequence)
            }
            _ => Some(Value::Null),
        }
    }

    /// A block sequence whose dashes are at `indent`.
    fn sequence(&mut self, indent: usize) -> Option<Vec<Value>> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some(line) = self.lines.get(self.pos).copied() {
            if line.indent < indent || (line.indent == indent && !is_item(line.text)) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            self.pos += 1;
            let after = &line.text[1..];
            let rest = after.trim_start_matches(' ');
            if rest.is_empty() {
                items.push(self.nested(indent, false)?);
                continue;
            }
            // The item's content starts at this column.
            let column = indent + 1 + (after.len() - rest.len());
            if is_item(rest) {
                return None; // `- - x`
            }
            if split_key(rest).is_some() {
                items.push(Value::Mapping(self.mapping(column, Some(rest))?));
            } else {
                // (A more indented line after it is refused by the loop.)
                items.push(scalar(rest)?);
            }
        }
        self.depth -= 1;
        Some(items)
    }
}

/// Whether a line's text starts a sequence item (`-` alone or followed by a space).
fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// `key: rest` or `key:` with a plain key that reads as the same string; `None` when the text is
/// not such an entry.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let (key, after) = (&text[..colon], &text[colon + 1..]);
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    let key_ok = key
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !key_ok || non_string(key)?.is_some() {
        return None;
    }
    Some((key, after.trim_start_matches(' ')))
}

/// The value of a one-line scalar (already trimmed), or `None` outside the subset.
fn scalar(text: &str) -> Option<Value> {
    let first = text.as_bytes()[0];
    if first == b'[' {
        return flow_sequence(text).map(Value::Sequence);
    }
    match first {
        b'"' => double_quoted(text).map(Value::String),
        b'\'' => single_quoted(text).map(Value::String),
        // Indicators (flow collections, anchors, aliases, tags, block scalars, comments,
        // reserved): left to yaml_serde.
        b'[' | b']' | b'{' | b'}' | b',' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%'
        | b'@' | b'`' | b'?' | b':' => None,
        b'-' if !text[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.') => None,
        _ => {
            if text.contains(": ") || text.contains(" #") || text.ends_with(':') {
                return None;
            }
            resolve(text)
        }
    }
}

/// `[a, "b", 'c']` on one line: scalars only (no nested collections, no `key: value` pairs,
/// no empty entries), nothing after the closing bracket.
fn flow_sequence(text: &str) -> Option<Vec<Value>> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?.trim_matches(' ');
    if inner.is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|item| {
            let item = item.trim_matches(' ');
            match item.as_bytes().first()? {
                b'"' | b'\'' => scalar(item),
                // Flow indicators and what would make a pair: left to yaml_serde.
                _ if item.contains(['[', ']', '{', '}', '#']) || item.contains(':') => None,
                _ => scalar(item),
            }
        })
        .collect()
}

/// `"…"` on one line with nothing after the closing quote.
fn double_quoted(text: &str) -> Option<String> {
    let body = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None, // closes early: something follows the string
            '\\' => {
                let e = chars.next()?;
                let hex = |chars: &mut std::str::Chars<'_>, n: usize| -> Option<char> {
                    let digits: String = chars.take(n).collect();
                    if digits.len() != n || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return None;
                    }
                    char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
                };
                out.push(match e {
                    '0' => '\0',
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    't' => '\t',
                    'n' => '\n',
                    'v' => '\u{b}',
                    'f' => '\u{c}',
                    'r' => '\r',
                    'e' => '\u{1b}',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' => hex(&mut chars, 2)?,
                    'u' => hex(&mut chars, 4)?,
                    'U' => hex(&mut chars, 8)?,
                    _ => return None,
                });
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// `'…'` on one line (`''` is a quote) with nothing after the closing quote.
fn single_quoted(text: &str) -> Option<String> {
    let body = text.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find('\'') {
        if !rest[i + 1..].starts_with('\'') {
            return None;
        }
        out.push_str(&rest[..=i]);
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    Some(out)
}

/// A plain scalar's value by `yaml_serde`'s rules (`visit_untagged_scalar`): null, booleans,
/// integers (decimal without leading zeros, `0x`, `0o`, `0b`, signs), floats (`.inf`, `.nan`,
/// anything Rust reads as a finite `f64`), else the string. `None` for integers beyond 64 bits.
fn resolve(s: &str) -> Option<Value> {
    Some(non_string(s)?.unwrap_or_else(|| Value::String(s.to_string())))
}

/// [`resolve`] without building the string: `Some(None)` when `s` reads as itself (a string),
/// `Some(Some(value))` for null, a boolean or a number, `None` for integers beyond 64 bits.
fn non_string(s: &str) -> Option<Option<Value>> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Some(Value::Null)),
        "true" | "True" | "TRUE" => return Some(Some(Value::Bool(true))),
        "false" | "False" | "FALSE" => return Some(Some(Value::Bool(false))),
        _ => {}
    }
    // Every number (a finite float included) starts with one of these and is made of the
    // others: anything else is a string (the common case: words, ids, sentences).
    let numeric = s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '.' | '+' | '-'))
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'));
    if !numeric {
        return Some(None);
    }
    if let Some(n) = unsigned(s, 64) {
        return Some(Some(Value::Number(Number::from(u64::try_from(n).ok()?))));
    }
    if let Some(n) = negative(s) {
        return Some(Some(Value::Number(Number::from(n))));
    }
    // 128-bit integers: yaml_serde's own path.
    if unsigned(s, 128).is_some() || negative_wide(s) {
        return None;
    }
    if !digits_but_not_number(s)
        && let Some(f) = float(s)
    {
        return Some(Some(Value::Number(Number::from(f))));
    }
    Some(None)
}

/// `parse_unsigned_int` of yaml_serde, for values of at most `bits` bits.
fn unsigned(s: &str, bits: u32) -> Option<u128> {
    let fits = |n: u128| (bits == 128 || n < (1u128 << bits)).then_some(n);
    let unpositive = s.strip_prefix('+').unwrap_or(s);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(n) = u128::from_str_radix(rest, radix) {
                return fits(n);
            }
        }
    }
    if unpositive.starts_with(['+', '-']) || digits_but_not_number(s) {
        return None;
    }
    unpositive.parse::<u128>().ok().and_then(fits)
}

/// `parse_negative_int` of yaml_serde for `i64`.
fn negative(s: &str) -> Option<i64> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = s.strip_prefix(prefix)
            && let Ok(n) = i64::from_str_radix(&format!("-{rest}"), radix)
        {
            return Some(n);
        }
    }
    if digits_but_not_number(s) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// Whether `parse_negative_int` of yaml_serde reads `s` as an `i128` (beyond `i64`).
fn negative_wide(s: &str) -> bool {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = s.strip_prefix(prefix)
            && i128::from_str_radix(&format!("-{rest}"), radix).is_ok()
        {
            return true;
        }
    }
    !digits_but_not_number(s) && s.parse::<i128>().is_ok()
}

/// `parse_f64` of yaml_serde.
fn float(s: &str) -> Option<f64> {
    let unpositive = match s.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => return None,
        Some(u) => u,
        None => s,
    };
    match (unpositive, s) {
        (".inf" | ".Inf" | ".INF", _) => return Some(f64::INFINITY),
        (_, "-.inf" | "-.Inf" | "-.INF") => return Some(f64::NEG_INFINITY),
        (_, ".nan" | ".NaN" | ".NAN") => return Some(f64::NAN.copysign(1.0)),
        _ => {}
    }
    unpositive.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// yaml_serde's `digits_but_not_number`: leading zeros then digits are a string.
fn digits_but_not_number(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    s.len() > 1 && s.starts_with('0') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serde(yaml: &str) -> Option<Mapping> {
        match yaml_serde::from_str::<Value>(yaml) {
            Ok(Value::Mapping(m)) => Some(m),
            _ => None,
        }
    }

    /// The fast reader gives yaml_serde's mapping or nothing; returns whether it read `yaml`.
    fn check(yaml: &str) -> bool {
        match parse(yaml) {
            Some(fast) => {
                assert_eq!(Some(&fast), serde(yaml).as_ref(), "{yaml:?}");
                // Key order too (Mapping's equality ignores it).
                let keys = |m: &Mapping| m.keys().cloned().collect::<Vec<_>>();
                assert_eq!(keys(&fast), keys(&serde(yaml).expect("read")), "{yaml:?}");
                true
            }
            None => false,
        }
    }

    const SCALARS: [&str; 61] = [
        "plain",
        "two words",
        "Bob's page",
        "a:b",
        "http://x.y/z?q=1#f",
        "0",
        "1",
        "-1",
        "+1",
        "0123",
        "-0123",
        "0x1F",
        "0x",
        "-0x10",
        "0o17",
        "0b101",
        "+0x5",
        "0x+5",
        "1.5",
        "-0.5",
        ".5",
        "5.",
        "1e3",
        "1E-3",
        "+1.5",
        "1_000",
        ".inf",
        "-.Inf",
        "+.inf",
        ".nan",
        ".NaN",
        "inf",
        "nan",
        "Infinity",
        "~",
        "null",
        "Null",
        "NULL",
        "nULL",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "no",
        "yes",
        "on",
        "off",
        "2026-04-05",
        "2026-04-05T12:00:00Z",
        "12:30",
        "99999999999999999999",
        "-99999999999999999999",
        "340282366920938463463374607431768211456",
        "\"dq \\u00e9 \\t \\\\ \\\" \\x41\"",
        "'sq ''x'' y'",
        "\"\"",
        "''",
        "[a, 1, \"b c\", 0x1F, ~]",
        "[]",
        "[ x@y.z ,'q' ]",
    ];

    const NEAR_MISSES: [&str; 24] = [
        "[a, {b: c}]",
        "{a: 1}",
        "&x a",
        "*x",
        "!t a",
        "|",
        ">",
        "a # c",
        "- a",
        "-a",
        ": a",
        "? a",
        "\"open",
        "'open",
        "\"a\" b",
        "'a' b",
        "\"\\q\"",
        "\"\\ud800\"",
        "@x",
        "`x",
        "%x",
        "a: b",
        "a:",
        "#x",
    ];

    #[test]
    fn scalars_read_as_yaml_serde_reads_them() {
        let mut read = 0;
        for s in SCALARS.iter().chain(&NEAR_MISSES) {
            for doc in [
                format!("key: {s}\n"),
                format!("list:\n  - {s}\n  - x\n"),
                format!("list:\n- {s}\n"),
                format!("items:\n  - k: {s}\n    other: 1\n"),
                format!("{s}: 1\n"),
            ] {
                read += usize::from(check(&doc));
            }
        }
        assert!(read > 150, "{read}");
        for s in NEAR_MISSES {
            assert!(parse(&format!("key: {s}\n")).is_none(), "{s}");
        }
    }

    #[test]
    fn structures_read_as_yaml_serde_reads_them() {
        let docs = [
            "a: 1\nb:\n  c: 2\n  d:\n    - x\n    - y: 1\n      z: 2\n    -\n      w: 3\n    -\ne: ~\n",
            "a:\n- 1\n- 2\nb: x\n",
            "a:\n  - b: 1\n    c:\n      - d\n  - e\n",
            "a:\nb:\n",
            "a:   spaced   \n\n\nb: 2   \n",
            "a:\n    deep: 1\n",
            "a: 1\na: 2\n",
            "a:\n  b: 1\n c: 2\n",
            "a: x\n  continued\n",
            "a:\n  - x\n   - y\n",
            "  a: 1\n",
            "a: 1\n# comment\n",
            "---\na: 1\n",
            "a: 1\n...\n",
            "a:\t1\n",
            "a: 1\r\nb: 2\r\n",
            "- a\n- b\n",
            "plain\n",
            "a: [1, 2]\n",
            "a: [\"@x\", y@z.com, 'q', 0123, ~, true]\n",
            "a: []\n",
            "a: [ a ,b ]\n",
            "a: [a, ]\n",
            "a: [a: b]\n",
            "a: [[a]]\n",
            "a: [\"a, b\"]\n",
            "a: [a] x\n",
            "a: [a, {b: c}]\n",
            "a: [http://x]\n",
            "a: |\n  text\n",
            "a: \"x\u{2028}y\"\n",
            "a: \u{1}\n",
            "a: - b\n",
            "a:\n  - - b\n",
            "claims:\n  - id: claim.x\n    text: \"It's \\\"quoted\\\".\"\n    confidence: 0.7\n    evidence:\n      - kind: doc\n        weight: 1\n",
        ];
        let read: Vec<bool> = docs.iter().map(|d| check(d)).collect();
        let expected: Vec<bool> = [(6, true), (12, false), (4, true), (12, false), (1, true)]
            .iter()
            .flat_map(|&(n, b)| std::iter::repeat_n(b, n))
            .collect();
        assert_eq!(read, expected);
    }

    /// Random documents over the subset and just outside it.
    #[test]
    fn random_documents_read_as_yaml_serde_reads_them() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rng = move |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        let keys = [
            "id", "title", "a-b", "x.y", "_k", "k2", "claims", "evidence",
        ];
        let mut read = 0;
        for _ in 0..3000 {
            let mut doc = String::new();
            let mut depth_indent = vec![0usize];
            for _ in 0..1 + rng(12) {
                let indent = depth_indent[rng(depth_indent.len())];
                let pad = " ".repeat(indent);
                let key = keys[rng(keys.len())];
                let value = if rng(5) == 0 {
                    NEAR_MISSES[rng(NEAR_MISSES.len())]
                } else {
                    SCALARS[rng(SCALARS.len())]
                };
                match rng(6) {
                    0 => {
                        doc.push_str(&format!("{pad}{key}:\n"));
                        depth_indent.push(indent + 2);
                    }
                    1 => doc.push_str(&format!(
                        "{pad}{key}:\n{pad}  - {value}\n{pad}  - {value}\n"
                    )),
                    2 => {
                        doc.push_str(&format!("{pad}{key}:\n{pad}- {key}: {value}\n"));
                        depth_indent.push(indent + 2);
                    }
                    3 => doc.push_str(&format!("{pad}{key}:\n\n{pad}- {value}\n")),
                    _ => doc.push_str(&format!("{pad}{key}: {value}\n")),
                }
            }
            read += usize::from(check(&doc));
        }
        assert!(read > 300, "{read} of 3000 read");
    }
}
