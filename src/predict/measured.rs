//! A measured run as the fit reads it: its capacity, the phases up to and including the random-write phase
//! to fit (a known start, a fill, then the random writes), and that phase's per-second write IOPS and
//! features. Results that cannot be fitted are refused with the reason.

use super::FitError;
use super::features::Features;
use super::runner::{PhaseShape, whole_seconds};
use crate::results::model::{PhaseResult, Results};
use crate::target::TargetKind;
use crate::vocab::{Pattern, PhaseKind};
use std::path::{Path, PathBuf};

/// A measured run, ready to fit.
#[derive(Debug, Clone)]
pub struct Measured {
    /// The results file read.
    pub file: PathBuf,
    /// The drive's capacity, bytes.
    pub capacity: u64,
    /// The target's name as the results give it (a simulated drive's `sim:...`, a device's path).
    pub target: String,
    /// The phases to run again, the fitted one last.
    pub phases: Vec<PhaseShape>,
    /// The fitted phase's per-second write IOPS.
    pub iops: Vec<f64>,
    /// Their features.
    pub features: Features,
    /// Which features are known (a measured run's all are; a features file may lack some).
    pub known: Known,
    /// The write rates of the phases replayed before the fitted one (none for a features file).
    pub replayed: Vec<super::replay::Rate>,
    /// The page and block of a simulated drive's results (`target.sim.params`): the fit keeps them, as
    /// it would a real drive's if they were known. `None` for a real drive or a features file.
    pub geometry: Option<(crate::units::Size, crate::units::Size)>,
}

/// Which of a [`Measured`]'s features are known, and a spare area given rather than fitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Known {
    /// The cliff's time (compared only).
    pub cliff: bool,
    /// The steady level (the spare area is fitted to it).
    pub steady: bool,
    /// The spread (picks the timing variation and the collection policy).
    pub spread: bool,
    /// The spare area as published, kept as it is (then the steady level is not known).
    pub op: Option<crate::units::Percent>,
}

impl Known {
    /// Everything of a measured series.
    pub const ALL: Known = Known {
        cliff: true,
        steady: true,
        spread: true,
        op: None,
    };
}

impl Measured {
    /// The fitted phase.
    pub fn phase(&self) -> &PhaseShape {
        &self.phases[self.phases.len() - 1]
    }
}

/// Reads the results folder (or `results.json`) `path`; fits phase `phase` when given, else the first
/// random-write phase. `capacity`, when given, must be the results' capacity.
///
/// # Errors
/// [`FitError::Bad`]: unreadable results, no random-write phase (or `phase` is not one), no fill or no
/// known start before it, a phase the simulator cannot run again, a phase that never reached its cliff,
/// a capacity that disagrees.
pub fn read(path: &Path, phase: Option<&str>, capacity: Option<u64>) -> Result<Measured, FitError> {
    let (file, run) = load(path)?;
    let bad = |m: String| FitError::Bad(format!("{}: {m}", file.display()));
    let r = &run.results;
    if r.target.kind == TargetKind::File {
        return Err(bad(format!(
            "the target, {}, is a file: a file has no write cliff and its steady level is not an SSD's (the file system and the page cache set it, not the flash's garbage collection), so no simulated drive fits it; the fit needs a run on an SSD (a block device, purged first) or on a simulated drive (a sim: target)",
            crate::text::escaped(&r.target.path.display().to_string())
        )));
    }
    if let Some(l) = &r.target.file_backed_loop {
        return Err(bad(format!(
            "the target, {}, is a loop device over the file {}: it has no write cliff and its steady level is not an SSD's (the file system and the storage under the file set them, not the flash's garbage collection), so no simulated drive fits it; the fit needs a run on an SSD (a block device, purged first) or on a simulated drive (a sim: target)",
            crate::text::escaped(&r.target.path.display().to_string()),
            crate::text::escaped(&l.backing_file.display().to_string())
        )));
    }
    let i = fitted_phase(r, phase).map_err(bad)?;
    let cap = r.target.capacity_bytes;
    if let Some(c) = capacity.filter(|&c| c != cap) {
        return Err(bad(format!(
            "--capacity {c} B disagrees with the results, whose target has {cap} B"
        )));
    }
    whole_span(&r.phases[i], cap, span_unit(r, i)).map_err(bad)?;
    let phases = replayable(r, i).map_err(bad)?;
    let iops = whole_seconds(run.series[i].as_deref().unwrap_or(&[]));
    let name = &r.phases[i].name;
    let dt = phases[i].interval_ns as f64 / 1e9;
    let features = Features::of(&iops, dt).ok_or_else(|| {
        bad(format!(
            "phase {name:?} has {} whole intervals; the fit needs at least {}",
            iops.len(),
            super::features::MIN_SECONDS
        ))
    })?;
    let seconds = iops.len() as f64 * dt;
    zero_rates(r, i, &features, iops.len(), dt).map_err(bad)?;
    if !features.reached_cliff(seconds) {
        // Which of the two conditions failed: no drop at all (a half-way between a plateau and a level at
        // or above it means nothing, trial 14), or a drop too late to leave a level after it.
        let (steady, plateau) = (features.steady, features.plateau);
        let depth = super::features::CLIFF_DEPTH;
        let why = match steady >= depth * plateau {
            true => format!(
                "steady {steady:.0} IOPS against a fresh plateau of {plateau:.0}: no drop below {:.0} % of it",
                depth * 100.0
            ),
            false => format!(
                "steady {steady:.0} IOPS against a fresh plateau of {plateau:.0}, the 5-interval mean first below half-way between them at {:.0} s of {seconds:.0}: too late for a steady level after it",
                features.cliff_s
            ),
        };
        return Err(bad(format!(
            "phase {name:?} never reached its write cliff ({why}): the spare area is unknown. On an SSD, run the random writes longer (a drop within the first seconds leaves no plateau to see: then the spare area is too small for whole seconds to show it); a target without garbage collection (a file, a loop device backed by a file, a RAM disk) has no cliff however long it runs, and no simulated drive fits it",
        )));
    }
    let target = match r.target.sim.as_ref() {
        Some(s) => s.name(),
        None => r.target.path.display().to_string(),
    };
    Ok(Measured {
        file,
        capacity: cap,
        target,
        phases,
        iops,
        features,
        known: Known::ALL,
        replayed: super::replay::rates_before(r, i),
        geometry: r
            .target
            .sim
            .as_ref()
            .map(|s| (s.params.page, s.params.block)),
    })
}

/// The measured results `path` (a folder, or its `results.json`) as `sim fit` and `sim predict` read them,
/// checked as `wkrun validate` checks them: the file read and the run. Results of one run on one drive:
/// fio's JSON output has no per-interval series to fit, and merged results (`cluster`: hosts merged by
/// `wkrun merge`, or the aggregate of a run on several targets) add several drives' I/Os up, where the
/// fit models one drive.
///
/// # Errors
/// [`FitError::Bad`]: unreadable or invalid results, fio's JSON, merged results (naming the runs to fit
/// instead).
pub fn load(path: &Path) -> Result<(PathBuf, crate::report::runs::RunData), FitError> {
    let file = if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    };
    let run = crate::report::runs::load_run(&file).map_err(|e| FitError::Bad(e.to_string()))?;
    let r = &run.results;
    let bad = |m: String| FitError::Bad(format!("{}: {m}", file.display()));
    if let Some(s) = &r.source {
        return Err(bad(format!(
            "{}'s JSON output ({}), not a wkrun results folder: the fit needs a wkrun run's per-interval series (its write IOPS second by second, to find the write cliff and the steady level), and {} writes only each job's totals; run the job with wkrun instead: wkrun import fio JOB -o job.toml, then wkrun job.toml --target DEVICE (after an erase and a fill, as specs/consistency.toml does), and fit that run's folder",
            s.tool,
            crate::text::escaped(&s.version),
            s.tool
        )));
    }
    if let Some(c) = &r.cluster {
        let each: Vec<String> = c
            .hosts
            .iter()
            .map(|h| crate::text::escaped(&h.results).into_owned())
            .collect();
        return Err(bad(format!(
            "the results of {} runs merged (wkrun merge of hosts, or the aggregate of a run on several targets): their I/Os are several drives' added up, and the fit models one drive; fit each run's own results instead: {}",
            each.len(),
            each.join(", ")
        )));
    }
    Ok((file, run))
}

/// Refuses a fitted phase `i` of `r` whose steady level (of `f`, its features of `n` whole intervals of `dt`
/// s) is 0
/// IOPS, or a fill before it that wrote at 0 IOPS: the fit divides by both (the steady level over the
/// fill's rate gives the write amplification, hence the spare area), and with either at 0 its candidates
/// chased a spare area no drive has and stopped at a bound, or were called matched. Named with the phase
/// and the figure, before any simulated run.
fn zero_rates(r: &Results, i: usize, f: &Features, n: usize, dt: f64) -> Result<(), String> {
    if let Some(fill) = r.phases[..i]
        .iter()
        .find(|p| p.kind == PhaseKind::Fill && p.write.iops <= 0.0)
    {
        return Err(format!(
            "phase {:?} (the fill before the random writes) wrote at {} IOPS ({} writes in {:.3} s): its rate sets the fitted dies / program_time, and no drive writes at 0 IOPS; fit a run whose fill completed its writes",
            fill.name, fill.write.iops, fill.write.ops, fill.duration_s
        ));
    }
    if f.steady > 0.0 {
        return Ok(());
    }
    let tail = super::features::steady_intervals(n);
    Err(format!(
        "phase {:?}'s steady level, the mean write IOPS of its last quarter (its last {tail} intervals, from {:.prec$} s), is 0: no write completed there, so no write amplification can be measured and no spare area fitted (the fit takes the steady level over the fill's rate); a drive that stalls for that long (a garbage collection or erase longer than the quarter, a hung device) is not one the model has: run the random writes longer, so that writes complete in the last quarter, and fit that run",
        r.phases[i].name,
        n.saturating_sub(tail) as f64 * dt,
        prec = super::fit::interval_decimals((dt * 1e9).round() as u64)
    ))
}

/// The least share of the capacity a fitted phase's span covers: the fit's model counts every byte of the
/// capacity as written, so a phase over less would be fitted with its unwritten part taken as spare area.
pub const MIN_SPAN_SHARE: f64 = 0.99;

/// The whole blocks phase `i`'s span is rounded down to: its own block size, or the last fill's before it
/// when larger (a phase sharing a fill's span is rounded to the fill's blocks).
fn span_unit(r: &Results, i: usize) -> u64 {
    let own = r.phases[i].params.block_size_bytes.unwrap_or(1);
    let fill = r.phases[..i]
        .iter()
        .rfind(|p| p.kind == PhaseKind::Fill)
        .and_then(|p| p.params.block_size_bytes)
        .unwrap_or(1);
    own.max(fill).max(1)
}

/// The least span a fitted phase over `capacity` bytes in whole blocks of `unit` has: [`MIN_SPAN_SHARE`]
/// of the capacity, rounded down to the blocks as a plan rounds a span (attack 40 F16: `span = "99%"`
/// rounded down to a fill's 128 KiB blocks is 98.8 % of 64 MiB, and was refused).
fn least_span(capacity: u64, unit: u64) -> u64 {
    let share = (MIN_SPAN_SHARE * 100.0).round() as u128;
    let least = (u128::from(capacity) * share / 100) as u64;
    least / unit.max(1) * unit.max(1)
}

/// Refuses a fitted phase over less than [`MIN_SPAN_SHARE`] of the drive's `capacity` (in whole blocks of
/// `unit`, [`least_span`]), naming it and its span.
fn whole_span(p: &PhaseResult, capacity: u64, unit: u64) -> Result<(), String> {
    let span = p.params.span_bytes;
    if capacity == 0 || span >= least_span(capacity, unit) {
        return Ok(());
    }
    Err(format!(
        "phase {:?} writes a span of {span} B, {:.1} % of the drive's {capacity} B: the fit's model takes the whole capacity as written, and would count the unwritten {:.1} % as spare area the drive does not have; fit a phase over the whole span (100 %, as specs/consistency.toml's random-write[spare-area=100%]) and predict the smaller spans from it with wkrun sim predict",
        p.name,
        span as f64 / capacity as f64 * 100.0,
        100.0 - span as f64 / capacity as f64 * 100.0
    ))
}

/// Whether a phase writes only, at random offsets, for a time.
fn random_writes(p: &PhaseResult) -> bool {
    let q = &p.params;
    p.kind == PhaseKind::Workload
        && q.pattern == Some(Pattern::Random)
        && q.read_percent == Some(0)
        && q.trim_percent.unwrap_or(0) == 0
        && q.duration_ns.is_some()
}

/// The index of the phase to fit.
fn fitted_phase(r: &Results, phase: Option<&str>) -> Result<usize, String> {
    let Some(name) = phase else {
        return r.phases.iter().position(random_writes).ok_or_else(|| {
            "no random-write phase (a workload with pattern = \"random\", read_percent = 0 and a duration): the fit needs one that runs past the write cliff, after an erase and a fill, as specs/consistency.toml's random-write phase does".to_string()
        });
    };
    let i = r
        .phases
        .iter()
        .position(|p| p.name == name)
        .ok_or_else(|| format!("--phase {name}: no such phase"))?;
    if !random_writes(&r.phases[i]) {
        return Err(format!(
            "--phase {name}: not a random-write phase (a workload with pattern = \"random\", read_percent = 0 and a duration)"
        ));
    }
    Ok(i)
}

/// The phases up to `i`, as the simulator runs them again; a fill and a known start (an erase, or a
/// factory-new simulated drive) before the fitted phase.
fn replayable(r: &Results, i: usize) -> Result<Vec<PhaseShape>, String> {
    let before = &r.phases[..i];
    let fill = before.iter().rposition(|p| p.kind == PhaseKind::Fill);
    let Some(fill) = fill else {
        return Err(format!(
            "no fill before phase {:?}: the fit needs a known state (an erase, then a sequential fill of the span); put a fill (kind = \"fill\") after an erase and before the random writes, as specs/consistency.toml does",
            r.phases[i].name
        ));
    };
    let erased = before[..fill].iter().any(|p| p.kind == PhaseKind::Erase);
    if !erased && r.target.kind != TargetKind::Sim {
        return Err(format!(
            "no erase (purge) before the fill {:?}: the drive's state at the start is unknown; put an erase (kind = \"erase\") before the fill, as specs/consistency.toml does",
            before[fill].name
        ));
    }
    r.phases[..=i].iter().map(shape).collect()
}

/// A timed phase's duration within what its series rows cover (the run's virtual time no longer than the
/// measurement's): a phase cut short (interrupted, ended at steady state) cannot be replayed as it ran.
fn ran_its_duration(p: &PhaseResult) -> Result<(), String> {
    let q = &p.params;
    let (Some(d), Some(dt), Some(n)) = (q.duration_ns, q.interval_ns, p.intervals) else {
        return Ok(());
    };
    let covered = u128::from(n) * u128::from(dt);
    if u128::from(d) <= covered {
        return Ok(());
    }
    Err(format!(
        "phase {:?} has {n} rows of {dt} ns ({covered} ns), less than its duration_ns {d}: it did not run to its bound, and the fit replays each phase as long as it ran",
        p.name
    ))
}

/// A phase as the simulator runs it again.
fn shape(p: &PhaseResult) -> Result<PhaseShape, String> {
    let q = &p.params;
    let plain = q.block_size_mix.is_none()
        && q.workers.unwrap_or(1) == 1
        && q.rate_iops.is_none()
        && q.trim_percent.unwrap_or(0) == 0
        && q.distribution.is_none();
    let kind_ok = matches!(
        p.kind,
        PhaseKind::Erase | PhaseKind::Fill | PhaseKind::Workload
    );
    let bounded = p.kind != PhaseKind::Workload || q.duration_ns.is_some();
    if !(plain && kind_ok && bounded) {
        return Err(format!(
            "phase {:?} ({}) cannot be run again on the simulated drive: the fit replays erases, fills and plain workloads with a duration (one worker, one block size, uniform offsets, no rate cap, no trims)",
            p.name,
            p.kind.as_str()
        ));
    }
    ran_its_duration(p)?;
    Ok(PhaseShape {
        name: p.name.clone(),
        kind: p.kind,
        offset: q.span_start_bytes,
        span: q.span_bytes,
        block_size: q.block_size_bytes.unwrap_or(4096),
        queue_depth: q.queue_depth.unwrap_or(1),
        passes: q.passes.unwrap_or(1),
        pattern: q.pattern.unwrap_or(Pattern::Sequential),
        read_percent: q.read_percent.unwrap_or(0),
        duration_ns: q.duration_ns.unwrap_or(0),
        interval_ns: q.interval_ns.unwrap_or(1_000_000_000),
        seed: q.seed.unwrap_or(1),
    })
}

#[cfg(test)]
mod tests {
    use super::least_span;

    #[test]
    fn the_least_span_is_99_percent_in_whole_blocks() {
        // 64 MiB: 99 % is 66,437,775.36 B; in whole 128 KiB blocks 506 of them, 66,322,432 B (98.8 %), the
        // span a plan gives `span = "99%"` after a 128 KiB fill.
        assert_eq!(least_span(64 << 20, 128 << 10), 506 * 131_072);
        assert_eq!(least_span(64 << 20, 128 << 10), 66_322_432);
        // In 4 KiB blocks: 16,220 of them.
        assert_eq!(least_span(64 << 20, 4096), 16_220 * 4096);
        assert_eq!(least_span(100, 1), 99);
    }
}
