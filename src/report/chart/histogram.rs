//! A response-time histogram (SNIA PTS DIRTH): the I/Os of a phase per latency bin, the bins a fixed number
//! per decade of latency (log x axis), the counts on a log axis, the five-nines latency marked.

use super::lines::{Curve, Curves, XyAxes};
use super::{Axis, Chart, Plane, PlotError, colour, log_range, why};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

/// Bins per decade of latency.
pub const PER_DECADE: f64 = 20.0;

/// One bin: its latencies from `lo_us` to `hi_us` and the I/Os in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// Its lowest latency, µs.
    pub lo_us: f64,
    /// Its highest latency, µs.
    pub hi_us: f64,
    /// I/Os in it.
    pub count: u64,
}

/// The `[value_ns, count]` pairs of a latency histogram (several merged, in any order) in log bins of
/// [`PER_DECADE`] a decade: each pair goes to the bin holding its value; empty bins are left out. The
/// counts add up to the pairs'.
pub fn bins(pairs: &[[u64; 2]]) -> Vec<Bin> {
    let mut by: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
    for [v, c] in pairs {
        let us = (*v).max(1) as f64 / 1e3;
        *by.entry((us.log10() * PER_DECADE).floor() as i64)
            .or_default() += c;
    }
    let edge = |k: i64| 10f64.powf(k as f64 / PER_DECADE);
    by.into_iter()
        .filter(|(_, c)| *c > 0)
        .map(|(k, count)| Bin {
            lo_us: edge(k),
            hi_us: edge(k + 1),
            count,
        })
        .collect()
}

struct Bars<'a> {
    bins: &'a [Bin],
    floor: f64,
    marks: Curves<'a>,
}

impl super::Body for Bars<'_> {
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let c = colour(0);
        chart
            .draw_series(self.bins.iter().map(|b| {
                Rectangle::new(
                    [(b.lo_us, self.floor), (b.hi_us, b.count as f64)],
                    c.mix(0.7).filled(),
                )
            }))
            .map_err(why)?;
        self.marks.draw(chart)
    }
}

/// The histogram of `pairs` (a phase's read and write histograms together), with a line at `nines_us`, the
/// 99.999th percentile.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn histogram_chart(
    subject: &str,
    pairs: &[[u64; 2]],
    nines_us: Option<f64>,
) -> Result<Chart, PlotError> {
    let bins = bins(pairs);
    let lo = bins.first().map_or(1.0, |b| b.lo_us);
    let hi = bins.last().map_or(10.0, |b| b.hi_us);
    let top = bins.iter().map(|b| b.count).max().unwrap_or(1) as f64;
    let y = Axis::decades(log_range(1.0, top), false);
    let axes = XyAxes {
        x: Axis::decades(log_range(lo, hi), false).latency(),
        y,
        x_desc: "response time (log scale)".into(),
        y_desc: "I/Os (log scale)".into(),
    };
    let marks: Vec<Curve> = nines_us
        .map(|n| {
            Curve::thin(
                format!("99.999 %: {}", super::scale::latency_text(n)),
                vec![(n, axes.y.lo), (n, top)],
                colour(1),
            )
        })
        .into_iter()
        .collect();
    let body = Bars {
        bins: &bins,
        floor: axes.y.lo,
        marks: Curves(&marks),
    };
    let total: u64 = bins.iter().map(|b| b.count).sum();
    let title = format!("Response-time histogram — {subject}");
    let svg = super::lines::draw(&title, &body.marks.legend(), &axes, &body)?;
    Ok(Chart {
        title,
        caption: format!(
            "{total} I/Os, reads and writes together, in bins of a twentieth of a decade of latency."
        ),
        svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_keep_every_io_in_the_bin_of_its_value() {
        // 100 µs and 101 µs share the bin [100, 112.2) µs; 1 ms is in its own, 40 µs in [39.8, 44.7).
        let b = bins(&[
            [100_000, 3],
            [101_000, 2],
            [1_000_000, 5],
            [40_000, 1],
            [7, 0],
        ]);
        let counts: Vec<u64> = b.iter().map(|x| x.count).collect();
        assert_eq!(counts, [1, 5, 5]);
        assert!((b[1].lo_us - 100.0).abs() < 1e-9 && (b[1].hi_us - 112.2018).abs() < 1e-3);
        assert!(b[0].lo_us <= 40.0 && 40.0 < b[0].hi_us);
        assert_eq!(b.iter().map(|x| x.count).sum::<u64>(), 11);
    }
}
