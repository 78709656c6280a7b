//! The parts of `results.json` for runs on many hosts: how a launcher started a host's run
//! ([`LaunchResult`]), each phase's latency histograms ([`LatencyHistograms`], which `wkrun merge` adds up),
//! and in a merged folder the hosts merged ([`Cluster`]) and each phase's per-host breakdown ([`HostPhase`]).
//! Field by field in docs/results.md; docs/hosts.md says how they are used.

use super::model::{DirStats, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a launcher started this host's run: its rank, the common start and each phase's start against it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LaunchResult {
    /// This host's rank (0 for the first host), when `--rank` or a launcher's variable gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Where the rank was read: the variable (`OMPI_COMM_WORLD_RANK`, `PMIX_RANK`, `PMI_RANK`,
    /// `SLURM_ARRAY_TASK_ID`, `SLURM_PROCID`, `JOB_COMPLETION_INDEX`) or `--rank`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_source: Option<String>,
    /// The requested start of the first phase (`--start-at`), RFC 3339 UTC with ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<String>,
    /// The same, ns since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_unix_ns: Option<u64>,
    /// `--phase-grid`, s: later phases start at the next multiple of it after `start_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_grid_s: Option<f64>,
    /// Each phase started on the schedule: when it was asked to start and when it did, by this host's clock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phase_starts: Vec<PhaseStart>,
    /// What the kernel says of this host's clock discipline (`adjtimex`), read at the start of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSync>,
}

/// One phase's start on the schedule, by this host's wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseStart {
    /// The phase's index.
    pub index: usize,
    /// When the phase was asked to start, ns since the Unix epoch.
    pub requested_unix_ns: u64,
    /// When it started: t = 0 of its series (`series_t0_unix_ns`), or for a phase without a series the end
    /// of the wait, ns since the Unix epoch.
    pub started_unix_ns: u64,
    /// `started_unix_ns - requested_unix_ns`, ns: the wake-up delay plus the phase's setup (opening its CSV,
    /// the engine's buffers); negative only if the clock stepped back.
    pub offset_ns: i64,
}

/// The kernel's view of the host's clock (`adjtimex(2)`, read only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockSync {
    /// False when the kernel marks the clock unsynchronized (`STA_UNSYNC`: no NTP or PTP daemon disciplines
    /// it): the hosts may then disagree on when `start_at` is.
    pub synchronized: bool,
    /// The kernel's maximum error estimate, µs (`maxerror`).
    pub max_error_us: i64,
    /// The kernel's estimated error, µs (`esterror`).
    pub est_error_us: i64,
}

/// A phase's latency histograms per direction, and its flushes': the non-empty buckets of the HDR histogram the percentiles
/// come from (3 significant digits, 1 ns to 1 h), as `[value_ns, count]` pairs in increasing value, where
/// value is the highest latency the bucket holds. Adding the counts of two histograms bucket by bucket merges
/// them exactly: `wkrun merge` takes cluster-wide percentiles from the sum, not from averages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatencyHistograms {
    /// Reads: `[value_ns, count]` pairs.
    pub read: Vec<[u64; 2]>,
    /// Writes: `[value_ns, count]` pairs.
    pub write: Vec<[u64; 2]>,
    /// Trims (`trim_percent`): `[value_ns, count]` pairs; absent in a phase without trims (and in results
    /// written before trims had histograms).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trim: Vec<[u64; 2]>,
    /// Flushes (`fsync`, `fdatasync`: `sync.flushes`, not a direction): `[value_ns, count]` pairs, which
    /// hold `sync.flushes.ops`; absent in a phase that made no flush (and in results written before
    /// flushes had histograms).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flush: Vec<[u64; 2]>,
}

impl LatencyHistograms {
    /// Direction `d`'s pairs.
    pub fn dir(&self, d: crate::vocab::Direction) -> &Vec<[u64; 2]> {
        match d {
            crate::vocab::Direction::Read => &self.read,
            crate::vocab::Direction::Write => &self.write,
            crate::vocab::Direction::Trim => &self.trim,
        }
    }
}

/// A merged folder (`wkrun merge`): the hosts whose results were merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// The hosts, in rank order (the order given when a host has no rank).
    pub hosts: Vec<ClusterHost>,
    /// How each host's series rows were put on the common grid.
    pub alignment: String,
}

/// One host of a merged folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClusterHost {
    /// The host's rank, when its run recorded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Where the rank was read (`launch.rank_source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_source: Option<String>,
    /// The results file merged, as given.
    pub results: String,
    /// Host name.
    pub hostname: String,
    /// The host's target.
    pub target_path: String,
    /// The host's target's capacity, bytes.
    pub capacity_bytes: u64,
    /// The host's target's kind (its `target.kind`): the aggregate of a run on a file and a block device
    /// keeps the first's as its own `target.kind`, the hosts' say both. Absent in folders written before
    /// it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_kind: Option<crate::target::TargetKind>,
    /// How the host's run ended.
    pub status: Status,
    /// The host's run started, RFC 3339 UTC.
    pub started_at: String,
    /// The first phase's start offset on this host (`launch.phase_starts[0].offset_ns`), ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_offset_ns: Option<i64>,
    /// The host's clock discipline (`launch.clock`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSync>,
}

/// One host's part of a merged phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostPhase {
    /// Position of the host in `cluster.hosts`.
    pub host: usize,
    /// The host's rank, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// When the phase started on the host, RFC 3339 UTC; absent when the host never began it (its run
    /// ended before this phase: interrupted or failed sooner, or stopped during `--start-at`'s wait): such
    /// a part counts nothing, lies at no time and did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// `true` when the host's run was in this phase when it ended without writing its results (its results
    /// say `running` and hold no such phase, but the phase's series CSV is in its folder: killed?,
    /// [`crate::results::Results::stopped_in`]); such a part is blank as one never begun is, and is said to
    /// have stopped in the phase. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_in: Option<bool>,
    /// t = 0 of the host's series, ns since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_t0_unix_ns: Option<u64>,
    /// The phase's length on the host, s.
    #[schemars(range(min = 0))]
    pub duration_s: f64,
    /// Whether the phase ran to its bound on the host.
    pub completed: bool,
    /// The host's span, bytes (its `params.span_bytes`): the merged phase's writes are measured against
    /// the hosts' spans added (`fill_once`, the report's span-written-once line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_bytes: Option<u64>,
    /// The host's reads.
    pub read: DirStats,
    /// The host's writes.
    pub write: DirStats,
    /// The host's trims, where the phase issued them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirStats>,
}

impl HostPhase {
    /// Whether this part did not complete and measured no I/O, as [`super::PhaseResult::unmeasured`] says of
    /// a phase: its host's run stopped before the phase's measured part began (interrupted during its
    /// ramp), or it failed at its first I/O. The merged figures are the other parts'.
    pub fn unmeasured(&self) -> bool {
        let ops = [Some(&self.read), Some(&self.write), self.trim.as_ref()];
        !self.completed && ops.into_iter().flatten().all(|s| s.ops == 0)
    }

    /// Whether the host began the phase at all (it has a `started_at`): a part that did not is one whose
    /// host's run ended before the phase, which [`HostPhase::unmeasured`] counts among those that measured
    /// nothing.
    pub fn began(&self) -> bool {
        self.started_at.is_some()
    }

    /// Whether the host's run ended in this phase without writing its results ([`HostPhase::stopped_in`]).
    pub fn stopped_unwritten(&self) -> bool {
        self.stopped_in == Some(true)
    }
}

/// Where the parts of a merged phase lie on the wall clock.
pub struct Span {
    /// The earliest part's series start, when every part has one (not a simulated drive's virtual clock).
    pub origin: Option<u64>,
    /// Each part's start after the earliest, ns (0 without a common clock).
    pub shifts: Vec<u64>,
    /// The merged phase's duration: from the earliest start to the latest end (the longest part without a
    /// common clock).
    pub duration_s: f64,
}

/// The span of the parts of a merged phase, each given by its series start (`series_t0_unix_ns`) and its
/// `duration_s`: what `wkrun merge` makes the merged phase's duration and start of, and what `wkrun
/// validate` holds a merged phase's to, from its parts (`hosts`). A part with neither (its run stopped
/// during the phase's ramp: it measured nothing) lies nowhere: the others' series starts still align.
pub fn span(parts: &[(Option<u64>, f64)]) -> Span {
    // The wall clock aligns hosts when every one has it (not a simulated drive's virtual clock); a part
    // with neither a series start nor a duration measured nothing (its run stopped during the ramp) and
    // is at no time: it leaves the others' clock as it is.
    let timed = parts.iter().filter(|p| p.0.is_some() || p.1 > 0.0);
    let t0: Option<Vec<u64>> = timed.map(|p| p.0).collect();
    let origin = t0.as_ref().and_then(|v| v.iter().copied().min());
    let shifts: Vec<u64> = match origin.filter(|_| t0.is_some()) {
        Some(o) => (parts.iter()).map(|p| p.0.map_or(0, |t| t - o)).collect(),
        None => vec![0; parts.len()],
    };
    let duration_s = (0..parts.len())
        .map(|h| shifts[h] as f64 / 1e9 + parts[h].1)
        .fold(0.0, f64::max);
    Span {
        origin,
        shifts,
        duration_s,
    }
}
