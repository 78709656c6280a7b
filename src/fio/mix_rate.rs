//! fio's `rate_iops` with a block-size mix (`bssplit`, `bsrange`): fio turns the cap into bytes, rate_iops ×
//! the mix's smallest size per second, and paces each direction's bytes, so the I/Os per second it gives on
//! average are rate_iops × smallest / mean size (500 with `bssplit=4k/50:64k/50`: 500 × 4096 / 34,816 =
//! 58.82 I/Os per second). wkrun's `rate_iops` counts I/Os whatever their size. The importer turns fio's cap
//! into the rate it gives ([`MixRate::ios_of_cap`]), the exporter a spec's rate into the fio cap that gives
//! it ([`MixRate::cap_of_ios`]).

/// A block-size mix as fio's rate cap sees it: the smallest size and the mean size as a fraction.
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
    /// The mix `(bytes, weight)`; `None` when it has no entry or no weight.
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

    /// The I/Os per second fio's `rate_iops = cap` gives on average: cap × smallest / mean, as
    /// `(numerator, denominator)`.
    pub fn ios_of_cap(&self, cap: u64) -> Ratio {
        Ratio(cap as u128 * self.smallest as u128 * self.ios, self.bytes)
    }

    /// The fio `rate_iops` that gives `ios` I/Os per second on average: ios × mean / smallest.
    pub fn cap_of_ios(&self, ios: u64) -> Ratio {
        Ratio(ios as u128 * self.bytes, self.smallest as u128 * self.ios)
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

    /// The trial's jobs: 4k/50:64k/50 has a mean of 34,816 B, 4k/60:64k/40 of 28,672 B, bsrange=4k-16k
    /// (4, 8, 12, 16 KiB equally) of 10,240 B.
    #[test]
    fn caps_and_rates_of_mixes() {
        let m = MixRate::of(&[(4096, 50), (65536, 50)]).expect("mix");
        assert_eq!(m.mean(), 34816.0);
        let r = m.ios_of_cap(500);
        assert_eq!(r, Ratio(500 * 4096 * 100, 34816 * 100));
        assert_eq!((r.nearest(), r.whole()), (59, false));
        assert_eq!(format!("{:.2}", r.value()), "58.82");
        assert_eq!(format!("{:.2}", r.off_pct(59)), "0.30");
        let m = MixRate::of(&[(4096, 60), (65536, 40)]).expect("mix");
        assert_eq!(m.mean(), 28672.0);
        assert_eq!(m.ios_of_cap(2000).nearest(), 286);
        // 2000 × 4096 / 28672 = 285.71; 7 I/Os of the mix's are worth a cap of 49 exactly.
        assert_eq!(m.cap_of_ios(7), Ratio(7 * 2_867_200, 4096 * 100));
        assert!(m.cap_of_ios(7).whole());
        assert_eq!(m.cap_of_ios(7).nearest(), 49);
        assert_eq!(m.cap_of_ios(286).nearest(), 2002);
        let m = MixRate::of(&[(4096, 1), (8192, 1), (12288, 1), (16384, 1)]).expect("mix");
        assert_eq!(m.mean(), 10240.0);
        assert_eq!(m.ios_of_cap(1000).value(), 400.0);
        assert_eq!(MixRate::of(&[]), None);
        assert_eq!(MixRate::of(&[(4096, 0)]), None);
        assert_eq!(Ratio(5, 2).nearest(), 3);
        assert_eq!(Ratio(499, 1000).nearest(), 0);
        assert_eq!(Ratio(10, 4).per(5), Ratio(10, 20));
    }
}
