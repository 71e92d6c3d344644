//! Slugs and page file names (reference §2.4).
//!
//! `slugify` lowercases, replaces every run of characters that are not Unicode letters, numbers
//! or marks (`\p{L}\p{N}\p{M}`) with `-`, trims `-` at both ends and returns `page` when nothing
//! is left. CJK, Cyrillic, Devanagari (with its combining marks) … are kept. Slugs longer than
//! 240 UTF-8 bytes are cut on a character boundary and suffixed with `-<first 12 hex digits of
//! sha1(full slug)>`, so long titles stay distinct and stable.

use std::sync::OnceLock;

/// Maximum slug length in UTF-8 bytes.
pub const MAX_SLUG_BYTES: usize = 240;
/// Maximum file-name component length in bytes (most file systems).
pub const MAX_FILENAME_BYTES: usize = 255;

fn separator_run() -> &'static regex::Regex {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // A literal pattern: compiling it cannot fail.
        regex::Regex::new(r"[^\p{L}\p{N}\p{M}]+").unwrap_or_else(|_| unreachable!())
    })
}

/// Lowercase hex SHA-1 of `text`.
pub fn sha1_hex(text: &str) -> String {
    sha1_smol::Sha1::from(text.as_bytes()).digest().to_string()
}

/// Cut `text` to at most `max_bytes` bytes on a character boundary.
fn cut(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Cap `stem` to `max_bytes`, replacing the tail by `-<sha1-12 of stem>` when it is too long.
fn cap_with_hash(stem: &str, max_bytes: usize) -> String {
    if stem.len() <= max_bytes {
        return stem.to_string();
    }
    let hash = &sha1_hex(stem)[..12];
    let keep = cut(stem, max_bytes - hash.len() - 1).trim_end_matches('-');
    format!("{keep}-{hash}")
}

/// Slugify a title (reference §2.4).
pub fn slugify(raw: &str) -> String {
    let lower = raw.to_lowercase();
    let replaced = separator_run().replace_all(&lower, "-");
    let trimmed = replaced.trim_matches('-');
    if trimmed.is_empty() {
        return "page".into();
    }
    cap_with_hash(trimmed, MAX_SLUG_BYTES)
}

/// A page stem that can never be the reserved `index` (directory indexes): `index` becomes
/// `index-<sha1-12 of "index">`.
pub fn slugify_page_stem(raw: &str) -> String {
    let slug = slugify(raw);
    if slug == "index" {
        format!("index-{}", &sha1_hex("index")[..12])
    } else {
        slug
    }
}

/// A file name `<stem>.md` whose length fits one path component (255 bytes), using the same
/// hash-suffix scheme when the stem is too long.
pub fn page_filename(stem: &str) -> String {
    let max_stem = MAX_FILENAME_BYTES - ".md".len();
    format!("{}.md", cap_with_hash(stem, max_stem))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_vectors() {
        assert_eq!(slugify("大语言模型概述"), "大语言模型概述");
        assert_eq!(slugify("LLM 架构分析"), "llm-架构分析");
        assert_eq!(
            slugify("Circuit Breaker 自動恢復"),
            "circuit-breaker-自動恢復"
        );
        assert_eq!(slugify("hello world"), "hello-world");
        assert_eq!(slugify(""), "page");
        assert_eq!(slugify("  --!!--  "), "page");
        assert_eq!(slugify("My Note_v2 (draft)"), "my-note-v2-draft");
        assert_eq!(slugify("Ünïcödé Straße"), "ünïcödé-straße");
    }

    #[test]
    fn combining_marks_are_kept_distinct() {
        let a = slugify("किताब");
        let b = slugify("कुतुब");
        let c = slugify("कीताब");
        assert_eq!(a, "किताब");
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(b, c);
    }

    #[test]
    fn long_slugs_are_capped_with_hash() {
        let title = "漢".repeat(90); // 270 bytes
        let slug = slugify(&title);
        assert!(slug.len() <= MAX_SLUG_BYTES, "{}", slug.len());
        let suffix = format!("-{}", &sha1_hex(&title)[..12]);
        assert!(slug.ends_with(&suffix));
        assert_eq!(slug, slugify(&title));
        // 300-byte ASCII title.
        let ascii = "a".repeat(300);
        let s = slugify(&ascii);
        assert_eq!(s.len(), 240);
        assert!(s.starts_with(&"a".repeat(227)));
    }

    #[test]
    fn index_is_reserved() {
        assert_eq!(slugify("Index"), "index");
        let stem = slugify_page_stem("Index");
        assert!(stem.starts_with("index-") && stem.len() == "index-".len() + 12);
        assert_eq!(slugify_page_stem("Log"), "log");
    }

    #[test]
    fn filenames_fit_255_bytes() {
        let stem = "é".repeat(200);
        let name = page_filename(&stem);
        assert!(name.len() <= 255);
        assert!(name.ends_with(".md"));
        assert_eq!(page_filename("short"), "short.md");
    }
}
