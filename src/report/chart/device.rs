//! A simulated drive's write amplification per interval against time (its `NN-<phase>.device.csv`): per
//! run, a line through each interval's flash writes over host writes, on a linear axis from 0; the phase's
//! own write amplification and bytes in the caption.

use super::time::{Marker, TimePlot, TimeSeries, line_for};
use super::{Axis, Chart, MAX_POINTS, PlotError, Points, colour, drives, subject};
use crate::report::runs::{PhaseGroup, RunData};

/// One line of the plot: a run's `(t_s, write amplification)` per interval with host writes.
#[derive(Debug, Clone, PartialEq)]
pub struct WaLine {
    /// The run (its index).
    pub run: usize,
    /// `(t_s, flash writes / host writes)` of each interval in which the host wrote.
    pub points: Points,
}

/// The lines of the phase: one per run whose phase has device rows with host writes.
pub fn wa_lines(runs: &[RunData], group: &PhaseGroup) -> Vec<WaLine> {
    group
        .members
        .iter()
        .filter_map(|&(r, p)| {
            let rows = runs[r].device.get(p)?.as_ref()?;
            let points: Points = rows
                .iter()
                .filter_map(|d| Some((d.t_s, d.write_amplification?)))
                .collect();
            (!points.is_empty()).then_some(WaLine { run: r, points })
        })
        .collect()
}

/// The caption's account of each run's phase: `a: 2.310 over the phase (host 10.300 GB, NAND 23.790 GB)`.
fn totals(runs: &[RunData], group: &PhaseGroup) -> Vec<String> {
    group
        .members
        .iter()
        .filter_map(|&(r, p)| {
            let d = runs[r].phase(p).0.device.as_ref()?;
            let wa = d
                .write_amplification
                .map_or("none".to_string(), |w| format!("{w:.3}"));
            Some(format!(
                "{}: {wa} over the phase (host {:.3} GB, NAND {:.3} GB)",
                runs[r].label,
                d.host_write_bytes as f64 / 1e9,
                d.flash_write_bytes as f64 / 1e9
            ))
        })
        .collect()
}

/// Write amplification per interval of one phase, a line per run, with `markers`; `None` when no run's
/// phase has device rows with host writes.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn wa_series(
    runs: &[RunData],
    group: &PhaseGroup,
    markers: &[Marker],
) -> Result<Option<Chart>, PlotError> {
    let lines = wa_lines(runs, group);
    if lines.is_empty() {
        return Ok(None);
    }
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3) * 1.02;
    let top = all().map(|p| p.1).fold(1.0, f64::max);
    let share = MAX_POINTS / lines.len();
    let mut series: Vec<TimeSeries> = lines
        .iter()
        .map(|l| {
            let name = Some(runs[l.run].legend());
            let mark = line_for(l.points.len());
            TimeSeries::thinned(l.run, name, colour(l.run), mark, &l.points, share)
        })
        .collect();
    super::predicted::restyle(&mut series, runs);
    let members: Vec<usize> = group.members.iter().map(|m| m.0).collect();
    let tp = TimePlot {
        title: format!(
            "Write amplification per interval — {}",
            subject(runs, &members, &group.name)
        ),
        x: Axis::linear(0.0, x1),
        y: Axis::linear(0.0, top * 1.08),
        y_desc: "write amplification (flash writes / host writes)".into(),
        series,
        rows: vec![],
        markers: markers.to_vec(),
        drives: drives(runs),
    };
    let n: usize = lines.iter().map(|l| l.points.len()).sum();
    Ok(Some(Chart {
        caption: format!(
            "{n} points: the simulated drive's bytes programmed to flash (host data and garbage-collection copies) over the bytes the host wrote, in each interval with host writes (the device CSV). Write amplification of {}.",
            totals(runs, group).join("; ")
        ),
        svg: tp.draw()?,
        title: tp.title,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::runs::DeviceSample;
    use crate::report::testing::{group, row, series_run};
    use crate::results::DeviceResult;

    fn sample(t_s: f64, host: u64, flash: u64) -> DeviceSample {
        DeviceSample {
            t_s,
            host_write_bytes: host,
            flash_write_bytes: flash,
            write_amplification: (host > 0).then(|| flash as f64 / host as f64),
        }
    }

    /// The newcomer's trial: the device CSV was drawn nowhere. Each interval with host writes is a point at
    /// its flash / host ratio; the caption gives the phase's totals.
    #[test]
    fn write_amplification_is_drawn_per_interval() {
        let mut run = series_run("a", "sim:a", vec![row(1.0, 0, 10), row(2.0, 0, 10)]);
        run.device = vec![Some(vec![
            sample(1.0, 4_000_000, 4_000_000),
            sample(2.0, 0, 0),
            sample(3.0, 2_000_000, 5_000_000),
        ])];
        run.results.phases[0].device = Some(DeviceResult {
            device_csv: Some("01-p.device.csv".into()),
            host_write_bytes: 6_000_000,
            flash_write_bytes: 9_000_000,
            gc_copy_bytes: 3_000_000,
            erased_blocks: 0,
            trimmed_bytes: 0,
            free_blocks: 0,
            write_amplification: Some(1.5),
        });
        let runs = [run];
        let g = group("p", &[(0, 0)]);
        assert_eq!(
            wa_lines(&runs, &g),
            vec![WaLine {
                run: 0,
                points: vec![(1.0, 1.0), (3.0, 2.5)],
            }]
        );
        let c = wa_series(&runs, &g, &[]).expect("draws").expect("a chart");
        assert_eq!(
            c.title,
            "Write amplification per interval — spec · p · sim:a"
        );
        assert!(
            c.caption.ends_with(
                "Write amplification of a: 1.500 over the phase (host 0.006 GB, NAND 0.009 GB)."
            ),
            "{}",
            c.caption
        );
        assert!(c.caption.starts_with("2 points: "), "{}", c.caption);
        // A run without device rows (a file target): no chart.
        let plain = [series_run("a", "sim:a", vec![row(1.0, 0, 10)])];
        assert_eq!(wa_series(&plain, &g, &[]).expect("draws"), None);
    }
}
