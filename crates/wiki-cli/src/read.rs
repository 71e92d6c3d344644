//! Reading a whole file, bounded by what its kind can reasonably be.
//!
//! Every file a command reads whole (pages, compiled caches, the OpenClaw config, memory notes,
//! import sources, exports) goes through [`read_bounded`] with the [`Limit`] of its kind, never
//! `std::fs::read`: a file's size is a claim (a sparse 2 GiB file costs nothing on disk), and
//! allocating it would let one file abort every command that reads it. The limits live beside
//! the rule they belong to (the page limit in `wiki_parse::page`, the compiled caches' in
//! `wiki_parse::layout`, the config's in [`crate::config`]), each with its reason.

use std::io::Read;
use std::path::Path;

/// The largest size a kind of file may have, and the kind's name as messages show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// What the file is, plural, for messages: `pages`, `the OpenClaw config`.
    pub kind: &'static str,
    /// The largest size read, in bytes.
    pub bytes: u64,
}

impl Limit {
    /// The limit for `kind`.
    pub const fn new(kind: &'static str, bytes: u64) -> Limit {
        Limit { kind, bytes }
    }

    /// The error for a file of `len` bytes over this limit:
    /// `too large (N bytes; the limit for <kind> is M)` (callers put the path in front).
    pub fn too_large(&self, len: u64) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "too large ({len} bytes; the limit for {} is {})",
                self.kind, self.bytes
            ),
        )
    }

    /// Whether `e` is this module's "too large" error (as opposed to a missing or unreadable
    /// file).
    pub fn is_too_large(e: &std::io::Error) -> bool {
        e.kind() == std::io::ErrorKind::InvalidData
            && e.get_ref()
                .is_some_and(|m| m.to_string().starts_with("too large ("))
    }
}

/// Memory notes (`MEMORY.md`, `memory/*.md`, `DREAMS.md`, imported notes): the original's
/// limit for them (16 MiB), shared by `wiki memory` and the search over the memory files.
pub const MEMORY_NOTES: Limit = Limit::new("memory notes", 16 << 20);

/// Read the file at `path` when it holds at most `limit.bytes` bytes. A larger file is an
/// `InvalidData` error, `too large (N bytes; the limit for <kind> is M)`; its claimed size is
/// never allocated, and a file that grows while it is read stops one byte past the limit.
pub fn read_bounded(path: &Path, limit: Limit) -> std::io::Result<Vec<u8>> {
    read_open(std::fs::File::open(path)?, limit)
}

/// [`read_bounded`] of a file already open.
pub fn read_open(file: std::fs::File, limit: Limit) -> std::io::Result<Vec<u8>> {
    let len = file.metadata()?.len();
    if len > limit.bytes {
        return Err(limit.too_large(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(limit.too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_bounded`] into a `String`; bytes that are not UTF-8 are an `InvalidData` error (as
/// `std::fs::read_to_string` gives).
pub fn read_bounded_string(path: &Path, limit: Limit) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path, limit)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limit = Limit::new("test files", 10);

    #[test]
    fn reads_up_to_the_limit_and_refuses_more_without_allocating_it() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("ok");
        std::fs::write(&ok, b"0123456789").unwrap();
        assert_eq!(read_bounded(&ok, SMALL).unwrap(), b"0123456789");
        let big = dir.path().join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(2 << 30)
            .unwrap();
        let e = read_bounded(&big, SMALL).unwrap_err();
        assert_eq!(
            e.to_string(),
            "too large (2147483648 bytes; the limit for test files is 10)"
        );
        assert!(Limit::is_too_large(&e));
        let missing = read_bounded(&dir.path().join("none"), SMALL).unwrap_err();
        assert!(!Limit::is_too_large(&missing));
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }
}
