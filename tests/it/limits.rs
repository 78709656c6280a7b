//! Resource limits and signals (issue 13, items 3, 4, 7 and 8): the real binary under `prlimit` (util-linux),
//! as user nobody (`setpriv`) where root would be exempt. A thread that cannot be spawned, I/O buffers that
//! cannot be allocated end the run cleanly: exit 1, within seconds, results.json "failed" naming the limit and
//! the size; registered io_uring buffers over the locked-memory limit fall back to unregistered ones with a
//! warning (and `wkrun plan` says so beforehand); SIGHUP and a closed terminal interrupt like SIGINT; with psync
//! workers failing together, the run's error and `errors.first` name the same I/O.

use crate::common::*;
use std::fs::{self, File};
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// User and group `nobody`.
const NOBODY: u32 = 65534;

/// What a run under limits did.
struct Ran {
    code: i32,
    stderr: String,
    took: Duration,
}

/// Why the tests cannot run the binary under limits here: not root (setpriv and lifting limits need it), or
/// util-linux's `prlimit`/`setpriv` missing.
fn limits_unavailable() -> Option<String> {
    if !is_root() {
        return Some("not running as root: setpriv and prlimit need root".into());
    }
    ["prlimit", "setpriv"]
        .into_iter()
        .find(|t| Command::new(t).arg("--version").output().is_err())
        .map(|t| format!("{t} (util-linux) is not installed"))
}

/// A fresh folder that user nobody owns (and so may write).
fn nobody_dir() -> tempfile::TempDir {
    let d = tempdir();
    std::os::unix::fs::chown(d.path(), Some(NOBODY), Some(NOBODY)).expect("chown to nobody");
    d
}

/// `prlimit LIMITS [setpriv ... --] wkrun ARGS` in `dir`, as nobody when `as_nobody`; killed after 60 s.
fn run_limited(dir: &Path, limits: &[&str], as_nobody: bool, args: &[&str]) -> Ran {
    let mut cmd = Command::new("prlimit");
    cmd.args(limits);
    if as_nobody {
        cmd.args([
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
        ]);
    }
    cmd.arg(wkrun_bin()).args(args).current_dir(dir);
    let t0 = Instant::now();
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start prlimit");
    let status = wait_or_kill(&mut child, Duration::from_secs(60));
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut stderr).expect("stderr");
    }
    Ran {
        code: status.and_then(|s| s.code()).unwrap_or(-1),
        stderr,
        took: t0.elapsed(),
    }
}

/// The child's exit status, or `None` after killing it at `limit`.
fn wait_or_kill(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return Some(s);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The run failed cleanly: exit 1, results.json valid with status "failed", the phase included and not
/// completed, and the error on stderr's last line is results.json's. Returns the error.
fn failed_cleanly(ran: &Ran, out: &Path) -> String {
    assert_eq!(ran.code, 1, "exit code; stderr: {}", ran.stderr);
    let (_, r) = strict_results(out);
    assert_eq!(r["status"], "failed");
    assert_eq!(phase(&r, 0)["completed"], false);
    let error = r["error"].as_str().expect("an error").to_string();
    assert_eq!(
        ran.stderr.lines().last(),
        Some(format!("error: {error}").as_str())
    );
    error
}

/// One workload phase named `w`: `body` gives the rest of its keys.
fn workload(body: &str) -> String {
    spec_text(
        "limits",
        &format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 0\n{body}"
        ),
    )
}

/// Item 3: 64 psync workers under RLIMIT_NPROC 40, as nobody (root is exempt from the limit). The spawn that
/// fails ends the run at once: no hang, no panic; the workers already started never do I/O.
#[test]
fn psync_thread_that_cannot_be_spawned_fails_the_run_naming_the_thread_limit() {
    let test = "limits::psync_thread_that_cannot_be_spawned_fails_the_run_naming_the_thread_limit";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = nobody_dir();
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\nqueue_depth = 64\nduration = \"2s\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "16MiB",
        "-o",
        "out",
    ];
    let ran = run_limited(d.path(), &["--nproc=40"], true, &args);
    assert!(ran.took < Duration::from_secs(10), "took {:?}", ran.took);
    let error = failed_cleanly(&ran, &d.path().join("out"));
    // Which thread fails depends on what else counts against the limit (the main and engine threads).
    let prefix = "phase 0 \"w\": the psync engine could not start: cannot start queue-slot thread ";
    let suffix = " of 64: Resource temporarily unavailable (errno 11); the limit on this user's processes and threads (RLIMIT_NPROC, ulimit -u) is 40";
    let k = error
        .strip_prefix(prefix)
        .and_then(|e| e.strip_suffix(suffix))
        .and_then(|k| k.parse::<u32>().ok());
    assert!(k.is_some_and(|k| (1..=40).contains(&k)), "{error}");
    let (_, r) = strict_results(&d.path().join("out"));
    assert_eq!(u(phase(&r, 0), "/write/ops"), 0, "no worker did I/O");
}

/// Issue 24 item 22: with several workers, the error names the worker whose thread could not start (of 4
/// psync workers of 16 threads each under RLIMIT_NPROC 40: whichever reached the limit, numbered from 0 as
/// the plan numbers them).
#[test]
fn the_worker_whose_thread_cannot_start_is_named() {
    let test = "limits::the_worker_whose_thread_cannot_start_is_named";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = nobody_dir();
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\nqueue_depth = 16\nworkers = 4\nduration = \"2s\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "16MiB",
        "-o",
        "out",
    ];
    let ran = run_limited(d.path(), &["--nproc=40"], true, &args);
    let error = failed_cleanly(&ran, &d.path().join("out"));
    let prefix = "phase 0 \"w\": the psync engine could not start: worker ";
    let w = error
        .strip_prefix(prefix)
        .and_then(|e| e.split_once(" of 4: cannot start queue-slot thread "))
        .and_then(|(w, _)| w.parse::<u32>().ok());
    assert!(w.is_some_and(|w| w < 4), "{error}");
    assert!(error.contains("(RLIMIT_NPROC, ulimit -u) is 40"), "{error}");
}

/// Issue 24 item 22: under a cgroup's pids.max (a container's or a systemd unit's limit), as root, whom
/// RLIMIT_NPROC does not bind: the error names the cgroup's limit, not RLIMIT_NPROC.
#[test]
fn a_thread_refused_by_the_cgroups_pids_max_names_it() {
    let test = "limits::a_thread_refused_by_the_cgroups_pids_max_names_it";
    let cg = std::path::PathBuf::from(format!(
        "/sys/fs/cgroup/pids/wkrun-test-{}",
        std::process::id()
    ));
    if std::fs::create_dir(&cg).is_err() || std::fs::write(cg.join("pids.max"), "30").is_err() {
        let _ = std::fs::remove_dir(&cg);
        return skip(
            test,
            "no cgroup v1 pids hierarchy to make a group in (root, /sys/fs/cgroup/pids)",
        );
    }
    let d = tempdir();
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\nqueue_depth = 64\nduration = \"2s\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {} s.toml --target t.img --target-size 16MiB -o out -q",
        cg.display(),
        wkrun_bin()
    );
    let o = std::process::Command::new("sh")
        .args(["-c", &script])
        .current_dir(d.path())
        .output()
        .expect("sh");
    let _ = std::fs::remove_dir(&cg);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "Resource temporarily unavailable (errno 11); the cgroup's pids.max is 30 (pids.current 30, {}/pids.max)",
            cg.display()
        )) && !err.contains("RLIMIT_NPROC"),
        "{err}"
    );
}

/// Issue 24 item 22: a write to an existing file past RLIMIT_FSIZE fails with EINVAL under O_DIRECT (EFBIG
/// buffered); the error says it reached past the limit, where EINVAL alone reads as a misaligned I/O.
#[test]
fn a_write_past_the_file_size_limit_names_the_limit() {
    let test = "limits::a_write_past_the_file_size_limit_names_the_limit";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    sparse_file(&d.path().join("t.img"), 16 << 20);
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"sequential\"\nblock_size = \"64KiB\"\nread_percent = 0\nsize = \"100%\"\n";
    write_file(d.path(), "s.toml", &spec_text("fsize", body));
    let args = ["s.toml", "--target", "t.img", "-o", "out", "-q"];
    let ran = run_limited(d.path(), &["--fsize=1000000"], false, &args);
    let error = failed_cleanly(&ran, &d.path().join("out"));
    assert!(
        error.starts_with("phase 0 \"w\": write of 65536 B at offset 983040 failed: ")
            && error.ends_with(
                ": the write ends at byte 1048576, past the file-size limit (RLIMIT_FSIZE, ulimit -f) (1000000 B)"
            ),
        "{error}"
    );
}

/// Attack 24c F13/F19: the file-size limit reached by a phase's series CSV or histogram log (a 20 s phase
/// at 1 ms rows), on the simulated drive and on a file read: the phase ends at that write (it ran on to its
/// 20 s), exit 1, results "failed" naming the limit, and the results validate (the CSV and the log hold the
/// same rows, `intervals` of them).
#[test]
fn a_series_file_past_the_file_size_limit_ends_the_phase_and_validates() {
    let test = "limits::a_series_file_past_the_file_size_limit_ends_the_phase_and_validates";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    sparse_file(&d.path().join("t.img"), 16 << 20);
    for (name, target, read) in [
        ("sim", "sim:capacity=256MiB,op=20%", 0),
        ("file", "t.img", 100),
    ] {
        let body = format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\n\
             block_size = \"4KiB\"\nread_percent = {read}\ninterval = \"1ms\"\nduration = \"20s\"\n"
        );
        write_file(d.path(), "s.toml", &spec_text("fsize", &body));
        let args = ["s.toml", "--target", target, "-o", name, "-q"];
        let ran = run_limited(d.path(), &["--fsize=100000"], false, &args);
        let out = d.path().join(name);
        let error = failed_cleanly(&ran, &out);
        let limit = ": File too large (errno 27): the file reached the file-size limit (RLIMIT_FSIZE, ulimit -f) (100000 B)";
        let csv = format!("phase \"w\": cannot write {name}/00-w.csv{limit}");
        let hlog = format!("phase \"w\": cannot write {name}/00-w.hlog{limit}");
        assert!(error == csv || error == hlog, "{name}: {error}");
        let (_, r) = strict_results(&out);
        let p = phase(&r, 0);
        let secs = p["duration_s"].as_f64().expect("duration_s");
        assert!(
            secs > 0.0 && secs < 5.0,
            "{name}: the phase lasted {secs} s"
        );
        assert!(ran.took < Duration::from_secs(15), "{name}: {:?}", ran.took);
        // The CSV's rows (less its header), counted here, are the phase's intervals.
        let lines = std::fs::read_to_string(out.join("00-w.csv"))
            .expect("csv")
            .lines()
            .count() as u64;
        assert_eq!(lines - 1, u(p, "/intervals"), "{name}");
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", name]));
        assert_eq!(code, 0, "{name}: {err}");
    }
}

/// Attack 18 F6: a write across the file-size limit into an existing file comes back short, without
/// EFBIG, and was said as "short transfer: 3392 B" with no word of the limit; now it names it. A buffered
/// fill (O_DIRECT's EINVAL is named already) of 64 KiB blocks on a 16 MiB file under a 200000 B limit: the
/// fourth write, [196608, 262144), is cut at 200000 B.
#[test]
fn a_write_cut_short_by_the_file_size_limit_names_it() {
    let test = "limits::a_write_cut_short_by_the_file_size_limit_names_it";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    sparse_file(&d.path().join("t.img"), 16 << 20);
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"64KiB\"\nqueue_depth = 1\ndirect = false\n";
    write_file(d.path(), "s.toml", &spec_text("fsize", body));
    let args = ["s.toml", "--target", "t.img", "-o", "o", "-q"];
    let ran = run_limited(d.path(), &["--fsize=200000"], false, &args);
    let error = failed_cleanly(&ran, &d.path().join("o"));
    assert_eq!(
        error,
        "phase 0 \"fill\": write of 65536 B at offset 196608 failed: short transfer: 3392 of 65536 B: the write ends at byte 262144, past the file-size limit (RLIMIT_FSIZE, ulimit -f) (200000 B): the kernel writes up to the limit only"
    );
}

/// 41 phases of 20 ms on the simulated drive under a file-size limit that results.json outgrows: said once
/// (at 65536 B it said the limit twice, once for the write during the run and once for the last), and
/// the file holds as many phases as fit, said so (at 100000 B it said "it holds the 0 phases written
/// before", true of the file, though the limit left room for several).
#[test]
fn results_past_the_file_size_limit_hold_what_fits_and_say_it_once() {
    let test = "limits::results_past_the_file_size_limit_hold_what_fits_and_say_it_once";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    let body: String = (1..=41)
        .map(|i| format!("[[phase]]\nname = \"p{i}\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"20ms\"\n"))
        .collect();
    write_file(d.path(), "m.toml", &spec_text("fsize", &body));
    for limit in [65536u64, 100_000] {
        let out = format!("o{limit}");
        let sim = "sim:capacity=64MiB,op=7%,block=256KiB";
        let args = ["m.toml", "--target", sim, "-o", &out, "-q"];
        let ran = run_limited(d.path(), &[&format!("--fsize={limit}")], false, &args);
        let path = d.path().join(&out).join("results.json");
        let len = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{limit}: {e}: {}", ran.stderr))
            .len();
        assert!(len <= limit, "{limit}: {len} B");
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
        let k = r["phases"].as_array().map_or(0, Vec::len);
        assert_eq!(r["status"], "failed", "{limit}");
        assert!((1..41).contains(&k), "{limit}: {k} phases");
        let why = format!(
            "File too large (errno 27): the file reached the file-size limit (RLIMIT_FSIZE, ulimit -f) ({limit} B)"
        );
        let want = format!(
            "error: cannot write {out}/results.json in full: {why}; it holds the results of the first {k} phases (0 to {}), not of the rest\n",
            k - 1
        );
        assert_eq!((ran.code, ran.stderr.as_str()), (1, want.as_str()));
    }
}

/// Item 4: I/O buffers over the address-space limit (QD16 × 128 MiB = 2 GiB under 1.5 GB, within the
/// documented 2 GiB buffer limit) on the null engine, and io_uring's QD1024 × 2 MiB on a file: refused
/// before anything is run (exit 1, a resource limit: results.json "failed", no phase), the need recomputed (the buffers, no thread of
/// the phase's own); the file is not written. (Before any limit was checked up front, the engine's fallible
/// allocation failed the run, exit 1; `buf`'s tests keep that error's words.)
#[test]
fn io_buffers_over_the_address_space_limit_are_refused_naming_the_size() {
    let test = "limits::io_buffers_over_the_address_space_limit_are_refused_naming_the_size";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let cases = [("null", "128MiB", 16), ("io_uring", "2MiB", 1024)];
    for (engine, bs, qd) in cases {
        let d = tempdir();
        let body = format!(
            "engine = \"{engine}\"\nblock_size = \"{bs}\"\nqueue_depth = {qd}\ndirect = false\nsize = \"256MiB\"\n"
        );
        write_file(d.path(), "s.toml", &workload(&body));
        sparse_file(&d.path().join("t.img"), 4 << 30);
        let args = ["s.toml", "--target", "t.img", "-o", "out"];
        let ran = run_limited(d.path(), &["--as=1500000000"], false, &args);
        assert_eq!(ran.code, 1, "{engine}: {}", ran.stderr);
        let (limit, end) = (1_500_000_000, failed_in("out"));
        address_space_refusal(&ran.stderr, limit, 1, (0, 2 << 30), &end);
        refused_results(&d.path().join("out"), &ran.stderr);
        assert_eq!(
            allocated_blocks(&d.path().join("t.img")),
            0,
            "{engine}: nothing written"
        );
    }
}

/// A huge per-I/O trace under an address-space limit (issue 26, the newcomer's attack: the refusal named
/// threads and buffers only): `trace = 100000000` reserves 3.2 GB before its phase, so under 1.5 GB the run
/// is refused before it starts (exit 1, results.json "failed" with no phase), the need recomputed with the trace's
/// room (its psync thread of 5 MiB with 1 MiB of room as it starts, its 4 KiB buffer and 100000000 × 32 B) and the trace named.
#[test]
fn a_huge_trace_over_the_address_space_limit_is_refused_naming_its_room() {
    let test = "limits::a_huge_trace_over_the_address_space_limit_is_refused_naming_its_room";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\ntrace = 100000000\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    sparse_file(&d.path().join("t.img"), 1 << 20);
    let args = ["s.toml", "--target", "t.img", "-o", "out"];
    let ran = run_limited(d.path(), &["--as=1500000000"], false, &args);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let need = (4 << 20) + (8 << 20) + (5 << 20) + 4096 + (1 << 20) + 100_000_000 * 32;
    let detail = "4194304 B for the run, 8388608 B for the target, and for its largest phase 5242880 B for 1 thread of 5242880 B, 4096 B of I/O buffers, 1048576 B of room as it starts, 3200000000 B of per-I/O trace (trace = 100000000: 3200000000 B reserved before its phase)";
    room_refusal(
        &ran.stderr,
        1_500_000_000,
        "a run",
        need,
        detail,
        &failed_in("out"),
    );
    refused_results(&d.path().join("out"), &ran.stderr);
}

/// Many psync threads under an address-space limit (found by the attack session): 8 workers × 64 threads
/// with 1 MiB buffers under `ulimit -v` of 1.8 GB aborted the process (exit 134: "failed to allocate an
/// alternative stack", or "memory allocation of 270336 bytes failed"), the standard library's answer when
/// a new thread cannot map its signal stack or an allocation fails. The run is now refused before anything
/// is run: exit 1 (a resource limit) with results.json "failed", the need recomputed (520 threads, 8 × 64 and the 8 workers' own, of 5 MiB, 1 MiB of room, and
/// 8 × 64 × 1 MiB of buffers), no output folder, the target untouched.
#[test]
fn psync_threads_over_the_address_space_limit_are_refused_without_an_abort() {
    let test = "limits::psync_threads_over_the_address_space_limit_are_refused_without_an_abort";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    let body = "engine = \"psync\"\nblock_size = \"1MiB\"\nqueue_depth = 64\nworkers = 8\n\
                workers_split = \"shared\"\nduration = \"1s\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    sparse_file(&d.path().join("t.img"), 64 << 20);
    let args = ["s.toml", "--target", "t.img", "-o", "out"];
    let ran = run_limited(d.path(), &["--as=1800000000"], false, &args);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let (limit, end) = (1_800_000_000, failed_in("out"));
    address_space_refusal(&ran.stderr, limit, 1, (520, 512 << 20), &end);
    refused_results(&d.path().join("out"), &ran.stderr);
    assert_eq!(
        allocated_blocks(&d.path().join("t.img")),
        0,
        "nothing written"
    );
}

/// Tiny address-space limits (found by the closing attack of issue 24: 10 to 15 MiB aborted the process,
/// exit 134, "memory allocation of 72 bytes failed"): from 8 MiB up in steps of 512 KiB until two limits
/// ended cleanly (the debug build's floor moves with its size: 17 MiB, then more with SQLite), a run either
/// never reaches wkrun (the dynamic loader cannot map the program and its libraries: exit 127 or a fault,
/// near the floor depending on where address-space randomisation puts them), or is refused at once, exit 1 (a resource limit:
/// nothing written, or for the run's own need a results.json saying "failed"), naming the limit and a limit
/// that leaves the 4 MiB it needs (and that limit does let it start), or ends cleanly (exit 1, a phase that
/// cannot start its thread; or 0). Never an abort, never a fault once wkrun ran.
#[test]
fn tiny_address_space_limits_end_cleanly() {
    let test = "limits::tiny_address_space_limits_end_cleanly";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    sparse_file(&d.path().join("t.img"), 1 << 20);
    let (mut refused, mut clean) = (0, 0);
    for limit in (16..=512u64).map(|k| k * 512 * 1024) {
        if clean >= 2 {
            break;
        }
        let out = format!("out{limit}");
        let args = ["s.toml", "--target", "t.img", "-o", out.as_str()];
        let ran = run_limited(d.path(), &[&format!("--as={limit}")], false, &args);
        // Or Rust's runtime, before wkrun's main, cannot map the main thread's signal stack (an abort
        // that says "failed to allocate an alternative stack"): wkrun did not run either.
        let runtime = ran
            .stderr
            .contains("failed to allocate an alternative stack");
        let loader = ran.stderr.contains("error while loading shared libraries") || ran.code == -1;
        if runtime {
            continue;
        }
        // Near its floor the loader fails or not with where address-space randomisation puts the
        // libraries, so a failure just above a limit where wkrun ran is the loader's, not wkrun's.
        if loader && !ran.stderr.contains("error: ") {
            continue;
        }
        match ran.code {
            1 if ran.stderr.contains("raise it to at least ") => {
                let enough: u64 = ran
                    .stderr
                    .split("raise it to at least ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{limit} B: {}", ran.stderr));
                // Refused at start (less than the 4 MiB wkrun needs), or once the run's need is known.
                if !ran.stderr.contains("needs about") {
                    assert_eq!(
                        ran.stderr,
                        format!(
                            "error: the address-space limit (RLIMIT_AS, ulimit -v) is {limit} B, which leaves less than the 4194304 B wkrun needs beyond the program and its libraries; raise it to at least {enough} B (ulimit -v {}) or remove it; nothing was written\n",
                            enough / 1024
                        )
                    );
                    assert!(
                        !d.path().join(&out).exists(),
                        "{limit} B: a folder was made"
                    );
                } else if ran.stderr.contains("loading the spec") {
                    // Refused loading the spec (`spec/room.rs`): 4 MiB and 64 B per byte of its text.
                    let len = std::fs::metadata(d.path().join("s.toml"))
                        .expect("s.toml")
                        .len();
                    let detail =
                        format!("4194304 B for its own work, and 64 B per byte of its {len} B");
                    let what = "s.toml: loading the spec";
                    let need = (4 << 20) + 64 * len;
                    let tail = "; nothing was written";
                    assert_eq!(
                        room_refusal(&ran.stderr, limit, what, need, &detail, tail),
                        enough
                    );
                    assert!(
                        !d.path().join(&out).exists(),
                        "{limit} B: a folder was made"
                    );
                } else {
                    let end = failed_in(&out);
                    assert_eq!(
                        address_space_refusal(&ran.stderr, limit, 1, (1, 4096), &end),
                        enough
                    );
                    refused_results(&d.path().join(&out), &ran.stderr);
                }
                let v = run_limited(
                    d.path(),
                    &[&format!("--as={enough}")],
                    false,
                    &["validate", "s.toml"],
                );
                assert_eq!(v.code, 0, "{limit} B, then {enough} B: {}", v.stderr);
                refused += 1;
            }
            0 | 1 => clean += 1,
            c => panic!("{limit} B: exit {c}: {}", ran.stderr),
        }
    }
    assert!(refused > 0 && clean > 0, "refused {refused}, clean {clean}");
}

/// Checks `stderr` is the refusal of a run on `targets` targets whose largest phase starts `threads`
/// threads with `buffers` B of I/O buffers (each target's alike) under the address-space limit `limit`,
/// word for word with the need recomputed: 4 MiB for the run, 8 MiB per target, 5 MiB a thread, the
/// buffers, and 1 MiB of room for a phase that starts threads; the parts said add up to the need. The limit
/// it suggests is derived from the address space it says it maps (1 MiB over that and the need, in whole
/// MiB); returns that limit.
fn address_space_refusal(
    stderr: &str,
    limit: u64,
    targets: u64,
    (threads, buffers): (u64, u64),
    end: &str,
) -> u64 {
    let room = if threads > 0 { 1 << 20 } else { 0 };
    let need = (4 << 20) + targets * ((8 << 20) + threads * (5 << 20) + buffers + room);
    let (what, mut detail) = match targets {
        1 => (
            "a run".to_string(),
            "4194304 B for the run, 8388608 B for the target, and for its largest phase"
                .to_string(),
        ),
        n => (
            format!("a run on {n} targets"),
            format!(
                "4194304 B for the run, {} B for the {n} targets (8388608 B each), and for the largest phase of each",
                n * (8 << 20)
            ),
        ),
    };
    if threads > 0 {
        let n = targets * threads;
        let plural = if n == 1 { "" } else { "s" };
        detail += &format!(" {} B for {n} thread{plural} of 5242880 B,", n * (5 << 20));
    }
    detail += &format!(" {} B of I/O buffers", targets * buffers);
    if threads > 0 {
        detail += &format!(", {} B of room as it starts", targets * room);
    }
    room_refusal(stderr, limit, &what, need, &detail, end)
}

/// The ending of a run on one target refused by a resource limit before it started, its output folder
/// `out` holding a results.json saying "failed".
fn failed_in(out: &str) -> String {
    format!("; the run did not start: {out}/results.json says \"failed\"")
}

/// Checks the results.json of `out`, a run refused before it started: "failed" with the refusal's words
/// (`stderr` less `error: ` and the ending [`failed_in`]), no phase, valid; the folder holds it alone.
fn refused_results(out: &Path, stderr: &str) {
    let (_, r) = strict_results(out);
    let why = stderr
        .trim_end()
        .strip_prefix("error: ")
        .and_then(|e| e.split("; the run did not start: ").next())
        .expect("the refusal");
    assert_eq!(
        (
            r["status"].as_str(),
            r["error"].as_str(),
            r["phases"].as_array().map(Vec::len)
        ),
        (Some("failed"), Some(why), Some(0))
    );
    let mut names: Vec<String> = fs::read_dir(out)
        .expect("out")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["results.json"]);
}

/// The limit a refusal advises lets the same run complete (found by the attack of issue 24: the run's
/// check counted 3 MiB a thread, the phase's own check before its threads 5 MiB and 1 MiB of room, so a run
/// under the advised limit failed at its phase: 4 workers × QD64 psync threads with 1 MiB buffers were
/// advised 1137704960 B, then needed 1632632832 B; a fill at QD4 then a QD8 phase, advised 76546048 B,
/// failed in the second). Both checks now count the same (`run::phase_space`): each run is
/// refused under a small limit with the need recomputed and its parts adding up to it (260 threads of
/// 5 MiB, 256 MiB of buffers and 1 MiB of room; 8 threads, 32 KiB and 1 MiB, the fill's 4 threads
/// needing less), then completes under exactly the limit advised, exit 0.
#[test]
fn the_limit_a_refusal_advises_lets_the_run_complete() {
    let test = "limits::the_limit_a_refusal_advises_lets_the_run_complete";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"128KiB\"\n\
                queue_depth = 4\n";
    let random = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 0\n\
                  engine = \"psync\"\nblock_size = \"4KiB\"\nqueue_depth = 8\nduration = \"1s\"\n";
    let cases = [
        (
            workload(
                "engine = \"psync\"\nblock_size = \"1MiB\"\nqueue_depth = 64\nworkers = 4\n\
                 direct = false\nduration = \"1s\"\n",
            ),
            64 << 20,
            314_572_800,
            (260, 256 << 20),
        ),
        (
            spec_text("limits", &format!("{fill}{random}")),
            4 << 20,
            62_914_560,
            (8, 8 * 4096),
        ),
    ];
    for (i, (spec, size, limit, phase)) in cases.into_iter().enumerate() {
        let d = tempdir();
        write_file(d.path(), "s.toml", &spec);
        sparse_file(&d.path().join("t.img"), size);
        let args = ["s.toml", "--target", "t.img", "-o", "refused", "-q"];
        let ran = run_limited(d.path(), &[&format!("--as={limit}")], false, &args);
        assert_eq!(ran.code, 1, "case {i}: {}", ran.stderr);
        let end = failed_in("refused");
        let enough = address_space_refusal(&ran.stderr, limit, 1, phase, &end);
        refused_results(&d.path().join("refused"), &ran.stderr);
        let args = ["s.toml", "--target", "t.img", "-o", "enough", "-q"];
        let ran = run_limited(d.path(), &[&format!("--as={enough}")], false, &args);
        assert_eq!(ran.code, 0, "case {i}, under {enough} B: {}", ran.stderr);
        let (_, r) = strict_results(&d.path().join("enough"));
        assert_eq!(r["status"], "completed", "case {i}");
    }
}

/// Several targets under an address-space limit (found by the attack of issue 24, round 2): 3 file targets
/// under 60 to 72 MiB aborted the process (exit 134, "memory allocation of 270336 bytes failed": a latency
/// histogram, made by the standard library's allocation that aborts when it fails; then a regex's 320,000
/// B, or 56 B, once the targets' threads had taken the room). From the least limit wkrun starts under, in
/// steps of 2 MiB until two runs complete: each run is refused before it starts (exit 1, the need
/// recomputed, the targets unwritten, each target's results.json and the aggregate saying "failed" with
/// the refusal and no phase: a refusal left none) or ends with every results file written and none left
/// "running"; the limit a refusal suggests lets the same run complete.
#[test]
fn several_targets_under_an_address_space_limit_are_refused_or_end_cleanly() {
    let test = "limits::several_targets_under_an_address_space_limit_are_refused_or_end_cleanly";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    let names = ["t1.img", "t2.img", "t3.img"];
    for t in names {
        sparse_file(&d.path().join(t), 1 << 20);
    }
    let (mut refused, mut completed, mut suggested) = (0, 0, None);
    for limit in (28..80u64).map(|k| (k * 2) << 20) {
        if completed >= 2 {
            break;
        }
        let out = format!("out{limit}");
        let mut args = vec!["s.toml", "-o", out.as_str(), "-q"];
        names.iter().for_each(|t| args.extend(["--target", t]));
        let ran = run_limited(d.path(), &[&format!("--as={limit}")], false, &args);
        let out = d.path().join(&out);
        let refusal = ran.code == 1 && ran.stderr.contains("raise it to at least ");
        match ran.code {
            1 if refusal && ran.stderr.contains("needs about") => {
                let said = format!(
                    "; the run did not start: out{limit}/results.json and each target's results.json say \"failed\""
                );
                suggested = Some(address_space_refusal(
                    &ran.stderr,
                    limit,
                    3,
                    (1, 4096),
                    &said,
                ));
                let why = ran
                    .stderr
                    .trim_end()
                    .strip_prefix("error: ")
                    .and_then(|e| e.split("; the run did not start: ").next());
                let folders = ["t0-t1.img", "t1-t2.img", "t2-t3.img", "."].map(String::from);
                refused_in_each(&out, &folders, why);
                refused += 1;
            }
            // Less than wkrun needs to start.
            1 if refusal => assert!(ran.stderr.contains("beyond the program"), "{}", ran.stderr),
            0 | 1 => {
                for f in ["t0-t1.img", "t1-t2.img", "t2-t3.img", "."] {
                    let text = fs::read_to_string(out.join(f).join("results.json"))
                        .unwrap_or_else(|e| panic!("{limit} B: {f}: {e}; {}", ran.stderr));
                    let r: serde_json::Value = serde_json::from_str(&text).expect("json");
                    let want = if ran.code == 0 { "completed" } else { "failed" };
                    assert!(
                        r["status"] == want || (ran.code == 1 && r["status"] == "completed"),
                        "{limit} B: {f}: {}",
                        r["status"]
                    );
                }
                completed += u32::from(ran.code == 0);
            }
            c => panic!("{limit} B: exit {c}: {}", ran.stderr),
        }
        if !refusal {
            continue;
        }
        for t in names {
            assert_eq!(
                allocated_blocks(&d.path().join(t)),
                0,
                "{limit} B: {t} written"
            );
        }
    }
    assert!(
        refused > 0 && completed >= 2,
        "refused {refused}, completed {completed}"
    );
    let enough = suggested.expect("a refusal").to_string();
    let mut args = vec!["s.toml", "-o", "enough", "-q"];
    names.iter().for_each(|t| args.extend(["--target", t]));
    let ran = run_limited(d.path(), &[&format!("--as={enough}")], false, &args);
    assert_eq!(
        ran.code, 0,
        "under the suggested {enough} B: {}",
        ran.stderr
    );
}

/// Why io_uring cannot run here for an unprivileged user.
fn io_uring_unavailable() -> Option<String> {
    let disabled = fs::read_to_string("/proc/sys/kernel/io_uring_disabled").unwrap_or_default();
    match disabled.trim() {
        "" | "0" => None,
        v => Some(format!(
            "io_uring is disabled for unprivileged users (kernel.io_uring_disabled = {v})"
        )),
    }
}

/// Item 8: io_uring's 32 registered buffers of 128 KiB need 4 MiB of locked memory; under RLIMIT_MEMLOCK 64 KiB
/// as nobody (root has CAP_IPC_LOCK) the phase runs with unregistered buffers: every op done, and a warning
/// saying which limit, how much registration needs and what the phase did. `wkrun plan` says so beforehand.
#[test]
fn io_uring_over_the_memlock_limit_runs_unregistered_with_a_warning() {
    let test = "limits::io_uring_over_the_memlock_limit_runs_unregistered_with_a_warning";
    if let Some(why) = limits_unavailable().or_else(io_uring_unavailable) {
        return skip(test, &why);
    }
    let d = nobody_dir();
    let body = "engine = \"io_uring\"\nblock_size = \"128KiB\"\nqueue_depth = 32\ndirect = false\nsize = \"16MiB\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "64MiB",
        "-o",
        "out",
    ];
    let ran = run_limited(d.path(), &["--memlock=65536"], true, &args);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let (_, r) = strict_results(&d.path().join("out"));
    assert_eq!(r["status"], "completed");
    let p = phase(&r, 0);
    assert_eq!((u(p, "/write/ops"), u(p, "/write/bytes")), (128, 16 << 20));
    let warning = "io_uring: buffers unregistered (more CPU per I/O); set ulimit -l 4096 or more: registering the 32 I/O buffers of 131072 B failed with Cannot allocate memory (errno 12): it needs 4194304 B of locked memory, and the locked-memory limit (RLIMIT_MEMLOCK, ulimit -l) is 65536 B; the phase used plain reads and writes instead of fixed-buffer ones";
    // direct = false also draws the plan's page-cache caution (issue 13 item 10), first.
    let cache = "direct = false: the page cache sets these numbers; set direct = true: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device";
    // And the workload writes into the new file's unwritten blocks (the filesystem allocates or marks them).
    let holes = match r["target"]["preallocated"].as_bool() == Some(true) {
        true => {
            "writes into unwritten (preallocated) blocks: latencies include the file system's allocation work; run a fill first: 67108864 B (100.0 %) of the write range [0, 67108864) were never written since wkrun created and preallocated the file (fio lays out a file it creates): at the first write into each block the file system marks it written, so this first run's write numbers include that work"
        }
        false => {
            "writes into holes: latencies include the file system's allocation work; run a fill first: 67108864 B (100.0 %) of the write range [0, 67108864) are holes in the file (never written, or punched): at the first write into each the filesystem allocates the block (or marks a preallocated one written), so the write numbers include that work"
        }
    };
    assert_eq!(
        device_warnings(p.get("warnings")),
        vec![cache, holes, warning]
    );
    // On one line on the console (issue 24 item 5), its action (the limit to set) before the cut; in full
    // in the results.
    assert!(
        ran.stderr.contains(
            "warning: phase w: io_uring: buffers unregistered (more CPU per I/O); set ulimit -l 4096 or more: registering the 32 I/O buffers of 131072 B failed with Cannot… (in full: wkrun warnings out)\n"
        ),
        "{}",
        ran.stderr
    );

    let note = "note: phase 0 \"w\": io_uring registers 32 I/O buffers of 131072 B, 4194304 B of locked memory, more than the locked-memory limit (RLIMIT_MEMLOCK, ulimit -l) allows (65536 B): the phase will run with unregistered buffers (a warning in its results); raise the limit (ulimit -l 4096 or more) to register them";
    let plan = ["plan", "s.toml", "--target", "t.img"];
    let ran = run_limited(d.path(), &["--memlock=65536"], true, &plan);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stderr
            .lines()
            .filter(|l| l.contains("locked memory"))
            .collect::<Vec<_>>(),
        vec![note]
    );
    // Root may lock any amount: no note.
    let (code, _, err) = code_out_err(&wkrun(d.path(), &plan));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("locked memory"), "{err}");
    // The plan of a run from a later phase: the io_uring phase does not run, so no note; from it, the note.
    let later =
        "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &format!("{}{later}", workload(body)));
    for (from, notes) in [("r", vec![]), ("w", vec![note])] {
        let ran = run_limited(
            d.path(),
            &["--memlock=65536"],
            true,
            &["plan", "s.toml", "--target", "t.img", "--from", from],
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let got: Vec<&str> = ran
            .stderr
            .lines()
            .filter(|l| l.contains("locked memory"))
            .collect();
        assert_eq!(got, notes, "--from {from}");
    }
}

/// A time-bounded workload that writes rows every 100 ms for a minute, started in `dir` by `cmd` (wkrun).
fn long_run(dir: &Path, cmd: &mut Command) -> Child {
    let body = "block_size = \"4KiB\"\nqueue_depth = 2\nrate_iops = 2000\ninterval = \"100ms\"\nduration = \"60s\"\n";
    write_file(dir, "s.toml", &workload(body));
    sparse_file(&dir.join("t.img"), 64 << 20);
    cmd.args(["s.toml", "--target", "t.img", "-o", "out"])
        .current_dir(dir)
        .spawn()
        .expect("start wkrun")
}

/// Waits until the run's series has `n` rows.
fn wait_rows(dir: &Path, n: usize) {
    let rows = || {
        fs::read_to_string(dir.join("out/00-w.csv"))
            .map_or(0, |t| t.lines().count().saturating_sub(1))
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while rows() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(rows() >= n, "no {n} rows within 30 s");
}

/// The run was interrupted by SIGHUP: exit 129 (128 + 1), results.json "interrupted" by "SIGHUP" with the
/// phase's partial result.
fn interrupted(status: Option<std::process::ExitStatus>, out: &Path) {
    assert_eq!(status.and_then(|s| s.code()), Some(129), "{status:?}");
    let (_, r) = strict_results(out);
    assert_eq!(r["status"], "interrupted");
    assert_eq!(r["signal"], "SIGHUP");
    assert_eq!(phase(&r, 0)["completed"], false);
    assert!(u(phase(&r, 0), "/write/ops") > 0);
}

/// Item 7: SIGHUP stops a run like SIGINT: partial results, status interrupted, exit 129.
#[test]
fn sighup_interrupts_the_run_with_partial_results() {
    let d = tempdir();
    let mut cmd = Command::new(wkrun_bin());
    with_default_stop_signals(&mut cmd)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = long_run(d.path(), &mut cmd);
    wait_rows(d.path(), 3);
    // SAFETY: kill takes a pid and a signal number; the child is ours and has not been reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGHUP) }, 0);
    interrupted(
        wait_or_kill(&mut child, Duration::from_secs(30)),
        &d.path().join("out"),
    );
}

/// Attack 15 F1: SIGHUP ignored when wkrun starts stays ignored: `nohup wkrun ...` went on no longer than
/// the terminal (exit 129, "interrupted"), since wkrun put its handler over the ignored action. SIGINT
/// ignored at the start (a shell's background job) is still handled: `wkrun ... & kill -INT $!` stops a
/// run (the VM suite's interrupt tests do). Started with both ignored and sent SIGHUP once the run writes
/// rows, the run goes on; SIGINT then stops it, exit 130, results interrupted by SIGINT.
#[test]
fn a_stop_signal_ignored_at_the_start_stays_ignored() {
    let d = tempdir();
    let body = "block_size = \"4KiB\"\nqueue_depth = 2\nrate_iops = 2000\ninterval = \"100ms\"\nduration = \"30s\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    sparse_file(&d.path().join("t.img"), 64 << 20);
    let mut cmd = Command::new(wkrun_bin());
    cmd.args(["s.toml", "--target", "t.img", "-o", "out", "-q"])
        .current_dir(d.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: signal is async-signal-safe; between fork and exec the child only sets SIGHUP and SIGINT to
    // be ignored, as nohup and a shell starting a background job do (an ignored action is kept by exec).
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("start wkrun");
    wait_rows(d.path(), 3);
    // SAFETY: kill takes a pid and a signal number; the child is ours and has not been reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGHUP) }, 0);
    // Ten rows (1 s) later it still runs: the hang-up was ignored.
    wait_rows(d.path(), 13);
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "SIGHUP ended it"
    );
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = wait_or_kill(&mut child, Duration::from_secs(30));
    assert_eq!(status.and_then(|s| s.code()), Some(130));
    let (_, r) = strict_results(&d.path().join("out"));
    assert_eq!(r["status"], "interrupted");
    assert_eq!(r["signal"], "SIGINT");
    assert_eq!(phase(&r, 0)["completed"], false);
}

/// Item 7: closing the terminal wkrun runs in (the live progress line on it) hangs it up: the kernel sends
/// SIGHUP and writes to the terminal fail from then on; the run still ends interrupted with its results.
#[test]
fn closing_the_terminal_interrupts_the_run_with_partial_results() {
    let d = tempdir();
    let (master, slave) = open_pty();
    let mut cmd = Command::new(wkrun_bin());
    with_default_stop_signals(&mut cmd)
        .stdin(slave.try_clone().expect("dup"))
        .stdout(slave.try_clone().expect("dup"))
        .stderr(slave);
    // SAFETY: setsid and ioctl are async-signal-safe; between fork and exec the child only makes itself a
    // session leader with the terminal on its stdin as its controlling terminal.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = long_run(d.path(), &mut cmd);
    drop(cmd);
    // Drain the terminal until told to close it, so that wkrun never blocks writing to it.
    let close = Arc::new(AtomicBool::new(false));
    let reader = {
        let close = Arc::clone(&close);
        std::thread::spawn(move || {
            let mut master = master;
            let mut buf = [0u8; 4096];
            while !close.load(Ordering::SeqCst) {
                match master.read(&mut buf) {
                    Ok(n) if n > 0 => {}
                    _ => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        })
    };
    wait_rows(d.path(), 3);
    close.store(true, Ordering::SeqCst);
    reader.join().expect("reader");
    interrupted(
        wait_or_kill(&mut child, Duration::from_secs(30)),
        &d.path().join("out"),
    );
}

/// A pseudo-terminal: its master (non-blocking) and its slave.
fn open_pty() -> (File, File) {
    // SAFETY: posix_openpt returns a new descriptor or -1; it is owned by the File below. Close-on-exec: wkrun
    // must not hold the master, or closing it here would not hang the terminal up.
    let fd = unsafe {
        libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC)
    };
    assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
    // SAFETY: fd is a fresh descriptor nobody else owns.
    let master = unsafe { File::from_raw_fd(fd) };
    let mut name = [0 as libc::c_char; 128];
    // SAFETY: grantpt and unlockpt take the master's descriptor; ptsname_r writes at most name.len() bytes.
    let ok = unsafe {
        libc::grantpt(master.as_raw_fd()) == 0
            && libc::unlockpt(master.as_raw_fd()) == 0
            && libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()) == 0
    };
    assert!(ok, "pty: {}", std::io::Error::last_os_error());
    // SAFETY: ptsname_r wrote a NUL-terminated path into name.
    let path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
    let slave = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(path.to_str().expect("pty path"))
        .expect("open the pty's slave");
    (master, slave)
}

/// Item 7: eight psync workers filling a file on a 4 MiB tmpfs all meet ENOSPC at about the same time; the
/// run's error (results.json `error`, stderr) and `errors.first` name the same write, the earliest by
/// completion time; the writes that fit are exactly the tmpfs's 4 MiB.
#[test]
fn psync_workers_failing_together_the_error_is_errors_first() {
    let test = "limits::psync_workers_failing_together_the_error_is_errors_first";
    if !is_root() {
        return skip(test, "not running as root: mounting a tmpfs needs root");
    }
    for _ in 0..3 {
        let d = tempdir();
        let mnt = match Mount::tmpfs(d.path().join("mnt"), "4m") {
            Ok(m) => m,
            Err(why) => return skip(test, &why),
        };
        let target = mnt.dir.join("t.img");
        sparse_file(&target, 16 << 20);
        let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"4KiB\"\nqueue_depth = 8\ndirect = false\non_error = \"stop\"\n";
        write_file(d.path(), "s.toml", &spec_text("enospc", body));
        let t = target.to_str().expect("path");
        let (code, _, err) =
            code_out_err(&wkrun(d.path(), &["s.toml", "--target", t, "-o", "out"]));
        assert_eq!(code, 1, "{err}");
        let (_, r) = strict_results(&d.path().join("out"));
        let first = &phase(&r, 0)["errors"]["first"];
        let off = u(first, "/offset_bytes");
        let expected = format!(
            "phase 0 \"fill\": write of 4096 B at offset {off} failed: No space left on device (errno 28)"
        );
        assert_eq!(
            first["message"],
            expected.strip_prefix("phase 0 \"fill\": ").unwrap_or("")
        );
        assert_eq!(r["error"], expected.as_str());
        assert_eq!(
            err.lines().last(),
            Some(format!("error: {expected}").as_str())
        );
        assert_eq!(u(phase(&r, 0), "/write/bytes"), 4 << 20);
        drop(mnt);
    }
}

/// Attack 25: `prlimit --fsize=20000 wkrun SPEC --target new.img --target-size 16MiB -o out` exits 1 with no
/// results.json at all. Both are known before anything is written: the target to create is past the limit,
/// and so are the run's results (a results.json may need 65536 B), so no results.json saying "failed"
/// could be written in full. The run refuses up
/// front naming both, exit 1 (a resource limit, not bad input), no folder and no target made; `plan` names
/// the target's limit alone (it writes no results). At 100,000 B the results fit and say "failed".
#[test]
fn a_limit_below_the_target_and_the_results_refuses_the_run_up_front() {
    let test = "limits::a_limit_below_the_target_and_the_results_refuses_the_run_up_front";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\nread_percent = 0\nduration = \"1s\"\n";
    write_file(d, "s.toml", &spec_text("fsize", body));
    let target = ["--target", "new.img", "--target-size", "16MiB"];
    let created = |limit: &str| {
        format!(
            "error: new.img: cannot create a file of 16777216 B (16MiB): the file-size limit (RLIMIT_FSIZE, ulimit -f) is {limit} B; give a smaller --target-size (or [target] size) or raise the limit; nothing was created"
        )
    };
    let run = [&["s.toml"][..], &target[..], &["-o", "out"][..]].concat();
    let ran = run_limited(d, &["--fsize=20000"], false, &run);
    let folder = "nothing was written (cannot write into the output folder out: the file-size limit (RLIMIT_FSIZE, ulimit -f) is 20000 B, less than the 65536 B a run's results.json may need: raise it (ulimit -f) or remove it)";
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (1, format!("{}; {folder}\n", created("20000")).as_str())
    );
    assert_eq!(dir_listing(d), ["s.toml"], "the run left files");
    let plan = [&["plan", "s.toml"][..], &target[..]].concat();
    let ran = run_limited(d, &["--fsize=20000"], false, &plan);
    assert_eq!(
        (ran.code, ran.stderr.lines().last()),
        (1, Some(created("20000").as_str()))
    );
    assert_eq!(dir_listing(d), ["s.toml"], "plan left files");
    // Room for the results, not for the target: results.json says "failed", the target is not made.
    let ran = run_limited(d, &["--fsize=100000"], false, &run);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            format!("{}{}\n", created("100000"), failed_in("out")).as_str()
        )
    );
    assert_eq!(dir_listing(d), ["out", "out/results.json", "s.toml"]);
    refused_results(&d.join("out"), &ran.stderr);
}

/// Issue 24 item 14: under a file-size limit of 1,000,000 B, creating a 16 MiB target was killed by SIGXFSZ
/// (exit 153), leaving an empty target (which every later run refused as empty) and an empty output folder.
/// The size is checked against RLIMIT_FSIZE before anything is made: `plan` and the run exit 1 (a resource limit) naming the
/// limit, no target made; the run's folder holds results.json saying "failed", as a refusal by a limit does. A target within the limit is created and run as before.
#[test]
fn a_target_larger_than_the_file_size_limit_is_refused_before_anything_is_created() {
    let test =
        "limits::a_target_larger_than_the_file_size_limit_is_refused_before_anything_is_created";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let dir = tempdir();
    let d = dir.path();
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"256KiB\"\n";
    write_file(d, "s.toml", &spec_text("fsize", fill));
    let want = "error: new.img: cannot create a file of 16777216 B (16MiB): the file-size limit (RLIMIT_FSIZE, ulimit -f) is 1000000 B; give a smaller --target-size (or [target] size) or raise the limit; nothing was created";
    let target = ["--target", "new.img", "--target-size", "16MiB"];
    let plan = [&["plan", "s.toml"][..], &target[..]].concat();
    let ran = run_limited(d, &["--fsize=1000000"], false, &plan);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(ran.stderr.lines().last(), Some(want));
    assert_eq!(dir_listing(d), ["s.toml"], "plan left files");
    // The run: no target made, and results.json saying "failed" with why (a resource limit).
    let run = [&["s.toml"][..], &target[..], &["-o", "o"][..]].concat();
    let ran = run_limited(d, &["--fsize=1000000"], false, &run);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (1, format!("{want}{}\n", failed_in("o")).as_str())
    );
    assert_eq!(dir_listing(d), ["o", "o/results.json", "s.toml"]);
    refused_results(&d.join("o"), &ran.stderr);
    // Beside a file that exists: each target's results.json and the aggregate say "failed" (none was left).
    sparse_file(&d.join("old.img"), 512 << 10);
    let both = [
        &["s.toml"][..],
        &target[..],
        &["--target", "old.img", "-o", "o3", "-q"][..],
    ]
    .concat();
    let ran = run_limited(d, &["--fsize=1000000"], false, &both);
    let tail =
        "; the run did not start: o3/results.json and each target's results.json say \"failed\"";
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (1, format!("{want}{tail}\n").as_str())
    );
    let folders = ["t0-new.img", "t1-old.img", "."].map(String::from);
    refused_in_each(&d.join("o3"), &folders, want.strip_prefix("error: "));
    assert!(!d.join("new.img").exists());
    let ran = run_limited(
        d,
        &["--fsize=1000000"],
        false,
        &[
            "s.toml",
            "--target",
            "small.img",
            "--target-size",
            "512KiB",
            "-o",
            "o2",
            "-q",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        fs::metadata(d.join("small.img")).expect("small.img").len(),
        512 << 10
    );
    // Review 40 L9: a size no file can have (over 2^63 - 1 B) is bad input, whatever the limit: exit 2 (it
    // was "no room", exit 1).
    let huge = [
        "--target",
        "huge.img",
        "--target-size",
        "9223372036854775808B",
    ];
    for args in [
        [&["plan", "s.toml"][..], &huge[..]].concat(),
        [&["s.toml"][..], &huge[..], &["-o", "o2"][..]].concat(),
    ] {
        for limits in [&["--fsize=1000000"][..], &[]] {
            let ran = run_limited(d, limits, false, &args);
            assert_eq!(ran.code, 2, "wkrun {args:?}: {}", ran.stderr);
            assert_eq!(
                ran.stderr.lines().last(),
                Some(
                    "error: huge.img: cannot create a file of 9223372036854775808 B (8192PiB): no file can be larger than 9223372036854775807 B (2^63 - 1); give a smaller --target-size (or [target] size); nothing was created"
                ),
                "wkrun {args:?}"
            );
        }
    }
    assert_eq!(
        dir_listing(d),
        [
            "o",
            "o/results.json",
            "o2",
            "o2/00-f.counters.csv",
            "o2/00-f.csv",
            "o2/00-f.hlog",
            "o2/results.json",
            "o3",
            "o3/results.json",
            "o3/t0-new.img",
            "o3/t0-new.img/results.json",
            "o3/t1-old.img",
            "o3/t1-old.img/results.json",
            "old.img",
            "s.toml",
            "small.img"
        ]
    );
}

/// Found by the attack session: under `ulimit -s 64` every command, `--version` included, overflowed the main
/// thread's stack (exit 134) while clap built its parser. The work runs on a thread with an 8 MiB stack when
/// RLIMIT_STACK is smaller: `--version`, `validate` and a run on a file end as they do without the limit.
#[test]
fn a_small_stack_limit_runs_every_command() {
    let d = tempdir();
    write_file(
        d.path(),
        "s.toml",
        &workload("engine = \"psync\"\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n"),
    );
    sparse_file(&d.path().join("t.img"), 1 << 20);
    let bin = wkrun_bin();
    let under = |args: &str| {
        Command::new("bash")
            .arg("-c")
            .arg(format!("ulimit -s 64 && exec {bin} {args}"))
            .current_dir(d.path())
            .output()
            .expect("run bash")
    };
    let (code, out, err) = code_out_err(&under("--version"));
    assert_eq!(
        (code, out, err),
        (
            0,
            format!("wkrun {}\n", env!("CARGO_PKG_VERSION")),
            String::new()
        )
    );
    let (code, out, err) = code_out_err(&under("validate s.toml"));
    assert_eq!(
        (code, out, err),
        (0, "s.toml: ok (1 phase)\n".to_string(), String::new())
    );
    let (code, _, err) = code_out_err(&under("s.toml --target t.img -o out -q"));
    assert_eq!((code, err), (0, String::new()));
    let (_, r) = strict_results(&d.path().join("out"));
    assert_eq!(r["status"], "completed");
}

/// Checks `stderr` is `what`'s refusal under the address-space limit `limit` for a need of `need` B
/// explained by `detail`, word for word (ending with `tail`), the suggested limit derived from the address space it says it
/// maps (1 MiB over that and the need, in whole MiB).
fn room_refusal(stderr: &str, limit: u64, what: &str, need: u64, detail: &str, tail: &str) -> u64 {
    // `tail`: what follows "or remove it", its ending ("; nothing was written") included.
    let used: u64 = stderr
        .split("beyond the ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{limit} B: {stderr}"));
    let enough = (((used + need).div_ceil(1 << 20)) + 1) << 20;
    assert_eq!(
        stderr,
        format!(
            "error: {what} needs about {need} B of address space beyond the {used} B wkrun maps now ({detail}), and the address-space limit (RLIMIT_AS, ulimit -v) is {limit} B: raise it to at least {enough} B (ulimit -v {}) or remove it{tail}\n",
            enough / 1024
        )
    );
    enough
}

/// `wkrun merge` and `wkrun report --png` under an address-space limit (found by the attack of issue 24,
/// round 2: both aborted, exit 134, a 19,595,520 B pixmap or a series' rows failing to allocate). From
/// 48 MiB up in steps of 4 MiB to 72 MiB, then of 16 MiB, until two runs complete (it was 2 MiB, then 4 MiB
/// all the way: the debug build's bands, each hit by steps of 4 MiB too, are merge: start-up refusal to 50 MiB, inputs' to 66, complete from 68; report:
/// start-up to 50, inputs' 52 to 60, plots' 62 to 68, PNGs' 70 to at least 138, 35 refusals alike): each is refused before anything is written (exit 1,
/// no output folder, the need recomputed here: 4 MiB, the results' room from their shape and 10 B per
/// byte of the series read; for the PNGs 16 MiB and the largest chart's pixels at 3× its SVG size, RGBA,
/// twice, with 4 MiB, of the charts not yet drawn: checked before each few, the files drawn before a refusal
/// removed), or for the report's plots 16 MiB and the plots left (exit 1, no output folder), or
/// completes.
#[test]
fn merge_and_report_png_under_an_address_space_limit_are_refused_or_complete() {
    let test = "limits::merge_and_report_png_under_an_address_space_limit_are_refused_or_complete";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    // 2,000 rows of series each, so that what merge reads takes room of its own.
    let body = "engine = \"psync\"\nblock_size = \"4KiB\"\nduration = \"2s\"\ninterval = \"1ms\"\n";
    write_file(d.path(), "s.toml", &workload(body));
    for (t, out) in [("t1.img", "r1"), ("t2.img", "r2")] {
        sparse_file(&d.path().join(t), 1 << 20);
        let ran = run_limited(
            d.path(),
            &[],
            false,
            &["s.toml", "--target", t, "-o", out, "-q"],
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    // The inputs' room as the oracle counts it (`results_room`): merge keeps a second typed copy and the
    // text of each; a report holds the typed results and the largest's reading.
    let inputs = |dirs: &[&str], kept: bool| -> (u64, String) {
        let (mut held, mut reading, mut values, mut json, mut series) = (0, 0, 0, 0, 0);
        for r in dirs {
            let file = d.path().join(r).join("results.json");
            let (h, read, v) = crate::results_room::file_room(&file);
            let len = fs::metadata(&file).expect("results").len();
            held += if kept { 2 * h + len } else { h };
            reading = reading.max(read);
            values += v;
            json += len;
            series += crate::results_room::series_bytes(&d.path().join(r));
        }
        let results = held + reading;
        let detail = format!(
            "4194304 B for its own work, {results} B for the {values} values of the {json} B of results (read, checked and held typed: docs/safety.md), and 10 B per byte of the {series} B of series it reads"
        );
        ((4 << 20) + results + 10 * series, detail)
    };
    let (merge_need, merge_detail) = inputs(&["r1", "r2"], true);
    let (report_need, report_detail) = inputs(&["r1"], false);
    // Each chart's room to draw its PNG (its pixels twice, 16 B per byte of its SVG, the font, 4 MiB), from an
    // unlimited report's SVGs, in the order the report draws them (its page's order). The report checks
    // the room for the charts left before each few it draws (`build::write`), so a refusal names the
    // largest of the charts not yet drawn: under load the first drawn (the IOPS charts) can be the
    // largest, and a refusal after them names the next (CI: 26,983,320 B for the latency chart where
    // 27,693,496 B for all).
    let ran = run_limited(d.path(), &[], false, &["report", "r1", "-o", "plain"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let plain = d.path().join("plain");
    let page = fs::read_to_string(plain.join("index.html")).expect("the page");
    let mut order: Vec<String> = fs::read_dir(&plain)
        .expect("report")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    order.sort_by_key(|n| page.find(n.as_str()).expect("every chart is on the page"));
    let font = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/report/font/DejaVuSans.ttf"
    );
    let font = fs::metadata(font).expect("the font").len();
    let spaces: Vec<u64> = order
        .iter()
        .map(|n| {
            let svg = fs::read_to_string(plain.join(n)).expect("svg");
            let attr = |n: &str| -> u64 {
                let v = svg.split(&format!(" {n}=\"")).nth(1).expect("size");
                v.split('"').next().expect("quote").parse().expect("number")
            };
            attr("width") * 3 * attr("height") * 3 * 4 * 2
                + 16 * svg.len() as u64
                + font
                + (4 << 20)
        })
        .collect();
    // The largest of the charts from each on: what a refusal before drawing that chart names.
    let largest_left: Vec<u64> = (0..spaces.len())
        .map(|k| spaces[k..].iter().copied().max().expect("a chart"))
        .collect();
    let png_detail = |each: u64| {
        format!(
            "16777216 B for the report, and {each} B to draw its largest PNG: its pixels twice (drawn and encoded), 16 B per byte of its SVG, the font, and 4 MiB for its thread and the file"
        )
    };
    // Each command, and the refusals it may give: (what, need, detail, tail), the one for what it reads
    // first.
    type Refusal<'a> = (&'a str, u64, String, &'a str);
    let cases: [(&str, [&str; 5], Vec<Refusal>); 2] = [
        (
            "merge",
            ["merge", "r1", "r2", "-o", "OUT"],
            vec![("merging 2 results folders", merge_need, merge_detail, "")],
        ),
        (
            "report",
            ["report", "r1", "--png", "-o", "OUT"],
            vec![(
                "a report of 1 results folder",
                report_need,
                report_detail,
                "",
            )],
        ),
    ];
    for (name, args, refusals) in cases {
        let (mut refused, mut completed) = (0, 0);
        // Steps of 4 MiB from 48 to 68 MiB, through the bands below the PNGs' (start-up, inputs, plots:
        // each one to five steps wide), then of 16 MiB from 72 MiB: the PNGs' band (70 to at least 138
        // MiB) is refused alike at each step, the chart it names checked against `largest_left`, and its
        // 4 MiB steps drew the report's plots and some PNGs again some 20 times.
        let limits = (12..18u64).chain((18..54).step_by(4)).map(|k| k << 22);
        for limit in limits {
            if completed >= 2 {
                break;
            }
            let out = format!("{name}{limit}");
            let args = args.map(|a| if a == "OUT" { out.as_str() } else { a });
            let ran = run_limited(d.path(), &[&format!("--as={limit}")], false, &args);
            match ran.code {
                1 if refusals
                    .iter()
                    .any(|r| ran.stderr.starts_with(&format!("error: {} ", r.0))) =>
                {
                    let (what, need, detail, tail) = refusals
                        .iter()
                        .find(|r| ran.stderr.starts_with(&format!("error: {} ", r.0)))
                        .expect("a refusal");
                    let tail = format!("{tail}; nothing was written");
                    let _ = room_refusal(&ran.stderr, limit, what, *need, detail, &tail);
                    assert!(!d.path().join(&out).exists(), "{name} {limit} B: a folder");
                    refused += 1;
                }
                1 if ran.stderr.contains("beyond the program") => {}
                1 if name == "report"
                    && ran.stderr.starts_with("error: drawing the report's PNGs ") =>
                {
                    let each = ran
                        .stderr
                        .split("B for the report, and ")
                        .nth(1)
                        .and_then(|t| t.split(' ').next())
                        .and_then(|n| n.parse::<u64>().ok())
                        .unwrap_or_else(|| panic!("{limit} B: {}", ran.stderr));
                    assert!(
                        largest_left.contains(&each),
                        "{limit} B: {each} B is not the largest of the charts left at any point: {largest_left:?}"
                    );
                    let what = "drawing the report's PNGs";
                    let tail = "; or leave out --png; nothing was written";
                    let _ = room_refusal(
                        &ran.stderr,
                        limit,
                        what,
                        (16 << 20) + each,
                        &png_detail(each),
                        tail,
                    );
                    assert!(!d.path().join(&out).exists(), "{name} {limit} B: a folder");
                    refused += 1;
                }
                // The report's plots (one phase: 2 sections, the top of the page and its own), checked
                // before each section is drawn (`report::room::Drawing`): one section's are held at once.
                1 if name == "report" => {
                    let each = ran
                        .stderr
                        .split("B to draw, and ")
                        .nth(1)
                        .and_then(|t| t.split(' ').next())
                        .map(|n| n.parse::<u64>().expect("a size"));
                    let (need, detail) = match each {
                        None => (
                            16 << 20,
                            "16777216 B to draw the first of 2 sections".to_string(),
                        ),
                        Some(each) => (
                            (16 << 20) + each,
                            format!(
                                "16777216 B to draw, and {each} B of plots held while the next of the 1 sections left is written (those at the top of the page, and twice the largest section's drawn so far: its SVGs and the page's copy)"
                            ),
                        ),
                    };
                    let what = "drawing the report's plots";
                    let tail = "; nothing was written";
                    let _ = room_refusal(&ran.stderr, limit, what, need, &detail, tail);
                    assert!(!d.path().join(&out).exists(), "{name} {limit} B: a folder");
                    refused += 1;
                }
                0 => completed += 1,
                c if crate::common::loader_refused(c, &ran.stderr) => {
                    assert!(!d.path().join(&out).exists(), "{name} {limit} B: a folder");
                }
                c => panic!("{name} under {limit} B: exit {c}: {}", ran.stderr),
            }
        }
        assert!(
            refused > 0 && completed >= 2,
            "{name}: refused {refused}, completed {completed}"
        );
    }
}

/// Attack 24c F12: under an open-file limit (RLIMIT_NOFILE) too small for a run, the run is refused before
/// it starts, exit 1 (a resource limit), naming the limit and the count needed, with a results.json saying
/// "failed" where the output folder can hold one, else nothing and saying so (once: at 4, exit 2
/// blaming the output folder, "choose another --output folder"; at 5 to 8, exit 1 with "Too many open
/// files" naming no limit). `sim fit` and `sim predict` too (once: "cannot run .../wkrun: Too many open files"). Where the
/// hard limit allows, the soft limit is raised and the run completes.
#[test]
fn a_small_open_file_limit_is_named_or_raised() {
    if let Some(why) = limits_unavailable() {
        return skip("limits::a_small_open_file_limit_is_named_or_raised", &why);
    }
    let d = tempdir();
    let p = d.path();
    write_file(p, "s.toml", &workload("duration = \"1s\"\n"));
    // io_uring: a ring per worker.
    let uring = workload("duration = \"1s\"\nengine = \"io_uring\"\nworkers = 4\n");
    write_file(p, "u.toml", &uring);
    let sim = "sim:capacity=256MiB,op=20%";
    let open = files_a_child_starts_with();
    let file = |spec: &'static str, out: &'static str| on_a_new_file(spec, "t.img", out);
    let cases = [
        (
            "4",
            vec!["s.toml", "--target", sim, "-o", "o4", "-q"],
            "a run",
            8,
        ),
        ("8", file("s.toml", "o8"), "a run", 8),
        ("12", file("u.toml", "o12"), "a run", 12),
        // `sim fit` and `sim predict` ask for what their runs ask for (attack 40 F9: `sim predict` advised
        // 4 beside those open, its run then refused and advised 8): a run's 8 beside its output folder.
        (
            "4",
            vec!["sim", "fit", "o4"],
            "sim fit (with the simulated runs it starts)",
            9,
        ),
        (
            "4",
            vec!["sim", "predict", "o4", "s.toml"],
            "sim predict (with the runs it starts)",
            9,
        ),
    ];
    for (n, args, what, needs) in cases {
        let ran = run_limited(p, &[&format!("--nofile={n}")], false, &args);
        assert_eq!(ran.code, 1, "{}", ran.stderr);
        // A run's output folder is opened (and checked) before its limits: where it could be, it is one of
        // the files open (review 40 H3).
        let open = match (what, n) {
            ("a run", "8" | "12") => open + 1,
            _ => open,
        };
        let why = format!(
            "{what} needs up to {needs} open files at once beside the {open} wkrun has open now (its standard input, output and error, those it inherited and those it opened), and the limit on open files (RLIMIT_NOFILE, ulimit -n) is {n} (its hard limit {n}): raise it to at least {} (ulimit -n {})",
            open + needs,
            open + needs
        );
        // A run refused leaves a results.json saying "failed" where the output folder can hold one: under 8
        // and 12 it can; under 4 not even the folder can be made, and the message says so.
        let out = args[args.len() - 2];
        let end = match (what, n) {
            ("a run", "8" | "12") => {
                refused_results(&p.join(out), &ran.stderr);
                format!("; the run did not start: {out}/results.json says \"failed\"")
            }
            ("a run", _) => format!(
                "; nothing was written (cannot write into the output folder {out}: Too many open files (os error 24); the limit on open files (RLIMIT_NOFILE, ulimit -n) is {n}: raise it (ulimit -n))"
            ),
            _ => "; nothing was written".to_string(),
        };
        assert_eq!(ran.stderr, format!("error: {why}{end}\n"));
    }
    assert_eq!(
        dir_listing(p),
        [
            "o12",
            "o12/results.json",
            "o8",
            "o8/results.json",
            "s.toml",
            "u.toml"
        ],
        "nothing made but the refused runs' folders"
    );
    fs::remove_dir_all(p.join("o8")).expect("o8");
    fs::remove_dir_all(p.join("o12")).expect("o12");
    // Raised to the hard limit: both complete.
    for args in [
        vec!["s.toml", "--target", sim, "-o", "ok", "-q"],
        file("u.toml", "oku"),
    ] {
        let ran = run_limited(p, &["--nofile=4:64"], false, &args);
        assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
        let (_, r) = strict_results(&p.join(args[args.len() - 2]));
        assert_eq!(r["status"], "completed");
    }
}

/// The lowest descriptor a child of this test process opens first: the first above its standard streams
/// that this process does not hold without close-on-exec (which a child would inherit).
fn first_free_fd_of_a_child() -> u64 {
    let inherited = |fd: u64| {
        fs::read_to_string(format!("/proc/self/fdinfo/{fd}"))
            .ok()
            .and_then(|info| {
                let flags = info.lines().find_map(|l| l.strip_prefix("flags:"))?;
                u64::from_str_radix(flags.trim(), 8).ok()
            })
            .is_some_and(|flags| flags & 0o2_000_000 == 0)
    };
    (3..).find(|&fd| !inherited(fd)).expect("a free descriptor")
}

/// Attack 15 F4: the target's probe out of descriptors is a resource limit, not bad input. Under a limit
/// that lets wkrun hold one file at a time and no two (the probe opens the target by O_PATH, then reopens
/// it), `wkrun SPEC` and `wkrun plan` exited 2 with `cannot open f1.img: Too many open files (os error
/// 24)`, naming no limit; now exit 1 naming RLIMIT_NOFILE and its value (the run's output folder cannot be
/// opened either: nothing written, and it says so). `report` there exited 1 already, naming no limit.
#[test]
fn an_open_file_limit_reached_at_the_probe_or_the_report_is_named() {
    if let Some(why) = limits_unavailable() {
        return skip(
            "limits::an_open_file_limit_reached_at_the_probe_or_the_report_is_named",
            &why,
        );
    }
    let d = tempdir();
    let p = d.path();
    write_file(p, "s.toml", &workload("duration = \"1s\"\n"));
    sparse_file(&p.join("f1.img"), 16 << 20);
    let sim = "sim:capacity=64MiB,op=28%,block=256KiB";
    let ran = run_limited(p, &[], false, &["s.toml", "--target", sim, "-o", "r", "-q"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let before = dir_listing(p);
    let n = first_free_fd_of_a_child() + 1;
    let limit = format!("--nofile={n}");
    let named = format!(
        "Too many open files (os error 24); the limit on open files (RLIMIT_NOFILE, ulimit -n) is {n}"
    );
    let probe = format!("error: cannot open f1.img: {named}");
    let cases = [
        (
            vec!["s.toml", "--target", "f1.img", "-o", "o", "-q"],
            format!(
                "{probe}; nothing was written (cannot write into the output folder o: {named}: raise it (ulimit -n))\n"
            ),
        ),
        (
            vec!["plan", "s.toml", "--target", "f1.img"],
            format!("{probe}\n"),
        ),
        // The page is written as its sections' plots are drawn, its file open from the start: the first
        // file it cannot make.
        (
            vec!["report", "r", "-o", "rp"],
            format!("error: cannot write rp/index.html: {named}\n"),
        ),
    ];
    for (args, err) in cases {
        let ran = run_limited(p, &[&limit], false, &args);
        assert_eq!(
            (ran.code, ran.stderr.as_str()),
            (1, err.as_str()),
            "{args:?}"
        );
        assert_eq!(dir_listing(p), before, "{args:?}: something was left");
    }
}

/// Issue 24: a run whose I/O buffers and per-I/O traces are more than the machine's available memory is
/// refused before anything is made (exit 1), naming MemAvailable and the need, recomputed here: 4 MiB for
/// the run and, for each target, 8 MiB with its phase's 8 × 256 × 1 MiB of buffers and 100,000,000 trace
/// rows of 32 B. Enough targets are given to pass this machine's MemAvailable (a cgroup v2 memory limit
/// cannot be made here: the memory controller is cgroup v1's, and its cgroup is the session's).
#[test]
fn a_run_needing_more_than_the_available_memory_is_refused() {
    let avail = |text: &str| -> u64 {
        let line = text
            .lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    };
    let before = avail(&std::fs::read_to_string("/proc/meminfo").unwrap());
    let per_target: u64 = (8 << 20) + 8 * 256 * (1 << 20) + 100_000_000 * 32;
    let n = before / per_target + 2;
    let need = (4u64 << 20) + n * per_target;
    let d = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\n\
                block_size = \"1MiB\"\nqueue_depth = 256\nworkers = 8\nsize = \"1MiB\"\ntrace = 100000000\n";
    write_file(d.path(), "s.toml", &spec_text("m", body));
    let mut args = vec!["s.toml".to_string()];
    for i in 0..n {
        let f = d.path().join(format!("t{i}.img"));
        std::fs::File::create(&f).unwrap().set_len(1 << 30).unwrap();
        args.extend(["--target".to_string(), format!("t{i}.img")]);
    }
    args.extend(["-o".to_string(), "o".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    let head = format!(
        "error: a run on {n} targets needs about {need} B of memory (4194304 B for the run, {} B for the {n} targets (8388608 B each), and for the largest phase of each {} B of I/O buffers, {} B of per-I/O trace (trace = 100000000: 3200000000 B reserved before its phase): docs/safety.md), more than the machine has available (MemAvailable in /proc/meminfo: ",
        n * (8 << 20),
        n * 8 * 256 * (1 << 20),
        n * 100_000_000 * 32
    );
    let tail = " B); free memory or use a machine with more; the run did not start: o/results.json and each target's results.json say \"failed\"\n";
    let said = err
        .strip_prefix(&head)
        .and_then(|r| r.strip_suffix(tail))
        .unwrap_or_else(|| panic!("{err}"));
    // What wkrun read, near what this test read (other processes come and go).
    let said: u64 = said.parse().unwrap();
    assert!(
        said < need && said.abs_diff(before) < before / 10,
        "{said} against {before}"
    );
    // Each target's results.json (t0-t0.img, ...) and the aggregate say "failed", with no phase.
    let folders: Vec<String> = (0..n)
        .map(|i| format!("t{i}-t{i}.img"))
        .chain([".".to_string()])
        .collect();
    refused_in_each(&d.path().join("o"), &folders, None);
}

/// A simulated drive's mapping tables count in a run's needs (found by the attack of issue 24: a 256 GiB
/// drive's tables took 560 MB yet the run passed a MemAvailable of 100 MB and `--as` of 300 MiB, to fail
/// later on an allocation). The tables' size recomputed here from the geometry: 4 B a 4 KiB unit of the
/// capacity, and 4 B a 4 KiB slot of the flash (capacity + 7 % rounded down, in whole superblocks of 18
/// dies × 256 KiB, 18 being the flash over 16 GiB rounded up). Refused up front under 300 MiB of address
/// space (the parts adding up to the need) and, in a mount namespace where /proc/meminfo says 100000 kB
/// are available, for memory: exit 1, results.json "failed" with no phase.
#[test]
fn a_simulated_drives_mapping_tables_count_in_the_runs_needs() {
    let test = "limits::a_simulated_drives_mapping_tables_count_in_the_runs_needs";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let capacity: u64 = 256 << 30;
    let flash = capacity + capacity * 7 / 100;
    let dies = flash.div_ceil(16 << 30);
    let sb = dies * (256 << 10);
    let tables = capacity / 4096 * 4 + flash / sb * sb / 4096 * 4;
    assert_eq!((dies, tables), (18, 555_661_312));
    let need = (4 << 20) + (8 << 20) + 4096 + tables;
    let parts = format!(
        "4194304 B for the run, 8388608 B for the target, {tables} B for the simulated drive's mapping tables, and for its largest phase 4096 B of I/O buffers"
    );
    let d = tempdir();
    // The parts add up to the need stated.
    assert_eq!(4194304 + 8388608 + tables + 4096, need);
    write_file(
        d.path(),
        "s.toml",
        &workload("block_size = \"4KiB\"\nduration = \"10ms\"\n"),
    );
    let sim = "sim:capacity=256GiB,op=7%,block=256KiB";
    let args = ["s.toml", "--target", sim, "-o", "as", "-q"];
    let ran = run_limited(d.path(), &["--as=314572800"], false, &args);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    room_refusal(
        &ran.stderr,
        314_572_800,
        "a run",
        need,
        &parts,
        &failed_in("as"),
    );
    refused_results(&d.path().join("as"), &ran.stderr);
    // MemAvailable of 100000 kB, read from a file bound over /proc/meminfo in a mount namespace of its own.
    write_file(
        d.path(),
        "meminfo",
        "MemTotal: 8000000 kB\nMemFree: 100000 kB\nMemAvailable: 100000 kB\n",
    );
    let script = format!(
        "mount --bind meminfo /proc/meminfo && exec {} s.toml --target {sim} -o mem -q",
        wkrun_bin()
    );
    let unshare = |script: &str| {
        Command::new("unshare")
            .args(["-m", "sh", "-c", script])
            .current_dir(d.path())
            .output()
    };
    match unshare("mount --bind meminfo /proc/meminfo") {
        Ok(o) if o.status.success() => {}
        o => return skip(test, &format!("no mount namespace here: {o:?}")),
    }
    let out = unshare(&script).expect("unshare");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        (out.status.code(), err.as_ref()),
        (
            Some(1),
            format!(
                "error: a run needs about {need} B of memory ({parts}: docs/safety.md), more than the machine has available (MemAvailable in /proc/meminfo: 102400000 B); free memory or use a machine with more{}\n",
                failed_in("mem")
            )
            .as_str()
        )
    );
    refused_results(&d.path().join("mem"), &err);
}

/// Review 40 H3: a run that is bad input and short of a resource limit at once is bad input: exit 2, nothing
/// written. The limit checks came first: exit 1, and a results.json written beside a target that is that
/// very file (or "nothing was written" exit 1 for a folder holding results). Under 8 open files a run on a
/// file target is refused by its own check (exit 1: `a_small_open_file_limit_is_named_or_raised`).
#[test]
fn bad_input_under_a_resource_limit_exits_2_and_writes_nothing() {
    if let Some(why) = limits_unavailable() {
        return skip(
            "limits::bad_input_under_a_resource_limit_exits_2_and_writes_nothing",
            &why,
        );
    }
    let d = tempdir();
    let p = d.path();
    write_file(p, "s.toml", &workload("duration = \"1s\"\n"));
    fs::create_dir(p.join("held")).expect("held");
    write_file(&p.join("held"), "results.json", "{}\n");
    fs::create_dir(p.join("own")).expect("own");
    let run = |target: &'static str, out: &'static str| on_a_new_file("s.toml", target, out);
    let cases = [
        (
            run("t.img", "held"),
            "error: held already holds results.json; choose another --output folder\n",
        ),
        (
            run("own/results.json", "own"),
            "error: the target own/results.json is results.json in the output folder own, which the run writes: it would replace the target and its data; nothing was written: choose another target path or --output folder\n",
        ),
    ];
    for (args, err) in cases {
        let ran = run_limited(p, &["--nofile=8"], false, &args);
        assert_eq!((ran.code, ran.stderr.as_str()), (2, err), "{args:?}");
    }
    assert_eq!(
        dir_listing(p),
        ["held", "held/results.json", "own", "s.toml"]
    );
    assert_eq!(
        fs::read_to_string(p.join("held/results.json")).expect("held"),
        "{}\n"
    );
}

/// Attack 40 F2: `merge` under too small an open-file limit exited 2 ("cannot read it: Too many open files"),
/// as for bad input: exit 1, naming the limit and what is enough, nothing written; under that much it
/// completes.
#[test]
fn merge_under_a_small_open_file_limit_exits_1_naming_it() {
    if let Some(why) = limits_unavailable() {
        return skip(
            "limits::merge_under_a_small_open_file_limit_exits_1_naming_it",
            &why,
        );
    }
    let d = tempdir();
    let p = d.path();
    write_file(p, "s.toml", &workload("duration = \"1s\"\n"));
    let ran = run_limited(
        p,
        &[],
        false,
        &[
            "s.toml",
            "--target",
            "sim:capacity=64MiB,op=28%,block=256KiB",
            "-o",
            "r",
            "-q",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let before = dir_listing(p);
    let open = files_a_child_starts_with();
    let ran = run_limited(p, &["--nofile=4"], false, &["merge", "r", "-o", "m"]);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            1,
            format!(
                "error: merging 1 results folders needs up to 2 open files at once beside the {open} wkrun has open now (its standard input, output and error, those it inherited and those it opened), and the limit on open files (RLIMIT_NOFILE, ulimit -n) is 4 (its hard limit 4): raise it to at least {} (ulimit -n {}); nothing was written\n",
                open + 2,
                open + 2
            )
            .as_str()
        )
    );
    assert_eq!(dir_listing(p), before, "something was written");
    let enough = format!("--nofile={}", open + 2);
    let ran = run_limited(p, &[&enough], false, &["merge", "r", "-o", "m"]);
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
}

/// Issue 24 leftovers: a summary line that stdout does not take stops the run at that write, as a signal
/// does, not at its next record of results (the phase under way ran to its end). Stdout is a file whose
/// offset stands 16 B below the file-size limit: it takes `results: r` (11 B) and 5 B of the phase's
/// header, whose write then fails (EFBIG). Measured: the 30 s phase ended after 0.12 s with the fix; before
/// it the run took 30.1 s, its phase 30.006 s, then failed the same way.
#[test]
fn a_summary_line_stdout_refuses_stops_the_phase_at_once() {
    use std::io::{Seek, SeekFrom};
    let test = "limits::a_summary_line_stdout_refuses_stops_the_phase_at_once";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    write_file(d.path(), "s.toml", &workload("duration = \"30s\"\n"));
    let limit: u64 = 16 << 20;
    let mut out = File::create(d.path().join("out.txt")).expect("out.txt");
    out.seek(SeekFrom::Start(limit - 16)).expect("seek");
    let t0 = Instant::now();
    let o = Command::new("prlimit")
        .arg(format!("--fsize={limit}"))
        .arg(wkrun_bin())
        .args(["s.toml", "--target", "t.img", "--target-size", "1MiB"])
        .args(["-o", "r", "-q"])
        .current_dir(d.path())
        .stdout(out)
        .output()
        .expect("prlimit");
    let took = t0.elapsed();
    let (code, _, err) = code_out_err(&o);
    let why = "cannot write standard output: File too large (os error 27)";
    assert_eq!((code, err), (1, format!("error: {why}\n")));
    assert!(took < Duration::from_secs(10), "the run took {took:?}");
    let (_, r) = strict_results(&d.path().join("r"));
    assert_eq!((&r["status"], &r["error"]), (&"failed".into(), &why.into()));
    assert_eq!(phase(&r, 0)["completed"], false);
    let ran = phase(&r, 0)["duration_s"].as_f64().expect("duration_s");
    assert!(ran < 1.0, "the phase ran {ran} s");
    let text = fs::read(d.path().join("out.txt")).expect("out.txt");
    assert_eq!(&text[(limit - 16) as usize..], b"results: r\n[phas");
}

/// Issue 24 leftovers: `--version` and `--help` under a small address-space limit. Going down from 64 MiB a
/// MiB at a time, each prints its text (exit 0) until the first limit that leaves less than the 4 MiB
/// wkrun needs beyond the program, where it is refused cleanly (exit 1 naming RLIMIT_AS and the limit to
/// raise it to), and the limit it advises prints the text. Below that band the program cannot start at all
/// (the dynamic loader fails to map a library, exit 127, or the kernel's exec, SIGSEGV): nothing of wkrun
/// has run (measured on the debug build: 46-49 MiB refused, 43-45 MiB the loader, 42 MiB and less exec;
/// `prlimit --as=36MiB` cannot exec the 42 MB debug binary; the release binary runs at 36 MiB).
#[test]
fn version_and_help_under_a_small_address_space_limit_work_or_are_refused_cleanly() {
    let test =
        "limits::version_and_help_under_a_small_address_space_limit_work_or_are_refused_cleanly";
    if let Some(why) = limits_unavailable() {
        return skip(test, &why);
    }
    let d = tempdir();
    for (arg, text) in [("--version", "wkrun "), ("--help", "Usage: wkrun")] {
        let run = |limit: u64| {
            let o = Command::new("prlimit")
                .arg(format!("--as={limit}"))
                .arg(wkrun_bin())
                .arg(arg)
                .current_dir(d.path())
                .output()
                .expect("prlimit");
            code_out_err(&o)
        };
        let mut limit = 64u64 << 20;
        let (code, out, err) = loop {
            let (code, out, err) = run(limit);
            if code != 0 {
                break (code, out, err);
            }
            assert!(out.contains(text), "{arg} at {limit} B: {out}");
            limit -= 1 << 20;
        };
        assert_eq!((code, out.as_str()), (1, ""), "{arg} at {limit} B: {err}");
        let enough: u64 = err
            .split("raise it to at least ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{arg} at {limit} B: {err}"));
        assert_eq!(
            err,
            format!(
                "error: the address-space limit (RLIMIT_AS, ulimit -v) is {limit} B, which leaves less than the 4194304 B wkrun needs beyond the program and its libraries; raise it to at least {enough} B (ulimit -v {}) or remove it; nothing was written\n",
                enough / 1024
            )
        );
        let (code, out, err) = run(enough);
        assert_eq!(code, 0, "{arg} at {enough} B: {err}");
        assert!(out.contains(text), "{arg} at {enough} B: {out}");
    }
}

/// Attack 13 F11: `sim fit` and `sim predict` advised one open file too few (13, where their runs, which
/// open their output folder before they check, then asked 14): under the limit they advise, both complete.
#[test]
fn sim_fit_and_predict_complete_under_the_open_file_limit_they_advise() {
    if let Some(why) = limits_unavailable() {
        return skip(
            "limits::sim_fit_and_predict_complete_under_the_open_file_limit_they_advise",
            &why,
        );
    }
    let d = tempdir();
    let p = d.path();
    let wsat = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"40s\"\n";
    write_file(p, "m.toml", &spec_text("m", wsat));
    write_file(p, "s.toml", &workload("duration = \"1s\"\n"));
    let truth = "sim:capacity=256MiB,op=20%,dies=1,program_time=3200us";
    let ran = run_limited(
        p,
        &[],
        false,
        &["m.toml", "--target", truth, "-o", "m", "-q"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let open = files_a_child_starts_with();
    let fitted = "sim:capacity=256MiB,op=20%,block=256KiB";
    let cases = [
        (
            vec![
                "sim", "predict", "m", "s.toml", "--fitted", fitted, "-o", "p", "-q",
            ],
            "sim predict (with the runs it starts)",
        ),
        (
            vec!["sim", "fit", "m"],
            "sim fit (with the simulated runs it starts)",
        ),
    ];
    for (args, what) in cases {
        let ran = run_limited(p, &["--nofile=8"], false, &args);
        let advised = open + 9;
        assert_eq!(
            (ran.code, ran.stderr.as_str()),
            (
                1,
                format!(
                    "error: {what} needs up to 9 open files at once beside the {open} wkrun has open now (its standard input, output and error, those it inherited and those it opened), and the limit on open files (RLIMIT_NOFILE, ulimit -n) is 8 (its hard limit 8): raise it to at least {advised} (ulimit -n {advised}); nothing was written\n"
                )
                .as_str()
            )
        );
        let ran = run_limited(p, &[&format!("--nofile={advised}")], false, &args);
        assert_eq!(ran.code, 0, "{args:?} under {advised}: {}", ran.stderr);
    }
    let (_, r) = strict_results(&p.join("p"));
    assert_eq!(r["status"], "completed");
}
