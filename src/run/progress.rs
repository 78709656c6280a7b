//! Live progress of a run on a terminal: [`Bar`] draws one line with indicatif on stderr, updated at each
//! phase start, each series row (the per-interval rows the collector writes to the CSV) and each phase end
//! (the terminal observer, [`super::observer::Console`], calls it when stderr is a terminal).
//!
//! The line: `phase 3/10 rw [=====>      ] 1.2/2 s, 0.8 s left · 25.3k IOPS · 103.2 MB/s · lat 152.3 µs`,
//! the rates those of the last interval (MB = 10⁶ bytes), the latency its mean over reads and writes. A
//! phase bounded by bytes shows bytes done and left instead of seconds; an erase shows a spinner and the
//! time since it started.

use crate::plan::PhasePlan;
use crate::results::series_csv::SeriesRow;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::time::Duration;

/// What bounds the running phase, for the progress line.
#[derive(Debug, Clone, Copy)]
enum Bound {
    /// Seconds (a duration).
    Time(f64),
    /// Bytes (a size, a fill's passes, an image).
    Bytes(u64),
    /// No I/O to count (an erase).
    None,
}

#[derive(Default)]
struct State {
    bar: Option<ProgressBar>,
    bound: Option<Bound>,
    t_s: f64,
    bytes: u64,
}

/// The live progress line on stderr (indicatif). Log lines go through [`Bar::println`] so that they print
/// above the line instead of through it.
pub struct Bar {
    state: RefCell<State>,
}

impl Default for Bar {
    fn default() -> Self {
        Self::new()
    }
}

impl Bar {
    /// A bar drawn on stderr; nothing shows until a phase starts.
    pub fn new() -> Bar {
        Bar {
            state: RefCell::new(State::default()),
        }
    }

    /// Prints a log line to stderr above the progress line.
    pub fn println(&self, line: &str) {
        match &self.state.borrow().bar {
            Some(b) => b.suspend(|| log_line(line)),
            None => log_line(line),
        }
    }
}

/// Writes a log line to stderr, ignoring a failed write: after a hang-up (the terminal closed) the run goes on
/// to write its partial results, where `eprintln!` would panic.
pub fn log_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The text after the bar for a row: progress against the bound, then the interval's rates.
pub fn row_message(
    bound_s: Option<f64>,
    done: (f64, u64),
    left_bytes: Option<u64>,
    row: &SeriesRow,
) -> String {
    let (t, bytes) = done;
    let head = match (bound_s, left_bytes) {
        (Some(d), _) => format!("{t:.1}/{} s, {:.1} s left", trim(d), (d - t).max(0.0)),
        (None, Some(left)) => format!("{} done, {} left, {t:.1} s", size(bytes), size(left)),
        (None, None) => format!("{t:.1} s"),
    };
    let ops = row.read_ops + row.write_ops;
    let lat = if ops > 0 {
        let sum = row.read_lat_mean_us.unwrap_or(0.0) * row.read_ops as f64
            + row.write_lat_mean_us.unwrap_or(0.0) * row.write_ops as f64;
        format!("lat {:.1} µs", sum / ops as f64)
    } else {
        "lat -".to_string()
    };
    format!(
        "{head} · {} IOPS · {:.1} MB/s · {lat}",
        count(row.read_iops + row.write_iops),
        (row.read_bw_bytes_per_s + row.write_bw_bytes_per_s) / 1e6
    )
}

/// A latency in nanoseconds with the unit that keeps it short: `850 ns`, `21.3 µs`, `1.25 ms`, `2.50 s`.
pub fn latency(ns: f64) -> String {
    // The thresholds are where the rounded value would reach 1000 of its unit.
    if ns < 999.5 {
        format!("{ns:.0} ns")
    } else if ns < 999_950.0 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 999_995_000.0 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// A rate with a k/M suffix above a thousand: `950`, `25.3k`, `1.2M`.
fn count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Bytes in binary units, one decimal: `512 B`, `12.5 MiB`.
fn size(b: u64) -> String {
    let units = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (u, n) in units {
        if b >= n {
            return format!("{:.1} {u}", b as f64 / n as f64);
        }
    }
    format!("{b} B")
}

impl Bar {
    /// Phase `n` (1-based) of `m` starts: a bar to its bound (time or bytes), or a spinner for an erase.
    pub fn phase_start(&self, n: usize, m: usize, phase: &PhasePlan) {
        let bound = match phase.bound() {
            None => Bound::None,
            Some(crate::plan::Bound::Time { ns }) => Bound::Time(ns as f64 / 1e9),
            Some(crate::plan::Bound::Ops { bytes, .. }) => Bound::Bytes(bytes),
        };
        let bar = match bound {
            Bound::Time(d) => ProgressBar::new((d * 1000.0).round() as u64),
            Bound::Bytes(b) => ProgressBar::new(b),
            Bound::None => ProgressBar::new_spinner(),
        };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        let template = match bound {
            Bound::None => "{prefix} {spinner} {elapsed} {msg}",
            _ => "{prefix} [{bar:20}] {msg}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(format!("phase {n}/{m} {}", phase.name));
        bar.set_message(match bound {
            Bound::Time(d) => format!("0.0/{} s", trim(d)),
            Bound::Bytes(b) => format!("0 B of {}", size(b)),
            Bound::None => format!("({})", phase.kind.as_str()),
        });
        bar.enable_steady_tick(Duration::from_millis(250));
        let mut s = self.state.borrow_mut();
        if let Some(old) = s.bar.take() {
            old.finish_and_clear();
        }
        *s = State {
            bar: Some(bar),
            bound: Some(bound),
            t_s: 0.0,
            bytes: 0,
        };
    }

    /// The running phase closed one interval of its series.
    pub fn row(&self, row: &SeriesRow) {
        let mut s = self.state.borrow_mut();
        s.t_s = row.t_s;
        s.bytes += row.read_bytes + row.write_bytes;
        let (t, bytes, bound) = (s.t_s, s.bytes, s.bound);
        let Some(bar) = &s.bar else { return };
        let msg = match bound {
            Some(Bound::Time(d)) => {
                bar.set_position(((t * 1000.0).round() as u64).min(bar.length().unwrap_or(0)));
                row_message(Some(d), (t, bytes), None, row)
            }
            Some(Bound::Bytes(b)) => {
                bar.set_position(bytes.min(b));
                row_message(None, (t, bytes), Some(b.saturating_sub(bytes)), row)
            }
            _ => row_message(None, (t, bytes), None, row),
        };
        bar.set_message(msg);
    }

    /// The running phase ended (completed, failed or interrupted).
    pub fn phase_end(&self) {
        if let Some(b) = self.state.borrow_mut().bar.take() {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(read_ops: u64, write_ops: u64, secs: f64) -> SeriesRow {
        SeriesRow {
            t_s: 1.2,
            interval_s: secs,
            partial: 0,
            read_ops,
            write_ops,
            read_iops: read_ops as f64 / secs,
            write_iops: write_ops as f64 / secs,
            read_bytes: read_ops * 4096,
            write_bytes: write_ops * 4096,
            read_bw_bytes_per_s: (read_ops * 4096) as f64 / secs,
            write_bw_bytes_per_s: (write_ops * 4096) as f64 / secs,
            read_lat_mean_us: (read_ops > 0).then_some(100.0),
            read_lat_max_us: (read_ops > 0).then_some(900.0),
            write_lat_mean_us: (write_ops > 0).then_some(250.0),
            write_lat_max_us: (write_ops > 0).then_some(990.0),
            errors: 0,
        }
    }

    #[test]
    fn time_bound_line_gives_elapsed_left_and_the_interval_rates() {
        // 3000 reads at 100 µs and 1000 writes at 250 µs in 0.2 s: 20k IOPS, 81.92 MB/s, mean 137.5 µs.
        let r = row(3000, 1000, 0.2);
        assert_eq!(
            row_message(Some(2.0), (1.2, 0), None, &r),
            "1.2/2 s, 0.8 s left · 20.0k IOPS · 81.9 MB/s · lat 137.5 µs"
        );
    }

    #[test]
    fn byte_bound_line_gives_bytes_done_and_left() {
        let r = row(0, 0, 0.2);
        assert_eq!(
            row_message(None, (1.2, 3 << 20), Some(13 << 20), &r),
            "3.0 MiB done, 13.0 MiB left, 1.2 s · 0 IOPS · 0.0 MB/s · lat -"
        );
    }
}
