//! Resource bounds (issue 7, item 6): wkrun's peak memory stays flat with a phase's duration (a 10-minute
//! run in 10 ms rows and a 1-minute run in 1 s rows peak within 10 %) and with its span (a 16 TiB sparse
//! file target plans and runs a short random workload in the memory of a 1 GiB one).
//!
//! Peak memory is the maximum resident set size of the `wkrun` process, as GNU time reports it
//! (`/usr/bin/time -f %M`, KiB, from the kernel's `ru_maxrss` for that one child): each measured run is its
//! own process, so no run's peak hides another's. The simulated drive runs in virtual time, so "10 minutes"
//! here are ten minutes of the drive's clock, run in seconds of CPU. Without GNU time (Debian package `time`),
//! or without root for the tmpfs, a test prints `SKIPPED <test>: <reason>` and returns.
//!
//! The measured peaks are in every assertion message; run with `--nocapture` to see them on success too.

use crate::common::*;
use std::path::Path;
use std::process::Command;

/// Where GNU time lives on Debian.
const GNU_TIME: &str = "/usr/bin/time";

/// Why peaks cannot be measured here, or `None`.
fn time_unavailable() -> Option<String> {
    let o = Command::new(GNU_TIME)
        .args(["-f", "%M", "true"])
        .output()
        .ok();
    match o {
        Some(o)
            if o.status.success() && parse_kib(&String::from_utf8_lossy(&o.stderr)).is_some() =>
        {
            None
        }
        _ => Some(format!(
            "{GNU_TIME} -f %M does not work (install the Debian package `time`)"
        )),
    }
}

/// The last line of `text` that is a whole number (GNU time's `%M`).
fn parse_kib(text: &str) -> Option<u64> {
    text.lines().rev().find_map(|l| l.trim().parse().ok())
}

/// Runs `wkrun SPEC --target TARGET --output out -q` in a fresh folder under `dir` with `body` as the spec,
/// under GNU time; asserts exit 0 and returns the peak resident memory in KiB and the results.
fn peak_kib(dir: &Path, sub: &str, body: &str, target: &str) -> (u64, serde_json::Value) {
    let d = dir.join(sub);
    std::fs::create_dir_all(&d).expect("run folder");
    write_file(&d, "spec.toml", &spec_text("resources", body));
    let peak_file = d.join("peak.txt");
    let o = Command::new(GNU_TIME)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&peak_file)
        .arg(wkrun_bin())
        .args(["spec.toml", "--target", target, "--output", "out", "-q"])
        .current_dir(&d)
        .output()
        .expect("run wkrun under GNU time");
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{sub}: wkrun failed: {err}");
    let text = std::fs::read_to_string(&peak_file).expect("GNU time's output");
    let kib = parse_kib(&text).unwrap_or_else(|| panic!("{sub}: no peak in {text:?}"));
    let (_, r) = strict_results(&d.join("out"));
    eprintln!("resources: {sub}: peak {kib} KiB");
    (kib, r)
}

/// Asserts that `peak` is within `pct` % of `base` (above or below), naming both runs and their peaks.
fn assert_within(what: &str, base: (&str, u64), peak: (&str, u64), pct: u64) {
    let (lo, hi) = (base.1 * (100 - pct) / 100, base.1 * (100 + pct) / 100);
    assert!(
        (lo..=hi).contains(&peak.1),
        "{what}: {} peaked at {} KiB, {} at {} KiB: not within {pct} % ({lo}..={hi} KiB)",
        peak.0,
        peak.1,
        base.0,
        base.1
    );
}

/// The simulated drive of the duration tests: 8 MiB with 28 % over-provisioning in 256 KiB blocks (it was
/// 32 MiB: four passes over it took 36,000 writes, most of the test's time).
const SIM: &str = "sim:capacity=8MiB,op=28%,block=256KiB";

/// A rate-capped 4 KiB random-write workload at QD4 of `duration`, in rows of `interval`: 15 I/Os per
/// second, so 10 minutes are 9,000 writes (about 4 passes over the drive, with garbage collection; the
/// rows, not the writes, are what grows with the interval).
fn random_writes(duration: &str, interval: &str) -> String {
    format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
         queue_depth = 4\nread_percent = 0\nrate_iops = 15\nduration = \"{duration}\"\ninterval = \"{interval}\"\n"
    )
}

/// Memory is flat with duration on the simulated drive: 10 minutes at 10 ms intervals (60,000 rows, 9,000
/// writes, four passes over the drive with garbage collection) peaks within 10 % of 1 minute at 1 s
/// intervals (60 rows, 900 writes): 10 times the duration, 1,000 times the rows. (This test ran 1 hour at
/// 10 ms, 360,000 rows and 36,000 writes on a 32 MiB drive: 26 s of CPU for what this shows in 6.)
#[test]
fn memory_is_flat_with_duration_on_the_simulated_drive() {
    let test = "resources::memory_is_flat_with_duration_on_the_simulated_drive";
    if let Some(why) = time_unavailable() {
        skip(test, &why);
        return;
    }
    let d = tempdir();
    let mut peaks = Vec::new();
    for (name, duration, interval, rows, writes) in [
        ("1m at 1s", "1m", "1s", 60u64, 900u64),
        ("10m at 10ms", "10m", "10ms", 60_000, 9_000),
    ] {
        let sub = name.replace(' ', "-");
        let (kib, r) = peak_kib(d.path(), &sub, &random_writes(duration, interval), SIM);
        let p = phase(&r, 0);
        assert_eq!(u(p, "/intervals"), rows, "{name}: rows");
        assert_eq!(u(p, "/write/ops"), writes, "{name}: writes at 15 IOPS");
        if writes >= 9_000 {
            // Four passes over the drive: its garbage collection ran.
            let wa = p["device"]["write_amplification"]
                .as_f64()
                .expect("write amplification");
            assert!(wa > 1.0, "{name}: write amplification {wa}");
        }
        peaks.push((name, kib));
    }
    eprintln!("resources: {test}: peaks {peaks:?}");
    for &peak in &peaks[1..] {
        assert_within(test, peaks[0], peak, 10);
    }
}

/// Memory is flat with duration on a real file: psync at QD1, 1 s and 10 s at 1 ms intervals (1,000 and
/// 10,000 rows) of 4 KiB random reads and writes on a 64 MiB file, within 10 %.
#[test]
fn memory_is_flat_with_duration_on_a_file() {
    let test = "resources::memory_is_flat_with_duration_on_a_file";
    if let Some(why) = time_unavailable() {
        skip(test, &why);
        return;
    }
    let (d, t) = sparse_target_dir(64 << 20);
    let t = t.to_str().expect("utf-8 path");
    let body = |duration: &str| {
        format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\n\
             block_size = \"4KiB\"\nqueue_depth = 1\nread_percent = 50\nduration = \"{duration}\"\ninterval = \"1ms\"\n"
        )
    };
    let (short, r1) = peak_kib(d.path(), "1s", &body("1s"), t);
    let (long, r10) = peak_kib(d.path(), "10s", &body("10s"), t);
    // At least one row per millisecond of the phase (the last one may be partial).
    assert!(u(phase(&r1, 0), "/intervals") >= 1_000);
    assert!(u(phase(&r10, 0), "/intervals") >= 10_000);
    eprintln!("resources: {test}: 1 s {short} KiB, 10 s {long} KiB");
    assert_within(test, ("1 s at 1 ms", short), ("10 s at 1 ms", long), 10);
}

/// Memory is flat with span: a 16 TiB sparse file (on a tmpfs the test mounts with room for it: ext4 files
/// stop just short of 16 TiB) and a 1 GiB one, each running the same short random workload (4 KiB, half
/// reads, QD8, 2 s, rate-capped to 2,000 I/Os per second so that the tmpfs holds at most 16 MiB of written
/// pages) with psync and with libaio: each 16 TiB run peaks within 10 % of the 1 GiB run with the same
/// engine. The plan and the op stream never allocate per block of the span (random offsets come from a
/// keyed permutation and a counter-based generator; coverage is a formula), which this shows end to end.
#[test]
fn memory_is_flat_with_span_on_a_16_tib_sparse_file() {
    let test = "resources::memory_is_flat_with_span_on_a_16_tib_sparse_file";
    if let Some(why) = time_unavailable() {
        skip(test, &why);
        return;
    }
    let d = tempdir();
    let mnt = match Mount::tmpfs(d.path().join("mnt"), "17t") {
        Ok(m) => m,
        Err(why) => {
            skip(test, &why);
            return;
        }
    };
    const TIB: u64 = 1 << 40;
    let big = mnt.dir.join("16tib.img");
    let small = mnt.dir.join("1gib.img");
    sparse_file(&big, 16 * TIB);
    sparse_file(&small, 1 << 30);
    let mut failures = Vec::new();
    for engine in ["psync", "libaio"] {
        let body = format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"{engine}\"\ndirect = false\npattern = \"random\"\n\
             block_size = \"4KiB\"\nqueue_depth = 8\nread_percent = 50\nrate_iops = 2000\nduration = \"2s\"\n"
        );
        let mut peaks = Vec::new();
        for (name, t, cap) in [("1 GiB", &small, 1u64 << 30), ("16 TiB", &big, 16 * TIB)] {
            let sub = format!("{engine}-{}", name.replace(' ', ""));
            let (kib, r) = peak_kib(d.path(), &sub, &body, t.to_str().expect("utf-8 path"));
            assert_eq!(u(&r, "/target/capacity_bytes"), cap, "{sub}");
            assert_eq!(
                u(phase(&r, 0), "/params/span_bytes"),
                cap,
                "{sub}: the whole target"
            );
            // At most 4,000 I/Os: 2 s at 2,000 per second (fewer when a loaded host wakes a worker for
            // the last ones after the bound).
            let ops = u(phase(&r, 0), "/total/ops");
            assert!(
                (1..=4_000).contains(&ops),
                "{sub}: {ops} I/Os in 2 s at 2,000 per second"
            );
            peaks.push((name, kib));
        }
        eprintln!("resources: {test}: {engine}: {peaks:?}");
        let (lo, hi) = (peaks[0].1 * 9 / 10, peaks[0].1 * 11 / 10);
        if !(lo..=hi).contains(&peaks[1].1) {
            failures.push(format!(
                "{engine}: 16 TiB peaked at {} KiB, 1 GiB at {} KiB: not within 10 %",
                peaks[1].1, peaks[0].1
            ));
        }
    }
    drop(mnt);
    assert!(failures.is_empty(), "{test}: {failures:?}");
}
