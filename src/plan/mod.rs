//! The plan: a spec resolved against one target. Every phase gets an exact byte range, block size, queue
//! depth, bound and expected byte count; every choice the spec left open is made here (defaults, erase method,
//! image size). Everything after the plan reads only the plan.
//!
//! Resolving does no I/O beyond reading the target's geometry (done by the caller) and the size of image files.

pub mod replay;
mod show;
pub mod span;

pub use show::render_text;

use crate::ops::{OpStream, Order, Sizes};
use crate::spec::{
    BlockSize, Coverage, DataPattern, Engine, EraseMethod, Label, LoadedSpec, One, Pattern,
    PhaseKind, PhaseSpec, SpecError,
};
use crate::target::{TargetInfo, TargetKind};
use crate::units::{Amount, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Default interval of the per-interval series: 1 s, in ns.
pub const DEFAULT_INTERVAL_NS: u64 = 1_000_000_000;
pub use crate::stats::MAX_INTERVALS;
/// Most bytes of I/O buffers a phase may use (queue depth × largest block size): 2 GiB.
pub const MAX_BUFFER_BYTES: u64 = 2 << 30;

/// Default size of the synthetic image: 256 MiB (capped at the span).
pub const DEFAULT_IMAGE_SIZE: u64 = 256 << 20;

/// A spec resolved against one target.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Plan {
    /// The spec's `[spec]` name.
    pub spec_name: String,
    /// The spec's `[spec]` version.
    pub spec_version: String,
    /// Path of the spec file.
    pub spec_path: PathBuf,
    /// The target and its geometry.
    pub target: TargetInfo,
    /// The phases, in run order.
    pub phases: Vec<PhasePlan>,
    /// Index of the first phase to run (`wkrun run --from`); the phases before it are taken as done, e.g.
    /// for a verify phase's expected content. 0 by default.
    #[serde(skip_serializing_if = "is_zero")]
    pub start_at: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Plan {
    /// Whether any phase that will run writes to the target (everything but a 100 %-read workload and a verify
    /// phase does).
    pub fn writes(&self) -> bool {
        self.phases.iter().skip(self.start_at).any(|p| p.writes())
    }

    /// Whether any phase opens the target (every phase but those on the `null` engine).
    pub fn opens_target(&self) -> bool {
        self.phases
            .iter()
            .any(|p| p.params.engine != Some(Engine::Null))
    }
}

impl PhasePlan {
    /// Whether the phase writes to (or erases) the target. A phase on the `null` engine writes nothing.
    pub fn writes(&self) -> bool {
        self.params.engine != Some(Engine::Null)
            && match self.kind {
                PhaseKind::Verify => false,
                PhaseKind::Workload => self.params.read_percent != Some(100),
                _ => true,
            }
    }
}

/// One resolved phase.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PhasePlan {
    /// 0-based position in the run.
    pub index: usize,
    /// The phase's name.
    pub name: String,
    /// The phase's kind.
    pub kind: PhaseKind,
    /// The sweep and matrix values that made this phase (empty for a plain phase).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Label>,
    /// Every resolved parameter.
    pub params: PhaseParams,
    /// How offsets and spans were rounded to whole blocks, in words (empty when nothing was rounded).
    pub rounding: Vec<String>,
}

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
    /// I/O engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// O_DIRECT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<bool>,
    /// Data written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataPattern>,
    /// Seed of the offset and data generators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Interval of the per-interval series, in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ns: Option<u64>,
    /// What the phase does when an I/O fails: `stop` or `continue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<crate::spec::OnError>,
    /// Offset order (workloads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Pattern>,
    /// How a random pattern covers the span: `uniform` (with replacement) or `full` (each block once per pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// Share of reads in percent (workloads; 0 for fills and restores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_percent: Option<u8>,
    /// Passes over the span (fills).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// Whether written sectors are stamped for verification (fill and workload phases with `verify = true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<bool>,
    /// What a verify phase checks sectors against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<crate::vocab::Expect>,
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
    pub rate_iops: Option<crate::vocab::Rate>,
    /// Unmeasured lead-in before the measured part, in ns (workloads with `ramp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_ns: Option<u64>,
    /// Steady-state rule (workloads with `steady_state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::stats::steady::Rule>,
    /// Leave-steady-state rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_leave: Option<crate::stats::steady::LeaveRule>,
    /// Length of a steady-state round in ns (a multiple of the interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_round_ns: Option<u64>,
    /// `steady` when the phase ends at steady state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<crate::spec::Until>,
    /// Window specs to summarize.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<String>,
    /// Aggregate length in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate_ns: Option<u64>,
    /// Number of I/Os for byte-bounded phases (fill, restore-image, workloads with `size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
    /// Bytes the phase will transfer or erase; absent for time-bounded phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_bytes: Option<u64>,
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

/// The I/O settings of a phase that issues I/O: a typed view of [`PhaseParams`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoParams {
    /// Engine.
    pub engine: Engine,
    /// O_DIRECT.
    pub direct: bool,
    /// Bytes per I/O.
    pub block_size: u64,
    /// Queue depth.
    pub queue_depth: u32,
    /// Seed.
    pub seed: u64,
    /// Data pattern of writes.
    pub data: DataPattern,
    /// Series interval, ns.
    pub interval_ns: u64,
}

impl PhaseParams {
    /// The I/O settings, present for fill, restore-image and workload phases.
    pub fn io(&self) -> Option<IoParams> {
        Some(IoParams {
            engine: self.engine?,
            direct: self.direct?,
            block_size: self.block_size_bytes?,
            queue_depth: self.queue_depth?,
            seed: self.seed?,
            data: self.data.unwrap_or(DataPattern::Random),
            interval_ns: self.interval_ns?,
        })
    }
}

/// The phase with `[defaults]` applied: each key the phase does not set, taken from `[defaults]`.
fn inherit(p: &PhaseSpec, spec: &LoadedSpec) -> PhaseSpec {
    crate::spec::keys::with_defaults(p, &spec.file.defaults.clone().unwrap_or_default())
}

/// Resolves every phase of `spec` against `target`.
///
/// # Errors
/// A located [`SpecError`] for the first phase that cannot run on this target: a block size or offset not
/// aligned to the logical block size with O_DIRECT (case C02), a span past the end of the target, an erase
/// method the target lacks (case C09), an image larger than the span or unreadable.
pub fn resolve(spec: &LoadedSpec, target: &TargetInfo) -> Result<Plan, SpecError> {
    let mut phases = Vec::with_capacity(spec.phases.len());
    for (i, raw) in spec.phases.iter().enumerate() {
        let p = inherit(raw, spec);
        phases.push(resolve_phase(spec, target, i, &p)?);
    }
    for i in 0..phases.len() {
        if phases[i].kind == PhaseKind::Verify
            && phases[i].params.expect == Some(crate::vocab::Expect::LastWriter)
        {
            replay::map_unit(&phases, i).map_err(|why| {
                spec.phase_error(
                    i,
                    "expect",
                    format!("the expected content of the span cannot be tracked: {why}"),
                    None,
                )
            })?;
        }
    }
    let mut plan = Plan {
        spec_name: spec.file.spec.name.clone(),
        spec_version: spec.file.spec.version.clone(),
        spec_path: spec.path.clone(),
        target: target.clone(),
        phases,
        start_at: 0,
    };
    // A missing file is created only when some phase opens it (not when all run on the null engine).
    plan.target.created &= plan.opens_target();
    Ok(plan)
}

fn default_block_size(kind: PhaseKind, lbs: u64) -> u64 {
    match kind {
        PhaseKind::Erase => lbs,
        PhaseKind::Fill => 128 << 10,
        PhaseKind::RestoreImage => 1 << 20,
        PhaseKind::Workload => 4 << 10,
        PhaseKind::Verify => 128 << 10,
    }
}

fn resolve_phase(
    spec: &LoadedSpec,
    t: &TargetInfo,
    i: usize,
    p: &PhaseSpec,
) -> Result<PhasePlan, SpecError> {
    let lbs = t.logical_block_size as u64;
    let does_io = p.kind != PhaseKind::Erase;
    let direct = p.direct.unwrap_or(true);
    let (bs, mix) = match (does_io, &p.block_size.one()) {
        (false, _) => (lbs, None),
        (true, None) => (default_block_size(p.kind, lbs), None),
        (true, Some(BlockSize::Single(s))) => (s.0, None),
        (true, Some(BlockSize::Mix(v))) => {
            let used: Vec<SizeWeight> = v
                .iter()
                .filter(|e| e.1 > 0)
                .map(|e| SizeWeight {
                    bytes: e.0.0,
                    weight: e.1,
                })
                .collect();
            (
                used.iter().map(|e| e.bytes).min().unwrap_or(lbs),
                Some(used),
            )
        }
    };
    let pattern = match p.kind {
        PhaseKind::Workload => p.pattern.one().unwrap_or(Pattern::Random),
        _ => p.pattern.one().unwrap_or(Pattern::Sequential),
    };
    if mix.is_some() {
        let why = if p.kind != PhaseKind::Workload {
            Some("a block-size mix is for workloads")
        } else if pattern != Pattern::Random || p.coverage == Some(Coverage::Full) {
            Some("a block-size mix needs pattern = \"random\" with uniform coverage")
        } else if p.duration.is_none() {
            Some(
                "a block-size mix needs a `duration` bound (a byte bound would be met only on average)",
            )
        } else {
            None
        };
        if let Some(why) = why {
            return Err(spec.phase_error(i, "block_size", why, None));
        }
    }
    if p.coverage == Some(Coverage::Full) && pattern != Pattern::Random {
        return Err(spec.phase_error(
            i,
            "coverage",
            "coverage = \"full\" applies to pattern = \"random\"",
            None,
        ));
    }
    let sizes: Vec<u64> = match &mix {
        Some(v) => v.iter().map(|e| e.bytes).collect(),
        None => vec![bs],
    };
    if let Some(&bad) = sizes.iter().find(|&&b| does_io && direct && b % lbs != 0) {
        return Err(spec.phase_error(
            i,
            "block_size",
            format!(
                "block_size {} ({bad} B) is not a multiple of the target's logical block size ({lbs} B), which O_DIRECT requires",
                Size(bad)
            ),
            Some(format!("use a multiple of {lbs} B, or direct = false")),
        ));
    }
    if let Some(Amount::Bytes(off)) = p.offset
        && direct
        && does_io
        && off % lbs != 0
    {
        return Err(spec.phase_error(
                i,
                "offset",
                format!("offset {off} B is not a multiple of the target's logical block size ({lbs} B), which O_DIRECT requires"),
                None,
            ));
    }
    let sp = span::resolve(t.capacity_bytes, bs, p.offset, p.span.one())
        .map_err(|e| spec.phase_error(i, e.key, e.message, None))?;
    let mut params = PhaseParams {
        span_start_bytes: sp.start,
        span_bytes: sp.len,
        block_size_bytes: None,
        block_size_mix: None,
        queue_depth: None,
        engine: None,
        direct: None,
        data: None,
        seed: None,
        interval_ns: None,
        on_error: None,
        pattern: None,
        coverage: None,
        read_percent: None,
        passes: None,
        verify: None,
        expect: None,
        max_listed: None,
        method: None,
        image: None,
        image_bytes: None,
        duration_ns: None,
        rate_iops: None,
        ramp_ns: None,
        steady_state: None,
        steady_leave: None,
        steady_round_ns: None,
        until: None,
        windows: Vec::new(),
        aggregate_ns: None,
        ops: None,
        expected_bytes: None,
    };
    if does_io {
        params.block_size_bytes = Some(bs);
        params.block_size_mix = mix;
        params.pattern = Some(pattern);
        if pattern == Pattern::Random {
            // A random fill is meant to fill: it covers the span fully unless told otherwise.
            let default = if p.kind == PhaseKind::Fill {
                Coverage::Full
            } else {
                Coverage::Uniform
            };
            params.coverage = Some(p.coverage.unwrap_or(default));
        }
        params.queue_depth = Some(p.queue_depth.one().unwrap_or(1) as u32); // 1..=1024, checked by the rules
        let qd = p.queue_depth.one().unwrap_or(1) as u64;
        let largest = sizes.iter().copied().max().unwrap_or(bs);
        if qd * largest > MAX_BUFFER_BYTES {
            return Err(spec.phase_error(
                i,
                "queue_depth",
                format!(
                    "queue_depth {qd} × block size {} needs {} of I/O buffers, more than 2GiB",
                    Size(largest),
                    Size(qd * largest)
                ),
                None,
            ));
        }
        params.engine = Some(p.engine.one().unwrap_or(Engine::Psync));
        params.direct = Some(direct);
        params.seed = Some(p.seed.unwrap_or(1));
        params.interval_ns = Some(p.interval.map_or(DEFAULT_INTERVAL_NS, |d| d.0));
        params.on_error = Some(p.on_error.unwrap_or(crate::spec::OnError::Stop));
    }
    let mut rounding = sp.notes.clone();
    if p.verify == Some(true) || p.kind == PhaseKind::Verify {
        let key = if p.kind == PhaseKind::Verify {
            "block_size"
        } else {
            "verify"
        };
        if t.kind == TargetKind::Sim {
            return Err(spec.phase_error(
                i,
                if p.kind == PhaseKind::Verify {
                    "kind"
                } else {
                    "verify"
                },
                "the simulated drive keeps no data, so there is nothing to verify".to_string(),
                Some("verify on a file or block device target".into()),
            ));
        }
        let sector = crate::stamp::SECTOR as u64;
        if let Some(&b) = sizes.iter().find(|&&b| b % sector != 0) {
            return Err(spec.phase_error(
                i,
                key,
                format!("verification works on 512-byte sectors, and the block size {b} B is not a multiple of 512"),
                None,
            ));
        }
        if sp.start % sector != 0 {
            return Err(spec.phase_error(
                i,
                key,
                format!("verification works on 512-byte sectors, and the span starts at {} B, not a multiple of 512", sp.start),
                None,
            ));
        }
        if p.verify == Some(true) {
            params.verify = Some(true);
        }
    }
    match p.kind {
        PhaseKind::Verify => {
            params.read_percent = Some(100);
            params.expect = Some(p.expect.unwrap_or(crate::vocab::Expect::LastWriter));
            params.max_listed = Some(p.max_listed.unwrap_or(10) as u32); // 0..=10000, checked by the rules
            let ops = sp.len / bs;
            params.ops = Some(ops);
            params.expected_bytes = Some(ops * bs);
        }
        PhaseKind::Erase => {
            let method = p.method.unwrap_or(EraseMethod::Auto);
            check_erase_method(spec, t, i, method, (sp.start, sp.len))?;
            params.method = Some(method);
            params.expected_bytes = Some(sp.len);
        }
        PhaseKind::Fill => {
            params.data = Some(p.data.one().unwrap_or(DataPattern::Random));
            params.read_percent = Some(0);
            let blocks = sp.len / bs;
            let ops = match p.size {
                // size = "200%" is SNIA's preconditioning of twice the capacity: whole blocks, wrapping.
                Some(size) => {
                    let bytes = match size {
                        Amount::Bytes(b) => Some(b),
                        Amount::Percent(pc) => pc.checked_of_floor(sp.len),
                    };
                    let ops = bytes.map(|b| b / bs).filter(|&o| o > 0).ok_or_else(|| {
                        spec.phase_error(
                            i,
                            "size",
                            format!("size {size} is less than one block ({bs} B) or too large"),
                            None,
                        )
                    })?;
                    if ops % blocks != 0 {
                        rounding.push(format!(
                            "size {size} is {ops} I/Os of {bs} B: {} whole passes and {} blocks",
                            ops / blocks,
                            ops % blocks
                        ));
                    }
                    ops
                }
                None => {
                    let passes = p.passes.unwrap_or(1) as u64; // 1..=MAX_PASSES, checked by the rules
                    params.passes = Some(passes as u32);
                    blocks * passes
                }
            };
            params.ops = Some(ops);
            params.expected_bytes = Some(ops.checked_mul(bs).ok_or_else(|| {
                spec.phase_error(
                    i,
                    "size",
                    format!("{ops} I/Os of {bs} B is more bytes than wkrun can count"),
                    None,
                )
            })?);
        }
        PhaseKind::RestoreImage => {
            let image = p.image.clone().unwrap_or_default();
            let bytes = image_bytes(spec, i, &image, p.image_size, sp.len, lbs, direct)?;
            params.read_percent = Some(0);
            params.pattern = Some(Pattern::Sequential);
            params.image = Some(image);
            params.image_bytes = Some(bytes);
            params.ops = Some(bytes.div_ceil(bs));
            params.expected_bytes = Some(bytes);
        }
        PhaseKind::Workload => {
            params.data = Some(p.data.one().unwrap_or(DataPattern::Random));
            params.read_percent = p.read_percent.one().map(|r| r.0 as u8); // 0..=100, checked by the rules
            params.rate_iops = p.rate_iops;
            params.ramp_ns = p.ramp.map(|d| d.0);
            params.steady_state = p.steady_state;
            params.steady_leave = p.steady_leave;
            if let Some(r) = p.steady_round {
                let iv = params.interval_ns.unwrap_or(DEFAULT_INTERVAL_NS);
                if r.0 % iv != 0 || r.0 < iv {
                    return Err(spec.phase_error(
                        i,
                        "steady_round",
                        format!(
                            "steady_round {r} is not a multiple of the interval {}",
                            crate::units::Duration(iv)
                        ),
                        None,
                    ));
                }
                params.steady_round_ns = Some(r.0);
            }
            params.until = p.until;
            params.windows = p.windows.clone().unwrap_or_default();
            if let Some(a) = p.aggregate {
                let iv = params.interval_ns.unwrap_or(DEFAULT_INTERVAL_NS);
                if a.0 % iv != 0 || a.0 < iv {
                    return Err(spec.phase_error(
                        i,
                        "aggregate",
                        format!(
                            "aggregate {a} is not a multiple of the interval {}",
                            crate::units::Duration(iv)
                        ),
                        None,
                    ));
                }
                params.aggregate_ns = Some(a.0);
            }
            if let Some(d) = p.duration {
                let iv = params.interval_ns.unwrap_or(DEFAULT_INTERVAL_NS);
                if d.0.div_ceil(iv) > MAX_INTERVALS {
                    return Err(spec.phase_error(
                        i,
                        "interval",
                        format!(
                            "{} / {} gives {} intervals, more than {MAX_INTERVALS}",
                            d,
                            crate::units::Duration(iv),
                            d.0.div_ceil(iv)
                        ),
                        Some("use a longer interval".into()),
                    ));
                }
                params.duration_ns = Some(d.0);
            } else if let Some(size) = p.size {
                let bytes = match size {
                    Amount::Bytes(b) => b,
                    Amount::Percent(pc) => pc.checked_of_floor(sp.len).ok_or_else(|| {
                        spec.phase_error(
                            i,
                            "size",
                            format!("size {size} of the span is more bytes than wkrun can count"),
                            None,
                        )
                    })?,
                };
                let ops = bytes / bs;
                if ops == 0 {
                    return Err(spec.phase_error(
                        i,
                        "size",
                        format!("size {size} ({bytes} B) is less than one block ({bs} B)"),
                        None,
                    ));
                }
                params.ops = Some(ops);
                params.expected_bytes = Some(ops * bs);
            }
        }
    }
    if let (Some(Amount::Bytes(b)), Some(ops)) = (p.size, params.ops)
        && p.kind == PhaseKind::Workload
        && b != ops * bs
    {
        rounding.push(format!("size {b} B rounded down to {} I/Os of {bs} B", ops));
    }
    Ok(PhasePlan {
        index: i,
        name: p.name.clone(),
        kind: p.kind,
        labels: p.labels.clone(),
        params,
        rounding,
    })
}

/// Case C09: an explicitly requested erase method the target cannot do is refused here, not at run time.
fn check_erase_method(
    spec: &LoadedSpec,
    t: &TargetInfo,
    i: usize,
    m: EraseMethod,
    span: (u64, u64),
) -> Result<(), SpecError> {
    let problem = match (t.kind, m) {
        (_, EraseMethod::Auto) => None,
        (TargetKind::Sim, EraseMethod::Discard | EraseMethod::SecureDiscard) => None,
        (TargetKind::Sim, _) => Some(
            "is not modelled by the simulated drive (use \"auto\", \"discard\" or \"secure-discard\")"
                .to_string(),
        ),
        (_, EraseMethod::NvmeFormat) if t.nvme_namespace.is_none() => Some(format!(
            "is for whole NVMe namespaces, and {} is not one (a partition, or not NVMe)",
            t.path.display()
        )),
        (_, EraseMethod::NvmeFormat) if span != (0, t.capacity_bytes) => Some(format!(
            "erases the whole namespace, but the span is [{}, {}) of {} B; use span = \"100%\" and no offset",
            span.0,
            span.0 + span.1,
            t.capacity_bytes
        )),
        (TargetKind::File, EraseMethod::PunchHole) => None,
        (TargetKind::File, _) => Some(
            "is for block devices; this target is a regular file (use \"punch-hole\" or \"auto\")"
                .to_string(),
        ),
        (TargetKind::Block, EraseMethod::PunchHole) => {
            Some("is for files; this target is a block device".to_string())
        }
        (TargetKind::Block, EraseMethod::Discard | EraseMethod::SecureDiscard)
            if t.discard_max_bytes == Some(0) =>
        {
            Some(format!(
                "needs discard support, and {} cannot discard (queue/discard_max_bytes is 0)",
                t.path.display()
            ))
        }
        (TargetKind::Block, _) => None,
    };
    match problem {
        None => Ok(()),
        Some(why) => Err(spec.phase_error(
            i,
            "method",
            format!("erase method \"{}\" {why}", m.as_str()),
            Some("method = \"auto\" picks what the target supports".into()),
        )),
    }
}

/// The image's size in bytes, checked against the span and alignment.
fn image_bytes(
    spec: &LoadedSpec,
    i: usize,
    image: &str,
    size: Option<Size>,
    span: u64,
    lbs: u64,
    direct: bool,
) -> Result<u64, SpecError> {
    let bytes = if image == "synthetic" {
        let want = size.map_or(DEFAULT_IMAGE_SIZE.min(span), |s| s.0);
        want / lbs * lbs
    } else {
        let path = image_path(&spec.path, image);
        let meta = std::fs::metadata(&path).map_err(|e| {
            spec.phase_error(
                i,
                "image",
                format!("cannot read the image {}: {e}", path.display()),
                None,
            )
        })?;
        if !meta.is_file() {
            return Err(spec.phase_error(
                i,
                "image",
                format!("{} is not a regular file", path.display()),
                None,
            ));
        }
        meta.len()
    };
    if bytes == 0 {
        return Err(spec.phase_error(i, "image", "the image is empty", None));
    }
    if bytes > span {
        return Err(spec.phase_error(
            i,
            if size.is_some() {
                "image_size"
            } else {
                "image"
            },
            format!("the image ({bytes} B) is larger than the span ({span} B)"),
            None,
        ));
    }
    if direct && bytes % lbs != 0 {
        return Err(spec.phase_error(
            i,
            "image",
            format!("the image size ({bytes} B) is not a multiple of the target's logical block size ({lbs} B), which O_DIRECT requires"),
            Some("pad the image to whole sectors, or direct = false".into()),
        ));
    }
    Ok(bytes)
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

/// The op stream of an I/O phase: a pure function of its resolved parameters (also used to replay earlier
/// phases' writes when verifying).
pub fn op_stream(phase: &PhasePlan) -> OpStream {
    let p = &phase.params;
    let sizes = match &p.block_size_mix {
        Some(mix) => Sizes::Mix(mix.iter().map(|e| (e.bytes, e.weight)).collect()),
        None => Sizes::Fixed(p.block_size_bytes.unwrap_or(4096)),
    };
    OpStream {
        span_start: p.span_start_bytes,
        span_len: match phase.kind {
            PhaseKind::RestoreImage => p.image_bytes.unwrap_or(0),
            _ => p.span_bytes,
        },
        sizes,
        order: match (p.pattern, p.coverage) {
            (Some(Pattern::Random), Some(Coverage::Full)) => Order::RandomFull,
            (Some(Pattern::Random), _) => Order::Random,
            _ => Order::Sequential,
        },
        read_percent: p.read_percent.unwrap_or(0),
        seed: p.seed.unwrap_or(1),
        total_ops: p.ops,
    }
}
