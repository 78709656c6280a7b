//! Steady state (issue 4, item 4): an independent oracle, written from the rules' text and not from
//! `wkrun::stats::steady`, recomputes the verdict, the round and the excursions from each fixture's CSV
//! series and must agree with the module: exactly for the verdict, rounds and window extremes and mean
//! (same data, same summation order), within 1e-12 of the window's scale for the slope and excursions (the
//! oracle fits the line with the textbook formula, the module with centred abscissae). Several fixtures also
//! carry expected values computed by hand.

use wkrun::stats::steady::{
    FioKind, FioMetric, FioRule, LeaveRule, Rule, SniaRule, SteadyDetector, Verdict, evaluate,
};

// ---------------------------------------------------------------------------------------------------------
// Fixtures, as the per-phase series CSV holds them (`t_s` = end of the interval, one row per round).

/// The fixture as a series CSV with one-second rows.
fn to_csv(iops: &[f64]) -> String {
    let mut s = String::from("t_s,write_iops\n");
    for (k, v) in iops.iter().enumerate() {
        s.push_str(&format!("{},{v}\n", k + 1));
    }
    s
}

/// The `write_iops` column of a series CSV.
fn read_iops(csv: &str) -> Vec<f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "write_iops")
        .expect("write_iops column");
    lines
        .map(|l| {
            l.split(',')
                .nth(col)
                .expect("cell")
                .parse()
                .expect("number")
        })
        .collect()
}

/// A deterministic noise source in [-1, 1) (an LCG, so fixtures need no crate).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Fresh-drive chaos before the cliff: alternating +7000 / −9000 around 40000 plus ±500 of noise, so
/// every 5-round window has a range ≥ 15000, far above 20 % of its mean (< 8000).
fn chaos(rounds: usize, noise: &mut Noise) -> Vec<f64> {
    (0..rounds)
        .map(|k| 40000.0 + if k % 2 == 0 { 7000.0 } else { -9000.0 } + 500.0 * noise.next())
        .collect()
}

/// A plateau at `level` with ±`pct` of noise.
fn plateau(level: f64, pct: f64, rounds: usize, noise: &mut Noise) -> Vec<f64> {
    (0..rounds)
        .map(|_| level * (1.0 + pct * noise.next()))
        .collect()
}

/// Every fixture by name.
fn fixtures() -> Vec<(&'static str, Vec<f64>)> {
    let mut n = Noise(4);
    let flat = vec![20000.0; 30];
    let mut noisy = vec![8000.0, 8320.0, 7680.0, 8160.0, 7840.0];
    noisy.extend(plateau(8000.0, 0.04, 40, &mut n));
    let drift: Vec<f64> = (0..40).map(|k| 10000.0 * 1.03f64.powi(k)).collect();
    let cliff_short = vec![
        40000.0, 36000.0, 31000.0, 25000.0, 18000.0, 11000.0, 6000.0, 5200.0, 5000.0, 4900.0,
        5100.0, 5000.0, 5050.0, 4950.0,
    ];
    // Seed 000: per-second IOPS, chaos for 700 s, then a plateau around 5000 (±4 %).
    let mut cliff_long = chaos(700, &mut n);
    cliff_long.extend(plateau(5000.0, 0.04, 1300, &mut n));
    let mut drop_clean = vec![10000.0; 8];
    drop_clean.extend([6000.0; 5]);
    // Thermal throttling: 12000 ± 2 % for 60 rounds, then 7000 ± 2 %.
    let mut drop_noisy = plateau(12000.0, 0.02, 60, &mut n);
    drop_noisy.extend(plateau(7000.0, 0.02, 40, &mut n));
    let short = vec![900.0, 1000.0, 1100.0];
    let mut late = chaos(30, &mut n);
    late.extend(plateau(5000.0, 0.04, 20, &mut n));
    vec![
        ("flat", flat),
        ("noisy within limits", noisy),
        ("slow drift", drift),
        ("cliff then plateau, short", cliff_short),
        ("cliff then plateau, seed 000", cliff_long),
        ("plateau then drop, clean", drop_clean),
        ("plateau then drop, throttled", drop_noisy),
        ("shorter than the window", short),
        ("steady after max_rounds", late),
        ("empty", vec![]),
        ("zeros", vec![0.0; 12]),
    ]
}

// ---------------------------------------------------------------------------------------------------------
// The oracle.

/// Slope of the least-squares line through (i, yᵢ), i = 0..n: (n·Σxy − Σx·Σy) / (n·Σx² − (Σx)²).
fn ls_slope(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    if y.len() < 2 {
        return 0.0;
    }
    let (mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
    for (i, &v) in y.iter().enumerate() {
        let x = i as f64;
        sx += x;
        sy += v;
        sxx += x * x;
        sxy += x * v;
    }
    (n * sxy - sx * sy) / (n * sxx - sx * sx)
}

fn mean(y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in y {
        s += v;
    }
    s / y.len() as f64
}

/// What the oracle says about one series.
#[derive(Debug)]
struct Expect {
    reached: bool,
    at_round: Option<usize>,
    gave_up: bool,
    first: usize,
    len: usize,
    mean: f64,
    min: f64,
    max: f64,
    slope: f64,
    data_excursion: Option<f64>,
    slope_excursion: Option<f64>,
    left_at: Option<usize>,
    left_mean: Option<f64>,
}

/// Is this full window steady? SNIA: "max − min within data_excursion of the average, and the best-fit
/// line's excursion over the window within slope_excursion of the average"; fio: "criterion below the
/// limit" (a fraction of the mean when relative). A mean that is not positive is never steady.
fn window_is_steady(rule: &Rule, w: &[f64]) -> bool {
    let avg = mean(w);
    if avg <= 0.0 {
        return false;
    }
    let lo = w.iter().cloned().fold(f64::MAX, f64::min);
    let hi = w.iter().cloned().fold(f64::MIN, f64::max);
    let slope = ls_slope(w);
    match rule {
        Rule::Snia(r) => {
            let line_excursion = slope.abs() * (w.len() - 1) as f64;
            hi - lo <= r.data_excursion * avg && line_excursion <= r.slope_excursion * avg
        }
        Rule::Fio(r) => {
            let measured = match r.kind {
                FioKind::Slope => slope.abs(),
                FioKind::Deviation => w.iter().map(|v| (v - avg).abs()).fold(0.0, f64::max),
            };
            let limit = if r.relative { r.limit * avg } else { r.limit };
            measured < limit
        }
    }
}

fn oracle(rule: &Rule, drop: Option<f64>, y: &[f64]) -> Expect {
    let (window, max_rounds) = match rule {
        Rule::Snia(r) => (r.window, r.max_rounds),
        Rule::Fio(r) => (r.window, None),
    };
    let allowed = max_rounds.map_or(y.len(), |m| m.min(y.len()));
    // Judge each window ending at round e (0-based), in order, until one is steady.
    let mut reached_at = None;
    let mut last_judged = None;
    for e in 0..allowed {
        if e + 1 < window {
            continue;
        }
        last_judged = Some(e);
        if window_is_steady(rule, &y[e + 1 - window..=e]) {
            reached_at = Some(e);
            break;
        }
    }
    let (first, len) = match reached_at.or(last_judged) {
        Some(e) => (e + 1 - window, window),
        None => (0, y.len()),
    };
    let w = &y[first..first + len];
    let (avg, lo, hi, slope) = if w.is_empty() {
        (0.0, 0.0, 0.0, 0.0)
    } else {
        (
            mean(w),
            w.iter().cloned().fold(f64::MAX, f64::min),
            w.iter().cloned().fold(f64::MIN, f64::max),
            ls_slope(w),
        )
    };
    let frac = |x: f64| if avg > 0.0 { Some(x / avg) } else { None };
    // Leaving: after the steady round, the first round whose trailing window's average is below
    // (1 − drop) × the steady average.
    let mut left_at = None;
    let mut left_mean = None;
    if let (Some(r), Some(d)) = (reached_at, drop) {
        for k in r + 1..y.len() {
            let m = mean(&y[k + 1 - window..=k]);
            if m < (1.0 - d) * avg {
                left_at = Some(k);
                left_mean = Some(m);
                break;
            }
        }
    }
    Expect {
        reached: reached_at.is_some(),
        at_round: reached_at,
        gave_up: reached_at.is_none() && max_rounds.is_some_and(|m| y.len() >= m),
        first,
        len,
        mean: avg,
        min: lo,
        max: hi,
        slope,
        data_excursion: frac(hi - lo),
        slope_excursion: frac(slope.abs() * (len.max(1) - 1) as f64),
        left_at,
        left_mean,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Comparison.

/// |a − b| within 1e-12 of `scale` (or of the larger of a and b).
fn close(a: f64, b: f64, scale: f64) -> bool {
    let s = scale.abs().max(a.abs()).max(b.abs());
    (a - b).abs() <= 1e-12 * s
}

fn close_opt(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => close(a, b, 0.0),
        (None, None) => true,
        _ => false,
    }
}

fn assert_agrees(what: &str, v: &Verdict, e: &Expect) {
    let ctx = format!("{what}\nmodule: {v:#?}\noracle: {e:#?}");
    assert_eq!(v.reached, e.reached, "reached: {ctx}");
    assert_eq!(v.at_round, e.at_round, "at_round: {ctx}");
    assert_eq!(v.at_round_number, e.at_round.map(|r| r + 1), "{ctx}");
    assert_eq!(v.gave_up, e.gave_up, "gave_up: {ctx}");
    assert_eq!(
        (v.window_first_round, v.window_rounds),
        (e.first, e.len),
        "window: {ctx}"
    );
    assert_eq!(
        (v.window_mean, v.window_min, v.window_max),
        (e.mean, e.min, e.max),
        "mean/min/max: {ctx}"
    );
    assert!(close(v.slope, e.slope, e.mean), "slope: {ctx}");
    assert!(
        close_opt(v.data_excursion, e.data_excursion),
        "data excursion: {ctx}"
    );
    // The slope excursion is |slope|·(n−1)/mean: compare its difference on the scale of the limit (1).
    match (v.slope_excursion, e.slope_excursion) {
        (Some(a), Some(b)) => assert!(close(a, b, 1.0), "slope excursion: {ctx}"),
        (a, b) => assert_eq!(a.is_some(), b.is_some(), "slope excursion: {ctx}"),
    }
    assert_eq!(
        v.left.as_ref().map(|l| l.at_round),
        e.left_at,
        "left: {ctx}"
    );
    assert_eq!(v.left.as_ref().map(|l| l.window_mean), e.left_mean, "{ctx}");
    for x in [v.window_mean, v.window_min, v.window_max, v.slope] {
        assert!(x.is_finite(), "{ctx}");
    }
}

fn rules() -> Vec<(&'static str, Rule)> {
    let fio = |kind, limit, relative, window| {
        Rule::Fio(FioRule {
            metric: FioMetric::Iops,
            kind,
            limit,
            relative,
            window,
        })
    };
    vec![
        ("snia", Rule::Snia(SniaRule::default())),
        (
            "snia unlimited",
            Rule::Snia(SniaRule {
                max_rounds: None,
                ..SniaRule::default()
            }),
        ),
        (
            "snia window 10, 5 %",
            Rule::Snia(SniaRule {
                window: 10,
                max_rounds: Some(100),
                data_excursion: 0.05,
                slope_excursion: 0.05,
            }),
        ),
        ("fio iops:10%", fio(FioKind::Deviation, 0.10, true, 5)),
        ("fio iops:300", fio(FioKind::Deviation, 300.0, false, 5)),
        ("fio iops_slope:1%", fio(FioKind::Slope, 0.01, true, 5)),
        ("fio iops_slope:50", fio(FioKind::Slope, 50.0, false, 30)),
    ]
}

// ---------------------------------------------------------------------------------------------------------
// Tests.

#[test]
fn oracle_agrees_on_every_fixture_and_rule() {
    // Verdicts seen: reached, left, gave up, undecided (so that the agreement is not vacuous).
    let mut seen = [0usize; 4];
    for (name, series) in fixtures() {
        let y = read_iops(&to_csv(&series));
        assert_eq!(y, series, "{name}: the CSV round trip is exact");
        for (rname, rule) in rules() {
            for drop in [None, Some(0.2)] {
                let leave = drop.map(|d| LeaveRule { drop: d });
                let v = evaluate(&rule, leave, &y).unwrap();
                let e = oracle(&rule, drop, &y);
                assert_agrees(&format!("{name} / {rname} / leave {drop:?}"), &v, &e);
                seen[0] += usize::from(v.reached);
                seen[1] += usize::from(v.left.is_some());
                seen[2] += usize::from(v.gave_up);
                seen[3] += usize::from(!v.reached && !v.gave_up);
                assert_eq!(v.rounds_seen, y.len());
                // Round by round, the detector reaches the same verdict at the same round.
                let mut d = SteadyDetector::new(rule, leave).unwrap();
                let mut first_reached = None;
                for (k, &x) in y.iter().enumerate() {
                    let so_far = d.push(x);
                    assert_eq!(so_far.is_some(), k + 1 >= rule.window(), "{name}/{rname}");
                    if so_far.is_some_and(|s| s.reached) && first_reached.is_none() {
                        first_reached = Some(k);
                    }
                }
                assert_eq!(first_reached, e.at_round, "{name} / {rname}: detector");
                assert_eq!(d.verdict(), v, "{name} / {rname}: detector = evaluate");
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n >= 5),
        "verdicts reached/left/gave up/undecided: {seen:?}"
    );
}

fn snia(y: &[f64]) -> Verdict {
    evaluate(&Rule::Snia(SniaRule::default()), None, y).unwrap()
}

#[test]
fn flat_by_hand() {
    // 30 rounds of 20000: the first window (rounds 0..=4) has mean 20000, range 0, slope 0 → steady at
    // round 4, the 5th round.
    let v = snia(&fixtures()[0].1);
    assert!(v.reached);
    assert_eq!((v.at_round, v.at_round_number), (Some(4), Some(5)));
    assert_eq!((v.window_mean, v.slope), (20000.0, 0.0));
    assert_eq!(
        (v.data_excursion, v.slope_excursion),
        (Some(0.0), Some(0.0))
    );
}

#[test]
fn noisy_within_limits_by_hand() {
    // Rounds 0..=4: 8000, 8320, 7680, 8160, 7840. Mean 40000/5 = 8000; range 8320 − 7680 = 640 = 8 %
    // (≤ 20 %). Textbook fit: Σx = 10, Σy = 40000, Σx² = 30,
    // Σxy = 0 + 8320 + 15360 + 24480 + 31360 = 79520; slope = (5·79520 − 10·40000)/(5·30 − 100)
    // = (397600 − 400000)/50 = −48 per round; line excursion 48 × 4 = 192 = 2.4 % (≤ 10 %).
    // Steady at round 4.
    let v = snia(&fixtures()[1].1);
    assert_eq!(v.at_round, Some(4));
    assert_eq!(
        (v.window_mean, v.window_min, v.window_max),
        (8000.0, 7680.0, 8320.0)
    );
    assert_eq!(v.slope, -48.0);
    assert_eq!(v.data_excursion, Some(0.08));
    assert_eq!(v.slope_excursion, Some(0.024));
}

#[test]
fn slow_drift_passes_range_but_fails_slope() {
    // y = 10000 × 1.03^k: every window is the same shape a·(1, r, r², r³, r⁴), r = 1.03, so the ratios
    // are the same everywhere: mean a·5.30913581/5 = 1.061827162·a; range 0.12550881·a → 11.82 % (passes
    // 20 %); slope a·(−2 − 1.03 + 1.092727 + 2·1.12550881)/10 = 0.031374462·a, excursion ×4 → 11.82 %
    // (fails 10 %). Never steady; SNIA gives up after round 25 (index 24), describing rounds 20..=24.
    let v = snia(&fixtures()[2].1);
    assert!(!v.reached && v.gave_up);
    assert_eq!((v.window_first_round, v.window_rounds), (20, 5));
    let d = v.data_excursion.unwrap();
    let s = v.slope_excursion.unwrap();
    assert!((d - 0.12550881 / 1.061827162).abs() < 1e-9, "{d}");
    assert!((s - 4.0 * 0.031374462 / 1.061827162).abs() < 1e-9, "{s}");
    assert!(d <= 0.2 && s > 0.1);
}

#[test]
fn cliff_then_plateau_by_hand() {
    // 40000, 36000, 31000, 25000, 18000, 11000, 6000, 5200, 5000, 4900, 5100, 5000, …
    // Window 6..=10 (6000, 5200, 5000, 4900, 5100): mean 26200/5 = 5240, range 1100 > 0.2 × 5240 = 1048:
    // not steady. Window 7..=11 (5200, 5000, 4900, 5100, 5000): mean 25200/5 = 5040, range 300 ≤ 1008;
    // centred fit Σ (i − 2)·y = −10400 − 5000 + 0 + 5100 + 10000 = −300, slope −300/10 = −30,
    // excursion 120 ≤ 504. Steady at round 11, the 12th round, after the cliff.
    let v = snia(&fixtures()[3].1);
    assert_eq!((v.at_round, v.at_round_number), (Some(11), Some(12)));
    assert_eq!((v.window_first_round, v.window_mean), (7, 5040.0));
    assert_eq!(
        (v.window_min, v.window_max, v.slope),
        (4900.0, 5200.0, -30.0)
    );
    assert_eq!(v.data_excursion, Some(300.0 / 5040.0));
    assert_eq!(v.slope_excursion, Some(120.0 / 5040.0));
}

#[test]
fn seed_000_is_steady_only_after_the_cliff() {
    // Per-second rounds: the chaos of the first 700 s never passes (range ≥ 15000 against 20 % of a mean
    // below 40000); the plateau's ±4 % noise gives a range ≤ 8.2 % and a line excursion ≤ 9.6 %, so the
    // first window entirely after the cliff (rounds 700..=704) is steady, and no window across it is.
    let y = &fixtures()[4].1;
    let unlimited = Rule::Snia(SniaRule {
        max_rounds: None,
        ..SniaRule::default()
    });
    let v = evaluate(&unlimited, Some(LeaveRule { drop: 0.2 }), y).unwrap();
    assert_eq!(v.at_round, Some(704));
    assert!(v.left.is_none(), "the plateau holds to the end");
    assert!((v.window_mean - 5000.0).abs() < 200.0);
    // With SNIA's 25 rounds of one second each, the chaos is all it sees.
    let v = snia(y);
    assert!(!v.reached && v.gave_up && v.rounds_seen == 2000);
}

#[test]
fn plateau_then_drop_by_hand() {
    // 8 rounds of 10000, then 6000. Steady at round 4 with mean 10000; threshold (1 − 0.2) × 10000 = 8000.
    // Trailing 5-round means: round 8: (4·10000 + 6000)/5 = 9200; 9: (3·10000 + 2·6000)/5 = 8400;
    // 10: (2·10000 + 3·6000)/5 = 7600 < 8000 → left at round 10 (the 11th), a fall of 24 %.
    let v = evaluate(
        &Rule::Snia(SniaRule::default()),
        Some(LeaveRule { drop: 0.2 }),
        &fixtures()[5].1,
    )
    .unwrap();
    assert_eq!(v.at_round, Some(4));
    let l = v.left.expect("left steady state");
    assert_eq!((l.at_round, l.at_round_number), (10, 11));
    assert_eq!(
        (l.window_mean, l.steady_mean, l.threshold),
        (7600.0, 10000.0, 8000.0)
    );
    assert_eq!(l.fall, Some(0.24));
    // Throttling: steady early at ~12000, left a few rounds after the drop to ~7000 at round 60.
    let v = evaluate(
        &Rule::Snia(SniaRule::default()),
        Some(LeaveRule { drop: 0.2 }),
        &fixtures()[6].1,
    )
    .unwrap();
    assert_eq!(v.at_round, Some(4));
    let at = v.left.unwrap().at_round;
    assert!((61..=63).contains(&at), "left at {at}");
}

#[test]
fn shorter_than_the_window_by_hand() {
    // 900, 1000, 1100: never judged. Partial window: mean 1000, range 200 → 20 %; slope 100 per round,
    // excursion 100 × 2 = 200 → 20 %.
    let v = snia(&fixtures()[7].1);
    assert!(!v.reached && !v.gave_up);
    assert_eq!((v.window_rounds, v.rounds_seen), (3, 3));
    assert_eq!((v.window_mean, v.slope), (1000.0, 100.0));
    assert_eq!(
        (v.data_excursion, v.slope_excursion),
        (Some(0.2), Some(0.2))
    );
}

#[test]
fn max_rounds_exceeded() {
    // Chaos for 30 rounds, then a plateau: SNIA's 25 rounds end in the chaos; without the limit the first
    // window after it (rounds 30..=34) is steady.
    let y = &fixtures()[8].1;
    let v = snia(y);
    assert!(!v.reached && v.gave_up);
    assert_eq!((v.window_first_round, v.rounds_seen), (20, 50));
    let unlimited = Rule::Snia(SniaRule {
        max_rounds: None,
        ..SniaRule::default()
    });
    assert_eq!(evaluate(&unlimited, None, y).unwrap().at_round, Some(34));
}
