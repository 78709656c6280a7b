//! io_uring with a worker on every CPU waits for several completions per `io_uring_enter` (issue 15 item 4):
//! the plan decides it (`params.completions_per_wait`, a caution in the phase's warnings), the engine only
//! applies it; the I/Os done, their data and their latency records are those of any other run.

use crate::common::*;
use std::path::Path;

const MIB: u64 = 1 << 20;

fn cpus() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}

/// The caution of an io_uring phase with `workers` workers of `qd` I/Os each, waiting for `n` at a time.
fn caution(workers: u64, qd: u64, n: u64) -> String {
    format!(
        "batched completions: a latency can include the time of up to {} later completions; set completion_waits = \"each\" to time each: engine = \"io_uring\" with workers = {workers} on {}: each worker waits for {n} of its {qd} I/Os per io_uring_enter, not 1, so that the kernel's io-wq threads (which do the writes a buffered file or zram cannot take without blocking) are not interrupted by a wake per completion; a completion is timed when its wait ends",
        n - 1,
        cpus_text(cpus()),
    )
}

/// The warnings of phase `i` that are about waiting for completions.
fn wait_warnings(doc: &serde_json::Value, i: usize) -> Vec<String> {
    device_warnings(doc["phases"][i].get("warnings"))
        .into_iter()
        .filter(|w| w.contains("io_uring_enter"))
        .collect()
}

/// A workload phase `name` of 4 KiB random writes, `size` bytes, with `extra` lines.
fn workload(name: &str, size: u64, extra: &str) -> String {
    format!(
        "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"{size}\"\ndirect = false\n{extra}"
    )
}

/// Only io_uring with as many workers as CPUs (or more) waits for more than one completion: an eighth of
/// its queue depth; one worker fewer, libaio, or `completion_waits = "each"`, waits for one, and the plan
/// says nothing of it.
#[test]
fn the_plan_waits_for_an_eighth_of_the_queue_only_for_io_uring_workers_on_every_cpu() {
    let dir = tempdir();
    let n = cpus();
    let body = [
        workload(
            "every-cpu",
            MIB,
            &format!("engine = \"io_uring\"\nqueue_depth = 32\nworkers = {n}\n"),
        ),
        workload(
            "more",
            MIB,
            &format!(
                "engine = \"io_uring\"\nqueue_depth = 30\nworkers = {}\n",
                n + 1
            ),
        ),
        workload(
            "fewer",
            MIB,
            &format!(
                "engine = \"io_uring\"\nqueue_depth = 32\nworkers = {}\n",
                n.max(2) - 1
            ),
        ),
        workload(
            "libaio",
            MIB,
            &format!("engine = \"libaio\"\nqueue_depth = 32\nworkers = {n}\n"),
        ),
        workload(
            "shallow",
            MIB,
            &format!("engine = \"io_uring\"\nqueue_depth = 7\nworkers = {n}\n"),
        ),
        // Issue 24 item 1: "each" is honoured with a worker on every CPU too.
        workload(
            "each",
            MIB,
            &format!(
                "engine = \"io_uring\"\nqueue_depth = 32\nworkers = {n}\ncompletion_waits = \"each\"\n"
            ),
        ),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("wait", &body));
    let plan = plan_json(
        dir.path(),
        Path::new("s.toml"),
        Path::new("t.img"),
        &["--target-size", "64MiB"],
    );
    let per_wait = |i: usize| {
        plan["phases"][i]["params"]
            .get("completions_per_wait")
            .and_then(|v| v.as_u64())
    };
    assert_eq!(per_wait(0), Some(4));
    assert_eq!(per_wait(1), Some(3));
    assert_eq!(wait_warnings(&plan, 0), vec![caution(n, 32, 4)]);
    assert_eq!(wait_warnings(&plan, 1), vec![caution(n + 1, 30, 3)]);
    // One worker on a single-CPU machine takes every CPU too: then "fewer" is that case again.
    let fewer = if n == 1 { Some(4) } else { None };
    assert_eq!(per_wait(2), fewer);
    for i in [3, 4, 5] {
        assert_eq!(per_wait(i), None, "phase {i}");
        assert_eq!(wait_warnings(&plan, i), Vec::<String>::new(), "phase {i}");
    }
}

/// Waiting for 4 completions at a time changes nothing of what is done: a byte bound that is no multiple
/// of 4 per worker ends with exactly its I/Os (the last waits ask for no more than are in flight), every
/// write lands with its data (verified), and every completion has one latency record.
#[test]
fn io_uring_waiting_for_several_completions_does_every_io_once_and_times_each() {
    let dir = tempdir();
    let n = cpus();
    // 2001 blocks per worker: 500 waits of 4 and a tail of 1.
    let ios = 2001 * n;
    let body = [
        workload(
            "w",
            ios * 4096,
            &format!("engine = \"io_uring\"\nqueue_depth = 32\nworkers = {n}\nverify = true\n"),
        ),
        "[[phase]]\nname = \"v\"\nkind = \"verify\"\n".to_string(),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("wait", &body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "64MiB",
        "-o",
        "out",
        "-q",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
    if code != 0 && err.contains("could not start") {
        skip(
            "io_uring_waiting_for_several_completions_does_every_io_once_and_times_each",
            &err,
        );
        return;
    }
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&dir.path().join("out"));
    let p = phase(&r, 0);
    assert_eq!(u(p, "/params/completions_per_wait"), 4);
    assert_eq!(wait_warnings(&r, 0), vec![caution(n, 32, 4)]);
    assert_eq!(u(p, "/write/ops"), ios);
    assert_eq!(u(p, "/write/bytes"), ios * 4096);
    let per_worker: Vec<u64> = p["workers"].as_array().map_or_else(
        || vec![u(p, "/write/ops")],
        |a| a.iter().map(|w| u(w, "/write/ops")).collect(),
    );
    assert_eq!(per_worker, vec![2001; n as usize]);
    // One latency per completed write, none lost or doubled by the batched reaping.
    assert_eq!(histogram_count(p, "write"), ios);
    assert!(u(p, "/write/latency_ns/min") > 0);
    assert_eq!(series_sum(&dir.path().join("out"), &r, 0, "write_ops"), ios);
    let v = &phase(&r, 1)["verify"];
    assert_eq!(u(v, "/mismatched"), 0, "{v}");
    assert!(u(v, "/ok") > 0, "{v}");
}

/// The plan says which phases probe for batched completion waits (`params.completion_waits = "probe"`):
/// io_uring with one worker at a queue depth of 8 or more on 2 CPUs or more; not under a rate cap, not with
/// `completion_waits = "each"`, not below 8 in flight, not with 2 workers, not on libaio.
#[test]
fn the_plan_probes_completion_waits_only_for_one_io_uring_worker_without_a_rate_cap() {
    let dir = tempdir();
    let uring = |extra: &str| format!("engine = \"io_uring\"\nqueue_depth = 32\n{extra}");
    let body = [
        workload("probe", MIB, &uring("")),
        workload("capped", MIB, &uring("rate_iops = 1000\n")),
        workload("each", MIB, &uring("completion_waits = \"each\"\n")),
        workload("shallow", MIB, "engine = \"io_uring\"\nqueue_depth = 7\n"),
        workload("two", MIB, &uring("workers = 2\n")),
        workload("libaio", MIB, "engine = \"libaio\"\nqueue_depth = 32\n"),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("probe", &body));
    let plan = plan_json(
        dir.path(),
        Path::new("s.toml"),
        Path::new("t.img"),
        &["--target-size", "64MiB"],
    );
    let waits: Vec<Option<&str>> = (0..6)
        .map(|i| plan["phases"][i]["params"]["completion_waits"].as_str())
        .collect();
    let first = (cpus() >= 2).then_some("probe");
    assert_eq!(waits, vec![first, None, None, None, None, None]);
    // The text plan says it under the phase that probes, and only there.
    let text = wkrun(
        dir.path(),
        &[
            "plan",
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "64MiB",
        ],
    );
    let (code, stdout, stderr) = code_out_err(&text);
    assert_eq!(code, 0, "{stderr}");
    let said = "probes at its start whether batched completion waits are faster";
    let lines: Vec<&str> = stdout.lines().collect();
    let row = lines
        .iter()
        .position(|l| l.starts_with("  0  probe "))
        .unwrap();
    // The phase's detail lines (its op stream seed first) say whether it probes.
    let details = lines[row + 1..]
        .iter()
        .take_while(|l| l.starts_with("        "));
    assert_eq!(
        details.clone().any(|l| l.contains(said)),
        first.is_some(),
        "{stdout}"
    );
    let count = lines.iter().filter(|l| l.contains(said)).count();
    assert_eq!(count, usize::from(first.is_some()), "{stdout}");
}

/// Every warning line cut on a run's console ends naming the run's folder, `… (in full: wkrun warnings
/// run-mine)`, also where the action's length left no room for it (trial 16: psync's threads past the CPUs
/// and io_uring's batched waits ended `(in full: wkrun warnings)`, a command that cannot run as printed):
/// such a line is longer than 200 bytes rather.
#[test]
fn every_cut_warning_names_the_runs_folder() {
    let dir = tempdir();
    let n = cpus();
    let body = [
        workload(
            "psync-threads",
            MIB,
            &format!("engine = \"psync\"\nqueue_depth = {}\n", n + 1),
        ),
        workload(
            "randwrite-every-cpu-a",
            MIB,
            &format!("engine = \"io_uring\"\nqueue_depth = 32\nworkers = {n}\n"),
        ),
        workload(
            "randwrite-every-cpu-b",
            MIB,
            &format!("engine = \"io_uring\"\nqueue_depth = 32\nworkers = {n}\n"),
        ),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("cut", &body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "64MiB",
        "-o",
        "run-mine",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
    if code != 0 && err.contains("could not start") {
        skip("every_cut_warning_names_the_runs_folder", &err);
        return;
    }
    assert_eq!(code, 0, "{err}");
    let q = n + 1;
    let psync = format!(
        "warning: phase psync-threads: engine = \"psync\" with queue_depth = {q} runs {q} threads on {}: latencies include CPU waits; use io_uring or libaio, which keep the queue in one thread… (in full: wkrun warnings run-mine)",
        cpus_text(n)
    );
    let batched = "warning: phases randwrite-every-cpu-a and 1 more: batched completions: a latency can include the time of up to 3 later completions; set completion_waits = \"each\" to time each… (in full: wkrun warnings run-mine)";
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.contains(&psync.as_str()), "{psync}\n{err}");
    assert!(lines.contains(&batched), "{batched}\n{err}");
    let cut: Vec<&&str> = lines.iter().filter(|l| l.contains("(in full:")).collect();
    assert!(cut.len() >= 3, "{err}");
    for l in cut {
        assert!(l.ends_with("… (in full: wkrun warnings run-mine)"), "{l}");
    }
}
