//! What a run can write, beyond the schema's types: times in RFC 3339, names by the spec's rule (each phase's
//! its own), parameters within the spec's bounds and the target, a simulated target (and a prediction's
//! fitted target) a drive a run can have. Part of [`super::check::implausible`]: `wkrun validate`, and every command that reads results,
//! refuses the rest, so that `sim fit`, `compare` and `report` never act on a value no run has.

use super::check::{Violation, echo, plain_text};
use super::{PhaseResult, Results, Status};
use crate::spec::rules::{
    MAX_BLOCK_SIZE, MAX_PASSES, MAX_QUEUE_DEPTH, MAX_WORKERS, MIN_INTERVAL_NS, mix_past_100,
    name_help, valid_name,
};
use crate::target::TargetInfo;
use std::collections::HashMap;

/// The run's own fields: its times (`started_at`, `finished_at`, `launch.start_at`, each merged host's
/// `started_at`), what its end says (`outcome`) and what it planned (`planned_phases`,
/// [`super::planned::check`]; where a run from `--from` started, [`super::from_phase::check`]), the spec's name, and a prediction's `measured` (no control character), the measured run's
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
    outcome(r, out);
    let n = out.len();
    super::planned::check(r, out);
    // `from_phase` is held to a plan that holds (one the phases contradict is named once, as itself).
    if out.len() == n {
        super::from_phase::check(r, out);
    }
    host_spans(r, out);
    sim_target(r, out);
    unopened(r, out);
    if let Some(p) = &r.prediction {
        plain_text("prediction.measured", &p.measured, None, out);
        let measured_at = p.measured_run_started_at.as_deref();
        time("prediction.measured_run_started_at", measured_at, out);
        if let Some(t) = &p.measured_run_target {
            plain_text("prediction.measured_run_target", t, None, out);
        }
        drive("prediction.fitted_target", &p.fitted_target, out);
    }
}

/// `target.unopened` against the phases the run ran (attack 25 F5: set on a psync run that wrote its
/// file, or removed from a run whose every phase ran on the null engine, it passed): true only when no
/// phase opened the target (each ran on the `null` engine, which does no I/O) and the target is not the
/// simulated drive; absent from a completed run of one target that ran a phase and no phase that opens it.
fn unopened(r: &Results, out: &mut Vec<Violation>) {
    if r.cluster.is_some() {
        return;
    }
    let sim = r.target.kind == crate::target::TargetKind::Sim;
    let opens = |p: &&PhaseResult| p.params.engine != Some(crate::vocab::EngineKind::Null);
    let opener = r.phases.iter().enumerate().find(|(_, p)| opens(p));
    let why = match (r.target.unopened, opener) {
        (true, _) if sim => "true for the simulated drive, which is never opened as a file is: absent there".to_string(),
        (true, Some((i, p))) => format!(
            "true, but phases[{i}] {} ran on {}, which opens the target: true only when every phase ran on the null engine",
            echo(&p.name),
            p.params.engine.map_or("no engine (a phase that is no I/O workload)", |e| e.as_str()),
        ),
        (false, None) if !sim && r.status == Status::Completed && !r.phases.is_empty() => {
            "absent, but every phase of this completed run ran on the null engine, which never opens the target: true then".to_string()
        }
        _ => return,
    };
    out.push(Violation {
        path: "target.unopened".into(),
        expected: why,
    });
}

/// Each merged phase's parts against their hosts: a part's span (`phases[i].hosts[k].span_bytes`, its
/// `params.span_bytes`) within its host's target (`cluster.hosts[k].capacity_bytes`), as a run's own span
/// is within its target's (attack 21 A3: a span of 1 GiB on a 64 MiB host passed).
fn host_spans(r: &Results, out: &mut Vec<Violation>) {
    let hosts = r.cluster.as_ref().map_or(&[][..], |c| &c.hosts[..]);
    for (i, p) in r.phases.iter().enumerate() {
        for (k, part) in p.hosts.iter().enumerate() {
            stopped_part(i, k, part, hosts.get(k), out);
            let (Some(span), Some(host)) = (part.span_bytes, hosts.get(k)) else {
                continue;
            };
            if span > host.capacity_bytes {
                out.push(Violation {
                    path: format!("phases[{i}].hosts[{k}].span_bytes"),
                    expected: format!(
                        "{span} is past its host's target, cluster.hosts[{k}].capacity_bytes {}: a host's span lies within its target",
                        host.capacity_bytes
                    ),
                });
            }
        }
    }
}

/// A merged phase's part said to be where its host's run stopped (`phases[i].hosts[k].stopped_in`) is one
/// a merge marks so: `true`, of a host whose run ended `running` ([`crate::results::Results::stopped_in`]),
/// a part that did not begin the phase.
fn stopped_part(
    i: usize,
    k: usize,
    part: &super::HostPhase,
    host: Option<&super::ClusterHost>,
    out: &mut Vec<Violation>,
) {
    let Some(s) = part.stopped_in else { return };
    let why = match (s, host.map(|h| h.status)) {
        (false, _) => "false: a merge writes it only as true".to_string(),
        (true, _) if part.began() => {
            "true of a part with a started_at: a host stopped in a phase has no results of it"
                .to_string()
        }
        (true, Some(st)) if st != Status::Running => format!(
            "true of a host whose run ended \"{}\" (cluster.hosts[{k}].status): a run that ends in a phase writes its results",
            st.word()
        ),
        _ => return,
    };
    out.push(Violation {
        path: format!("phases[{i}].hosts[{k}].stopped_in"),
        expected: why,
    });
}

/// What a run's end says of it: it ends after it starts (`finished_at` not before `started_at`), no phase
/// starts before it starts or after it ends, a completed run ran at least one phase (a spec has one) and each to its end
/// (`completed`), and a failed one says why (`error`). A run that completed with fewer phases than it
/// planned is told by its `planned_phases` ([`super::planned::check`]); results without one (older) cannot
/// tell it.
fn outcome(r: &Results, out: &mut Vec<Violation>) {
    let time = |t: &str| crate::launch::parse_rfc3339(t).ok();
    if let Some(start) = time(&r.started_at) {
        for (i, p) in r.phases.iter().enumerate() {
            if time(&p.started_at).is_some_and(|t| t < start) {
                out.push(Violation {
                    path: format!("phases[{i}].started_at"),
                    expected: format!(
                        "{} is before the run's started_at {}: a phase starts after its run does",
                        echo(&p.started_at),
                        echo(&r.started_at)
                    ),
                });
            }
        }
    }
    let finished = r.finished_at.as_deref().and_then(|f| Some((f, time(f)?)));
    if let Some((f, end)) = finished {
        // An end before the start is said once, not again of each phase that started after it.
        if time(&r.started_at).is_some_and(|start| end < start) {
            out.push(Violation {
                path: "finished_at".into(),
                expected: format!(
                    "{} is before started_at {}: a run ends after it starts",
                    echo(f),
                    echo(&r.started_at)
                ),
            });
            return;
        }
        for (i, p) in r.phases.iter().enumerate() {
            if time(&p.started_at).is_some_and(|t| t > end) {
                out.push(Violation {
                    path: format!("phases[{i}].started_at"),
                    expected: format!(
                        "{} is after the run's finished_at {}: a phase starts before its run ends",
                        echo(&p.started_at),
                        echo(f)
                    ),
                });
            }
        }
    }
    let status = "in a run whose status is \"completed\"";
    match r.status {
        Status::Completed if r.phases.is_empty() => out.push(Violation {
            path: "phases".into(),
            expected: format!("none {status}: a completed run ran at least one phase"),
        }),
        Status::Completed => {
            for (i, _) in r.phases.iter().enumerate().filter(|(_, p)| !p.completed) {
                out.push(Violation {
                    path: format!("phases[{i}].completed"),
                    expected: format!(
                        "false {status}: a run completes only when each of its phases does"
                    ),
                });
            }
        }
        Status::Failed if r.error.is_none() => out.push(Violation {
            path: "error".into(),
            expected: "absent in a run whose status is \"failed\": a failed run says why".into(),
        }),
        _ => {}
    }
}

/// A simulated target (`target.kind` `sim`) as a run records it: its `path` a `sim:` target that describes a
/// drive ([`drive`]), its `capacity_bytes` and block sizes those of that drive, and its `sim` a drive a run
/// can have. The aggregate of
/// a run on several targets (`cluster`, no `target.sim`: its path joins the targets') has each simulated
/// target's `cluster.hosts[h].target_path` checked instead.
fn sim_target(r: &Results, out: &mut Vec<Violation>) {
    let t = &r.target;
    if t.kind != crate::target::TargetKind::Sim {
        return;
    }
    if let Some(c) = r.cluster.as_ref().filter(|_| t.sim.is_none()) {
        let sims = c.hosts.iter().enumerate();
        // Targets of several kinds run together: the first one's kind is the aggregate's.
        let sims =
            sims.filter(|(_, host)| host.target_path.starts_with(crate::sim::params::PREFIX));
        for (h, host) in sims {
            let at = format!("cluster.hosts[{h}].target_path");
            drive(&at, &host.target_path, out);
        }
        return;
    }
    let path = t.path.to_string_lossy();
    let Some(made) = drive("target.path", &path, out) else {
        return;
    };
    // The recorded drive is one a run can have; it is not compared whole with the path's reading today: a
    // default changed since (the jitter's, 0 % before 30 %) reads an older run's path as another drive.
    if let Some(Err(why)) = t
        .sim
        .as_ref()
        .map(|s| crate::sim::SimTarget::new(s.params.clone()))
    {
        out.push(Violation {
            path: "target.sim".into(),
            expected: format!(
                "is not a simulated drive a run can have: {}",
                crate::text::escaped(&why.to_string())
            ),
        });
    }
    let fields = [
        ("capacity_bytes", t.capacity_bytes != made.capacity_bytes),
        (
            "logical_block_size",
            t.logical_block_size != made.logical_block_size,
        ),
        (
            "physical_block_size",
            t.physical_block_size != made.physical_block_size,
        ),
    ];
    for (field, _) in fields.into_iter().filter(|&(_, differs)| differs) {
        out.push(Violation {
            path: format!("target.{field}"),
            expected: format!(
                "is not that of the simulated drive target.path names ({})",
                echo(&path)
            ),
        });
    }
}

/// The simulated drive the `sim:` target `path` (at `at`) names, by the rules a run's `--target` is held to
/// ([`crate::sim::SimParams::parse_target`], then [`crate::target::TargetInfo::sim`]: dies ≥ 1, op leaving
/// room for garbage collection, times above 0, a capacity of at least a block); `None`, with the
/// violation, when it names none.
fn drive(at: &str, path: &str, out: &mut Vec<Violation>) -> Option<crate::target::TargetInfo> {
    let made = crate::sim::SimParams::parse_target(path).and_then(crate::target::TargetInfo::sim);
    made.map_err(|why| {
        out.push(Violation {
            path: at.into(),
            expected: format!(
                "{} is not a simulated drive a run can have: {}",
                echo(path),
                crate::text::escaped(&why)
            ),
        })
    })
    .ok()
}

/// Phase `i` (`p`): its times, its name (by the spec's rule, and not the name of an earlier phase: `names`
/// holds each name seen with its phase), its stream seed that of its seed and a name found right
/// ([`crate::plan::PhaseParams::stream_seed_of`]), and its parameters within the spec's bounds and the
/// target's `capacity`.
pub fn phase<'a>(
    i: usize,
    p: &'a PhaseResult,
    (names, target): (&mut HashMap<&'a str, usize>, &TargetInfo),
    out: &mut Vec<Violation>,
) {
    let at = |what: &str| format!("phases[{i}].{what}");
    time(&at("started_at"), Some(&p.started_at), out);
    let measured = p.measured_started_at.as_deref();
    time(&at("measured_started_at"), measured, out);
    for (h, host) in p.hosts.iter().enumerate() {
        time(
            &at(&format!("hosts[{h}].started_at")),
            host.started_at.as_deref(),
            out,
        );
    }
    let before = out.len();
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
    // A name already said to be wrong would make its stream seed wrong again.
    if out.len() == before {
        stream_seed(i, p, out);
    }
    params(i, p, target, out);
}

/// Phase `i`'s blocks as a plan on the `target` makes them: with O_DIRECT, each block size a multiple of the
/// logical block size ([`crate::plan::direct_misaligned`]); the span in whole blocks of
/// `params.block_size_bytes` from a multiple of it, at least one, as the plan's span resolver leaves a span
/// it is given in bytes ([`crate::plan::span::resolve`]). A span of 1000 B blocks on a 512 B drive passed,
/// and `wkrun sim fit` failed on it naming a deleted scratch file.
fn blocks(i: usize, p: &PhaseResult, target: &TargetInfo, out: &mut Vec<Violation>) {
    let q = &p.params;
    let at = |field: &str| format!("phases[{i}].params.{field}");
    let io = p.kind != crate::spec::PhaseKind::Erase;
    let mix = q.block_size_mix.iter().flatten().map(|s| s.bytes);
    let sizes = q.block_size_bytes.into_iter().chain(mix);
    let lbs = u64::from(target.logical_block_size);
    let direct = io && q.direct == Some(true);
    if let Some(bad) = crate::plan::direct_misaligned(sizes, lbs).filter(|_| direct) {
        let field = match q.block_size_bytes == Some(bad) {
            true => "block_size_bytes",
            false => "block_size_mix",
        };
        out.push(Violation {
            path: at(field),
            expected: format!(
                "{bad} B is not a multiple of the target's logical_block_size ({lbs} B), which O_DIRECT (params.direct) requires"
            ),
        });
    }
    let whole = |&b: &u64| io && b > 0 && q.block_size_mix.is_none();
    let Some(block) = q.block_size_bytes.filter(whole) else {
        return;
    };
    let (start, len) = (q.span_start_bytes, q.span_bytes);
    // A span past the target's end is named by `params` itself.
    if u128::from(start) + u128::from(len) > u128::from(target.capacity_bytes) {
        return;
    }
    let bytes = |b| Some(crate::units::Amount::Bytes(b));
    let resolved =
        crate::plan::span::resolve(target.capacity_bytes, block, bytes(start), bytes(len));
    let why = match resolved {
        Err(e) if e.key == "offset" => Some(("span_start_bytes", e.message)),
        Err(e) => Some(("span_bytes", e.message)),
        Ok(sp) if sp.len != len => Some((
            "span_bytes",
            format!(
                "{len} B is not a whole number of blocks of params.block_size_bytes ({block} B)"
            ),
        )),
        Ok(_) => None,
    };
    if let Some((field, why)) = why {
        out.push(Violation {
            path: at(field),
            expected: format!("{why}: a plan makes no such span"),
        });
    }
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
pub(super) fn name(path: &str, n: &str, what: &str, out: &mut Vec<Violation>) {
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

/// Phase `i`'s parameters that a spec bounds ([`crate::spec::rules`]), each within its bounds (and
/// `read_percent` + `trim_percent` at most 100, [`mix_past_100`]), its blocks
/// as a plan has them on the `target` ([`blocks`]), and its span within the target's capacity.
fn params(i: usize, p: &PhaseResult, target: &TargetInfo, out: &mut Vec<Violation>) {
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
    let mix = q
        .read_percent
        .zip(q.trim_percent)
        .filter(|&(r, t)| r <= 100 && t <= 100);
    if let Some(why) = mix.and_then(|(r, t)| mix_past_100(r.into(), t.into())) {
        out.push(Violation {
            path: format!("phases[{i}].params.trim_percent"),
            expected: format!("{why}: a spec refuses it, so no run has it"),
        });
    }
    blocks(i, p, target, out);
    let capacity = target.capacity_bytes;
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

/// Phase `i`'s `params.stream_seed`, when recorded with `params.seed`, is the hash of the seed and the
/// phase's name that the plan gives it ([`crate::plan::PhaseParams::stream_seed_of`]): a stream seed no
/// run writes, one copied from another phase to make two phases one stream (attack 24 F9), is refused.
fn stream_seed(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let (Some(recorded), Some(expected)) = (q.stream_seed, q.stream_seed_of(&p.name)) else {
        return;
    };
    if recorded != expected {
        out.push(Violation {
            path: format!("phases[{i}].params.stream_seed"),
            expected: format!(
                "{recorded} is not the stream seed of seed {} and the phase's name {}, {expected}",
                q.seed.unwrap_or_default(),
                echo(&p.name)
            ),
        });
    }
}
