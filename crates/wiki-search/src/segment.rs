//! Immutable index segments.
//!
//! A segment file holds a set of documents and their inverted index. It is written once (to a
//! temporary file, then renamed) and never modified, so readers can use it without locks.
//!
//! Layout (little-endian):
//!
//! ```text
//! header   magic "WSRCHSEG", version u32, fields u32, docs u32, terms u32,
//!          6 × (offset u64, length u64, checksum u64) for the sections below,
//!          header checksum u64
//! fixed    per doc, 48 bytes: field lengths u32 × 7, kind u8, flags u8, 0 u16,
//!          stored offset u64, stored length u32, 0 u32
//! docs     per doc: path (varint length + bytes), blob id (20 bytes), id (varint length, 0 = none)
//! dictidx  per block of up to 64 terms: first term, block offset, block length, block checksum
//! dict     blocks of entries: term, postings offset, postings length, document frequency
//! postings per term: per doc: doc delta varint, field mask u8, one tf varint per set bit
//! stored   per doc: the JSON of its [`crate::doc::StoredDoc`]
//! ```
//!
//! Checked on open: magic, version, header checksum, section bounds, and the checksums of the
//! fixed, docs and dictidx sections; each dict block is checked when read; postings and stored
//! documents are bounds-checked and validated while decoding. Anything wrong is a
//! [`Corrupt`] error, which makes the caller rebuild the index.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::codec::{self, Corrupt, Reader, put_bytes, put_varint};
use crate::doc::{FIELDS, IndexDoc, StoredDoc};

const MAGIC: &[u8; 8] = b"WSRCHSEG";
/// Segment format version.
pub const VERSION: u32 = 1;
const SECTIONS: usize = 6;
const HEADER_LEN: usize = 8 + 4 * 4 + SECTIONS * 24 + 8;
const FIXED_LEN: usize = FIELDS * 4 + 4 + 8 + 4 + 4;
const BLOCK: usize = 64;

const S_FIXED: usize = 0;
const S_DOCS: usize = 1;
const S_DICTIDX: usize = 2;
const S_DICT: usize = 3;
const S_POSTINGS: usize = 4;
const S_STORED: usize = 5;

/// A term and its posting list.
pub type TermPostings = (Vec<u8>, Vec<Posting>);

/// One posting: a document and its per-field term frequencies.
pub type Posting = (u32, [u32; FIELDS]);

/// Write a segment holding `docs` (their `terms` are inverted here) at `path` (atomically:
/// temporary file in the same directory, then rename).
pub fn write(path: &Path, docs: &[IndexDoc]) -> std::io::Result<()> {
    let mut inverted: std::collections::BTreeMap<&str, Vec<Posting>> = Default::default();
    for (d, doc) in docs.iter().enumerate() {
        for (term, tfs) in &doc.terms {
            inverted
                .entry(term.as_str())
                .or_default()
                .push((d as u32, *tfs));
        }
    }
    let metas: Vec<DocMeta> = docs.iter().map(DocMeta::from_doc).collect();
    let stored: Vec<&[u8]> = docs.iter().map(|d| d.stored.as_slice()).collect();
    write_parts(
        path,
        &metas,
        &stored,
        inverted.iter().map(|(t, p)| (t.as_bytes(), p.as_slice())),
    )
}

/// Per-document metadata kept in the fixed and docs sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocMeta {
    /// File path.
    pub path: String,
    /// Blob id of the file.
    pub blob: [u8; 20],
    /// Page id.
    pub id: Option<String>,
    /// Kind byte.
    pub kind: u8,
    /// Flags.
    pub flags: u8,
    /// Field lengths.
    pub lens: [u32; FIELDS],
}

impl DocMeta {
    fn from_doc(d: &IndexDoc) -> DocMeta {
        DocMeta {
            path: d.path.clone(),
            blob: d.blob,
            id: d.id.clone(),
            kind: d.kind,
            flags: d.flags,
            lens: d.lens,
        }
    }
}

/// Write a segment from already-inverted parts (terms must come sorted and unique).
pub fn write_parts<'a>(
    path: &Path,
    metas: &[DocMeta],
    stored: &[&[u8]],
    terms: impl Iterator<Item = (&'a [u8], &'a [Posting])>,
) -> std::io::Result<()> {
    let mut fixed = Vec::with_capacity(metas.len() * FIXED_LEN);
    let mut docs = Vec::new();
    let mut stored_sec = Vec::new();
    for (m, s) in metas.iter().zip(stored) {
        for l in m.lens {
            fixed.extend_from_slice(&l.to_le_bytes());
        }
        fixed.push(m.kind);
        fixed.push(m.flags);
        fixed.extend_from_slice(&[0, 0]);
        fixed.extend_from_slice(&(stored_sec.len() as u64).to_le_bytes());
        fixed.extend_from_slice(&(s.len() as u32).to_le_bytes());
        fixed.extend_from_slice(&[0, 0, 0, 0]);
        stored_sec.extend_from_slice(s);
        put_bytes(&mut docs, m.path.as_bytes());
        docs.extend_from_slice(&m.blob);
        put_bytes(&mut docs, m.id.as_deref().unwrap_or("").as_bytes());
    }
    let mut dict = Vec::new();
    let mut dictidx = Vec::new();
    let mut postings = Vec::new();
    let mut block = Vec::new();
    let mut block_first: Vec<u8> = Vec::new();
    let mut in_block = 0usize;
    let mut nterms = 0u32;
    let flush = |block: &mut Vec<u8>, first: &[u8], dict: &mut Vec<u8>, idx: &mut Vec<u8>| {
        put_bytes(idx, first);
        put_varint(idx, dict.len() as u64);
        put_varint(idx, block.len() as u64);
        idx.extend_from_slice(&codec::checksum(block).to_le_bytes());
        dict.extend_from_slice(block);
        block.clear();
    };
    for (term, list) in terms {
        if list.is_empty() {
            continue;
        }
        if in_block == 0 {
            block_first = term.to_vec();
        }
        let start = postings.len();
        let mut prev = 0u32;
        for (i, (doc, tfs)) in list.iter().enumerate() {
            let delta = if i == 0 { *doc } else { doc - prev };
            prev = *doc;
            put_varint(&mut postings, u64::from(delta));
            let mut mask = 0u8;
            for (f, &tf) in tfs.iter().enumerate() {
                if tf > 0 {
                    mask |= 1 << f;
                }
            }
            postings.push(mask);
            for &tf in tfs.iter().filter(|&&tf| tf > 0) {
                put_varint(&mut postings, u64::from(tf));
            }
        }
        put_bytes(&mut block, term);
        put_varint(&mut block, start as u64);
        put_varint(&mut block, (postings.len() - start) as u64);
        put_varint(&mut block, list.len() as u64);
        in_block += 1;
        nterms += 1;
        if in_block == BLOCK {
            flush(&mut block, &block_first, &mut dict, &mut dictidx);
            in_block = 0;
        }
    }
    if in_block > 0 {
        flush(&mut block, &block_first, &mut dict, &mut dictidx);
    }
    let sections: [&[u8]; SECTIONS] = [&fixed, &docs, &dictidx, &dict, &postings, &stored_sec];
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(FIELDS as u32).to_le_bytes());
    header.extend_from_slice(&(metas.len() as u32).to_le_bytes());
    header.extend_from_slice(&nterms.to_le_bytes());
    let mut off = HEADER_LEN as u64;
    for (i, s) in sections.iter().enumerate() {
        header.extend_from_slice(&off.to_le_bytes());
        header.extend_from_slice(&(s.len() as u64).to_le_bytes());
        let sum = if matches!(i, S_FIXED | S_DOCS | S_DICTIDX) {
            codec::checksum(s)
        } else {
            0
        };
        header.extend_from_slice(&sum.to_le_bytes());
        off += s.len() as u64;
    }
    let hsum = codec::checksum(&header);
    header.extend_from_slice(&hsum.to_le_bytes());
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = crate::store::temp_path(dir, "seg");
    {
        let mut f = std::io::BufWriter::new(File::create(&tmp)?);
        f.write_all(&header)?;
        for s in sections {
            f.write_all(s)?;
        }
        f.flush()?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// A dictionary block reference.
#[derive(Debug, Clone)]
struct BlockRef {
    first: Vec<u8>,
    off: u64,
    len: usize,
    sum: u64,
}

/// An open segment.
#[derive(Debug)]
pub struct Segment {
    file: File,
    /// File path.
    pub path: PathBuf,
    /// Number of documents.
    pub ndocs: u32,
    /// Number of terms.
    pub nterms: u32,
    sections: [(u64, u64, u64); SECTIONS],
    fixed: Vec<u8>,
    blocks: Vec<BlockRef>,
}

/// A dictionary entry.
#[derive(Debug, Clone, Copy)]
pub struct TermInfo {
    off: u64,
    len: usize,
    /// Documents in the posting list (live or not).
    pub df: u32,
}

impl Segment {
    /// Open and validate a segment.
    pub fn open(path: &Path) -> Result<Segment, OpenError> {
        let file = File::open(path).map_err(|e| OpenError::Io(path.to_path_buf(), e))?;
        let flen = file
            .metadata()
            .map_err(|e| OpenError::Io(path.to_path_buf(), e))?
            .len();
        let corrupt =
            |why: &str| OpenError::Corrupt(Corrupt::new(format!("{}: {why}", path.display())));
        if flen < HEADER_LEN as u64 {
            return Err(corrupt("truncated header"));
        }
        let header = codec::read_at(&file, 0, HEADER_LEN)
            .map_err(|e| OpenError::Io(path.to_path_buf(), e))?;
        if &header[..8] != MAGIC {
            return Err(corrupt("not a segment file"));
        }
        let mut r = Reader::new(&header[8..]);
        let version = r.u32().map_err(OpenError::Corrupt)?;
        if version != VERSION {
            return Err(OpenError::Version(version));
        }
        let hsum = u64::from_le_bytes(header[HEADER_LEN - 8..].try_into().unwrap_or([0; 8]));
        if codec::checksum(&header[..HEADER_LEN - 8]) != hsum {
            return Err(corrupt("header checksum mismatch"));
        }
        let fields = r.u32().map_err(OpenError::Corrupt)?;
        if fields as usize != FIELDS {
            return Err(OpenError::Version(version));
        }
        let ndocs = r.u32().map_err(OpenError::Corrupt)?;
        let nterms = r.u32().map_err(OpenError::Corrupt)?;
        let mut sections = [(0u64, 0u64, 0u64); SECTIONS];
        for s in sections.iter_mut() {
            let off = r.u64().map_err(OpenError::Corrupt)?;
            let len = r.u64().map_err(OpenError::Corrupt)?;
            let sum = r.u64().map_err(OpenError::Corrupt)?;
            if off.checked_add(len).is_none_or(|end| end > flen) {
                return Err(corrupt("section out of bounds"));
            }
            *s = (off, len, sum);
        }
        if sections[S_FIXED].1 != u64::from(ndocs) * FIXED_LEN as u64 {
            return Err(corrupt("doc table size mismatch"));
        }
        let mut seg = Segment {
            file,
            path: path.to_path_buf(),
            ndocs,
            nterms,
            sections,
            fixed: Vec::new(),
            blocks: Vec::new(),
        };
        seg.fixed = seg.section(S_FIXED, true)?;
        let idx = seg.section(S_DICTIDX, true)?;
        let mut r = Reader::new(&idx);
        let dict_len = seg.sections[S_DICT].1;
        while !r.is_empty() {
            let first = r.lbytes().map_err(OpenError::Corrupt)?.to_vec();
            let off = r.varint().map_err(OpenError::Corrupt)?;
            let len = r.len(usize::MAX).map_err(OpenError::Corrupt)?;
            let sum = r.u64().map_err(OpenError::Corrupt)?;
            if off.checked_add(len as u64).is_none_or(|e| e > dict_len) {
                return Err(corrupt("dictionary block out of bounds"));
            }
            seg.blocks.push(BlockRef {
                first,
                off,
                len,
                sum,
            });
        }
        for d in 0..ndocs {
            let (off, len) = seg.stored_range(d);
            if off
                .checked_add(u64::from(len))
                .is_none_or(|e| e > seg.sections[S_STORED].1)
            {
                return Err(corrupt("stored document out of bounds"));
            }
        }
        Ok(seg)
    }

    fn section(&self, s: usize, verify: bool) -> Result<Vec<u8>, OpenError> {
        let (off, len, sum) = self.sections[s];
        let len = usize::try_from(len)
            .map_err(|_| OpenError::Corrupt(Corrupt::new("section too large")))?;
        let buf = codec::read_at(&self.file, off, len)
            .map_err(|e| OpenError::Io(self.path.clone(), e))?;
        if verify && codec::checksum(&buf) != sum {
            return Err(OpenError::Corrupt(Corrupt::new(format!(
                "{}: section checksum mismatch",
                self.path.display()
            ))));
        }
        Ok(buf)
    }

    fn fixed_at(&self, d: u32) -> &[u8] {
        let start = d as usize * FIXED_LEN;
        &self.fixed[start..start + FIXED_LEN]
    }

    /// Field lengths of a document.
    pub fn lens(&self, d: u32) -> [u32; FIELDS] {
        let f = self.fixed_at(d);
        let mut out = [0u32; FIELDS];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u32::from_le_bytes([f[i * 4], f[i * 4 + 1], f[i * 4 + 2], f[i * 4 + 3]]);
        }
        out
    }

    /// Kind byte of a document.
    pub fn kind(&self, d: u32) -> u8 {
        self.fixed_at(d)[FIELDS * 4]
    }

    /// Flags of a document.
    pub fn flags(&self, d: u32) -> u8 {
        self.fixed_at(d)[FIELDS * 4 + 1]
    }

    fn stored_range(&self, d: u32) -> (u64, u32) {
        let f = self.fixed_at(d);
        let o = FIELDS * 4 + 4;
        let off = u64::from_le_bytes(f[o..o + 8].try_into().unwrap_or([0; 8]));
        let len = u32::from_le_bytes(f[o + 8..o + 12].try_into().unwrap_or([0; 4]));
        (off, len)
    }

    /// The raw stored bytes of a document.
    pub fn stored_bytes(&self, d: u32) -> Result<Vec<u8>, OpenError> {
        if d >= self.ndocs {
            return Err(OpenError::Corrupt(Corrupt::new("document id out of range")));
        }
        let (off, len) = self.stored_range(d);
        codec::read_at(&self.file, self.sections[S_STORED].0 + off, len as usize)
            .map_err(|e| OpenError::Io(self.path.clone(), e))
    }

    /// The stored document.
    pub fn stored(&self, d: u32) -> Result<StoredDoc, OpenError> {
        let bytes = self.stored_bytes(d)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            OpenError::Corrupt(Corrupt::new(format!(
                "{}: stored document {d}: {e}",
                self.path.display()
            )))
        })
    }

    /// All stored documents (one read).
    pub fn all_stored(&self) -> Result<Vec<Vec<u8>>, OpenError> {
        let sec = self.section(S_STORED, false)?;
        (0..self.ndocs)
            .map(|d| {
                let (off, len) = self.stored_range(d);
                Ok(sec[off as usize..off as usize + len as usize].to_vec())
            })
            .collect()
    }

    /// Path, blob and id of every document.
    pub fn doc_metas(&self) -> Result<Vec<DocMeta>, OpenError> {
        let buf = self.section(S_DOCS, true)?;
        let mut r = Reader::new(&buf);
        let mut out = Vec::with_capacity(self.ndocs as usize);
        for d in 0..self.ndocs {
            let path = r.str().map_err(OpenError::Corrupt)?.to_string();
            let blob = r.oid().map_err(OpenError::Corrupt)?;
            let id = r.str().map_err(OpenError::Corrupt)?;
            out.push(DocMeta {
                path,
                blob,
                id: (!id.is_empty()).then(|| id.to_string()),
                kind: self.kind(d),
                flags: self.flags(d),
                lens: self.lens(d),
            });
        }
        Ok(out)
    }

    /// Look a term up.
    pub fn lookup(&self, term: &str) -> Result<Option<TermInfo>, OpenError> {
        let t = term.as_bytes();
        let idx = self.blocks.partition_point(|b| b.first.as_slice() <= t);
        if idx == 0 {
            return Ok(None);
        }
        let b = &self.blocks[idx - 1];
        let buf = codec::read_at(&self.file, self.sections[S_DICT].0 + b.off, b.len)
            .map_err(|e| OpenError::Io(self.path.clone(), e))?;
        if codec::checksum(&buf) != b.sum {
            return Err(OpenError::Corrupt(Corrupt::new(format!(
                "{}: dictionary block checksum mismatch",
                self.path.display()
            ))));
        }
        let mut r = Reader::new(&buf);
        while !r.is_empty() {
            let entry = r.lbytes().map_err(OpenError::Corrupt)?;
            let off = r.varint().map_err(OpenError::Corrupt)?;
            let len = r.len(usize::MAX).map_err(OpenError::Corrupt)?;
            let df = r.len(u32::MAX as usize).map_err(OpenError::Corrupt)? as u32;
            match entry.cmp(t) {
                std::cmp::Ordering::Equal => return Ok(Some(TermInfo { off, len, df })),
                std::cmp::Ordering::Greater => return Ok(None),
                std::cmp::Ordering::Less => {}
            }
        }
        Ok(None)
    }

    /// Decode a posting list.
    pub fn postings(&self, info: TermInfo) -> Result<Vec<Posting>, OpenError> {
        let (poff, plen, _) = self.sections[S_POSTINGS];
        if info
            .off
            .checked_add(info.len as u64)
            .is_none_or(|e| e > plen)
        {
            return Err(OpenError::Corrupt(Corrupt::new(
                "posting list out of bounds",
            )));
        }
        let buf = codec::read_at(&self.file, poff + info.off, info.len)
            .map_err(|e| OpenError::Io(self.path.clone(), e))?;
        decode_postings(&buf, info.df, self.ndocs).map_err(OpenError::Corrupt)
    }

    /// Every term with its postings (for compaction).
    pub fn all_terms(&self) -> Result<Vec<TermPostings>, OpenError> {
        let dict = self.section(S_DICT, false)?;
        let post = self.section(S_POSTINGS, false)?;
        let mut out = Vec::with_capacity(self.nterms as usize);
        for b in &self.blocks {
            let block = &dict[b.off as usize..b.off as usize + b.len];
            if codec::checksum(block) != b.sum {
                return Err(OpenError::Corrupt(Corrupt::new(
                    "dictionary block checksum mismatch",
                )));
            }
            let mut r = Reader::new(block);
            while !r.is_empty() {
                let term = r.lbytes().map_err(OpenError::Corrupt)?.to_vec();
                let off = r.len(post.len()).map_err(OpenError::Corrupt)?;
                let len = r.len(post.len() - off).map_err(OpenError::Corrupt)?;
                let df = r.len(u32::MAX as usize).map_err(OpenError::Corrupt)? as u32;
                let list = decode_postings(&post[off..off + len], df, self.ndocs)
                    .map_err(OpenError::Corrupt)?;
                out.push((term, list));
            }
        }
        Ok(out)
    }
}

fn decode_postings(buf: &[u8], df: u32, ndocs: u32) -> Result<Vec<Posting>, Corrupt> {
    let mut r = Reader::new(buf);
    let mut out = Vec::with_capacity(df as usize);
    let mut doc = 0u64;
    for i in 0..df {
        let delta = r.varint()?;
        doc = if i == 0 { delta } else { doc + delta };
        if doc >= u64::from(ndocs) || (i > 0 && delta == 0) {
            return Err(Corrupt::new("posting refers to a missing document"));
        }
        let mask = r.u8()?;
        let mut tfs = [0u32; FIELDS];
        for (f, tf) in tfs.iter_mut().enumerate() {
            if mask & (1 << f) != 0 {
                *tf = r.len(u32::MAX as usize)? as u32;
            }
        }
        out.push((doc as u32, tfs));
    }
    if !r.is_empty() {
        return Err(Corrupt::new("trailing bytes in a posting list"));
    }
    Ok(out)
}

/// Why a segment could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// I/O failure (a missing file is retried by the caller).
    #[error("{path}: {1}", path = .0.display())]
    Io(PathBuf, std::io::Error),
    /// Corrupt data.
    #[error("{0}")]
    Corrupt(Corrupt),
    /// Another format version.
    #[error("segment format version {0} (this build reads version {VERSION})")]
    Version(u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str, terms: &[(&str, usize, u32)]) -> IndexDoc {
        let mut map: std::collections::BTreeMap<String, [u32; FIELDS]> = Default::default();
        let mut lens = [0; FIELDS];
        for (t, f, n) in terms {
            map.entry(t.to_string()).or_default()[*f] += n;
            lens[*f] += n;
        }
        IndexDoc {
            path: path.into(),
            blob: [7; 20],
            id: Some(format!("id.{path}")),
            kind: 1,
            flags: 2,
            lens,
            terms: map.into_iter().collect(),
            stored: br#"{"t":"chunk","path":"p","startLine":1,"endLine":2,"text":"x"}"#.to_vec(),
        }
    }

    #[test]
    fn round_trip() {
        let dir = tempfile_dir();
        let path = dir.join("seg-test.bin");
        let mut docs = vec![doc("a.md", &[("alpha", 0, 1), ("beta", 6, 3)])];
        for i in 0..200 {
            docs.push(doc(
                &format!("d{i}.md"),
                &[(&format!("t{i:03}"), 6, 1), ("beta", 1, 1)],
            ));
        }
        write(&path, &docs).unwrap();
        let seg = Segment::open(&path).unwrap();
        assert_eq!(seg.ndocs, 201);
        let info = seg.lookup("beta").unwrap().unwrap();
        assert_eq!(info.df, 201);
        let p = seg.postings(info).unwrap();
        assert_eq!(p[0].0, 0);
        assert_eq!(p[0].1[6], 3);
        assert_eq!(p[5].1[1], 1);
        assert!(seg.lookup("gamma").unwrap().is_none());
        assert!(seg.lookup("aaa").unwrap().is_none());
        assert_eq!(
            seg.postings(seg.lookup("t150").unwrap().unwrap()).unwrap()[0].0,
            151
        );
        assert_eq!(seg.lens(0)[6], 3);
        assert_eq!(seg.kind(3), 1);
        assert_eq!(seg.doc_metas().unwrap()[2].path, "d1.md");
        assert!(matches!(seg.stored(0).unwrap(), StoredDoc::Chunk(_)));
        assert_eq!(seg.all_terms().unwrap().len(), seg.nterms as usize);
        // Corrupt one byte of the fixed section: detected on open.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_LEN + 1] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(Segment::open(&path), Err(OpenError::Corrupt(_))));
        std::fs::write(&path, &bytes[..100]).unwrap();
        assert!(matches!(Segment::open(&path), Err(OpenError::Corrupt(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "wiki-search-seg-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
