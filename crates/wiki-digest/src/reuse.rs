//! Reusing the last compile's `agent-digest.json` and `claims.jsonl` for unchanged pages.
//!
//! Both files are a function of the parsed pages and of the freshness levels at `now`; a page
//! contributes one object to the digest's `pages` array (by path) and its claims' lines to
//! `claims.jsonl` (all lines sorted). When
//!
//! * the two files on disk are exactly those the last compile produced (checksums recorded in
//!   the parse cache's label, see [`Recorded`]),
//! * `now` is inside the clock window of that compile (no freshness level changed), and
//! * a page's parsed form is the one the cache recorded (same path and blob id),
//!
//! that page's digest object is copied from the old file, and its claim lines stay where they
//! are. Only the other pages (edited, new, removed, and the dashboards, which are always
//! re-rendered) are serialised: their old lines (rendered from the cached old version) are
//! removed and their new lines merged in sorted order. The digest header (counts, claim
//! health, contradiction clusters, errors) is always recomputed. The bytes are exactly those of
//! a full compile (tested against it).

use std::cmp::Ordering;
use std::collections::HashMap;

use wiki_parse::health::locale_cmp;

/// What the last compile recorded about the files it wrote (kept in the parse cache's label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// Checksum of `agent-digest.json`.
    pub digest: u64,
    /// Checksum of `claims.jsonl`.
    pub claims: u64,
    /// Clock window `[from, until)` (ms) in which no freshness level changes.
    pub window: (i64, i64),
    /// Checksum of every report page, index file and of the import sync state (see
    /// [`reports_checksum`]).
    pub reports: u64,
}

/// Checksum of the report pages and index files (`(path, bytes)` in path order), of
/// `.openclaw-wiki/source-sync.json` and of `tag` (how they were rendered: link style, dashboards
/// on or off): equal checksums mean the dashboards and indexes on disk are those the recorded
/// compile left, rendered the same way.
pub fn reports_checksum<'a>(
    reports: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    source_sync: Option<&[u8]>,
    tag: &str,
) -> u64 {
    use rayon::prelude::*;
    // The checksum of `tag NUL (path NUL len:u64le checksum(bytes):u64le)* 0x01 source_sync`:
    // each file hashed on its own, in parallel (the report files are megabytes on large vaults,
    // and this runs twice per operation), and no concatenated copy.
    let reports: Vec<(&str, &[u8])> = reports.into_iter().collect();
    let sums: Vec<u64> = reports
        .par_iter()
        .map(|(_, b)| wiki_parse::pagecache::checksum(b))
        .collect();
    let source_sync = source_sync.unwrap_or_default();
    let total = tag.len()
        + 1
        + reports.iter().map(|(p, _)| p.len() + 1 + 16).sum::<usize>()
        + 1
        + source_sync.len();
    let mut sum = wiki_parse::pagecache::Checksum::new(total);
    sum.update(tag.as_bytes());
    sum.update(&[0]);
    for ((path, bytes), file_sum) in reports.iter().zip(sums) {
        sum.update(path.as_bytes());
        sum.update(&[0]);
        sum.update(&(bytes.len() as u64).to_le_bytes());
        sum.update(&file_sum.to_le_bytes());
    }
    sum.update(&[1]);
    sum.update(source_sync);
    sum.finish()
}

impl Recorded {
    /// As label fields (`digest=…;claims=…;window=…,…`).
    pub fn to_label(self) -> String {
        format!(
            "digest={:016x};claims={:016x};window={},{};reports={:016x}",
            self.digest, self.claims, self.window.0, self.window.1, self.reports
        )
    }

    /// Read the fields back from a label (`None` when absent or malformed).
    pub fn from_label(label: &str) -> Option<Recorded> {
        let field = |name: &str| {
            label
                .split(';')
                .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        };
        let (from, until) = field("window")?.split_once(',')?;
        Some(Recorded {
            digest: u64::from_str_radix(field("digest")?, 16).ok()?,
            claims: u64::from_str_radix(field("claims")?, 16).ok()?,
            window: (from.parse().ok()?, until.parse().ok()?),
            reports: u64::from_str_radix(field("reports")?, 16).ok()?,
        })
    }

    /// Whether `digest` and `claims` are the recorded files and `now_ms` is inside the window.
    pub fn matches(&self, digest: &[u8], claims: &[u8], now_ms: i64) -> bool {
        use wiki_parse::pagecache::checksum;
        // Both files hashed side by side (30 MB at 10,000 pages, on an operation's path).
        self.window.0 <= now_ms && now_ms < self.window.1 && {
            let (d, c) = rayon::join(|| checksum(digest), || checksum(claims));
            d == self.digest && c == self.claims
        }
    }
}

/// The page objects of a digest written by compile, by page path: the text from the object's
/// `{` to its closing `}` (indented as in the file). `None` when the text does not have the
/// shape compile writes.
pub fn page_chunks(digest: &str) -> Option<HashMap<String, &str>> {
    const OPEN: &str = ",\n  \"pages\": [\n";
    let start = digest.find(OPEN)? + OPEN.len();
    let mut out = HashMap::new();
    let mut pos = start;
    let mut chunk_start: Option<usize> = None;
    let mut path: Option<String> = None;
    for line in digest[start..].split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        match body {
            "    {" => {
                chunk_start = Some(pos + 4);
                path = None;
            }
            "    }" | "    }," => {
                let from = chunk_start.take()?;
                out.insert(path.take()?, &digest[from..pos + 5]);
            }
            "  ]" => return Some(out),
            _ => {
                if let Some(v) = body.strip_prefix("      \"path\": ") {
                    let v = v.strip_suffix(',').unwrap_or(v);
                    path = Some(serde_json::from_str::<String>(v).ok()?);
                }
            }
        }
        pos += line.len();
    }
    None
}

/// The digest `old` with its header replaced by `head` ([`crate::digest::digest_head`]) and the
/// objects of the pages in `replace` (`(path, new object text)`) swapped in place, when `old`
/// has the shape compile writes, holds exactly `page_count` page objects and one object for
/// every path of `replace`; `None` otherwise.
///
/// With the same number of pages, and every page either in `replace` (found in `old`) or known
/// to be in `old` (a parse-cache hit of the compile that wrote it), the two page sets are equal
/// and, both being sorted by path, every object keeps its position: the result is exactly
/// [`crate::digest::agent_digest_reusing`]'s, without indexing every object of the old file.
pub fn replace_chunks(
    old: &str,
    head: &str,
    page_count: usize,
    replace: &[(&str, String)],
) -> Option<String> {
    use memchr::memmem;
    let open = format!("{}[\n", crate::digest::PAGES_OPEN);
    let start = old.find(&open)? + crate::digest::PAGES_OPEN.len();
    let pages = &old[start..];
    const KEY: &str = "\n      \"path\": ";
    // One pass over the objects: count them, and find those to replace by the rest of their
    // path line (`"<path>",`).
    let mut wanted: HashMap<String, &str> = HashMap::with_capacity(replace.len());
    for (path, object) in replace {
        wanted.insert(format!("{},", serde_json::to_string(path).ok()?), object);
    }
    let mut count = 0;
    let mut spans: Vec<(usize, usize, &str)> = Vec::with_capacity(replace.len());
    for at in memmem::find_iter(pages.as_bytes(), KEY) {
        count += 1;
        let rest = &pages[at + KEY.len()..];
        let line = &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())];
        if let Some(object) = wanted.remove(line) {
            let from = pages[..at].rfind("\n    {")? + "\n    ".len();
            let until = at + pages[at..].find("\n    }")? + "\n    }".len();
            spans.push((from, until, object));
        }
    }
    if count != page_count || !wanted.is_empty() {
        return None;
    }
    spans.sort_unstable_by_key(|s| s.0);
    if spans.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    let mut out = String::with_capacity(
        head.len() + pages.len() + replace.iter().map(|r| r.1.len()).sum::<usize>() + 16,
    );
    out.push_str(head);
    out.push_str(&old[start - crate::digest::PAGES_OPEN.len()..start]);
    let mut pos = 0;
    for (from, until, object) in spans {
        out.push_str(&pages[pos..from]);
        out.push_str(object);
        pos = until;
    }
    out.push_str(&pages[pos..]);
    Some(out)
}

/// Whether `a` and `b` hold the same lines, each as many times, in any order: splicing `b` in
/// for `a` ([`splice_lines`]) gives back the file (its order is total: equal lines are
/// identical).
pub fn same_lines(a: &[String], b: &[String]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    fn sorted(v: &[String]) -> Vec<&str> {
        let mut v: Vec<&str> = v.iter().map(String::as_str).collect();
        v.sort_unstable();
        v
    }
    sorted(a) == sorted(b)
}

/// `claims.jsonl` with the lines of `remove` taken out and those of `add` merged in, sorted as
/// compile sorts them ([`locale_cmp`]). `None` when a line to remove is not in `old`.
pub fn splice_lines(old: &str, remove: &[String], mut add: Vec<String>) -> Option<String> {
    let body = old.strip_suffix('\n')?;
    let lines: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    let mut gone = vec![false; lines.len()];
    for r in remove {
        let at = lines.partition_point(|l| locale_cmp(l, r) == Ordering::Less);
        let i = (at..lines.len())
            .take_while(|&i| lines[i] == r.as_str())
            .find(|&i| !gone[i])?;
        gone[i] = true;
    }
    wiki_parse::health::sort_by_locale(&mut add, |l| l);
    let mut out = String::with_capacity(old.len() + add.iter().map(|l| l.len() + 1).sum::<usize>());
    let mut first = true;
    let mut push = |line: &str| {
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(line);
    };
    let mut new = add.iter().peekable();
    for (line, _) in lines.iter().zip(&gone).filter(|(_, g)| !**g) {
        while let Some(n) = new.next_if(|n| locale_cmp(n, line) == Ordering::Less) {
            push(n);
        }
        push(line);
    }
    for n in new {
        push(n);
    }
    out.push('\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_lines_counts_lines() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_lines(&v(&[]), &v(&[])));
        assert!(same_lines(&v(&["b", "a", "a"]), &v(&["a", "b", "a"])));
        assert!(!same_lines(&v(&["a", "a", "b"]), &v(&["a", "b", "b"])));
        assert!(!same_lines(&v(&["a"]), &v(&["a", "a"])));
        assert!(!same_lines(&v(&["a"]), &v(&["A"])));
        // Splicing the same lines back gives the file back.
        let old = "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        let lines = v(&["{\"b\":2}"]);
        assert_eq!(
            splice_lines(old, &lines, lines.clone()).as_deref(),
            Some(old)
        );
    }

    #[test]
    fn splice_keeps_sorted_order() {
        let old = "a\nc\nc\ne\n";
        let got = splice_lines(old, &["c".into()], vec!["d".into(), "b".into()]).unwrap();
        assert_eq!(got, "a\nb\nc\nd\ne\n");
        assert_eq!(splice_lines("\n", &[], vec![]).unwrap(), "\n");
        assert_eq!(
            splice_lines("a\n", &["a".into()], vec![]).unwrap(),
            "\n",
            "no claims left: a single newline, as compile writes it"
        );
        assert!(splice_lines(old, &["z".into()], vec![]).is_none());
    }

    #[test]
    fn reports_checksum_is_the_checksum_of_the_concatenation() {
        use wiki_parse::pagecache::checksum;
        let files: Vec<(&str, &[u8])> = vec![
            ("reports/a.md", b"# A\n".as_slice()),
            ("reports/b.md", &[7u8; 100]),
            ("index.md", b""),
        ];
        for sync in [None, Some(b"{}".as_slice())] {
            let mut all = b"tag".to_vec();
            all.push(0);
            for (p, b) in &files {
                all.extend_from_slice(p.as_bytes());
                all.push(0);
                all.extend_from_slice(&(b.len() as u64).to_le_bytes());
                all.extend_from_slice(&checksum(b).to_le_bytes());
            }
            all.push(1);
            all.extend_from_slice(sync.unwrap_or_default());
            assert_eq!(
                reports_checksum(files.iter().copied(), sync, "tag"),
                checksum(&all)
            );
        }
        // Any byte of any file counts (same length).
        let other = [[7u8; 99].as_slice(), &[8]].concat();
        let mut edited = files.clone();
        edited[1].1 = &other;
        assert_ne!(
            reports_checksum(edited.iter().copied(), None, "tag"),
            reports_checksum(files.iter().copied(), None, "tag")
        );
    }

    #[test]
    fn labels_round_trip() {
        let r = Recorded {
            digest: 7,
            claims: u64::MAX,
            window: (i64::MIN, 5),
            reports: 9,
        };
        let label = format!("related=native;{}", r.to_label());
        assert_eq!(Recorded::from_label(&label), Some(r));
        assert_eq!(Recorded::from_label("related=native"), None);
    }
}
