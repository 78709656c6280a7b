//! Block devices, on real loop devices (`losetup --direct-io=on`): the end-to-end run and case C09 (erase on
//! devices, a device that cannot discard). Needs root; without it each test prints why it skipped.
//!
//! The device's content is read back through its backing file after the run (the loop device writes it with
//! O_DIRECT and turns discards into punched holes, so the backing file shows exactly what the device holds).

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::sync::MutexGuard;
use wkrun::data::DataGen;
use wkrun::ops::{Mix, OpStream, Order, phase_seed};
use wkrun::results::Results;
use wkrun::spec::DataPattern;
use wkrun::vocab::Direction;

const MIB: u64 = 1 << 20;

// One loop-device test at a time: `LOOP_LOCK` (in common) is shared with the other modules that make loop devices.

/// A loop device for one test: holds the lock; when the test changed the device's queue limits through sysfs,
/// the device is removed after it is detached, so that the change cannot leak into the next test.
struct Fixture {
    inner: Option<LoopDev>,
    touched: bool,
    _lock: MutexGuard<'static, ()>,
}

impl Fixture {
    /// Sets the device's discard limit; returns the value now in force, or `None` when sysfs refuses it.
    fn set_discard_max(&mut self, bytes: u64) -> Option<u64> {
        self.touched = true;
        let p = sysfs_queue(self, "discard_max_bytes");
        std::fs::write(&p, bytes.to_string()).ok()?;
        std::fs::read_to_string(&p).ok()?.trim().parse().ok()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let Some(dev) = self.inner.take() else { return };
        let index = dev.sys_name().trim_start_matches("loop").parse::<u32>();
        drop(dev);
        if let (true, Ok(i)) = (self.touched, index)
            && let Err(e) = remove_loop_device(i)
        {
            eprintln!("note: could not remove /dev/loop{i} after changing its queue limits: {e}");
        }
    }
}

impl std::ops::Deref for Fixture {
    type Target = LoopDev;
    fn deref(&self) -> &LoopDev {
        self.inner.as_ref().expect("live loop device")
    }
}

/// A 64 MiB, 512-byte-sector loop device, or `None` after printing why the test skips.
fn loop_dev(test: &str, dir: &Path) -> Option<Fixture> {
    let lock = loop_guard();
    match LoopDev::new(dir, 64, 512) {
        Ok(dev) => Some(Fixture {
            inner: Some(dev),
            touched: false,
            _lock: lock,
        }),
        Err(why) => {
            skip(test, &why);
            None
        }
    }
}

fn sysfs_queue(dev: &LoopDev, attr: &str) -> String {
    format!("/sys/block/{}/queue/{attr}", dev.sys_name())
}

fn dev_str(dev: &LoopDev) -> &str {
    dev.dev.to_str().expect("utf-8 device path")
}

/// Runs `body` (spec `name`) in `dir` on `dev` with `--allow-destroy` naming it, and asserts that it
/// succeeds: the typed results and the raw ones.
fn run_destroying_ok(dir: &Path, name: &str, body: &str, dev: &LoopDev) -> (Results, Value) {
    let args = ["--allow-destroy", dev_str(dev)];
    let (o, out) = run_spec(dir, name, body, &dev.dev, &args);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    strict_results(&out)
}

/// Runs `body` (spec `name`) in `dir` on `dev`, with `--allow-destroy` naming it when `allow_destroy`, and
/// asserts that it is refused when the plan is made: exit 2, the message holding each of `wants`, no results,
/// no sector of the device written. Returns the device's count of sectors written, which the run left as it was.
fn assert_refused_at_plan(
    dir: &Path,
    name: &str,
    body: &str,
    dev: &LoopDev,
    allow_destroy: bool,
    wants: &[&str],
) -> u64 {
    let args = ["--allow-destroy", dev_str(dev)];
    let args: &[&str] = if allow_destroy { &args } else { &[] };
    let before = dev.sectors_written();
    let (o, out) = run_spec(dir, name, body, &dev.dev, args);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "refused at plan time: {err}");
    for w in wants {
        assert!(err.contains(w), "the message says {w:?}: {err}");
    }
    assert!(!out.join("results.json").exists(), "nothing ran");
    assert_eq!(dev.sectors_written(), before, "no sector written");
    before
}

#[test]
fn loop_device_end_to_end() {
    let d = tempdir();
    let Some(dev) = loop_dev("blockdev::loop_device_end_to_end", d.path()) else {
        return;
    };
    let body = r#"
[[phase]]
name = "purge"
kind = "erase"
method = "auto"

[[phase]]
name = "fill"
kind = "fill"
span = "50%"
block_size = "64KiB"
queue_depth = 4
seed = 5

[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
read_percent = 50
offset = "50%"
span = "50%"
block_size = "4KiB"
queue_depth = 1
duration = "2s"
seed = 6
"#;
    // Without --allow-destroy: refused, nothing written.
    let before = assert_refused_at_plan(d.path(), "e2e", body, &dev, false, &["--allow-destroy"]);
    let (typed, r) = run_destroying_ok(d.path(), "e2e", body, &dev);
    assert_eq!(r["status"], "completed");
    assert_eq!(r["target"]["kind"], "block");
    assert_eq!(typed.target.path, dev.dev);
    assert_eq!(typed.target.capacity_bytes, 64 * MIB);
    assert_eq!(typed.target.logical_block_size, 512);
    // A loop device discards (punches holes in its backing file) but has no secure discard: auto picks
    // discard. A loop device the kernel hands out with discard turned off (a limit set through sysfs on an
    // earlier device of that number can outlive its detach) reports discard_max_bytes = 0, and auto then
    // rightly zeroes out.
    let expected = if typed.target.discard_max_bytes == Some(0) {
        "zero-out"
    } else {
        "discard"
    };
    assert_eq!(
        phase(&r, 0)["erase_method"],
        expected,
        "{} on {:?} (discard_max_bytes {:?})",
        phase(&r, 0),
        typed.target.path,
        typed.target.discard_max_bytes
    );
    assert_eq!(u(phase(&r, 0), "/erased_bytes"), 64 * MIB);
    assert_eq!(u(phase(&r, 1), "/write/bytes"), 32 * MIB);
    assert_eq!(u(phase(&r, 1), "/write/ops"), 512);
    let (reads, writes) = (u(phase(&r, 2), "/read/ops"), u(phase(&r, 2), "/write/ops"));
    assert!(reads > 0 && writes > 0);
    assert_eq!(
        dev.sectors_written() - before,
        (32 * MIB + writes * 4096) / 512,
        "the device saw exactly the fill's and the workload's writes"
    );

    let data = read(&dev.backing);
    assert_op_blocks(
        &data,
        0,
        64 << 10,
        0..512,
        phase_seed(5, "fill"),
        "the fill",
    );
    // The workload at QD1 ran ops 0..reads+writes of its stream: each block of its span holds its last write,
    // or zeros (erased, never written).
    let stream = OpStream {
        span_start: 32 * MIB,
        span_len: 32 * MIB,
        sizes: wkrun::ops::Sizes::Fixed(4096),
        order: Order::Random,
        mix: Mix::read_write(50),
        seed: phase_seed(6, "mix"),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: None,
    };
    let mut last = std::collections::HashMap::new();
    for op in stream.ops(0..reads + writes) {
        if op.dir == Direction::Write {
            last.insert(op.offset, op.index);
        }
    }
    let datagen = DataGen::new(DataPattern::Random, phase_seed(6, "mix"), 4096);
    let mut want = vec![0u8; 4096];
    for off in (32 * MIB..64 * MIB).step_by(4096) {
        let got = &data[off as usize..off as usize + 4096];
        match last.get(&off) {
            Some(&i) => {
                datagen.fill(&mut want, i);
                assert!(got == &want[..], "block at {off} is not the data of op {i}");
            }
            None => assert_zeros(got, off, "an erased block no op wrote"),
        }
    }
}

#[test]
fn c09_erase_loop_device() {
    let d = tempdir();
    let Some(mut dev) = loop_dev("blockdev::c09_erase_loop_device", d.path()) else {
        return;
    };
    // A 1 MiB discard limit: the 32 MiB erase must be split into ranges the device accepts.
    let limit = dev.set_discard_max(MIB);
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 2
seed = 9

[[phase]]
name = "trim"
kind = "erase"
method = "discard"
offset = "25%"
span = "50%"
"#;
    let (typed, r) = run_destroying_ok(d.path(), "c09", body, &dev);
    match limit {
        Some(l) => assert_eq!(
            typed.target.discard_max_bytes,
            Some(l),
            "the device's discard limit is recorded"
        ),
        None => eprintln!(
            "note: c09_erase_loop_device: sysfs refused a 1 MiB discard limit; erasing with the device's own"
        ),
    }
    let e = phase(&r, 1);
    assert_eq!(e["erase_method"], "discard");
    assert_eq!(u(e, "/params/span_start_bytes"), 16 * MIB);
    assert_eq!(u(e, "/erased_bytes"), 32 * MIB);
    let data = read(&dev.backing);
    assert_op_blocks(
        &data,
        0,
        128 << 10,
        0..128,
        phase_seed(9, "fill"),
        "before the span",
    );
    assert_zeros(
        &data[(16 * MIB) as usize..(48 * MIB) as usize],
        16 * MIB,
        "the discarded span",
    );
    // After the span: fill ops 384..512 (blocks 384.. of 128 KiB).
    assert_op_blocks(
        &data,
        48 * MIB,
        128 << 10,
        384..512,
        phase_seed(9, "fill"),
        "after the span",
    );
}

#[test]
fn c09_discard_refused_when_the_device_cannot_discard() {
    let name = "blockdev::c09_discard_refused_when_the_device_cannot_discard";
    let d = tempdir();
    let Some(mut dev) = loop_dev(name, d.path()) else {
        return;
    };
    match dev.set_discard_max(0) {
        Some(0) => {}
        other => {
            skip(
                name,
                &format!(
                    "cannot set {} to 0 (now {other:?})",
                    sysfs_queue(&dev, "discard_max_bytes")
                ),
            );
            return;
        }
    }
    // A fill before the erase: refusing at plan time means the fill never runs either.
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"

[[phase]]
name = "trim"
kind = "erase"
method = "discard"
span = "50%"
"#;
    let wants = ["cannot discard", "method"];
    assert_refused_at_plan(d.path(), "c09", body, &dev, true, &wants);
    assert_zeros(&read(&dev.backing), 0, "the device after a refused run");

    // `auto` on the same device does not try to discard: it zeroes the span instead, and says so.
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
seed = 2

[[phase]]
name = "purge"
kind = "erase"
method = "auto"
span = "50%"
"#;
    let d2 = tempdir();
    let (typed, r) = run_destroying_ok(d2.path(), "c09", body, &dev);
    assert_eq!(typed.target.discard_max_bytes, Some(0));
    assert_eq!(phase(&r, 1)["erase_method"], "zero-out");
    let data = read(&dev.backing);
    assert_zeros(&data[..(32 * MIB) as usize], 0, "the zeroed span");
    assert_op_blocks(
        &data,
        32 * MIB,
        MIB,
        32..64,
        phase_seed(2, "fill"),
        "after the span, the fill",
    );
}

#[test]
fn nvme_format_is_refused_on_a_device_that_is_not_nvme() {
    let name = "blockdev::nvme_format_is_refused_on_a_device_that_is_not_nvme";
    let d = tempdir();
    let Some(dev) = loop_dev(name, d.path()) else {
        return;
    };
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"

[[phase]]
name = "purge"
kind = "erase"
method = "nvme-format"
"#;
    let wants = [
        "erase method \"nvme-format\" is for whole NVMe namespaces",
        "is not one",
    ];
    assert_refused_at_plan(d.path(), "nvme", body, &dev, true, &wants);
}

/// Mounts `source` (an ext4 on `dev` or on one of its partitions) read-only without journal replay
/// (`ro,noload`: the mount writes nothing) at `dir/mnt`; asserts that a write to `dev` is refused
/// ([`assert_write_refused`] in `dir/run`: `what`, the message naming each of `why(mount point)`); unmounts;
/// asserts that the device counted no sector written and its bytes hash as before. Returns the device's count
/// of sectors written, or `None` after printing why `test` skips when the mount fails.
fn assert_refused_while_mounted(
    test: &str,
    dir: &Path,
    dev: &LoopDev,
    source: &str,
    what: &str,
    why: impl FnOnce(&str) -> Vec<String>,
) -> Option<u64> {
    let hash_before = sha256_hex(&read(&dev.backing));
    let written_before = dev.sectors_written();
    let mnt_dir = dir.join("mnt");
    let why = why(mnt_dir.to_str().expect("utf-8 path"));
    let mnt = match Mount::new(mnt_dir, &["-o", "ro,noload", source]) {
        Ok(m) => m,
        Err(why) => {
            skip(test, &why);
            return None;
        }
    };
    let run_dir = dir.join("run");
    std::fs::create_dir_all(&run_dir).expect("run folder");
    let why: Vec<&str> = why.iter().map(String::as_str).collect();
    assert_write_refused(&run_dir, what, &dev.dev, &why);
    drop(mnt);
    assert_eq!(dev.sectors_written(), written_before, "no sector written");
    assert_eq!(
        sha256_hex(&read(&dev.backing)),
        hash_before,
        "the device's bytes are unchanged"
    );
    Some(written_before)
}

/// Runs `wkrun plan` and then a one-phase 1 MiB fill of `target` with `--allow-destroy target`; asserts the
/// run is refused before anything is written: exit 2, the message naming `why` (each string), no output
/// folder. `what` names the case in failure messages.
fn assert_write_refused(dir: &Path, what: &str, target: &Path, why: &[&str]) {
    let t = target.to_str().expect("utf-8 device path");
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n";
    let before = dir_listing(dir);
    let (o, out) = run_spec(dir, "mounted", body, target, &["--allow-destroy", t]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{what}: refused with exit 2: {err}");
    for w in why {
        assert!(err.contains(w), "{what}: the message says {w:?}: {err}");
    }
    assert!(!out.exists(), "{what}: no output folder");
    let mut after = dir_listing(dir);
    after.retain(|p| p != "spec.toml");
    let mut before = before;
    before.retain(|p| p != "spec.toml");
    assert_eq!(after, before, "{what}: nothing written in the run folder");
}

/// Issue 7, item 1, on a real mounted filesystem: a 64 MiB loop device holding an ext4 that is mounted
/// (read-only without journal replay, `ro,noload`, so that the mount itself writes nothing and the device's
/// bytes can be compared exactly). A write spec naming it with `--allow-destroy` is refused: exit 2, the
/// message says it is mounted and where, no results; after unmounting, the backing file hashes as before
/// and the device counted no sector written.
#[test]
fn mounted_loop_device_is_refused_and_left_unchanged() {
    let name = "blockdev::mounted_loop_device_is_refused_and_left_unchanged";
    let d = tempdir();
    let Some(dev) = loop_dev(name, d.path()) else {
        return;
    };
    let mk = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&dev.dev)
        .output();
    if !mk.as_ref().is_ok_and(|o| o.status.success()) {
        skip(name, &format!("mkfs.ext4 failed or is missing: {mk:?}"));
        return;
    }
    let dev_s = dev_str(&dev);
    let why = |mnt: &str| {
        vec![
            format!("refusing to write to {dev_s}"),
            format!("{dev_s} is mounted at {mnt}"),
        ]
    };
    let what = "mounted loop device";
    assert_refused_while_mounted(name, d.path(), &dev, dev_s, what, why);
}

/// The whole disk is refused when one of its partitions is mounted: a loop device with an MBR partition
/// table (one partition from sector 2048, added with `partx -a`), an ext4 on the partition mounted
/// `ro,noload`; a write to the whole device names the partition and where it is mounted, and nothing of
/// the device changes. Then, where device mapper works, a dm-linear device over the loop device makes it
/// a holder's: refused as held, naming the dm device (skipped with the reason otherwise).
#[test]
fn disk_with_a_mounted_partition_or_a_holder_is_refused() {
    let name = "blockdev::disk_with_a_mounted_partition_or_a_holder_is_refused";
    let d = tempdir();
    let Some(dev) = loop_dev(name, d.path()) else {
        return;
    };
    let sh = |cmd: &str, args: &[&str], stdin: Option<&str>| -> Result<(), String> {
        use std::io::Write;
        let mut c = std::process::Command::new(cmd);
        c.args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().map_err(|e| format!("{cmd}: {e}"))?;
        if let (Some(text), Some(mut i)) = (stdin, child.stdin.take()) {
            i.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        }
        let o = child.wait_with_output().map_err(|e| e.to_string())?;
        if o.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{cmd} {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&o.stderr).trim()
            ))
        }
    };
    let part = std::path::PathBuf::from(format!("{}p1", dev_str(&dev)));
    let part_s = part.to_str().expect("utf-8 path").to_string();
    let setup = sh(
        "sfdisk",
        &["-q", dev_str(&dev)],
        Some("label: dos\n2048,,L\n"),
    )
    .and_then(|()| sh("partx", &["-a", dev_str(&dev)], None))
    .and_then(|()| sh("mkfs.ext4", &["-q", "-F", &part_s], None));
    if let Err(why) = setup {
        skip(name, &format!("cannot partition the loop device: {why}"));
        return;
    }
    let why = |mnt: &str| vec![format!("{part_s} is mounted at {mnt}")];
    let what = "disk with a mounted partition";
    let Some(written_before) =
        assert_refused_while_mounted(name, d.path(), &dev, &part_s, what, why)
    else {
        return;
    };

    // A holder: dm-linear over the whole loop device.
    let dm_name = format!("wkrun-test-{}", std::process::id());
    let table = format!("0 {} linear {} 0\n", 64 * MIB / 512, dev_str(&dev));
    if let Err(why) = sh("dmsetup", &["create", &dm_name], Some(&table)) {
        skip(
            &format!("{name} [holder]"),
            &format!("no device mapper: {why}"),
        );
        return;
    }
    let holder = std::fs::read_dir(format!("/sys/block/{}/holders", dev.sys_name()))
        .ok()
        .and_then(|mut it| it.next())
        .and_then(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned());
    let run2 = d.path().join("run2");
    std::fs::create_dir_all(&run2).expect("run folder");
    let result = std::panic::catch_unwind(|| {
        let holder = holder.expect("the dm device is listed in holders/");
        assert_write_refused(
            &run2,
            "held loop device",
            &dev.dev,
            &[&format!("{} is held by {holder}", dev_str(&dev))],
        );
    });
    let _ = sh("dmsetup", &["remove", &dm_name], None);
    if let Err(p) = result {
        std::panic::resume_unwind(p);
    }
    assert_eq!(dev.sectors_written(), written_before, "no sector written");
}
