//! The simulated SSD target (issue 8): deterministic, exact tests on the page-mapped FTL model in virtual
//! time. Nothing here touches a file or device: every run's target is `sim:...` or `[target] sim`.

use crate::common::*;
use std::path::Path;

/// A spec's results and the rows of phase `i`'s series and device CSVs.
type Rows = Vec<std::collections::HashMap<String, String>>;

fn phase_csvs(out: &Path, r: &serde_json::Value, i: usize) -> (Rows, Rows) {
    let p = phase(r, i);
    let series = csv_rows(&out.join(p["series_csv"].as_str().expect("series_csv")));
    let device = csv_rows(
        &out.join(
            p["device"]["device_csv"]
                .as_str()
                .expect("device.device_csv"),
        ),
    );
    (series, device)
}

/// The workload phases of a results document, in order.
fn workloads(r: &serde_json::Value) -> Vec<&serde_json::Value> {
    r["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .filter(|p| p["kind"] == "workload")
        .collect()
}

/// The names in `dir` (not below it), sorted.
fn top_names(dir: &Path) -> Vec<String> {
    let mut top: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    top
}

const TINY: &str = "sim:capacity=64KiB,op=100%,page=4KiB,block=16KiB,dies=1,gc_free_superblocks=2";

/// Hand-computed: 16 units of 4 KiB in superblocks of 4 units (8 superblocks of flash), GC when 2 or fewer
/// are free. The fill lays units 0..15 out in superblocks 0..3. Two sequential passes over units 2..13
/// then go to new superblocks; GC finds superblocks 1 and 2 empty in pass 1 (nothing copied), and in pass
/// 2 copies units 0 and 1 (the victim superblock 0: 2 valid of 4) and units 14 and 15 (superblock 3):
/// 4 copies for 24 host writes, write amplification 28/24 = 7/6; 6 superblocks erased; 3 free at the end.
#[test]
fn write_amplification_matches_a_hand_computed_tiny_drive() {
    let dir = tempdir();
    let out = run_ok(
        dir.path(),
        "tiny",
        r#"
[defaults]
block_size = "4KiB"
[[phase]]
name = "fill"
kind = "fill"
queue_depth = 2
[[phase]]
name = "two-passes"
kind = "workload"
pattern = "sequential"
queue_depth = 4
read_percent = 0
offset = "8KiB"
span = "48KiB"
size = "200%"
"#,
        Path::new(TINY),
    );
    let (_, r) = strict_results(&out);
    assert_eq!(r["target"]["kind"], "sim");
    assert_eq!(r["target"]["capacity_bytes"], 65536);
    assert_eq!(r["target"]["sim"]["superblocks"], 8);
    let fill = &phase(&r, 0)["device"];
    assert_eq!(u(fill, "/host_write_bytes"), 65536);
    assert_eq!(u(fill, "/flash_write_bytes"), 65536);
    assert_eq!(u(fill, "/gc_copy_bytes"), 0);
    assert_eq!(fill["write_amplification"], 1.0);
    let w = phase(&r, 1);
    assert_eq!(u(w, "/write/ops"), 24);
    let d = &w["device"];
    assert_eq!(u(d, "/host_write_bytes"), 24 * 4096);
    assert_eq!(u(d, "/gc_copy_bytes"), 4 * 4096);
    assert_eq!(u(d, "/flash_write_bytes"), 28 * 4096);
    assert_eq!(u(d, "/erased_blocks"), 6);
    assert_eq!(u(d, "/free_blocks"), 3);
    assert_eq!(d["write_amplification"].as_f64(), Some(28.0 / 24.0));
}

/// The seed 000 procedure on a small drive: a fresh drive's IOPS, the write cliff once the spare area is
/// used, steady state by the SNIA rule; and the drive's accounting adds up exactly.
#[test]
fn fill_then_random_writes_show_the_cliff_and_reach_steady_state() {
    let dir = tempdir();
    let out = run_ok(
        dir.path(),
        "cliff",
        r#"
[[phase]]
name = "purge"
kind = "erase"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4
[[phase]]
name = "random-write"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 32
read_percent = 0
duration = "400s"
steady_state = { rule = "snia", max_rounds = 40 }
steady_round = "10s"
"#,
        Path::new("sim:capacity=128MiB,op=7%,block=512KiB"),
    );
    let (_, r) = strict_results(&out);
    let w = phase(&r, 2);
    let (series, device) = phase_csvs(&out, &r, 2);
    assert_eq!(series.len(), 401, "400 intervals and the drain");
    assert_eq!(device.len(), series.len(), "one device row per interval");
    assert_eq!(n(&series[400], "partial"), 1);
    assert_eq!(f(&series[400], "t_s"), f(&device[400], "t_s"));
    let iops: Vec<f64> = series.iter().map(|row| f(row, "write_iops")).collect();
    let tail = &iops[320..400];
    let tail_mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(
        iops[0] > 3.0 * tail_mean,
        "no write cliff: first second {} IOPS, last 80 s {tail_mean:.0}",
        iops[0]
    );
    assert_eq!(w["steady_state"]["reached"], true, "{}", w["steady_state"]);
    // Exact accounting: every 4 KiB write is one host unit; flash = host + copies; the CSV adds up.
    let d = &w["device"];
    let writes = u(w, "/write/ops");
    assert_eq!(u(d, "/host_write_bytes"), writes * 4096);
    assert_eq!(
        u(d, "/flash_write_bytes"),
        u(d, "/host_write_bytes") + u(d, "/gc_copy_bytes")
    );
    let sum = |col: &str| device.iter().map(|row| n(row, col)).sum::<u64>();
    assert_eq!(sum("host_write_bytes"), u(d, "/host_write_bytes"));
    assert_eq!(sum("flash_write_bytes"), u(d, "/flash_write_bytes"));
    assert_eq!(sum("gc_copy_bytes"), u(d, "/gc_copy_bytes"));
    assert_eq!(sum("erased_blocks"), u(d, "/erased_blocks"));
    let series_writes: u64 = series.iter().map(|row| n(row, "write_ops")).sum();
    assert_eq!(sum("host_write_bytes"), series_writes * 4096);
    let wa = d["write_amplification"]
        .as_f64()
        .expect("write amplification");
    assert!(wa > 1.5, "random writes on a full drive amplify: {wa}");
    // The fill wrote every unit once, without garbage collection.
    let fill = &phase(&r, 1)["device"];
    assert_eq!(u(fill, "/host_write_bytes"), 128 << 20);
    assert_eq!(u(fill, "/gc_copy_bytes"), 0);
}

/// Seed 003's sweep: sustained IOPS rise monotonically as the tested span shrinks (more spare area), and
/// write amplification falls.
#[test]
fn span_sweep_raises_sustained_iops_and_lowers_write_amplification() {
    let dir = tempdir();
    let out = run_ok(
        dir.path(),
        "op",
        r#"
[[phase]]
name = "purge"
kind = "erase"
span = "100%"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4
[[phase]]
name = "saturate"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 32
read_percent = 0
duration = "240s"
windows = ["last 60s"]
[[sweep]]
name = "op"
phases = ["purge", "fill", "saturate"]
span = ["100%", "93%", "84%", "50%", "25%"]
"#,
        Path::new("sim:capacity=64MiB,op=7%,block=256KiB"),
    );
    let (_, r) = strict_results(&out);
    let saturate = workloads(&r);
    assert_eq!(saturate.len(), 5);
    // The first purge finds a factory-new drive; the second releases every unit the first sweep wrote
    // (its fill covered the whole drive); the third only the 93 % span the second sweep wrote (its
    // random writes reach the last 4 KiB units that the 128 KiB fill's rounding left out).
    assert_eq!(u(phase(&r, 0), "/device/trimmed_bytes"), 0);
    assert_eq!(u(phase(&r, 3), "/device/trimmed_bytes"), 64 << 20);
    assert_eq!(
        u(phase(&r, 6), "/device/trimmed_bytes"),
        u(phase(&r, 5), "/params/span_bytes")
    );
    let iops: Vec<f64> = saturate
        .iter()
        .map(|p| p["windows"][0]["iops"]["avg"].as_f64().expect("window avg"))
        .collect();
    let wa: Vec<f64> = saturate
        .iter()
        .map(|p| p["device"]["write_amplification"].as_f64().expect("WA"))
        .collect();
    for k in 1..5 {
        assert!(iops[k] > iops[k - 1], "IOPS by span 100..25 %: {iops:?}");
        assert!(wa[k] < wa[k - 1], "WA by span 100..25 %: {wa:?}");
    }
    assert!(
        iops[1] > 1.5 * iops[0],
        "7 % more spare area nearly doubles sustained IOPS (seed 003): {iops:?}"
    );
}

/// SandForce-style data reduction: zero-filled data takes 1/8 of the flash, so the drive has far more
/// effective spare area and sustains more IOPS than with incompressible data.
#[test]
fn zeros_with_compression_sustain_more_iops_than_random_data() {
    let mut avg = Vec::new();
    for data in ["random", "zeros"] {
        let dir = tempdir();
        let out = run_ok(
            dir.path(),
            "compress",
            &format!(
                r#"
[defaults]
data = "{data}"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4
[[phase]]
name = "saturate"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 32
read_percent = 0
duration = "120s"
windows = ["last 30s"]
"#
            ),
            Path::new("sim:capacity=64MiB,op=7%,block=256KiB,compression=true"),
        );
        let (_, r) = strict_results(&out);
        let p = phase(&r, 1);
        let wa = p["device"]["write_amplification"].as_f64().expect("WA");
        if data == "zeros" {
            assert!(wa < 1.0, "zeros compress: flash bytes per host byte {wa}");
        }
        avg.push(p["windows"][0]["iops"]["avg"].as_f64().expect("avg"));
    }
    assert!(
        avg[1] > 2.0 * avg[0],
        "zeros {} vs random {} IOPS",
        avg[1],
        avg[0]
    );
}

/// The same spec and seed on the simulated drive give bit-identical series, device internals and results
/// (apart from wall-clock timestamps), including a phase ended by steady state (`until = "steady"`), whose
/// stop the collector decides while the engine waits.
#[test]
fn same_spec_and_seed_give_bit_identical_results() {
    let body = r#"
[defaults]
seed = 7
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
queue_depth = 8
[[phase]]
name = "mixed"
kind = "workload"
pattern = "random"
block_size = ["4KiB", "16KiB"]
queue_depth = 16
read_percent = 30
duration = "600s"
steady_state = { rule = "snia", max_rounds = 60 }
steady_round = "10s"
until = "steady"
"#;
    let target = Path::new("sim:capacity=64MiB,op=12%,block=256KiB");
    let runs: Vec<(tempfile::TempDir, std::path::PathBuf)> = (0..2)
        .map(|_| {
            let dir = tempdir();
            let out = run_ok(dir.path(), "repeat", body, target);
            (dir, out)
        })
        .collect();
    let strip = |mut v: serde_json::Value| {
        for k in ["started_at", "finished_at"] {
            v[k] = serde_json::Value::Null;
        }
        for p in v["phases"].as_array_mut().expect("phases") {
            p["started_at"] = serde_json::Value::Null;
        }
        v["spec"]["path"] = serde_json::Value::Null;
        v
    };
    let a = strip(strict_results(&runs[0].1).1);
    let b = strip(strict_results(&runs[1].1).1);
    assert_eq!(a, b, "results differ between identical runs");
    let ended: Vec<bool> = workloads(&a)
        .iter()
        .map(|p| p["steady_state"]["ended_phase"] == true)
        .collect();
    assert_eq!(
        ended,
        [true, true],
        "both matrix phases end at steady state"
    );
    let files = dir_listing(&runs[0].1);
    assert!(files.iter().any(|f| f.ends_with(".device.csv")));
    for f in files.iter().filter(|f| f.ends_with(".csv")) {
        assert_eq!(
            read(&runs[0].1.join(f)),
            read(&runs[1].1.join(f)),
            "{f} differs between identical runs"
        );
    }
}

/// Bad simulated targets are refused before anything runs, naming the key (exit 2).
#[test]
fn bad_sim_targets_are_refused_with_the_key() {
    let dir = tempdir();
    let body =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    for (target, needle) in [
        ("sim:capacty=1GiB", "capacty"),
        ("sim:capacity=64MiB,op=7%", "raise op"),
        ("sim:capacity=1GiB,dies=0", "dies"),
        ("sim:capacity=1GiB,page=6KiB", "page"),
        ("sim:op=7", "7"),
        // A drive whose clock would not advance, or crawl: refused, not run for years of virtual time.
        (
            "sim:capacity=1GiB,block=1MiB,interface_bytes_per_s=0",
            "interface_bytes_per_s",
        ),
        ("sim:capacity=1GiB,program_time=0s", "program_time"),
        ("sim:capacity=1GiB,command_time=0s", "command_time"),
        // GC policy and timing variation (issue 14 item 5).
        (
            "sim:capacity=1GiB,gc=lazy",
            "expected `paced` or `deferred`",
        ),
        ("sim:capacity=1GiB,gc_pace=50%", "applies to gc = deferred"),
        (
            "sim:capacity=1GiB,jitter=60%",
            "sim jitter = 60%: at most 50%",
        ),
    ] {
        let (o, out) = run_spec(dir.path(), "bad", body, Path::new(target), &[]);
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 2, "{target}: {err}");
        assert!(err.contains(needle), "{target}: {err}");
        assert!(!out.join("results.json").exists(), "{target}: nothing runs");
    }
    // An erase method the model does not have is refused at plan time.
    let (o, _) = run_spec(
        dir.path(),
        "bad",
        "[[phase]]\nname = \"e\"\nkind = \"erase\"\nmethod = \"zero-out\"\n",
        Path::new("sim:capacity=1GiB"),
        &[],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not modelled by the simulated drive"), "{err}");
    // [target] with both path and sim.
    write_file(
        dir.path(),
        "both.toml",
        &spec_text(
            "both",
            "[target]\npath = \"x.img\"\nsim = { capacity = \"1GiB\" }\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n",
        ),
    );
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &["both.toml"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("both path and sim"), "{err}");
    assert!(!dir.path().join("x.img").exists());
    // A bad key inside the spec's sim table is located.
    write_file(
        dir.path(),
        "key.toml",
        &spec_text(
            "key",
            "[target]\nsim = { capacity = \"1GiB\", spare = \"7%\" }\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n",
        ),
    );
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &["validate", "key.toml"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("spare") && err.contains("key.toml:6"), "{err}");
    // A geometry that is not a drive is found by validate, at the key (or the table, for a default).
    for (table, at, needle) in [
        (
            "{ capacity = \"64MiB\", op = \"7%\" }",
            "key.toml:6:29: target.sim.op",
            "raise op",
        ),
        (
            "{ capacity = \"1GiB\", page = \"6KiB\" }",
            "key.toml:6:28: target.sim.page",
            "6144 B",
        ),
        (
            "{ capacity = \"64MiB\" }",
            "key.toml:6:1: target.sim",
            "raise op",
        ),
    ] {
        write_file(
            dir.path(),
            "key.toml",
            &spec_text(
                "key",
                &format!(
                    "[target]\nsim = {table}\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n"
                ),
            ),
        );
        let (code, _, err) = code_out_err(&wkrun(dir.path(), &["validate", "key.toml"]));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(at) && err.contains(needle), "{table}: {err}");
    }
}

/// Attack 24c F15: two drives differing only in program time had one name (`sim:capacity=256MiB,op=20%,dies=1`)
/// in results (`target.path`), the default label and compare's column heads, told apart only by their
/// folders; the plan line left the program time out too. Each is now named by every parameter off its
/// default, and the name runs the same drive again.
#[test]
fn drives_that_differ_in_program_time_have_different_names() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"2s\"\n";
    let cases = [
        (
            "fast",
            "sim:capacity=256MiB,op=20%,program_time=100us",
            "sim:capacity=256MiB,op=20%,dies=1,program_time=100us",
        ),
        (
            "slow",
            "sim:capacity=256MiB,op=20%,program_time=9000us",
            "sim:capacity=256MiB,op=20%,dies=1,program_time=9ms",
        ),
    ];
    for (sub, given, name) in cases {
        std::fs::create_dir(d.join(sub)).unwrap();
        let out = run_ok(&d.join(sub), "p", body, Path::new(given));
        let r = results(&out);
        assert_eq!(r["target"]["path"], name);
        assert_eq!(r["label"], name);
        // The name, given back as the target, is the same drive.
        std::fs::create_dir(d.join(sub).join("again")).unwrap();
        let again = run_ok(&d.join(sub).join("again"), "p", body, Path::new(name));
        let a = results(&again);
        assert_eq!(a["target"]["sim"], r["target"]["sim"], "{name}");
        let ops = r["phases"][0]["write"]["ops"].as_u64().expect("write ops");
        assert!(ops > 0, "{name}");
        assert_eq!(a["phases"][0]["write"]["ops"].as_u64(), Some(ops), "{name}");
    }
    let o = wkrun(d, &["compare", "fast/out", "slow/out"]);
    let (code, table, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let head: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or_default()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(head, ["phase", "metric", cases[0].2, cases[1].2]);
    let o = wkrun(
        d,
        &[
            "plan",
            "fast/spec.toml",
            "--target",
            "sim:capacity=1GiB,op=1750%,dies=256,program_time=1us",
        ],
    );
    let (code, plan, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        plan.lines().nth(1),
        Some(
            "target sim:capacity=1GiB,op=1750%,dies=256,program_time=1us (simulated SSD, virtual time): 1073741824 B (1GiB), logical block 512 B, physical block 4096 B, model wkrun simulated SSD (page-mapped FTL, greedy GC)"
        )
    );
}

/// The spec's `[target] sim` table runs like `--target sim:...`, and `wkrun plan` shows the model.
#[test]
fn spec_sim_table_and_plan() {
    let dir = tempdir();
    write_file(
        dir.path(),
        "s.toml",
        &spec_text(
            "tbl",
            "[target]\nsim = { capacity = \"64MiB\", op = \"28%\", block = \"256KiB\" }\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"3s\"\n",
        ),
    );
    let o = wkrun(dir.path(), &["plan", "s.toml", "--json"]);
    let (code, plan, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&plan).expect("plan JSON");
    assert_eq!(plan["target"]["kind"], "sim");
    assert_eq!(
        plan["target"]["path"],
        "sim:capacity=64MiB,op=28%,block=256KiB,dies=1"
    );
    assert_eq!(plan["target"]["sim"]["params"]["block"], "256KiB");
    let o = wkrun(dir.path(), &["s.toml", "-o", "out", "-q"]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&dir.path().join("out"));
    let w = phase(&r, 0);
    assert_eq!(w["duration_s"].as_f64().map(|d| d >= 3.0), Some(true));
    assert_eq!(u(w, "/device/host_write_bytes"), u(w, "/write/ops") * 4096);
    // Nothing was created on the host but the output folder.
    assert_eq!(top_names(dir.path()), ["out", "s.toml"]);
}

/// Verification needs data, which the simulated drive does not keep: refused at plan time, naming the key.
#[test]
fn verification_is_refused_on_the_simulated_drive() {
    let dir = tempdir();
    for (body, key) in [
        (
            "[[phase]]\nname = \"f\"\nkind = \"fill\"\nverify = true\n",
            "verify",
        ),
        ("[[phase]]\nname = \"v\"\nkind = \"verify\"\n", "kind"),
    ] {
        let (o, out) = run_spec(dir.path(), "v", body, Path::new("sim:capacity=1GiB"), &[]);
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("keeps no data") && err.contains(key), "{err}");
        assert!(!out.join("results.json").exists());
    }
}

/// A rate-capped, time-bounded phase lasts its duration on the virtual clock, as on the wall clock: 3 IOPS
/// for 10 s issue exactly 30 writes, the phase lasts 10 s, and the series and device CSVs have 10 rows
/// each, the last ending at 10 s.
#[test]
fn rate_capped_phase_lasts_its_duration_in_virtual_time() {
    let dir = tempdir();
    let out = run_ok(
        dir.path(),
        "rate",
        r#"
[[phase]]
name = "capped"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 4
read_percent = 0
duration = "10s"
rate_iops = 3
"#,
        Path::new("sim:capacity=64MiB,op=28%,block=256KiB"),
    );
    let (_, r) = strict_results(&out);
    let w = phase(&r, 0);
    assert_eq!(u(w, "/write/ops"), 30);
    assert_eq!(w["duration_s"].as_f64(), Some(10.0));
    let (series, device) = phase_csvs(&out, &r, 0);
    assert_eq!(series.len(), 10);
    assert_eq!(device.len(), 10);
    assert_eq!(f(&series[9], "t_s"), 10.0);
    assert_eq!(f(&device[9], "t_s"), 10.0);
    assert!(
        series.iter().all(|row| n(row, "write_ops") == 3),
        "3 writes a second"
    );
}

/// `--allow-destroy DEVICE` with a target that is not that device (a forgotten `--target`): refused, since
/// running on the default file or a simulated drive would look like a test of the device. Nothing is made.
#[test]
fn allow_destroy_without_the_device_as_target_is_refused() {
    let dir = tempdir();
    let body =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    write_file(dir.path(), "s.toml", &spec_text("ad", body));
    for target in [None, Some("sim:capacity=1GiB"), Some("t.img")] {
        let mut args = vec!["s.toml", "--allow-destroy", "/dev/null", "-o", "out"];
        if let Some(t) = target {
            args.extend(["--target", t]);
        }
        let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
        assert_eq!(code, 2, "{target:?}: {err}");
        assert!(
            err.contains("--allow-destroy names /dev/null, but the target is")
                && err.contains("add --target /dev/null"),
            "{target:?}: {err}"
        );
        assert_eq!(
            top_names(dir.path()),
            ["s.toml"],
            "{target:?}: nothing created"
        );
    }
    // The file target itself named: the message said to add --target t.img, which is given (found by the
    // attack session).
    write_file(dir.path(), "t.img", &"x".repeat(1 << 20));
    let o = wkrun(
        dir.path(),
        &[
            "s.toml",
            "--target",
            "t.img",
            "--allow-destroy",
            "./t.img",
            "-o",
            "out",
        ],
    );
    assert_eq!(
        code_out_err(&o),
        (
            2,
            String::new(),
            "error: --allow-destroy names ./t.img, which is the target itself, a file: only a block device needs --allow-destroy; drop it\n".to_string()
        )
    );
    assert_eq!(
        top_names(dir.path()),
        ["s.toml", "t.img"],
        "nothing created"
    );
}
