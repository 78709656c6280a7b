//! Attack 28 F1 and F2: what `wkrun validate` holds of a results file beyond its phases' own sums. Each of
//! `workers[]` by the rules of its phase and of a merged phase's parts (its rates, latency order, max, time,
//! its share of the bound); a phase's counts against its rate cap and think time; the run's and its phases'
//! times one after another. Real runs on a 16 MiB file, then forged copies: each refused naming its JSON
//! path, exit 2; the runs as written validate.

use crate::common::*;
use crate::validate_results::{a_file_run, tampered as forged, validates};
use serde_json::Value;
use std::path::Path;

/// `wkrun validate FILE` for each case: exit 2, nothing on stdout, and exactly the places given on stderr.
fn refused(d: &Path, cases: Vec<(String, Vec<String>)>) {
    for (file, places) in cases {
        let n = places.len();
        let s = if n == 1 { "" } else { "s" };
        let mut want = format!("error: {file} holds figures that cannot be true ({n} place{s}):\n");
        for p in &places {
            want.push_str(&format!("  {p}\n"));
        }
        crate::validate_results::refused_by(d, &["validate", &file], &want);
    }
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

fn n(v: &Value) -> u64 {
    v.as_u64().expect("a count")
}

/// Worker `k`'s direction `dir` given `ops` I/Os of `bytes` B, its rates theirs over the phase's time (as a
/// forger who knows the rate rule writes them).
fn set_counts(v: &mut Value, k: usize, dir: &str, ops: u64, bytes: u64) {
    let secs = f(&v["phases"][0]["duration_s"]);
    let d = &mut v["phases"][0]["workers"][k][dir];
    d["ops"] = ops.into();
    d["bytes"] = bytes.into();
    d["iops"] = (ops as f64 / secs).into();
    d["bw_bytes_per_s"] = (bytes as f64 / secs).into();
}

/// F1: a worker's own figures, by the rules its phase and a merged phase's parts are held to: its rates
/// over the phase's duration_s, a duration past the phase's or of 0 s with I/Os, percentiles out of order,
/// a max above the phase's; two psync workers for 1 s.
#[test]
fn a_worker_s_own_figures_are_held_as_its_phase_s_are() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nworkers = 2\nblock_size = \"4KiB\"\nread_percent = 50\nduration = \"1s\"\n";
    a_file_run(d, "w", body);
    validates(d, "r");
    let v = results(&d.join("r"));
    let p = &v["phases"][0];
    let w = &p["workers"][0];
    let secs = f(&p["duration_s"]);
    let ops = n(&w["read"]["ops"]);
    let all = ops + n(&w["write"]["ops"]);
    let iops = f(&w["read"]["iops"]) + 400.0;
    let p90 = n(&w["read"]["latency_ns"]["p90"]);
    let max = n(&p["read"]["latency_ns"]["max"]);
    let at = "phases[0].workers[0]";
    let cases = vec![
        (
            forged(d, "w_iops", |v| {
                v["phases"][0]["workers"][0]["read"]["iops"] = iops.into()
            }),
            vec![format!(
                "{at}.read.iops: {iops} is not ops / the phase's duration_s = {ops} / {secs} = {}",
                ops as f64 / secs
            )],
        ),
        (
            forged(d, "w_long", |v| {
                v["phases"][0]["workers"][0]["duration_s"] = 50.0.into()
            }),
            vec![format!(
                "{at}.duration_s: 50 s is longer than the phase's duration_s {secs} s, which ends at its last completion"
            )],
        ),
        (
            forged(d, "w_zero", |v| {
                v["phases"][0]["workers"][0]["duration_s"] = 0.0.into()
            }),
            vec![format!(
                "{at}.duration_s: 0 s for {all} I/Os: each completes some time after the phase's start, the last at duration_s"
            )],
        ),
        (
            forged(d, "w_p50", |v| {
                v["phases"][0]["workers"][0]["read"]["latency_ns"]["p50"] = 1_000_000_000u64.into()
            }),
            vec![format!(
                "{at}.read.latency_ns.p90: {p90} is below p50 1000000000"
            )],
        ),
        (
            forged(d, "w_max", |v| {
                v["phases"][0]["workers"][0]["read"]["latency_ns"]["max"] =
                    (max + 10_000_000_000).into()
            }),
            vec![format!(
                "{at}.read.latency_ns.max: {} is above the phase's read.latency_ns.max {max}: each of its I/Os is one of the phase's",
                max + 10_000_000_000
            )],
        ),
    ];
    refused(d, cases);
}

/// F1: a fill's workers against the parts the plan deals them (3 workers, 160 blocks of 64 KiB: 54, 53
/// and 53): an I/O moved from one worker to the next (sums, rates and bytes kept) is refused at both, and
/// bytes moved so that a worker wrote past its part at that one.
#[test]
fn a_fill_worker_does_its_dealt_part() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nworkers = 3\nblock_size = \"64KiB\"\nspan = \"10MiB\"\n";
    a_file_run(d, "f", body);
    validates(d, "r");
    let v = results(&d.join("r"));
    let parts: Vec<(u64, u64)> = (v["phases"][0]["params"]["worker_parts"].as_array())
        .expect("parts")
        .iter()
        .map(|p| (n(&p["ops"]), n(&p["span_bytes"])))
        .collect();
    assert_eq!(parts, [(54, 3538944), (53, 3473408), (53, 3473408)]);
    let b = 65536;
    let shift = forged(d, "shift", |v| {
        set_counts(v, 0, "write", 53, 53 * b);
        set_counts(v, 1, "write", 54, 54 * b);
    });
    let bytes = forged(d, "bytes", |v| {
        set_counts(v, 0, "write", 54, 53 * b);
        set_counts(v, 1, "write", 53, 54 * b);
    });
    let all = "all of it in a phase that ran to its bound without a failed I/O";
    let cases = vec![
        (
            shift,
            vec![
                format!("phases[0].workers[0]: read.ops + write.ops = 53 I/Os, not its share of the phase's bound, params.worker_parts[0].ops 54: {all}"),
                format!("phases[0].workers[1]: read.ops + write.ops = 54 I/Os, not its share of the phase's bound, params.worker_parts[1].ops 53: {all}"),
            ],
        ),
        (
            bytes,
            vec!["phases[0].workers[1].write.bytes: 3538944 B written, more than params.passes 1 × its part params.worker_parts[1].span_bytes 3473408 = 3473408 B: a fill's worker writes its part only".to_string()],
        ),
    ];
    refused(d, cases);
}

/// The most I/Os an evenly spaced cap of `rate` lets a phase of `secs` issue: the n-th (from 0) no sooner
/// than n / rate s, and complete within `secs` (2 ns for rounding).
fn cap_most(rate: u64, secs: f64) -> u128 {
    ((secs * 1e9).ceil() as u128 + 2) * u128::from(rate) / 1_000_000_000 + 1
}

/// F2: counts a phase's schedule cannot give. A cap (total, after a ramp, over two workers; per direction)
/// forged far below what ran; think times none, twice the bursts, or more than fit in the phase's time.
/// The real run (evenly spaced and Poisson caps, think time) validates.
#[test]
fn counts_past_a_cap_or_think_times_the_bursts_cannot_have_are_refused() {
    let t = tempdir();
    let d = t.path();
    let w = "kind = \"workload\"\nread_percent = 50\nduration = \"1s\"";
    let body = format!(
        "[defaults]\nblock_size = \"4KiB\"\n\
        [[phase]]\nname = \"capped\"\n{w}\nworkers = 2\nrate_iops = 200\nramp = \"300ms\"\n\
        [[phase]]\nname = \"dirs\"\n{w}\nrate_iops = {{ read = 100, write = 50 }}\n\
        [[phase]]\nname = \"poisson\"\n{w}\nrate_iops = 300\nrate_process = \"poisson\"\n\
        [[phase]]\nname = \"think\"\n{w}\nengine = \"libaio\"\nqueue_depth = 2\nthink_time = \"2ms\"\nthink_every = 4\n"
    );
    a_file_run(d, "s", &body);
    validates(d, "r");
    let v = results(&d.join("r"));
    let ph = |i: usize| &v["phases"][i];
    // The caps held: at most what they allow (evenly spaced, within a part in 10 for Poisson's draw).
    assert!(u128::from(n(&ph(0)["total"]["ops"])) <= cap_most(200, f(&ph(0)["duration_s"])));
    assert!(u128::from(n(&ph(1)["read"]["ops"])) <= cap_most(100, f(&ph(1)["duration_s"])));
    assert!(u128::from(n(&ph(1)["write"]["ops"])) <= cap_most(50, f(&ph(1)["duration_s"])));
    let (ops0, secs0) = (n(&ph(0)["total"]["ops"]), f(&ph(0)["duration_s"]));
    let (reads1, secs1) = (n(&ph(1)["read"]["ops"]), f(&ph(1)["duration_s"]));
    let think = ph(3);
    let (t_ops, t_secs) = (n(&think["total"]["ops"]), f(&think["duration_s"]));
    let thinks = n(&think["arrivals"]["think_periods"]);
    // One thread (libaio) thinks before each burst of 4 but its first.
    let bursts = t_ops.div_ceil(4);
    assert!(
        (bursts - 1..=bursts).contains(&thinks),
        "{thinks} think times for {t_ops} I/Os"
    );
    let even = "the n-th, from 0, issued no sooner than n / cap s and completed within duration_s";
    let of = format!("total.ops {t_ops} in bursts of params.think_every 4, by 1 issuing thread(s)");
    let fit = (t_secs * 1e9) as u128 / 2_000_000 + 1;
    let at = "phases[3].arrivals.think_periods";
    let cases = vec![
        (
            forged(d, "cap_total", |v| {
                v["phases"][0]["params"]["rate_iops"] = serde_json::json!({"total": 1})
            }),
            vec![format!(
                "phases[0].total.ops: {ops0} I/Os in duration_s {secs0} s, more than params.rate_iops.total 1/s lets the phase issue: at most {} ({even})",
                cap_most(1, secs0)
            )],
        ),
        (
            forged(d, "cap_read", |v| {
                v["phases"][1]["params"]["rate_iops"]["read"] = 1.into()
            }),
            vec![format!(
                "phases[1].read.ops: {reads1} I/Os in duration_s {secs1} s, more than params.rate_iops.read 1/s lets the phase issue: at most {} ({even})",
                cap_most(1, secs1)
            )],
        ),
        (
            forged(d, "think0", |v| {
                v["phases"][3]["arrivals"]["think_periods"] = 0.into()
            }),
            vec![format!(
                "{at}: 0 is fewer than ⌈total.ops / think_every⌉ − threads = {} for {of}: each thread thinks before each of its bursts but the first",
                bursts - 1
            )],
        ),
        (
            forged(d, "think_double", |v| {
                v["phases"][3]["arrivals"]["think_periods"] = (2 * thinks).into()
            }),
            vec![format!(
                "{at}: {} is more than ⌈(total.ops + failed I/Os) / think_every⌉ = {bursts} for {of}",
                2 * thinks
            )],
        ),
        (
            forged(d, "think_long", |v| {
                v["phases"][3]["arrivals"]["think_periods"] = bursts.into();
                v["phases"][3]["params"]["think_time_ns"] = 1_000_000_000u64.into();
            }),
            vec![format!(
                "{at}: {bursts} is more than 1 thread(s) × (⌊duration_s {t_secs} s / params.think_time_ns 1000000000 ns⌋ + 1) = {}: each think time but a thread's last lies within the phase",
                (t_secs * 1e9) as u128 / 1_000_000_000 + 1
            )],
        ),
    ];
    assert!(
        fit >= u128::from(bursts),
        "2 ms think times fit the real phase"
    );
    refused(d, cases);
}

/// F2: times that contradict each other: a phase's series starting in 1970, a phase starting halfway
/// through the one before, a run finished before its last phase ended. The run as written validates.
#[test]
fn phases_run_one_after_another_within_their_run() {
    let t = tempdir();
    let d = t.path();
    let body = "[defaults]\nblock_size = \"4KiB\"\n[[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n\
        [[phase]]\nname = \"b\"\nkind = \"workload\"\nread_percent = 100\nduration = \"1s\"\n";
    a_file_run(d, "t", body);
    validates(d, "r");
    let v = results(&d.join("r"));
    let ns = |t: &Value| wkrun::launch::parse_rfc3339(t.as_str().expect("time")).expect("rfc 3339");
    let ms = |t: u64| {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(t / 1_000_000);
        humantime::format_rfc3339_millis(at).to_string()
    };
    let end = |i: usize| {
        let p = &v["phases"][i];
        n(&p["series_t0_unix_ns"]) + (f(&p["duration_s"]) * 1e9).round() as u64
    };
    let started0 = v["phases"][0]["started_at"]
        .as_str()
        .expect("start")
        .to_string();
    let halfway = ms(ns(&v["phases"][0]["started_at"]) + 500_000_000);
    let early_end = ms(ns(&v["phases"][1]["started_at"]) + 100_000_000);
    let show = wkrun::launch::rfc3339_ns;
    let cases = vec![
        (
            forged(d, "t0_1970", |v| {
                v["phases"][0]["series_t0_unix_ns"] = 1.into()
            }),
            vec![format!(
                "phases[0].series_t0_unix_ns: 1 (1970-01-01T00:00:00.000000001Z) is before phases[0].started_at \"{started0}\": a phase's series starts after the phase does"
            )],
        ),
        (
            forged(d, "overlap", |v| {
                v["phases"][1]["started_at"] = halfway.clone().into()
            }),
            vec![format!(
                "phases[1].started_at: \"{halfway}\" is before phases[0] ended, {} (phases[0].series_t0_unix_ns + duration_s): phases run one after another on a target",
                show(end(0))
            )],
        ),
        (
            forged(d, "early_end", |v| {
                v["finished_at"] = early_end.clone().into()
            }),
            vec![format!(
                "finished_at: \"{early_end}\" is before phases[1] ended, {} (phases[1].series_t0_unix_ns + duration_s): a run ends after its last phase does",
                show(end(1))
            )],
        ),
    ];
    refused(d, cases);
}

/// Trial 29 M1: each worker draws its directions from a stream of its own, exactly `read_percent` reads in
/// each 100 of it; 200 reads moved from worker 1 to worker 0 and 200 writes back (each worker's I/Os, the
/// phase's counts and every rate kept) passed, the phase's share being right. Two psync workers at 70 %
/// for 1 s: each worker's reads lie within 21 of 70 % for each of its 4 groups cut short (its stream's two
/// ends, its one thread's two), so both forged workers are refused at their `read.ops`.
#[test]
fn a_worker_s_reads_are_its_own_stream_s_exact_mix() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nworkers = 2\nblock_size = \"4KiB\"\nread_percent = 70\nduration = \"1s\"\n";
    a_file_run(d, "m", body);
    validates(d, "r");
    let v = results(&d.join("r"));
    let w = |k: usize, dir: &str| n(&v["phases"][0]["workers"][k][dir]["ops"]);
    let (r0, w0, r1, w1) = (w(0, "read"), w(0, "write"), w(1, "read"), w(1, "write"));
    let moved = 200;
    assert!(w0 >= moved && r1 >= moved, "{r0} {w0} {r1} {w1}");
    let b = 4096;
    let file = forged(d, "moved", |v| {
        set_counts(v, 0, "read", r0 + moved, (r0 + moved) * b);
        set_counts(v, 0, "write", w0 - moved, (w0 - moved) * b);
        set_counts(v, 1, "read", r1 - moved, (r1 - moved) * b);
        set_counts(v, 1, "write", w1 + moved, (w1 + moved) * b);
    });
    let place = |k: usize, reads: u64, all: u64| {
        let lo = (all as u128 * 70).saturating_sub(4 * 70 * 30).div_ceil(100);
        let hi = ((all as u128 * 70 + 4 * 70 * 30) / 100).min(u128::from(all));
        format!(
            "phases[0].workers[{k}].read.ops: params.read_percent 70 of its own stream does not give read.ops {reads} of its I/Os (read.ops + write.ops) {all}: each group of 100 I/Os of a stream in a row holds exactly 70 reads, so {all} I/Os hold {} reads give or take 21 for each of at most 4 groups cut short (2 per stream, 2 per thread sharing one, 2 per failed I/O): {lo} to {hi}",
            wkrun::units::readable_float(all as f64 * 70.0 / 100.0)
        )
    };
    refused(
        d,
        vec![(
            file,
            vec![place(0, r0 + moved, r0 + w0), place(1, r1 - moved, r1 + w1)],
        )],
    );
}

/// Attack 29 F7: two psync workers of 512 reads each in bursts of 10 take 51 think times each, 102 in all;
/// 101 and 103 passed (within ⌈1024 / 10⌉ − 2 to ⌈1024 / 10⌉). A phase without a time bound that ran to its
/// bound without a failed I/O, one thread a worker, has exactly Σ (⌈its I/Os / 10⌉ − 1): both refused.
#[test]
fn think_periods_are_exact_where_each_worker_s_counts_fix_them() {
    let t = tempdir();
    let d = t.path();
    let body = "[[phase]]\nname = \"t\"\nkind = \"workload\"\nworkers = 2\nblock_size = \"4KiB\"\nread_percent = 100\nsize = \"4MiB\"\nthink_time = \"1ms\"\nthink_every = 10\n";
    a_file_run(d, "th", body);
    validates(d, "r");
    let v = results(&d.join("r"));
    let p = &v["phases"][0];
    assert_eq!(n(&p["arrivals"]["think_periods"]), 102);
    let ops: Vec<u64> = (0..2).map(|k| n(&p["workers"][k]["read"]["ops"])).collect();
    assert_eq!(ops, [512, 512]);
    let why = "each worker's one issuing thread thinks before each of its bursts but the first, and in a phase without a time bound (params.duration_ns) that ran to its bound without a failed I/O, at no other time";
    let cases = [101u64, 103]
        .into_iter()
        .map(|k| {
            let file = forged(d, &format!("think{k}"), |v| {
                v["phases"][0]["arrivals"]["think_periods"] = k.into()
            });
            let place = format!(
                "phases[0].arrivals.think_periods: {k} is not Σ (⌈I/Os / params.think_every 10⌉ − 1) = 102 for workers[] read.ops + write.ops 512, 512: {why}"
            );
            (file, vec![place])
        })
        .collect();
    refused(d, cases);
}
