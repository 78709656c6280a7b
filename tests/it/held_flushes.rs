//! Attack 21: `wkrun validate` holds a single run's flushes to their histogram and to the engine's rule
//! (A2: a flush mean ×1.3, a p99 ×0.7, a min of 1 ns, a max + 1000 ns, a stddev ×3, the histogram's values
//! doubled, the histogram or the summary deleted, 5 flushes more, `every_writes` 8 made 4 all passed), and a
//! series CSV's rows to the phase's largest latency, to their histogram log's and to each other (A4: a row's
//! max halved, a row's `t_s` overlapping the row before, passed). Each forgery is made here on a real run
//! and its refusal named with the field and both numbers; the real runs (one target, two targets' aggregate,
//! a `wkrun merge` of two runs) pass.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// Random buffered 4 KiB reads and writes on a file for 0.3 s ([`crate::held_rows::SPEC`]), an fsync
/// after every 8 writes.
fn spec() -> String {
    format!("{}fsync = 8\n", crate::held_rows::SPEC)
}

/// The relative width of a histogram bucket at most (3 significant digits: 2,048 sub-buckets to each power
/// of two), as the bucket's lowest value is bounded independently of wkrun's code.
const BUCKET: f64 = 1.0 / 1024.0;

/// A run of [`spec`] (with `workers` workers) on a 16 MiB file in `d`; its folder.
fn flushing_run(d: &Path, workers: u32) -> std::path::PathBuf {
    let target = d.join("t.img");
    sparse_file(&target, 16 << 20);
    let body = spec().replace("fsync = 8", &format!("fsync = 8\nworkers = {workers}"));
    run_ok(d, "flushes", &body, &target)
}

/// `from`'s folder copied to `to` (in the same parent), its results.json edited by `f`.
fn forged(from: &Path, to: &str, f: impl Fn(&mut Value)) -> std::path::PathBuf {
    let dst = from.parent().expect("parent").join(to);
    std::fs::create_dir_all(&dst).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy");
    }
    let file = dst.join("results.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("json");
    f(&mut v);
    std::fs::write(&file, serde_json::to_vec_pretty(&v).expect("json")).expect("write");
    dst
}

/// `wkrun validate DIR` in `d`: its exit code and stderr.
fn validate(d: &Path, dir: &Path) -> (i32, String) {
    let (c, _, e) = code_out_err(&wkrun(d, &["validate", dir.to_str().expect("utf-8")]));
    (c, e)
}

/// Asserts `validate` refuses `dir` (exit 2) with the line `phases[0].LINE` among the places it names.
fn refused_with(d: &Path, dir: &Path, line: &str) {
    let (c, e) = validate(d, dir);
    let want = format!("\n  phases[0].{line}\n");
    assert!(c == 2 && e.contains(&want), "{c}, want {want:?} in:\n{e}");
}

/// The flush histogram's pairs of `v`'s phase 0.
fn flush_pairs(v: &Value) -> Vec<(u64, u64)> {
    (v["phases"][0]["latency_histograms"]["flush"].as_array())
        .expect("flush histogram")
        .iter()
        .map(|p| (p[0].as_u64().expect("value"), p[1].as_u64().expect("count")))
        .collect()
}

/// The lowest latency the bucket of value `v` may hold: `BUCKET` below it, less 1 ns.
fn low(v: u64) -> f64 {
    (v as f64 * (1.0 - BUCKET) - 1.0).max(0.0)
}

/// The real run passes, and its flushes are the engine's rule: ⌊write.ops / 8⌋, each in its histogram.
#[test]
fn a_real_flushing_run_passes_and_flushes_every_eighth_write() {
    let t = tempdir();
    let d = t.path();
    let out = flushing_run(d, 1);
    let r = results(&out);
    let f = &r["phases"][0]["sync"]["flushes"];
    let writes = u(&r, "/phases/0/write/ops");
    assert!(writes >= 16, "{writes} writes in 0.3 s");
    assert_eq!(u(f, "/ops"), writes / 8);
    assert_eq!(flush_pairs(&r).iter().map(|p| p.1).sum::<u64>(), writes / 8);
    let (c, e) = validate(d, &out);
    assert_eq!((c, e.as_str()), (0, ""));
}

/// Each of the attack's forgeries of the flushes' latency is refused, naming the field, the forged value
/// and what the histogram allows (computed here from the pairs, independently).
#[test]
fn forged_flush_latencies_are_refused() {
    let t = tempdir();
    let d = t.path();
    let out = flushing_run(d, 1);
    let r = results(&out);
    let l = r["phases"][0]["sync"]["flushes"]["latency_ns"].clone();
    let pairs = flush_pairs(&r);
    let n: u64 = pairs.iter().map(|p| p.1).sum();
    let at = |k: &str| format!("/phases/0/sync/flushes/latency_ns/{k}");
    let set = |k: &'static str, x: Value| {
        move |v: &mut Value| *v.pointer_mut(&at(k)).expect(k) = x.clone()
    };
    // The mean ×1.3: outside [Σ value·count / n less a bucket and 1 ns, Σ value·count / n].
    let mean = l["mean"].as_f64().expect("mean");
    let sum: u128 = pairs
        .iter()
        .map(|&(v, c)| u128::from(v) * u128::from(c))
        .sum();
    let high = sum as f64 / n as f64;
    let forged_mean = mean * 1.3;
    assert!(forged_mean > high * (1.0 + 1e-12));
    let dir = forged(&out, "mean", set("mean", forged_mean.into()));
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns.mean: {forged_mean} is outside what its histogram holds: its {n} latencies' mean lies from {} to {high} ns",
            high * (1.0 - BUCKET) - 1.0
        ),
    );
    // p99 ×0.7: not the percentile the histogram gives (the run's own, as written).
    let p99 = u(&l, "/p99");
    let forged_p99 = (p99 as f64 * 0.7) as u64;
    let dir = forged(&out, "p99", set("p99", forged_p99.into()));
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns.p99: {forged_p99} is not {p99}, the percentile of latency_histograms.flush"
        ),
    );
    // min 1 ns: not in the lowest bucket.
    let first = pairs[0].0;
    let dir = forged(&out, "min", set("min", 1.into()));
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns.min: 1 is not in its histogram's lowest bucket, {} to {first} ns",
            low(first).ceil()
        ),
    );
    // max + 1000 ns: p99.99 of fewer than 10,000 flushes is the top bucket's value clamped to the max, so it
    // moves with it; a max past the top bucket is named too.
    let (max, top) = (u(&l, "/max"), pairs[pairs.len() - 1].0);
    assert!(n < 10_000, "{n} flushes");
    let dir = forged(&out, "max", set("max", (max + 1000).into()));
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns.p99_99: {} is not {}, the percentile of latency_histograms.flush",
            u(&l, "/p99_99"),
            top.min(max + 1000)
        ),
    );
    if max + 1000 > top {
        refused_with(
            d,
            &dir,
            &format!(
                "sync.flushes.latency_ns.max: {} is not in its histogram's highest bucket, {} to {top} ns",
                max + 1000,
                low(top).ceil()
            ),
        );
    }
}

/// A stddev 5 % over the run's is more than the histogram allows (the attack's ×3 is past half the range): the refusal names the forged value and a range that
/// holds the run's own stddev, tight to the histogram's precision (within 1 % here).
#[test]
fn a_forged_flush_stddev_is_refused() {
    let t = tempdir();
    let d = t.path();
    let out = flushing_run(d, 1);
    let r = results(&out);
    let l = &r["phases"][0]["sync"]["flushes"]["latency_ns"];
    let sd = l["stddev"].as_f64().expect("stddev");
    let n = u(&r, "/phases/0/sync/flushes/ops");
    // Within half the range (a stddev past it is said by that bound alone), past the buckets' bound.
    let forged_sd = sd * 1.05 + 1.0;
    let dir = forged(&out, "sd", |v| {
        v["phases"][0]["sync"]["flushes"]["latency_ns"]["stddev"] = forged_sd.into()
    });
    let (c, e) = validate(d, &dir);
    let head = format!(
        "\n  phases[0].sync.flushes.latency_ns.stddev: {forged_sd} is outside what its histogram holds: its {n} latencies' standard deviation lies from "
    );
    let rest = e.split(&head).nth(1).unwrap_or_else(|| panic!("{c}: {e}"));
    let line = rest.lines().next().expect("line");
    let (a, b) = line
        .strip_suffix(" ns")
        .and_then(|x| x.split_once(" to "))
        .expect("a range");
    let (a, b): (f64, f64) = (a.parse().expect("low"), b.parse().expect("high"));
    assert_eq!(c, 2);
    assert!(
        a <= sd && sd <= b && b < forged_sd,
        "{a} {sd} {b} {forged_sd}"
    );
    assert!(b - a <= 0.01 * sd + 2.0, "{a} to {b} around {sd}");
}

/// The histogram deleted, the summary deleted, the histogram's values doubled: each refused, naming the field
/// and the numbers.
#[test]
fn a_flush_summary_and_its_histogram_go_together() {
    let t = tempdir();
    let d = t.path();
    let out = flushing_run(d, 1);
    let r = results(&out);
    let n = u(&r, "/phases/0/sync/flushes/ops");
    let dir = forged(&out, "nohist", |v| {
        let h = v["phases"][0]["latency_histograms"]
            .as_object_mut()
            .expect("histograms");
        h.remove("flush");
    });
    refused_with(
        d,
        &dir,
        &format!(
            "latency_histograms.flush: absent, where phases[0].sync.flushes.latency_ns summarises {n} latencies: its percentiles come from it"
        ),
    );
    let dir = forged(&out, "nosummary", |v| {
        let f = v["phases"][0]["sync"]["flushes"]
            .as_object_mut()
            .expect("flushes");
        f.remove("latency_ns");
    });
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns: absent, where latency_histograms.flush holds its {n} latencies: a summary is made of them"
        ),
    );
    // The values doubled: the run's mean is below what the doubled buckets hold.
    let pairs = flush_pairs(&r);
    let sum: u128 = pairs
        .iter()
        .map(|&(v, c)| 2 * u128::from(v) * u128::from(c))
        .sum();
    let high = sum as f64 / n as f64;
    let mean = r["phases"][0]["sync"]["flushes"]["latency_ns"]["mean"]
        .as_f64()
        .expect("mean");
    let dir = forged(&out, "doubled", |v| {
        for p in v["phases"][0]["latency_histograms"]["flush"]
            .as_array_mut()
            .expect("pairs")
        {
            p[0] = (2 * p[0].as_u64().expect("value")).into();
        }
    });
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns.mean: {mean} is outside what its histogram holds: its {n} latencies' mean lies from {} to {high} ns",
            high * (1.0 - BUCKET) - 1.0
        ),
    );
}

/// The count held to the plan and the writes: 5 flushes more (in the histogram too), `every_writes` 4 where
/// the plan says 8, the call changed; with two workers, a worker's flushes not ⌊its writes / 8⌋.
#[test]
fn forged_flush_counts_are_refused() {
    let t = tempdir();
    let d = t.path();
    let out = flushing_run(d, 1);
    let r = results(&out);
    let (w, n) = (
        u(&r, "/phases/0/write/ops"),
        u(&r, "/phases/0/sync/flushes/ops"),
    );
    let dir = forged(&out, "more", |v| {
        let c = &mut v["phases"][0]["latency_histograms"]["flush"][0][1];
        *c = (c.as_u64().expect("count") + 5).into();
        let o = &mut v["phases"][0]["sync"]["flushes"]["ops"];
        *o = (o.as_u64().expect("ops") + 5).into();
    });
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.ops: {} is not ⌊write.ops / every_writes⌋ = ⌊{w} / 8⌋ = {}: a worker flushes after each 8-th of its completed writes",
            n + 5,
            w / 8
        ),
    );
    let dir = forged(&out, "every", |v| {
        v["phases"][0]["sync"]["flushes"]["every_writes"] = 4.into()
    });
    refused_with(
        d,
        &dir,
        "sync.flushes.every_writes: 4 is not params.fsync 8, the writes per flush its plan gives",
    );
    let dir = forged(&out, "call", |v| {
        v["phases"][0]["sync"]["flushes"]["call"] = "fdatasync".into()
    });
    refused_with(
        d,
        &dir,
        "sync.flushes.call: \"fdatasync\" is not \"fsync\", the call params.fsync plans",
    );
    // Two workers: each one's flushes are ⌊its writes / 8⌋, and the run passes.
    let t2 = tempdir();
    let out2 = flushing_run(t2.path(), 2);
    let r2 = results(&out2);
    let ws = r2["phases"][0]["workers"]
        .as_array()
        .expect("workers")
        .clone();
    let shares: Vec<u64> = ws.iter().map(|w| u(w, "/write/ops") / 8).collect();
    let counted: Vec<u64> = ws.iter().map(|w| u(w, "/flushes")).collect();
    assert_eq!(counted, shares);
    assert_eq!(
        u(&r2, "/phases/0/sync/flushes/ops"),
        shares.iter().sum::<u64>()
    );
    assert_eq!(validate(t2.path(), &out2), (0, String::new()));
    // One flush moved from worker 1 to worker 0: the sum holds, worker 0's share does not.
    let w0 = u(&ws[0], "/write/ops");
    let dir = forged(&out2, "moved", |v| {
        let a = &mut v["phases"][0]["workers"][0]["flushes"];
        *a = (a.as_u64().expect("flushes") + 1).into();
        let b = &mut v["phases"][0]["workers"][1]["flushes"];
        *b = (b.as_u64().expect("flushes") - 1).into();
    });
    refused_with(
        t2.path(),
        &dir,
        &format!(
            "workers[0].flushes: {} is not ⌊workers[0].write.ops / every_writes⌋ = ⌊{w0} / 8⌋ = {}",
            shares[0] + 1,
            shares[0]
        ),
    );
}

/// The aggregate of two targets flushing every 8 writes and a `wkrun merge` of two runs pass; a merge's
/// flush mean forged past its histogram is refused (no hosts' folders needed).
#[test]
fn sums_of_flushing_runs_pass_and_a_merged_flush_mean_is_held() {
    let t = tempdir();
    let d = t.path();
    let (a, b) = (d.join("a.img"), d.join("b.img"));
    sparse_file(&a, 16 << 20);
    sparse_file(&b, 16 << 20);
    let agg = run_two_targets(d, "flushes", &spec(), (&a, &b), "agg");
    assert_eq!(validate(d, &agg), (0, String::new()));
    let folders: Vec<String> = (results(&agg)["cluster"]["hosts"].as_array())
        .expect("hosts")
        .iter()
        .map(|h| {
            let f = d.join(h["results"].as_str().expect("results"));
            f.parent().expect("folder").display().to_string()
        })
        .collect();
    let o = wkrun(d, &["merge", &folders[0], &folders[1], "-o", "merged"]);
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    let merged = d.join("merged");
    assert_eq!(validate(d, &merged), (0, String::new()));
    let m = results(&merged);
    let pairs = flush_pairs(&m);
    let n: u64 = pairs.iter().map(|p| p.1).sum();
    assert_eq!(n, u(&m, "/phases/0/sync/flushes/ops"));
    let sum: u128 = pairs
        .iter()
        .map(|&(v, c)| u128::from(v) * u128::from(c))
        .sum();
    let high = sum as f64 / n as f64;
    let forged_mean = high * 2.0;
    let dir = forged(&merged, "merged-mean", |v| {
        v["phases"][0]["sync"]["flushes"]["latency_ns"]["mean"] = forged_mean.into()
    });
    refused_with(
        d,
        &dir,
        &format!(
            "sync.flushes.latency_ns.mean: {forged_mean} is outside what its histogram holds: its {n} latencies' mean lies from {} to {high} ns",
            high * (1.0 - BUCKET) - 1.0
        ),
    );
}

/// `library add` of a run whose flush mean is forged is refused, and nothing is added.
#[test]
fn the_library_refuses_a_forged_flush_mean() {
    let t = tempdir();
    let d = t.path();
    let out = flushing_run(d, 1);
    let dir = forged(&out, "lib-mean", |v| {
        let m = &mut v["phases"][0]["sync"]["flushes"]["latency_ns"]["mean"];
        *m = (m.as_f64().expect("mean") * 1.3).into();
    });
    let o = wkrun(
        d,
        &[
            "library",
            "add",
            dir.to_str().expect("utf-8"),
            "--library",
            "lib.sqlite",
        ],
    );
    let (c, _, e) = code_out_err(&o);
    assert!(
        c == 2 && e.contains("phases[0].sync.flushes.latency_ns.mean: "),
        "{c}: {e}"
    );
    assert!(!d.join("lib.sqlite").exists(), "a library file was made");
}
