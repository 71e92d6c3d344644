//! Commit message construction and trailer parsing.

use crate::{Error, Result};

/// Subject used when a caller passes an empty one.
pub(crate) const FALLBACK_SUBJECT: &str = "wiki write";

/// `true` if `key` is a valid trailer token (`[A-Za-z0-9][A-Za-z0-9-]*`).
pub(crate) fn is_trailer_key(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
}

fn one_line(s: &str) -> String {
    s.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Build `subject`, blank line, optional body, blank line, `Key: value` trailers (one per line).
///
/// The subject and trailer values are folded onto one line; an empty subject becomes
/// `"wiki write"`. Trailer keys must be git trailer tokens.
pub(crate) fn build_message(
    subject: &str,
    body: Option<&str>,
    trailers: &[(String, String)],
) -> Result<String> {
    let mut subject = one_line(subject);
    if subject.is_empty() {
        subject = FALLBACK_SUBJECT.to_string();
    }
    let mut msg = subject;
    msg.push('\n');
    if let Some(body) = body {
        let body = body.trim_matches(|c: char| c == '\n' || c == '\r' || c == ' ');
        let body: Vec<&str> = body.lines().map(str::trim_end).collect();
        let body = body.join("\n");
        if !body.trim().is_empty() {
            msg.push('\n');
            msg.push_str(&body);
            msg.push('\n');
        }
    }
    if !trailers.is_empty() {
        msg.push('\n');
        for (key, value) in trailers {
            let key = key.trim();
            if !is_trailer_key(key) {
                return Err(Error::InvalidTrailer {
                    key: key.to_string(),
                });
            }
            msg.push_str(key);
            msg.push_str(": ");
            msg.push_str(&one_line(value));
            msg.push('\n');
        }
    }
    Ok(msg)
}

/// Parse the trailers of a commit message: the last paragraph (not the subject) when every line in
/// it is `Key: value` (or a whitespace-indented continuation of the previous value).
pub fn parse_trailers(message: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = message.lines().collect();
    // Drop trailing blank lines.
    let mut end = lines.len();
    while end > 0 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && !lines[start - 1].trim().is_empty() {
        start -= 1;
    }
    // The paragraph must not be the first one (that's the subject).
    if start == 0 || start == end {
        return Vec::new();
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for line in &lines[start..end] {
        if line.starts_with([' ', '\t']) {
            match out.last_mut() {
                Some((_, value)) => {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                None => return Vec::new(),
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Vec::new();
        };
        if !is_trailer_key(key) {
            return Vec::new();
        }
        out.push((key.to_string(), value.trim().to_string()));
    }
    out
}

/// The first line of a message.
pub(crate) fn subject_of(message: &str) -> String {
    message
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn build_and_parse() {
        let trailers = vec![t("Wiki-Op", "compile"), t("Wiki-Page", "entities/a.md")];
        let m = build_message("Compile a", Some("Some body\n\nmore"), &trailers).expect("ok");
        assert_eq!(
            m,
            "Compile a\n\nSome body\n\nmore\n\nWiki-Op: compile\nWiki-Page: entities/a.md\n"
        );
        assert_eq!(parse_trailers(&m), trailers);
        let m = build_message("Only\nsubject", None, &[]).expect("ok");
        assert_eq!(m, "Only subject\n");
        assert!(parse_trailers(&m).is_empty());
        let m = build_message("", Some("  "), &[t("A", "x\ny")]).expect("ok");
        assert_eq!(m, "wiki write\n\nA: x y\n");
        assert!(build_message("s", None, &[t("bad key", "v")]).is_err());
        assert!(build_message("s", None, &[t("", "v")]).is_err());
    }

    #[test]
    fn parse_edge_cases() {
        assert!(
            parse_trailers("Key: value\n").is_empty(),
            "subject is not a trailer"
        );
        assert!(parse_trailers("s\n\nnot a trailer line\nKey: v\n").is_empty());
        assert_eq!(
            parse_trailers("s\n\nKey: v\n  cont\nOther:x\n\n"),
            vec![t("Key", "v cont"), t("Other", "x")]
        );
    }
}
