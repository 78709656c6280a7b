//! Long series drawn within a budget of points ([`super::MAX_POINTS`] per plot): consecutive intervals are
//! put in buckets, and each bucket is drawn as one point at its median, over a translucent band from its
//! lowest to its highest value (the envelope). The median shows where most intervals sit; the envelope
//! shows the spread and the worst case without drawing it as if it were typical (keeping each bucket's
//! lowest and highest point, as the plots did before, drew a second dense band of outliers where few
//! intervals were).

use super::Points;

/// What is drawn of a series: its points (every one, or one per bucket at the bucket's median), and when
/// it was thinned, each bucket's `(t, lowest, highest)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Thinned {
    /// The points drawn.
    pub points: Points,
    /// Per bucket, its time and its lowest and highest value; empty when every point is drawn.
    pub envelope: Vec<(f64, f64, f64)>,
}

/// At most this many steps in an envelope: past it, neighbouring buckets share one (their lowest and highest
/// value), which keeps an SVG small and is finer than a printed line.
pub const ENVELOPE_STEPS: usize = 1000;

/// `points` (in order of x) within `max` points: all of them when there are at most `max`; else `max`
/// buckets of consecutive points, each drawn at the time of its middle point and the median of its values
/// (the mean of the two middle values of an even bucket), with its lowest and highest value in the
/// envelope (neighbouring buckets merged there, at most [`ENVELOPE_STEPS`]).
pub fn thin(points: &[(f64, f64)], max: usize) -> Thinned {
    if points.len() <= max || max == 0 {
        return Thinned {
            points: points.to_vec(),
            envelope: Vec::new(),
        };
    }
    let mut out = Thinned::default();
    for b in 0..max {
        let (i, j) = (b * points.len() / max, (b + 1) * points.len() / max);
        let bucket = &points[i..j];
        if bucket.is_empty() {
            continue;
        }
        let mut ys: Vec<f64> = bucket.iter().map(|p| p.1).collect();
        ys.sort_by(f64::total_cmp);
        let n = ys.len();
        let median = if n % 2 == 1 {
            ys[n / 2]
        } else {
            (ys[n / 2 - 1] + ys[n / 2]) / 2.0
        };
        let t = bucket[(n - 1) / 2].0;
        out.points.push((t, median));
        out.envelope.push((t, ys[0], ys[n - 1]));
    }
    let per = out.envelope.len().div_ceil(ENVELOPE_STEPS);
    if per > 1 {
        out.envelope = out
            .envelope
            .chunks(per)
            .map(|c| {
                let lo = c.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
                let hi = c.iter().map(|e| e.2).fold(f64::NEG_INFINITY, f64::max);
                (c[(c.len() - 1) / 2].0, lo, hi)
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_series_is_drawn_whole() {
        let pts = vec![(1.0, 5.0), (2.0, 1.0)];
        assert_eq!(
            thin(&pts, 2),
            Thinned {
                points: pts.clone(),
                envelope: vec![]
            }
        );
    }

    #[test]
    fn each_bucket_is_its_median_over_its_range() {
        let ys = [5.0, 1.0, 9.0, 4.0, 4.0, 2.0, 8.0, 3.0, 7.0, 6.0];
        let pts: Points = ys.iter().enumerate().map(|(i, y)| (i as f64, *y)).collect();
        // 3 buckets of 3, 3 and 4 points: (5 1 9) (4 4 2) (8 3 7 6).
        let t = thin(&pts, 3);
        assert_eq!(t.points, vec![(1.0, 5.0), (4.0, 4.0), (7.0, 6.5)]);
        assert_eq!(
            t.envelope,
            vec![(1.0, 1.0, 9.0), (4.0, 2.0, 4.0), (7.0, 3.0, 8.0)]
        );
    }

    /// Issue 25 item 5: seconds mostly at 250–275 IOPS with one in fourteen at 330. Keeping each bucket's
    /// lowest and highest point drew the 330s as a second dense band; the medians stay at 250–275 and the
    /// 330s are the envelope's top.
    #[test]
    fn outliers_are_the_envelope_not_a_band_of_points() {
        let pts: Points = (0..30_000)
            .map(|i| {
                let y = if i % 14 == 0 {
                    330.0
                } else {
                    250.0 + (i % 26) as f64
                };
                (i as f64, y)
            })
            .collect();
        let t = thin(&pts, 4000);
        assert_eq!(t.points.len(), 4000);
        // Four buckets to a step of the envelope.
        assert_eq!(t.envelope.len(), ENVELOPE_STEPS);
        assert!(t.points.iter().all(|p| (250.0..=275.0).contains(&p.1)));
        assert!(t.envelope.iter().any(|e| e.2 == 330.0));
        assert_eq!(
            t.envelope.iter().map(|e| e.1).fold(f64::INFINITY, f64::min),
            250.0
        );
    }
}
