//! YAML reading and writing for frontmatter.
//!
//! **Crate choice.** Reading uses [`yaml_serde`], the maintained successor of the archived
//! `serde_yaml` 0.9, published by the YAML organisation on top of a safe libyaml port. It has the
//! same API, reports error locations (line and column) and its `Mapping` keeps key order. It reads
//! YAML 1.2 core scalars like the `yaml` npm package the original plugin uses (`no`/`on` stay
//! strings, ISO timestamps stay strings). We rejected `serde_yml` (unsound, archived) and
//! `serde-saphyr` (reads `no`/`on` as booleans, `0123` as a number).
//!
//! **Writing** uses our own small emitter ([`emit_mapping`]) instead of `yaml_serde::to_string`,
//! so that frontmatter we write looks like the frontmatter the original plugin writes (block
//! style, 2-space indent, sequences indented under their key, plain scalars where they read back
//! as the same string, double quotes otherwise) and keeps key order. Pages are only re-emitted when
//! an operation changes their frontmatter; otherwise their bytes are left alone.

mod fast;

use yaml_serde::{Mapping, Value};

/// How many collections (mappings and sequences, the root mapping included) frontmatter may nest:
/// `yaml_serde`'s own recursion limit, which the fast reader shares. Deeper values would be read
/// by recursion (both readers, and every walk over the value afterwards), so a page nesting deeper
/// is an error of that page, never a stack overflow of the whole command.
pub const MAX_DEPTH: usize = 128;

/// A YAML error with the 1-based **file** line it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the page file.
    pub line: usize,
    /// Human-readable message (without location suffix).
    pub message: String,
}

/// Parse frontmatter YAML. `first_line` is the file line of the first YAML line (2 for a normal
/// page), so error lines refer to the file. An empty document yields an empty mapping; a
/// non-mapping root is an error (`Wiki frontmatter must be a YAML mapping`).
pub fn parse_mapping(yaml: &str, first_line: usize) -> Result<Mapping, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    // Plain block YAML (nearly every page) is read without libyaml's events; anything else,
    // errors included, goes to yaml_serde.
    if let Some(map) = fast::parse(yaml) {
        return Ok(map);
    }
    match yaml_serde::from_str::<Value>(yaml) {
        Ok(Value::Mapping(map)) => Ok(map),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(Value::Tagged(tagged)) => match tagged.value {
            Value::Mapping(map) => Ok(map),
            _ => Err(YamlError {
                line: first_line,
                message: "Wiki frontmatter must be a YAML mapping".into(),
            }),
        },
        Ok(other) => Err(YamlError {
            line: first_line,
            message: format!(
                "Wiki frontmatter must be a YAML mapping (found a {})",
                value_kind(&other)
            ),
        }),
        Err(err) => {
            let line = err
                .location()
                .map(|l| l.line() + first_line - 1)
                .unwrap_or(first_line);
            let mut message = err.to_string();
            if let Some(idx) = message.find(" at line ") {
                message.truncate(idx);
            }
            if message.starts_with("recursion limit exceeded") {
                message = format!("nested deeper than {MAX_DEPTH} levels");
            }
            Err(YamlError {
                line,
                message: format!("invalid YAML frontmatter: {message}"),
            })
        }
    }
}

/// A short name for the type of a YAML value.
pub fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged value",
    }
}

/// Convert a YAML value to JSON, keeping key order. Non-string keys are rendered as strings;
/// non-finite numbers become `null`; tags are dropped.
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                serde_json::Value::from(i)
            } else if let Some(u) = n.as_u64() {
                serde_json::Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
        }
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Sequence(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Mapping(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                out.insert(key_string(k), to_json(v));
            }
            serde_json::Value::Object(out)
        }
        Value::Tagged(tagged) => to_json(&tagged.value),
    }
}

/// Convert JSON to a YAML value (key order kept). Used by writers that build frontmatter from
/// JSON operations.
pub fn from_json(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Number(i.into())
            } else if let Some(u) = n.as_u64() {
                Value::Number(u.into())
            } else {
                Value::Number(n.as_f64().unwrap_or(0.0).into())
            }
        }
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(items) => Value::Sequence(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => {
            let mut out = Mapping::new();
            for (k, v) in map {
                out.insert(Value::String(k.clone()), from_json(v));
            }
            Value::Mapping(out)
        }
    }
}

/// Render a key as a string (strings as is, other scalars in their YAML form).
pub fn key_string(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null => "null".into(),
        other => {
            let mut s = String::new();
            emit_value(&mut s, other, 0, false);
            s.trim().to_string()
        }
    }
}

/// Emit a mapping as block YAML, ending with a newline (empty mapping → `{}\n`).
pub fn emit_mapping(map: &Mapping) -> String {
    if map.is_empty() {
        return "{}\n".into();
    }
    let mut out = String::new();
    emit_map_body(&mut out, map, 0);
    out
}

/// One entry of a block mapping whose keys are at column `level`: `key: value` and the lines of
/// a block value, as [`emit_mapping`] writes it there (for splicing, [`crate::splice`]).
pub fn emit_entry(key: &Value, value: &Value, level: usize) -> String {
    let mut out = String::new();
    indent(&mut out, level);
    out.push_str(&scalar_string(&key_string(key)));
    out.push(':');
    emit_after_key(&mut out, value, level);
    out
}

/// What [`emit_mapping`] writes after `key:` for `value` when the key is at column `level`.
pub fn emit_value_after_key(value: &Value, level: usize) -> String {
    let mut out = String::new();
    emit_after_key(&mut out, value, level);
    out
}

/// One item of a block sequence whose dashes are at column `level`, as [`emit_mapping`]
/// writes it there.
pub fn emit_item(item: &Value, level: usize) -> String {
    let mut out = String::new();
    indent(&mut out, level);
    out.push('-');
    emit_seq_item(&mut out, item, level);
    out
}

/// A value in flow style on one line (`[a, b]`, `{k: v}`, a scalar), for adding an item to a
/// flow collection written by hand.
pub fn emit_flow(value: &Value) -> String {
    match value {
        // Flow indicators end a plain scalar inside a flow collection.
        Value::String(s) if s.contains([',', '[', ']', '{', '}']) => double_quoted(s),
        Value::Sequence(items) if !items.is_empty() => {
            let items: Vec<String> = items.iter().map(emit_flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Mapping(m) if !m.is_empty() => {
            let entries: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", emit_flow(k), emit_flow(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Tagged(t) => emit_flow(&t.value),
        other => {
            let mut out = String::new();
            emit_value(&mut out, other, 0, false);
            out
        }
    }
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

fn emit_map_body(out: &mut String, map: &Mapping, level: usize) {
    let mut first = true;
    for (k, v) in map {
        if !first {
            indent(out, level);
        }
        first = false;
        out.push_str(&scalar_string(&key_string(k)));
        out.push(':');
        emit_after_key(out, v, level);
    }
}

/// Emit a value that follows `key:` (or `- `) at `level` indentation.
fn emit_after_key(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Mapping(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            emit_map_body(out, m, level + 2);
        }
        Value::Sequence(s) if !s.is_empty() => {
            out.push('\n');
            for item in s {
                indent(out, level + 2);
                out.push('-');
                emit_seq_item(out, item, level + 2);
            }
        }
        Value::Tagged(t) => emit_after_key(out, &t.value, level),
        other => {
            out.push(' ');
            emit_value(out, other, level + 2, true);
            out.push('\n');
        }
    }
}

fn emit_seq_item(out: &mut String, item: &Value, level: usize) {
    match item {
        Value::Mapping(m) if !m.is_empty() => {
            out.push(' ');
            emit_map_body(out, m, level + 2);
        }
        Value::Sequence(s) if !s.is_empty() => {
            out.push(' ');
            let mut first = true;
            for inner in s {
                if !first {
                    indent(out, level + 2);
                }
                first = false;
                out.push('-');
                emit_seq_item(out, inner, level + 2);
            }
        }
        Value::Tagged(t) => emit_seq_item(out, &t.value, level),
        other => {
            out.push(' ');
            emit_value(out, other, level + 2, true);
            out.push('\n');
        }
    }
}

/// Emit a scalar (or empty collection) inline. `block_indent` is the indentation for the lines
/// of a block literal.
fn emit_value(out: &mut String, v: &Value, block_indent: usize, allow_block: bool) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_string(n)),
        Value::String(s) => {
            if allow_block && s.contains('\n') && block_literal_ok(s) {
                emit_block_literal(out, s, block_indent);
            } else {
                out.push_str(&scalar_string(s));
            }
        }
        Value::Sequence(s) if s.is_empty() => out.push_str("[]"),
        Value::Mapping(m) if m.is_empty() => out.push_str("{}"),
        Value::Sequence(s) => {
            // Flow style fallback (only reached for keys).
            out.push('[');
            for (i, item) in s.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                emit_value(out, item, block_indent, false);
            }
            out.push(']');
        }
        Value::Mapping(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&scalar_string(&key_string(k)));
                out.push_str(": ");
                emit_value(out, item, block_indent, false);
            }
            out.push('}');
        }
        Value::Tagged(t) => emit_value(out, &t.value, block_indent, allow_block),
    }
}

fn number_string(n: &yaml_serde::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        Some(f) if f.is_nan() => ".nan".into(),
        Some(f) if f.is_infinite() => {
            if f > 0.0 {
                ".inf".into()
            } else {
                "-.inf".into()
            }
        }
        // Rust prints the shortest round-tripping form (`0.3`, `1`), like JavaScript.
        Some(f) => format!("{f}"),
        None => n.to_string(),
    }
}

fn block_literal_ok(s: &str) -> bool {
    // Block literals cannot express leading spaces on the first line without an indentation
    // indicator, nor carriage returns / other control characters. Fall back to quotes then.
    !s.starts_with(' ')
        && !s.starts_with('\n')
        && !s
            .chars()
            .any(|c| c == '\r' || (c.is_control() && c != '\n' && c != '\t'))
        && !s.lines().any(|l| l.ends_with(' ') || l.ends_with('\t'))
}

fn emit_block_literal(out: &mut String, s: &str, indent_n: usize) {
    let chomp = if s.ends_with("\n\n") {
        "+"
    } else if s.ends_with('\n') {
        ""
    } else {
        "-"
    };
    out.push('|');
    out.push_str(chomp);
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, indent_n);
            out.push_str(line);
        }
    }
    if chomp == "+" {
        // Keep trailing blank lines: they are already represented by the empty lines above.
    }
}

/// Render a string scalar: plain when it reads back as the same string (YAML 1.2 core and the
/// YAML 1.1 boolean words), double-quoted otherwise.
pub fn scalar_string(s: &str) -> String {
    if plain_ok(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' => {
                let code = c as u32;
                if code <= 0xff {
                    out.push_str(&format!("\\x{code:02x}"));
                } else {
                    out.push_str(&format!("\\u{code:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn plain_ok(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        // `-foo`, `:foo`, `?foo` can be plain, but keeping them quoted is always safe.
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') || s.contains('\t') {
        return false;
    }
    if s.chars().any(|c| {
        c.is_control() || c == '\u{feff}' || c == '\u{2028}' || c == '\u{2029}' || c == '\u{85}'
    }) {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    ) {
        return false;
    }
    if looks_numeric(s) {
        return false;
    }
    // Last safety net: it must read back as the same string.
    matches!(yaml_serde::from_str::<Value>(s), Ok(Value::String(ref back)) if back == s)
}

fn looks_numeric(s: &str) -> bool {
    // YAML 1.2 core and YAML 1.1 numbers: ints, floats, hex/octal/binary, `.inf`/`.nan`,
    // underscores and sexagesimal (`1:30`). Quoting such strings keeps them strings everywhere.
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"(?x)^[-+]?(
                [0-9][0-9_]*(:[0-5]?[0-9])*(\.[0-9_]*)?([eE][-+]?[0-9]+)?
              | \.[0-9_]+([eE][-+]?[0-9]+)?
              | 0[xX][0-9a-fA-F_]+ | 0o[0-7_]+ | 0b[01_]+
              | \.(inf|Inf|INF|nan|NaN|NAN)
            )$",
        )
        .unwrap_or_else(|_| unreachable!())
    });
    re.is_match(s)
}

/// Best-effort line numbers of the top-level keys of block-style frontmatter, and of the items of
/// top-level block sequences (e.g. each entry of `claims:`). Lines are 1-based file lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KeyLines {
    /// `(key, line)` for every top-level key, in order.
    pub keys: Vec<(String, usize)>,
    /// `(key, item lines)` for top-level keys whose value is a block sequence.
    pub items: Vec<(String, Vec<usize>)>,
}

impl KeyLines {
    /// The line of a top-level key.
    pub fn key(&self, key: &str) -> Option<usize> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, l)| *l)
    }

    /// The line of item `index` of the top-level sequence `key` (falls back to the key's line).
    pub fn item(&self, key: &str, index: usize) -> Option<usize> {
        self.items
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, lines)| lines.get(index).copied())
            .or_else(|| self.key(key))
    }
}

/// Scan frontmatter text for [`KeyLines`].
pub fn scan_key_lines(yaml: &str, first_line: usize) -> KeyLines {
    let mut out = KeyLines::default();
    let mut current: Option<(String, Option<usize>)> = None; // key, item indent
    for (i, raw) in crate::markdown::split_newlines(yaml).enumerate() {
        let line_no = first_line + i;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indent_n = line.len() - line.trim_start_matches(' ').len();
        if indent_n == 0 && !line.starts_with('-') {
            if let Some(key) = top_level_key(line) {
                out.keys.push((key.clone(), line_no));
                current = Some((key, None));
                continue;
            }
            current = None;
            continue;
        }
        if let Some((key, item_indent)) = current.as_mut() {
            let trimmed = line.trim_start_matches(' ');
            if trimmed == "-" || trimmed.starts_with("- ") {
                let level = *item_indent.get_or_insert(indent_n);
                if indent_n == level {
                    match out.items.iter_mut().find(|(k, _)| k == key) {
                        Some((_, lines)) => lines.push(line_no),
                        None => out.items.push((key.clone(), vec![line_no])),
                    }
                }
            }
        }
    }
    out
}

fn top_level_key(line: &str) -> Option<String> {
    let (key, rest) = if let Some(stripped) = line.strip_prefix('"') {
        let end = stripped.find('"')?;
        (stripped[..end].to_string(), &stripped[end + 1..])
    } else if let Some(stripped) = line.strip_prefix('\'') {
        let end = stripped.find('\'')?;
        (stripped[..end].to_string(), &stripped[end + 1..])
    } else {
        let idx = line.find(':')?;
        (line[..idx].trim_end().to_string(), &line[idx..])
    };
    let rest = rest.trim_start();
    if rest.starts_with(':') {
        Some(key)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(yaml: &str) -> Mapping {
        parse_mapping(yaml, 2).unwrap()
    }

    #[test]
    fn parse_error_line_is_file_line() {
        let err = parse_mapping("id: a\ntitle: [unclosed\nx: 1", 2).unwrap_err();
        assert!(err.line >= 3, "{err:?}");
        assert!(err.message.starts_with("invalid YAML frontmatter"));
    }

    #[test]
    fn nesting_past_the_limit_is_an_error_of_the_page() {
        fn nested(depth: usize, flow: bool) -> String {
            if flow {
                return format!("a: {}1{}\n", "[".repeat(depth), "]".repeat(depth));
            }
            let mut yaml = String::new();
            for level in 0..depth {
                yaml.push_str(&format!("{}k{level}:\n", "  ".repeat(level)));
            }
            yaml.push_str(&format!("{}leaf: 1\n", "  ".repeat(depth)));
            yaml
        }
        // The root mapping is one level: `depth` keys nest `depth` mappings under it.
        assert!(parse_mapping(&nested(MAX_DEPTH - 1, false), 2).is_ok());
        assert!(parse_mapping(&nested(MAX_DEPTH - 1, true), 2).is_ok());
        for flow in [false, true] {
            for depth in [MAX_DEPTH, 5_000] {
                let err = parse_mapping(&nested(depth, flow), 2).unwrap_err();
                assert_eq!(
                    err.message,
                    "invalid YAML frontmatter: nested deeper than 128 levels"
                );
            }
        }
        let err = parse_mapping(&nested(MAX_DEPTH, false), 2).unwrap_err();
        assert_eq!(err.line, MAX_DEPTH + 2);
    }

    #[test]
    fn non_mapping_root_is_error() {
        let err = parse_mapping("- a\n- b", 2).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("must be a YAML mapping"));
        assert!(parse_mapping("just a string", 2).is_err());
        assert!(parse_mapping("", 2).unwrap().is_empty());
        assert!(parse_mapping("# only a comment\n", 2).unwrap().is_empty());
    }

    #[test]
    fn yaml_12_scalars() {
        let m = map("a: no\nb: on\nc: 2026-04-05T12:00:00.000Z\nd: 0.8\ne: '0.8'");
        assert_eq!(m.get("a"), Some(&Value::String("no".into())));
        assert_eq!(m.get("b"), Some(&Value::String("on".into())));
        assert_eq!(
            m.get("c"),
            Some(&Value::String("2026-04-05T12:00:00.000Z".into()))
        );
        assert!(matches!(m.get("d"), Some(Value::Number(_))));
        assert_eq!(m.get("e"), Some(&Value::String("0.8".into())));
    }

    #[test]
    fn emit_round_trips_and_keeps_order() {
        let src = "pageType: synthesis\nid: synthesis.alpha\ntitle: Alpha Synthesis\nsourceIds:\n  - source.alpha\n  - source.beta\nclaims:\n  - id: claim.a\n    text: \"Alpha: uses PostgreSQL\"\n    confidence: 0.9\n    evidence:\n      - sourceId: source.alpha\n        lines: 12-18\n        weight: 1\n    tags: []\nconfidence: 0.3\nstatus: active\nupdatedAt: 2026-04-05T12:00:00.000Z\nempty: {}\nflag: true\nnothing: null\n";
        let m = map(src);
        let out = emit_mapping(&m);
        assert_eq!(out, src);
        assert_eq!(map(&out), m);
    }

    #[test]
    fn emit_quotes_ambiguous_strings() {
        for s in [
            "0.7",
            "yes",
            "No",
            "null",
            "~",
            "- item",
            "a: b",
            "x #y",
            "",
            " lead",
            "trail ",
            "1e5",
            "0x1F",
            "@handle",
            "`code`",
            "#tag",
            "\"q\"",
            "tab\there",
        ] {
            let out = scalar_string(s);
            assert!(out.starts_with('"'), "{s:?} -> {out}");
            let back: Value = yaml_serde::from_str(&format!("k: {out}")).unwrap();
            assert_eq!(back.get("k"), Some(&Value::String(s.into())), "{s:?}");
        }
        for s in [
            "hello world",
            "claim.alpha.db",
            "2026-04-05T12:00:00.000Z",
            "大语言模型概述",
            "12-18",
            "a:b",
        ] {
            assert_eq!(scalar_string(s), s);
        }
    }

    #[test]
    fn emit_multiline_strings_round_trip() {
        for s in [
            "line one\nline two",
            "ends\n",
            "keep\n\n",
            " lead\nx",
            "cr\r\nlf",
        ] {
            let mut m = Mapping::new();
            m.insert(Value::String("text".into()), Value::String(s.into()));
            let out = emit_mapping(&m);
            let back = map(&out);
            assert_eq!(back.get("text"), Some(&Value::String(s.into())), "{out}");
        }
    }

    #[test]
    fn nested_sequences_round_trip() {
        let src = "a:\n  - - x\n    - y\n  - z\nb:\n  c:\n    d: 1\n";
        let m = map(src);
        assert_eq!(map(&emit_mapping(&m)), m);
    }

    #[test]
    fn key_lines() {
        let yaml = "id: a\nclaims:\n  - id: c1\n    text: x\n  - text: y\n    evidence:\n      - kind: k\nquestions: [a, b]\n\"quoted key\": 1";
        let kl = scan_key_lines(yaml, 2);
        assert_eq!(kl.key("id"), Some(2));
        assert_eq!(kl.key("claims"), Some(3));
        assert_eq!(kl.item("claims", 0), Some(4));
        assert_eq!(kl.item("claims", 1), Some(6));
        assert_eq!(kl.item("questions", 1), Some(9));
        assert_eq!(kl.key("quoted key"), Some(10));
    }
}
