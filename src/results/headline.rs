//! A phase's headline figures ([`figures`]): the numbers its `headline` items name, taken from the phase
//! result once it is measured (totals, steady-state verdict, windows, derived figures), each with a stable
//! key, a label, a unit and which way is better. `wkrun compare` and the report read them from
//! `results.json` and compute nothing themselves.

use super::model::{Better, Figure, PhaseResult};
use crate::stats::derived::{Headline, SideStats};
use crate::stats::window::{SliceStats, WindowSpec};
use crate::vocab::Direction;

/// A figure under construction.
fn fig(
    key: String,
    label: String,
    value: Option<f64>,
    unit: &str,
    better: Option<Better>,
) -> Figure {
    Figure {
        key,
        label,
        value: value.filter(|v| v.is_finite()),
        unit: unit.into(),
        better,
    }
}

/// Whether the figure keyed `key` is a level of its phase: a mean over its I/Os or intervals (whole-phase
/// IOPS, bandwidth or mean latency, a window's or the per-interval average, the steady window's mean, the
/// IOPS or mean latency before or after a point) rather than an extreme (the worst interval, a min or
/// max), a spread (stddev) or a time. The composite score of `wkrun compare` is built from levels: one
/// interval's extreme moves from run to run far more than the level it departs from.
pub fn is_level(key: &str) -> bool {
    let last = key.rsplit(' ').next().unwrap_or_default();
    !key.starts_with("worst ")
        && matches!(
            last,
            "iops" | "mb_s" | "lat_mean_us" | "mean_us" | "avg" | "window_mean"
        )
}

/// Whether a headline figure, keyed `key`, of value `value` and direction `better`, can lead a phase: a
/// level ([`is_level`]) with a direction and a positive value; its value and direction then. The one rule
/// of `wkrun compare`'s lead figures (`report::compare::pair_lead`, and the figure a phase leads with on
/// its own) and of `wkrun library list`'s.
pub fn can_lead(key: &str, value: Option<f64>, better: Option<Better>) -> Option<(f64, Better)> {
    let v = value.filter(|v| *v > 0.0)?;
    is_level(key).then_some((v, better?))
}

const HI: Option<Better> = Some(Better::Higher);
const LO: Option<Better> = Some(Better::Lower);

/// The figures of `items`, in order, from the measured phase `pr`.
pub fn figures(items: &[Headline], pr: &PhaseResult) -> Vec<Figure> {
    let mut out = Vec::new();
    for item in items {
        match *item {
            Headline::Mean => mean(pr, &mut out),
            Headline::Latency => latency(pr, &mut out),
            Headline::Worst => {
                let w = pr.derived.as_ref().and_then(|d| d.worst.as_ref());
                let k = |s: &str| format!("worst {s}");
                out.push(fig(
                    k("iops"),
                    "worst IOPS (lowest interval)".into(),
                    w.map(|w| w.iops),
                    "IOPS",
                    HI,
                ));
                out.push(fig(
                    k("at_s"),
                    "worst interval ends at".into(),
                    w.map(|w| w.at_s),
                    "s",
                    None,
                ));
            }
            Headline::PerSecond => {
                let s = pr.derived.as_ref().and_then(|d| d.per_second.as_ref());
                slice("per_second", "IOPS per interval", s, &mut out);
            }
            Headline::Steady => steady(pr, &mut out),
            Headline::Windows => {
                for w in &pr.windows {
                    window(w, &mut out);
                }
            }
            Headline::Window(spec) => {
                let found = pr
                    .windows
                    .iter()
                    .find(|w| WindowSpec::parse(&w.spec).ok() == Some(spec));
                if let Some(w) = found {
                    window(w, &mut out);
                }
            }
            Headline::FillOnce => fill_once(pr, &mut out),
            Headline::At(_) => split(pr, &item.to_string(), &item.to_string(), &mut out),
        }
    }
    out
}

/// `"mean"`: total IOPS (every direction's, trims included: [`PhaseResult::iops`]), bandwidth and mean
/// latency of the whole phase.
fn mean(pr: &PhaseResult, out: &mut Vec<Figure>) {
    let k = |s: &str| format!("mean {s}");
    out.push(fig(
        k("iops"),
        "IOPS, phase mean".into(),
        Some(pr.iops()),
        "IOPS",
        HI,
    ));
    out.push(fig(
        k("mb_s"),
        "bandwidth, phase mean".into(),
        Some(pr.total.bw_bytes_per_s / 1e6),
        "MB/s",
        HI,
    ));
    // The pooled mean where the total has no percentiles (fio's mixed job, or clones, without json+ bins).
    let lat = pr.total.moments().map(|m| m.mean / 1e3);
    out.push(fig(
        k("lat_mean_us"),
        "latency, phase mean".into(),
        lat,
        "µs",
        LO,
    ));
}

/// `"latency"`: mean and max latency of each direction with I/O (both when neither has any).
fn latency(pr: &PhaseResult, out: &mut Vec<Figure>) {
    let dirs = Direction::CORE.map(|d| (d.name(), pr.dir(d)));
    let any = dirs.iter().any(|(_, d)| d.ops > 0);
    for (name, d) in dirs {
        if any && d.ops == 0 {
            continue;
        }
        let l = d.latency_ns.as_ref();
        out.push(fig(
            format!("latency {name} mean_us"),
            format!("{name} latency, phase mean"),
            l.map(|l| l.mean / 1e3),
            "µs",
            LO,
        ));
        out.push(fig(
            format!("latency {name} max_us"),
            format!("{name} latency max"),
            l.map(|l| l.max as f64 / 1e3),
            "µs",
            LO,
        ));
    }
}

/// The key of a steady window's mean of IOPS among a phase's headline figures; a window of bandwidth or of
/// latency has its unit after it ([`is_steady_mean`]).
pub const STEADY_MEAN: &str = "steady window_mean";

/// Whether the figure keyed `key` is a steady window's mean, of whichever metric its rule tracked
/// (`steady window_mean`, `steady window_mean mb_s`, `steady window_mean lat_mean_us`).
pub fn is_steady_mean(key: &str) -> bool {
    key.strip_prefix(STEADY_MEAN)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// `"steady"`: when steady state was reached, and its window mean, in the metric its rule tracked (fio's
/// `bw` and `lat` criteria track bandwidth, in bytes per second, and mean latency, in ns; shown in MB/s and
/// µs), labelled and keyed by it: a bandwidth window is no IOPS figure, and no run's IOPS window is set
/// beside it.
fn steady(pr: &PhaseResult, out: &mut Vec<Figure>) {
    use crate::stats::steady::{FioMetric, Rule};
    let s = pr.steady_state.as_ref();
    let reached = s.filter(|s| s.reached);
    out.push(fig(
        "steady at_s".into(),
        "time to steady state".into(),
        reached.and_then(|s| s.at_s),
        "s",
        LO,
    ));
    let metric = match s.map(|s| &s.criterion) {
        Some(Rule::Fio(f)) => f.metric,
        _ => FioMetric::Iops,
    };
    let (key, what, unit, scale, better) = match metric {
        FioMetric::Iops => (STEADY_MEAN.to_string(), "IOPS", "IOPS", 1.0, HI),
        FioMetric::Bw => (format!("{STEADY_MEAN} mb_s"), "bandwidth", "MB/s", 1e-6, HI),
        FioMetric::Lat => (
            format!("{STEADY_MEAN} lat_mean_us"),
            "latency",
            "µs",
            1e-3,
            LO,
        ),
    };
    out.push(fig(
        key,
        format!("{what}, steady window mean"),
        reached.map(|s| s.verdict.window_mean * scale),
        unit,
        better,
    ));
}

/// One statistic of a slice: its name, how to read it, which way is better.
type SlicePart = (&'static str, fn(&SliceStats) -> f64, Option<Better>);

/// min, avg, max and stddev of total IOPS per interval.
fn slice(key: &str, what: &str, s: Option<&SliceStats>, out: &mut Vec<Figure>) {
    let parts: [SlicePart; 4] = [
        ("avg", |s| s.avg, HI),
        ("min", |s| s.min, HI),
        ("max", |s| s.max, HI),
        ("stddev", |s| s.stddev, LO),
    ];
    for (name, get, better) in parts {
        out.push(fig(
            format!("{key} {name}"),
            format!("{what}, {name}"),
            s.map(get),
            "IOPS",
            better,
        ));
    }
}

/// A window's statistics, under its canonical form when it parses (`last 20min`).
fn window(w: &super::model::WindowResult, out: &mut Vec<Figure>) {
    let name = window_name(w);
    slice(
        &format!("window {name}"),
        &window_label(w),
        w.iops.as_ref(),
        out,
    );
}

/// The label of window `w`'s figures (before `, avg`). A clipped window says so, so that compare and the
/// report never show its numbers as the window's: one whose rows are the whole phase says it covers the
/// whole phase (trial P6: `last 20min` of a 15-minute phase holds the fresh plateau the window was meant
/// to leave out), `IOPS, whole phase (window last 20min > phase 15min)`, or
/// `IOPS, whole phase (window 1400s.. starts after the phase's end, 20s)`; one of part of the phase
/// `IOPS, 1400s..2000s (clipped: phase 1500s)`.
fn window_label(w: &super::model::WindowResult) -> String {
    let spec = WindowSpec::parse(&w.spec).ok();
    let name = spec.as_ref().map_or(w.spec.clone(), |s| s.to_string());
    let phase = phase_len(w);
    let whole = w.start_s == 0.0;
    match (&w.clipped, w.complete) {
        (_, true) => format!("IOPS, {name}"),
        (Some(_), false) if whole => match spec {
            Some(WindowSpec::Range { start_ns, .. }) if start_ns > 0 => {
                format!("IOPS, whole phase (window {name} starts after the phase's end, {phase})")
            }
            _ => format!("IOPS, whole phase (window {name} > phase {phase})"),
        },
        (Some(_), false) => format!("IOPS, {name} (clipped: phase {phase})"),
        (None, false) => format!("IOPS, {name} (incomplete)"),
    }
}

/// The length of the phase a clipped window ran into: the end of its rows, which is the series' end
/// (an incomplete window takes the rows up to it; one starting after it, all of them), as `20s`.
fn phase_len(w: &super::model::WindowResult) -> crate::units::Duration {
    crate::units::Duration((w.end_s * 1e9).round() as u64)
}

/// The rows a headline figure covers, where a run may give other rows than its item asks (a window the
/// phase was too short for; IOPS before a point the phase never reached): [`covers`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Covers {
    /// What kind of range it is.
    pub range: Range,
    /// The first row's start, s from the measured start.
    pub start_s: f64,
    /// The last row's end, s.
    pub end_s: f64,
}

/// What kind of range a figure's rows are, against what its item asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// What the item asks: the window, the rows before the point.
    Asked,
    /// The whole phase instead (a window starting after the phase's end or longer than it, a point the
    /// phase never reached).
    Whole,
    /// Part of the window: the phase ended inside it.
    Part,
}

impl Covers {
    /// Whether a figure over `self` may be set against one over `other`: both what the item asks, or both
    /// the same rows instead (the whole phase of one length, the same part of the window). A clipped
    /// window's figures are of other rows than a complete one's (trial 15: a 10-minute run's `1400s..`,
    /// the whole phase, against a 30-minute run's 1400..1800 s read as a 6 % loss, a 73 % fall of the
    /// maximum), and so are two clipped to phases of different lengths (0..10 s against 0..20 s).
    pub fn alike(&self, other: &Covers) -> bool {
        self.range == other.range
            && (self.range == Range::Asked
                || (self.start_s == other.start_s && self.end_s == other.end_s))
    }

    /// The rows in seconds: `0..600 s`.
    pub fn rows(&self) -> String {
        use crate::units::readable_float as f;
        format!("{}..{} s", f(self.start_s), f(self.end_s))
    }

    /// What the rows are, in words: `the window, 1400..1800 s`, `the whole phase instead, 0..600 s`,
    /// `part of the window, 1400..1500 s (the phase ended inside it)`.
    pub fn words(&self, asked: &str) -> String {
        match self.range {
            Range::Asked => format!("{asked}, {}", self.rows()),
            Range::Whole => format!("the whole phase instead, {}", self.rows()),
            Range::Part => format!(
                "part of {asked}, {} (the phase ended inside it)",
                self.rows()
            ),
        }
    }
}

/// The rows the figure keyed `key` of phase `pr` covers, for a figure whose rows a run can cut short: a
/// window's (`window NAME STAT`: the window's rows, [`Range::Whole`] when it took the whole phase instead,
/// [`Range::Part`] when the phase ended inside it) and the IOPS or latency before a point (`at T before
/// ...`, `fill_once before ...`: [`Range::Whole`] when the phase never reached it). `None` for the others,
/// whose rows are the same kind in every run (the whole phase, a time), and for a figure the phase lacks.
pub fn covers(pr: &PhaseResult, key: &str) -> Option<Covers> {
    let c = |range, start_s, end_s| {
        Some(Covers {
            range,
            start_s,
            end_s,
        })
    };
    if let Some(rest) = key.strip_prefix("window ") {
        let (name, _) = rest.rsplit_once(' ')?;
        let w = pr.windows.iter().find(|w| window_name(w) == name)?;
        let range = match (w.complete, w.start_s == 0.0) {
            (true, _) => Range::Asked,
            (false, true) => Range::Whole,
            (false, false) => Range::Part,
        };
        return c(range, w.start_s, w.end_s);
    }
    let (point, rest) = key.split_once(" before ")?;
    if rest.contains(' ') {
        return None;
    }
    let d = pr.derived.as_ref()?;
    let s = d.splits.iter().find(|s| s.point == point)?;
    match s.at_s {
        Some(at) => c(Range::Asked, 0.0, at),
        None => c(Range::Whole, 0.0, s.before.duration_s),
    }
}

/// The rows of figure `key` in `a` and in `b`, when they may not be set against each other
/// ([`Covers::alike`]); `None` when they may, or when either phase has no such rows.
pub fn unlike(a: &PhaseResult, b: &PhaseResult, key: &str) -> Option<(Covers, Covers)> {
    let (x, y) = (covers(a, key)?, covers(b, key)?);
    (!x.alike(&y)).then_some((x, y))
}

/// What the figure keyed `key` asks for, in the words of [`Covers::words`]: `the window`, `the rows before
/// the point`.
pub fn asked(key: &str) -> &'static str {
    match key.starts_with("window ") {
        true => "the window",
        false => "the rows before the point",
    }
}

/// The label of the figure keyed `key` and labelled `label` as its item asks, whatever its run covered: a window's without the clipping
/// (`IOPS, 1400s.., avg`), for a row of runs whose figures cover unlike ranges; others as they are.
pub fn asked_label(key: &str, label: &str) -> String {
    let window = key.strip_prefix("window ").and_then(|r| r.rsplit_once(' '));
    match window {
        Some((name, stat)) => format!("IOPS, {name}, {stat}"),
        None => label.to_string(),
    }
}

/// A window's canonical name (`last 20min`), as its figures' keys have it; as written when it does not
/// parse.
fn window_name(w: &super::model::WindowResult) -> String {
    WindowSpec::parse(&w.spec).map_or(w.spec.clone(), |s| s.to_string())
}

/// `"fill_once"`: when the span had been written once, then IOPS and latency before and after.
fn fill_once(pr: &PhaseResult, out: &mut Vec<Figure>) {
    let at = pr
        .derived
        .as_ref()
        .and_then(|d| d.span_writes.iter().find(|w| w.times == 1))
        .map(|w| w.at_s);
    out.push(fig(
        "fill_once at_s".into(),
        "time to write the span once".into(),
        at,
        "s",
        None,
    ));
    split(pr, "fill_once", "the span written once", out);
}

/// IOPS and mean latency before and after the split named `point`.
fn split(pr: &PhaseResult, point: &str, what: &str, out: &mut Vec<Figure>) {
    let s = pr
        .derived
        .as_ref()
        .and_then(|d| d.splits.iter().find(|s| s.point == point));
    let sides: [(&str, Option<&SideStats>); 2] = [
        ("before", s.map(|s| &s.before)),
        ("after", s.and_then(|s| s.after.as_ref())),
    ];
    for (side, stats) in sides {
        out.push(fig(
            format!("{point} {side} iops"),
            format!("IOPS {side} {what}"),
            stats.map(|s| s.iops),
            "IOPS",
            HI,
        ));
        out.push(fig(
            format!("{point} {side} lat_mean_us"),
            format!("latency mean {side} {what}"),
            stats.and_then(|s| s.lat_mean_us),
            "µs",
            LO,
        ));
    }
}

#[cfg(test)]
mod tests {
    /// Trial P6: a window the phase cannot hold, labelled by what its figures cover.
    #[test]
    fn a_clipped_window_that_is_the_whole_phase_says_so() {
        let w = |spec: &str, start_s: f64, end_s: f64, clipped: bool| {
            super::super::model::WindowResult {
                spec: spec.into(),
                start_s,
                end_s,
                complete: !clipped,
                iops: None,
                clipped: clipped.then(|| "window clipped".to_string()),
            }
        };
        let cases = [
            (
                w("last 20m", 0.0, 900.0, true),
                "IOPS, whole phase (window last 20min > phase 15min)",
            ),
            (
                w("first 20m", 0.0, 900.0, true),
                "IOPS, whole phase (window first 20min > phase 15min)",
            ),
            (
                w("1400s..", 0.0, 900.0, true),
                "IOPS, whole phase (window 1400s.. starts after the phase's end, 15min)",
            ),
            (
                w("1400s..2000s", 1400.0, 1500.0, true),
                "IOPS, 1400s..2000s (clipped: phase 25min)",
            ),
            (w("last 20m", 600.0, 1800.0, false), "IOPS, last 20min"),
        ];
        for (w, want) in cases {
            assert_eq!(super::window_label(&w), want, "{}", w.spec);
        }
    }

    #[test]
    fn levels_are_means_and_never_extremes_spreads_or_times() {
        let levels = [
            "mean iops",
            "mean mb_s",
            "mean lat_mean_us",
            "latency read mean_us",
            "latency write mean_us",
            "per_second avg",
            "steady window_mean",
            "window last 20min avg",
            "window 1400s.. avg",
            "fill_once before iops",
            "fill_once after lat_mean_us",
            "at 7s before iops",
        ];
        let not = [
            "worst iops",
            "worst at_s",
            "steady at_s",
            "fill_once at_s",
            "latency read max_us",
            "per_second min",
            "per_second max",
            "per_second stddev",
            "window last 20min min",
            "window 1400s.. stddev",
        ];
        assert!(levels.iter().all(|k| super::is_level(k)));
        assert!(not.iter().all(|k| !super::is_level(k)));
    }
}
