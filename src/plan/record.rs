//! The record of a resolved phase: its parameters as `plan --json` prints them and `results.json` keeps them
//! (`phases[].params`). Written from the typed [`PhasePlan`]; read back by `report` and `compare`. A key that
//! does not apply to the phase's kind is absent.

use super::{Bound, IoSettings, Measure, PhasePlan, SteadyPlan, Window, Work, WriteSource};
use crate::ops::Order;
use crate::stats::derived::Headline;
use crate::stats::steady::{LeaveRule, Rule, StartRule};
use crate::stats::window::WindowSpec;
use crate::vocab::{
    CompletionWaits, Coverage, DataPattern, EngineKind, EraseMethod, Expect, OnError, Pattern,
    Rate, Until, WorkersSplit,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The resolved parameters of a phase. Keys that do not apply to the phase's kind are absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseParams {
    /// First byte of the span (a multiple of the block size).
    pub span_start_bytes: u64,
    /// Length of the span in bytes (a whole number of blocks).
    pub span_bytes: u64,
    /// Bytes per I/O (the last I/O of a restored image may be shorter); for a block-size mix, the smallest
    /// size, which is also the alignment of offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size_bytes: Option<u64>,
    /// A weighted block-size mix (workloads): sizes with a positive weight, in spec order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size_mix: Option<Vec<SizeWeight>>,
    /// Queue depth: I/Os in flight at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u32>,
    /// Workers (submitters), each with `queue_depth` I/Os in flight (fill, restore-image, workload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
    /// How the workers share the span, with more than one worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers_split: Option<WorkersSplit>,
    /// With more than one worker: each worker's part of the range, seed and share of the I/Os, as the plan
    /// deals them out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worker_parts: Vec<WorkerPart>,
    /// I/O engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineKind>,
    /// Completions each worker waits for at a time, when more than 1 (io_uring with a worker on every CPU:
    /// an eighth of the queue depth); absent when 1. A completion is timed when its wait ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions_per_wait: Option<u32>,
    /// `"probe"` when the phase's engine probes at its start whether batched completion waits are faster
    /// (io_uring, one worker, a queue depth of 8 or more, a CPU to spare, no rate cap, `completion_waits`
    /// not `"each"`; on a kernel without the minimum wait, before Linux 6.12, it waits per completion);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_waits: Option<CompletionWaits>,
    /// O_DIRECT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<bool>,
    /// `zbd` when each write goes to its zone's write pointer (`zone_mode = "zbd"`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_mode: Option<crate::vocab::ZoneMode>,
    /// `true` when the io_uring ring polled for completions (`polled`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polled: Option<bool>,
    /// `true` when a kernel thread polled the io_uring submission ring (`sq_poll`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sq_poll: Option<bool>,
    /// The most I/Os the phase's per-I/O trace kept (`trace`); absent without a trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<u64>,
    /// Data written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataPattern>,
    /// The spec's `seed` for the phase (its own, `[defaults]`' or 1): the seed of the synthetic image and of
    /// a skewed distribution's hot blocks, and with the phase's name of its op stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Seed of the phase's op stream (offsets, directions, sizes), data and Poisson arrivals: a hash of
    /// `seed` and the phase's full name, so no two phases of a run draw the same stream; worker 0's seed with
    /// several workers. Absent in results of wkrun before it (their streams used `seed` itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_seed: Option<u64>,
    /// Interval of the per-interval series, in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ns: Option<u64>,
    /// What the phase does when an I/O fails: `stop` or `continue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// Offset order (workloads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Pattern>,
    /// How a random pattern covers the span: `uniform` (with replacement) or `full` (each block once per pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// Where a random workload's offsets fell, as the spec's `distribution` writes it (`"zipf:1.2"`,
    /// `"zoned:50/5:30/15:20/80"`); absent for uniform offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<String>,
    /// Share of reads in percent (workloads; 0 for fills and restores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_percent: Option<u8>,
    /// Share of trims in percent (workloads with `trim_percent` above 0; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_percent: Option<u8>,
    /// Per-I/O durability of the writes (`sync`), when not `"none"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<crate::vocab::SyncWrites>,
    /// Writes per fsync (`fsync`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<u64>,
    /// Writes per fdatasync (`fdatasync`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdatasync: Option<u64>,
    /// Passes over the span (fills).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// Whether written sectors are stamped for verification (fill and workload phases with `verify = true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<bool>,
    /// What a verify phase checks sectors against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// How many mismatched sectors a verify phase lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_listed: Option<u32>,
    /// Erase method as written in the spec (erase phases); the method used is in the results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<EraseMethod>,
    /// Image source: `"synthetic"` or the image file's path (restore-image).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Image size in bytes (restore-image).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_bytes: Option<u64>,
    /// Time bound in ns (workloads with `duration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
    /// Rate cap in I/Os per second, total and/or per direction (workloads with `rate_iops`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<Rate>,
    /// How the rate cap spaces its issue times, when Poisson (`rate_process = "poisson"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_process: Option<crate::vocab::RateProcess>,
    /// Think time, ns (workloads with `think_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_time_ns: Option<u64>,
    /// I/Os per burst between think times (with `think_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_every: Option<u64>,
    /// Latency target, ns (a step of a latency-target search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target_ns: Option<u64>,
    /// The percentile held under `latency_target_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_percentile: Option<f64>,
    /// Unmeasured lead-in before the measured part, in ns (workloads with `ramp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_ns: Option<u64>,
    /// Steady-state rule (workloads with `steady_state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<Rule>,
    /// Leave-steady-state rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_leave: Option<LeaveRule>,
    /// When steady-state judging may begin (`steady_after`), its `written` resolved to bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_after: Option<StartRule>,
    /// Length of a steady-state round in ns (a multiple of the interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_round_ns: Option<u64>,
    /// `steady` when the phase ends at steady state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Until>,
    /// Window specs to summarize.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<String>,
    /// Aggregate length in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate_ns: Option<u64>,
    /// The headline items, in order, in their canonical form (`"windows"`, `"fill_once"`, `"at 25min"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headline: Vec<String>,
    /// Number of I/Os for byte-bounded phases (fill, restore-image, workloads with `size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
    /// Bytes the phase will transfer or erase; absent for time-bounded phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_bytes: Option<u64>,
    /// Where an importer took the phase from (the spec's `imported_from`: a fio job file's line and job,
    /// or a fio command line's job); absent for a phase written as a spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<String>,
}

/// One entry of a block-size mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizeWeight {
    /// Bytes per I/O.
    pub bytes: u64,
    /// Relative weight (the share of I/Os is weight / sum of weights).
    pub weight: u32,
}

/// One worker's share of a phase, as planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkerPart {
    /// Worker number, from 0.
    pub worker: u32,
    /// First byte of its part of the range (the phase's range when the span is shared).
    pub span_start_bytes: u64,
    /// Length of its part in bytes.
    pub span_bytes: u64,
    /// Seed of its op stream and data.
    pub seed: u64,
    /// Its I/Os, for a byte-bounded phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
}

impl WorkerPart {
    /// The record of worker `w` as the plan deals it out.
    pub fn of(w: &super::WorkerPlan) -> WorkerPart {
        WorkerPart {
            worker: w.index,
            span_start_bytes: w.range.start,
            span_bytes: w.range.len,
            seed: w.seed,
            ops: w.ops,
        }
    }
}

impl PhaseParams {
    /// The stream seed a run records for the phase named `name` with these parameters: the hash of its
    /// `seed` and `name` ([`crate::ops::phase_seed`]); `None` when `seed` is not recorded (results of wkrun
    /// before it, another tool's).
    pub fn stream_seed_of(&self, name: &str) -> Option<u64> {
        self.seed.map(|seed| crate::ops::phase_seed(seed, name))
    }

    /// A record with the span only; the rest is filled in by kind.
    fn span(p: &PhasePlan) -> PhaseParams {
        PhaseParams {
            imported_from: p.imported_from.clone(),
            ..PhaseParams::with_span(p.span.start, p.span.len)
        }
    }

    /// A record of a span and nothing else (for results read from another tool's output, which says what it
    /// says and no more).
    pub fn with_span(start: u64, len: u64) -> PhaseParams {
        PhaseParams {
            span_start_bytes: start,
            span_bytes: len,
            block_size_bytes: None,
            block_size_mix: None,
            queue_depth: None,
            workers: None,
            workers_split: None,
            worker_parts: Vec::new(),
            engine: None,
            completions_per_wait: None,
            completion_waits: None,
            direct: None,
            zone_mode: None,
            polled: None,
            sq_poll: None,
            trace: None,
            data: None,
            seed: None,
            stream_seed: None,
            interval_ns: None,
            on_error: None,
            pattern: None,
            coverage: None,
            distribution: None,
            read_percent: None,
            trim_percent: None,
            sync: None,
            fsync: None,
            fdatasync: None,
            passes: None,
            verify: None,
            expect: None,
            max_listed: None,
            method: None,
            image: None,
            image_bytes: None,
            duration_ns: None,
            rate_iops: None,
            rate_process: None,
            think_time_ns: None,
            think_every: None,
            latency_target_ns: None,
            latency_percentile: None,
            ramp_ns: None,
            steady_state: None,
            steady_leave: None,
            steady_after: None,
            steady_round_ns: None,
            until: None,
            windows: Vec::new(),
            aggregate_ns: None,
            headline: Vec::new(),
            ops: None,
            expected_bytes: None,
            imported_from: None,
        }
    }

    fn set_io(&mut self, io: &IoSettings, order: Order) {
        self.block_size_bytes = Some(io.block_size);
        self.block_size_mix = io.mix.clone();
        self.queue_depth = Some(io.queue_depth);
        self.engine = Some(io.engine);
        self.completions_per_wait = Some(io.completions_per_wait).filter(|&n| n > 1);
        self.completion_waits = io.probe_waits.then_some(CompletionWaits::Probe);
        self.direct = Some(io.direct);
        self.zone_mode = Some(io.zone_mode).filter(|&m| m != crate::vocab::ZoneMode::None);
        self.polled = io.polled.then_some(true);
        self.sq_poll = io.sq_poll.then_some(true);
        self.trace = Some(io.trace).filter(|&n| n > 0);
        self.seed = Some(io.seed);
        self.stream_seed = Some(io.stream_seed);
        self.interval_ns = Some(io.interval_ns);
        self.on_error = Some(io.on_error);
        (self.pattern, self.coverage) = match order {
            Order::Sequential => (Some(Pattern::Sequential), None),
            Order::Random => (Some(Pattern::Random), Some(Coverage::Uniform)),
            Order::RandomFull => (Some(Pattern::Random), Some(Coverage::Full)),
        };
    }

    fn set_workers(&mut self, p: &PhasePlan) {
        let Some(io) = p.io() else {
            return;
        };
        self.workers = Some(io.workers);
        if io.workers > 1 {
            self.workers_split = Some(io.split);
            self.worker_parts = p.workers().iter().map(WorkerPart::of).collect();
        }
    }

    fn set_bound(&mut self, bound: Bound) {
        match bound {
            Bound::Ops { ops, bytes } => {
                self.ops = Some(ops);
                self.expected_bytes = Some(bytes);
            }
            Bound::Time { ns } => self.duration_ns = Some(ns),
        }
    }
}

impl PhaseParams {
    /// What a phase recorded with these parameters was measured by, read back: its steady-state rule,
    /// windows, aggregates and headline items as the plan had them, for judging a series again (`wkrun
    /// merge` judges the merged series with it). A verify or erase phase gives an empty `Measure`.
    ///
    /// # Errors
    /// A window or headline item that does not parse (a results file edited by hand), named.
    pub fn measure(&self) -> Result<Measure, String> {
        let interval_ns = self.interval_ns.unwrap_or(1_000_000_000).max(1);
        let windows = self
            .windows
            .iter()
            .map(|w| {
                WindowSpec::parse(w)
                    .map(|spec| Window {
                        text: w.clone(),
                        spec,
                    })
                    .map_err(|e| format!("params.windows {w:?}: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let headline = self
            .headline
            .iter()
            .map(|h| Headline::parse(h).map_err(|e| format!("params.headline: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Measure {
            rate_iops: self.rate_iops,
            arrivals: crate::vocab::Arrivals {
                process: self.rate_process.unwrap_or_default(),
                seed: self.stream_seed.or(self.seed).unwrap_or(1),
                think: self.think_time_ns.map(|ns| crate::vocab::Think {
                    ns,
                    every: self.think_every.unwrap_or(1),
                }),
            },
            latency_target: self.latency_target_ns.map(|t| {
                let q = self.latency_percentile;
                (
                    q.unwrap_or(crate::spec::latency_target::DEFAULT_PERCENTILE),
                    t,
                )
            }),
            ramp_ns: self.ramp_ns,
            steady: self.steady_state.map(|rule| SteadyPlan {
                rule,
                leave: self.steady_leave,
                start: self.steady_after,
                round_ns: self.steady_round_ns,
                intervals_per_round: SteadyPlan::rounds_of(self.steady_round_ns, interval_ns),
            }),
            until: self.until,
            windows,
            aggregate_ns: self.aggregate_ns,
            headline,
        })
    }

    /// The coverage a phase of these parameters records once it completed `ops` I/Os, as the run computes it
    /// ([`super::coverage`]): blocks of `block_size_bytes` over its range, each block once unless the pattern
    /// is random with `uniform` coverage, under the `distribution` resolved against the span as the plan
    /// resolves it.
    ///
    /// # Errors
    /// A `distribution` that does not parse or fit the span (a results file edited by hand), said.
    pub fn coverage(&self, ops: u64) -> Result<crate::stats::coverage::Coverage, String> {
        let unit = self.block_size_bytes.unwrap_or(1).max(1);
        let random = self.pattern == Some(Pattern::Random);
        let each_once = !random || self.coverage == Some(Coverage::Full);
        let access = match self.distribution.as_deref() {
            Some(d) => {
                let d = crate::spec::Distribution::parse(d)?;
                let seed = self.seed.unwrap_or(1);
                Some(super::access::resolve(&d, self.span_bytes, unit, seed)?)
            }
            None => None,
        };
        let shape = (self.range_bytes(), self.span_bytes, unit);
        Ok(super::coverage(shape, each_once, access.as_ref(), ops))
    }

    /// Bytes of the range the phase works on (`PhasePlan::range`): a restored image's bytes, else the span.
    pub fn range_bytes(&self) -> u64 {
        self.image_bytes.unwrap_or(self.span_bytes)
    }
}

impl PhasePlan {
    /// The phase's parameters as recorded in the plan's JSON and in `results.json`.
    pub fn params(&self) -> PhaseParams {
        let mut q = PhaseParams::span(self);
        match &self.work {
            Work::Erase(e) => {
                q.method = Some(e.method);
                q.expected_bytes = Some(self.span.len);
            }
            Work::Verify(v) => {
                q.set_io(&v.io, Order::Sequential);
                q.read_percent = Some(100);
                q.expect = Some(v.expect);
                q.max_listed = Some(v.max_listed);
                q.set_bound(v.bound());
            }
            Work::Io(w) => {
                q.set_io(&w.io, w.order);
                q.set_workers(self);
                q.distribution = w.distribution.as_ref().map(|d| d.to_string());
                q.read_percent = Some(w.read_percent);
                q.trim_percent = (w.trim_percent > 0).then_some(w.trim_percent);
                q.sync = (w.sync != crate::vocab::SyncWrites::None).then_some(w.sync);
                if let Some(f) = w.flush {
                    *(if f.data_only {
                        &mut q.fdatasync
                    } else {
                        &mut q.fsync
                    }) = Some(f.every);
                }
                q.passes = w.passes;
                match &w.writes {
                    WriteSource::Data { pattern, stamped } => {
                        q.data = Some(*pattern);
                        q.verify = stamped.then_some(true);
                    }
                    WriteSource::Image { image, bytes } => {
                        q.image = Some(image.clone());
                        q.image_bytes = Some(*bytes);
                    }
                }
                let m = &w.measure;
                q.rate_iops = m.rate_iops;
                q.rate_process = (m.arrivals.process == crate::vocab::RateProcess::Poisson)
                    .then_some(m.arrivals.process);
                q.think_time_ns = m.arrivals.think.map(|t| t.ns);
                q.think_every = m.arrivals.think.map(|t| t.every);
                q.latency_percentile = m.latency_target.map(|t| t.0);
                q.latency_target_ns = m.latency_target.map(|t| t.1);
                q.ramp_ns = m.ramp_ns;
                q.steady_state = m.steady.as_ref().map(|s| s.rule);
                q.steady_leave = m.steady.as_ref().and_then(|s| s.leave);
                q.steady_after = m.steady.as_ref().and_then(|s| s.start);
                q.steady_round_ns = m.steady.as_ref().and_then(|s| s.round_ns);
                q.until = m.until;
                q.windows = m.windows.iter().map(|w| w.text.clone()).collect();
                q.aggregate_ns = m.aggregate_ns;
                q.headline = m.headline.iter().map(|h| h.to_string()).collect();
                q.set_bound(w.bound);
            }
        }
        q
    }
}
