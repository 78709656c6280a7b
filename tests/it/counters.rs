//! Host and device counters (issue 26, item 6): the process's CPU time per phase and per interval, and a
//! block device's kernel counters (`/sys/block/<dev>/stat`) beside wkrun's own counts. On a loop device
//! with direct I/O (`losetup --direct-io=on`) and on zram, the kernel completes exactly the I/Os wkrun
//! counted: with merging off (`queue/nomerges` = 2) on the loop device, each 4 KiB I/O is one request; zram
//! takes bios, which it never merges. The counters CSV is checked against the phase totals and the series'
//! row boundaries (an oracle: the rows summed here).

use crate::common::*;
use crate::engines::{Zram, engine_unavailable};
use serde_json::Value;
use std::path::Path;

/// A phase of mixed random 4 KiB reads and writes lasting 1.2 s in 300 ms intervals.
fn mixed_phase(engine: &str) -> String {
    format!(
        r#"
[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
read_percent = 60
block_size = "4KiB"
queue_depth = 8
engine = "{engine}"
span = "16MiB"
duration = "1200ms"
interval = "300ms"
"#
    )
}

/// io_uring where it runs, psync otherwise.
fn an_engine() -> &'static str {
    match engine_unavailable("io_uring") {
        None => "io_uring",
        Some(_) => "psync",
    }
}

/// Runs the mixed phase on the block device `dev` and checks the kernel's counters against wkrun's, the
/// counters CSV against the totals and the series; returns the phase's results.
fn kernel_equals_wkrun(test: &str, dir: &Path, dev: &Path) -> Value {
    let dev_s = dev.to_str().expect("utf-8");
    let (o, out) = run_spec(
        dir,
        test,
        &mixed_phase(an_engine()),
        dev,
        &["--allow-destroy", dev_s],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0).clone();
    let k = &p["kernel"];
    let name = dev.file_name().expect("name").to_string_lossy();
    assert_eq!(k["device"], name.as_ref(), "{k}");
    assert_eq!(k["reads"], p["read"]["ops"], "{k}");
    assert_eq!(k["writes"], p["write"]["ops"], "{k}");
    assert_eq!(k["read_bytes"], p["read"]["bytes"], "{k}");
    assert_eq!(k["write_bytes"], p["write"]["bytes"], "{k}");
    assert_eq!((u(k, "/read_merges"), u(k, "/write_merges")), (0, 0), "{k}");
    assert!(u(&p, "/read/ops") > 100 && u(&p, "/write/ops") > 100, "{p}");
    let util = k["utilisation"].as_f64().expect("utilisation");
    // zram serves each bio synchronously, within a jiffy: its io_ticks can stay 0.
    assert!((0.0..=1.0).contains(&util), "{k}");
    // The counters CSV: one row per series row, ending at the same times; its rows add up to the totals.
    let csv = p["counters_csv"].as_str().expect("counters_csv");
    let rows = csv_rows(&out.join(csv));
    let series = csv_rows(&out.join(p["series_csv"].as_str().expect("series_csv")));
    assert_eq!(rows.len(), series.len(), "rows of {csv} and the series");
    for (c, s) in rows.iter().zip(&series) {
        assert!((f(c, "t_s") - f(s, "t_s")).abs() < 1e-6, "{c:?} vs {s:?}");
    }
    let sum = |col: &str| rows.iter().map(|row| n(row, col)).sum::<u64>();
    assert_eq!(sum("dev_reads"), u(&p, "/kernel/reads"));
    assert_eq!(sum("dev_writes"), u(&p, "/kernel/writes"));
    assert_eq!(sum("dev_read_sectors") * 512, u(&p, "/kernel/read_bytes"));
    assert_eq!(sum("dev_io_ticks_ms"), u(&p, "/kernel/io_ticks_ms"));
    let cpu_sum = |col: &str| rows.iter().map(|row| f(row, col)).sum::<f64>();
    let cpu = &p["cpu"];
    let (user, sys) = (
        cpu["user_s"].as_f64().unwrap(),
        cpu["system_s"].as_f64().unwrap(),
    );
    assert!((cpu_sum("cpu_user_s") - user).abs() < 1e-5, "{cpu}");
    assert!((cpu_sum("cpu_sys_s") - sys).abs() < 1e-5, "{cpu}");
    assert!(user + sys > 0.0, "{cpu}");
    let ios = (u(&p, "/read/ops") + u(&p, "/write/ops")) as f64;
    let per_io = cpu["system_us_per_io"].as_f64().unwrap();
    assert!(
        (per_io - sys * 1e6 / ios).abs() < 1e-6 * per_io.max(1.0),
        "{cpu}"
    );
    // Not an NVMe namespace: no health log, said plainly.
    assert_eq!(r["health"]["available"], false);
    assert!(
        r["health"]["unavailable"]
            .as_str()
            .unwrap()
            .contains("not an NVMe namespace")
    );
    p
}

#[test]
fn kernel_counts_equal_wkruns_on_a_loop_device() {
    let test = "kernel_counts_equal_wkruns_on_a_loop_device";
    let dir = tempdir();
    let _lock = loop_guard();
    let dev = match LoopDev::new(dir.path(), 32, 512) {
        Ok(d) => d,
        Err(why) => return skip(test, &why),
    };
    // No merging, so each I/O is one request; set back afterwards.
    let nomerges = format!("/sys/block/{}/queue/nomerges", dev.sys_name());
    let was = std::fs::read_to_string(&nomerges).unwrap_or_else(|_| "0".into());
    if let Err(e) = std::fs::write(&nomerges, "2") {
        return skip(test, &format!("cannot set {nomerges}: {e}"));
    }
    let p = kernel_equals_wkrun(test, dir.path(), &dev.dev);
    let _ = std::fs::write(&nomerges, was.trim());
    // A loop device's requests wait for its worker: it is busy some of the time.
    assert!(p["kernel"]["utilisation"].as_f64().unwrap() > 0.0, "{p}");
    assert_eq!(p["params"]["engine"], an_engine());
}

#[test]
fn kernel_counts_equal_wkruns_on_zram() {
    let test = "kernel_counts_equal_wkruns_on_zram";
    let z = match Zram::new() {
        Ok(z) => z,
        Err(why) => return skip(test, &why),
    };
    let dir = tempdir();
    kernel_equals_wkrun(test, dir.path(), &z.dev);
}

#[test]
fn a_file_phase_records_cpu_and_no_kernel_counters_or_health() {
    let (dir, target) = sparse_target_dir(16 << 20);
    let body = r#"
[[phase]]
name = "w"
kind = "workload"
pattern = "random"
read_percent = 0
block_size = "4KiB"
engine = "psync"
size = "4MiB"
[[phase]]
name = "n"
kind = "workload"
engine = "null"
read_percent = 100
block_size = "4KiB"
size = "64MiB"
"#;
    let out = run_ok(dir.path(), "cpu", body, &target);
    let (_, r) = strict_results(&out);
    for i in 0..2 {
        let p = phase(&r, i);
        assert!(p.get("kernel").is_none(), "{p}");
        let cpu = &p["cpu"];
        let total = cpu["user_s"].as_f64().unwrap() + cpu["system_s"].as_f64().unwrap();
        assert!(total > 0.0, "phase {i}: {cpu}");
        let rows = csv_rows(&out.join(p["counters_csv"].as_str().expect("counters_csv")));
        assert!(!rows.is_empty());
        assert!(!rows[0].contains_key("dev_reads"), "{:?}", rows[0]);
    }
    // CPUs busy: the CPU time over the phase's time (an oracle of the division).
    for i in 0..2 {
        let p = phase(&r, i);
        let cpu = &p["cpu"];
        let total = cpu["user_s"].as_f64().unwrap() + cpu["system_s"].as_f64().unwrap();
        let busy = cpu["cpus_busy"].as_f64().unwrap();
        let want = total / p["duration_s"].as_f64().unwrap();
        assert!(
            (busy - want).abs() <= 1e-9 * want.max(1.0),
            "phase {i}: {cpu}"
        );
    }
    assert_eq!(r["health"]["available"], false);
    assert_eq!(
        r["health"]["unavailable"],
        "the target is a file, not an NVMe namespace: no drive health log"
    );
}
