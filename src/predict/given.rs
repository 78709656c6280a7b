//! A fit from published features alone (`wkrun sim fit --features FILE`): an article gives a drive's fresh
//! plateau, its steady level or spare area, perhaps the time of its cliff and its spread, not a series.
//! The features file says them; the fit then runs the phases a measured run would have had (an erase, a
//! sequential fill, random writes of the stated block size at the stated queue depth, long enough to reach
//! the steady state) on each candidate drive, as for a measured run.
//!
//! The file (TOML, every key at the top level; docs/predict.md "A fit from published features"):
//! `capacity` (a size string), `block_size` (a size string), `queue_depth` (an integer), `plateau_iops`,
//! then exactly one of `steady_iops` (the spare area is fitted to it) and `op` (the spare area, a percent
//! string, when the vendor publishes it: then nothing pins it but the statement); optional `cliff_s` (the
//! half-way time of the cliff, compared, not fitted) and `spread` (standard deviation / mean of the steady
//! seconds: picks the timing variation and collection policy).

use super::FitError;
use super::features::{CLIFF_DEPTH, Features};
use super::fit::Unmet;
use super::measured::{Known, Measured};
use super::runner::PhaseShape;
use crate::sim::params::{MAX_MODEL_BYTES, UNIT};
use crate::spec::rules::MAX_BLOCK_SIZE;
use crate::units::{Percent, Size};
use crate::vocab::{Pattern, PhaseKind};
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};

/// The keys of a features file, in the order docs/predict.md lists them.
pub const KEYS: [&str; 8] = [
    "capacity",
    "block_size",
    "queue_depth",
    "plateau_iops",
    "steady_iops",
    "op",
    "cliff_s",
    "spread",
];

/// Largest queue depth a features file may give: a spec's (the fit runs a spec of it).
const MAX_QD: i64 = crate::spec::rules::MAX_QUEUE_DEPTH as i64;

/// What pins the spare area.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Spare {
    /// The steady level, IOPS: the spare area is fitted to it.
    Steady(f64),
    /// The spare area as published.
    Op(Percent),
}

/// A features file, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Given {
    /// The file read.
    pub file: PathBuf,
    /// The drive's user capacity, bytes.
    pub capacity: u64,
    /// Bytes per random write.
    pub block_size: u64,
    /// Random writes in flight.
    pub queue_depth: u32,
    /// Fresh plateau, IOPS.
    pub plateau: f64,
    /// What pins the spare area.
    pub spare: Spare,
    /// Half-way time of the cliff, s (compared, not fitted).
    pub cliff_s: Option<f64>,
    /// Standard deviation / mean of the steady seconds.
    pub spread: Option<f64>,
    /// Where the file says the capacity (`capacity`).
    pub capacity_said: Said,
    /// Where the file says the plateau (`plateau_iops`).
    pub plateau_said: Said,
    /// Where the file says what pins the spare area (`steady_iops` or `op`).
    pub spare_said: Said,
}

/// Where a features file says a value: its line and its text as written (`1e-300`, not a rounded number).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Said {
    /// The line, from 1.
    pub line: usize,
    /// The value's text.
    pub text: String,
}

/// Reads and checks the features file `path`.
///
/// # Errors
/// [`FitError::Bad`] naming the file, the line and the key: unreadable or not TOML, an unknown key, a
/// missing one, a value of the wrong type or out of range, both or neither of `steady_iops` and `op`, a
/// steady level not below 80 % of the plateau (no cliff: the spare area is unknown); a file that is not a
/// regular file (a device, a FIFO) or larger than [`MAX_FEATURES_BYTES`].
pub fn read(path: &Path) -> Result<Given, FitError> {
    let bad = |m: String| FitError::Bad(format!("{}: {m}", path.display()));
    let bytes = crate::spec::load::read_regular_bounded(path, MAX_FEATURES_BYTES)
        .map_err(|e| bad(format!("cannot read: {e}")))?
        .ok_or_else(|| {
            bad(format!(
                "larger than {}, the largest features file wkrun reads (one is a few hundred bytes)",
                crate::units::fmt_bytes(MAX_FEATURES_BYTES)
            ))
        })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "not UTF-8 (an invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse(path, &text)
}

/// The largest features file wkrun reads: 64 KiB (one is a few hundred bytes).
pub const MAX_FEATURES_BYTES: u64 = 64 << 10;

/// The line (from 1) of byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// A features file's text, read and checked; `path` names it in errors.
///
/// # Errors
/// As [`read`].
pub fn parse(path: &Path, text: &str) -> Result<Given, FitError> {
    let doc = DeTable::parse(text).map_err(|e| {
        at(
            path,
            text,
            e.span().unwrap_or(0..0),
            format!("not valid TOML: {}", e.message().trim()),
        )
    })?;
    let mut vals: Vec<(&str, Range<usize>, &DeValue<'_>)> = Vec::new();
    for (k, v) in doc.get_ref().iter() {
        let key = k.get_ref().as_ref();
        let Some(known) = KEYS.iter().find(|&&x| x == key) else {
            return Err(at(
                path,
                text,
                k.span(),
                format!(
                    "unknown key {key:?}; a features file has {}",
                    KEYS.join(", ")
                ),
            ));
        };
        vals.push((known, v.span(), v.get_ref()));
    }
    let f = Keys { path, text, vals };
    let capacity = f.capacity()?;
    let (block_size, queue_depth) = f.writes(capacity)?;
    let plateau = f.plateau()?;
    let spare = spare(
        &|span, m| f.at(span, m),
        text,
        f.get("steady_iops"),
        f.get("op"),
        plateau,
        path,
    )?;
    Ok(Given {
        capacity_said: f.said("capacity"),
        plateau_said: f.said("plateau_iops"),
        spare_said: match spare {
            Spare::Steady(_) => f.said("steady_iops"),
            Spare::Op(_) => f.said("op"),
        },
        file: path.to_path_buf(),
        capacity,
        block_size,
        queue_depth,
        plateau,
        spare: match spare {
            Spare::Steady(_) => Spare::Steady(f.num("steady_iops", 0.0, 1e9, true)?.unwrap_or(0.0)),
            op => op,
        },
        cliff_s: f.num("cliff_s", 0.0, 1e9, true)?,
        spread: f.num("spread", 0.0, 10.0, false)?,
    })
}

/// The refusal of a features file `path` (its text `text`) at the line of byte range `span`.
fn at(path: &Path, text: &str, span: Range<usize>, m: String) -> FitError {
    FitError::Bad(format!(
        "{}:{}: {m}",
        path.display(),
        line_of(text, span.start)
    ))
}

/// A features file's keys, each with its byte range and value, checked one key at a time.
struct Keys<'a> {
    path: &'a Path,
    text: &'a str,
    vals: Vec<Val<'a>>,
}

/// A key of a features file, its value's byte range and its value.
type Val<'a> = (&'a str, Range<usize>, &'a DeValue<'a>);

impl<'a> Keys<'a> {
    /// The refusal at the line of `span`.
    fn at(&self, span: Range<usize>, m: String) -> FitError {
        at(self.path, self.text, span, m)
    }

    /// The key's entry, when the file has it.
    fn get(&self, key: &str) -> Option<&Val<'a>> {
        self.vals.iter().find(|v| v.0 == key)
    }

    /// The key's entry; refused when missing.
    fn need(&self, key: &str) -> Result<&Val<'a>, FitError> {
        self.get(key).ok_or_else(|| {
            FitError::Bad(format!(
                "{}: key {key:?} is missing; a features file needs capacity, block_size, queue_depth, plateau_iops and one of steady_iops and op",
                self.path.display()
            ))
        })
    }

    /// Where the file says `key` (the default when it does not).
    fn said(&self, key: &str) -> Said {
        self.get(key)
            .map_or_else(Said::default, |(_, span, _)| Said {
                line: line_of(self.text, span.start),
                text: self.text[span.clone()].to_string(),
            })
    }

    /// A size of more than 0 B.
    fn size(&self, key: &str) -> Result<u64, FitError> {
        let (_, span, v) = self.need(key)?;
        let s = v.as_str().ok_or_else(|| {
            self.at(
                span.clone(),
                format!("key {key:?}: a size string, e.g. \"4KiB\" or \"256GB\""),
            )
        })?;
        let n = Size::parse(s).map_err(|e| self.at(span.clone(), format!("key {key:?}: {e}")))?;
        if n.0 == 0 {
            return Err(self.at(span.clone(), format!("key {key:?}: must be more than 0 B")));
        }
        Ok(n.0)
    }

    /// A number in [lo, hi] (above lo when `open`), when the file has it.
    fn num(&self, key: &str, lo: f64, hi: f64, open: bool) -> Result<Option<f64>, FitError> {
        let Some((_, span, v)) = self.get(key) else {
            return Ok(None);
        };
        match number(v) {
            Some(x) if x.is_finite() && (x > lo || (!open && x == lo)) && x <= hi => Ok(Some(x)),
            Some(_) => {
                let from = if open { "more than" } else { "at least" };
                Err(self.at(
                    span.clone(),
                    format!(
                        "key {key:?}: {} is out of range ({from} {lo}, at most {hi})",
                        echo(&self.text[span.clone()])
                    ),
                ))
            }
            None => Err(self.at(span.clone(), format!("key {key:?}: a number"))),
        }
    }

    /// `capacity`: a size the simulator can hold.
    fn capacity(&self) -> Result<u64, FitError> {
        let capacity = self.size("capacity")?;
        if capacity >= MOST_SIMULATED {
            return Err(too_large(
                &|span, m| self.at(span, m),
                self.text,
                &self.need("capacity")?.1,
            ));
        }
        Ok(capacity)
    }

    /// `block_size` and `queue_depth`: random writes a run on a drive of `capacity` takes.
    fn writes(&self, capacity: u64) -> Result<(u64, u32), FitError> {
        let block_size = self.size("block_size")?;
        let block_at = |m: String| -> Result<(), FitError> {
            Err(self.at(
                self.need("block_size")?.1.clone(),
                format!("key \"block_size\": {m}"),
            ))
        };
        if let Some(m) = block_problem(block_size, capacity, None) {
            block_at(m)?;
        }
        let (_, qd_span, qd_v) = self.need("queue_depth")?;
        let queue_depth = match qd_v {
            DeValue::Integer(i) => i
                .as_str()
                .parse::<i64>()
                .ok()
                .filter(|q| (1..=MAX_QD).contains(q)),
            _ => None,
        }
        .ok_or_else(|| {
            self.at(
                qd_span.clone(),
                format!("key \"queue_depth\": an integer from 1 to {MAX_QD}"),
            )
        })?;
        if let Some(m) = block_problem(block_size, capacity, Some(queue_depth as u64)) {
            block_at(m)?;
        }
        Ok((block_size, queue_depth as u32))
    }

    /// `plateau_iops`: a fresh plateau a simulated drive can have.
    fn plateau(&self) -> Result<f64, FitError> {
        let (_, p_span, p_v) = self.need("plateau_iops")?;
        match number(p_v) {
            Some(x) if super::fit::plateau_possible(x) => Ok(x),
            Some(_) => Err(self.at(
                p_span.clone(),
                format!(
                    "key \"plateau_iops\": {} is not a fresh plateau a simulated drive can have: {}",
                    crate::text::clip(&self.text[p_span.clone()], crate::text::ECHO),
                    super::fit::plateau_range()
                ),
            )),
            None => Err(self.at(p_span.clone(), "key \"plateau_iops\": a number".into())),
        }
    }
}

/// What is wrong with random writes of `block_size` on a drive of `capacity` bytes, at `queue_depth` when
/// known (their I/O buffers), as a spec's rules would say it.
fn block_problem(block_size: u64, capacity: u64, queue_depth: Option<u64>) -> Option<String> {
    if block_size > MAX_BLOCK_SIZE {
        Some(format!(
            "{} is larger than the largest block size a spec takes, {}",
            Size(block_size),
            Size(MAX_BLOCK_SIZE)
        ))
    } else if !block_size.is_multiple_of(512) {
        Some(format!("{block_size} B is not a multiple of 512 B"))
    } else if block_size > capacity {
        Some(format!(
            "{block_size} B is larger than the capacity, {capacity} B"
        ))
    } else {
        let qd = queue_depth.filter(|q| block_size * q > crate::plan::MAX_BUFFER_BYTES)?;
        Some(format!(
            "{} at queue_depth {qd} needs {} of I/O buffers, more than a run takes ({})",
            Size(block_size),
            Size(block_size * qd),
            Size(crate::plan::MAX_BUFFER_BYTES)
        ))
    }
}

/// Capacities from this one up cannot be simulated: the model's mapping tables take 8 B per [`UNIT`] (4 B a
/// unit's map entry, 4 B its flash slot's) before any spare area, and at most [`MAX_MODEL_BYTES`].
const MOST_SIMULATED: u64 = MAX_MODEL_BYTES / 8 * UNIT;

/// Why the capacity written at `span` of `text` cannot be simulated: the most that can.
fn too_large(
    at: &dyn Fn(Range<usize>, String) -> FitError,
    text: &str,
    span: &Range<usize>,
) -> FitError {
    at(
        span.clone(),
        format!(
            "key \"capacity\": {} is more than a simulated drive holds: at most {} B can be simulated, less the spare area's share (the model's mapping tables take 8 B per {UNIT} B of flash, and at most {MAX_MODEL_BYTES} B)",
            echo(&text[span.clone()]),
            MOST_SIMULATED - 1,
        ),
    )
}

/// A value as the file writes it, cut as other echoes are.
fn echo(s: &str) -> String {
    crate::text::echo(s).into_owned()
}

/// A TOML integer or float as a number.
fn number(v: &DeValue<'_>) -> Option<f64> {
    match v {
        DeValue::Integer(i) => i.as_str().parse::<f64>().ok(),
        DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
        _ => None,
    }
}

type Entry<'a, 'b> = Option<&'a (&'b str, Range<usize>, &'a DeValue<'b>)>;

/// What pins the spare area: exactly one of `steady_iops` (below [`CLIFF_DEPTH`] of the plateau) and `op`.
fn spare(
    at: &dyn Fn(Range<usize>, String) -> FitError,
    text: &str,
    steady: Entry<'_, '_>,
    op: Entry<'_, '_>,
    plateau: f64,
    path: &Path,
) -> Result<Spare, FitError> {
    match (steady, op) {
        (Some(_), Some((_, span, _))) => Err(at(
            span.clone(),
            "key \"op\": give steady_iops or op, not both (the spare area is either fitted to the steady level or taken as published)".into(),
        )),
        (None, None) => Err(FitError::Bad(format!(
            "{}: neither steady_iops nor op: the spare area is unknown (give the steady level or the published spare area)",
            path.display()
        ))),
        (Some((_, span, v)), None) => {
            match number(v) {
                Some(x) if x.is_finite() && x > 0.0 && x < CLIFF_DEPTH * plateau => Ok(Spare::Steady(x)),
                Some(x) if x.is_nan() => Err(at(span.clone(), format!(
                    "key \"steady_iops\": {} is not a number: give the steady IOPS measured (more than 0, below 80 % of the plateau ({plateau})), or the spare area as op",
                    echo(&text[span.clone()])
                ))),
                Some(x) if x <= 0.0 => Err(at(span.clone(), format!(
                    "key \"steady_iops\": {} is no steady level: with no writes completing there is no write amplification to fit the spare area to; give the steady IOPS measured (more than 0), or the spare area as op",
                    echo(&text[span.clone()])
                ))),
                Some(_) => Err(at(span.clone(), format!(
                    "key \"steady_iops\": {} is not below 80 % of the plateau ({plateau}): no cliff, so the spare area is unknown",
                    echo(&text[span.clone()])
                ))),
                None => Err(at(span.clone(), "key \"steady_iops\": a number".into())),
            }
        }
        (None, Some((_, span, v))) => {
            let p = v
                .as_str()
                .ok_or_else(|| "a percent string, e.g. \"7%\"".to_string())
                .and_then(Percent::parse)
                .map_err(|e| at(span.clone(), format!("key \"op\": {e}")))?;
            if p.0 == 0 {
                return Err(at(span.clone(), "key \"op\": must be more than 0 %".into()));
            }
            Ok(Spare::Op(p))
        }
    }
}

impl Given {
    /// The steady level the phase length is planned for: the given one, or the theory's for the given
    /// spare area (`theory`).
    fn expected_steady(&self, theory: f64) -> f64 {
        match self.spare {
            Spare::Steady(s) => s,
            Spare::Op(_) => theory,
        }
    }

    /// The run the features stand for: an erase, a 128 KiB fill at QD4, then random writes long enough
    /// that the last quarter starts after the span was written about 1.5 times at the steady level
    /// (`theory_steady`: the theory's steady level when only the spare area is given).
    pub fn measured(&self, theory_steady: f64) -> Measured {
        let steady = self.expected_steady(theory_steady).max(1.0);
        let span_s = self.capacity as f64 / self.block_size as f64 / steady;
        let seconds = (2.0 * span_s)
            .ceil()
            .max(4.0 * super::features::MIN_SECONDS as f64);
        // The simulated drive has whole 4 KiB units: its capacity is the given one rounded down to them.
        let unit = crate::sim::params::UNIT;
        let span = self.capacity / unit * unit;
        let shape = |name: &str, kind, block_size, queue_depth, pattern, duration_ns| PhaseShape {
            name: name.into(),
            kind,
            offset: 0,
            span,
            block_size,
            queue_depth,
            passes: 1,
            pattern,
            read_percent: 0,
            duration_ns,
            interval_ns: 1_000_000_000,
            seed: 1,
        };
        let phases = vec![
            shape("purge", PhaseKind::Erase, 0, 1, Pattern::Sequential, 0),
            shape(
                "fill",
                PhaseKind::Fill,
                128 << 10,
                4,
                Pattern::Sequential,
                0,
            ),
            shape(
                "random-writes",
                PhaseKind::Workload,
                self.block_size,
                self.queue_depth,
                Pattern::Random,
                seconds as u64 * 1_000_000_000,
            ),
        ];
        Measured {
            file: self.file.clone(),
            capacity: self.capacity,
            target: format!("the features of {}", self.file.display()),
            phases,
            iops: Vec::new(),
            features: Features {
                plateau: self.plateau,
                fresh: usize::MAX,
                cliff_s: self.cliff_s.unwrap_or(0.0),
                steady: self.expected_steady(theory_steady),
                spread: self.spread.unwrap_or(0.0),
                worst: 0.0,
            },
            known: Known {
                cliff: self.cliff_s.is_some(),
                steady: matches!(self.spare, Spare::Steady(_)),
                spread: self.spread.is_some(),
                op: match self.spare {
                    Spare::Op(p) => Some(p),
                    Spare::Steady(_) => None,
                },
            },
            replayed: Vec::new(),
            geometry: None,
        }
    }
}

/// The fit from a features file: the candidates' phases from [`Given::measured`], the phase length
/// planned on the theory's steady level when only the spare area is given.
///
/// # Errors
/// [`FitError::Bad`] naming the file, the line and the key when no simulated drive can have a feature, or
/// the drive cannot run the phases; else as [`super::fit::fit`].
pub fn fit(
    g: &Given,
    exe: &Path,
    log: &mut dyn std::io::Write,
) -> Result<(Measured, super::fit::Fitted), FitError> {
    let p = super::fit::theory_params(g.capacity, g.plateau, &g.spare).map_err(|u| g.unmet(&u))?;
    let theory =
        super::fit::theory_steady(g.capacity, g.plateau, &g.spare).map_err(|u| g.unmet(&u))?;
    let m = g.measured(theory);
    g.check_runs(&m, &p)?;
    let line = format!(
        "fit: from the features of {}: {} random writes at QD{} for {} s on a {} B drive after an erase and a fill (the steady level planned: {:.0} IOPS)\n",
        g.file.display(),
        Size(g.block_size),
        g.queue_depth,
        m.phase().duration_ns / 1_000_000_000,
        g.capacity,
        m.features.steady
    );
    let _ = log.write_all(line.as_bytes());
    let f = super::fit::fit(&m, exe, log)?;
    Ok((m, f))
}

impl Given {
    /// The refusal of a feature no simulated drive can have, naming the file, the line and the key, the
    /// value as the file writes it.
    fn unmet(&self, u: &Unmet) -> FitError {
        let clip = |t: &str| crate::text::clip(t, crate::text::ECHO).into_owned();
        let (key, said, what) = match (u, self.spare) {
            (Unmet::Plateau(why), _) => (
                "plateau_iops",
                &self.plateau_said,
                format!("is not a fresh plateau a simulated drive can have: {why}"),
            ),
            (Unmet::Spare(why), Spare::Steady(_)) => (
                "steady_iops",
                &self.spare_said,
                format!(
                    "with a fresh plateau of {} IOPS needs {why}",
                    clip(&self.plateau_said.text)
                ),
            ),
            (Unmet::Spare(why), Spare::Op(_)) => ("op", &self.spare_said, format!("is {why}")),
            (Unmet::Capacity(why), _) => (
                "capacity",
                &self.capacity_said,
                format!("cannot be simulated at any spare area: {why}"),
            ),
        };
        FitError::Bad(format!(
            "{}:{}: key {key:?}: {} {what}",
            self.file.display(),
            said.line,
            clip(&said.text)
        ))
    }

    /// Checks that the simulated drive `p` can run the phases of `m`, as a run plans them: else no target
    /// is printed and no run made.
    fn check_runs(&self, m: &Measured, p: &crate::sim::SimParams) -> Result<(), FitError> {
        let refused = |why: String| {
            FitError::Bad(format!(
                "{}: the run these features stand for ({} random writes at QD{} after an erase and a fill) cannot run on the simulated drive {}: {why}",
                self.file.display(),
                Size(self.block_size),
                self.queue_depth,
                super::fit::target_of(p)
            ))
        };
        let text = super::runner::spec_text("fit", &m.phases);
        let spec = crate::spec::load::load_str(Path::new("features"), &text)
            .map_err(|e| refused(e.first().message.clone()))?;
        let info = crate::target::TargetInfo::sim(p.clone()).map_err(refused)?;
        crate::plan::resolve(&spec, &info).map_err(|e| refused(e.first().message.clone()))?;
        Ok(())
    }
}

/// The theory's drive for `g`, without simulated runs (`--theory`: for drives of hundreds of GB, whose
/// simulated runs to the steady state take hours): its target, and the account for stderr, with a
/// `warning:` for each feature the drive misses by more than the fit's tolerance and the bound that was
/// hit.
///
/// # Errors
/// [`FitError::Bad`] naming the file, the line and the key when no drive of the model has the plateau or
/// spare area, or the drive cannot run the phases the features stand for.
pub fn theory(g: &Given) -> Result<(String, String), FitError> {
    use super::fit;
    let p = fit::theory_params(g.capacity, g.plateau, &g.spare).map_err(|u| g.unmet(&u))?;
    let target = fit::target_of(&p);
    let steady = fit::theory_steady_at(&p, 1.0);
    g.check_runs(&g.measured(steady), &p)?;
    let given_steady = match g.spare {
        Spare::Steady(x) => Some(x),
        Spare::Op(_) => None,
    };
    let misses = fit::theory_misses(&p, g.plateau, given_steady);
    let missed = |name: &str| misses.iter().any(|m| m.feature == name);
    let mut s = format!(
        "fit: from the features of {} by the theory alone (no simulated runs; the simulated drive follows the theory's write amplification within 2 %)\n",
        g.file.display()
    );
    s.push_str(&format!(
        "fit:   fresh plateau (IOPS): given {}, the drive's {:.0}\n",
        crate::text::clip(&g.plateau_said.text, crate::text::ECHO),
        fit::theory_plateau(&p)
    ));
    match g.spare {
        Spare::Steady(_) => s.push_str(&format!(
            "fit:   steady level (IOPS): given {}, the drive's {steady:.0}; op = {}{}\n",
            crate::text::clip(&g.spare_said.text, crate::text::ECHO),
            p.op,
            match missed("steady level") {
                true => ", the nearest the theory reaches",
                false => " fitted to it",
            }
        )),
        Spare::Op(op) => s.push_str(&format!(
            "fit:   op = {op} given (nothing in the features checks it); steady level predicted: {steady:.0} IOPS\n"
        )),
    }
    for m in &misses {
        let (said, given) = match m.feature {
            "fresh plateau" => (&g.plateau_said, g.plateau),
            _ => (&g.spare_said, given_steady.unwrap_or(0.0)),
        };
        s.push_str(&format!(
            "warning: the theory's drive misses the {} by {:+.1} % (given {}, the drive's {:.0} IOPS), more than the fit's tolerance: it hit {}\n",
            m.feature,
            (m.got - given) / given * 100.0,
            crate::text::clip(&said.text, crate::text::ECHO),
            m.got,
            m.bound
        ));
    }
    s.push_str(&format!(
        "fit: not pinned by the features: dies and program_time apart ({}), the cliff's time and the spread (not simulated), gc and jitter (defaults), page, block, read_time, erase_time, command_time, interface_bytes_per_s, buffer and gc_free_superblocks (defaults), compression (assumed off)\n",
        super::fit::dies_chosen(&p, &super::fit::Pace::Plateau)
    ));
    Ok((target, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match parse(Path::new("f.toml"), text) {
            Err(FitError::Bad(m)) => m,
            other => panic!("not refused: {other:?}"),
        }
    }

    const BASE: &str =
        "capacity = \"256MiB\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nplateau_iops = 1250\n";

    #[test]
    fn a_features_file_is_read_exactly() {
        let text = format!("{BASE}steady_iops = 250.5\ncliff_s = 12\nspread = 0.1\n");
        let g = parse(Path::new("f.toml"), &text).unwrap();
        assert_eq!(
            g,
            Given {
                file: PathBuf::from("f.toml"),
                capacity: 256 << 20,
                block_size: 4096,
                queue_depth: 32,
                plateau: 1250.0,
                spare: Spare::Steady(250.5),
                cliff_s: Some(12.0),
                spread: Some(0.1),
                capacity_said: Said {
                    line: 1,
                    text: "\"256MiB\"".into()
                },
                plateau_said: Said {
                    line: 4,
                    text: "1250".into()
                },
                spare_said: Said {
                    line: 5,
                    text: "250.5".into()
                },
            }
        );
        let g = parse(Path::new("f.toml"), &format!("{BASE}op = \"7%\"\n")).unwrap();
        assert_eq!(
            g.spare,
            Spare::Op(Percent(7 * crate::units::PERCENT_SCALE / 100))
        );
        assert_eq!((g.cliff_s, g.spread), (None, None));
        // The run it stands for: erase, fill, then random writes for two span-writes at the steady level.
        let m = parse(Path::new("f.toml"), &format!("{BASE}steady_iops = 256\n"))
            .unwrap()
            .measured(0.0);
        let kinds: Vec<PhaseKind> = m.phases.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [PhaseKind::Erase, PhaseKind::Fill, PhaseKind::Workload]
        );
        // 65536 units at 256 IOPS: 256 s a span-write, 512 s.
        assert_eq!(m.phase().duration_ns, 512_000_000_000);
        assert_eq!((m.phase().queue_depth, m.phase().block_size), (32, 4096));
        assert!(m.known.steady && !m.known.cliff && !m.known.spread && m.known.op.is_none());
    }

    /// Newcomer trial (issue 30 item 4): -5, nan and inf were "more than 0, at most 1000000000" while
    /// 0.001 and 5e-324 were "4 to 1024000000 IOPS": one bound, one message, the value as written.
    #[test]
    fn a_plateau_out_of_range_has_one_message_whatever_the_value() {
        let range = "the simulator's fresh plateaus are 4 to 1024000000 IOPS (1 to 256 dies, program times 1us to 1s, 4 host writes of 4 KiB per page)";
        for v in [
            "-5",
            "nan",
            "inf",
            "-inf",
            "0",
            "0.001",
            "5e-324",
            "3.999",
            "1024000001",
            "1e300",
        ] {
            let text = BASE.replace("plateau_iops = 1250", &format!("plateau_iops = {v}"));
            assert_eq!(
                err(&format!("{text}op = \"7%\"\n")),
                format!(
                    "f.toml:4: key \"plateau_iops\": {v} is not a fresh plateau a simulated drive can have: {range}"
                )
            );
        }
        // The bounds themselves are plateaus a drive has: one die at 1 s, 256 dies at 1us.
        for v in ["4", "1024000000"] {
            let text = BASE.replace("plateau_iops = 1250", &format!("plateau_iops = {v}"));
            let g = parse(Path::new("f.toml"), &format!("{text}op = \"7%\"\n")).unwrap();
            assert_eq!(g.plateau, v.parse::<f64>().unwrap());
        }
    }

    /// Attack 40 F13: near 1 TiB the mapping tables' memory refuses every spare area: the capacity is
    /// blamed at its line, not the op given; a spare area that alone takes the memory past the limit is
    /// still the op's.
    #[test]
    fn a_capacity_no_drive_can_simulate_is_blamed_at_its_line() {
        let cap: u64 = 1_099_511_627_775;
        let text = BASE.replace("\"256MiB\"", "\"1099511627775B\"") + "op = \"1%\"\n";
        let g = parse(Path::new("f.toml"), &text).unwrap();
        let Err(FitError::Bad(e)) = theory(&g) else {
            panic!("refused")
        };
        // The tables: 4 B per 4 KiB unit of capacity, 4 B per slot of flash (capacity + 1 % in whole
        // superblocks of 4 MiB, 1024 slots each; the 1250 IOPS plateau is one die's).
        let flash = cap + cap / 100;
        let memory = 4 * (cap / 4096) + 4 * (flash / (4 << 20) * 1024);
        assert_eq!(
            e,
            format!(
                "f.toml:1: key \"capacity\": \"1099511627775B\" cannot be simulated at any spare area: sim capacity = {cap} B: the model's mapping tables would take {memory} B of memory, more than the 2147483648 B limit; simulate a smaller drive"
            )
        );
        let text = BASE.replace("\"256MiB\"", "\"600GiB\"") + "op = \"150%\"\n";
        let g = parse(Path::new("f.toml"), &text).unwrap();
        let Err(FitError::Bad(e)) = theory(&g) else {
            panic!("refused")
        };
        assert!(
            e.starts_with("f.toml:5: key \"op\": \"150%\" is more spare area than a simulated drive of 644245094400 B with 1 die(s) can have"),
            "{e}"
        );
    }

    #[test]
    fn bad_features_name_file_line_and_key() {
        let cases = [
            (
                format!("{BASE}steady_iops = 250\nsteady = 3\n"),
                "f.toml:6: unknown key \"steady\"",
            ),
            (
                format!("{BASE}steady_iops = 250\nop = \"7%\"\n"),
                "f.toml:6: key \"op\": give steady_iops or op, not both",
            ),
            (BASE.to_string(), "f.toml: neither steady_iops nor op"),
            // A level of 0 is not "not below 80 %" of the plateau: it is no level at all.
            (
                format!("{BASE}steady_iops = 0\n"),
                "f.toml:5: key \"steady_iops\": 0 is no steady level: with no writes completing there is no write amplification to fit the spare area to; give the steady IOPS measured (more than 0), or the spare area as op",
            ),
            (
                format!("{BASE}steady_iops = -0.0\n"),
                "f.toml:5: key \"steady_iops\": -0.0 is no steady level",
            ),
            // Attack 16, finding 3: nan was "not below 80 % of the plateau"; infinities are below or above.
            (
                format!("{BASE}steady_iops = nan\n"),
                "f.toml:5: key \"steady_iops\": nan is not a number: give the steady IOPS measured (more than 0, below 80 % of the plateau (1250)), or the spare area as op",
            ),
            (
                format!("{BASE}steady_iops = -nan\n"),
                "f.toml:5: key \"steady_iops\": -nan is not a number: give",
            ),
            (
                format!("{BASE}steady_iops = inf\n"),
                "f.toml:5: key \"steady_iops\": inf is not below 80 % of the plateau (1250): no cliff",
            ),
            (
                format!("{BASE}steady_iops = -inf\n"),
                "f.toml:5: key \"steady_iops\": -inf is no steady level",
            ),
            (
                format!("{BASE}steady_iops = 1000\n"),
                "f.toml:5: key \"steady_iops\": 1000 is not below 80 % of the plateau (1250): no cliff",
            ),
            (
                BASE.replace("queue_depth = 32", "queue_depth = \"32\"") + "op = \"7%\"\n",
                "f.toml:3: key \"queue_depth\": an integer from 1 to 1024",
            ),
            (
                BASE.replace("queue_depth = 32", "queue_depth = 0") + "op = \"7%\"\n",
                "f.toml:3: key \"queue_depth\"",
            ),
            (
                BASE.replace("\"256MiB\"", "\"256 parsecs\"") + "op = \"7%\"\n",
                "f.toml:1: key \"capacity\": size",
            ),
            (
                BASE.replace("plateau_iops = 1250\n", "") + "op = \"7%\"\n",
                "f.toml: key \"plateau_iops\" is missing",
            ),
            (format!("{BASE}op = \"seven\"\n"), "f.toml:5: key \"op\""),
            (
                format!("{BASE}op = \"0%\"\n"),
                "f.toml:5: key \"op\": must be more than 0 %",
            ),
            (
                format!("{BASE}op = \"7%\"\nspread = -1\n"),
                "f.toml:6: key \"spread\": -1 is out of range",
            ),
            (
                format!("{BASE}op = \"7%\"\ncliff_s = \"soon\"\n"),
                "f.toml:6: key \"cliff_s\": a number",
            ),
            (
                format!("{BASE}op = \"7%\"\n[x\n"),
                "f.toml:6: not valid TOML",
            ),
        ];
        for (text, want) in cases {
            let got = err(&text);
            assert!(
                got.starts_with(want),
                "{got:?} does not start with {want:?}"
            );
        }
        assert!(
            matches!(read(Path::new("/nonexistent/f.toml")), Err(FitError::Bad(m)) if m.starts_with("/nonexistent/f.toml: cannot read"))
        );
    }
}
