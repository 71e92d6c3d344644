//! The parse cache: parsed pages kept between runs, keyed by path and git blob id.
//!
//! Parsing a page (YAML frontmatter, normalisation, links) is most of what a full compile
//! costs. A page whose bytes did not change since the last run parses to the same
//! [`PageInfo`], so `wiki compile`, `wiki lint` and `wiki-apply` keep the parsed pages of the
//! last compile in `.openclaw-wiki/tmp/parse-cache.bin` (a derived, git-ignored file that can be
//! deleted at any time) and parse only the pages whose `(path, blob id)` is not in it.
//!
//! A cached page has no frontmatter mapping ([`Page::frontmatter`] is empty): callers that need
//! the raw mapping (dashboards, edits) parse those pages with [`wiki_parse::parse_page`].
//!
//! # File format
//!
//! A sealed file ([`crate::sealed`]: magic `WIKIPC`, format number [`FORMAT`], checksum) whose
//! value is the index ([`Index`]: tool version, the caller's label, per entry its path, blob
//! id, stat data, flags and payload length), followed by the payloads one after the other (each
//! the MessagePack of `(PageInfo, TextLayout)`, the page's fields as a tuple with its summary
//! nested rather than flattened as in page records; the other field lists are the types' serde
//! derives, nothing else). Payloads are
//! decoded on lookup, so a run that needs a few pages decodes a few. A file that is truncated,
//! fails the checksum, has another format number, comes from another tool version or does not
//! decode is ignored as a whole (every page is parsed again), so an old or damaged cache can
//! cost time but never change a result.
//!
//! # Delta file
//!
//! Saving the whole cache after a run that changed a few pages (an apply) would rewrite
//! megabytes for nothing, so such a save writes `parse-cache.delta` beside it instead: the same
//! layout with `WIKIPD`, whose index also holds the checksum of the cache file it applies to and
//! the removed paths. A reader applies it only when it belongs to the cache file present (same
//! checksum); otherwise, or when it is damaged, it is ignored (pages parsed again, nothing
//! else). Once the changes since the cache file pass [`DELTA_MAX_ENTRIES`] entries or half its
//! size, the next save writes the whole cache again and removes the delta.
//!
//! # Stat data: not reading unchanged pages at all
//!
//! Like git's index, an entry can carry the stat data ([`FileStat`]: device, inode, size,
//! modification and change times) of the file whose bytes had the entry's blob id when they were
//! read. A later run whose `lstat` of the page gives the same stat data takes the blob id from the
//! cache ([`ParseCache::trusted_blob`]) without opening the file. The change time (`ctime`) is
//! set by the kernel on every write, rename and chmod and cannot be set by users, and stat data
//! is recorded only for files whose times were at least [`SETTLE_SECS`] seconds old when they
//! were read ([`FileStat::settled`]): a write after the read lands in a later clock tick than the
//! recorded times, so it always changes `ctime` (git's "racily clean" entries, avoided the same
//! way). Files written by the run that saves the cache get no stat data (their entry describes
//! the new bytes, the stat data the old file). Writes go to a
//! temporary file renamed into place, so readers never see a partial file.

use crate::checksum::checksum;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use wiki_parse::page::{Page, PageError, PageInfo, git_blob_id, parse_page};
use wiki_parse::vault::PageKind;

/// Where the parse cache lives, relative to the vault root.
pub const CACHE_PATH: &str = ".openclaw-wiki/tmp/parse-cache.bin";
const CACHE_FILE: &str = "parse-cache.bin";
const MAGIC: &[u8; 6] = b"WIKIPC";
/// Where the delta of the parse cache lives, relative to the vault root.
pub const DELTA_PATH: &str = ".openclaw-wiki/tmp/parse-cache.delta";
const DELTA_FILE: &str = "parse-cache.delta";
const DELTA_MAGIC: &[u8; 6] = b"WIKIPD";
/// The layout of both files: raised whenever it or the serde form of a cached type changes, so
/// that a file of another layout is rebuilt, never misread (the tool version in the index
/// guards the same between releases).
pub const FORMAT: u32 = 7;
/// Changed entries past which a save writes the whole cache instead of a delta.
const DELTA_MAX_ENTRIES: usize = 256;

fn tool_id() -> String {
    format!("wiki-parse {}", env!("CARGO_PKG_VERSION"))
}

/// What the cache keeps of a parsed page besides its [`PageInfo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextLayout {
    /// Byte offset of the body in the file text.
    pub body_offset: usize,
    /// Whether the file has a frontmatter block.
    pub has_frontmatter: bool,
    /// Checksum of the body of the page's generated Related block, when it has one.
    pub related: Option<u64>,
}

impl TextLayout {
    /// The layout of a parsed page.
    pub fn of(page: &Page) -> TextLayout {
        TextLayout {
            body_offset: page.body_offset,
            has_frontmatter: page.has_frontmatter,
            related: related_checksum(&page.text),
        }
    }
}

/// Checksum of the body of the Related block of a page text ([`wiki_parse::markers::block_body`]).
pub fn related_checksum(text: &str) -> Option<u64> {
    wiki_parse::markers::block_body(text, &wiki_parse::markers::Block::related())
        .map(|b| checksum(b.as_bytes()))
}

/// Files whose times are younger than this many seconds when read get no stat data.
pub const SETTLE_SECS: i64 = 2;

/// Stat data of a page file (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileStat {
    /// Device.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, seconds.
    pub mtime: i64,
    /// Modification time, nanoseconds.
    pub mtime_nsec: i64,
    /// Change time, seconds.
    pub ctime: i64,
    /// Change time, nanoseconds.
    pub ctime_nsec: i64,
}

impl FileStat {
    /// The stat data of `meta` (`None` on platforms without inode numbers and change times).
    pub fn of(meta: &std::fs::Metadata) -> Option<FileStat> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileStat {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.size(),
                mtime: meta.mtime(),
                mtime_nsec: meta.mtime_nsec(),
                ctime: meta.ctime(),
                ctime_nsec: meta.ctime_nsec(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// The stat data of a `stat` system call's result (`rustix::fs::statat`: a page statted
    /// relative to its directory, without walking the vault's path again for each page): the
    /// same values as [`FileStat::of`] (tested).
    #[cfg(unix)]
    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    pub fn of_stat(st: &rustix::fs::Stat) -> FileStat {
        FileStat {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime: st.st_mtime as i64,
            mtime_nsec: st.st_mtime_nsec as i64,
            ctime: st.st_ctime as i64,
            ctime_nsec: st.st_ctime_nsec as i64,
        }
    }

    /// Whether both times are at least [`SETTLE_SECS`] seconds before `now` (Unix seconds), so
    /// that any later write gets a different change time.
    pub fn settled(&self, now: i64) -> bool {
        self.mtime.max(self.ctime) <= now - SETTLE_SECS
    }
}

/// The index of a cache or delta file (see the module docs).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    /// The tool version that wrote the file ([`tool_id`]): another version's file is ignored.
    tool: String,
    /// The caller's label (see [`save_copying_for`]).
    label: String,
    /// A delta file's: the checksum of the cache file it applies to.
    base: Option<u64>,
    /// One per payload, in the payloads' order.
    entries: Vec<Entry>,
    /// A delta file's: paths of the cache file that are gone.
    removed: Vec<String>,
}

/// One cached page: its path, blob id, recorded stat data, flags and payload.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Entry {
    /// (Moved out into the key of [`ParseCache::entries`] once read.)
    path: String,
    #[serde(with = "serde_bytes")]
    blob: [u8; 20],
    stat: Option<FileStat>,
    /// [`PageInfo::claims_complete`] of the cached page.
    claims_complete: bool,
    /// [`PageInfo::links_omitted`] of the cached page.
    links_omitted: bool,
    /// Payload length in bytes.
    len: usize,
    /// Payload offset in its file (set when read).
    #[serde(skip)]
    start: usize,
    /// Whether the payload is in the delta file's buffer (else the cache file's).
    #[serde(skip)]
    delta: bool,
}

impl Entry {
    fn new(info: &PageInfo, blob: [u8; 20], stat: Option<FileStat>, len: usize) -> Entry {
        Entry {
            path: info.path.clone(),
            blob,
            stat,
            claims_complete: info.claims_complete,
            links_omitted: info.links_omitted,
            len,
            ..Entry::default()
        }
    }

    /// Whether the entry records this version of `info` (`blob`) with this stat data and flags.
    fn same(&self, blob: &[u8; 20], stat: Option<&FileStat>, info: &PageInfo) -> bool {
        &self.blob == blob
            && self.stat.as_ref() == stat
            && self.claims_complete == info.claims_complete
            && self.links_omitted == info.links_omitted
    }
}

/// A cache or delta file: the index sealed ([`crate::sealed`]) with the payloads after it.
fn write_file(magic: &[u8], index: &Index, payloads: &[u8]) -> Vec<u8> {
    crate::sealed::seal(magic, FORMAT, index, payloads)
}

/// The index of a file [`write_file`] wrote, each entry's `start` set, and the file's checksum;
/// `None` when it is not such a file of this format and tool version, or is damaged.
fn read_file(buf: &[u8], magic: &[u8]) -> Option<(Index, u64)> {
    let (mut index, payloads, sum) = crate::sealed::unseal::<Index>(buf, magic, FORMAT).ok()?;
    if index.tool != tool_id() {
        return None;
    }
    let mut at = payloads.start;
    for e in &mut index.entries {
        e.start = at;
        at = at.checked_add(e.len)?;
    }
    (at == payloads.end).then_some((index, sum))
}

/// The payload of a page: its MessagePack (`None` if it does not serialize: the page is left
/// out of the cache, a miss next time).
fn encode_page(info: &PageInfo, layout: TextLayout) -> Option<Vec<u8>> {
    let wire: WireRef<'_> = (
        &info.path,
        info.kind,
        &info.title,
        &info.summary,
        &info.links,
        &info.blob_id,
        info.body_line,
        &info.key_lines,
        info.raw_source,
    );
    rmp_serde::to_vec_named(&(wire, layout)).ok()
}

/// A cached [`PageInfo`] as it is encoded: its fields in declaration order (the flags kept in
/// the entry aside), the summary as a map of its own. Not the page record's form, which
/// flattens the summary into the record: decoding a flattened struct buffers every field of
/// the summary in a generic tree first, which doubled what decoding a vault's pages costs.
type Wire = (
    String,
    PageKind,
    String,
    wiki_parse::PageSummary,
    Vec<wiki_parse::links::Link>,
    String,
    usize,
    wiki_parse::page::KeyLineMap,
    bool,
);

/// [`Wire`] borrowed, for encoding.
type WireRef<'a> = (
    &'a String,
    PageKind,
    &'a String,
    &'a wiki_parse::PageSummary,
    &'a Vec<wiki_parse::links::Link>,
    &'a String,
    usize,
    &'a wiki_parse::page::KeyLineMap,
    bool,
);

/// The page and layout of a payload [`encode_page`] wrote (`None`: it does not decode).
fn decode_page(payload: &[u8]) -> Option<(PageInfo, TextLayout)> {
    let (wire, layout): (Wire, TextLayout) = rmp_serde::from_slice(payload).ok()?;
    let (path, kind, title, summary, links, blob_id, body_line, key_lines, raw_source) = wire;
    let info = PageInfo {
        path,
        kind,
        title,
        summary,
        links,
        blob_id,
        body_line,
        key_lines,
        raw_source,
        claims_complete: false,
        links_omitted: false,
    };
    Some((info, layout))
}

/// Where a saved entry's payload comes from (see [`ParseCache::source`]).
#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    /// The previous cache's bytes for the same version of the page.
    Copied(&'a [u8]),
    /// Encoded from the page with this layout.
    Encode(TextLayout),
}

impl Source<'_> {
    /// The payload bytes, appended to `out`; `false` when the page does not encode.
    fn append(&self, info: &PageInfo, out: &mut Vec<u8>) -> bool {
        match self {
            Source::Copied(bytes) => out.extend_from_slice(bytes),
            Source::Encode(layout) => match encode_page(info, *layout) {
                Some(bytes) => out.extend_from_slice(&bytes),
                None => return false,
            },
        }
        true
    }
}

/// Parsed pages of an earlier run (see the module docs). Cheap to share between threads.
#[derive(Debug, Default)]
pub struct ParseCache {
    /// Caller's label of the run that wrote the cache (see [`save_copying_for`]).
    label: String,
    /// The cache file.
    buf: Vec<u8>,
    /// By path (foldhash: every page is looked up several times per run; iteration order is
    /// never relied on).
    entries: HashMap<String, Entry, foldhash::fast::RandomState>,
    /// The delta file's bytes, when one was applied.
    delta_buf: Vec<u8>,
    /// Checksum of the cache file (`None`: no cache file).
    base_sum: Option<u64>,
    /// Paths of the cache file that the applied delta removed.
    removed: Vec<String>,
}

impl ParseCache {
    /// An empty cache (every lookup misses).
    pub fn empty() -> ParseCache {
        ParseCache::default()
    }

    /// Whether the vault at `vault_dir` has a cache file (not read: it may still be damaged or
    /// foreign).
    pub fn exists(vault_dir: &Path) -> bool {
        vault_dir.join(CACHE_PATH).is_file()
    }

    /// Read the cache of the vault at `vault_dir`; missing, damaged or foreign files give an
    /// empty cache.
    pub fn load(vault_dir: &Path) -> ParseCache {
        ParseCache::load_in(vault_dir, &cache_dir(None))
    }

    /// The cache of `agent`'s branch read from git ([`cache_dir`]); while that branch has none,
    /// the checked-out branch's: entries are keyed by path and blob id, so the pages the
    /// branches share are hits, and what its label records of the other branch's compiled
    /// files is checked against the agent's files before anything is reused.
    pub fn load_for(vault_dir: &Path, agent: Option<&str>) -> ParseCache {
        match agent {
            Some(id) if agent_has_cache(vault_dir, id) => {
                ParseCache::load_in(vault_dir, &cache_dir(agent))
            }
            _ => ParseCache::load(vault_dir),
        }
    }

    fn load_in(vault_dir: &Path, dir: &str) -> ParseCache {
        let dir = vault_dir.join(dir);
        // Derived files another process may have grown: bounded like the compiled caches (a
        // parse cache is a few MB per 10,000 pages); a larger one is ignored like a damaged one.
        let mut cache =
            match wiki_cli::read::read_bounded(&dir.join(CACHE_FILE), crate::DERIVED_LIMIT) {
                Ok(buf) => ParseCache::from_bytes(buf).unwrap_or_default(),
                Err(_) => ParseCache::empty(),
            };
        if cache.base_sum.is_some()
            && let Ok(delta) =
                wiki_cli::read::read_bounded(&dir.join(DELTA_FILE), crate::DERIVED_LIMIT)
        {
            cache.apply_delta(delta);
        }
        cache
    }

    /// Apply a delta file's bytes (see the module docs); `false` (and nothing changed) when they
    /// are damaged or belong to another cache file.
    pub fn apply_delta(&mut self, buf: Vec<u8>) -> bool {
        let Some((index, _)) = read_file(&buf, DELTA_MAGIC) else {
            return false;
        };
        if self.base_sum.is_none() || index.base != self.base_sum {
            return false;
        }
        self.label = index.label;
        for path in &index.removed {
            self.entries.remove(path);
        }
        self.entries.extend(index.entries.into_iter().map(|mut e| {
            e.delta = true;
            (std::mem::take(&mut e.path), e)
        }));
        self.removed = index.removed;
        self.delta_buf = buf;
        true
    }

    /// The encoded page of entry `e`.
    fn payload(&self, e: &Entry) -> Option<&[u8]> {
        let buf: &[u8] = if e.delta { &self.delta_buf } else { &self.buf };
        buf.get(e.start..e.start + e.len)
    }

    /// The encoded form of `info` as this cache holds it, when it holds that version of the page
    /// (same blob id `blob`, links recorded the same way).
    fn reusable_payload(&self, info: &PageInfo, blob: &[u8; 20]) -> Option<&[u8]> {
        self.entries
            .get(&info.path)
            // (An entry without links cannot stand for a page with links, nor the reverse.)
            .filter(|e| &e.blob == blob && e.links_omitted == info.links_omitted)
            .and_then(|e| self.payload(e))
    }

    /// Where the entry of `info` comes from: copied from this cache when it holds that version,
    /// else encoded with `layout`; `None` when neither (the page is left out of the new cache: a
    /// miss next time, never a wrong entry).
    fn source(
        &self,
        info: &PageInfo,
        layout: Option<TextLayout>,
        blob: &[u8; 20],
    ) -> Option<Source<'_>> {
        match self.reusable_payload(info, blob) {
            Some(bytes) => Some(Source::Copied(bytes)),
            None => layout.map(Source::Encode),
        }
    }

    /// Read a cache file's index (payloads are decoded on lookup).
    pub fn from_bytes(buf: impl Into<Vec<u8>>) -> Option<ParseCache> {
        let buf = buf.into();
        let (index, sum) = read_file(&buf, MAGIC)?;
        let entries = index
            .entries
            .into_iter()
            .map(|mut e| (std::mem::take(&mut e.path), e))
            .collect();
        Some(ParseCache {
            label: index.label,
            buf,
            entries,
            delta_buf: Vec::new(),
            base_sum: Some(sum),
            removed: Vec::new(),
        })
    }

    /// Number of cached pages.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache holds no page.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The label [`save_copying_for`] was given (empty for an empty cache).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether a page at `path` is cached (whatever its blob id).
    pub fn contains(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    /// Whether the page at `path` is cached in its version with blob id `blob_id` (hex),
    /// without decoding the entry.
    pub fn contains_version(&self, path: &str, blob_id: &str) -> bool {
        self.entry_of(path, blob_id).is_some()
    }

    /// Cached page paths (any order).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The cached page at `path`, whatever the current bytes are (the version the cache saw).
    pub fn get_any(&self, path: &str) -> Option<PageInfo> {
        self.get_any_with_layout(path).map(|(info, _)| info)
    }

    /// [`ParseCache::get_any`] with the text layout.
    pub fn get_any_with_layout(&self, path: &str) -> Option<(PageInfo, TextLayout)> {
        let e = self.entries.get(path)?;
        let (mut info, layout) = decode_page(self.payload(e)?)?;
        info.claims_complete = e.claims_complete;
        info.links_omitted = e.links_omitted;
        (info.path == path).then_some((info, layout))
    }

    /// The entry of the page at `path` when it is for the version with blob id `blob_id` (hex).
    fn entry_of(&self, path: &str, blob_id: &str) -> Option<&Entry> {
        let e = self.entries.get(path)?;
        (hex_to_raw(blob_id)? == e.blob).then_some(e)
    }

    /// The cached page at `path` if its blob id is `blob_id` (hex).
    pub fn get(&self, path: &str, blob_id: &str) -> Option<(PageInfo, TextLayout)> {
        self.entry_of(path, blob_id)?;
        self.get_any_with_layout(path)
            .filter(|(info, _)| info.blob_id == blob_id)
    }

    /// Whether the encoded cache entry of the page at `path` with blob id `blob_id` (hex) contains
    /// `needle` (`None`: no entry for that version). MessagePack stores every string field of a
    /// parsed page (ids, titles, claim texts, …) verbatim, so `Some(false)` proves that no field
    /// of that version of the page equals or contains `needle`, without decoding it.
    pub fn entry_contains(
        &self,
        path: &str,
        blob_id: &str,
        needle: &memchr::memmem::Finder<'_>,
    ) -> Option<bool> {
        let payload = self.payload(self.entry_of(path, blob_id)?)?;
        Some(needle.find(payload).is_some())
    }

    /// Whether the page at `path` with blob id `blob_id` (hex) has the page id `id` (its
    /// [`PageSummary::id`](wiki_parse::PageSummary::id): the trimmed `id` field); `None`: no entry
    /// for that version. Asked of every page of a vault, so an entry whose bytes do not contain
    /// `id` is answered without decoding it.
    pub fn entry_has_id(&self, path: &str, blob_id: &str, id: &str) -> Option<bool> {
        let finder = memchr::memmem::Finder::new(id.as_bytes());
        if !self.entry_contains(path, blob_id, &finder)? {
            return Some(false);
        }
        let (info, _) = self.get(path, blob_id)?;
        Some(info.summary.id.as_deref() == Some(id))
    }

    /// Whether the page at `path` with blob id `blob_id` (hex) may have a claim with id
    /// `claim_id`: `Some(false)` when its entry records every claim of the page
    /// ([`PageInfo::claims_complete`]) and its encoded form does not contain the id (claim ids are
    /// stored verbatim); `None` when that is not known (no entry for that version, or a page
    /// with claims its parsed form dropped).
    pub fn entry_may_have_claim(
        &self,
        path: &str,
        blob_id: &str,
        claim_id: &memchr::memmem::Finder<'_>,
    ) -> Option<bool> {
        let e = self.entries.get(path)?;
        if !e.claims_complete {
            return None;
        }
        self.entry_contains(path, blob_id, claim_id)
    }

    /// The blob id (hex, and its 20 raw bytes) of the cached page at `path` when the cache
    /// recorded stat data for it and `stat` is that stat data: the file still holds the bytes the
    /// entry was parsed from (see the module docs).
    pub fn trusted_blob(&self, path: &str, stat: &FileStat) -> Option<(Arc<str>, [u8; 20])> {
        let e = self.entries.get(path)?;
        (e.stat.as_ref() == Some(stat)).then(|| (raw_to_hex_arc(&e.blob), e.blob))
    }

    /// The cached page at `path` with blob id `blob_id`, without its text: [`Page::text`] is
    /// empty and [`Page::body_offset`] 0; the text's body offset is returned beside it (for
    /// callers that read the text later). `None` when the cache does not hold that version.
    pub fn page_without_text(&self, path: &str, blob_id: &str) -> Option<(Page, usize)> {
        let (info, layout) = self.get(path, blob_id)?;
        let page = Page {
            info,
            frontmatter: yaml_serde::Mapping::new(),
            has_frontmatter: layout.has_frontmatter,
            text: String::new(),
            body_offset: 0,
        };
        Some((page, layout.body_offset))
    }

    /// Parse `bytes` as the page at `path` for a compile, reusing the cached result when the
    /// path and blob id (`blob_id`, else hashed from `bytes`) match; also tells whether the cache
    /// was used (`true`: a hit). A cached page has an empty frontmatter mapping (see the module
    /// docs). A compile reads a dashboard's frontmatter and text from its own copy of the file,
    /// so a cached report page that has a frontmatter comes without its text ([`Page::text`]
    /// empty, [`Page::body_offset`] 0): copying the megabytes of a large vault's dashboards
    /// would be work for nothing.
    pub fn parse_hit_for_compile(
        &self,
        path: &str,
        bytes: &[u8],
        blob_id: Option<&str>,
    ) -> (Result<Page, PageError>, bool) {
        if !self.entries.contains_key(path) {
            return (parse_page(path, bytes), false);
        }
        let blob_id = match blob_id {
            Some(id) => id.to_string(),
            None => git_blob_id(bytes),
        };
        let Some((info, layout)) = self.get(path, &blob_id) else {
            return (parse_page(path, bytes), false);
        };
        let lean = layout.has_frontmatter && info.kind == PageKind::Report;
        let page = |text: String, body_offset: usize| Page {
            info,
            frontmatter: yaml_serde::Mapping::new(),
            has_frontmatter: layout.has_frontmatter,
            text,
            body_offset,
        };
        if lean {
            // The same blob parsed before, so it is text; the compile checks it again where it
            // reads it.
            return (Ok(page(String::new(), 0)), true);
        }
        match std::str::from_utf8(bytes) {
            Ok(text) if layout.body_offset <= text.len() => {
                (Ok(page(text.to_string(), layout.body_offset)), true)
            }
            _ => (parse_page(path, bytes), false),
        }
    }
}

/// The cache file of `pages` with the caller's `label` (e.g. the options of the run), each
/// given with its layout or without one (`None`: copied from `prev`, which holds that version,
/// else left out), copying the encoded form of pages that `prev` holds with the same path and
/// blob id instead of encoding them again, and recording `stat(path, blob id)`: the stat data
/// of the file at `path` when it holds exactly the bytes of that blob (`None`: unknown or
/// unsettled).
fn encode_sources<'a>(
    label: &str,
    pages: impl IntoIterator<Item = (&'a PageInfo, Option<TextLayout>)>,
    prev: &ParseCache,
    stat: impl Fn(&str, &[u8; 20]) -> Option<FileStat> + Sync,
) -> Vec<u8> {
    let pages: Vec<(&PageInfo, [u8; 20], Source<'_>)> = pages
        .into_iter()
        .filter_map(|(p, layout)| {
            let blob = hex_to_raw(&p.blob_id)?;
            Some((p, blob, prev.source(p, layout, &blob)?))
        })
        .collect();
    // Entries are independent: chunks of them are encoded in parallel (a first compile encodes
    // every page) and concatenated in order, the same bytes as one pass.
    let encode = |chunk: &[(&PageInfo, [u8; 20], Source<'_>)]| {
        let mut entries = Vec::with_capacity(chunk.len());
        let mut payloads = Vec::with_capacity(chunk.len() * 1024);
        for (info, blob, source) in chunk {
            let before = payloads.len();
            if source.append(info, &mut payloads) {
                let st = stat(&info.path, blob);
                entries.push(Entry::new(info, *blob, st, payloads.len() - before));
            }
        }
        (entries, payloads)
    };
    let parts: Vec<(Vec<Entry>, Vec<u8>)> = {
        use rayon::prelude::*;
        pages.par_chunks(512).map(encode).collect()
    };
    let mut index = Index {
        tool: tool_id(),
        label: label.to_string(),
        ..Index::default()
    };
    let mut payloads = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (entries, bytes) in parts {
        index.entries.extend(entries);
        payloads.extend_from_slice(&bytes);
    }
    write_file(MAGIC, &index, &payloads)
}

/// Write the parse cache of `agent`'s branch ([`cache_dir`]; `None`: the checked-out branch)
/// in the vault at `vault_dir` (temporary file + rename; creates `.openclaw-wiki/tmp/` with a
/// `.gitignore` of `*` when missing), as a delta when few pages changed. `label` is kept for the
/// next reader ([`ParseCache::label`]); pages are given as for [`encode_sources`]: a page
/// without a layout that `prev` does not hold is left out (a miss next time). A delta is
/// written only beside a cache file of that branch (`prev` may be the checked-out branch's,
/// see [`ParseCache::load_for`]).
pub fn save_copying_for<'a>(
    vault_dir: &Path,
    agent: Option<&str>,
    label: &str,
    pages: impl IntoIterator<Item = (&'a PageInfo, Option<TextLayout>)>,
    prev: &ParseCache,
    stat: impl Fn(&str, &[u8; 20]) -> Option<FileStat> + Sync,
) -> std::io::Result<()> {
    let dir = cache_dir(agent);
    // The whole tmp directory stays out of git, an agent's sub-directory included.
    wiki_parse::layout::ensure_ignored_dir(vault_dir, wiki_parse::layout::TMP_DIR)?;
    let pages: Vec<(&PageInfo, Option<TextLayout>)> = pages.into_iter().collect();
    let own_base = agent.is_none() || vault_dir.join(&dir).join(CACHE_FILE).is_file();
    if own_base && let Some(delta) = encode_delta(label, &pages, prev, &stat) {
        return wiki_parse::layout::write_ignored_file(vault_dir, &dir, DELTA_FILE, &delta);
    }
    let bytes = encode_sources(label, pages, prev, stat);
    wiki_parse::layout::write_ignored_file(vault_dir, &dir, CACHE_FILE, &bytes)?;
    // The delta belonged to the previous cache file (a reader would ignore it anyway).
    match std::fs::remove_file(vault_dir.join(&dir).join(DELTA_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether `agent`'s branch has a parse cache of its own in the vault at `vault_dir` (else
/// [`ParseCache::load_for`] gives the checked-out branch's).
pub fn agent_has_cache(vault_dir: &Path, agent: &str) -> bool {
    vault_dir
        .join(cache_dir(Some(agent)))
        .join(CACHE_FILE)
        .is_file()
}

/// The directory (vault-relative) of the parse cache of the checked-out branch (`None`:
/// `.openclaw-wiki/tmp`), or of agent `ID`'s branch read from git
/// (`.openclaw-wiki/tmp/agents/<ID>`), so that operations of agents and on the checked-out
/// branch do not replace each other's cache.
pub fn cache_dir(agent: Option<&str>) -> String {
    match agent {
        None => wiki_parse::layout::TMP_DIR.to_string(),
        Some(id) => format!("{}/agents/{id}", wiki_parse::layout::TMP_DIR),
    }
}

/// The delta file that turns `prev`'s cache file into the cache of `pages`, when `prev` has a
/// cache file and the changes are small enough (see the module docs).
fn encode_delta(
    label: &str,
    pages: &[(&PageInfo, Option<TextLayout>)],
    prev: &ParseCache,
    stat: &(impl Fn(&str, &[u8; 20]) -> Option<FileStat> + Sync),
) -> Option<Vec<u8>> {
    let mut changed: Vec<(&PageInfo, Source<'_>, [u8; 20], Option<FileStat>)> = Vec::new();
    let mut present: std::collections::HashSet<&str, foldhash::fast::RandomState> =
        std::collections::HashSet::with_capacity_and_hasher(pages.len(), Default::default());
    for (info, layout) in pages {
        let Some(blob) = hex_to_raw(&info.blob_id) else {
            continue;
        };
        let st = stat(&info.path, &blob);
        match prev.entries.get(&info.path) {
            // Unchanged since the cache file: nothing to record.
            Some(e) if !e.delta && e.same(&blob, st.as_ref(), info) => {}
            _ => {
                // (A page that can be neither copied nor encoded is left out: removed below.)
                let Some(source) = prev.source(info, *layout, &blob) else {
                    continue;
                };
                changed.push((info, source, blob, st));
                if changed.len() > DELTA_MAX_ENTRIES {
                    return None;
                }
            }
        }
        present.insert(info.path.as_str());
    }
    changed.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    let mut index = Index {
        tool: tool_id(),
        label: label.to_string(),
        base: Some(prev.base_sum?),
        ..Index::default()
    };
    let mut payloads = Vec::new();
    for (info, source, blob, st) in changed {
        let before = payloads.len();
        if source.append(info, &mut payloads) {
            let len = payloads.len() - before;
            index.entries.push(Entry::new(info, blob, st, len));
        } else {
            present.remove(info.path.as_str());
        }
        if payloads.len() > prev.buf.len() / 2 {
            return None;
        }
    }
    // Paths of the cache file that are gone: those the previous delta removed, and every cached
    // path no longer present (removing one the cache file lacks is harmless).
    let mut removed: Vec<&str> = prev
        .removed
        .iter()
        .map(String::as_str)
        .chain(prev.entries.keys().map(String::as_str))
        .filter(|p| !present.contains(p))
        .collect();
    removed.sort_unstable();
    removed.dedup();
    index.removed = removed.into_iter().map(str::to_string).collect();
    Some(write_file(DELTA_MAGIC, &index, &payloads))
}

/// The 40 lower-case hex digits of a raw blob id, as a shared string in one allocation (asked
/// for every page of a vault).
fn raw_to_hex_arc(raw: &[u8; 20]) -> Arc<str> {
    wiki_parse::page::hex_id(raw, |s| Arc::from(s))
}

/// The 20 raw bytes of a 40-digit lower-case hex blob id.
pub fn hex_to_raw(hex: &str) -> Option<[u8; 20]> {
    // A digit's value, or 0x10 for any other byte: one table lookup per digit and one test
    // for the whole id (called for every page of a vault several times per operation).
    const NIBBLE: [u8; 256] = {
        let mut t = [0x10u8; 256];
        let mut c = 0;
        while c < 10 {
            t[b'0' as usize + c] = c as u8;
            c += 1;
        }
        let mut c = 0;
        while c < 6 {
            t[b'a' as usize + c] = 10 + c as u8;
            c += 1;
        }
        t
    };
    let b: &[u8; 40] = hex.as_bytes().try_into().ok()?;
    let mut out = [0u8; 20];
    let mut bad = 0u8;
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        let (hi, lo) = (NIBBLE[usize::from(pair[0])], NIBBLE[usize::from(pair[1])]);
        bad |= hi | lo;
        *o = (hi << 4) | lo;
    }
    (bad & 0x10 == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use crate::checksum::{CHECKSUM_BLOCK, Checksum, block_checksum};
    /// The one-shot checksum as it was before [`Checksum`] (the values are stored in caches).
    fn checksum_before_streaming(bytes: &[u8]) -> u64 {
        const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
        let mix = |h: u64, w: u64| (h ^ w).wrapping_mul(MUL).rotate_left(31);
        let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap());
        let mut lanes: [u64; 4] = [
            0x2545_F491_4F6C_DD1D ^ (bytes.len() as u64),
            0x9E6C_63D0_676A_9A99,
            0x6A09_E667_F3BC_C908,
            0xBB67_AE85_84CA_A73B,
        ];
        let mut blocks = bytes.chunks_exact(32);
        for b in &mut blocks {
            for (i, lane) in lanes.iter_mut().enumerate() {
                *lane = mix(*lane, word(&b[8 * i..8 * i + 8]));
            }
        }
        let mut h = lanes.iter().fold(0x2545_F491_4F6C_DD1D, |h, &l| mix(h, l));
        let mut words = blocks.remainder().chunks_exact(8);
        for w in &mut words {
            h = mix(h, word(w));
        }
        for &b in words.remainder() {
            h = mix(h, u64::from(b));
        }
        h ^ (h >> 29)
    }

    /// A page saved without its links ([`PageInfo::links_omitted`]) keeps the flag, and never
    /// stands for the same bytes parsed with links (nor the reverse): saving the page with its
    /// links records them.
    #[test]
    fn entries_without_links_are_flagged_and_not_reused_for_pages_with_links() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        let path = "reports/x.md";
        let page = parse_page(
            path,
            b"---\ntitle: X\n---\n# X\n\n- [A](../entities/a.md)\n",
        )
        .unwrap();
        assert!(!page.info.links.is_empty());
        let layout = TextLayout::of(&page);
        let mut omitted = page.info.clone();
        omitted.links = Vec::new();
        omitted.links_omitted = true;
        let saved = |info: &PageInfo, prev: &ParseCache| {
            save(vault, "l", [(info, layout)], prev, |_, _| None).unwrap();
            ParseCache::load(vault)
        };
        let first = saved(&omitted, &ParseCache::empty());
        let got = first.get_any(path).unwrap();
        assert!(got.links_omitted && got.links.is_empty());
        let second = saved(&page.info, &first);
        let got = second.get_any(path).unwrap();
        assert!(!got.links_omitted);
        assert_eq!(got.links, page.info.links);
        let third = saved(&omitted, &second);
        assert!(third.get_any(path).unwrap().links_omitted);
    }

    #[test]
    fn streaming_checksum_is_the_one_shot_checksum() {
        let data: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        assert_eq!(checksum(b""), checksum_before_streaming(b""));
        for len in 0..data.len() {
            let bytes = &data[..len];
            let want = checksum_before_streaming(bytes);
            assert_eq!(checksum(bytes), want, "len {len}");
            // Every split into three pieces of a few sizes.
            for a in [0, 1, 7, 8, 31, 32, 33, 64, 100]
                .into_iter()
                .filter(|&a| a <= len)
            {
                for b in [0, 1, 5, 31, 32, 40].into_iter().filter(|&b| a + b <= len) {
                    let mut c = Checksum::new(len);
                    c.update(&bytes[..a]);
                    c.update(&bytes[a..a + b]);
                    c.update(&bytes[a + b..]);
                    assert_eq!(c.finish(), want, "len {len} split {a}+{b}");
                }
            }
        }
    }

    /// The block checksum is the checksum of the length and the blocks' checksums (spelled out
    /// here), for lengths around the block boundaries; one changed byte in any block changes it.
    /// Stat data read relative to a directory is the stat data of the path.
    #[cfg(unix)]
    #[test]
    fn stat_relative_to_a_directory_is_the_stat_of_the_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.md"), "# P\n").unwrap();
        std::os::unix::fs::symlink("p.md", dir.path().join("l.md")).unwrap();
        let fd = rustix::fs::open(
            dir.path(),
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        for name in ["p.md", "l.md"] {
            let st = rustix::fs::statat(&fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).unwrap();
            let meta = std::fs::symlink_metadata(dir.path().join(name)).unwrap();
            assert_eq!(Some(FileStat::of_stat(&st)), FileStat::of(&meta), "{name}");
        }
    }

    /// Every lower-case hex digit in every position reads back; anything else anywhere, or
    /// another length, is refused.
    #[test]
    fn hex_ids_read_back_and_nothing_else_does() {
        for byte in 0..=255u8 {
            let raw = [byte; 20];
            let hex = raw_to_hex_arc(&raw).to_string();
            assert_eq!(hex, format!("{byte:02x}").repeat(20));
            assert_eq!(hex_to_raw(&hex), Some(raw));
            let c = byte as char;
            if !matches!(c, '0'..='9' | 'a'..='f') && byte.is_ascii() {
                for at in [0, 1, 20, 39] {
                    let mut bad = hex.clone().into_bytes();
                    bad[at] = byte;
                    let bad = String::from_utf8(bad).unwrap();
                    assert_eq!(hex_to_raw(&bad), None, "{c:?} at {at}");
                }
            }
        }
        let id = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(&*raw_to_hex_arc(&hex_to_raw(id).unwrap()), id);
        assert_eq!(hex_to_raw(&id.to_uppercase()), None);
        assert_eq!(hex_to_raw(&id[1..]), None);
        assert_eq!(hex_to_raw(&format!("{id}0")), None);
        assert_eq!(hex_to_raw("é123456789abcdef0123456789abcdef0123456"), None);
    }

    #[test]
    fn block_checksum_sums_the_block_sums() {
        let spelled_out = |bytes: &[u8]| {
            let mut cat = (bytes.len() as u64).to_le_bytes().to_vec();
            for b in bytes.chunks(CHECKSUM_BLOCK) {
                cat.extend_from_slice(&checksum(b).to_le_bytes());
            }
            checksum(&cat)
        };
        let data: Vec<u8> = (0..2 * CHECKSUM_BLOCK + 100)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
            .collect();
        for len in [
            0,
            1,
            33,
            CHECKSUM_BLOCK - 1,
            CHECKSUM_BLOCK,
            CHECKSUM_BLOCK + 1,
            data.len(),
        ] {
            let bytes = &data[..len];
            assert_eq!(block_checksum(bytes), spelled_out(bytes), "len {len}");
            assert_ne!(block_checksum(bytes), checksum(bytes), "len {len}");
        }
        let sum = block_checksum(&data);
        for at in [0, CHECKSUM_BLOCK - 1, CHECKSUM_BLOCK, data.len() - 1] {
            let mut changed = data.clone();
            changed[at] ^= 1;
            assert_ne!(block_checksum(&changed), sum, "byte {at}");
        }
    }

    use super::*;

    /// The cache file of `pages`, each with its layout.
    fn encode<'a>(
        label: &str,
        pages: impl IntoIterator<Item = (&'a PageInfo, TextLayout)>,
    ) -> Vec<u8> {
        let pages = pages.into_iter().map(|(p, l)| (p, Some(l)));
        encode_sources(label, pages, &ParseCache::empty(), |_, _| None)
    }

    /// [`save_copying_for`] of the checked-out branch, every page with its layout.
    fn save<'a>(
        vault_dir: &Path,
        label: &str,
        pages: impl IntoIterator<Item = (&'a PageInfo, TextLayout)>,
        prev: &ParseCache,
        stat: impl Fn(&str, &[u8; 20]) -> Option<FileStat> + Sync,
    ) -> std::io::Result<()> {
        let pages = pages.into_iter().map(|(p, l)| (p, Some(l)));
        save_copying_for(vault_dir, None, label, pages, prev, stat)
    }

    const RICH: &str = "---\nid: entity.alpha\ntitle: Alpha\npageType: entity\nentityType: person\n\
        canonicalId: person.alpha\nstatus: active\nprivacyTier: internal\nupdatedAt: 2026-03-01T00:00:00.000Z\n\
        aliases: [A, Al]\nsourceIds: source.one\nquestions: [Why?]\ncontradictions: [x vs y]\n\
        bestUsedFor: [routing]\nnotEnoughFor: [legal]\nconfidence: 0.75\n\
        personCard:\n  handles: ['@alpha']\n  emails: [a@example.com]\n  timezone: UTC\n  confidence: 0.5\n\
        relationships:\n  - targetId: entity.beta\n    kind: works-with\n    weight: 2\n\
        claims:\n  - id: claim.alpha.one\n    text: Alpha ships.\n    status: contested\n    confidence: 0.4\n\
        \x20   updatedAt: 2026-02-01T00:00:00.000Z\n    evidence:\n      - kind: file\n        sourceId: source.one\n\
        \x20       lines: 1-3\n        weight: 0.5\n  - text: No id.\n---\n\n# Alpha\n\nSee [[Beta]] and [one](../sources/one.md).\n";

    #[test]
    fn entry_has_id_reads_the_page_id_only() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        let alpha = parse_page("entities/alpha.md", RICH.as_bytes()).unwrap();
        let bare =
            parse_page("entities/bare.md", b"---\ntitle: Bare\n---\nentity.alpha\n").unwrap();
        // Multi-byte path and title: the id is found by byte offsets.
        let wide_path = "entities/été.md";
        let wide = parse_page(
            wide_path,
            "---\nid: entity.été\ntitle: Über ✓\n---\n".as_bytes(),
        )
        .unwrap();
        let pages = [&alpha, &bare, &wide];
        let entries = pages.iter().map(|p| (&p.info, TextLayout::of(p)));
        save(vault, "l", entries, &ParseCache::empty(), |_, _| None).unwrap();
        let cache = ParseCache::load(vault);
        let (a, b) = (&alpha.info.blob_id, &bare.info.blob_id);
        let (alpha_path, bare_path) = ("entities/alpha.md", "entities/bare.md");
        let w = &wide.info.blob_id;
        let cases = [
            (wide_path, w, "entity.été", Some(true)),
            (wide_path, w, "entity.ét", Some(false)),
            (wide_path, w, "Über ✓", Some(false)),
            (alpha_path, a, "entity.alpha", Some(true)),
            // Other fields holding the id (its relationships' targets, a body) do not count.
            (alpha_path, a, "entity.beta", Some(false)),
            (alpha_path, a, "entity.alph", Some(false)),
            (bare_path, b, "entity.alpha", Some(false)),
            // Another version of the page, or no entry: unknown.
            (alpha_path, b, "entity.alpha", None),
            ("entities/none.md", a, "entity.alpha", None),
        ];
        for (path, blob, id, want) in cases {
            assert_eq!(cache.entry_has_id(path, blob, id), want, "{path} {id}");
        }
    }

    #[test]
    fn compile_hits_leave_dashboard_texts_out() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        let report_text =
            "---\npageType: report\ntitle: Claim Health\n---\n# Claim Health\n- rows\n";
        let bare_report_text = "# Stale Pages\n- rows\n";
        let report = parse_page("reports/claim-health.md", report_text.as_bytes()).unwrap();
        let bare_report =
            parse_page("reports/stale-pages.md", bare_report_text.as_bytes()).unwrap();
        let alpha = parse_page("entities/alpha.md", RICH.as_bytes()).unwrap();
        let pages = [&report, &bare_report, &alpha];
        let entries = pages.iter().map(|p| (&p.info, TextLayout::of(p)));
        save(vault, "l", entries, &ParseCache::empty(), |_, _| None).unwrap();
        let cache = ParseCache::load(vault);
        // (page, text, text the compile gets)
        let cases = [
            // A dashboard with a frontmatter: the compile reads it from its own copy.
            (&report, report_text, ""),
            // Without a frontmatter, or not a dashboard: the text comes along.
            (&bare_report, bare_report_text, bare_report_text),
            (&alpha, RICH, RICH),
        ];
        for (page, text, want) in cases {
            let (hit, was_hit) = cache.parse_hit_for_compile(&page.path, text.as_bytes(), None);
            let hit = hit.unwrap();
            assert!(was_hit, "{}", page.path);
            assert_eq!(hit.text, want, "{}", page.path);
            assert_eq!(
                hit.body_offset,
                if want.is_empty() { 0 } else { page.body_offset }
            );
            assert_eq!(hit.has_frontmatter, page.has_frontmatter, "{}", page.path);
            assert_eq!(hit.info, page.info, "{}", page.path);
        }
        // Another version of a dashboard is parsed, text and all.
        let edited = format!("{report_text}- more\n");
        let (parsed, was_hit) =
            cache.parse_hit_for_compile("reports/claim-health.md", edited.as_bytes(), None);
        assert!(!was_hit);
        assert_eq!(parsed.unwrap().text, edited);
    }

    /// A file of another format number (or tool version) is ignored as a whole, even with a
    /// valid checksum: it is rebuilt, never misread.
    #[test]
    fn other_formats_and_tool_versions_are_ignored() {
        let page = parse_page("entities/alpha.md", RICH.as_bytes()).unwrap();
        let bytes = encode("l", [(&page.info, TextLayout::of(&page))]);
        assert!(ParseCache::from_bytes(bytes.clone()).is_some());
        let resealed = |mut body: Vec<u8>| {
            body.truncate(body.len() - 8);
            let sum = checksum(&body);
            body.extend_from_slice(&sum.to_le_bytes());
            body
        };
        let mut old = bytes.clone();
        old[MAGIC.len()] = (FORMAT - 1) as u8;
        assert!(ParseCache::from_bytes(resealed(old)).is_none());
        let (index, _) = read_file(&bytes, MAGIC).unwrap();
        let other = Index {
            tool: "wiki-parse 0.0.0".into(),
            ..index
        };
        let area = bytes.len() - 8 - other.entries.iter().map(|e| e.len).sum::<usize>();
        let foreign = write_file(MAGIC, &other, &bytes[area..bytes.len() - 8]);
        assert!(read_file(&foreign, MAGIC).is_none());
    }

    #[test]
    fn round_trip_keeps_every_field() {
        let page = parse_page("entities/alpha.md", RICH.as_bytes()).unwrap();
        assert!(page.info.summary.person_card.is_some() && page.info.links.len() == 2);
        let bytes = encode("native", [(&page.info, TextLayout::of(&page))]);
        let cache = ParseCache::from_bytes(bytes).unwrap();
        assert_eq!(cache.label(), "native");
        assert_eq!(
            cache.get_any("entities/alpha.md").as_ref(),
            Some(&page.info)
        );
        let (info, layout) = cache.get("entities/alpha.md", &page.info.blob_id).unwrap();
        assert_eq!(info, page.info);
        assert_eq!(layout, TextLayout::of(&page));
        let hit = cache
            .parse_hit_for_compile("entities/alpha.md", RICH.as_bytes(), None)
            .0
            .unwrap();
        assert_eq!(hit.info, page.info);
        assert_eq!(hit.body(), page.body());
        assert!(hit.frontmatter.is_empty());
        // Non-ASCII strings everywhere (path, title, claims, links).
        let text = RICH
            .replace("Alpha", "向量检索 Ålpha")
            .replace("alpha", "向量-ålpha");
        let path = "entities/向量-ålpha.md";
        let page = parse_page(path, text.as_bytes()).unwrap();
        assert!(page.info.title.contains('向'));
        let cache = ParseCache::from_bytes(encode("", [(&page.info, TextLayout::of(&page))]));
        assert_eq!(cache.unwrap().get_any(path).as_ref(), Some(&page.info));
    }

    #[test]
    fn misses_on_other_bytes_path_or_damage() {
        let page = parse_page("entities/alpha.md", RICH.as_bytes()).unwrap();
        let bytes = encode("", [(&page.info, TextLayout::of(&page))]);
        let cache = ParseCache::from_bytes(bytes.clone()).unwrap();
        assert!(cache.get("entities/other.md", &page.info.blob_id).is_none());
        let edited = RICH.replace("Alpha ships.", "Alpha sails.");
        let parsed = cache
            .parse_hit_for_compile("entities/alpha.md", edited.as_bytes(), None)
            .0
            .unwrap();
        assert_eq!(parsed.info.summary.claims[0].text, "Alpha sails.");
        assert!(!parsed.frontmatter.is_empty(), "a miss is a real parse");
        for cut in [0, 7, bytes.len() / 2, bytes.len() - 1] {
            assert!(ParseCache::from_bytes(bytes[..cut].to_vec()).is_none());
        }
        let mut flipped = bytes;
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x40;
        assert!(ParseCache::from_bytes(flipped).is_none());
    }

    /// Pages `entities/p<i>.md` for `i` in `range`, page `edited` with other text.
    fn pages(range: std::ops::Range<usize>, edited: Option<usize>) -> Vec<Page> {
        range
            .map(|i| {
                let text = RICH
                    .replace("id: entity.alpha", &format!("id: entity.p{i}"))
                    .replace(
                        "Alpha ships.",
                        if Some(i) == edited {
                            "Edited."
                        } else {
                            "Alpha ships."
                        },
                    );
                parse_page(&format!("entities/p{i}.md"), text.as_bytes()).unwrap()
            })
            .collect()
    }

    fn infos(pages: &[Page]) -> Vec<(&PageInfo, TextLayout)> {
        pages.iter().map(|p| (&p.info, TextLayout::of(p))).collect()
    }

    /// Every entry of `cache` as (path, info, layout), sorted.
    fn contents(cache: &ParseCache) -> Vec<(String, PageInfo, TextLayout)> {
        let mut paths: Vec<&str> = cache.paths().collect();
        paths.sort();
        paths
            .into_iter()
            .map(|p| {
                let (info, layout) = cache.get_any_with_layout(p).unwrap();
                (p.to_string(), info, layout)
            })
            .collect()
    }

    #[test]
    fn pages_without_a_layout_are_copied_or_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        let stat = |_: &str, _: &[u8; 20]| None;
        let first = pages(0..300, None);
        save(vault, "one", infos(&first), &ParseCache::empty(), stat).unwrap();
        let prev = ParseCache::load(vault);
        // Every page given without a layout: the hits are copied; the edited page (the cache
        // holds another version of it) is left out, never saved with a made-up layout.
        let second = pages(0..300, Some(5));
        let given = || second.iter().map(|p| (&p.info, None));
        let want = ParseCache::from_bytes(encode(
            "two",
            infos(&second)
                .into_iter()
                .filter(|(p, _)| p.path != "entities/p5.md"),
        ))
        .unwrap();
        // As a whole file, and as a delta (few changes: what `save_copying_for` writes here).
        let whole = ParseCache::from_bytes(encode_sources("two", given(), &prev, stat)).unwrap();
        assert_eq!(contents(&whole), contents(&want));
        save_copying_for(vault, None, "two", given(), &prev, stat).unwrap();
        assert!(vault.join(DELTA_PATH).exists());
        let loaded = ParseCache::load(vault);
        assert!(!loaded.contains("entities/p5.md"));
        assert_eq!(contents(&loaded), contents(&want));
    }

    #[test]
    fn small_changes_are_saved_as_a_delta_file() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path();
        let stat = |_: &str, _: &[u8; 20]| None;
        let first = pages(0..400, None);
        save(vault, "one", infos(&first), &ParseCache::empty(), stat).unwrap();
        let base = std::fs::read(vault.join(CACHE_PATH)).unwrap();
        assert!(!vault.join(DELTA_PATH).exists());

        // One page edited, one removed, one added: only the delta file is written.
        let mut second = pages(0..400, Some(7));
        second.remove(3);
        second.extend(pages(400..401, None));
        let prev = ParseCache::load(vault);
        save(vault, "two", infos(&second), &prev, stat).unwrap();
        assert_eq!(std::fs::read(vault.join(CACHE_PATH)).unwrap(), base);
        let delta_len = std::fs::metadata(vault.join(DELTA_PATH)).unwrap().len();
        assert!(delta_len * 50 < base.len() as u64, "{delta_len} bytes");
        let loaded = ParseCache::load(vault);
        let full = ParseCache::from_bytes(encode("two", infos(&second))).unwrap();
        assert_eq!(loaded.label(), "two");
        assert_eq!(contents(&loaded), contents(&full));
        assert!(!loaded.contains("entities/p3.md"));
        let edited = loaded
            .get("entities/p7.md", &second[6].info.blob_id)
            .unwrap();
        assert_eq!(edited.0.summary.claims[0].text, "Edited.");

        // A second small save on top of the delta keeps every earlier change.
        let mut third = second.clone();
        third.retain(|p| p.info.path != "entities/p9.md");
        let prev = ParseCache::load(vault);
        save(vault, "three", infos(&third), &prev, stat).unwrap();
        assert_eq!(std::fs::read(vault.join(CACHE_PATH)).unwrap(), base);
        let full = ParseCache::from_bytes(encode("three", infos(&third))).unwrap();
        assert_eq!(contents(&ParseCache::load(vault)), contents(&full));

        // A damaged delta, or one for another cache file, is ignored (the cache file alone).
        let good = std::fs::read(vault.join(DELTA_PATH)).unwrap();
        let mut bad = good.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 1;
        std::fs::write(vault.join(DELTA_PATH), &bad).unwrap();
        let only_base = ParseCache::from_bytes(base.clone()).unwrap();
        assert_eq!(contents(&ParseCache::load(vault)), contents(&only_base));
        let mut other = ParseCache::from_bytes(encode("x", infos(&first[..10]))).unwrap();
        assert!(!other.apply_delta(good.clone()));
        assert_eq!(other.len(), 10);
        std::fs::write(vault.join(DELTA_PATH), &good).unwrap();

        // Many changes: the whole cache is written again and the delta removed.
        let many = pages(0..400, None)
            .into_iter()
            .map(|p| {
                let text = p.text.replace("# Alpha", "# Alpha, renamed");
                parse_page(&p.info.path, text.as_bytes()).unwrap()
            })
            .collect::<Vec<_>>();
        let prev = ParseCache::load(vault);
        save(vault, "four", infos(&many), &prev, stat).unwrap();
        assert!(!vault.join(DELTA_PATH).exists());
        assert_ne!(std::fs::read(vault.join(CACHE_PATH)).unwrap(), base);
        let full = ParseCache::from_bytes(encode("four", infos(&many))).unwrap();
        assert_eq!(contents(&ParseCache::load(vault)), contents(&full));
    }
}
