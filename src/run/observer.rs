//! The run's events and who hears them: one [`Observer`] receives every event (log lines, result lines,
//! phase start and end, each series row, each new state of the results). The results file is one observer
//! ([`ResultsWriter`], always present), the terminal another ([`Console`]: result lines on stdout, log lines
//! on stderr, the live progress line when stderr is a terminal).

use super::progress::{self, Bar};
use crate::plan::PhasePlan;
use crate::results::Results;
use crate::results::series_csv::SeriesRow;
use crate::results::write::{ResultsWriter, WriteError};

/// Hears the events of a run, on the thread that runs the plan. Every method has a default that ignores the
/// event.
pub trait Observer {
    /// A line for humans about the run: what it does, notes, warnings (stderr).
    fn log(&mut self, _line: &str) {}
    /// A line of the run's result summary: a phase's header (what it ran) and its totals, latency and
    /// steady state (stdout, as fio prints its results).
    fn result(&mut self, _line: &str) {}
    /// Phase `number` (1-based) of `of` starts.
    fn phase_start(&mut self, _number: usize, _of: usize, _phase: &PhasePlan) {}
    /// The running phase closed one interval of its series (the row was written to its CSV).
    fn row(&mut self, _row: &SeriesRow) {}
    /// The running phase's work ended (completed, failed or interrupted).
    fn phase_end(&mut self) {}
    /// The results changed: the run started, a phase ended, the run ended.
    ///
    /// # Errors
    /// The results could not be recorded; the run stops.
    fn results(&mut self, _results: &Results) -> Result<(), WriteError> {
        Ok(())
    }
}

/// `results.json`, rewritten atomically (and validated) at the start, after each phase and at the end;
/// after phases shorter than the writes themselves, paced ([`ResultsWriter::update`]).
impl Observer for ResultsWriter {
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        self.update(results)
    }
}

/// Two observers, in order: every event goes to both; of two results errors, the first is returned.
pub struct Both<'a>(pub &'a mut dyn Observer, pub &'a mut dyn Observer);

impl Observer for Both<'_> {
    fn log(&mut self, line: &str) {
        self.0.log(line);
        self.1.log(line);
    }
    fn result(&mut self, line: &str) {
        self.0.result(line);
        self.1.result(line);
    }
    fn phase_start(&mut self, number: usize, of: usize, phase: &PhasePlan) {
        self.0.phase_start(number, of, phase);
        self.1.phase_start(number, of, phase);
    }
    fn row(&mut self, row: &SeriesRow) {
        self.0.row(row);
        self.1.row(row);
    }
    fn phase_end(&mut self) {
        self.0.phase_end();
        self.1.phase_end();
    }
    fn results(&mut self, results: &Results) -> Result<(), WriteError> {
        let a = self.0.results(results);
        let b = self.1.results(results);
        a.and(b)
    }
}

/// The terminal: result lines on stdout (with `quiet` too: the summary of the run), log lines on stderr (none
/// with `quiet`), and with a live progress line both print above it.
pub struct Console {
    quiet: bool,
    bar: Option<Bar>,
}

impl Console {
    /// Log lines on stderr unless `quiet`; a live progress line when `live`.
    pub fn new(quiet: bool, live: bool) -> Console {
        Console {
            quiet,
            bar: live.then(Bar::new),
        }
    }
}

impl Observer for Console {
    fn log(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None if !self.quiet => progress::log_line(line),
            None => {}
        }
    }
    fn result(&mut self, line: &str) {
        match &self.bar {
            Some(bar) => bar.print_result(line),
            None => progress::out_line(line),
        }
    }
    fn phase_start(&mut self, number: usize, of: usize, phase: &PhasePlan) {
        if let Some(bar) = &self.bar {
            bar.phase_start(number, of, phase);
        }
    }
    fn row(&mut self, row: &SeriesRow) {
        if let Some(bar) = &self.bar {
            bar.row(row);
        }
    }
    fn phase_end(&mut self) {
        if let Some(bar) = &self.bar {
            bar.phase_end();
        }
    }
}

/// Hears nothing.
pub struct Silent;

impl Observer for Silent {}
