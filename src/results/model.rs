//! The results document, format 1. Field by field in docs/results.md; the JSON Schema
//! (`schemas/result.schema.json`) is generated from these types.
//!
//! Conventions: counts are integers, rates are floats, times carry their unit in the name (`_s`, `_ns`);
//! no NaN or infinity anywhere (a rate over zero time is 0).

use crate::plan::PhaseParams;
use crate::spec::{EraseMethod, Label, PhaseKind};
use crate::stats::coverage::Coverage;
use crate::stats::{LatencyMoments, LatencySummary, SomePercentiles};
use crate::target::TargetInfo;
use crate::vocab::Direction;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the results format.
pub const RESULTS_FORMAT: u32 = 1;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Still running: the file was written at the end of a phase.
    Running,
    /// Every phase ran to its bound.
    Completed,
    /// Stopped by a signal; the phases so far are complete or partial.
    Interrupted,
    /// Stopped by an error (see `error`).
    Failed,
}

impl Status {
    /// The status as `results.json` spells it: `running`, `completed`, `interrupted`, `failed`.
    pub fn word(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Interrupted => "interrupted",
            Status::Failed => "failed",
        }
    }
}

/// A whole run: `results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "wkrun results, format 1")]
pub struct Results {
    /// Results format version: 1.
    pub format: u32,
    /// Version of wkrun that ran.
    pub wkrun_version: String,
    /// When the run started, RFC 3339 UTC.
    pub started_at: String,
    /// When the run ended, RFC 3339 UTC; absent while running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// How the run ended.
    pub status: Status,
    /// The error that stopped the run, when `status` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The signal that stopped the run (`SIGTERM`, `SIGRTMIN+3`), when `status` is `interrupted` by one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// The spec that ran.
    pub spec: SpecRef,
    /// The machine.
    pub host: HostInfo,
    /// The target.
    pub target: TargetInfo,
    /// The run's name in comparisons, reports and the results library: `--label NAME`, else the device's
    /// model and capacity, else the target's name. Absent in results written before labels, which are named
    /// by their folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How a launcher started this host's run (`--rank`, `--start-at`); absent when nothing asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<super::LaunchResult>,
    /// A folder written by `wkrun merge`: the hosts merged; absent for one host's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<super::Cluster>,
    /// Results wkrun did not run but read from another tool's output (fio's JSON, read by `compare` and
    /// `report`): the tool, its version and the file; absent for wkrun's own runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ResultsSource>,
    /// Results of `wkrun sim predict`: a spec run on a simulated drive fitted to a measured run (a
    /// prediction, not a measurement): the measured results and the fitted target. Absent for runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<Prediction>,
    /// The blocks of rounds (`[[repeat]]`) that ran a phase, in spec order: each complete round's tracking
    /// value, the SNIA PTS verdict over them, the measurement window and its per-cell means. Absent when the
    /// spec has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub round_blocks: Vec<super::rounds::RoundBlockResult>,
    /// The latency-target searches (`latency_target` with a list of queue depths) that ran a step, in
    /// spec order: the curve each walked (queue depth, IOPS, latency percentile per step), its answer and
    /// verdict. Absent when the spec has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency_searches: Vec<super::search::SearchResult>,
    /// The drive's health before and after the run: an NVMe namespace's SMART / health log (and the OCP
    /// extended page where the drive has it); for other targets, `available: false` and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<super::RunHealth>,
    /// The phases the run planned to run (from `--from` on), each by index, name and kind, written with its
    /// first `results.json`: those after the last of `phases` in a run that stopped early never ran. Absent
    /// in results written before it, and in fio's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_phases: Option<Vec<super::planned::PlannedPhase>>,
    /// Where a run started with `--from` past phase 0 began, and the phases before it that it took as done
    /// (each by index, name and kind), written with its first `results.json`. Absent in a run from phase
    /// 0, in results written before it, and in fio's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_phase: Option<super::from_phase::FromPhase>,
    /// Phases run so far, in order. A phase of a block of rounds that the block no longer needed (it was
    /// steady before that round) did not run and is not here: indices may skip.
    pub phases: Vec<PhaseResult>,
}

impl Results {
    /// Reads results written by an older wkrun as today's rules say them: a phase's `read_share` of reads
    /// over reads and writes alone, in a phase with trims (wkrun before 2026-12-07; trial 26's runs), is the
    /// share of all its I/Os ([`ReadShare::of`]), so runs kept in a library still compare and validate.
    /// A share that is neither rule's is left as it is, for `validate` to refuse.
    pub fn upgrade(&mut self) {
        for p in &mut self.phases {
            if p.read_share.is_some_and(|s| s.before_trims(p)) {
                p.read_share = ReadShare::of(p);
            }
        }
    }

    /// The run without its phases (`phases` empty): what changes between two writes besides new phases.
    pub fn envelope(&self) -> Results {
        Results {
            format: self.format,
            wkrun_version: self.wkrun_version.clone(),
            started_at: self.started_at.clone(),
            finished_at: self.finished_at.clone(),
            status: self.status,
            error: self.error.clone(),
            signal: self.signal.clone(),
            spec: self.spec.clone(),
            host: self.host.clone(),
            target: self.target.clone(),
            label: self.label.clone(),
            launch: self.launch.clone(),
            cluster: self.cluster.clone(),
            source: self.source.clone(),
            prediction: self.prediction.clone(),
            round_blocks: self.round_blocks.clone(),
            latency_searches: self.latency_searches.clone(),
            health: self.health.clone(),
            planned_phases: self.planned_phases.clone(),
            from_phase: self.from_phase.clone(),
            phases: Vec::new(),
        }
    }

    /// Whether a prediction and a measurement of these results and `other` can be paired
    /// ([`crate::plan::pairing::pairing`]).
    ///
    /// # Errors
    /// [`crate::plan::pairing::Unpaired`]: why not.
    pub fn pairing(&self, other: &Results) -> Result<(), crate::plan::pairing::Unpaired> {
        use crate::plan::pairing::{PairPhase, pairing};
        fn phases(r: &Results) -> Vec<PairPhase<'_>> {
            r.phases.iter().map(PhaseResult::pair_phase).collect()
        }
        pairing(
            &self.spec.name,
            &phases(self),
            &other.spec.name,
            &phases(other),
        )
    }
}

/// The other tool whose output these results were read from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultsSource {
    /// The tool: `"fio"`.
    pub tool: String,
    /// Its version as its output gives it (`"fio-3.33"`).
    pub version: String,
    /// The file read, as named.
    pub file: String,
}

/// What a prediction (`wkrun sim predict`) was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// The measured results file the simulated drive was fitted to, as named on the command line.
    pub measured: String,
    /// The fitted simulated drive the spec ran on (`sim:...`, as `wkrun sim fit` printed it).
    pub fitted_target: String,
    /// The measured run's `started_at`, which pairs the prediction with it in a report wherever either is
    /// read from (`measured` is relative to where `sim predict` ran); absent in results of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_run_started_at: Option<String>,
    /// The measured run's target (its `target.path`): with `measured_run_started_at`, the run it was
    /// fitted to among the targets of a run of several and their aggregate (`a + b`), which share one
    /// `started_at`; absent in results of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_run_target: Option<String>,
    /// The warnings of the fit that found `fitted_target`, as `wkrun sim fit` said them (without
    /// `warning: `): what the fit could not vouch for, such as a plateau too short to measure or a replayed
    /// fill off by more than its tolerance. Absent when the fit had none, or when the target was given with
    /// `--fitted` (that fit's warnings are not known to the prediction).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fit_warnings: Vec<String>,
    /// What the prediction's run changed of its spec, as its notes said them (without `note: `): the
    /// spec's own `[target]`, named with its size, replaced by the fitted drive of the measured capacity.
    /// Absent when the spec names no target.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `true` when `fitted_target` was given with `wkrun sim predict --fitted`, not found by a fit of this
    /// prediction: nothing but its capacity ties the drive to the measured run. Absent when the prediction
    /// fitted it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub target_given: bool,
}

/// Identity of the spec file that ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecRef {
    /// `[spec].name`.
    pub name: String,
    /// `[spec].version`.
    pub version: String,
    /// SHA-256 of the spec file's bytes, hex.
    pub sha256: String,
    /// Path of the spec file as given.
    pub path: String,
    /// `--set KEY=VALUE` overrides applied to the spec for this run; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
}

/// The machine that ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostInfo {
    /// Host name.
    pub hostname: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// CPUs available to wkrun.
    pub cpus: u32,
}

/// One phase's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseResult {
    /// 0-based position in the run.
    pub index: usize,
    /// Phase name.
    pub name: String,
    /// Phase kind.
    pub kind: PhaseKind,
    /// The sweep and matrix values that made this phase, e.g. `{"key": "span", "value": "93%", "sweep": "op"}`,
    /// so reports can chart across them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Label>,
    /// The resolved parameters (as in `wkrun plan --json`).
    pub params: PhaseParams,
    /// When the phase started, RFC 3339 UTC.
    pub started_at: String,
    /// After a `ramp`: when the measured part started, RFC 3339 UTC (`started_at` is the ramp's start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_started_at: Option<String>,
    /// Wall clock of t = 0 of the series (the measured part's clock start), ns since the Unix epoch; what
    /// `wkrun merge` aligns hosts by. Absent on a virtual clock (a simulated target) and without a series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_t0_unix_ns: Option<u64>,
    /// Phase length in s, from its start to its last completion.
    #[schemars(range(min = 0))]
    pub duration_s: f64,
    /// Whether the phase ran to its bound (`false` when interrupted or failed).
    pub completed: bool,
    /// Reads.
    pub read: DirStats,
    /// Writes.
    pub write: DirStats,
    /// Trims (`trim_percent`): discards or punched holes, each timed from before its syscall to after it;
    /// absent in a phase that issues none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirStats>,
    /// Reads and writes together, and trims where the phase issued them (case C08: a mixed cell's max is the
    /// largest of the maxima and its mean is weighted by op counts, never a blend of percentages);
    /// percentiles from the merged histograms.
    pub total: DirStats,
    /// Durable writes (`sync`) and flushes (`fsync`, `fdatasync`), where the phase asked for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncResult>,
    /// With more than one worker (`workers`): each worker's share, in worker order; their counts sum to the
    /// phase's `read` and `write` counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<WorkerResult>,
    /// File name of the per-interval series CSV (in the same folder), for phases that issue I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_csv: Option<String>,
    /// File name of the latency histogram log beside the series CSV (`NN-<phase>.hlog`, HdrHistogram's
    /// interval log): each series row's latency histogram per direction, from which its percentile columns
    /// come and which `wkrun merge` adds up. Absent in results written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hist_log: Option<String>,
    /// The per-I/O trace (`trace = N`): its file and how many completions it kept and dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceResult>,
    /// Share of the span's blocks the phase touched (I/O phases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// Share of reads among all completed I/Os (reads, writes and trims), by count and by bytes; absent
    /// when nothing completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_share: Option<ReadShare>,
    /// Completed I/Os per size (reads, writes and trims together), in order of first appearance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ops_by_size: Vec<SizeOps>,
    /// Steady-state verdict, for workloads with `steady_state`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyState>,
    /// Statistics of the series over each window the phase names (`windows`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<WindowResult>,
    /// Coarser averages of the IOPS series (`aggregate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregates: Option<Aggregates>,
    /// The phase's headline figures, in the order of its `headline` items (`params.headline`): what
    /// `wkrun compare` and the report lead with. Computed once, from the series and the fields above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headline: Vec<Figure>,
    /// Figures derived from the series for the headline: the worst interval, per-interval statistics, when
    /// the span had been written once (and N times), before and after a point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived: Option<crate::stats::derived::Derived>,
    /// Number of rows in the series CSV.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<u64>,
    /// Erase phases: the method actually used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erase_method: Option<EraseMethod>,
    /// Erase phases: bytes erased.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erased_bytes: Option<u64>,
    /// Failed I/Os of the phase (reads and writes that returned an error or fewer bytes than asked, and a
    /// verify phase's blocks that did not verify); absent when none failed. They are not counted in `read`,
    /// `write` or `total`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<PhaseErrors>,
    /// Verify phases: the sectors read back, by class, and the first mismatches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::verify::VerifySummary>,
    /// Things the reader should know about this phase's numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// How busy wkrun's own submitting threads were during the measured part (host targets and the `null`
    /// engine; absent for the simulated drive and phases that issue no I/O).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostResult>,
    /// On a simulated target: the drive's internals during the phase (the measured part, after any ramp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceResult>,
    /// wkrun's CPU time during the phase's I/O (I/O phases on the wall clock, not the simulated drive's
    /// virtual one): user and system, per I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<super::CpuResult>,
    /// A block device target: the kernel's I/O counters of the device during the phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<super::KernelResult>,
    /// The per-interval counters CSV (CPU time; a block device's kernel counters), `NN-<phase>.counters.csv`,
    /// next to results.json; absent on the simulated drive's virtual clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters_csv: Option<String>,
    /// An NVMe namespace target: what the phase did to the drive's SMART counters (and OCP media writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<crate::target::health::HealthDelta>,
    /// Zone-aware writes (`zone_mode = "zbd"`): what they did to the zones of the span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<ZonesResult>,
    /// A merged phase (`wkrun merge`): each host's part, in the order of `cluster.hosts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<super::HostPhase>,
    /// The latency histograms behind `read` and `write` (I/O phases with latencies recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_histograms: Option<super::LatencyHistograms>,
    /// Workloads with a rate cap or think time: how the I/Os arrived (think times taken, and latency measured
    /// from each I/O's intended issue time as well as from its submission).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<ArrivalsResult>,
    /// A step of a latency-target search: its latency percentile against the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<super::search::TargetStep>,
}

/// How a phase's I/Os arrived, under a schedule (a rate cap, evenly spaced or Poisson, or think time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArrivalsResult {
    /// Think times taken: idle periods after a burst of `think_every` I/Os, each after the queue drained
    /// (none after the last burst). 0 without `think_time`.
    pub think_periods: u64,
    /// Latency statistics from each I/O's intended issue time (its slot under the rate cap, or the release
    /// of its burst after a think time) to its completion, ns: at least the latency from submission
    /// (`latency_ns`), equal when no I/O was behind its schedule. What a user waiting on the schedule sees
    /// (coordinated omission: docs/results.md).
    pub latency_from_intended_ns: IntendedLatency,
    /// The caps of `rate_iops` (`"read"`, `"write"`, `"total"`) that the phase's mix cannot reach (its
    /// plan's warning says the rates they get): their schedule falls further behind through the run, so
    /// their latency from the intended time grows with the phase's length and says more of the spec than
    /// of the device. Absent when every cap can be kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreachable_caps: Vec<String>,
}

/// Latency from the intended issue time, per direction and over all; each null without I/Os.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntendedLatency {
    /// Reads.
    pub read: Option<LatencySummary>,
    /// Writes.
    pub write: Option<LatencySummary>,
    /// Trims (`trim_percent`); null when no trim completed. Absent in results written before wkrun kept
    /// it (their `total` has their trims all the same).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Option<LatencySummary>")]
    pub trim: Option<Option<LatencySummary>>,
    /// Every direction together: reads, writes and trims.
    pub total: Option<LatencySummary>,
}

impl IntendedLatency {
    /// Direction `d`'s entry; `None` for one the results do not have (`trim`, in results written before
    /// wkrun kept it).
    pub fn dir(&self, d: Direction) -> Option<&Option<LatencySummary>> {
        match d {
            Direction::Read => Some(&self.read),
            Direction::Write => Some(&self.write),
            Direction::Trim => self.trim.as_ref(),
        }
    }
}

/// A field that may be absent (`None`, by its `serde(default)`) or there and null (`Some(None)`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A phase's per-I/O trace (`trace = N`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceResult {
    /// File name of the trace CSV (`NN-<phase>.trace.csv`, same folder).
    pub file: String,
    /// Completions it holds (rows after the header).
    pub ios: u64,
    /// Completions past the cap, not in it: `ios + dropped` is the phase's completed I/Os.
    pub dropped: u64,
}

/// A phase's durable writes and flushes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncResult {
    /// The per-I/O flag every write carried (`"dsync"`: `RWF_DSYNC`, `"sync"`: `RWF_SYNC`); absent
    /// without `sync`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_flag: Option<crate::vocab::SyncWrites>,
    /// Completed writes that carried `write_flag` (every completed write of the phase; 0 without it).
    pub flagged_writes: u64,
    /// The flushes after every N writes (`fsync`, `fdatasync`); absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushes: Option<FlushResult>,
}

/// The flushes of a phase: fsync(2) or fdatasync(2) after every `every_writes` completed writes of each
/// worker, each timed on its own (not counted among the writes, nor in the series).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlushResult {
    /// `"fsync"` or `"fdatasync"`.
    pub call: String,
    /// Completed writes per flush, per worker.
    pub every_writes: u64,
    /// Flushes made: ⌊w / every_writes⌋ summed over the workers, where w is a worker's completed writes.
    pub ops: u64,
    /// Their latencies, each from before the call to its return (absent when none was made or latencies
    /// were not recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<LatencySummary>,
}

/// The failed I/Os of a phase. With `on_error = "stop"` the phase stopped at the first (the I/Os then in flight
/// may add a few more); with `"continue"` it went on after each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseErrors {
    /// Failed I/Os in total (a verify phase: plus its 512-byte sectors that did not verify).
    pub total: u64,
    /// Failed reads (and, in a verify phase, sectors that did not verify).
    pub read: u64,
    /// Failed writes.
    pub write: u64,
    /// Counts per cause, in order of first appearance.
    pub by_cause: Vec<ErrorCause>,
    /// The earliest failed I/O.
    pub first: FirstError,
}

/// How many I/Os failed with one cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorCause {
    /// The errno's name (`"EIO"`, `"ENOSPC"`, or `"errno N"` for rarer ones), `"short"` (the kernel transferred
    /// fewer bytes than asked), or `"mismatch"` (a verify phase's sector that did not verify).
    pub cause: String,
    /// The errno, when the kernel returned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errno: Option<i32>,
    /// Failed I/Os (or sectors) with this cause.
    pub count: u64,
}

/// The earliest failed I/O of a phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FirstError {
    /// `"read"` or `"write"`.
    pub op: String,
    /// Byte offset of the I/O on the target.
    pub offset_bytes: u64,
    /// Bytes the I/O asked for.
    pub len_bytes: u64,
    /// Its cause, as in `by_cause`.
    pub cause: String,
    /// The errno, when the kernel returned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errno: Option<i32>,
    /// The error in words, e.g. `write of 4096 B at offset 4194304 failed: No space left on device (errno 28)`.
    pub message: String,
}

/// A steady-state verdict over a phase's series (one round per interval).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteadyState {
    /// The rule applied (SNIA PTS or fio-style), as in the spec.
    pub criterion: crate::stats::steady::Rule,
    /// Whether steady state was reached.
    pub reached: bool,
    /// When it was reached: the end of the round that completed the first steady window, s from the
    /// measured start; absent when not reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_s: Option<f64>,
    /// When the drive left steady state (`steady_leave`): the end of the round whose window average first
    /// fell below the threshold, s from the measured start; absent when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_at_s: Option<f64>,
    /// Length of the measurement window, s (window rounds × round length).
    #[schemars(range(min = 0))]
    pub window_s: f64,
    /// Whether the phase ended because steady state was reached (`until = "steady"`); false when it ran to
    /// its bound.
    pub ended_phase: bool,
    /// When judging began: the end of the last round before the first judged one, s from the measured start
    /// (0 without `steady_after`); absent when the `steady_after` rule was never met (no round was judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_from_s: Option<f64>,
    /// Why judging began then, or why it never did, in words (the numbers are in `verdict.start`).
    #[serde(default)]
    pub judged_from_reason: String,
    /// Start of the window the verdict describes (the first steady window when reached, else the last
    /// window judged), s from the measured start; absent when no round was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_start_s: Option<f64>,
    /// End of that window, s from the measured start (`at_s` when reached); absent when no round was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_end_s: Option<f64>,
    /// The earliest time the rule could have declared steady state: the end of the rule's window of rounds
    /// counted from the first judged round ((`verdict.judged_from_round` + window) × round length), s from
    /// the measured start; absent when no round was judged. An `at_s` equal to it is the rule's floor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub earliest_at_s: Option<f64>,
    /// True when steady state was reached at `earliest_at_s`: the first window judged was steady, so the time
    /// to steady state says when the rule could first declare it, not when the drive settled.
    #[serde(default)]
    pub at_rule_floor: bool,
    /// Why no full window was judged, when none was: `steady_after` never met (`judged_from_reason`), or
    /// fewer judged rounds than the window; absent when a full window was judged. Reports say "not judged"
    /// with it rather than "not reached".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_judged: Option<String>,
    /// The full verdict: window mean/min/max, slope, excursions, leaving steady state.
    pub verdict: crate::stats::steady::Verdict,
}

impl SteadyState {
    /// The verdict in words, as reports and compare give it: `reached at 12.0 s`, with `, the earliest the
    /// rule allows (its first window)` when reached at the rule's floor; `not judged: <reason>`; `not reached`.
    pub fn verdict_text(&self) -> String {
        match (self.reached, self.at_s, &self.not_judged) {
            (true, Some(at), _) if self.at_rule_floor => {
                format!("reached at {at:.1} s, the earliest the rule allows (its first window)")
            }
            (true, Some(at), _) => format!("reached at {at:.1} s"),
            (true, None, _) => "reached".into(),
            (false, _, Some(why)) => format!("not judged: {why}"),
            (false, _, None) => "not reached".into(),
        }
    }
}

/// Statistics of one window of a phase's series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowResult {
    /// The window as written in the spec (`"1400s.."`, `"last 20m"`).
    pub spec: String,
    /// Start of the rows taken, s from the measured start.
    pub start_s: f64,
    /// End of the rows taken, s.
    pub end_s: f64,
    /// False when the series ended before the window did (e.g. a shortened trial run).
    pub complete: bool,
    /// Statistics of total IOPS per interval over the window; null when it holds no full interval.
    pub iops: Option<crate::stats::window::SliceStats>,
    /// When the series ended before the window did (`complete` false), what was taken instead, in words:
    /// `window clipped: the phase is 20s, the window last 20min` (the rows that exist), or, for a window
    /// that starts after the series' end, `window clipped: the phase is 20s, the window 1400s.. starts
    /// after its end: the whole phase instead` (every full row, as a trial run shortened with `--set
    /// duration=20s` needs a figure rather than none). Absent for a complete window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipped: Option<String>,
}

/// Which way a headline figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// More is better (IOPS, bandwidth).
    Higher,
    /// Less is better (latency, time to steady state, the spread of IOPS).
    Lower,
}

/// One headline figure of a phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    /// Stable identifier, the same for the same figure in every run: the headline item, then the figure
    /// (`"window last 20m avg"`, `"fill_once after lat_mean_us"`); `wkrun compare` matches runs by it.
    pub key: String,
    /// What it is, in words, without the unit (`"IOPS, last 20min, avg"`).
    pub label: String,
    /// Its value in `unit`; null when the phase has none (steady state not reached, the span never
    /// written once, no I/O in that direction).
    pub value: Option<f64>,
    /// The unit: `"IOPS"`, `"MB/s"` (10⁶ bytes per second), `"µs"` or `"s"`.
    pub unit: String,
    /// Which way is better; absent for a figure that is neither (when something happened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub better: Option<Better>,
}

/// Coarser averages of a phase's IOPS series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Aggregates {
    /// Length of each group, s.
    pub every_s: f64,
    /// The groups, in order: mean total IOPS per interval of each group.
    pub groups: Vec<crate::stats::window::Group>,
}

/// The read share of a phase's completed I/Os, every direction counted: reads, writes and trims, as
/// `read_percent` is a share of all of a workload's I/Os (trims included: `trim_percent`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadShare {
    /// read.ops / (read.ops + write.ops + trim.ops): reads over all completed I/Os, trims included.
    pub ops: f64,
    /// read.bytes / (read.bytes + write.bytes + trim.bytes): bytes read over all bytes of the completed
    /// I/Os, the bytes trims discarded included.
    pub bytes: f64,
}

/// The stats of a direction with no I/O.
static NO_IO: DirStats = DirStats {
    ops: 0,
    bytes: 0,
    iops: 0.0,
    bw_bytes_per_s: 0.0,
    latency_ns: None,
    latency_moments_ns: None,
    latency_percentiles_ns: None,
};

/// Whether `text`, one of a phase's `warnings`, is a note: something to know with nothing to fix, which the
/// console says as `note: ...` (`run::Ctx::note`): writes into holes this run's own erase or trims punched, and a fill's writes into holes
/// (laying the blocks out is what a fill does). The results keep notes among the warnings, so the
/// report tells them by their words, which `run::Ctx::note` checks each note has.
pub fn is_note(text: &str) -> bool {
    text.starts_with("writes into holes: as expected after this run's erase ")
        || text.starts_with("writes into holes: as expected after this run's trims ")
        || (text.starts_with("writes into ") && text.contains("; expected of a fill: "))
}

impl PhaseResult {
    /// The phase as [`crate::plan::pairing`] sees it: name, kind and parameters.
    pub fn pair_phase(&self) -> crate::plan::pairing::PairPhase<'_> {
        crate::plan::pairing::PairPhase {
            name: &self.name,
            kind: self.kind,
            params: &self.params,
        }
    }

    /// The parameters of its workload (and its kind) in which this phase and `other` differ
    /// ([`crate::plan::pairing::workload_diffs`]): each with its value here and in `other`, as
    /// `results.json` writes them; empty for the same workload (the duration may differ).
    pub fn workload_diffs(&self, other: &PhaseResult) -> Vec<(String, String, String)> {
        crate::plan::pairing::workload_diffs(&self.pair_phase(), &other.pair_phase())
    }

    /// Direction `d`'s stats: `read`, `write`, `trim` (none done where the phase has no `trim`).
    pub fn dir(&self, d: Direction) -> &DirStats {
        match d {
            Direction::Read => &self.read,
            Direction::Write => &self.write,
            Direction::Trim => self.trim.as_ref().unwrap_or(&NO_IO),
        }
    }

    /// Direction `d`'s stats to set (a phase's `trim` made when first set).
    pub fn dir_mut(&mut self, d: Direction) -> Option<&mut DirStats> {
        match d {
            Direction::Read => Some(&mut self.read),
            Direction::Write => Some(&mut self.write),
            Direction::Trim => Some(self.trim.get_or_insert_with(|| NO_IO.clone())),
        }
    }

    /// Whether the phase did not complete and measured no I/O (a run interrupted during the phase's ramp,
    /// or a phase failed at its first I/O): it has no figures, not figures of 0.
    pub fn unmeasured(&self) -> bool {
        !self.completed && self.total.ops == 0
    }

    /// The parts of a merged phase (`hosts`) that measured nothing ([`super::HostPhase::unmeasured`]), by position;
    /// empty for a phase that is not merged.
    pub fn unmeasured_parts(&self) -> Vec<usize> {
        (self.hosts.iter().enumerate())
            .filter(|(_, h)| h.unmeasured())
            .map(|(k, _)| k)
            .collect()
    }

    /// The bytes of the span the phase's writes are measured against (the report's span-written-once
    /// line): its `params.span_bytes`; in a merged phase, the spans of the hosts that began it added
    /// (`hosts[].span_bytes`, when every one of them has one: a host that never began the phase wrote none
    /// of its span).
    pub fn span_written_against(&self) -> u64 {
        self.hosts
            .iter()
            .filter(|h| h.began())
            .map(|h| h.span_bytes)
            .sum::<Option<u64>>()
            .filter(|_| !self.hosts.is_empty())
            .unwrap_or(self.params.span_bytes)
    }
}

impl ReadShare {
    /// The share of phase `p`'s reads among all its completed I/Os, from its directions' counts (`read`,
    /// `write` and `trim`: [`PhaseResult::dir`]); `None` when nothing completed. The one rule the run,
    /// fio's JSON, a merge and `wkrun validate` all use.
    pub fn of(p: &PhaseResult) -> Option<ReadShare> {
        let read = p.dir(Direction::Read);
        // Added past 64 bits: a results file's counts are read as they are (never a panic on them).
        let all = |f: fn(&DirStats) -> u64| -> u128 {
            Direction::ALL
                .iter()
                .map(|&d| u128::from(f(p.dir(d))))
                .sum()
        };
        let (ops, bytes) = (all(|s| s.ops), all(|s| s.bytes));
        (ops > 0).then(|| ReadShare {
            ops: read.ops as f64 / ops as f64,
            bytes: if bytes > 0 {
                read.bytes as f64 / bytes as f64
            } else {
                0.0
            },
        })
    }

    /// Whether `self`, the `read_share` of phase `p`, is the share as wkrun counted it before trims were
    /// in it (wkrun before 2026-12-07, results format 1 alike): reads over reads and writes, in a phase
    /// whose trims make the two rules differ.
    fn before_trims(&self, p: &PhaseResult) -> bool {
        let (r, w) = (p.dir(Direction::Read), p.dir(Direction::Write));
        let trims = p.dir(Direction::Trim).ops;
        let share = |a: u64, b: u64| (a + b > 0).then(|| a as f64 / (a as f64 + b as f64));
        let close = crate::results::check::close;
        trims > 0
            && share(r.ops, w.ops).is_some_and(|s| close(self.ops, s))
            && share(r.bytes, w.bytes).is_some_and(|s| close(self.bytes, s))
    }
}

/// Completed I/Os of one size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizeOps {
    /// Bytes per I/O.
    pub bytes: u64,
    /// Completed I/Os of that size.
    pub ops: u64,
}

/// One direction (reads or writes) of a phase. With zero ops every count is 0 and `latency_ns` is null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirStats {
    /// Completed I/Os.
    pub ops: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// ops / duration_s (0 when the duration is 0).
    #[schemars(range(min = 0))]
    pub iops: f64,
    /// bytes / duration_s (0 when the duration is 0).
    #[schemars(range(min = 0))]
    pub bw_bytes_per_s: f64,
    /// Latency statistics, ns; null when `ops` is 0.
    pub latency_ns: Option<LatencySummary>,
    /// Min, mean, stddev and max, ns, where `latency_ns` is null for want of percentiles though these are
    /// known: results read from fio's JSON whose clones (`numjobs` without `group_reporting`) or mixed
    /// total have no json+ bins to give percentiles of the whole; absent otherwise ([`DirStats::moments`]
    /// gives either).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_moments_ns: Option<LatencyMoments>,
    /// Where `latency_ns` is null for want of some of its percentiles (results read from fio's JSON whose
    /// `percentile_list` lacks some of p50, p90, p99, p99.9, p99.99): the ones fio gave, ns, each absent
    /// where unknown, beside `latency_moments_ns`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_percentiles_ns: Option<SomePercentiles>,
}

impl PhaseResult {
    /// The phase's totals in words, as the run's summary line, the several targets' sum and `wkrun merge`
    /// print them: `256 reads, 256 writes in 0.01 s: 41629 IOPS, 170.5 MB/s (read 20815 IOPS, 85.3 MB/s;
    /// write 20814 IOPS, 85.3 MB/s)`. The total IOPS and MB/s are every direction's added ([`Self::iops`],
    /// [`Self::bw_bytes_per_s`]): reads, writes and, in a phase with trims, trims (`5000 reads, 3000 writes,
    /// 2000 trims in 1.00 s: 10000 IOPS, ...`); each direction's in brackets when the phase did more than one.
    pub fn totals_text(&self) -> String {
        let dirs: Vec<Direction> = Direction::ALL
            .into_iter()
            .filter(|&d| d != Direction::Trim || self.trim.is_some())
            .collect();
        let counts: Vec<String> = dirs
            .iter()
            .map(|&d| format!("{} {}s", self.dir(d).ops, d))
            .collect();
        let active: Vec<Direction> = dirs
            .iter()
            .copied()
            .filter(|&d| self.dir(d).ops > 0)
            .collect();
        let each = match active.len() > 1 {
            true => {
                let parts: Vec<String> = active
                    .iter()
                    .map(|&d| {
                        let s = self.dir(d);
                        format!("{d} {:.0} IOPS, {:.1} MB/s", s.iops, s.bw_bytes_per_s / 1e6)
                    })
                    .collect();
                format!(" ({})", parts.join("; "))
            }
            false => String::new(),
        };
        format!(
            "{} in {:.2} s: {:.0} IOPS, {:.1} MB/s{each}",
            counts.join(", "),
            self.duration_s,
            self.iops(),
            self.bw_bytes_per_s() / 1e6
        )
    }

    /// The summary's latency line: mean, p99 and p99.9 of each direction that completed I/Os (fio's clat
    /// percentiles' tail), e.g.
    /// `latency: read mean 21.3 µs, p99 45.1 µs, p99.9 80.2 µs; write mean 1.25 ms, p99 3.40 ms, p99.9 5.10 ms`;
    /// in a phase of more than one direction, then the mean and largest of every I/O together (`total`:
    /// the mean weighted by op counts, seed 002's figure of a mixed cell), `; together mean 984.3 µs, max
    /// 12.08 ms`; `None` without any (no I/O, or per-I/O recording off).
    pub fn latency_text(&self) -> Option<String> {
        let mut parts: Vec<String> = Direction::ALL
            .into_iter()
            .filter_map(|dir| {
                let d = self.dir(dir);
                let l = d.latency_ns.as_ref().filter(|_| d.ops > 0)?;
                Some(format!(
                    "{dir} mean {}, p99 {}, p99.9 {}",
                    crate::units::latency(l.mean),
                    crate::units::latency(l.p99 as f64),
                    crate::units::latency(l.p99_9 as f64)
                ))
            })
            .collect();
        if let Some(t) = self.total.moments().filter(|_| parts.len() > 1) {
            parts.push(format!(
                "together mean {}, max {}",
                crate::units::latency(t.mean),
                crate::units::latency(t.max as f64)
            ));
        }
        (!parts.is_empty()).then(|| format!("latency: {}", parts.join("; ")))
    }

    /// The summary's line of a phase's flushes (`fsync`, `fdatasync`: `sync.flushes`), like fio's `sync`
    /// latency block: their count and call, then mean, p99 and max latency, e.g.
    /// `flushes: 333 fsync (after every 3 writes): mean 1.20 ms, p99 3.40 ms, max 5.00 ms`; the latencies left
    /// out when none were recorded; `None` in a phase without flushes, and where none could happen: a phase
    /// that asked for them but completed no write (a read-only phase with `fsync = N`).
    pub fn flush_text(&self) -> Option<String> {
        let f = self.sync.as_ref()?.flushes.as_ref()?;
        if f.ops == 0 && self.write.ops == 0 {
            return None;
        }
        let writes = match f.every_writes {
            1 => "after every write".to_string(),
            n => format!("after every {n} writes"),
        };
        let lat = match &f.latency_ns {
            Some(l) => format!(
                ": mean {}, p99 {}, max {}",
                crate::units::latency(l.mean),
                crate::units::latency(l.p99 as f64),
                crate::units::latency(l.max as f64)
            ),
            None => String::new(),
        };
        Some(format!("flushes: {} {} ({writes}){lat}", f.ops, f.call))
    }

    /// Every direction's IOPS added: `read.iops` + `write.iops` + `trim.iops` (a trim is an I/O, as in
    /// `total`). What the summary line, `wkrun compare` and the report call a phase's IOPS. A phase whose
    /// I/Os are in its `total` only ([`Self::split_unknown`]) has its total's.
    pub fn iops(&self) -> f64 {
        match self.split_unknown() {
            true => self.total.iops,
            false => Direction::ALL.iter().map(|&d| self.dir(d).iops).sum(),
        }
    }

    /// Every direction's bandwidth added (bytes per s), trims' bytes included, as [`Self::iops`].
    pub fn bw_bytes_per_s(&self) -> f64 {
        match self.split_unknown() {
            true => self.total.bw_bytes_per_s,
            false => Direction::ALL
                .iter()
                .map(|&d| self.dir(d).bw_bytes_per_s)
                .sum(),
        }
    }

    /// Whether the phase's I/Os are in its `total` alone, no direction having any: how many were reads,
    /// writes or trims is unknown (fio's JSON with its `mixed` block alone, `unified_rw_reporting=1`,
    /// whose warning says so). A phase wkrun ran never is: its total is its directions'.
    pub fn split_unknown(&self) -> bool {
        self.total.ops > 0 && Direction::ALL.iter().all(|&d| self.dir(d).ops == 0)
    }
}

/// One worker's share of an I/O phase: its part of the range and seed (as planned) and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkerResult {
    /// Worker number, from 0.
    pub worker: u32,
    /// First byte of its part of the range (the phase's range when the span is shared).
    pub span_start_bytes: u64,
    /// Length of its part in bytes.
    pub span_bytes: u64,
    /// Seed of its op stream and data.
    pub seed: u64,
    /// Time from the phase's t = 0 to its last completion, s (0 when it completed nothing): in a
    /// byte-bounded phase, how long it took for its share. Absent in results of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub duration_s: Option<f64>,
    /// Its reads: counts, rates over the phase's duration, latencies.
    pub read: DirStats,
    /// Its writes.
    pub write: DirStats,
    /// Its trims, where the phase issued them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirStats>,
    /// Its flushes (`fsync`, `fdatasync`): ⌊its completed writes / every_writes⌋.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushes: Option<u64>,
    /// Its failed I/Os (and a verify phase's blocks that did not verify).
    pub errors: u64,
}

impl DirStats {
    /// Stats from counts over `duration_s` seconds.
    pub fn new(
        ops: u64,
        bytes: u64,
        duration_s: f64,
        latency_ns: Option<LatencySummary>,
    ) -> DirStats {
        let rate = |x: u64| {
            if duration_s > 0.0 {
                x as f64 / duration_s
            } else {
                0.0
            }
        };
        DirStats {
            ops,
            bytes,
            iops: rate(ops),
            bw_bytes_per_s: rate(bytes),
            latency_ns,
            latency_moments_ns: None,
            latency_percentiles_ns: None,
        }
    }

    /// Its latency's min, mean, stddev and max: from `latency_ns`, else `latency_moments_ns`.
    pub fn moments(&self) -> Option<LatencyMoments> {
        self.latency_ns
            .as_ref()
            .map(LatencySummary::moments)
            .or(self.latency_moments_ns)
    }

    /// No I/O.
    pub fn zero() -> DirStats {
        DirStats::new(0, 0, 0.0, None)
    }
}

/// What a phase's zone-aware writes (`zone_mode = "zbd"`) did to the zones of its span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ZonesResult {
    /// Zones of the span.
    pub zones: u64,
    /// Zones the phase wrote at least once.
    pub written: u64,
    /// Zones reset by the phase: a full zone (write pointer at its capacity) about to be written again.
    pub resets: u64,
}

/// wkrun's own use of the host during one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostResult {
    /// CPU time of the busiest thread that submitted the phase's I/O over its wall time, from the start of
    /// the measured part to its last completion, 0..=1 (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, read twice
    /// per thread). Near 1, the thread never waited for the device: wkrun may have set the pace.
    #[schemars(range(min = 0, max = 1))]
    pub submit_cpu_fraction: f64,
    /// Threads that submitted I/O: 1 for `libaio`, `io_uring` and `null`, `queue_depth` for `psync`.
    pub submit_threads: u32,
    /// The largest share of its wall time a submitting thread spent runnable but waiting for a CPU (the
    /// scheduler's run delay, `/proc/thread-self/schedstat`, read at each end), 0..=1. Other processes or
    /// more threads than CPUs held the CPUs: the host set part of the pace. Absent where the kernel does
    /// not keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1))]
    pub cpu_wait_fraction: Option<f64>,
    /// An io_uring phase that probed for batched completion waits (`params.completion_waits = "probe"`):
    /// the rates it measured each way and the way it kept. Absent when the phase did not probe or ended
    /// before the probe did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_waits: Option<crate::vocab::WaitsProbe>,
}

/// A simulated drive's internals during one phase (totals; per interval in `device_csv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceResult {
    /// The per-interval CSV of the drive's internals, `NN-<phase>.device.csv`, next to results.json; absent
    /// for erase phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_csv: Option<String>,
    /// Bytes the host wrote, in whole 4 KiB mapping units (a 512 B write counts 4096).
    pub host_write_bytes: u64,
    /// Bytes programmed to flash: host data (after compression, when the model compresses) and
    /// garbage-collection copies.
    pub flash_write_bytes: u64,
    /// Bytes copied by garbage collection.
    pub gc_copy_bytes: u64,
    /// Erase blocks erased.
    pub erased_blocks: u64,
    /// Bytes of written 4 KiB units that discard (TRIM) unmapped: in an erase phase, what the erase
    /// actually released (units never written, or only partly inside the span, are not counted).
    #[serde(default)]
    pub trimmed_bytes: u64,
    /// Erased blocks ready for writing at the end of the phase.
    pub free_blocks: u64,
    /// Write amplification: flash_write_bytes / host_write_bytes; absent without host writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<f64>,
}

impl DeviceResult {
    /// The result of counters `c` accumulated over a phase, with its CSV.
    pub fn new(c: &crate::sim::DeviceCounters, device_csv: Option<String>) -> DeviceResult {
        DeviceResult {
            device_csv,
            host_write_bytes: c.host_write_bytes,
            flash_write_bytes: c.flash_write_bytes,
            gc_copy_bytes: c.gc_copy_bytes,
            erased_blocks: c.erased_blocks,
            trimmed_bytes: c.trimmed_bytes,
            free_blocks: c.free_blocks,
            write_amplification: c.write_amplification(),
        }
    }
}

#[cfg(test)]
mod tests {
    /// The notes the run says as `note:` are told from the warnings of the same kind (trial 16: the report
    /// labelled a sample's never-written-reads note `warning:`).
    #[test]
    fn notes_are_told_from_warnings() {
        let said = [
            (
                "never-written reads: 100.0 % of the span was not written in this run: add a fill phase before this one, or reads there may not reach the device (read span [0, 8388608), first gap [0, 8388608))",
                false,
            ),
            (
                "writes into holes: as expected after this run's erase (phase \"purge\"): 8388608 B (100.0 %) of the write range [0, 8388608) are holes in the file: ...",
                true,
            ),
            (
                "writes into holes: latencies include the file system's allocation work; expected of a fill: 4194304 B (50.0 %) ...",
                true,
            ),
            (
                "writes into unwritten (preallocated) blocks: latencies include the file system's allocation work; expected of a fill: ...",
                true,
            ),
            (
                "writes into holes: latencies include the file system's allocation work; run a fill first: 4194304 B (100.0 %) ...",
                false,
            ),
            (
                "busy host: the rates are below the device's; rerun on an idle host: ...",
                false,
            ),
        ];
        for (text, note) in said {
            assert_eq!(super::is_note(text), note, "{text}");
        }
    }
}
