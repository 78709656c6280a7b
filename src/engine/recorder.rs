//! Per-worker measurement on the I/O path: one clock value per completion goes into the worker's own
//! current interval (its counts and a latency histogram per direction); a closed interval is sent to the
//! series collector once. Each latency is recorded into one histogram, the interval's: when the interval
//! closes, its histograms are added to the worker's phase histograms and sent to the collector, which adds
//! them to the row's and sends them back emptied. The recorder takes those back for its next intervals, so
//! after setup the I/O path allocates no histogram while the collector is at most one interval behind.
//! When it falls further behind, a recorder makes a histogram only while the phase's [`HistBudget`] lasts;
//! past it, the recorder *folds*: it keeps recording into the histograms it has, across interval ends, and
//! sends each closed interval's counts (exact) with a note that its latencies come with a later interval's
//! ([`IntervalLat::folded`]). So the histograms in flight, and the memory of a phase, are bounded whatever
//! its duration, and an I/O thread never waits for the collector.

use super::errors::ErrorTally;
use super::{IoError, Outcome};
use crate::stats::latency::{Hist, new_histogram, record_n_into, try_new_histogram};
use crate::stats::trace::{TraceBuf, TraceRow};
use crate::stats::{IntervalClock, IntervalCounts, LatencyRecorder};
use crate::vocab::{Direction, PerDir};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SendError, Sender, channel};
use std::time::Instant;

/// How many intervals the series collector may fall behind a recorder before the recorder folds: the
/// histograms the recorders of a phase may make beyond the ones each makes at setup are this many per
/// recorder and direction issued ([`HistBudget::for_recorders`]; each is about 270 KiB: 1 ns to 1 hour at
/// 3 digits).
pub const LAG_INTERVALS: usize = 4;

/// The histograms the recorders of a phase may still make, shared by them.
#[derive(Debug)]
pub struct HistBudget(AtomicUsize);

impl HistBudget {
    /// A budget of `n` histograms.
    pub fn new(n: usize) -> HistBudget {
        HistBudget(AtomicUsize::new(n))
    }

    /// Sets the budget to [`LAG_INTERVALS`] histograms for each of `recorders` recorders and each of the
    /// `dirs` directions they issue (before the first is made).
    pub fn for_recorders(&self, recorders: usize, dirs: usize) {
        self.0.store(
            LAG_INTERVALS * recorders.max(1) * dirs.max(1),
            Ordering::Relaxed,
        );
    }

    /// Takes one histogram from the budget: whether there was one.
    fn take(&self) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }
}

impl Default for HistBudget {
    /// One recorder's of two directions.
    fn default() -> HistBudget {
        HistBudget::new(LAG_INTERVALS * 2)
    }
}

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
    /// Each direction's histogram of the interval (`None`: no completion of that direction), and of the
    /// intervals from [`IntervalLat::first`] on when the recorder folded them into it.
    pub hists: PerDir<Option<Hist>>,
    /// The first interval the histograms hold latencies of: the closed interval's own index, or an earlier
    /// one's when the recorder folded (the histograms then hold every latency from that interval on).
    pub first: u64,
    /// The recorder folded: this interval's latencies (and `hists` is empty) come with a later interval's
    /// histograms, whose [`IntervalLat::first`] is at or before this interval.
    pub folded: bool,
    /// Where the emptied histograms go back, to be recorded into again ([`IntervalLat::recycle`]).
    back: Sender<Hist>,
}

impl IntervalLat {
    /// Empties the histograms and sends them back to their recorder (dropped if it has finished).
    pub fn recycle(self) {
        for mut h in self.hists.0.into_iter().flatten() {
            // One moved into its row is empty already ([`crate::stats::row_latency::RowLatency::add`]).
            if !h.is_empty() {
                h.reset();
            }
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

/// Completions recorded one after another that are equal in what is added up: `n` of direction `dir`, of
/// `bytes` each, completed at `t_ns` after `lat_ns` (a batch a queue reaped with one clock reading, of I/Os
/// it submitted together). Empty with `n` = 0.
#[derive(Debug, Clone, Copy)]
struct Run {
    dir: Direction,
    bytes: u64,
    lat_ns: u64,
    t_ns: u64,
    n: u64,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            dir: Direction::Read,
            bytes: 0,
            lat_ns: 0,
            t_ns: 0,
            n: 0,
        }
    }
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
    /// The directions the job issues, whose histograms [`Recorder::ready`] makes before the I/O.
    wanted: PerDir<bool>,
    /// Emptied histograms, sent back by the collector (and made by [`Recorder::ready`]: one per direction issued).
    spares: Receiver<Hist>,
    /// The sending side of `spares`, handed to the collector with each closed interval.
    back: Sender<Hist>,
    /// The per-I/O trace (`trace = N`), when the phase keeps one.
    trace: Option<TraceBuf>,
    /// Histograms made after setup, because none had come back from the collector yet.
    made: u64,
    /// The histograms the phase's recorders may still make.
    budget: Arc<HistBudget>,
    /// While folding: the first interval whose latencies are in `lat_now` (not yet sent).
    fold_from: Option<u64>,
    /// The completions recorded but not yet added up: a run of equal ones.
    run: Run,
    /// Each direction's latencies.
    pub latency: PerDir<LatencyRecorder>,
    /// Each direction's latencies from the intended issue time, for a phase with a schedule.
    intended: Option<PerDir<LatencyRecorder>>,
    /// Think times taken.
    pub thinks: u64,
    /// Latest completion time added up, ns (with the current run's: [`Recorder::last_ns`]).
    last_ns: u64,
    /// Completed I/Os per length: `(bytes, ops)`, in order of first appearance.
    sizes: Vec<(u32, u64)>,
    /// Failed I/Os.
    errors: ErrorTally,
    /// Flushes (`fsync`/`fdatasync` every N writes).
    flushes: super::Flushes,
    tx: Sender<Event>,
    sent: u64,
    /// The thread's CPU time (ns) and the wall clock when it started submitting ([`Recorder::start_cpu`]).
    cpu_start: Option<(u64, Option<u64>, Instant)>,
}

impl Recorder {
    /// A recorder for worker `worker` of a job that issues the directions `issued`, keeping a trace of its
    /// first `trace` completions (none: 0, the default), making histograms beyond its first ones from
    /// `budget`.
    pub fn new(
        worker: usize,
        clock: IntervalClock,
        (tx, budget): (Sender<Event>, Arc<HistBudget>),
        issued: impl Fn(Direction) -> bool,
        trace: TraceBuf,
    ) -> Recorder {
        let on = !recording_off();
        let (back, spares) = channel();
        let wanted = PerDir::from_fn(|d| on && issued(d));
        Recorder {
            worker,
            clock,
            cur: 0,
            cur_end_ns: clock.end_of(0),
            on,
            counts: IntervalCounts::default(),
            lat_now: PerDir::default(),
            wanted,
            spares,
            back,
            trace: (trace.cap() > 0).then_some(trace),
            made: 0,
            budget,
            fold_from: None,
            run: Run::default(),
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
    ///
    /// A queue reaps completions in batches that share one clock reading, and those submitted together
    /// share their latency too: a completion equal to the one before it (direction, length, latency and
    /// time) only extends the current run, which is added up once, when a different completion comes
    /// or before anything reads or closes the interval. The counts, sums, extremes and histograms are the
    /// same as when each completion is added alone (integers: `n` additions of `x` are `n · x`).
    #[inline(always)]
    pub fn record(&mut self, dir: Direction, offset: u64, bytes: u64, lat_ns: u64, t_ns: u64) {
        if self.on
            && let Some(t) = &mut self.trace
        {
            t.push(TraceRow {
                t_ns,
                lat_ns,
                offset,
                len: bytes as u32,
                dir,
            });
        }
        let r = &mut self.run;
        if r.n > 0 && r.t_ns == t_ns && r.lat_ns == lat_ns && r.bytes == bytes && r.dir == dir {
            r.n += 1;
            return;
        }
        self.start_run(dir, bytes, lat_ns, t_ns);
    }

    /// Adds up the current run and starts one with the completion given, in the interval of its time
    /// (closing the current one when that time is past it).
    #[inline(never)]
    fn start_run(&mut self, dir: Direction, bytes: u64, lat_ns: u64, t_ns: u64) {
        self.add_run();
        if self.on && t_ns >= self.cur_end_ns {
            let k = self.clock.index_of(t_ns);
            if k != self.cur {
                self.close(k);
            }
        }
        self.run = Run {
            dir,
            bytes,
            lat_ns,
            t_ns,
            n: 1,
        };
    }

    /// Adds the current run's completions to the interval's counts, the latencies and the sizes, as if
    /// each had been added alone; the run is then empty.
    #[inline]
    fn add_run(&mut self) {
        let Run {
            dir,
            bytes,
            lat_ns,
            t_ns,
            n,
        } = std::mem::take(&mut self.run);
        if n == 0 {
            return;
        }
        if self.on {
            self.counts[dir].add_n(bytes, lat_ns, n);
            self.latency[dir].note_n(lat_ns, n);
            match &mut self.lat_now[dir] {
                Some(h) => record_n_into(h, lat_ns, n),
                None => self.first_of(dir, lat_ns, n),
            }
        } else {
            let counts = &mut self.counts[dir];
            counts.ops += n;
            counts.bytes += bytes * n;
        }
        self.last_ns = self.last_ns.max(t_ns);
        let len = bytes as u32;
        match self.sizes.iter_mut().find(|e| e.0 == len) {
            Some(e) => e.1 += n,
            None => self.sizes.push((len, n)),
        }
    }

    /// The latest completion time recorded, ns from the phase start.
    pub fn last_ns(&self) -> u64 {
        self.last_ns.max(self.run.t_ns)
    }

    /// Allocates the latency histograms before the phase's I/O (each direction's, and from the intended
    /// issue time when kept), so that recording allocates nothing and memory that is short fails the
    /// phase's setup rather than the process.
    ///
    /// # Errors
    /// [`AllocError`](crate::buf::AllocError) when a histogram cannot be allocated.
    pub fn ready(&mut self) -> Result<(), crate::buf::AllocError> {
        if !self.on {
            return Ok(());
        }
        for (d, now) in self.lat_now.iter_mut() {
            if self.wanted[d] && now.is_none() {
                *now = Some(try_new_histogram()?);
                let _ = self.back.send(try_new_histogram()?);
            }
        }
        for (_, l) in self.latency.iter_mut() {
            *l = LatencyRecorder::try_new()?;
        }
        if let Some(i) = self.intended.as_mut() {
            for (_, l) in i.iter_mut() {
                *l = LatencyRecorder::try_new()?;
            }
        }
        Ok(())
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

    /// The first completion of a direction the job was not expected to issue: its histogram is made now
    /// (beyond the budget if need be: once per direction).
    #[cold]
    #[inline(never)]
    fn first_of(&mut self, dir: Direction, lat_ns: u64, n: u64) {
        let mut h = self.spare().unwrap_or_else(new_histogram);
        record_n_into(&mut h, lat_ns, n);
        self.lat_now[dir] = Some(h);
    }

    /// An emptied histogram sent back by the collector, or a new one from the budget when none is back.
    fn spare(&mut self) -> Option<Hist> {
        if let Ok(h) = self.spares.try_recv() {
            return Some(h);
        }
        if !self.budget.take() {
            return None;
        }
        // Short of memory (an address-space limit), the recorder folds as when the budget is spent.
        let h = try_new_histogram().ok()?;
        self.made += 1;
        Some(h)
    }

    /// The histograms of the interval closing (and of the intervals folded into them), each added to the
    /// phase's and swapped for an empty one; `None` for a direction without a completion. With too few
    /// empty ones (the collector is behind, the budget spent), the recorder folds: it keeps them and says
    /// so. The last interval (`now_in` = `u64::MAX`) needs none.
    fn take_lat(&mut self, now_in: u64) -> IntervalLat {
        let full = |h: &Option<Hist>| h.as_ref().is_some_and(|h| !h.is_empty());
        let mut fresh: Vec<Hist> = Vec::new();
        if now_in != u64::MAX {
            let needed = self.lat_now.0.iter().filter(|h| full(h)).count();
            for _ in 0..needed {
                match self.spare() {
                    Some(h) => fresh.push(h),
                    None => {
                        for h in fresh {
                            let _ = self.back.send(h);
                        }
                        let first = *self.fold_from.get_or_insert(self.cur);
                        return IntervalLat {
                            hists: PerDir::default(),
                            first,
                            folded: true,
                            back: self.back.clone(),
                        };
                    }
                }
            }
        }
        let mut hists = PerDir::default();
        for (d, now) in self.lat_now.iter_mut() {
            if !full(now) {
                continue;
            }
            let h = now.take().unwrap_or_else(new_histogram);
            self.latency[d].absorb_hist(&h);
            *now = fresh.pop();
            hists[d] = Some(h);
        }
        IntervalLat {
            hists,
            first: self.fold_from.take().unwrap_or(self.cur),
            folded: false,
            back: self.back.clone(),
        }
    }

    #[inline(never)]
    fn close(&mut self, now_in: u64) {
        self.add_run();
        let counts = std::mem::take(&mut self.counts);
        let lat = self.take_lat(now_in);
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
            .map(|c| (c, crate::sys::cpu::thread_run_delay_ns(), Instant::now()));
    }

    /// Closes the current interval, tells the collector this worker is done, and returns what it measured
    /// with the error that stopped it, if any. The error's time is the worker's last clock reading (its
    /// failed I/O's completion: a worker stops at its error). Never inlined: called once per worker, it
    /// would only make the I/O loop around it bigger (and its hot calls less likely to be inlined).
    #[inline(never)]
    pub fn finish(mut self, error: Option<IoError>) -> Outcome {
        let submit_cpu = self.cpu_start.and_then(|(cpu0, delay0, wall0)| {
            let cpu = crate::sys::cpu::thread_cpu_ns().ok()?;
            let delay = crate::sys::cpu::thread_run_delay_ns();
            let waited = delay.zip(delay0).map(|(d1, d0)| d1.saturating_sub(d0));
            let wall = u64::try_from(wall0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            Some(super::SubmitCpu::of(cpu.saturating_sub(cpu0), waited, wall))
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

    /// Completions recorded in runs of equal ones (a reaped batch: one time, one latency) add up exactly
    /// as each alone: every interval's counts, and each direction's phase latencies (count, mean, stddev,
    /// extremes, percentiles, buckets) against a recorder given one latency at a time, with runs broken by
    /// a latency, a direction, a length and a time that differ, and by an interval boundary.
    #[test]
    fn runs_of_equal_completions_add_up_as_each_alone() {
        use crate::stats::LatencyRecorder;
        let clock = IntervalClock {
            interval_ns: 1_000,
            bound_ns: None,
        };
        let (tx, rx) = channel();
        let both = |d: Direction| d != Direction::Trim;
        let budget = Arc::new(HistBudget::new(8));
        let mut r = Recorder::new(0, clock, (tx, budget), both, TraceBuf::default());
        r.ready().expect("room for the histograms");
        let (rd, wr) = (Direction::Read, Direction::Write);
        // (direction, bytes, latency ns, time ns, how many in a row)
        let batches = [
            (rd, 4096, 300, 400, 32),
            (rd, 4096, 300, 700, 31),
            (rd, 4096, 280, 700, 1),
            (wr, 4096, 280, 700, 5),
            (wr, 8192, 280, 700, 2),
            (rd, 4096, 300, 999, 7),
            (rd, 4096, 300, 1_000, 9),
            (rd, 4096, 0, 1_200, 3),
            (wr, 4096, 5_000, 2_500, 4),
        ];
        let mut oracle: PerDir<LatencyRecorder> = PerDir::default();
        // Per interval: (read ops, read bytes, read latency sum, write ops, write bytes, write latency sum).
        let mut want = [[0u64; 6]; 3];
        for &(d, bytes, lat, t, n) in &batches {
            for i in 0..n {
                r.record(d, i * bytes, bytes, lat, t);
                oracle[d].record(lat);
                let w = &mut want[(t / 1_000) as usize][if d == rd { 0 } else { 3 }..];
                w[0] += 1;
                w[1] += bytes;
                w[2] += lat;
            }
        }
        let out = r.finish(None);
        let mut got = [[0u64; 6]; 3];
        while let Ok(Event::Closed { index, counts, .. }) = rx.try_recv() {
            let (a, b) = (counts[rd], counts[wr]);
            got[index as usize] = [
                a.ops,
                a.bytes,
                a.lat_sum_ns as u64,
                b.ops,
                b.bytes,
                b.lat_sum_ns as u64,
            ];
        }
        // By hand: interval 0 has 32 + 31 + 1 + 7 reads and 5 + 2 writes; interval 1 has 12 reads; 2 has 4
        // writes.
        assert_eq!(want[0][..2], [71, 71 * 4096]);
        assert_eq!(want[0][3..5], [7, 5 * 4096 + 2 * 8192]);
        assert_eq!(got, want);
        for d in [rd, wr] {
            assert_eq!(out.latency[d].count(), oracle[d].count());
            assert_eq!(out.latency[d].summary(), oracle[d].summary(), "{d}");
            assert_eq!(out.latency[d].buckets(), oracle[d].buckets(), "{d}");
        }
        assert_eq!(out.sizes, vec![(4096, 92), (8192, 2)]);
        assert_eq!(out.end_ns, 2_500);
    }

    /// A recorder of reads over 50 intervals: with the collector sending each interval's histograms back,
    /// it makes none after setup; with nobody sending them back, it makes the 3 of its budget and then
    /// folds: each interval's counts still come alone and exact, and the histograms it sends hold exactly
    /// the reads of the intervals from their `first` on, folded ones included.
    #[test]
    fn histograms_come_back_or_the_recorder_folds_within_its_budget() {
        let clock = IntervalClock {
            interval_ns: 1_000,
            bound_ns: None,
        };
        for collector_keeps_up in [true, false] {
            let (tx, rx) = channel();
            let reads = |d: Direction| d == Direction::Read;
            let budget = Arc::new(HistBudget::new(3));
            let mut r = Recorder::new(0, clock, (tx, budget), reads, TraceBuf::default());
            r.ready().expect("room for the histograms");
            let mut kept = Vec::new();
            // Per event: (index, ops, folded, first, histogram count).
            let mut seen: Vec<(u64, u64, bool, u64, u64)> = Vec::new();
            let mut drain = |r: Option<Recorder>| {
                while let Ok(Event::Closed {
                    index, lat, counts, ..
                }) = rx.try_recv()
                {
                    let n = lat.hists[Direction::Read].as_ref().map_or(0, |h| h.len());
                    seen.push((index, counts[Direction::Read].ops, lat.folded, lat.first, n));
                    match collector_keeps_up {
                        true => lat.recycle(),
                        false => kept.push(lat),
                    }
                }
                r
            };
            for k in 0..50u64 {
                // Interval k has k % 3 + 1 reads.
                for i in 0..=k % 3 {
                    r.record(Direction::Read, 0, 4096, 100 + k, k * 1_000 + 10 + i);
                }
                r = drain(Some(r)).expect("the recorder");
            }
            let made = r.made;
            let out = r.finish(None);
            drain(None);
            let reads: u64 = (0..50u64).map(|k| k % 3 + 1).sum();
            assert_eq!(out.latency[Direction::Read].count(), reads);
            assert_eq!(
                out.latency[Direction::Read].summary().map(|s| s.max),
                Some(149)
            );
            assert_eq!(seen.len(), 50, "one event per interval");
            let mut owed = 0;
            for (j, &(index, ops, folded, first, n)) in seen.iter().enumerate() {
                assert_eq!(
                    (index, ops),
                    (j as u64, j as u64 % 3 + 1),
                    "counts stay exact"
                );
                owed += ops;
                match folded {
                    true => assert_eq!(n, 0, "interval {index}: folded, no histogram"),
                    false => {
                        let from: u64 = (first..=index).map(|k| k % 3 + 1).sum();
                        assert_eq!((n, owed), (from, from), "interval {index} from {first}");
                        owed = 0;
                    }
                }
            }
            let folds = seen.iter().filter(|e| e.2).count();
            match collector_keeps_up {
                true => assert_eq!((made, folds), (0, 0)),
                // The spare made at setup and 3 from the budget carry 4 intervals; every later one but
                // the last (which needs no empty histogram after it) folds.
                false => assert_eq!((made, folds), (3, 45)),
            }
        }
    }
}
