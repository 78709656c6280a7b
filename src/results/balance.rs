//! Whether a phase's workers (`workers = N`) did comparable work: when one did much less than another, the
//! phase's total is what the host's scheduling (CPU time, which thread ran when) let the workers do, not N
//! equal submitters, and the phase gets a warning naming them ([`warning`]).
//!
//! - A time-bounded phase (`params.duration_ns`): every worker ran for the same time, so their completed
//!   I/Os are compared.
//! - A byte-bounded phase (a fill, a restore, a workload with `size`): the shares are equal by construction
//!   (or one I/O apart), so the counts say nothing; each worker's rate over its own time (its I/Os over
//!   `workers[].duration_s`, t = 0 to its last completion) is compared: a worker that finished early left
//!   the phase's end to fewer submitters.

use super::{PhaseResult, WorkerResult};

/// The warning's bar: the slowest worker below this share of the fastest (by I/Os in a time-bounded
/// phase, by rate in a byte-bounded one).
pub const BALANCE: f64 = 0.75;

/// Phases shorter than this (s) are not judged: a thread's wake-up (tens of µs to a few ms) is a large share
/// of them, so any two workers could differ by the bar.
pub const MIN_SECONDS: f64 = 0.1;

/// A worker's completed I/Os: reads, writes and trims.
fn ops(w: &WorkerResult) -> u64 {
    w.read.ops + w.write.ops + w.trim.as_ref().map_or(0, |t| t.ops)
}

/// The phase's warning when its workers did unequal work ([module docs](self)); `None` with fewer than
/// two workers, a phase shorter than [`MIN_SECONDS`], or workers within [`BALANCE`] of each other.
pub fn warning(pr: &PhaseResult) -> Option<String> {
    if pr.workers.len() < 2 || pr.duration_s < MIN_SECONDS {
        return None;
    }
    if pr.params.duration_ns.is_some() {
        by_ops(&pr.workers, pr.duration_s)
    } else {
        by_rate(&pr.workers)
    }
}

/// `, K of N workers below 0.75 of it` when more than the one named are below the bar.
fn others(below: usize, n: usize) -> String {
    if below > 1 {
        format!(", {below} of {n} workers below {BALANCE} of it")
    } else {
        String::new()
    }
}

/// A time-bounded phase: the worker with the fewest I/Os against the one with the most.
fn by_ops(workers: &[WorkerResult], secs: f64) -> Option<String> {
    // The first of equals: the lowest-numbered worker.
    let slow = workers.iter().min_by_key(|w| ops(w))?;
    let fast = workers.iter().rev().max_by_key(|w| ops(w))?;
    let (s, f) = (ops(slow), ops(fast));
    if f == 0 || s as f64 >= BALANCE * f as f64 {
        return None;
    }
    let below = workers
        .iter()
        .filter(|w| (ops(w) as f64) < BALANCE * f as f64)
        .count();
    let n = workers.len();
    Some(format!(
        "unequal workers: worker {} completed {s} I/Os and worker {} {f} in the same {secs:.2} s ({:.2} of the most{}; warned below {BALANCE}): the phase's total is what the host's scheduling let its {n} workers do, not {n} equal submitters; each worker's numbers are in phases[].workers",
        slow.worker,
        fast.worker,
        s as f64 / f as f64,
        others(below, n),
    ))
}

/// A byte-bounded phase: the worker with the lowest rate over its own time against the highest. Workers
/// without I/O or without a recorded time (results of earlier versions) are not compared.
fn by_rate(workers: &[WorkerResult]) -> Option<String> {
    let timed: Vec<(&WorkerResult, f64, f64)> = workers
        .iter()
        .filter_map(|w| {
            let t = w.duration_s.filter(|&t| t > 0.0 && ops(w) > 0)?;
            Some((w, t, ops(w) as f64 / t))
        })
        .collect();
    if timed.len() < 2 {
        return None;
    }
    let slow = timed.iter().min_by(|a, b| a.2.total_cmp(&b.2))?;
    let fast = timed.iter().rev().max_by(|a, b| a.2.total_cmp(&b.2))?;
    if slow.2 >= BALANCE * fast.2 {
        return None;
    }
    let below = timed.iter().filter(|x| x.2 < BALANCE * fast.2).count();
    let n = workers.len();
    Some(format!(
        "unequal workers: worker {} took {:.3} s for its {} I/Os and worker {} {:.3} s for {} ({:.2} of the fastest's rate{}; warned below {BALANCE}): the phase's end ran on fewer than its {n} workers (for {:.3} s after worker {} finished), so its rate is not that of {n} submitters throughout; each worker's numbers are in phases[].workers",
        slow.0.worker,
        slow.1,
        ops(slow.0),
        fast.0.worker,
        fast.1,
        ops(fast.0),
        slow.2 / fast.2,
        others(below, n),
        (slow.1 - fast.1).max(0.0),
        fast.0.worker,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::DirStats;

    /// Worker `i` with `writes` writes over `secs` of its own, in a phase of `phase_s`.
    fn worker(i: u32, writes: u64, secs: f64, phase_s: f64) -> WorkerResult {
        WorkerResult {
            worker: i,
            span_start_bytes: 0,
            span_bytes: 0,
            seed: 1,
            duration_s: Some(secs),
            read: DirStats::zero(),
            write: DirStats::new(writes, writes * 4096, phase_s, None),
            trim: None,
            flushes: None,
            errors: 0,
        }
    }

    #[test]
    fn time_bounded_workers_are_compared_by_ops() {
        // The newcomer trial's case: 2 partitioned sequential-write workers at QD4, 5 s.
        let w = [worker(0, 33_868, 5.0, 5.0), worker(1, 69_313, 5.0, 5.0)];
        assert_eq!(
            by_ops(&w, 5.0).as_deref(),
            Some(
                "unequal workers: worker 0 completed 33868 I/Os and worker 1 69313 in the same 5.00 s (0.49 of the most; warned below 0.75): the phase's total is what the host's scheduling let its 2 workers do, not 2 equal submitters; each worker's numbers are in phases[].workers"
            )
        );
        // At the bar exactly: 75 of 100 is not below it.
        let w = [worker(0, 75, 5.0, 5.0), worker(1, 100, 5.0, 5.0)];
        assert_eq!(by_ops(&w, 5.0), None);
        let w = [worker(0, 74, 5.0, 5.0), worker(1, 100, 5.0, 5.0)];
        assert!(by_ops(&w, 5.0).unwrap().contains("(0.74 of the most;"));
    }

    #[test]
    fn several_below_the_bar_are_counted() {
        let w = [
            worker(0, 100, 2.0, 2.0),
            worker(1, 50, 2.0, 2.0),
            worker(2, 60, 2.0, 2.0),
            worker(3, 90, 2.0, 2.0),
        ];
        assert_eq!(
            by_ops(&w, 2.0).as_deref(),
            Some(
                "unequal workers: worker 1 completed 50 I/Os and worker 0 100 in the same 2.00 s (0.50 of the most, 2 of 4 workers below 0.75 of it; warned below 0.75): the phase's total is what the host's scheduling let its 4 workers do, not 4 equal submitters; each worker's numbers are in phases[].workers"
            )
        );
    }

    #[test]
    fn byte_bounded_workers_are_compared_by_rate() {
        // Equal shares of 4096 I/Os: worker 1 done in 0.5 s, worker 0 in 1.25 s.
        let w = [worker(0, 4096, 1.25, 1.25), worker(1, 4096, 0.5, 1.25)];
        assert_eq!(
            by_rate(&w).as_deref(),
            Some(
                "unequal workers: worker 0 took 1.250 s for its 4096 I/Os and worker 1 0.500 s for 4096 (0.40 of the fastest's rate; warned below 0.75): the phase's end ran on fewer than its 2 workers (for 0.750 s after worker 1 finished), so its rate is not that of 2 submitters throughout; each worker's numbers are in phases[].workers"
            )
        );
        // One I/O apart (267 and 266) in the same time: balanced.
        let w = [worker(0, 267, 1.0, 1.0), worker(1, 266, 1.0, 1.0)];
        assert_eq!(by_rate(&w), None);
        // A worker without I/O (an idle worker has its plan warning) or without a time is left out.
        let mut old = worker(1, 10, 0.1, 1.0);
        old.duration_s = None;
        let w = [worker(0, 100, 1.0, 1.0), old, worker(2, 0, 0.0, 1.0)];
        assert_eq!(by_rate(&w), None);
    }

    #[test]
    fn a_phase_is_judged_by_its_bound_and_length() {
        let zero = r#"{"ops":0,"bytes":0,"iops":0.0,"bw_bytes_per_s":0.0,"latency_ns":null}"#;
        let json = format!(
            r#"{{"index":0,"name":"w","kind":"workload","started_at":"2026-01-01T00:00:00.000Z","duration_s":5.0,"completed":true,"read":{zero},"write":{zero},"total":{zero},"params":{{"span_start_bytes":0,"span_bytes":1048576,"duration_ns":5000000000}}}}"#
        );
        let mut pr: PhaseResult = serde_json::from_str(&json).unwrap();
        pr.workers = vec![worker(0, 33_868, 5.0, 5.0), worker(1, 69_313, 5.0, 5.0)];
        assert!(
            warning(&pr)
                .unwrap()
                .starts_with("unequal workers: worker 0 completed 33868")
        );
        // Too short to judge.
        pr.duration_s = 0.05;
        assert_eq!(warning(&pr), None);
        // The same counts without a time bound: equal times, so equal rates... of unequal counts.
        pr.duration_s = 5.0;
        pr.params.duration_ns = None;
        assert!(
            warning(&pr)
                .unwrap()
                .contains("took 5.000 s for its 33868 I/Os")
        );
        // One worker: nothing to compare.
        pr.workers.truncate(1);
        assert_eq!(warning(&pr), None);
    }
}
