//! A phase's flushes (`sync.flushes`: `fsync`/`fdatasync` after every N writes) against its plan and its
//! writes, in a phase of one run (attack 21 A2: `every_writes` 8 made 4, and `ops` 1263 where the writes
//! give 1258, passed `wkrun validate`). The engine's rule (`Job::after_write` of the engine module): each
//! worker counts its completed writes (all its threads together, from 0 after any ramp) and flushes after
//! the N-th, 2N-th, ... of them, so a worker that completed w writes made exactly ⌊w / N⌋ flushes, each
//! counted once it returned. A flush that fails stops the phase uncounted: a phase that did not complete
//! made at most that many. A merged phase's hosts may flush after different N, and its parts keep no
//! flush count: it is held to its hosts by `report/merge/agrees.rs` (an aggregate) or not at all (a merge).

use super::PhaseResult;
use super::check::Violation;

/// Every place where the flushes of the single-run phase `p` (phase `i`) are not what its plan and writes
/// make them: `sync.flushes` there exactly when `params` has `fsync` or `fdatasync`, with that call and
/// that N as `every_writes`; its `ops` ⌊write.ops / N⌋ with one worker, each worker's
/// `workers[k].flushes` ⌊workers[k].write.ops / N⌋ with several (their writes adding up to the phase's,
/// their flushes to `ops`); at most that in a phase that did not complete.
pub(super) fn counted(i: usize, p: &PhaseResult, out: &mut Vec<Violation>) {
    let at = |what: &str| format!("phases[{i}].{what}");
    let mut say = |path: String, expected: String| out.push(Violation { path, expected });
    let planned = match (p.params.fsync, p.params.fdatasync) {
        (Some(n), _) => Some(("fsync", n)),
        (None, Some(n)) => Some(("fdatasync", n)),
        (None, None) => None,
    };
    let f = p.sync.as_ref().and_then(|s| s.flushes.as_ref());
    let ((key, n), f) = match (planned, f) {
        (None, None) => return,
        (None, Some(_)) => {
            return say(
                at("sync.flushes"),
                "present, where params has neither fsync nor fdatasync: a phase flushes as its plan says"
                    .into(),
            );
        }
        (Some((key, n)), None) => {
            return say(
                at("sync.flushes"),
                format!("absent, where params.{key} is {n}: a phase flushes as its plan says"),
            );
        }
        (Some(k), Some(f)) => (k, f),
    };
    if f.call != key {
        say(
            at("sync.flushes.call"),
            format!("{:?} is not {key:?}, the call params.{key} plans", f.call),
        );
    }
    if f.every_writes != n || n == 0 {
        return say(
            at("sync.flushes.every_writes"),
            format!(
                "{} is not params.{key} {n}, the writes per flush its plan gives",
                f.every_writes
            ),
        );
    }
    let Some((made, how, exact)) = by_workers(i, p, n, &mut say) else {
        return;
    };
    let exact = exact && p.completed;
    if f.ops > made || (exact && f.ops != made) {
        let verb = if exact { "is not" } else { "is more than" };
        say(
            at("sync.flushes.ops"),
            format!(
                "{} {verb} {how} = {made}: a worker flushes after each {n}-th of its completed writes",
                f.ops
            ),
        );
    }
}

/// The flushes the phase's workers make of their writes after every `n` (every worker's ⌊w / n⌋ added), how,
/// in words, and whether exactly that (not where the workers' own counts are gone: at most that); each worker's own count (`workers[k].flushes`) said where it is not its share, and
/// `None` where the workers' writes do not add up to the phase's or their flushes to its `ops` (said too).
fn by_workers(
    i: usize,
    p: &PhaseResult,
    n: u64,
    say: &mut impl FnMut(String, String),
) -> Option<(u64, String, bool)> {
    let ops = p.sync.as_ref()?.flushes.as_ref()?.ops;
    let w = p.write.ops;
    let many = u64::from(p.params.workers.unwrap_or(1));
    if p.workers.is_empty() && many > 1 {
        // Each worker's list gone: every worker's ⌊w_k / n⌋ is more than (w_k − n + 1) / n.
        let least = w.saturating_sub(many.saturating_mul(n - 1)).div_ceil(n);
        if ops < least {
            say(
                format!("phases[{i}].sync.flushes.ops"),
                format!(
                    "{ops} is fewer than {many} workers make of write.ops {w} after every {n} writes, at least {least}"
                ),
            );
        }
    }
    if p.workers.is_empty() {
        let how = format!("⌊write.ops / every_writes⌋ = ⌊{w} / {n}⌋");
        return Some((w / n, how, many == 1));
    }
    let writes: u128 = p.workers.iter().map(|w| u128::from(w.write.ops)).sum();
    let flushes: u128 = (p.workers.iter())
        .map(|w| u128::from(w.flushes.unwrap_or(0)))
        .sum();
    if writes != u128::from(p.write.ops) || flushes != u128::from(ops) {
        say(
            format!("phases[{i}].workers"),
            format!(
                "their write.ops add up to {writes} and their flushes to {flushes}, not the phase's write.ops {} and sync.flushes.ops {ops}",
                p.write.ops
            ),
        );
        return None;
    }
    for (k, w) in p.workers.iter().enumerate() {
        let share = w.write.ops / n;
        let got = w.flushes.unwrap_or(0);
        if (p.completed && got != share) || got > share {
            say(
                format!("phases[{i}].workers[{k}].flushes"),
                format!(
                    "{got} is not ⌊workers[{k}].write.ops / every_writes⌋ = ⌊{} / {n}⌋ = {share}",
                    w.write.ops
                ),
            );
        }
    }
    let made = p.workers.iter().map(|w| w.write.ops / n).sum();
    Some((
        made,
        "the workers' ⌊write.ops / every_writes⌋ added".into(),
        true,
    ))
}
