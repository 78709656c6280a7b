//! fio's steady state read from its JSON output (trial 26 M1): a job with `steadystate` (`ss`) has a
//! `steadystate` object, its criterion (`ss`: `iops_slope:10.000000%`), its window in seconds (`duration`,
//! fio's `ss_dur`), whether it was `attained`, the criterion's value at the last check (`criterion`,
//! `max_deviation`, `slope`) and the last window's samples (`data.iops`, `data.bw` in bytes per second,
//! oldest first). fio ends a job the moment its window is steady, so `job_runtime` then is when it was
//! attained. Read here into the phase's steady-state verdict ([`crate::results::SteadyState`]) in wkrun's
//! terms: fio's criterion is wkrun's `rule = "fio"` ([`FioRule`]: `iops`/`bw`, `slope`/deviation, the limit
//! absolute or relative, the window in rounds of fio's sample interval), the window's statistics computed
//! from fio's samples as wkrun computes its own ([`crate::stats::steady::evaluate`]). What fio does not give
//! (the samples before the window, when each sample was taken) is said in the phase's warning
//! ([`verdict`]), and so is a job fio stopped at steady state before its bound ([`STOPPED_STEADY`]).

use crate::results::SteadyState;
use crate::stats::steady::{FioKind, FioMetric, FioRule, Rule, evaluate};
use serde_json::{Map, Value};

/// How the warning of a phase fio stopped at steady state begins.
pub const STOPPED_STEADY: &str = "fio stopped this job at steady state";

/// How the warning of a phase with fio's steady state that did not stop it begins.
const JUDGED: &str = "fio judged this job's steady state";

/// fio's `ss` text (`iops_slope:10.000000%`, `bw:1048576.000000`) as wkrun's rule over a window of
/// `window` rounds.
fn rule(ss: &str, window: usize) -> Option<FioRule> {
    let (name, limit) = ss.split_once(':')?;
    let (metric, kind) = match name {
        "iops" => (FioMetric::Iops, FioKind::Deviation),
        "iops_slope" => (FioMetric::Iops, FioKind::Slope),
        "bw" => (FioMetric::Bw, FioKind::Deviation),
        "bw_slope" => (FioMetric::Bw, FioKind::Slope),
        _ => return None,
    };
    let (number, relative) = match limit.strip_suffix('%') {
        Some(n) => (n, true),
        None => (limit, false),
    };
    let n: f64 = number
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    Some(FioRule {
        metric,
        kind,
        limit: if relative { n / 100.0 } else { n },
        relative,
        window,
    })
}

/// The samples of fio's window for `metric` (`data.iops` or `data.bw`), oldest first.
fn samples(o: &Map<String, Value>, metric: FioMetric, at: &str) -> Result<Vec<f64>, String> {
    let key = match metric {
        FioMetric::Bw => "bw",
        _ => "iops",
    };
    let list = (o
        .get("data")
        .and_then(|d| d.get(key))
        .and_then(Value::as_array))
    .ok_or_else(|| format!("{at}.data.{key}: absent or not a list"))?;
    list.iter()
        .map(|v| v.as_f64().filter(|x| x.is_finite() && *x >= 0.0))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| format!("{at}.data.{key}: not a list of numbers ≥ 0"))
}

/// Seconds of fio's option `key` (fio's default unit: s), 0 where absent or unreadable.
fn seconds(j: &Map<String, Value>, g: Option<&Map<String, Value>>, keys: &[&str]) -> f64 {
    keys.iter()
        .find_map(|k| super::json::opt(j, g, k))
        .and_then(|v| super::value::time_us(v, true).ok())
        .map_or(0.0, |us| us as f64 / 1e6)
}

/// The steady-state verdict of a phase of fio's job reports `clones` (`(place in jobs, report)`, with the
/// global options `g`) that ran `runtime_s` (fio's longest direction's runtime) ([`verdict`], at fio's
/// `job_runtime`, or `runtime_s` for a report that sums a group's jobs), and its warning. A job's `numjobs` clones
/// reported one by one (no `group_reporting`) each judged its own steady state: the phase has no verdict
/// of its own then, and its warning gives each clone's.
///
/// # Errors
/// A clone's `steadystate` object no fio run writes, naming the key.
pub fn of_phase(
    clones: &[(usize, &Map<String, Value>)],
    g: Option<&Map<String, Value>>,
    runtime_s: f64,
) -> Result<(Option<SteadyState>, Option<String>), String> {
    let job_s = |j: &Map<String, Value>| {
        j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0) as f64 / 1e3
    };
    if let [(i, j)] = clones {
        // fio's job_runtime, which a group of jobs' report (group_reporting) sums: the phase's then.
        let ran = match super::plausible::summed_jobs(j) {
            true => runtime_s,
            false => job_s(j),
        };
        let read = verdict(j, g, &format!("jobs[{i}]"), ran)?;
        return Ok(read.map_or((None, None), |(s, w)| (Some(s), Some(w))));
    }
    let mut each = Vec::new();
    for (i, j) in clones {
        if let Some((s, _)) = verdict(j, g, &format!("jobs[{i}]"), job_s(j))? {
            each.push(format!("jobs[{i}] {}", s.verdict_text()));
        }
    }
    let said = (!each.is_empty()).then(|| {
        format!(
            "{JUDGED} clone by clone (numjobs without group_reporting: each clone its own steady state): {}; the phase, their sum, has no verdict of its own",
            each.join(", ")
        )
    });
    Ok((None, said))
}

/// The steady-state verdict of fio's job report `j` (with the global options `g`, found at `at`, e.g.
/// `jobs[1]`) that ran `runtime_s` (the phase's duration, fio's runtime of the job), and the phase's
/// warning saying what fio's verdict is in wkrun's terms and what does not map; `None` without a
/// `steadystate` object.
///
/// # Errors
/// An object no fio run writes (an unknown criterion, a window without samples), naming the key.
pub fn verdict(
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
    at: &str,
    runtime_s: f64,
) -> Result<Option<(SteadyState, String)>, String> {
    let Some(o) = j.get("steadystate") else {
        return Ok(None);
    };
    let at = format!("{at}.steadystate");
    let o = o
        .as_object()
        .ok_or_else(|| format!("{at}: not an object"))?;
    let ss = (o.get("ss").and_then(Value::as_str)).ok_or_else(|| format!("{at}.ss: absent"))?;
    let attained = o.get("attained").and_then(Value::as_u64) == Some(1);
    let window_s = (o.get("duration").and_then(Value::as_f64))
        .filter(|d| *d > 0.0)
        .ok_or_else(|| format!("{at}.duration: absent or not above 0"))?;
    let metric = match ss.starts_with("bw") {
        true => FioMetric::Bw,
        false => FioMetric::Iops,
    };
    let data = samples(o, metric, &at)?;
    let n = data.len();
    let r = rule(ss, n).ok_or_else(|| {
        format!("{at}.ss: `{ss}` is none of fio's criteria (iops, iops_slope, bw, bw_slope with a limit)")
    })?;
    if n < 2 {
        return Err(format!(
            "{at}.data: {n} sample(s) in fio's window, where a window has at least 2"
        ));
    }
    let round_s = window_s / n as f64;
    let ramp_s = seconds(j, g, &["steadystate_ramp_time", "ss_ramp"]);
    let mut v = evaluate(&Rule::Fio(r), None, &data).map_err(|e| format!("{at}: {e}"))?;
    let wkrun_says = v.reached;
    // Whole rounds of fio's samples: before judging (ss_ramp), then judged; at least the window when
    // fio attained steady state with it.
    let ramp_rounds = (ramp_s / round_s + 1e-9).floor() as usize;
    let judged = ((runtime_s - ramp_s).max(0.0) / round_s + 1e-9).floor() as usize;
    let judged = if attained { judged.max(n) } else { judged };
    let seen = ramp_rounds + judged;
    (v.reached, v.gave_up, v.left, v.start) = (attained, false, None, None);
    v.rounds_seen = seen;
    v.judged_from_round = Some(ramp_rounds);
    v.window_first_round = seen.saturating_sub(n);
    v.at_round = attained.then_some(seen.saturating_sub(1));
    v.at_round_number = attained.then_some(seen);
    let full = judged >= n;
    let state = SteadyState {
        criterion: Rule::Fio(r),
        reached: attained,
        at_s: attained.then_some(runtime_s),
        left_at_s: None,
        window_s,
        ended_phase: attained,
        judged_from_s: Some(ramp_s),
        judged_from_reason: match ramp_s > 0.0 {
            true => format!("after fio's steadystate_ramp_time of {ramp_s} s"),
            false => "from fio's first sample (no steadystate_ramp_time)".into(),
        },
        window_start_s: full.then_some((runtime_s - window_s).max(0.0)),
        window_end_s: full.then_some(runtime_s),
        earliest_at_s: Some(ramp_s + window_s),
        at_rule_floor: attained && judged == n,
        not_judged: (!full).then(|| {
            format!("fio judged {judged} sample(s) of {round_s} s, fewer than its window of {n}")
        }),
        verdict: v,
    };
    let warning = words(ss, &state, &r, (j, g), wkrun_says);
    Ok(Some((state, warning)))
}

/// The warning of fio's verdict `s` (criterion `ss`, read as `r`) of job `j` (global options `g`): when fio
/// attained steady state (and stopped the job there) or not, its criterion in wkrun's terms, and what does
/// not map; `wkrun_says`, whether wkrun's rule judges fio's window steady, said where it differs from fio.
fn words(
    ss: &str,
    s: &SteadyState,
    r: &FioRule,
    (j, g): (&Map<String, Value>, Option<&Map<String, Value>>),
    wkrun_says: bool,
) -> String {
    let bound = match seconds(j, g, &["runtime"]) {
        b if b > 0.0 => format!("of its runtime {b} s"),
        _ => "before its bound".into(),
    };
    let head = match s.at_s {
        Some(at) => format!(
            "{STOPPED_STEADY} ({ss} over {} s) {at:.3} s into it, {bound}: its figures are of those {at:.1} s only, where a wkrun phase with steady_state runs on to its bound (unless until = \"steady\")",
            s.window_s
        ),
        None => format!(
            "{JUDGED} ({ss} over {} s): not attained, so it ran on",
            s.window_s
        ),
    };
    let metric = match r.metric {
        FioMetric::Bw => "bw",
        _ => "iops",
    };
    let kind = match r.kind {
        FioKind::Slope => "slope",
        FioKind::Deviation => "deviation",
    };
    let differs = match (wkrun_says, s.reached) {
        (true, false) => {
            "; wkrun's rule finds fio's last window steady, where fio did not (fio checks at its own times)"
        }
        (false, true) => "; wkrun's rule finds fio's window not steady, where fio did",
        _ => "",
    };
    format!(
        "{head}; read as steady_state {{ rule = \"fio\", metric = \"{metric}\", kind = \"{kind}\", limit = {}, relative = {}, window = {} }} in rounds of {} s; fio gives its last window's {} samples only, not the series before them nor when each was taken: the rounds before the window are counted as whole rounds of its runtime, and the window's statistics are of those samples{differs}",
        r.limit,
        r.relative,
        r.window,
        s.window_s / r.window as f64,
        r.window
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_map_to_wkrun_rules() {
        let r = rule("iops_slope:10.000000%", 5).expect("maps");
        assert_eq!(
            (r.metric, r.kind, r.limit, r.relative, r.window),
            (FioMetric::Iops, FioKind::Slope, 0.1, true, 5)
        );
        let r = rule("bw:1048576.000000", 3).expect("maps");
        assert_eq!(
            (r.metric, r.kind, r.limit, r.relative, r.window),
            (FioMetric::Bw, FioKind::Deviation, 1048576.0, false, 3)
        );
        assert_eq!(rule("lat:1%", 3), None);
        assert_eq!(rule("iops:-1", 3), None);
        assert_eq!(rule("iops", 3), None);
    }

    /// A `steadystate` object no fio run writes is refused naming the job and the key; a job without one
    /// has no verdict.
    #[test]
    fn objects_fio_does_not_write_are_refused_naming_the_key() {
        let job = |ss: &str| -> Map<String, Value> {
            let v: Value =
                serde_json::from_str(&format!(r#"{{"job_runtime": 5559, "steadystate": {ss}}}"#))
                    .expect("JSON");
            v.as_object().expect("object").clone()
        };
        let err = |ss: &str| verdict(&job(ss), None, "jobs[1]", 5.559).err();
        let data = r#""data": {"iops": [1, 2], "bw": [4096, 8192]}"#;
        assert_eq!(
            err(&format!(
                r#"{{"ss": "lat:1.0", "duration": 2, "attained": 1, {data}}}"#
            ))
            .as_deref(),
            Some(
                "jobs[1].steadystate.ss: `lat:1.0` is none of fio's criteria (iops, iops_slope, bw, bw_slope with a limit)"
            )
        );
        assert_eq!(
            err(r#"{"ss": "iops:1.0", "duration": 2, "attained": 1}"#).as_deref(),
            Some("jobs[1].steadystate.data.iops: absent or not a list")
        );
        assert_eq!(
            err(&format!(
                r#"{{"ss": "iops:1.0", "duration": 0, "attained": 1, {data}}}"#
            ))
            .as_deref(),
            Some("jobs[1].steadystate.duration: absent or not above 0")
        );
        assert_eq!(
            err(r#"{"ss": "bw:1.0", "duration": 1, "attained": 1, "data": {"bw": [4096]}}"#)
                .as_deref(),
            Some(
                "jobs[1].steadystate.data: 1 sample(s) in fio's window, where a window has at least 2"
            )
        );
        let none: Map<String, Value> = Map::new();
        assert_eq!(verdict(&none, None, "jobs[0]", 1.0), Ok(None));
    }
}
