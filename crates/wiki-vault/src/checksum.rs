//! The checksum of the derived files ([`crate::sealed`], the compiled caches' records): fast,
//! detects damage, not tampering.

/// A 64-bit checksum (detects damage, not tampering): four independent multiply/rotate lanes
/// over 32-byte blocks (so the CPU overlaps them: the compiled caches are checksummed on every
/// run), then the tail, folded together with the length.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut c = Checksum::new(bytes.len());
    c.update(bytes);
    c.finish()
}

/// Block size of [`block_checksum`].
pub const CHECKSUM_BLOCK: usize = 1 << 20;

/// A checksum of large files that two cores compute side by side: [`checksum`] of every
/// [`CHECKSUM_BLOCK`]-sized block (the last one shorter), in parallel, then of the block sums
/// and the length ([`combine_block_checksums`]). A writer that fills a buffer block by block
/// can sum each block while it is in cache (see `wiki_digest::reuse::replace_chunks`).
pub fn block_checksum(bytes: &[u8]) -> u64 {
    use rayon::prelude::*;
    let sums: Vec<u64> = bytes.par_chunks(CHECKSUM_BLOCK).map(checksum).collect();
    combine_block_checksums(bytes.len(), &sums)
}

/// [`block_checksum`] of `len` bytes from the [`checksum`]s of their blocks, in order.
pub fn combine_block_checksums(len: usize, sums: &[u64]) -> u64 {
    let mut c = Checksum::new(8 + 8 * sums.len());
    c.update(&(len as u64).to_le_bytes());
    for s in sums {
        c.update(&s.to_le_bytes());
    }
    c.finish()
}

/// [`checksum`] of a concatenation fed piece by piece (no copy of the pieces), for inputs whose
/// total length is known first.
#[derive(Debug, Clone)]
pub struct Checksum {
    lanes: [u64; 4],
    /// Bytes of an incomplete 32-byte block.
    pending: [u8; 32],
    filled: usize,
}

const CHECKSUM_MUL: u64 = 0x9E37_79B9_7F4A_7C15;

fn checksum_mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(CHECKSUM_MUL).rotate_left(31)
}

fn checksum_word(w: &[u8]) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(w);
    u64::from_le_bytes(le)
}

impl Checksum {
    /// A checksum of `total_len` bytes in all.
    pub fn new(total_len: usize) -> Checksum {
        Checksum {
            lanes: [
                0x2545_F491_4F6C_DD1D ^ (total_len as u64),
                0x9E6C_63D0_676A_9A99,
                0x6A09_E667_F3BC_C908,
                0xBB67_AE85_84CA_A73B,
            ],
            pending: [0; 32],
            filled: 0,
        }
    }

    fn block(&mut self, b: &[u8]) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            *lane = checksum_mix(*lane, checksum_word(&b[8 * i..8 * i + 8]));
        }
    }

    /// Feed the next bytes.
    pub fn update(&mut self, mut bytes: &[u8]) {
        if self.filled > 0 {
            let take = (32 - self.filled).min(bytes.len());
            self.pending[self.filled..self.filled + take].copy_from_slice(&bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
            if self.filled < 32 {
                return;
            }
            let pending = self.pending;
            self.block(&pending);
            self.filled = 0;
        }
        let mut blocks = bytes.chunks_exact(32);
        for b in &mut blocks {
            self.block(b);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    /// The checksum (the total length given to [`Checksum::new`] must be the bytes fed).
    pub fn finish(self) -> u64 {
        let mut h = self
            .lanes
            .iter()
            .fold(0x2545_F491_4F6C_DD1D, |h, &lane| checksum_mix(h, lane));
        let rest = &self.pending[..self.filled];
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            h = checksum_mix(h, checksum_word(w));
        }
        for &b in words.remainder() {
            h = checksum_mix(h, u64::from(b));
        }
        h ^ (h >> 29)
    }
}
