//! Fetching a URL for `wiki ingest` (reference §3.3: the original declares URL ingest but never
//! implemented it). One blocking GET through `ureq` with a global timeout, redirects followed
//! (at most [`MAX_REDIRECTS`]), a size cap on the body, and only textual content types accepted.

use std::time::Duration;

use ureq::ResponseExt;

/// Redirects followed before giving up.
pub const MAX_REDIRECTS: u32 = 10;

/// What was fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL as given.
    pub url: String,
    /// The URL the content came from, when redirects led elsewhere.
    pub final_url: Option<String>,
    /// The `Content-Type` header.
    pub content_type: String,
    /// The body.
    pub body: Vec<u8>,
}

/// Limits of a fetch.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Whole request (connect, redirects, body).
    pub timeout: Duration,
    /// Largest body accepted, in bytes.
    pub max_bytes: u64,
}

/// Whether `arg` names a URL rather than a path.
pub fn is_url(arg: &str) -> bool {
    let lower = arg.trim_start().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Whether a `Content-Type` is text: `text/*`, or an application type that is text in practice
/// (JSON, XML, YAML, JavaScript, TOML, CSV, Markdown, `+json`/`+xml` suffixes). A missing type is
/// refused: the body could be anything.
pub fn is_text_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let Some((kind, sub)) = essence.split_once('/') else {
        return false;
    };
    kind == "text"
        || (kind == "application"
            && (matches!(
                sub,
                "json"
                    | "xml"
                    | "yaml"
                    | "x-yaml"
                    | "javascript"
                    | "x-javascript"
                    | "ecmascript"
                    | "toml"
                    | "csv"
                    | "markdown"
                    | "x-markdown"
                    | "x-sh"
                    | "sql"
                    | "x-ndjson"
                    | "jsonl"
            ) || sub.ends_with("+json")
                || sub.ends_with("+xml")))
}

/// The charset parameter of a content type, lowercased (`None` when absent).
fn charset(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_ascii_lowercase())
    })
}

/// GET `url` within `limits`. Errors are one sentence naming the URL's problem.
pub fn fetch(url: &str, limits: Limits) -> Result<Fetched, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(limits.timeout))
        .max_redirects(MAX_REDIRECTS)
        .http_status_as_error(false)
        .user_agent(concat!("wiki-ingest/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut resp = agent.get(url).call().map_err(|e| describe(&e, limits))?;
    let status = resp.status();
    if status.is_redirection() {
        return Err(format!(
            "more than {MAX_REDIRECTS} redirects (last: HTTP {})",
            status.as_u16()
        ));
    }
    if !status.is_success() {
        return Err(format!(
            "HTTP {} {}",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        )
        .trim_end()
        .to_string());
    }
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_string();
    if !is_text_type(&content_type) {
        let shown = if content_type.is_empty() {
            "no content type".to_string()
        } else {
            format!("content type `{content_type}`")
        };
        return Err(format!(
            "{shown} is not text; only text pages (text/*, JSON, XML, YAML, …) can be ingested"
        ));
    }
    if let Some(cs) = charset(&content_type)
        && !matches!(cs.as_str(), "utf-8" | "utf8" | "us-ascii" | "ascii")
    {
        return Err(format!(
            "charset `{cs}` is not supported; only UTF-8 pages can be ingested"
        ));
    }
    let final_uri = resp.get_uri().to_string();
    let body = resp
        .body_mut()
        .with_config()
        .limit(limits.max_bytes)
        .read_to_vec()
        .map_err(|e| describe(&e, limits))?;
    Ok(Fetched {
        url: url.to_string(),
        final_url: (final_uri != url).then_some(final_uri),
        content_type,
        body,
    })
}

fn describe(e: &ureq::Error, limits: Limits) -> String {
    match e {
        ureq::Error::Timeout(_) => format!(
            "no complete answer within {} s (--timeout)",
            limits.timeout.as_secs_f64()
        ),
        ureq::Error::BodyExceedsLimit(_) => format!(
            "the body is larger than {} bytes (--max-bytes)",
            limits.max_bytes
        ),
        ureq::Error::TooManyRedirects => format!("more than {MAX_REDIRECTS} redirects"),
        other => other.to_string(),
    }
}

/// The text of an HTML `<title>` element, whitespace collapsed (`None` when there is none).
pub fn html_title(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title: Vec<&str> = text[start..end].split_whitespace().collect();
    let title = title.join(" ");
    (!title.is_empty()).then(|| decode_entities(&title))
}

/// The few HTML entities titles use.
fn decode_entities(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_types() {
        for t in [
            "text/plain",
            "text/html; charset=utf-8",
            "application/json",
            "application/ld+json",
            "application/atom+xml",
            "TEXT/MARKDOWN",
        ] {
            assert!(is_text_type(t), "{t}");
        }
        for t in [
            "",
            "image/png",
            "application/octet-stream",
            "application/pdf",
        ] {
            assert!(!is_text_type(t), "{t}");
        }
        assert_eq!(
            charset("text/html; Charset=\"ISO-8859-1\""),
            Some("iso-8859-1".into())
        );
    }

    #[test]
    fn titles_and_urls() {
        assert_eq!(
            html_title("<html><head><TITLE>\n  Rust &amp; Git </title>"),
            Some("Rust & Git".into())
        );
        assert_eq!(html_title("<p>none</p>"), None);
        assert!(is_url("https://example.com/x") && is_url("HTTP://a") && !is_url("notes.md"));
    }
}
