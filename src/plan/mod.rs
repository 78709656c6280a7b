//! The plan: a spec resolved against one target. Every phase gets an exact byte range and a typed piece of
//! work ([`Work`]) with every field required: defaults are applied here, once, and everything after the plan
//! reads only the plan. Derived facts (the bytes a phase touches, its op stream, whether it writes) are asked
//! of the plan, never recomputed.
//!
//! Resolving ([`resolve`]) does no I/O beyond reading the target's geometry (done by the caller) and the size
//! of image files. [`record`] turns a phase into the parameters `plan --json` and `results.json` show;
//! [`replay`] replays the plan's writes for verification.

pub mod access;
mod caution;
pub use caution::{
    BUFFERED, DESCRIBES_RAM, IN_MEMORY, KEEPS_CACHED, PAGE_CACHE_SETS, UnkeptCap, buffered,
    caps_of, in_memory, pace_of, pacing_cap, unkept_caps, unkept_of,
};
mod holes;
pub use holes::{HolesCheck, TrimsBefore};
pub mod pairing;
pub mod record;
pub mod replay;
mod resolve;
pub(crate) use crate::spec::rules::default_block_size;
pub mod results_size;
pub mod rounds;
pub mod search;
mod show;
pub mod span;
pub mod zones;

pub use record::{PhaseParams, SizeWeight, WorkerPart};
pub use resolve::{direct_misaligned, phase_shape, phase_span, resolve};
pub use rounds::RoundBlock;
pub use show::{notes, render_text, window_notes};

use crate::engine::caps;
use crate::ops::{OpStream, Order, Sizes};
use crate::spec::Label;
use crate::stats::steady::{LeaveRule, Rule, StartRule};
use crate::stats::window::WindowSpec;
use crate::target::{TargetInfo, TargetKind};
use crate::vocab::{
    DataPattern, EngineKind, EraseMethod, Expect, OnError, PhaseKind, Rate, Until, WorkersSplit,
};
use serde::Serialize;
use std::path::{Path, PathBuf};

pub use crate::spec::rules::MAX_BUFFER_BYTES;
pub use crate::stats::{DEFAULT_INTERVAL_NS, MAX_INTERVALS};
/// Default size of the synthetic image: 256 MiB (capped at the span).
pub const DEFAULT_IMAGE_SIZE: u64 = 256 << 20;

/// A spec resolved against one target.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The spec's `[spec]` name.
    pub spec_name: String,
    /// The spec's `[spec]` version.
    pub spec_version: String,
    /// Path of the spec file.
    pub spec_path: PathBuf,
    /// The target and its geometry.
    pub target: TargetInfo,
    /// The run's name in comparisons, reports and the results library: `--label`, else the target's
    /// [`TargetInfo::default_label`].
    pub label: String,
    /// The phases, in run order.
    pub phases: Vec<PhasePlan>,
    /// Index of the first phase to run (`wkrun run --from`); the phases before it are taken as done, e.g.
    /// for a verify phase's expected content. 0 by default.
    #[serde(skip_serializing_if = "is_zero")]
    pub start_at: usize,
    /// What a launcher asked of this host's run (`--rank`, `--start-at`, `--phase-grid`); empty by default.
    #[serde(skip_serializing_if = "is_default_launch")]
    pub launch: crate::launch::Launch,
    /// The blocks of rounds (`[[repeat]]`): where each one's rounds are in `phases`, what is tracked and by
    /// which rule. The runner ends a block once it is steady and skips its phases left.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub round_blocks: Vec<RoundBlock>,
    /// The latency-target searches (`latency_target` with a list of queue depths): where each one's steps
    /// are in `phases`. The runner skips the steps after the first one over the target.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency_searches: Vec<search::SearchPlan>,
    /// The volatile write cache state the run sets before its first phase and restores at its end
    /// (`[target] write_cache`); `None` to leave it as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<crate::vocab::CacheState>,
    /// The run is a prediction (`wkrun sim predict`): what it is predicted from, recorded in its results
    /// from the first write on; `None` for a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction: Option<Predicted>,
}

/// What a prediction's run is predicted from (`wkrun sim predict`, results' `prediction`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Predicted {
    /// The measured results file the simulated drive was fitted to.
    pub measured: String,
    /// The fitted simulated drive (`sim:...`, as given).
    pub fitted_target: String,
    /// The measured run's `started_at`, which identifies it wherever its results are read from; `None`
    /// when they cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_run_started_at: Option<String>,
    /// The measured run's target (`target.path` of its results): with `measured_run_started_at`, it tells
    /// the run apart from the other targets and the aggregate of a run of several targets, which share its
    /// start; `None` when they cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_run_target: Option<String>,
    /// The warnings of the fit that found `fitted_target` (`wkrun sim fit`'s, without `warning: `); empty
    /// when it was given with `--fitted` or the fit had none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fit_warnings: Vec<String>,
    /// What the prediction's run changed of the spec, in words: the spec's own target replaced by the
    /// fitted drive (the note `wkrun sim predict`'s run makes, `predict/prediction.rs`); empty when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Whether `fitted_target` was given with `wkrun sim predict --fitted` rather than found by a fit of
    /// this prediction.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub target_given: bool,
    /// Whether the measured run can be paired with this prediction ([`pairing::pairing`]: the same spec,
    /// the phases of the one with fewer among the other's, each with the same workload), so comparing the
    /// two is meaningful; else why not (another spec, a phase's other workload or span), or
    /// [`pairing::Unpaired::NoPhases`] for measured results that cannot be read. What the run's `next:`
    /// line suggests; not recorded in the results.
    #[serde(skip)]
    pub paired: Result<(), pairing::Unpaired>,
}

fn is_default_launch(l: &crate::launch::Launch) -> bool {
    *l == crate::launch::Launch::default()
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Plan {
    /// The block of rounds that plans phase `index`, if one does.
    pub fn block_of(&self, index: usize) -> Option<(usize, &RoundBlock)> {
        self.round_blocks
            .iter()
            .enumerate()
            .find(|(_, b)| b.holds(index))
    }

    /// The phases that will run (from [`Plan::start_at`]).
    pub fn to_run(&self) -> impl Iterator<Item = &PhasePlan> {
        self.phases.iter().skip(self.start_at)
    }

    /// Whether the run writes to the target: a phase that will run writes, or the run lays out the file it
    /// creates ([`Plan::lays_out_for`]).
    pub fn writes(&self) -> bool {
        self.to_run().any(PhasePlan::writes) || self.lays_out_for().is_some()
    }

    /// Whether any phase opens the target on this host (not on the `null` engine, not on a simulated drive).
    pub fn opens_target(&self) -> bool {
        self.phases.iter().any(|p| p.opens_target(self.target.kind))
    }

    /// The phase for which the run lays out the file target it creates (writes its whole size once, before
    /// the first phase, as fio lays out a file it creates): the first phase that runs, reads, and comes before
    /// any phase that writes or erases. A file wkrun creates is preallocated, its blocks unwritten extents
    /// that the file system reads as zeros without touching the device, so reads there would measure
    /// nothing. `None` for any other target, and when a phase that writes or erases comes first (phases
    /// taken as done, before [`Plan::start_at`], count for what they write and erase, not for what they read).
    pub fn lays_out_for(&self) -> Option<&PhasePlan> {
        if !self.target.created || self.target.kind != TargetKind::File {
            return None;
        }
        for p in &self.phases {
            let reads = match &p.work {
                Work::Erase(_) => return None,
                Work::Io(w) => caps(w.io.engine).does_io && w.read_percent > 0,
                // A verify phase reads what earlier phases wrote: with none before it, nothing.
                Work::Verify(_) => false,
            } && p.index >= self.start_at;
            if p.writes() {
                return reads.then_some(p);
            }
            if reads {
                return Some(p);
            }
        }
        None
    }
}

/// A byte range `[start, start + len)` of the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// First byte.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
}

impl ByteRange {
    /// One past the last byte.
    pub fn end(self) -> u64 {
        self.start + self.len
    }
}

/// One resolved phase.
#[derive(Debug, Clone)]
pub struct PhasePlan {
    /// 0-based position in the run.
    pub index: usize,
    /// The phase's name.
    pub name: String,
    /// The phase's kind.
    pub kind: PhaseKind,
    /// The sweep and matrix values that made this phase (empty for a plain phase).
    pub labels: Vec<Label>,
    /// The span: the byte range the phase may touch (a whole number of blocks).
    pub span: ByteRange,
    /// What the phase does, with every parameter resolved.
    pub work: Work,
    /// How offsets and spans were rounded to whole blocks, in words (empty when nothing was rounded).
    pub rounding: Vec<String>,
    /// Why the phase's numbers may describe something other than the device (read-modify-write, the page
    /// cache), in words; the run copies them into the phase's results (`warnings`).
    pub warnings: Vec<String>,
    /// Where an importer took the phase from (the spec's `imported_from`).
    pub imported_from: Option<String>,
}

/// The work of a phase, by kind.
// One per phase, built once and read by reference: the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Work {
    /// Erase the span.
    Erase(EraseWork),
    /// Issue I/O: a fill, an image restore or a workload.
    Io(IoWork),
    /// Read the span back and check its stamps.
    Verify(VerifyWork),
}

/// An erase phase's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EraseWork {
    /// The method as the spec asks for it (`auto` by default); the one used is in the results.
    pub method: EraseMethod,
}

/// The settings every phase that issues I/O has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoSettings {
    /// The engine that runs the phase: the spec's, or the simulated drive's own on a simulated target.
    pub engine: EngineKind,
    /// O_DIRECT.
    pub direct: bool,
    /// Bytes per I/O; for a block-size mix, the smallest size, which is also the alignment of offsets.
    pub block_size: u64,
    /// A weighted block-size mix (workloads): sizes with a positive weight, in spec order.
    pub mix: Option<Vec<SizeWeight>>,
    /// I/Os in flight at once, per worker.
    pub queue_depth: u32,
    /// Workers (submitters), each with `queue_depth` I/Os in flight; 1 for a verify phase.
    pub workers: u32,
    /// How the workers share the span.
    pub split: WorkersSplit,
    /// The spec's `seed` for the phase (its own, `[defaults]`' or 1): with the phase's name, the seed of its
    /// op stream; alone, the seed of what phases share: the synthetic image and the places of a skewed
    /// distribution's hot blocks.
    pub seed: u64,
    /// Seed of the phase's op stream (offsets, directions, sizes), its data and its Poisson arrivals:
    /// [`crate::ops::phase_seed`] of `seed` and the phase's full name, so phases never replay each other.
    pub stream_seed: u64,
    /// Interval of the per-interval series, ns.
    pub interval_ns: u64,
    /// What the phase does when an I/O fails.
    pub on_error: OnError,
    /// Completions each worker waits for at a time: 1, or more where one wake per completion would cost the
    /// I/O itself CPU time ([`completions_per_wait`]).
    pub completions_per_wait: u32,
    /// Whether the engine probes for batched completion waits at the start of the phase ([`probe_waits`]).
    pub probe_waits: bool,
    /// How writes meet a zoned device's zones (`zone_mode`).
    pub zone_mode: crate::vocab::ZoneMode,
    /// io_uring with polled completions (`polled`, IORING_SETUP_IOPOLL).
    pub polled: bool,
    /// io_uring with a submission polling thread (`sq_poll`, IORING_SETUP_SQPOLL).
    pub sq_poll: bool,
    /// I/Os the phase's per-I/O trace keeps at most (`trace`); 0: no trace.
    pub trace: u64,
}

/// Completions a worker of `engine` with `queue_depth` I/Os in flight waits for at a time, with `workers`
/// workers on `cpus` CPUs: an eighth of the queue depth for io_uring when the workers take every CPU, else 1.
///
/// Where the kernel cannot do an io_uring write without blocking (a buffered file, zram), it hands it to an
/// io-wq kernel thread of the ring. With a submitter on every CPU, those threads share the CPUs with the
/// submitters, and a submitter woken for each completion takes the CPU from the thread doing the next
/// write, twice per I/O (measured: 1.82 context switches per I/O, half of fio's IOPS on zram with 2 workers
/// on 2 CPUs; one wake per 4 completions gave 1.5 times as many). A completion is timed when it is reaped, so the first of
/// a wait's completions is timed up to `n - 1` completions late: the phase says so (a caution). With fewer
/// workers than CPUs the io-wq threads have CPUs of their own and the wait stays 1, as it does for the other
/// engines (libaio does the write in the submitter, and psync and the simulated drive wait for one I/O).
pub fn completions_per_wait(engine: EngineKind, queue_depth: u32, workers: u32, cpus: u32) -> u32 {
    match engine {
        EngineKind::IoUring if workers >= cpus => (queue_depth / 8).max(1),
        _ => 1,
    }
}

/// Whether a phase of `engine` with `queue_depth` I/Os in flight and `workers` workers on `cpus` CPUs probes
/// for batched completion waits (unless the spec says `completion_waits = "each"`): io_uring with one
/// worker at a queue depth of 8 or more and a CPU to spare for the kernel's worker thread. (Several workers
/// would each decide alone, in mixed modes; with a worker on every CPU, [`completions_per_wait`] applies.)
///
/// Where io_uring hands the I/O to an io-wq kernel thread (zram, a buffered file on tmpfs), that thread sets
/// the device's pace and pays for waking the submitter after completions; a batched wait is ended by the
/// submitter's own timer instead. Whether that is faster depends on the device (zram: 0.99 to 2.5 times
/// fio's IOPS in the rounds measured, against 0.94 to 1.0 before; tmpfs: 0.5 to 0.8 times its own), so the
/// engine measures both at the start of the phase and keeps the faster (`engine::pace`); `params` says a
/// phase probes, and its warnings say when it kept batched waits.
pub fn probe_waits(engine: EngineKind, queue_depth: u32, workers: u32, cpus: u32) -> bool {
    engine == EngineKind::IoUring && queue_depth >= 8 && workers == 1 && cpus >= 2
}

/// The CPUs this process may run on (1 when the OS does not say).
pub fn host_cpus() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX))
}

/// The CPUs the machine has online (`/sys/devices/system/cpu/online`), when it says: more than
/// [`host_cpus`] when this process's CPU affinity was narrowed (a launcher's binding).
pub fn online_cpus() -> Option<u32> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").ok()?;
    cpu_list_len(text.trim())
}

/// The number of CPUs in a kernel CPU list (`0-3,6,8-9`: 7).
fn cpu_list_len(list: &str) -> Option<u32> {
    let mut n: u32 = 0;
    for part in list.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
        n = n.checked_add(b.checked_sub(a)?.checked_add(1)?)?;
    }
    Some(n)
}

impl IoSettings {
    /// The op lengths.
    pub fn sizes(&self) -> Sizes {
        match &self.mix {
            Some(mix) => Sizes::Mix(mix.iter().map(|e| (e.bytes, e.weight)).collect()),
            None => Sizes::Fixed(self.block_size),
        }
    }

    /// The largest op length, bytes (the size of each I/O buffer).
    pub fn largest_block(&self) -> u64 {
        self.sizes().max()
    }
}

/// A fill's, an image restore's or a workload's work.
#[derive(Debug, Clone)]
pub struct IoWork {
    /// Engine, block size, queue depth and the rest.
    pub io: IoSettings,
    /// Offset order.
    pub order: Order,
    /// Where a random workload's offsets fall (uniform for every other phase).
    pub access: crate::ops::dist::Access,
    /// The workload's `distribution` as the spec gives it, when not uniform.
    pub distribution: Option<crate::spec::Distribution>,
    /// Share of reads in percent (0 for fills and restores).
    pub read_percent: u8,
    /// Share of trims in percent (0 but for workloads with `trim_percent`); `read_percent + trim_percent`
    /// is at most 100, the rest writes.
    pub trim_percent: u8,
    /// Per-I/O durability of the writes (`sync`).
    pub sync: crate::vocab::SyncWrites,
    /// A flush after every N writes of each worker (`fsync`, `fdatasync`); `None` for none.
    pub flush: Option<FlushPlan>,
    /// Where written bytes come from.
    pub writes: WriteSource,
    /// When the phase ends.
    pub bound: Bound,
    /// Passes over the span, for a fill bounded by passes.
    pub passes: Option<u32>,
    /// What is measured beyond the series (workloads; empty for fills and restores).
    pub measure: Measure,
}

/// A flush after every `every` writes of each worker: `fsync = N`, or `fdatasync = N` (`data_only`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushPlan {
    /// Writes per flush, at least 1.
    pub every: u64,
    /// fdatasync rather than fsync.
    pub data_only: bool,
}

impl IoWork {
    /// The op mix: `read_percent` reads, `trim_percent` trims, the rest writes (the rules keep the two
    /// within 100; were they not, the trims would be cut to the rest).
    pub fn mix(&self) -> crate::ops::Mix {
        let trim = self.trim_percent.min(100 - self.read_percent.min(100));
        crate::ops::Mix::new(self.read_percent.min(100), trim)
            .unwrap_or_else(|| crate::ops::Mix::read_write(self.read_percent))
    }
}

/// Where the bytes of a phase's writes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteSource {
    /// A data pattern; `stamped` when every sector is stamped for verification (`verify = true`).
    Data {
        /// The pattern.
        pattern: DataPattern,
        /// Whether sectors are stamped.
        stamped: bool,
    },
    /// A raw image, restored to the start of the span.
    Image {
        /// `"synthetic"` or the image file's path as written in the spec.
        image: String,
        /// The image's size in bytes.
        bytes: u64,
    },
}

/// When an I/O phase ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// After exactly `ops` I/Os, transferring `bytes`.
    Ops {
        /// I/Os.
        ops: u64,
        /// Bytes (a restored image's last I/O may be short).
        bytes: u64,
    },
    /// After a time, ns.
    Time {
        /// Duration, ns.
        ns: u64,
    },
}

impl Bound {
    /// The number of I/Os, for a byte-bounded phase.
    pub fn ops(self) -> Option<u64> {
        match self {
            Bound::Ops { ops, .. } => Some(ops),
            Bound::Time { .. } => None,
        }
    }

    /// The duration in ns, for a time-bounded phase.
    pub fn duration_ns(self) -> Option<u64> {
        match self {
            Bound::Time { ns } => Some(ns),
            Bound::Ops { .. } => None,
        }
    }
}

/// What a workload measures beyond its series, and how it is paced.
#[derive(Debug, Clone, Default)]
pub struct Measure {
    /// Rate cap.
    pub rate_iops: Option<Rate>,
    /// How the rate cap spaces its issue times (the Poisson draws' seed: the phase's), and think time.
    pub arrivals: crate::vocab::Arrivals,
    /// A latency target's percentile (above 0, at most 100) and target (ns): the phase is a step of a
    /// search, and its results say whether that percentile of its latencies was under the target.
    pub latency_target: Option<(f64, u64)>,
    /// Unmeasured lead-in, ns.
    pub ramp_ns: Option<u64>,
    /// Steady-state detection.
    pub steady: Option<SteadyPlan>,
    /// `until` as the spec gives it (`steady`: the phase ends once steady).
    pub until: Option<Until>,
    /// Slices of the series to summarize.
    pub windows: Vec<Window>,
    /// Length of coarser averages of the IOPS series, ns.
    pub aggregate_ns: Option<u64>,
    /// The figures that lead the results, in order (the spec's `headline` or its default); a window it names
    /// is also in `windows`.
    pub headline: Vec<crate::stats::derived::Headline>,
}

impl Measure {
    /// Whether the phase ends once steady state is reached.
    pub fn until_steady(&self) -> bool {
        self.until == Some(Until::Steady)
    }
}

/// Steady-state detection over a phase's series.
#[derive(Debug, Clone, Copy)]
pub struct SteadyPlan {
    /// The rule.
    pub rule: Rule,
    /// The leave-steady-state rule.
    pub leave: Option<LeaveRule>,
    /// When judging may begin (`steady_after`, its `written` resolved to bytes against the span).
    pub start: Option<StartRule>,
    /// Length of a round as the spec gives it (`steady_round`), ns; `None` for one interval.
    pub round_ns: Option<u64>,
    /// Intervals per round (1 by default).
    pub intervals_per_round: u64,
}

impl SteadyPlan {
    /// Intervals per round of `round_ns` (the spec's `steady_round`; one interval without it).
    pub fn rounds_of(round_ns: Option<u64>, interval_ns: u64) -> u64 {
        round_ns.map_or(1, |r| (r / interval_ns.max(1)).max(1))
    }
}

/// A named slice of the series.
#[derive(Debug, Clone)]
pub struct Window {
    /// As written in the spec (`"last 20m"`).
    pub text: String,
    /// Parsed.
    pub spec: WindowSpec,
}

/// A verify phase's work: read the span back sequentially and check every sector.
#[derive(Debug, Clone)]
pub struct VerifyWork {
    /// Engine, block size, queue depth and the rest.
    pub io: IoSettings,
    /// What sectors are checked against.
    pub expect: Expect,
    /// How many mismatched sectors are listed.
    pub max_listed: u32,
    /// Reads: the span in blocks.
    pub ops: u64,
}

impl VerifyWork {
    /// The bound: every block of the span once.
    pub fn bound(&self) -> Bound {
        Bound::Ops {
            ops: self.ops,
            bytes: self.ops * self.io.block_size,
        }
    }
}

/// The share of a phase's span that its `ops` completed I/Os touched, as a run records it (`coverage`): the
/// blocks of `unit` bytes of its range of `range` bytes, touched exactly when `each_once` (sequential, or
/// random with full coverage: no block twice before every block once), else expected, under a skewed
/// `access` law by [`crate::ops::dist::expected_coverage`]; scaled by the range over the `span` (an image
/// restore's range is the image). One definition for the run (`PhasePlan::coverage`) and `wkrun validate`
/// ([`PhaseParams::coverage`]).
pub fn coverage(
    (range, span, unit): (u64, u64, u64),
    each_once: bool,
    access: Option<&crate::ops::dist::Access>,
    ops: u64,
) -> crate::stats::coverage::Coverage {
    let unit = unit.max(1);
    let fraction_of_span = if span > 0 {
        range as f64 / span as f64
    } else {
        0.0
    };
    let blocks = range.div_ceil(unit);
    let mut c = match access.filter(|a| !each_once && !a.is_uniform()) {
        // A skewed law: the expected share under that law, not the uniform formula.
        Some(a) => crate::stats::coverage::Coverage {
            fraction: crate::ops::dist::expected_coverage(a, blocks, unit, ops),
            exact: false,
        },
        None => crate::stats::coverage::coverage(blocks, ops, each_once),
    };
    c.fraction *= fraction_of_span;
    c
}

/// The threads that share one worker's op stream, each claiming its own chunks of it: one per queue slot on
/// an engine with a thread per slot (psync), else the engine's one thread.
pub fn stream_sharers(engine: EngineKind, queue_depth: u32) -> u32 {
    match caps(engine).thread_per_slot {
        true => queue_depth,
        false => 1,
    }
}

impl PhasePlan {
    /// The I/O settings of a phase that issues I/O (`None` for an erase).
    pub fn io(&self) -> Option<&IoSettings> {
        match &self.work {
            Work::Erase(_) => None,
            Work::Io(w) => Some(&w.io),
            Work::Verify(v) => Some(&v.io),
        }
    }

    /// The bytes the phase touches: its span, or for an image restore the image's bytes at the span's start.
    pub fn range(&self) -> ByteRange {
        match &self.work {
            Work::Io(IoWork {
                writes: WriteSource::Image { bytes, .. },
                ..
            }) => ByteRange {
                start: self.span.start,
                len: *bytes,
            },
            _ => self.span,
        }
    }

    /// The bytes the phase writes or erases, or `None` when it only reads (a verify phase, a 100 %-read
    /// workload).
    pub fn written_range(&self) -> Option<ByteRange> {
        match &self.work {
            Work::Verify(_) => None,
            Work::Io(w) if w.read_percent == 100 => None,
            _ => Some(self.range()),
        }
    }

    /// The bound of an I/O phase.
    pub fn bound(&self) -> Option<Bound> {
        match &self.work {
            Work::Erase(_) => None,
            Work::Io(w) => Some(w.bound),
            Work::Verify(v) => Some(v.bound()),
        }
    }

    /// Whether the phase writes to (or erases) the target. A phase on an engine that does no I/O (`null`)
    /// writes nothing.
    pub fn writes(&self) -> bool {
        let does_io = self.io().is_none_or(|io| caps(io.engine).does_io);
        does_io && self.written_range().is_some()
    }

    /// Whether the phase opens the target on this host: an erase of a file or device, or I/O on an engine
    /// that opens it.
    pub fn opens_target(&self, target: TargetKind) -> bool {
        match self.io() {
            None => target != TargetKind::Sim,
            Some(io) => caps(io.engine).opens_target,
        }
    }

    /// Whether every block of the range is visited once per pass (sequential, or random with full coverage).
    pub fn visits_each_block(&self) -> bool {
        match &self.work {
            Work::Io(w) => w.order != Order::Random,
            _ => true,
        }
    }

    /// The coverage of this phase once it completed `ops` I/Os ([`coverage`] of its range, span, block size,
    /// order and access law).
    pub fn coverage(&self, ops: u64) -> crate::stats::coverage::Coverage {
        let access = match &self.work {
            Work::Io(w) => Some(&w.access),
            _ => None,
        };
        let unit = self.io().map_or(1, |io| io.block_size);
        let each_once = self.visits_each_block();
        coverage(
            (self.range().len, self.span.len, unit),
            each_once,
            access,
            ops,
        )
    }

    /// The op stream of an I/O phase: a pure function of the plan (also replayed to verify).
    pub fn op_stream(&self) -> Option<OpStream> {
        let (io, order, mix, access) = match &self.work {
            Work::Erase(_) => return None,
            Work::Io(w) => (&w.io, w.order, w.mix(), w.access.clone()),
            Work::Verify(v) => (
                &v.io,
                Order::Sequential,
                crate::ops::Mix::read_write(100),
                Default::default(),
            ),
        };
        Some(OpStream {
            span_start: self.span.start,
            span_len: self.range().len,
            sizes: io.sizes(),
            order,
            mix,
            seed: io.stream_seed,
            access,
            total_ops: self.bound().and_then(Bound::ops),
        })
    }
}

/// What the workers of a phase are dealt from: its range (the span, or a restored image's bytes), its
/// blocks' unit (the smallest size of a mix), its offset order, its byte bound in I/Os (`None` for a time
/// bound) and its stream seed. A plan's phase has it ([`PhasePlan::workers`]), and so do the parameters a
/// results file records (`results::workers_check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamShape {
    /// The bytes the phase's ops fall in.
    pub range: ByteRange,
    /// Bytes per block.
    pub unit: u64,
    /// The offset order.
    pub order: Order,
    /// The phase's I/Os, for a byte bound.
    pub total_ops: Option<u64>,
    /// The phase's stream seed (worker 0's).
    pub seed: u64,
}

/// The `of` workers of a phase of shape `s` split `split`: each one's part of the range, seed and share of
/// the I/Os. The one definition of how a phase is dealt out, which the run takes ([`PhasePlan::workers`])
/// and `wkrun validate` holds a results file's `params.worker_parts` to.
pub fn deal_workers(s: &StreamShape, of: u32, split: WorkersSplit) -> Vec<WorkerPlan> {
    let of = of.max(1);
    let range = s.range;
    let unit = s.unit.max(1);
    let part = of > 1 && split == WorkersSplit::Partitioned;
    let all_blocks = range.len.div_ceil(unit);
    // A sequential stream bounded to less than a pass covers the range's first `n` blocks only: those
    // are cut into the parts, so that each worker has its share of them.
    let blocks = match (part, s.order, s.total_ops) {
        (true, Order::Sequential, Some(n)) if n < all_blocks && n >= of as u64 => n,
        _ => all_blocks,
    };
    (0..of)
        .map(|w| {
            let (w64, of64) = (w as u64, of as u64);
            let (b0, nb) = match part {
                true => (
                    share_start(blocks, w64, of64),
                    even_share(blocks, w64, of64),
                ),
                false => (0, blocks),
            };
            let start = range.start + b0 * unit;
            let len = (nb * unit).min(range.end().saturating_sub(start));
            let ops = s.total_ops.map(|n| {
                let (passes, rest) = (n / blocks.max(1), n % blocks.max(1));
                match (part, s.order) {
                    (true, Order::Sequential) => passes * nb + rest.saturating_sub(b0).min(nb),
                    (true, Order::RandomFull) => passes * nb + even_share(rest, w64, of64),
                    _ => even_share(n, w64, of64),
                }
            });
            WorkerPlan {
                index: w,
                of,
                range: ByteRange { start, len },
                seed: crate::ops::worker_seed(s.seed, w),
                ops,
            }
        })
        .collect()
}

/// One worker of an I/O phase as the plan shares the phase out: its part of the range, its seed, its share of
/// the byte bound. Its op stream ([`PhasePlan::worker_stream`]) is a pure function of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerPlan {
    /// 0-based worker number.
    pub index: u32,
    /// Workers of the phase.
    pub of: u32,
    /// The bytes its ops fall in: a contiguous part of the phase's range (partitioned), or the whole range
    /// (shared, or one worker).
    pub range: ByteRange,
    /// Seed of its op stream and its data: the phase's stream seed ([`IoSettings::stream_seed`]) for worker
    /// 0, a mix of it and the worker number for the others.
    pub seed: u64,
    /// Its I/Os, for a byte-bounded phase: the workers' shares sum to the phase's.
    pub ops: Option<u64>,
}

impl WorkerPlan {
    /// Its share of a rate cap: its `k`-th op (or `k`-th read, or write) is issued at the time of slot
    /// `k · of + index` of the phase's cap, so the workers' slots interleave and together make the cap.
    pub fn rate_slot(&self) -> (u64, u64) {
        (self.of as u64, self.index as u64)
    }
}

/// Worker `w`'s share of `n` things dealt evenly to `of` workers: `n / of`, one more for the first `n % of`.
fn even_share(n: u64, w: u64, of: u64) -> u64 {
    n / of + u64::from(w < n % of)
}

/// The first of worker `w`'s share when `n` things are dealt evenly and in order to `of` workers.
fn share_start(n: u64, w: u64, of: u64) -> u64 {
    w * (n / of) + w.min(n % of)
}

impl PhasePlan {
    /// The workers of an I/O phase (none for an erase). Partitioned: worker `w` gets the `w`-th of
    /// `workers` contiguous parts of whole units (`blocks / workers` each, one more for the first
    /// `blocks % workers`) of the region the phase covers: the range, or for a sequential stream bounded
    /// to less than one pass of `n` blocks (at least one per worker), the range's first `n` blocks, which
    /// each worker then writes once. A byte bound is dealt out: a random stream's ops evenly; a stream that
    /// visits every block (sequential, full coverage) gives each worker its part's blocks once per whole
    /// pass, and of a last partial pass of `rest` blocks a sequential stream's workers the blocks of their
    /// parts among the range's first `rest` blocks (the blocks one worker would write), a full-coverage
    /// stream's workers `rest` dealt evenly (each block of its part at most once more).
    pub fn workers(&self) -> Vec<WorkerPlan> {
        let Some(stream) = self.stream_shape() else {
            return Vec::new();
        };
        let (of, split) = self.io().map_or((1, WorkersSplit::Partitioned), |io| {
            (io.workers.max(1), io.split)
        });
        deal_workers(&stream, of, split)
    }

    /// What the phase's workers are dealt from ([`deal_workers`]); `None` for an erase.
    pub fn stream_shape(&self) -> Option<StreamShape> {
        let s = self.op_stream()?;
        Some(StreamShape {
            range: self.range(),
            unit: s.sizes.unit(),
            order: s.order,
            total_ops: s.total_ops,
            seed: s.seed,
        })
    }

    /// The op stream of one worker: the phase's stream over the worker's part, with its seed and its share
    /// of the ops. For one worker, the phase's stream ([`PhasePlan::op_stream`]).
    pub fn worker_stream(&self, w: &WorkerPlan) -> Option<OpStream> {
        let s = self.op_stream()?;
        Some(OpStream {
            span_start: w.range.start,
            span_len: w.range.len,
            seed: w.seed,
            total_ops: w.ops,
            ..s
        })
    }
}

impl Serialize for PhasePlan {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// The phase as `plan --json` prints it.
        #[derive(Serialize)]
        struct Record<'a> {
            index: usize,
            name: &'a str,
            kind: PhaseKind,
            #[serde(skip_serializing_if = "<[Label]>::is_empty")]
            labels: &'a [Label],
            params: PhaseParams,
            rounding: &'a [String],
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            warnings: &'a [String],
        }
        Record {
            index: self.index,
            name: &self.name,
            kind: self.kind,
            labels: &self.labels,
            params: self.params(),
            rounding: &self.rounding,
            warnings: &self.warnings,
        }
        .serialize(s)
    }
}

/// An image path from a spec: relative paths are relative to the spec file's folder.
pub fn image_path(spec_path: &Path, image: &str) -> PathBuf {
    let p = Path::new(image);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        spec_path.parent().unwrap_or(Path::new(".")).join(p)
    }
}
