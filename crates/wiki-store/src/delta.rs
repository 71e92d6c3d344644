//! git's delta format (the payload of `OFS_DELTA` pack entries): a target object described as
//! copies of byte ranges of a base object and inserted literal bytes.
//!
//! Layout: the base size and the target size (little-endian base-128 varints), then
//! instructions. A byte with the high bit set is a copy: bits 0–3 say which of the four
//! little-endian offset bytes follow, bits 4–6 which of the three size bytes (size 0 means
//! 0x10000). A byte `n` in 1..=127 inserts the `n` bytes that follow. 0 is reserved.
//!
//! The encoder is line-oriented, which suits Markdown pages and dashboards: every base line of
//! at least [`MIN_LINE`] bytes is indexed by content; the target is scanned line by line, and a
//! line found in the base starts a copy that is then extended byte by byte as far as both
//! agree (across lines), so a page changed in a few places becomes a handful of long copies
//! and the changed lines as inserts. Linear in the sizes of both objects.

use std::collections::HashMap;
use std::hash::BuildHasher;

/// Shorter lines are not indexed (a copy instruction costs up to 8 bytes); they are still
/// copied when a copy that started on an earlier line runs through them.
const MIN_LINE: usize = 8;

/// Largest size one copy instruction can carry.
const MAX_COPY: usize = 0x00ff_ffff;

/// Largest literal run one insert instruction can carry.
const MAX_INSERT: usize = 0x7f;

fn push_varint(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn push_insert(out: &mut Vec<u8>, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        let n = bytes.len().min(MAX_INSERT);
        out.push(n as u8);
        out.extend_from_slice(&bytes[..n]);
        bytes = &bytes[n..];
    }
}

fn push_copy(out: &mut Vec<u8>, mut offset: usize, mut len: usize) {
    while len > 0 {
        let n = len.min(MAX_COPY);
        let at = out.len();
        out.push(0x80);
        let mut cmd = 0x80u8;
        for i in 0..4 {
            let byte = (offset >> (8 * i)) as u8;
            if byte != 0 {
                cmd |= 1 << i;
                out.push(byte);
            }
        }
        for i in 0..3 {
            let byte = (n >> (8 * i)) as u8;
            if byte != 0 {
                cmd |= 0x10 << i;
                out.push(byte);
            }
        }
        out[at] = cmd;
        offset += n;
        len -= n;
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_ne_bytes(a[i..i + 8].try_into().unwrap_or([0; 8]));
        let y = u64::from_ne_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        if x != y {
            break;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// End (exclusive) of the line starting at `start`: after its `\n`, or the end of `bytes`.
fn line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p + 1)
}

/// End (exclusive) of the tree entry starting at `start` (`<mode> <name>\0<20-byte id>`).
fn entry_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr(0, &bytes[start..]).map_or(bytes.len(), |p| (start + p + 21).min(bytes.len()))
}

/// How an object is cut into the units the encoder indexes and matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Units {
    /// Lines (blobs: pages, dashboards, any text; binary data gets long "lines" and few matches).
    Lines,
    /// Tree entries.
    TreeEntries,
}

impl Units {
    fn end(self, bytes: &[u8], start: usize) -> usize {
        match self {
            Units::Lines => line_end(bytes, start),
            Units::TreeEntries => entry_end(bytes, start),
        }
    }
}

/// A delta that turns `base` into `target`, or `None` when it would be longer than `limit`
/// bytes (the caller then stores `target` whole) or `base` is too large to address.
pub(crate) fn encode(base: &[u8], target: &[u8], units: Units, limit: usize) -> Option<Vec<u8>> {
    if base.len() > u32::MAX as usize {
        return None;
    }
    let hasher = foldhash::quality::FixedState::with_seed(0);
    // Line content hash -> offset of its first occurrence in `base`.
    let mut index: HashMap<u64, u32> = HashMap::with_capacity(base.len() / 48 + 1);
    let mut at = 0;
    while at < base.len() {
        let end = units.end(base, at);
        if end - at >= MIN_LINE {
            index
                .entry(hasher.hash_one(&base[at..end]))
                .or_insert(at as u32);
        }
        at = end;
    }

    let mut out = Vec::with_capacity(64);
    push_varint(&mut out, base.len());
    push_varint(&mut out, target.len());
    let mut t = 0;
    let mut insert_from = 0;
    while t < target.len() {
        let end = units.end(target, t);
        let line = &target[t..end];
        let found = if line.len() >= MIN_LINE {
            index
                .get(&hasher.hash_one(line))
                .map(|&o| o as usize)
                .filter(|&o| base[o..].starts_with(line))
        } else {
            None
        };
        match found {
            Some(mut offset) => {
                // Short lines just before it (not indexed) may match too.
                let mut start = t;
                while start > insert_from && offset > 0 && base[offset - 1] == target[start - 1] {
                    start -= 1;
                    offset -= 1;
                }
                let len = common_prefix(&base[offset..], &target[start..]);
                push_insert(&mut out, &target[insert_from..start]);
                push_copy(&mut out, offset, len);
                t = start + len;
                insert_from = t;
                if out.len() > limit {
                    return None;
                }
            }
            None => t = end,
        }
    }
    push_insert(&mut out, &target[insert_from..]);
    (out.len() <= limit).then_some(out)
}

fn read_varint(delta: &[u8], at: &mut usize) -> Option<usize> {
    let mut n = 0usize;
    let mut shift = 0;
    loop {
        let byte = *delta.get(*at)?;
        *at += 1;
        n |= ((byte & 0x7f) as usize).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(n);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Apply `delta` to `base`; `None` when the delta is malformed or does not fit `base`.
pub(crate) fn apply(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    if read_varint(delta, &mut at)? != base.len() {
        return None;
    }
    let size = read_varint(delta, &mut at)?;
    let mut out = Vec::with_capacity(size);
    while at < delta.len() {
        let cmd = delta[at];
        at += 1;
        if cmd & 0x80 != 0 {
            let mut offset = 0usize;
            for i in 0..4 {
                if cmd & (1 << i) != 0 {
                    offset |= (*delta.get(at)? as usize) << (8 * i);
                    at += 1;
                }
            }
            let mut len = 0usize;
            for i in 0..3 {
                if cmd & (0x10 << i) != 0 {
                    len |= (*delta.get(at)? as usize) << (8 * i);
                    at += 1;
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            out.extend_from_slice(base.get(offset..offset.checked_add(len)?)?);
        } else if cmd != 0 {
            let n = cmd as usize;
            out.extend_from_slice(delta.get(at..at + n)?);
            at += n;
        } else {
            return None;
        }
    }
    (out.len() == size).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(base: &[u8], target: &[u8]) -> Vec<u8> {
        let delta = encode(base, target, Units::Lines, usize::MAX).expect("delta");
        assert_eq!(apply(base, &delta).as_deref(), Some(target));
        delta
    }

    #[test]
    fn small_edits_make_small_deltas() {
        let base: String = (0..2000)
            .map(|i| format!("- [Page {i}](entities/page-{i}.md): {} claims\n", i % 7))
            .collect();
        let mut target = base.replace(
            "- [Page 1000](entities/page-1000.md): 6 claims\n",
            "- [Page 1000](entities/page-1000.md): 7 claims\n- added\n",
        );
        target.push_str("trailing line without newline");
        let delta = roundtrip(base.as_bytes(), target.as_bytes());
        assert!(delta.len() < 120, "{} bytes", delta.len());
    }

    #[test]
    fn edge_cases_roundtrip() {
        roundtrip(b"", b"");
        roundtrip(b"", b"new content\n");
        roundtrip(b"old content here\n", b"");
        roundtrip(b"same same same\n", b"same same same\n");
        roundtrip(b"short\nx\n", b"short\ny\n");
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let delta = roundtrip(&big, &big);
        assert!(delta.len() < 32);
        let mut moved = big[100_000..].to_vec();
        moved.extend_from_slice(&big[..100_000]);
        roundtrip(&big, &moved);
        // Long inserts are split into runs of at most 127 bytes.
        roundtrip(b"", &[b'z'; 1000]);
    }

    #[test]
    fn tree_entries_make_small_deltas() {
        let tree = |changed: u8| -> Vec<u8> {
            let mut t = Vec::new();
            for i in 0..500u32 {
                t.extend_from_slice(format!("100644 page-{i}.md\0").as_bytes());
                let fill = if i == 250 { changed } else { (i % 251) as u8 };
                t.extend_from_slice(&[fill; 20]);
            }
            t
        };
        let (base, target) = (tree(1), tree(2));
        let delta = encode(&base, &target, Units::TreeEntries, usize::MAX).expect("delta");
        assert_eq!(apply(&base, &delta).as_deref(), Some(&target[..]));
        assert!(delta.len() < 64, "{} bytes", delta.len());
    }

    #[test]
    fn limit_is_respected() {
        let base = b"completely different base content\n".repeat(10);
        let target = b"another text with nothing in common!\n".repeat(10);
        assert_eq!(encode(&base, &target, Units::Lines, 100), None);
    }

    #[test]
    fn copy_encoding_matches_git() {
        // offset 0x010203 (bytes 03 02 01), size 0x10000 (only byte 2 = 0x01)
        let mut out = Vec::new();
        push_copy(&mut out, 0x01_0203, 0x1_0000);
        assert_eq!(out, vec![0x80 | 0b0111 | 0x40, 0x03, 0x02, 0x01, 0x01]);
        assert_eq!(
            apply(&vec![0u8; 0x2_0203], &{
                let mut d = Vec::new();
                push_varint(&mut d, 0x2_0203);
                push_varint(&mut d, 0x1_0000);
                d.extend_from_slice(&out);
                d
            })
            .map(|v| v.len()),
            Some(0x1_0000)
        );
        // A zero offset and a size of exactly 0x10000 encoded with no size bytes is git's
        // special case; we never emit it, but we read it.
        let mut d = Vec::new();
        push_varint(&mut d, 0x1_0000);
        push_varint(&mut d, 0x1_0000);
        d.push(0x80);
        assert_eq!(
            apply(&vec![7u8; 0x1_0000], &d).map(|v| v.len()),
            Some(0x1_0000)
        );
    }
}
