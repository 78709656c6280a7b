//! Holding the target for the whole run (issue 13, items 1 and 7): the target is opened once, before the first
//! phase, and every phase uses that open file; a block device stays claimed (O_EXCL) between phases; a target
//! that cannot or must not be written (a read-only device, a file on a read-only filesystem, the backing file
//! of a mounted loop device) is refused when the plan is checked, exit 2, nothing written. Needs root (loop
//! devices, mounts); without it each test prints why it skipped.
//!
//! The runs that are changed from outside mid-run have a `null`-engine phase in the middle, which opens nothing:
//! the old code reopened the target by path for the next phase, so anything done to the path or the device
//! during that phase was met by the next open. The test acts while `results.json` shows exactly one phase done.

use crate::common::*;
use std::fs;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wkrun::data::DataGen;
use wkrun::spec::DataPattern;

const MIB: u64 = 1 << 20;

/// Phase 0 writes for 1 s (rate-capped), phase 1 runs 4 s on the `null` engine (nothing opened), phase 2 is a
/// sequential fill of the span with seed 7 in 64 KiB blocks.
const THREE_PHASES: &str = r#"
[[phase]]
name = "first"
kind = "workload"
read_percent = 0
duration = "1s"
rate_iops = 200

[[phase]]
name = "between"
kind = "workload"
engine = "null"
read_percent = 0
duration = "4s"

[[phase]]
name = "last"
kind = "fill"
block_size = "64KiB"
seed = 7
"#;

/// `wkrun spec.toml --target TARGET --output out -q ARGS`, started in `dir` and not waited for.
fn spawn(dir: &Path, body: &str, target: &Path, args: &[&str]) -> (Child, PathBuf) {
    write_file(dir, "spec.toml", &spec_text("hold", body));
    let out = dir.join("out");
    let child = Command::new(wkrun_bin())
        .args(["spec.toml", "--target"])
        .arg(target)
        .arg("--output")
        .arg(&out)
        .arg("-q")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wkrun");
    (child, out)
}

/// Phases done so far in `out/results.json`; `None` while it does not exist (or is being replaced).
fn phases_done(out: &Path) -> Option<usize> {
    let text = fs::read_to_string(out.join("results.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["phases"].as_array().map(Vec::len)
}

/// Waits (up to 30 s) until `results.json` shows `n` phases done; panics when the run ended or overtook.
fn wait_for_phases(child: &mut Child, out: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(k) = phases_done(out) {
            assert!(k <= n, "the run is past phase {n} already ({k} done)");
            if k == n {
                return;
            }
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("wkrun ended ({st}) before {n} phases were done");
        }
        assert!(Instant::now() < deadline, "{n} phases not done in 30 s");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits for the run; exit code and stderr.
/// Sends `sig` (`-STOP`, `-CONT`) to process `pid` with kill(1).
fn signal(pid: u32, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(st.success(), "kill {sig} {pid}: {st}");
}

fn finish(child: Child) -> (i32, String) {
    let o = child.wait_with_output().expect("wait for wkrun");
    let (code, _, err) = code_out_err(&o);
    (code, err)
}

/// A loop device for one test (holding the loop lock), or `None` after printing why the test skips.
fn loop_dev(
    test: &str,
    dir: &Path,
    mib: u64,
) -> Option<(LoopDev, std::sync::MutexGuard<'static, ()>)> {
    let lock = loop_guard();
    match LoopDev::new(dir, mib, 512) {
        Ok(dev) => Some((dev, lock)),
        Err(why) => {
            skip(test, &why);
            None
        }
    }
}

/// A read-only loop device (`losetup --read-only`) over a fresh 16 MiB file, detached and removed on drop.
fn read_only_loop(dir: &Path) -> Result<LoopDev, String> {
    if let Some(why) = loop_unavailable() {
        return Err(why);
    }
    let backing = dir.join("ro-backing.img");
    sparse_file(&backing, 16 * MIB);
    let o = Command::new("losetup")
        .args(["-f", "--show", "--read-only"])
        .arg(&backing)
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!(
            "losetup --read-only failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    let dev = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string());
    Ok(LoopDev { dev, backing })
}

/// An exclusive open of `dev` by this process (as `mount` or another holder would claim it): the OS error.
fn exclusive_open(dev: &Path) -> Option<i32> {
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(dev)
        .err()
        .and_then(|e| e.raw_os_error())
}

/// `mount -t ext4 DEV DIR`: exit code and stderr. A mount that succeeds is undone at once.
fn try_mount(dev: &Path, dir: &Path) -> (i32, String) {
    let o = Command::new("mount")
        .args(["-t", "ext4"])
        .arg(dev)
        .arg(dir)
        .output()
        .expect("run mount");
    if o.status.success() {
        let _ = Command::new("umount").arg(dir).status();
    }
    let (code, _, err) = code_out_err(&o);
    (code, err)
}

/// Issue 13 item 1: a file target replaced by a symlink to a block device mid-run. The run keeps writing the
/// file it opened (now `moved.img`): the device is not written (its backing file stays zeros and its written
/// sectors do not move), the run completes (exit 0) with the last phase's fill in the moved file, and the
/// phase that began after the swap carries a warning naming the path.
///
/// Chosen over failing the run: the file that was checked is the one written and measured to the end, so the
/// results stay whole and true to it; nothing else is touched either way.
#[test]
fn a_file_target_swapped_for_a_device_mid_run_is_not_followed() {
    let test = "hold::a_file_target_swapped_for_a_device_mid_run_is_not_followed";
    let d = tempdir();
    let Some((dev, _lock)) = loop_dev(test, d.path(), 16) else {
        return;
    };
    let target = d.path().join("t.img");
    sparse_file(&target, 8 * MIB);
    let written_before = dev.sectors_written();
    let (mut child, out) = spawn(d.path(), THREE_PHASES, &target, &[]);
    wait_for_phases(&mut child, &out, 1);
    // Well into the null phase (4 s), after its start was logged: the swap is seen by the last phase only.
    std::thread::sleep(Duration::from_millis(300));
    let moved = d.path().join("moved.img");
    fs::rename(&target, &moved).unwrap();
    std::os::unix::fs::symlink(&dev.dev, &target).unwrap();
    assert_eq!(
        phases_done(&out),
        Some(1),
        "the swap must happen during the null phase"
    );
    let (code, err) = finish(child);
    assert_eq!(code, 0, "{err}");

    assert_eq!(
        dev.sectors_written(),
        written_before,
        "the device was written"
    );
    assert_zeros(&read(&dev.backing), 0, "the device's backing file");
    let (_, r) = strict_results(&out);
    assert_eq!(r["status"], "completed");
    assert_eq!(r["target"]["kind"], "file");
    assert_eq!(u(phase(&r, 2), "/write/bytes"), 8 * MIB);
    let data = read(&moved);
    let bs = 64 << 10;
    let datagen = DataGen::new(DataPattern::Random, wkrun::ops::phase_seed(7, "last"), bs);
    let mut want = vec![0u8; bs];
    for b in 0..(8 * MIB) as usize / bs {
        datagen.fill(&mut want, b as u64);
        assert!(
            data[b * bs..(b + 1) * bs] == want[..],
            "block {b} of the moved file is not the last phase's fill"
        );
    }
    let shown = target.display();
    let rdev = std::os::unix::fs::MetadataExt::rdev(&fs::metadata(&dev.dev).unwrap());
    assert_eq!(
        device_warnings(phase(&r, 1).get("warnings")),
        Vec::<String>::new()
    );
    // The first phase's rate-capped random writes leave holes that the last phase's fill writes into; how many
    // depends on how many ops the first phase issued in its second, so that warning is left out here.
    let mut last = device_warnings(phase(&r, 2).get("warnings"));
    last.retain(|w| !w.contains(" are holes in the file "));
    assert_eq!(
        last,
        vec![format!(
            "{shown} no longer names the file this run opened (it was moved, removed or replaced during the run; it now names block device {}:{}); the run goes on with the file it opened",
            libc::major(rdev),
            libc::minor(rdev)
        )]
    );
}

/// Issue 13 item 1: a block device written by a run stays claimed from before the first phase to the end,
/// also while no phase has it open for I/O: an exclusive open fails with EBUSY and so does `mount`, during
/// the first phase and during the null phase between the two that write. After the run it is free again.
#[test]
fn a_block_device_stays_claimed_between_phases() {
    let test = "hold::a_block_device_stays_claimed_between_phases";
    if Command::new("mkfs.ext4").arg("-V").output().is_err() {
        skip(test, "no mkfs.ext4 (e2fsprogs)");
        return;
    }
    let d = tempdir();
    let Some((dev, _lock)) = loop_dev(test, d.path(), 16) else {
        return;
    };
    let mkfs = Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&dev.dev)
        .status()
        .expect("run mkfs.ext4");
    assert!(mkfs.success(), "mkfs.ext4 on {}", dev.dev.display());
    let mnt = d.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let name = dev.dev.to_str().unwrap();
    let (mut child, out) = spawn(d.path(), THREE_PHASES, &dev.dev, &["--allow-destroy", name]);
    for done in [0, 1] {
        wait_for_phases(&mut child, &out, done);
        assert_eq!(
            exclusive_open(&dev.dev),
            Some(libc::EBUSY),
            "an exclusive open with {done} phases done"
        );
        let (code, err) = try_mount(&dev.dev, &mnt);
        assert_eq!(code, 32, "mount with {done} phases done: {err}");
        assert!(err.contains("busy"), "mount with {done} phases done: {err}");
        assert_eq!(
            phases_done(&out),
            Some(done),
            "the checks overran the phase"
        );
    }
    let (code, err) = finish(child);
    assert_eq!(code, 0, "{err}");
    assert_eq!(results(&out)["status"], "completed");
    assert_eq!(
        exclusive_open(&dev.dev),
        None,
        "the device is free after the run"
    );
}

/// An ext4 filesystem made on `dev` (inode tables and journal written now, so that the mounted filesystem
/// writes nothing by itself later) and mounted at `dir`, synced; `None` after printing why `test` skips.
fn ext4_mounted(test: &str, dev: &Path, dir: &Path) -> Option<Mount> {
    let mkfs = Command::new("mkfs.ext4")
        .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
        .arg(dev)
        .status()
        .expect("run mkfs.ext4");
    assert!(mkfs.success());
    match Mount::new(dir.to_path_buf(), &["-t", "ext4", dev.to_str().unwrap()]) {
        Ok(m) => {
            let _ = Command::new("sync").status();
            Some(m)
        }
        Err(why) => {
            skip(test, &why);
            None
        }
    }
}

/// Issue 13 item 7: a read-only block device (`losetup --read-only`, `blockdev --setro`) is refused before
/// anything is opened for writing, even with `--allow-destroy`: exit 2, the reason in words, no output folder,
/// no sector written; `wkrun plan` notes the refusal. A run that only reads it is allowed.
#[test]
fn a_read_only_device_is_refused_at_plan_time() {
    let test = "hold::a_read_only_device_is_refused_at_plan_time";
    let d = tempdir();
    let _lock = loop_guard();
    let ro = match read_only_loop(d.path()) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    let setro = match LoopDev::new(d.path(), 16, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    let st = Command::new("blockdev")
        .arg("--setro")
        .arg(&setro.dev)
        .status();
    if !st.is_ok_and(|s| s.success()) {
        return skip(test, "blockdev --setro failed");
    }
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    let read_only =
        "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nduration = \"200ms\"\n";
    let mut f = Failures::default();
    for dev in [&ro, &setro] {
        let name = dev.dev.to_str().unwrap();
        f.case(name);
        let before = dev.sectors_written();
        let (o, out) = run_spec(d.path(), "ro", write, &dev.dev, &["--allow-destroy", name]);
        let (code, _, err) = code_out_err(&o);
        f.eq("exit", code, 2);
        f.eq(
            "stderr",
            err.as_str(),
            &format!("error: refusing to write to {name}: {name} is read-only (blockdev --setro, losetup --read-only or write-protected hardware)\n"),
        );
        f.check(!out.exists(), || "an output folder was made".into());
        f.eq("sectors written", dev.sectors_written(), before);
        let spec = d.path().join("spec.toml");
        let (code, _, err) = code_out_err(&wkrun(
            d.path(),
            &["plan", spec.to_str().unwrap(), "--target", name],
        ));
        f.eq("plan exit", code, 0);
        f.contains(
            "plan",
            &err,
            &[format!(
                "note: the run would be refused: refusing to write to {name}: {name} is read-only"
            )],
        );
        let (o, out) = run_spec(d.path(), "ro", read_only, &dev.dev, &[]);
        let (code, _, err) = code_out_err(&o);
        f.eq(&format!("a run that only reads: {err}"), code, 0);
        let _ = fs::remove_dir_all(out);
    }
    let _ = Command::new("blockdev")
        .arg("--setrw")
        .arg(&setro.dev)
        .status();
    f.assert_none(test);
}

/// Issue 13 item 7: a file on a filesystem mounted read-only is refused like a read-only device: exit 2, the
/// reason in words, nothing written.
#[test]
fn a_file_on_a_read_only_filesystem_is_refused_at_plan_time() {
    let test = "hold::a_file_on_a_read_only_filesystem_is_refused_at_plan_time";
    let d = tempdir();
    let m = match Mount::tmpfs(d.path().join("fs"), "16m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let target = m.dir.join("t.img");
    sparse_file(&target, 4 * MIB);
    let ro = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&m.dir)
        .status();
    if !ro.is_ok_and(|s| s.success()) {
        return skip(test, "mount -o remount,ro failed");
    }
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    let (o, out) = run_spec(d.path(), "rofs", write, &target, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: refusing to write to {t}: {t} is on a filesystem mounted read-only\n",
            t = target.display()
        )
    );
    assert!(!out.exists());
}

/// Issue 13 item 7: the backing file of a mounted loop device is refused as a target that the run writes, like
/// the busy device itself (`/sys/block/loopN/loop/backing_file`, compared by device and inode): exit 2, the
/// loop device and its mount point named, the file unchanged. A run that only reads it is allowed.
#[test]
fn the_backing_file_of_a_mounted_loop_device_is_refused() {
    let test = "hold::the_backing_file_of_a_mounted_loop_device_is_refused";
    if Command::new("mkfs.ext4").arg("-V").output().is_err() {
        return skip(test, "no mkfs.ext4 (e2fsprogs)");
    }
    let d = tempdir();
    let Some((dev, _lock)) = loop_dev(test, d.path(), 16) else {
        return;
    };
    let Some(m) = ext4_mounted(test, &dev.dev, &d.path().join("mnt")) else {
        return;
    };
    let before = sha256_hex(&read(&dev.backing));
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    let (o, out) = run_spec(d.path(), "backing", write, &dev.backing, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    let (b, n) = (dev.backing.display(), dev.dev.display());
    assert_eq!(
        err,
        format!(
            "error: refusing to write to {b}: it is the backing file of {n}, and {n} is mounted at {}\n",
            m.dir.display()
        )
    );
    assert!(!out.exists());
    assert_eq!(
        sha256_hex(&read(&dev.backing)),
        before,
        "the backing file changed"
    );
    let read_only =
        "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nduration = \"200ms\"\n";
    let (o, _) = run_spec(d.path(), "backing", read_only, &dev.backing, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "a run that only reads: {err}");
    drop(m);
}

/// A loop device over the storage of a mounted one is that mounted filesystem's storage (found by the attack
/// session: both were written, the filesystem destroyed): another loop device of the mounted device's backing
/// file, and a loop device of the mounted device itself, are refused with `--allow-destroy`, exit 2, naming
/// what lies under them and the mount; the backing file unchanged. A run that only reads is allowed.
#[test]
fn a_loop_device_over_a_mounted_devices_storage_is_refused() {
    let test = "hold::a_loop_device_over_a_mounted_devices_storage_is_refused";
    if Command::new("mkfs.ext4").arg("-V").output().is_err() {
        return skip(test, "no mkfs.ext4 (e2fsprogs)");
    }
    let d = tempdir();
    let Some((dev, _lock)) = loop_dev(test, d.path(), 16) else {
        return;
    };
    let mkfs = Command::new("mkfs.ext4")
        .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
        .arg(&dev.dev)
        .status()
        .expect("run mkfs.ext4");
    assert!(mkfs.success());
    let m = match Mount::new(
        d.path().join("mnt"),
        &["-t", "ext4", dev.dev.to_str().unwrap()],
    ) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let (sibling, stacked) = match (LoopOver::new(&dev.backing), LoopOver::new(&dev.dev)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => return skip(test, &why),
    };
    let _ = Command::new("sync").status();
    let before = sha256_hex(&read(&dev.backing));
    let backing = fs::canonicalize(&dev.backing).unwrap();
    let (n, mnt) = (dev.dev.display(), m.dir.display());
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    for (target, why) in [
        (
            &sibling.dev,
            format!(
                "it is a loop device of {}, which is also the backing file of {n}, and {n} is mounted at {mnt}",
                backing.display()
            ),
        ),
        (
            &stacked.dev,
            format!("it is a loop device of {n}, and {n} is mounted at {mnt}"),
        ),
    ] {
        let t = target.to_str().unwrap();
        let (o, out) = run_spec(d.path(), "under", write, target, &["--allow-destroy", t]);
        let (code, _, err) = code_out_err(&o);
        assert_eq!(
            (code, err),
            (2, format!("error: refusing to write to {t}: {why}\n"))
        );
        assert!(!out.exists());
    }
    assert_eq!(
        sha256_hex(&read(&dev.backing)),
        before,
        "the backing file changed"
    );
    let read_only =
        "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nduration = \"200ms\"\n";
    let (o, _) = run_spec(d.path(), "under", read_only, &sibling.dev, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "a run that only reads: {err}");
    drop((sibling, stacked));
    drop(m);
}

/// Loop devices stacked on loop devices are followed upward to the one in use (found by the attack session:
/// only one level was, and a run wrote into the storage of a mounted filesystem): a file under two loop
/// devices, the top one mounted, and the lowest of three stacked devices, with `--allow-destroy`, are refused:
/// exit 2, the chain named to the mount, no output folder, the backing file unchanged.
#[test]
fn storage_under_stacked_loop_devices_in_use_is_refused() {
    let test = "hold::storage_under_stacked_loop_devices_in_use_is_refused";
    if Command::new("mkfs.ext4").arg("-V").output().is_err() {
        return skip(test, "no mkfs.ext4 (e2fsprogs)");
    }
    let d = tempdir();
    let Some((a, _lock)) = loop_dev(test, d.path(), 16) else {
        return;
    };
    let (b, c) = match LoopOver::new(&a.dev).and_then(|b| Ok((LoopOver::new(&b.dev)?, b))) {
        Ok((c, b)) => (b, c),
        Err(why) => return skip(test, &why),
    };
    let Some(m) = ext4_mounted(test, &c.dev, &d.path().join("mnt")) else {
        return;
    };
    let before = sha256_hex(&read(&a.backing));
    let (an, bn, cn, mnt) = (
        a.dev.display(),
        b.dev.display(),
        c.dev.display(),
        m.dir.display(),
    );
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    let file = a.backing.to_str().unwrap();
    let dev = a.dev.to_str().unwrap();
    for (target, extra, why) in [
        (
            file,
            vec![],
            format!(
                "it is the backing file of {an}, which is the backing file of {bn}, which is the backing file of {cn}, and {cn} is mounted at {mnt}"
            ),
        ),
        (
            dev,
            vec!["--allow-destroy", dev],
            format!(
                "it is the backing file of {bn}, which is the backing file of {cn}, and {cn} is mounted at {mnt}"
            ),
        ),
    ] {
        let (o, out) = run_spec(d.path(), "stacked", write, Path::new(target), &extra);
        let (code, _, err) = code_out_err(&o);
        assert_eq!(
            (code, err),
            (2, format!("error: refusing to write to {target}: {why}\n"))
        );
        assert!(!out.exists(), "{target}: an output folder was made");
    }
    assert_eq!(
        sha256_hex(&read(&a.backing)),
        before,
        "the backing file changed"
    );
    drop(m);
    drop((c, b));
}

/// A swap file in use is refused as a target that the run writes, and so is a loop device over it (found by
/// the attack session: the output folder was made and the phase failed with "Text file busy", exit 1): exit 2,
/// no output folder, the file unchanged.
#[test]
fn a_swap_file_in_use_is_refused() {
    let test = "hold::a_swap_file_in_use_is_refused";
    if !is_root() {
        return skip(test, "not running as root: swapon needs root");
    }
    let d = tempdir();
    let sw = d.path().join("sw.img");
    patterned_file(&sw, 16 << 20);
    fs::set_permissions(&sw, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    match Command::new("mkswap").arg(&sw).output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return skip(
                test,
                &format!(
                    "mkswap failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            );
        }
        Err(e) => return skip(test, &format!("no mkswap (util-linux): {e}")),
    }
    let swap = match Swap::on(&sw) {
        Ok(s) => s,
        Err(why) => return skip(test, &why),
    };
    let before = sha256_hex(&read(&sw));
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    let (o, out) = run_spec(d.path(), "swap", write, &sw, &["--set", "direct=false"]);
    let (code, _, err) = code_out_err(&o);
    let shown = sw.display();
    assert_eq!(
        (code, err),
        (
            2,
            format!(
                "error: refusing to write to {shown}: it is in use as swap (swapoff it first)\n"
            )
        )
    );
    assert!(!out.exists(), "an output folder was made");
    let _lock = loop_guard();
    let over = match LoopOver::new(&sw) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let l = over.dev.to_str().unwrap();
    let (o, out) = run_spec(d.path(), "swap", write, &over.dev, &["--allow-destroy", l]);
    let (code, _, err) = code_out_err(&o);
    let real = fs::canonicalize(&sw).unwrap();
    assert_eq!(
        (code, err),
        (
            2,
            format!(
                "error: refusing to write to {l}: it is a loop device of {}, which is in use as swap (swapoff it first)\n",
                real.display()
            )
        )
    );
    assert!(!out.exists(), "an output folder was made");
    assert_eq!(sha256_hex(&read(&sw)), before, "the swap file changed");
    drop(over);
    drop(swap);
}

/// A file in use as swap for one test; `swapoff` on drop.
struct Swap(PathBuf);

impl Swap {
    fn on(path: &Path) -> Result<Swap, String> {
        let o = Command::new("swapon")
            .arg(path)
            .output()
            .map_err(|e| format!("no swapon (util-linux): {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "swapon failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Ok(Swap(path.to_path_buf()))
    }
}

impl Drop for Swap {
    fn drop(&mut self) {
        let _ = Command::new("swapoff").arg(&self.0).status();
    }
}

/// A file target is claimed for the run (an advisory flock: exclusive when the run writes): while a run that
/// writes holds it, a second run on the same file, writing or only reading, and by another path (a symbolic
/// link), is refused: exit 2, the holder's pid named, no output folder, nothing on stdout. After the first run the file is free:
/// a run that only reads it completes.
#[test]
fn a_file_target_is_claimed_for_the_run() {
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, 4 << 20);
    std::os::unix::fs::symlink(&target, d.path().join("link.img")).unwrap();
    let (mut child, out) = spawn(d.path(), THREE_PHASES, &target, &[]);
    wait_for_phases(&mut child, &out, 1);
    let pid = child.id();
    let reader =
        "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nsize = \"1MiB\"\n";
    write_file(d.path(), "read.toml", &spec_text("reader", reader));
    for (spec, path, does) in [
        ("spec.toml", "t.img", "reads or writes"),
        ("read.toml", "link.img", "writes"),
    ] {
        let second = d.path().join(format!("second-{spec}"));
        let s = second.to_str().unwrap();
        let (code, stdout, err) =
            code_out_err(&wkrun(d.path(), &[spec, "--target", path, "-o", s]));
        assert_eq!(code, 2, "{spec} on {path}: {err}");
        // No `results: DIR` line for a run that never wrote there (issue 24, round 2).
        assert_eq!(stdout, "", "{spec} on {path}");
        assert_eq!(
            err.lines().last().unwrap_or(""),
            format!(
                "error: {path} is in use by another wkrun run (pid {pid}), which {does} it; nothing was written to it"
            ),
            "{spec} on {path}"
        );
        assert!(
            !second.exists(),
            "{spec} on {path}: an output folder was made"
        );
    }
    let (code, err) = finish(child);
    assert_eq!(code, 0, "{err}");
    let s = d.path().join("after");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "read.toml",
            "--target",
            "t.img",
            "-o",
            s.to_str().unwrap(),
            "-q",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(results(&s)["status"], "completed");
}

/// Issue 24 item 22: an immutable or append-only target file is refused before anything is written (exit
/// 2, naming the flag and how to lift it), where the run failed at its first write (exit 1); `wkrun plan`
/// notes it. A run that only reads it is allowed.
#[test]
fn an_immutable_or_append_only_target_file_is_refused_before_the_run() {
    let test = "hold::an_immutable_or_append_only_target_file_is_refused_before_the_run";
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, 4 << 20);
    let before = std::fs::read(&target).unwrap();
    let write =
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    let read =
        "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nsize = \"1MiB\"\n";
    for (flag, why) in [
        (
            "+i",
            "is immutable (chattr +i): no write to it can succeed; chattr -i to write it",
        ),
        (
            "+a",
            "is append-only (chattr +a): a write inside it cannot succeed; chattr -a to write it",
        ),
    ] {
        let set = Command::new("chattr").arg(flag).arg(&target).status();
        if !set.is_ok_and(|s| s.success()) {
            return skip(
                test,
                "chattr cannot set the flag here (root on ext4, xfs or btrfs)",
            );
        }
        let (o, out) = run_spec(d.path(), "prot", write, &target, &[]);
        let (code, _, err) = code_out_err(&o);
        let unset = flag.replace('+', "-");
        let _ = Command::new("chattr").arg(&unset).arg(&target).status();
        let t = target.display();
        assert_eq!(code, 2, "{flag}: {err}");
        assert_eq!(
            err,
            format!("error: refusing to write to {t}: {t} {why}\n"),
            "{flag}"
        );
        assert!(!out.exists(), "{flag}: an output folder was made");
        assert_eq!(
            std::fs::read(&target).unwrap(),
            before,
            "{flag}: the file changed"
        );
        // Reading it is allowed.
        Command::new("chattr")
            .arg(flag)
            .arg(&target)
            .status()
            .unwrap();
        let rd = d.path().join(format!("r{unset}"));
        std::fs::create_dir_all(&rd).unwrap();
        let (o, _) = run_spec(&rd, "prot", read, &target, &[]);
        let _ = Command::new("chattr").arg(&unset).arg(&target).status();
        let (code, _, err) = code_out_err(&o);
        assert_eq!(code, 0, "{flag}, reading: {err}");
    }
}

/// Issue 24 item 22: `wkrun plan` says that a file target is held by another run (which the run would be
/// refused for when it claims it), and `--allow-destroy` naming a path that does not exist says so.
#[test]
fn the_plan_notes_a_target_held_by_another_run() {
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, 4 << 20);
    let (mut child, out) = spawn(d.path(), THREE_PHASES, &target, &[]);
    wait_for_phases(&mut child, &out, 1);
    let pid = child.id();
    // Held still while the plan looks (under load the run's last 4 s could end before it does).
    signal(pid, "-STOP");
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &["plan", "spec.toml", "--target", "t.img"],
    ));
    signal(pid, "-CONT");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "note: t.img is in use by another wkrun run (pid {pid}): a run that writes it is refused"
        )),
        "{err}"
    );
    let (code, _) = finish(child);
    assert_eq!(code, 0);
    let args = [
        "plan",
        "spec.toml",
        "--target",
        "t.img",
        "--allow-destroy",
        "/dev/wkrun-none",
    ];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: the run would be refused: --allow-destroy names /dev/wkrun-none, which does not exist, and the target is t.img (a file)"),
        "{err}"
    );
}

/// The attack of issue 24's closing session: with several targets, one that another run holds was found
/// only when its target claimed it, after the others had started (exit 1, a folder without results, no
/// aggregate); now refused with the others' checks, before anything is written.
#[test]
fn a_held_file_among_several_targets_is_refused_before_anything_is_written() {
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, 4 << 20);
    patterned_file(&d.path().join("u.img"), 4 << 20);
    let (mut child, out) = spawn(d.path(), THREE_PHASES, &target, &[]);
    wait_for_phases(&mut child, &out, 1);
    let pid = child.id();
    let args = [
        "spec.toml",
        "--target",
        "u.img",
        "--target",
        "t.img",
        "-o",
        "second",
        "-q",
    ];
    signal(pid, "-STOP");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &args));
    signal(pid, "-CONT");
    let _ = finish(child);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.trim_end().starts_with(&format!(
            "error: t.img is in use by another wkrun run (pid {pid}): "
        )) && err
            .trim_end()
            .ends_with("; nothing was written to any target"),
        "{err}"
    );
    assert!(!d.path().join("second").exists());
}

/// Issue 24 leftovers: the same run under an open-file limit it would be refused by (12, where two targets
/// need 19 here: exit 1, results saying "failed"): the held target is bad input, checked first, exit 2,
/// nothing written.
#[test]
fn a_held_file_among_several_targets_is_refused_before_the_limits() {
    let test = "hold::a_held_file_among_several_targets_is_refused_before_the_limits";
    if Command::new("prlimit").arg("--version").output().is_err() {
        return skip(test, "prlimit (util-linux) is not installed");
    }
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, 4 << 20);
    let other = d.path().join("u.img");
    patterned_file(&other, 4 << 20);
    let (mut child, out) = spawn(d.path(), THREE_PHASES, &target, &[]);
    wait_for_phases(&mut child, &out, 1);
    let pid = child.id();
    let run = |out: &str| {
        Command::new("prlimit")
            .arg("--nofile=12:12")
            .arg(wkrun_bin())
            .args(["spec.toml", "--target", "u.img", "--target", "t.img"])
            .args(["-o", out, "-q"])
            .current_dir(d.path())
            .output()
            .expect("prlimit")
    };
    signal(pid, "-STOP");
    let (code, _, err) = code_out_err(&run("second"));
    signal(pid, "-CONT");
    let _ = finish(child);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: t.img is in use by another wkrun run (pid {pid}): a run that writes it is refused while that run goes on, and a run that reads it while that run writes it; nothing was written to any target\n"
        )
    );
    assert!(!d.path().join("second").exists());
    // Once that run ended, the limit refuses the run: exit 1.
    let (code, _, err) = code_out_err(&run("third"));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: a run on 2 targets needs up to 14 open files at once beside the "),
        "{err}"
    );
}

/// `wkrun spec.toml --target TARGET -o OUT -q` on a 60 s rate-capped workload, reading or writing (`read`;
/// a block device written with `--allow-destroy` naming it), started in `dir` and not waited for, once it
/// holds its target (its results.json is written).
fn hold_for_a_minute(dir: &Path, name: &str, read: bool, target: &Path) -> Child {
    let pct = if read { 100 } else { 0 };
    let body = format!(
        "[[phase]]\nname = \"h\"\nkind = \"workload\"\nread_percent = {pct}\nrate_iops = 200\nduration = \"60s\"\n"
    );
    write_file(dir, &format!("{name}.toml"), &spec_text(name, &body));
    let out = dir.join(name);
    let mut child = Command::new(wkrun_bin())
        .arg(format!("{name}.toml"))
        .arg("--target")
        .arg(target)
        .arg("-o")
        .arg(&out)
        .arg("-q")
        .args(
            fs::metadata(target)
                .is_ok_and(|m| {
                    !read && std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type())
                })
                .then(|| [Path::new("--allow-destroy"), target])
                .into_iter()
                .flatten(),
        )
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wkrun");
    wait_for_phases(&mut child, &out, 0);
    child
}

/// Ends a run of [`hold_for_a_minute`] with SIGINT: exit 130.
fn interrupt(child: Child) {
    signal(child.id(), "-INT");
    let (code, err) = finish(child);
    assert_eq!(code, 130, "{err}");
}

/// Attack 15 F3: a run on a loop device and a run on its backing file write the same storage. A run that
/// writes the file held it (flock), and a run on the loop device over it was not refused (the other order
/// was, the loop device being open exclusively). Now a run on a loop device claims its backing file as a
/// run on the file does: while a run writes the file, a run that writes the loop device is refused (exit
/// 2, naming the backing file and the run's pid; no output folder) and `wkrun plan` notes it; while a run
/// only reads the loop device (no exclusive open), a run that writes the file is refused the same way.
#[test]
fn a_loop_device_and_its_backing_file_are_claimed_together() {
    let test = "hold::a_loop_device_and_its_backing_file_are_claimed_together";
    let d = tempdir();
    let Some((lp, _lock)) = loop_dev(test, d.path(), 16) else {
        return;
    };
    let dev = lp.dev.to_str().unwrap().to_string();
    let file = fs::canonicalize(&lp.backing).unwrap();
    let b = "[[phase]]\nname = \"b\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
    write_file(d.path(), "b.toml", &spec_text("b", b));
    let a = hold_for_a_minute(d.path(), "a", false, &file);
    let held = format!(
        "{dev} is a loop device of {}, which is in use by another wkrun run (pid {})",
        file.display(),
        a.id()
    );
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["plan", "b.toml", "--target", &dev]));
    assert_eq!(code, 0, "{err}");
    let note = format!(
        "note: {held}: a run that writes it is refused while that run goes on, and a run that reads it while that run writes it"
    );
    assert!(err.lines().any(|l| l == note), "{err}");
    let run_b = [
        "b.toml",
        "--target",
        &dev,
        "--allow-destroy",
        &dev,
        "-o",
        "b",
    ];
    let (code, stdout, err) = code_out_err(&wkrun(d.path(), &run_b));
    assert_eq!(
        (code, stdout.as_str(), err.as_str()),
        (
            2,
            "",
            format!("error: {held}, which reads or writes it; nothing was written to it\n")
                .as_str()
        )
    );
    assert!(!d.path().join("b").exists(), "an output folder was made");
    interrupt(a);
    // The other order: a run that only reads the loop device does not open it exclusively.
    let c = hold_for_a_minute(d.path(), "c", true, &lp.dev);
    let run_f = ["b.toml", "--target", file.to_str().unwrap(), "-o", "f"];
    let (code, _, err) = code_out_err(&wkrun(d.path(), &run_f));
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            format!(
                "error: {} is in use by another wkrun run (pid {}), which reads or writes it; nothing was written to it\n",
                file.display(),
                c.id()
            )
            .as_str()
        )
    );
    assert!(!d.path().join("f").exists(), "an output folder was made");
    interrupt(c);
}

/// The granted flocks on `file` in /proc/locks: (kind, pid) of each, `("WRITE", 4242)`.
fn flocks_on(file: &Path) -> Vec<(String, u32)> {
    let m = fs::metadata(file).unwrap();
    let (dev, ino) = (
        std::os::unix::fs::MetadataExt::dev(&m),
        std::os::unix::fs::MetadataExt::ino(&m),
    );
    let id = format!("{:02x}:{:02x}:{ino}", libc::major(dev), libc::minor(dev));
    let locks = fs::read_to_string("/proc/locks").unwrap();
    locks
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let on_file = f.get(5) == Some(&id.as_str());
            (f.get(1) == Some(&"FLOCK") && on_file)
                .then(|| (f[3].to_string(), f[4].parse().unwrap()))
        })
        .collect()
}

/// A 16 MiB file in `dir` with two partitions, 2 MiB and `p2_sectors` sectors, under a loop device, and the
/// file's real path; `None` after printing why the test skips.
fn two_partitions(test: &str, dir: &Path, p2_sectors: u64) -> Option<(PartedLoop, PathBuf)> {
    let table = format!("start=2048, size=4096\nstart=8192, size={p2_sectors}\n");
    match PartedLoop::new(dir, "two.img", 16, &table, 2) {
        Ok(lp) => {
            let file = fs::canonicalize(&lp.backing).unwrap();
            Some((lp, file))
        }
        Err(why) => {
            skip(test, &why);
            None
        }
    }
}

/// The write I/Os of phase 0 in `dir/results.json`, and its status.
fn writes_and_status(dir: &Path) -> (u64, String) {
    let r = results(dir);
    (
        r["phases"][0]["write"]["ops"].as_u64().unwrap(),
        r["status"].as_str().unwrap().to_string(),
    )
}

/// Issue 16 (lock16): two partitions of one loop device lie on one backing file. A run writing both claimed
/// the file per target: the second target's claim passed as the run's own, and the claim ended with the
/// target that had taken it. With p1 a quarter of p2, p1's target ended first and released the file while
/// p2 was still written: a second run writing p1 then got exit 0 (16 writes) in the middle of the first.
/// Now the run claims the file once, before anything is made, exclusively (one WRITE flock in /proc/locks,
/// the run's pid), until every target has ended. Runs of their own on the partitions follow the file's
/// rule (writing runs must not share a device): a run that writes p2 is refused while a run reads p1,
/// naming it as a partition and the reading run's pid; a run that reads p2 shares the file with it.
#[test]
fn two_partitions_of_one_loop_device_are_claimed_once_for_the_run() {
    let test = "hold::two_partitions_of_one_loop_device_are_claimed_once_for_the_run";
    let d = tempdir();
    let d = d.path();
    let _g = loop_guard();
    // p1 2 MiB, p2 8 MiB.
    let Some((lp, file)) = two_partitions(test, d, 16384) else {
        return;
    };
    let (p1, p2) = (lp.parts[0].as_str(), lp.parts[1].as_str());
    // Every block once at 50 IOPS: 32 writes on p1 (0.64 s), 128 on p2 (2.56 s).
    let both = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"psync\"\nread_percent = 0\nblock_size = \"64KiB\"\npattern = \"sequential\"\nsize = \"100%\"\nrate_iops = 50\n";
    write_file(d, "both.toml", &spec_text("both", both));
    let small = "[[phase]]\nname = \"s\"\nkind = \"workload\"\nengine = \"psync\"\nread_percent = {pct}\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n";
    write_file(d, "w.toml", &spec_text("w", &small.replace("{pct}", "0")));
    write_file(d, "r.toml", &spec_text("r", &small.replace("{pct}", "100")));
    let mut a = Command::new(wkrun_bin())
        .args(["both.toml", "-q", "-o", "a", "--target", p1, "--target", p2])
        .args(["--allow-destroy", p1, "--allow-destroy", p2])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wkrun");
    // Until p1's target has ended: its results completed and p1 no longer open exclusively.
    let deadline = Instant::now() + Duration::from_secs(20);
    let first = loop {
        let done = fs::read_dir(d.join("a"))
            .into_iter()
            .flatten()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("t0-"))
            .map(|e| e.path())
            .filter(|t0| phases_done(t0) == Some(1) && exclusive_open(Path::new(p1)).is_none());
        if let Some(t0) = done {
            break t0;
        }
        assert!(
            a.try_wait().unwrap().is_none(),
            "the run ended before its first target was seen done"
        );
        assert!(Instant::now() < deadline, "p1's target not done in 20 s");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(writes_and_status(&first), (32, "completed".to_string()));
    assert_eq!(flocks_on(&file), [("WRITE".to_string(), a.id())]);
    assert_eq!(flocks_on(&lp.dev), [("WRITE".to_string(), a.id())]);
    // The disk's claim is taken before the file's, and refuses first.
    let disk = lp.dev.display();
    let held = |p: &str, pid: u32| {
        format!("{p} is a partition of {disk}, which is in use by another wkrun run (pid {pid})")
    };
    // A run writing partition `p` into folder `o`: refused while the run `pid` holds the file.
    let refused = |p: &str, o: &str, pid: u32| {
        let args = ["w.toml", "-q", "-o", o, "--target", p, "--allow-destroy", p];
        let (code, out, err) = code_out_err(&wkrun(d, &args));
        let want = format!(
            "error: {}, which reads or writes it; nothing was written to it\n",
            held(p, pid)
        );
        assert_eq!((code, out.as_str(), err), (2, "", want));
        assert!(!d.join(o).exists(), "an output folder was made");
    };
    refused(p1, "b", a.id());
    assert!(
        a.try_wait().unwrap().is_none(),
        "p2's target ended before the refusal was tried"
    );
    let (code, err) = finish(a);
    assert_eq!(code, 0, "{err}");
    let second = d.join("a").join(
        fs::read_dir(d.join("a"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .find(|n| n.to_string_lossy().starts_with("t1-"))
            .unwrap(),
    );
    assert_eq!(writes_and_status(&second), (128, "completed".to_string()));
    assert_eq!(flocks_on(&file), []);
    // Runs of their own: one reads p1 while another would write p2, or reads it.
    let r = hold_for_a_minute(d, "h", true, Path::new(p1));
    assert_eq!(flocks_on(&file), [("READ".to_string(), r.id())]);
    assert_eq!(flocks_on(&lp.dev), [("READ".to_string(), r.id())]);
    let (code, _, err) = code_out_err(&wkrun(d, &["plan", "w.toml", "--target", p2]));
    assert_eq!(code, 0, "{err}");
    let note = format!(
        "note: {}: a run that writes it is refused while that run goes on, and a run that reads it while that run writes it",
        held(p2, r.id())
    );
    assert!(err.lines().any(|l| l == note), "{err}");
    refused(p2, "c", r.id());
    let (code, _, err) = code_out_err(&wkrun(d, &["r.toml", "-q", "-o", "e", "--target", p2]));
    assert_eq!(code, 0, "{err}");
    let e = results(&d.join("e"));
    assert_eq!(
        (e["phases"][0]["read"]["ops"].as_u64(), e["status"].as_str()),
        (Some(16), Some("completed"))
    );
    interrupt(r);
    drop(lp);
}

/// The claims of one run on several targets (`target::open::Claims`), through the library: the file under
/// two partitions of one loop device is claimed once with the strongest access any target needs (a target
/// that reads and one that writes: one WRITE flock; two that read: one READ flock), the targets' holds
/// take no lock of their own, and dropping the claims ends them.
#[test]
fn the_claims_of_a_run_take_each_backing_file_once_with_the_strongest_access() {
    use wkrun::target::open::{Claims, Held, HoldError};
    let test = "hold::the_claims_of_a_run_take_each_backing_file_once_with_the_strongest_access";
    let d = tempdir();
    let d = d.path();
    let _g = loop_guard();
    let Some((lp, file)) = two_partitions(test, d, 4096) else {
        return;
    };
    let probe = |p: &str| wkrun::target::probe(Path::new(p), 0).unwrap();
    let (p1, p2) = (probe(&lp.parts[0]), probe(&lp.parts[1]));
    let me = std::process::id();
    // The file under the loop device and the loop device's own node (the disk), each claimed once.
    let both = |kind: &str| {
        assert_eq!(flocks_on(&file), [(kind.to_string(), me)]);
        assert_eq!(flocks_on(&lp.dev), [(kind.to_string(), me)]);
    };
    let claims = Claims::take(&[(&p1, false), (&p2, true)]).unwrap();
    both("WRITE");
    let h1 = Held::open_in(&p1, false, &claims).unwrap();
    let h2 = Held::open_in(&p2, true, &claims).unwrap();
    both("WRITE");
    drop((h1, h2));
    both("WRITE");
    drop(claims);
    assert_eq!((flocks_on(&file), flocks_on(&lp.dev)), (vec![], vec![]));
    let claims = Claims::take(&[(&p1, false), (&p2, false)]).unwrap();
    both("READ");
    drop(claims);
    assert_eq!((flocks_on(&file), flocks_on(&lp.dev)), (vec![], vec![]));
    // A second open by a run that holds its target (the NVMe write cache's control) takes no claim: with
    // claims it would meet the run's own on another open file, and be refused.
    let held = Held::open(&p1, true).unwrap();
    both("WRITE");
    let again = Held::open(&p1, false).unwrap_err();
    assert!(matches!(again, HoldError::InUse(_)), "{again:?}");
    let control = Held::open_unclaimed(&p1, false).unwrap();
    both("WRITE");
    drop((held, control));
    assert_eq!((flocks_on(&file), flocks_on(&lp.dev)), (vec![], vec![]));
    drop(lp);
}

/// Issue lock19: runs on two partitions of one disk that is not a loop device were not refused (each
/// partition opened O_EXCL, nothing tying them). A run on a block device now claims its whole disk (a
/// flock on the disk's node, found through sysfs), exclusively when it writes; a loop device stands in
/// for the disk here, its disk claim taken before its file's, so refusals name the disk. While a run
/// writes p1: a run writing p2 is refused (exit 2, the disk and the pid, no output folder), and so is one
/// writing the whole disk (the kernel's exclusive open fails too; the message names the run). While a
/// run reads p1, a run writing the whole disk is refused by the claim alone. While a run writes the whole
/// disk, a run writing p2 is refused naming it.
#[test]
fn runs_on_partitions_of_one_disk_claim_the_disk() {
    let test = "hold::runs_on_partitions_of_one_disk_claim_the_disk";
    let d = tempdir();
    let d = d.path();
    let _g = loop_guard();
    let Some((lp, _file)) = two_partitions(test, d, 4096) else {
        return;
    };
    let (p1, p2, disk) = (
        lp.parts[0].as_str(),
        lp.parts[1].as_str(),
        lp.dev.to_str().unwrap(),
    );
    let w = "[[phase]]\nname = \"s\"\nkind = \"workload\"\nread_percent = 0\nblock_size = \"4KiB\"\nsize = \"64KiB\"\n";
    write_file(d, "w.toml", &spec_text("w", w));
    // A run writing `target` into folder `o`: exit 2 with `why`, and no output folder.
    let refused = |target: &str, o: &str, why: String| {
        let args = [
            "w.toml",
            "-q",
            "-o",
            o,
            "--target",
            target,
            "--allow-destroy",
            target,
        ];
        let (code, out, err) = code_out_err(&wkrun(d, &args));
        assert_eq!(
            (code, out.as_str(), err),
            (2, "", format!("error: {why}\n"))
        );
        assert!(!d.join(o).exists(), "an output folder was made");
    };
    let busy = "is in use (an exclusive open fails: Device or resource busy (os error 16))";
    let a = hold_for_a_minute(d, "a", false, Path::new(p1));
    assert_eq!(flocks_on(&lp.dev), [("WRITE".to_string(), a.id())]);
    let pid = a.id();
    refused(
        p2,
        "b",
        format!(
            "{p2} is a partition of {disk}, which is in use by another wkrun run (pid {pid}), which reads or writes it; nothing was written to it"
        ),
    );
    refused(
        disk,
        "c",
        format!(
            "refusing to write to {disk}: {disk} {busy}; another wkrun run (pid {pid}) holds it or a partition of it"
        ),
    );
    interrupt(a);
    assert_eq!(flocks_on(&lp.dev), []);
    let r = hold_for_a_minute(d, "r", true, Path::new(p1));
    let pid = r.id();
    refused(
        disk,
        "e",
        format!(
            "{disk} is in use by another wkrun run (pid {pid}), which reads or writes it; nothing was written to it"
        ),
    );
    interrupt(r);
    let a = hold_for_a_minute(d, "f", false, &lp.dev);
    let pid = a.id();
    refused(
        p2,
        "g",
        format!(
            "refusing to write to {p2}: {p2} {busy}; {p2} is a partition of {disk}, which is in use by another wkrun run (pid {pid})"
        ),
    );
    interrupt(a);
    drop(lp);
}

/// Left from attack 24 F10, with the real fio (skipped without it): a plain file target that fio is writing
/// is refused for a run that writes, exit 2, naming fio's pid and the file, nothing written (no output
/// folder); `wkrun plan` notes that the run would be refused; a run that only reads goes on; once fio has
/// ended, the same run writes.
#[test]
fn a_file_fio_is_writing_is_refused() {
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip("hold::a_file_fio_is_writing_is_refused", &why);
    }
    let d = tempdir();
    let p = d.path();
    let img = p.join("t.img");
    sparse_file(&img, 16 * MIB);
    // `--thread`: fio's job runs in its own process's thread, so its descriptor is that process's.
    let mut fio = Command::new("fio")
        .args([
            "--name=w",
            "--filename=t.img",
            "--size=16m",
            "--rw=randwrite",
        ])
        .args([
            "--bs=4k",
            "--rate_iops=50",
            "--time_based",
            "--runtime=60",
            "--thread",
        ])
        .current_dir(p)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fio");
    let pid = fio.id();
    let holds = || {
        fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            (fds.flatten()).any(|e| fs::read_link(e.path()).is_ok_and(|l| l == img))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !holds() {
        assert!(
            Instant::now() < deadline,
            "fio did not open {}",
            img.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let phase = |name: &str, reads: u32| {
        let body = format!(
            "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nread_percent = {reads}\nduration = \"1s\"\n"
        );
        write_file(p, &format!("{name}.toml"), &spec_text(name, &body));
    };
    phase("w", 0);
    phase("r", 100);
    let shown = img.display();
    let run = |spec: &str, out: &str| {
        code_out_err(&wkrun(p, &[spec, "--target", "t.img", "-o", out, "-q"]))
    };
    let (code, _, err) = run("w.toml", "ow");
    assert_eq!(code, 2, "{err}");
    let held = format!(
        "refusing to write to t.img: it is open in another program: pid {pid} (fio) has {shown} open"
    );
    assert!(err.contains(&held), "{held:?} in\n{err}");
    assert!(!p.join("ow").exists(), "{err}");
    let (code, _, err) = code_out_err(&wkrun(p, &["plan", "w.toml", "--target", "t.img"]));
    assert_eq!(code, 0, "{err}");
    let note = format!(
        "the run would be refused: refusing to write to t.img: it is open in another program: pid {pid} (fio)"
    );
    assert!(
        err.contains(&format!("note: {note}")),
        "{note:?} in
{err}"
    );
    let (code, _, err) = run("r.toml", "or");
    assert_eq!(code, 0, "{err}");
    let _ = fio.kill();
    let _ = fio.wait();
    let (code, _, err) = run("w.toml", "ow");
    assert_eq!(code, 0, "{err}");
}
