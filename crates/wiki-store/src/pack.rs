//! Writing many new blobs as one pack (`objects/pack/pack-<hash>.{pack,idx}`) instead of one
//! loose object (temporary file + rename) each.
//!
//! The pack is version 2 with only whole (non-delta) blob entries, deflated at level 1 like
//! git's loose objects; the index is version 2 (with the 64-bit offset table when needed). Both
//! files are written to temporary files, fsynced, made read-only and renamed into place, the
//! pack first and the index last (a pack becomes visible with its index), exactly as git does.
//! The caller writes them before any tree, commit or ref refers to the blobs.

use std::io::Write;
use std::path::Path;

use gix::ObjectId;
use gix::zlib::stream::deflate::{Compress, FlushCompress};

use crate::{Error, Result, segmented};

/// Prefix of the temporary files this module writes in `objects/pack/` (git's own are
/// `tmp_pack_*` and `tmp_idx_*`). They only exist while the vault lock is held, so one found by
/// a holder of the lock was left by a killed process: see [`remove_stale_temporaries`].
pub(crate) const TMP_PREFIX: &str = "tmp_pack_wiki_";

/// Prefix of the temporary files [`write_loose_blobs`] writes in `objects/` (git's own are
/// `tmp_obj_*`).
const TMP_LOOSE_PREFIX: &str = "tmp_obj_wiki_";

/// Remove the temporary files a killed writer of this module left in `objects/pack/` and
/// `objects/` (call with the vault lock held). Errors are ignored: the files are only clutter.
pub(crate) fn remove_stale_temporaries(objects_dir: &Path) {
    for (dir, prefix) in [
        (objects_dir.join("pack"), TMP_PREFIX),
        (objects_dir.to_path_buf(), TMP_LOOSE_PREFIX),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    segmented::remove_stale_temporaries(objects_dir);
}

/// The loose object file of `id` (`objects/xx/…`).
pub(crate) fn loose_path(objects_dir: &Path, id: &ObjectId) -> std::path::PathBuf {
    let hex = id.to_hex().to_string();
    objects_dir.join(&hex[..2]).join(&hex[2..])
}

/// A new blob for [`write_loose_blobs`]: its id, its bytes and, for a file of the commit, the
/// path in the repository and the blob it replaces there (see [`crate::segmented`]).
pub(crate) struct LooseBlob<'a> {
    pub id: ObjectId,
    pub bytes: &'a [u8],
    pub path: Option<String>,
    pub previous: Option<ObjectId>,
}

/// Write `blobs` (distinct ids, each the blob id of its bytes, not yet in the repository) as
/// loose objects, as git and gix do (zlib level 1, `core.looseCompression`'s default; a
/// read-only temporary file in `objects/` renamed to `objects/xx/…`; no fsync), the largest
/// ones on their own threads. A blob of a path of at least [`segmented::MIN_BLOB`] bytes is
/// deflated in segments, reusing those its previous version shares with it: an operation on a
/// large vault rewrites megabytes of dashboards, and compressing them was most of its commit's
/// object writing.
pub(crate) fn write_loose_blobs(
    objects_dir: &Path,
    blobs: &[LooseBlob<'_>],
) -> Result<segmented::Reuse> {
    let write = |blob: &&LooseBlob<'_>| -> Result<segmented::Reuse> {
        let (id, data) = (blob.id, blob.bytes);
        let dest = loose_path(objects_dir, &id);
        let persist_at = |out: &[u8]| -> Result<()> {
            if let Some(dir) = dest.parent() {
                match std::fs::create_dir(dir) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                        return Err(Error::io(dir, e));
                    }
                    _ => {}
                }
            }
            persist(objects_dir, TMP_LOOSE_PREFIX, out, &dest, false)
        };
        if let Some(path) = blob
            .path
            .as_deref()
            .filter(|_| data.len() >= segmented::MIN_BLOB)
        {
            return segmented::write(
                objects_dir,
                id,
                data,
                path,
                blob.previous.as_ref(),
                persist_at,
            );
        }
        let mut out = Vec::with_capacity(data.len() / 3 + 64);
        let header = format!("blob {}\0", data.len());
        deflate(
            &mut Compress::new(gix::zlib::Compression::BEST_SPEED),
            &[header.as_bytes(), data],
            &mut out,
        )
        .map_err(|e| Error::io(objects_dir, e))?;
        persist_at(&out)?;
        Ok(segmented::Reuse {
            reused: 0,
            deflated: data.len(),
        })
    };
    // Written in order, stopping at the first error.
    let write_all = |blobs: &[&LooseBlob<'_>]| -> Result<segmented::Reuse> {
        blobs
            .iter()
            .try_fold(segmented::Reuse::default(), |mut total, blob| {
                total += write(blob)?;
                Ok(total)
            })
    };
    // Largest first, each to the less loaded of two lists (one per CPU is enough: a handful of
    // files, one or two of them megabytes).
    let mut order: Vec<&LooseBlob<'_>> = blobs.iter().collect();
    order.sort_by_key(|b| std::cmp::Reverse(b.bytes.len()));
    let total: usize = blobs.iter().map(|b| b.bytes.len()).sum();
    if order.len() < 2 || total < (1 << 20) {
        return write_all(&order);
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut load_a, mut load_b) = (0, 0);
    for blob in order {
        if load_a <= load_b {
            load_a += blob.bytes.len();
            a.push(blob);
        } else {
            load_b += blob.bytes.len();
            b.push(blob);
        }
    }
    std::thread::scope(|scope| {
        let other = scope.spawn(|| write_all(&b));
        let mine = write_all(&a);
        let other = other
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
        let mut total = mine?;
        total += other;
        Ok(total)
    })
}

/// From this many new blobs on, a commit writes them as a pack.
pub(crate) const PACK_THRESHOLD: usize = 64;

/// Blob object type in pack entry headers.
const OBJ_BLOB: u8 = 3;

/// SHA-1 of `bytes` (pack and index checksums).
fn sha1_of(bytes: &[u8]) -> [u8; 20] {
    use sha1::Digest;
    sha1::Sha1::digest(bytes).into()
}

/// CRC-32 (IEEE, as zlib and git's pack index use; carry-less multiplication where the CPU has
/// it).
fn crc32(bytes: &[u8]) -> u32 {
    zlib_rs::crc32::crc32(0, bytes)
}

/// Append the concatenation of `parts` zlib-compressed (level 1) to `out`, as one stream.
fn deflate(compress: &mut Compress, parts: &[&[u8]], out: &mut Vec<u8>) -> std::io::Result<()> {
    compress.reset();
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let mut chunk = vec![0u8; (len + len / 8 + 64).min(1 << 20)];
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let flush = if last {
            FlushCompress::Finish
        } else {
            FlushCompress::None
        };
        let mut input = *part;
        loop {
            let (before_in, before_out) = (compress.total_in(), compress.total_out());
            let status = compress
                .compress(input, &mut chunk, flush)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            let produced = (compress.total_out() - before_out) as usize;
            out.extend_from_slice(&chunk[..produced]);
            input = &input[(compress.total_in() - before_in) as usize..];
            if matches!(status, gix::zlib::Status::StreamEnd) {
                return Ok(());
            }
            if !last && input.is_empty() {
                break;
            }
            if produced == 0 && compress.total_in() == before_in {
                return Err(std::io::Error::other("deflate made no progress"));
            }
        }
    }
    Err(std::io::Error::other("deflate did not finish"))
}

/// Pack entries for some blobs: their bytes and, per blob, (id, crc32, offset in `bytes`).
struct Encoded {
    bytes: Vec<u8>,
    entries: Vec<(ObjectId, u32, u64)>,
}

/// Encode `blobs` as consecutive whole-blob pack entries (header + deflated data).
fn encode_entries(blobs: &[(ObjectId, &[u8])]) -> std::io::Result<Encoded> {
    let mut out = Vec::with_capacity(blobs.iter().map(|(_, b)| b.len() / 2 + 32).sum::<usize>());
    let mut entries = Vec::with_capacity(blobs.len());
    let mut compress = Compress::new(gix::zlib::Compression::BEST_SPEED);
    for (id, data) in blobs {
        let offset = out.len();
        out.extend_from_slice(&entry_header(OBJ_BLOB, data.len() as u64));
        deflate(&mut compress, &[data], &mut out)?;
        entries.push((*id, crc32(&out[offset..]), offset as u64));
    }
    Ok(Encoded {
        bytes: out,
        entries,
    })
}

/// Write `blobs` (distinct ids, each the blob id of its bytes) as one pack with its index into
/// `<objects_dir>/pack/`. Returns the pack's path.
pub(crate) fn write_blobs(
    objects_dir: &Path,
    blobs: &[(ObjectId, &[u8])],
) -> Result<std::path::PathBuf> {
    let pack_dir = objects_dir.join("pack");
    std::fs::create_dir_all(&pack_dir).map_err(|e| Error::io(&pack_dir, e))?;
    let io = |e: std::io::Error| Error::io(&pack_dir, e);

    // Pack data: header, entries, trailing SHA-1 of everything before it.
    let mut pack =
        Vec::with_capacity(12 + blobs.iter().map(|(_, b)| b.len() / 2 + 32).sum::<usize>());
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(
        &u32::try_from(blobs.len())
            .map_err(|_| io(std::io::Error::other("too many objects for one pack")))?
            .to_be_bytes(),
    );
    // Entries are deflated independently, so chunks of them are encoded in parallel and
    // concatenated in order (the same bytes as one sequential pass).
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk_len = blobs.len().div_ceil(threads).max(1);
    let encoded: Vec<std::io::Result<Encoded>> = std::thread::scope(|scope| {
        let handles: Vec<_> = blobs
            .chunks(chunk_len)
            .map(|chunk| scope.spawn(move || encode_entries(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    // (id, crc32 of the entry, offset)
    let mut entries: Vec<(ObjectId, u32, u64)> = Vec::with_capacity(blobs.len());
    for part in encoded {
        let part = part.map_err(io)?;
        let base = pack.len() as u64;
        pack.extend_from_slice(&part.bytes);
        entries.extend(
            part.entries
                .into_iter()
                .map(|(id, crc, offset)| (id, crc, base + offset)),
        );
    }
    let pack_hash = sha1_of(&pack);
    pack.extend_from_slice(&pack_hash);
    install(&pack_dir, &pack_hash, &mut entries, |dest| {
        persist(&pack_dir, TMP_PREFIX, &pack, dest, true)
    })
}

/// Put a complete pack in place under its name: `write_pack` writes the pack (ending with
/// `pack_hash`) to the path it is given, fsynced and read-only; then the index of `entries` is
/// written beside it (a pack becomes visible with its index, so the index comes last, as git
/// does). Returns the pack's path.
fn install(
    pack_dir: &Path,
    pack_hash: &[u8; 20],
    entries: &mut [(ObjectId, u32, u64)],
    write_pack: impl FnOnce(&Path) -> Result<()>,
) -> Result<std::path::PathBuf> {
    let name = ObjectId::from(*pack_hash).to_string();
    let pack_path = pack_dir.join(format!("pack-{name}.pack"));
    write_pack(&pack_path)?;
    let idx = build_index(entries, pack_hash);
    persist(
        pack_dir,
        TMP_PREFIX,
        &idx,
        &pack_dir.join(format!("pack-{name}.idx")),
        true,
    )?;
    Ok(pack_path)
}

/// Index (version 2) of a pack whose entries are `(id, crc32, offset)` (sorted here) and whose
/// trailing hash is `pack_hash`.
fn build_index(entries: &mut [(ObjectId, u32, u64)], pack_hash: &[u8; 20]) -> Vec<u8> {
    entries.sort_by_key(|e| e.0);
    let mut idx = Vec::with_capacity(8 + 1024 + entries.len() * 28 + 40);
    idx.extend_from_slice(&[0xff, b't', b'O', b'c']);
    idx.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _, _) in entries.iter() {
        fanout[id.as_bytes()[0] as usize] += 1;
    }
    let mut total = 0u32;
    for count in fanout {
        total += count;
        idx.extend_from_slice(&total.to_be_bytes());
    }
    for (id, _, _) in entries.iter() {
        idx.extend_from_slice(id.as_bytes());
    }
    for (_, crc, _) in entries.iter() {
        idx.extend_from_slice(&crc.to_be_bytes());
    }
    let mut large = Vec::new();
    for (_, _, offset) in entries.iter() {
        if *offset < 0x8000_0000 {
            idx.extend_from_slice(&(*offset as u32).to_be_bytes());
        } else {
            idx.extend_from_slice(&(0x8000_0000 | large.len() as u32).to_be_bytes());
            large.push(*offset);
        }
    }
    for offset in large {
        idx.extend_from_slice(&offset.to_be_bytes());
    }
    idx.extend_from_slice(pack_hash);
    let idx_hash = sha1_of(&idx);
    idx.extend_from_slice(&idx_hash);
    idx
}

/// Pack entry type of a delta against an earlier entry of the same pack.
const OBJ_OFS_DELTA: u8 = 6;

/// Pack entry type of an object kind.
pub(crate) fn entry_type(kind: gix::object::Kind) -> u8 {
    match kind {
        gix::object::Kind::Commit => 1,
        gix::object::Kind::Tree => 2,
        gix::object::Kind::Blob => OBJ_BLOB,
        gix::object::Kind::Tag => 4,
    }
}

/// A pack written entry by entry to a temporary file in `objects/pack/` (for packing loose
/// objects, which may not fit in memory at once). [`PackWriter::finish`] adds the trailer,
/// writes the index and renames both into place like [`write_blobs`].
pub(crate) struct PackWriter {
    pack_dir: std::path::PathBuf,
    file: std::io::BufWriter<tempfile::NamedTempFile>,
    hasher: sha1::Sha1,
    offset: u64,
    expected: u32,
    entries: Vec<(ObjectId, u32, u64)>,
    compress: Compress,
    scratch: Vec<u8>,
}

impl PackWriter {
    /// Start a pack that will hold exactly `count` entries.
    pub(crate) fn new(objects_dir: &Path, count: u32) -> Result<PackWriter> {
        let pack_dir = objects_dir.join("pack");
        std::fs::create_dir_all(&pack_dir).map_err(|e| Error::io(&pack_dir, e))?;
        let tmp = tempfile::Builder::new()
            .prefix(TMP_PREFIX)
            .tempfile_in(&pack_dir)
            .map_err(|e| Error::io(&pack_dir, e))?;
        let mut writer = PackWriter {
            pack_dir,
            file: std::io::BufWriter::with_capacity(1 << 20, tmp),
            hasher: <sha1::Sha1 as sha1::Digest>::new(),
            offset: 0,
            expected: count,
            entries: Vec::with_capacity(count as usize),
            compress: Compress::new(gix::zlib::Compression::BEST_SPEED),
            scratch: Vec::new(),
        };
        let mut header = Vec::with_capacity(12);
        header.extend_from_slice(b"PACK");
        header.extend_from_slice(&2u32.to_be_bytes());
        header.extend_from_slice(&count.to_be_bytes());
        writer.emit(&header)?;
        Ok(writer)
    }

    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        sha1::Digest::update(&mut self.hasher, bytes);
        self.file
            .write_all(bytes)
            .map_err(|e| Error::io(&self.pack_dir, e))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Offset the next entry will have.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    fn entry(&mut self, id: ObjectId, header: &[u8], data: &[u8]) -> Result<u64> {
        let offset = self.offset;
        let mut bytes = std::mem::take(&mut self.scratch);
        bytes.clear();
        bytes.extend_from_slice(header);
        deflate(&mut self.compress, &[data], &mut bytes)
            .map_err(|e| Error::io(&self.pack_dir, e))?;
        let crc = crc32(&bytes);
        self.emit(&bytes)?;
        self.scratch = bytes;
        self.entries.push((id, crc, offset));
        Ok(offset)
    }

    /// Add object `id` whole; returns its offset.
    pub(crate) fn add_whole(&mut self, id: ObjectId, kind: u8, data: &[u8]) -> Result<u64> {
        let header = entry_header(kind, data.len() as u64);
        self.entry(id, &header, data)
    }

    /// Add object `id` as `delta` against the entry at `base_offset`; returns its offset.
    pub(crate) fn add_delta(
        &mut self,
        id: ObjectId,
        base_offset: u64,
        delta: &[u8],
    ) -> Result<u64> {
        let mut header = entry_header(OBJ_OFS_DELTA, delta.len() as u64);
        // Distance back to the base, in git's "offset encoding" (big-endian base-128 where
        // every continued byte also adds one).
        let mut distance = self.offset - base_offset;
        let mut encoded = vec![(distance & 0x7f) as u8];
        distance >>= 7;
        while distance != 0 {
            distance -= 1;
            encoded.push(0x80 | (distance & 0x7f) as u8);
            distance >>= 7;
        }
        encoded.reverse();
        header.extend_from_slice(&encoded);
        self.entry(id, &header, delta)
    }

    /// Write the trailer and the index, fsync both and rename them into place (pack first).
    /// Returns the pack's path.
    pub(crate) fn finish(mut self) -> Result<std::path::PathBuf> {
        if self.entries.len() != self.expected as usize {
            return Err(Error::io(
                &self.pack_dir,
                std::io::Error::other(format!(
                    "pack announced {} objects but holds {}",
                    self.expected,
                    self.entries.len()
                )),
            ));
        }
        let pack_hash: [u8; 20] = sha1::Digest::finalize(self.hasher).into();
        self.file
            .write_all(&pack_hash)
            .map_err(|e| Error::io(&self.pack_dir, e))?;
        let tmp = self
            .file
            .into_inner()
            .map_err(|e| Error::io(&self.pack_dir, e.into_error()))?;
        install(&self.pack_dir, &pack_hash, &mut self.entries, |dest| {
            seal(tmp, dest, true)
        })
    }
}

/// Pack entry header: type and size (base-128, low four bits first).
fn entry_header(kind: u8, mut size: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    let mut byte = (kind << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size != 0 {
        out.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    out.push(byte);
    out
}

/// Temporary file in `dir` (named `prefix…`), written, fsynced when `sync`, made read-only,
/// renamed to `dest`.
fn persist(dir: &Path, prefix: &str, bytes: &[u8], dest: &Path, sync: bool) -> Result<()> {
    let mut tmp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    seal(tmp, dest, sync)
}

/// Fsync a written temporary file (when `sync`: packs and their indexes are; loose objects, as
/// git and gix write them, are not), make it read-only and rename it to `dest`.
fn seal(tmp: tempfile::NamedTempFile, dest: &Path, sync: bool) -> Result<()> {
    if sync {
        tmp.as_file()
            .sync_all()
            .map_err(|e| Error::io(tmp.path(), e))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o444))
            .map_err(|e| Error::io(tmp.path(), e))?;
    }
    tmp.persist(dest).map_err(|e| Error::io(dest, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loose blobs written on two threads are what git reads back, pass `git fsck --strict`,
    /// and are read-only; no temporary file stays behind.
    #[test]
    fn loose_blobs_are_read_back_by_git() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| crate::test_git(dir.path(), args);
        git(&["init", "-q"]);
        // Megabytes of text-like bytes (two threads), a small blob, an empty one.
        let big: Vec<u8> = (0..3_000_000u32)
            .map(|i| b"abcdefghij klmnop\n"[(i as usize * 7 + i as usize / 13) % 18])
            .collect();
        let other: Vec<u8> = big.iter().rev().copied().take(1_500_000).collect();
        let contents: [&[u8]; 4] = [&big, b"small\n", b"", &other];
        let blobs: Vec<(ObjectId, &[u8])> = contents
            .iter()
            .map(|b| (crate::worktree::blob_id(b), *b))
            .collect();
        let objects = dir.path().join(".git/objects");
        // The large one with a path: in segments.
        let loose: Vec<LooseBlob<'_>> = blobs
            .iter()
            .enumerate()
            .map(|(i, (id, bytes))| LooseBlob {
                id: *id,
                bytes,
                path: (i == 0).then(|| "big.md".to_string()),
                previous: None,
            })
            .collect();
        let reuse = write_loose_blobs(&objects, &loose).unwrap();
        assert_eq!(
            reuse.deflated,
            contents.iter().map(|c| c.len()).sum::<usize>()
        );
        for (id, bytes) in &blobs {
            let hex = id.to_hex().to_string();
            assert_eq!(git(&["cat-file", "blob", &hex]), *bytes);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let meta = std::fs::metadata(objects.join(&hex[..2]).join(&hex[2..])).unwrap();
                assert_eq!(meta.permissions().mode() & 0o777, 0o444);
            }
        }
        git(&["fsck", "--strict", "--no-progress"]);
        let leftovers: Vec<_> = std::fs::read_dir(&objects)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn crc32_matches_reference() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }
}
