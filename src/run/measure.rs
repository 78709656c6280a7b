//! Measuring a phase that issues I/O (fill, restore-image, workload, and the reads of a verify phase): the
//! engine on worker threads, the series collector on this thread writing each CSV row as soon as every
//! worker has closed its interval.

use super::Env;
use super::observer::Observer;
use super::series_files::SeriesFiles;
use crate::data::DataGen;
use crate::engine::{
    self, ClockKind, Event, IoCause, IoError, Job, LockStep, Outcome, ReadCheck, StartLine,
    WriteData,
};
use crate::image::ImageSource;
use crate::ops::zones::ZoneWrites;
use crate::ops::{OpStream, SharedOps};
use crate::plan::{
    Bound, IoSettings, Measure, PhasePlan, Work, WorkerPlan, WriteSource, image_path,
};
use crate::results::hlog::HistLogWriter;
use crate::results::judge::{Judged, Rows};
use crate::results::outdir::OutDir;
use crate::results::series_csv::{self, SeriesRow, SeriesWriter};
use crate::sim::DeviceCounters;
use crate::stats::latency::LatencySummary;
use crate::stats::row_latency::{MAX_WAITING_ROWS, RowHists, RowLatency, Taken};
use crate::stats::trace::{TraceBuf, TraceRow, share};
use crate::stats::{IntervalClock, IntervalCounts, Series};
use crate::sys;
use crate::target::TargetInfo;
use crate::vocab::{DataPattern, Direction, PerDir, ZoneMode};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::Instant;

/// What an I/O phase produced.
pub struct IoOutcome {
    /// Latencies and end time from the engine.
    pub outcome: Outcome,
    /// Rows written to the CSV.
    pub rows: u64,
    /// Totals of the series (equal to the engine's counts).
    pub totals: crate::stats::IntervalCounts,
    /// When the measured part started, after a ramp (RFC 3339); `None` without a ramp.
    pub measured_started_at: Option<String>,
    /// Per worker, the op index where the measured part started in its stream: the ops the ramp claimed (0
    /// without).
    pub first_op: Vec<u64>,
    /// What its full rows gave: per-row IOPS, the steady-state verdict, the splits.
    pub judged: Judged,
    /// Whether the phase ended because steady state was reached (`until = "steady"`).
    pub ended_at_steady: bool,
    /// On a simulated target: the drive's internals during the measured part.
    pub device: Option<DeviceCounters>,
    /// Zone-aware writes (`zone_mode = "zbd"`): what they did to the zones.
    pub zones: Option<crate::ops::zones::ZoneCounts>,
    /// Zone-aware writes: why a zone could not be reset (the phase stopped there).
    pub zone_error: Option<String>,
    /// Each worker's share, in worker order (their counts sum to `totals`).
    pub workers: Vec<WorkerTotals>,
    /// Wall clock of t = 0 of the series, ns since the Unix epoch; `None` on a virtual clock.
    pub t0_unix_ns: Option<u64>,
    /// A row of the series CSV (or the simulated drive's CSV) that could not be written (a full disk): the
    /// phase ran to its end and its totals stand, but the run fails with this.
    pub csv_error: Option<SetupError>,
    /// The histogram log's name (`NN-<phase>.hlog`), when the phase wrote one.
    pub hist_log: Option<String>,
    /// The per-I/O trace kept (`trace = N`): its rows in completion order and the completions dropped past
    /// the cap; `None` without a trace.
    pub trace: Option<(Vec<TraceRow>, u64)>,
    /// The host's and the device's counters over the measured part ([`super::counters`]).
    pub counters: Option<super::counters::Totals>,
    /// The run was stopped (a signal) during the phase's ramp: nothing was measured.
    pub ramp_stopped: bool,
}

/// What one worker of an I/O phase did: the totals of its part of the series and its latencies.
#[derive(Debug, Clone, Default)]
pub struct WorkerTotals {
    /// Its completed I/Os and bytes per direction (and its failed I/Os).
    pub counts: IntervalCounts,
    /// Its latencies per direction.
    pub latency: PerDir<Option<LatencySummary>>,
    /// Its last completion, ns from the phase's t = 0 (0 when it completed nothing).
    pub end_ns: u64,
    /// Its flushes (`fsync`, `fdatasync`).
    pub flushes: u64,
}

/// Why an I/O phase could not run at all: what was being opened or written, and the OS error.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}{}", crate::sys::limits::errno_note(source))]
pub struct SetupError {
    /// What was being opened or written.
    pub what: String,
    /// The OS error.
    pub source: io::Error,
}

fn setup(what: String) -> impl FnOnce(io::Error) -> SetupError {
    move |source| SetupError { what, source }
}

/// Where a phase's series CSV goes: the run's output folder and the file's name in it.
#[derive(Clone, Copy)]
pub struct CsvOut<'a> {
    /// The run's output folder.
    pub dir: &'a OutDir,
    /// The series CSV's name (`NN-<phase>.csv`).
    pub name: &'a str,
}

impl CsvOut<'_> {
    /// The CSV's path, for messages.
    fn path(&self) -> PathBuf {
        self.dir.join(self.name)
    }

    /// Creates the CSV with its header: columns for reads, writes and any other direction of `mix`.
    fn create(&self, mix: &crate::ops::Mix) -> Result<SeriesWriter, SetupError> {
        let dirs = series_csv::directions(|d| mix.percent(d) > 0);
        SeriesWriter::create(self.dir, self.name, dirs)
            .map_err(setup(format!("cannot create {}", self.path().display())))
    }

    /// The histogram log's name: the CSV's with `.hlog` for `.csv`.
    fn hlog_name(&self) -> String {
        format!(
            "{}.hlog",
            self.name.strip_suffix(".csv").unwrap_or(self.name)
        )
    }

    /// Creates the histogram log beside the CSV, with the CSV's directions.
    fn create_hlog(&self, mix: &crate::ops::Mix) -> Result<HistLogWriter, SetupError> {
        let dirs = series_csv::directions(|d| mix.percent(d) > 0);
        let name = self.hlog_name();
        HistLogWriter::create(self.dir, &name, dirs).map_err(setup(format!(
            "cannot create {}",
            self.dir.join(&name).display()
        )))
    }
}

/// The shape of an I/O phase, the same for fills, restores, workloads and verify reads.
struct Shape<'a> {
    io: &'a IoSettings,
    writes: Option<&'a WriteSource>,
    bound: Bound,
    measure: &'a Measure,
    stream: OpStream,
    /// The workers as the plan deals them out, with their op streams.
    workers: Vec<(WorkerPlan, OpStream)>,
    /// Per-I/O durability of the writes.
    sync: crate::vocab::SyncWrites,
    /// A flush after every N writes of each worker.
    flush: Option<engine::Flush>,
}

impl Shape<'_> {
    /// The kernel's flags of every write (`sync`).
    fn write_flags(&self) -> u32 {
        match self.sync {
            crate::vocab::SyncWrites::None => 0,
            crate::vocab::SyncWrites::Dsync => crate::sys::file::RWF_DSYNC,
            crate::vocab::SyncWrites::Sync => crate::sys::file::RWF_SYNC,
        }
    }
}

/// Everything a phase's jobs share: the open target, the write data of each worker, the op stream's sharers.
struct Parts<'a> {
    file: Option<&'a File>,
    /// The open files of workers 1.. of their own ([`engine::Caps::file_per_worker`]); worker 0, and any
    /// worker without one, uses `file`.
    own_files: Vec<File>,
    data: Vec<WriteData>,
    sharers: u32,
    max_len: usize,
    align: usize,
    stop: &'a AtomicBool,
    virtual_clock: bool,
    /// A block device target's probed capacity ([`Job::device_capacity`]).
    device_capacity: Option<u64>,
    /// Zone-aware writes (`zone_mode = "zbd"`): the zones of the span and their write pointers.
    zones: Option<Arc<ZoneWrites>>,
}

/// The zones of `stream`'s span on the zoned device `target` open as `f`, with their write pointers as the
/// device reports them now; a full zone is reset through `f`.
fn zone_writes(
    target: &TargetInfo,
    stream: &OpStream,
    f: &File,
) -> Result<Arc<ZoneWrites>, SetupError> {
    let what = || format!("cannot report the zones of {}", target.path.display());
    let zone_size = target.zoned.as_ref().map_or(0, |z| z.zone_size_bytes);
    if zone_size == 0 {
        return Err(SetupError {
            what: what(),
            source: io::Error::other("internal error: the target has no zones"),
        });
    }
    let report =
        sys::block::report_zones(f, stream.span_start, stream.span_len).map_err(setup(what()))?;
    let zones: Vec<(u64, u64)> = report.iter().map(|z| (z.capacity, z.written)).collect();
    let fd = f.as_raw_fd();
    let reset = Box::new(move |start, len| sys::block::reset_zones(&fd, start, len));
    Ok(Arc::new(ZoneWrites::new(
        stream.span_start,
        zone_size,
        &zones,
        reset,
    )))
}

/// Runs the I/O of `phase` and writes its series to `csv`; `check` sees the data of every read (a verify
/// phase). Each worker of the phase gets its own engine instance and job, run on its own thread; their
/// recorders feed one series. A simulated target runs on the drive's virtual clock and also writes the
/// drive's internals per interval next to the series, as `NN-<phase>.device.csv`.
///
/// # Errors
/// [`SetupError`] when the target, image or CSV cannot be opened or written. I/O errors during the phase are
/// in the outcome (`outcome.error`), with the rows written so far.
pub fn run(
    env: &Env<'_>,
    phase: &PhasePlan,
    csv: CsvOut<'_>,
    check: Option<&dyn ReadCheck>,
    obs: &mut dyn Observer,
) -> Result<IoOutcome, SetupError> {
    let none = Measure::default();
    let Some(shape) = shape(phase, &none) else {
        return Err(SetupError {
            what: format!("phase {} does no I/O", phase.name),
            source: io::Error::other("internal error: not an I/O phase"),
        });
    };
    let parts = parts(env, phase, &shape)?;
    let device_csv = series_csv::device_file_name(phase.index, &phase.name);
    let csv_error = Mutex::new(None);
    let slots = sim_slots(env, &parts);
    let new_engine = |csv| {
        let sim = env.sim.map(|device| engine::sim::Sim {
            device,
            slots: slots.unwrap_or(1),
            device_csv: csv,
            csv_error: &csv_error,
        });
        engine::new(shape.io.engine, sim).map_err(|e| SetupError {
            what: format!("phase {}", phase.name),
            source: io::Error::other(e),
        })
    };
    let n = shape.workers.len();
    let ramp = match shape.measure.ramp_ns {
        Some(ramp_ns) => {
            let engines = (0..n)
                .map(|_| new_engine(None))
                .collect::<Result<Vec<_>, _>>()?;
            Some(run_ramp(&shape, &parts, ramp_ns, &engines))
        }
        None => None,
    };
    // A stop during the ramp ends the phase before its measured part: it measured nothing.
    if ramp
        .as_ref()
        .is_some_and(|r| r.error.is_none() && parts.stopped())
    {
        return ramp_ended((csv, &shape.stream.mix), ramp, None, None);
    }
    let measured_started_at = ramp.as_ref().map(|_| crate::run::now_rfc3339());
    let (first, ramp_errors) = match ramp {
        Some(mut r) => match r.error.take() {
            Some(e) => {
                return ramp_ended(
                    (csv, &shape.stream.mix),
                    Some(r),
                    Some(e),
                    measured_started_at,
                );
            }
            None => (r.first, r.errors),
        },
        None => (vec![0; shape.workers.len()], Default::default()),
    };
    let device_before = env.sim.map(|d| lock(d).counters());
    let device_file = match env.sim {
        Some(_) => Some(create_csv(csv.dir, &device_csv)?),
        None => None,
    };
    // One engine per worker; only the first writes a simulated drive's CSV (a simulated drive has one).
    let engines = (0..n)
        .map(|w| new_engine(device_file.as_ref().filter(|_| w == 0)))
        .collect::<Result<Vec<_>, _>>()?;
    // The counters' first reading, before the engines set up: no I/O of the measured part escapes it. None
    // on a virtual clock (the simulated drive's time is not the host's).
    let sampler = match parts.virtual_clock {
        true => None,
        false => Some(counters_before(env, phase, csv.dir)?),
    };
    let mut out = measure(&shape, &parts, (&first, check), &engines, csv, obs, sampler)?;
    // The ramp's I/Os are not measured, but its failed I/Os are counted.
    out.outcome.errors.merge(ramp_errors);
    out.measured_started_at = measured_started_at;
    out.first_op = first;
    if let Some(e) = lock(&csv_error).take()
        && out.csv_error.is_none()
    {
        out.csv_error = Some(SetupError {
            what: format!("cannot write {}", csv.dir.join(&device_csv).display()),
            source: crate::sys::limits::explain_file_size(e),
        });
    }
    // The engine moved the drive's clock to the phase's end (its bound, for a time-bounded phase).
    out.device = env
        .sim
        .zip(device_before)
        .map(|(d, before)| lock(d).counters().since(&before));
    Ok(out)
}

/// How many I/Os a simulated drive holds at once for the phase's data (a restored image is taken as
/// incompressible); `None` on a real target.
fn sim_slots(env: &Env<'_>, parts: &Parts<'_>) -> Option<u32> {
    env.sim.map(|device| {
        let pattern = match &parts.data[0] {
            WriteData::Pattern(g) | WriteData::Stamped(g, _) => g.pattern(),
            WriteData::Image { .. } => DataPattern::Random,
        };
        lock(device).slots_for(pattern)
    })
}

/// Creates the CSV `name` in the run's folder.
fn create_csv(dir: &OutDir, name: &str) -> Result<std::fs::File, SetupError> {
    dir.create(name)
        .map_err(setup(format!("cannot create {}", dir.join(name).display())))
}

/// The counters' first reading, before the engines set up, and their CSV created.
fn counters_before(
    env: &Env<'_>,
    phase: &PhasePlan,
    dir: &OutDir,
) -> Result<super::counters::Sampler, SetupError> {
    let name = crate::results::counters::file_name(phase.index, &phase.name);
    super::counters::Sampler::before(&env.plan.target, dir, name.clone()).map_err(setup(format!(
        "cannot create {}",
        dir.join(&name).display()
    )))
}

/// An engine instance, one per worker.
type EngineBox<'a> = Box<dyn engine::Engine + Sync + 'a>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The shape of an I/O phase; `None` for an erase.
fn shape<'a>(phase: &'a PhasePlan, none: &'a Measure) -> Option<Shape<'a>> {
    let stream = phase.op_stream()?;
    let workers = phase
        .workers()
        .into_iter()
        .filter_map(|w| Some((w, phase.worker_stream(&w)?)))
        .collect();
    Some(match &phase.work {
        Work::Erase(_) => return None,
        Work::Io(w) => Shape {
            io: &w.io,
            writes: Some(&w.writes),
            bound: w.bound,
            measure: &w.measure,
            stream,
            workers,
            sync: w.sync,
            flush: w.flush.map(|f| engine::Flush {
                every: f.every,
                data_only: f.data_only,
            }),
        },
        Work::Verify(v) => Shape {
            io: &v.io,
            writes: None,
            bound: v.bound(),
            measure: none,
            stream,
            workers,
            sync: crate::vocab::SyncWrites::None,
            flush: None,
        },
    })
}

/// The target held for the run (when the engine opens it) with O_DIRECT set as the phase says, the write data
/// and the op stream's sharing.
fn parts<'a>(env: &Env<'a>, phase: &PhasePlan, shape: &Shape<'_>) -> Result<Parts<'a>, SetupError> {
    let io = shape.io;
    let caps = engine::caps(io.engine);
    let target = &env.plan.target;
    let file = match (caps.opens_target, env.target) {
        (false, _) => None,
        (true, Some(held)) => {
            held.set_direct(io.direct).map_err(setup(format!(
                "cannot {} O_DIRECT on {}",
                if io.direct { "use" } else { "turn off" },
                target.path.display()
            )))?;
            Some(held.file())
        }
        (true, None) => {
            return Err(SetupError {
                what: format!("{} is not open for the run", target.path.display()),
                source: io::Error::other("internal error: no held target"),
            });
        }
    };
    let own_files = match (file, env.target) {
        (Some(_), Some(held)) if caps.file_per_worker => open_again(held, io.direct, shape)?,
        _ => Vec::new(),
    };
    let data = shape
        .workers
        .iter()
        .map(|(w, _)| write_data(env, phase, shape, w.seed))
        .collect::<Result<Vec<_>, _>>()?;
    let zones = match (io.zone_mode, file) {
        (ZoneMode::Zbd, Some(f)) => Some(zone_writes(target, &shape.stream, f)?),
        _ => None,
    };
    Ok(Parts {
        zones,
        file,
        own_files,
        data,
        // Threads sharing a worker's op stream (the engine's one thread then claims whole chunks, not one
        // sequential op at a time).
        sharers: crate::plan::stream_sharers(io.engine, io.queue_depth),
        max_len: shape.stream.sizes.max() as usize,
        align: (target.logical_block_size as usize).max(4096),
        stop: env.stop,
        virtual_clock: caps.virtual_clock,
        device_capacity: (target.kind == crate::target::TargetKind::Block)
            .then_some(target.capacity_bytes),
    })
}

/// The held target opened again for each worker of the phase past the first, with O_DIRECT when `direct`
/// ([`crate::target::open::Held::open_again`]); none without `/proc` (they share the held file).
fn open_again(
    held: &crate::target::open::Held,
    direct: bool,
    shape: &Shape<'_>,
) -> Result<Vec<File>, SetupError> {
    let mut files = Vec::new();
    for w in 1..shape.workers.len() {
        let what = || format!("cannot open {} again for worker {w}", held.path().display());
        match held.open_again(direct).map_err(setup(what()))? {
            Some(f) => files.push(f),
            None => return Ok(Vec::new()),
        }
    }
    Ok(files)
}

/// Where a worker's write bytes come from: the phase's image, or its data pattern from the worker's `seed`
/// (stamped with that seed when verified).
fn write_data(
    env: &Env<'_>,
    phase: &PhasePlan,
    shape: &Shape<'_>,
    seed: u64,
) -> Result<WriteData, SetupError> {
    let io = shape.io;
    let (pattern, stamped) = match shape.writes {
        Some(WriteSource::Image { image, .. }) => {
            let source = if image == "synthetic" {
                ImageSource::Synthetic(io.seed)
            } else {
                let path = image_path(&env.plan.spec_path, image);
                ImageSource::File(
                    open_image(&path)
                        .map_err(setup(format!("cannot open the image {}", path.display())))?,
                )
            };
            return Ok(WriteData::Image {
                source,
                span_start: phase.span.start,
            });
        }
        // A read-only phase writes nothing: no random pool to build.
        _ if shape.stream.mix.percent(Direction::Write) == 0 => (DataPattern::Zeros, false),
        Some(WriteSource::Data { pattern, stamped }) => (*pattern, *stamped),
        None => (DataPattern::Zeros, false),
    };
    let g = DataGen::try_new(pattern, seed, io.largest_block() as usize).map_err(|e| {
        let msg = format!("{e}{}", crate::sys::limits::Limit::AddressSpace.note());
        SetupError {
            what: "the write data".to_string(),
            source: io::Error::new(io::ErrorKind::OutOfMemory, msg),
        }
    })?;
    Ok(match stamped {
        true => WriteData::Stamped(
            g,
            crate::stamp::Stamp {
                phase: phase.index as u32,
                seed,
            },
        ),
        false => WriteData::Pattern(g),
    })
}

/// What the jobs of a phase's workers share: the start line, the phase clock and the abort flag; and the
/// threads they start ([`super::limits::phase_threads`]).
struct Together {
    start_line: StartLine,
    start: OnceLock<Instant>,
    abort: AtomicBool,
    hist_budget: std::sync::Arc<crate::engine::HistBudget>,
    threads: u64,
    /// Whether the workers are pinned, each to a CPU of its own ([`engine::Caps::pins_workers`]).
    pins_workers: bool,
}

impl Together {
    fn new(shape: &Shape<'_>) -> Together {
        let workers = shape.workers.len() as u32;
        Together {
            start_line: StartLine::new(workers),
            start: OnceLock::new(),
            abort: AtomicBool::new(false),
            hist_budget: Default::default(),
            threads: super::limits::phase_threads(shape.io.engine, workers, shape.io.queue_depth),
            pins_workers: engine::caps(shape.io.engine).pins_workers,
        }
    }
}

impl Parts<'_> {
    /// Worker `w`'s job over `ops`, bounded by `bound_ns`, its recorders numbered from `recorder_base`.
    fn job<'j>(
        &'j self,
        shape: &Shape<'_>,
        (w, ops, recorder_base): (usize, &'j SharedOps, usize),
        bound_ns: Option<u64>,
        together: &'j Together,
    ) -> Job<'j> {
        Job {
            file: w
                .checked_sub(1)
                .and_then(|o| self.own_files.get(o))
                .or(self.file),
            ops,
            data: &self.data[w],
            queue_depth: shape.io.queue_depth,
            max_len: self.max_len,
            align: self.align,
            start: &together.start,
            start_line: &together.start_line,
            began: AtomicBool::new(false),
            clock: IntervalClock {
                interval_ns: shape.io.interval_ns,
                bound_ns,
            },
            deadline_ns: bound_ns,
            rate_iops: shape.measure.rate_iops,
            arrivals: shape.measure.arrivals,
            first_index: 0,
            interrupt: self.stop,
            abort: &together.abort,
            recorder_base,
            rate_slot: shape.workers[w].0.rate_slot(),
            clock_kind: match self.virtual_clock {
                true => ClockKind::Virtual(AtomicU64::new(0)),
                false => ClockKind::Wall,
            },
            lockstep: None,
            hist_budget: &together.hist_budget,
            on_error: shape.io.on_error,
            device_capacity: self.device_capacity,
            completions_per_wait: shape.io.completions_per_wait,
            probe_waits: shape.io.probe_waits,
            check: None,
            ring: crate::sys::uring::RingSetup {
                iopoll: shape.io.polled,
                sqpoll: shape.io.sq_poll,
            },
            traces: &[],
            write_flags: shape.write_flags(),
            flush: shape.flush,
            writes_done: AtomicU64::new(0),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The jobs of every worker over their shared streams `ops`; each engine tells how many recorders its job
/// uses, and the next job's recorders are numbered after them.
fn jobs<'j>(
    shape: &Shape<'_>,
    parts: &'j Parts<'_>,
    (ops, engines): (&'j [SharedOps], &[EngineBox<'_>]),
    bound_ns: Option<u64>,
    together: &'j Together,
) -> (Vec<Job<'j>>, Vec<usize>) {
    let mut base = 0;
    let mut bases = Vec::with_capacity(ops.len());
    let jobs = ops
        .iter()
        .zip(engines)
        .enumerate()
        .map(|(w, (ops, engine))| {
            let job = parts.job(shape, (w, ops, base), bound_ns, together);
            bases.push(base);
            base += engine.workers(&job);
            job
        })
        .collect();
    bases.push(base);
    (jobs, bases)
}

/// Runs every worker's job on its engine to its end and returns their outcomes, in worker order. One
/// worker runs on this thread; several run on a thread each, pinned to a CPU of their own when the engine
/// pins its workers ([`engine::Caps::pins_workers`]) and they fit on the CPUs this process may use (a
/// worker's threads inherit the pin); otherwise the scheduler places them.
fn run_workers(
    jobs: &[Job<'_>],
    engines: &[EngineBox<'_>],
    together: &Together,
    tx: &mpsc::Sender<Event>,
) -> Vec<Outcome> {
    if let Some(e) = address_space_short(jobs, engines, together.threads) {
        for job in jobs {
            job.abort();
            job.leave_start_line();
        }
        let mut out = vec![Outcome::new(Some(e))];
        out.extend((1..jobs.len()).map(|_| Outcome::new(None)));
        return out;
    }
    if let ([job], [engine]) = (jobs, engines) {
        let o = engine.run(job, tx);
        job.leave_start_line();
        return vec![o];
    }
    let cpus = match together.pins_workers {
        true => crate::sys::cpu::allowed_cpus().unwrap_or_default(),
        false => Vec::new(),
    };
    let pin = jobs.len() <= cpus.len();
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .zip(engines)
            .enumerate()
            .map(|(w, (job, engine))| {
                let tx = tx.clone();
                let cpu = cpus.get(w).copied().filter(|_| pin);
                let spawned = std::thread::Builder::new().spawn_scoped(s, move || {
                    if let Some(cpu) = cpu {
                        // Not pinned (a container's cgroup refusing it) only costs scheduling freedom.
                        let _ = crate::sys::cpu::pin_to(cpu);
                    }
                    let o = engine.run(job, &tx);
                    job.leave_start_line();
                    // A worker that could not start (or stopped at an error) stops the others too.
                    if o.error.is_some() {
                        job.abort();
                    }
                    o
                });
                (w, engine.name(), spawned)
            })
            .collect();
        // A worker whose thread did not start stops the others and leaves the start line before anyone is
        // joined (they may be waiting there for it).
        for (w, _, h) in &handles {
            if h.is_err() {
                jobs[*w].abort();
                jobs[*w].leave_start_line();
            }
        }
        let n = jobs.len();
        handles
            .into_iter()
            .map(|(w, name, h)| match h {
                Ok(h) => {
                    let mut o = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                    name_the_worker(&mut o, w, n);
                    o
                }
                Err(e) => {
                    let what = format!("the thread of worker {w}");
                    Outcome::new(Some(engine::spawn_error(name, &what, &e)))
                }
            })
            .collect()
    })
}

/// Under an address-space limit (`ulimit -v`), the error when the phase's `threads` threads (their stacks,
/// [`super::limits::phase_threads`]) and I/O buffers would not fit in the address space left
/// ([`super::limits::phase_space`]): a thread that cannot map its signal stack aborts the process (the
/// standard library's choice), so the phase fails cleanly before any thread is started. `None` when they
/// fit, or no limit is set.
fn address_space_short(
    jobs: &[Job<'_>],
    engines: &[EngineBox<'_>],
    threads: u64,
) -> Option<engine::IoError> {
    use crate::sys::limits::{Limit, address_space_free};
    let limit = Limit::AddressSpace.soft()?;
    let buffers = jobs.iter().fold(0u64, |b, job| {
        b.saturating_add(u64::from(job.queue_depth).saturating_mul(job.max_len as u64))
    });
    // No thread is started: the engine allocates its buffers itself, fallibly, and says so precisely.
    if threads == 0 {
        return None;
    }
    // As the run counted it before it started (`check_address_space`), so a limit it advised holds it.
    let need = super::limits::phase_space(threads, buffers);
    if address_space_free(need) {
        return None;
    }
    let msg = format!(
        "the phase's {threads} threads and {buffers} B of I/O buffers need about {need} B of address space, more than is left under {} of {limit} B",
        Limit::AddressSpace.name()
    );
    Some(engine::setup_error(
        engines[0].name(),
        std::io::Error::new(std::io::ErrorKind::OutOfMemory, msg),
    ))
}

/// With several workers, an engine that could not start says which worker's it was (`worker 3 of 256: ...`):
/// the engine knows its threads and buffers, not the phase's workers.
fn name_the_worker(o: &mut Outcome, w: usize, n: usize) {
    if n < 2 {
        return;
    }
    if let Some(IoError {
        cause: IoCause::Setup(_, e),
        ..
    }) = o.error.as_mut()
    {
        *e = io::Error::new(
            e.kind(),
            format!("worker {w} of {n}: {}", crate::sys::os_text(e)),
        );
    }
}

/// A worker's latencies per direction, and its last completion (ns).
type Latencies = (PerDir<Option<LatencySummary>>, u64, u64);

/// The workers' outcomes as one (the phase's), and each worker's latencies and end.
fn merged(outcomes: Vec<Outcome>) -> (Outcome, Vec<Latencies>) {
    let mut all = Outcome::new(None);
    let mut lat = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        lat.push((o.latency.map(|_, l| l.summary()), o.end_ns, o.flushes.ops));
        all.merge(o);
    }
    (all, lat)
}

/// How the ramp ended: where each worker's measured part continues its op stream, its failures, and the
/// engines' warnings (the measured part, run by the same engines, repeats them).
#[derive(Default)]
struct Ramp {
    first: Vec<u64>,
    error: Option<IoError>,
    errors: crate::engine::errors::ErrorTally,
    warnings: Vec<String>,
}

/// How the threads sharing a stream claim its ops.
#[derive(Clone, Copy)]
enum Claim {
    /// In chunks (the fastest).
    Chunks,
    /// One at a time, in time order (rate caps).
    OneAtATime,
    /// One at a time within a sliding window of `parts.sharers` ops (verified writes by several threads).
    Window,
}

impl Claim {
    /// The way for a phase: a window for stamped writes by several threads (so that the replay's reorder
    /// window, plan::replay::reorder_window, holds however the threads are scheduled), one at a time under a
    /// rate cap, chunks otherwise.
    fn of(shape: &Shape<'_>, parts: &Parts<'_>) -> Claim {
        let stamped = matches!(parts.data[0], WriteData::Stamped(..));
        match (
            stamped && parts.sharers > 1,
            shape.measure.rate_iops.is_some(),
        ) {
            (true, _) => Claim::Window,
            (false, true) => Claim::OneAtATime,
            (false, false) => Claim::Chunks,
        }
    }
}

/// Each worker's shared op stream, from `first` (its next op index), claimed as `claim` says.
fn worker_ops(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    first: &[u64],
    bounded: bool,
    claim: Claim,
) -> Vec<SharedOps> {
    shape
        .workers
        .iter()
        .zip(first)
        .map(|((_, stream), &first)| {
            let stream = OpStream {
                total_ops: stream.total_ops.filter(|_| bounded),
                ..stream.clone()
            };
            let ops =
                SharedOps::starting_at(stream, parts.sharers, first).zoned(parts.zones.clone());
            match claim {
                Claim::Chunks => ops,
                Claim::OneAtATime => ops.one_at_a_time(),
                Claim::Window => ops.windowed(u64::from(parts.sharers)),
            }
        })
        .collect()
}

/// The ramp: the same workload, unmeasured, before the measured part.
fn run_ramp(shape: &Shape<'_>, parts: &Parts<'_>, ramp_ns: u64, engines: &[EngineBox<'_>]) -> Ramp {
    let zero = vec![0; shape.workers.len()];
    let ops = worker_ops(shape, parts, &zero, false, Claim::of(shape, parts));
    let together = Together::new(shape);
    let (jobs, _) = jobs(shape, parts, (&ops, engines), Some(ramp_ns), &together);
    // Nobody listens to the ramp's series: its recorders' messages are dropped.
    let (tx, _) = mpsc::channel::<Event>();
    let (outcome, _) = merged(run_workers(&jobs, engines, &together, &tx));
    // Like the measured part, the ramp lasts its length even when a rate cap issued its last op earlier.
    // (On a virtual clock the engine already ran the clock to the ramp's end.)
    let now = jobs[0].now_ns();
    if !parts.virtual_clock && outcome.error.is_none() && !parts.stopped() && now < ramp_ns {
        std::thread::sleep(std::time::Duration::from_nanos(ramp_ns - now));
    }
    Ramp {
        first: ops.iter().map(SharedOps::position).collect(),
        error: outcome.error,
        errors: outcome.errors,
        warnings: outcome.warnings,
    }
}

/// The outcome of a phase whose ramp failed (its `error`) or was stopped (no error): an empty series.
fn ramp_ended(
    (csv, mix): (CsvOut<'_>, &crate::ops::Mix),
    ramp: Option<Ramp>,
    error: Option<IoError>,
    measured_started_at: Option<String>,
) -> Result<IoOutcome, SetupError> {
    let ramp_stopped = error.is_none();
    let Ramp {
        errors, warnings, ..
    } = ramp.unwrap_or_default();
    let csv = csv.create(mix)?;
    let mut outcome = Outcome::new(error);
    outcome.errors = errors;
    outcome.warnings = warnings;
    Ok(IoOutcome {
        outcome,
        rows: csv.rows(),
        totals: Default::default(),
        measured_started_at,
        first_op: Vec::new(),
        judged: Judged::default(),
        ended_at_steady: false,
        device: None,
        zones: None,
        zone_error: None,
        workers: Vec::new(),
        t0_unix_ns: None,
        csv_error: None,
        hist_log: None,
        trace: None,
        counters: None,
        ramp_stopped,
    })
}

/// Closed intervals a simulated drive may run ahead of the series collector (a simulation outruns the CSV
/// writer): each waiting interval holds its latency histograms, so no more than the recorders' budget for
/// them ([`crate::engine::LAG_INTERVALS`]); on a virtual clock, the drive waits for the collector rather
/// than fold intervals.
const SIM_LAG: u64 = crate::engine::LAG_INTERVALS as u64;

/// The series of the measured part as it is collected: CSV, rows for steady state and windows, the first
/// write error, and each worker's totals.
struct Collector<'a> {
    /// The CSV and the histogram log beside it.
    files: SeriesFiles,
    /// The latency histograms of the rows not yet written.
    lat: RowLatency,
    /// Each direction's largest latency in the rows of the fold being written.
    fold_max: PerDir<u64>,
    rows: Rows,
    interval_ns: u64,
    obs: &'a mut dyn Observer,
    /// The first recorder number of each worker, and one past the last worker's.
    bases: Vec<usize>,
    /// Each worker's counts so far.
    per_worker: Vec<IntervalCounts>,
}

impl Collector<'_> {
    /// Adds a recorder's closed interval `index`'s histograms to its row's, and sends them back; notes the
    /// rows a recorder folded.
    fn add_lat(&mut self, index: u64, mut lat: crate::engine::IntervalLat) {
        if lat.folded {
            self.lat.folding(lat.first, index);
        } else if lat.first < index {
            self.lat.unfolded(lat.first, index);
        }
        for (d, h) in lat.hists.iter_mut() {
            if let Some(h) = h {
                self.lat.add(index, d, h);
            }
        }
        lat.recycle();
        // Rows waiting for a recorder that closes nothing (a stalled worker) hold their histograms: folded
        // past a bound, so the memory held does not grow with the stall.
        self.lat.cap(MAX_WAITING_ROWS);
    }

    /// Row `k` spanning `[a, b)` with `counts`: the CSV row, its percentiles from the row's histograms, whose
    /// lines go into the histogram log. A row of a fold but its last has no percentiles and empty
    /// histograms; the last has those of every row of the fold.
    fn row(&mut self, k: u64, (a, b): (u64, u64), counts: &IntervalCounts) -> SeriesRow {
        let mut row = SeriesRow::new(a, b, self.interval_ns, counts);
        let max = &mut self.fold_max;
        for (d, m) in max.iter_mut() {
            *m = (*m).max(counts[d].lat_max_ns);
        }
        let (hists, whole) = match self.lat.take(k) {
            Some(Taken { hists, .. }) => {
                let max = std::mem::take(max);
                row.set_percentiles(&hists, |d| max[d]);
                (hists, true)
            }
            None => (RowHists::default(), false),
        };
        self.files.log((a, b), &hists, whole);
        self.lat.recycle(hists);
        row
    }

    /// Writes a row; returns whether steady state was first reached with it (full rows only). After the
    /// first write error of the CSV or the histogram log, neither is written again ([`SeriesFiles`]).
    fn take(&mut self, row: &SeriesRow, full: bool) -> bool {
        self.files.append(row);
        self.obs.row(row);
        full && self.rows.push(row)
    }

    /// Adds the counts a recorder closed to its worker's.
    fn count(&mut self, recorder: usize, counts: &IntervalCounts) {
        let w = self
            .bases
            .partition_point(|&b| b <= recorder)
            .saturating_sub(1);
        if let Some(c) = self.per_worker.get_mut(w) {
            c.merge(counts);
        }
    }
}

/// The measured part: the engines on their threads, the collector here.
fn measure(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    (first, check): (&[u64], Option<&dyn ReadCheck>),
    engines: &[EngineBox<'_>],
    csv_out: CsvOut<'_>,
    obs: &mut dyn Observer,
    sampler: Option<super::counters::Sampler>,
) -> Result<IoOutcome, SetupError> {
    let m = shape.measure;
    let ops = worker_ops(shape, parts, first, true, Claim::of(shape, parts));
    let duration_ns = shape.bound.duration_ns();
    let together = Together::new(shape);
    let (mut jobs, bases) = jobs(shape, parts, (&ops, engines), duration_ns, &together);
    for (job, &first) in jobs.iter_mut().zip(first) {
        job.first_index = first;
        job.check = check;
    }
    // Only a steady-state stop feeds a collector decision back into the engine; without one, a virtual-clock
    // engine need not wait for each interval, only stay at most SIM_LAG ahead (memory).
    jobs[0].lockstep = parts.virtual_clock.then(|| match m.until_steady() {
        true => LockStep::default(),
        false => LockStep::with_lag(SIM_LAG),
    });
    let recorders = bases.last().copied().unwrap_or(1);
    let dirs = Direction::ALL.iter();
    let dirs = dirs.filter(|&&d| shape.stream.mix.percent(d) > 0).count();
    together.hist_budget.for_recorders(recorders, dirs);
    let traces = traces(shape.io.trace, recorders)?;
    for job in &mut jobs {
        job.traces = &traces;
    }
    let csv = csv_out.create(&shape.stream.mix)?;
    let hlog = csv_out.create_hlog(&shape.stream.mix)?;
    let mut c = Collector {
        files: SeriesFiles::new(csv, hlog),
        lat: RowLatency::new(),
        fold_max: PerDir::default(),
        rows: Rows::new(m, shape.stream.span_len),
        interval_ns: shape.io.interval_ns,
        obs,
        per_worker: vec![IntervalCounts::default(); jobs.len()],
        bases,
    };
    let mut series = Series::new(jobs[0].clock, recorders);
    let stop = super::counters::Stop::default();
    let interval_ns = shape.io.interval_ns;
    let sampler = sampler.map(Mutex::new);
    // The counters are read at each interval boundary by a thread of their own (the wall clock only), up
    // to the phase's end, which `finish` may wait for; a thread that cannot start leaves the phase's first
    // and last readings.
    let out = std::thread::scope(|s| {
        let ticking = sampler
            .as_ref()
            .map(|sampler| {
                std::thread::Builder::new().spawn_scoped(s, || {
                    lock(sampler).tick_until(&together.start, interval_ns, &stop);
                })
            })
            .and_then(Result::ok);
        let (outcomes, ended_at_steady) = collect(
            (&jobs, &together),
            engines,
            &mut series,
            &mut c,
            m.until_steady(),
        );
        let out = finish(
            shape,
            parts,
            &jobs[0],
            outcomes,
            ended_at_steady,
            series,
            c,
            csv_out,
        );
        stop.set(out.as_ref().map_or(0, |o| o.outcome.end_ns));
        if let Some(t) = ticking {
            t.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
        out
    });
    let mut out = out?;
    let ios = Direction::ALL.iter().map(|&d| out.totals[d].ops).sum();
    out.counters = sampler.map(|m| {
        let s = m.into_inner().unwrap_or_else(|p| p.into_inner());
        s.finish(out.outcome.end_ns, ios)
    });
    Ok(out)
}

/// The room of a phase's per-I/O trace of at most `cap` rows (0: none), one share per recorder, reserved
/// now.
fn traces(cap: u64, recorders: usize) -> Result<Vec<Mutex<TraceBuf>>, SetupError> {
    if cap == 0 {
        return Ok(Vec::new());
    }
    let n = recorders as u64;
    (0..n)
        .map(|r| {
            TraceBuf::with_cap(share(cap, n, r))
                .map(Mutex::new)
                .map_err(|e| SetupError {
                    what: format!(
                        "cannot reserve the trace of {cap} I/Os ({} B)",
                        cap.saturating_mul(crate::stats::trace::TRACE_ROW_BYTES)
                    ),
                    source: io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()),
                })
        })
        .collect()
}

/// Runs the engines (on threads as `together` says) and writes each row as soon as every recorder has
/// closed its interval; returns the workers' outcomes and whether the phase ended at steady state.
fn collect(
    (jobs, together): (&[Job<'_>], &Together),
    engines: &[EngineBox<'_>],
    series: &mut Series,
    c: &mut Collector<'_>,
    until_steady: bool,
) -> (Vec<Outcome>, bool) {
    let (tx, rx) = mpsc::channel::<Event>();
    let mut ended_at_steady = false;
    let outcomes = std::thread::scope(|s| {
        let runner = std::thread::Builder::new().spawn_scoped(s, || {
            let tx = tx;
            run_workers(jobs, engines, together, &tx)
        });
        let runner = match runner {
            Ok(r) => r,
            Err(e) => {
                let what = "the engine's thread";
                let name = engines[0].name();
                return vec![Outcome::new(Some(engine::spawn_error(name, what, &e)))];
            }
        };
        for ev in rx.iter() {
            let Event::Closed {
                worker,
                index,
                counts,
                now_in,
                lat,
            } = ev;
            c.count(worker, &counts);
            c.add_lat(index, lat);
            series.close(worker, index, &counts, now_in);
            for (k, counts) in series.ready() {
                let span = series.row_span(k, false, 0);
                let row = c.row(k, span, &counts);
                if c.take(&row, true) && until_steady && !ended_at_steady {
                    ended_at_steady = true;
                    jobs[0].abort();
                }
                // A series file that takes no more rows (a full disk, the file-size limit) ends the
                // phase now, as a signal would: the run fails with what it measured so far.
                if c.files.failed() {
                    jobs[0].abort();
                }
            }
            if let Some(ls) = &jobs[0].lockstep {
                ls.handled_one();
            }
        }
        runner
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    });
    (outcomes, ended_at_steady)
}

/// After the engines: the phase lasts its duration, buffered writes are flushed, the last rows written.
#[allow(clippy::too_many_arguments)]
fn finish(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    job: &Job<'_>,
    outcomes: Vec<Outcome>,
    ended_at_steady: bool,
    mut series: Series,
    mut c: Collector<'_>,
    csv: CsvOut<'_>,
) -> Result<IoOutcome, SetupError> {
    let (mut outcome, latencies) = merged(outcomes);
    let trace = (shape.io.trace > 0).then(|| {
        let t = std::mem::take(&mut outcome.trace);
        let dropped = t.dropped;
        (t.into_sorted(), dropped)
    });
    // A series file that took no more rows ended the phase: it does not last its duration.
    let cut = ended_at_steady || c.files.failed();
    let end_ns = end_of_phase(shape, parts, job, &mut outcome, cut);
    let cut_short = outcome.error.is_some() || cut || parts.stopped();
    let tail = series.finish(end_ns, cut_short);
    let n = tail.len();
    for (i, (k, counts)) in tail.into_iter().enumerate() {
        let span = series.row_span(k, i + 1 == n, end_ns);
        let mut row = c.row(k, span, &counts);
        // The drain after a time bound is partial whatever its length (the I/Os in flight at the bound,
        // nothing new issued): like a partial last row, it is not a full round, and stays out of
        // steady-state rounds and windows.
        row.partial |= u8::from(series.is_drain(k));
        c.take(&row, row.partial == 0);
    }
    if c.files.folded() > 0 {
        outcome
            .warnings
            .push(folded_warning(c.files.folded(), c.files.rows()));
    }
    if c.lat.capped_rows() > 0 {
        outcome.warnings.push(capped_warning(c.lat.capped_rows()));
    }
    let csv_error = c.files.take_error().map(|(e, hlog_failed)| {
        let failed = match hlog_failed {
            true => csv.dir.join(&csv.hlog_name()),
            false => csv.path(),
        };
        SetupError {
            what: format!("cannot write {}", failed.display()),
            source: crate::sys::limits::explain_file_size(e),
        }
    });
    outcome.end_ns = end_ns;
    let workers = c
        .per_worker
        .into_iter()
        .zip(latencies)
        .map(|(counts, (latency, end_ns, flushes))| WorkerTotals {
            counts,
            latency,
            end_ns,
            flushes,
        })
        .collect();
    // The series' t = 0 on the wall clock: now, less the time since the phase clock started.
    let t0_unix_ns =
        (!job.is_virtual()).then(|| crate::launch::now_unix_ns().saturating_sub(job.now_ns()));
    Ok(IoOutcome {
        t0_unix_ns,
        outcome,
        rows: c.files.rows(),
        totals: series.totals(),
        measured_started_at: None,
        first_op: Vec::new(),
        judged: c.rows.finish(),
        ended_at_steady,
        device: None,
        zones: parts.zones.as_ref().map(|z| z.counts()),
        zone_error: parts.zones.as_ref().and_then(|z| z.error()),
        workers,
        csv_error,
        hist_log: Some(csv.hlog_name()),
        trace,
        counters: None,
        ramp_stopped: false,
    })
}

/// The warning of a phase whose series collector fell behind: `folded` of its `rows` rows have no
/// percentiles.
fn folded_warning(folded: u64, rows: u64) -> String {
    format!(
        "latency over time: the series collector fell behind the I/O, so {folded} of the {rows} rows have \
         their latencies folded into a later row's: their p50/p99/p99.9 cells are empty and their \
         histograms in the histogram log are empty, and each fold's last row has the percentiles and \
         histograms of all its rows (counts, bytes, means, maxima and the phase's totals are exact; a \
         longer interval avoids it)"
    )
}

/// The warning of a phase whose collector folded `rows` rows that waited for a worker that completed
/// nothing for a while ([`RowLatency::cap`]).
fn capped_warning(rows: u64) -> String {
    format!(
        "latency over time: a worker completed no I/O for a while, and the other workers' rows waited for it: \
         past {MAX_WAITING_ROWS} waiting rows the collector folded their latencies ({rows} rows in such folds, \
         counted among the folded rows; their counts are exact)"
    )
}

/// The end of the last slot of `reads` and `writes` I/Os under the cap `r`, ns from the start (rounded up, so
/// that N I/Os over it never make more than the cap): the latest of (reads + writes) / total, reads / read
/// and writes / write, for the caps given.
fn rate_end_ns(r: crate::vocab::Rate, ops: &PerDir<u64>) -> u64 {
    let at = |n: u64, rate: Option<u64>| {
        rate.filter(|&r| r > 0).map_or(0, |r| {
            (n as u128 * 1_000_000_000).div_ceil(r as u128) as u64
        })
    };
    ops.iter()
        .map(|(d, &n)| at(n, r.of(d)))
        .fold(at(ops.0.iter().sum(), r.total), u64::max)
}

/// When the phase ends, ns: a time-bounded phase lasts its duration even when its last I/O (under a rate cap)
/// was issued earlier, on the wall clock by waiting it out, on a virtual clock (where no time passes by
/// itself) by ending there. Buffered writes are flushed inside the phase, so that page-cache writeback is
/// neither lost nor charged to the next phase. `cut`: the phase was ended early (steady state reached, or a
/// series file that took no more rows).
fn end_of_phase(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    job: &Job<'_>,
    outcome: &mut Outcome,
    cut: bool,
) -> u64 {
    let duration_ns = shape.bound.duration_ns();
    let ran_out = outcome.error.is_none() && !cut && !parts.stopped();
    if let Some(d) = duration_ns.filter(|_| !job.is_virtual()) {
        let now = job.now_ns();
        if ran_out && now < d {
            std::thread::sleep(std::time::Duration::from_nanos(d - now));
        }
    }
    let mut end_ns = match duration_ns {
        Some(d) if job.is_virtual() && ran_out => outcome.end_ns.max(d),
        d => outcome.end_ns.max(d.unwrap_or(0).min(job.now_ns())),
    };
    // Under a rate cap, a phase bound by bytes lasts to the end of its last I/O's slot (N I/Os own N / R
    // s), as one bound by time lasts its duration: its IOPS never exceed the cap (N I/Os issued from 0 to
    // (N - 1) / R s once made 2 I/Os in 1 s of a cap of 1).
    // Poisson arrivals have no slots: the phase ends with its last completion.
    if let (None, Some(r)) = (duration_ns, shape.measure.rate_iops)
        && ran_out
        && shape.measure.arrivals.process == crate::vocab::RateProcess::Linear
    {
        let slots_end = rate_end_ns(r, &outcome.latency.map(|_, l| l.count()));
        if !job.is_virtual() {
            let now = job.now_ns();
            if now < slots_end {
                std::thread::sleep(std::time::Duration::from_nanos(slots_end - now));
            }
        }
        end_ns = end_ns.max(slots_end);
    }
    let writes = shape.stream.mix.percent(Direction::Write) > 0;
    if let Some(file) = parts.file.filter(|_| !shape.io.direct && writes)
        && outcome.error.is_none()
    {
        if let Err(e) = file.sync_data() {
            outcome.error = Some(IoError {
                dir: Direction::Write,
                offset: shape.stream.span_start,
                len: 0,
                cause: IoCause::Os(e),
            });
        }
        end_ns = end_ns.max(job.now_ns());
    }
    end_ns
}

/// Opens the image file `path` for reading, without blocking (a FIFO swapped in for it blocked the open
/// forever: attack 13 F1): what it opens must be a regular file.
fn open_image(path: &std::path::Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    match f.metadata()?.is_file() {
        true => Ok(f),
        false => Err(std::io::Error::other(
            "it is not a regular file (it changed after it was checked)",
        )),
    }
}
