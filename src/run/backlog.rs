//! A phase whose largest latency is the previous phase's backlog: a read at QD1 after a phase of buffered
//! writes waits for the drive to work them off (a write-back cache flushing, garbage collection), so its
//! first interval holds a maximum hundreds of times its p99.9 (the simulated drive: 110 ms against
//! 188 µs). The number is true, but it describes the phase before; the warning says so and names `ramp`,
//! the key that gives each phase an unmeasured lead-in.

use crate::results::PhaseResult;

/// How many times the phase's p99.9 its maximum must be to count as dominated by one event.
pub const DOMINATED: f64 = 10.0;

/// The warning for the measured phase `pr`, whose first full interval's largest latency was
/// `first_max_us`, run after `before` (the previous phase, if any), with an unmeasured `ramp` or not: when
/// its maximum latency lies in its first interval, is more than [`DOMINATED`] times its p99.9, the phase
/// before it wrote and it has no ramp. `None` otherwise.
pub fn warning(
    pr: &PhaseResult,
    first_max_us: Option<f64>,
    before: Option<&PhaseResult>,
    ramp: bool,
) -> Option<String> {
    let before = before.filter(|b| b.write.ops > 0 && !ramp)?;
    let l = pr.total.latency_ns.as_ref()?;
    let (max, p999) = (l.max as f64, l.p99_9 as f64);
    let first = first_max_us? * 1e3;
    // The first interval holds the maximum (its max, in µs with 3 decimals, within 1 ns of it).
    let in_first = (first - max).abs() <= 1.0;
    (in_first && max > DOMINATED * p999).then(|| {
        format!(
            "no ramp: add ramp = \"10s\" (an unmeasured lead-in): the largest latency, {} in the first interval, is {:.0} times the p99.9 ({}) after phase \"{}\" wrote: the drive was likely still working off those writes (a write-back cache, garbage collection), so this maximum describes that phase as much as this one; a ramp gives each phase the same starting state",
            super::progress::latency(max),
            max / p999,
            super::progress::latency(p999),
            before.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::DirStats;

    fn phase(name: &str, writes: u64, max_ns: u64, p999_ns: u64) -> PhaseResult {
        let mut p = crate::report::testing::phase(name, 0);
        let mut l =
            crate::report::testing::latency(50_000, 80_000, 90_000, 150_000, p999_ns, p999_ns);
        l.max = max_ns;
        p.total = DirStats::new(1000 + writes, 4096 * 1000, 1.0, Some(l));
        p.write = DirStats::new(writes, writes * 4096, 1.0, None);
        p
    }

    /// The newcomer's trial: a QD1 read after buffered writes had a 110 ms maximum against a 188 µs p99.9,
    /// in its first interval.
    #[test]
    fn a_maximum_from_the_previous_phases_writes_is_flagged() {
        let writes = phase("write", 5000, 1_000_000, 500_000);
        let read = phase("read-qd1", 0, 110_000_000, 188_000);
        assert_eq!(
            warning(&read, Some(110_000.0), Some(&writes), false).as_deref(),
            Some(
                "no ramp: add ramp = \"10s\" (an unmeasured lead-in): the largest latency, 110.00 ms in the first interval, is 585 times the p99.9 (188.0 µs) after phase \"write\" wrote: the drive was likely still working off those writes (a write-back cache, garbage collection), so this maximum describes that phase as much as this one; a ramp gives each phase the same starting state"
            )
        );
        // On the console the action comes before the cut (newcomer 30c: it never showed).
        let said = warning(&read, Some(110_000.0), Some(&writes), false).unwrap_or_default();
        assert_eq!(
            super::super::observer::warning_line(&["read-qd1"], &said, 200),
            "warning: phase read-qd1: no ramp: add ramp = \"10s\" (an unmeasured lead-in): the largest latency, 110.00 ms in the first interval, is 585 times the p99.9 (188.0 µs) after… (in full: wkrun warnings)"
        );
        // Not when the maximum is in a later interval, the phase before only read, there is a ramp, or
        // the maximum is within 10 times the p99.9.
        assert_eq!(warning(&read, Some(900.0), Some(&writes), false), None);
        let reads = phase("r", 0, 1, 1);
        assert_eq!(warning(&read, Some(110_000.0), Some(&reads), false), None);
        assert_eq!(warning(&read, Some(110_000.0), Some(&writes), true), None);
        assert_eq!(warning(&read, Some(110_000.0), None, false), None);
        let close = phase("read-qd1", 0, 1_880_000, 188_000);
        assert_eq!(warning(&close, Some(1_880.0), Some(&writes), false), None);
    }
}
