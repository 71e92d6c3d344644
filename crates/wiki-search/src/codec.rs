//! Small binary helpers for the index files: LEB128 varints, a fast 64-bit checksum, a bounds-checked
//! reader and positional reads.

use std::fs::File;
use std::io;

/// Why bytes could not be decoded: the file is corrupt (or from another format).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Corrupt(pub String);

impl Corrupt {
    /// A corruption with a reason.
    pub fn new(reason: impl Into<String>) -> Corrupt {
        Corrupt(reason.into())
    }
}

/// Append an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Append a length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A 64-bit checksum of index files (shared with the index directory names).
pub use wiki_vault::index_dir::checksum;

/// A bounds-checked cursor over bytes.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Read from the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// An unsigned varint.
    pub fn varint(&mut self) -> Result<u64, Corrupt> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        loop {
            let b = *self
                .buf
                .get(self.pos)
                .ok_or_else(|| Corrupt::new("truncated varint"))?;
            self.pos += 1;
            if shift >= 64 {
                return Err(Corrupt::new("varint too long"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// A varint that must fit in `usize` and be at most `max`.
    pub fn len(&mut self, max: usize) -> Result<usize, Corrupt> {
        let v = self.varint()?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| Corrupt::new("length out of range"))
    }

    /// `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Corrupt> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| Corrupt::new("truncated data"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// A length-prefixed byte string.
    pub fn lbytes(&mut self) -> Result<&'a [u8], Corrupt> {
        let n = self.len(self.buf.len())?;
        self.bytes(n)
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self) -> Result<&'a str, Corrupt> {
        std::str::from_utf8(self.lbytes()?).map_err(|_| Corrupt::new("invalid UTF-8"))
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, Corrupt> {
        Ok(self.bytes(1)?[0])
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> Result<u32, Corrupt> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> Result<u64, Corrupt> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A 20-byte blob id.
    pub fn oid(&mut self) -> Result<[u8; 20], Corrupt> {
        let b = self.bytes(20)?;
        let mut a = [0u8; 20];
        a.copy_from_slice(b);
        Ok(a)
    }
}

/// Read exactly `len` bytes at `offset`.
pub fn read_at(file: &File, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buf, offset)?;
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < len {
            let n = file.seek_read(&mut buf[done..], offset + done as u64)?;
            if n == 0 {
                return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
            }
            done += n;
        }
    }
    Ok(buf)
}

/// Git blob id of `bytes` (SHA-1 of `blob <len>\0<bytes>`), as raw bytes.
pub fn blob_id(bytes: &[u8]) -> [u8; 20] {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.digest().bytes()
}

/// Lowercase hex of a blob id.
pub fn hex(oid: &[u8; 20]) -> String {
    let mut s = String::with_capacity(40);
    for b in oid {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut out = Vec::new();
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            put_varint(&mut out, v);
        }
        let mut r = Reader::new(&out);
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(r.varint().unwrap(), v);
        }
        assert!(r.is_empty());
        assert!(r.varint().is_err());
    }

    #[test]
    fn blob_id_matches_wiki_parse() {
        for bytes in [&b""[..], b"hello\n", "é".as_bytes()] {
            assert_eq!(hex(&blob_id(bytes)), wiki_parse::page::git_blob_id(bytes));
        }
    }

    #[test]
    fn checksum_detects_flips() {
        let a = checksum(b"0123456789abcdef-xyz");
        assert_ne!(a, checksum(b"0123456789abcdeg-xyz"));
        assert_ne!(a, checksum(b"0123456789abcdef-xy"));
    }
}
