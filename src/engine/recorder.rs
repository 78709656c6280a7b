//! Per-worker measurement on the I/O path: one clock value per completion goes into the worker's own
//! latency histograms and current interval; a closed interval is sent to the series collector once.

use super::errors::ErrorTally;
use super::{IoError, Outcome};
use crate::stats::{IntervalClock, IntervalCounts, LatencyRecorder};
use crate::vocab::{Direction, PerDir};
use std::sync::mpsc::Sender;
use std::time::Instant;

/// Messages from workers to the series collector.
#[derive(Debug, Clone)]
pub enum Event {
    /// Worker `worker` closed interval `index` with `counts`; it now records into interval `now_in`
    /// (`u64::MAX` when finished).
    Closed {
        /// Worker number.
        worker: usize,
        /// Interval closed.
        index: u64,
        /// Its counts.
        counts: IntervalCounts,
        /// The worker's current interval.
        now_in: u64,
    },
}

/// Environment variable that turns per-I/O recording off when set to `1`, to measure what recording costs
/// (benches/README.md). Not a spec key and not for measurements: with it, completions are only counted
/// (ops and bytes per direction, in the interval the worker was last in), no latency is kept, and the
/// results carry a warning saying so.
pub const NO_RECORD_ENV: &str = "WKRUN_BENCH_NO_RECORD";

/// Whether [`NO_RECORD_ENV`] is set to `1` (read from the environment at each call).
pub fn recording_off() -> bool {
    std::env::var_os(NO_RECORD_ENV).is_some_and(|v| v == "1")
}

/// A worker's recorder. Not shared: no atomics or locks on the I/O path.
pub struct Recorder {
    worker: usize,
    clock: IntervalClock,
    cur: u64,
    /// End of interval `cur`, ns: completions before it belong to `cur` without a division.
    cur_end_ns: u64,
    /// Per-I/O recording (latency histograms, the series by completion time); off only for benchmarks.
    on: bool,
    counts: IntervalCounts,
    /// Each direction's latencies.
    pub latency: PerDir<LatencyRecorder>,
    /// Latest completion time, ns.
    pub last_ns: u64,
    /// Completed I/Os per length: `(bytes, ops)`, in order of first appearance.
    sizes: Vec<(u32, u64)>,
    /// Failed I/Os.
    errors: ErrorTally,
    /// Flushes (`fsync`/`fdatasync` every N writes).
    flushes: super::Flushes,
    tx: Sender<Event>,
    sent: u64,
    /// The thread's CPU time (ns) and the wall clock when it started submitting ([`Recorder::start_cpu`]).
    cpu_start: Option<(u64, Instant)>,
}

impl Recorder {
    /// A recorder for worker `worker`.
    pub fn new(worker: usize, clock: IntervalClock, tx: Sender<Event>) -> Recorder {
        Recorder {
            worker,
            clock,
            cur: 0,
            cur_end_ns: clock.end_of(0),
            on: !recording_off(),
            counts: IntervalCounts::default(),
            latency: PerDir::default(),
            last_ns: 0,
            sizes: Vec::new(),
            errors: ErrorTally::default(),
            flushes: super::Flushes::default(),
            tx,
            sent: 0,
            cpu_start: None,
        }
    }

    /// Records a completion of `bytes` at `t_ns` (from the phase start) that took `lat_ns`.
    #[inline(always)]
    pub fn record(&mut self, dir: Direction, bytes: u64, lat_ns: u64, t_ns: u64) {
        if self.on {
            if t_ns >= self.cur_end_ns {
                let k = self.clock.index_of(t_ns);
                if k != self.cur {
                    self.close(k);
                }
            }
            self.counts[dir].add(bytes, lat_ns);
            self.latency[dir].record(lat_ns);
        } else {
            let counts = &mut self.counts[dir];
            counts.ops += 1;
            counts.bytes += bytes;
        }
        self.last_ns = self.last_ns.max(t_ns);
        let len = bytes as u32;
        match self.sizes.iter_mut().find(|e| e.0 == len) {
            Some(e) => e.1 += 1,
            None => self.sizes.push((len, 1)),
        }
    }

    /// Records a flush that ended at `t_ns` and took `lat_ns` (not an I/O of any direction: it has no
    /// bytes, and the series does not count it).
    pub fn flushed(&mut self, lat_ns: u64, t_ns: u64) {
        self.flushes.ops += 1;
        if self.on {
            self.flushes.latency.record(lat_ns);
        }
        self.last_ns = self.last_ns.max(t_ns);
    }

    /// Records an I/O that failed at `t_ns`: counted in the phase's errors and in the interval's `errors`.
    pub fn fail(&mut self, e: &IoError, t_ns: u64) {
        let k = self.clock.index_of(t_ns);
        if k != self.cur {
            self.close(k);
        }
        self.counts.errors += 1;
        self.last_ns = self.last_ns.max(t_ns);
        self.errors.add(e, t_ns);
    }

    /// Records `n` blocks of a read at `offset` that did not verify (a verify phase), at `t_ns`.
    pub fn mismatches(&mut self, offset: u64, len: u32, n: u64, what: &str, t_ns: u64) {
        if n == 0 {
            return;
        }
        let k = self.clock.index_of(t_ns);
        if k != self.cur {
            self.close(k);
        }
        self.counts.errors += n;
        self.errors.add_mismatches(offset, len, n, what, t_ns);
    }

    /// Tells the collector that no completion of this worker will fall before `t_ns` (used by engines whose
    /// workers wait, so that rows are not held back by an idle worker).
    pub fn advance(&mut self, t_ns: u64) {
        let k = self.clock.index_of(t_ns);
        if k > self.cur {
            self.close(k);
        }
    }

    fn close(&mut self, now_in: u64) {
        let counts = std::mem::take(&mut self.counts);
        // The collector outlives the workers; a send can only fail if it is gone, and then nobody needs rows.
        let _ = self.tx.send(Event::Closed {
            worker: self.worker,
            index: self.cur,
            counts,
            now_in,
        });
        self.sent += 1;
        self.cur = now_in;
        self.cur_end_ns = self.clock.end_of(now_in);
    }

    /// Events sent to the collector so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// The interval this recorder is recording into.
    pub fn current_interval(&self) -> u64 {
        self.cur
    }

    /// Notes the thread's CPU time and the wall clock as the worker starts submitting (right after the phase
    /// clock starts), so that [`Recorder::finish`] can tell how busy the thread was. Once per worker.
    #[inline(never)]
    pub fn start_cpu(&mut self) {
        self.cpu_start = crate::sys::cpu::thread_cpu_ns()
            .ok()
            .map(|c| (c, Instant::now()));
    }

    /// Closes the current interval, tells the collector this worker is done, and returns what it measured
    /// with the error that stopped it, if any. The error's time is the worker's last clock reading (its
    /// failed I/O's completion: a worker stops at its error). Never inlined: called once per worker, it
    /// would only make the I/O loop around it bigger (and its hot calls less likely to be inlined).
    #[inline(never)]
    pub fn finish(mut self, error: Option<IoError>) -> Outcome {
        let submit_cpu = self.cpu_start.and_then(|(cpu0, wall0)| {
            let cpu = crate::sys::cpu::thread_cpu_ns().ok()?;
            let wall = u64::try_from(wall0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            Some(super::SubmitCpu::of(cpu.saturating_sub(cpu0), wall))
        });
        self.close(u64::MAX);
        Outcome {
            latency: self.latency,
            end_ns: self.last_ns,
            sizes: self.sizes,
            error,
            error_ns: self.last_ns,
            errors: self.errors,
            warnings: Vec::new(),
            submit_cpu,
            waits: None,
            flushes: self.flushes,
        }
    }
}
