//! Figures no fio run reports, found in one job's JSON report (attack 19 F3): rates that disagree with the
//! job's own counts and runtime, a latency mean outside its min and max, a percentile far past them, a
//! total latency (`lat`, submission included) below its completion latency
//! (`clat`), bytes without I/Os, and a `sync` block without its latency. Each rule is fio 3.x's own
//! arithmetic, measured on real fio 3.33 reports (tests/data/fio and tests/it/fio_json.rs), so that a report
//! fio wrote passes and a hand-edited one that `compare` would put in its composite does not.
//!
//! The counts and rates are read as well formed already ([`super::json`]): these rules compare them.

use serde_json::{Map, Value};

/// The most a percentile of fio's may pass its exact max (or fall below its exact min), relative: fio
/// reports a percentile as the middle of its histogram bucket, 64 buckets to each power of two
/// (`FIO_IO_U_PLAT_BITS` = 6), so a bucket spans at most 1/64 of its values. Measured on fio 3.33 reports:
/// at most 0.43 % above the max.
const BUCKET: f64 = 1.0 / 64.0;

/// fio writes its rates with six decimals (`%f`): a rate it computed is within this of the exact one.
const PRINTED: f64 = 1e-5;

/// `o`'s field `k` as a number (read as well formed before), or 0.
fn f(o: &Map<String, Value>, k: &str) -> f64 {
    o.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// `o`'s field `k` as a count (read as well formed before), or 0.
fn n(o: &Map<String, Value>, k: &str) -> u64 {
    o.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// The checks of one job `j` (named `job`, as `jobs[3]`): each direction that moves data, then its `sync`
/// block.
///
/// # Errors
/// The first figure no fio run reports, naming the job, the key and the rule.
pub fn check(job: &str, j: &Map<String, Value>) -> Result<(), String> {
    for d in ["read", "write", "trim"] {
        if let Some(o) = j.get(d).and_then(Value::as_object) {
            let job_ms = j.get("job_runtime").and_then(Value::as_u64);
            direction(o, job_ms).map_err(|e| format!("{job}.{d}{e}"))?;
        }
    }
    if let Some(o) = j.get("sync").and_then(Value::as_object) {
        let Some(lat) = o.get("lat_ns").and_then(Value::as_object) else {
            return Err(format!(
                "{job}.sync has no lat_ns: fio's sync block always has one (its count, N, is the syncs it timed)"
            ));
        };
        block(lat).map_err(|e| format!("{job}.sync.lat_ns{e}"))?;
        // fio's sync total_ios counts its fsync(2) calls alone, N every sync it timed (fdatasync too).
        if lat.contains_key("N") && n(o, "total_ios") > n(lat, "N") {
            return Err(format!(
                "{job}.sync.total_ios is {}: more than the {} syncs fio timed (lat_ns.N), which include its fsync calls",
                n(o, "total_ios"),
                n(lat, "N")
            ));
        }
    }
    Ok(())
}

/// A direction's `runtime` against its job's `job_runtime` (both ms): fio's job_runtime is the job's (a
/// group's jobs' summed), a direction's runtime at most it, but for fio rounding each down to the ms on
/// its own (measured: runtime 1002 beside job_runtime 1001). Attack 20: a runtime 100 times its job's
/// passed, and compare read its IOPS 99 % lower.
fn runtimes(o: &Map<String, Value>, job_ms: Option<u64>) -> Result<(), String> {
    match job_ms {
        Some(j) if j > 0 && n(o, "runtime") > j + 1 => Err(format!(
            ".runtime is {} ms: longer than its job's job_runtime, {j} ms",
            n(o, "runtime")
        )),
        _ => Ok(()),
    }
}

/// One direction's rates against its counts and its job's runtime (`job_ms`), and its latency blocks.
fn direction(o: &Map<String, Value>, job_ms: Option<u64>) -> Result<(), String> {
    let (ios, bytes, runtime) = (n(o, "total_ios"), n(o, "io_bytes"), n(o, "runtime"));
    if ios == 0 && bytes > 0 {
        return Err(format!(
            ".total_ios is 0 beside io_bytes {bytes}: bytes move in I/Os"
        ));
    }
    runtimes(o, job_ms)?;
    rate(o, "iops", ios, runtime, PRINTED)?;
    // bw_bytes is a whole number, fio's integer division of io_bytes × 1000 by the runtime.
    rate(o, "bw_bytes", bytes, runtime, 1.0)?;
    // fio's bw (KiB/s) is its bw_bytes over 1024, rounded down.
    if let Some(kib) = o.get("bw").and_then(Value::as_f64)
        && (kib - f(o, "bw_bytes") / 1024.0).abs() > 1.0
    {
        return Err(format!(
            ".bw is {kib}: fio's bw is bw_bytes / 1024 = {:.3} (KiB/s)",
            f(o, "bw_bytes") / 1024.0
        ));
    }
    let blocks = ["lat_ns", "clat_ns", "slat_ns"].map(|k| (k, o.get(k).and_then(Value::as_object)));
    // No rule ties a block's N to total_ios: fio times (and counts in io_bytes) the I/Os in flight when
    // its ramp_time ends, which total_ios leaves out (trial 20 F1: N 226230 beside total_ios 226215 at
    // iodepth 16).
    for (k, b) in blocks {
        let Some(b) = b else { continue };
        block(b).map_err(|e| format!(".{k}{e}"))?;
    }
    if let [(_, Some(lat)), (_, Some(clat)), _] = blocks
        && n(lat, "N") > 0
        && n(clat, "N") > 0
    {
        // Attack 20: both blocks time the same I/Os, and each I/O's lat is at least its clat.
        if n(lat, "N") != n(clat, "N") {
            return Err(format!(
                ".lat_ns.N is {}: not clat_ns.N, {}: fio times each I/O's total and completion latency together",
                n(lat, "N"),
                n(clat, "N")
            ));
        }
        if f(lat, "mean") + PRINTED < f(clat, "mean") {
            return Err(format!(
                ".lat_ns.mean is {}: below clat_ns.mean, {}: an I/O's total latency (lat) is its submission's and its completion's (clat) together",
                f(lat, "mean"),
                f(clat, "mean")
            ));
        }
        for k in ["min", "max"] {
            if n(lat, k) < n(clat, k) {
                return Err(format!(
                    ".lat_ns.{k} is {}: below clat_ns.{k}, {}: an I/O's total latency (lat) is its submission's and its completion's (clat) together",
                    n(lat, k),
                    n(clat, k)
                ));
            }
        }
    }
    Ok(())
}

/// A rate `k` of `count` over `runtime` ms: fio's `count × 1000 / runtime`, within `slack` (0 for a runtime
/// of 0, which fio reports for a direction under a millisecond).
fn rate(
    o: &Map<String, Value>,
    k: &str,
    count: u64,
    runtime: u64,
    slack: f64,
) -> Result<(), String> {
    let exact = match runtime {
        0 => 0.0,
        r => count as f64 * 1000.0 / r as f64,
    };
    let got = f(o, k);
    match (got - exact).abs() <= slack + exact * 1e-12 {
        true => Ok(()),
        false => {
            let what = if k == "iops" { "total_ios" } else { "io_bytes" };
            Err(format!(
                ".{k} is {got}: fio's {k} is {what} × 1000 / runtime, {count} × 1000 / {runtime} ms = {exact:.6}"
            ))
        }
    }
}

/// One latency block (`lat_ns`, `clat_ns`, `slat_ns`, or a sync's `lat_ns`) of `N` samples: its mean
/// between its min and max, its percentiles within a bucket of them ([`BUCKET`]), its json+ bins counting
/// its samples.
fn block(b: &Map<String, Value>) -> Result<(), String> {
    let samples = n(b, "N");
    if let Some(bins) = b.get("bins").and_then(Value::as_object) {
        let sum = bins
            .values()
            .filter_map(Value::as_u64)
            .fold(0u64, u64::saturating_add);
        if b.contains_key("N") && sum != samples {
            return Err(format!(".bins count {sum} latencies: not its N, {samples}"));
        }
    }
    if samples == 0 {
        return Ok(());
    }
    let (min, max, mean) = (n(b, "min"), n(b, "max"), f(b, "mean"));
    if min > max {
        return Err(format!(".min is {min}: above its max, {max}"));
    }
    if mean + PRINTED < min as f64 || mean > max as f64 + PRINTED {
        return Err(format!(
            ".mean is {mean}: outside its min and max, {min} to {max} ns"
        ));
    }
    // A sample's standard deviation (fio's, over N − 1) is at most half its range × √(N / (N − 1)).
    let sd = f(b, "stddev");
    let most = match samples {
        1 => 0.0,
        s => (max - min) as f64 / 2.0 * (s as f64 / (s - 1) as f64).sqrt(),
    };
    if sd > most + PRINTED {
        return Err(format!(
            ".stddev is {sd}: more than its {samples} latencies from {min} to {max} ns can spread, {most:.3}"
        ));
    }
    let Some(p) = b.get("percentile").and_then(Value::as_object) else {
        return Ok(());
    };
    for (q, v) in p {
        let v = v.as_u64().unwrap_or(0) as f64;
        if v > max as f64 * (1.0 + BUCKET) || v < min as f64 * (1.0 - BUCKET) {
            return Err(format!(
                ".percentile.\"{q}\" is {v}: outside its min and max, {min} to {max} ns, by more than fio's bucket (1/64)"
            ));
        }
    }
    Ok(())
}
