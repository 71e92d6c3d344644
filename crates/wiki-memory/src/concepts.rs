//! Concept tags of a snippet (the short-term store's `conceptTags`, and the trigger phrases of
//! promoted entries): glossary terms, compound tokens (`s3-backup`, `api.v2`) and words, in that
//! order, lowercased, without stop words, numbers or dates; at most [`MAX_CONCEPT_TAGS`].
//!
//! Words are split on everything that is not a letter or a digit; a run of CJK characters is one
//! word (the original segments CJK with a dictionary, which we do not ship: tags of CJK text may
//! differ from its).

/// Tags kept per snippet.
pub const MAX_CONCEPT_TAGS: usize = 8;

const STOP_WORDS: &[&str] = &[
    // shared
    "about",
    "after",
    "agent",
    "again",
    "also",
    "assistant",
    "because",
    "before",
    "being",
    "between",
    "build",
    "called",
    "could",
    "daily",
    "default",
    "deploy",
    "during",
    "every",
    "file",
    "files",
    "from",
    "have",
    "into",
    "just",
    "line",
    "lines",
    "long",
    "main",
    "make",
    "memory",
    "month",
    "more",
    "most",
    "move",
    "much",
    "next",
    "note",
    "notes",
    "over",
    "part",
    "past",
    "port",
    "same",
    "score",
    "search",
    "session",
    "sessions",
    "short",
    "should",
    "since",
    "some",
    "subagent",
    "system",
    "than",
    "that",
    "their",
    "there",
    "these",
    "they",
    "this",
    "through",
    "today",
    "user",
    "using",
    "with",
    "work",
    "workspace",
    "year",
    // english
    "and",
    "are",
    "for",
    "its",
    "our",
    "the",
    "then",
    "were",
    "you",
    "your",
    // spanish
    "al",
    "con",
    "como",
    "de",
    "del",
    "el",
    "en",
    "es",
    "la",
    "las",
    "los",
    "para",
    "por",
    "que",
    "se",
    "sin",
    "su",
    "sus",
    "una",
    "uno",
    "unos",
    "unas",
    "y",
    // french
    "au",
    "aux",
    "avec",
    "dans",
    "des",
    "du",
    "est",
    "et",
    "le",
    "les",
    "ou",
    "pour",
    "qui",
    "sans",
    "ses",
    "son",
    "sur",
    "une",
    "un",
    // german
    "auf",
    "aus",
    "bei",
    "das",
    "dem",
    "den",
    "der",
    "die",
    "ein",
    "eine",
    "einem",
    "einen",
    "einer",
    "für",
    "im",
    "in",
    "mit",
    "nach",
    "oder",
    "ohne",
    "über",
    "und",
    "von",
    "zu",
    "zum",
    "zur",
    // path noise
    "cjs",
    "cpp",
    "cts",
    "jsx",
    "json",
    "md",
    "mjs",
    "mts",
    "text",
    "toml",
    "ts",
    "tsx",
    "txt",
    "yaml",
    "yml",
];

const GLOSSARY: &[&str] = &[
    "backup",
    "backups",
    "embedding",
    "embeddings",
    "failover",
    "gateway",
    "glacier",
    "gpt",
    "kv",
    "network",
    "openai",
    "qmd",
    "router",
    "s3",
    "vlan",
    "sauvegarde",
    "routeur",
    "passerelle",
    "konfiguration",
    "sicherung",
    "überwachung",
    "configuración",
    "respaldo",
    "enrutador",
    "puerta-de-enlace",
    "バックアップ",
    "フェイルオーバー",
    "ルーター",
    "ネットワーク",
    "ゲートウェイ",
    "障害対応",
    "路由器",
    "备份",
    "故障转移",
    "网络",
    "网关",
    "라우터",
    "백업",
    "페일오버",
    "네트워크",
    "게이트웨이",
    "장애대응",
];

fn is_cjk(c: char) -> bool {
    wiki_search::tokenize::is_cjk(c)
}

/// Normalize one candidate token (`None`: not a tag).
pub fn normalize_token(raw: &str, from_glossary: bool) -> Option<String> {
    let trimmed = raw.trim_matches(|c: char| !c.is_alphanumeric());
    let t: String = trimmed.replace('_', "-").to_lowercase();
    if t.is_empty() || t.chars().count() > 32 || !t.chars().any(char::is_alphanumeric) {
        return None;
    }
    // Numbers (`18789`, `0.7`, `1.2.3`) and dates are not concepts.
    if !t.chars().any(char::is_alphabetic) || looks_like_date(&t) {
        return None;
    }
    let cjk = t.chars().any(is_cjk);
    let min = if cjk { 2 } else { 3 };
    if !from_glossary && t.chars().count() < min {
        return None;
    }
    if STOP_WORDS.contains(&t.as_str()) {
        return None;
    }
    Some(t)
}

fn looks_like_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
        && (b.len() == 10 || b[10] == b'.')
}

fn contains_standalone(source: &str, term: &str) -> bool {
    let mut from = 0;
    while let Some(i) = source[from..].find(term) {
        let start = from + i;
        let end = start + term.len();
        let before = source[..start].chars().next_back();
        let after = source[end..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return true;
        }
        from = start + term.len().max(1);
    }
    false
}

/// Compound tokens: letters/digits joined by `.`, `_`, `/` or `-`.
fn compounds(source: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes: Vec<(usize, char)> = source.char_indices().collect();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].1.is_alphanumeric() {
            i += 1;
            continue;
        }
        let start = bytes[i].0;
        let mut j = i;
        let mut joined = false;
        loop {
            while j < bytes.len() && bytes[j].1.is_alphanumeric() {
                j += 1;
            }
            if j + 1 < bytes.len()
                && matches!(bytes[j].1, '.' | '_' | '/' | '-')
                && bytes[j + 1].1.is_alphanumeric()
            {
                joined = true;
                j += 1;
                continue;
            }
            break;
        }
        let end = bytes.get(j).map_or(source.len(), |b| b.0);
        if joined {
            out.push(&source[start..end]);
        }
        i = j.max(i + 1);
    }
    out
}

/// Words: runs of letters and digits (a CJK run is one word).
fn words(source: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start: Option<(usize, bool)> = None;
    for (i, c) in source.char_indices() {
        let word = c.is_alphanumeric();
        let cjk = is_cjk(c);
        match start {
            Some((s, was_cjk)) if !word || was_cjk != cjk => {
                out.push(&source[s..i]);
                start = word.then_some((i, cjk));
            }
            None if word => start = Some((i, cjk)),
            _ => {}
        }
    }
    if let Some((s, _)) = start {
        out.push(&source[s..]);
    }
    out
}

fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        out.push(' ');
        match rest[i..].find("-->") {
            Some(j) => rest = &rest[i + j + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The concept tags of a snippet from `path` (its file name counts too).
pub fn derive(path: &str, snippet: &str) -> Vec<String> {
    let base = path.rsplit('/').next().unwrap_or(path);
    let source = format!("{base} {}", strip_comments(snippet));
    let lower = source.to_lowercase();
    let mut tags: Vec<String> = Vec::new();
    let push = |raw: &str, glossary: bool, tags: &mut Vec<String>| {
        if let Some(t) = normalize_token(raw, glossary)
            && !tags.contains(&t)
        {
            tags.push(t);
        }
        tags.len() >= MAX_CONCEPT_TAGS
    };
    for g in GLOSSARY {
        let whole = g.chars().count() < if g.chars().any(is_cjk) { 2 } else { 3 };
        let found = if whole {
            contains_standalone(&lower, g)
        } else {
            lower.contains(g)
        };
        if found && push(g, true, &mut tags) {
            return tags;
        }
    }
    for c in compounds(&source) {
        if push(c, false, &mut tags) {
            return tags;
        }
    }
    for w in words(&source) {
        if push(w, false, &mut tags) {
            return tags;
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags() {
        assert_eq!(
            derive(
                "memory/2026-04-03.md",
                "Gateway binds loopback and port 18789; moved the S3 backup to api.v2"
            ),
            vec![
                "backup", "gateway", "s3", "api.v2", "binds", "loopback", "moved", "api"
            ]
        );
        assert_eq!(derive("memory/x.md", "the and for"), vec!["x.md"]);
        assert_eq!(
            derive("MEMORY.md", "<!-- trigger: x --> 备份完成"),
            vec!["备份", "memory.md", "备份完成"]
        );
    }
}
