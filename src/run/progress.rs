//! Live progress of a run on a terminal: [`Bar`] draws one line with indicatif on stderr, updated at each
//! phase start, each series row (the per-interval rows the collector writes to the CSV) and each phase end
//! (the terminal observer, [`super::observer::Console`], calls it when stderr is a terminal).
//!
//! The line: `#2 of 0-9 rw [=====>      ] 1.2/2 s, 0.8 s left · 25.3k IOPS · 103.2 MB/s · lat 152.3 µs`,
//! the rates those of the last interval (MB = 10⁶ bytes), the latency its mean over reads and writes. A
//! phase bounded by bytes shows bytes done and left instead of seconds; an erase shows a spinner and the
//! time since it started. [`fit`] fits the line to the terminal's width, dropping the least important
//! fields first.

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
    prefix: String,
    t_s: f64,
    bytes: u64,
    /// The phase's last full row, whose rates the line shows ([`shown_rates`]).
    last_full: Option<SeriesRow>,
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

    /// Prints a result line to stdout above the progress line ([`result_line`]).
    pub fn print_result(&self, line: &str) {
        match &self.state.borrow().bar {
            Some(b) => b.suspend(|| result_line(line)),
            None => result_line(line),
        }
    }
}

/// Writes a line of the result summary to stdout in one write (as [`log_line`]), ignoring a failed write: a
/// reader that went away or a full disk must not stop a run, whose results are in its folder.
pub fn out_line(line: &str) {
    if let Err(e) = write_line(&mut std::io::stdout().lock(), line)
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        // The run goes on (its results are the files it writes); the command fails at its end
        // ([`stdout_failure`]), as `> /dev/full` must not look like a success.
        let _ = STDOUT_FAILURE.set(e.to_string());
    }
}

/// The first failure writing the summary to stdout (other than a reader that went away).
static STDOUT_FAILURE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Why the summary could not be written to stdout, when it could not (`wkrun SPEC > /dev/full`).
pub fn stdout_failure() -> Option<&'static str> {
    STDOUT_FAILURE.get().map(String::as_str)
}

/// A line of a run's result summary ([`out_line`]) that stops the run when stdout does not take it: the
/// stop flag a signal sets ([`crate::sys::signal::stop_unsignalled`], no signal named), which the phase's
/// I/O loop checks, so that the run ends at once, failed ([`stdout_error`]), not at its next record of
/// results (a 30 s phase ran to its end).
pub fn result_line(line: &str) {
    out_line(line);
    if stdout_failure().is_some() {
        crate::sys::signal::stop_unsignalled();
    }
}

/// The error of a run stopped because stdout did not take its summary ([`result_line`]): the run's stop
/// flag set and no signal received. `None` otherwise (a signal after the failure ends the run
/// interrupted).
pub fn stdout_error() -> Option<crate::results::write::WriteError> {
    if crate::sys::signal::first().is_some() {
        return None;
    }
    stdout_failure().map(|e| crate::results::write::WriteError::Io {
        path: "standard output".into(),
        source: std::io::Error::other(e),
    })
}

/// Writes a log line to stderr, ignoring a failed write: after a hang-up (the terminal closed) the run goes on
/// to write its partial results, where `eprintln!` would panic.
pub fn log_line(line: &str) {
    let _ = write_line(&mut std::io::stderr().lock(), line);
}

/// Writes `line` and its newline to `w` in one `write_all` of one buffer, so that an unbuffered stderr makes
/// one `write(2)` per line: a launcher that tags each line it reads (`mpirun --tag-output`, `srun --label`)
/// never sees a line cut from its newline (`writeln!` writes the text and the `\n` apart). Control
/// characters but line breaks and tabs are shown escaped ([`crate::text::printable`]): a target path or a
/// name with an escape sequence never reaches the terminal raw.
pub fn write_line(w: &mut impl std::io::Write, line: &str) -> std::io::Result<()> {
    let line = crate::text::printable(line);
    let mut whole = String::with_capacity(line.len() + 1);
    whole.push_str(&line);
    whole.push('\n');
    w.write_all(whole.as_bytes())
}

/// The fields of a live line, each already written out; [`fit`] keeps those that fit the terminal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    /// `#2 of 0-9 rw`: always shown (the name shortened with `…` on a very narrow terminal).
    pub prefix: String,
    /// Share of the bound done, 0..=1, for the bar; `None`: no bar.
    pub fraction: Option<f64>,
    /// Progress against the bound: `1.2/2 s`, `3.0 MiB done`, `1.2 s`.
    pub done: String,
    /// What is left: `0.8 s left`, `13.0 MiB left, 1.2 s`.
    pub left: Option<String>,
    /// The last interval's rate: `25.3k IOPS`.
    pub iops: Option<String>,
    /// The last interval's bandwidth: `103.2 MB/s`.
    pub bw: Option<String>,
    /// The last interval's mean latency: `lat 152.3 µs`.
    pub lat: Option<String>,
}

/// Widest bar, and the narrowest worth drawing (in cells between the brackets).
const BAR_MAX: usize = 20;
const BAR_MIN: usize = 6;

/// The line in at most `width` terminal cells. Fields go in this order as the terminal narrows: the
/// bandwidth (the IOPS give it), the time left (`done` gives it), the bar (after shrinking from 20 to 6
/// cells), the latency, the IOPS, the progress; last the phase name is shortened with `…`.
pub fn fit(line: &Line, width: usize) -> String {
    // Each try: (left, bandwidth, bar, latency, IOPS, progress) shown or not.
    const TRIES: [[bool; 6]; 6] = [
        [true, true, true, true, true, true],
        [true, false, true, true, true, true],
        [false, false, true, true, true, true],
        [false, false, false, true, true, true],
        [false, false, false, false, true, true],
        [false, false, false, false, false, true],
    ];
    for [left, bw, bar, lat, iops, done] in TRIES {
        let head = match (&line.left, left) {
            (Some(l), true) => format!("{}, {l}", line.done),
            _ => line.done.clone(),
        };
        let mut fields: Vec<&str> = Vec::new();
        if done {
            fields.push(&head);
        }
        for (show, f) in [(iops, &line.iops), (bw, &line.bw), (lat, &line.lat)] {
            if let (true, Some(f)) = (show, f) {
                fields.push(f);
            }
        }
        let text = fields.join(" · ");
        let fixed = cells(&line.prefix) + 1 + cells(&text);
        match (bar, line.fraction) {
            (true, Some(f)) if fixed + BAR_MIN + 3 <= width => {
                let n = (width - fixed - 3).min(BAR_MAX);
                return format!("{} {} {text}", line.prefix, bar_text(f, n));
            }
            (true, Some(_)) => {}
            _ if fixed <= width => return format!("{} {text}", line.prefix),
            _ => {}
        }
    }
    shorten(&line.prefix, width)
}

/// Terminal cells of a text (`µ` and `·` take one).
fn cells(s: &str) -> usize {
    console::measure_text_width(s)
}

/// `[=====>    ]` with `n` cells inside the brackets, `fraction` of them done.
fn bar_text(fraction: f64, n: usize) -> String {
    let full = ((fraction.clamp(0.0, 1.0) * n as f64).floor() as usize).min(n);
    let head = usize::from(full < n && fraction > 0.0);
    format!(
        "[{}{}{}]",
        "=".repeat(full),
        ">".repeat(head),
        " ".repeat(n - full - head)
    )
}

/// `text` in at most `width` cells: cut, with `…` for what was cut.
fn shorten(text: &str, width: usize) -> String {
    if cells(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if cells(&out) + cells(&c.to_string()) + 1 > width {
            break;
        }
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// The row whose rates the live line shows after `row`: `row` when it is a full interval, else the phase's
/// last full row `last_full` (none before the first). A partial row (the drain after a time bound, a
/// phase's shorter last interval) has a rate that describes the queue emptying over a fraction of an
/// interval, not the device (a 0.05 s drain row read 112.9k IOPS where full seconds read 58k to 76k), so
/// the line never shows it.
pub fn shown_rates<'a>(
    row: &'a SeriesRow,
    last_full: Option<&'a SeriesRow>,
) -> Option<&'a SeriesRow> {
    match row.partial {
        0 => Some(row),
        _ => last_full,
    }
}

/// The fields of the live line after a row: progress against the bound (`done`: time and bytes so far),
/// then the rates of `rates` ([`shown_rates`]), none when it is `None`.
pub fn row_line(
    prefix: &str,
    bound: (Option<f64>, Option<u64>),
    done: (f64, u64),
    rates: Option<&SeriesRow>,
) -> Line {
    let (t, bytes) = done;
    let (fraction, done, left) = match bound {
        (Some(d), _) => (
            Some(if d > 0.0 { t / d } else { 1.0 }),
            format!("{t:.1}/{} s", trim(d)),
            Some(format!("{:.1} s left", (d - t).max(0.0))),
        ),
        (None, Some(left)) => (
            Some(bytes as f64 / (bytes + left).max(1) as f64),
            format!("{} done", size(bytes)),
            Some(format!("{} left, {t:.1} s", size(left))),
        ),
        (None, None) => (None, format!("{t:.1} s"), None),
    };
    let Some(row) = rates else {
        return Line {
            prefix: prefix.to_string(),
            fraction,
            done,
            left,
            ..Line::default()
        };
    };
    let ops = row.count(|d| d.ops);
    let lat = if ops > 0 {
        let sum = row.lat_sum_us();
        format!("lat {}", latency(sum / ops as f64 * 1e3))
    } else {
        "lat -".to_string()
    };
    Line {
        prefix: prefix.to_string(),
        fraction,
        done,
        left,
        iops: Some(format!("{} IOPS", count(row.rate(|d| d.iops)))),
        bw: Some(format!("{:.1} MB/s", row.rate(|d| d.bw_bytes_per_s) / 1e6)),
        lat: Some(lat),
    }
}

/// A latency with the unit that keeps it short (one definition: [`crate::units::latency`]).
pub use crate::units::latency;

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

/// The terminal's width in cells, read again at each update (the window may be resized); when unknown (or
/// reported as 0 columns), `$COLUMNS`, else 80.
pub fn term_width() -> usize {
    let reported = console::Term::stderr().size_checked().map(|(_, c)| c);
    crate::text::terminal_width(reported, std::env::var("COLUMNS").ok().as_deref(), 80)
}

/// The widest the live line may be on a terminal of `cols` columns: one cell less, so that the cursor
/// never sits past the last column (where some terminals wrap).
fn room(cols: usize) -> usize {
    cols.saturating_sub(1)
}

impl Bar {
    /// Phase `n` of a run of `m` starts: a bar to its bound (time or bytes), or a spinner for an erase. Phases
    /// are numbered from 0, as in the summary on stdout and the series CSVs' names (`#3 of 0-9 rw`).
    pub fn phase_start(&self, n: usize, m: usize, phase: &PhasePlan) {
        let bound = match phase.bound() {
            None => Bound::None,
            Some(crate::plan::Bound::Time { ns }) => Bound::Time(ns as f64 / 1e9),
            Some(crate::plan::Bound::Ops { bytes, .. }) => Bound::Bytes(bytes),
        };
        let bar = ProgressBar::new(1);
        bar.set_draw_target(ProgressDrawTarget::stderr());
        let prefix = phase_prefix(n, m, &phase.name);
        let width = room(term_width());
        // The line is fitted here ([`fit`]); indicatif only draws it (and, for an erase, the spinner and
        // the time since it started: 11 cells).
        let (template, text) = match bound {
            Bound::None => (
                "{msg} {spinner} {elapsed_precise}",
                shorten(
                    &format!("{prefix} ({})", phase.kind.as_str()),
                    width.saturating_sub(11),
                ),
            ),
            Bound::Time(d) => ("{msg}", fit(&start_line(&prefix, Some(d), 0), width)),
            Bound::Bytes(b) => ("{msg}", fit(&start_line(&prefix, None, b), width)),
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_message(text);
        bar.enable_steady_tick(Duration::from_millis(250));
        let mut s = self.state.borrow_mut();
        if let Some(old) = s.bar.take() {
            old.finish_and_clear();
        }
        *s = State {
            bar: Some(bar),
            bound: Some(bound),
            prefix,
            t_s: 0.0,
            bytes: 0,
            last_full: None,
        };
    }

    /// The running phase closed one interval of its series.
    pub fn row(&self, row: &SeriesRow) {
        let mut s = self.state.borrow_mut();
        s.t_s = row.t_s;
        s.bytes += row.count(|d| d.bytes);
        let (t, bytes) = (s.t_s, s.bytes);
        let Some(bar) = &s.bar else { return };
        let bound = match s.bound {
            Some(Bound::Time(d)) => (Some(d), None),
            Some(Bound::Bytes(b)) => (None, Some(b.saturating_sub(bytes))),
            // An erase keeps its spinner.
            _ => return,
        };
        let line = row_line(
            &s.prefix,
            bound,
            (t, bytes),
            shown_rates(row, s.last_full.as_ref()),
        );
        bar.set_message(fit(&line, room(term_width())));
        if row.partial == 0 {
            s.last_full = Some(row.clone());
        }
    }

    /// The running phase ended (completed, failed or interrupted).
    pub fn phase_end(&self) {
        if let Some(b) = self.state.borrow_mut().bar.take() {
            b.finish_and_clear();
        }
    }
}

/// The start of the live line of phase `n` (from 0) of a run of `m` phases named `name`: `#3 of 0-9 rw`, the
/// range of the run's phase numbers after `of`; a run of one phase has no range to give (`#0 of 0-0` read
/// as a bug): `#0 rw`.
pub fn phase_prefix(n: usize, m: usize, name: &str) -> String {
    match m {
        0 | 1 => format!("#{n} {name}"),
        _ => format!("#{n} of 0-{} {name}", m - 1),
    }
}

/// The line of a phase that has not closed an interval yet: `0.0/2 s` or `0 B of 16.0 MiB`.
fn start_line(prefix: &str, time: Option<f64>, bytes: u64) -> Line {
    Line {
        prefix: prefix.to_string(),
        fraction: Some(0.0),
        done: match time {
            Some(d) => format!("0.0/{} s", trim(d)),
            None => format!("0 B of {}", size(bytes)),
        },
        ..Line::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::series_csv::DirColumns;
    use crate::vocab::{Direction, PerDir};

    /// Records each `write` call it receives.
    #[derive(Default)]
    struct Calls(Vec<Vec<u8>>);

    impl std::io::Write for Calls {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_log_line_is_one_write_with_its_newline() {
        let mut w = Calls::default();
        write_line(&mut w, "[t0-a.img] #0 of 0-1 fill: 4096 writes").unwrap();
        write_line(&mut w, "").unwrap();
        assert_eq!(
            w.0,
            vec![
                b"[t0-a.img] #0 of 0-1 fill: 4096 writes\n".to_vec(),
                b"\n".to_vec()
            ]
        );
    }

    fn row(read_ops: u64, write_ops: u64, secs: f64) -> SeriesRow {
        let cols = |ops: u64, mean: f64, max: f64| DirColumns {
            ops,
            iops: ops as f64 / secs,
            bytes: ops * 4096,
            bw_bytes_per_s: (ops * 4096) as f64 / secs,
            lat_mean_us: (ops > 0).then_some(mean),
            lat_max_us: (ops > 0).then_some(max),
            lat_pct_us: [None; 3],
        };
        let mut by_dir = PerDir::default();
        by_dir[Direction::Read] = cols(read_ops, 100.0, 900.0);
        by_dir[Direction::Write] = cols(write_ops, 250.0, 990.0);
        SeriesRow {
            t_s: 1.2,
            interval_s: secs,
            partial: 0,
            by_dir,
            errors: 0,
        }
    }

    fn line(bound: (Option<f64>, Option<u64>), done: (f64, u64), r: &SeriesRow) -> Line {
        row_line("#1 of 0-2 randrw", bound, done, Some(r))
    }

    /// A partial row's rate is never shown: the drain after a 2 s bound (0.05 s, 5645 writes: 112.9k
    /// IOPS) leaves the last full second's 76.0k on the line; a phase with no full row yet shows none.
    #[test]
    fn the_line_never_shows_a_partial_rows_rate() {
        let full = row(0, 76_000, 1.0);
        let mut drain = row(0, 5645, 0.05);
        drain.partial = 1;
        assert_eq!(format!("{:.1}", drain[Direction::Write].iops), "112900.0");
        let shown = shown_rates(&drain, Some(&full));
        assert_eq!(
            fit(&line((Some(2.0), None), (2.05, 0), shown.unwrap()), 200),
            "#1 of 0-2 randrw [====================] 2.0/2 s, 0.0 s left · 76.0k IOPS · 311.3 MB/s · lat 250.0 µs"
        );
        assert_eq!(shown_rates(&full, None), Some(&full));
        assert_eq!(shown_rates(&drain, None), None);
        assert_eq!(
            fit(&row_line("#0 w", (Some(2.0), None), (0.3, 0), None), 200),
            "#0 w [===>                ] 0.3/2 s, 1.7 s left"
        );
    }

    /// Phases are numbered from 0 with the run's range; one phase alone has none (`#0 of 0-0` was read as
    /// a bug).
    #[test]
    fn the_prefix_gives_the_range_only_when_there_is_one() {
        assert_eq!(phase_prefix(0, 1, "rw"), "#0 rw");
        assert_eq!(phase_prefix(0, 2, "fill"), "#0 of 0-1 fill");
        assert_eq!(phase_prefix(9, 10, "rw"), "#9 of 0-9 rw");
    }

    #[test]
    fn time_bound_line_gives_elapsed_left_and_the_interval_rates() {
        // 3000 reads at 100 µs and 1000 writes at 250 µs in 0.2 s: 20k IOPS, 81.92 MB/s, mean 137.5 µs;
        // 1.2 s of 2: 12 of the bar's 20 cells.
        let l = line((Some(2.0), None), (1.2, 0), &row(3000, 1000, 0.2));
        let wide = "#1 of 0-2 randrw [============>       ] 1.2/2 s, 0.8 s left · 20.0k IOPS · 81.9 MB/s · lat 137.5 µs";
        assert_eq!(cells(wide), 99);
        assert_eq!(fit(&l, 200), wide);
        assert_eq!(fit(&l, 99), wide);
        // One cell less: the bar gives it up, down to 6 cells.
        assert_eq!(
            fit(&l, 98),
            "#1 of 0-2 randrw [===========>       ] 1.2/2 s, 0.8 s left · 20.0k IOPS · 81.9 MB/s · lat 137.5 µs"
        );
        assert_eq!(
            fit(&l, 85),
            "#1 of 0-2 randrw [===>  ] 1.2/2 s, 0.8 s left · 20.0k IOPS · 81.9 MB/s · lat 137.5 µs"
        );
        // Then the bandwidth goes (the bar widening again), then the time left.
        assert_eq!(
            fit(&l, 79),
            "#1 of 0-2 randrw [=======>    ] 1.2/2 s, 0.8 s left · 20.0k IOPS · lat 137.5 µs"
        );
        assert_eq!(
            fit(&l, 70),
            "#1 of 0-2 randrw [=========>     ] 1.2/2 s · 20.0k IOPS · lat 137.5 µs"
        );
        // Then the bar, the latency, the IOPS, the progress; last the name is cut.
        assert_eq!(
            fit(&l, 60),
            "#1 of 0-2 randrw 1.2/2 s · 20.0k IOPS · lat 137.5 µs"
        );
        assert_eq!(fit(&l, 48), "#1 of 0-2 randrw 1.2/2 s · 20.0k IOPS");
        assert_eq!(fit(&l, 30), "#1 of 0-2 randrw 1.2/2 s");
        assert_eq!(fit(&l, 20), "#1 of 0-2 randrw");
        assert_eq!(fit(&l, 12), "#1 of 0-2 r…");
        for w in 1..130 {
            assert!(cells(&fit(&l, w)) <= w, "{w}: {}", fit(&l, w));
        }
    }

    #[test]
    fn byte_bound_line_gives_bytes_done_and_left() {
        let l = line((None, Some(13 << 20)), (1.2, 3 << 20), &row(0, 0, 0.2));
        assert_eq!(
            fit(&l, 120),
            "#1 of 0-2 randrw [===>                ] 3.0 MiB done, 13.0 MiB left, 1.2 s · 0 IOPS · 0.0 MB/s · lat -"
        );
    }

    #[test]
    fn latency_takes_the_unit_that_keeps_it_short() {
        assert_eq!(latency(137_500.0), "137.5 µs");
        assert_eq!(latency(1_999_000.0), "2.00 ms");
        let mut r = row(10, 0, 1.0);
        r[Direction::Read].lat_mean_us = Some(1_999.0);
        assert_eq!(
            line((Some(2.0), None), (1.0, 0), &r).lat.as_deref(),
            Some("lat 2.00 ms")
        );
    }
}
