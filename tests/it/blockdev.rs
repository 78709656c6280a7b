//! Block devices, on real loop devices (`losetup --direct-io=on`): the end-to-end run and case C09 (erase on
//! devices, a device that cannot discard). Needs root; without it each test prints why it skipped.
//!
//! The device's content is read back through its backing file after the run (the loop device writes it with
//! O_DIRECT and turns discards into punched holes, so the backing file shows exactly what the device holds).

use crate::common::*;
use std::path::Path;
use std::sync::MutexGuard;
use wkrun::data::DataGen;
use wkrun::ops::{OpKind, OpStream, Order};
use wkrun::spec::DataPattern;

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

/// Asserts that `data[start..start + len]` holds a sequential fill with `seed` in blocks of `bs` from `start`.
fn assert_fill_data(data: &[u8], start: u64, len: u64, bs: u64, seed: u64) {
    let datagen = DataGen::new(DataPattern::Random, seed, bs as usize);
    let mut want = vec![0u8; bs as usize];
    for b in 0..len / bs {
        datagen.fill(&mut want, b);
        let at = (start + b * bs) as usize;
        assert!(
            data[at..at + bs as usize] == want[..],
            "block {b} at {at} is not the fill's data of op {b}"
        );
    }
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
    let before = dev.sectors_written();
    let (o, out) = run_spec(d.path(), "e2e", body, &dev.dev, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--allow-destroy"), "{err}");
    assert!(!out.join("results.json").exists());
    assert_eq!(
        dev.sectors_written(),
        before,
        "nothing written without --allow-destroy"
    );

    let (o, out) = run_spec(
        d.path(),
        "e2e",
        body,
        &dev.dev,
        &["--allow-destroy", dev_str(&dev)],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (typed, r) = strict_results(&out);
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
    assert_fill_data(&data, 0, 32 * MIB, 64 << 10, 5);
    // The workload at QD1 ran ops 0..reads+writes of its stream: each block of its span holds its last write,
    // or zeros (erased, never written).
    let stream = OpStream {
        span_start: 32 * MIB,
        span_len: 32 * MIB,
        sizes: wkrun::ops::Sizes::Fixed(4096),
        order: Order::Random,
        read_percent: 50,
        seed: 6,
        total_ops: None,
    };
    let mut last = std::collections::HashMap::new();
    for op in stream.ops(0..reads + writes) {
        if op.kind == OpKind::Write {
            last.insert(op.offset, op.index);
        }
    }
    let datagen = DataGen::new(DataPattern::Random, 6, 4096);
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
    let (o, out) = run_spec(
        d.path(),
        "c09",
        body,
        &dev.dev,
        &["--allow-destroy", dev_str(&dev)],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (typed, r) = strict_results(&out);
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
    assert_fill_data(&data[..(16 * MIB) as usize], 0, 16 * MIB, 128 << 10, 9);
    assert_zeros(
        &data[(16 * MIB) as usize..(48 * MIB) as usize],
        16 * MIB,
        "the discarded span",
    );
    // After the span: fill ops 384..512 (blocks 384.. of 128 KiB).
    let datagen = DataGen::new(DataPattern::Random, 9, 128 << 10);
    let mut want = vec![0u8; 128 << 10];
    for b in 384..512u64 {
        datagen.fill(&mut want, b);
        let at = (b * (128 << 10)) as usize;
        assert!(
            data[at..at + (128 << 10)] == want[..],
            "block {b} after the span is not the fill's data"
        );
    }
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
    let before = dev.sectors_written();
    let (o, out) = run_spec(
        d.path(),
        "c09",
        body,
        &dev.dev,
        &["--allow-destroy", dev_str(&dev)],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "refused at plan time: {err}");
    assert!(
        err.contains("cannot discard") && err.contains("method"),
        "{err}"
    );
    assert!(!out.join("results.json").exists(), "nothing ran");
    assert_eq!(dev.sectors_written(), before, "no sector written");
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
    let (o, out) = run_spec(
        d2.path(),
        "c09",
        body,
        &dev.dev,
        &["--allow-destroy", dev_str(&dev)],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (typed, r) = strict_results(&out);
    assert_eq!(typed.target.discard_max_bytes, Some(0));
    assert_eq!(phase(&r, 1)["erase_method"], "zero-out");
    let data = read(&dev.backing);
    assert_zeros(&data[..(32 * MIB) as usize], 0, "the zeroed span");
    let datagen = DataGen::new(DataPattern::Random, 2, 1 << 20);
    let mut want = vec![0u8; 1 << 20];
    for b in 32..64u64 {
        datagen.fill(&mut want, b);
        assert!(
            data[(b << 20) as usize..((b + 1) << 20) as usize] == want[..],
            "MiB {b} after the span keeps the fill's data"
        );
    }
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
    let before = dev.sectors_written();
    let (o, out) = run_spec(
        d.path(),
        "nvme",
        body,
        &dev.dev,
        &["--allow-destroy", dev_str(&dev)],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "refused at plan time: {err}");
    assert!(
        err.contains("erase method \"nvme-format\" is for whole NVMe namespaces")
            && err.contains("is not one"),
        "{err}"
    );
    assert!(!out.join("results.json").exists(), "nothing ran");
    assert_eq!(dev.sectors_written(), before, "no sector written");
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
    let hash_before = sha256_hex(&read(&dev.backing));
    let written_before = dev.sectors_written();
    let mnt_dir = d.path().join("mnt");
    let mnt = match Mount::new(mnt_dir.clone(), &["-o", "ro,noload", dev_str(&dev)]) {
        Ok(m) => m,
        Err(why) => {
            skip(name, &why);
            return;
        }
    };
    let run_dir = d.path().join("run");
    std::fs::create_dir_all(&run_dir).expect("run folder");
    let mnt_s = mnt_dir.to_str().expect("utf-8 path");
    assert_write_refused(
        &run_dir,
        "mounted loop device",
        &dev.dev,
        &[
            &format!("refusing to write to {}", dev_str(&dev)),
            &format!("{} is mounted at {mnt_s}", dev_str(&dev)),
        ],
    );
    drop(mnt);
    assert_eq!(
        dev.sectors_written(),
        written_before,
        "no sector written to the device"
    );
    assert_eq!(
        sha256_hex(&read(&dev.backing)),
        hash_before,
        "the device's bytes are unchanged"
    );
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
    let hash_before = sha256_hex(&read(&dev.backing));
    let written_before = dev.sectors_written();
    let mnt_dir = d.path().join("mnt");
    let mnt = match Mount::new(mnt_dir.clone(), &["-o", "ro,noload", &part_s]) {
        Ok(m) => m,
        Err(why) => {
            skip(name, &why);
            return;
        }
    };
    let run_dir = d.path().join("run");
    std::fs::create_dir_all(&run_dir).expect("run folder");
    assert_write_refused(
        &run_dir,
        "disk with a mounted partition",
        &dev.dev,
        &[&format!(
            "{part_s} is mounted at {}",
            mnt_dir.to_str().expect("utf-8 path")
        )],
    );
    drop(mnt);
    assert_eq!(dev.sectors_written(), written_before, "no sector written");
    assert_eq!(
        sha256_hex(&read(&dev.backing)),
        hash_before,
        "the device's bytes are unchanged"
    );

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
