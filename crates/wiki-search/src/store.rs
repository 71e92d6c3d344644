//! The index sidecar: a manifest naming immutable segments, refreshed incrementally.
//!
//! # Files
//!
//! One directory per indexed view, under `<vault>/.openclaw-wiki/index/` (git-ignored; a
//! `.gitignore` ignoring everything is written there too):
//!
//! * `wiki-worktree/` — the vault's work tree; `wiki-agent-<id>/` — branch `agents/<id>` read
//!   from git (no checkout); `memory-<hash>/` — a memory workspace (hash of its absolute path);
//! * `MANIFEST` — which files are indexed: per file its path, size, mtime, ctime, git blob id and where
//!   its documents are (segment, first document, count), plus corpus statistics and the stamps
//!   of the directories listed (sources that stamp them);
//! * `seg-<random>.bin` — immutable segments ([`crate::segment`]);
//! * `lock` — taken (OS file lock) by writers only.
//!
//! # Refresh (before every query)
//!
//! 0. A source that stamps the directories it lists (the memory workspace: see
//!    [`DirStamp`]) is asked first whether the manifest is still current ([`Source::unchanged`]):
//!    every directory its last listing read has the same identity, mtime and ctime (so no file
//!    was added, removed or renamed there), and every indexed file the stat data of its entry
//!    (not racily clean, as in step 2). Then the query runs on the manifest as is, without
//!    reading a directory, writing or locking; else steps 1–5 run.
//! 1. List the source's files (work tree: the vault layer's listing, one `statx` per page
//!    relative to its directory's fd, spread over the thread pool; see
//!    [`crate::sources::WorkTree`]; git:
//!    tree walk, blob ids known; memory: `MEMORY.md`, `memory.md`, `memory/**/*.md`). The
//!    manifest is read at the same time.
//! 2. A file whose size, mtime and ctime (status change time: an edit in place that puts the
//!    mtime back still changes it) equal the manifest's is unchanged — unless either time is
//!    within two seconds of when it was last hashed, or after it ("racily clean", as git calls
//!    it), in which case it is re-hashed. Nothing changed → the query runs on the manifest as is, without any write or
//!    lock.
//! 3. Otherwise take the lock, re-read the manifest, and for each changed file compute its git blob
//!    id: same blob → only the stat data is updated; a `(path, blob)` already present in a segment
//!    (for instance after switching branches back and forth) → reused without re-tokenising;
//!    else the file is parsed and tokenised (in parallel) into a new segment. Deleted files are
//!    dropped from the manifest (their documents become dead).
//! 4. When there are more than [`MAX_SEGMENTS`] segments, or many more dead documents than live
//!    ones, all live documents are merged into one segment (posting lists are merged, nothing is
//!    re-tokenised).
//! 5. The new manifest is written to a temporary file and renamed over `MANIFEST`; segments no
//!    longer referenced are deleted.
//!
//! `wiki search --no-refresh` skips steps 1–5 when an index exists (the listing is the main cost
//! of a warm search on large vaults: one `lstat` per page).
//!
//! Readers never lock: `MANIFEST` is replaced atomically and segments never change, so a reader
//! sees either the old or the new complete index. A reader that finds a segment deleted under it
//! (a concurrent writer's clean-up) starts over. A manifest or segment that fails validation, or
//! that has another format version, is reported on stderr and the index is rebuilt.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

use wiki_vault::sealed::SealError;

use crate::codec::{self, Corrupt};
use crate::doc::{FIELDS, IndexDoc};
use crate::segment::{self, DocMeta, OpenError, Posting, Segment};

const MAGIC: &[u8; 8] = b"WSRCHMAN";
/// Manifest format version (bump on any change of the manifest, segment or stored formats, or of
/// tokenisation).
pub const VERSION: u32 = 6;
/// Segment count above which segments are merged.
pub const MAX_SEGMENTS: usize = 8;
const NONE: u32 = u32::MAX;
const RACY_NS: i64 = 2_000_000_000;

/// A file as listed by a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Relative path (`/` separators).
    pub path: String,
    /// Size in bytes (0 when unknown).
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (0 when unknown).
    pub mtime_ns: i64,
    /// Status change time in nanoseconds since the epoch (0 when unknown): an edit in place
    /// that keeps the size and puts the modification time back still changes it.
    pub ctime_ns: i64,
    /// The git blob id when the source knows it (git trees).
    pub blob: Option<[u8; 20]>,
}

/// A directory a listing read, stamped just before it was read: while its identity and its
/// modification and status change times stay the same, no entry was added to it, removed from it
/// or renamed in it since (unless it changed within [`RACY_NS`] of when the stamp was recorded,
/// as file stat data; see [`DirStamp::racy`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirStamp {
    /// Relative path (`/` separators).
    pub path: String,
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Status change time in nanoseconds since the epoch.
    pub ctime_ns: i64,
}

impl DirStamp {
    /// Whether the directory changed too close to `checked_ns` (when the stamp was recorded) for
    /// the stamp to vouch for it: a change in the same clock tick would keep the same times.
    pub fn racy(&self, checked_ns: i64) -> bool {
        self.mtime_ns.max(self.ctime_ns).saturating_add(RACY_NS) >= checked_ns
    }
}

/// Whether `stat` (size, mtime, ctime of a regular file) is the unchanged, not racily clean
/// file of `e` (the test of the refresh's fast path).
pub fn same_stat(e: &Entry, size: u64, mtime_ns: i64, ctime_ns: i64) -> bool {
    e.size == size
        && e.mtime_ns == mtime_ns
        && e.ctime_ns == ctime_ns
        && mtime_ns.max(ctime_ns).saturating_add(RACY_NS) < e.checked_ns
}

/// Where indexed files come from.
pub trait Source: Sync {
    /// All files to index, sorted by path.
    fn list(&self) -> Result<Vec<SourceFile>, crate::Error>;
    /// [`Source::list`] with the stamps of the directories it read, each taken before the
    /// directory was read (`None`: this source does not stamp its directories).
    fn list_stamped(&self) -> Result<(Vec<SourceFile>, Option<Vec<DirStamp>>), crate::Error> {
        Ok((self.list()?, None))
    }
    /// Whether [`Source::unchanged`] can vouch for an index (then a query reads the manifest
    /// first and lists the source only when it cannot).
    fn vouches(&self) -> bool {
        false
    }
    /// Whether the files of `m` are all unchanged and no file was added, told from the
    /// manifest's directory stamps and one `stat` per file, without reading a directory
    /// (`false` when it cannot tell: the source is listed then).
    fn unchanged(&self, m: &Manifest) -> bool {
        let _ = m;
        false
    }
    /// The bytes of a file.
    fn read(&self, file: &SourceFile) -> Result<Vec<u8>, crate::Error>;
    /// Documents of a file (none when it cannot be parsed).
    fn docs(&self, path: &str, bytes: &[u8], blob: [u8; 20]) -> Vec<IndexDoc>;
}

/// One indexed file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Relative path.
    pub path: String,
    /// Size when last checked.
    pub size: u64,
    /// Modification time when last checked.
    pub mtime_ns: i64,
    /// Status change time when last checked.
    pub ctime_ns: i64,
    /// When the file was last hashed.
    pub checked_ns: i64,
    /// Git blob id.
    #[serde(with = "serde_bytes")]
    pub blob: [u8; 20],
    /// Segment index, or `u32::MAX` when the file has no documents.
    pub seg: u32,
    /// First document in the segment.
    pub doc: u32,
    /// Number of documents.
    pub ndocs: u32,
}

/// The manifest: segments, files and statistics (a sealed file, [`wiki_vault::sealed`]).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Segment file names.
    pub segments: Vec<String>,
    /// Indexed files, sorted by path (one byte string: [`entry_table`]).
    #[serde(with = "entry_table")]
    pub entries: Vec<Entry>,
    /// Live documents.
    pub live_docs: u64,
    /// Sum of field lengths over live documents.
    pub sum_lens: [u64; crate::doc::FIELDS],
    /// The directories of the listing the entries were written from (sources that stamp them,
    /// [`Source::list_stamped`]), sorted by path.
    pub dirs: Vec<DirStamp>,
    /// When `dirs` were recorded (0: they vouch for nothing: the source does not stamp its
    /// directories, or a listed file could not be read).
    pub dirs_checked_ns: i64,
}

impl Manifest {
    /// The entry of a path.
    pub fn entry(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// Whether the directory stamps of a listing are the manifest's, recorded long enough
    /// after the directories last changed to vouch for them (`None`: the source has none).
    fn stamps_current(&self, stamps: Option<&[DirStamp]>) -> bool {
        stamps.is_none_or(|s| {
            self.dirs_checked_ns != 0
                && self.dirs == s
                && !s.iter().any(|d| d.racy(self.dirs_checked_ns))
        })
    }
}

impl Manifest {
    fn encode(&self) -> Vec<u8> {
        wiki_vault::sealed::seal(MAGIC, VERSION, self, &[])
    }

    fn decode(bytes: &[u8]) -> Result<Manifest, LoadError> {
        let corrupt = |what: String| LoadError::Corrupt(Corrupt::new(format!("MANIFEST: {what}")));
        let m: Manifest = match wiki_vault::sealed::unseal(bytes, MAGIC, VERSION) {
            Ok((m, tail, _)) if tail.is_empty() => m,
            Ok(_) => return Err(corrupt("trailing bytes".into())),
            Err(SealError::Version(v)) => return Err(LoadError::Version(v)),
            Err(e) => return Err(corrupt(e.to_string())),
        };
        if !m.segments.iter().all(|s| valid_segment_name(s)) {
            return Err(corrupt("bad segment name".into()));
        }
        if m.entries
            .iter()
            .any(|e| e.seg != NONE && e.seg as usize >= m.segments.len())
        {
            return Err(corrupt("entry refers to a missing segment".into()));
        }
        if m.entries.windows(2).any(|w| w[0].path >= w[1].path) {
            return Err(corrupt("entries out of order".into()));
        }
        Ok(m)
    }
}

/// The entries of a manifest as one byte string: their count, then per entry its path
/// (length-prefixed), size, mtime, ctime, checked time, blob id, segment, first document and
/// document count. Every query reads the manifest: decoding a few thousand entries from this
/// is a fraction of decoding them field by field as MessagePack values.
mod entry_table {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use super::Entry;
    use crate::codec::{Reader, put_bytes, put_varint};

    pub fn serialize<S: Serializer>(entries: &[Entry], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(entries.len() * 64);
        put_varint(&mut out, entries.len() as u64);
        for e in entries {
            put_bytes(&mut out, e.path.as_bytes());
            put_varint(&mut out, e.size);
            for t in [e.mtime_ns, e.ctime_ns, e.checked_ns] {
                out.extend_from_slice(&t.to_le_bytes());
            }
            out.extend_from_slice(&e.blob);
            for n in [e.seg, e.doc, e.ndocs] {
                put_varint(&mut out, u64::from(n));
            }
        }
        s.serialize_bytes(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Entry>, D::Error> {
        let bytes = serde_bytes::ByteBuf::deserialize(d)?;
        decode(&bytes).map_err(|e| D::Error::custom(format!("entry table: {e}")))
    }

    fn decode(bytes: &[u8]) -> Result<Vec<Entry>, crate::codec::Corrupt> {
        let mut r = Reader::new(bytes);
        // Each entry takes at least 50 bytes: the count cannot claim more.
        let n = r.len(bytes.len() / 50)?;
        let mut out = Vec::with_capacity(n);
        let u32_of = |v: u64| {
            u32::try_from(v).map_err(|_| crate::codec::Corrupt::new("number out of range"))
        };
        for _ in 0..n {
            let path = r.str()?.to_string();
            let size = r.varint()?;
            let mtime_ns = r.u64()? as i64;
            let ctime_ns = r.u64()? as i64;
            let checked_ns = r.u64()? as i64;
            let blob = r.oid()?;
            let seg = u32_of(r.varint()?)?;
            let doc = u32_of(r.varint()?)?;
            let ndocs = u32_of(r.varint()?)?;
            out.push(Entry {
                path,
                size,
                mtime_ns,
                ctime_ns,
                checked_ns,
                blob,
                seg,
                doc,
                ndocs,
            });
        }
        if !r.is_empty() {
            return Err(crate::codec::Corrupt::new("trailing bytes"));
        }
        Ok(out)
    }
}

fn valid_segment_name(name: &str) -> bool {
    name.starts_with("seg-")
        && name.ends_with(".bin")
        && name.len() < 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}

/// Why an index could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Corrupt data.
    #[error("{0}")]
    Corrupt(Corrupt),
    /// Another format version.
    #[error("index format version {0} (this build uses version {VERSION})")]
    Version(u32),
    /// A segment disappeared (a concurrent writer replaced the index): retry.
    #[error("segment vanished")]
    Vanished,
    /// I/O failure.
    #[error("{0}")]
    Io(String),
}

impl From<OpenError> for LoadError {
    fn from(e: OpenError) -> Self {
        match e {
            OpenError::Io(_, io) if io.kind() == std::io::ErrorKind::NotFound => {
                LoadError::Vanished
            }
            OpenError::Io(p, io) => LoadError::Io(format!("{}: {io}", p.display())),
            OpenError::Corrupt(c) => LoadError::Corrupt(c),
            OpenError::Version(v) => LoadError::Version(v),
        }
    }
}

/// What a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshReport {
    /// Files in the source.
    pub files: usize,
    /// Live documents.
    pub docs: u64,
    /// Files parsed and tokenised.
    pub tokenized: usize,
    /// Changed files whose documents were found in existing segments.
    pub reused: usize,
    /// Files whose stat data changed but whose content did not.
    pub touched: usize,
    /// Files dropped.
    pub removed: usize,
    /// Whether segments were merged.
    pub compacted: bool,
    /// Whether the index was rebuilt from scratch (and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
    /// Segments after the refresh.
    pub segments: usize,
}

/// An index ready for queries.
#[derive(Debug)]
pub struct Index {
    /// Index directory.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
    /// Open segments (same order as the manifest's).
    pub segments: Vec<Segment>,
    /// Live flags per segment and document.
    pub live: Vec<Vec<bool>>,
    /// What the refresh did.
    pub report: RefreshReport,
    ref_pages: std::sync::OnceLock<Vec<crate::reference::RefPage>>,
    /// Decoded postings and stored documents, kept when [`Index::keep_decoded`] asked for it
    /// (the search server answers many queries from one index).
    cache: Option<std::sync::Mutex<Decoded>>,
    _temp: Option<TempDir>,
}

/// Live postings of a term across segments: `(segment, (doc, term frequencies per field))`.
pub type LivePostings = Vec<(usize, Posting)>;

/// What [`Index::keep_decoded`] keeps.
#[derive(Debug, Default)]
struct Decoded {
    postings: HashMap<String, std::sync::Arc<LivePostings>>,
    /// Postings held in `postings` (the map is emptied above [`MAX_CACHED_POSTINGS`]).
    npostings: usize,
    stored: HashMap<(usize, u32), std::sync::Arc<crate::doc::StoredDoc>>,
    /// Weighted, length-normalised term frequency of each posting of a term (aligned with its
    /// cached postings), per field-weight set: see [`Index::term_weights`].
    weighted: HashMap<(String, [u64; FIELDS]), std::sync::Arc<Vec<f64>>>,
}

/// Bound of the postings cache (32 bytes each).
const MAX_CACHED_POSTINGS: usize = 1 << 20;

/// A directory removed on drop (index of a source whose own directory is not writable).
#[derive(Debug)]
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Index {
    /// Average length of each field over live documents.
    pub fn avg_lens(&self) -> [f64; FIELDS] {
        let n = self.manifest.live_docs.max(1) as f64;
        let mut out = [0.0; FIELDS];
        for (o, s) in out.iter_mut().zip(self.manifest.sum_lens) {
            *o = (s as f64 / n).max(1.0);
        }
        out
    }

    /// Whether a document is live.
    pub fn is_live(&self, seg: usize, doc: u32) -> bool {
        self.live
            .get(seg)
            .and_then(|l| l.get(doc as usize))
            .copied()
            .unwrap_or(false)
    }

    fn cached(&self) -> Option<std::sync::MutexGuard<'_, Decoded>> {
        self.cache
            .as_ref()
            .map(|c| c.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Live postings of a term across segments: `(segment, doc, tfs)`.
    pub fn postings(&self, term: &str) -> Result<std::sync::Arc<LivePostings>, crate::Error> {
        if let Some(p) = self.cached().and_then(|c| c.postings.get(term).cloned()) {
            return Ok(p);
        }
        let p = std::sync::Arc::new(self.read_postings(term)?);
        if let Some(mut c) = self.cached() {
            if c.npostings + p.len() > MAX_CACHED_POSTINGS {
                c.postings.clear();
                c.weighted.clear();
                c.npostings = 0;
            }
            c.npostings += p.len();
            c.postings
                .insert(term.to_string(), std::sync::Arc::clone(&p));
        }
        Ok(p)
    }

    fn read_postings(&self, term: &str) -> Result<LivePostings, crate::Error> {
        let mut out = Vec::new();
        for (s, seg) in self.segments.iter().enumerate() {
            let info = seg.lookup(term).map_err(|e| self.corrupt(e))?;
            if let Some(info) = info {
                for p in seg.postings(info).map_err(|e| self.corrupt(e))? {
                    if self.is_live(s, p.0) {
                        out.push((s, p));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The stored document of `(segment, doc)`.
    pub fn stored(&self, seg: usize, doc: u32) -> Result<crate::doc::StoredDoc, crate::Error> {
        if self.cache.is_some() {
            return Ok((*self.stored_shared(seg, doc)?).clone());
        }
        self.read_stored(seg, doc)
    }

    /// `weigh(postings)` for the postings of `term` under the field weights `weights`, kept
    /// with the decoded postings when [`Index::keep_decoded`] asked for it (the weighted
    /// frequencies depend on the term's postings, the weights and this index's average field
    /// lengths only, all fixed for this index). `None` when nothing is kept.
    pub fn term_weights(
        &self,
        term: &str,
        weights: &[f64; FIELDS],
        weigh: impl FnOnce() -> Vec<f64>,
    ) -> Option<std::sync::Arc<Vec<f64>>> {
        let key = (term.to_string(), weights.map(f64::to_bits));
        if let Some(w) = self.cached()?.weighted.get(&key).cloned() {
            return Some(w);
        }
        let w = std::sync::Arc::new(weigh());
        let mut c = self.cached()?;
        // Only next to the postings they were computed from (both go when the cache is emptied).
        if c.postings.contains_key(term) {
            c.weighted.insert(key, std::sync::Arc::clone(&w));
        }
        Some(w)
    }

    /// [`Index::stored`], shared (no copy when it is kept, see [`Index::keep_decoded`]).
    pub fn stored_shared(
        &self,
        seg: usize,
        doc: u32,
    ) -> Result<std::sync::Arc<crate::doc::StoredDoc>, crate::Error> {
        if let Some(d) = self
            .cached()
            .and_then(|c| c.stored.get(&(seg, doc)).cloned())
        {
            return Ok(d);
        }
        let d = std::sync::Arc::new(self.read_stored(seg, doc)?);
        if let Some(mut c) = self.cached() {
            c.stored.insert((seg, doc), std::sync::Arc::clone(&d));
        }
        Ok(d)
    }

    fn read_stored(&self, seg: usize, doc: u32) -> Result<crate::doc::StoredDoc, crate::Error> {
        self.segments
            .get(seg)
            .ok_or_else(|| crate::Error::Corrupt(self.dir.clone(), "segment out of range".into()))?
            .stored(doc)
            .map_err(|e| self.corrupt(e))
    }

    /// Keep decoded postings (up to a bound) and stored documents in memory from now on, for an
    /// index that answers many queries (the search server), and decode every live stored
    /// document now (in parallel), taking those of `previous` (an earlier index of the same
    /// directory) that are in segments both share. Segments never change, so what is kept stays
    /// exact for the life of the index.
    pub fn keep_decoded(&mut self, previous: Option<&Index>) -> Result<(), crate::Error> {
        let mut kept = Decoded::default();
        if let Some(mut old) = previous.and_then(Index::cached) {
            let now: HashMap<&str, usize> = self
                .manifest
                .segments
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i))
                .collect();
            for ((s, d), doc) in old.stored.drain() {
                if let Some(&i) = previous
                    .and_then(|p| p.manifest.segments.get(s))
                    .and_then(|n| now.get(n.as_str()))
                {
                    kept.stored.insert((i, d), doc);
                }
            }
        }
        let missing: Vec<(usize, u32)> = self
            .live_docs()
            .into_iter()
            .map(|(s, d, _)| (s, d))
            .filter(|k| !kept.stored.contains_key(k))
            .collect();
        let decoded: Vec<((usize, u32), crate::doc::StoredDoc)> = missing
            .into_par_iter()
            .map(|(s, d)| {
                let doc = self.read_stored(s, d)?;
                // Folded once here rather than by the first query that ranks it.
                if let crate::doc::StoredDoc::Page(p) = &doc {
                    p.fold_all();
                }
                Ok(((s, d), doc))
            })
            .collect::<Result<_, crate::Error>>()?;
        for (k, doc) in decoded {
            kept.stored.insert(k, std::sync::Arc::new(doc));
        }
        self.cache = Some(std::sync::Mutex::new(kept));
        Ok(())
    }

    fn corrupt(&self, e: OpenError) -> crate::Error {
        crate::Error::Corrupt(self.dir.clone(), e.to_string())
    }

    /// Every live stored page prepared for the reference scoring (read once per process: the
    /// reference ranking looks at every page for every query).
    pub fn reference_pages(&self) -> Result<&[crate::reference::RefPage], crate::Error> {
        if let Some(p) = self.ref_pages.get() {
            return Ok(p);
        }
        let mut pages = Vec::new();
        for (s, d, _) in self.live_docs() {
            if let crate::doc::StoredDoc::Page(p) = self.stored(s, d)? {
                pages.push(crate::reference::RefPage::new(p));
            }
        }
        Ok(self.ref_pages.get_or_init(|| pages))
    }

    /// Live documents as `(segment, doc, entry index)`.
    pub fn live_docs(&self) -> Vec<(usize, u32, usize)> {
        let mut out = Vec::new();
        for (i, e) in self.manifest.entries.iter().enumerate() {
            if e.seg != NONE {
                for d in e.doc..e.doc + e.ndocs {
                    out.push((e.seg as usize, d, i));
                }
            }
        }
        out
    }

    /// The entry of a path.
    pub fn entry(&self, path: &str) -> Option<&Entry> {
        self.manifest.entry(path)
    }

    /// Page ids of live documents, `(path, id)` in path order.
    pub fn ids(&self) -> Result<Vec<(String, String)>, crate::Error> {
        let metas: Vec<Vec<DocMeta>> = self
            .segments
            .iter()
            .map(|s| s.doc_metas().map_err(|e| self.corrupt(e)))
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for e in &self.manifest.entries {
            if e.seg != NONE
                && let Some(m) = metas
                    .get(e.seg as usize)
                    .and_then(|m| m.get(e.doc as usize))
                && let Some(id) = &m.id
            {
                out.push((e.path.clone(), id.clone()));
            }
        }
        Ok(out)
    }
}

/// Options of [`open`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Throw the index away and rebuild it.
    pub rebuild: bool,
    /// Program name for stderr messages (`wiki-search`).
    pub program: String,
    /// Use the index as it is when one exists (no listing, no change detection): results may be
    /// stale. A missing or unreadable index is still built.
    pub no_refresh: bool,
}

fn now_ns() -> i64 {
    // File-system time (compared with mtimes), deliberately not the pinned `--now` clock.
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// A unique temporary file path in `dir`.
pub fn temp_path(dir: &Path, what: &str) -> PathBuf {
    dir.join(format!("tmp-{what}-{}", unique()))
}

fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let seed = format!("{}-{}-{n}", std::process::id(), now_ns());
    let h = codec::checksum(seed.as_bytes());
    format!("{h:016x}")
}

/// The manifest of the index in `dir`, if it exists and reads (nothing is written).
pub fn load_manifest(dir: &Path) -> Option<Manifest> {
    load(dir).ok().flatten().map(|(m, _)| m)
}

/// How many files differ between a manifest and a listing: listed files without an entry or
/// whose stat data (or blob id, when the listing has one) differs, and entries no longer listed.
pub fn changed_files(manifest: &Manifest, listed: &[SourceFile]) -> usize {
    let mut entries = manifest.entries.iter().peekable();
    let mut changed = 0;
    for f in listed {
        while entries.next_if(|e| e.path < f.path).is_some() {
            changed += 1;
        }
        match entries.next_if(|e| e.path == f.path) {
            Some(e) => {
                let same = match f.blob {
                    Some(blob) => blob == e.blob,
                    None => {
                        e.size == f.size && e.mtime_ns == f.mtime_ns && e.ctime_ns == f.ctime_ns
                    }
                };
                changed += usize::from(!same);
            }
            None => changed += 1,
        }
    }
    changed + entries.count()
}

/// A manifest and its open segments, if the index exists.
type Loaded = Result<Option<(Manifest, Vec<Segment>)>, LoadError>;

fn load(dir: &Path) -> Loaded {
    let bytes = match wiki_cli::read::read_bounded(&dir.join("MANIFEST"), wiki_vault::DERIVED_LIMIT)
    {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(LoadError::Io(format!("{}: {e}", dir.display()))),
    };
    let manifest = Manifest::decode(&bytes)?;
    let mut segments = Vec::with_capacity(manifest.segments.len());
    for name in &manifest.segments {
        segments.push(Segment::open(&dir.join(name))?);
    }
    for e in &manifest.entries {
        if e.seg != NONE {
            let seg = &segments[e.seg as usize];
            if e.doc.checked_add(e.ndocs).is_none_or(|end| end > seg.ndocs) {
                return Err(LoadError::Corrupt(Corrupt::new(
                    "MANIFEST: entry refers to missing documents",
                )));
            }
        }
    }
    Ok(Some((manifest, segments)))
}

/// What has to be done to bring a manifest up to date.
struct Plan {
    /// Indices (into the source list) of files to hash.
    check: Vec<usize>,
    /// Old entry of each source file, if any.
    old: Vec<Option<usize>>,
    removed: usize,
}

/// `forced`: paths (sorted) known to have changed (the search server's file events), checked
/// even when their stat data agrees with the manifest.
/// Whether an index with `manifest` covers exactly the pages of `files` (a listing of its
/// source): the test of the refresh's lock-free fast path, racily clean entries counting as
/// changed. A process that keeps an index between requests ([`crate::resident`]) uses it as is
/// only then.
pub fn is_current(manifest: &Manifest, files: &[SourceFile]) -> bool {
    let p = plan(files, manifest, &[]);
    p.check.is_empty() && p.removed == 0
}

fn plan(files: &[SourceFile], m: &Manifest, forced: &[String]) -> Plan {
    let mut check = Vec::new();
    let mut old = Vec::with_capacity(files.len());
    let mut j = 0;
    let mut kept = 0;
    for (i, f) in files.iter().enumerate() {
        while j < m.entries.len() && m.entries[j].path < f.path {
            j += 1;
        }
        let e = (j < m.entries.len() && m.entries[j].path == f.path).then_some(j);
        old.push(e);
        match e {
            Some(k) => {
                kept += 1;
                let e = &m.entries[k];
                let same = forced.binary_search(&f.path).is_err()
                    && match f.blob {
                        Some(b) => b == e.blob,
                        None => same_stat(e, f.size, f.mtime_ns, f.ctime_ns),
                    };
                if !same {
                    check.push(i);
                }
            }
            None => check.push(i),
        }
    }
    Plan {
        check,
        old,
        removed: m.entries.len() - kept,
    }
}

fn wipe(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name == "MANIFEST" || name.starts_with("seg-") || name.starts_with("tmp-") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Make sure `dir` exists and is writable; write the `.gitignore` of the index root.
pub(crate) fn prepare_dir(dir: &Path) -> bool {
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    if let Some(parent) = dir.parent() {
        let gi = parent.join(".gitignore");
        if !gi.exists() {
            let _ = std::fs::write(&gi, "*\n");
        }
    }
    let probe = temp_path(dir, "probe");
    match File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

/// Open the index in `dir` for `source`, refreshing it first (see the module docs).
pub fn open(dir: &Path, source: &dyn Source, opts: &Options) -> Result<Index, crate::Error> {
    // `WIKI_SEARCH_TRACE=1`: timings on stderr (benchmarks).
    let trace = std::env::var_os("WIKI_SEARCH_TRACE").is_some();
    let t0 = std::time::Instant::now();
    // The manifest first when it may be enough: with `--no-refresh`, or when the source can
    // vouch for it without a listing. Nothing is written on this path.
    let mut preloaded = None;
    if !opts.rebuild && (opts.no_refresh || source.vouches()) {
        match load(dir) {
            Ok(Some((m, segs))) if opts.no_refresh || source.unchanged(&m) => {
                if trace {
                    eprintln!(
                        "trace: manifest vouched {:.3} ms",
                        t0.elapsed().as_secs_f64() * 1000.0
                    );
                }
                let n = m.entries.len();
                let report = RefreshReport::default();
                return Ok(finish(dir.to_path_buf(), m, segs, report, n, None));
            }
            loaded => preloaded = Some(loaded),
        }
    }
    let (dir, temp) = usable_dir(dir, opts)?;
    if temp.is_some() {
        preloaded = None;
    }
    let listed = |trace: bool| {
        let listed = source.list_stamped();
        if trace && let Ok((f, _)) = &listed {
            eprintln!(
                "trace: list {} files {:.3} ms",
                f.len(),
                t0.elapsed().as_secs_f64() * 1000.0
            );
        }
        listed
    };
    let (listing, preloaded) = match preloaded {
        Some(loaded) => (listed(trace), Some(loaded)),
        // The listing (system calls, spread over the thread pool) and the manifest load run at
        // the same time; either order would do, as the fast path below needs the two to agree.
        None => rayon::join(
            || listed(trace),
            || {
                let t = std::time::Instant::now();
                let loaded = (!opts.rebuild).then(|| load(&dir));
                if trace {
                    eprintln!(
                        "trace: load manifest {:.3} ms",
                        t.elapsed().as_secs_f64() * 1000.0
                    );
                }
                loaded
            },
        ),
    };
    let (files, stamps) = listing?;
    let listing = Listing {
        files: &files,
        stamps: stamps.as_deref(),
        forced: &[],
    };
    refresh(dir, temp, source, &listing, preloaded, opts)
}

/// What a refresh brings the index up to date with.
struct Listing<'a> {
    /// The source's files.
    files: &'a [SourceFile],
    /// The stamps of the directories the listing read, if the source stamps them.
    stamps: Option<&'a [DirStamp]>,
    /// Paths (sorted) known to have changed (the search server's file events), checked even
    /// when their stat data agrees with the manifest.
    forced: &'a [String],
}

/// [`open`] with a listing the caller already has instead of `source.list()` (the search
/// server, which learns from file events what changed): the same refresh, where the paths in
/// `changed` (sorted) are hashed again even when their stat data agrees with the manifest.
pub fn open_listed(
    dir: &Path,
    source: &dyn Source,
    files: &[SourceFile],
    changed: &[String],
    opts: &Options,
) -> Result<Index, crate::Error> {
    let (dir, temp) = usable_dir(dir, opts)?;
    let listing = Listing {
        files,
        stamps: None,
        forced: changed,
    };
    refresh(dir, temp, source, &listing, None, opts)
}

/// `dir` when it can be written, else a temporary directory removed with the index.
fn usable_dir(dir: &Path, opts: &Options) -> Result<(PathBuf, Option<TempDir>), crate::Error> {
    if prepare_dir(dir) {
        return Ok((dir.to_path_buf(), None));
    }
    let t = std::env::temp_dir().join(format!("wiki-search-index-{}", unique()));
    std::fs::create_dir_all(&t).map_err(|e| crate::Error::Io(t.clone(), e))?;
    wiki_cli::warn(
        &opts.program,
        &format!(
            "cannot write the index in {}: using a temporary index",
            dir.display()
        ),
    );
    Ok((t.clone(), Some(TempDir(t))))
}

/// Steps 2–5 of the module docs for `listing` (`preloaded`: the manifest, when it was read
/// before or alongside the listing).
fn refresh(
    dir: PathBuf,
    temp: Option<TempDir>,
    source: &dyn Source,
    listing: &Listing<'_>,
    mut preloaded: Option<Loaded>,
    opts: &Options,
) -> Result<Index, crate::Error> {
    let files = listing.files;
    for _attempt in 0..5 {
        // Lock-free fast path: nothing changed (and the directory stamps, when the source has
        // them, are recorded: else the manifest is written again with them).
        if !opts.rebuild {
            match preloaded.take().unwrap_or_else(|| load(&dir)) {
                Ok(Some((m, segs))) => {
                    let p = plan(files, &m, listing.forced);
                    if p.check.is_empty() && p.removed == 0 && m.stamps_current(listing.stamps) {
                        return Ok(finish(
                            dir,
                            m,
                            segs,
                            RefreshReport::default(),
                            files.len(),
                            temp,
                        ));
                    }
                }
                Ok(None) => {}
                Err(LoadError::Vanished) => continue,
                Err(_) => {} // reported and repaired under the lock
            }
        }
        let _lock = lock(&dir)?;
        let mut rebuilt = None;
        let (m, segs) = if opts.rebuild {
            wipe(&dir);
            rebuilt = Some("requested".to_string());
            Default::default()
        } else {
            match load(&dir) {
                Ok(Some(x)) => x,
                Ok(None) => Default::default(),
                Err(LoadError::Vanished) => continue,
                Err(e) => {
                    let why = match &e {
                        LoadError::Version(_) => format!("from another format ({e})"),
                        _ => format!("corrupt ({e})"),
                    };
                    wiki_cli::warn(
                        &opts.program,
                        &format!("index {} is {why}: rebuilding it", dir.display()),
                    );
                    wipe(&dir);
                    rebuilt = Some(why);
                    Default::default()
                }
            }
        };
        let (m, segs, mut report) = update(&dir, source, listing, m, segs)?;
        report.rebuilt = rebuilt;
        write_manifest(&dir, &m)?;
        gc(&dir, &m);
        return Ok(finish(dir, m, segs, report, files.len(), temp));
    }
    Err(crate::Error::Busy(dir))
}

fn finish(
    dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Segment>,
    mut report: RefreshReport,
    files: usize,
    temp: Option<TempDir>,
) -> Index {
    let mut live: Vec<Vec<bool>> = segments
        .iter()
        .map(|s| vec![false; s.ndocs as usize])
        .collect();
    for e in &manifest.entries {
        if e.seg != NONE {
            for d in e.doc..e.doc + e.ndocs {
                live[e.seg as usize][d as usize] = true;
            }
        }
    }
    report.files = files;
    report.docs = manifest.live_docs;
    report.segments = segments.len();
    Index {
        dir,
        manifest,
        segments,
        live,
        report,
        ref_pages: std::sync::OnceLock::new(),
        cache: None,
        _temp: temp,
    }
}

/// The writer lock (released on drop).
fn lock(dir: &Path) -> Result<wiki_vault::index_dir::WriterLock, crate::Error> {
    wiki_vault::index_dir::lock(dir).map_err(|e| crate::Error::Io(e.path, e.source))
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), crate::Error> {
    let tmp = temp_path(dir, "manifest");
    std::fs::write(&tmp, m.encode()).map_err(|e| crate::Error::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, dir.join("MANIFEST")).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        crate::Error::Io(dir.join("MANIFEST"), e)
    })
}

fn gc(dir: &Path, m: &Manifest) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in rd.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let unused_segment = name.starts_with("seg-") && !m.segments.iter().any(|s| *s == *name);
        let old_temp = name.starts_with("tmp-")
            && e.metadata()
                .and_then(|md| md.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age.as_secs() > 3600);
        if unused_segment || old_temp {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

type DocKey = (String, [u8; 20]);

/// Bring `m` up to date with `listing` (lock held).
fn update(
    dir: &Path,
    source: &dyn Source,
    listing: &Listing<'_>,
    m: Manifest,
    mut segs: Vec<Segment>,
) -> Result<(Manifest, Vec<Segment>, RefreshReport), crate::Error> {
    let files = listing.files;
    let p = plan(files, &m, listing.forced);
    let now = now_ns();
    let mut report = RefreshReport {
        removed: p.removed,
        ..Default::default()
    };
    let mut entries: Vec<Entry> = Vec::with_capacity(files.len());
    let check: std::collections::HashSet<usize> = p.check.iter().copied().collect();
    // Read changed files (sequentially: sources such as git stores are not thread-safe).
    let mut to_build: Vec<(usize, Vec<u8>, [u8; 20])> = Vec::new();
    let mut reuse: Option<HashMap<DocKey, (u32, u32, u32)>> = None;
    for (i, f) in files.iter().enumerate() {
        let old = p.old[i].map(|k| &m.entries[k]);
        if !check.contains(&i) {
            if let Some(e) = old {
                entries.push(e.clone());
            }
            continue;
        }
        let bytes = match source.read(f) {
            Ok(b) => b,
            Err(_) => {
                // Unreadable (vanished or permission): index nothing for it this time.
                continue;
            }
        };
        let blob = f.blob.unwrap_or_else(|| codec::blob_id(&bytes));
        let mut entry = Entry {
            path: f.path.clone(),
            size: f.size,
            mtime_ns: f.mtime_ns,
            ctime_ns: f.ctime_ns,
            checked_ns: now,
            blob,
            seg: NONE,
            doc: 0,
            ndocs: 0,
        };
        if let Some(e) = old
            && e.blob == blob
        {
            entry.seg = e.seg;
            entry.doc = e.doc;
            entry.ndocs = e.ndocs;
            report.touched += 1;
            entries.push(entry);
            continue;
        }
        let map = match &mut reuse {
            Some(map) => map,
            None => reuse.insert(reuse_map(&segs)?),
        };
        if let Some(&(s, d, n)) = map.get(&(f.path.clone(), blob)) {
            entry.seg = s;
            entry.doc = d;
            entry.ndocs = n;
            report.reused += 1;
            entries.push(entry);
            continue;
        }
        to_build.push((entries.len(), bytes, blob));
        entries.push(entry);
    }
    report.tokenized = to_build.len();
    if !to_build.is_empty() {
        build_segment(dir, source, &to_build, &mut entries, &mut segs)?;
    }
    let mut names: Vec<String> = segs
        .iter()
        .map(|s| {
            s.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    // Drop segments without live documents, then compact when needed.
    let live_total: u64 = entries.iter().map(|e| u64::from(e.ndocs)).sum();
    let all_total: u64 = segs.iter().map(|s| u64::from(s.ndocs)).sum();
    let dead = all_total.saturating_sub(live_total);
    if segs.len() > MAX_SEGMENTS || (dead > 2 * live_total + 256) {
        let (seg, name) = compact(dir, &segs, &mut entries)?;
        segs = vec![seg];
        names = vec![name];
        report.compacted = true;
    } else {
        (segs, names) = drop_unused_segments(segs, names, &mut entries);
    }
    let (live_docs, sum_lens) = corpus_stats(&entries, &segs);
    // The stamps vouch for the entries only when every listed file has one (a file that could
    // not be read is tried again by the next listing).
    let (dirs, dirs_checked_ns) = match listing.stamps {
        Some(s) if entries.len() == files.len() => (s.to_vec(), now),
        _ => (Vec::new(), 0),
    };
    let m = Manifest {
        segments: names,
        entries,
        live_docs,
        sum_lens,
        dirs,
        dirs_checked_ns,
    };
    Ok((m, segs, report))
}

/// Tokenise the files of `to_build` (entry index, bytes, blob id) in parallel into a new
/// segment, pointing their entries at it.
fn build_segment(
    dir: &Path,
    source: &dyn Source,
    to_build: &[(usize, Vec<u8>, [u8; 20])],
    entries: &mut [Entry],
    segs: &mut Vec<Segment>,
) -> Result<(), crate::Error> {
    let built: Vec<Vec<IndexDoc>> = to_build
        .par_iter()
        .map(|(ei, bytes, blob)| source.docs(&entries[*ei].path, bytes, *blob))
        .collect();
    let mut docs: Vec<IndexDoc> = Vec::new();
    let seg_no = segs.len() as u32;
    for ((ei, _, _), ds) in to_build.iter().zip(built) {
        let e = &mut entries[*ei];
        if !ds.is_empty() {
            e.seg = seg_no;
            e.doc = docs.len() as u32;
            e.ndocs = ds.len() as u32;
            docs.extend(ds);
        }
    }
    if !docs.is_empty() {
        let name = format!("seg-{}.bin", unique());
        let path = dir.join(&name);
        segment::write(&path, &docs).map_err(|e| crate::Error::Io(path.clone(), e))?;
        segs.push(Segment::open(&path).map_err(|e| crate::Error::Corrupt(path, e.to_string()))?);
    }
    Ok(())
}

/// The segments (and their names) that still hold a live document, the entries renumbered.
fn drop_unused_segments(
    segs: Vec<Segment>,
    names: Vec<String>,
    entries: &mut [Entry],
) -> (Vec<Segment>, Vec<String>) {
    let used: Vec<bool> = (0..segs.len())
        .map(|s| entries.iter().any(|e| e.seg as usize == s))
        .collect();
    if used.iter().all(|u| *u) {
        return (segs, names);
    }
    let mut remap = vec![NONE; segs.len()];
    let mut kept_segs = Vec::new();
    let mut kept_names = Vec::new();
    for (i, (s, n)) in segs.into_iter().zip(names).enumerate() {
        if used[i] {
            remap[i] = kept_segs.len() as u32;
            kept_segs.push(s);
            kept_names.push(n);
        }
    }
    for e in entries.iter_mut() {
        if e.seg != NONE {
            e.seg = remap[e.seg as usize];
        }
    }
    (kept_segs, kept_names)
}

/// Live documents and the sum of their field lengths.
fn corpus_stats(entries: &[Entry], segs: &[Segment]) -> (u64, [u64; FIELDS]) {
    let mut sum_lens = [0u64; FIELDS];
    let mut live_docs = 0u64;
    for e in entries.iter().filter(|e| e.seg != NONE) {
        let s = &segs[e.seg as usize];
        for d in e.doc..e.doc + e.ndocs {
            for (acc, l) in sum_lens.iter_mut().zip(s.lens(d)) {
                *acc += u64::from(l);
            }
            live_docs += 1;
        }
    }
    (live_docs, sum_lens)
}

fn reuse_map(segs: &[Segment]) -> Result<HashMap<DocKey, (u32, u32, u32)>, crate::Error> {
    let mut map: HashMap<DocKey, (u32, u32, u32)> = HashMap::new();
    for (s, seg) in segs.iter().enumerate() {
        let metas = seg
            .doc_metas()
            .map_err(|e| crate::Error::Corrupt(seg.path.clone(), e.to_string()))?;
        let mut d = 0usize;
        while d < metas.len() {
            let mut end = d + 1;
            while end < metas.len()
                && metas[end].path == metas[d].path
                && metas[end].blob == metas[d].blob
            {
                end += 1;
            }
            map.insert(
                (metas[d].path.clone(), metas[d].blob),
                (s as u32, d as u32, (end - d) as u32),
            );
            d = end;
        }
    }
    Ok(map)
}

/// Merge the live documents of all segments into one new segment, renumbering `entries`.
fn compact(
    dir: &Path,
    segs: &[Segment],
    entries: &mut [Entry],
) -> Result<(Segment, String), crate::Error> {
    let err = |seg: &Segment, e: OpenError| crate::Error::Corrupt(seg.path.clone(), e.to_string());
    // New numbering: entries in path order.
    let mut remap: Vec<Vec<u32>> = segs.iter().map(|s| vec![NONE; s.ndocs as usize]).collect();
    let mut metas_new: Vec<DocMeta> = Vec::new();
    let mut stored_new: Vec<Vec<u8>> = Vec::new();
    let metas: Vec<Vec<DocMeta>> = segs
        .iter()
        .map(|s| s.doc_metas().map_err(|e| err(s, e)))
        .collect::<Result<_, _>>()?;
    let stored: Vec<Vec<Vec<u8>>> = segs
        .iter()
        .map(|s| s.all_stored().map_err(|e| err(s, e)))
        .collect::<Result<_, _>>()?;
    for e in entries.iter_mut() {
        if e.seg == NONE {
            continue;
        }
        let s = e.seg as usize;
        let first = metas_new.len() as u32;
        for d in e.doc..e.doc + e.ndocs {
            remap[s][d as usize] = metas_new.len() as u32;
            metas_new.push(metas[s][d as usize].clone());
            stored_new.push(stored[s][d as usize].clone());
        }
        e.seg = 0;
        e.doc = first;
    }
    let mut merged: std::collections::BTreeMap<Vec<u8>, Vec<Posting>> = Default::default();
    for (s, seg) in segs.iter().enumerate() {
        for (term, list) in seg.all_terms().map_err(|e| err(seg, e))? {
            let kept: Vec<Posting> = list
                .into_iter()
                .filter_map(|(d, tfs)| {
                    let n = remap[s][d as usize];
                    (n != NONE).then_some((n, tfs))
                })
                .collect();
            if !kept.is_empty() {
                merged.entry(term).or_default().extend(kept);
            }
        }
    }
    for list in merged.values_mut() {
        list.sort_unstable_by_key(|p| p.0);
    }
    let name = format!("seg-{}.bin", unique());
    let path = dir.join(&name);
    let stored_refs: Vec<&[u8]> = stored_new.iter().map(Vec::as_slice).collect();
    segment::write_parts(
        &path,
        &metas_new,
        &stored_refs,
        merged.iter().map(|(t, p)| (t.as_slice(), p.as_slice())),
    )
    .map_err(|e| crate::Error::Io(path.clone(), e))?;
    let seg = Segment::open(&path).map_err(|e| crate::Error::Corrupt(path, e.to_string()))?;
    Ok((seg, name))
}
