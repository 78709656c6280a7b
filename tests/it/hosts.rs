//! Issue 15 item 3: many hosts, one wkrun each. Three wkrun started by OpenMPI's mpirun on three file
//! targets with a common start (`--start-at`), their results merged (`wkrun merge`) and checked against an
//! oracle computed here from the hosts' own files: ops added exactly, rows on one grid, histograms added,
//! percentiles recomputed from the histograms. Also the refusals: bad `--start-at`, `{rank}` without a rank,
//! results that do not belong together.

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const SPEC: &str = r#"[defaults]
engine = "psync"
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
[[phase]]
name = "mixed"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 2
read_percent = 50
duration = "2s"
interval = "500ms"
"#;

/// The rank variables a launcher sets; removed from test commands that must see none.
const RANK_VARS: [&str; 6] = [
    "OMPI_COMM_WORLD_RANK",
    "PMIX_RANK",
    "PMI_RANK",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_PROCID",
    "JOB_COMPLETION_INDEX",
];

fn wkrun_clean(cwd: &Path, args: &[&str]) -> std::process::Output {
    let mut c = Command::new(wkrun_bin());
    for v in RANK_VARS {
        c.env_remove(v);
    }
    c.args(args).current_dir(cwd).output().expect("run wkrun")
}

/// Checks one merged direction (`read`, `write` or `total`) of phase `i` against the hosts'.
fn check_direction(merged: &Value, hosts: &[Value], i: usize, dir: &str) {
    let m = &merged["phases"][i];
    let ops: u64 = hosts
        .iter()
        .map(|h| u(h, &format!("/phases/{i}/{dir}/ops")))
        .sum();
    let bytes: u64 = hosts
        .iter()
        .map(|h| u(h, &format!("/phases/{i}/{dir}/bytes")))
        .sum();
    assert_eq!(u(m, &format!("/{dir}/ops")), ops, "phase {i} {dir} ops");
    assert_eq!(
        u(m, &format!("/{dir}/bytes")),
        bytes,
        "phase {i} {dir} bytes"
    );
    if ops == 0 {
        assert!(m[dir]["latency_ns"].is_null());
        return;
    }
    // The oracle's histogram: every host's buckets of the direction(s), added.
    let dirs: &[&str] = if dir == "total" {
        &["read", "write"]
    } else {
        &[dir]
    };
    let mut sum = BTreeMap::new();
    for h in hosts {
        for d in dirs {
            for (v, c) in buckets_of(&h["phases"][i]["latency_histograms"][d]) {
                *sum.entry(v).or_insert(0u64) += c;
            }
        }
    }
    assert_eq!(
        sum.values().sum::<u64>(),
        ops,
        "phase {i} {dir}: histogram count = ops"
    );
    if dir != "total" {
        assert_eq!(
            buckets_of(&m["latency_histograms"][dir]),
            sum,
            "phase {i} {dir} buckets"
        );
    }
    let lat = |h: &Value, k: &str| u(h, &format!("/phases/{i}/{dir}/latency_ns/{k}"));
    let min = hosts
        .iter()
        .filter(|h| u(h, &format!("/phases/{i}/{dir}/ops")) > 0)
        .map(|h| lat(h, "min"))
        .min()
        .unwrap();
    let max = hosts.iter().map(|h| lat(h, "max")).max().unwrap_or(0);
    let ml = &m[dir]["latency_ns"];
    assert_eq!(
        (ml["min"].as_u64(), ml["max"].as_u64()),
        (Some(min), Some(max))
    );
    for (key, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p99_9", 99.9)] {
        assert_eq!(
            ml[key].as_u64(),
            Some(percentile(&sum, p, min, max)),
            "phase {i} {dir} {key}"
        );
    }
}

/// Checks the merged series of phase `i`: each merged row holds exactly the hosts' rows whose midpoints fall
/// in its grid interval (the grid from the earliest host's t = 0), on a grid of the phase's interval.
fn check_series(dir: &Path, merged: &Value, hosts: &[Value], i: usize) {
    let m = &merged["phases"][i];
    let name = m["series_csv"].as_str().unwrap();
    let interval = u(m, "/params/interval_ns");
    let t0: Vec<u64> = hosts
        .iter()
        .map(|h| u(h, &format!("/phases/{i}/series_t0_unix_ns")))
        .collect();
    let origin = *t0.iter().min().unwrap();
    assert_eq!(u(m, "/series_t0_unix_ns"), origin);
    // Per grid interval: reads, writes, whether a host's row placed there is partial, the latest end.
    let mut want: BTreeMap<u64, (u64, u64, bool, f64)> = BTreeMap::new();
    for (r, h) in hosts.iter().enumerate() {
        let file = h["phases"][i]["series_csv"].as_str().unwrap();
        for row in csv_rows(&dir.join(format!("out{r}")).join(file)) {
            let shift = (t0[r] - origin) as f64;
            let mid = shift + (f(&row, "t_s") - f(&row, "interval_s") / 2.0) * 1e9;
            let e = want
                .entry((mid / interval as f64).floor() as u64)
                .or_default();
            e.0 += n(&row, "read_ops");
            e.1 += n(&row, "write_ops");
            e.2 |= n(&row, "partial") == 1;
            e.3 = e.3.max(shift + f(&row, "t_s") * 1e9);
        }
    }
    let rows = csv_rows(&dir.join("merged").join(name));
    assert_eq!(rows.len() as u64, u(m, "/intervals"));
    assert_eq!(
        rows.len() as u64,
        want.keys().max().unwrap() + 1,
        "phase {i}: one row per grid interval"
    );
    for (k, row) in rows.iter().enumerate() {
        let (r, w, partial, end) = want.get(&(k as u64)).copied().unwrap_or_default();
        assert_eq!(
            (n(row, "read_ops"), n(row, "write_ops")),
            (r, w),
            "phase {i} row {k}"
        );
        if k + 1 < rows.len() {
            // Every row but the last ends on the grid, (k + 1) intervals from the start; unless every
            // host's row placed in it ended early (a phase shorter than the interval on a host that
            // started first, when another started an interval later: seen under heavy load), then at
            // the latest of their ends, within the interval.
            let (start, next) = (
                (k as u64 * interval) as f64,
                ((k as u64 + 1) * interval) as f64,
            );
            let want_end = match partial {
                false => next,
                true => end.clamp(start, next),
            };
            // Within the CSV's microsecond.
            assert!(
                (f(row, "t_s") * 1e9 - want_end).abs() <= 1e3,
                "phase {i} row {k} t_s {} (want {want_end} ns)",
                f(row, "t_s")
            );
            assert_eq!(n(row, "partial"), u64::from(partial), "phase {i} row {k}");
        }
    }
    let total: u64 = rows
        .iter()
        .map(|r| n(r, "read_ops") + n(r, "write_ops"))
        .sum();
    assert_eq!(
        total,
        u(m, "/total/ops"),
        "phase {i}: merged rows add up to the phase's ops"
    );
}

#[test]
fn three_hosts_under_mpirun_start_together_and_merge_exactly() {
    let test = "hosts::three_hosts_under_mpirun_start_together_and_merge_exactly";
    if Command::new("mpirun").arg("--version").output().is_err() {
        return skip(test, "no mpirun (Debian: apt-get install openmpi-bin)");
    }
    let d = tempdir();
    let dir = d.path();
    write_file(dir, "spec.toml", &spec_text("hosts", SPEC));
    let o = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            "3",
            wkrun_bin(),
        ])
        .args([
            "spec.toml",
            "--target",
            "t{rank}.img",
            "--target-size",
            "4MiB",
        ])
        .args([
            "-o",
            "out{rank}",
            "--start-at",
            "+2",
            "--phase-grid",
            "2s",
            "-q",
        ])
        .current_dir(dir)
        .output()
        .expect("run mpirun");
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "mpirun: {err}");
    let hosts: Vec<Value> = (0..3)
        .map(|r| results(&dir.join(format!("out{r}"))))
        .collect();
    for (r, h) in hosts.iter().enumerate() {
        let l = &h["launch"];
        assert_eq!(l["rank"].as_u64(), Some(r as u64));
        assert_eq!(l["rank_source"], "OMPI_COMM_WORLD_RANK");
        assert_eq!(
            u(l, "/start_at_unix_ns") % 1_000_000_000,
            0,
            "+2 is rounded up to a whole second"
        );
        assert_eq!(l["phase_grid_s"].as_f64(), Some(2.0));
        let starts = l["phase_starts"].as_array().unwrap();
        assert_eq!(starts.len(), 2);
        assert_eq!(
            u(&starts[0], "/requested_unix_ns"),
            u(l, "/start_at_unix_ns")
        );
        for s in starts {
            let off = s["offset_ns"].as_i64().unwrap();
            assert!(off.abs() < 1_000_000_000, "rank {r}: offset {off} ns");
            assert_eq!(
                off,
                u(s, "/started_unix_ns") as i64 - u(s, "/requested_unix_ns") as i64
            );
        }
        // The later phase starts on the 2 s grid from the common start.
        assert_eq!(
            (u(&starts[1], "/requested_unix_ns") - u(l, "/start_at_unix_ns")) % 2_000_000_000,
            0
        );
        assert_eq!(
            u(h, "/phases/0/write/ops"),
            64,
            "rank {r}: a 4 MiB fill in 64 KiB writes"
        );
    }
    let o = wkrun(dir, &["merge", "out0", "out2", "out1", "-o", "merged"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "merge: {err}");
    let (typed, merged) = strict_results(&dir.join("merged"));
    // The summary, then each phase's merged totals as the run's summary line prints one host's.
    let mut want = format!(
        "merged 3 hosts, 2 phases: {}",
        Path::new("merged").join("results.json").display()
    );
    for p in &typed.phases {
        want.push_str(&format!(
            "\n  phase {} \"{}\": {}",
            p.index,
            p.name,
            expected_totals(p)
        ));
        for l in expected_sum_lines("  ", "hosts", p) {
            want.push('\n');
            want.push_str(&l);
        }
    }
    assert_eq!(out.trim(), want);
    let ranks: Vec<u64> = merged["cluster"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(
        ranks,
        [0, 1, 2],
        "hosts in rank order whatever the order given"
    );
    for (r, h) in merged["cluster"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(
            h["start_offset_ns"],
            hosts[r]["launch"]["phase_starts"][0]["offset_ns"]
        );
    }
    assert_eq!(u(&merged, "/phases/0/write/ops"), 192);
    // The hosts' plan, kept (trial 22): each host planned both phases.
    let plan = serde_json::json!([
        {"index": 0, "name": "fill", "kind": "fill"},
        {"index": 1, "name": "mixed", "kind": "workload"},
    ]);
    for h in &hosts {
        assert_eq!(h["planned_phases"], plan);
    }
    assert_eq!(merged["planned_phases"], plan);
    let (code, out, err) = code_out_err(&wkrun(dir, &["validate", "merged"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "merged: ok (results, 2 phases, 2 series CSVs, 3 hosts' results)\n"
        ),
        "{err}"
    );
    for i in 0..2 {
        for dir_name in ["read", "write", "total"] {
            check_direction(&merged, &hosts, i, dir_name);
        }
        check_series(dir, &merged, &hosts, i);
        for (r, hp) in merged["phases"][i]["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_eq!(hp["rank"].as_u64(), Some(r as u64));
            assert_eq!(hp["read"], hosts[r]["phases"][i]["read"]);
            assert_eq!(hp["write"], hosts[r]["phases"][i]["write"]);
        }
    }
    assert!(u(&merged, "/phases/1/total/ops") > 0);
    // Started together: no phase is said to be run apart.
    for i in 0..2 {
        assert_eq!(warnings_from(&merged, i, APART), Vec::<&str>::new());
    }
    // The merged folder reads as any results folder.
    let (code, _, err) = code_out_err(&wkrun(dir, &["compare", "merged", "out0"]));
    assert_eq!(code, 0, "compare: {err}");
    let (code, _, err) = code_out_err(&wkrun(dir, &["report", "merged"]));
    assert_eq!(code, 0, "report: {err}");
}

#[test]
fn bad_start_times_and_a_rank_template_without_a_rank_exit_2_writing_nothing() {
    let d = tempdir();
    let dir = d.path();
    write_file(dir, "spec.toml", &spec_text("hosts", SPEC));
    let cases: [(&[&str], &str); 7] = [
        // Found by the attack session: a grid of 1000 days was taken, and the second phase waited.
        (
            &["--start-at", "+1", "--phase-grid", "1000d"],
            "error: --phase-grid: 1000d is more than 7 days: a later phase would wait up to that long for its start\n",
        ),
        (
            &["--start-at", "tomorrow"],
            "error: --start-at \"tomorrow\": not a time; give an RFC 3339 time such as 2026-12-01T12:00:00Z (date -u +%FT%TZ) or +SECONDS from now\n",
        ),
        // Found by the attack session: "no time zone" for an offset out of range (and for "tomorrow").
        (
            &["--start-at", "2026-12-01T12:00:00+25:00"],
            "error: --start-at \"2026-12-01T12:00:00+25:00\": the offset +25:00 is not one (hours 00 to 23, minutes 00 to 59); give an RFC 3339 time such as 2026-12-01T12:00:00Z (date -u +%FT%TZ) or +SECONDS from now\n",
        ),
        (
            &["--start-at", "+soon"],
            "error: --start-at \"+soon\": after '+' give a number of seconds from now, e.g. +30 or +2.5\n",
        ),
        (
            &["--start-at", "2001-01-01T00:00:00Z"],
            "error: --start-at \"2001-01-01T00:00:00Z\": that is ",
        ),
        (
            &["--start-at", "+1", "--phase-grid", "0s"],
            "error: --phase-grid: the grid must be longer than 0\n",
        ),
        (
            &["--target", "t{rank}.img"],
            "error: --target t{rank}.img: {rank} needs this host's rank, and none of OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_ARRAY_TASK_ID, SLURM_PROCID or JOB_COMPLETION_INDEX is set (a launcher such as mpirun, srun or a Kubernetes indexed Job sets one); give --rank N\n",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["spec.toml", "-o", "out", "-q"];
        if !extra.contains(&"--target") {
            args.extend(["--target", "t.img"]);
        }
        args.extend_from_slice(extra);
        let (code, _, err) = code_out_err(&wkrun_clean(dir, &args));
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.starts_with(want), "{extra:?}: {err}");
        assert_eq!(
            dir_listing(dir),
            ["spec.toml"],
            "{extra:?}: nothing written"
        );
    }
    let (code, _, err) = code_out_err(&wkrun_clean(
        dir,
        &[
            "spec.toml",
            "--target",
            "t.img",
            "-o",
            "o",
            "--phase-grid",
            "1s",
        ],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--start-at"), "{err}");
    let env_bad = Command::new(wkrun_bin())
        .env("OMPI_COMM_WORLD_RANK", "first")
        .args(["spec.toml", "--target", "t{rank}.img", "-o", "out"])
        .current_dir(dir)
        .output()
        .unwrap();
    let (code, _, err) = code_out_err(&env_bad);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "error: OMPI_COMM_WORLD_RANK=\"first\" is not a rank (a whole number from 0); give --rank N\n"
        )
    );
    assert_eq!(dir_listing(dir), ["spec.toml"]);
}

#[test]
fn an_explicit_rank_names_the_files_and_merge_refuses_two_hosts_of_one_rank_or_two_specs() {
    let d = tempdir();
    let dir = d.path();
    let small =
        "[[phase]]\nname = \"w\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"64KiB\"\n";
    write_file(dir, "spec.toml", &spec_text("small", small));
    for out in ["a", "b"] {
        let args = [
            "spec.toml",
            "--rank",
            "5",
            "--target",
            "t{rank}-{host}.img",
            "--target-size",
            "1MiB",
            "-o",
            out,
            "-q",
        ];
        let (code, _, err) = code_out_err(&wkrun_clean(dir, &args));
        assert_eq!(code, 0, "{err}");
    }
    let host = results(&dir.join("a"))["host"]["hostname"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(dir.join(format!("t5-{host}.img")).exists());
    let l = &results(&dir.join("a"))["launch"];
    assert_eq!(
        (l["rank"].as_u64(), l["rank_source"].as_str()),
        (Some(5), Some("--rank"))
    );
    assert!(l.get("start_at").is_none() && l.get("phase_starts").is_none());
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "a", "b", "-o", "m"]));
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: {} and {} are both rank 5: merge one results folder per host\n",
            Path::new("a/results.json").display(),
            Path::new("b/results.json").display()
        )
    );
    write_file(dir, "other.toml", &spec_text("other", small));
    let (code, _, err) = code_out_err(&wkrun_clean(
        dir,
        &[
            "other.toml",
            "--rank",
            "6",
            "--target",
            "u.img",
            "--target-size",
            "1MiB",
            "-o",
            "c",
            "-q",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "a", "c", "-o", "m"]));
    assert_eq!(code, 2);
    assert!(err.contains(": merge runs of the same spec"), "{err}");
    assert!(!dir.join("m").exists(), "nothing written");
    // One host merged alone keeps its own numbers.
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "a", "-o", "m1"]));
    assert_eq!(code, 0, "{err}");
    let (m, a) = (results(&dir.join("m1")), results(&dir.join("a")));
    assert_eq!(
        m["phases"][0]["write"]["latency_ns"],
        a["phases"][0]["write"]["latency_ns"]
    );
    assert_eq!(m["phases"][0]["write"]["ops"], 16);
}

#[test]
fn a_rank_template_on_a_block_device_needs_allow_destroy_naming_the_expanded_device() {
    let test =
        "hosts::a_rank_template_on_a_block_device_needs_allow_destroy_naming_the_expanded_device";
    let _g = loop_guard();
    let d = tempdir();
    let dir = d.path();
    let dev = match LoopDev::new(dir, 8, 512) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    // /dev/loopN: the rank N makes /dev/loop{rank} name this device.
    let n = dev.sys_name().trim_start_matches("loop").to_string();
    let small = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"1MiB\"\n";
    write_file(dir, "spec.toml", &spec_text("dev", small));
    let run = |extra: &[&str], out: &str| {
        let mut args = vec![
            "spec.toml",
            "--rank",
            &n,
            "--target",
            "/dev/loop{rank}",
            "-o",
            out,
            "-q",
        ];
        args.extend_from_slice(extra);
        code_out_err(&wkrun_clean(dir, &args))
    };
    let before = dev.sectors_written();
    let expanded = dev.dev.display().to_string();
    // No consent, or consent naming another device (the template expanded for another rank): refused.
    let (code, _, err) = run(&[], "o1");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&expanded),
        "the refusal names the expanded device: {err}"
    );
    let (code, _, err) = run(&["--allow-destroy", "/dev/loop{rank}9"], "o2");
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        dev.sectors_written(),
        before,
        "nothing written when refused"
    );
    assert!(!dir.join("o1").exists() && !dir.join("o2").exists());
    // The same template in --allow-destroy names the same device on this host: the run writes.
    let (code, _, err) = run(&["--allow-destroy", "/dev/loop{rank}"], "o3");
    assert_eq!(code, 0, "{err}");
    let r = results(&dir.join("o3"));
    assert_eq!(r["target"]["path"], expanded.as_str());
    assert_eq!(u(&r, "/phases/0/write/ops"), 256);
    assert_eq!(
        dev.sectors_written() - before,
        2048,
        "1 MiB in 512 B sectors"
    );
}

#[test]
fn a_signal_during_the_wait_for_the_start_interrupts_with_the_launch_recorded() {
    let d = tempdir();
    let dir = d.path();
    write_file(dir, "spec.toml", &spec_text("hosts", SPEC));
    let mut child = Command::new(wkrun_bin())
        .args([
            "spec.toml",
            "--target",
            "t.img",
            "--target-size",
            "4MiB",
            "-o",
            "out",
        ])
        .args(["--rank", "1", "--start-at", "+60", "-q"])
        .current_dir(dir)
        .spawn()
        .expect("spawn wkrun");
    // The wait has begun once results.json says so.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !dir.join("out/results.json").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let t = std::time::Instant::now();
    // SAFETY: kill takes a pid and a signal number; the child is ours and has not been reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "the wait stops at once"
    );
    let r = results(&dir.join("out"));
    assert_eq!(r["status"], "interrupted");
    assert_eq!(r["phases"].as_array().map(Vec::len), Some(0));
    assert_eq!(
        (
            r["launch"]["rank"].as_u64(),
            r["launch"]["rank_source"].as_str()
        ),
        (Some(1), Some("--rank"))
    );
    assert!(
        r["launch"]["start_at"]
            .as_str()
            .unwrap()
            .ends_with(".000000000Z")
    );
    assert!(
        r["launch"].get("phase_starts").is_none(),
        "no phase started"
    );
}

/// `plan` expands `{rank}` in `--target` as a run does (`--rank` or the launcher's variable), so the plan of
/// a templated command line can be checked first; without a rank it says so, exit 2 (attacker).
#[test]
fn plan_expands_the_rank_template() {
    let tmp = tempdir();
    let d = tmp.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\n";
    write_file(d, "s.toml", &spec_text("p", body));
    let (code, out, err) = code_out_err(&wkrun(
        d,
        &["plan", "s.toml", "--target", "t{rank}.img", "--rank", "3"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().any(|l| l.starts_with("target t3.img ")),
        "{out}"
    );
    let (code, _, err) = code_out_err(&wkrun(d, &["plan", "s.toml", "--target", "t{rank}.img"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: --target t{rank}.img: {rank} needs this host's rank"),
        "{err}"
    );
    assert!(!d.join("t3.img").exists() && !d.join("t{rank}.img").exists());
}

/// How the warning of a merged phase whose hosts ran it one after the other begins.
const APART: &str = "the hosts did not run this phase at the same time";

/// The merged phase `i`'s warnings that begin with `prefix`.
fn warnings_from<'a>(merged: &'a Value, i: usize, prefix: &str) -> Vec<&'a str> {
    merged["phases"][i]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(Value::as_str)
        .filter(|w| w.starts_with(prefix))
        .collect()
}

/// Two hosts run one after the other (newcomer trial 20): the merged rates are their I/Os over the whole
/// span, idle gap included, so the merged phase says first, and `wkrun merge` on stderr, that the hosts did
/// not run it at the same time, naming them and the gap recomputed here from each host's own series start
/// and duration.
#[test]
fn hosts_run_one_after_the_other_are_warned_of_the_gap() {
    let d = tempdir();
    let dir = d.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\nread_percent = 0\npattern = \"random\"\nblock_size = \"4KiB\"\nduration = \"300ms\"\ninterval = \"100ms\"\n";
    write_file(dir, "spec.toml", &spec_text("apart", body));
    for rank in ["0", "1"] {
        let (t, out) = (format!("t{rank}.img"), format!("r{rank}"));
        let args = [
            "spec.toml",
            "--rank",
            rank,
            "--target",
            &t,
            "--target-size",
            "1MiB",
            "-o",
            &out,
            "-q",
        ];
        let (code, _, err) = code_out_err(&wkrun_clean(dir, &args));
        assert_eq!(code, 0, "{err}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let (code, merged_out, err) = code_out_err(&wkrun(dir, &["merge", "r1", "r0", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    // The merge's summary says the hosts' own rates beside the merged one (trial 21 F6), the numbers
    // recomputed from the results: run one after the other, their own rates add to about twice it.
    let (typed, _) = strict_results(&dir.join("m"));
    let said = expected_sum_lines("  ", "hosts", &typed.phases[0]);
    assert_eq!(said.len(), 2, "{merged_out}");
    assert!(
        said[1].contains("the hosts' own rates add to"),
        "{}",
        said[1]
    );
    for l in &said {
        assert!(
            merged_out.lines().any(|o| o == l),
            "{l} not in {merged_out}"
        );
    }
    let (p0, p1) = (results(&dir.join("r0")), results(&dir.join("r1")));
    let ns = |v: &Value| u(v, "/phases/0/series_t0_unix_ns");
    let dur = |v: &Value| v["phases"][0]["duration_s"].as_f64().expect("duration");
    let end0 = ns(&p0) + (dur(&p0) * 1e9).round() as u64;
    assert!(ns(&p1) > end0, "rank 1 starts after rank 0 ended");
    let span = (ns(&p1) - ns(&p0)) as f64 / 1e9 + dur(&p1);
    let want = format!(
        "{APART}: rank 1 started it {:.3} s after rank 0 had ended it, so the merged rates, the I/Os over the whole {span:.3} s span, are below what they did together; read each one's own rate in the phase's hosts[] (the table of hosts in wkrun report), or run them together (under mpirun with --start-at, docs/hosts.md)",
        (ns(&p1) - end0) as f64 / 1e9
    );
    let m = results(&dir.join("m"));
    assert_eq!(m["phases"][0]["warnings"][0].as_str(), Some(want.as_str()));
    assert_eq!(warnings_from(&m, 0, APART).len(), 1);
    assert_eq!(m["phases"][0]["duration_s"].as_f64(), Some(span));
    assert_eq!(err, format!("warning: phase 0 \"w\": {want}\n"));
    // `compare` says it under its table, the merged run named by its column's heading.
    let (code, out, err) = code_out_err(&wkrun(dir, &["compare", "m", "r0"]));
    assert_eq!(code, 0, "{err}");
    let said: Vec<&str> = out.lines().filter(|l| l.contains(APART)).collect();
    assert_eq!(said.len(), 1, "{out}");
    assert!(said[0].starts_with("note: "), "{}", said[0]);
    assert!(
        said[0].ends_with(&format!(": phase \"w\": {want}")),
        "{}",
        said[0]
    );
}

/// Hosts that each ran two targets: each host's aggregate keeps its rank (`launch`), names its targets' warnings
/// by target, and merges with the other host's aggregate by rank into exactly the sum of the four targets;
/// a merged folder given again with one of the hosts it merged is refused (its ops would count twice).
#[test]
fn hosts_with_several_targets_merge_by_rank_and_nothing_counts_twice() {
    let d = tempdir();
    let dir = d.path();
    let small = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\nread_percent = 0\npattern = \"sequential\"\nblock_size = \"64KiB\"\nsize = \"1MiB\"\n";
    write_file(dir, "spec.toml", &spec_text("small", small));
    for rank in ["1", "0"] {
        let (a, b) = (format!("a{rank}.img"), format!("b{rank}.img"));
        // Existing sparse files: the writes land in holes, so each target's phase carries that warning.
        sparse_file(&dir.join(&a), 2 << 20);
        sparse_file(&dir.join(&b), 2 << 20);
        let out = format!("h{rank}");
        let args = [
            "spec.toml",
            "--rank",
            rank,
            "--target",
            &a,
            "--target",
            &b,
            "-o",
            &out,
            "-q",
        ];
        let (code, _, err) = code_out_err(&wkrun_clean(dir, &args));
        assert_eq!(code, 0, "{err}");
        let r = results(&dir.join(&out));
        assert_eq!(r["launch"]["rank"].as_u64(), rank.parse().ok());
        // A run's targets start each phase together: never said to be run apart.
        let apart = "the targets did not run this phase at the same time";
        assert_eq!(warnings_from(&r, 0, apart), Vec::<&str>::new());
        let holes = "writes into holes: latencies include the file system's allocation work; run a fill first: 2097152 B (100.0 %) of the write range [0, 2097152) are holes in the file";
        let w: Vec<&str> = r["phases"][0]["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter_map(|w| w.as_str())
            .filter(|w| w.contains(" are holes in the file "))
            .collect();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with(&format!("target t0-{a}: {holes}")),
            "{}",
            w[0]
        );
        assert!(
            w[1].starts_with(&format!("target t1-{b}: {holes}")),
            "{}",
            w[1]
        );
    }
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "h1", "h0", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let m = results(&dir.join("m"));
    let ranks: Vec<Option<u64>> = m["cluster"]["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| h["rank"].as_u64())
        .collect();
    assert_eq!(ranks, vec![Some(0), Some(1)]);
    assert_eq!(m["phases"][0]["write"]["ops"], 4 * 16);
    assert_eq!(m["phases"][0]["write"]["bytes"], 4 << 20);
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "m", "h0", "-o", "m2"]));
    assert_eq!(code, 2, "{err}");
    let h0 = results(&dir.join("h0"));
    assert_eq!(
        err,
        format!(
            "error: m/results.json and h0/results.json both hold the run of {} on {} started {}: a merged folder already counts the hosts it merged; merge each host's results once\n",
            h0["host"]["hostname"].as_str().unwrap(),
            h0["target"]["path"].as_str().unwrap(),
            h0["started_at"].as_str().unwrap()
        )
    );
    assert!(!dir.join("m2").exists(), "nothing written");
    // A merge of one host (which holds that host's run twice: as itself and as its one host) merges with the
    // other host: nothing is shared between the two.
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "h0", "-o", "m0"]));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = code_out_err(&wkrun(dir, &["merge", "m0", "h1", "-o", "m3"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        results(&dir.join("m3"))["phases"][0]["write"]["ops"],
        4 * 16
    );
}

/// A simulated drive's run (virtual time) and a real target's (wall clock) of one spec: `merge` refuses
/// them, naming both and why (exit 2, nothing written); before, it added their ops and rates.
#[test]
fn merge_refuses_a_simulated_run_with_a_real_one() {
    let d = tempdir();
    let dir = d.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"64KiB\"\nread_percent = 0\n\
                engine = \"psync\"\nduration = \"200ms\"\n";
    write_file(dir, "spec.toml", &spec_text("mix", body));
    for (target, out) in [("sim:capacity=2GiB,op=7%", "s"), ("t.img", "r")] {
        let args = [
            "spec.toml",
            "--target",
            target,
            "--target-size",
            "1MiB",
            "-o",
            out,
            "-q",
        ];
        let (code, _, err) = code_out_err(&wkrun_clean(dir, &args));
        assert_eq!(code, 0, "{err}");
    }
    let before = dir_listing(dir);
    for (a, b) in [("s", "r"), ("r", "s")] {
        let (code, _, err) = code_out_err(&wkrun(dir, &["merge", a, b, "-o", "m"]));
        assert_eq!(
            (code, err),
            (
                2,
                "error: s/results.json ran on a simulated drive (sim:capacity=2GiB,op=7%,dies=1: virtual time) \
                 and r/results.json on a real target (t.img: the wall clock): their durations, rates and \
                 series are on different clocks and cannot be added; merge simulated runs together, or real \
                 ones\n"
                    .to_string()
            ),
            "{a} {b}"
        );
        assert_eq!(dir_listing(dir), before, "nothing written");
    }
}

/// Results edited or corrupted so that the merge's sums pass 64 bits (`"bytes": 18446744073709551615`), or
/// a series row whose time is not one (NaN, infinite, negative, huge), made `wkrun merge` panic with an
/// overflow (found by the attack session); now each is refused naming the file and field, exit 2, nothing
/// written. A row far in time but finite merges without a panic.
#[test]
fn merge_refuses_counts_past_64_bits_and_rows_whose_time_is_not_one() {
    let d = tempdir();
    let dir = d.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"64KiB\"\nread_percent = 0\n\
                engine = \"psync\"\nsize = \"256KiB\"\n";
    write_file(dir, "spec.toml", &spec_text("sums", body));
    for rank in ["0", "1"] {
        let args = [
            "spec.toml",
            "--rank",
            rank,
            "--target",
            "t{rank}.img",
            "--target-size",
            "1MiB",
            "-o",
            "r{rank}",
            "-q",
        ];
        let (code, _, err) = code_out_err(&wkrun_clean(dir, &args));
        assert_eq!(code, 0, "{err}");
    }
    let json = std::fs::read_to_string(dir.join("r1/results.json")).unwrap();
    let csv = std::fs::read_to_string(dir.join("r1/00-w.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap().to_string();
    let t0 = results(&dir.join("r0"))["phases"][0]["series_t0_unix_ns"]
        .as_u64()
        .unwrap();
    // r1 made to start 100 ms after r0, so that its rows are shifted on the grid.
    let later =
        move |v: &mut Value| v["phases"][0]["series_t0_unix_ns"] = (t0 + 100_000_000).into();
    let with_row = |t: &str, iv: &str| {
        let mut f: Vec<String> = row.split(',').map(str::to_string).collect();
        (f[0], f[1]) = (t.to_string(), iv.to_string());
        csv.replace(&row, &f.join(","))
    };
    let huge = u64::MAX;
    let secs = serde_json::from_str::<Value>(&json).unwrap()["phases"][0]["duration_s"]
        .as_f64()
        .unwrap();
    let bw = |d: &str| {
        format!(
            "  phases[0].{d}.bw_bytes_per_s: {:e} is not a number a run writes (finite, at most 2.147483648e18 in size)\n",
            huge as f64 / secs
        )
    };
    let bytes_want = format!(
        "error: v/results.json holds figures that cannot be true (2 places):\n{}{}",
        bw("write"),
        bw("total")
    );
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit, String, Option<&str>)> = vec![
        (
            "bytes",
            // The total and the rates say the same, and no histogram log is named (the folder has none);
            // the rate of 2^64 B over the phase's seconds is past what a run writes (attack 13 F8), so the
            // results are refused at the door, before the merge adds them up.
            Box::new(move |v| {
                let p = &mut v["phases"][0];
                p.as_object_mut().unwrap().remove("hist_log");
                let rate = huge as f64 / p["duration_s"].as_f64().unwrap();
                for d in ["write", "total"] {
                    p[d]["bytes"] = huge.into();
                    p[d]["bw_bytes_per_s"] = rate.into();
                }
            }),
            csv.clone(),
            Some(&bytes_want),
        ),
        (
            "nan",
            Box::new(later),
            with_row("NaN", "0.1"),
            Some(
                "error: series v/00-w.csv: line 2: column t_s: NaN is not a value an interval measures (0, or a finite number from 1e-12 to 2.147483648e18)\n",
            ),
        ),
        (
            "negative",
            Box::new(later),
            with_row("0.1", "-1e308"),
            Some(
                "error: series v/00-w.csv: line 2: column interval_s: -1e308 is not a value an interval measures (0, or a finite number from 1e-12 to 2.147483648e18)\n",
            ),
        ),
        // Refused where every series CSV is read, since values past the bound broke the charts (they merged before).
        (
            "far",
            Box::new(later),
            with_row("1e30", "2e30"),
            Some(
                "error: series v/00-w.csv: line 2: column t_s: 1e30 is not a value an interval measures (0, or a finite number from 1e-12 to 2.147483648e18)\n",
            ),
        ),
    ];
    for (name, edit, text, want) in cases {
        let _ = std::fs::remove_dir_all(dir.join("v"));
        std::fs::create_dir(dir.join("v")).unwrap();
        let mut v: Value = serde_json::from_str(&json).unwrap();
        edit(&mut v);
        std::fs::write(dir.join("v/results.json"), v.to_string()).unwrap();
        std::fs::write(dir.join("v/00-w.csv"), &text).unwrap();
        let o = wkrun(dir, &["merge", "r0", "v", "-o", "m"]);
        let (code, _, err) = code_out_err(&o);
        match want {
            Some(want) => {
                assert_eq!((code, err.as_str()), (2, want), "{name}");
                assert!(!dir.join("m").exists(), "{name}: nothing written");
            }
            None => {
                assert_eq!(code, 0, "{name}: {err}");
                assert_eq!(results(&dir.join("m"))["phases"][0]["write"]["ops"], 8);
                std::fs::remove_dir_all(dir.join("m")).unwrap();
            }
        }
    }
}
