//! A keyed pseudo-random permutation of `0..n` in O(1) memory: a 4-round balanced Feistel network over the
//! smallest even-bit-width power of two ≥ n, with cycle walking to stay inside `0..n` (the walk is a
//! bijection because the network is one; it takes fewer than 4 steps on average since the domain is < 4n).
//! Used by `coverage = "full"`: every block of the span exactly once per pass, in a random order, without a
//! per-block bitmap, so a multi-TB span costs no memory.

use crate::data::mix64;

/// A permutation of `0..n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    /// The permutation of `0..n` selected by `key` (n ≥ 1).
    pub fn new(n: u64, key: u64) -> Permutation {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let keys = [1u64, 2, 3, 4].map(|r| mix64(key ^ mix64(r)));
        Permutation {
            n: n.max(1),
            half_bits,
            keys,
        }
    }

    fn round(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for k in self.keys {
            let f = mix64(r ^ k) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half_bits) | r
    }

    /// The image of `i` (`i < n`).
    #[inline]
    pub fn apply(&self, i: u64) -> u64 {
        let mut y = self.round(i);
        while y >= self.n {
            y = self.round(y);
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::Permutation;

    #[test]
    fn c06_bijective_for_awkward_sizes() {
        for n in [1u64, 2, 3, 1000, 2048, 4097, 65_537] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let j = p.apply(i);
                assert!(
                    j < n && !seen[j as usize],
                    "n={n}: {i} -> {j} repeats or escapes"
                );
                seen[j as usize] = true;
            }
        }
    }

    #[test]
    fn keys_give_different_orders() {
        let a: Vec<u64> = (0..100)
            .map(|i| Permutation::new(1000, 1).apply(i))
            .collect();
        let b: Vec<u64> = (0..100)
            .map(|i| Permutation::new(1000, 2).apply(i))
            .collect();
        assert_ne!(a, b);
        let fixed = (0..1000)
            .filter(|&i| Permutation::new(1000, 1).apply(i) == i)
            .count();
        assert!(fixed < 10, "{fixed} fixed points: hardly a shuffle");
    }
}
