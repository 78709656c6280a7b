//! The features of a random-write phase's per-second write IOPS that the fit matches: the fresh plateau
//! before the cliff, when the cliff happens, the steady level after it, and the spread of the seconds
//! there.

/// Seconds a series needs at least to be fitted.
pub const MIN_SECONDS: usize = 40;
/// The steady window: the last quarter of the phase (at least 10 s).
pub const STEADY_SHARE: f64 = 0.25;
/// A phase reached its cliff when its steady level is below this share of its plateau...
pub const CLIFF_DEPTH: f64 = 0.8;

/// What the fit matches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features {
    /// Fresh plateau: the highest 3-second median of the first quarter of the phase, IOPS.
    pub plateau: f64,
    /// When the cliff happens: the first second at whose end the 5-second mean is below half-way from the
    /// plateau to the steady level, s since the phase start.
    pub cliff_s: f64,
    /// Steady level: the mean of the last quarter of the phase, IOPS.
    pub steady: f64,
    /// Per-second spread in the steady window: standard deviation / mean.
    pub spread: f64,
    /// The worst second of the steady window, IOPS.
    pub worst: f64,
}

impl Features {
    /// Of a per-second series; `None` when it is shorter than [`MIN_SECONDS`].
    pub fn of(iops: &[f64]) -> Option<Features> {
        let n = iops.len();
        if n < MIN_SECONDS {
            return None;
        }
        let tail = ((n as f64 * STEADY_SHARE) as usize).max(10);
        let last = &iops[n - tail..];
        let steady = mean(last);
        let sd = (last.iter().map(|x| (x - steady).powi(2)).sum::<f64>() / tail as f64).sqrt();
        let head = &iops[..(n / 4).max(3)];
        let plateau = head
            .windows(3)
            .map(|w| {
                let mut v = w.to_vec();
                v.sort_by(f64::total_cmp);
                v[1]
            })
            .fold(0.0, f64::max);
        let half = steady + 0.5 * (plateau - steady);
        let cliff = iops
            .windows(5)
            .position(|w| mean(w) < half)
            .map_or(n as f64, |i| (i + 5) as f64);
        Some(Features {
            plateau,
            cliff_s: cliff,
            steady,
            spread: if steady > 0.0 { sd / steady } else { 0.0 },
            worst: last.iter().copied().fold(f64::INFINITY, f64::min),
        })
    }

    /// Whether the phase ran past its cliff: the steady level is below [`CLIFF_DEPTH`] of the plateau and
    /// the cliff came before the steady window (the last quarter).
    pub fn reached_cliff(&self, seconds: usize) -> bool {
        self.steady < CLIFF_DEPTH * self.plateau
            && self.cliff_s < seconds as f64 * (1.0 - STEADY_SHARE)
    }

    /// Relative errors of `self` (a candidate) against `m` (the measurement): plateau, cliff time, steady
    /// level; and the spread's difference (absolute, it is already a ratio).
    pub fn errors(&self, m: &Features) -> [f64; 4] {
        let rel = |a: f64, b: f64| if b != 0.0 { (a - b) / b } else { 0.0 };
        [
            rel(self.plateau, m.plateau),
            rel(self.cliff_s, m.cliff_s),
            rel(self.steady, m.steady),
            self.spread - m.spread,
        ]
    }
}

/// The mean of `v` (0 when empty).
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_down_has_its_plateau_cliff_and_steady_level() {
        // 24 s at 1000, then 80 s alternating 300 and 500 (the last quarter, 26 s, holds 13 of each).
        let mut v = vec![1000.0; 24];
        v.extend((0..80).map(|i| if i % 2 == 0 { 300.0 } else { 500.0 }));
        let f = Features::of(&v).unwrap();
        assert_eq!(f.plateau, 1000.0);
        assert_eq!(f.steady, 400.0);
        assert_eq!(f.worst, 300.0);
        assert!((f.spread - 0.25).abs() < 1e-12, "{}", f.spread);
        // Half-way is 700: the 5-s window ending at second 27 (1000 ×2, 300, 500, 300) has mean 620, the one
        // before (1000 ×3, 300, 500) 760.
        assert_eq!(f.cliff_s, 27.0);
        assert!(f.reached_cliff(v.len()));
        let flat = Features::of(&[1000.0; 100]).unwrap();
        assert!(!flat.reached_cliff(100));
        assert!(Features::of(&[1.0; 39]).is_none());
    }
}
