//! JSON text exactly as JavaScript's `JSON.stringify` writes it, so compiled files match the
//! original plugin byte for byte.
//!
//! * numbers: integral values without a fraction (`1`, not `1.0`), others in the shortest form
//!   that reads back as the same double, with JavaScript's choice between plain and exponent
//!   notation (`0.000001`, `1e-7`, `1e+21`);
//! * strings: `"` and `\` escaped, `\b \f \n \r \t`, other control characters as `\u00xx`,
//!   everything else (non-ASCII included) written as is;
//! * [`to_pretty`] is `JSON.stringify(value, null, 2)`: two-space indentation, `"key": value`,
//!   empty arrays and objects as `[]` and `{}`.
//!
//! Also [`to_fixed`], JavaScript's `Number.prototype.toFixed` (ties round away from zero on the
//! exact binary value, unlike Rust's `{:.2}`).

use serde_json::{Map, Number, Value};

/// A JSON number for `x`, integral when `x` has no fraction (as JavaScript prints it).
pub fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        Value::from(x as i64)
    } else {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// `Some(number)` for a present finite value.
pub fn opt_number(x: Option<f64>) -> Option<Value> {
    x.map(number)
}

/// Insert `key: value` when `value` is present.
pub fn put_opt(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        map.insert(key.to_string(), v);
    }
}

/// Insert `key: "string"` when the string is present.
pub fn put_str(map: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(v) = value {
        map.insert(key.to_string(), Value::String(v.to_string()));
    }
}

/// Convert a serialisable value (e.g. a wiki-parse struct) to JSON with JavaScript numbers.
pub fn to_value<T: serde::Serialize>(value: &T) -> Value {
    let mut v = serde_json::to_value(value).unwrap_or(Value::Null);
    normalize_numbers(&mut v);
    v
}

/// Rewrite integral floating-point numbers as integers, recursively.
pub fn normalize_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64()
                && n.is_f64()
            {
                *v = number(f);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// JavaScript's `Number.prototype.toString()` for a finite double.
pub fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return "null".into();
    }
    // Shortest round-trip digits from Rust's `{:e}` (e.g. `-1.2345e-7`).
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exp + 1;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n > 0 { '+' } else { '-' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

/// JavaScript's `x.toFixed(digits)` for `digits <= 20` and `|x| < 1e21`.
///
/// Remembered per thread (a dashboard of a large vault formats the same few confidences tens of
/// thousands of times, and the exact expansion below is not cheap).
pub fn to_fixed(x: f64, digits: usize) -> String {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static SEEN: RefCell<HashMap<(u64, usize), String>> = RefCell::new(HashMap::new());
    }
    let key = (x.to_bits(), digits);
    if let Some(s) = SEEN.with(|m| m.borrow().get(&key).cloned()) {
        return s;
    }
    let s = to_fixed_exact(x, digits);
    SEEN.with(|m| {
        let mut m = m.borrow_mut();
        // Bounded: a vault of arbitrary values does not grow it without end.
        if m.len() >= 4096 {
            m.clear();
        }
        m.insert(key, s.clone());
    });
    s
}

fn to_fixed_exact(x: f64, digits: usize) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return js_number(x);
    }
    // The exact decimal expansion is at most a few dozen significant digits away from any tie,
    // so 40 extra places decide ties exactly for every value that can reach this function.
    let exact = format!("{:.*}", digits + 40, x.abs());
    let (int_part, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let mut kept: Vec<u8> = int_part.bytes().chain(frac.bytes().take(digits)).collect();
    let round_up = frac.as_bytes().get(digits).is_some_and(|d| *d >= b'5');
    if round_up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, b'1');
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let int_len = kept.len() - digits;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&kept[..int_len]).unwrap_or("0"));
    if digits > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&kept[int_len..]).unwrap_or(""));
    }
    out
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            c if (c as u32) < 0x20 => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn write_number(n: &Number, out: &mut String) {
    if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else {
        out.push_str(&js_number(n.as_f64().unwrap_or(0.0)));
    }
}

fn write(v: &Value, indent: Option<usize>, depth: usize, out: &mut String) {
    let newline = |out: &mut String, depth: usize| {
        if let Some(step) = indent {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', step * depth));
        }
    };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_str(s, out),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write(item, indent, depth + 1, out);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_str(k, out);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write(item, indent, depth + 1, out);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}

/// `JSON.stringify(value)`.
pub fn to_compact(v: &Value) -> String {
    let mut out = String::new();
    write(v, None, 0, &mut out);
    out
}

/// Append `value` pretty-printed (2-space steps) as if nested `depth` levels deep.
pub fn write_pretty_at(v: &Value, depth: usize, out: &mut String) {
    write(v, Some(2), depth, out);
}

/// `JSON.stringify(value, null, 2)`.
pub fn to_pretty(v: &Value) -> String {
    let mut out = String::new();
    write(v, Some(2), 0, &mut out);
    out
}

/// The text [`write`] gives the number [`number`] makes of `x` (`null` when not finite).
fn f64_text(x: f64) -> String {
    let mut out = String::new();
    write(&number(x), None, 0, &mut out);
    out
}

/// A `serde_json` formatter that writes what [`to_compact`] or [`write_pretty_at`] write for
/// the [`to_value`] of the same value, without building that value: the escapes of
/// `serde_json` are `JSON.stringify`'s (checked by the tests), numbers go through [`f64_text`],
/// and the pretty form starts `depth` levels deep.
struct JsFormatter {
    /// `Some(depth)`: pretty, at this depth; `None`: compact.
    pretty: Option<usize>,
    has_value: bool,
}

impl JsFormatter {
    /// Open an array or object (one level deeper).
    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        if let Some(d) = &mut self.pretty {
            *d += 1;
            self.has_value = false;
        }
        w.write_all(bracket)
    }

    /// Close an array or object: on its own line when it holds something (pretty form).
    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        if let Some(d) = &mut self.pretty {
            *d -= 1;
            let depth = *d;
            if self.has_value {
                self.newline(w, depth)?;
            }
        }
        w.write_all(bracket)
    }

    /// Before an array value or an object key: the comma, then (pretty form) its own line.
    fn item<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        match self.pretty {
            Some(depth) => self.newline(w, depth),
            None => Ok(()),
        }
    }

    /// A line break and the indentation of `depth` levels (pretty form).
    fn newline<W: ?Sized + std::io::Write>(&self, w: &mut W, depth: usize) -> std::io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for JsFormatter {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        w.write_all(f64_text(v).as_bytes())
    }

    fn write_f32<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f32) -> std::io::Result<()> {
        w.write_all(f64_text(f64::from(v)).as_bytes())
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(if self.pretty.is_some() { b": " } else { b":" })
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Append `value` as [`to_compact`] (`depth` `None`) or [`write_pretty_at`] (`Some(depth)`)
/// would write its [`to_value`], serialising it directly (no intermediate [`Value`]; the
/// digest and claims of a large vault are tens of megabytes of small objects). A value that
/// cannot be serialised (not expected: string keys, finite or `null` numbers) falls back to
/// that path.
pub fn write_serialize<T: serde::Serialize>(value: &T, depth: Option<usize>, out: &mut String) {
    let mut bytes = Vec::with_capacity(256);
    let formatter = JsFormatter {
        pretty: depth,
        has_value: false,
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, formatter);
    match value
        .serialize(&mut ser)
        .ok()
        .and_then(|()| String::from_utf8(bytes).ok())
    {
        Some(text) => out.push_str(&text),
        None => write(&to_value(value), depth.map(|_| 2), depth.unwrap_or(0), out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_like_javascript() {
        let cases = [
            (0.3, "0.3"),
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-0.0, "0"),
        ];
        for (x, want) in cases {
            assert_eq!(js_number(x), want, "{x}");
        }
        assert_eq!(to_compact(&number(1.0)), "1");
        assert_eq!(to_compact(&number(0.75)), "0.75");
    }

    #[test]
    fn to_fixed_rounds_ties_up() {
        assert_eq!(to_fixed(0.125, 2), "0.13");
        assert_eq!(to_fixed(0.375, 2), "0.38");
        assert_eq!(to_fixed(0.3, 2), "0.30");
        assert_eq!(to_fixed(1.0, 2), "1.00");
        assert_eq!(to_fixed(0.005, 2), "0.01"); // 0.005000000000000000104…
        assert_eq!(to_fixed(1.005, 2), "1.00"); // 1.00499999999999989…
        assert_eq!(to_fixed(9.999, 2), "10.00");
        assert_eq!(to_fixed(-0.125, 2), "-0.13");
        assert_eq!(to_fixed(-0.001, 2), "-0.00");
        assert_eq!(to_fixed(-0.0, 2), "0.00");
    }

    #[test]
    fn pretty_and_compact() {
        let v = json!({"a": [], "b": {}, "c": [1, "x\u{1}\"é"], "d": {"e": null}});
        assert_eq!(
            to_compact(&v),
            r#"{"a":[],"b":{},"c":[1,"x\u0001\"é"],"d":{"e":null}}"#
        );
        assert_eq!(
            to_pretty(&v),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    \"x\\u0001\\\"é\"\n  ],\n  \"d\": {\n    \"e\": null\n  }\n}"
        );
    }
}
