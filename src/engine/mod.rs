//! I/O engines: how the op stream reaches the kernel. One [`Engine`] trait; the op stream ([`crate::ops`]),
//! the write data ([`WriteData`]) and the measurement ([`Recorder`]) are the same for every engine, so that
//! engines differ only in the syscalls they make.

mod cadence;
pub mod errors;
pub mod libaio;
pub mod null;
mod pace;
pub mod psync;
mod queue;
mod recorder;
pub mod sim;
pub mod uring;

pub use recorder::{
    Event, HistBudget, IntervalLat, LAG_INTERVALS, NO_RECORD_ENV, Recorder, recording_off,
};

use crate::data::DataGen;
use crate::image::ImageSource;
use crate::ops::{Op, SharedOps};
use crate::stats::trace::TraceBuf;
use crate::stats::{IntervalClock, LatencyRecorder};
use crate::sys::limits::Limit;
use crate::vocab::{Direction, EngineKind, PerDir};
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

/// Where the bytes of write ops come from.
pub enum WriteData {
    /// A data pattern, a function of the op index.
    Pattern(DataGen),
    /// A data pattern with every 512-byte sector stamped for verification (`verify = true`).
    Stamped(DataGen, crate::stamp::Stamp),
    /// An image, at `op.offset - span_start`.
    Image {
        /// The image.
        source: ImageSource,
        /// First byte of the span the image is restored to.
        span_start: u64,
    },
}

impl WriteData {
    /// Fills `buf` (exactly the op's length) with the op's data.
    ///
    /// # Errors
    /// A read error from an image file.
    #[inline(always)]
    pub fn fill(&self, buf: &mut [u8], op: &Op) -> io::Result<()> {
        match self {
            WriteData::Pattern(g) => {
                g.fill(buf, op.index);
                Ok(())
            }
            WriteData::Stamped(g, stamp) => {
                g.fill(buf, op.index);
                stamp.apply(buf, op);
                Ok(())
            }
            WriteData::Image { source, span_start } => source.fill(op.offset - span_start, buf),
        }
    }
}

/// Everything an engine needs to run one phase's I/O.
pub struct Job<'a> {
    /// The target, open (O_DIRECT when the phase says so); `None` for a simulated target and for the
    /// `null` engine, which never touch it (the target is not opened).
    pub file: Option<&'a File>,
    /// The op stream, shared by the engine's workers.
    pub ops: &'a SharedOps,
    /// Write data.
    pub data: &'a WriteData,
    /// I/Os in flight at once.
    pub queue_depth: u32,
    /// Largest op length, bytes (buffer size).
    pub max_len: usize,
    /// Memory alignment of buffers, bytes.
    pub align: usize,
    /// The phase's start: time 0 of completion times and of the series. Set by [`Job::begin`] once the
    /// engine's setup (buffers, rings, threads) is done, so setup never counts as I/O time. Shared by the
    /// jobs of a phase's workers (the first to begin starts the clock of all).
    pub start: &'a OnceLock<Instant>,
    /// Interval bucketing of the series.
    pub clock: IntervalClock,
    /// For time-bounded phases: no I/O is submitted at or after this many ns from `start`.
    pub deadline_ns: Option<u64>,
    /// Rate cap in I/Os per second: op `i` is issued no earlier than `(i − first_index) / rate` s after the
    /// start.
    pub rate_iops: Option<crate::vocab::Rate>,
    /// How the rate cap spaces its issue times (evenly, or Poisson arrivals from a seed), and think time.
    pub arrivals: crate::vocab::Arrivals,
    /// Index of the first op of this run of the stream (after a ramp, the measured part starts later in it).
    pub first_index: u64,
    /// Set by a signal (SIGINT, SIGTERM, SIGHUP) to stop at the next I/O boundary; owned by the caller, only read here.
    pub interrupt: &'a AtomicBool,
    /// Set by a worker whose I/O failed, so the other workers stop too; shared by the jobs of a phase's
    /// workers.
    pub abort: &'a AtomicBool,
    /// Where the jobs of a phase's workers wait for each other, once set up, before the phase clock starts.
    pub start_line: &'a StartLine,
    /// Whether this job reached the start line ([`Job::begin`]); a job whose engine returned without (it
    /// could not start) is counted there by [`Job::leave_start_line`], so the others do not wait for it.
    pub began: AtomicBool,
    /// Number of this job's first recorder: its recorders are `recorder_base..recorder_base + workers()`,
    /// so that several jobs of one phase feed one series.
    pub recorder_base: usize,
    /// This job's share of the rate cap, `(stride, slot)`: its `k`-th op (or read, or write) takes slot
    /// `k · stride + slot` of the cap's evenly spaced issue times; `(1, 0)` for a job alone.
    pub rate_slot: (u64, u64),
    /// The phase's clock: the wall clock (from `start`), or a virtual clock an engine advances (a simulated
    /// target, whose time is its own).
    pub clock_kind: ClockKind,
    /// With a virtual clock: the engine waits after each closed interval until the collector has taken it,
    /// so that a decision the collector makes (steady state reached) stops the engine at the same virtual
    /// time on every run; or, with a lag, until the collector is at most that many intervals behind, so
    /// that the intervals waiting for it take bounded memory.
    pub lockstep: Option<LockStep>,
    /// The latency histograms the phase's recorders may make beyond their first ones, shared by every job
    /// of the phase ([`HistBudget`]).
    pub hist_budget: &'a Arc<HistBudget>,
    /// What a failed I/O does: stop the phase, or be counted while the phase goes on.
    pub on_error: crate::vocab::OnError,
    /// For a block device target, its capacity when it was probed, bytes: after a failed I/O, a device that
    /// now has fewer (a removed device has 0 B) is gone, and the phase stops even with `on_error = "continue"`.
    /// `None` for files and the simulated drive.
    pub device_capacity: Option<u64>,
    /// Completions a queue engine waits for at a time (1 for all but the cases the plan names; it never waits
    /// for more than it has in flight). Above 1, the first completions of a wait are timed when the last
    /// arrives, since a completion is timed when it is reaped.
    pub completions_per_wait: u32,
    /// Whether a queue engine may probe for batched completion waits at the start of the phase (io_uring
    /// with a CPU to spare: `plan::probe_waits`); it keeps them only where they complete more I/Os per second.
    pub probe_waits: bool,
    /// A verify phase's check of the data of every completed read (`None` for other phases).
    pub check: Option<&'a dyn ReadCheck>,
    /// How an io_uring ring polls (`polled`, `sq_poll`); other engines ignore it.
    pub ring: crate::sys::uring::RingSetup,
    /// The per-I/O trace's room, reserved before the phase, one per recorder of the phase (numbered as
    /// [`Job::recorder_base`] numbers them); empty when the phase keeps no trace. Each recorder takes its
    /// own when it is made.
    pub traces: &'a [Mutex<TraceBuf>],
    /// The kernel's per-I/O flags of every write (`RWF_DSYNC`, `RWF_SYNC`; 0 for none): pwritev2's flags
    /// (psync), io_uring's `rw_flags`, AIO's `aio_rw_flags`. Reads and trims carry none.
    pub write_flags: u32,
    /// A flush of the target after every `every` completed writes of this job (`fsync`, `fdatasync`);
    /// `None` for none.
    pub flush: Option<Flush>,
    /// Completed writes of this job, counted only with a [`Job::flush`] (all its threads together).
    pub writes_done: AtomicU64,
}

/// A flush after every `every` completed writes of a job: fsync(2), or fdatasync(2) with `data_only`. The
/// job's `k·every`-th completed write is followed by flush `k` on the thread that completed it, before that
/// thread issues anything else: a job that completes `w` writes flushes exactly `⌊w / every⌋` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flush {
    /// Writes per flush, at least 1.
    pub every: u64,
    /// fdatasync rather than fsync.
    pub data_only: bool,
}

/// The flushes a worker made: how many, and how long each took.
#[derive(Clone, Default)]
pub struct Flushes {
    /// Flushes done.
    pub ops: u64,
    /// Their latencies.
    pub latency: LatencyRecorder,
}

/// Checks the data of completed reads (a verify phase), on the worker's thread, after the read was recorded.
pub trait ReadCheck: Sync {
    /// Checks `data` (exactly `op.len` bytes) read by `op`, which completed at `t_ns` (ns from the phase
    /// start); counts the blocks that do not verify with [`Recorder::mismatches`].
    fn check(&self, op: &Op, data: &[u8], t_ns: u64, rec: &mut Recorder);
}

/// Where a phase's time comes from.
#[derive(Debug, Default)]
pub enum ClockKind {
    /// Monotonic wall-clock time since [`Job::start`].
    #[default]
    Wall,
    /// Virtual nanoseconds since the phase start, set by the engine as it simulates.
    Virtual(AtomicU64),
}

/// Where the workers of a phase meet before the phase clock starts: each arrives once set up (or once it
/// gave up) and waits until all have, so that no worker's setup counts as another's I/O time.
#[derive(Debug, Default)]
pub struct StartLine {
    arrived: Mutex<u32>,
    cv: Condvar,
    workers: u32,
}

impl StartLine {
    /// A start line for `workers` workers.
    pub fn new(workers: u32) -> StartLine {
        StartLine {
            workers,
            ..StartLine::default()
        }
    }

    fn arrive(&self) {
        let mut n = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        self.cv.notify_all();
    }

    /// Waits until every worker arrived, or `stop()` (checked every 10 ms).
    fn wait(&self, stop: impl Fn() -> bool) {
        let mut n = self.arrived.lock().unwrap_or_else(|p| p.into_inner());
        while *n < self.workers && !stop() {
            let tick = std::time::Duration::from_millis(10);
            n = match self.cv.wait_timeout(n, tick) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

/// A counter of events the collector has handled, that an engine can wait on.
#[derive(Debug, Default)]
pub struct LockStep {
    handled: Mutex<u64>,
    cv: Condvar,
    /// Events the engine may be ahead of the collector: 0 to wait for every one.
    lag: u64,
}

impl LockStep {
    /// A lockstep that lets the engine run up to `lag` events ahead of the collector: enough to keep both
    /// busy, few enough that the events waiting in the channel take bounded memory however long the phase.
    pub fn with_lag(lag: u64) -> LockStep {
        LockStep {
            lag,
            ..LockStep::default()
        }
    }

    /// The collector has handled one more event.
    pub fn handled_one(&self) {
        let mut n = self.handled.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        self.cv.notify_all();
    }

    /// Waits until at least `n` events, less the allowed lag, have been handled.
    pub fn wait_for(&self, n: u64) {
        let n = n.saturating_sub(self.lag);
        let mut h = self.handled.lock().unwrap_or_else(|p| p.into_inner());
        while *h < n {
            h = self.cv.wait(h).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Job<'_> {
    /// The recorder of this job's worker `w` (numbered from [`Job::recorder_base`]).
    pub fn recorder(&self, w: usize, events: &Sender<Event>) -> Recorder {
        let r = self.recorder_base + w;
        let trace = self.traces.get(r).map_or_else(TraceBuf::default, |t| {
            std::mem::take(&mut *t.lock().unwrap_or_else(|p| p.into_inner()))
        });
        let mix = &self.ops.stream().mix;
        let to = (events.clone(), Arc::clone(self.hist_budget));
        let rec = Recorder::new(r, self.clock, to, |d| mix.percent(d) > 0, trace);
        match self.scheduled() {
            true => rec.with_intended(),
            false => rec,
        }
    }

    /// The recorder of worker `w` with its histograms allocated ([`Recorder::ready`]), or, when they cannot
    /// be, the outcome of `engine` failing to start for want of that memory.
    pub fn ready_recorder(
        &self,
        w: usize,
        events: &Sender<Event>,
        engine: &'static str,
    ) -> Result<Recorder, Box<Outcome>> {
        let mut rec = self.recorder(w, events);
        match rec.ready() {
            Ok(()) => Ok(rec),
            Err(e) => Err(Box::new(
                self.recorder(w, events)
                    .finish(Some(alloc_error(engine, &e))),
            )),
        }
    }

    /// Starts the phase clock once every worker of the phase is set up (or gave up). Engines call it after
    /// their setup, before the first I/O.
    pub fn begin(&self) {
        if !self.began.swap(true, Ordering::Relaxed) {
            self.start_line.arrive();
            self.start_line.wait(|| self.stopping());
        }
        self.start.get_or_init(Instant::now);
    }

    /// After the engine returned: a job that never began is counted at the start line.
    pub fn leave_start_line(&self) {
        if !self.began.swap(true, Ordering::Relaxed) {
            self.start_line.arrive();
        }
    }

    /// Nanoseconds since the phase clock started (starting it if no engine did); with a virtual clock, the
    /// virtual time the engine has reached.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        match &self.clock_kind {
            ClockKind::Wall => self.start.get_or_init(Instant::now).elapsed().as_nanos() as u64,
            ClockKind::Virtual(t) => t.load(Ordering::Relaxed),
        }
    }

    /// Whether the phase runs on a virtual clock.
    pub fn is_virtual(&self) -> bool {
        matches!(self.clock_kind, ClockKind::Virtual(_))
    }

    /// Sets the virtual clock (no effect on a wall clock).
    #[inline]
    pub fn set_virtual_now(&self, t_ns: u64) {
        if let ClockKind::Virtual(t) = &self.clock_kind {
            t.store(t_ns, Ordering::Relaxed);
        }
    }

    /// With a rate cap: `op`'s slot, ns from the start: when it may be issued (the latest of its slot under
    /// the total cap, its position in this run / total, and under its direction's cap, its position among
    /// this run's reads or writes / that rate) and when its slot ends. Each I/O owns one slot of 1/R s of an
    /// evenly spaced cap; only those whose slot ends within a time bound are issued, so a phase of D s at R
    /// I/Os per second issues at most ⌊D · R⌋. Under Poisson arrivals an I/O's slot is its arrival time, both
    /// start and end. `cur` is the calling thread's walk over the Poisson processes.
    #[inline(always)]
    pub fn slot(&self, op: &Op, cur: &mut crate::vocab::Cursors) -> Option<(u64, u64)> {
        let r = self.rate_iops?;
        let a = &self.arrivals;
        let poisson = a.process == crate::vocab::RateProcess::Poisson;
        let at = |m: u64, rate: u64, c: &mut crate::vocab::PoissonCursor, which: u64| {
            if poisson {
                let t = c.at(a.seed_of(which), rate, m);
                (t, t)
            } else {
                let even = |n: u64| ((n as u128 * 1_000_000_000) / rate as u128) as u64;
                (even(m), even(m + 1))
            }
        };
        let (stride, slot) = self.rate_slot;
        let n = op.index.saturating_sub(self.first_index);
        let mut t = r
            .total
            .map(|rate| at(n * stride + slot, rate, &mut cur.total, 0));
        if let Some(rate) = r.of(op.dir) {
            let s = self.ops.stream();
            let k = s.before(op.dir, op.index) - s.before(op.dir, self.first_index);
            let which = 1 + op.dir as u64;
            let d = at(k * stride + slot, rate, &mut cur.dir[op.dir], which);
            t = Some(t.map_or(d, |t| (t.0.max(d.0), t.1.max(d.1))));
        }
        t
    }

    /// Whether I/Os have intended issue times: under a rate cap or think time. Their latency is then also
    /// measured from that time ([`Recorder::record_intended`]).
    pub fn scheduled(&self) -> bool {
        self.rate_iops.is_some() || self.arrivals.think.is_some()
    }

    /// Whether the phase must stop at the next I/O boundary: interrupted by a signal, or aborted by an error
    /// of another worker.
    #[inline]
    pub fn stopping(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed) || self.abort.load(Ordering::Relaxed)
    }

    /// After a failed I/O (already counted): whether the worker goes on (`on_error = "continue"` and the
    /// error does not mean the device is gone, see [`errors::is_fatal`], nor has the block device shrunk).
    #[inline]
    pub fn goes_on_after(&self, e: &IoError) -> bool {
        self.on_error == crate::vocab::OnError::Continue
            && !errors::is_fatal(e)
            && !self.device_gone()
    }

    /// Whether the block device target has fewer bytes than when it was probed (0 B: removed), or cannot say:
    /// asked only after a failed I/O.
    fn device_gone(&self) -> bool {
        match (self.device_capacity, self.file) {
            (Some(cap), Some(f)) => crate::sys::block::size_bytes(f).map_or(true, |now| now < cap),
            _ => false,
        }
    }

    /// After a completed write: with a [`Job::flush`], counts it and flushes the target when it is the
    /// job's next multiple of `every`, timed into `rec`'s flushes; without, nothing. The `null` engine's
    /// flushes (no target open) are counted, taking no time.
    ///
    /// # Errors
    /// The failed flush, as an I/O error of the write direction with the OS error.
    #[inline]
    pub fn after_write(&self, rec: &mut Recorder) -> Result<(), IoError> {
        match self.flush {
            Some(f)
                if (self.writes_done.fetch_add(1, Ordering::Relaxed) + 1)
                    .is_multiple_of(f.every) =>
            {
                self.flush_now(f, rec)
            }
            _ => Ok(()),
        }
    }

    #[inline(never)]
    fn flush_now(&self, f: Flush, rec: &mut Recorder) -> Result<(), IoError> {
        let t0 = self.now_ns();
        let r = match (self.file, f.data_only) {
            (None, _) => Ok(()),
            (Some(file), true) => file.sync_data(),
            (Some(file), false) => file.sync_all(),
        };
        let t1 = self.now_ns();
        match r {
            Ok(()) => {
                rec.flushed(t1 - t0, t1);
                Ok(())
            }
            Err(e) => Err(IoError {
                dir: Direction::Write,
                offset: 0,
                len: 0,
                cause: IoCause::Flush(if f.data_only { "fdatasync" } else { "fsync" }, e),
            }),
        }
    }

    /// Makes every worker stop at its next I/O boundary (after an I/O error).
    pub fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }
}

/// What an engine returns after the phase's last completion.
pub struct Outcome {
    /// The per-I/O trace kept (`trace = N`; empty without).
    pub trace: TraceBuf,
    /// Each direction's latencies.
    pub latency: PerDir<LatencyRecorder>,
    /// Time of the last completion, ns from `Job::start`.
    pub end_ns: u64,
    /// Completed I/Os per length: `(bytes, ops)`.
    pub sizes: Vec<(u32, u64)>,
    /// The error that stopped the phase: of several workers' errors, the earliest (see `error_ns`).
    pub error: Option<IoError>,
    /// When `error` happened, ns from `Job::start`: the completion time of the failed I/O (a worker stops
    /// at its error, so this is its last clock reading); 0 for an engine that could not start.
    pub error_ns: u64,
    /// Every failed I/O (with `on_error = "continue"`, the phase went on after them).
    pub errors: errors::ErrorTally,
    /// What the phase's results should say about how the engine ran (io_uring without registered
    /// buffers); the same for every worker, so kept once.
    pub warnings: Vec<String>,
    /// How busy the threads that submitted the I/O were over the measured part; `None` for an engine that
    /// does not measure it (the simulated drive, whose time is virtual) or a worker that never started.
    pub submit_cpu: Option<SubmitCpu>,
    /// What the probe for batched completion waits measured and kept (`Job::probe_waits`), when it ran to
    /// its end; `None` otherwise.
    pub waits: Option<crate::vocab::WaitsProbe>,
    /// Under a rate cap or think time: each direction's latencies from the I/O's intended issue time (its
    /// slot under the cap, the end of the think time before its burst) rather than its submission.
    pub from_intended: Option<PerDir<LatencyRecorder>>,
    /// Think times taken (idle periods after a burst).
    pub thinks: u64,
    /// The flushes made (`Job::flush`).
    pub flushes: Flushes,
}

/// The CPU time of the threads that submitted a phase's I/O over their wall time from the phase start to
/// their last completion: near 1, a thread was busy all along, and wkrun (the host) may have set the pace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubmitCpu {
    /// The busiest thread's CPU time over its wall time, 0..=1.
    pub busiest: f64,
    /// The largest share of its wall time a thread spent runnable but waiting for a CPU, 0..=1; `None` where
    /// the kernel does not say ([`crate::sys::cpu::thread_run_delay_ns`]).
    pub waited: Option<f64>,
    /// Threads measured.
    pub threads: u32,
}

impl SubmitCpu {
    /// One thread that used `cpu_ns` of CPU time and waited `waited_ns` for a CPU in `wall_ns` (a fraction
    /// over 1, from the clocks' granularity, is 1; no wall time is 0).
    pub fn of(cpu_ns: u64, waited_ns: Option<u64>, wall_ns: u64) -> SubmitCpu {
        let share = |ns: u64| {
            if wall_ns == 0 {
                0.0
            } else {
                (ns as f64 / wall_ns as f64).min(1.0)
            }
        };
        SubmitCpu {
            busiest: share(cpu_ns),
            waited: waited_ns.map(share),
            threads: 1,
        }
    }

    /// Both threads' measures together: the busier one's fraction, the threads counted.
    fn merge(self, o: SubmitCpu) -> SubmitCpu {
        SubmitCpu {
            busiest: self.busiest.max(o.busiest),
            waited: match (self.waited, o.waited) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
            threads: self.threads + o.threads,
        }
    }
}

impl Outcome {
    /// An outcome with nothing measured and `error`, if any: the start of a merge of workers' outcomes, or
    /// an engine that stopped before its first I/O.
    pub fn new(error: Option<IoError>) -> Outcome {
        Outcome {
            trace: TraceBuf::default(),
            latency: PerDir::default(),
            end_ns: 0,
            sizes: Vec::new(),
            error,
            error_ns: 0,
            errors: Default::default(),
            warnings: Vec::new(),
            submit_cpu: None,
            waits: None,
            from_intended: None,
            thinks: 0,
            flushes: Flushes::default(),
        }
    }

    /// Adds another worker's outcome. Of two errors the earlier one wins (on a tie, the one already here),
    /// by the same rule as [`errors::ErrorTally::merge`] keeps the first failed I/O, so that with
    /// `on_error = "stop"` the phase's error and `errors.first` name the same I/O.
    pub fn merge(&mut self, o: Outcome) {
        self.trace.merge(o.trace);
        self.latency.absorb(o.latency, LatencyRecorder::absorb);
        self.end_ns = self.end_ns.max(o.end_ns);
        for (len, n) in o.sizes {
            match self.sizes.iter_mut().find(|e| e.0 == len) {
                Some(e) => e.1 += n,
                None => self.sizes.push((len, n)),
            }
        }
        if o.error.is_some() && (self.error.is_none() || o.error_ns < self.error_ns) {
            self.error = o.error;
            self.error_ns = o.error_ns;
        }
        self.errors.merge(o.errors);
        self.thinks += o.thinks;
        match (&mut self.from_intended, o.from_intended) {
            (Some(a), Some(b)) => a.absorb(b, LatencyRecorder::absorb),
            (a, b) => *a = a.take().or(b),
        }
        self.flushes.ops += o.flushes.ops;
        self.flushes.latency.merge(&o.flushes.latency);
        self.submit_cpu = match (self.submit_cpu, o.submit_cpu) {
            (Some(a), Some(b)) => Some(a.merge(b)),
            (a, b) => a.or(b),
        };
        // Only a phase with one worker probes.
        if self.waits.is_none() {
            self.waits = o.waits;
        }
        for w in o.warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }
}

/// An engine that could not start: `why`, as the phase's error.
pub fn setup_error(engine: &'static str, why: io::Error) -> IoError {
    IoError {
        dir: Direction::Write,
        offset: 0,
        len: 0,
        cause: IoCause::Setup(engine, why),
    }
}

/// Memory an engine needed (its I/O buffers) could not be allocated: the error names what and how much, and
/// the address-space limit when one is set.
pub fn alloc_error(engine: &'static str, e: &crate::buf::AllocError) -> IoError {
    let msg = format!("{e}{}", Limit::AddressSpace.note());
    setup_error(engine, io::Error::new(io::ErrorKind::OutOfMemory, msg))
}

/// A thread an engine needed (`what`: "queue-slot thread 39 of 64") could not be started: the error names it,
/// the OS error and the limit on processes and threads when one is set (or the address-space limit, as a
/// thread's stack is memory too).
pub fn spawn_error(engine: &'static str, what: &str, e: &io::Error) -> IoError {
    let limits = format!(
        "{}{}{}",
        Limit::Processes.note(),
        crate::sys::limits::cgroup_pids_note(),
        Limit::AddressSpace.note()
    );
    let msg = format!("cannot start {what}: {}{limits}", os_text(e));
    setup_error(engine, io::Error::new(e.kind(), msg))
}

/// A failed I/O: which op, where, how long, and the OS error (or a short transfer); or an engine that
/// could not start.
#[derive(Debug, thiserror::Error)]
pub struct IoError {
    /// The op's direction.
    pub dir: Direction,
    /// Byte offset on the target.
    pub offset: u64,
    /// Bytes requested.
    pub len: u32,
    /// What happened.
    pub cause: IoCause,
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let IoCause::Setup(..) | IoCause::Limit(_) | IoCause::Flush(..) = self.cause {
            return write!(f, "{}", self.cause);
        }
        let op = self.dir.name();
        write!(
            f,
            "{op} of {} B at offset {} failed: {}",
            self.len, self.offset, self.cause
        )
    }
}

/// Why an I/O failed.
#[derive(Debug, thiserror::Error)]
pub enum IoCause {
    /// The syscall failed: its message and errno, e.g. "Input/output error (errno 5)".
    #[error("{}", os_text(.0))]
    Os(io::Error),
    /// The syscall transferred fewer bytes than asked.
    #[error("short transfer: {0} B")]
    Short(usize),
    /// A flush (`fsync`/`fdatasync` every N writes) failed: which, and the OS error.
    #[error("{what} failed: {msg}", what = .0, msg = os_text(.1))]
    Flush(&'static str, io::Error),
    /// Write data could not be produced (image file read failed).
    #[error("reading the image: {0}")]
    Data(io::Error),
    /// The engine could not start (no AIO context, io_uring unavailable): what failed, and the OS error.
    #[error("the {engine} engine could not start: {msg}", engine = .0, msg = os_text(.1))]
    Setup(&'static str, io::Error),
    /// The phase ran past a limit of the run (a simulated phase past its maximum virtual length).
    #[error("{0}")]
    Limit(String),
}

/// An OS error as `"<message> (errno N)"`.
fn os_text(e: &io::Error) -> String {
    crate::sys::os_text(e)
}

/// What an engine can do: the layers above ask these, never the engine's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// It issues I/O to the target (false for `null`, which completes every I/O at once without a syscall).
    pub does_io: bool,
    /// It opens the target on this host (false for `null` and for the simulated drive's engine).
    pub opens_target: bool,
    /// One thread per queue slot, each claiming ops from the shared stream (`psync`); otherwise one thread
    /// keeps the whole queue and claims whole chunks.
    pub thread_per_slot: bool,
    /// Its time is virtual (the simulated drive's clock), not the wall clock.
    pub virtual_clock: bool,
    /// With several workers that fit on the CPUs wkrun may use, worker w is pinned to the w-th of them
    /// (`io_uring`: a ring's io-wq kernel workers inherit its submitter's pin, so that each submitter and the
    /// kernel thread doing its I/O stay on one CPU, apart from the others: zram, 2 workers × QD32 random
    /// writes, 338k to 357k IOPS pinned against 205k to 328k unpinned). The others are not pinned: the
    /// scheduler places them, as it does fio's jobs; a `libaio` worker pinned away from the CPU that handles
    /// its device's interrupt was woken by IPI for its completions and could not leave a CPU another process
    /// kept busy (virtio disk: 2.55 to 3.14 µs of CPU per I/O pinned, 1.93 to 2.62 unpinned). Both in
    /// benches/README.md, "Workers not pinned".
    pub pins_workers: bool,
    /// With several workers, each worker past the first gets an open file of its own on the target (the
    /// run's held file opened again: `target::open::Held::open_again`), where each I/O system call takes a
    /// reference on its file (`libaio`'s io_submit, `psync`'s pread/pwrite): on one file shared by the
    /// workers' threads, that reference's cache line moves between their CPUs at every I/O. Not `io_uring`,
    /// whose ring uses its registered file without a reference per I/O.
    pub file_per_worker: bool,
}

/// The capabilities of an engine kind.
pub fn caps(kind: EngineKind) -> Caps {
    let host = Caps {
        does_io: true,
        opens_target: true,
        thread_per_slot: false,
        virtual_clock: false,
        pins_workers: false,
        file_per_worker: true,
    };
    match kind {
        EngineKind::Psync => Caps {
            thread_per_slot: true,
            ..host
        },
        EngineKind::Libaio => host,
        EngineKind::IoUring => Caps {
            pins_workers: true,
            file_per_worker: false,
            ..host
        },
        EngineKind::Null => Caps {
            does_io: false,
            opens_target: false,
            file_per_worker: false,
            ..host
        },
        EngineKind::Sim => Caps {
            opens_target: false,
            file_per_worker: false,
            virtual_clock: true,
            ..host
        },
    }
}

/// The engine of a kind. The simulated drive's engine needs its drive (`sim`); the others need nothing.
///
/// # Errors
/// The simulated drive's engine asked for without a drive.
pub fn new<'a>(
    kind: EngineKind,
    sim: Option<sim::Sim<'a>>,
) -> Result<Box<dyn Engine + Sync + 'a>, String> {
    Ok(match kind {
        EngineKind::Psync => Box::new(psync::Psync),
        EngineKind::Libaio => Box::new(libaio::Libaio),
        EngineKind::IoUring => Box::new(uring::Uring),
        EngineKind::Null => Box::new(null::Null),
        EngineKind::Sim => Box::new(sim.ok_or("the sim engine runs only on a simulated drive")?),
    })
}

/// An I/O engine. Implementations keep exactly `queue_depth` I/Os in flight until the op stream is exhausted,
/// the deadline passes or `stop` is set, record every completion through a [`Recorder`] (one per worker,
/// numbered `0..workers()`), and send the recorder's events to the given channel.
pub trait Engine {
    /// Name as in specs (`"psync"`).
    fn name(&self) -> &'static str;
    /// Number of recorders (workers) the engine uses for a job: the series waits for all of them. One unless
    /// the engine says otherwise (a loop from one thread).
    fn workers(&self, _job: &Job<'_>) -> usize {
        1
    }
    /// Runs the job to its end.
    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome;
}

#[cfg(test)]
mod tests {
    use super::LockStep;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn the_start_line_waits_for_every_worker_or_a_stop() {
        let line = Arc::new(super::StartLine::new(2));
        let passed = Arc::new(AtomicBool::new(false));
        let t = {
            let (line, passed) = (Arc::clone(&line), Arc::clone(&passed));
            std::thread::spawn(move || {
                line.arrive();
                line.wait(|| false);
                passed.store(true, Ordering::SeqCst);
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert!(!passed.load(Ordering::SeqCst), "one of two arrived: waits");
        // The other worker gave up (its engine returned without beginning): counted, the first goes.
        line.arrive();
        t.join().expect("waiter");
        assert!(passed.load(Ordering::SeqCst));
        // A stop lets a waiter go without the others.
        let alone = super::StartLine::new(3);
        alone.arrive();
        alone.wait(|| true);
    }

    #[test]
    fn lockstep_with_a_lag_waits_only_beyond_it() {
        let ls = Arc::new(LockStep::with_lag(2));
        // Two events ahead of the collector: no wait.
        ls.wait_for(2);
        // A third must wait for one to be handled.
        let passed = Arc::new(AtomicBool::new(false));
        let t = {
            let (ls, passed) = (Arc::clone(&ls), Arc::clone(&passed));
            std::thread::spawn(move || {
                ls.wait_for(3);
                passed.store(true, Ordering::SeqCst);
            })
        };
        assert!(
            !passed.load(Ordering::SeqCst),
            "3 events, lag 2, none handled: waits"
        );
        ls.handled_one();
        t.join().expect("waiter");
        assert!(passed.load(Ordering::SeqCst));
        // Without a lag, every event is waited for.
        let strict = LockStep::default();
        strict.handled_one();
        strict.wait_for(1);
    }
}
