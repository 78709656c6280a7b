//! Per-worker measurement on the I/O path: one clock value per completion goes into the worker's own
//! current interval (its counts and a latency histogram per direction); a closed interval is sent to the
//! series collector once. Each latency is recorded into one histogram, the interval's: when the interval
//! closes, its histograms are added to the worker's phase histograms and sent to the collector, which adds
//! them to the row's and sends them back emptied. The recorder takes those back for its next intervals, so
//! after setup the I/O path allocates no histogram while the collector is at most one interval behind
//! (one more is made for each interval it falls further behind, and kept).

use super::errors::ErrorTally;
use super::{IoError, Outcome};
use crate::stats::latency::{Hist, new_histogram, record_into};
use crate::stats::trace::{TraceBuf, TraceRow};
use crate::stats::{IntervalClock, IntervalCounts, LatencyRecorder};
use crate::vocab::{Direction, PerDir};
use std::sync::mpsc::{Receiver, SendError, Sender, channel};
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
        /// Its latencies per direction (`None` for a direction without a completion in it).
        lat: IntervalLat,
    },
}

/// A closed interval's latency histograms, and where to send them back once the collector has added them up.
#[derive(Debug, Clone)]
pub struct IntervalLat {
    /// Each direction's histogram of the interval (`None`: no completion of that direction).
    pub hists: PerDir<Option<Hist>>,
    /// Where the emptied histograms go back, to be recorded into again ([`IntervalLat::recycle`]).
    back: Sender<Hist>,
}

impl IntervalLat {
    /// Empties the histograms and sends them back to their recorder (dropped if it has finished).
    pub fn recycle(self) {
        for mut h in self.hists.0.into_iter().flatten() {
            h.reset();
            let _ = self.back.send(h);
        }
    }
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
    /// The current interval's latency histogram of each direction the job issues (`None` for the others,
    /// until one completes).
    lat_now: PerDir<Option<Hist>>,
    /// Emptied histograms, sent back by the collector (and made at setup: one per direction issued).
    spares: Receiver<Hist>,
    /// The sending side of `spares`, handed to the collector with each closed interval.
    back: Sender<Hist>,
    /// The per-I/O trace (`trace = N`), when the phase keeps one.
    trace: Option<TraceBuf>,
    /// Histograms made after setup, because none had come back from the collector yet.
    made: u64,
    /// Each direction's latencies.
    pub latency: PerDir<LatencyRecorder>,
    /// Each direction's latencies from the intended issue time, for a phase with a schedule.
    intended: Option<PerDir<LatencyRecorder>>,
    /// Think times taken.
    pub thinks: u64,
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
    /// A recorder for worker `worker` of a job that issues the directions `issued`, keeping a trace of its
    /// first `trace` completions (none: 0, the default).
    pub fn new(
        worker: usize,
        clock: IntervalClock,
        tx: Sender<Event>,
        issued: impl Fn(Direction) -> bool,
        trace: TraceBuf,
    ) -> Recorder {
        let on = !recording_off();
        let (back, spares) = channel();
        let lat_now = PerDir::from_fn(|d| (on && issued(d)).then(new_histogram));
        for _ in lat_now.0.iter().flatten() {
            let _ = back.send(new_histogram());
        }
        Recorder {
            worker,
            clock,
            cur: 0,
            cur_end_ns: clock.end_of(0),
            on,
            counts: IntervalCounts::default(),
            lat_now,
            spares,
            back,
            trace: (trace.cap() > 0).then_some(trace),
            made: 0,
            latency: PerDir::default(),
            intended: None,
            thinks: 0,
            last_ns: 0,
            sizes: Vec::new(),
            errors: ErrorTally::default(),
            flushes: super::Flushes::default(),
            tx,
            sent: 0,
            cpu_start: None,
        }
    }

    /// Records a completion of `bytes` at `offset` at `t_ns` (from the phase start) that took `lat_ns`.
    #[inline(always)]
    pub fn record(&mut self, dir: Direction, offset: u64, bytes: u64, lat_ns: u64, t_ns: u64) {
        if self.on {
            if t_ns >= self.cur_end_ns {
                let k = self.clock.index_of(t_ns);
                if k != self.cur {
                    self.close(k);
                }
            }
            self.counts[dir].add(bytes, lat_ns);
            self.latency[dir].note(lat_ns);
            match &mut self.lat_now[dir] {
                Some(h) => record_into(h, lat_ns),
                None => self.first_of(dir, lat_ns),
            }
            if let Some(t) = &mut self.trace {
                t.push(TraceRow {
                    t_ns,
                    lat_ns,
                    offset,
                    len: bytes as u32,
                    dir,
                });
            }
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

    /// The same recorder, also keeping latencies from the intended issue time ([`Recorder::record_intended`]).
    pub fn with_intended(mut self) -> Recorder {
        self.intended = Some(PerDir::default());
        self
    }

    /// Records a completion's latency from its intended issue time (after [`Recorder::record`]; nothing
    /// without [`Recorder::with_intended`] or with recording off).
    #[inline(always)]
    pub fn record_intended(&mut self, dir: Direction, lat_ns: u64) {
        if self.on
            && let Some(i) = self.intended.as_mut()
        {
            i[dir].record(lat_ns);
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

    /// The first completion of a direction the job was not expected to issue: its histogram is made now.
    #[cold]
    #[inline(never)]
    fn first_of(&mut self, dir: Direction, lat_ns: u64) {
        let mut h = self.spare();
        record_into(&mut h, lat_ns);
        self.lat_now[dir] = Some(h);
    }

    /// An emptied histogram sent back by the collector, or a new one when none is back.
    fn spare(&mut self) -> Hist {
        self.spares.try_recv().unwrap_or_else(|_| {
            self.made += 1;
            new_histogram()
        })
    }

    /// The current interval's histograms, each added to the phase's, swapped for an empty one (sent back by
    /// the collector, or made when none is back yet); `None` for a direction without a completion.
    fn take_lat(&mut self) -> IntervalLat {
        let mut hists = PerDir::default();
        for (d, now) in self.lat_now.iter_mut() {
            let Some(h) = now.as_mut().filter(|h| !h.is_empty()) else {
                continue;
            };
            self.latency[d].absorb(h);
            let fresh = match self.spares.try_recv() {
                Ok(h) => h,
                Err(_) => {
                    self.made += 1;
                    new_histogram()
                }
            };
            hists[d] = Some(std::mem::replace(h, fresh));
        }
        IntervalLat {
            hists,
            back: self.back.clone(),
        }
    }

    #[inline(never)]
    fn close(&mut self, now_in: u64) {
        let counts = std::mem::take(&mut self.counts);
        let lat = self.take_lat();
        // The collector outlives the workers; a send fails only when nobody collects (a ramp): then the
        // histograms come straight back.
        if let Err(SendError(Event::Closed { lat, .. })) = self.tx.send(Event::Closed {
            worker: self.worker,
            index: self.cur,
            counts,
            now_in,
            lat,
        }) {
            lat.recycle();
        }
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
        let trace = self.trace.take().unwrap_or_default();
        Outcome {
            trace,
            latency: self.latency,
            end_ns: self.last_ns,
            sizes: self.sizes,
            error,
            error_ns: self.last_ns,
            errors: self.errors,
            warnings: Vec::new(),
            submit_cpu,
            waits: None,
            from_intended: self.intended,
            thinks: self.thinks,
            flushes: self.flushes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorder of reads over 50 intervals: with the collector sending each interval's histograms back,
    /// it makes none after setup; with nobody sending them back, one per interval after its spare.
    #[test]
    fn histograms_come_back_and_none_is_made_while_the_collector_keeps_up() {
        let clock = IntervalClock {
            interval_ns: 1_000,
            bound_ns: None,
        };
        for collector_keeps_up in [true, false] {
            let (tx, rx) = channel();
            let reads = |d: Direction| d == Direction::Read;
            let mut r = Recorder::new(0, clock, tx, reads, TraceBuf::default());
            let mut kept = Vec::new();
            for k in 0..50u64 {
                r.record(Direction::Read, 0, 4096, 100 + k, k * 1_000 + 10);
                while let Ok(Event::Closed {
                    index, lat, counts, ..
                }) = rx.try_recv()
                {
                    let h = lat.hists[Direction::Read]
                        .as_ref()
                        .expect("a read histogram");
                    assert_eq!(
                        (h.len(), counts[Direction::Read].ops),
                        (1, 1),
                        "interval {index}"
                    );
                    match collector_keeps_up {
                        true => lat.recycle(),
                        false => kept.push(lat),
                    }
                }
            }
            let made = r.made;
            let out = r.finish(None);
            assert_eq!(out.latency[Direction::Read].count(), 50);
            assert_eq!(
                out.latency[Direction::Read].summary().map(|s| s.max),
                Some(149)
            );
            assert_eq!(made, if collector_keeps_up { 0 } else { 48 });
        }
    }
}
