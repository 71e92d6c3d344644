//! Tokenisation shared by indexing and querying.
//!
//! 1. **Folding** ([`fold`]): compatibility decomposition (NFKD, so full-width `Ａ` is `a` and
//!    ligatures split), removal of the combining *diacritical* marks (U+0300–036F and the other
//!    diacritic blocks: `é` → `e`, `ß` stays), canonical recomposition (NFC, so Japanese dakuten
//!    and Indic vowel signs survive), then Unicode lowercase. ASCII text skips the Unicode steps.
//! 2. **Splitting**: characters are letters/numbers (words), *connectors* (`. - _ / @ : # +`),
//!    CJK ideographs/kana/hangul, or separators. A maximal run of word characters and connectors is
//!    a *chunk*; the word runs inside it are its *parts*.
//! 3. **Terms**: each part of at least two characters (after stemming); the whole chunk (trimmed of
//!    connectors, a leading `@` or `#` kept) when it has more than one part or a leading `@`/`#`,
//!    so `claim.alpha.db`, `@handle`, `2026-04-05` and `sources/alpha.md` are searchable whole
//!    *and* by parts. Parts that are plain ASCII words get a light English plural stemmer
//!    ([`stem`]); compounds are kept verbatim.
//! 4. **CJK**: runs of Han, Hiragana, Katakana and Hangul produce overlapping character bigrams
//!    and, at index time, single characters too. A query run of one character looks up the
//!    single-character term; longer runs look up their bigrams.
//!
//! Stop words ([`is_stop_word`]) are indexed like any other word (BM25's idf keeps them cheap) but
//! do not count towards query coverage.

use unicode_normalization::UnicodeNormalization;

/// Case- and diacritic-fold a string (see the module docs).
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let stripped: String = text.nfkd().filter(|c| !is_diacritic(*c)).collect();
    let composed: String = stripped.nfc().collect();
    composed.to_lowercase()
}

/// Combining diacritical marks removed by [`fold`].
fn is_diacritic(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// Whether a character belongs to a script written without spaces that we bigram.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F   // Hiragana
        | 0x30A0..=0x30FF // Katakana
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width katakana
        | 0x1100..=0x11FF // Hangul jamo
        | 0x3130..=0x318F // Hangul compatibility jamo
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0x20000..=0x2FA1F) // CJK extensions B–F, compatibility supplement
        || c == '\u{3005}' // 々
        || c == '\u{30FC}' // ー
}

fn is_connector(c: char) -> bool {
    matches!(c, '.' | '-' | '_' | '/' | '@' | ':' | '#' | '+')
}

fn is_word(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || is_extra_mark(c)
}

/// Combining marks that are not `Alphabetic` but belong inside words (Hebrew points, Arabic
/// harakat, Thai vowel and tone marks).
fn is_extra_mark(c: char) -> bool {
    matches!(c as u32, 0x0591..=0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0E31..=0x0E4E)
}

/// The Snowball (Porter 2) English stemmer, applied to plain ASCII words of three letters or
/// more: `running` → `run`, `containers` → `contain`, `policies` → `polici`. Other words (digits,
/// other scripts) are kept as they are.
pub fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    use std::sync::OnceLock;
    static EN: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    let b = word.as_bytes();
    if b.len() < 3 || !b.iter().all(u8::is_ascii_lowercase) {
        return std::borrow::Cow::Borrowed(word);
    }
    EN.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
        .stem(word)
}

/// The index term standing for the exact (unstemmed) form of a word whose stem differs from it:
/// the word after `=`, a character no other term contains.
pub fn exact_term(word: &str) -> String {
    let mut t = String::with_capacity(word.len() + 1);
    t.push('=');
    t.push_str(word);
    t
}

/// English function words that do not count towards query coverage (the route-question stop list
/// of the reference plus a few articles and pronouns).
pub const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "ask",
    "asking",
    "at",
    "be",
    "been",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "for",
    "from",
    "get",
    "has",
    "have",
    "help",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "know",
    "knows",
    "me",
    "my",
    "need",
    "needs",
    "of",
    "on",
    "or",
    "our",
    "question",
    "questions",
    "should",
    "so",
    "some",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "those",
    "to",
    "us",
    "use",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

/// Whether a folded word is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// What a term stands for in a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermKind {
    /// A word (or a part of a compound).
    Word,
    /// A whole compound identifier (`claim.alpha.db`, `@alpha`).
    Compound,
    /// A CJK bigram or single character.
    Cjk,
    /// The exact form of a word whose stem differs ([`exact_term`]); it adds weight to pages
    /// that use the word as written, and does not count in field lengths.
    Exact,
}

/// Call `emit(term, kind, stop)` for every term of `text` (already folded or not: it is folded
/// here). `index` selects index-time behaviour (CJK single characters are emitted in addition to
/// bigrams).
pub fn for_each_term(text: &str, index: bool, emit: impl FnMut(&str, TermKind, bool)) {
    for_each_folded_term(&fold(text), index, emit);
}

/// [`for_each_term`] of a text given its folded form `folded = fold(text)` (not folded again).
pub fn for_each_folded_term(folded: &str, index: bool, mut emit: impl FnMut(&str, TermKind, bool)) {
    let chars: Vec<char> = folded.chars().collect();
    let mut i = 0;
    let mut part = String::new();
    let mut chunk = String::new();
    while i < chars.len() {
        let c = chars[i];
        if is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            let run = &chars[start..i];
            let mut buf = String::new();
            if run.len() == 1 || index {
                for &ch in run {
                    buf.clear();
                    buf.push(ch);
                    emit(&buf, TermKind::Cjk, false);
                }
            }
            for pair in run.windows(2) {
                buf.clear();
                buf.push(pair[0]);
                buf.push(pair[1]);
                emit(&buf, TermKind::Cjk, false);
            }
            continue;
        }
        if !(is_word(c) || is_connector(c)) {
            i += 1;
            continue;
        }
        // A chunk of word characters and connectors.
        let start = i;
        while i < chars.len() && (is_word(chars[i]) || is_connector(chars[i])) && !is_cjk(chars[i])
        {
            i += 1;
        }
        let run = &chars[start..i];
        // Trim connectors (keep one leading @ or #).
        let mut a = 0;
        while a < run.len() && is_connector(run[a]) {
            a += 1;
        }
        let lead = if a > 0 && matches!(run[a - 1], '@' | '#') && a < run.len() {
            a - 1
        } else {
            a
        };
        let mut b = run.len();
        while b > a && is_connector(run[b - 1]) {
            b -= 1;
        }
        if a >= b {
            continue;
        }
        let mut parts = 0usize;
        let mut j = a;
        while j < b {
            if is_word(run[j]) {
                part.clear();
                while j < b && is_word(run[j]) {
                    part.push(run[j]);
                    j += 1;
                }
                parts += 1;
                if part.chars().count() >= 2 {
                    let stop = is_stop_word(&part);
                    let stemmed = stem(&part);
                    emit(stemmed.as_ref(), TermKind::Word, stop);
                    if stemmed.as_ref() != part.as_str() {
                        emit(&exact_term(&part), TermKind::Exact, stop);
                    }
                }
            } else {
                j += 1;
            }
        }
        if parts > 1 || lead < a {
            chunk.clear();
            chunk.extend(&run[lead..b]);
            emit(&chunk, TermKind::Compound, false);
        }
    }
}

/// All index terms of `text`, in order (duplicates kept).
pub fn index_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, true, |t, _, _| out.push(t.to_string()));
    out
}

/// One distinct query term.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    /// The term text.
    pub term: String,
    /// What it is.
    pub kind: TermKind,
    /// Whether it is a stop word (does not count towards coverage).
    pub stop: bool,
}

/// The distinct terms of a query, in first-occurrence order.
pub fn query_terms(query: &str) -> Vec<QueryTerm> {
    let mut out: Vec<QueryTerm> = Vec::new();
    for_each_term(query, false, |t, kind, stop| {
        if !out.iter().any(|q| q.term == t) {
            out.push(QueryTerm {
                term: t.to_string(),
                kind,
                stop,
            });
        }
    });
    out
}

/// The distinct terms of a text as a sorted set (for coverage tests on stored fields).
pub fn term_set(text: &str) -> std::collections::BTreeSet<String> {
    let mut set = std::collections::BTreeSet::new();
    for_each_term(text, true, |t, _, _| {
        set.insert(t.to_string());
    });
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn folding() {
        assert_eq!(fold("Crème Brûlée"), "creme brulee");
        assert_eq!(fold("ＡＢＣ"), "abc");
        assert_eq!(fold("ガギグ"), "ガギグ");
        assert_eq!(fold("ÉCOLE"), "ecole");
    }

    #[test]
    fn identifiers_whole_and_parts() {
        assert_eq!(
            index_terms("See claim.alpha.db, @alpha and 2026-04-05 in sources/alpha.md."),
            vec![
                "see",
                "claim",
                "alpha",
                "db",
                "claim.alpha.db",
                "alpha",
                "@alpha",
                "and",
                "2026",
                "04",
                "05",
                "2026-04-05",
                "in",
                "sourc",
                "=sources",
                "alpha",
                "md",
                "sources/alpha.md"
            ]
        );
    }

    #[test]
    fn snowball_stemming() {
        assert_eq!(stem("backups"), "backup");
        assert_eq!(stem("policies"), "polici");
        assert_eq!(stem("policy"), "polici");
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("containers"), "contain");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("uses"), "use");
        assert_eq!(stem("v2"), "v2");
        assert_eq!(stem("Résumé"), "Résumé");
    }

    #[test]
    fn exact_forms_beside_stems() {
        let q: Vec<(String, TermKind)> = query_terms("extracting archives")
            .into_iter()
            .map(|t| (t.term, t.kind))
            .collect();
        assert_eq!(
            q,
            vec![
                ("extract".into(), TermKind::Word),
                ("=extracting".into(), TermKind::Exact),
                ("archiv".into(), TermKind::Word),
                ("=archives".into(), TermKind::Exact)
            ]
        );
        // A word that is its own stem has no exact term.
        assert_eq!(index_terms("tar"), vec!["tar"]);
    }

    #[test]
    fn cjk_bigrams() {
        assert_eq!(
            index_terms("大语言"),
            vec!["大", "语", "言", "大语", "语言"]
        );
        let q: Vec<String> = query_terms("大语言模型")
            .into_iter()
            .map(|t| t.term)
            .collect();
        assert_eq!(q, vec!["大语", "语言", "言模", "模型"]);
        let q: Vec<String> = query_terms("猫").into_iter().map(|t| t.term).collect();
        assert_eq!(q, vec!["猫"]);
        let q: Vec<String> = query_terms("PostgreSQL数据库")
            .into_iter()
            .map(|t| t.term)
            .collect();
        assert_eq!(q, vec!["postgresql", "数据", "据库"]);
    }

    #[test]
    fn query_terms_flag_stop_words() {
        let q = query_terms("Who can help with Postgres tuning?");
        let stops: Vec<(&str, bool)> = q.iter().map(|t| (t.term.as_str(), t.stop)).collect();
        assert_eq!(
            stops,
            vec![
                ("who", true),
                ("can", true),
                ("help", true),
                ("with", true),
                ("postgr", false),
                ("=postgres", false),
                ("tune", false),
                ("=tuning", false)
            ]
        );
    }
}
