//! Trims in a mix (`trim_percent`) and sync semantics (`sync`, `fsync`, `fdatasync`), issue 26 items 2 and 4:
//! exact op counts by direction on every engine, holes punched in a real file (and read back as zeros by a
//! verify phase), discards reaching a loop device (its kernel counters), flushes counted exactly
//! (⌊writes / N⌋ per worker), `RWF_DSYNC` reaching the device as flushes, and the refusals.

use crate::common::*;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use wkrun::ops::{Mix, OpStream, Order, Sizes};
use wkrun::vocab::Direction;

/// One workload phase of 4 KiB random I/O on `engine` at `qd` with `extra` keys.
fn workload(engine: &str, qd: u32, extra: &str) -> String {
    format!(
        "[[phase]]\nname = \"m\"\nkind = \"workload\"\nengine = \"{engine}\"\nblock_size = \"4KiB\"\nqueue_depth = {qd}\n{extra}"
    )
}

/// `phases[i].<dir>.ops`, 0 when the direction is absent.
fn ops(r: &serde_json::Value, i: usize, dir: &str) -> u64 {
    r["phases"][i][dir]["ops"].as_u64().unwrap_or(0)
}

/// Whether the engine could not start here (io_uring disabled, no AIO): the reason.
fn engine_missing(err: &str) -> bool {
    err.contains("could not start")
}

/// Fields 12 (discards completed) and 16 (flushes completed) of /sys/block/<dev>/stat.
fn discards_and_flushes(dev: &LoopDev) -> (u64, u64) {
    let s = fs::read_to_string(format!("/sys/block/{}/stat", dev.sys_name())).unwrap_or_default();
    let f: Vec<u64> = s
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    (
        f.get(11).copied().unwrap_or(0),
        f.get(15).copied().unwrap_or(0),
    )
}

/// Whether the loop device discards (`queue/discard_max_bytes` above 0).
fn discards(dev: &LoopDev) -> bool {
    let q = format!("/sys/block/{}/queue/discard_max_bytes", dev.sys_name());
    fs::read_to_string(q).is_ok_and(|s| !matches!(s.trim(), "" | "0"))
}

#[test]
fn ten_thousand_ops_at_read_50_trim_20_are_exactly_2000_trims() {
    let (d, target) = sparse_target_dir(64 << 20);
    // 10 000 ops of 4 KiB on the null engine: each group of 100 holds exactly 50 reads, 20 trims, 30 writes.
    let body = workload(
        "null",
        32,
        "read_percent = 50\ntrim_percent = 20\nsize = \"40000KiB\"\n",
    );
    let out = run_ok(d.path(), "trims", &body, &target);
    let (_, r) = strict_results(&out);
    assert_eq!(
        [ops(&r, 0, "read"), ops(&r, 0, "write"), ops(&r, 0, "trim")],
        [5000, 3000, 2000]
    );
    assert_eq!(u(&r, "/phases/0/total/ops"), 10_000);
    assert_eq!(u(&r, "/phases/0/trim/bytes"), 2000 * 4096);
    assert_eq!(u(&r, "/phases/0/params/trim_percent"), 20);
    // The series has trim columns, and they add up to the results' trims.
    let csv = out.join(r["phases"][0]["series_csv"].as_str().unwrap());
    let header = fs::read_to_string(&csv).unwrap();
    let header = header.lines().next().unwrap();
    assert!(header.contains(",trim_ops,") && header.contains(",trim_lat_max_us,"));
    assert_eq!(series_sum(&out, &r, 0, "trim_ops"), 2000);
    assert_eq!(series_sum(&out, &r, 0, "trim_bytes"), 2000 * 4096);
}

#[test]
fn a_phase_without_trims_has_no_trim_field_and_the_old_columns() {
    let (d, target) = sparse_target_dir(16 << 20);
    let body = workload("null", 8, "read_percent = 50\nsize = \"4000KiB\"\n");
    let out = run_ok(d.path(), "notrims", &body, &target);
    let (_, r) = strict_results(&out);
    let p = &r["phases"][0];
    assert!(p.get("trim").is_none() && p.get("sync").is_none());
    assert!(p["params"].get("trim_percent").is_none());
    assert_eq!([ops(&r, 0, "read"), ops(&r, 0, "write")], [500, 500]);
    let csv = fs::read_to_string(out.join(p["series_csv"].as_str().unwrap())).unwrap();
    assert_eq!(
        csv.lines().next().unwrap(),
        "t_s,interval_s,partial,read_ops,write_ops,read_iops,write_iops,read_bytes,write_bytes,\
         read_bw_bytes_per_s,write_bw_bytes_per_s,read_lat_mean_us,read_lat_max_us,write_lat_mean_us,\
         write_lat_max_us,errors,read_lat_p50_us,read_lat_p99_us,read_lat_p99_9_us,write_lat_p50_us,\
         write_lat_p99_us,write_lat_p99_9_us"
    );
}

#[test]
fn every_engine_issues_the_exact_trim_share_on_a_file() {
    for (engine, qd) in [("psync", 4), ("io_uring", 8), ("libaio", 8)] {
        let (d, target) = sparse_target_dir(16 << 20);
        // 1 000 ops at 30 % reads and 40 % trims: 300 / 300 / 400.
        let body = workload(
            engine,
            qd,
            "read_percent = 30\ntrim_percent = 40\nsize = \"4000KiB\"\ndirect = false\n",
        );
        let (o, out) = run_spec(d.path(), "engines", &body, &target, &[]);
        let (code, _, err) = code_out_err(&o);
        if code != 0 && engine_missing(&err) {
            skip(engine, &format!("the engine cannot start here: {err}"));
            continue;
        }
        assert_eq!(code, 0, "{engine}: {err}");
        let (_, r) = strict_results(&out);
        let got = [ops(&r, 0, "read"), ops(&r, 0, "write"), ops(&r, 0, "trim")];
        assert_eq!(got, [300, 300, 400], "{engine}");
        assert!(
            r["phases"][0]["trim"]["latency_ns"]["max"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
}

#[test]
fn trims_punch_holes_in_a_real_file() {
    let (d, target) = sparse_target_dir(4 << 20);
    // Fill 4 MiB, then trim its first 1 MiB sequentially (256 trims of 4 KiB): those bytes read back as zeros
    // and their blocks are gone; the rest keeps the fill's data.
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"1MiB\"\n\
                [[phase]]\nname = \"t\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"sequential\"\n\
                block_size = \"4KiB\"\nread_percent = 0\ntrim_percent = 100\nsize = \"1MiB\"\n";
    let out = run_ok(d.path(), "holes", body, &target);
    let (_, r) = strict_results(&out);
    assert_eq!(ops(&r, 1, "trim"), 256);
    assert_eq!(ops(&r, 1, "write"), 0);
    let data = read(&target);
    assert!(
        data[..1 << 20].iter().all(|&b| b == 0),
        "trimmed MiB reads as zeros"
    );
    assert!(
        data[1 << 20..]
            .chunks(4096)
            .all(|c| c.iter().any(|&b| b != 0)),
        "the rest keeps the fill's data"
    );
    // 512-byte blocks allocated: at most the untrimmed 3 MiB (the first MiB is a hole).
    let blocks = fs::metadata(&target).unwrap().blocks();
    assert!(blocks <= 3 * 2048, "{blocks} blocks of 512 B allocated");
    let holes = wkrun::sys::file::hole_bytes(&fs::File::open(&target).unwrap(), 0, 4 << 20, 64);
    assert_eq!(
        holes.ok(),
        Some((1 << 20, true)),
        "SEEK_HOLE finds the punched MiB"
    );
}

/// Fill (verify), random 4 KiB writes and trims at QD1 (verify), then a verify phase, on `target`.
fn verified_trims(engine: &str) -> String {
    format!(
        "[defaults]\nengine = \"{engine}\"\n[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"64KiB\"\nverify = true\n\
         [[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\ntrim_percent = 40\n\
         size = \"2MiB\"\nseed = 5\nverify = true\n[[phase]]\nname = \"check\"\nkind = \"verify\"\nmax_listed = 5\n"
    )
}

/// The trims among the 512 ops of phase "w" of [`verified_trims`] on a span of `span` bytes, from the op
/// stream itself (an independent count of its directions).
fn trims_of_w(span: u64) -> u64 {
    let s = OpStream {
        span_start: 0,
        span_len: span,
        sizes: Sizes::Fixed(4096),
        order: Order::Random,
        mix: Mix::new(0, 40).unwrap(),
        seed: wkrun::ops::phase_seed(5, "w"),
        access: Default::default(),
        total_ops: Some(512),
    };
    let n = s.ops(0..512).filter(|o| o.dir == Direction::Trim).count() as u64;
    assert_eq!(n, s.before(Direction::Trim, 512));
    n
}

#[test]
fn verify_reads_punched_holes_as_zeros() {
    let (d, target) = sparse_target_dir(4 << 20);
    let out = run_ok(d.path(), "vtrim", &verified_trims("psync"), &target);
    let (_, r) = strict_results(&out);
    let v = &r["phases"][2]["verify"];
    assert_eq!(v["mismatched"].as_u64(), Some(0), "{v}");
    assert_eq!(v["unchecked"].as_u64(), Some(0), "{v}");
    assert_eq!(
        v["ok"].as_u64(),
        Some(8192),
        "every sector of the 4 MiB checked"
    );
    assert_eq!(ops(&r, 1, "trim"), trims_of_w(4 << 20));
}

#[test]
fn blkdiscard_reaches_a_loop_device_and_verify_accepts_zeros_or_stale() {
    let _g = loop_guard();
    let d = tempdir();
    let dev = match LoopDev::new(d.path(), 8, 512) {
        Ok(dev) => dev,
        Err(why) => return skip("blkdiscard_reaches_a_loop_device", &why),
    };
    if !discards(&dev) {
        return skip(
            "blkdiscard_reaches_a_loop_device",
            "the loop device takes no discard",
        );
    }
    let (discards0, _) = discards_and_flushes(&dev);
    let dev_s = dev.dev.to_str().unwrap();
    let (o, out) = run_spec(
        d.path(),
        "blkdiscard",
        &verified_trims("psync"),
        &dev.dev,
        &["--allow-destroy", dev_s],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&out);
    let trims = ops(&r, 1, "trim");
    assert_eq!(trims, trims_of_w(8 << 20));
    let (discards1, _) = discards_and_flushes(&dev);
    assert!(
        discards1 - discards0 >= trims,
        "{} discards reached the device for {trims} trims",
        discards1 - discards0
    );
    let v = &r["phases"][2]["verify"];
    assert_eq!(v["mismatched"].as_u64(), Some(0), "{v}");
}

#[test]
fn flushes_are_exactly_floor_of_writes_over_n_per_worker() {
    for (engine, qd, workers, key) in [
        ("psync", 3, 2, "fsync"),
        ("io_uring", 8, 1, "fdatasync"),
        ("libaio", 4, 2, "fsync"),
    ] {
        let (d, target) = sparse_target_dir(16 << 20);
        let body = workload(
            engine,
            qd,
            &format!(
                "workers = {workers}\nread_percent = 35\n{key} = 7\nsize = \"4000KiB\"\ndirect = false\n"
            ),
        );
        let (o, out) = run_spec(d.path(), "flushes", &body, &target, &[]);
        let (code, _, err) = code_out_err(&o);
        if code != 0 && engine_missing(&err) {
            skip(engine, &format!("the engine cannot start here: {err}"));
            continue;
        }
        assert_eq!(code, 0, "{engine}: {err}");
        let (_, r) = strict_results(&out);
        let p = &r["phases"][0];
        let f = &p["sync"]["flushes"];
        assert_eq!(f["call"].as_str(), Some(key));
        assert_eq!(f["every_writes"].as_u64(), Some(7));
        let want: u64 = match workers {
            1 => ops(&r, 0, "write") / 7,
            _ => p["workers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| {
                    let floor = w["write"]["ops"].as_u64().unwrap() / 7;
                    assert_eq!(w["flushes"].as_u64(), Some(floor), "{engine}: {w}");
                    floor
                })
                .sum(),
        };
        assert_eq!(f["ops"].as_u64(), Some(want), "{engine}");
        assert_eq!(ops(&r, 0, "write"), 650, "{engine}: 65 % of 1 000");
        assert!(f["latency_ns"]["max"].as_u64().unwrap() > 0);
        assert!(p["sync"].get("write_flag").is_none());
    }
}

#[test]
fn dsync_writes_reach_a_loop_device_as_flushes_and_fsync_counts_exactly() {
    let _g = loop_guard();
    let d = tempdir();
    let dev = match LoopDev::new(d.path(), 8, 512) {
        Ok(dev) => dev,
        Err(why) => return skip("dsync_writes_reach_a_loop_device", &why),
    };
    let wc = fs::read_to_string(format!("/sys/block/{}/queue/write_cache", dev.sys_name()));
    if wc.map_or(true, |s| s.trim() != "write back") {
        return skip(
            "dsync_writes_reach_a_loop_device",
            "no volatile write cache: RWF_DSYNC needs no flush",
        );
    }
    let dev_s = dev.dev.to_str().unwrap();
    // 200 writes at QD1: plain ones send no flush; with sync = "dsync" each write is followed by one (the loop
    // device has a write cache and no FUA, so the kernel flushes after each); with fsync = 10, 20 flushes.
    let mut flushes = Vec::new();
    for extra in ["", "sync = \"dsync\"\n", "fsync = 10\n"] {
        let (_, f0) = discards_and_flushes(&dev);
        let body = workload(
            "psync",
            1,
            &format!("read_percent = 0\nsize = \"800KiB\"\n{extra}"),
        );
        let (o, out) = run_spec(
            d.path(),
            "dsync",
            &body,
            &dev.dev,
            &["--allow-destroy", dev_s],
        );
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 0, "{extra}: {err}");
        let (_, r) = strict_results(&out);
        assert_eq!(ops(&r, 0, "write"), 200);
        let (_, f1) = discards_and_flushes(&dev);
        flushes.push((f1 - f0, r["phases"][0]["sync"].clone()));
        fs::remove_dir_all(&out).unwrap();
    }
    assert!(flushes[0].0 < 10, "plain writes: {} flushes", flushes[0].0);
    assert!(
        flushes[1].0 >= 200,
        "dsync writes: {} flushes",
        flushes[1].0
    );
    assert_eq!(flushes[1].1["write_flag"].as_str(), Some("dsync"));
    assert_eq!(flushes[1].1["flagged_writes"].as_u64(), Some(200));
    assert_eq!(flushes[2].1["flushes"]["ops"].as_u64(), Some(20));
    assert!(flushes[2].0 >= 20, "fsync = 10: {} flushes", flushes[2].0);
}

/// Runs `body` on `target` and asserts exit 2 with `spec.toml:LINE` and `key` in the message, and no output.
fn refused(dir: &Path, body: &str, target: &Path, args: &[&str], line: usize, key: &str) {
    let (o, out) = run_spec(dir, "refused", body, target, args);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("spec.toml:{line}")), "{err}");
    assert!(err.contains(key), "{err}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn bad_trim_and_sync_input_is_refused_naming_file_line_and_key() {
    let (d, target) = sparse_target_dir(16 << 20);
    // Lines: the header takes 4, then [[phase]] is line 5, name 6, kind 7, engine 8, block_size 9, qd 10.
    let w = |qd, extra: &str| workload("psync", qd, extra);
    refused(
        d.path(),
        &w(1, "read_percent = 90\ntrim_percent = 20\nsize = \"1MiB\"\n"),
        &target,
        &[],
        12,
        "trim_percent",
    );
    refused(
        d.path(),
        &w(
            1,
            "read_percent = 0\nsize = \"1MiB\"\nfsync = 4\nfdatasync = 4\n",
        ),
        &target,
        &[],
        14,
        "fdatasync",
    );
    refused(
        d.path(),
        &w(1, "read_percent = 0\nsize = \"1MiB\"\nfsync = 0\n"),
        &target,
        &[],
        13,
        "fsync",
    );
    refused(
        d.path(),
        &w(
            4,
            "read_percent = 0\ntrim_percent = 10\nverify = true\nsize = \"1MiB\"\n",
        ),
        &target,
        &[],
        12,
        "trim_percent",
    );
    let sim = Path::new("sim:capacity=1GiB");
    let body = "[[phase]]\nname = \"m\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1MiB\"\nsync = \"dsync\"\n";
    refused(d.path(), body, sim, &[], 10, "sync");
}

/// `validate` (no target) refuses what `plan` and the run refuse: a verified phase with trims at a queue
/// depth above 1, the depth inherited from `[defaults]` too, with the same message at `trim_percent`.
#[test]
fn validate_refuses_verified_trims_above_queue_depth_1() {
    let d = tempdir();
    let phase = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\ntrim_percent = 20\nverify = true\nsize = \"1MiB\"\n";
    let msg = "verify = true with trims at queue_depth = 4: a trim and a write of the same block in flight together may land in either order, so what the block holds after them is not known";
    // Lines: the header takes 4, then [[phase]] 5, name 6, kind 7, read_percent 8, trim_percent 9.
    for (body, line) in [
        (format!("{phase}queue_depth = 4\n"), 9),
        (format!("[defaults]\nqueue_depth = 4\n{phase}"), 11),
    ] {
        let spec = write_file(d.path(), "spec.toml", &spec_text("v", &body));
        let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", spec.to_str().unwrap()]));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("spec.toml:{line}:1")), "{err}");
        assert!(err.contains(msg), "{err}");
        assert!(
            err.contains("verify a phase with trims at queue_depth = 1"),
            "{err}"
        );
    }
    let ok = format!("{phase}queue_depth = 1\n");
    let spec = write_file(d.path(), "spec.toml", &spec_text("v", &ok));
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["validate", spec.to_str().unwrap()]));
    assert_eq!(
        (code, out.trim()),
        (0, format!("{}: ok (1 phase)", spec.display()).as_str()),
        "{err}"
    );
}

#[test]
fn trims_are_refused_on_a_device_that_cannot_discard() {
    let _g = loop_guard();
    let d = tempdir();
    let dev = match LoopDev::new(d.path(), 8, 512) {
        Ok(dev) => dev,
        Err(why) => return skip("trims_are_refused_on_a_device_that_cannot_discard", &why),
    };
    // A discard limit of 0 set through sysfs outlives the device's detach and cannot be set back: the device
    // is removed after the test (common::remove_loop_device).
    let q = format!("/sys/block/{}/queue/discard_max_bytes", dev.sys_name());
    let index: u32 = dev.sys_name().trim_start_matches("loop").parse().unwrap();
    let set = fs::write(&q, "0").is_ok() && fs::read_to_string(&q).is_ok_and(|s| s.trim() == "0");
    let dev_s = dev.dev.to_str().unwrap().to_string();
    let body = workload(
        "psync",
        1,
        "read_percent = 0\ntrim_percent = 10\nsize = \"1MiB\"\n",
    );
    let run = set.then(|| {
        run_spec(
            d.path(),
            "nodiscard",
            &body,
            &dev.dev,
            &["--allow-destroy", &dev_s],
        )
    });
    drop(dev);
    if let Err(e) = remove_loop_device(index) {
        eprintln!("note: could not remove /dev/loop{index} after setting its discard limit: {e}");
    }
    let Some((o, out)) = run else {
        return skip(
            "trims_are_refused_on_a_device_that_cannot_discard",
            "discard_max_bytes not settable",
        );
    };
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("spec.toml:12") && err.contains("trim_percent"),
        "{err}"
    );
    assert!(
        err.contains("cannot discard (queue/discard_max_bytes is 0)"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn trims_on_the_simulated_drive_unmap_its_ftl() {
    let d = tempdir();
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n\
                [[phase]]\nname = \"m\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nqueue_depth = 8\n\
                read_percent = 50\ntrim_percent = 25\nsize = \"40000KiB\"\n";
    let out = run_ok(
        d.path(),
        "simtrim",
        body,
        Path::new("sim:capacity=1GiB,op=7%"),
    );
    let (_, r) = strict_results(&out);
    assert_eq!(
        [ops(&r, 1, "read"), ops(&r, 1, "write"), ops(&r, 1, "trim")],
        [5000, 2500, 2500]
    );
    // Every trim of a mapped 4 KiB unit unmapped it: the drive counts at least the trims after the fill less
    // the units trimmed twice or rewritten, and at most all of them.
    let trimmed = u(&r, "/phases/1/device/trimmed_bytes");
    assert!(trimmed > 0 && trimmed <= 2500 * 4096, "{trimmed}");
}

#[test]
fn trims_are_refused_on_a_file_system_without_punch_hole() {
    let name = "trims_are_refused_on_a_file_system_without_punch_hole";
    if let Some(why) = loop_unavailable() {
        return skip(name, &format!("mounting needs root: {why}"));
    }
    // ramfs has no fallocate: punch hole is EOPNOTSUPP there (tmpfs, ext4, xfs and btrfs have it).
    let d = tempdir();
    let mnt = d.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "ramfs", "wkrun-test"])
        .arg(&mnt)
        .status();
    if !mounted.is_ok_and(|s| s.success()) {
        return skip(name, "cannot mount a ramfs here");
    }
    let target = mnt.join("t.img");
    patterned_file(&target, 4 << 20);
    let body = workload(
        "psync",
        1,
        "read_percent = 0\ntrim_percent = 10\nsize = \"1MiB\"\ndirect = false\n",
    );
    let (o, out) = run_spec(d.path(), "noholes", &body, &target, &[]);
    let unchanged = read(&target)
        .iter()
        .enumerate()
        .all(|(i, &b)| b == (i % 251) as u8 + 1);
    let _ = std::process::Command::new("umount").arg(&mnt).status();
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("spec.toml:12") && err.contains("trim_percent"),
        "{err}"
    );
    assert!(err.contains("does not support punch hole"), "{err}");
    assert!(!out.exists() && unchanged, "nothing written");
}

/// Trims are a third direction of the aggregate of several targets and of `wkrun merge`: 1000 ops of
/// 4 KiB at read 40 % and trim 20 % on each of two files (holes punched) are exactly 400 reads, 400
/// writes and 200 trims each; the aggregate of the two targets and the merge of two runs hold the sums per
/// direction (ops, bytes, iops over the merged duration, latency histograms, series columns, histogram
/// log, each host's part), total.ops counts the trims, and validate accepts every folder. (Merge kept the
/// first host's trims, and total.ops left them out.)
#[test]
fn trims_add_up_in_the_aggregate_of_targets_and_in_a_merge() {
    let d = tempdir();
    let (a, b) = (d.path().join("a.img"), d.path().join("b.img"));
    sparse_file(&a, 8 << 20);
    sparse_file(&b, 8 << 20);
    let body = workload(
        "psync",
        4,
        "pattern = \"random\"\nread_percent = 40\ntrim_percent = 20\nsize = \"4000KiB\"\ninterval = \"100ms\"\n",
    );
    run_two_targets(d.path(), "trims", &body, (&a, &b), "agg");
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    for (name, t) in [("ra", sa), ("rb", sb)] {
        let o = wkrun(d.path(), &["spec.toml", "--target", t, "-o", name, "-q"]);
        assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    }
    let (ra, rb) = (d.path().join("ra"), d.path().join("rb"));
    let o = wkrun(
        d.path(),
        &[
            "merge",
            ra.to_str().unwrap(),
            rb.to_str().unwrap(),
            "-o",
            "m",
        ],
    );
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    let each = [("read", 400u64), ("write", 400), ("trim", 200)];
    for part in [&ra, &rb, &d.path().join("agg/t0-a.img")] {
        let (_, r) = strict_results(part);
        for (dir, n) in each {
            assert_eq!(ops(&r, 0, dir), n, "{dir} of {part:?}");
        }
    }
    for folder in ["agg", "m"] {
        let out = d.path().join(folder);
        let (_, r) = strict_results(&out);
        let p = &r["phases"][0];
        let secs = p["duration_s"].as_f64().unwrap();
        for (dir, n) in each {
            let at = |f: &str| format!("/phases/0/{dir}/{f}");
            assert_eq!(u(&r, &at("ops")), 2 * n, "{folder} {dir}");
            assert_eq!(u(&r, &at("bytes")), 2 * n * 4096, "{folder} {dir}");
            let iops = r.pointer(&at("iops")).and_then(|v| v.as_f64()).unwrap();
            assert!(
                (iops - 2.0 * n as f64 / secs).abs() < 1e-6,
                "{folder} {dir}: {iops}"
            );
            assert_eq!(histogram_count(p, dir), 2 * n, "{folder} {dir} histogram");
            assert_eq!(series_sum(&out, &r, 0, &format!("{dir}_ops")), 2 * n);
            let hosts: u64 = p["hosts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h[dir]["ops"].as_u64().unwrap())
                .sum();
            assert_eq!(hosts, 2 * n, "{folder} {dir}: hosts[]");
        }
        assert_eq!(u(&r, "/phases/0/total/ops"), 2000, "{folder}");
        assert_eq!(u(&r, "/phases/0/total/bytes"), 2000 * 4096, "{folder}");
        // The histogram log holds every trim (rows of 100 ms; a fold's rows held by its last row).
        let log = fs::read(out.join(p["hist_log"].as_str().unwrap())).unwrap();
        let mut reader = wkrun::results::hlog::RowReader::new(&log).unwrap();
        assert!(reader.dirs().contains(&Direction::Trim), "{folder}");
        let mut held = 0;
        while let Some((_, h)) = reader.next_row().unwrap() {
            held += h[Direction::Trim].as_ref().map_or(0, |h| h.len());
        }
        assert_eq!(held, 400, "{folder}: trims in the log");
        let v = wkrun(d.path(), &["validate", out.to_str().unwrap()]);
        assert_eq!(code_out_err(&v).0, 0, "{:?}", code_out_err(&v));
    }
}

/// Trial 25 F2: `read_share` is a share of every completed I/O, trims included, as `read_percent` is:
/// 1 000 I/Os of 4 KiB at `read_percent = 60`, `trim_percent = 10` on a real file (psync) are exactly 600
/// reads, 300 writes and 100 trims, and `read_share` is 0.6 by count and by bytes (it was 600 / 900 = 0.667,
/// the trims left out). The run validates (`wkrun validate`, whose recomputation is the same rule).
#[test]
fn read_share_counts_trims_among_all_ios() {
    let (d, target) = sparse_target_dir(16 << 20);
    let body = workload(
        "psync",
        4,
        "read_percent = 60\ntrim_percent = 10\nsize = \"4000KiB\"\ndirect = false\n",
    );
    let out = run_ok(d.path(), "share", &body, &target);
    let (_, r) = strict_results(&out);
    let (reads, writes, trims) = (ops(&r, 0, "read"), ops(&r, 0, "write"), ops(&r, 0, "trim"));
    assert_eq!([reads, writes, trims], [600, 300, 100]);
    assert_eq!(u(&r, "/phases/0/total/ops"), 1000);
    let bytes = |dir: &str| u(&r, &format!("/phases/0/{dir}/bytes"));
    assert_eq!(
        [bytes("read"), bytes("write"), bytes("trim")],
        [600 * 4096, 300 * 4096, 100 * 4096]
    );
    let share = &r["phases"][0]["read_share"];
    let by_ops = reads as f64 / (reads + writes + trims) as f64;
    let by_bytes = bytes("read") as f64 / (bytes("read") + bytes("write") + bytes("trim")) as f64;
    assert_eq!(share["ops"].as_f64(), Some(by_ops));
    assert_eq!(share["bytes"].as_f64(), Some(by_bytes));
    assert_eq!((by_ops, by_bytes), (0.6, 0.6));
    let (c, o, e) = code_out_err(&wkrun(d.path(), &["validate", "out"]));
    assert_eq!(
        (c, o.as_str()),
        (0, "out: ok (results, 1 phase, 1 series CSV)\n"),
        "{e}"
    );
}
