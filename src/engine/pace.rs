//! How the asynchronous loop waits for completions: woken for each one, or in batches, chosen by a probe at
//! the start of the phase.
//!
//! Where a device cannot take an io_uring I/O without blocking (zram, a buffered file on tmpfs), the kernel
//! does the I/O on one io-wq thread of the ring, and that thread is the device's pace. Woken for each
//! completion, the submitter makes that thread pay for the wake: on a virtual machine an inter-processor
//! interrupt to a halted CPU (measured on zram: 9 % of all CPU samples in the io-wq thread's
//! `_raw_spin_unlock_irqrestore`, against 1.6 % for fio, whose thread is seldom asleep). A batched wait asks
//! for every I/O in flight and a minimum wait of [`MIN_WAIT_US`]: until then only the last of them would
//! wake the submitter, and its own timer ends the wait once any is in (after an empty minimum wait, the next
//! completion wakes it). That helps only where the device is slow enough for a queue to cover the
//! submitter's longer sleep; on a fast one (tmpfs: 1.4 µs per write) it starves the device. So the loop
//! probes: after a warm-up window, windows per completion, batched, batched, per completion (symmetric, so
//! a device that speeds up or slows down over the probe favours neither), each at least [`WINDOW_NS`] and
//! [`WINDOW_OPS`] completions long, and keeps batched waits only when they completed at least
//! [`WIN_PERMILLE`] per mille of the I/Os per second of waking per completion and each batched window was
//! at least as fast as each window woken per completion. A round whose total favours batched waits but
//! whose windows disagree (a noisy machine) is probed again, without the warm-up, up to [`MAX_ROUNDS`]
//! rounds; batched waits are then kept only when the last round is a win. The probe runs only where
//! the plan allows it (`Job::probe_waits`: never under a rate cap, whose pace is its own) on a queue that
//! can wait a minimum time.

use crate::vocab::{KeptWaits, RoundVerdict, WaitsProbe, WaitsRound};

/// The minimum wait of a batched wait, µs ([`crate::vocab::MIN_WAIT_US`]).
pub use crate::vocab::MIN_WAIT_US;

/// The shortest probe window, ns.
pub const WINDOW_NS: u64 = 40_000_000;

/// The fewest completions a probe window counts (a slow device's window runs on until it has them, up
/// to [`WINDOW_MAX_NS`]), so that one completion more or less is not the 5 % that decides.
pub const WINDOW_OPS: u64 = 256;

/// The longest probe window, ns: a window ends then even short of [`WINDOW_OPS`].
pub const WINDOW_MAX_NS: u64 = 1_000_000_000;

/// Batched waits are kept when their rate is at least this many thousandths of the per-completion rate.
pub const WIN_PERMILLE: u64 = 1050;

/// Probe rounds at most: a round whose total favours batched waits but whose windows disagree is repeated.
pub const MAX_ROUNDS: usize = 3;

/// How the loop waits: `Each` completion wakes it (or the plan's completions per wait), or `Batched`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Woken per completion (or per the plan's completions per wait).
    Each,
    /// Waiting for every I/O in flight with a minimum wait of [`MIN_WAIT_US`].
    Batched,
}

/// The probe's windows: a warm-up (not counted), then two each way, symmetric in time.
const WINDOWS: [Mode; 5] = [
    Mode::Each,
    Mode::Each,
    Mode::Batched,
    Mode::Batched,
    Mode::Each,
];

/// What the probe measured: completions and ns, waking per completion and batched (of one round, or of all
/// rounds together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Probed {
    /// Completions and ns of the windows woken per completion.
    pub each: (u64, u64),
    /// Completions and ns of the batched windows.
    pub batched: (u64, u64),
    /// The fastest window woken per completion (of the last round).
    pub fastest_each: Option<(u64, u64)>,
    /// The slowest batched window (of the last round).
    pub slowest_batched: Option<(u64, u64)>,
}

impl Probed {
    /// Whether batched waits won: they won in total ([`Probed::faster_in_total`]) and each batched window
    /// was at least as fast as each window woken per completion (a machine whose pace changed during the
    /// probe, one window each way slow, gives no win).
    pub fn batched_wins(&self) -> bool {
        let every_window = match (self.slowest_batched, self.fastest_each) {
            (Some(b), Some(e)) => at_least(b, e),
            _ => true,
        };
        self.faster_in_total() && every_window
    }

    /// Whether batched waits completed something, at a rate of at least [`WIN_PERMILLE`] thousandths of
    /// the other's (in integers: `b_ops × e_ns × 1000 ≥ e_ops × b_ns × WIN_PERMILLE`).
    pub fn faster_in_total(&self) -> bool {
        let ((e_ops, e_ns), (b_ops, b_ns)) = (self.each, self.batched);
        let lhs = (b_ops as u128) * (e_ns as u128) * 1000;
        let rhs = (e_ops as u128) * (b_ns as u128) * (WIN_PERMILLE as u128);
        e_ns > 0 && b_ns > 0 && b_ops > 0 && lhs >= rhs
    }

    /// Completions per second of `(ops, ns)`.
    pub fn rate((ops, ns): (u64, u64)) -> f64 {
        if ns == 0 {
            0.0
        } else {
            ops as f64 * 1e9 / ns as f64
        }
    }
}

/// The loop's waiting mode and the probe that picks it.
#[derive(Debug)]
pub struct Pace {
    /// The window the probe is in (`WINDOWS.len()` once it is over), when it runs.
    window: usize,
    /// When the current window began, ns, and the completions counted in it; `None` before the first.
    began: Option<u64>,
    counted: u64,
    /// The current round's windows.
    round: Probed,
    /// All rounds' windows together, the last round's fastest and slowest windows.
    probed: Probed,
    /// The rounds ended, with their verdicts.
    rounds: Vec<WaitsRound>,
    mode: Mode,
    /// Whether the probe ran to its end.
    decided: bool,
}

impl Pace {
    /// A pace that probes when `probe`, else waits per completion throughout.
    pub fn new(probe: bool) -> Pace {
        Pace {
            window: if probe { 0 } else { WINDOWS.len() },
            began: None,
            counted: 0,
            round: Probed::default(),
            probed: Probed::default(),
            rounds: Vec::new(),
            mode: Mode::Each,
            decided: false,
        }
    }

    /// How to wait now.
    #[inline]
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Counts `n` completions reaped at `now` (ns) and moves the probe on when its window is over.
    #[inline]
    pub fn observe(&mut self, now: u64, n: usize) {
        if self.window >= WINDOWS.len() {
            return;
        }
        let Some(began) = self.began else {
            self.began = Some(now);
            return;
        };
        self.counted += n as u64;
        let took = now.saturating_sub(began);
        if took < WINDOW_NS || (self.counted < WINDOW_OPS && took < WINDOW_MAX_NS) {
            return;
        }
        let done = (self.counted, took);
        match (self.window, WINDOWS[self.window]) {
            (0, _) => {}
            (_, Mode::Each) => {
                add(&mut self.round.each, done);
                let e = &mut self.round.fastest_each;
                *e = Some(e.filter(|&f| at_least(f, done)).unwrap_or(done));
            }
            (_, Mode::Batched) => {
                add(&mut self.round.batched, done);
                let b = &mut self.round.slowest_batched;
                *b = Some(b.filter(|&s| at_least(done, s)).unwrap_or(done));
            }
        }
        self.window += 1;
        self.began = Some(now);
        self.counted = 0;
        self.mode = match WINDOWS.get(self.window) {
            Some(&m) => m,
            None => self.end_round(),
        };
    }

    /// Ends a round of the probe: keeps batched waits when the round was a win (then every round favoured
    /// them in total, and so do all together); probes again, without the warm-up, when the round favoured
    /// them in total but its windows disagreed, up to [`MAX_ROUNDS`] rounds; else waits per completion.
    fn end_round(&mut self) -> Mode {
        let round = std::mem::take(&mut self.round);
        add(&mut self.probed.each, round.each);
        add(&mut self.probed.batched, round.batched);
        self.probed.fastest_each = round.fastest_each;
        self.probed.slowest_batched = round.slowest_batched;
        let verdict = match (round.batched_wins(), round.faster_in_total()) {
            (true, _) => RoundVerdict::Won,
            (false, true) => RoundVerdict::Unsure,
            (false, false) => RoundVerdict::Lost,
        };
        self.rounds.push(WaitsRound {
            each_iops: Probed::rate(round.each),
            batched_iops: Probed::rate(round.batched),
            verdict,
        });
        if verdict == RoundVerdict::Unsure && self.rounds.len() < MAX_ROUNDS {
            self.window = 1;
            return WINDOWS[1];
        }
        self.decided = true;
        match verdict {
            RoundVerdict::Won => Mode::Batched,
            _ => Mode::Each,
        }
    }

    /// What the probe measured, when it ran to its end.
    pub fn probed(&self) -> Option<Probed> {
        self.decided.then_some(self.probed)
    }

    /// The probe's outcome for the phase's results, when it ran to its end.
    pub fn outcome(&self) -> Option<WaitsProbe> {
        self.probed().map(|p| WaitsProbe {
            kept: match self.mode {
                Mode::Batched => KeptWaits::Batched,
                Mode::Each => KeptWaits::Each,
            },
            each_iops: Probed::rate(p.each),
            batched_iops: Probed::rate(p.batched),
            rounds: self.rounds.clone(),
        })
    }

    /// What the phase's results should say: that completions were reaped in batches after the probe, why,
    /// and what it does to latencies. `None` when they were not.
    pub fn warning(&self, engine: &str) -> Option<String> {
        let p = self.probed().filter(|_| self.mode == Mode::Batched)?;
        Some(format!(
            "{engine}: completions were reaped in batches, so a latency can be up to {MIN_WAIT_US} µs (plus timer slack) longer than a wait per completion would time it; set completion_waits = \"each\" to time each: after a probe of at least the first {} ms{} (each wait for every I/O in flight, ending {MIN_WAIT_US} µs after it began once one completed), because the probe at the start of the phase completed {:.0} I/Os per second that way against {:.0} when woken per completion (waking per completion costs the device's pace where its I/O runs on a kernel worker thread, as on zram or a buffered tmpfs file; completion_waits = \"each\" turns the probe off); a completion is timed when its wait ends",
            WINDOW_NS * (1 + (WINDOWS.len() as u64 - 1) * self.rounds.len() as u64) / 1_000_000,
            match self.rounds.len() {
                1 => String::new(),
                n => format!(" in {n} rounds"),
            },
            Probed::rate(p.batched),
            Probed::rate(p.each),
        ))
    }
}

/// Whether `(ops, ns)` `a` is at least as fast as `b`.
fn at_least(a: (u64, u64), b: (u64, u64)) -> bool {
    (a.0 as u128) * (b.1 as u128) >= (b.0 as u128) * (a.1 as u128)
}

fn add(to: &mut (u64, u64), (ops, ns): (u64, u64)) {
    to.0 += ops;
    to.1 += ns;
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: u64 = WINDOW_NS;

    /// Drives a pace through the probe: the first observation starts it, then one observation per window end
    /// with that window's completions.
    fn probe(per_window: [usize; 5]) -> Pace {
        let mut p = Pace::new(true);
        p.observe(1_000, 0);
        let mut modes = vec![p.mode()];
        for (i, n) in per_window.into_iter().enumerate() {
            // Half-way through the window: no change yet.
            p.observe(1_000 + i as u64 * W + W / 2, 0);
            assert_eq!(p.mode(), modes[i], "window {i} mid-way");
            p.observe(1_000 + (i as u64 + 1) * W, n);
            modes.push(p.mode());
        }
        assert_eq!(
            modes[..5],
            [
                Mode::Each,
                Mode::Each,
                Mode::Batched,
                Mode::Batched,
                Mode::Each
            ],
            "a warm-up, then per completion, batched, batched, per completion"
        );
        p
    }

    #[test]
    fn batched_waits_are_kept_only_when_they_beat_waking_per_completion_by_five_percent() {
        // Warm-up 999 (not counted); each: 1000 + 1000; batched: 1050 + 1050 -> exactly 1.05: kept.
        let p = probe([999, 1000, 1050, 1050, 1000]);
        assert_eq!(p.mode(), Mode::Batched);
        let got = p.probed().expect("decided");
        assert_eq!(got.each, (2000, 2 * W));
        assert_eq!(got.batched, (2100, 2 * W));
        let said = p.warning("io_uring").expect("said");
        assert!(
            said.contains("after a probe of at least the first 200 ms (each wait")
                && said
                    .contains("completed 26250 I/Os per second that way against 25000 when woken"),
            "{said}"
        );
        // The results' record: 2100 and 2000 in 80 ms each.
        let won = WaitsRound {
            each_iops: 25_000.0,
            batched_iops: 26_250.0,
            verdict: RoundVerdict::Won,
        };
        let kept = WaitsProbe {
            kept: KeptWaits::Batched,
            each_iops: 25_000.0,
            batched_iops: 26_250.0,
            rounds: vec![won.clone()],
        };
        assert_eq!(p.outcome(), Some(kept.clone()));
        // 1049 + 1050: 2099 < 2100: not kept; no warning, the rates recorded.
        let p = probe([5000, 1000, 1049, 1050, 1000]);
        assert_eq!(p.mode(), Mode::Each);
        assert_eq!(p.probed().expect("decided").batched, (2099, 2 * W));
        assert_eq!(p.warning("io_uring"), None);
        let lost = WaitsRound {
            batched_iops: 26_237.5,
            verdict: RoundVerdict::Lost,
            ..won
        };
        let each = WaitsProbe {
            kept: KeptWaits::Each,
            batched_iops: 26_237.5,
            rounds: vec![lost],
            ..kept
        };
        assert_eq!(p.outcome(), Some(each));
    }

    fn verdicts(w: &WaitsProbe) -> Vec<RoundVerdict> {
        w.rounds.iter().map(|r| r.verdict).collect()
    }

    /// Drives `p` through one more round (per completion, batched, batched, per completion) from `t`, one
    /// observation per window end; returns the time at its end.
    fn round(p: &mut Pace, t: u64, per_window: [usize; 4]) -> u64 {
        let modes: Vec<Mode> = per_window
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let mode = p.mode();
                p.observe(t + (i as u64 + 1) * W, n);
                mode
            })
            .collect();
        assert_eq!(modes, WINDOWS[1..], "a round without the warm-up");
        t + 4 * W
    }

    #[test]
    fn one_slow_batched_window_under_a_fast_one_per_completion_is_no_win_and_probes_again() {
        // Batched 2000 + 1000 against 1000 + 1000: 1.5 in all, but the second batched window is as slow as
        // the per-completion ones (kept), and one more per-completion completion makes it slower: the round
        // is unsure, and the probe goes on with a second round, per completion first.
        let p = probe([1000, 1000, 2000, 1000, 1000]);
        assert_eq!(p.mode(), Mode::Batched, "as fast: kept");
        let mut p = probe([1000, 1000, 2000, 1000, 1001]);
        assert_eq!((p.mode(), p.probed(), p.window), (Mode::Each, None, 1));
        // The second round wins (1100 + 1100 against 1000 + 1000): kept, the rates of both rounds together.
        let t = 1_000 + 5 * W;
        round(&mut p, t, [1000, 1100, 1100, 1000]);
        assert_eq!(p.mode(), Mode::Batched);
        let got = p.probed().expect("decided");
        assert_eq!((got.each, got.batched), ((4001, 4 * W), (5200, 4 * W)));
        assert_eq!(
            (got.fastest_each, got.slowest_batched),
            (Some((1000, W)), Some((1100, W))),
            "the last round's"
        );
        let rounds = p.outcome().expect("decided").rounds;
        let rates: Vec<(f64, f64, RoundVerdict)> = rounds
            .iter()
            .map(|r| (r.each_iops, r.batched_iops, r.verdict))
            .collect();
        assert_eq!(
            rates,
            [
                (25_012.5, 37_500.0, RoundVerdict::Unsure),
                (25_000.0, 27_500.0, RoundVerdict::Won)
            ]
        );
        let said = p.warning("io_uring").expect("said");
        assert!(
            said.contains("at least the first 360 ms in 2 rounds (each wait"),
            "{said}"
        );
    }

    #[test]
    fn three_unsure_rounds_keep_per_completion_waits_and_a_lost_round_ends_the_probe() {
        let mut p = probe([1000, 1000, 2000, 1000, 1001]);
        let t = round(&mut p, 1_000 + 5 * W, [1001, 2000, 1000, 1000]);
        assert_eq!((p.mode(), p.probed(), p.window), (Mode::Each, None, 1));
        round(&mut p, t, [1000, 1000, 2000, 1001]);
        assert_eq!(p.mode(), Mode::Each);
        let got = p.probed().expect("decided after the third round");
        assert_eq!((got.each, got.batched), ((6003, 6 * W), (9000, 6 * W)));
        let got = p.outcome().expect("decided");
        assert_eq!(got.kept, KeptWaits::Each);
        assert_eq!(verdicts(&got), [RoundVerdict::Unsure; 3]);
        assert_eq!(p.warning("io_uring"), None);
        // An unsure round, then one that loses in total (1000 + 1049 against 1000 + 1000): decided, per
        // completion.
        let mut p = probe([1000, 1000, 2000, 1000, 1001]);
        round(&mut p, 1_000 + 5 * W, [1000, 1000, 1049, 1000]);
        assert_eq!(p.mode(), Mode::Each);
        let got = p.outcome().expect("decided");
        assert_eq!(verdicts(&got), [RoundVerdict::Unsure, RoundVerdict::Lost]);
        // Once decided, nothing changes.
        let w = p.window;
        p.observe(1_000 + 20 * W, 100_000);
        assert_eq!((p.mode(), p.window), (Mode::Each, w));
    }

    #[test]
    fn windows_are_compared_by_rate_not_by_count() {
        let mut p = Pace::new(true);
        p.observe(0, 0);
        for (end, n) in [
            (W, 1000),
            (2 * W, 1000),
            (4 * W, 1500),
            (6 * W, 1500),
            (7 * W, 1000),
        ] {
            p.observe(end, n);
        }
        // each: 2000 in 2W; batched: 3000 in 4W -> 0.75 of the rate: not kept although more I/Os.
        let got = p.probed().expect("decided");
        assert_eq!((got.each, got.batched), ((2000, 2 * W), (3000, 4 * W)));
        assert_eq!(p.mode(), Mode::Each);
    }

    #[test]
    fn a_window_runs_on_until_it_has_enough_completions_or_a_second() {
        let mut p = Pace::new(true);
        p.observe(0, 0);
        // 255 completions after 2 windows' time: the warm-up goes on; the 256th ends it.
        p.observe(2 * W, 255);
        assert_eq!(p.window, 0);
        p.observe(2 * W + 1, 1);
        assert_eq!(p.window, 1);
        // A window of 5 completions ends at a second.
        p.observe(2 * W + 1 + WINDOW_MAX_NS - 1, 5);
        assert_eq!(p.window, 1);
        p.observe(2 * W + 1 + WINDOW_MAX_NS, 0);
        assert_eq!((p.window, p.round.each), (2, (5, WINDOW_MAX_NS)));
    }

    #[test]
    fn without_a_probe_or_before_its_end_waits_stay_per_completion_with_nothing_to_say() {
        let mut p = Pace::new(false);
        for t in 0..20 {
            p.observe(t * W, 1_000_000);
            assert_eq!(p.mode(), Mode::Each);
        }
        assert_eq!((p.probed(), p.warning("io_uring")), (None, None));
        // A phase that ends in a batched window of the probe: no decision, no warning (the phase's params
        // say it probed).
        let mut p = Pace::new(true);
        for (t, n) in [(0, 0), (W, 300), (2 * W, 300)] {
            p.observe(t, n);
        }
        assert_eq!(p.mode(), Mode::Batched);
        assert_eq!((p.probed(), p.warning("io_uring")), (None, None));
        assert_eq!(p.outcome(), None);
    }

    #[test]
    fn nothing_completed_either_way_keeps_per_completion_waits_and_never_divides_by_zero() {
        assert!(!Probed::default().batched_wins());
        let stalled = Probed {
            each: (0, WINDOW_MAX_NS),
            batched: (0, WINDOW_MAX_NS),
            ..Probed::default()
        };
        assert!(!stalled.batched_wins());
        assert_eq!(Probed::rate((5, 0)), 0.0);
        let only_batched = Probed {
            each: (0, W),
            batched: (10, W),
            ..Probed::default()
        };
        assert!(only_batched.batched_wins());
    }
}
