//! Target paths that name no storage (issue 24 items 13, 17 and 18; issue 27 item 6): a path in /dev that does
//! not exist (a device name typed wrong), a file of sysfs, procfs or another pseudo file system of the
//! kernel, and a simulated drive misspelt (`SIM:`) or malformed (an empty item, a space). Each is refused by
//! `wkrun plan` and by a run with exit 2 and one line naming what is wrong, and nothing is created anywhere:
//! no file in /dev, no output folder, no file named like the simulated drive.

use crate::common::*;
use std::fs;
use std::path::Path;

/// A one-phase fill of a 1 MiB file target: what the refused runs would have done.
const FILL: &str = "[target]\nsize = \"1MiB\"\n[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"256KiB\"\n";

/// `wkrun plan s.toml --target TARGET` and `wkrun s.toml --target TARGET -o out` in `d` (holding only
/// `s.toml`): both exit 2 with `error: WANT` as the last line of stderr, and `d` still holds only `s.toml`.
fn refused(d: &Path, target: &str, want: &str) {
    let before = dir_listing(d);
    for args in [
        vec!["plan", "s.toml", "--target", target],
        vec!["s.toml", "--target", target, "-o", "out"],
    ] {
        let (code, _, err) = code_out_err(&wkrun(d, &args));
        assert_eq!(code, 2, "wkrun {args:?}: {err}");
        assert_eq!(
            err.lines().last(),
            Some(format!("error: {want}").as_str()),
            "wkrun {args:?}"
        );
        assert_eq!(dir_listing(d), before, "wkrun {args:?} wrote nothing");
    }
}

/// Regular files at these paths in /dev, removed on drop: what a regression would leave there.
struct NoFilesLeft(Vec<String>);

impl Drop for NoFilesLeft {
    fn drop(&mut self) {
        for p in &self.0 {
            if fs::symlink_metadata(p).is_ok_and(|m| m.is_file()) {
                let _ = fs::remove_file(p);
            }
        }
    }
}

/// Item 13: `--target /dev/nosuchdisk` used to create and fill a 1 MiB regular file in /dev. A missing path in
/// /dev is refused, naming the block device whose name is closest (a loop device made for the test, one
/// letter away); /dev/shm, a file system of its own, still takes a new file target.
#[test]
fn a_dev_path_that_does_not_exist_is_refused_naming_the_closest_device() {
    let test = "wrong_target::a_dev_path_that_does_not_exist_is_refused_naming_the_closest_device";
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("nd", FILL));
    let missing = "/dev/wkrun-nosuchdisk";
    let mut cleanup = NoFilesLeft(vec![missing.to_string()]);
    let (code, _, err) = code_out_err(&wkrun(d, &["s.toml", "--target", missing, "-o", "out"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(&format!(
            "error: {missing} does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); "
        )),
        "{err}"
    );
    assert!(!Path::new(missing).exists(), "a file was made in /dev");
    assert!(!d.join("out").exists(), "an output folder was made");

    let _g = loop_guard();
    let dev = match LoopDev::new(d, 1, 512) {
        Ok(dev) => dev,
        Err(why) => return skip(test, &why),
    };
    // "/dev/lop3" for /dev/loop3: one letter from it, two or more from every other device.
    let name = dev.sys_name();
    let typo = format!("/dev/{}", name.replacen("loop", "lop", 1));
    cleanup.0.push(typo.clone());
    refused(
        d,
        &typo,
        &format!(
            "{typo} does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); the closest block device is /dev/{name} (lsblk lists them); nothing was created"
        ),
    );
    assert!(!Path::new(&typo).exists(), "{typo} was made");
    drop(dev);

    // /dev/shm is tmpfs of its own (where it is mounted so): a file there is a file target as anywhere.
    let shm = Path::new("/dev/shm");
    let own_fs = |p: &Path| fs::metadata(p).map(|m| std::os::unix::fs::MetadataExt::dev(&m));
    if own_fs(shm).is_ok() && own_fs(shm).ok() != own_fs(Path::new("/dev")).ok() {
        let t = format!("/dev/shm/wkrun-test-{}.img", std::process::id());
        let plan = plan_json(d, Path::new("s.toml"), Path::new(&t), &[]);
        assert_eq!(plan["target"]["kind"], "file");
        assert_eq!(plan["target"]["created"], true);
        assert!(!Path::new(&t).exists(), "plan made {t}");
    }
}

/// `--target /dev/nvme0n9` on a host without NVMe named "the closest block device is /dev/loop0p1", an
/// unrelated device: a device is suggested only when its name is close (at most one edit in three
/// characters); else the message says so and names lsblk.
#[test]
fn a_typo_far_from_every_device_name_suggests_none() {
    let test = "wrong_target::a_typo_far_from_every_device_name_suggests_none";
    let nvme = fs::read_dir("/dev")
        .map(|r| {
            r.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("nvme"))
        })
        .unwrap_or(true);
    if nvme {
        return skip(test, "this host has an NVMe device node in /dev");
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("nd", FILL));
    let typo = "/dev/nvme0n9";
    let _cleanup = NoFilesLeft(vec![typo.to_string()]);
    refused(
        d,
        typo,
        &format!(
            "{typo} does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); no block device in /dev has a name close to it (lsblk lists them); nothing was created"
        ),
    );
}

/// Item 17: a sysfs attribute or a /proc file passed as a regular-file target (the run wrote random data into
/// `/sys/block/zram6/comp_algorithm`); refused from the file system's statfs magic, the attribute unchanged; a
/// new file in a sysfs folder is refused the same way.
#[test]
fn a_pseudo_file_of_sysfs_or_procfs_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("pseudo", FILL));
    let msg = |p: &str, fs: &str| {
        format!(
            "{p} is on {fs}, a pseudo file system of the kernel: its files are the kernel's settings and state, not storage, so it cannot be a target; nothing was written to it"
        )
    };
    let attr = fs::read_dir("/sys/block")
        .expect("/sys/block")
        .flatten()
        .map(|e| e.path().join("queue/read_ahead_kb"))
        .find(|p| p.exists())
        .expect("a block device with queue/read_ahead_kb");
    let attr = attr.to_str().expect("utf-8 sysfs path");
    let value = fs::read_to_string(attr).expect("read the attribute");
    refused(d, attr, &msg(attr, "sysfs"));
    assert_eq!(fs::read_to_string(attr).expect("read again"), value);
    refused(d, "/proc/self/status", &msg("/proc/self/status", "procfs"));
    // The kernel's zero-length /proc files too (once told "the target is empty").
    refused(
        d,
        "/proc/sys/vm/swappiness",
        &msg("/proc/sys/vm/swappiness", "procfs"),
    );
    refused(
        d,
        "/sys/kernel/wkrun-new.img",
        &msg("/sys/kernel/wkrun-new.img", "sysfs"),
    );
    assert!(!Path::new("/sys/kernel/wkrun-new.img").exists());
}

/// Item 18: `SIM:capacity=1GiB` (the prefix in another case) created and filled a 1 GiB file of that name;
/// an empty item (`,,`, a trailing comma) and an item with a space were taken as if absent, though the docs
/// say malformed items are refused. `./SIM:...` is a file of that name, as the hint says.
#[test]
fn a_misspelt_or_malformed_simulated_drive_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("sim", FILL));
    refused(
        d,
        "SIM:capacity=1GiB",
        "--target \"SIM:capacity=1GiB\": a simulated drive is named with sim: in lower case (sim:capacity=1GiB); for a file really named so, write ./SIM:capacity=1GiB",
    );
    refused(
        d,
        "Sim:",
        "--target \"Sim:\": a simulated drive is named with sim: in lower case (sim:); for a file really named so, write ./Sim:",
    );
    let empty = "an empty item (two commas in a row, or a comma at the start or the end); write key=value items separated by single commas (e.g. sim:capacity=2GiB,op=7%)";
    for t in [
        "sim:capacity=1GiB,,op=7%",
        "sim:capacity=1GiB,",
        "sim:,capacity=1GiB",
    ] {
        refused(d, t, &format!("--target {t}: {empty}"));
    }
    refused(
        d,
        "sim: capacity=1GiB",
        "--target \"sim: capacity=1GiB\": \" capacity=1GiB\" holds a space; write key=value items separated by commas, without spaces (e.g. sim:capacity=2GiB,op=7%)",
    );
    refused(
        d,
        "sim:capacity=1GiB,op =7%",
        "--target \"sim:capacity=1GiB,op =7%\": \"op =7%\" holds a space; write key=value items separated by commas, without spaces (e.g. sim:capacity=2GiB,op=7%)",
    );
    let sim = plan_json(
        d,
        Path::new("s.toml"),
        Path::new("sim:capacity=1GiB,op=7%"),
        &[],
    );
    assert_eq!(sim["target"]["kind"], "sim");
    let file = plan_json(
        d,
        Path::new("s.toml"),
        Path::new("./SIM:capacity=1GiB"),
        &[],
    );
    assert_eq!(file["target"]["kind"], "file");
    assert_eq!(file["target"]["capacity_bytes"], 1 << 20);
    // The attack's other forms (each once a 1 GiB file in the current folder): white space around the
    // name, `sim` with another separator, the drive's items alone.
    let looks = "it looks like a simulated drive's parameters, which are written sim:KEY=VALUE,... (sim:capacity=2GiB,op=7%)";
    for (t, why) in [
        (
            " sim:capacity=1GiB",
            "the name begins or ends with white space (a simulated drive is sim:KEY=VALUE,...)",
        ),
        ("sim :capacity=1GiB", looks),
        ("sim=capacity=1GiB", looks),
        ("sim.capacity=1GiB", looks),
        ("capacity=1GiB,op=7%", looks),
    ] {
        refused(
            d,
            t,
            &format!("--target {t:?}: {why}; for a file really named so, write ./{t}"),
        );
    }
}

/// The attack of issue 24's closing session: /dev's own file system seen through a bind mount (a chroot's or
/// a container's /dev) is /dev all the same: no file target is made there; a tmpfs without a size limit
/// (which reports no blocks) is no full disk: a target and an output folder on it are accepted.
#[test]
fn dev_through_a_bind_mount_is_refused_and_an_unlimited_tmpfs_is_not_full() {
    let test =
        "wrong_target::dev_through_a_bind_mount_is_refused_and_an_unlimited_tmpfs_is_not_full";
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("sim", FILL));
    let devb = match Mount::new(d.join("devb"), &["--bind", "/dev"]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let _gone = NoFilesLeft(vec!["/dev/wkrun-bind-test".into()]);
    let t = devb.dir.join("wkrun-bind-test");
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &["plan", "s.toml", "--target", t.to_str().unwrap()],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("wkrun-bind-test"), "{err}");
    assert!(
        !Path::new("/dev/wkrun-bind-test").exists(),
        "a file was made in /dev"
    );
    drop(devb);
    let big = match Mount::new(d.join("big"), &["-t", "tmpfs", "-o", "size=0", "tmpfs"]) {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let t = big.dir.join("t.img");
    let out = big.dir.join("out");
    let args = [
        "s.toml",
        "--target",
        t.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ];
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
}

/// A `--target` or `--output` path that is not UTF-8 is refused (exit 2, its bytes shown escaped, nothing
/// written): read as text it named another file, and a run once wrote into `t\u{fffd}.img`, which existed,
/// when `t\xff.img` was named (found by the attack of issue 24).
#[test]
fn a_path_that_is_not_utf8_is_refused_not_read_as_another() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = tempdir();
    write_file(
        d.path(),
        "s.toml",
        &spec_text("u", "[[phase]]\nname = \"f\"\nkind = \"fill\"\n"),
    );
    let other = d.path().join("t\u{fffd}.img");
    fs::write(&other, vec![7u8; 1 << 20]).unwrap();
    let cases: [(&[&OsStr], &str); 2] = [
        (
            &[
                OsStr::new("--target"),
                OsStr::from_bytes(b"t\xff.img"),
                OsStr::new("-o"),
                OsStr::new("out"),
            ],
            "error: --target t\\xff.img: the path is not valid UTF-8",
        ),
        (
            &[
                OsStr::new("--target"),
                OsStr::new("x.img"),
                OsStr::new("--target-size"),
                OsStr::new("1MiB"),
                OsStr::new("-o"),
                OsStr::from_bytes(b"o\xff"),
            ],
            "error: --output o\\xff: the path is not valid UTF-8",
        ),
    ];
    for (args, want) in cases {
        let o = std::process::Command::new(wkrun_bin())
            .arg("s.toml")
            .args(args)
            .current_dir(d.path())
            .output()
            .expect("run wkrun");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.starts_with(want), "{err}");
        assert!(err.trim_end().ends_with("nothing was written"), "{err}");
    }
    assert_eq!(
        fs::read(&other).unwrap(),
        vec![7u8; 1 << 20],
        "the other file untouched"
    );
    assert_eq!(dir_listing(d.path()), ["s.toml", "t\u{fffd}.img"]);
}
