//! The flushes of a sum (finding of the newcomer trial: the aggregate of a run on several targets, and
//! `wkrun merge` of several folders, counted the flushes but had no flush latency): the sum's flush
//! latency is its parts' merged as a direction's, from their flush histograms added, checked here against
//! an oracle made of the parts' own figures; and `validate` refuses an aggregate whose flush latency is not
//! its targets' merged.

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// 256 random buffered 4 KiB writes on each target, an fsync after every 4: 64 flushes each.
const SPEC: &str = r#"[[phase]]
name = "m"
kind = "workload"
engine = "psync"
block_size = "4KiB"
read_percent = 0
size = "1MiB"
direct = false
fsync = 4
"#;

/// `x` and `y` agree to 12 significant digits (a mean or a standard deviation summed in another order).
fn near(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
}

/// Checks the sum `m` (a results file: an aggregate or a merge) of `parts`' phase 0 flushes: the count
/// added, the histogram the parts' added, min and max exact, the mean weighted by flushes, the pooled
/// standard deviation, and every percentile read from the added histogram.
fn check_flushes(m: &Value, parts: &[Value]) {
    let fl = |r: &Value| r["phases"][0]["sync"]["flushes"].clone();
    let ops: Vec<u64> = parts.iter().map(|p| u(&fl(p), "/ops")).collect();
    assert_eq!(ops, [64, 64], "256 writes / 4 on each target");
    let n: u64 = ops.iter().sum();
    let f = fl(m);
    assert_eq!(u(&f, "/ops"), n);
    assert_eq!(
        (f["call"].as_str(), u(&f, "/every_writes")),
        (Some("fsync"), 4)
    );
    let mut sum: BTreeMap<u64, u64> = BTreeMap::new();
    for p in parts {
        let own = buckets_of(&p["phases"][0]["latency_histograms"]["flush"]);
        assert_eq!(own.values().sum::<u64>(), u(&fl(p), "/ops"), "{own:?}");
        for (v, c) in own {
            *sum.entry(v).or_default() += c;
        }
    }
    assert_eq!(
        buckets_of(&m["phases"][0]["latency_histograms"]["flush"]),
        sum
    );
    let lat = |r: &Value, k: &str| r["latency_ns"][k].as_f64().expect(k);
    let min = parts.iter().map(|p| u(&fl(p), "/latency_ns/min")).min();
    let max = parts.iter().map(|p| u(&fl(p), "/latency_ns/max")).max();
    let (min, max) = (min.expect("min"), max.expect("max"));
    assert_eq!(
        (u(&f, "/latency_ns/min"), u(&f, "/latency_ns/max")),
        (min, max)
    );
    let (mut sx, mut sxx) = (0.0, 0.0);
    for (p, &c) in parts.iter().zip(&ops) {
        let (mean, sd) = (lat(&fl(p), "mean"), lat(&fl(p), "stddev"));
        sx += c as f64 * mean;
        sxx += c as f64 * (sd * sd + mean * mean);
    }
    let mean = sx / n as f64;
    let sd = (sxx / n as f64 - mean * mean).sqrt();
    assert!(near(lat(&f, "mean"), mean), "{} vs {mean}", lat(&f, "mean"));
    assert!(near(lat(&f, "stddev"), sd), "{} vs {sd}", lat(&f, "stddev"));
    for (key, q) in [
        ("p50", 50.0),
        ("p90", 90.0),
        ("p99", 99.0),
        ("p99_9", 99.9),
        ("p99_99", 99.99),
    ] {
        let want = percentile(&sum, q, min, max);
        assert_eq!(f["latency_ns"][key].as_u64(), Some(want), "{key}");
    }
}

/// The run on two file targets, its aggregate `out` and the targets' results files, read.
fn two_flushing_targets(d: &Path) -> (Value, Vec<Value>, Vec<String>) {
    let (a, b) = (d.join("a.img"), d.join("b.img"));
    sparse_file(&a, 16 << 20);
    sparse_file(&b, 16 << 20);
    let out = run_two_targets(d, "flushes", SPEC, (&a, &b), "out");
    let m = results(&out);
    let folders: Vec<String> = (m["cluster"]["hosts"].as_array().expect("hosts").iter())
        .map(|h| {
            // As given on the command line: relative to the run's folder, `d`.
            let f = d.join(h["results"].as_str().expect("results"));
            f.parent()
                .expect("folder")
                .to_str()
                .expect("utf-8")
                .to_string()
        })
        .collect();
    let parts = folders.iter().map(|f| results(Path::new(f))).collect();
    (m, parts, folders)
}

/// `folder`'s results.json with `f` applied.
fn edit(folder: &Path, f: impl Fn(&mut Value)) {
    let file = folder.join("results.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("json");
    f(&mut v);
    std::fs::write(&file, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
}

/// The aggregate of two targets flushing every 4 writes: 128 flushes, their latency the targets' merged;
/// `wkrun merge` of the two targets' folders the same.
#[test]
fn the_sum_of_two_targets_has_their_flush_latency_merged() {
    let t = tempdir();
    let d = t.path();
    let (m, parts, folders) = two_flushing_targets(d);
    check_flushes(&m, &parts);
    let o = wkrun(d, &["merge", &folders[0], &folders[1], "-o", "merged"]);
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    check_flushes(&results(&d.join("merged")), &parts);
    let o = wkrun(d, &["validate", "out"]);
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
}

/// `validate` merges an aggregate's targets again: a flush latency mean that is not theirs merged is
/// refused, naming the phase, the field and both values.
#[test]
fn validate_refuses_a_forged_aggregate_flush_latency() {
    let t = tempdir();
    let d = t.path();
    let (m, _, _) = two_flushing_targets(d);
    let f = &m["phases"][0]["sync"]["flushes"]["latency_ns"];
    let (mean, min) = (f["mean"].clone(), u(f, "/min"));
    // Within [min, max]: only the merge again can tell.
    let forged = Value::from(min as f64 + 0.5);
    assert_ne!(forged, mean);
    edit(&d.join("out"), |v| {
        v["phases"][0]["sync"]["flushes"]["latency_ns"]["mean"] = forged.clone()
    });
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", "out"]));
    // Below what the merged flush histogram holds too: [Σ value·count / n less 1/1024 and 1 ns, Σ value·count / n].
    let pairs = buckets_of(&m["phases"][0]["latency_histograms"]["flush"]);
    let n: u64 = pairs.values().sum();
    let sum: u128 = pairs
        .iter()
        .map(|(&v, &c)| u128::from(v) * u128::from(c))
        .sum();
    let high = sum as f64 / n as f64;
    let want = format!(
        "error: out/results.json holds figures that cannot be true (1 place):\n  phases[0].sync.flushes.latency_ns.mean: {forged} is outside what its histogram holds: its {n} latencies' mean lies from {} to {high} ns\nerror: out/results.json: phase 0 \"m\": sync.flushes.latency_ns.mean {forged} is not what merging its targets' phases makes, {mean}: an aggregate's phase is its targets' phases merged\n",
        high * (1.0 - 1.0 / 1024.0) - 1.0
    );
    assert_eq!((c, out.as_str(), e.as_str()), (2, "", want.as_str()));
}

/// A target's flush histogram holds its flushes: one more in its first bucket is refused by `validate`
/// of that folder alone, naming the field and both counts.
#[test]
fn a_flush_histogram_holds_the_phase_s_flushes() {
    let t = tempdir();
    let d = t.path();
    let (_, _, folders) = two_flushing_targets(d);
    edit(&d.join(&folders[0]), |v| {
        let c = &mut v["phases"][0]["latency_histograms"]["flush"][0][1];
        *c = (c.as_u64().expect("count") + 1).into();
    });
    let (c, out, e) = code_out_err(&wkrun(d, &["validate", &folders[0]]));
    let want = format!(
        "error: {}/results.json holds figures that cannot be true (1 place):\n  phases[0].latency_histograms.flush: holds 65 latencies, not sync.flushes.ops 64\n",
        folders[0]
    );
    assert_eq!((c, out.as_str(), e.as_str()), (2, "", want.as_str()));
}
