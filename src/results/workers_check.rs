//! A phase's workers against its parameters: `params.worker_parts` is what the plan deals out
//! ([`crate::plan::deal_workers`], the one definition, from the span, block size, order, byte bound, stream
//! seed and split the phase records), one part per worker of `params.workers`, each inside the span; each
//! of `workers[]` is its part (range and seed); the workers' I/Os and bytes add up to the phase's, per
//! direction; and each worker's reads and trims are its own stream's exact mix
//! ([`super::figures_check::worker_mix`]) (docs/results.md, "Workers").

use super::PhaseResult;
use super::check::{MAX_DURATION_S, Violation};
use super::parts_check::{Measured, dirs_of, not_longer};
use crate::ops::Order;
use crate::plan::{ByteRange, StreamShape, WorkerPart, deal_workers};
use crate::vocab::{Coverage, Direction, Pattern, PhaseKind, WorkersSplit};

/// Every place where phase `i`'s worker parts or workers contradict its parameters or its counts.
pub fn workers(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let before = out.len();
    parts(i, p, out);
    // Workers held to parts named wrong already would say the same again.
    if out.len() == before {
        against_parts(i, p, out);
    }
    counts_add_up(i, p, out);
    // Rates of counts that do not add up, or shares of parts named wrong, would say the same again.
    if out.len() == before {
        figures(i, p, out);
    }
    if out.len() == before {
        dealt_counts(i, p, out);
    }
    if out.len() == before {
        super::figures_check::worker_mix(i, p, out);
    }
}

/// Each worker's own figures by the rules of its phase's and of a merged phase's parts
/// ([`Measured`]): its rates its counts over the phase's `duration_s` (a worker's are over its phase's
/// time), its latency summaries in order and none with a `max` above the phase's, some time for its I/Os,
/// and its `duration_s` (to its last completion) not past the phase's (to the last of all).
fn figures(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let whole = (
        "the phase's",
        p.duration_s,
        "which ends at its last completion",
    );
    for (k, w) in p.workers.iter().enumerate() {
        let part = Measured {
            at: format!("phases[{i}].workers[{k}]"),
            dirs: dirs_of(&w.read, &w.write, w.trim.as_ref()),
            over: (p.duration_s <= MAX_DURATION_S)
                .then_some(("the phase's duration_s", p.duration_s)),
            duration_s: w.duration_s,
        };
        part.own(out);
        part.max_within(p, "the phase's", out);
        let at = format!("{}.duration_s", part.at);
        out.extend(w.duration_s.and_then(|s| not_longer(at, s, whole)));
    }
}

/// Each worker's I/Os against its share of a byte bound (`params.worker_parts[k].ops`, as the plan deals
/// it): at most its share, all of it when the phase ran to its bound without a failed I/O; and a fill's
/// worker wrote at most `params.passes` × its part (`span_bytes`).
fn dealt_counts(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let to_bound = p.completed
        && !p.steady_state.as_ref().is_some_and(|s| s.ended_phase)
        && p.errors.as_ref().is_none_or(|e| e.total == 0);
    for (k, (w, part)) in p.workers.iter().zip(&q.worker_parts).enumerate() {
        let at = |what: &str| format!("phases[{i}].workers[{k}].{what}");
        let dirs = dirs_of(&w.read, &w.write, w.trim.as_ref());
        let (ops, bytes) = dirs.iter().fold((0u128, 0u128), |(o, b), (_, d)| {
            (o + u128::from(d.ops), b + u128::from(d.bytes))
        });
        let names = match w.trim {
            Some(_) => "read.ops + write.ops + trim.ops",
            None => "read.ops + write.ops",
        };
        if let Some(n) = part.ops.map(u128::from) {
            let wrong = ops > n || (to_bound && ops < n);
            if wrong {
                let rule = match to_bound {
                    true => "all of it in a phase that ran to its bound without a failed I/O",
                    false => "at most that",
                };
                out.push(Violation {
                    path: format!("phases[{i}].workers[{k}]"),
                    expected: format!(
                        "{names} = {ops} I/Os, not its share of the phase's bound, params.worker_parts[{k}].ops {n}: {rule}"
                    ),
                });
                continue;
            }
        }
        let most = q
            .passes
            .map(|n| u128::from(n) * u128::from(part.span_bytes));
        if let Some(most) = most.filter(|&m| bytes > m) {
            out.push(Violation {
                path: at("write.bytes"),
                expected: format!(
                    "{bytes} B written, more than params.passes {} × its part params.worker_parts[{k}].span_bytes {} = {most} B: a fill's worker writes its part only",
                    q.passes.unwrap_or(0),
                    part.span_bytes
                ),
            });
        }
    }
}

/// The parts as the plan deals them out for the phase's recorded parameters, when it records them all.
fn dealt(p: &PhaseResult) -> Option<Vec<WorkerPart>> {
    let q = &p.params;
    let order = match (q.pattern, q.coverage) {
        (Some(Pattern::Random), Some(Coverage::Full)) => Order::RandomFull,
        (Some(Pattern::Random), _) => Order::Random,
        _ => Order::Sequential,
    };
    let len = match p.kind {
        PhaseKind::RestoreImage => q.image_bytes?,
        _ => q.span_bytes,
    };
    let shape = StreamShape {
        range: ByteRange {
            start: q.span_start_bytes,
            len,
        },
        unit: q.block_size_bytes?,
        order,
        total_ops: q.ops,
        seed: q.stream_seed?,
    };
    let split = q.workers_split.unwrap_or(WorkersSplit::Partitioned);
    let dealt = deal_workers(&shape, q.workers?, split);
    Some(dealt.iter().map(WorkerPart::of).collect())
}

/// `params.worker_parts`: one per worker of `params.workers` (none for one worker), each inside the span,
/// each as the plan deals it out.
fn parts(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let q = &p.params;
    let at = |what: String| format!("phases[{i}].params.worker_parts{what}");
    let n = q.workers.unwrap_or(1);
    let want = if n > 1 { n as usize } else { 0 };
    if q.worker_parts.len() != want {
        return out.push(Violation {
            path: at(String::new()),
            expected: format!(
                "{} parts for params.workers {n}: the plan deals one part to each of several workers, none to one",
                q.worker_parts.len()
            ),
        });
    }
    let end = u128::from(q.span_start_bytes) + u128::from(q.span_bytes);
    for (k, w) in q.worker_parts.iter().enumerate() {
        let w_end = u128::from(w.span_start_bytes) + u128::from(w.span_bytes);
        if w.span_start_bytes < q.span_start_bytes || w_end > end {
            return out.push(Violation {
                path: at(format!("[{k}]")),
                expected: format!(
                    "[{}, {w_end}) is not inside the phase's span [{}, {end}) (params.span_start_bytes, params.span_bytes)",
                    w.span_start_bytes, q.span_start_bytes
                ),
            });
        }
    }
    let Some(dealt) = dealt(p) else { return };
    for (k, (got, want)) in q.worker_parts.iter().zip(&dealt).enumerate() {
        if let Some((field, got, want)) = first_difference(got, want) {
            return out.push(Violation {
                path: at(format!("[{k}].{field}")),
                expected: format!(
                    "{got} is not what the plan deals worker {k}, {want} (from the phase's span, block size, order, bound, stream_seed and {n} workers split {})",
                    match q.workers_split {
                        Some(WorkersSplit::Shared) => "shared",
                        _ => "partitioned",
                    }
                ),
            });
        }
    }
}

/// The first field in which part `got` is not `want`, with both values.
fn first_difference(got: &WorkerPart, want: &WorkerPart) -> Option<(&'static str, String, String)> {
    let shown = |o: Option<u64>| o.map_or("absent".to_string(), |n| n.to_string());
    [
        ("worker", got.worker.to_string(), want.worker.to_string()),
        (
            "span_start_bytes",
            got.span_start_bytes.to_string(),
            want.span_start_bytes.to_string(),
        ),
        (
            "span_bytes",
            got.span_bytes.to_string(),
            want.span_bytes.to_string(),
        ),
        ("seed", got.seed.to_string(), want.seed.to_string()),
        ("ops", shown(got.ops), shown(want.ops)),
    ]
    .into_iter()
    .find(|(_, a, b)| a != b)
}

/// Each of `workers[]` is its part of `params.worker_parts`: its number, range and seed.
fn against_parts(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let parts = &p.params.worker_parts;
    if parts.is_empty() || p.workers.is_empty() {
        return;
    }
    if p.workers.len() != parts.len() {
        return out.push(Violation {
            path: format!("phases[{i}].workers"),
            expected: format!(
                "{} workers, not the {} of params.worker_parts",
                p.workers.len(),
                parts.len()
            ),
        });
    }
    for (k, (w, part)) in p.workers.iter().zip(parts).enumerate() {
        let fields = [
            ("worker", u64::from(w.worker), u64::from(part.worker)),
            (
                "span_start_bytes",
                w.span_start_bytes,
                part.span_start_bytes,
            ),
            ("span_bytes", w.span_bytes, part.span_bytes),
            ("seed", w.seed, part.seed),
        ];
        if let Some((field, got, want)) = fields.into_iter().find(|(_, a, b)| a != b) {
            out.push(Violation {
                path: format!("phases[{i}].workers[{k}].{field}"),
                expected: format!("{got} is not params.worker_parts[{k}].{field} {want}"),
            });
        }
    }
}

/// The workers' I/Os and bytes add up to the phase's, per direction.
fn counts_add_up(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    if p.workers.is_empty() {
        return;
    }
    for d in Direction::ALL {
        let parts = p.workers.iter().filter_map(|w| match d {
            Direction::Read => Some(&w.read),
            Direction::Write => Some(&w.write),
            Direction::Trim => w.trim.as_ref(),
        });
        let at = format!("phases[{i}].workers");
        out.extend(super::parts_check::add_up(
            at,
            "the workers'",
            d,
            parts,
            p.dir(d),
        ));
    }
}
