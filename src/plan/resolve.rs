//! Resolving a spec against a target: one short function per concern (block sizes, alignment, span, I/O
//! settings, verification, bound, measurement), each returning a located [`SpecError`] for the first thing
//! this target cannot do. Checks run in a fixed order, so the same spec always reports the same first error.

use super::span::{self, ResolvedSpan};
use super::{
    Bound, ByteRange, DEFAULT_IMAGE_SIZE, DEFAULT_INTERVAL_NS, EraseWork, IoSettings, IoWork,
    Measure, PhasePlan, Plan, SizeWeight, SteadyPlan, VerifyWork, Window, Work, WriteSource,
    image_path, replay,
};
use crate::ops::Order;
use crate::spec::{BlockSize, LoadedSpec, One, PhaseSpec, SpecError, SpecErrors};
use crate::stats::derived::Headline;
use crate::stats::steady::StartRule;
use crate::stats::window::WindowSpec;
use crate::target::{TargetInfo, TargetKind};
use crate::units::{Amount, Size};
use crate::vocab::{
    CompletionWaits, Coverage, DataPattern, EngineKind, EraseMethod, Expect, OnError, Pattern,
    PhaseKind, WorkersSplit,
};

/// The most phase errors a plan reports, as `validate` stops after 50 errors.
const MAX_PLAN_ERRORS: usize = 50;

/// Resolves every phase of `spec` against `target`.
///
/// # Errors
/// A located [`SpecError`] for each phase that cannot run on this target (its first, in the fixed order of
/// the checks; at most 50): a block size or offset not
/// aligned to the logical block size with O_DIRECT (case C02), a span past the end of the target, an erase
/// method the target lacks (case C09), an image larger than the span or unreadable, a verify phase whose
/// expected content cannot be tracked, a write a host-managed zoned device cannot take ([`super::zones`]).
pub fn resolve(spec: &LoadedSpec, target: &TargetInfo) -> Result<Plan, SpecErrors> {
    let mut phases = Vec::with_capacity(spec.phases.len());
    let mut errors = Vec::new();
    let (keyed, units) = keyed_units(spec, target);
    for (i, p) in keyed.iter().enumerate() {
        let at = Phase {
            spec,
            t: target,
            i,
            p,
            unit: units[i].clone(),
        };
        match at.resolve() {
            Ok(phase) => phases.push(phase),
            Err(e) => errors.push((Some(i), e)),
        }
    }
    let mut errors = crate::spec::once::once_per_phase(
        &spec.phases,
        errors,
        |e| {
            let l = &e.location;
            (l.line, l.column, e.message.clone(), e.help.clone())
        },
        |e, note| e.message.push_str(note),
    );
    errors.truncate(MAX_PLAN_ERRORS);
    let write_cache = match write_cache(spec, target) {
        Ok(w) => w,
        Err(e) => {
            errors.insert(0, e);
            None
        }
    };
    if !errors.is_empty() {
        return Err(SpecErrors(errors, crate::spec::load::Cause::Input));
    }
    // Every verify phase whose expected content cannot be tracked (a `--set` of its span or offset is
    // named as the cause).
    let untracked: Vec<SpecError> = phases
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(&p.work, Work::Verify(v) if v.expect == Expect::LastWriter))
        .filter_map(|(i, _)| {
            let why = replay::map_unit(&phases, i).err()?;
            Some(spec.phase_error_of(
                i,
                "expect",
                &["span", "offset"],
                format!("the expected content of the span cannot be tracked: {why}"),
                None,
            ))
        })
        .take(MAX_PLAN_ERRORS)
        .collect();
    if !untracked.is_empty() {
        return Err(SpecErrors(untracked, crate::spec::load::Cause::Input));
    }
    distinct_streams(spec, &phases)?;
    let mut plan = Plan {
        spec_name: spec.file.spec.name.clone(),
        spec_version: spec.file.spec.version.clone(),
        spec_path: spec.path.clone(),
        target: target.clone(),
        label: crate::text::label(&target.default_label()),
        phases,
        start_at: 0,
        launch: Default::default(),
        round_blocks: super::rounds::blocks(spec),
        latency_searches: super::search::searches(spec),
        write_cache,
        prediction: None,
    };
    // A missing file is created only when some phase opens it (not when all run on the null engine).
    plan.target.created &= plan.opens_target();
    super::results_size::check(&plan.phases).map_err(|message| {
        let help = "split the spec into several, each with fewer phases".to_string();
        SpecErrors(
            vec![spec.key_error("phase", message, Some(help))],
            crate::spec::load::Cause::Input,
        )
    })?;
    Ok(plan)
}

/// Refuses two I/O phases of the plan whose stream seeds are equal ([`crate::ops::phase_seed`] of each one's
/// `seed` and name): they would draw one op stream, offsets and data, which no key may make a phase do. A
/// 64-bit hash of (seed, name) can meet another's only for seeds chosen to make it (attack 24 F9: "a" of
/// seed 2 and "b" of seed 6046881650114361017), so the later phase's `seed` is named with both phases.
fn distinct_streams(spec: &LoadedSpec, phases: &[PhasePlan]) -> Result<(), SpecErrors> {
    let mut seen: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for (j, p) in phases.iter().enumerate() {
        let Work::Io(w) = &p.work else { continue };
        let Some(&i) = seen.get(&w.io.stream_seed) else {
            seen.insert(w.io.stream_seed, j);
            continue;
        };
        let Work::Io(first) = &phases[i].work else {
            continue;
        };
        let name = |k: usize| &spec.phases[k].name;
        let message = format!(
            "phases \"{}\" (seed = {}) and \"{}\" (seed = {}) would draw one op stream: the stream seed of each, of its seed and its name, is {}",
            name(i),
            first.io.seed,
            name(j),
            w.io.seed,
            w.io.stream_seed
        );
        let help = Some("give one of the two phases another seed".to_string());
        return Err(SpecErrors(
            vec![spec.phase_error(j, "seed", message, help)],
            crate::spec::load::Cause::Input,
        ));
    }
    Ok(())
}

/// The write cache state the run sets (`[target] write_cache`), refused (located at the key) on a target
/// whose volatile write cache wkrun cannot set, with the reason the probe gave.
fn write_cache(
    spec: &LoadedSpec,
    target: &TargetInfo,
) -> Result<Option<crate::vocab::CacheState>, SpecError> {
    let setting = spec.file.target.as_ref().and_then(|t| t.write_cache);
    let Some(want) = setting.and_then(crate::vocab::WriteCacheSetting::wanted) else {
        return Ok(None);
    };
    let why = match &target.write_cache {
        Some(w) if w.settable => return Ok(Some(want)),
        Some(w) => w
            .unavailable
            .clone()
            .unwrap_or_else(|| "its volatile write cache cannot be set".into()),
        None => format!(
            "{} is a simulated drive, which has no volatile write cache",
            target.path.display()
        ),
    };
    Err(spec.key_error(
        "target.write_cache",
        format!(
            "write_cache = \"{}\" cannot be set on {}: {why}",
            want.as_str(),
            target.path.display()
        ),
        Some("use write_cache = \"keep\" (the default), or run on an NVMe namespace or a SCSI or SATA disk".into()),
    ))
}

/// One phase being resolved: the spec (for error locations), the target, the phase's index and its keys
/// with `[defaults]` applied, and the unit its span is rounded to when it shares a fill's span
/// ([`fill_units`]).
struct Phase<'a> {
    spec: &'a LoadedSpec,
    t: &'a TargetInfo,
    i: usize,
    p: &'a PhaseSpec,
    unit: Option<FillUnit>,
}

/// The unit a phase's span is rounded to, larger than its block, because a fill writes the same span in
/// larger blocks: `bytes` (a multiple of the phase's block and of the fills'), the first such fill `fill`.
#[derive(Clone)]
struct FillUnit {
    bytes: u64,
    fill: String,
}

/// Per phase of `phases` (its keys with `[defaults]`), the unit its span is rounded to when it is not its
/// own block: a phase that does I/O over the same `offset` and `span` (as given) as a fill rounds them to
/// whole blocks of both (their least common multiple), so that the fill covers the whole span the phase
/// uses and starts where it starts (a fill in 128 KiB blocks and random writes in 4 KiB over 84 % of a
/// drive: both end at the last 128 KiB boundary, where the writes alone would go on to the last 4 KiB one
/// and write blocks the fill never wrote). Erases keep their own span. `None` where nothing changes, or
/// where a phase's block size cannot be resolved (its own error says why).
fn fill_units(spec: &LoadedSpec, t: &TargetInfo, phases: &[PhaseSpec]) -> Vec<Option<FillUnit>> {
    let block = |i: usize| {
        let at = Phase {
            spec,
            t,
            i,
            p: &phases[i],
            unit: None,
        };
        at.blocks().ok().map(|b| b.size)
    };
    let key = |p: &PhaseSpec| (p.offset, p.span.one());
    let fills: Vec<(usize, u64)> = (0..phases.len())
        .filter(|&i| phases[i].kind == PhaseKind::Fill)
        .filter_map(|i| Some((i, block(i)?)))
        .collect();
    (0..phases.len())
        .map(|i| {
            let p = &phases[i];
            if p.kind == PhaseKind::Erase {
                return None;
            }
            let own = block(i)?;
            let mut first = None;
            let mut unit = own;
            for &(f, size) in fills.iter().filter(|(f, _)| key(&phases[*f]) == key(p)) {
                let l = lcm(unit, size);
                if l != unit && first.is_none() {
                    first = Some(phases[f].name.clone());
                }
                unit = l;
            }
            first.map(|fill| FillUnit { bytes: unit, fill })
        })
        .collect()
}

/// The span of phase `i` of `spec` on a file of `capacity` bytes, as [`resolve`] resolves it: in the
/// phase's blocks, or in those of a fill of the same span (`fill_units`). `export fio` writes it as fio's
/// region (attack 28 F3: one rule for the plan's span and the job file's).
///
/// # Errors
/// Why the plan refuses the span on that capacity (its message).
pub fn phase_span(spec: &LoadedSpec, i: usize, capacity: u64) -> Result<ResolvedSpan, String> {
    on_capacity(spec, i, capacity, |at| {
        let blocks = at.blocks()?;
        at.span(blocks.size)
    })
}

/// What the workers of phase `i` of `spec` are dealt from on a file of `capacity` bytes, as [`resolve`]
/// plans the phase ([`super::deal_workers`] deals them): `export fio` cuts its jobs' parts by it (attack 28
/// F4: a sequential phase bounded to less than a pass deals only its first blocks). `None` when the plan
/// refuses the phase there, or for an erase.
pub fn phase_shape(spec: &LoadedSpec, i: usize, capacity: u64) -> Option<super::StreamShape> {
    on_capacity(spec, i, capacity, |at| at.resolve())
        .ok()?
        .stream_shape()
}

/// `f` of phase `i` of `spec` on a file of `capacity` bytes, with the phases' defaults and fill units.
fn on_capacity<T>(
    spec: &LoadedSpec,
    i: usize,
    capacity: u64,
    f: impl FnOnce(&Phase) -> Result<T, SpecError>,
) -> Result<T, String> {
    let target = TargetInfo::new("export", TargetKind::File, capacity, 512, 4096);
    let (keyed, units) = keyed_units(spec, &target);
    let at = Phase {
        spec,
        t: &target,
        i,
        p: keyed.get(i).ok_or("no such phase")?,
        unit: units[i].clone(),
    };
    f(&at).map_err(|e| e.message)
}

/// The spec's phases with its `[defaults]`, and the unit each rounds its span to where it shares a fill's.
fn keyed_units(spec: &LoadedSpec, target: &TargetInfo) -> (Vec<PhaseSpec>, Vec<Option<FillUnit>>) {
    let defaults = spec.file.defaults.clone().unwrap_or_default();
    let keyed: Vec<PhaseSpec> = spec
        .phases
        .iter()
        .map(|raw| crate::spec::keys::with_defaults(raw, &defaults))
        .collect();
    let units = fill_units(spec, target, &keyed);
    (keyed, units)
}

/// The least common multiple of two block sizes (both positive).
fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).saturating_mul(b)
}

/// The block size of a phase, and its mix when it has one.
struct Blocks {
    size: u64,
    mix: Option<Vec<SizeWeight>>,
}

impl Blocks {
    fn sizes(&self) -> Vec<u64> {
        match &self.mix {
            Some(v) => v.iter().map(|e| e.bytes).collect(),
            None => vec![self.size],
        }
    }
}

impl Phase<'_> {
    fn err(&self, key: &str, message: impl Into<String>, help: Option<String>) -> SpecError {
        self.spec.phase_error(self.i, key, message, help)
    }

    /// [`Self::err`] about `key` for an error the values of `also` take part in (named when a `--set` gave
    /// them: [`LoadedSpec::phase_error_of`]).
    fn err_of(
        &self,
        key: &str,
        also: &[&str],
        message: impl Into<String>,
        help: Option<String>,
    ) -> SpecError {
        self.spec.phase_error_of(self.i, key, also, message, help)
    }

    fn lbs(&self) -> u64 {
        self.t.logical_block_size as u64
    }

    fn does_io(&self) -> bool {
        self.p.kind != PhaseKind::Erase
    }

    fn direct(&self) -> bool {
        self.p.direct.unwrap_or(true)
    }

    fn resolve(&self) -> Result<PhasePlan, SpecError> {
        let blocks = self.blocks()?;
        let order = self.order();
        self.check_alignment(&blocks)?;
        let sp = self.span(blocks.size)?;
        let mut rounding = sp.notes.clone();
        let work = match self.p.kind {
            PhaseKind::Erase => Work::Erase(self.erase(&sp)?),
            kind => {
                let io = self.io_settings(blocks)?;
                self.check_verify(&sp)?;
                self.check_workers(&io, &sp)?;
                match kind {
                    PhaseKind::Verify => Work::Verify(VerifyWork {
                        ops: sp.len / io.block_size,
                        io,
                        expect: self.p.expect.unwrap_or(Expect::LastWriter),
                        max_listed: self.p.max_listed.unwrap_or(10) as u32, // 0..=10000, checked by the rules
                    }),
                    _ => Work::Io(self.io_work(io, order, &sp, &mut rounding)?),
                }
            }
        };
        let mut phase = PhasePlan {
            index: self.i,
            name: self.p.name.clone(),
            kind: self.p.kind,
            labels: self.p.labels.clone(),
            span: ByteRange {
                start: sp.start,
                len: sp.len,
            },
            work,
            rounding,
            warnings: Vec::new(),
            imported_from: self.p.imported_from.clone(),
        };
        if let Some(r) = super::zones::problem(&phase, self.t) {
            return Err(self.err(r.key, r.message, r.help));
        }
        phase.warnings = super::caution::cautions(&phase, self.t);
        Ok(phase)
    }

    /// The phase's byte range in blocks of `block`: rounded to whole units of its fill's block too when it
    /// shares a fill's span ([`fill_units`]), with a note saying so; in its own blocks when that cannot be
    /// (the span holds no whole unit), or when it does not share one.
    fn span(&self, block: u64) -> Result<ResolvedSpan, SpecError> {
        let (offset, requested) = (self.p.offset, self.p.span.one());
        let cap = self.t.capacity_bytes;
        let own = span::resolve(cap, block, offset, requested)
            .map_err(|e| self.err(e.key, e.message, None))?;
        match &self.unit {
            Some(u) => match span::resolve(cap, u.bytes, offset, requested) {
                Ok(mut sp) if (sp.start, sp.len) != (own.start, own.len) => {
                    sp.notes.push(format!(
                        "span in whole {}, the block of the fill {:?} of the same span, so that the fill covers every block this phase uses: in its own {} blocks it would be [{}, {})",
                        crate::units::fmt_bytes(u.bytes),
                        u.fill,
                        crate::units::fmt_bytes(block),
                        own.start,
                        own.start + own.len
                    ));
                    Ok(sp)
                }
                _ => Ok(own),
            },
            None => Ok(own),
        }
    }

    /// The block size (the kind's default, or the spec's) and a mix's sizes with a positive weight.
    fn blocks(&self) -> Result<Blocks, SpecError> {
        let lbs = self.lbs();
        let blocks = match (self.does_io(), self.p.block_size.one()) {
            (false, _) => Blocks {
                size: lbs,
                mix: None,
            },
            (true, None) => Blocks {
                size: crate::spec::rules::default_block_size(self.p.kind),
                mix: None,
            },
            (true, Some(BlockSize::Single(s))) => Blocks {
                size: s.0,
                mix: None,
            },
            (true, Some(BlockSize::Mix(v))) => {
                let used: Vec<SizeWeight> = v
                    .iter()
                    .filter(|e| e.1 > 0)
                    .map(|e| SizeWeight {
                        bytes: e.0.0,
                        weight: e.1,
                    })
                    .collect();
                Blocks {
                    size: used.iter().map(|e| e.bytes).min().unwrap_or(lbs),
                    mix: Some(used),
                }
            }
        };
        Ok(blocks)
    }

    /// The offset order (a block-size mix and full coverage against it are checked by the spec's rules,
    /// `spec::rules::check_io_shape`).
    fn order(&self) -> Order {
        let (pattern, coverage) = crate::spec::rules::pattern_and_coverage(self.p);
        // A random fill is meant to fill: it covers the span fully unless told otherwise.
        match (pattern, coverage) {
            (Pattern::Sequential, _) => Order::Sequential,
            (Pattern::Random, Coverage::Uniform) => Order::Random,
            (Pattern::Random, Coverage::Full) => Order::RandomFull,
        }
    }

    /// Case C02: with O_DIRECT, block sizes ([`direct_misaligned`]) must be multiples of the logical block
    /// size (and a byte offset, of whole blocks by the spec's rules, is then one too).
    fn check_alignment(&self, blocks: &Blocks) -> Result<(), SpecError> {
        if !(self.does_io() && self.direct()) {
            return Ok(());
        }
        let lbs = self.lbs();
        if let Some(bad) = direct_misaligned(blocks.sizes().iter().copied(), lbs) {
            return Err(self.err(
                "block_size",
                format!(
                    "block_size {} ({bad} B) is not a multiple of the target's logical block size ({lbs} B), which O_DIRECT requires",
                    Size(bad)
                ),
                Some(format!("use a multiple of {lbs} B, or direct = false")),
            ));
        }
        // A byte offset is of whole blocks (`spec::rules::check_io_shape`), so of whole logical blocks too.
        Ok(())
    }

    /// `polled` and `sq_poll`: io_uring only; polled completions also need O_DIRECT and a block device with
    /// poll queues.
    fn polling(&self, engine: EngineKind) -> Result<(bool, bool), SpecError> {
        let (polled, sq_poll) = (
            self.p.polled.unwrap_or(false),
            self.p.sq_poll.unwrap_or(false),
        );
        for (on, key, what) in [
            (polled, "polled", "polled completions (IORING_SETUP_IOPOLL)"),
            (
                sq_poll,
                "sq_poll",
                "a submission polling thread (IORING_SETUP_SQPOLL)",
            ),
        ] {
            if on && engine != EngineKind::IoUring {
                return Err(self.err(
                    key,
                    format!(
                        "{key} = true asks for {what}, an io_uring ring's setting; engine \"{}\" has none",
                        engine.as_str()
                    ),
                    Some("use engine = \"io_uring\"".into()),
                ));
            }
        }
        if !polled {
            return Ok((polled, sq_poll));
        }
        if !self.direct() {
            return Err(self.err(
                "polled",
                "polled = true needs direct = true: buffered I/O completes in the page cache, not on a poll queue",
                Some("use direct = true".into()),
            ));
        }
        let dev = self.t.path.display();
        let why = match (self.t.kind, self.t.io_poll) {
            (TargetKind::Block, Some(true)) => return Ok((polled, sq_poll)),
            (TargetKind::Block, Some(false)) => format!(
                "{dev} has no poll queues (sysfs queue/io_poll is 0; an NVMe drive gets them from the nvme module's poll_queues parameter, null_blk from its poll_queues setting)"
            ),
            (TargetKind::Block, None) => {
                format!("{dev} does not say whether it has poll queues (no sysfs queue/io_poll)")
            }
            _ => format!(
                "{dev} is not a block device, and only a block device's poll queues can be polled"
            ),
        };
        Err(self.err(
            "polled",
            format!("polled = true cannot work here: {why}"),
            Some("drop polled (completions then come by interrupt)".into()),
        ))
    }

    /// `direct = true` on a file whose file system has no O_DIRECT (ramfs, [`TargetInfo::no_direct`]): refused
    /// before anything is made, instead of failing with EINVAL after the file was created.
    fn direct_possible(&self, engine: EngineKind) -> Result<(), SpecError> {
        let why = self.t.no_direct.as_deref();
        let Some(why) = why.filter(|_| self.direct() && crate::engine::caps(engine).opens_target)
        else {
            return Ok(());
        };
        Err(self.err(
            "direct",
            format!(
                "direct = true cannot work on {}: {why}",
                self.t.path.display()
            ),
            Some("use direct = false, or a file on a drive's file system".into()),
        ))
    }

    /// Engine, queue depth, seed, interval and on-error, with their defaults.
    fn io_settings(&self, blocks: Blocks) -> Result<IoSettings, SpecError> {
        let p = self.p;
        let qd = p.queue_depth.one().unwrap_or(1) as u64; // 1..=1024, checked by the rules
        let workers = p.workers.unwrap_or(1) as u64; // 1..=256, checked by the rules
        // Workers × queue depth × the largest block at most MAX_BUFFER_BYTES: checked by the rules.
        // A simulated drive runs every I/O phase on its own engine, in virtual time.
        let engine = match self.t.kind {
            TargetKind::Sim => EngineKind::Sim,
            _ => p.engine.one().map_or(EngineKind::Psync, EngineKind::from),
        };
        let cpus = super::host_cpus();
        let (polled, sq_poll) = self.polling(engine)?;
        self.direct_possible(engine)?;
        Ok(IoSettings {
            polled,
            sq_poll,
            engine,
            direct: self.direct(),
            block_size: blocks.size,
            mix: blocks.mix,
            queue_depth: qd as u32,
            workers: workers as u32,
            split: p.workers_split.unwrap_or(WorkersSplit::Partitioned),
            seed: p.seed.unwrap_or(1),
            stream_seed: crate::ops::phase_seed(p.seed.unwrap_or(1), &p.name),
            interval_ns: p.interval.map_or(DEFAULT_INTERVAL_NS, |d| d.0),
            on_error: p.on_error.unwrap_or(OnError::Stop),
            // `completion_waits = "each"`: one completion per wait everywhere.
            completions_per_wait: match p.completion_waits {
                Some(CompletionWaits::Each) => 1,
                _ => super::completions_per_wait(engine, qd as u32, workers as u32, cpus),
            },
            // Not under a rate cap: its pace is its own, so the two ways could not be told apart. Not on a
            // polled ring either.
            probe_waits: p.completion_waits != Some(CompletionWaits::Each)
                && p.rate_iops.is_none()
                && !polled
                && !sq_poll
                && super::probe_waits(engine, qd as u32, workers as u32, cpus),
            zone_mode: p.zone_mode.unwrap_or(crate::vocab::ZoneMode::None),
            trace: p.trace.unwrap_or(0),
        })
    }

    /// Several workers: not on a simulated drive (one virtual clock, one submitter); partitioned, a part of
    /// at least one block (of the largest size of a mix) per worker. (Shared only by random streams with
    /// uniform coverage: a rule that needs no target, in `spec::rules`.)
    fn check_workers(&self, io: &IoSettings, sp: &ResolvedSpan) -> Result<(), SpecError> {
        let n = io.workers as u64;
        if n <= 1 {
            return Ok(());
        }
        if self.t.kind == TargetKind::Sim {
            return Err(self.err(
                "workers",
                format!("workers = {n}: the simulated drive runs one worker (its virtual clock is one submitter's)"),
                Some("use workers = 1 on a simulated target".into()),
            ));
        }
        let unit = io.sizes().unit();
        let len = match self.p.kind {
            PhaseKind::RestoreImage => {
                self.image_bytes(self.p.image.as_deref().unwrap_or(""), sp.len)?
            }
            _ => sp.len,
        };
        if io.split != WorkersSplit::Partitioned {
            return Ok(());
        }
        match crate::spec::rules::parts_fit(self.p, n, len, (unit, io.largest_block())) {
            Some((message, help)) => Err(self.err("workers", message, Some(help.into()))),
            None => Ok(()),
        }
    }

    /// Verification (a verify phase, or a phase stamping its writes) works on 512-byte sectors of a target
    /// that keeps data.
    fn check_verify(&self, sp: &ResolvedSpan) -> Result<(), SpecError> {
        let p = self.p;
        let is_verify = p.kind == PhaseKind::Verify;
        if !(p.verify == Some(true) || is_verify) {
            return Ok(());
        }
        if self.t.kind == TargetKind::Sim {
            return Err(self.err(
                if is_verify { "kind" } else { "verify" },
                "the simulated drive keeps no data, so there is nothing to verify",
                Some("verify on a file or block device target".into()),
            ));
        }
        // Block sizes of whole sectors: checked by the rules (`spec::rules::check_io_shape`).
        let key = if is_verify { "block_size" } else { "verify" };
        let sector = crate::stamp::SECTOR as u64;
        if !sp.start.is_multiple_of(sector) {
            return Err(self.err(
                key,
                format!("verification works on 512-byte sectors, and the span starts at {} B, not a multiple of 512", sp.start),
                None,
            ));
        }
        Ok(())
    }

    /// Case C09: an explicitly requested erase method the target cannot do is refused here, not at run time.
    fn erase(&self, sp: &ResolvedSpan) -> Result<EraseWork, SpecError> {
        let method = self.p.method.unwrap_or(EraseMethod::Auto);
        match crate::target::erase::erase_problem(self.t, method, (sp.start, sp.len)) {
            None => Ok(EraseWork { method }),
            Some(msg) => Err(self.err(
                "method",
                msg,
                Some(crate::target::erase::PROBLEM_HINT.into()),
            )),
        }
    }

    /// Trims (`trim_percent`) on a target that can take them: a block device that discards, a file system
    /// that punches holes, the simulated drive; the `null` engine only counts them.
    fn check_trims(&self, io: &IoSettings) -> Result<(), SpecError> {
        // A verified phase with trims at queue_depth > 1 is refused by the spec rules (`validate` too).
        if !crate::engine::caps(io.engine).does_io {
            return Ok(());
        }
        if let Some(msg) = crate::target::erase::trim_problem(self.t) {
            return Err(self.err(
                "trim_percent",
                msg,
                Some("remove trim_percent, or run on a target that can trim".into()),
            ));
        }
        Ok(())
    }

    /// The writes' durability (`sync`) and flushes (`fsync`, `fdatasync`; at most one, by the rules),
    /// refused on the simulated drive: its write buffer holds the open page's units until the page fills,
    /// and a flush (programming a partial page) is not modelled, so a sync would measure nothing.
    fn sync(&self) -> Result<(crate::vocab::SyncWrites, Option<super::FlushPlan>), SpecError> {
        let p = self.p;
        let sync = p.sync.unwrap_or(crate::vocab::SyncWrites::None);
        let flush = match (p.fsync, p.fdatasync) {
            (Some(n), _) => Some(("fsync", n as u64, false)),
            (None, Some(n)) => Some(("fdatasync", n as u64, true)),
            (None, None) => None,
        };
        if self.t.kind == TargetKind::Sim {
            let key = match flush {
                Some((key, ..)) => Some(key),
                None => (sync != crate::vocab::SyncWrites::None).then_some("sync"),
            };
            if let Some(key) = key {
                return Err(self.err(
                    key,
                    format!("`{key}` asks for durable writes, and the simulated drive models no flush: its write buffer keeps the open page's data until the page fills, so a sync would measure nothing"),
                    Some(format!("remove `{key}` for a simulated target, or run on a file or block device")),
                ));
            }
        }
        let flush = flush.map(|(_, every, data_only)| super::FlushPlan { every, data_only });
        Ok((sync, flush))
    }

    /// A fill's, restore's or workload's work.
    fn io_work(
        &self,
        io: IoSettings,
        order: Order,
        sp: &ResolvedSpan,
        rounding: &mut Vec<String>,
    ) -> Result<IoWork, SpecError> {
        let p = self.p;
        let data = WriteSource::Data {
            pattern: p.data.one().unwrap_or(DataPattern::Random),
            stamped: p.verify == Some(true),
        };
        let bs = io.block_size;
        let (writes, bound, passes, read_percent, measure) = match p.kind {
            PhaseKind::Fill => {
                let (bound, passes) = self.fill_bound(bs, sp.len, rounding)?;
                (data, bound, passes, 0, Measure::default())
            }
            PhaseKind::RestoreImage => {
                let image = p.image.clone().unwrap_or_default();
                let bytes = self.image_bytes(&image, sp.len)?;
                let bound = Bound::Ops {
                    ops: bytes.div_ceil(bs),
                    bytes,
                };
                let source = WriteSource::Image { image, bytes };
                (source, bound, None, 0, Measure::default())
            }
            _ => {
                let measure = self.measure(io.interval_ns, io.stream_seed, sp.len)?;
                let bound = self.workload_bound(bs, sp.len, rounding)?;
                let read = p.read_percent.one().map_or(0, |r| r.0 as u8); // 0..=100, checked by the rules
                (data, bound, None, read, measure)
            }
        };
        let distribution = p.distribution.clone().filter(|d| !d.is_uniform());
        let access = match (&distribution, order) {
            (Some(d), Order::Random) => {
                super::access::resolve(d, sp.len, io.sizes().unit(), io.seed)
                    .map_err(|e| self.err("distribution", e, None))?
            }
            _ => Default::default(),
        };
        let trim_percent = match p.kind {
            PhaseKind::Workload => p.trim_percent.map_or(0, |t| t.0 as u8), // checked by the rules
            _ => 0,
        };
        if trim_percent > 0 {
            self.check_trims(&io)?;
        }
        let (sync, flush) = self.sync()?;
        Ok(IoWork {
            io,
            order,
            access,
            distribution,
            read_percent,
            trim_percent,
            sync,
            flush,
            writes,
            bound,
            passes,
            measure,
        })
    }

    /// A fill's bound: `passes` over the span (default 1), or `size` bytes of whole blocks, wrapping.
    fn fill_bound(
        &self,
        bs: u64,
        span: u64,
        rounding: &mut Vec<String>,
    ) -> Result<(Bound, Option<u32>), SpecError> {
        let blocks = span / bs;
        let (ops, passes) = match self.p.size {
            // size = "200%" is SNIA's preconditioning of twice the capacity: whole blocks, wrapping.
            Some(size) => {
                let bytes = match size {
                    Amount::Bytes(b) => Some(b),
                    Amount::Percent(pc) => pc.checked_of_floor(span),
                };
                let bytes = bytes.ok_or_else(|| {
                    let what =
                        format!("size {size} of the span is more bytes than wkrun can count");
                    self.err("size", what, None)
                })?;
                let ops = bytes / bs;
                if ops == 0 {
                    let why = crate::spec::rules::below_one_block(size, bytes, bs);
                    return Err(self.err("size", why, None));
                }
                if !ops.is_multiple_of(blocks) {
                    rounding.push(format!(
                        "size {size} is {ops} I/Os of {bs} B: {} whole passes and {} blocks",
                        ops / blocks,
                        ops % blocks
                    ));
                }
                (ops, None)
            }
            None => {
                let passes = self.p.passes.unwrap_or(1) as u64; // 1..=MAX_PASSES, checked by the rules
                (blocks * passes, Some(passes as u32))
            }
        };
        let bytes = ops.checked_mul(bs).ok_or_else(|| {
            self.err(
                "size",
                format!("{ops} I/Os of {bs} B is more bytes than wkrun can count"),
                None,
            )
        })?;
        Ok((Bound::Ops { ops, bytes }, passes))
    }

    /// A workload's bound: `duration` (at most `MAX_INTERVALS` intervals, by the rules) or `size` in whole
    /// blocks.
    fn workload_bound(
        &self,
        bs: u64,
        span: u64,
        rounding: &mut Vec<String>,
    ) -> Result<Bound, SpecError> {
        if let Some(d) = self.p.duration {
            // At most MAX_INTERVALS intervals: checked by the rules (`spec::rules::check_io_shape`).
            return Ok(Bound::Time { ns: d.0 });
        }
        let size = self.p.size.unwrap_or(Amount::Bytes(0)); // a bound is required by the rules
        let bytes = match size {
            Amount::Bytes(b) => b,
            Amount::Percent(pc) => pc.checked_of_floor(span).ok_or_else(|| {
                self.err_of(
                    "size",
                    &["span"],
                    format!("size {size} of the span is more bytes than wkrun can count"),
                    None,
                )
            })?,
        };
        let ops = bytes / bs;
        if ops == 0 {
            return Err(self.err_of(
                "size",
                &["block_size", "span"],
                crate::spec::rules::below_one_block(size, bytes, bs),
                None,
            ));
        }
        if let Amount::Bytes(b) = size
            && b != ops * bs
        {
            rounding.push(format!("size {b} B rounded down to {ops} I/Os of {bs} B"));
        }
        Ok(Bound::Ops {
            ops,
            bytes: ops * bs,
        })
    }

    /// A workload's pacing and measurements: rate cap, ramp, steady state, windows, aggregates.
    fn measure(&self, interval_ns: u64, seed: u64, span: u64) -> Result<Measure, SpecError> {
        let p = self.p;
        // Whole multiples of the interval: checked by the rules (`spec::rules::check_io_shape`).
        let steady_round = p.steady_round.map(|d| d.0);
        let aggregate_ns = p.aggregate.map(|d| d.0);
        let windows = p
            .windows
            .iter()
            .flatten()
            .map(|w| {
                WindowSpec::parse(w)
                    .map(|spec| Window {
                        text: w.clone(),
                        spec,
                    })
                    .map_err(|e| self.err("windows", e, None))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (headline, windows) = self.headline(windows)?;
        let start = self.steady_after(span)?;
        Ok(Measure {
            rate_iops: p.rate_iops,
            arrivals: crate::vocab::Arrivals {
                process: p.rate_process.unwrap_or_default(),
                seed,
                think: p.think_time.map(|t| crate::vocab::Think {
                    ns: t.0,
                    every: p.think_every.map_or(1, |n| n.max(1) as u64),
                }),
            },
            latency_target: p.latency_target.map(|t| {
                let q = p.latency_percentile;
                (
                    q.unwrap_or(crate::spec::latency_target::DEFAULT_PERCENTILE),
                    t.0,
                )
            }),
            ramp_ns: p.ramp.map(|d| d.0),
            steady: p.steady_state.map(|rule| SteadyPlan {
                rule,
                leave: p.steady_leave,
                start,
                round_ns: steady_round,
                intervals_per_round: SteadyPlan::rounds_of(steady_round, interval_ns),
            }),
            until: p.until,
            windows,
            aggregate_ns,
            headline,
        })
    }

    /// A workload's headline items (the spec's, or `steady` with a rule, then `windows` with windows, else
    /// `mean`), and its windows with any window the headline names and `windows` lacks added at the end.
    fn headline(
        &self,
        mut windows: Vec<Window>,
    ) -> Result<(Vec<Headline>, Vec<Window>), SpecError> {
        let p = self.p;
        let items = match &p.headline {
            Some(list) => list
                .iter()
                .map(|h| Headline::parse(h).map_err(|e| self.err("headline", e, None)))
                .collect::<Result<Vec<_>, _>>()?,
            None => {
                let mut d = Vec::new();
                if p.steady_state.is_some() {
                    d.push(Headline::Steady);
                }
                if !windows.is_empty() {
                    d.push(Headline::Windows);
                }
                if d.is_empty() {
                    d.push(Headline::Mean);
                }
                d
            }
        };
        for h in &items {
            if let Headline::Window(spec) = *h
                && !windows.iter().any(|w| w.spec == spec)
            {
                windows.push(Window {
                    text: h.to_string(),
                    spec,
                });
            }
        }
        Ok((items, windows))
    }

    /// `steady_after` with its `written` in bytes (a percentage is of the span, rounded down, at least 1 B).
    fn steady_after(&self, span: u64) -> Result<Option<StartRule>, SpecError> {
        let Some(a) = self.p.steady_after else {
            return Ok(None);
        };
        let written_bytes = match a.written {
            None => None,
            Some(Amount::Bytes(b)) => Some(b),
            Some(Amount::Percent(pc)) => Some(
                pc.checked_of_floor(span)
                    .ok_or_else(|| {
                        let what = format!(
                            "steady_after written {pc} of the span is more bytes than wkrun can count"
                        );
                        self.err("steady_after", what, None)
                    })?
                    .max(1),
            ),
        };
        Ok(Some(StartRule {
            written_bytes,
            drop: a.drop,
        }))
    }

    /// The image's size in bytes, checked against the span and alignment.
    fn image_bytes(&self, image: &str, span: u64) -> Result<u64, SpecError> {
        let (size, lbs) = (self.p.image_size, self.lbs());
        let bytes = if image == "synthetic" {
            let want = size.map_or(DEFAULT_IMAGE_SIZE.min(span), |s| s.0);
            want / lbs * lbs
        } else {
            let path = image_path(&self.spec.path, image);
            let meta = std::fs::metadata(&path).map_err(|e| {
                self.err(
                    "image",
                    format!("cannot read the image {}: {e}", path.display()),
                    None,
                )
            })?;
            if !meta.is_file() {
                return Err(self.err(
                    "image",
                    format!("{} is not a regular file", path.display()),
                    None,
                ));
            }
            meta.len()
        };
        if bytes == 0 {
            return Err(self.err("image", "the image is empty", None));
        }
        if bytes > span {
            return Err(self.err(
                if size.is_some() {
                    "image_size"
                } else {
                    "image"
                },
                format!("the image ({bytes} B) is larger than the span ({span} B)"),
                None,
            ));
        }
        if self.direct() && bytes % lbs != 0 {
            return Err(self.err(
                "image",
                format!("the image size ({bytes} B) is not a multiple of the target's logical block size ({lbs} B), which O_DIRECT requires"),
                Some("pad the image to whole sectors, or direct = false".into()),
            ));
        }
        Ok(bytes)
    }
}

/// Case C02's rule, defined with the spec's rules (which hold it at the smallest logical block): the plan
/// refuses a phase by it on the target's own, and `wkrun validate` a result.
pub use crate::spec::rules::direct_misaligned;
