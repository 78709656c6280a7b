//! The stamp format of write verification: phases with `verify = true` stamp every 512-byte sector they
//! write with a header and a checksum ([`Stamp::apply`]); a verify phase parses what it reads back ([`parse`]).
//! Below the engine, which stamps writes; the plan's `replay` module says which stamp each sector should hold
//! and the `verify` module compares.
//!
//! Sector layout (little-endian), [`SECTOR`] = 512 bytes:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `wkrnVfy1` |
//! | 8..16 | the sector's byte offset on the target |
//! | 16..24 | seed of the writing phase |
//! | 24..32 | op index of the write in its phase's stream (the write sequence) |
//! | 32..36 | index of the writing phase in the run |
//! | 36..40 | 0 (reserved) |
//! | 40..48 | checksum: XXH3-64 of bytes 48..512, seeded with XXH3-64 of bytes 0..40 |
//! | 48..512 | the phase's data pattern, as without verification |
//!

use crate::ops::Op;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// Bytes per stamped sector.
pub const SECTOR: usize = 512;
/// Bytes of the header at the start of each sector.
pub const HEADER: usize = 48;
/// The magic at the start of every stamped sector.
pub const MAGIC: [u8; 8] = *b"wkrnVfy1";
/// Largest op index a verified write may have (48 bits, the width of the map's op field).
pub const MAX_OP_INDEX: u64 = (1 << 48) - 1;

/// Who stamped a sector: the writing phase, its seed and the op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Index of the writing phase in the run.
    pub phase: u32,
    /// Its seed.
    pub seed: u64,
}

impl Stamp {
    /// Stamps every 512-byte sector of `buf`, the data of `op` (its length a multiple of 512, its offset too).
    pub fn apply(&self, buf: &mut [u8], op: &Op) {
        for (k, s) in buf.chunks_exact_mut(SECTOR).enumerate() {
            s[..8].copy_from_slice(&MAGIC);
            s[8..16].copy_from_slice(&(op.offset + (k * SECTOR) as u64).to_le_bytes());
            s[16..24].copy_from_slice(&self.seed.to_le_bytes());
            s[24..32].copy_from_slice(&op.index.to_le_bytes());
            s[32..36].copy_from_slice(&self.phase.to_le_bytes());
            s[36..40].fill(0);
            let sum = checksum(s);
            s[40..48].copy_from_slice(&sum.to_le_bytes());
        }
    }
}

fn checksum(s: &[u8]) -> u64 {
    xxh3_64_with_seed(&s[HEADER..], xxh3_64(&s[..40]))
}

fn word(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(b)
}

/// What a sector holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// All zeros.
    Zeros,
    /// A valid stamp.
    Stamp {
        /// The offset in the header.
        offset: u64,
        /// The writing phase.
        phase: u32,
        /// Its seed.
        seed: u64,
        /// The op index.
        op: u64,
    },
    /// Neither zeros nor a stamp with a matching checksum.
    Garbage,
}

/// Reads one sector.
pub fn parse(s: &[u8]) -> Found {
    if s.iter().all(|&b| b == 0) {
        return Found::Zeros;
    }
    if s.len() != SECTOR || s[..8] != MAGIC || word(s, 40) != checksum(s) {
        return Found::Garbage;
    }
    let mut p = [0u8; 4];
    p.copy_from_slice(&s[32..36]);
    Found::Stamp {
        offset: word(s, 8),
        seed: word(s, 16),
        op: word(s, 24),
        phase: u32::from_le_bytes(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Direction;

    #[test]
    fn stamp_round_trips_and_any_flipped_byte_is_caught() {
        let op = Op {
            index: 77,
            dir: Direction::Write,
            offset: 1 << 20,
            len: 1024,
        };
        let mut buf = vec![0xabu8; 1024];
        Stamp { phase: 3, seed: 9 }.apply(&mut buf, &op);
        assert_eq!(
            parse(&buf[512..]),
            Found::Stamp {
                offset: (1 << 20) + 512,
                phase: 3,
                seed: 9,
                op: 77
            }
        );
        for i in [0, 9, 20, 30, 33, 41, 47, 48, 300, 511] {
            let mut b = buf[..512].to_vec();
            b[i] ^= 0x10;
            assert_eq!(parse(&b), Found::Garbage, "byte {i} flipped");
        }
        assert_eq!(parse(&[0u8; 512]), Found::Zeros);
    }
}
