//! fio's rate caps in I/Os per second. fio paces bytes: `rate=B` is B bytes per second per job, and
//! `rate_iops=N` (fio 3.33, the fio wkrun is checked against) N × the smallest block size. Evenly paced
//! (`rate_process=linear`, fio's default) it issues an I/O when the bytes before it are due, so the I/Os per
//! second it gives are B / mean size: exact with one block size (`rate=1m` with `bs=4k`: 256), on average
//! with a block-size mix (`bssplit`, `bsrange`: `rate=1m` with `bssplit=4k/50:64k/50`, mean 34,816 B,
//! 30.12; `rate_iops=500` with it 500 × 4096 / 34,816 = 58.82). With Poisson arrivals fio draws its gaps at
//! ⌊B / smallest⌋ I/Os per second whatever each I/O's size (`rate=16m` with that mix: 4096, not 481.88).
//! wkrun's `rate_iops` counts I/Os of any size. The importer turns fio's cap into the rate it gives
//! ([`MixRate::ios_of_bytes`]), the exporter a spec's rate into the fio cap that gives it
//! ([`MixRate::bytes_of_ios`] for a mix evenly paced).

/// A block size or block-size mix as fio's rate cap sees it: the smallest size and the mean size as a
/// fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MixRate {
    /// The smallest size of the mix, bytes (of every entry, as fio takes its minimum block size).
    pub smallest: u64,
    /// Σ size × weight.
    bytes: u128,
    /// Σ weight: the mean size is `bytes / ios`.
    ios: u128,
}

impl MixRate {
    /// The mix `(bytes, weight)` (one size: `[(size, 1)]`); `None` when it has no entry or no weight.
    pub fn of(mix: &[(u64, u64)]) -> Option<MixRate> {
        let smallest = mix.iter().map(|e| e.0).min()?;
        let bytes = mix.iter().map(|(b, w)| *b as u128 * *w as u128).sum();
        let ios: u128 = mix.iter().map(|e| e.1 as u128).sum();
        (ios > 0 && smallest > 0).then_some(MixRate {
            smallest,
            bytes,
            ios,
        })
    }

    /// The mean size of an I/O, bytes.
    pub fn mean(&self) -> f64 {
        self.bytes as f64 / self.ios as f64
    }

    /// The bytes per second fio paces for `rate_iops = cap`: cap × smallest.
    pub fn bytes_of_cap(&self, cap: u64) -> u64 {
        cap.saturating_mul(self.smallest)
    }

    /// The I/Os per second fio gives for a cap of `bps` bytes per second: evenly paced, bps / mean size on
    /// average (exact for one size); with Poisson arrivals (`poisson`), ⌊bps / smallest⌋, the rate fio
    /// draws its gaps at.
    pub fn ios_of_bytes(&self, bps: u64, poisson: bool) -> Ratio {
        match poisson {
            true => Ratio((bps / self.smallest) as u128, 1),
            false => Ratio(bps as u128 * self.ios, self.bytes),
        }
    }

    /// The fio `rate` (bytes per second) that, evenly paced, gives `ios` I/Os per second on average:
    /// ios × mean.
    pub fn bytes_of_ios(&self, ios: u64) -> Ratio {
        Ratio(ios as u128 * self.bytes, self.ios)
    }
}

/// A non-negative fraction, numerator and denominator (not 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio(pub u128, pub u128);

impl Ratio {
    /// The value, to show.
    pub fn value(self) -> f64 {
        self.0 as f64 / self.1 as f64
    }

    /// The nearest whole number, halves up (58.82: 59).
    pub fn nearest(self) -> u64 {
        u64::try_from((2 * self.0 + self.1) / (2 * self.1)).unwrap_or(u64::MAX)
    }

    /// Whether it is a whole number.
    pub fn whole(self) -> bool {
        self.0.is_multiple_of(self.1)
    }

    /// This times `n`.
    pub fn times(self, n: u64) -> Ratio {
        Ratio(self.0.saturating_mul(n as u128), self.1)
    }

    /// wkrun's `rate_iops` for `jobs` jobs at this rate each: multiplied first, then rounded (export's
    /// `rate=2901333` with `numjobs=3` and a 34,816 B mean: 3 × 2,901,333 / 34,816 = 250.0, where 3 × 83 =
    /// 249), at least 1. The one rounding of `wkrun import fio` and of fio's JSON read.
    pub fn cap(self, jobs: u64) -> u64 {
        self.times(jobs).nearest().max(1)
    }

    /// This divided by `n` (not 0).
    pub fn per(self, n: u64) -> Ratio {
        Ratio(self.0, self.1 * n as u128)
    }

    /// How far `n` is from this, in percent of it (+0.3 for 59 against 58.82).
    pub fn off_pct(self, n: u64) -> f64 {
        (n as f64 / self.value() - 1.0) * 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4k/50:64k/50.
    fn m_half() -> MixRate {
        MixRate::of(&[(4096, 50), (65536, 50)]).expect("mix")
    }

    /// The trial's jobs: 4k/50:64k/50 has a mean of 34,816 B, 4k/60:64k/40 of 28,672 B, bsrange=4k-16k
    /// (4, 8, 12, 16 KiB equally) of 10,240 B.
    #[test]
    fn caps_and_rates_of_mixes() {
        let m = MixRate::of(&[(4096, 50), (65536, 50)]).expect("mix");
        assert_eq!(m.mean(), 34816.0);
        let r = m.ios_of_bytes(m.bytes_of_cap(500), false);
        assert_eq!(r, Ratio(500 * 4096 * 100, 34816 * 100));
        assert_eq!((r.nearest(), r.whole()), (59, false));
        assert_eq!(format!("{:.2}", r.value()), "58.82");
        assert_eq!(format!("{:.2}", r.off_pct(59)), "0.30");
        // rate=1m: 1,048,576 / 34,816 = 30.12; rate=16m 481.88; Poisson: 16m / 4096 = 4096 I/Os.
        let r = m.ios_of_bytes(1 << 20, false);
        assert_eq!(format!("{:.2}", r.value()), "30.12");
        assert_eq!(r.nearest(), 30);
        assert_eq!(m.ios_of_bytes(16 << 20, false).nearest(), 482);
        assert_eq!(m.ios_of_bytes(16 << 20, true), Ratio(4096, 1));
        assert_eq!(m.ios_of_bytes(m.bytes_of_cap(500), true), Ratio(500, 1));
        // 59 I/Os of the mix: rate=2,054,144 exactly, which imports back as 59.
        assert_eq!(m.bytes_of_ios(59), Ratio(59 * 3_481_600, 100));
        assert!(m.bytes_of_ios(59).whole());
        assert_eq!(m.bytes_of_ios(59).nearest(), 2_054_144);
        assert_eq!(m.ios_of_bytes(2_054_144, false).value(), 59.0);
        let m = MixRate::of(&[(4096, 60), (65536, 40)]).expect("mix");
        assert_eq!(m.mean(), 28672.0);
        assert_eq!(m.ios_of_bytes(m.bytes_of_cap(2000), false).nearest(), 286);
        assert_eq!(m.bytes_of_ios(286).per(2), Ratio(286 * 2_867_200, 200));
        assert_eq!(m.bytes_of_ios(286).per(2).nearest(), 4_100_096);
        let m = MixRate::of(&[(4096, 1), (8192, 1), (12288, 1), (16384, 1)]).expect("mix");
        assert_eq!(m.mean(), 10240.0);
        assert_eq!(m.ios_of_bytes(m.bytes_of_cap(1000), false).value(), 400.0);
        assert_eq!(m.ios_of_bytes(8 << 20, false).value(), 819.2);
        // One size: rate=1m with bs=4k is 256 exactly; rate=1000000 is 244.14, Poisson 244.
        let one = MixRate::of(&[(4096, 1)]).expect("one size");
        assert_eq!(one.ios_of_bytes(1 << 20, false), Ratio(1 << 20, 4096));
        assert!(one.ios_of_bytes(1 << 20, false).whole());
        assert_eq!(one.ios_of_bytes(1 << 20, false).nearest(), 256);
        assert!(!one.ios_of_bytes(1_000_000, false).whole());
        assert_eq!(one.ios_of_bytes(1_000_000, true), Ratio(244, 1));
        assert_eq!(MixRate::of(&[]), None);
        assert_eq!(MixRate::of(&[(4096, 0)]), None);
        assert_eq!(Ratio(5, 2).nearest(), 3);
        assert_eq!(Ratio(499, 1000).nearest(), 0);
        assert_eq!(Ratio(10, 4).per(5), Ratio(10, 20));
        // Trial 27 M3: export's rate=2901333 per job of numjobs=3 (500 I/Os/s of the mix, half reads):
        // 83.33 per job, 250 per direction for the 3 jobs, not 3 × 83.
        let per_job = m_half().ios_of_bytes(2_901_333, false);
        assert_eq!(per_job.nearest(), 83);
        assert_eq!(per_job.times(3), Ratio(3 * 2_901_333 * 100, 3_481_600));
        assert_eq!((per_job.cap(3), per_job.cap(1)), (250, 83));
        assert_eq!(Ratio(1, 4).cap(1), 1);
        assert_eq!(Ratio(1, 4).cap(8), 2);
    }
}
