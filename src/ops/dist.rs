//! Where a random stream's offsets fall (the phase key `distribution`): uniform over the span, or skewed as
//! fio's `random_distribution` is: a Zipf or Pareto law over ranks scattered over the span, a normal bell
//! around the span's middle, or zones (a share of the I/Os to each contiguous part of the span, in span
//! order). Each draw is a pure function of the op's one offset draw (64 bits of the stream's PCG), the
//! span's size and the phase's scatter key, so the stream stays a pure function of (seed, index) and keeps
//! its two draws per op; nothing per block is kept (O(1) memory, a zone list aside).
//!
//! - `zipf:θ`: rank `k` (1..=n) with probability ∝ k^−θ, drawn exactly by rejection-inversion (Hörmann and
//!   Derflinger 1996; extra uniforms for a rejected candidate come from a SplitMix64 sequence seeded by the
//!   op's draw), any θ > 0 (1 included, which fio refuses).
//! - `pareto:h`: fio's rule, rank `⌊(n − 1) · u^p⌋` with `p = ln h / ln(1 − h)`: the hottest fraction `f`
//!   of ranks takes `f^(1/p)` of the I/Os (h = 0.2: the hottest 20 % take 80 %).
//! - Zipf and Pareto ranks go to blocks through a keyed permutation of the span's blocks
//!   ([`super::permute::Permutation`], keyed by the phase's seed): the hot blocks are scattered over the
//!   span, as fio's hash scatters them, and no two ranks share a block.
//! - `normal:σ`: a normal law centred on the span's middle with standard deviation σ × the span, truncated
//!   to the span (inverse-CDF of one uniform), contiguous (fio hashes its normal's blocks; wkrun keeps
//!   the bell where it is, a locality model).
//! - zones: zone `z` gets `io_percent` % of the I/Os, each uniform over the zone's blocks (integer
//!   arithmetic only).

use super::permute::Permutation;
use crate::data::mix64;

/// One zone of a zoned distribution: a share of the I/Os over a contiguous part of the span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zone {
    /// Share of the I/Os, in percent (the zones' shares sum to 100).
    pub io_percent: u8,
    /// First byte of the zone, from the span's start (a multiple of the stream's unit).
    pub start: u64,
    /// End of the zone (exclusive), from the span's start.
    pub end: u64,
}

/// The law a random stream draws its offsets from.
#[derive(Debug, Clone)]
pub enum Dist {
    /// Every block equally likely.
    Uniform,
    /// Zipf with exponent θ > 0 over ranks scattered over the span.
    Zipf(f64),
    /// fio's Pareto with power h in (0, 1) over ranks scattered over the span.
    Pareto(f64),
    /// Normal around the span's middle, σ a fraction of the span (> 0), truncated to the span.
    Normal(f64),
    /// Zones in span order.
    Zoned(Vec<Zone>),
}

impl PartialEq for Dist {
    fn eq(&self, other: &Dist) -> bool {
        match (self, other) {
            (Dist::Uniform, Dist::Uniform) => true,
            (Dist::Zipf(a), Dist::Zipf(b))
            | (Dist::Pareto(a), Dist::Pareto(b))
            | (Dist::Normal(a), Dist::Normal(b)) => a.to_bits() == b.to_bits(),
            (Dist::Zoned(a), Dist::Zoned(b)) => a == b,
            _ => false,
        }
    }
}

// Parameters compare by their bits, so equality is reflexive (the plan never makes a NaN).
impl Eq for Dist {}

/// A stream's access law and the key that scatters its ranks (the same for every worker of a phase, so
/// that they share one set of hot blocks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The law.
    pub dist: Dist,
    /// Key of the rank-to-block permutation (Zipf, Pareto).
    pub key: u64,
}

impl Default for Access {
    fn default() -> Access {
        Access::UNIFORM
    }
}

impl Access {
    /// Uniform offsets.
    pub const UNIFORM: Access = Access {
        dist: Dist::Uniform,
        key: 0,
    };

    /// `dist` with the scatter key of a phase seeded `seed`.
    pub fn seeded(dist: Dist, seed: u64) -> Access {
        Access {
            dist,
            key: mix64(seed ^ 0x6469_7374_7269_6275),
        }
    }

    /// Whether offsets are uniform over the span.
    pub fn is_uniform(&self) -> bool {
        matches!(self.dist, Dist::Uniform)
    }
}

/// A uniform double in [0, 1) from the top 53 bits of `r`.
fn unit_f64(r: u64) -> f64 {
    (r >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The next value of a SplitMix64 sequence at `state`.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    mix64(*state)
}

/// Zipf by rejection-inversion (Hörmann, Derflinger: "Rejection-inversion to generate variates from
/// monotone discrete distributions", 1996), as Apache Commons RNG's `RejectionInversionZipfSampler`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Zipf {
    n: f64,
    theta: f64,
    h_x1: f64,
    h_n: f64,
    s: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf {
            n: n as f64,
            theta,
            h_x1: 0.0,
            h_n: 0.0,
            s: 0.0,
        };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(z.n + 0.5);
        z.s = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z
    }

    /// `(expm1(x)) / x`, continuous at 0.
    fn helper2(x: f64) -> f64 {
        if x.abs() > 1e-8 {
            x.exp_m1() / x
        } else {
            1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
        }
    }

    /// `ln(1 + x) / x`, continuous at 0.
    fn helper1(x: f64) -> f64 {
        if x.abs() > 1e-8 {
            x.ln_1p() / x
        } else {
            1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
        }
    }

    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        Self::helper2((1.0 - self.theta) * lx) * lx
    }

    fn h_integral_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.theta)).max(-1.0);
        (Self::helper1(t) * x).exp()
    }

    /// A rank 1..=n from the draw `r`.
    fn rank(&self, r: u64) -> u64 {
        let mut state = r;
        let mut u01 = unit_f64(r);
        // Each round accepts with probability above 1/2 for every θ; 64 rounds are never all rejected in
        // practice, and the last candidate is taken if they were.
        for _ in 0..64 {
            let u = self.h_n + u01 * (self.h_x1 - self.h_n);
            let x = self.h_integral_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
            u01 = unit_f64(splitmix(&mut state));
        }
        1
    }
}

/// The standard normal CDF, Φ (through erfc: Numerical Recipes' `erfcc`, fractional error below 1.2e-7).
pub fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
}

/// The inverse of Φ (Acklam's rational approximation, relative error below 1.2e-9), for p in (0, 1).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.024_25;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// What a stream needs per draw, made once per range of ops (no allocation).
#[derive(Debug, Clone)]
pub(super) enum Sampler<'a> {
    Uniform,
    Zipf(Zipf, Permutation),
    Pareto {
        pow: f64,
        last: u64,
        perm: Permutation,
    },
    Normal {
        /// Φ at the span's start and its width Φ(end) − Φ(start), in σ units from the middle.
        lo: f64,
        width: f64,
        sigma: f64,
        blocks: u64,
    },
    Zoned {
        zones: &'a [Zone],
        unit: u64,
    },
}

impl<'a> Sampler<'a> {
    /// The sampler of `access` over `blocks` units of `unit` bytes.
    pub(super) fn new(access: &'a Access, blocks: u64, unit: u64) -> Sampler<'a> {
        let n = blocks.max(1);
        match &access.dist {
            Dist::Uniform => Sampler::Uniform,
            Dist::Zipf(theta) => {
                Sampler::Zipf(Zipf::new(n, *theta), Permutation::new(n, access.key))
            }
            Dist::Pareto(h) => Sampler::Pareto {
                pow: h.ln() / (1.0 - h).ln(),
                last: n - 1,
                perm: Permutation::new(n, access.key),
            },
            Dist::Normal(sigma) => {
                let half = 0.5 / sigma;
                let lo = normal_cdf(-half);
                Sampler::Normal {
                    lo,
                    width: normal_cdf(half) - lo,
                    sigma: *sigma,
                    blocks: n,
                }
            }
            Dist::Zoned(zones) => Sampler::Zoned {
                zones,
                unit: unit.max(1),
            },
        }
    }

    /// The block (0-based, in units, below the span's blocks) of a draw `r`; `None` for uniform offsets,
    /// which the stream draws itself.
    #[inline(always)]
    pub(super) fn block(&self, r: u64) -> Option<u64> {
        match self {
            Sampler::Uniform => None,
            _ => Some(self.skewed(r)),
        }
    }

    /// The block of a draw `r` of a skewed law (never called for [`Sampler::Uniform`]: kept out of line,
    /// so that a uniform stream's op costs a comparison, not a call).
    #[inline(never)]
    fn skewed(&self, r: u64) -> u64 {
        match self {
            Sampler::Uniform => 0,
            Sampler::Zipf(z, perm) => perm.apply(z.rank(r) - 1),
            Sampler::Pareto { pow, last, perm } => {
                let rank = (*last as f64 * unit_f64(r).powf(*pow)) as u64;
                perm.apply(rank.min(*last))
            }
            Sampler::Normal {
                lo,
                width,
                sigma,
                blocks,
            } => {
                let p = lo + unit_f64(r) * width;
                let at = 0.5 + sigma * normal_quantile(p);
                ((at * *blocks as f64) as u64).min(blocks - 1)
            }
            Sampler::Zoned { zones, unit } => zoned_block(zones, *unit, r),
        }
    }
}

/// A draw of a zoned law: the zone by its share (the draw's top part), the block uniform within it (the
/// rest of the draw).
fn zoned_block(zones: &[Zone], unit: u64, r: u64) -> u64 {
    let x = r as u128 * 100;
    let (mut pick, within) = ((x >> 64) as u64, x as u64);
    for z in zones {
        let share = u64::from(z.io_percent);
        if pick < share {
            // Uniform within the zone: the fraction of the zone's share the draw fell at, refined by the
            // low bits.
            let at = (pick as u128) << 64 | within as u128;
            let len = ((z.end - z.start) / unit).max(1) as u128;
            let b = (at * len / ((share as u128) << 64)) as u64;
            return z.start / unit + b;
        }
        pick -= share;
    }
    zones.last().map_or(0, |z| z.start / unit)
}

/// Classes of a law's blocks of (nearly) equal probability, as `(blocks, probability of each)`, for the
/// expected coverage; at most a few thousand classes whatever the span.
fn classes(access: &Access, blocks: u64, unit: u64) -> Vec<(f64, f64)> {
    let n = blocks.max(1);
    let nf = n as f64;
    // Rank buckets: the first 1000 ranks one by one, then buckets growing by 1 %.
    let buckets = |mass: &dyn Fn(u64, u64) -> f64| {
        let mut out = Vec::new();
        let mut a = 0u64;
        while a < n {
            let b = if a < 1000 {
                a + 1
            } else {
                (a + a / 100).min(n)
            };
            let count = (b - a) as f64;
            out.push((count, mass(a, b) / count));
            a = b;
        }
        out
    };
    match &access.dist {
        Dist::Uniform => vec![(nf, 1.0 / nf)],
        Dist::Zipf(theta) => {
            // Ranks a+1..=b: the integral of x^-θ over [a+½, b+½] (the mass rejection-inversion draws
            // from), normalised.
            let z = Zipf::new(n, *theta);
            let total = z.h_integral(nf + 0.5) - z.h_integral(0.5);
            buckets(&|a, b| (z.h_integral(b as f64 + 0.5) - z.h_integral(a as f64 + 0.5)) / total)
        }
        Dist::Pareto(h) => {
            let inv = (1.0 - h).ln() / h.ln();
            let last = (n - 1).max(1) as f64;
            // Rank r is drawn when (n−1)·u^p lands in [r, r+1): P = ((r+1)/(n−1))^(1/p) − (r/(n−1))^(1/p),
            // the last rank taking what lands at n−1 exactly.
            let cdf = |r: u64| ((r as f64 / last).min(1.0)).powf(inv);
            buckets(&|a, b| {
                let hi = if b >= n { 1.0 } else { cdf(b) };
                hi - cdf(a)
            })
        }
        Dist::Normal(sigma) => {
            let (lo, hi) = (normal_cdf(-0.5 / sigma), normal_cdf(0.5 / sigma));
            let parts = n.min(4096);
            (0..parts)
                .map(|i| {
                    let (a, b) = (i * n / parts, (i + 1) * n / parts);
                    let x = |k: u64| (k as f64 / nf - 0.5) / sigma;
                    let mass = (normal_cdf(x(b)) - normal_cdf(x(a))) / (hi - lo);
                    ((b - a) as f64, mass / (b - a).max(1) as f64)
                })
                .collect()
        }
        Dist::Zoned(zones) => zones
            .iter()
            .map(|z| {
                let count = ((z.end - z.start) / unit.max(1)).max(1) as f64;
                (count, f64::from(z.io_percent) / 100.0 / count)
            })
            .collect(),
    }
}

/// The expected share of the span's `blocks` blocks (of `unit` bytes) that `ops` draws of `access` touch at
/// least once: `Σ (1 − (1 − pᵢ)^ops) / blocks` over the blocks' probabilities, by classes of equal
/// probability (exact for uniform and zoned laws, within a fraction of a percent otherwise).
pub fn expected_coverage(access: &Access, blocks: u64, unit: u64, ops: u64) -> f64 {
    if blocks == 0 {
        return 0.0;
    }
    let k = ops as f64;
    let touched: f64 = classes(access, blocks, unit)
        .iter()
        .map(|&(count, p)| count * (1.0 - (k * (-p.min(1.0)).ln_1p()).exp()))
        .sum();
    (touched / blocks as f64).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(access: &Access, blocks: u64, n: u64) -> Vec<u64> {
        let s = Sampler::new(access, blocks, 4096);
        let mut state = 12345u64;
        (0..n)
            .map(|_| s.block(splitmix(&mut state)).expect("skewed"))
            .collect()
    }

    fn access(dist: Dist) -> Access {
        Access { dist, key: 77 }
    }

    #[test]
    fn normal_cdf_and_quantile_agree() {
        for x in [-5.0, -2.0, -1.0, -0.3, 0.0, 0.7, 1.0, 2.5, 4.0] {
            let back = normal_quantile(normal_cdf(x));
            assert!((back - x).abs() < 1e-5, "{x} -> {back}");
        }
        assert!((normal_cdf(1.0) - normal_cdf(-1.0) - 0.682_689_49).abs() < 1e-6);
    }

    #[test]
    fn draws_stay_in_the_span() {
        for dist in [
            Dist::Zipf(0.8),
            Dist::Zipf(1.0),
            Dist::Zipf(2.5),
            Dist::Pareto(0.1),
            Dist::Pareto(0.9),
            Dist::Normal(0.05),
            Dist::Normal(3.0),
        ] {
            for blocks in [1u64, 2, 3, 1000] {
                let v = draws(&access(dist.clone()), blocks, 5000);
                assert!(v.iter().all(|&b| b < blocks), "{dist:?} over {blocks}");
            }
        }
        let zones = vec![
            Zone {
                io_percent: 70,
                start: 0,
                end: 4096,
            },
            Zone {
                io_percent: 30,
                start: 4096,
                end: 40960,
            },
        ];
        let v = draws(&access(Dist::Zoned(zones)), 10, 10_000);
        let first = v.iter().filter(|&&b| b == 0).count() as f64 / 1e4;
        assert!(v.iter().all(|&b| b < 10));
        assert!((first - 0.7).abs() < 0.02, "{first}");
    }

    #[test]
    fn zoned_draws_are_uniform_within_each_zone() {
        let zones = vec![
            Zone {
                io_percent: 50,
                start: 0,
                end: 8 * 4096,
            },
            Zone {
                io_percent: 50,
                start: 8 * 4096,
                end: 100 * 4096,
            },
        ];
        let v = draws(&access(Dist::Zoned(zones)), 100, 80_000);
        let mut counts = [0u32; 8];
        for &b in v.iter().filter(|&&b| b < 8) {
            counts[b as usize] += 1;
        }
        // 40 000 draws over 8 blocks: 5000 each, σ ≈ 66.
        assert!(counts.iter().all(|&c| c.abs_diff(5000) < 300), "{counts:?}");
    }

    #[test]
    fn expected_coverage_of_uniform_is_the_classic_formula() {
        let a = Access::UNIFORM;
        let c = expected_coverage(&a, 2048, 4096, 2048);
        assert!((c - (1.0 - (-1.0f64).exp())).abs() < 1e-3, "{c}");
        assert_eq!(expected_coverage(&a, 0, 4096, 10), 0.0);
    }

    #[test]
    fn expected_coverage_matches_counted_blocks() {
        let blocks = 20_000u64;
        for dist in [
            Dist::Zipf(1.2),
            Dist::Pareto(0.2),
            Dist::Normal(0.1),
            Dist::Zoned(vec![
                Zone {
                    io_percent: 50,
                    start: 0,
                    end: 1000 * 4096,
                },
                Zone {
                    io_percent: 50,
                    start: 1000 * 4096,
                    end: blocks * 4096,
                },
            ]),
        ] {
            let a = access(dist.clone());
            let n = 30_000;
            let mut seen = vec![false; blocks as usize];
            for b in draws(&a, blocks, n) {
                seen[b as usize] = true;
            }
            let counted = seen.iter().filter(|&&s| s).count() as f64 / blocks as f64;
            let expected = expected_coverage(&a, blocks, 4096, n);
            assert!(
                (counted - expected).abs() < 0.01,
                "{dist:?}: counted {counted}, expected {expected}"
            );
        }
    }
}
