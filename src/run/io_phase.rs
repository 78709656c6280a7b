//! Running a phase that issues I/O (fill, restore-image, workload): the engine on worker threads, the series
//! collector on this thread writing each CSV row as soon as every worker has closed its interval.

use crate::data::DataGen;
use crate::engine::{
    ClockKind, Engine, Event, IoCause, IoError, Job, LockStep, Outcome, WriteData, psync::Psync,
};
use crate::image::ImageSource;
use crate::ops::OpKind;
use crate::ops::{OpStream, SharedOps};
use crate::plan::{PhasePlan, image_path};
use crate::results::series_csv::{SeriesRow, SeriesWriter};
use crate::sim::{DeviceCounters, SimDevice};
use crate::spec::{DataPattern, Engine as EngineName, PhaseKind};
use crate::stats::steady::{FioMetric, LeaveRule, Rule, SteadyDetector};
use crate::stats::{IntervalClock, Series};
use crate::target::TargetInfo;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Mutex, OnceLock, mpsc};

/// What an I/O phase produced.
pub struct IoPhaseOutcome {
    /// Latencies and end time from the engine.
    pub outcome: Outcome,
    /// Rows written to the CSV.
    pub rows: u64,
    /// Totals of the series (equal to the engine's counts).
    pub totals: crate::stats::IntervalCounts,
    /// When the measured part started, after a ramp (RFC 3339); `None` without a ramp.
    pub measured_started_at: Option<String>,
    /// Total IOPS of every full row, in order, when the phase has windows or aggregates (empty otherwise).
    pub iops: Vec<f64>,
    /// The steady-state verdict, when the phase has a rule.
    pub steady: Option<crate::stats::steady::Verdict>,
    /// Whether the phase ended because steady state was reached (`until = "steady"`).
    pub ended_at_steady: bool,
    /// On a simulated target: the drive's internals during the measured part.
    pub device: Option<DeviceCounters>,
}

/// Why an I/O phase could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// Opening the target, the image or the CSV failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being opened.
        what: String,
        /// The OS error.
        source: io::Error,
    },
}

/// What an I/O phase runs with besides its plan.
pub struct PhaseHooks<'a> {
    /// The simulated drive, for a simulated target.
    pub sim: Option<&'a Mutex<SimDevice>>,
    /// Sees every series row as it is written (the live progress display).
    pub on_row: &'a mut dyn FnMut(&SeriesRow),
    /// For a verify phase: the check of every read's data.
    pub check: Option<&'a dyn crate::engine::ReadCheck>,
}

/// Runs one I/O phase on `target` and writes its series to `csv_path`, with `hooks`. A simulated target
/// (`hooks.sim` is its drive) runs on the drive's virtual clock and also writes the drive's internals per
/// interval next to the series, as `NN-<phase>.device.csv`.
///
/// # Errors
/// [`SetupError`] when the target, image or CSV cannot be opened. I/O errors during the phase are in the
/// outcome (`outcome.error`), with the rows written so far.
pub fn run_io_phase(
    target: &TargetInfo,
    phase: &PhasePlan,
    spec_path: &Path,
    csv_path: &Path,
    stop: &AtomicBool,
    hooks: PhaseHooks<'_>,
) -> Result<IoPhaseOutcome, SetupError> {
    let PhaseHooks { sim, on_row, check } = hooks;
    let p = &phase.params;
    let io = p.io().ok_or_else(|| SetupError::Io {
        what: format!("phase {} has no I/O parameters", phase.name),
        source: io::Error::other("internal error: plan incomplete"),
    })?;
    let null = io.engine == EngineName::Null;
    // A simulated target and the null engine do no I/O on the host: the target is not opened.
    let file = match sim {
        Some(_) => None,
        None if null => None,
        None => Some(
            crate::target::open::open_io(target, io.direct, phase.writes()).map_err(|source| {
                SetupError::Io {
                    what: format!("cannot open {} for I/O", target.path.display()),
                    source,
                }
            })?,
        ),
    };
    let (span_len, data) = match phase.kind {
        PhaseKind::RestoreImage => {
            let image = p.image.as_deref().unwrap_or("synthetic");
            let source = if image == "synthetic" {
                ImageSource::Synthetic(io.seed)
            } else {
                let path = image_path(spec_path, image);
                ImageSource::File(File::open(&path).map_err(|source| SetupError::Io {
                    what: format!("cannot open the image {}", path.display()),
                    source,
                })?)
            };
            (
                p.image_bytes.unwrap_or(0),
                WriteData::Image {
                    source,
                    span_start: p.span_start_bytes,
                },
            )
        }
        _ => (
            p.span_bytes,
            WriteData::Pattern(DataGen::new(
                // A read-only phase writes nothing: no random pool to build.
                if p.read_percent == Some(100) {
                    DataPattern::Zeros
                } else {
                    p.data.unwrap_or(DataPattern::Random)
                },
                io.seed,
                p.block_size_mix
                    .as_ref()
                    .and_then(|m| m.iter().map(|e| e.bytes).max())
                    .unwrap_or(io.block_size) as usize,
            )),
        ),
    };
    let data = match data {
        WriteData::Pattern(g) if p.verify == Some(true) => WriteData::Stamped(
            g,
            crate::stamp::Stamp {
                phase: phase.index as u32,
                seed: io.seed,
            },
        ),
        d => d,
    };
    let stream = crate::plan::op_stream(phase);
    debug_assert_eq!(stream.span_len, span_len);
    let max_len = stream.sizes.max() as usize;
    let device_csv = csv_path.with_extension("device.csv");
    let csv_error = Mutex::new(None);
    // Flash slots per written unit on a simulated drive; a restored image is taken as incompressible.
    let slots = sim.map(|device| {
        let pattern = match &data {
            WriteData::Pattern(g) | WriteData::Stamped(g, _) => g.pattern(),
            WriteData::Image { .. } => DataPattern::Random,
        };
        device
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .slots_for(pattern)
    });
    let clock_kind = || match sim {
        Some(_) => ClockKind::Virtual(AtomicU64::new(0)),
        None => ClockKind::Wall,
    };
    let align = (target.logical_block_size as usize).max(4096);
    // Threads sharing the op stream: psync's `queue_depth` threads, or the one thread of the queue engines
    // and of a simulated drive (which then claim whole chunks, not one sequential op at a time).
    let sharers = if io.engine == EngineName::Psync && sim.is_none() {
        io.queue_depth
    } else {
        1
    };
    // The ramp: the same workload, unmeasured, before the measured part; the measured part continues the op
    // stream where the ramp stopped.
    let mut first = 0;
    let mut ramp_error = None;
    let mut ramp_errors = crate::engine::errors::ErrorTally::default();
    if let Some(ramp_ns) = p.ramp_ns {
        let ramp_ops = SharedOps::new(
            OpStream {
                total_ops: None,
                ..stream.clone()
            },
            sharers,
        );
        let ramp_ops = if p.rate_iops.is_some() {
            ramp_ops.one_at_a_time()
        } else {
            ramp_ops
        };
        let clock = IntervalClock {
            interval_ns: io.interval_ns,
            bound_ns: Some(ramp_ns),
        };
        let ramp = Job {
            file: file.as_ref(),
            ops: &ramp_ops,
            data: &data,
            queue_depth: io.queue_depth,
            max_len,
            align,
            start: OnceLock::new(),
            clock,
            deadline_ns: Some(ramp_ns),
            rate_iops: p.rate_iops,
            first_index: 0,
            interrupt: stop,
            abort: AtomicBool::new(false),
            clock_kind: clock_kind(),
            lockstep: None,
            on_error: p.on_error.unwrap_or(crate::spec::OnError::Stop),
            check: None,
        };
        // Nobody listens to the ramp's series: its recorders' messages are dropped.
        let (tx, _) = mpsc::channel::<Event>();
        let ramp_outcome = make_engine(sim, io.engine, slots, None, &csv_error).run(&ramp, &tx);
        ramp_error = ramp_outcome.error;
        ramp_errors = ramp_outcome.errors;
        // Like the measured part, the ramp lasts its length even when a rate cap issued its last op earlier.
        // (On a simulated drive the engine already ran the virtual clock to the ramp's end.)
        let now = ramp.now_ns();
        if sim.is_none()
            && ramp_error.is_none()
            && !stop.load(std::sync::atomic::Ordering::Relaxed)
            && now < ramp_ns
        {
            std::thread::sleep(std::time::Duration::from_nanos(ramp_ns - now));
        }
        first = ramp_ops.position();
    }
    let measured_started_at = p.ramp_ns.map(|_| crate::run::now_rfc3339());
    if let Some(error) = ramp_error {
        let csv = SeriesWriter::create(csv_path).map_err(|source| SetupError::Io {
            what: format!("cannot create {}", csv_path.display()),
            source,
        })?;
        let outcome = Outcome {
            read: crate::stats::LatencyRecorder::new(),
            write: crate::stats::LatencyRecorder::new(),
            end_ns: 0,
            sizes: Vec::new(),
            error: Some(error),
            errors: ramp_errors,
        };
        return Ok(IoPhaseOutcome {
            outcome,
            rows: csv.rows(),
            totals: Default::default(),
            measured_started_at,
            iops: Vec::new(),
            steady: None,
            ended_at_steady: false,
            device: None,
        });
    }
    let device_before = sim.map(|d| d.lock().unwrap_or_else(|p| p.into_inner()).counters());
    let shared = SharedOps::starting_at(stream, sharers, first);
    // Verified writes by several workers go one op at a time, so the ops in flight together stay close in
    // the stream (see verify::reorder_window).
    let shared = if p.rate_iops.is_some() || (p.verify == Some(true) && sharers > 1) {
        shared.one_at_a_time()
    } else {
        shared
    };
    let clock = IntervalClock {
        interval_ns: io.interval_ns,
        bound_ns: p.duration_ns,
    };
    let mut csv = SeriesWriter::create(csv_path).map_err(|source| SetupError::Io {
        what: format!("cannot create {}", csv_path.display()),
        source,
    })?;
    let job = Job {
        file: file.as_ref(),
        ops: &shared,
        data: &data,
        queue_depth: io.queue_depth,
        max_len,
        align,
        start: OnceLock::new(),
        clock,
        deadline_ns: p.duration_ns,
        rate_iops: p.rate_iops,
        first_index: first,
        interrupt: stop,
        abort: AtomicBool::new(false),
        clock_kind: clock_kind(),
        // Only a steady-state stop feeds a collector decision back into the engine; without one, the
        // simulation need not wait for each interval, only stay at most SIM_LAG ahead (memory).
        lockstep: sim.map(|_| match p.until {
            Some(crate::spec::Until::Steady) => LockStep::default(),
            _ => LockStep::with_lag(SIM_LAG),
        }),
        on_error: p.on_error.unwrap_or(crate::spec::OnError::Stop),
        check,
    };
    let engine = make_engine(sim, io.engine, slots, Some(&device_csv), &csv_error);
    let mut series = Series::new(clock, engine.workers(&job));
    let (tx, rx) = mpsc::channel::<Event>();
    let mut write_err: Option<io::Error> = None;
    let per_round = p
        .steady_round_ns
        .map_or(1, |r| (r / io.interval_ns).max(1) as usize);
    let keep_iops = !p.windows.is_empty() || p.aggregate_ns.is_some();
    let mut rows = Rows::new(p.steady_state, p.steady_leave, per_round, keep_iops);
    let until_steady = p.until == Some(crate::spec::Until::Steady);
    let mut ended_at_steady = false;
    let outcome = std::thread::scope(|s| {
        let runner = s.spawn(|| {
            let tx = tx;
            engine.run(&job, &tx)
        });
        for ev in rx.iter() {
            let Event::Closed {
                worker,
                index,
                counts,
                now_in,
            } = ev;
            series.close(worker, index, &counts, now_in);
            for (k, c) in series.ready() {
                let (a, b) = series.row_span(k, false, 0);
                let row = SeriesRow::new(a, b, clock.interval_ns, &c);
                if let Err(e) = csv.append(&row) {
                    write_err.get_or_insert(e);
                }
                on_row(&row);
                if rows.push(&row) && until_steady && !ended_at_steady {
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
    let mut outcome = outcome;
    // The ramp's I/Os are not measured, but its failed I/Os are counted.
    outcome.errors.merge(ramp_errors);
    // A time-bounded phase lasts its duration even when its last I/O (under a rate cap) was issued earlier:
    // on the wall clock by waiting it out, on a virtual clock (where no time passes by itself) by ending there.
    let ran_out = outcome.error.is_none()
        && !ended_at_steady
        && !stop.load(std::sync::atomic::Ordering::Relaxed);
    if let Some(d) = p.duration_ns.filter(|_| !job.is_virtual()) {
        let now = job.now_ns();
        if ran_out && now < d {
            std::thread::sleep(std::time::Duration::from_nanos(d - now));
        }
    }
    let mut end_ns = match p.duration_ns {
        Some(d) if job.is_virtual() && ran_out => outcome.end_ns.max(d),
        d => outcome.end_ns.max(d.unwrap_or(0).min(job.now_ns())),
    };
    // Buffered writes are not done until they reach the device: flush them inside the phase, so that
    // page-cache writeback is neither lost nor charged to the next phase.
    if let Some(file) = file.as_ref().filter(|_| !io.direct && phase.writes())
        && outcome.error.is_none()
    {
        if let Err(e) = file.sync_data() {
            outcome.error = Some(IoError {
                kind: OpKind::Write,
                offset: p.span_start_bytes,
                len: 0,
                cause: IoCause::Os(e),
            });
        }
        end_ns = end_ns.max(job.now_ns());
    }
    let cut_short = outcome.error.is_some()
        || ended_at_steady
        || stop.load(std::sync::atomic::Ordering::Relaxed);
    let tail = series.finish(end_ns, cut_short);
    let n = tail.len();
    for (i, (k, c)) in tail.into_iter().enumerate() {
        let (a, b) = series.row_span(k, i + 1 == n, end_ns);
        let row = SeriesRow::new(a, b, clock.interval_ns, &c);
        if let Err(e) = csv.append(&row) {
            write_err.get_or_insert(e);
        }
        on_row(&row);
        // A partial last row is not a full round: it stays out of steady-state rounds and windows.
        if row.partial == 0 {
            rows.push(&row);
        }
    }
    if let Some(e) = write_err {
        return Err(SetupError::Io {
            what: format!("cannot write {}", csv_path.display()),
            source: e,
        });
    }
    if let Some(e) = csv_error.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(SetupError::Io {
            what: format!("cannot write {}", device_csv.display()),
            source: e,
        });
    }
    let device = sim.zip(device_before).map(|(d, before)| {
        // The engine moved the drive's clock to the phase's end (its bound, for a time-bounded phase).
        d.lock()
            .unwrap_or_else(|p| p.into_inner())
            .counters()
            .since(&before)
    });
    outcome.end_ns = end_ns;
    Ok(IoPhaseOutcome {
        outcome,
        rows: csv.rows(),
        totals: series.totals(),
        measured_started_at,
        steady: rows.detector.as_ref().map(|d| d.verdict()),
        iops: rows.iops,
        ended_at_steady,
        device,
    })
}

/// The engine of a phase: the simulated drive's own for a simulated target (writing its internals to `csv`),
/// else the one the phase names.
fn make_engine<'a>(
    sim: Option<&'a Mutex<SimDevice>>,
    name: EngineName,
    slots: Option<u32>,
    csv: Option<&'a Path>,
    csv_error: &'a Mutex<Option<io::Error>>,
) -> Box<dyn Engine + Sync + 'a> {
    match (sim, name) {
        (Some(device), _) => Box::new(crate::engine::sim::Sim {
            device,
            slots: slots.unwrap_or(1),
            device_csv: csv,
            csv_error,
        }),
        (None, EngineName::Psync) => Box::new(Psync),
        (None, EngineName::Libaio) => Box::new(crate::engine::libaio::Libaio),
        (None, EngineName::IoUring) => Box::new(crate::engine::uring::Uring),
        (None, EngineName::Null) => Box::new(crate::engine::null::Null),
    }
}

/// Closed intervals a simulated drive may run ahead of the series collector (a simulation outruns the CSV
/// writer; each waiting interval holds one event of about 100 bytes).
const SIM_LAG: u64 = 4096;

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

/// Formats an I/O error with the phase it happened in.
pub fn describe(phase: &PhasePlan, e: &IoError) -> String {
    format!("phase {} \"{}\": {e}", phase.index, phase.name)
}
