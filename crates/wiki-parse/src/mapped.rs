//! Whole-file reads of the large files that the wiki tools themselves write and only ever
//! replace by renaming a new file over them (`agent-digest.json`, `claims.jsonl`, the parse
//! cache): mapped read-only instead of copied into the heap when they are large.
//!
//! An operation on a 10,000-page vault reads about 42 MB of such files to reuse what did not
//! change. Copied into the heap, every one of those bytes is first a freshly faulted (zeroed)
//! page of anonymous memory and then a copy; mapped, the pages are the page cache's own
//! (`docs/BENCHMARKS.md`, Apply section).
//!
//! A map is a view of the file's inode, so a writer that renames a new file over the path leaves
//! it intact. A process that truncated such a file in place while it is mapped would make a
//! reader fail with `SIGBUS` (like a killed process: nothing half-written, see the store's crash
//! guarantees); none of the tools does, and these files are not meant to be edited by hand.

use std::path::Path;

/// Files smaller than this are read into memory (a map costs a few system calls and a page
/// table; a small file is cheaper to copy).
pub const MAP_THRESHOLD: u64 = 1 << 20;

/// The bytes of a whole file: read into memory or mapped read-only.
#[derive(Debug)]
pub enum FileBytes {
    /// Read into memory.
    Owned(Vec<u8>),
    /// Mapped read-only (see the module docs).
    Mapped(memmap2::Mmap),
}

impl Default for FileBytes {
    fn default() -> FileBytes {
        FileBytes::Owned(Vec::new())
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Owned(v) => v,
            FileBytes::Mapped(m) => m,
        }
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(v: Vec<u8>) -> FileBytes {
        FileBytes::Owned(v)
    }
}

/// Read the file at `path` whole: mapped when it is a regular file of at least
/// [`MAP_THRESHOLD`] bytes, else read. Only for files written the way the module docs say.
pub fn read(path: &Path) -> std::io::Result<FileBytes> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() >= MAP_THRESHOLD && cfg!(unix) {
        // SAFETY: the file is only ever replaced by renaming another file over its path, never
        // written in place by the tools (module docs), so the mapped bytes do not change while
        // the map lives; a truncation by somebody else would end the process with SIGBUS, not
        // with wrong data.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(FileBytes::Mapped(map));
        }
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut &file, &mut bytes)?;
    Ok(FileBytes::Owned(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_are_read_and_large_ones_mapped_with_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, b"abc").unwrap();
        let got = read(&small).unwrap();
        assert!(matches!(got, FileBytes::Owned(_)));
        assert_eq!(&*got, b"abc");
        let large = dir.path().join("large");
        let bytes: Vec<u8> = (0..MAP_THRESHOLD as usize + 7)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&large, &bytes).unwrap();
        let got = read(&large).unwrap();
        assert!(matches!(got, FileBytes::Mapped(_)));
        assert_eq!(&*got, &bytes[..]);
        // Replaced by a rename, as the tools do: the map keeps the old bytes.
        let tmp = dir.path().join("tmp");
        std::fs::write(&tmp, b"new").unwrap();
        std::fs::rename(&tmp, &large).unwrap();
        assert_eq!(&*got, &bytes[..]);
        assert_eq!(&*read(&large).unwrap(), b"new");
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(read(&empty).unwrap().is_empty());
        assert!(read(&dir.path().join("missing")).is_err());
    }
}
