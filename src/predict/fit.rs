//! The search for the simulated drive whose run of the measured phases matches the measurement.
//!
//! 1. A first guess from theory: the fresh plateau is set by dies / program time (a 4 KiB write costs a
//!    quarter of a 16 KiB page program), and the steady level over the plateau by write amplification,
//!    which under uniform random writes and greedy collection is 1 / (1 − u) with u = exp(−α (1 − u)), α
//!    being the flash holding data over the data (the law the simulator follows within 2 %): the measured
//!    ratio gives u, u gives α, α the spare area.
//! 2. Refinement by simulated runs of the same phases: the program time is scaled by the error of the
//!    rate that sets it, the replayed fill's ([`Pace`]; a features file's plateau), which is inversely
//!    proportional to it, the spare area moved by a secant step on the logarithm of steady / that rate,
//!    until both are within 1 % or the spare area stops moving (a whole superblock).
//! 3. The timing variation and collection policy whose steady-state spread is nearest the measured one,
//!    then one more refinement with them.

use super::FitError;
use super::doubts::{NEARER, Probe, Tried};
use super::features::{Features, beyond};
use super::measured::Measured;
use super::runner::{self, Scratch};
use crate::sim::params::UNIT;
use crate::sim::{GcPolicy, SimParams, SimTarget};
use crate::units::{Duration, Percent, Size};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Most simulated runs of one refinement.
const MAX_REFINE: usize = 6;
/// Refinement stops when plateau and steady level are both within this share.
const CLOSE: f64 = 0.01;
/// The program time the split of the plateau into dies and program time aims at: the default's, 1.6 ms.
const PRIOR_PROGRAM_NS: f64 = 1_600_000.0;
/// Superblocks of flash that hold no data on average: the free pool (`gc_free_superblocks` − ½ with the
/// default 3) and the unwritten part of the two open frontiers (about one).
const IDLE_SUPERBLOCKS: f64 = 4.0;

/// The fitted drive.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// Its parameters.
    pub params: SimParams,
    /// Its `sim:...` target.
    pub target: String,
    /// The features of its run of the measured phases.
    pub features: Features,
    /// Simulated runs made.
    pub runs: usize,
    /// Why the last refinement stopped.
    pub stop: Stop,
    /// The write rates of the phases its run replayed before the fitted one ([`Measured::replayed`]'s).
    pub replayed: Vec<super::replay::Rate>,
    /// The drives the spread step ran, the one it started from first (none when the spread is unknown).
    pub tried: Vec<Tried>,
    /// The drive the spread step kept, run at other dies with the same ratio of dies to program time (none
    /// when the step tried one collection policy only).
    pub probes: Vec<Probe>,
}

/// Why a refinement stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The plateau and the steady level within 1 % (the plateau alone when the spare area is given).
    Close,
    /// The next step moved neither the spare area (less than a superblock) nor the program time (less
    /// than 1us).
    Settled,
    /// The next candidate was not a drive: the bound it was past.
    Bound(String),
    /// The most runs a refinement makes.
    Runs(usize),
}

impl Stop {
    /// Why the refinement stopped, for a warning.
    fn why(&self) -> String {
        match self {
            Stop::Close | Stop::Settled => {
                "its steps stopped moving the drive (the spare area is whole superblocks, the program time whole microseconds)".into()
            }
            Stop::Bound(b) => format!("it reached a bound: {b}"),
            Stop::Runs(n) => format!("it made {n} runs, the most a refinement makes"),
        }
    }
}

/// A feature no simulated drive can have: why, for the fresh plateau (dies and program time out of the
/// simulator's range) or for the spare area (the one the steady level needs, or the one given).
#[derive(Debug, Clone, PartialEq)]
pub enum Unmet {
    /// The fresh plateau cannot be had.
    Plateau(String),
    /// The spare area cannot be had.
    Spare(String),
    /// The capacity cannot be simulated at any spare area (the model's memory at the least a drive has).
    Capacity(String),
}

/// What sets dies / program time in the fit.
///
/// A measured run's fill (sequential writes of whole pages over the whole capacity, several in flight,
/// after a purge) runs at dies × page / program time, as the fresh plateau does, but its rate averages
/// every superblock's timing over hundreds of intervals, where the plateau is a few intervals before the
/// cliff: at 100 ms rows the highest 3-interval median of a drive with 30 % jitter lies well above its
/// mean (`sim:capacity=1GiB,op=7%,dies=1`), and at 1 s a plateau of 2 or 3
/// intervals is cut by the drop. So the fill sets them when the measured run has one whose rate is below
/// half the interface's (else the interface, not the dies, may set it); a features file, which has no
/// fill, is fitted to its plateau.
#[derive(Debug, Clone, PartialEq)]
pub enum Pace {
    /// The replayed fill of this name, its measured write IOPS and the 4 KiB units of one of its writes.
    Fill {
        /// The fill phase's name.
        name: String,
        /// Its measured write IOPS.
        iops: f64,
        /// 4 KiB units per write.
        units: f64,
    },
    /// The fresh plateau.
    Plateau,
}

impl Pace {
    /// The rate that sets dies / program time in `m`: the last fill replayed before the fitted phase
    /// with a measured rate below half the default interface's bandwidth, else the plateau.
    pub fn of(m: &Measured) -> Pace {
        let before = m.phases.len().saturating_sub(1);
        let interface = SimParams::default().interface_bytes_per_s.0 as f64;
        m.phases[..before]
            .iter()
            .rev()
            .filter(|p| p.kind == crate::vocab::PhaseKind::Fill)
            .find_map(|p| {
                let r = m
                    .replayed
                    .iter()
                    .find(|r| r.name == p.name && r.iops > 0.0)?;
                (r.iops * (p.block_size as f64) < 0.5 * interface).then(|| Pace::Fill {
                    name: p.name.clone(),
                    iops: r.iops,
                    units: p.block_size as f64 / UNIT as f64,
                })
            })
            .unwrap_or(Pace::Plateau)
    }

    /// The measured rate: the fill's write IOPS, or the plateau.
    fn want(&self, m: &Measured) -> f64 {
        match self {
            Pace::Fill { iops, .. } => *iops,
            Pace::Plateau => m.features.plateau,
        }
    }

    /// The measured rate in 4 KiB writes per second, the plateau's unit: what the theory splits into
    /// dies and program time.
    fn plateau_equivalent(&self, m: &Measured) -> f64 {
        match self {
            Pace::Fill { iops, units, .. } => iops * units,
            Pace::Plateau => m.features.plateau,
        }
    }

    /// The same rate of a candidate: the fill's in `rates` (its run's replayed phases), or the plateau
    /// of its features `f`.
    fn got(&self, f: &Features, rates: &[super::replay::Rate]) -> Option<f64> {
        match self {
            Pace::Fill { name, .. } => rates.iter().find(|r| r.name == *name).map(|r| r.iops),
            Pace::Plateau => Some(f.plateau),
        }
    }

    /// The fill's name, when the fill sets the rate.
    pub fn fill(&self) -> Option<&str> {
        match self {
            Pace::Fill { name, .. } => Some(name),
            Pace::Plateau => None,
        }
    }

    /// The relative error of a fitted drive's rate (`f`, its features; `fitted`, its replayed phases'
    /// rates) against the measured one; the plateau's when the fitted run lacks the fill.
    pub fn error(&self, m: &Measured, f: &Features, fitted: &[super::replay::Rate]) -> f64 {
        let want = self.want(m);
        match self.got(f, fitted) {
            Some(got) if want > 0.0 => (got - want) / want,
            _ => f.errors(&m.features)[0],
        }
    }

    /// What the account calls the rate: `the fresh plateau`, or `the write rate of the fill "NAME"`.
    fn what(&self) -> String {
        match self {
            Pace::Fill { name, .. } => format!("write rate of the fill {name:?}"),
            Pace::Plateau => "fresh plateau".to_string(),
        }
    }
}

/// The `sim:...` target of `p`: its name ([`SimTarget::name`], which holds every parameter off its
/// default, the program time included).
pub fn target_of(p: &SimParams) -> String {
    match SimTarget::new(p.clone()) {
        Ok(t) => t.name(),
        Err(_) => String::new(),
    }
}

/// Runs candidates and keeps count.
struct Runs<'a> {
    m: &'a Measured,
    exe: &'a Path,
    scratch: Scratch,
    spec: PathBuf,
    n: usize,
    log: &'a mut dyn Write,
    /// Each candidate's target and the write rates of its replayed phases, in the order run.
    rates: Vec<(String, Vec<super::replay::Rate>)>,
    /// The drives the spread step ran ([`vary`]).
    tried: Vec<Tried>,
    /// The kept drive at other dies ([`probe_dies`]).
    probes: Vec<Probe>,
}

impl Runs<'_> {
    /// The features of `p`'s run of the measured phases.
    fn try_params(&mut self, p: &SimParams) -> Result<Features, FitError> {
        let target = target_of(p);
        self.n += 1;
        let out = self.scratch.path().join(format!("run{}", self.n));
        let started = std::time::Instant::now();
        self.scratch.run(self.exe, &self.spec, &target, &out)?;
        let (iops, rates) = runner::write_series(&out, &self.m.phase().name)?;
        let _ = std::fs::remove_dir_all(&out);
        self.rates.push((target.clone(), rates));
        let dt = self.m.phase().interval_ns as f64 / 1e9;
        let dp = interval_decimals(self.m.phase().interval_ns);
        let f = Features::of(&iops, dt).ok_or_else(|| {
            FitError::Failed(format!(
                "the simulated run on {target} wrote too few seconds"
            ))
        })?;
        // Each line in one write, as every line wkrun prints (tests/it/lines.rs).
        let line = format!(
            "fit: run {} ({:.1} s): {target}: plateau {:.0}, cliff at {:.dp$} s, steady {:.0} IOPS, spread {:.3}\n",
            self.n,
            started.elapsed().as_secs_f64(),
            f.plateau,
            f.cliff_s,
            f.steady,
            f.spread
        );
        let _ = self.log.write_all(line.as_bytes());
        Ok(f)
    }
}

/// Fits the simulated drive to `m`, running candidates with the `wkrun` program `exe`; progress on `log`.
///
/// # Errors
/// [`FitError::Failed`] when a simulated run fails; [`FitError::Bad`] when no drive of the model can have
/// the measured plateau.
pub fn fit(m: &Measured, exe: &Path, log: &mut dyn Write) -> Result<Fitted, FitError> {
    let scratch = Scratch::new(&m.phases)?;
    let spec = scratch.path().join("phases.toml");
    std::fs::write(&spec, runner::spec_text("fit", &m.phases))
        .map_err(|e| FitError::Failed(format!("cannot write {}: {e}", spec.display())))?;
    let mut runs = Runs {
        m,
        exe,
        scratch,
        spec,
        n: 0,
        log,
        rates: Vec::new(),
        tried: Vec::new(),
        probes: Vec::new(),
    };
    let mut p = first_guess(m).map_err(|u| unmet_in_results(m, &u))?;
    let dp = interval_decimals(m.phase().interval_ns);
    let line = format!(
        "fit: measured plateau {:.0}, cliff at {:.dp$} s, steady {:.0} IOPS, spread {:.3}; first guess from theory: {}\n",
        m.features.plateau,
        m.features.cliff_s,
        m.features.steady,
        m.features.spread,
        target_of(&p)
    );
    let _ = runs.log.write_all(line.as_bytes());
    let (mut f, mut stop) = refine(&mut runs, &mut p, MAX_REFINE)?;
    let varied = if m.known.spread {
        vary(&mut runs, &p, &f)?
    } else {
        None
    };
    if let Some(better) = varied {
        p = better;
        (f, stop) = refine(&mut runs, &mut p, 3)?;
    }
    let target = target_of(&p);
    let replayed = runs
        .rates
        .iter()
        .rfind(|(t, _)| *t == target)
        .map(|(_, r)| r.clone())
        .unwrap_or_default();
    Ok(Fitted {
        target,
        params: p,
        features: f,
        runs: runs.n,
        stop,
        replayed,
        tried: runs.tried,
        probes: runs.probes,
    })
}

/// The refusal of results whose features no simulated drive can have, naming the file and the phase.
fn unmet_in_results(m: &Measured, u: &Unmet) -> FitError {
    let f = &m.features;
    let (what, why) = match u {
        Unmet::Plateau(why) => (format!("its fresh plateau of {:.0} IOPS", f.plateau), why),
        Unmet::Capacity(why) => (
            format!("its capacity of {} B cannot be simulated", m.capacity),
            why,
        ),
        Unmet::Spare(why) => (
            format!(
                "its steady level of {:.0} IOPS against a fresh plateau of {:.0} needs",
                f.steady, f.plateau
            ),
            why,
        ),
    };
    let sep = if matches!(u, Unmet::Spare(_)) {
        " "
    } else {
        ": "
    };
    FitError::Bad(format!(
        "{}: phase {:?}: {what}{sep}{why}",
        m.file.display(),
        m.phase().name
    ))
}

/// Flash bytes per superblock of `p`.
fn superblock_bytes(p: &SimParams) -> f64 {
    p.block.0 as f64 * f64::from(p.dies.unwrap_or(1))
}

/// The first guess: dies and program time from the plateau, spare area from steady / plateau.
fn first_guess(m: &Measured) -> Result<SimParams, Unmet> {
    let mut p = SimParams {
        capacity: Size(m.capacity),
        ..SimParams::default()
    };
    if let Some((page, block)) = m.geometry {
        (p.page, p.block) = (page, block);
    }
    let plateau = m.features.plateau;
    if !plateau_possible(plateau) {
        return Err(Unmet::Plateau(plateau_range()));
    }
    // The fill's rate in 4 KiB writes per second, when it sets dies / program time.
    let rate = Pace::of(m).plateau_equivalent(m);
    split_plateau(&mut p, rate);
    if !(MIN_PROGRAM_NS..=MAX_PROGRAM_NS).contains(&p.program_time.0) {
        return Err(Unmet::Plateau(plateau_range()));
    }
    match m.known.op {
        Some(op) => p.op = op,
        None => {
            let ratio = (m.features.steady / rate).clamp(1e-3, 0.999);
            let alpha = alpha_of_ratio(&p, ratio);
            set_op(&mut p, alpha);
        }
    }
    match SimTarget::new(p.clone()) {
        Ok(_) => Ok(p),
        Err(e) if e.key == "capacity" && !simulable(&p) => Err(Unmet::Capacity(e.message)),
        Err(e) if e.key == "op" || e.key == "capacity" => Err(Unmet::Spare(spare_bound(&p, &e))),
        Err(e) => Err(Unmet::Plateau(e.message)),
    }
}

/// Whether a drive like `p` can be simulated at the least spare area it can have: else its capacity is
/// what cannot be (attack 40 F13: near 1 TiB the mapping tables' memory refused every spare area, and the
/// refusal blamed the spare area given).
fn simulable(p: &SimParams) -> bool {
    let least = with_superblocks(p, least_superblocks(p));
    !matches!(SimTarget::new(least), Err(e) if e.key == "capacity")
}

/// The fresh plateaus, IOPS of 4 KiB, of the simulator's drives with the default page: one die at the
/// longest program time to the most dies at the shortest.
fn plateau_bounds() -> (f64, f64) {
    let units = (SimParams::default().page.0 / UNIT) as f64;
    let one = |dies: u32, ns: u64| f64::from(dies) * units / (ns as f64 / 1e9);
    (
        one(1, MAX_PROGRAM_NS),
        one(crate::sim::params::MAX_DIES, MIN_PROGRAM_NS),
    )
}

/// Whether a simulated drive can have a fresh plateau of `iops` (a number within [`plateau_range`]).
pub fn plateau_possible(iops: f64) -> bool {
    let (lo, hi) = plateau_bounds();
    (lo..=hi).contains(&iops)
}

/// The fresh plateaus a simulated drive can have, said once for every refusal of one (a measured
/// plateau, a features file's `plateau_iops`).
pub fn plateau_range() -> String {
    let (lo, hi) = plateau_bounds();
    format!(
        "the simulator's fresh plateaus are {lo:.0} to {hi:.0} IOPS (1 to {} dies, program times 1us to 1s, {} host writes of 4 KiB per page)",
        crate::sim::params::MAX_DIES,
        SimParams::default().page.0 / UNIT
    )
}

/// The shortest and longest program times the simulator takes.
const MIN_PROGRAM_NS: u64 = 1_000;
const MAX_PROGRAM_NS: u64 = 1_000_000_000;

/// Superblocks of flash of `p`.
fn superblocks_of(p: &SimParams) -> u64 {
    let flash =
        p.op.checked_of_floor(p.capacity.0)
            .and_then(|s| s.checked_add(p.capacity.0))
            .unwrap_or(u64::MAX);
    flash / superblock_bytes(p) as u64
}

/// `p` with `sbs` superblocks of flash, its spare area at the middle of the last (as [`set_op`] sets it).
fn with_superblocks(p: &SimParams, sbs: u64) -> SimParams {
    let op = (sbs as f64 + 0.5) * superblock_bytes(p) / p.capacity.0 as f64 - 1.0;
    SimParams {
        op: Percent((op.max(0.0) * crate::units::PERCENT_SCALE as f64).round() as u64),
        ..p.clone()
    }
}

/// The least superblocks a drive like `p` has: the capacity's and garbage collection's reserve.
fn least_superblocks(p: &SimParams) -> u64 {
    (p.capacity.0 / UNIT * UNIT).div_ceil(superblock_bytes(p) as u64)
        + u64::from(p.gc_free_superblocks)
        + 2
}

/// Why `p`'s spare area is not a drive's (`e`, the simulator's refusal): less than the least a drive like
/// it has (and the steady level that least gives), or more than it can hold.
fn spare_bound(p: &SimParams, e: &crate::sim::geometry::ParamError) -> String {
    let least_sbs = least_superblocks(p);
    let least = with_superblocks(p, least_sbs);
    let dies = p.dies.unwrap_or(1);
    if superblocks_of(p) < least_sbs && SimTarget::new(least.clone()).is_ok() {
        return format!(
            "less spare area than the least a simulated drive of {} B with {dies} die(s) has: op = {} ({least_sbs} superblocks of {} B: the capacity's {} and {} for garbage collection), whose steady level is {:.0} IOPS by the theory",
            p.capacity.0,
            least.op,
            superblock_bytes(p),
            least_sbs - u64::from(p.gc_free_superblocks) - 2,
            p.gc_free_superblocks + 2,
            theory_steady_at(&least, 1.0)
        );
    }
    format!(
        "more spare area than a simulated drive of {} B with {dies} die(s) can have ({})",
        p.capacity.0, e.message
    )
}

/// Sets `p`'s dies and program time for a fresh plateau of `plateau` IOPS: dies / program time = plateau
/// / units, dies the power of two nearest (in ratio) to a 1.6 ms program.
fn split_plateau(p: &mut SimParams, plateau: f64) {
    let units = (p.page.0 / UNIT) as f64;
    let dies_f = plateau * PRIOR_PROGRAM_NS / 1e9 / units;
    let dies = 2f64
        .powf(dies_f.max(1.0).log2().round())
        .min(f64::from(crate::sim::params::MAX_DIES));
    p.dies = Some(dies as u32);
    p.program_time = Duration((dies * units / plateau * 1e6).round() as u64 * 1000);
}

/// The flash holding data over the data (α) that the theory gives a measured steady / plateau `ratio` on
/// a drive with a fresh plateau of `plateau` IOPS (its dies and program time split as the fit splits
/// them); no capacity needed. α − 1 is the share of the span the drive writes at its plateau before the
/// free flash is used up: the cliff, in span-writes.
pub fn theory_alpha(plateau: f64, ratio: f64) -> f64 {
    let mut p = SimParams::default();
    split_plateau(&mut p, plateau.max(1.0));
    alpha_of_ratio(&p, ratio.clamp(1e-3, 0.999))
}

/// Steady / plateau of a drive whose victims hold a share `u` of valid data: the die time of a host unit at
/// the plateau (a quarter of a page program) over its die time in steady state (the programs of the unit
/// and of its share of copies, the page reads of the copies, the erases).
fn ratio_of_u(p: &SimParams, u: f64) -> f64 {
    let units = (p.page.0 / UNIT) as f64;
    let pages = (p.block.0 / p.page.0) as f64;
    let (prog, read, erase) = (
        p.program_time.0 as f64,
        p.read_time.0 as f64,
        p.erase_time.0 as f64,
    );
    let free = 1.0 - u;
    let cost = prog / units / free
        + read * (1.0 - free.powf(units)) / (units * free)
        + erase / (units * pages * free);
    prog / units / cost
}

/// α (flash holding data over data) of a measured steady / plateau `ratio`, by bisection on u.
fn alpha_of_ratio(p: &SimParams, ratio: f64) -> f64 {
    let (mut lo, mut hi) = (1e-6, 1.0 - 1e-6);
    for _ in 0..100 {
        let u = 0.5 * (lo + hi);
        if ratio_of_u(p, u) > ratio {
            lo = u;
        } else {
            hi = u;
        }
    }
    let u = 0.5 * (lo + hi);
    -u.ln() / (1.0 - u)
}

/// Sets `p.op` for α, at the middle of its superblock (the drive has whole superblocks).
fn set_op(p: &mut SimParams, alpha: f64) {
    let sb = superblock_bytes(p);
    let cap = p.capacity.0 as f64;
    let sbs = (alpha * cap / sb + IDLE_SUPERBLOCKS).round().max(1.0);
    let op = ((sbs + 0.5) * sb / cap - 1.0).max(0.001);
    p.op = Percent((op * crate::units::PERCENT_SCALE as f64).round() as u64);
}

/// α of `p`'s spare area (the inverse of [`set_op`]).
fn alpha_of(p: &SimParams) -> f64 {
    let sb = superblock_bytes(p);
    let cap = p.capacity.0 as f64;
    let op = p.op.0 as f64 / crate::units::PERCENT_SCALE as f64;
    ((cap * (1.0 + op) / sb).floor() - IDLE_SUPERBLOCKS) * sb / cap
}

/// Moves the program time and the spare area until the plateau and steady level match; returns the
/// features of the last run and why the refinement stopped.
fn refine(
    runs: &mut Runs<'_>,
    p: &mut SimParams,
    most: usize,
) -> Result<(Features, Stop), FitError> {
    let m = runs.m.features;
    let pace = Pace::of(runs.m);
    let want = pace.want(runs.m);
    let target = (m.steady / want).ln();
    let mut seen: Vec<(f64, f64)> = Vec::new();
    let mut f = runs.try_params(p)?;
    for _ in 1..most {
        let e = f.errors(&m);
        let rates = runs.rates.last().map_or(&[][..], |(_, r)| &r[..]);
        let rate = pace.got(&f, rates).unwrap_or(f.plateau * want / m.plateau);
        let fixed_op = runs.m.known.op.is_some();
        if ((rate - want) / want).abs() < CLOSE && (fixed_op || e[2].abs() < CLOSE) {
            return Ok((f, Stop::Close));
        }
        let before = (p.op, p.program_time);
        if !fixed_op {
            let a = alpha_of(p);
            let got = (f.steady / rate).ln();
            seen.push((a, got));
            set_op(p, a + spare_step(p, &seen, target - got));
        }
        let scale = (rate / want).clamp(0.5, 2.0);
        p.program_time = Duration((p.program_time.0 as f64 * scale).round() as u64 / 1000 * 1000);
        if (p.op, p.program_time) == before {
            return Ok((f, Stop::Settled));
        }
        if let Err(e) = SimTarget::new(p.clone()) {
            let bound = param_bound(p, &e);
            (p.op, p.program_time) = before;
            return Ok((f, Stop::Bound(bound)));
        }
        f = runs.try_params(p)?;
    }
    Ok((f, Stop::Runs(most)))
}

/// The bound a candidate `p` is past (`e`, the simulator's refusal), for a warning.
fn param_bound(p: &SimParams, e: &crate::sim::geometry::ParamError) -> String {
    match e.key {
        "op" | "capacity" => format!(
            "its next candidate's spare area, op = {}, is {}",
            p.op,
            spare_bound(p, e)
        ),
        "program_time" => format!(
            "its next candidate's program time, {}, is outside the simulator's 1us to 1s",
            p.program_time
        ),
        _ => format!("its next candidate is not a drive: {}", e.message),
    }
}

/// The steady level's tolerance for `p` toward a steady level `lower` or higher than its own: 1 %, or the
/// share by which one superblock less or more of spare area (when the drive has one) moves it by the
/// theory: the spare area is whole superblocks.
pub fn steady_tolerance(p: &SimParams, lower: bool) -> f64 {
    let sbs = superblocks_of(p);
    let s0 = theory_steady_at(p, 1.0);
    let next = match lower {
        true => sbs.checked_sub(1),
        false => Some(sbs + 1),
    }
    .map(|n| with_superblocks(p, n))
    .filter(|q| SimTarget::new(q.clone()).is_ok());
    let step = next.map_or(0.0, |q| ((theory_steady_at(&q, 1.0) - s0) / s0).abs());
    CLOSE.max(step)
}

/// A feature the theory's drive misses by more than the fit's tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct Miss {
    /// `"fresh plateau"` or `"steady level"`.
    pub feature: &'static str,
    /// The drive's, IOPS.
    pub got: f64,
    /// The bound that kept the theory from the given value.
    pub bound: String,
}

/// The features the theory's drive `p` misses by more than the fit's tolerance: its plateau against
/// `plateau`, its steady level against `steady` when given; each with the bound that was hit.
pub fn theory_misses(p: &SimParams, plateau: f64, steady: Option<f64>) -> Vec<Miss> {
    let mut out = Vec::new();
    let got = theory_plateau(p);
    let dies = p.dies.unwrap_or(1);
    if beyond((got - plateau) / plateau, CLOSE) {
        let bound = if dies == crate::sim::params::MAX_DIES {
            format!(
                "the dies' cap ({dies}) with program_time in whole microseconds, at least 1us (program_time = {})",
                p.program_time
            )
        } else if p.program_time.0 == MAX_PROGRAM_NS {
            "program_time's ceiling, 1s, with one die".to_string()
        } else {
            format!(
                "program_time in whole microseconds (program_time = {})",
                p.program_time
            )
        };
        out.push(Miss {
            feature: "fresh plateau",
            got,
            bound,
        });
    }
    let Some(want) = steady else {
        return out;
    };
    let got = theory_steady_at(p, 1.0);
    let lower = want < got;
    if !beyond((got - want) / want, steady_tolerance(p, lower)) {
        return out;
    }
    let sbs = superblocks_of(p);
    let next = with_superblocks(
        p,
        if lower {
            sbs.saturating_sub(1)
        } else {
            sbs + 1
        },
    );
    let bound = match (lower, SimTarget::new(next)) {
        (true, Err(_)) => format!(
            "the op floor: op = {} is the least spare area a simulated drive of {} B with {dies} die(s) has ({sbs} superblocks of {} B: the capacity's {} and {} for garbage collection)",
            p.op,
            p.capacity.0,
            superblock_bytes(p),
            sbs.saturating_sub(u64::from(p.gc_free_superblocks) + 2),
            p.gc_free_superblocks + 2
        ),
        (false, Err(e)) => format!("the op ceiling: {}", e.message),
        (true, Ok(_)) => "the theory's lowest steady / plateau, 1/1000".to_string(),
        (false, Ok(_)) => {
            let floor = match (
                p.program_time.0 == MIN_PROGRAM_NS,
                dies == crate::sim::params::MAX_DIES,
            ) {
                (true, true) => format!(
                    "; program_time is at its floor (1us) with the dies at their cap ({dies})"
                ),
                (true, false) => "; program_time is at its floor (1us)".to_string(),
                _ => String::new(),
            };
            format!(
                "the model's ceiling of steady / plateau, {:.3} with program_time {} whatever the spare area: the erases (erase_time {} per block of {} pages) and the copies' reads (read_time {}), the defaults, cost more than the programs{floor}",
                ratio_of_u(p, 1e-9),
                p.program_time,
                p.erase_time,
                p.block.0 / p.page.0,
                p.read_time
            )
        }
    };
    out.push(Miss {
        feature: "steady level",
        got,
        bound,
    });
    out
}

/// The step of α that moves ln(steady / plateau) by `gap`: a secant against α through the last two
/// distinct points of `seen` (α, ln(steady / plateau)), else the theory's slope; at most half of α.
fn spare_step(p: &SimParams, seen: &[(f64, f64)], gap: f64) -> f64 {
    let a = seen.last().map_or_else(|| alpha_of(p), |s| s.0);
    let slope = match seen {
        [.., (a0, g0), (a1, g1)] if (a1 - a0).abs() > 1e-9 && (g1 - g0) / (a1 - a0) > 0.0 => {
            (g1 - g0) / (a1 - a0)
        }
        _ => theory_slope(p, a),
    };
    (gap / slope).clamp(-0.5 * a, 0.5 * a)
}

/// The drive the theory's first guess gives for a fresh plateau of `plateau` IOPS on a drive of
/// `capacity` bytes whose spare area is `spare` (as given, or fitted to the given steady level): the
/// fit's first step alone, without simulated runs.
///
/// # Errors
/// [`Unmet`] when no drive of the model has that plateau or spare area.
pub fn theory_params(
    capacity: u64,
    plateau: f64,
    spare: &super::given::Spare,
) -> Result<SimParams, Unmet> {
    let (steady, op) = match spare {
        super::given::Spare::Steady(s) => (*s, None),
        super::given::Spare::Op(op) => (0.0, Some(*op)),
    };
    let m = Measured {
        file: PathBuf::new(),
        capacity,
        target: String::new(),
        phases: Vec::new(),
        iops: Vec::new(),
        features: Features {
            plateau,
            fresh: usize::MAX,
            cliff_s: 0.0,
            steady,
            spread: 0.0,
            worst: 0.0,
        },
        known: super::measured::Known {
            op,
            ..super::measured::Known::ALL
        },
        replayed: Vec::new(),
        geometry: None,
    };
    first_guess(&m)
}

/// The fresh plateau the theory gives `p`: dies × host units per page / program time, IOPS of 4 KiB.
pub fn theory_plateau(p: &SimParams) -> f64 {
    let units = (p.page.0 / UNIT) as f64;
    f64::from(p.dies.unwrap_or(1)) * units / (p.program_time.0 as f64 / 1e9)
}

/// The steady level the theory gives `p` under uniform random writes over a share `span` (0 to 1] of its
/// capacity after an erase: the flash that holds data over the data is α / `span`, the untouched rest
/// of the capacity holding none.
pub fn theory_steady_at(p: &SimParams, span: f64) -> f64 {
    theory_plateau(p) * ratio_of_u(p, u_of(alpha_of(p) / span))
}

/// The steady level the theory expects of a drive of `capacity` bytes with a fresh plateau of `plateau`
/// IOPS whose spare area is `spare` (or the given steady level).
///
/// # Errors
/// As [`theory_params`].
pub fn theory_steady(
    capacity: u64,
    plateau: f64,
    spare: &super::given::Spare,
) -> Result<f64, Unmet> {
    if let super::given::Spare::Steady(s) = spare {
        return Ok(*s);
    }
    let p = theory_params(capacity, plateau, spare)?;
    Ok(plateau * ratio_of_u(&p, u_of(alpha_of(&p))))
}

/// u = exp(−α (1 − u)), by iteration from below (the root under 1 when α > 1).
fn u_of(a: f64) -> f64 {
    let mut u = 0.0f64;
    for _ in 0..5000 {
        u = (-a * (1.0 - u)).exp();
    }
    u
}

/// d ln(steady / plateau) / dα by the theory, at α = `a`.
fn theory_slope(p: &SimParams, a: f64) -> f64 {
    let ln_ratio = |alpha: f64| {
        // u = exp(−α (1 − u)), by iteration from below.
        let mut u = 0.0f64;
        for _ in 0..500 {
            u = (-alpha * (1.0 - u)).exp();
        }
        ratio_of_u(p, u).ln()
    };
    let h = 0.01;
    ((ln_ratio(a + h) - ln_ratio(a - h)) / (2.0 * h)).max(1e-3)
}

/// The timing variation and collection policy whose spread is nearest the measured one, when another than
/// `p`'s is nearer; `f` is `p`'s run.
fn vary(runs: &mut Runs<'_>, p: &SimParams, f: &Features) -> Result<Option<SimParams>, FitError> {
    let want = runs.m.features.spread;
    let pct = |n: u64| Percent(n * crate::units::PERCENT_SCALE / 100);
    let with = |jitter: u64, gc: GcPolicy, pace: Option<u64>| SimParams {
        jitter: pct(jitter),
        gc,
        gc_pace: pace.map(pct),
        ..p.clone()
    };
    let candidates = if want < f.spread {
        vec![
            with(10, GcPolicy::Paced, None),
            with(0, GcPolicy::Paced, None),
        ]
    } else {
        vec![
            with(50, GcPolicy::Paced, None),
            with(30, GcPolicy::Deferred, Some(90)),
            with(30, GcPolicy::Deferred, Some(0)),
        ]
    };
    let tried = |q: &SimParams, spread: f64| Tried {
        gc: q.gc,
        pace: q.gc_pace,
        jitter: q.jitter,
        spread,
    };
    runs.tried.push(tried(p, f.spread));
    let policies = candidates.iter().any(|c| c.gc != p.gc);
    let mut best: Option<(f64, SimParams)> = None;
    let mut best_gap = (f.spread - want).abs();
    for c in candidates {
        let g = runs.try_params(&c)?;
        runs.tried.push(tried(&c, g.spread));
        let gap = (g.spread - want).abs();
        if gap < best_gap * NEARER {
            best_gap = gap;
            best = Some((g.spread, c));
        }
    }
    if policies {
        let (spread, kept) = best.as_ref().map_or((f.spread, p), |(s, c)| (*s, c));
        probe_dies(runs, kept, spread)?;
    }
    Ok(best.map(|(_, c)| c))
}

/// Runs `kept`, the drive the spread step keeps (its spread `spread`), at twice and at half its dies with
/// the program time scaled alike (where the simulator has them), the ratio that the fill pins kept, and
/// the spare area that keeps its α at the other superblock size ([`set_op`]: else the steady level moves
/// with the dies' superblocks, 8 dies of 4 MiB blocks at the spare area fitted to 4 ran at a third of the
/// steady level): how far the spread moves with the dies alone, which the collection policies' margin must
/// exceed to be told apart by it ([`super::doubts::untold_gc`]). The fill does not pin the dies (the
/// validation's drive 5, 8 dies at 3 ms, is fitted as 4 at 1.5 ms).
fn probe_dies(runs: &mut Runs<'_>, kept: &SimParams, spread: f64) -> Result<(), FitError> {
    let dies = kept.dies.unwrap_or(1);
    let ns = kept.program_time.0;
    let others = [
        (dies.checked_mul(2), ns.checked_mul(2)),
        ((dies >= 2).then_some(dies / 2), Some(ns / 2)),
    ];
    for (d, t) in others {
        let (Some(d), Some(t)) = (d, t) else { continue };
        if d > crate::sim::params::MAX_DIES || !(MIN_PROGRAM_NS..=MAX_PROGRAM_NS).contains(&t) {
            continue;
        }
        let mut q = SimParams {
            dies: Some(d),
            program_time: Duration(t),
            ..kept.clone()
        };
        set_op(&mut q, alpha_of(kept));
        if SimTarget::new(q.clone()).is_err() {
            continue;
        }
        let g = runs.try_params(&q)?;
        runs.probes.push(Probe {
            dies: d,
            program_time: Duration(t),
            op: q.op,
            spread: g.spread,
            base: spread,
        });
    }
    Ok(())
}

/// The fit's account for stderr: each feature measured and fitted with its error, and the write rate of
/// each replayed phase ([`super::replay`]); a warning for a plateau too short to measure well, for a
/// replayed phase off by more than [`super::replay::RATE_TOLERANCE`], and for each feature missed by more
/// than the fit's tolerance (1 % for the plateau; for the steady level, 1 % or what one superblock of spare
/// area moves it by, [`steady_tolerance`]) with why the refinement stopped; what the data pinned down and
/// what it could not, and the runs it took.
pub fn report(m: &Measured, f: &Fitted, seconds: f64) -> String {
    let a = &m.features;
    let mut s = feature_table(m, f, seconds);
    for w in warnings(m, f) {
        s.push_str(&format!("warning: {w}\n"));
    }
    let (pace_missed, steady_missed) = missed(m, f);
    s.push_str(&steady_clause(m, f));
    let pace = Pace::of(m);
    let (others, _) = replayed_unmatched(m, &pace);
    let ratio_pinned = !pace_missed
        && (pace.fill().is_some() || !a.very_short_plateau())
        && !super::replay::any_off(&others, &f.replayed);
    s.push_str(&pinned_lines(m, f, ratio_pinned, steady_missed));
    s
}

/// The replayed phases of `m` the fit does not match (all but the fill that sets dies / program time,
/// `pace`), and that fill's name.
fn replayed_unmatched<'a>(
    m: &Measured,
    pace: &'a Pace,
) -> (Vec<super::replay::Rate>, Option<&'a str>) {
    let fill = pace.fill();
    let others = m
        .replayed
        .iter()
        .filter(|r| Some(r.name.as_str()) != fill)
        .cloned()
        .collect();
    (others, fill)
}

/// Whether the fitted drive misses the rate that sets dies / program time ([`Pace`]: the fill's, or the
/// fresh plateau) and the steady level by more than the fit's tolerance, as shown ([`beyond`]).
fn missed(m: &Measured, f: &Fitted) -> (bool, bool) {
    let e = f.features.errors(&m.features);
    let k = &m.known;
    let steady_missed =
        k.steady && k.op.is_none() && beyond(e[2], steady_tolerance(&f.params, e[2] > 0.0));
    let pace = Pace::of(m).error(m, &f.features, &f.replayed);
    (beyond(pace, CLOSE), steady_missed)
}

/// The fit's warnings, each a sentence without its `warning: `: a plateau too short to measure well, each
/// replayed phase off by more than [`super::replay::RATE_TOLERANCE`], and each feature missed by more than
/// the fit's tolerance. [`report`] says them on stderr; `sim predict` records them in its results
/// (`prediction.fit_warnings`), so that the prediction keeps what its fit could not vouch for.
pub fn warnings(m: &Measured, f: &Fitted) -> Vec<String> {
    let (a, b) = (&m.features, &f.features);
    let e = b.errors(a);
    let (pace_missed, steady_missed) = missed(m, f);
    let pace = Pace::of(m);
    let mut out: Vec<String> = short_plateau_warning(m).into_iter().collect();
    out.extend(super::replay::warnings(
        &replayed_unmatched(m, &pace).0,
        &f.replayed,
    ));
    let rate = pace.got(b, &f.replayed).unwrap_or(b.plateau);
    for (missed, name, x, y, err, params) in [
        (
            pace_missed,
            pace.what(),
            pace.want(m),
            rate,
            pace.error(m, b, &f.replayed),
            "dies / program_time are",
        ),
        (
            steady_missed,
            "steady level".to_string(),
            a.steady,
            b.steady,
            e[2],
            "op is",
        ),
    ] {
        if missed {
            out.push(format!(
                "the fitted drive misses the {name} by {:+.1} % ({x:.0} IOPS to match, the drive's {y:.0}), more than the fit's tolerance; the refinement stopped because {}; {params} not pinned by the data",
                err * 100.0,
                f.stop.why()
            ));
        }
    }
    out.extend(super::doubts::plateau_warning(m, f));
    if m.known.spread {
        out.extend(super::doubts::untold_gc(f, a.spread));
    }
    out
}

/// The head of the fit's account: the runs and their time, then each feature measured, fitted and its
/// error (the cliff to the interval's resolution), and each replayed phase's write rate
/// ([`super::replay::table_rows`]); the name column as wide as the longest name.
fn feature_table(m: &Measured, f: &Fitted, seconds: f64) -> String {
    let (a, b) = (&m.features, &f.features);
    let e = b.errors(a);
    let k = &m.known;
    let cliff_dp = interval_decimals(m.phase().interval_ns);
    let mut rows: Vec<[String; 4]> = Vec::new();
    for (name, known, x, y, err, dp) in [
        ("fresh plateau (IOPS)", true, a.plateau, b.plateau, e[0], 0),
        (
            "cliff, half-way (s)",
            k.cliff,
            a.cliff_s,
            b.cliff_s,
            e[1],
            cliff_dp,
        ),
        ("steady level (IOPS)", k.steady, a.steady, b.steady, e[2], 0),
    ] {
        rows.push(match known {
            true => [
                name.into(),
                format!("{x:.dp$}"),
                format!("{y:.dp$}"),
                format!("{:+.1} %", err * 100.0),
            ],
            false => [
                name.into(),
                "unknown".into(),
                format!("{y:.dp$}"),
                "-".into(),
            ],
        });
    }
    let spread = "spread (sd / mean)".to_string();
    rows.push(match k.spread {
        true => [
            spread,
            format!("{:.3}", a.spread),
            format!("{:.3}", b.spread),
            format!("{:+.3}", e[3]),
        ],
        false => [
            spread,
            "unknown".into(),
            format!("{:.3}", b.spread),
            "-".into(),
        ],
    });
    rows.extend(super::replay::table_rows(&m.replayed, &f.replayed));
    let mut s = format!("fit: {} simulated runs in {seconds:.1} s\n", f.runs);
    s.push_str(&table_lines(
        &["feature", "measured", "fitted", "error"].map(String::from),
        &rows,
    ));
    s
}

/// The lines of the fit's feature table: `head` and `rows` of a name and three values, each line
/// `fit:   ` and the name padded to the longest name, the values right-aligned in columns of 10, 10 and 9
/// characters (an error of `+100.0 %` fits its column).
fn table_lines(head: &[String; 4], rows: &[[String; 4]]) -> String {
    let w = rows
        .iter()
        .chain([head])
        .map(|r| r[0].chars().count())
        .max()
        .unwrap_or(0);
    [head]
        .into_iter()
        .chain(rows)
        .map(|[n, x, y, e]| format!("fit:   {n:<w$} {x:>10} {y:>10} {e:>9}\n"))
        .collect()
}

/// The decimals of seconds that show a time to a whole interval of `interval_ns` (0 for whole seconds,
/// 1 for 100 ms, 3 for 1 ms).
pub fn interval_decimals(interval_ns: u64) -> usize {
    let mut unit = 1_000_000_000u64;
    let mut dp = 0;
    while dp < 9 && !interval_ns.is_multiple_of(unit) {
        unit /= 10;
        dp += 1;
    }
    dp
}

/// `value`, followed by " (the default)" when it is `default` (then the target names no such key).
fn said<T: PartialEq + std::fmt::Display>(value: &T, default: &T) -> String {
    match value == default {
        true => format!("{value} (the default)"),
        false => value.to_string(),
    }
}

/// The account's closing lines: what the data pinned down (the spare area unless the steady level was
/// missed; dies / program time when `ratio_pinned`; the collection policy and timing variation when the
/// spread is known) and what it could not.
fn pinned_lines(m: &Measured, f: &Fitted, ratio_pinned: bool, steady_missed: bool) -> String {
    let p = &f.params;
    let k = &m.known;
    let d = SimParams::default();
    let sb_points = superblock_bytes(p) / p.capacity.0 as f64 * 100.0;
    let (gc, jitter) = (
        said(&p.gc.as_str(), &d.gc.as_str()),
        said(&p.jitter, &d.jitter),
    );
    let mut pinned = Vec::new();
    let doubt = op_doubt(m, p, ratio_pinned, steady_missed);
    if !steady_missed && doubt.is_none() {
        pinned.push(match k.op {
            Some(op) => format!("op = {op} (given, not fitted: nothing in the data checks it)"),
            None => format!("op = {} (to a superblock, {sb_points:.2} points)", p.op),
        });
    }
    if ratio_pinned {
        pinned.push(match Pace::of(m).fill() {
            Some(fill) => format!("dies / program_time (the rate of the fill {fill:?})"),
            None => "dies / program_time (the plateau)".to_string(),
        });
    }
    let jitter_off = super::doubts::plateau_off(m, f);
    let gc_untold = k.spread && super::doubts::untold_gc(f, m.features.spread).is_some();
    let by_spread = [
        (!gc_untold).then(|| format!("gc = {gc}")),
        jitter_off.is_none().then(|| format!("jitter = {jitter}")),
    ];
    let by_spread: Vec<String> = by_spread.into_iter().flatten().collect();
    if k.spread && !by_spread.is_empty() {
        pinned.push(format!(
            "{}, by the spread among the few tried",
            by_spread.join(" and ")
        ));
    } else if !pinned.is_empty() {
        pinned.push("nothing else".to_string());
    }
    let pinned = match pinned.is_empty() {
        true => "nothing (see the warnings)".to_string(),
        false => pinned.join(", "),
    };
    let mut s = format!("fit: pinned by the data: {pinned}\n");
    if !k.spread {
        s.push_str(&format!(
            "fit: not pinned by the features: gc and jitter (no spread given; gc = {gc}, jitter = {jitter} kept), so the worst seconds are not predicted\n"
        ));
    }
    if !k.cliff {
        s.push_str("fit: not checked by the features: the cliff's time (none given)\n");
    }
    if let Some(why) = doubt {
        s.push_str(&format!(
            "fit: not pinned by the data: op = {} ({why})\n",
            p.op
        ));
    }
    if let Some(err) = jitter_off {
        s.push_str(&format!(
            "fit: not pinned by the data: jitter = {jitter} (the fresh plateau is {:+.1} % off, more than the {:.1} % of a fit with the right parameters: likely off, see the warning)\n",
            err * 100.0,
            super::doubts::PLATEAU_TOLERANCE * 100.0
        ));
    }
    if gc_untold {
        s.push_str(&format!(
            "fit: not pinned by the data: gc and gc_pace (gc = {gc}{} kept: the collection policies tried were not told apart by the spread, see the warning)\n",
            p.gc_pace.map(|x| format!(", gc_pace = {x}")).unwrap_or_default()
        ));
    }
    s.push_str(&format!(
        "fit: not pinned by the data: {}; {}read_time, erase_time, command_time, interface_bytes_per_s, buffer and gc_free_superblocks (the defaults kept); compression (assumed off); seed\n",
        dies_clause(p, &Pace::of(m), ratio_pinned),
        match m.geometry {
            Some(_) => "",
            None => "page, block, ",
        }
    ));
    if m.geometry.is_some() {
        s.push_str(&format!(
            "fit: kept from the measured simulated drive: page = {}, block = {}\n",
            p.page, p.block
        ));
    }
    s
}

/// Why a fitted spare area that met the steady level is still not pinned by the data (`None` when it is,
/// or when it was given or missed): the plateau it is fitted against is not (`ratio_pinned` false: a very
/// short plateau, a plateau missed, a replayed phase off), or one superblock of the default block kept for
/// a drive whose block is unknown is more than [`COARSE_POINTS`] of the capacity (attack 40 F5: a 64 MiB
/// drive's op came out 46.875 % against the truth's 7 %, "pinned").
fn op_doubt(
    m: &Measured,
    p: &SimParams,
    ratio_pinned: bool,
    steady_missed: bool,
) -> Option<String> {
    if m.known.op.is_some() || steady_missed {
        return None;
    }
    let sb_points = superblock_bytes(p) / p.capacity.0 as f64 * 100.0;
    if !ratio_pinned {
        Some("fitted to the steady level over the fresh plateau, and the plateau and dies / program_time are not pinned: see the warnings".to_string())
    } else if m.geometry.is_none() && sb_points > COARSE_POINTS {
        Some(format!(
            "one superblock of the default block, {} B on {} die(s), is {sb_points:.2} points of the {} B capacity, more than {COARSE_POINTS}: the drive's block is unknown and so coarse a drive collects its garbage unlike the measured one",
            superblock_bytes(p),
            p.dies.unwrap_or(1),
            p.capacity.0
        ))
    } else {
        None
    }
}

/// The superblock, in points of the capacity, above which a fitted spare area is not called pinned when
/// the drive's block is unknown (the default kept): the least spare area a drive has is 5 superblocks.
const COARSE_POINTS: f64 = 2.0;

/// How `p`'s dies and program time were chosen: the dies, then the program time the rate that sets them
/// (`pace`: the fill's, or the plateau) gives them.
pub fn dies_chosen(p: &SimParams, pace: &Pace) -> String {
    let to = match pace.fill() {
        Some(fill) => format!("the rate of the fill {fill:?}"),
        None => "the plateau".to_string(),
    };
    format!(
        "{} die(s) chosen as the power of two nearest a 1.6 ms program time (at least 1), then program_time = {} fitted to {to}",
        p.dies.unwrap_or(1),
        p.program_time
    )
}

/// What the account says of dies and program time apart: the dies chosen and the program time fitted with
/// them, and whether the plateau fixes their ratio (`ratio_pinned`).
fn dies_clause(p: &SimParams, pace: &Pace, ratio_pinned: bool) -> String {
    let chosen = dies_chosen(p, pace);
    let fixes = match pace.fill() {
        Some(_) => "the fill's rate",
        None => "the plateau",
    };
    match ratio_pinned {
        true => {
            format!("dies and program_time apart ({chosen}; {fixes} fixes only their ratio)")
        }
        false => {
            format!("dies and program_time, not even their ratio (see the warnings; {chosen})")
        }
    }
}

/// Which clause of the steady level's tolerance ([`steady_tolerance`]) lets a fitted steady level off by
/// more than 1 % pass without a warning: one superblock more or less of spare area moves it by more. Empty
/// when the steady level is within 1 %, missed (then a warning says so), or not fitted.
fn steady_clause(m: &Measured, f: &Fitted) -> String {
    let err = f.features.errors(&m.features)[2];
    let p = &f.params;
    let tol = steady_tolerance(p, err > 0.0);
    if !m.known.steady || m.known.op.is_some() || !beyond(err, CLOSE) || beyond(err, tol) {
        return String::new();
    }
    format!(
        "fit: the steady level is off by {:+.1} %, more than 1 % but within one superblock of spare area: {:.2} points of op move it by {:.1} % by the theory, and the spare area is whole superblocks\n",
        err * 100.0,
        superblock_bytes(p) / p.capacity.0 as f64 * 100.0,
        tol * 100.0
    )
}

/// The warning for a measured phase whose fresh plateau lasts fewer than
/// [`super::features::MIN_PLATEAU_INTERVALS`] intervals (none for a features file, or a longer plateau):
/// how it was measured, and what gives the fit more intervals to measure.
pub fn short_plateau_warning(m: &Measured) -> Option<String> {
    let f = &m.features;
    if m.iops.is_empty() || !f.short_plateau() {
        return None;
    }
    let dt = m.phase().interval_ns;
    let finer = Duration((dt / 10).max(crate::spec::rules::MIN_INTERVAL_NS));
    let fill = Pace::of(m);
    let off = match (f.very_short_plateau(), fill.fill()) {
        (true, Some(fill)) => format!(
            "with fewer than {} the drop may come early in the highest, so the plateau and the cliff's time can be off by tens of % (dies / program_time are fitted to the rate of the fill {fill:?}, not to the plateau); measure again with --set interval={finer}",
            super::features::FEW_PLATEAU_INTERVALS
        ),
        (false, Some(_)) => format!(
            "so the plateau may be off by several % (dies / program_time are fitted to the fill's rate); give the plateau more intervals: a finer interval (e.g. --set interval={finer})"
        ),
        (true, None) => format!(
            "with fewer than {} the drop may come early in the highest, so the plateau, and with it the fitted dies / program_time and the predictions at other spans, can be off by tens of % (dies / program_time are not pinned); measure again with --set interval={finer}",
            super::features::FEW_PLATEAU_INTERVALS
        ),
        (false, None) => format!(
            "so the fit may be off by several %; give the plateau more intervals: a finer interval (e.g. --set interval={finer})"
        ),
    };
    Some(format!(
        "phase {:?}'s fresh plateau lasts {} interval(s) of {} before the drop, fewer than the {} its median needs: the plateau is taken as its highest interval ({:.0} IOPS) and the cliff's time is known to an interval at best; {off} or a larger drive region (a larger span or drive)",
        m.phase().name,
        f.fresh,
        Duration(dt),
        super::features::MIN_PLATEAU_INTERVALS,
        f.plateau
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_said_to_its_interval() {
        for (ns, dp, shown) in [
            (1_000_000_000, 0, "7"),
            (2_000_000_000, 0, "7"),
            (100_000_000, 1, "7.2"),
            (250_000_000, 2, "7.25"),
            (1_000_000, 3, "7.201"),
        ] {
            assert_eq!(interval_decimals(ns), dp, "{ns}");
            let t = [7.0, 7.2, 7.25, 7.201][dp];
            assert_eq!(format!("{t:.dp$}"), shown);
        }
        assert_eq!(said(&"paced", &"paced"), "paced (the default)");
        assert_eq!(said(&"deferred", &"paced"), "deferred");
    }

    /// Issue 30 leftover: a replayed fill named by a sweep (`fill[spare-area=100%] (IOPS)`, 28 characters)
    /// is wider than the features' names: the name column is as wide as it, every value in its column.
    #[test]
    fn the_feature_table_is_as_wide_as_its_longest_name() {
        let row = |n: &str, x: &str, y: &str, e: &str| [n, x, y, e].map(String::from);
        let head = row("feature", "measured", "fitted", "error");
        let mut rows = vec![
            row("fresh plateau (IOPS)", "2401", "2398", "-0.1 %"),
            row("cliff, half-way (s)", "5", "5", "+0.0 %"),
            row("steady level (IOPS)", "unknown", "300", "-"),
            row("spread (sd / mean)", "0.154", "0.129", "-0.025"),
        ];
        // Without the fill, as wide as "fresh plateau (IOPS)".
        let lines = table_lines(&head, &rows);
        assert_eq!(
            lines.lines().take(2).collect::<Vec<_>>(),
            [
                "fit:   feature                measured     fitted     error",
                "fit:   fresh plateau (IOPS)       2401       2398    -0.1 %"
            ]
        );
        rows.extend(super::super::replay::table_rows(
            &[super::super::replay::Rate {
                name: "fill[spare-area=100%]".into(),
                iops: 192.0,
            }],
            &[super::super::replay::Rate {
                name: "fill[spare-area=100%]".into(),
                iops: 135.0,
            }],
        ));
        assert_eq!(
            table_lines(&head, &rows),
            "fit:   feature                        measured     fitted     error\n\
             fit:   fresh plateau (IOPS)               2401       2398    -0.1 %\n\
             fit:   cliff, half-way (s)                   5          5    +0.0 %\n\
             fit:   steady level (IOPS)             unknown        300         -\n\
             fit:   spread (sd / mean)                0.154      0.129    -0.025\n\
             fit:   fill[spare-area=100%] (IOPS)        192        135   -29.7 %\n"
        );
    }

    #[test]
    fn theory_round_trips_from_ratio_to_spare_area() {
        // sim:capacity=1GiB,op=7%,dies=1: 273 superblocks of 4 MiB for 256 of data, α = 269 / 256.
        let mut p = SimParams::parse_target("sim:capacity=1GiB,op=7%,dies=1").unwrap();
        let a = alpha_of(&p);
        assert!((a - 269.0 / 256.0).abs() < 1e-12, "{a}");
        // u from α by the fixed point, independently of the code under test.
        let mut u = 0.5f64;
        for _ in 0..2000 {
            u = (-a * (1.0 - u)).exp();
        }
        let r = ratio_of_u(&p, u);
        let back = alpha_of_ratio(&p, r);
        assert!((back - a).abs() < 1e-6, "{back} vs {a}");
        // The spare area set from α lands in the same superblock count.
        set_op(&mut p, back);
        assert_eq!(SimTarget::new(p.clone()).unwrap().superblocks, 273);
        assert!((alpha_of(&p) - a).abs() < 1e-12);
    }
}
