//! What a run can write, beyond the schema's types: times in RFC 3339, names by the spec's rule (each phase's
//! its own), parameters within the spec's bounds and the target, a prediction's fitted target a simulated
//! drive. Part of [`super::check::implausible`]: `wkrun validate`, and every command that reads results,
//! refuses the rest, so that `sim fit`, `compare` and `report` never act on a value no run has.

use super::check::{Violation, echo, plain_text};
use super::{PhaseResult, Results};
use crate::spec::rules::{
    MAX_BLOCK_SIZE, MAX_PASSES, MAX_QUEUE_DEPTH, MAX_WORKERS, MIN_INTERVAL_NS, name_help,
    valid_name,
};
use std::collections::HashMap;

/// The run's own fields: its times (`started_at`, `finished_at`, `launch.start_at`, each merged host's
/// `started_at`), the spec's name, and a prediction's `measured` (no control character), the measured run's
/// start (`measured_run_started_at`, a time), its target (`measured_run_target`, no control character)
/// and `fitted_target` (a simulated target).
pub fn run(r: &Results, out: &mut Vec<Violation>) {
    time("started_at", Some(&r.started_at), out);
    time("finished_at", r.finished_at.as_deref(), out);
    let start_at = r.launch.as_ref().and_then(|l| l.start_at.as_deref());
    time("launch.start_at", start_at, out);
    for (h, host) in r.cluster.iter().flat_map(|c| c.hosts.iter().enumerate()) {
        time(
            &format!("cluster.hosts[{h}].started_at"),
            Some(&host.started_at),
            out,
        );
    }
    name("spec.name", &r.spec.name, "the output folder", out);
    if let Some(p) = &r.prediction {
        plain_text("prediction.measured", &p.measured, None, out);
        let measured_at = p.measured_run_started_at.as_deref();
        time("prediction.measured_run_started_at", measured_at, out);
        if let Some(t) = &p.measured_run_target {
            plain_text("prediction.measured_run_target", t, None, out);
        }
        if let Err(why) = crate::sim::SimParams::parse_target(&p.fitted_target) {
            out.push(Violation {
                path: "prediction.fitted_target".into(),
                expected: format!(
                    "{} is not the simulated drive a prediction runs on: {}",
                    echo(&p.fitted_target),
                    crate::text::escaped(&why)
                ),
            });
        }
    }
}

/// Phase `i` (`p`): its times, its name (by the spec's rule, and not the name of an earlier phase: `names`
/// holds each name seen with its phase), and its parameters within the spec's bounds and the target's
/// `capacity`.
pub fn phase<'a>(
    i: usize,
    p: &'a PhaseResult,
    (names, capacity): (&mut HashMap<&'a str, usize>, u64),
    out: &mut Vec<Violation>,
) {
    let at = |what: &str| format!("phases[{i}].{what}");
    time(&at("started_at"), Some(&p.started_at), out);
    let measured = p.measured_started_at.as_deref();
    time(&at("measured_started_at"), measured, out);
    for (h, host) in p.hosts.iter().enumerate() {
        time(
            &at(&format!("hosts[{h}].started_at")),
            Some(&host.started_at),
            out,
        );
    }
    name(&at("name"), &p.name, "the phase's CSV file", out);
    match names.get(p.name.as_str()) {
        Some(j) => out.push(Violation {
            path: at("name"),
            expected: format!(
                "{} is the name of phases[{j}] too: a spec's phase names are unique, and so are a run's",
                echo(&p.name)
            ),
        }),
        None => {
            names.insert(&p.name, i);
        }
    }
    params(i, p, capacity, out);
}

/// The time `t` at `path`, when there is one: RFC 3339 ([`crate::launch::parse_rfc3339`]).
fn time(path: &str, t: Option<&str>, out: &mut Vec<Violation>) {
    let Some(t) = t else { return };
    if let Err(why) = crate::launch::parse_rfc3339(t) {
        out.push(Violation {
            path: path.into(),
            expected: format!(
                "{} is not an RFC 3339 time such as 2026-12-01T12:00:00.000Z: {why}",
                echo(t)
            ),
        });
    }
}

/// The name `n` at `path` by the spec's rule for names ([`valid_name`]), naming `what` it names.
fn name(path: &str, n: &str, what: &str, out: &mut Vec<Violation>) {
    if !valid_name(n) {
        out.push(Violation {
            path: path.into(),
            expected: format!(
                "{} is not a name a spec can have: {}",
                echo(n),
                name_help(n, what)
            ),
        });
    }
}

/// Phase `i`'s parameters that a spec bounds ([`crate::spec::rules`]), each within its bounds, and its span
/// within the target's `capacity`.
fn params(i: usize, p: &PhaseResult, capacity: u64, out: &mut Vec<Violation>) {
    let q = &p.params;
    let mut within = |field: &str, v: Option<u64>, (least, most): (u64, u64)| {
        if let Some(v) = v.filter(|v| !(least..=most).contains(v)) {
            out.push(Violation {
                path: format!("phases[{i}].params.{field}"),
                expected: format!("{v} is outside the spec's bounds, {least} to {most}"),
            });
        }
    };
    let qd = q.queue_depth.map(u64::from);
    within("queue_depth", qd, (1, u64::from(MAX_QUEUE_DEPTH)));
    let workers = q.workers.map(u64::from);
    within("workers", workers, (1, u64::from(MAX_WORKERS)));
    within("block_size_bytes", q.block_size_bytes, (1, MAX_BLOCK_SIZE));
    for (k, s) in q.block_size_mix.iter().flatten().enumerate() {
        let field = format!("block_size_mix[{k}].bytes");
        within(&field, Some(s.bytes), (1, MAX_BLOCK_SIZE));
    }
    within("interval_ns", q.interval_ns, (MIN_INTERVAL_NS, u64::MAX));
    within("passes", q.passes.map(u64::from), (1, MAX_PASSES as u64));
    within("trace", q.trace, (1, crate::stats::trace::MAX_TRACE));
    within("read_percent", q.read_percent.map(u64::from), (0, 100));
    within("trim_percent", q.trim_percent.map(u64::from), (0, 100));
    let end = u128::from(q.span_start_bytes) + u128::from(q.span_bytes);
    if end > u128::from(capacity) {
        out.push(Violation {
            path: format!("phases[{i}].params.span_bytes"),
            expected: format!(
                "span_start_bytes {} + span_bytes {} = {end} is past the target's capacity_bytes {capacity}",
                q.span_start_bytes, q.span_bytes
            ),
        });
    }
}
