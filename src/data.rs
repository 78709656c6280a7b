//! Write data: the bytes of each written block, a pure function of (pattern, seed, op index).
//!
//! `random` blocks are a window of a per-phase random pool (256 KiB) XORed with a 64-bit key unique to the op:
//! incompressible, no two blocks equal, and cheap (one XOR per 8 bytes, no generator call per byte).

use crate::buf::{AllocError, try_vec};
use crate::vocab::DataPattern;
use rand_core::Rng;
use rand_pcg::Pcg64Mcg;
use std::sync::Arc;

/// Size of the random pool: 256 KiB, small enough to stay in a core's L2 cache while the I/O path streams
/// through the others (a 4 MiB pool was evicted between two fills and cost 3 to 4 times more per block).
const POOL_BYTES: usize = 256 << 10;
/// Chunk within which `compressible:N%` places its random and repeated bytes.
const CHUNK: usize = 512;
/// The repeated, text-like filler of compressible data (never a long zero run).
const FILLER: &[u8] = b"wkrun compressible filler: the quick brown fox jumps over the lazy dog. ";

/// SplitMix64 finaliser: a bijective 64-bit mix.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills `buf` with pseudo-random bytes from `seed` (PCG-64).
pub fn fill_random(buf: &mut [u8], seed: u64) {
    let mut rng = Pcg64Mcg::new(((seed as u128) << 64) | 0x9e37_79b9_7f4a_7c15);
    for c in buf.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        c.copy_from_slice(&v[..c.len()]);
    }
}

/// Generates write data for one phase. Cheap to clone (the pool is shared).
#[derive(Clone)]
pub struct DataGen {
    pattern: DataPattern,
    seed: u64,
    pool: Arc<Vec<u8>>,
    /// FILLER repeated over one chunk, copied as a whole.
    filler: Arc<[u8; CHUNK]>,
}

impl DataGen {
    /// The pattern this generator produces.
    pub fn pattern(&self) -> DataPattern {
        self.pattern
    }

    /// A generator for `pattern` with `seed`; `max_len` is the largest block it will fill. Aborts if the
    /// random pool (256 KiB, or twice `max_len` when larger) cannot be allocated, as `vec!` does; a run uses
    /// [`DataGen::try_new`].
    pub fn new(pattern: DataPattern, seed: u64, max_len: usize) -> DataGen {
        Self::try_new(pattern, seed, max_len).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A generator for `pattern` with `seed`; `max_len` is the largest block it will fill.
    ///
    /// # Errors
    /// [`AllocError`] when the random pool (256 KiB, or twice `max_len` when larger: 256 MiB for 128 MiB
    /// blocks) cannot be allocated.
    pub fn try_new(pattern: DataPattern, seed: u64, max_len: usize) -> Result<DataGen, AllocError> {
        let pool = match pattern {
            DataPattern::Zeros => Vec::new(),
            _ => {
                let len = POOL_BYTES.max(2 * max_len) + 8;
                let mut v = try_vec(len, 0u8, "the random data pool")?;
                fill_random(&mut v, mix64(seed ^ 0xd6e8_feb8_6659_fd93));
                v
            }
        };
        let filler = Arc::new(std::array::from_fn(|j| FILLER[j % FILLER.len()]));
        Ok(DataGen {
            pattern,
            seed,
            pool: Arc::new(pool),
            filler,
        })
    }

    /// Writes the data of op `index` into `buf` (the whole slice).
    #[inline]
    pub fn fill(&self, buf: &mut [u8], index: u64) {
        match self.pattern {
            DataPattern::Zeros => buf.fill(0),
            DataPattern::Random => self.fill_unique(buf, index),
            DataPattern::Compressible(pct) => {
                self.fill_unique(buf, index);
                let keep = CHUNK * (100 - pct as usize) / 100;
                for chunk in buf.chunks_mut(CHUNK) {
                    if chunk.len() > keep {
                        let n = chunk.len() - keep;
                        chunk[keep..].copy_from_slice(&self.filler[..n]);
                    }
                }
            }
        }
    }

    fn fill_unique(&self, buf: &mut [u8], index: u64) {
        let key = mix64(self.seed.rotate_left(17) ^ mix64(index));
        let room = ((self.pool.len() - buf.len()) / 8) as u64;
        // The window's start, uniform over the 8-byte positions where it fits (a multiply, not a division).
        let start = ((mix64(key) as u128 * room as u128) >> 64) as usize * 8;
        xor_key(buf, &self.pool[start..start + buf.len()], key);
    }
}

/// `dst[i] = src[i] ^ key_bytes[i % 8]` (`key` in native byte order) over the whole of `dst` (`src` at least
/// as long). 32 bytes per step, so the compiler keeps the key in vector registers.
#[inline]
fn xor_key(dst: &mut [u8], src: &[u8], key: u64) {
    const STEP: usize = 32;
    let mut d = dst.chunks_exact_mut(STEP);
    let mut s = src.chunks_exact(STEP);
    for (d, s) in (&mut d).zip(&mut s) {
        for j in 0..STEP / 8 {
            let w: [u8; 8] = s[8 * j..8 * j + 8].try_into().unwrap_or([0; 8]);
            d[8 * j..8 * j + 8].copy_from_slice(&(u64::from_ne_bytes(w) ^ key).to_ne_bytes());
        }
    }
    let k = key.to_ne_bytes();
    for (i, (d, s)) in d.into_remainder().iter_mut().zip(s.remainder()).enumerate() {
        *d = s ^ k[i % 8];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn random_blocks_differ_and_repeat_for_same_index() {
        let g = DataGen::new(DataPattern::Random, 3, 4096);
        let mut seen = HashSet::new();
        let mut b = vec![0u8; 4096];
        for i in 0..2000 {
            g.fill(&mut b, i);
            assert!(seen.insert(b.clone()), "block {i} repeats an earlier one");
        }
        let mut c = vec![0u8; 4096];
        g.fill(&mut c, 1999);
        assert_eq!(b, c);
    }

    #[test]
    fn zeros_and_odd_lengths() {
        let g = DataGen::new(DataPattern::Zeros, 3, 4096);
        let mut b = vec![1u8; 1000];
        g.fill(&mut b, 5);
        assert!(b.iter().all(|&x| x == 0));
        let r = DataGen::new(DataPattern::Random, 3, 4096);
        r.fill(&mut b, 5);
        assert!(b.iter().filter(|&&x| x == 0).count() < 30);
    }

    #[test]
    fn compressible_has_no_long_zero_runs() {
        let g = DataGen::new(DataPattern::Compressible(50), 3, 131072);
        let mut b = vec![0u8; 131072];
        g.fill(&mut b, 9);
        let longest = b.split(|&x| x != 0).map(<[u8]>::len).max().unwrap_or(0);
        assert!(longest < 16, "zero run of {longest}");
    }
}
