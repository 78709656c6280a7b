//! How a workload's I/Os arrive, beyond what the queue depth allows: the rate cap's process (`rate_process`:
//! evenly spaced, or Poisson arrivals at the cap's mean rate) and think time (`think_time`, after every
//! `think_every` I/Os: bursts). The plan fills in an [`Arrivals`]; the engines apply it, knowing nothing of
//! plans: the issue times of a Poisson process are a pure function of the seed and the op's place in the
//! stream ([`PoissonCursor`]), so every engine and every run of a seed issues at the same intended times.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a rate cap spaces its issue times (fio's `rate_process`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum RateProcess {
    /// Evenly spaced: the i-th I/O at i / rate s (fio's default, `linear`).
    #[default]
    Linear,
    /// Poisson arrivals at the cap's mean rate: the gaps between issue times are independent exponential
    /// draws of mean 1 / rate, from the phase's seed.
    Poisson,
}

super::string_only!(RateProcess);

/// Think time: after every `every` I/Os issued, the queue drains (every I/O in flight completes) and the
/// engine idles for `ns` before it issues the next (fio's `thinktime` and `thinktime_blocks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Think {
    /// The idle time, ns (more than 0).
    pub ns: u64,
    /// I/Os per burst (at least 1).
    pub every: u64,
}

/// A phase's arrivals beyond its rate cap's numbers: the process that spaces the cap, and think time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arrivals {
    /// How the rate cap spaces its issue times.
    pub process: RateProcess,
    /// The seed of the Poisson draws (the phase's seed).
    pub seed: u64,
    /// Think time, if any.
    pub think: Option<Think>,
}

/// SplitMix64's finaliser: a well-mixed 64-bit value of `x`.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The gap before arrival `m` of the Poisson process of `seed` at `rate` per second, in picoseconds: an
/// exponential draw of mean 10¹² / rate from a uniform in (0, 1] made of 53 bits of `mix(seed, m)`.
#[inline]
pub fn poisson_gap_ps(seed: u64, m: u64, rate: u64) -> u64 {
    let u = ((mix(seed ^ mix(m)) >> 11) + 1) as f64 / (1u64 << 53) as f64;
    (-u.ln() * 1e12 / rate.max(1) as f64).round() as u64
}

/// Walks one Poisson process forward: arrival `m` is at the sum of the gaps `0..=m`, in whole picoseconds,
/// so that the time of an arrival is the same however the walk got there (a pure function of the seed and
/// `m`). Asked in increasing order (one cursor per thread that issues), each gap is drawn once.
#[derive(Debug, Clone, Copy, Default)]
pub struct PoissonCursor {
    /// Gaps summed so far: the next arrival the cursor would add.
    next: u64,
    /// Their sum, ps.
    t_ps: u64,
}

impl PoissonCursor {
    /// The time of arrival `m` (from 0) of the process of `seed` at `rate` per second, ns from its start.
    #[inline]
    pub fn at(&mut self, seed: u64, rate: u64, m: u64) -> u64 {
        if m + 1 < self.next {
            // Asked for an earlier arrival than the last one walked to: walk again from the start.
            *self = PoissonCursor::default();
        }
        while self.next <= m {
            self.t_ps = self
                .t_ps
                .saturating_add(poisson_gap_ps(seed, self.next, rate));
            self.next += 1;
        }
        self.t_ps / 1000
    }
}

/// A thread's cursors over the phase's Poisson processes: one for a total cap, one per capped direction.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cursors {
    /// The total cap's process.
    pub total: PoissonCursor,
    /// Each direction's cap's process (reads, writes).
    pub dir: super::PerDir<PoissonCursor>,
}

impl Arrivals {
    /// The seed of the Poisson process of a cap: `which` 0 for the total cap, 1 + the direction's number
    /// for a direction's, so that the processes are independent.
    pub fn seed_of(&self, which: u64) -> u64 {
        mix(self.seed ^ mix(0xA771_7A15 ^ which))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_arrivals_are_a_pure_function_with_exponential_gaps() {
        let (seed, rate) = (7, 10_000);
        let mut c = PoissonCursor::default();
        let times: Vec<u64> = (0..20_000).map(|m| c.at(seed, rate, m)).collect();
        // The same arrivals however they are asked for: out of order, or from a fresh cursor.
        let mut d = PoissonCursor::default();
        assert_eq!(d.at(seed, rate, 12_345), times[12_345]);
        assert_eq!(d.at(seed, rate, 3), times[3]);
        assert_eq!(d.at(seed, rate, 19_999), times[19_999]);
        // Gaps: mean 1 / rate (100 µs) and coefficient of variation 1, within 5 standard errors.
        let gaps: Vec<f64> = std::iter::once(times[0])
            .chain(times.windows(2).map(|w| w[1] - w[0]))
            .map(|g| g as f64)
            .collect();
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        assert!(
            (mean - 100_000.0).abs() < 5.0 * 100_000.0 / n.sqrt(),
            "{mean}"
        );
        assert!((sd / mean - 1.0).abs() < 5.0 / n.sqrt(), "{}", sd / mean);
        // Another seed, other arrivals.
        assert_ne!(PoissonCursor::default().at(8, rate, 100), times[100]);
    }
}
