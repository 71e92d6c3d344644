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
//! health, contradiction clusters, errors) is recomputed, from the old header and the changed
//! pages where it can be ([`head_from_old`]). The bytes are exactly those of a full compile
//! (tested against it).

use std::cmp::Ordering;
use std::collections::HashMap;

use wiki_parse::health::{contradiction_clusters, locale_cmp};
use wiki_parse::{PageError, PageInfo, PageKind};

use crate::pages::PageCounts;
use crate::reports::Clusters;

/// What the last compile recorded about the files it wrote (kept in the parse cache's label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// [`wiki_vault::checksum::block_checksum`] of `agent-digest.json`.
    pub digest: u64,
    /// [`wiki_vault::checksum::block_checksum`] of `claims.jsonl`.
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
/// compile left, rendered the same way. [`reports_checksum_of_ids`] of the files' git blob ids.
pub fn reports_checksum<'a>(
    reports: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    source_sync: Option<&[u8]>,
    tag: &str,
) -> u64 {
    let ids: Vec<(&str, String)> = reports
        .into_iter()
        .map(|(p, b)| (p, wiki_parse::page::git_blob_id(b)))
        .collect();
    reports_checksum_of_ids(
        ids.iter().map(|(p, id)| (*p, id.as_str())),
        source_sync,
        tag,
    )
}

/// [`reports_checksum`] from each file's git blob id (hex), `(path, id)` in path order: the
/// checksum of `tag NUL (path NUL id NUL)* 0x01 source_sync`. Blob ids, not the bytes: the
/// snapshot knows the ids of the report pages from the listing (git's index, the parse cache),
/// so the dashboards on disk (tens of megabytes on a large vault) are not read to be checked.
pub fn reports_checksum_of_ids<'a>(
    reports: impl IntoIterator<Item = (&'a str, &'a str)>,
    source_sync: Option<&[u8]>,
    tag: &str,
) -> u64 {
    let reports: Vec<(&str, &str)> = reports.into_iter().collect();
    let source_sync = source_sync.unwrap_or_default();
    let total = tag.len()
        + 1
        + reports
            .iter()
            .map(|(p, id)| p.len() + id.len() + 2)
            .sum::<usize>()
        + 1
        + source_sync.len();
    let mut sum = wiki_vault::checksum::Checksum::new(total);
    sum.update(tag.as_bytes());
    sum.update(&[0]);
    for (path, id) in &reports {
        sum.update(path.as_bytes());
        sum.update(&[0]);
        sum.update(id.as_bytes());
        sum.update(&[0]);
    }
    sum.update(&[1]);
    sum.update(source_sync);
    sum.finish()
}

impl Recorded {
    /// As label fields (`digest-blocks=…;claims-blocks=…;window=…,…`; named for the block
    /// checksum: labels of the whole-file checksum that came before do not read back).
    pub fn to_label(self) -> String {
        format!(
            "digest-blocks={:016x};claims-blocks={:016x};window={},{};reports={:016x}",
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
            digest: u64::from_str_radix(field("digest-blocks")?, 16).ok()?,
            claims: u64::from_str_radix(field("claims-blocks")?, 16).ok()?,
            window: (from.parse().ok()?, until.parse().ok()?),
            reports: u64::from_str_radix(field("reports")?, 16).ok()?,
        })
    }

    /// Whether `digest` and `claims` are the recorded files and `now_ms` is inside the window.
    pub fn matches(&self, digest: &[u8], claims: &[u8], now_ms: i64) -> bool {
        use wiki_vault::checksum::block_checksum;
        // Both files hashed side by side, block by block (30 MB at 10,000 pages, on an
        // operation's path).
        self.window.0 <= now_ms && now_ms < self.window.1 && {
            let (d, c) = rayon::join(|| block_checksum(digest), || block_checksum(claims));
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

/// The digest header of `pages` (title order) taken from the header of `old`, the digest the
/// recorded compile wrote (`now_ms` inside its window), instead of passing over every claim
/// twice: `removed` are the old versions of the pages that are no longer as that compile saw
/// them (edited or gone, reports excepted), `added` the current versions of the pages that
/// are not (edited or new, reports included). `None` (compute the header in full) when the old
/// header does not have the shape compile writes, when pages failed to parse, or when the
/// counts do not add up (the changes are not what `old` was made from).
///
/// * `claimHealth` is a sum over claims whose freshness levels did not change (same window):
///   the old counts, less those of `removed`, plus those of `added`.
/// * `contradictionClusters` depend on the title order of the pages and on each page's path,
///   contradiction notes and claim ids, texts and statuses: when every edited page kept all of
///   those (and its title), no page came or went, and no report page takes part in a cluster
///   (old or new), the old array is the current one. Otherwise (or when the dashboards computed
///   them already, `clusters`) they are computed.
#[allow(clippy::too_many_arguments)]
pub fn head_from_old(
    old: &[u8],
    pages: &[&PageInfo],
    counts: &PageCounts,
    errors: &[PageError],
    now_ms: i64,
    clusters: &Clusters,
    removed: &[&PageInfo],
    added: &[&PageInfo],
) -> Option<String> {
    use crate::digest::{
        ClaimHealth, claim_count, claim_health_counts, cluster_values, head_of_parts,
    };
    if !errors.is_empty() {
        return None;
    }
    let end = pages_open(old)?;
    let mut text = old[..end].to_vec();
    text.extend_from_slice(b"\n}");
    let serde_json::Value::Object(mut head) = serde_json::from_slice(&text).ok()? else {
        return None;
    };
    let keys = [
        "pageCounts",
        "claimCount",
        "claimHealth",
        "contradictionClusters",
    ];
    if !head.keys().map(String::as_str).eq(keys) {
        return None;
    }
    let is_report = |p: &PageInfo| p.kind == PageKind::Report;
    // The counts must add up: pages (reports aside, they are re-rendered every time) and claims
    // (the recorded compile's reports carried none).
    let old_counts = &head["pageCounts"];
    let old_pages: u64 = ["entity", "concept", "source", "synthesis"]
        .iter()
        .map(|k| old_counts.get(*k).and_then(serde_json::Value::as_u64))
        .sum::<Option<u64>>()?;
    let new_pages = (counts.entity + counts.concept + counts.source + counts.synthesis) as u64;
    let added_pages = added.iter().filter(|p| !is_report(p)).count() as u64;
    if old_pages.checked_sub(removed.len() as u64)? + added_pages != new_pages {
        return None;
    }
    let old_claims = usize::try_from(head["claimCount"].as_u64()?).ok()?;
    if old_claims.checked_sub(claim_count(removed))? + claim_count(added) != claim_count(pages) {
        return None;
    }
    let health = ClaimHealth::from_json(&head["claimHealth"])?.adjusted(
        claim_health_counts(removed, now_ms),
        claim_health_counts(added, now_ms),
    )?;
    let clusters = match clusters.get() {
        Some(computed) => cluster_values(computed),
        None => {
            let old_clusters = head.remove("contradictionClusters")?;
            if clusters_kept(&old_clusters, removed, added) {
                old_clusters
            } else {
                cluster_values(clusters.get_or_init(|| contradiction_clusters(pages)))
            }
        }
    };
    Some(head_of_parts(pages, counts, health, clusters, errors))
}

/// Whether the contradiction clusters are those of the old pages (see [`head_from_old`]): the
/// edited pages (`removed`: old versions, `added`: new ones) are the same pages with the same
/// title, notes and claim ids, texts and statuses, and no report page is in a cluster.
fn clusters_kept(old: &serde_json::Value, removed: &[&PageInfo], added: &[&PageInfo]) -> bool {
    let is_report = |path: &str| PageKind::from_path(path) == Some(PageKind::Report);
    let Some(old) = old.as_array() else {
        return false;
    };
    let reports_in_old = old.iter().any(|c| {
        c.get("paths")
            .and_then(serde_json::Value::as_array)
            .is_none_or(|ps| ps.iter().any(|p| p.as_str().is_none_or(is_report)))
    });
    if reports_in_old {
        return false;
    }
    let (reports, mut edited): (Vec<&PageInfo>, Vec<&PageInfo>) =
        added.iter().copied().partition(|p| is_report(&p.path));
    if reports
        .iter()
        .any(|p| !p.summary.contradictions.is_empty() || !p.summary.claims.is_empty())
    {
        return false;
    }
    let mut before: Vec<&PageInfo> = removed.to_vec();
    if before.len() != edited.len() {
        return false;
    }
    before.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    edited.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    before.iter().zip(&edited).all(|(a, b)| {
        a.path == b.path
            && a.title == b.title
            && a.summary.contradictions == b.summary.contradictions
            && a.summary.claims.len() == b.summary.claims.len()
            && a.summary
                .claims
                .iter()
                .zip(&b.summary.claims)
                .all(|(x, y)| x.id == y.id && x.text == y.text && x.status == y.status)
    })
}

/// Where the `pages` array opens in a digest compile wrote (the offset of
/// [`crate::digest::PAGES_OPEN`] followed by `[`): the header ends there.
fn pages_open(digest: &[u8]) -> Option<usize> {
    let open = format!("{}[\n", crate::digest::PAGES_OPEN);
    memchr::memmem::find(digest, open.as_bytes())
}

/// The digest `old` with its header replaced by `head` ([`crate::digest::digest_head`]) and the
/// objects of the pages in `replace` (`(path, new object text)`) swapped in place, when `old`
/// has the shape compile writes, holds exactly `page_count` page objects and one object for
/// every path of `replace`; `None` otherwise. Written into `buffer` ([`concat_summed`]), with
/// its [`wiki_vault::checksum::block_checksum`].
///
/// With the same number of pages, and every page either in `replace` (found in `old`) or known
/// to be in `old` (a parse-cache hit of the compile that wrote it), the two page sets are equal
/// and, both being sorted by path, every object keeps its position: the result is exactly
/// [`crate::digest::agent_digest_reusing`]'s, without indexing every object of the old file.
pub fn replace_chunks(
    old: &[u8],
    head: &str,
    page_count: usize,
    replace: &[(&str, String)],
    buffer: Vec<u8>,
) -> Option<(Vec<u8>, u64)> {
    use memchr::memmem;
    // Bytes, not text: the old file is the one the last compile wrote (its checksum matched),
    // and every marker searched for is ASCII, so its ~18 MB (10,000 pages) need no UTF-8 check.
    let start = pages_open(old)? + crate::digest::PAGES_OPEN.len();
    let pages = &old[start..];
    const KEY: &[u8] = b"\n      \"path\": ";
    // One pass over the objects: count them, and find those to replace by the rest of their
    // path line (`"<path>",`).
    let mut wanted: HashMap<Vec<u8>, &str> = HashMap::with_capacity(replace.len());
    for (path, object) in replace {
        let mut key = serde_json::to_vec(path).ok()?;
        key.push(b',');
        wanted.insert(key, object);
    }
    let open_object = memmem::FinderRev::new(b"\n    {");
    let close_object = memmem::Finder::new(b"\n    }");
    let mut count = 0;
    let mut spans: Vec<(usize, usize, &str)> = Vec::with_capacity(replace.len());
    for at in memmem::find_iter(pages, KEY) {
        count += 1;
        let rest = &pages[at + KEY.len()..];
        let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        if let Some(object) = wanted.remove(line) {
            let from = open_object.rfind(&pages[..at])? + "\n    ".len();
            let until = at + close_object.find(&pages[at..])? + "\n    }".len();
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
    let mut pieces: Vec<&[u8]> = Vec::with_capacity(2 * spans.len() + 3);
    pieces.push(head.as_bytes());
    pieces.push(&old[start - crate::digest::PAGES_OPEN.len()..start]);
    let mut pos = 0;
    for (from, until, object) in spans {
        pieces.push(&pages[pos..from]);
        pieces.push(object.as_bytes());
        pos = until;
    }
    pieces.push(&pages[pos..]);
    Some(concat_summed(&pieces, buffer))
}

/// The concatenation of `pieces` and its [`wiki_vault::checksum::block_checksum`]: written
/// into `buffer` (grown as needed), block by block on
/// both cores, each block summed while in cache.
pub fn concat_summed(pieces: &[&[u8]], buffer: Vec<u8>) -> (Vec<u8>, u64) {
    use rayon::prelude::*;
    use wiki_vault::checksum::{CHECKSUM_BLOCK, checksum, combine_block_checksums};
    // Where each piece starts in the output.
    let mut starts = Vec::with_capacity(pieces.len());
    let mut len = 0;
    for p in pieces {
        starts.push(len);
        len += p.len();
    }
    let mut out = buffer;
    out.resize(len, 0);
    let sums: Vec<u64> = out
        .par_chunks_mut(CHECKSUM_BLOCK)
        .enumerate()
        .map(|(i, block)| {
            let at = i * CHECKSUM_BLOCK;
            let end = at + block.len();
            // The last piece starting at or before `at`, then every piece until `end`.
            let first = starts.partition_point(|&s| s <= at).saturating_sub(1);
            for (piece, &from) in pieces[first..].iter().zip(&starts[first..]) {
                if from >= end {
                    break;
                }
                let lo = at.max(from);
                let hi = end.min(from + piece.len());
                if lo < hi {
                    block[lo - at..hi - at].copy_from_slice(&piece[lo - from..hi - from]);
                }
            }
            checksum(block)
        })
        .collect();
    (out, combine_block_checksums(len, &sums))
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
/// compile sorts them ([`locale_cmp`]). `None` when a line to remove is not in `old`, or when a
/// line the search compares is not UTF-8.
///
/// Bytes, not text: `old` is the file the last compile wrote (its checksum matched), so only the
/// few lines a binary search compares are checked, not the whole file (~12 MB at 10,000 pages),
/// and the lines that stay are copied in runs, not compared one by one. With the file, its
/// [`wiki_vault::checksum::block_checksum`] ([`concat_summed`]).
pub fn splice_lines(old: &[u8], remove: &[String], mut add: Vec<String>) -> Option<(Vec<u8>, u64)> {
    let body = old.strip_suffix(b"\n")?;
    // Where each line starts, and one past its end (the `\n` or the end of `body`).
    let mut starts: Vec<usize> = Vec::new();
    if !body.is_empty() {
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', body).map(|at| at + 1));
    }
    let n = starts.len();
    let line = |i: usize| {
        let end = starts.get(i + 1).map_or(body.len(), |s| s - 1);
        &body[starts[i]..end]
    };
    let unreadable = std::cell::Cell::new(false);
    let text = |i: usize| {
        std::str::from_utf8(line(i)).unwrap_or_else(|_| {
            unreadable.set(true);
            ""
        })
    };
    // Index of the first line `l` of `0..n` with `!before(l)` (`before` holds for a prefix).
    let partition = |before: &dyn Fn(&str) -> bool| {
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(text(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    let mut gone = vec![false; n];
    for r in remove {
        let at = partition(&|l| locale_cmp(l, r) == Ordering::Less);
        let i = (at..n)
            .take_while(|&i| line(i) == r.as_bytes())
            .find(|&i| !gone[i])?;
        gone[i] = true;
    }
    wiki_parse::health::sort_by_locale(&mut add, |l| l);
    // Each new line goes before the first old line that sorts after it (after equal ones).
    let slots: Vec<usize> = add
        .iter()
        .map(|a| partition(&|l| locale_cmp(a, l) != Ordering::Less))
        .collect();
    if unreadable.get() {
        return None;
    }
    let mut pieces: Vec<&[u8]> = Vec::with_capacity(4 * add.len() + 2 * remove.len() + 2);
    let mut new = add.iter().zip(slots).peekable();
    // Old lines `run..i` are kept and not yet copied: one piece per run between changes, taken
    // from `old` with each line's `\n` (line `i` starts at `starts[i]`, and `old` ends where
    // line `n` would start).
    let mut run = 0;
    // `gone` with a last, never-kept sentinel: the final run is copied there.
    for (i, &removed) in gone.iter().chain([&true]).enumerate() {
        let inserts = new.peek().is_some_and(|(_, slot)| *slot == i);
        if inserts || removed {
            if run < i {
                pieces.push(&old[starts[run]..starts.get(i).copied().unwrap_or(old.len())]);
            }
            while let Some((a, _)) = new.next_if(|(_, slot)| *slot == i) {
                pieces.push(a.as_bytes());
                pieces.push(b"\n");
            }
            run = if removed { i + 1 } else { i };
        }
    }
    if pieces.is_empty() {
        pieces.push(b"\n");
    }
    Some(concat_summed(&pieces, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`splice_lines`]'s file, after checking the checksum that comes with it.
    fn splice(old: &[u8], remove: &[String], add: Vec<String>) -> Option<Vec<u8>> {
        let (bytes, sum) = splice_lines(old, remove, add)?;
        assert_eq!(sum, wiki_vault::checksum::block_checksum(&bytes));
        Some(bytes)
    }

    /// Pieces of every size around the block size, empty ones included, concatenate to their
    /// concatenation, with its block checksum, into buffers shorter and longer than it.
    #[test]
    fn concat_summed_is_the_concatenation_and_its_block_checksum() {
        use wiki_vault::checksum::{CHECKSUM_BLOCK, block_checksum};
        let data: Vec<u8> = (0..3 * CHECKSUM_BLOCK)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
            .collect();
        let sizes = [
            [0, 5, CHECKSUM_BLOCK - 5, 0, 1, CHECKSUM_BLOCK, 7].as_slice(),
            &[CHECKSUM_BLOCK + 3, 0, 0, 2 * CHECKSUM_BLOCK - 10],
            &[2 * CHECKSUM_BLOCK + 1],
            &[0],
            &[],
        ];
        for sizes in sizes {
            let mut pieces = Vec::new();
            let mut at = 0;
            for &n in sizes {
                pieces.push(&data[at..at + n]);
                at += n;
            }
            for buffer in [0, 10, at, at + 10] {
                let buffer = vec![0; buffer];
                let (bytes, sum) = concat_summed(&pieces, buffer);
                assert!(bytes == data[..at], "sizes {sizes:?}");
                assert_eq!(sum, block_checksum(&data[..at]), "sizes {sizes:?}");
            }
        }
    }

    #[test]
    fn same_lines_counts_lines() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_lines(&v(&[]), &v(&[])));
        assert!(same_lines(&v(&["b", "a", "a"]), &v(&["a", "b", "a"])));
        assert!(!same_lines(&v(&["a", "a", "b"]), &v(&["a", "b", "b"])));
        assert!(!same_lines(&v(&["a"]), &v(&["a", "a"])));
        assert!(!same_lines(&v(&["a"]), &v(&["A"])));
        // Splicing the same lines back gives the file back.
        let old = b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        let lines = v(&["{\"b\":2}"]);
        assert_eq!(
            splice(old, &lines, lines.clone()).as_deref(),
            Some(old.as_slice())
        );
    }

    #[test]
    fn splice_keeps_sorted_order() {
        let old = b"a\nc\nc\ne\n";
        let got = splice(old, &["c".into()], vec!["d".into(), "b".into()]).unwrap();
        assert_eq!(got, b"a\nb\nc\nd\ne\n");
        assert_eq!(splice(b"\n", &[], vec![]).unwrap(), b"\n");
        assert_eq!(
            splice(b"a\n", &["a".into()], vec![]).unwrap(),
            b"\n",
            "no claims left: a single newline, as compile writes it"
        );
        assert!(splice(old, &["z".into()], vec![]).is_none());
        assert!(splice(b"a", &[], vec![]).is_none(), "no final newline");
        // A line the search has to compare is not UTF-8: no guess.
        assert!(splice(b"a\n\xff\nc\n", &[], vec!["b".into()]).is_none());
    }

    /// The merge [`splice_lines`] replaced (every old line compared with the next new one),
    /// as the reference for the copy-in-runs version.
    fn splice_lines_reference(
        old: &str,
        remove: &[String],
        mut add: Vec<String>,
    ) -> Option<String> {
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
        let mut kept = lines
            .iter()
            .zip(&gone)
            .filter(|(_, g)| !**g)
            .map(|(l, _)| *l);
        let mut out: Vec<&str> = Vec::new();
        let mut new = add.iter().peekable();
        for line in kept.by_ref() {
            while let Some(n) = new.next_if(|n| locale_cmp(n, line) == Ordering::Less) {
                out.push(n);
            }
            out.push(line);
        }
        out.extend(new.map(String::as_str));
        Some(out.iter().map(|l| format!("{l}\n")).collect::<String>())
            .map(|s| if s.is_empty() { "\n".to_string() } else { s })
    }

    #[test]
    fn splice_matches_the_line_by_line_merge() {
        // Lines drawn from a small alphabet (duplicates, case and accents, CJK) so that equal
        // and locale-equal neighbours are common.
        let words = ["a", "A", "b", "é", "e", "c", "向量", "{\"x\":1}", "", "zz"];
        let mut next = crate::test_rng(0x2545_F491_4F6C_DD1D);
        for round in 0..2000 {
            let mut lines: Vec<String> = (0..next(12))
                .map(|_| format!("{}{}", words[next(words.len())], words[next(words.len())]))
                .collect();
            wiki_parse::health::sort_by_locale(&mut lines, |l| l);
            let old: String = if lines.is_empty() {
                "\n".to_string()
            } else {
                lines.iter().map(|l| format!("{l}\n")).collect()
            };
            let mut remove = Vec::new();
            for l in &lines {
                if next(3) == 0 {
                    remove.push(l.clone());
                }
            }
            if next(10) == 0 {
                remove.push("not there".to_string());
            }
            let add: Vec<String> = (0..next(5))
                .map(|_| format!("{}{}", words[next(words.len())], words[next(words.len())]))
                .collect();
            let want = splice_lines_reference(&old, &remove, add.clone());
            let got = splice(old.as_bytes(), &remove, add.clone());
            assert_eq!(
                got.as_deref(),
                want.as_deref().map(str::as_bytes),
                "round {round}: {old:?} - {remove:?} + {add:?}"
            );
        }
    }

    #[test]
    fn reports_checksum_is_the_checksum_of_the_concatenation() {
        use wiki_parse::page::git_blob_id;
        use wiki_vault::checksum::checksum;
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
                all.extend_from_slice(git_blob_id(b).as_bytes());
                all.push(0);
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

#[cfg(test)]
mod head_tests {
    use super::*;
    use crate::digest::{agent_digest, digest_head};
    use crate::pages::title_order;

    const NOW: i64 = 1_775_390_400_000; // 2026-04-05T12:00:00Z

    fn page(path: &str, title: &str, updated: &str, extra: &str) -> PageInfo {
        let text = format!("---\ntitle: {title}\nupdatedAt: {updated}\n{extra}---\n\n# {title}\n");
        wiki_parse::parse_page(path, text.as_bytes())
            .expect("test page parses")
            .info
    }

    fn claim(id: &str, text: &str, status: &str) -> String {
        format!("  - id: {id}\n    text: {text}\n    status: {status}\n    confidence: 0.4\n")
    }

    /// A vault with claim-id and page-note clusters, claims with and without dates.
    fn base() -> Vec<PageInfo> {
        vec![
            page(
                "entities/alpha.md",
                "Alpha",
                "2026-04-01T00:00:00Z",
                &format!(
                    "contradictions:\n  - Redis or Valkey?\nclaims:\n{}{}",
                    claim("claim.shared", "Alpha uses Redis.", "supported"),
                    claim("claim.alpha.own", "Alpha is small.", "contested"),
                ),
            ),
            page(
                "concepts/beta.md",
                "Beta",
                "2025-01-01T00:00:00Z",
                &format!(
                    "contradictions:\n  - redis or valkey?\nclaims:\n{}",
                    claim("claim.shared", "Beta uses Valkey.", "supported"),
                ),
            ),
            page(
                "sources/gamma.md",
                "Gamma",
                "2026-02-01T00:00:00Z",
                &format!("claims:\n{}", claim("claim.gamma", "Gamma.", "supported")),
            ),
            page(
                "reports/open-questions.md",
                "Open Questions",
                "2026-04-01T00:00:00Z",
                "",
            ),
        ]
    }

    fn digest_of(pages: &[PageInfo]) -> String {
        let order = title_order(pages.iter());
        agent_digest(&order, &PageCounts::of(order.iter().copied()), &[], NOW)
    }

    /// `head_from_old` on the digest of `before`, for the pages `after`, where the pages of
    /// `edited` (paths) changed: the result, and whether the clusters were computed.
    fn from_old(
        before: &[PageInfo],
        after: &[PageInfo],
        edited: &[&str],
    ) -> (Option<String>, bool) {
        let old = digest_of(before);
        let order = title_order(after.iter());
        let counts = PageCounts::of(order.iter().copied());
        let is_report = |p: &str| p.starts_with("reports/");
        let removed: Vec<&PageInfo> = before
            .iter()
            .filter(|p| edited.contains(&p.path.as_str()) && !is_report(&p.path))
            .collect();
        let added: Vec<&PageInfo> = order
            .iter()
            .copied()
            .filter(|p| edited.contains(&p.path.as_str()) || is_report(&p.path))
            .collect();
        let clusters = Clusters::new();
        let got = head_from_old(
            old.as_bytes(),
            &order,
            &counts,
            &[],
            NOW,
            &clusters,
            &removed,
            &added,
        );
        (got, clusters.get().is_some())
    }

    fn expected(after: &[PageInfo]) -> String {
        let order = title_order(after.iter());
        digest_head(&order, &PageCounts::of(order.iter().copied()), &[], NOW)
    }

    fn edit(pages: &[PageInfo], path: &str, f: impl FnOnce(&mut PageInfo)) -> Vec<PageInfo> {
        let mut out = pages.to_vec();
        f(out.iter_mut().find(|p| p.path == path).expect("page"));
        out
    }

    #[test]
    fn the_header_follows_edits_that_keep_the_clusters() {
        let before = base();
        assert!(
            digest_of(&before).contains("\"claim-id\""),
            "the fixture has clusters"
        );
        // A question and a newer updatedAt: claims without dates change freshness.
        let after = edit(&before, "concepts/beta.md", |p| {
            p.summary.questions.push("Which one?".into());
            p.summary.updated_at = Some("2026-04-04T00:00:00Z".into());
            p.summary.claims[0].confidence = Some(0.9);
        });
        let (got, computed) = from_old(&before, &after, &["concepts/beta.md"]);
        assert_eq!(got.as_deref(), Some(expected(&after).as_str()));
        assert_ne!(
            expected(&after),
            expected(&before),
            "the health counts moved"
        );
        assert!(!computed, "clusters taken from the old header");
    }

    #[test]
    fn edits_that_touch_clusters_recompute_them() {
        let before = base();
        type Edit = fn(&mut PageInfo);
        let edits: [(&str, Edit); 5] = [
            ("same text now: no competing claims", |p| {
                p.summary.claims[0].text = "Alpha uses Redis.".into()
            }),
            ("status", |p| {
                p.summary.claims[0].status = Some("refuted".into())
            }),
            ("claim id", |p| {
                p.summary.claims[0].id = Some("claim.beta".into())
            }),
            ("note", |p| p.summary.contradictions.clear()),
            ("title (order)", |p| p.title = "Aaa".into()),
        ];
        for (what, f) in edits {
            let after = edit(&before, "concepts/beta.md", f);
            let (got, computed) = from_old(&before, &after, &["concepts/beta.md"]);
            assert_eq!(got.as_deref(), Some(expected(&after).as_str()), "{what}");
            assert!(computed, "{what}");
        }
        // A page gone, a page new.
        let gone: Vec<PageInfo> = before
            .iter()
            .filter(|p| p.path != "entities/alpha.md")
            .cloned()
            .collect();
        let (got, computed) = from_old(&before, &gone, &["entities/alpha.md"]);
        assert_eq!(got.as_deref(), Some(expected(&gone).as_str()));
        assert!(computed);
        let mut new = before.clone();
        new.push(page(
            "syntheses/delta.md",
            "Delta",
            "2026-04-01T00:00:00Z",
            &format!(
                "claims:\n{}",
                claim("claim.gamma", "Not Gamma.", "supported")
            ),
        ));
        let (got, computed) = from_old(&before, &new, &["syntheses/delta.md"]);
        assert_eq!(got.as_deref(), Some(expected(&new).as_str()));
        assert!(computed);
        // A report page with a contradiction note of its own.
        let noted = edit(&before, "reports/open-questions.md", |p| {
            p.summary.contradictions.push("Redis or Valkey?".into())
        });
        let (got, computed) = from_old(&before, &noted, &[]);
        assert_eq!(got.as_deref(), Some(expected(&noted).as_str()));
        assert!(computed);
    }

    #[test]
    fn changes_that_do_not_add_up_are_refused() {
        let before = base();
        let after = edit(&before, "concepts/beta.md", |p| {
            p.summary.questions.push("Which one?".into())
        });
        // The edited page's old version not given: the page counts do not add up.
        let old = digest_of(&before);
        let order = title_order(after.iter());
        let counts = PageCounts::of(order.iter().copied());
        let beta: Vec<&PageInfo> = order
            .iter()
            .copied()
            .filter(|p| p.path == "concepts/beta.md")
            .collect();
        let head = |removed: &[&PageInfo], errors: &[PageError]| {
            head_from_old(
                old.as_bytes(),
                &order,
                &counts,
                errors,
                NOW,
                &Clusters::new(),
                removed,
                &beta,
            )
        };
        assert_eq!(head(&[], &[]), None);
        // An old version with a claim too many: the claim counts do not add up.
        let mut wrong = before[1].clone();
        wrong.summary.claims.push(wrong.summary.claims[0].clone());
        assert_eq!(head(&[&wrong], &[]), None);
        assert!(head(&[&before[1]], &[]).is_some());
        // Pages that failed to parse: computed in full.
        let error = PageError {
            path: "entities/bad.md".into(),
            line: 2,
            message: "bad".into(),
        };
        assert_eq!(head(&[&before[1]], &[error]), None);
        // Not a digest compile writes.
        assert_eq!(
            head_from_old(b"{}", &order, &counts, &[], NOW, &Clusters::new(), &[], &[]),
            None
        );
    }
}
