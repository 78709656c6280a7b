//! Several targets in one run (`--target` repeated, `[target] paths`): every target's writes on disk, each
//! target's own results folder, the aggregate as their sum; the safety rules per target (consent per block
//! device, duplicates by identity, a mounted device) refusing the whole run before anything is written.

use crate::common::*;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command;

const BS: u64 = 4096;

/// A random write of `size` bytes, every block at most once (`coverage = "full"`): the bytes on disk are
/// exactly the bytes written.
fn rand_write(size: &str) -> String {
    format!(
        "[[phase]]\nname = \"rw\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"random\"\ncoverage = \"full\"\nread_percent = 0\nblock_size = \"4KiB\"\nsize = \"{size}\"\n"
    )
}

const FILL: &str =
    "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"4KiB\"\n";

/// The number of `BS`-byte blocks of `bytes` that are not all zeros.
fn nonzero_blocks(bytes: &[u8]) -> u64 {
    bytes
        .chunks(BS as usize)
        .filter(|c| c.iter().any(|&b| b != 0))
        .count() as u64
}

/// Runs `wkrun spec.toml ARGS -q -o out` in `d`; the exit code and stderr.
fn run(d: &Path, body: &str, args: &[&str]) -> (i32, String) {
    run_to(d, "out", body, args)
}

/// Runs `wkrun spec.toml ARGS -q -o OUT` in `d`; the exit code and stderr.
fn run_to(d: &Path, out: &str, body: &str, args: &[&str]) -> (i32, String) {
    write_file(d, "spec.toml", &spec_text("multi", body));
    let mut all = vec!["spec.toml", "-q", "-o", out];
    all.extend_from_slice(args);
    let (code, _, err) = code_out_err(&wkrun(d, &all));
    (code, err)
}

/// Phase `i`'s write ops and bytes.
fn writes(r: &Value, i: usize) -> (u64, u64) {
    (
        u(r, &format!("/phases/{i}/write/ops")),
        u(r, &format!("/phases/{i}/write/bytes")),
    )
}

#[test]
fn two_files_of_different_sizes_each_get_their_own_writes_results_and_the_aggregate_is_the_sum() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 4 << 20);
    sparse_file(&d.join("b.img"), 6 << 20);
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &["--target", "a.img", "--target", "b.img"],
    );
    assert_eq!(code, 0, "{err}");
    for (name, cap) in [("a", 4u64 << 20), ("b", 6 << 20)] {
        let bytes = read(&d.join(format!("{name}.img")));
        assert_eq!(bytes.len() as u64, cap);
        assert_eq!(nonzero_blocks(&bytes) * BS, 1 << 20, "{name}.img on disk");
        let r = results(&d.join(format!("out/t{}-{name}.img", (name == "b") as u8)));
        assert_eq!(r["status"], "completed");
        assert_eq!(u(&r, "/target/capacity_bytes"), cap);
        assert_eq!(r["target"]["path"], format!("{name}.img"));
        assert_eq!(writes(&r, 0), (256, 1 << 20));
        assert_eq!(r["phases"][0]["series_csv"], "00-rw.csv");
    }
    let agg = results(&d.join("out"));
    assert_eq!(agg["status"], "completed");
    assert_eq!(agg["target"]["path"], "a.img + b.img");
    assert_eq!(u(&agg, "/target/capacity_bytes"), 10 << 20);
    assert_eq!(writes(&agg, 0), (512, 2 << 20));
    let hosts = agg["cluster"]["hosts"].as_array().expect("cluster.hosts");
    let caps: Vec<u64> = hosts
        .iter()
        .map(|h| h["capacity_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(caps, [4 << 20, 6 << 20]);
    let parts: Vec<u64> = agg["phases"][0]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["write"]["ops"].as_u64().unwrap())
        .collect();
    assert_eq!(parts, [256, 256]);
    assert!(d.join("out/00-rw.csv").is_file());
    // The aggregate's headline is the targets' together (tests/it/merged_judging.rs checks every figure):
    // its mean IOPS is the 512 writes over the aggregate's duration, not one target's.
    let p = &agg["phases"][0];
    let mean = p["headline"]
        .as_array()
        .and_then(|h| h.iter().find(|f| f["key"] == "mean iops"))
        .unwrap_or_else(|| panic!("no mean iops headline: {p}"));
    assert_eq!(
        mean["value"].as_f64(),
        Some(512.0 / p["duration_s"].as_f64().unwrap())
    );
    // Each folder is a results folder that report and compare read.
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &["report", "out", "out/t0-a.img", "out/t1-b.img", "-o", "rep"],
    ));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = code_out_err(&wkrun(
        d,
        &[
            "compare",
            "out/t0-a.img",
            "out/t1-b.img",
            "out",
            "--format",
            "csv",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().next(),
        // Each run by its label: a file target's is its path; the aggregate's joins them, marked as a sum
        // beside one target's runs (trial 19 F3).
        Some(
            "phase,metric,a.img,b.img,b.img change (%),a.img + b.img [sum of 2 targets],a.img + b.img [sum of 2 targets] change (%)"
        )
    );

    // A fill covers each target's own capacity.
    fs::remove_dir_all(d.join("out")).unwrap();
    let (code, err) = run(d, FILL, &["--target", "a.img", "--target", "b.img"]);
    assert_eq!(code, 0, "{err}");
    for (i, name, cap) in [(0, "a", 4u64 << 20), (1, "b", 6 << 20)] {
        let bytes = read(&d.join(format!("{name}.img")));
        assert_eq!(nonzero_blocks(&bytes) * BS, cap, "{name}.img filled");
        let r = results(&d.join(format!("out/t{i}-{name}.img")));
        assert_eq!(writes(&r, 0), (cap / BS, cap));
    }
    let agg = results(&d.join("out"));
    assert_eq!(writes(&agg, 0), ((10 << 20) / BS, 10 << 20));
}

#[test]
fn the_spec_lists_targets_and_the_command_line_replaces_the_list() {
    let dir = tempdir();
    let d = dir.path();
    let body = format!(
        "[target]\npaths = [\"p.img\", \"q.img\"]\nsize = \"2MiB\"\n{}",
        rand_write("512KiB")
    );
    let (code, err) = run(d, &body, &[]);
    assert_eq!(code, 0, "{err}");
    for (i, name) in [(0, "p"), (1, "q")] {
        let bytes = read(&d.join(format!("{name}.img")));
        assert_eq!(nonzero_blocks(&bytes) * BS, 512 << 10);
        let r = results(&d.join(format!("out/t{i}-{name}.img")));
        assert_eq!(u(&r, "/target/capacity_bytes"), 2 << 20);
    }
    // One --target replaces the list: a single-target run, laid out as always.
    let (code, err) = run_to(d, "one", &body, &["--target", "p.img"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(results(&d.join("one"))["target"]["path"], "p.img");
    assert!(!d.join("one/t0-p.img").exists());
    // path and paths together are refused, naming the key.
    let (code, err) = run_to(
        d,
        "never",
        &format!(
            "[target]\npath = \"p.img\"\npaths = [\"q.img\"]\n{}",
            rand_write("512KiB")
        ),
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("target.paths"), "{err}");
    assert!(!d.join("never").exists());
}

#[test]
fn two_simulated_drives_run_together() {
    let dir = tempdir();
    let d = dir.path();
    let (code, err) = run(
        d,
        &rand_write("4MiB"),
        &[
            "--target",
            "sim:capacity=2GiB,op=7%",
            "--target",
            "sim:capacity=1GiB,op=7%",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let big = results(&d.join("out/t0-sim-2GiB-op7"));
    let small = results(&d.join("out/t1-sim-1GiB-op7"));
    for r in [&big, &small] {
        assert_eq!(r["target"]["kind"], "sim");
        assert_eq!(writes(r, 0), (1024, 4 << 20));
    }
    let agg = results(&d.join("out"));
    assert_eq!(agg["target"]["kind"], "sim");
    assert_eq!(writes(&agg, 0), (2048, 8 << 20));
    assert_eq!(
        u(&agg, "/target/capacity_bytes"),
        u(&big, "/target/capacity_bytes") + u(&small, "/target/capacity_bytes")
    );
}

/// A simulated drive and a real target in one run: refused before anything is made (exit 2), by `wkrun plan`
/// too, in either order, naming both. The simulated drive ran its phases in virtual time beside the file's
/// wall-clock ones, and the aggregate added their rates under the kind "sim" (1024 simulated writes in
/// 0.37 virtual seconds and 1024 file writes in 0.88 s made 2332 IOPS).
#[test]
fn a_simulated_drive_and_a_real_target_are_refused_together() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "spec.toml", &spec_text("multi", &rand_write("4MiB")));
    let sim = "sim:capacity=1GiB,op=7%";
    let why = "a simulated drive runs in virtual time, so its phases do not overlap the real target's in time and their sum would add virtual-time rates to wall-clock ones; run them separately and `wkrun compare` the two results folders; nothing was written";
    for (first, second) in [(sim, "some.img"), ("some.img", sim)] {
        let pair = ["--target", first, "--target", second];
        for args in [
            [&["spec.toml", "-o", "out"][..], &pair[..]].concat(),
            [&["plan", "spec.toml"][..], &pair[..]].concat(),
        ] {
            let (code, out, err) = code_out_err(&wkrun(d, &args));
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (
                    2,
                    "",
                    format!("error: --target {sim} is a simulated drive and --target some.img a real target: {why}\n").as_str()
                ),
                "{args:?}"
            );
        }
    }
    assert_eq!(dir_listing(d), ["spec.toml"]);
}

/// Each target's notes name it once: a note that starts with the target's path is not prefixed with it again
/// (`note: sim:...: sim:... runs in virtual time`, `note: f.img: f.img exists` before). Simulated drives
/// and files in runs of their own (one run may not hold both).
#[test]
fn each_targets_notes_name_it_once() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("f.img"), 8 << 20);
    sparse_file(&d.join("g.img"), 8 << 20);
    write_file(d, "spec.toml", &spec_text("multi", &rand_write("64KiB")));
    let notes_of = |out: &str, targets: [&str; 2]| {
        let mut args = vec!["spec.toml", "-o", out, "--target-size", "4MiB"];
        for t in targets {
            args.extend(["--target", t]);
        }
        let (code, _, err) = code_out_err(&wkrun(d, &args));
        assert_eq!(code, 0, "{err}");
        err.lines()
            .filter(|l| l.starts_with("note: "))
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let sims = notes_of(
        "out",
        ["sim:capacity=2GiB,op=7%", "sim:capacity=1GiB,op=7%"],
    );
    let said = |sim: &str| {
        [
            format!(
                "note: {sim}: a simulated target: the target size setting is ignored (set sim capacity)"
            ),
            format!(
                "note: {sim} runs in virtual time on its own engine: the phases' engine and direct settings do not apply"
            ),
        ]
    };
    let want: Vec<String> = [
        "sim:capacity=2GiB,op=7%,dies=1",
        "sim:capacity=1GiB,op=7%,dies=1",
    ]
    .into_iter()
    .flat_map(said)
    .collect();
    assert_eq!(sims, want);
    let exists = |f: &str| {
        format!(
            "note: {f} exists: the target size setting is ignored (it applies only to a file wkrun creates)"
        )
    };
    assert_eq!(
        notes_of("out2", ["f.img", "g.img"]),
        [exists("f.img"), exists("g.img")]
    );
}

/// `--target-size` with a file to create among the targets is used there: the other target (an existing
/// file) gets no note that it is ignored, and the new file has that size.
#[test]
fn the_target_size_used_by_a_new_file_is_not_noted_on_the_others() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("f.img"), 8 << 20);
    write_file(d, "spec.toml", &spec_text("multi", &rand_write("64KiB")));
    let args = [
        "spec.toml",
        "-o",
        "out",
        "--target-size",
        "4MiB",
        "--target",
        "f.img",
        "--target",
        "new.img",
    ];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes, Vec::<&str>::new(), "{err}");
    assert_eq!(fs::metadata(d.join("new.img")).unwrap().len(), 4 << 20);
    assert_eq!(fs::metadata(d.join("f.img")).unwrap().len(), 8 << 20);
}

#[test]
fn the_same_file_by_two_paths_is_refused_before_anything_is_written() {
    let dir = tempdir();
    let d = dir.path();
    patterned_file(&d.join("f.img"), 1 << 20);
    std::os::unix::fs::symlink("f.img", d.join("link.img")).unwrap();
    let before = read(&d.join("f.img"));
    let (code, err) = run(
        d,
        &rand_write("256KiB"),
        &["--target", "f.img", "--target", "link.img"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("targets 0 (f.img) and 1 (link.img) are the same target (the file with inode"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(read(&d.join("f.img")), before);
    assert!(!d.join("out").exists());
    // Two names of a file still to be created are one target too.
    let (code, err) = run(
        d,
        &rand_write("256KiB"),
        &["--target", "new.img", "--target", "./new.img"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("are the same target"), "{err}");
    assert!(!d.join("new.img").exists());
}

/// The device's bytes.
fn dev_bytes(dev: &Path) -> Vec<u8> {
    fs::read(dev).expect("read the loop device")
}

/// Two loop devices of 8 and 12 MiB with 512-byte sectors over files in `d`.
fn two_loops(d: &Path) -> Result<(LoopDev, LoopDev), String> {
    Ok((LoopDev::new(d, 8, 512)?, LoopDev::new(d, 12, 512)?))
}

#[test]
fn each_block_device_needs_its_own_allow_destroy() {
    let test = "each_block_device_needs_its_own_allow_destroy";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let (l1, l2) = match two_loops(d) {
        Ok(both) => both,
        Err(why) => return skip(test, &why),
    };
    let (p1, p2) = (l1.dev.to_str().unwrap(), l2.dev.to_str().unwrap());
    let before = (l1.sectors_written(), l2.sectors_written());
    // No consent at all: one error names both devices.
    let (code, err) = run(d, &rand_write("1MiB"), &["--target", p1, "--target", p2]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: {p1} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {p1} to confirm; {p2} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {p2} to confirm; nothing was written to any target\n"
        )
    );
    assert!(!d.join("out").exists());
    // Consent for one of the two: the whole run is refused, neither device written.
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &["--target", p1, "--target", p2, "--allow-destroy", p1],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{p2} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {p2} to confirm; nothing was written to any target"
        )),
        "{err}"
    );
    assert_eq!((l1.sectors_written(), l2.sectors_written()), before);
    assert_eq!(nonzero_blocks(&dev_bytes(&l1.dev)), 0);
    assert_eq!(nonzero_blocks(&dev_bytes(&l2.dev)), 0);
    assert!(!d.join("out").exists());
    // The same device by another name: /dev/block/MAJ:MIN where udev made it, else a second device node
    // made here (mknod).
    let meta = fs::metadata(&l1.dev).unwrap();
    let rdev = std::os::unix::fs::MetadataExt::rdev(&meta);
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let mut alias = format!("/dev/block/{major}:{minor}");
    if !Path::new(&alias).exists() {
        alias = d.join("node").display().to_string();
        let ok = Command::new("mknod")
            .args([&alias, "b", &major.to_string(), &minor.to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mknod {alias}");
    }
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &["--target", p1, "--target", &alias, "--allow-destroy", p1],
    );
    assert_eq!(code, 2, "{err}");
    let want = format!(
        "targets 0 ({p1}) and 1 ({alias}) are the same target (block device {major}:{minor})"
    );
    assert!(err.contains(&want), "{err}");
    // The loop device's backing file is its storage: refused too.
    let backing = l1.backing.to_str().unwrap();
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &["--target", p1, "--target", backing, "--allow-destroy", p1],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "target 1 ({backing}) is the backing file of target 0 ({p1}): they share their storage"
        )),
        "{err}"
    );
    assert_eq!((l1.sectors_written(), l2.sectors_written()), before);
    // Both named: each device gets its writes.
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &[
            "--target",
            p1,
            "--target",
            p2,
            "--allow-destroy",
            p2,
            "--allow-destroy",
            p1,
        ],
    );
    assert_eq!(code, 0, "{err}");
    for (i, l, cap) in [(0, &l1, 8u64 << 20), (1, &l2, 12 << 20)] {
        assert_eq!(nonzero_blocks(&dev_bytes(&l.dev)) * BS, 1 << 20);
        let r = results(&d.join(format!("out/t{i}-{}", l.sys_name())));
        assert_eq!(u(&r, "/target/capacity_bytes"), cap);
        assert_eq!(writes(&r, 0), (256, 1 << 20));
    }
}

#[test]
fn a_mounted_device_among_the_targets_refuses_the_whole_run() {
    let test = "a_mounted_device_among_the_targets_refuses_the_whole_run";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let dev = match LoopDev::new(d, 32, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    match Command::new("mkfs.ext4").arg("-q").arg(&dev.dev).output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => return skip(test, &String::from_utf8_lossy(&o.stderr)),
        Err(e) => return skip(test, &format!("mkfs.ext4: {e}")),
    }
    let mnt = match Mount::new(d.join("mnt"), &[dev.dev.to_str().unwrap()]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    patterned_file(&d.join("f.img"), 1 << 20);
    let before = read(&d.join("f.img"));
    let written = dev.sectors_written();
    let p = dev.dev.to_str().unwrap();
    let (code, err) = run(
        d,
        &rand_write("256KiB"),
        &["--target", "f.img", "--target", p, "--allow-destroy", p],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "refusing to write to {p}: {p} is mounted at {}; nothing was written to any target",
            mnt.dir.display()
        )),
        "{err}"
    );
    assert_eq!(read(&d.join("f.img")), before);
    assert_eq!(dev.sectors_written(), written);
    assert!(!d.join("out").exists());
    drop(mnt);
}

#[test]
fn a_failed_target_fails_the_run_and_the_others_stop_at_the_phase_end() {
    let test = "a_failed_target_fails_the_run_and_the_others_stop_at_the_phase_end";
    let dir = tempdir();
    let d = dir.path();
    // A 1 MiB tmpfs holding an 8 MiB sparse file: its fill fails with ENOSPC after about 1 MiB.
    let mnt = match Mount::tmpfs(d.join("small"), "1m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    sparse_file(&mnt.dir.join("big.img"), 8 << 20);
    sparse_file(&d.join("ok.img"), 8 << 20);
    let big = mnt.dir.join("big.img");
    let body = format!(
        "[defaults]\ndirect = false\n{FILL}{}",
        rand_write("256KiB").replace("\"rw\"", "\"after\"")
    );
    let (code, err) = run(
        d,
        &body,
        &["--target", big.to_str().unwrap(), "--target", "ok.img"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("t0-big.img: "), "{err}");
    let failed = results(&d.join("out/t0-big.img"));
    assert_eq!(failed["status"], "failed");
    let other = results(&d.join("out/t1-ok.img"));
    assert_eq!(other["status"], "failed");
    // The other target finished the phase it was running, and ran no more.
    assert_eq!(other["phases"].as_array().unwrap().len(), 1);
    assert_eq!(writes(&other, 0), (2048, 8 << 20));
    assert_eq!(nonzero_blocks(&read(&d.join("ok.img"))) * BS, 8 << 20);
    let why = other["error"].as_str().unwrap();
    assert!(
        why.starts_with("stopped before this phase: target t0-big.img failed: "),
        "{why}"
    );
    assert_eq!(results(&d.join("out"))["status"], "failed");
    drop(mnt);
}

#[test]
fn sigint_stops_every_target_and_each_results_says_interrupted() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 8 << 20);
    sparse_file(&d.join("b.img"), 8 << 20);
    write_file(
        d,
        "spec.toml",
        &spec_text(
            "int",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 50\nrate_iops = 500\ninterval = \"100ms\"\nduration = \"60s\"\n",
        ),
    );
    let child = Command::new(wkrun_bin())
        .args([
            "spec.toml",
            "-q",
            "--target",
            "a.img",
            "--target",
            "b.img",
            "-o",
            "out",
        ])
        .current_dir(d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start wkrun");
    let rows = |t: &str| {
        fs::read_to_string(d.join(format!("out/{t}/00-w.csv")))
            .map_or(0, |s| s.lines().count().saturating_sub(1))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while (rows("t0-a.img") < 3 || rows("t1-b.img") < 3) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: kill takes a pid and a signal number; the child is ours and has not been reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(130));
    for t in ["out/t0-a.img", "out/t1-b.img", "out"] {
        let (_, r) = strict_results(&d.join(t));
        assert_eq!(r["status"], "interrupted", "{t}");
        assert_eq!(r["phases"][0]["completed"], false, "{t}");
    }
    // The sum's line says the phase was interrupted, as each target's does (trial 22 F5).
    let (agg, _) = strict_results(&d.join("out"));
    let out = String::from_utf8_lossy(&o.stdout);
    let want = format!(
        "[all 2 targets] phase 0 \"w\": interrupted: {}",
        expected_totals(&agg.phases[0])
    );
    assert!(out.lines().any(|l| l == want), "{want} not in {out}");
}

/// An RFC 3339 time as seconds since the epoch.
fn secs(v: &Value) -> f64 {
    let t = humantime::parse_rfc3339(v.as_str().expect("a time")).expect("RFC 3339");
    t.duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

#[test]
fn a_phase_starts_on_every_target_only_when_all_have_finished_the_one_before() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 128 << 10);
    sparse_file(&d.join("b.img"), 400 << 10);
    // Each target's span once at 100 reads a second: 32 reads on a.img (0.31 s), 100 on b.img (0.99 s).
    let body = "[[phase]]\nname = \"first\"\nkind = \"workload\"\nread_percent = 100\nblock_size = \"4KiB\"\nrate_iops = 100\nsize = \"100%\"\n[[phase]]\nname = \"second\"\nkind = \"workload\"\nread_percent = 100\nsize = \"64KiB\"\n";
    let (code, err) = run(d, body, &["--target", "a.img", "--target", "b.img"]);
    assert_eq!(code, 0, "{err}");
    let a = results(&d.join("out/t0-a.img"));
    let b = results(&d.join("out/t1-b.img"));
    let end = |r: &Value| {
        let d = r["phases"][0]["duration_s"].as_f64().expect("duration_s");
        secs(&r["phases"][0]["started_at"]) + d
    };
    assert_eq!(
        (u(&a, "/phases/0/read/ops"), u(&b, "/phases/0/read/ops")),
        (32, 100)
    );
    assert!(
        end(&a) < end(&b) - 0.5,
        "a.img's phase 0 ended at {}, b.img's at {}",
        end(&a),
        end(&b)
    );
    for r in [&a, &b] {
        let second = secs(&r["phases"][1]["started_at"]);
        assert!(
            second >= end(&b) - 0.01,
            "phase 1 started at {second}, before b.img's phase 0 ended at {}",
            end(&b)
        );
    }
}

#[test]
fn plan_with_several_targets_prints_each_targets_plan() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 4 << 20);
    sparse_file(&d.join("b.img"), 6 << 20);
    write_file(d, "spec.toml", &spec_text("multi", FILL));
    let o = wkrun(
        d,
        &[
            "plan",
            "spec.toml",
            "--target",
            "a.img",
            "--target",
            "b.img",
            "--json",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let plans: Value = serde_json::from_str(&out).expect("a JSON array");
    let caps: Vec<u64> = plans
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["target"]["capacity_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(caps, [4 << 20, 6 << 20]);
    let o = wkrun(
        d,
        &[
            "plan",
            "spec.toml",
            "--target",
            "a.img",
            "--target",
            "b.img",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0);
    assert!(out.starts_with("target 0: a.img\n"), "{out}");
    assert!(out.contains("\ntarget 1: b.img\n"), "{out}");
    assert_eq!(err, "");
}

#[test]
fn plan_notes_two_paths_naming_one_target_as_the_run_refuses_them() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("a.img"), 4 << 20);
    std::os::unix::fs::symlink("a.img", d.join("link.img")).unwrap();
    write_file(d, "spec.toml", &spec_text("multi", FILL));
    let args = ["spec.toml", "--target", "a.img", "--target", "link.img"];
    let mut plan_args = vec!["plan"];
    plan_args.extend_from_slice(&args);
    let (code, out, err) = code_out_err(&wkrun(d, &plan_args));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\ntarget 1: link.img\n"), "{out}");
    let ino = std::os::unix::fs::MetadataExt::ino(&fs::metadata(d.join("a.img")).unwrap());
    let dev = std::os::unix::fs::MetadataExt::dev(&fs::metadata(d.join("a.img")).unwrap());
    let why = format!(
        "targets 0 (a.img) and 1 (link.img) are the same target (the file with inode {ino} on device {}:{}): name each file or device once",
        libc::major(dev),
        libc::minor(dev)
    );
    assert_eq!(err, format!("note: the run would be refused: {why}\n"));
    // The run refuses the pair with the same words.
    let mut run_args = args.to_vec();
    run_args.extend_from_slice(&["-q", "-o", "out"]);
    let (code, _, err) = code_out_err(&wkrun(d, &run_args));
    assert_eq!(code, 2);
    assert_eq!(err, format!("error: {why}; nothing was written\n"));
    assert!(!d.join("out").exists());
}

#[test]
fn a_device_and_its_partition_are_refused_together() {
    let test = "a_device_and_its_partition_are_refused_together";
    if let Some(why) = loop_unavailable() {
        return skip(test, &why);
    }
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let lp = match PartedLoop::new(d, "parted.img", 8, "start=2048, size=8192\n", 1) {
        Ok(lp) => lp,
        Err(why) => return skip(test, &why),
    };
    let backing = lp.backing.clone();
    let part = lp.parts[0].clone();
    let dev = lp.dev.display().to_string();
    let before = fs::read(&backing).unwrap();
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &[
            "--target",
            &part,
            "--target",
            &dev,
            "--allow-destroy",
            &dev,
            "--allow-destroy",
            &part,
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "target 0 ({part}) is a partition of target 1 ({dev}): they share their storage"
        )),
        "{err}"
    );
    assert_eq!(fs::read(&backing).unwrap(), before);
    drop(lp);
}

/// Two loop devices of one backing file are one storage by two devices (found by the attack session: both
/// were written at once, each run's bytes over the other's): refused like two paths of one file, naming the
/// file, exit 2, nothing written; so is a loop device of a loop device with the device under it.
#[test]
fn two_loop_devices_of_one_file_are_refused_together() {
    let test = "targets::two_loop_devices_of_one_file_are_refused_together";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let l1 = match LoopDev::new(d, 8, 512) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let (l2, l3) = match (LoopOver::new(&l1.backing), LoopOver::new(&l1.dev)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => return skip(test, &why),
    };
    let (p1, p2, p3) = (
        l1.dev.to_str().unwrap(),
        l2.dev.to_str().unwrap(),
        l3.dev.to_str().unwrap(),
    );
    let backing = fs::canonicalize(&l1.backing).unwrap();
    let backing = backing.display();
    let before = sha256_hex(&read(&l1.backing));
    let cases = [
        (
            [p1, p2],
            format!(
                "error: targets 0 ({p1}) and 1 ({p2}) share their storage (both lie on {backing}): name each once; nothing was written\n"
            ),
        ),
        (
            [p2, p3],
            format!(
                "error: targets 0 ({p2}) and 1 ({p3}) share their storage (both lie on {backing}): name each once; nothing was written\n"
            ),
        ),
        (
            [p3, p1],
            format!(
                "error: target 1 ({p1}) is the backing file of target 0 ({p3}): they share their storage; name each once; nothing was written\n"
            ),
        ),
    ];
    for ([a, b], want) in cases {
        let (code, err) = run(
            d,
            &rand_write("1MiB"),
            &[
                "--target",
                a,
                "--target",
                b,
                "--allow-destroy",
                a,
                "--allow-destroy",
                b,
            ],
        );
        assert_eq!((code, err), (2, want));
        assert!(!d.join("out").exists());
    }
    assert_eq!(
        sha256_hex(&read(&l1.backing)),
        before,
        "the backing file changed"
    );
}

/// The spec is planned against each target and may fit one and not another: the plan error names the
/// target it is about (found by the attack session: nine partitioned workers need nine blocks, which the
/// 1 MiB target has not; the error named neither target), for a run and for `wkrun plan`; exit 2, nothing
/// written.
#[test]
fn a_plan_error_on_one_of_several_targets_names_it() {
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("big.img"), 64 << 20);
    sparse_file(&d.join("small.img"), 1 << 20);
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nworkers = 9\n";
    let want = "error: spec.toml:9:1: phase[0] \"f\".workers: workers = 9 is more than the span's 8 blocks of 131072 B allow: with workers_split = \"partitioned\" each worker needs a part of at least one block\n   |\n 9 | workers = 9\n   | ^^^^^^^\n  help: use fewer workers or a larger span\n  note: on target 1 (small.img, 1048576 B); the spec is planned against each target\n";
    let before = dir_listing(d);
    let (code, err) = run(d, body, &["--target", "big.img", "--target", "small.img"]);
    assert_eq!((code, err.as_str()), (2, want));
    let o = wkrun(
        d,
        &[
            "plan",
            "spec.toml",
            "--target",
            "big.img",
            "--target",
            "small.img",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", want));
    let mut after = dir_listing(d);
    after.retain(|n| n != "spec.toml");
    assert_eq!(after, before, "nothing written");
    assert_eq!(nonzero_blocks(&read(&d.join("small.img"))), 0);
    assert_eq!(nonzero_blocks(&read(&d.join("big.img"))), 0);
}

/// What is true of the host, not of a target, is said once in a several-target run: the note about an
/// unsynchronized clock before a `--start-at` start is printed by one target, not by each. Each target's
/// results still record the clock.
#[test]
fn a_note_about_the_host_is_printed_once_for_all_targets() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "spec.toml", &spec_text("multi", &rand_write("64KiB")));
    let args = [
        "spec.toml",
        "-o",
        "out",
        "--target-size",
        "1MiB",
        "--target",
        "a.img",
        "--target",
        "b.img",
        "--target",
        "c.img",
        "--start-at",
        "+0.2",
    ];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    let clocks: Vec<bool> = ["t0-a.img", "t1-b.img", "t2-c.img"]
        .iter()
        .map(|t| {
            results(&d.join("out").join(t))["launch"]["clock"]["synchronized"]
                .as_bool()
                .expect("launch.clock.synchronized")
        })
        .collect();
    assert!(clocks.iter().all(|&c| c == clocks[0]), "{clocks:?}");
    let notes = err
        .lines()
        .filter(|l| l.contains("note: the kernel marks this host's clock unsynchronized"))
        .count();
    // The kernel's view of the clock decides whether there is a note at all (chrony on a CI machine
    // synchronizes it); there is never more than one.
    assert_eq!(notes, usize::from(!clocks[0]), "{err}");
}

/// A target path that is a symbolic link to nothing (found by the attack session: the plan said "will be
/// created", the run failed with "cannot create the target file b.img: File exists"): refused when probed,
/// by `plan` and by a run with one target or several, exit 2, nothing made.
#[test]
fn a_target_that_is_a_dangling_link_is_refused_naming_the_link() {
    let dir = tempdir();
    let d = dir.path();
    std::os::unix::fs::symlink("a.img", d.join("b.img")).unwrap();
    let want = "error: b.img is a symbolic link to a.img, which does not exist; wkrun does not create a target through a link: create the file first, or name it without the link\n";
    for targets in [&["b.img"][..], &["a.img", "b.img"][..]] {
        let mut args = vec!["--target-size", "1MiB"];
        for t in targets {
            args.extend(["--target", t]);
        }
        let (code, err) = run(d, FILL, &args);
        assert_eq!((code, err.as_str()), (2, want), "{targets:?}");
        assert!(!d.join("a.img").exists() && !d.join("out").exists());
    }
    let o = wkrun(d, &["plan", "spec.toml", "--target", "b.img"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", want));
    assert!(!d.join("a.img").exists());
}

/// A target file in a folder that does not exist (found by the newcomer trial: an imported fio job's
/// `directory=/mount-point-of-ssd` gave "cannot find the folder of the target file ...: No such file or
/// directory", which said neither that wkrun creates only the file nor what to do): refused by `plan` and
/// a run, exit 2, naming the file, the folder and `--target`, nothing made.
#[test]
fn a_target_file_in_a_missing_folder_is_refused_saying_what_to_do() {
    let dir = tempdir();
    let d = dir.path();
    let want = "error: cannot create the target file nodir/t.img: its folder nodir: No such file or directory (os error 2); wkrun creates a missing target file but not its folder: create the folder, or name another target with --target PATH; nothing was created\n";
    let (code, err) = run(
        d,
        FILL,
        &["--target-size", "1MiB", "--target", "nodir/t.img"],
    );
    assert_eq!((code, err.as_str()), (2, want));
    let o = wkrun(d, &["plan", "spec.toml", "--target", "nodir/t.img"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", want));
    assert!(!d.join("nodir").exists() && !d.join("out").exists());
}

/// A partition of a loop device lies on the loop device's backing file (found by the attack session: the
/// partition and the file ran together, both written): refused with the file, exit 2, nothing written; two
/// partitions of one disk are two parts of it and run together.
#[test]
fn a_partition_of_a_loop_device_and_its_backing_file_are_refused_together() {
    let test = "targets::a_partition_of_a_loop_device_and_its_backing_file_are_refused_together";
    if let Some(why) = loop_unavailable() {
        return skip(test, &why);
    }
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let lp = match PartedLoop::new(d, "pt.img", 16, "label: gpt\nsize=8M\nsize=4M\n", 2) {
        Ok(lp) => lp,
        Err(why) => return skip(test, &why),
    };
    let backing = lp.backing.clone();
    let (p1, p2) = (lp.parts[0].as_str(), lp.parts[1].as_str());
    let b = backing.to_str().unwrap();
    let before = sha256_hex(&read(&backing));
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &["--target", p1, "--target", b, "--allow-destroy", p1],
    );
    assert_eq!(
        (code, err),
        (
            2,
            format!(
                "error: target 1 ({b}) is the backing file of the loop device holding target 0 ({p1}): they share their storage; name each once; nothing was written\n"
            )
        )
    );
    assert!(!d.join("out").exists());
    assert_eq!(
        sha256_hex(&read(&backing)),
        before,
        "the backing file changed"
    );
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &[
            "--target",
            p1,
            "--target",
            p2,
            "--allow-destroy",
            p1,
            "--allow-destroy",
            p2,
        ],
    );
    assert_eq!(code, 0, "{err}");
    drop(lp);
}

#[test]
fn plan_notes_the_consent_a_run_would_lack_and_none_when_given() {
    let test = "plan_notes_the_consent_a_run_would_lack_and_none_when_given";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let (l1, l2) = match two_loops(d) {
        Ok(both) => both,
        Err(why) => return skip(test, &why),
    };
    let (p1, p2) = (l1.dev.to_str().unwrap(), l2.dev.to_str().unwrap());
    write_file(d, "spec.toml", &spec_text("multi", &rand_write("1MiB")));
    let refusals = |args: &[&str]| -> Vec<String> {
        let all = [&["plan", "spec.toml"][..], args].concat();
        let (code, _, err) = code_out_err(&wkrun(d, &all));
        assert_eq!(code, 0, "{err}");
        err.lines()
            .filter_map(|l| l.strip_prefix("note: the run would be refused: "))
            .map(str::to_string)
            .collect()
    };
    let lacks = |p: &str| {
        format!(
            "{p} is a block device: its data in the planned ranges will be destroyed; add --allow-destroy {p} to confirm"
        )
    };
    let both = ["--target", p1, "--target", p2];
    // The run's own rules and words: every device without its consent, in one note.
    assert_eq!(refusals(&both), [format!("{}; {}", lacks(p1), lacks(p2))]);
    assert_eq!(
        refusals(&[&both[..], &["--allow-destroy", p1]].concat()),
        [lacks(p2)]
    );
    assert!(
        refusals(&[&both[..], &["--allow-destroy", p1, "--allow-destroy", p2]].concat()).is_empty()
    );
    // One target: its consent, or the run's refusal of another device's, or of two.
    assert_eq!(refusals(&["--target", p1]), [lacks(p1)]);
    assert!(refusals(&["--target", p1, "--allow-destroy", p1]).is_empty());
    assert_eq!(refusals(&["--target", p1, "--allow-destroy", p2]).len(), 1);
    assert_eq!(
        refusals(&["--target", p1, "--allow-destroy", p1, "--allow-destroy", p1]),
        ["--allow-destroy is given 2 times, but the run has one target: name only its device"]
    );
    // What the plan says is what the run does: refused without, run with the consent it named.
    let (code, err) = run(d, &rand_write("1MiB"), &["--target", p1]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&lacks(p1)), "{err}");
    let before = l1.sectors_written();
    let (code, err) = run(
        d,
        &rand_write("1MiB"),
        &["--target", p1, "--allow-destroy", p1],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(l1.sectors_written() - before, 2048);
}

/// Issue 24 item 16: a run on 16 targets under an open-file limit it would run out of part way (once: some
/// targets' results.json missing or "running", no aggregate, EMFILE naming no limit) is refused before
/// anything is written to a target, exit 1, naming the limit, every results.json saying "failed".
#[test]
fn many_targets_under_a_low_open_file_limit_are_refused_before_anything_is_written() {
    let test =
        "targets::many_targets_under_a_low_open_file_limit_are_refused_before_anything_is_written";
    if Command::new("prlimit").arg("-V").output().is_err() {
        return skip(test, "no prlimit (util-linux)");
    }
    let d = tempdir();
    let body = "[target]\nsize = \"4MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 50\nduration = \"1s\"\n";
    write_file(d.path(), "s.toml", &spec_text("many", body));
    let mut args: Vec<String> = vec!["--nofile=40".into(), wkrun_bin().into(), "s.toml".into()];
    for i in 0..16 {
        args.extend(["--target".into(), format!("t{i}.img")]);
    }
    args.extend(["-o".into(), "out".into(), "-q".into()]);
    let o = Command::new("prlimit")
        .args(&args)
        .current_dir(d.path())
        .output()
        .expect("prlimit");
    let (code, out, err) = code_out_err(&o);
    // A resource limit: exit 1 (attack 24c F12). The hard limit is 40 too, so it cannot be raised.
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    let open = files_a_child_starts_with();
    assert_eq!(
        err,
        format!(
            "error: a run on 16 targets needs up to 98 open files at once beside the {open} wkrun has open now (its standard input, output and error, those it inherited and those it opened), and the limit on open files (RLIMIT_NOFILE, ulimit -n) is 40 (its hard limit 40): raise it to at least {} (ulimit -n {}) or run on fewer targets at once; the run did not start: out/results.json and each target's results.json say \"failed\"\n",
            open + 98,
            open + 98
        )
    );
    // No target made; each target's results.json and the aggregate say "failed", with no phase (a refusal
    // on several targets left none).
    let made: Vec<String> = dir_listing(d.path())
        .into_iter()
        .filter(|p| !p.starts_with("out"))
        .collect();
    assert_eq!(made, ["s.toml"]);
    let folders: Vec<String> = (0..16)
        .map(|i| format!("t{i}-t{i}.img"))
        .chain([".".to_string()])
        .collect();
    refused_in_each(&d.path().join("out"), &folders, None);
}

/// Issue 24 item 16: three simulated drives (two and a file before a run could not mix them) writing into a
/// small tmpfs: every results file, the targets' and the aggregate's, says "failed" (once: one or two "running", the aggregate missing, for want
/// of room kept for it); the aggregate keeps its results.json without the series it could not write. At
/// every size of the file system: at 280 and 300 KiB the room the aggregate and the first targets kept once
/// left a third target no room for its first results.json (and the aggregate none to merge), which CI
/// found by its own timing at 400 KiB.
#[test]
fn several_targets_on_a_full_output_disk_all_end_failed() {
    let test = "targets::several_targets_on_a_full_output_disk_all_end_failed";
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 50\nduration = \"3s\"\ninterval = \"1ms\"\n";
    let sizes = ["260k", "280k", "300k", "400k"];
    let d = tempdir();
    let mut mounts = Vec::new();
    for size in sizes {
        let dir = d.path().join(size);
        std::fs::create_dir(&dir).unwrap();
        write_file(&dir, "s.toml", &spec_text("full", body));
        match Mount::tmpfs(dir.join("mnt"), size) {
            Ok(m) => mounts.push((size, dir, m)),
            Err(why) => return skip(test, &why),
        }
    }
    std::thread::scope(|s| {
        for (size, dir, m) in &mounts {
            s.spawn(move || {
                let out = m.dir.join("o");
                let args = [
                    "s.toml",
                    "--target",
                    "sim:capacity=1GiB",
                    "--target",
                    "sim:capacity=2GiB",
                    "--target",
                    "sim:capacity=3GiB",
                    "-o",
                    out.to_str().unwrap(),
                    "-q",
                ];
                let (code, _, err) = code_out_err(&wkrun(dir, &args));
                assert_eq!(code, 1, "{size}: {err}");
                let mut statuses = Vec::new();
                for sub in ["", "t0-sim-1GiB-op7", "t1-sim-2GiB-op7", "t2-sim-3GiB-op7"] {
                    let text = std::fs::read_to_string(out.join(sub).join("results.json"))
                        .unwrap_or_else(|e| panic!("{size}: {sub}/results.json: {e}: {err}"));
                    let v: Value = serde_json::from_str(&text).expect("JSON");
                    statuses.push(v["status"].as_str().unwrap_or_default().to_string());
                }
                assert_eq!(statuses, ["failed"; 4], "{size}: {err}");
            });
        }
    });
}

/// An output file system without the least room a run's results need (64 KiB) for each target and their
/// aggregate is refused before anything is written (8 simulated drives on 104 KiB once lost the aggregate's
/// results.json: it had no room kept).
#[test]
fn an_output_file_system_too_small_for_every_targets_results_is_refused() {
    let test = "targets::an_output_file_system_too_small_for_every_targets_results_is_refused";
    let d = tempdir();
    let m = match Mount::tmpfs(d.path().join("mnt"), "200k") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    write_file(
        d.path(),
        "s.toml",
        &spec_text("small", "[[phase]]\nname = \"f\"\nkind = \"fill\"\n"),
    );
    let out = m.dir.join("o");
    let args = [
        "s.toml",
        "--target",
        "sim:capacity=1GiB",
        "--target",
        "sim:capacity=2GiB",
        "--target",
        "sim:capacity=3GiB",
        "-o",
        out.to_str().unwrap(),
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    // A full disk is a resource limit: exit 1, nothing written.
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err.trim_end().lines().last().unwrap_or_default(),
        format!(
            "error: cannot write into the output folder {}: its file system has 204800 B free, less than the 262144 B a run on 3 targets needs (65536 B for each target's results and for their aggregate); choose another --output folder; nothing was written",
            out.display()
        )
    );
    assert_eq!(dir_listing(&m.dir), Vec::<String>::new());
}

/// Several targets with long names, phases with long names and a warning both share: each warning line on
/// stderr keeps to 200 bytes and still says what the warning is, its key first (the label and the phase
/// names once took the whole line: `[t0-a-xxx…xxx.img] warning: phases fill-the-whole-target-sequentially
/// and 1 more: … (in full: ...)`; issue 24, round 2).
#[test]
fn a_warning_line_of_a_long_labelled_target_still_says_what() {
    let d = tempdir();
    let body = "[defaults]\ndirect = false\n\
                [[phase]]\nname = \"fill-the-whole-target-sequentially\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n\
                [[phase]]\nname = \"random-read-4k-at-queue-depth-one\"\nkind = \"workload\"\npattern = \"random\"\n\
                block_size = \"4KiB\"\nread_percent = 100\nsize = \"64KiB\"\n";
    write_file(d.path(), "s.toml", &spec_text("long", body));
    let x = "x".repeat(120);
    let (a, b) = (format!("a-{x}.img"), format!("b-{x}.img"));
    let args = [
        "s.toml",
        "--target",
        &a,
        "--target",
        &b,
        "--target-size",
        "4MiB",
        "-o",
        "out",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    // (The host-pace warning comes and goes with the machine's load.)
    let mut lines: Vec<&str> = err
        .lines()
        .filter(|l| {
            (l.contains("] warning: ") || l.contains("] note: phase"))
                && !l.contains(HOST_PACE)
                && !l.contains(BUSY_HOST)
        })
        .collect();
    lines.sort_unstable();
    let mut want = Vec::new();
    for t in ["t0-a", "t1-b"] {
        let label = format!("[{t}-{}…]", "x".repeat(34));
        // The files wkrun created and preallocated, where the file system can.
        // Its text up to its second `: ` kept whole (issue 24 leftovers), past 200 bytes if need be.
        let holes = match err.contains("(4194304 B, preallocated)") {
            true => {
                "writes into unwritten (preallocated) blocks: latencies include the file system's allocation work; expected of a fill…"
            }
            false => {
                "writes into holes: latencies include the file system's allocation work; expected of a fill…"
            }
        };
        // A fill's holes are a note: laying the blocks out is what it does (trial 13 F8). Each target's
        // folder (`out/t0-a-xxx…`, 55 bytes) leaves the text too little room: the text keeps its action,
        // and the ending still names the folder, a command that runs as printed (trial 16).
        let folder = format!("out/{t}-{}", "x".repeat(46));
        want.push(format!(
            "{label} note: phase fill-the-whole-target-sequentially: {holes} (in full: wkrun warnings {folder})"
        ));
        want.push(format!("{label} warning: phases fill-the-whole-target-sequentially and 1 more: direct = false: the page cache sets these numbers; set direct = true… (in full: wkrun warnings {folder})"));
    }
    want.sort_unstable();
    assert_eq!(lines, want, "{err}");
    let lengths: Vec<usize> = lines.iter().map(|l| l.len()).collect();
    // `note` is 3 bytes shorter than `warning`.
    // Whole names (trial 28 L3): 16 bytes more than `fill-the-whole-…`.
    let holes = match err.contains("(4194304 B, preallocated)") {
        true => 294,
        false => 268,
    };
    assert_eq!(lengths, [holes, 261, holes, 261], "{err}");
}

/// Trial 24c F13: `wkrun plan` on a loop device with no file attached (README's `/dev/loop0` example)
/// refuses it as empty, exit 2, and says how to attach a file (root and losetup only).
#[test]
fn an_unattached_loop_device_says_how_to_attach_a_file() {
    if let Some(why) = loop_unavailable() {
        skip("an_unattached_loop_device_says_how_to_attach_a_file", &why);
        return;
    }
    let _guard = loop_guard();
    // The first free loop device, made by the kernel when none is free; nothing is attached to it.
    let out = Command::new("losetup").arg("-f").output().expect("losetup");
    let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !Path::new(&dev).exists() {
        skip(
            "an_unattached_loop_device_says_how_to_attach_a_file",
            &format!(
                "no free loop device: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        );
        return;
    }
    let d = tempdir();
    write_file(d.path(), "spec.toml", &spec_text("loop", FILL));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["plan", "spec.toml", "--target", &dev]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err.lines().next(),
        Some(format!("error: {dev}: the target is empty (0 bytes): a loop device with no file attached; attach a file: losetup --direct-io=on -f --show FILE (it prints the loop device to name)").as_str()),
        "{err}"
    );
}

/// Trial 19 F7: the report headed the aggregate of a run on a file and a loop device `(file)`, the first
/// target's kind. Each `cluster.hosts` entry now keeps its target's kind, and the report's target cell
/// says both: `(mixed: file + block device)`; the aggregate validates, its entries against its folders.
#[test]
fn a_file_and_a_block_device_summed_are_reported_as_mixed() {
    let test = "a_file_and_a_block_device_summed_are_reported_as_mixed";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let l = match LoopDev::new(d, 8, 512) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let dev = l.dev.to_str().expect("utf-8 path");
    sparse_file(&d.join("f.img"), 8 << 20);
    let args = ["--target", "f.img", "--target", dev, "--allow-destroy", dev];
    let (code, err) = run(d, &rand_write("1MiB"), &args);
    assert_eq!(code, 0, "{err}");
    let r = results(&d.join("out"));
    let kinds: Vec<&str> = r["cluster"]["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| h["target_kind"].as_str().expect("target_kind"))
        .collect();
    assert_eq!(
        (r["target"]["kind"].as_str(), kinds),
        (Some("file"), vec!["file", "block"])
    );
    let (code, _, err) = code_out_err(&wkrun(d, &["validate", "out"]));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "out", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let html = fs::read_to_string(d.join("rep/index.html")).expect("index.html");
    let cell = format!("f.img + {dev} (mixed: file + block device)<br>");
    assert!(html.contains(&cell), "{cell} not in the report");
    assert!(!html.contains(&format!("f.img + {dev} (file)")));
}
