//! Derived files with a version: `magic`, a format number, the MessagePack (serde, fields in
//! order) of one value, optional raw bytes after it, and a checksum. A reader gets the value
//! only when all of it matches, so a file of another format, another tool or a damaged one is
//! rebuilt, never misread. The parse cache and the search index's manifest and directory cache
//! are such files.

use serde::{Deserialize, Serialize};

/// Why a sealed file was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// Another magic, or too short to be a sealed file.
    #[error("not a {0} file")]
    Foreign(String),
    /// Written in format `.0` (a reader rebuilds the file).
    #[error("format {0}")]
    Version(u32),
    /// The checksum or the value's bytes do not match.
    #[error("damaged ({0})")]
    Damaged(String),
}

/// The bytes of a sealed file holding `value`, then `tail` (bytes a reader finds with
/// [`unseal`], e.g. payloads decoded one by one later).
pub fn seal<T: Serialize + ?Sized>(magic: &[u8], format: u32, value: &T, tail: &[u8]) -> Vec<u8> {
    // Plain structs of strings and numbers always serialize; an empty body would only make a
    // file every reader rejects.
    let body = rmp_serde::to_vec(value).unwrap_or_default();
    let mut out = Vec::with_capacity(magic.len() + 20 + body.len() + tail.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&format.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(tail);
    let sum = crate::checksum::checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The value of a file [`seal`] wrote with the same `magic` and `format`, the range of its tail
/// in `bytes`, and its checksum.
pub fn unseal<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    magic: &[u8],
    format: u32,
) -> Result<(T, std::ops::Range<usize>, u64), SealError> {
    let foreign = || SealError::Foreign(String::from_utf8_lossy(magic).into_owned());
    let rest = bytes.strip_prefix(magic).ok_or_else(foreign)?;
    let (version, rest) = rest.split_first_chunk::<4>().ok_or_else(foreign)?;
    let version = u32::from_le_bytes(*version);
    if version != format {
        return Err(SealError::Version(version));
    }
    let damaged = |what: &str| SealError::Damaged(what.to_string());
    let (body, sum) = bytes
        .split_last_chunk::<8>()
        .ok_or_else(|| damaged("truncated"))?;
    let sum = u64::from_le_bytes(*sum);
    if crate::checksum::checksum(body) != sum {
        return Err(damaged("checksum mismatch"));
    }
    let (len, rest) = rest
        .split_first_chunk::<8>()
        .filter(|_| rest.len() >= 16)
        .ok_or_else(|| damaged("truncated"))?;
    let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| damaged("length"))?;
    let start = bytes.len() - rest.len();
    let end = start
        .checked_add(len)
        .filter(|&end| end <= body.len())
        .ok_or_else(|| damaged("length"))?;
    let value = rmp_serde::from_slice(&bytes[start..end]).map_err(|e| damaged(&e.to_string()))?;
    Ok((value, end..body.len(), sum))
}
