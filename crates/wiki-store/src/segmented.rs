//! Large loose blobs deflated in independent segments, so that the next version of the same
//! file reuses the compressed bytes of the segments it shares with this one.
//!
//! An operation on a large vault rewrites megabytes of dashboards (10,000 pages:
//! `reports/claim-health.md` is 4 MB) of which it changes a few rows, and deflating them again
//! was most of its commit's object writing. A blob of at least [`MIN_BLOB`] bytes is cut into
//! segments at line starts chosen by their content ([`segment_ends`]: an edit moves only the
//! cuts near it), and each segment is deflated on its own, from a fresh state, ending with a
//! sync flush (byte-aligned, no reference to earlier bytes). The loose object stays one valid
//! zlib stream that git and gix read like any other: the zlib header, the object header
//! (`blob N\0`) as a segment of its own, the segments, an empty final block and the Adler-32 of
//! everything.
//!
//! A table in `objects/info/wiki-segments/` (one file per path, named by the SHA-1 of the path)
//! records the last version written of that path: its blob id, the length and CRC-32 of its
//! loose file, and the SHA-1, length and compressed length of each segment. When the next
//! version of the path is written and its previous version is still exactly that loose file
//! (same length and CRC-32: git may have packed it, or rewritten it in its own layout), each
//! segment with the same SHA-1 and length is copied from it compressed instead of deflated
//! again. The table is only a cache: a missing, unreadable, foreign or stale one means the blob
//! is deflated whole (in segments, with a new table for next time).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use gix::ObjectId;

/// Blobs of at least this many bytes are written in segments (smaller ones: one stream).
pub(crate) const MIN_BLOB: usize = 256 << 10;

/// A segment is at least this long (except the last)...
const SEG_MIN: usize = 32 << 10;

/// ...and at most this long.
const SEG_MAX: usize = 256 << 10;

/// A line (past [`SEG_MIN`]) starts a new segment when the top byte of its hash is zero: one
/// line in 256, about 25 KB of dashboard rows.
const CUT_SHIFT: u32 = 56;

/// First bytes of a table file (the version of its layout).
const MAGIC: &[u8; 8] = b"WIKISEG1";

/// The tables' directory, under the objects directory.
const TABLE_DIR: &str = "info/wiki-segments";

/// Prefix of the tables' temporary files.
const TMP_PREFIX: &str = "tmp_wiki_segments_";

/// zlib header of a level-1 stream with a 32 KiB window (what git's loose objects start with).
const ZLIB_HEADER: [u8; 2] = [0x78, 0x01];

/// An empty final block with fixed codes (the stream's end, after a byte-aligned flush).
const FINAL_BLOCK: [u8; 2] = [0x03, 0x00];

/// What writing one blob in segments did (for the store trace).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reuse {
    /// Bytes of the blob copied compressed from its previous version.
    pub reused: usize,
    /// Bytes of the blob deflated.
    pub deflated: usize,
}

impl std::ops::AddAssign for Reuse {
    fn add_assign(&mut self, other: Reuse) {
        self.reused += other.reused;
        self.deflated += other.deflated;
    }
}

/// The end offset of each segment of `data` (the last one is `data.len()`; none when `data` is
/// empty). A segment ends after a line that ends at least [`SEG_MIN`] bytes into it and whose
/// bytes hash to a cut, or else after the last line that ends within [`SEG_MAX`] bytes, or at
/// [`SEG_MAX`] bytes when no line ends there. The choice depends only on the bytes of the lines
/// near the cut and on the previous cut, so the segments after an edit fall back into step with
/// the old ones at the first cut both share.
pub(crate) fn segment_ends(data: &[u8]) -> Vec<usize> {
    let mut ends = Vec::with_capacity(data.len() / SEG_MIN + 1);
    let mut start = 0;
    while data.len() - start > SEG_MIN {
        let limit = (start + SEG_MAX).min(data.len());
        let mut line_start = start;
        let mut cut = None;
        let mut last = None;
        for nl in memchr::memchr_iter(b'\n', &data[start..limit]) {
            let next = start + nl + 1;
            if next - start >= SEG_MIN {
                if line_hash(&data[line_start..next - 1]) >> CUT_SHIFT == 0 {
                    cut = Some(next);
                    break;
                }
                last = Some(next);
            }
            line_start = next;
        }
        let end = match cut {
            Some(c) => c,
            None if limit == data.len() => limit,
            None => last.unwrap_or(limit),
        };
        ends.push(end);
        start = end;
    }
    if start < data.len() {
        ends.push(data.len());
    }
    ends
}

/// Hash of a line (its first 256 bytes, eight at a time), mixed so that the top byte depends
/// on all of them.
fn line_hash(line: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let line = &line[..line.len().min(256)];
    let mut h = line.len() as u64;
    let mut words = line.chunks_exact(8);
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(29);
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 32;
    h.wrapping_mul(K)
}

/// One segment of a written blob, as its table records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    sha: [u8; 20],
    len: u32,
    clen: u32,
}

/// The table of one path: the last version written and its loose file's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Table {
    blob: ObjectId,
    file_len: u64,
    file_crc: u32,
    header_clen: u32,
    segments: Vec<Segment>,
}

impl Table {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(52 + self.segments.len() * 28);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(self.blob.as_bytes());
        out.extend_from_slice(&self.file_len.to_le_bytes());
        out.extend_from_slice(&self.file_crc.to_le_bytes());
        out.extend_from_slice(&self.header_clen.to_le_bytes());
        out.extend_from_slice(&(self.segments.len() as u32).to_le_bytes());
        for s in &self.segments {
            out.extend_from_slice(&s.sha);
            out.extend_from_slice(&s.len.to_le_bytes());
            out.extend_from_slice(&s.clen.to_le_bytes());
        }
        out
    }

    /// `None` for anything that is not a whole table of this layout with SHA-1 ids.
    fn decode(bytes: &[u8]) -> Option<Table> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let (blob, rest) = rest.split_at_checked(20)?;
        let blob = ObjectId::try_from(blob).ok()?;
        let u32_at = |b: &[u8], at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
        };
        let file_len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
        let file_crc = u32_at(rest, 8)?;
        let header_clen = u32_at(rest, 12)?;
        let count = u32_at(rest, 16)? as usize;
        let rows = rest.get(20..)?;
        if rows.len() != count.checked_mul(28)? {
            return None;
        }
        let segments = rows
            .chunks_exact(28)
            .map(|r| {
                Some(Segment {
                    sha: r[..20].try_into().ok()?,
                    len: u32_at(r, 20)?,
                    clen: u32_at(r, 24)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Table {
            blob,
            file_len,
            file_crc,
            header_clen,
            segments,
        })
    }
}

/// The table file of `repo_path`.
fn table_path(objects_dir: &Path, repo_path: &str) -> PathBuf {
    use sha1::Digest;
    let hash: [u8; 20] = sha1::Sha1::digest(repo_path.as_bytes()).into();
    objects_dir
        .join(TABLE_DIR)
        .join(ObjectId::from(hash).to_string())
}

/// The compressed segments of `previous` that can be copied: its loose file and, by (SHA-1,
/// length), where each segment is in it; read from its table and its loose file, both checked.
/// `None` when there is nothing to reuse.
fn reusable(objects_dir: &Path, repo_path: &str, previous: &ObjectId) -> Option<Reusable> {
    let table = std::fs::read(table_path(objects_dir, repo_path))
        .ok()
        .and_then(|b| Table::decode(&b))?;
    if table.blob != *previous {
        return None;
    }
    let file = std::fs::read(crate::pack::loose_path(objects_dir, previous)).ok()?;
    let body: u64 = table.segments.iter().map(|s| u64::from(s.clen)).sum();
    let expected =
        (ZLIB_HEADER.len() + FINAL_BLOCK.len() + 4) as u64 + u64::from(table.header_clen) + body;
    if file.len() as u64 != table.file_len
        || expected != table.file_len
        || zlib_rs::crc32::crc32(0, &file) != table.file_crc
    {
        return None;
    }
    let mut at = ZLIB_HEADER.len() + table.header_clen as usize;
    let mut segments = HashMap::with_capacity(table.segments.len());
    for s in &table.segments {
        let end = at + s.clen as usize;
        segments.entry((s.sha, s.len)).or_insert(at..end);
        at = end;
    }
    Some(Reusable { file, segments })
}

/// The previous version's loose file and where its segments are in it.
struct Reusable {
    file: Vec<u8>,
    segments: HashMap<([u8; 20], u32), std::ops::Range<usize>>,
}

impl Reusable {
    fn get(&self, key: &([u8; 20], u32)) -> Option<&[u8]> {
        self.segments.get(key).map(|r| &self.file[r.clone()])
    }
}

/// Append `data` deflated (raw, level 1) from a fresh state and sync-flushed to `out`.
fn deflate_segment(
    deflate: &mut zlib_rs::Deflate,
    data: &[u8],
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    deflate.reset();
    let mut input = data;
    loop {
        let at = out.len();
        out.resize(at + input.len() + input.len() / 8 + 64, 0);
        let (before_in, before_out) = (deflate.total_in(), deflate.total_out());
        deflate
            .compress(input, &mut out[at..], zlib_rs::DeflateFlush::SyncFlush)
            .map_err(|e| std::io::Error::other(format!("deflate: {}", e.as_str())))?;
        let produced = (deflate.total_out() - before_out) as usize;
        let consumed = (deflate.total_in() - before_in) as usize;
        let room = out.len() - at;
        out.truncate(at + produced);
        input = &input[consumed..];
        // Done when all input is in and the flush did not fill the buffer.
        if input.is_empty() && produced < room {
            return Ok(());
        }
        if produced == 0 && consumed == 0 {
            return Err(std::io::Error::other("deflate made no progress"));
        }
    }
}

/// The loose object file of a blob (`id` of `data`) written in segments, reusing the
/// compressed segments of `previous`, the version of `repo_path` it replaces; also the table to
/// record for `repo_path`.
fn encode(
    objects_dir: &Path,
    id: ObjectId,
    data: &[u8],
    repo_path: &str,
    previous: Option<&ObjectId>,
) -> std::io::Result<(Vec<u8>, Table, Reuse)> {
    use sha1::Digest;
    let old = previous.and_then(|p| reusable(objects_dir, repo_path, p));
    let mut deflate = zlib_rs::Deflate::new(1, false, 15);
    let header = format!("blob {}\0", data.len());
    let mut out = Vec::with_capacity(data.len() / 3 + 64);
    out.extend_from_slice(&ZLIB_HEADER);
    deflate_segment(&mut deflate, header.as_bytes(), &mut out)?;
    let header_clen = (out.len() - ZLIB_HEADER.len()) as u32;
    let mut segments = Vec::new();
    let mut reuse = Reuse::default();
    let mut start = 0;
    for end in segment_ends(data) {
        let part = &data[start..end];
        let sha: [u8; 20] = sha1::Sha1::digest(part).into();
        let len = part.len() as u32;
        let at = out.len();
        match old.as_ref().and_then(|o| o.get(&(sha, len))) {
            Some(compressed) => {
                out.extend_from_slice(compressed);
                reuse.reused += part.len();
            }
            None => {
                deflate_segment(&mut deflate, part, &mut out)?;
                reuse.deflated += part.len();
            }
        }
        segments.push(Segment {
            sha,
            len,
            clen: (out.len() - at) as u32,
        });
        start = end;
    }
    out.extend_from_slice(&FINAL_BLOCK);
    let adler = zlib_rs::adler32::adler32(zlib_rs::adler32::adler32(1, header.as_bytes()), data);
    out.extend_from_slice(&adler.to_be_bytes());
    let table = Table {
        blob: id,
        file_len: out.len() as u64,
        file_crc: zlib_rs::crc32::crc32(0, &out),
        header_clen,
        segments,
    };
    Ok((out, table, reuse))
}

/// Write the loose object of a large blob in segments (see the module documentation) with
/// `persist` (temporary file, rename), then the table of `repo_path`. A table that cannot be
/// written is left out (it is only a cache); a stale one then no longer matches the blob ids.
pub(crate) fn write(
    objects_dir: &Path,
    id: ObjectId,
    data: &[u8],
    repo_path: &str,
    previous: Option<&ObjectId>,
    persist: impl FnOnce(&[u8]) -> crate::Result<()>,
) -> crate::Result<Reuse> {
    let (bytes, table, reuse) = encode(objects_dir, id, data, repo_path, previous)
        .map_err(|e| crate::Error::io(objects_dir, e))?;
    persist(&bytes)?;
    let _ = write_table(objects_dir, repo_path, &table);
    Ok(reuse)
}

fn write_table(objects_dir: &Path, repo_path: &str, table: &Table) -> std::io::Result<()> {
    let path = table_path(objects_dir, repo_path);
    let dir = objects_dir.join(TABLE_DIR);
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TMP_PREFIX)
        .tempfile_in(&dir)?;
    tmp.write_all(&table.encode())?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(())
}

/// Remove the temporary table files a killed writer left (call with the vault lock held).
pub(crate) fn remove_stale_temporaries(objects_dir: &Path) {
    remove_table_files(objects_dir, |name| name.starts_with(TMP_PREFIX));
}

/// Remove every table (after the loose objects they describe were packed; call with the vault
/// lock held). Errors are ignored: a table left behind no longer matches and is replaced.
pub(crate) fn remove_tables(objects_dir: &Path) {
    remove_table_files(objects_dir, |_| true);
}

fn remove_table_files(objects_dir: &Path, which: impl Fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(objects_dir.join(TABLE_DIR)) else {
        return;
    };
    for entry in entries.flatten() {
        if which(&entry.file_name().to_string_lossy()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dashboard-like rows: a link per page, one or more claim rows each.
    fn rows(pages: usize, seed: u64) -> Vec<String> {
        let mut out = Vec::new();
        let mut x = seed;
        for p in 0..pages {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for c in 0..(x >> 61) + 1 {
                out.push(format!(
                    "- [Page {p}](../entities/page-{p}.md): claim.page-{p}.{c}: text {} (missing evidence, confidence 0.{})",
                    x >> 40,
                    c % 10
                ));
            }
        }
        out
    }

    fn join(rows: &[String]) -> Vec<u8> {
        let mut s = rows.join("\n");
        s.push('\n');
        s.into_bytes()
    }

    fn inflate(bytes: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; 64 << 20];
        let (n, code) =
            zlib_rs::decompress_slice(&mut out, bytes, zlib_rs::InflateConfig::default());
        assert_eq!(code, zlib_rs::ReturnCode::Ok);
        n.to_vec()
    }

    #[test]
    fn segments_cover_the_data_within_bounds_and_resynchronise_after_an_edit() {
        assert!(segment_ends(b"").is_empty());
        assert_eq!(segment_ends(b"short\n"), vec![6]);
        let no_lines = vec![b'x'; 3 * SEG_MAX + 5];
        assert_eq!(
            segment_ends(&no_lines),
            vec![SEG_MAX, 2 * SEG_MAX, 3 * SEG_MAX, 3 * SEG_MAX + 5]
        );
        let mut r = rows(30_000, 7);
        let data = join(&r);
        let ends = segment_ends(&data);
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            let len = end - start;
            assert!(len <= SEG_MAX, "segment {i} is {len} bytes");
            assert!(
                len >= SEG_MIN || i + 1 == ends.len(),
                "segment {i} is {len} bytes"
            );
            assert_eq!(data[end - 1], b'\n', "segment {i} ends at a line end");
            start = end;
        }
        assert_eq!(start, data.len());
        assert!(ends.len() > 20, "{} segments", ends.len());
        // A row replaced in the middle: the segments before it are the same, and all but a
        // few after it come back (same bytes, shifted).
        let mid = r.len() / 2;
        r[mid] = "- [Changed](../entities/changed.md): a much longer row than before".repeat(3);
        let edited = join(&r);
        let old: std::collections::HashSet<&[u8]> = slices(&data, &ends).into_iter().collect();
        let new = slices(&edited, &segment_ends(&edited));
        let shared = new.iter().filter(|s| old.contains(*s)).count();
        assert!(
            shared + 2 >= new.len(),
            "{shared} of {} segments shared",
            new.len()
        );
    }

    fn slices<'a>(data: &'a [u8], ends: &[usize]) -> Vec<&'a [u8]> {
        let mut start = 0;
        ends.iter()
            .map(|&e| {
                let s = &data[start..e];
                start = e;
                s
            })
            .collect()
    }

    #[test]
    fn tables_round_trip_and_reject_other_bytes() {
        let table = Table {
            blob: crate::worktree::blob_id(b"x"),
            file_len: 1234,
            file_crc: 99,
            header_clen: 12,
            segments: vec![
                Segment {
                    sha: [3; 20],
                    len: 40_000,
                    clen: 9_000,
                },
                Segment {
                    sha: [4; 20],
                    len: 5,
                    clen: 11,
                },
            ],
        };
        let bytes = table.encode();
        assert_eq!(Table::decode(&bytes), Some(table));
        assert_eq!(Table::decode(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Table::decode(b"WIKISEG1"), None);
        assert_eq!(Table::decode(&[b"WIKISEG0", &bytes[8..]].concat()), None);
    }

    /// The version after an edit copies all but the changed segments; both are whole zlib
    /// streams of the object (read back by inflating, and by git with `fsck`); a table that no
    /// longer matches its loose file (rewritten by git, say) is not used.
    #[test]
    fn the_next_version_reuses_the_unchanged_segments() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| crate::test_git(dir.path(), args);
        git(&["init", "-q"]);
        let objects = dir.path().join(".git/objects");
        let mut r = rows(40_000, 3);
        let v1 = join(&r);
        r[10] = "- header changed: 1".into();
        r[25_000] = "- [Changed](../entities/changed.md): claim.changed.1: new".into();
        r.insert(
            30_000,
            "- [Inserted](../entities/inserted.md): claim.x.1: new row".into(),
        );
        let v2 = join(&r);
        let path = "reports/claim-health.md";
        let put = |data: &[u8], previous: Option<&ObjectId>| {
            let id = crate::worktree::blob_id(data);
            let reuse = write(&objects, id, data, path, previous, |bytes| {
                let dest = crate::pack::loose_path(&objects, &id);
                std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                std::fs::write(&dest, bytes).unwrap();
                Ok(())
            })
            .unwrap();
            (id, reuse)
        };
        let (id1, first) = put(&v1, None);
        assert_eq!(
            first,
            Reuse {
                reused: 0,
                deflated: v1.len()
            }
        );
        let (id2, second) = put(&v2, Some(&id1));
        assert_eq!(second.reused + second.deflated, v2.len());
        assert!(second.deflated < 4 * SEG_MAX, "{second:?}");
        assert!(second.reused > v2.len() * 8 / 10, "{second:?}");
        for (id, data) in [(id1, &v1), (id2, &v2)] {
            let file = std::fs::read(crate::pack::loose_path(&objects, &id)).unwrap();
            let mut expected = format!("blob {}\0", data.len()).into_bytes();
            expected.extend_from_slice(data);
            assert_eq!(inflate(&file), expected);
            assert_eq!(git(&["cat-file", "blob", &id.to_string()]), *data);
        }
        git(&["fsck", "--strict", "--no-progress"]);
        // The same version written again reuses everything but the object header.
        let again = encode(&objects, id2, &v2, path, Some(&id2)).unwrap();
        assert_eq!(
            again.2,
            Reuse {
                reused: v2.len(),
                deflated: 0
            }
        );
        // The previous version's file no longer what the table describes: deflated whole.
        let file = crate::pack::loose_path(&objects, &id2);
        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - 7;
        bytes[last] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        let stale = encode(&objects, id2, &v2, path, Some(&id2)).unwrap();
        assert_eq!(
            stale.2,
            Reuse {
                reused: 0,
                deflated: v2.len()
            }
        );
        // Another path's table is not this one's.
        let other = encode(&objects, id2, &v2, "reports/other.md", Some(&id1)).unwrap();
        assert_eq!(other.2.reused, 0);
    }
}
