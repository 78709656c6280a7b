//! Figures no fio run reports, found in one job's JSON report (attack 19 F3): rates that disagree with the
//! job's own counts and runtime, a latency mean outside its min and max, a percentile far past them, a
//! total latency (`lat`, submission included) below its completion latency
//! (`clat`), bytes without I/Os, a `sync` block without its latency, a latency block that disagrees with
//! its own json+ bins ([`super::bins`]), and counts that disagree with the job's block sizes and its
//! latencies' N (attack 21). Each rule is fio 3.x's own
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
pub fn check(
    job: &str,
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
) -> Result<(), String> {
    let job_ms = j.get("job_runtime").and_then(Value::as_u64);
    let polled = sq_poll_note(j, g).is_some();
    for (i, d) in DIRS.into_iter().enumerate() {
        if let Some(o) = j.get(d).and_then(Value::as_object) {
            direction(o, job_ms, polled).map_err(|e| format!("{job}.{d}{e}"))?;
            counted(o, &Sizes::of(j, g, i)).map_err(|e| format!("{job}.{d}{e}"))?;
        }
    }
    // fio's `mixed` block (unified_rw_reporting): a direction of all the job's I/Os, of any of its sizes.
    if let Some(o) = j.get("mixed").and_then(Value::as_object) {
        direction(o, job_ms, polled).map_err(|e| format!("{job}.mixed{e}"))?;
        counted(o, &Sizes::any(j, g)).map_err(|e| format!("{job}.mixed{e}"))?;
        mixed_sum(o, j).map_err(|e| format!("{job}.mixed{e}"))?;
    }
    if let Some(o) = j.get("sync").and_then(Value::as_object) {
        let Some(lat) = o.get("lat_ns").and_then(Value::as_object) else {
            return Err(format!(
                "{job}.sync has no lat_ns: fio's sync block always has one (its count, N, is the syncs it timed)"
            ));
        };
        block(lat).map_err(|e| format!("{job}.sync.lat_ns{e}"))?;
        // fio's sync total_ios counts its fsync(2) calls alone, N every sync it timed (fdatasync too); a
        // sync that failed is counted and not timed, as a failed read or write is (attack 24: fsync=1 on
        // /dev/null, error 22, and a real EIO: total_ios 1, lat_ns.N 0).
        let failed = n(j, "error") != 0 || n(j, "total_err") != 0;
        if !failed && lat.contains_key("N") && n(o, "total_ios") > n(lat, "N") {
            return Err(format!(
                "{job}.sync.total_ios is {}: more than the {} syncs fio timed (lat_ns.N), which include its fsync calls",
                n(o, "total_ios"),
                n(lat, "N")
            ));
        }
    }
    Ok(())
}

/// fio's blocks of a direction that moves data, in its order.
const DIRS: [&str; 3] = ["read", "write", "trim"];

/// fio's `mixed` block `m` against the directions of its job `j` beside it (`unified_rw_reporting=2`, or
/// `both`), which it sums (fio 3.33, measured: `rw=randrw` with 455 reads and 57 writes made a mixed block
/// of 512): its I/Os and bytes their sums, its runtime the longest, each latency block's N their sum, min
/// the least and max the most of those that timed any, its mean theirs weighted by N (within fio's printed
/// decimals), its json+ bins theirs added. Nothing to hold it to without the directions (`1`, `mixed`).
fn mixed_sum(m: &Map<String, Value>, j: &Map<String, Value>) -> Result<(), String> {
    let dirs: Vec<&Map<String, Value>> = DIRS
        .iter()
        .filter_map(|d| j.get(*d).and_then(Value::as_object))
        .collect();
    if dirs.is_empty() {
        return Ok(());
    }
    let apart = |k: &str, got: String, want: String, how: &str| {
        Err(format!(
            ".{k} is {got}: not the {how} of the job's read, write and trim, {want} (fio's mixed block sums them)"
        ))
    };
    for k in ["total_ios", "io_bytes"] {
        let sum: u128 = dirs.iter().map(|d| u128::from(n(d, k))).sum();
        if u128::from(n(m, k)) != sum {
            return apart(k, n(m, k).to_string(), sum.to_string(), "sum");
        }
    }
    let longest = dirs.iter().map(|d| n(d, "runtime")).max().unwrap_or(0);
    if n(m, "runtime") != longest {
        return apart(
            "runtime",
            n(m, "runtime").to_string(),
            longest.to_string(),
            "longest",
        );
    }
    for k in ["lat_ns", "clat_ns"] {
        let Some(b) = m.get(k).and_then(Value::as_object) else {
            continue;
        };
        let theirs: Vec<&Map<String, Value>> = (dirs.iter())
            .filter_map(|d| d.get(k).and_then(Value::as_object))
            .filter(|b| n(b, "N") > 0)
            .collect();
        let at = |what: &str| format!("{k}.{what}");
        let count: u128 = theirs.iter().map(|b| u128::from(n(b, "N"))).sum();
        if u128::from(n(b, "N")) != count {
            return apart(&at("N"), n(b, "N").to_string(), count.to_string(), "sum");
        }
        if count == 0 {
            continue;
        }
        let least = theirs.iter().map(|b| n(b, "min")).min().unwrap_or(0);
        let most = theirs.iter().map(|b| n(b, "max")).max().unwrap_or(0);
        for (k, want, how) in [("min", least, "least"), ("max", most, "most")] {
            if n(b, k) != want {
                return apart(&at(k), n(b, k).to_string(), want.to_string(), how);
            }
        }
        let mean = theirs
            .iter()
            .map(|b| f(b, "mean") * n(b, "N") as f64)
            .sum::<f64>()
            / count as f64;
        if (f(b, "mean") - mean).abs() > PRINTED + mean * 1e-12 {
            let want = format!("{mean:.6}");
            return apart(&at("mean"), f(b, "mean").to_string(), want, "mean by N");
        }
        if let Some(bins) = b.get("bins").and_then(Value::as_object) {
            let mut sum: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
            for d in theirs.iter().filter_map(|b| b.get("bins")?.as_object()) {
                for (key, c) in d {
                    let e = sum.entry(key.as_str()).or_insert(0);
                    *e = e.saturating_add(c.as_u64().unwrap_or(0));
                }
            }
            let mine: std::collections::BTreeMap<&str, u64> = (bins.iter())
                .map(|(key, c)| (key.as_str(), c.as_u64().unwrap_or(0)))
                .filter(|(_, c)| *c > 0)
                .collect();
            sum.retain(|_, c| *c > 0);
            if let Some((key, c)) = sum.iter().find(|(key, c)| mine.get(*key) != Some(c)) {
                let got = mine.get(key).copied().unwrap_or(0);
                return apart(
                    &at(&format!("bins.\"{key}\"")),
                    got.to_string(),
                    c.to_string(),
                    "sum",
                );
            }
            if let Some((key, c)) = mine.iter().find(|(key, _)| !sum.contains_key(*key)) {
                return apart(
                    &at(&format!("bins.\"{key}\"")),
                    c.to_string(),
                    "0".into(),
                    "sum",
                );
            }
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
/// The warning of a phase whose job ran io_uring with `sqthread_poll` ([`sq_polled`]): its lat is not held
/// to be at least its clat, and `validate` and `compare` say so.
pub const SQ_POLL: &str = "fio's io_uring ran with sqthread_poll=1 (a kernel thread polls its submission queue): fio's total latency (lat) and completion latency (clat) are not comparable there (fio 3.33 reports a lat mean below the clat mean, 25.1 ms beside 363.6 ms at iodepth 32), so neither is held to the other and neither is wkrun's submission-to-completion time";

/// Whether job `j` (with the global options `g`) ran fio's io_uring with `sqthread_poll` on: fio then
/// stamps an I/O's submission when its own thread queues it and its issue when the kernel's polling
/// thread takes it, so its lat may fall below its clat (fio 3.33, randwrite at iodepth 32: lat mean
/// 25134368.7 ns beside clat mean 363620917.4; randread, numjobs=2, group_reporting: likewise).
pub fn sq_polled(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> bool {
    j.get("job options")
        .and_then(|o| o.get("sqthread_poll"))
        .or_else(|| g.and_then(|g| g.get("sqthread_poll")))
        .and_then(Value::as_str)
        .is_some_and(|v| v != "0" && v != "false")
}

/// The warning of a phase whose job ran io_uring and reports a total latency below its completion latency
/// without `sqthread_poll` among its options ([`sq_poll_note`]).
pub const SQ_POLL_SEEN: &str = "fio's io_uring job reports a total latency (lat) below its completion latency (clat), as fio 3.33 does with sqthread_poll (a kernel thread polls its submission queue; given bare, `sqthread_poll` or `--sqthread_poll`, it is not among the options fio's JSON lists): read as sqthread_poll, so lat and clat are not held to each other, and neither is wkrun's submission-to-completion time";

/// Why job `j`'s (with the global options `g`) total and completion latencies are not held to each other,
/// if they are not: [`SQ_POLL`] for a job with `sqthread_poll` in its options ([`sq_polled`]), else
/// [`SQ_POLL_SEEN`] for one on io_uring whose lat min, mean or max in a direction is below its clat's:
/// fio lists no option given as a bare flag (attack 24: `--sqthread_poll` at iodepth 32, lat mean
/// 4783946.9 ns beside clat mean 639981691.2, and no sqthread_poll in its JSON). A group of unlike jobs
/// ([`unlike_group`]) has neither, its options being its last job's: [`SQ_POLL_GROUP`] where a direction
/// shows it, whichever of its jobs polled (attack 27 F2: an io_uring sqthread_poll randwrite job before a
/// psync randread one, write lat mean 267972.2 ns beside clat mean 1660862655.5, was refused; the order
/// reversed kept the last job's SQ_POLL beside the warning that its engine is unknown).
pub fn sq_poll_note(
    j: &Map<String, Value>,
    g: Option<&Map<String, Value>>,
) -> Option<&'static str> {
    if unlike_group(j, g).is_some() {
        return lat_below_clat(j).then_some(SQ_POLL_GROUP);
    }
    if sq_polled(j, g) {
        return Some(SQ_POLL);
    }
    let engine = (j.get("job options").and_then(|o| o.get("ioengine")))
        .or_else(|| g.and_then(|g| g.get("ioengine")))
        .and_then(Value::as_str);
    (engine == Some("io_uring") && lat_below_clat(j)).then_some(SQ_POLL_SEEN)
}

/// The warning of fio's report of a group of unlike jobs ([`unlike_group`]: their engines unknown) whose
/// total latency is below its completion latency in a direction ([`sq_poll_note`]).
pub const SQ_POLL_GROUP: &str = "fio's report of a group of jobs whose engines are unknown (fio lists its last job's options alone) has a total latency (lat) below its completion latency (clat), as fio 3.33 reports for a job on io_uring with sqthread_poll (a kernel thread polls its submission queue): read as such a job among them, so lat and clat are not held to each other, and neither is wkrun's submission-to-completion time";

/// Whether a direction of report `j` (its `mixed` block too) has a total latency's min, mean or max below
/// its completion latency's: fio 3.33's report of a job on io_uring with `sqthread_poll` ([`sq_polled`]).
fn lat_below_clat(j: &Map<String, Value>) -> bool {
    let below = |o: &Map<String, Value>| {
        let b = |k: &str| {
            o.get(k)
                .and_then(Value::as_object)
                .filter(|b| n(b, "N") > 0)
        };
        let (Some(lat), Some(clat)) = (b("lat_ns"), b("clat_ns")) else {
            return false;
        };
        f(lat, "mean") + PRINTED < f(clat, "mean")
            || ["min", "max"].iter().any(|k| n(lat, k) < n(clat, k))
    };
    (DIRS.iter().chain(&["mixed"]))
        .filter_map(|d| j.get(*d).and_then(Value::as_object))
        .any(below)
}

fn direction(o: &Map<String, Value>, job_ms: Option<u64>, polled: bool) -> Result<(), String> {
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
    // A block's N against total_ios, with the I/Os fio times past total_ios at a ramp's end (trial 20
    // F1: N 226230 beside total_ios 226215 at iodepth 16), is [`counted`]'s.
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
        // With sqthread_poll fio's lat may be below its clat ([`sq_polled`]): not held to it.
        if polled {
            return Ok(());
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
    if let Some(bins) = bins_of(b) {
        binned(b, &bins)?;
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

/// A block's json+ bins as `[key, count]` pairs by key, the empty ones left out (read as well formed
/// before: [`super::json`]); `None` without bins.
fn bins_of(b: &Map<String, Value>) -> Option<Vec<[u64; 2]>> {
    let mut v: Vec<[u64; 2]> = b
        .get("bins")?
        .as_object()?
        .iter()
        .filter_map(|(k, c)| Some([k.parse().ok()?, c.as_u64()?]))
        .filter(|b| b[1] > 0)
        .collect();
    v.sort_unstable();
    (!v.is_empty()).then_some(v)
}

/// A latency block `b` against its own json+ bins (`bins`, by key; fio fills them from the latencies its
/// min, max, mean and percentiles come from, [`super::bins`]): each key a bucket's, its min in its lowest
/// bin's bucket and its max in its highest's, its mean within what the buckets allow (each latency
/// between its bucket's lowest and highest), each percentile exactly fio's from the bins. Measured on 247
/// real fio 3.33 json+ outputs (tests/data/fio/corpus.py, measure.py): every one holds.
fn binned(b: &Map<String, Value>, bins: &[[u64; 2]]) -> Result<(), String> {
    let mut buckets = Vec::with_capacity(bins.len());
    for &[k, c] in bins {
        let Some(range) = super::bins::bucket(k) else {
            return Err(format!(
                ".bins has the key \"{k}\": not the value of one of fio's latency buckets"
            ));
        };
        buckets.push((range, c));
    }
    let ends = [
        ("min", buckets[0].0, bins[0][0]),
        ("max", buckets[buckets.len() - 1].0, bins[bins.len() - 1][0]),
    ];
    for (k, (low, high), key) in ends {
        let v = n(b, k);
        if v < low || v > high {
            let which = if k == "min" { "lowest" } else { "highest" };
            return Err(format!(
                ".{k} is {v}: not in the bucket of its {which} bin, \"{key}\" ({low} to {high} ns)"
            ));
        }
    }
    let count = bins.iter().map(|b| u128::from(b[1])).sum::<u128>() as f64;
    let sum = |f: fn(&(u64, u64)) -> u64| {
        buckets
            .iter()
            .map(|(r, c)| f(r) as f64 * *c as f64)
            .sum::<f64>()
            / count
    };
    let (low, high) = (sum(|r| r.0), sum(|r| r.1));
    let mean = f(b, "mean");
    if mean + PRINTED < low * (1.0 - 1e-12) || mean > high * (1.0 + 1e-12) + PRINTED {
        return Err(format!(
            ".mean is {mean}: outside what its bins allow, {low:.3} to {high:.3} ns (each latency within its bucket)"
        ));
    }
    let Some(p) = b.get("percentile").and_then(Value::as_object) else {
        return Ok(());
    };
    for (q, v) in p {
        let (Ok(share), Some(v)) = (q.parse::<f64>(), v.as_u64()) else {
            continue;
        };
        let want = super::bins::percentile(bins, share);
        if want != Some(v) {
            return Err(format!(
                ".percentile.\"{q}\" is {v}: fio's from its bins is {}, the first bucket at which their running count reaches {q} % of {}",
                want.unwrap_or(0),
                count
            ));
        }
    }
    Ok(())
}

/// What a job's options say of one direction's I/Os: their smallest and largest size (`bs`, a
/// `read,write,trim` list of them, or a sequential,random one under `bs_is_seq_rand`, `bsrange` or
/// `bssplit`; fio's default 4k), the most I/Os in flight
/// (`iodepth` × `numjobs`), the I/Os fio may count in `total_ios` and never complete (`uncommitted`), and
/// whether the job failed (its `error` or `total_err`: fio counts a failed I/O in `total_ios`, without
/// bytes or a latency).
struct Sizes {
    /// Smallest and largest I/O size; `None` where the options give a size wkrun does not read.
    range: Option<(u64, u64)>,
    in_flight: u64,
    /// fio's vsync gathers up to `iodepth` I/Os into one `readv`/`writev` and counts each in `total_ios` as
    /// it queues it: when a time-based job ends, up to `iodepth` − 1 per job are counted and never done,
    /// without bytes or a latency (real fio 3.33, two randrw jobs at iodepth 16: 15 of each job's I/Os, 9
    /// reads and 6 writes in one, 4 and 11 in the other). 0 for every other engine.
    uncommitted: u64,
    /// Whether fio times each I/O it counts: not on its [`NO_IO_ENGINES`](super::json::NO_IO_ENGINES),
    /// whose file engines (filecreate, filestat, filedelete) do their file operation once and count each
    /// later turn as an I/O, untimed (real fio 3.33, 1 s: 2,947,581 reads counted, `clat_ns.N` 1).
    timed_each: bool,
    failed: bool,
}

impl Sizes {
    /// Any direction of job `j` with the global options `g` (fio's `mixed` block): the smallest and
    /// largest of all its directions' sizes.
    fn any(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Sizes {
        let each = [0, 1, 2].map(|d| Sizes::of(j, g, d));
        let range = each.iter().map(|s| s.range).collect::<Option<Vec<_>>>();
        Sizes {
            range: range
                .and_then(|r| Some((r.iter().map(|r| r.0).min()?, r.iter().map(|r| r.1).max()?))),
            in_flight: each[0].in_flight,
            uncommitted: each[0].uncommitted,
            timed_each: each[0].timed_each,
            failed: each[0].failed,
        }
    }

    /// Direction `d` (0 read, 1 write, 2 trim) of job `j` with the global options `g`, a group of unlike
    /// jobs' ([`unlike_group`]) held to no size and no depth.
    fn of(j: &Map<String, Value>, g: Option<&Map<String, Value>>, d: usize) -> Sizes {
        let listed = Sizes::listed(j, g, d);
        match unlike_group(j, g) {
            Some(_) => Sizes {
                range: None,
                in_flight: u64::MAX,
                ..listed
            },
            None => listed,
        }
    }

    /// Direction `d` of job `j` with the global options `g` as the options fio lists say it, whoever's
    /// they are: a group's (`group_reporting` among them) held to no depth.
    fn listed(j: &Map<String, Value>, g: Option<&Map<String, Value>>, d: usize) -> Sizes {
        let o = |k: &str| super::json::opt(j, g, k);
        let kb = o("kb_base").and_then(|v| v.parse().ok()).unwrap_or(1024);
        let count = |k: &str| super::json::int_opt(j, g, k).unwrap_or(1).max(1);
        let failed = n(j, "error") != 0 || n(j, "total_err") != 0;
        // `bs_is_seq_rand`: the list is sequential,random sizes, not read,write: any direction may use any.
        let seq_rand = o("bs_is_seq_rand")
            .and_then(|v| super::value::fio_boolean(v).ok())
            .is_some_and(|b| b.0);
        let sizes = |text: &str, one: &dyn Fn(&str) -> Option<(u64, u64)>| {
            let parts = super::value::directions(text);
            let mine: Vec<&str> = match parts[d].filter(|_| !seq_rand) {
                Some(p) => vec![p],
                // A direction the list leaves empty: any of its sizes, or fio's default.
                None => parts.iter().flatten().copied().collect(),
            };
            let all: Option<Vec<(u64, u64)>> = mine.iter().map(|p| one(p)).collect();
            let all = all?;
            let mut lo = all.iter().map(|r| r.0).min()?;
            let mut hi = all.iter().map(|r| r.1).max()?;
            if parts[d].is_none() && !seq_rand {
                (lo, hi) = (lo.min(4096), hi.max(4096));
            }
            Some((lo, hi))
        };
        // The job's sizes with `kb` bytes to a k.
        let under = |kb: u64| {
            let bs = |p: &str| super::value::bytes(p, kb).ok().map(|b| (b, b));
            let range = |p: &str| super::value::range(p, kb).ok();
            let split = |p: &str| {
                let each: Option<Vec<u64>> = p
                    .split(':')
                    .map(|e| super::value::bytes(e.split('/').next().unwrap_or(e), kb).ok())
                    .collect();
                let each = each?;
                Some((*each.iter().min()?, *each.iter().max()?))
            };
            match super::json::size_option(j, g) {
                Some(("bssplit", v)) => sizes(v, &split),
                Some(("bsrange" | "blocksize_range", v)) => sizes(v, &range),
                Some((_, v)) => sizes(v, &bs),
                None => Some((4096, 4096)),
            }
        };
        // fio reads `kb_base` in option order: a size given before it (in [global], or earlier on the
        // command line) keeps 1024 B to a k (attack 22: bs=4k in [global], kb_base=1000 in the job, I/Os
        // of 4096 B). The JSON keeps no order, so a size may be either.
        let range = match kb {
            1024 => under(1024),
            _ => under(kb)
                .zip(under(1024))
                .map(|(a, b)| (a.0.min(b.0), a.1.max(b.1))),
        };
        // An engine that moves no data byte (fio's cpuio counts its cycles as I/Os of 0 bytes, filecreate
        // its files as I/Os of bs): no size holds.
        let no_io = o("ioengine").is_some_and(super::json::is_no_io_engine);
        let range = range.filter(|_| !no_io);
        // A group's jobs' depths add up: neither its listed iodepth nor numjobs holds them.
        let in_flight = match listed_group(j, g) {
            true => u64::MAX,
            false => count("iodepth").saturating_mul(count("numjobs")),
        };
        let uncommitted = match o("ioengine") == Some("vsync") {
            true => (count("iodepth") - 1).saturating_mul(count("numjobs")),
            false => 0,
        };
        Sizes {
            range,
            in_flight,
            uncommitted,
            timed_each: !no_io,
            failed,
        }
    }
}

/// Whether report `j` (with the global options `g`) lists `group_reporting` among its options.
fn listed_group(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> bool {
    super::json::opt(j, g, "group_reporting").is_some_and(|v| v != "0")
}

/// Why fio's report `j` (with the global options `g`) is a group of unlike jobs, in words naming the field
/// that shows it, if it is: the one definition of such a group, which `validate`, `compare` and `report`
/// read alike ([`super::json`]). fio 3.33 writes a `group_reporting` group under its first job's name with
/// its LAST job's options, and lists no option given as a bare flag (`--group_reporting`): so the options
/// beside such a report are one job's, and its block size, depth, engine and mix are not the group's
/// (attack 25: a 64k randread job on libaio at iodepth 32 and a 4k randwrite job on psync, grouped on the
/// command line: one entry named after the first with the second's options, beside 48983 reads of 64 KiB).
/// The evidence, in order: the options' `name` (fio lists it for a command-line job) is not the report's
/// `jobname`; or, in a report that sums jobs ([`summed_jobs`], or `group_reporting` listed), a direction
/// with I/Os that the options' `rw` does none of (without `verify`, whose reads a write job makes), or I/Os
/// that fit none of the options' block sizes (attack 24: a 4k and a 64k job, 35,282.8 B an I/O). A job's
/// own report whose I/Os fit no size is refused (`counted`). A group of identical jobs (`numjobs` under
/// `group_reporting`) shows none, and keeps its options; a group of more jobs than its options' `numjobs`
/// (`more_jobs`) is one of unlike jobs as far as fio's JSON can tell, whether or not they were alike.
pub fn unlike_group(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Option<String> {
    let named = (j.get("job options").and_then(|o| o.get("name"))).and_then(Value::as_str);
    let entry = j.get("jobname").and_then(Value::as_str).unwrap_or("");
    if let Some(named) = named.filter(|n| *n != entry) {
        return Some(format!(
            "the options fio lists with it are job \"{named}\"'s (their name), not those of \"{entry}\", the name fio wrote it under"
        ));
    }
    if !summed_jobs(j) && !listed_group(j, g) {
        return None;
    }
    let sums = format!(
        "its job_runtime, {} ms, sums its jobs' (more than its longest direction's runtime, {} ms), and ",
        n(j, "job_runtime"),
        longest_runtime(j)
    );
    let sizes = || {
        DIRS.iter().enumerate().find_map(|(i, d)| {
            let o = j.get(*d).and_then(Value::as_object)?;
            let e = sized(o, &Sizes::listed(j, g, i)).err()?;
            Some(format!(
                "its I/Os fit none of the block sizes of the options fio lists with it: {d}{e}"
            ))
        })
    };
    let why = (undone_direction(j, g).or_else(sizes)).or_else(|| more_jobs(j, g))?;
    Some(sums + &why)
}

/// Why summed report `j` (with the global options `g`) holds more jobs than its options' `numjobs`, in
/// words, if it does: its `job_runtime` over its longest direction's runtime ([`group_jobs`]) is more
/// than that `numjobs` (1 where absent), so the group holds a job the options fio lists are not those of,
/// and nothing in fio's JSON gives that job's options. Attack 27 F6 (fio 3.33, measured): two `[capped]`
/// jobs under `group_reporting` at rate_iops=100 and 300 made one entry of 399.8 IOPS listing
/// `rate_iops=300` alone, job_runtime 4000 beside a read runtime of 2001 ms; at iodepth 1 and 32, one
/// listing `iodepth=32`. `None` without a direction's runtime (cpuio, exec: no runtime to divide by) or
/// with `verify` (a job's verify reads add their time to its job_runtime, not to its write runtime:
/// measured, job_runtime 791 beside write 418 and read 375 ms).
fn more_jobs(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Option<String> {
    let verify = super::json::opt(j, g, "verify").is_some_and(|v| v != "0" && v != "none");
    if verify || longest_runtime(j) == 0 || !summed_jobs(j) {
        return None;
    }
    let listed = super::json::int_opt(j, g, "numjobs").unwrap_or(1).max(1);
    let jobs = group_jobs(j);
    (jobs > listed).then(|| {
        format!(
            "it holds more jobs than the numjobs={listed} of the options fio lists with it (at least {jobs}: its job_runtime over that runtime), so those options are one job's, and the others' (their rate cap, depth or think time, which no figure shows) are not given"
        )
    })
}

/// The first direction of report `j` (with the global options `g`) with I/Os where its options' `rw` does
/// none of that direction, in words; `None` for a job with `verify` (a write job reads back what it wrote)
/// or an `rw` wkrun does not know.
fn undone_direction(j: &Map<String, Value>, g: Option<&Map<String, Value>>) -> Option<String> {
    if super::json::opt(j, g, "verify").is_some_and(|v| v != "0" && v != "none") {
        return None;
    }
    let rw = super::json::opt(j, g, "rw").or_else(|| super::json::opt(j, g, "readwrite"));
    let word = rw.unwrap_or("read");
    let does = match word.split(':').next().unwrap_or(word) {
        "read" | "randread" => [true, false, false],
        "write" | "randwrite" => [false, true, false],
        "trim" | "randtrim" => [false, false, true],
        "trimwrite" | "randtrimwrite" => [false, true, true],
        "rw" | "readwrite" | "randrw" => [true, true, false],
        _ => return None,
    };
    let rw = rw.map_or("read, fio's default".into(), |v| v.to_string());
    DIRS.iter().zip(does).find_map(|(d, does)| {
        let ios = n(j.get(*d).and_then(Value::as_object)?, "total_ios");
        (!does && ios > 0).then(|| {
            format!(
                "its {d}.total_ios is {ios}, where the options fio lists with it (rw={rw}) do no {d}s"
            )
        })
    })
}

/// How many jobs group report `j` sums at least: its `job_runtime` (their runtimes added) over its longest
/// direction's runtime (each job's at most that, to the ms), and at least 2.
pub fn group_jobs(j: &Map<String, Value>) -> u64 {
    n(j, "job_runtime")
        .div_ceil(longest_runtime(j).saturating_add(1))
        .max(2)
}

/// A direction's counts against its job's options (`s`) and its latency samples (Attack 21): each I/O
/// moves a block of one of the job's sizes, and fio times each I/O it counts. fio times, and counts in
/// `io_bytes`, the I/Os in flight when its ramp_time ends, which `total_ios` leaves out: so `io_bytes` is
/// at most (`total_ios` + `iodepth` × `numjobs`) × the largest size, and the count of latencies (`N`)
/// between `total_ios` and `total_ios` + `iodepth` × `numjobs`; measured on 247 real fio 3.33 outputs
/// (tests/data/fio/corpus.py, measure.py): the extra I/Os reached `iodepth` × `numjobs` in `io_bytes`
/// (16 at iodepth 16) and `iodepth` × `numjobs` − 1 in `N`. A job that failed (fio counts its failed I/Os,
/// without bytes or latency) is held to the upper bounds only, and a short I/O (`short_ios`) to none.
fn counted(o: &Map<String, Value>, s: &Sizes) -> Result<(), String> {
    sized(o, s)?;
    let ios = n(o, "total_ios");
    let most_ios = ios.saturating_add(s.in_flight);
    let timed = ["clat_ns", "lat_ns"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_object))
        .map_or(0, |b| n(b, "N"));
    if timed == 0 || ios == 0 || !s.timed_each {
        return Ok(());
    }
    if !s.failed && timed < ios.saturating_sub(s.uncommitted) {
        return Err(format!(
            ".total_ios is {ios}: more than the {timed} I/Os fio timed (clat_ns.N): fio times every I/O it counts"
        ));
    }
    if timed > most_ios {
        return Err(format!(
            ".total_ios is {ios}: fewer than its {timed} latencies (clat_ns.N) less the {} I/Os (iodepth × numjobs) fio may time past total_ios at a ramp's end",
            s.in_flight
        ));
    }
    Ok(())
}

/// A direction's `io_bytes` against its `total_ios` and its job's block sizes (`s`), the part of
/// [`counted`] that [`unlike_group`] reads as a group's evidence.
fn sized(o: &Map<String, Value>, s: &Sizes) -> Result<(), String> {
    let (ios, bytes, short) = (n(o, "total_ios"), n(o, "io_bytes"), n(o, "short_ios"));
    let most_ios = ios.saturating_add(s.in_flight);
    if let Some((lo, hi)) = s.range.filter(|_| ios > 0) {
        let done = ios.saturating_sub(short).saturating_sub(s.uncommitted);
        let least = u128::from(done) * u128::from(lo);
        let most = u128::from(most_ios) * u128::from(hi);
        let mean = bytes as f64 / ios as f64;
        if (!s.failed && u128::from(bytes) < least) || u128::from(bytes) > most {
            let sizes = match lo == hi {
                true => format!("{lo} B"),
                false => format!("{lo} to {hi} B"),
            };
            return Err(format!(
                ".io_bytes is {bytes}: {mean:.3} B for each of its {ios} I/Os (total_ios), where the job's block sizes are {sizes}{}",
                match u128::from(bytes) > most {
                    true => format!(
                        " (and at most {} I/Os, iodepth × numjobs, more in flight at a ramp's end)",
                        s.in_flight
                    ),
                    false => String::new(),
                }
            ));
        }
    }
    Ok(())
}

/// What bounds one job's sync count ([`syncs`]), from its options: its `iodepth`, its jobs (`numjobs`, or
/// its clones), its `loops` (each at least 1), and `end` the syncs of its end (one per job with `end_fsync`
/// or `fsync_on_close`, else 0).
#[derive(Debug, Clone, Copy)]
pub struct SyncRoom {
    /// The job's `iodepth`: the most I/Os and syncs it has in flight at once; `None` where the report
    /// sums jobs whose depths it does not give ([`summed_jobs`]).
    pub depth: Option<u64>,
    /// Its jobs: `numjobs`, or the clones fio reported.
    pub jobs: u64,
    /// Its `loops`.
    pub loops: u64,
    /// The syncs of its end (`end_fsync`, `fsync_on_close`).
    pub end: u64,
}

/// One job's sync count `n` (its `sync` block's, named `job`) against its `ios` (reads, writes and trims)
/// and `writes`: fio syncs after writes, and a sync count beyond what fio's rule can issue is none of fio's.
///
/// fio (fsync=N, fdatasync=N) issues a sync in place of its next I/O whenever its count of issued writes is
/// a nonzero multiple of N and the I/O that completed last was not a sync (its flag, set at each
/// completion, cleared at each loop's start). With one I/O in flight that is at most one sync before each
/// I/O; at a depth above 1 a sync may be issued into each free slot until one completes, so each event
/// that clears the flag or starts a window (a read's or write's completion, a write's issue, a loop's
/// start) is followed by at most `iodepth` syncs. Measured on fio 3.33 (tmpfs file, 2 MiB of 4k random
/// writes, 3 runs each): posixaio at depth 1 511 syncs for 512 writes, at depth 2 812 to 890, at depth 4
/// 632 to 656, at depth 64 632 to 696, fsync=4 at depth 16 500 to 559 (not 128); io_uring at depth 8 with
/// rate_iops=2000 4000 syncs for 2000 writes; io_uring at depth 8, loops=3 of 256k, 205 to 207 for 192. No
/// tighter bound holds for every run (the count depends on when each completion lands), so the bound is
/// that rule's own: `iodepth` × (I/Os + writes + jobs × (loops + 1)), and the end's.
///
/// # Errors
/// Syncs and no write (beyond the end's), or more syncs than that bound, naming the job and the counts.
pub fn syncs(job: &str, n: u64, (ios, writes): (u64, u64), room: &SyncRoom) -> Result<(), String> {
    let end = room.end;
    if writes == 0 && n > end {
        return Err(format!(
            "{job}.sync has {n} syncs (lat_ns.N, else total_ios) and the job no write{}: fio syncs after writes",
            match end {
                0 => String::new(),
                e => format!(" (and {e} at its end: end_fsync, fsync_on_close)"),
            }
        ));
    }
    let events = ios
        .saturating_add(writes)
        .saturating_add(room.jobs.saturating_mul(room.loops.saturating_add(1)));
    // Without the depths, no count of syncs is more than fio's rule issues.
    let Some(depth) = room.depth else {
        return Ok(());
    };
    let most = depth.saturating_mul(events).saturating_add(end);
    match n > most {
        true => Err(format!(
            "{job}.sync has {n} syncs (lat_ns.N, else total_ios), more than fio issues: iodepth {} × ({ios} I/Os + {writes} writes + {} jobs × ({} loops + 1)) = {} and {end} at its end (end_fsync, fsync_on_close): fio issues at most iodepth syncs after each I/O's completion, write's issue or loop's start",
            depth,
            room.jobs,
            room.loops,
            most - end,
        )),
        false => Ok(()),
    }
}

/// The note of a job report that sums several jobs ([`summed_jobs`]), whose sync count is held only to
/// there being writes; `validate` says it.
pub const DEPTHS_UNKNOWN: &str = "fio's report sums several jobs (its job_runtime is longer than its longest direction's runtime: group_reporting) and gives one job's options (fio 3.33: the group's last job's), so the iodepth of each is unknown: its sync count is held only to there being writes, not to iodepth × its I/Os";

/// Whether job report `j` sums several jobs' (fio's `group_reporting`, which fio 3.33's JSON does not
/// name: its options are the group's last job's, its name the first's): its `job_runtime` is then their
/// runtimes added, longer than its longest direction's `runtime` (a job's own is that, to the ms: fio
/// 3.33, every report in tests/data/fio; a group of jobs at iodepth 16 and 1, io_uring, fsync=1,
/// rate_iops=2000: job_runtime 2000 beside 1001 ms, 10400 syncs for 3428 writes). A job that moved no
/// byte (cpuio, exec, one not started) passes too, with no sync to hold.
pub fn summed_jobs(j: &Map<String, Value>) -> bool {
    n(j, "job_runtime") > longest_runtime(j).saturating_add(1)
}

/// The longest `runtime` (ms) of report `j`'s directions (`mixed` too), 0 without one.
fn longest_runtime(j: &Map<String, Value>) -> u64 {
    ["read", "write", "trim", "mixed"]
        .iter()
        .filter_map(|d| j.get(*d).and_then(Value::as_object))
        .map(|o| n(o, "runtime"))
        .max()
        .unwrap_or(0)
}
