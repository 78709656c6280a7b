//! Measuring a phase that issues I/O (fill, restore-image, workload, and the reads of a verify phase): the
//! engine on worker threads, the series collector on this thread writing each CSV row as soon as every
//! worker has closed its interval.

use super::Env;
use super::observer::Observer;
use crate::data::DataGen;
use crate::engine::{
    self, ClockKind, Event, IoCause, IoError, Job, LockStep, Outcome, ReadCheck, WriteData,
};
use crate::image::ImageSource;
use crate::ops::{OpKind, OpStream, SharedOps};
use crate::plan::{Bound, IoSettings, Measure, PhasePlan, Work, WriteSource, image_path};
use crate::results::outdir::OutDir;
use crate::results::series_csv::{self, SeriesRow, SeriesWriter};
use crate::sim::DeviceCounters;
use crate::stats::steady::{FioMetric, LeaveRule, Rule, SteadyDetector};
use crate::stats::{IntervalClock, Series};
use crate::vocab::DataPattern;
use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, mpsc};

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
    /// The op index where the measured part started in the stream: the ops the ramp claimed (0 without).
    pub first_op: u64,
    /// Total IOPS of every full row, in order, when the phase has windows or aggregates (empty otherwise).
    pub iops: Vec<f64>,
    /// The steady-state verdict, when the phase has a rule.
    pub steady: Option<crate::stats::steady::Verdict>,
    /// Whether the phase ended because steady state was reached (`until = "steady"`).
    pub ended_at_steady: bool,
    /// On a simulated target: the drive's internals during the measured part.
    pub device: Option<DeviceCounters>,
}

/// Why an I/O phase could not run at all: what was being opened or written, and the OS error.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
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

    /// Creates the CSV with its header.
    fn create(&self) -> Result<SeriesWriter, SetupError> {
        SeriesWriter::create(self.dir, self.name)
            .map_err(setup(format!("cannot create {}", self.path().display())))
    }
}

/// The shape of an I/O phase, the same for fills, restores, workloads and verify reads.
struct Shape<'a> {
    io: &'a IoSettings,
    writes: Option<&'a WriteSource>,
    bound: Bound,
    measure: &'a Measure,
    stream: OpStream,
}

/// Everything a phase's jobs share: the open target, the write data, the op stream's sharers.
struct Parts<'a> {
    file: Option<&'a File>,
    data: WriteData,
    sharers: u32,
    max_len: usize,
    align: usize,
    stop: &'a AtomicBool,
    virtual_clock: bool,
}

/// Runs the I/O of `phase` and writes its series to `csv`; `check` sees the data of every read (a verify
/// phase). A simulated target runs on the drive's virtual clock and also writes the drive's internals per
/// interval next to the series, as `NN-<phase>.device.csv`.
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
    let slots = env.sim.map(|device| {
        let pattern = match &parts.data {
            WriteData::Pattern(g) | WriteData::Stamped(g, _) => g.pattern(),
            // A restored image is taken as incompressible.
            WriteData::Image { .. } => DataPattern::Random,
        };
        lock(device).slots_for(pattern)
    });
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
    let ramp = match shape.measure.ramp_ns {
        Some(ramp_ns) => Some(run_ramp(
            &shape,
            &parts,
            ramp_ns,
            new_engine(None)?.as_ref(),
        )),
        None => None,
    };
    let measured_started_at = ramp.as_ref().map(|_| crate::run::now_rfc3339());
    let (first, ramp_errors) = match ramp {
        Some(mut r) => match r.error.take() {
            Some(e) => return ramp_failed(csv, r, e, measured_started_at),
            None => (r.first, r.errors),
        },
        None => (0, Default::default()),
    };
    let device_before = env.sim.map(|d| lock(d).counters());
    let device_file = match env.sim {
        Some(_) => Some(csv.dir.create(&device_csv).map_err(setup(format!(
            "cannot create {}",
            csv.dir.join(&device_csv).display()
        )))?),
        None => None,
    };
    let engine = new_engine(device_file.as_ref())?;
    let mut out = measure(&shape, &parts, (first, check), engine.as_ref(), csv, obs)?;
    // The ramp's I/Os are not measured, but its failed I/Os are counted.
    out.outcome.errors.merge(ramp_errors);
    out.measured_started_at = measured_started_at;
    out.first_op = first;
    if let Some(e) = lock(&csv_error).take() {
        return Err(SetupError {
            what: format!("cannot write {}", csv.dir.join(&device_csv).display()),
            source: e,
        });
    }
    // The engine moved the drive's clock to the phase's end (its bound, for a time-bounded phase).
    out.device = env
        .sim
        .zip(device_before)
        .map(|(d, before)| lock(d).counters().since(&before));
    Ok(out)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The shape of an I/O phase; `None` for an erase.
fn shape<'a>(phase: &'a PhasePlan, none: &'a Measure) -> Option<Shape<'a>> {
    let stream = phase.op_stream()?;
    Some(match &phase.work {
        Work::Erase(_) => return None,
        Work::Io(w) => Shape {
            io: &w.io,
            writes: Some(&w.writes),
            bound: w.bound,
            measure: &w.measure,
            stream,
        },
        Work::Verify(v) => Shape {
            io: &v.io,
            writes: None,
            bound: v.bound(),
            measure: none,
            stream,
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
    let data = write_data(env, phase, shape)?;
    Ok(Parts {
        file,
        data,
        // Threads sharing the op stream: one per queue slot (psync), or the engine's one thread, which then
        // claims whole chunks, not one sequential op at a time.
        sharers: if caps.thread_per_slot {
            io.queue_depth
        } else {
            1
        },
        max_len: shape.stream.sizes.max() as usize,
        align: (target.logical_block_size as usize).max(4096),
        stop: env.stop,
        virtual_clock: caps.virtual_clock,
    })
}

/// Where the phase's write bytes come from.
fn write_data(
    env: &Env<'_>,
    phase: &PhasePlan,
    shape: &Shape<'_>,
) -> Result<WriteData, SetupError> {
    let io = shape.io;
    let (pattern, stamped) = match shape.writes {
        Some(WriteSource::Image { image, .. }) => {
            let source = if image == "synthetic" {
                ImageSource::Synthetic(io.seed)
            } else {
                let path = image_path(&env.plan.spec_path, image);
                ImageSource::File(
                    File::open(&path)
                        .map_err(setup(format!("cannot open the image {}", path.display())))?,
                )
            };
            return Ok(WriteData::Image {
                source,
                span_start: phase.span.start,
            });
        }
        // A read-only phase writes nothing: no random pool to build.
        _ if shape.stream.read_percent == 100 => (DataPattern::Zeros, false),
        Some(WriteSource::Data { pattern, stamped }) => (*pattern, *stamped),
        None => (DataPattern::Zeros, false),
    };
    let g = DataGen::try_new(pattern, io.seed, io.largest_block() as usize).map_err(|e| {
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
                seed: io.seed,
            },
        ),
        false => WriteData::Pattern(g),
    })
}

impl Parts<'_> {
    /// A job over `ops`, bounded by `bound_ns`.
    fn job<'j>(&'j self, shape: &Shape<'_>, ops: &'j SharedOps, bound_ns: Option<u64>) -> Job<'j> {
        Job {
            file: self.file,
            ops,
            data: &self.data,
            queue_depth: shape.io.queue_depth,
            max_len: self.max_len,
            align: self.align,
            start: OnceLock::new(),
            clock: IntervalClock {
                interval_ns: shape.io.interval_ns,
                bound_ns,
            },
            deadline_ns: bound_ns,
            rate_iops: shape.measure.rate_iops,
            first_index: 0,
            interrupt: self.stop,
            abort: AtomicBool::new(false),
            clock_kind: match self.virtual_clock {
                true => ClockKind::Virtual(AtomicU64::new(0)),
                false => ClockKind::Wall,
            },
            lockstep: None,
            on_error: shape.io.on_error,
            check: None,
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// How the ramp ended: where the measured part continues the op stream, its failures, and the engine's
/// warnings (the measured part, run by the same engine, repeats them).
struct Ramp {
    first: u64,
    error: Option<IoError>,
    errors: crate::engine::errors::ErrorTally,
    warnings: Vec<String>,
}

/// The ramp: the same workload, unmeasured, before the measured part.
fn run_ramp(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    ramp_ns: u64,
    engine: &(dyn engine::Engine + Sync),
) -> Ramp {
    let ops = SharedOps::new(
        OpStream {
            total_ops: None,
            ..shape.stream.clone()
        },
        parts.sharers,
    );
    let ops = match shape.measure.rate_iops {
        Some(_) => ops.one_at_a_time(),
        None => ops,
    };
    let job = parts.job(shape, &ops, Some(ramp_ns));
    // Nobody listens to the ramp's series: its recorders' messages are dropped.
    let (tx, _) = mpsc::channel::<Event>();
    let outcome = engine.run(&job, &tx);
    // Like the measured part, the ramp lasts its length even when a rate cap issued its last op earlier.
    // (On a virtual clock the engine already ran the clock to the ramp's end.)
    let now = job.now_ns();
    if !parts.virtual_clock && outcome.error.is_none() && !parts.stopped() && now < ramp_ns {
        std::thread::sleep(std::time::Duration::from_nanos(ramp_ns - now));
    }
    Ramp {
        first: ops.position(),
        error: outcome.error,
        errors: outcome.errors,
        warnings: outcome.warnings,
    }
}

/// The outcome of a phase whose ramp failed: an empty series and the ramp's error.
fn ramp_failed(
    csv: CsvOut<'_>,
    ramp: Ramp,
    error: IoError,
    measured_started_at: Option<String>,
) -> Result<IoOutcome, SetupError> {
    let Ramp {
        errors, warnings, ..
    } = ramp;
    let csv = csv.create()?;
    let mut outcome = Outcome::new(Some(error));
    outcome.errors = errors;
    outcome.warnings = warnings;
    Ok(IoOutcome {
        outcome,
        rows: csv.rows(),
        totals: Default::default(),
        measured_started_at,
        first_op: 0,
        iops: Vec::new(),
        steady: None,
        ended_at_steady: false,
        device: None,
    })
}

/// Closed intervals a simulated drive may run ahead of the series collector (a simulation outruns the CSV
/// writer; each waiting interval holds one event of about 100 bytes).
const SIM_LAG: u64 = 4096;

/// The series of the measured part as it is collected: CSV, rows for steady state and windows, and the
/// first write error.
struct Collector<'a> {
    csv: SeriesWriter,
    rows: Rows,
    write_err: Option<io::Error>,
    interval_ns: u64,
    obs: &'a mut dyn Observer,
}

impl Collector<'_> {
    /// Writes a row; returns whether steady state was first reached with it (full rows only).
    fn take(&mut self, row: &SeriesRow, full: bool) -> bool {
        if let Err(e) = self.csv.append(row) {
            self.write_err.get_or_insert(e);
        }
        self.obs.row(row);
        full && self.rows.push(row)
    }
}

/// The measured part: the engine on its threads, the collector here.
fn measure(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    (first, check): (u64, Option<&dyn ReadCheck>),
    engine: &(dyn engine::Engine + Sync),
    csv_out: CsvOut<'_>,
    obs: &mut dyn Observer,
) -> Result<IoOutcome, SetupError> {
    let m = shape.measure;
    let ops = SharedOps::starting_at(shape.stream.clone(), parts.sharers, first);
    // Verified writes by several workers go one op at a time, so the ops in flight together stay close in
    // the stream (see plan::replay::reorder_window).
    let stamped = matches!(parts.data, WriteData::Stamped(..));
    let ops = match m.rate_iops.is_some() || (stamped && parts.sharers > 1) {
        true => ops.one_at_a_time(),
        false => ops,
    };
    let duration_ns = shape.bound.duration_ns();
    let mut job = parts.job(shape, &ops, duration_ns);
    job.first_index = first;
    job.check = check;
    // Only a steady-state stop feeds a collector decision back into the engine; without one, a virtual-clock
    // engine need not wait for each interval, only stay at most SIM_LAG ahead (memory).
    job.lockstep = parts.virtual_clock.then(|| match m.until_steady() {
        true => LockStep::default(),
        false => LockStep::with_lag(SIM_LAG),
    });
    let csv = csv_out.create()?;
    let per_round = m.steady.map_or(1, |s| s.intervals_per_round) as usize;
    let keep_iops = !m.windows.is_empty() || m.aggregate_ns.is_some();
    let mut c = Collector {
        csv,
        rows: Rows::new(
            m.steady.map(|s| s.rule),
            m.steady.and_then(|s| s.leave),
            per_round,
            keep_iops,
        ),
        write_err: None,
        interval_ns: shape.io.interval_ns,
        obs,
    };
    let mut series = Series::new(job.clock, engine.workers(&job));
    let (outcome, ended_at_steady) = collect(&job, engine, &mut series, &mut c, m.until_steady());
    finish(
        shape,
        parts,
        &job,
        outcome,
        ended_at_steady,
        series,
        c,
        csv_out,
    )
}

/// Runs the engine and writes each row as soon as every worker has closed its interval; returns the
/// engine's outcome and whether the phase ended at steady state.
fn collect(
    job: &Job<'_>,
    engine: &(dyn engine::Engine + Sync),
    series: &mut Series,
    c: &mut Collector<'_>,
    until_steady: bool,
) -> (Outcome, bool) {
    let (tx, rx) = mpsc::channel::<Event>();
    let mut ended_at_steady = false;
    let outcome = std::thread::scope(|s| {
        let runner = std::thread::Builder::new().spawn_scoped(s, || {
            let tx = tx;
            engine.run(job, &tx)
        });
        let runner = match runner {
            Ok(r) => r,
            Err(e) => {
                let what = "the engine's thread";
                return Outcome::new(Some(engine::spawn_error(engine.name(), what, &e)));
            }
        };
        for ev in rx.iter() {
            let Event::Closed {
                worker,
                index,
                counts,
                now_in,
            } = ev;
            series.close(worker, index, &counts, now_in);
            for (k, counts) in series.ready() {
                let (a, b) = series.row_span(k, false, 0);
                let row = SeriesRow::new(a, b, c.interval_ns, &counts);
                if c.take(&row, true) && until_steady && !ended_at_steady {
                    ended_at_steady = true;
                    job.abort();
                }
            }
            if let Some(ls) = &job.lockstep {
                ls.handled_one();
            }
        }
        runner
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    });
    (outcome, ended_at_steady)
}

/// After the engine: the phase lasts its duration, buffered writes are flushed, the last rows written.
#[allow(clippy::too_many_arguments)]
fn finish(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    job: &Job<'_>,
    mut outcome: Outcome,
    ended_at_steady: bool,
    mut series: Series,
    mut c: Collector<'_>,
    csv: CsvOut<'_>,
) -> Result<IoOutcome, SetupError> {
    let end_ns = end_of_phase(shape, parts, job, &mut outcome, ended_at_steady);
    let cut_short = outcome.error.is_some() || ended_at_steady || parts.stopped();
    let tail = series.finish(end_ns, cut_short);
    let n = tail.len();
    for (i, (k, counts)) in tail.into_iter().enumerate() {
        let (a, b) = series.row_span(k, i + 1 == n, end_ns);
        let row = SeriesRow::new(a, b, c.interval_ns, &counts);
        // A partial last row is not a full round: it stays out of steady-state rounds and windows.
        c.take(&row, row.partial == 0);
    }
    if let Some(e) = c.write_err {
        return Err(SetupError {
            what: format!("cannot write {}", csv.path().display()),
            source: e,
        });
    }
    outcome.end_ns = end_ns;
    Ok(IoOutcome {
        outcome,
        rows: c.csv.rows(),
        totals: series.totals(),
        measured_started_at: None,
        first_op: 0,
        steady: c.rows.detector.as_ref().map(|d| d.verdict()),
        iops: c.rows.iops,
        ended_at_steady,
        device: None,
    })
}

/// When the phase ends, ns: a time-bounded phase lasts its duration even when its last I/O (under a rate cap)
/// was issued earlier, on the wall clock by waiting it out, on a virtual clock (where no time passes by
/// itself) by ending there. Buffered writes are flushed inside the phase, so that page-cache writeback is
/// neither lost nor charged to the next phase.
fn end_of_phase(
    shape: &Shape<'_>,
    parts: &Parts<'_>,
    job: &Job<'_>,
    outcome: &mut Outcome,
    ended_at_steady: bool,
) -> u64 {
    let duration_ns = shape.bound.duration_ns();
    let ran_out = outcome.error.is_none() && !ended_at_steady && !parts.stopped();
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
    let writes = shape.stream.read_percent < 100;
    if let Some(file) = parts.file.filter(|_| !shape.io.direct && writes)
        && outcome.error.is_none()
    {
        if let Err(e) = file.sync_data() {
            outcome.error = Some(IoError {
                kind: OpKind::Write,
                offset: shape.stream.span_start,
                len: 0,
                cause: IoCause::Os(e),
            });
        }
        end_ns = end_ns.max(job.now_ns());
    }
    end_ns
}

/// The full rows of a phase as they are released: total IOPS per row, and the steady-state detector.
struct Rows {
    /// Total IOPS of every full row, kept only for windows and aggregates (8 bytes a row).
    iops: Vec<f64>,
    keep_iops: bool,
    detector: Option<SteadyDetector>,
    metric: FioMetric,
    reached: bool,
    /// Rows per steady-state round, and the sum and count of the round being filled.
    per_round: usize,
    round_sum: f64,
    round_rows: usize,
}

impl Rows {
    fn new(
        rule: Option<Rule>,
        leave: Option<LeaveRule>,
        per_round: usize,
        keep_iops: bool,
    ) -> Rows {
        let metric = match rule {
            Some(Rule::Fio(f)) => f.metric,
            _ => FioMetric::Iops,
        };
        // The rule was validated with the spec, so the detector builds.
        let detector = rule.and_then(|r| SteadyDetector::new(r, leave).ok());
        Rows {
            iops: Vec::new(),
            keep_iops,
            detector,
            metric,
            reached: false,
            per_round,
            round_sum: 0.0,
            round_rows: 0,
        }
    }

    /// Takes one full row; true when steady state was first reached with it.
    fn push(&mut self, row: &SeriesRow) -> bool {
        let iops = row.read_iops + row.write_iops;
        if self.keep_iops {
            self.iops.push(iops);
        }
        let value = match self.metric {
            FioMetric::Iops => iops,
            FioMetric::Bw => row.read_bw_bytes_per_s + row.write_bw_bytes_per_s,
            FioMetric::Lat => {
                let ops = row.read_ops + row.write_ops;
                let sum = row.read_lat_mean_us.unwrap_or(0.0) * row.read_ops as f64
                    + row.write_lat_mean_us.unwrap_or(0.0) * row.write_ops as f64;
                if ops > 0 { sum / ops as f64 * 1e3 } else { 0.0 }
            }
        };
        let Some(d) = self.detector.as_mut() else {
            return false;
        };
        self.round_sum += value;
        self.round_rows += 1;
        if self.round_rows < self.per_round {
            return false;
        }
        let round = self.round_sum / self.round_rows as f64;
        (self.round_sum, self.round_rows) = (0.0, 0);
        let reached = d.push(round).is_some_and(|v| v.reached);
        let first = reached && !self.reached;
        self.reached |= reached;
        first
    }
}
