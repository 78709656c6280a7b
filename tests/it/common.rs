//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Path of the built `wkrun` binary.
pub fn wkrun_bin() -> &'static str {
    env!("CARGO_BIN_EXE_wkrun")
}

/// Starts `cmd`'s child with SIGHUP, SIGINT and SIGTERM at their default action and no signal blocked,
/// whatever this test process inherited: a suite run under `nohup` ignores SIGHUP, which its children
/// inherit and wkrun keeps ignored by design (`limits::a_stop_signal_ignored_at_the_start_stays_ignored`),
/// so a test that sends a stop signal to wkrun tests wkrun, not the harness. Further `pre_exec` set-ups
/// added after this one run after it.
pub fn with_default_stop_signals(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal, sigemptyset and sigprocmask are async-signal-safe and touch only the set on this
    // closure's stack; between fork and exec the child only sets three actions to the default and empties
    // its signal mask, both of which exec keeps.
    unsafe {
        cmd.pre_exec(|| {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
                if libc::signal(sig, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// A fresh temporary folder, removed on drop.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("wkrun-test-")
        .tempdir()
        .expect("temp dir")
}

/// Runs `wkrun ARGS` in `cwd`; returns the output. Every `results.json` under `cwd` that the command wrote
/// (new, or changed since before it ran) is checked as [`check_results_file`] does: wkrun writes its
/// results without validating them, and these checks keep the guarantee that what it writes matches the
/// committed schema.
pub fn wkrun(cwd: &Path, args: &[&str]) -> Output {
    let before = results_files(cwd);
    let o = Command::new(wkrun_bin())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run wkrun");
    for (path, stamp) in results_files(cwd) {
        if before.get(&path) != Some(&stamp) {
            check_results_file(&path);
        }
    }
    o
}

/// The `results.json` files under `dir` (three levels down, symbolic links not followed), with their
/// modification time and size.
fn results_files(dir: &Path) -> std::collections::HashMap<PathBuf, (std::time::SystemTime, u64)> {
    fn walk(
        d: &Path,
        depth: u32,
        out: &mut std::collections::HashMap<PathBuf, (std::time::SystemTime, u64)>,
    ) {
        let Ok(entries) = fs::read_dir(d) else { return };
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            if t.is_dir() && depth > 0 {
                walk(&p, depth - 1, out);
            } else if t.is_file()
                && e.file_name() == "results.json"
                && let Ok(m) = e.metadata()
                && let Ok(mtime) = m.modified()
            {
                out.insert(p, (mtime, m.len()));
            }
        }
    }
    let mut out = std::collections::HashMap::new();
    walk(dir, 3, &mut out);
    out
}

/// Results files checked by [`check_results_file`] so far in this test binary.
pub static RESULTS_CHECKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The committed results schema, compiled once.
fn results_validator() -> &'static jsonschema::Validator {
    static V: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let text = fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/result.schema.json"),
        )
        .expect("committed schema");
        let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
        jsonschema::validator_for(&schema).expect("results schema compiles")
    })
}

/// Asserts that the results file at `path` validates against the committed `schemas/result.schema.json`
/// and reads back into the `deny_unknown_fields` types of `wkrun::results`.
pub fn check_results_file(path: &Path) {
    let text = fs::read_to_string(path).expect("results.json is readable");
    let value: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    let errors: Vec<String> = results_validator()
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{} does not validate against schemas/result.schema.json: {errors:?}",
        path.display()
    );
    let typed = serde_json::from_str::<wkrun::results::Results>(&text)
        .unwrap_or_else(|e| panic!("{} into Results: {e}", path.display()));
    // What `wkrun validate` holds results to: no run of the tests writes figures it calls implausible.
    let implausible = wkrun::results::check::implausible(&typed);
    assert!(
        implausible.is_empty(),
        "{}: implausible figures: {implausible:?}",
        path.display()
    );
    RESULTS_CHECKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// A set-up that several tests read (a run and its report, say), made in a fresh temporary folder by the
/// first of them to ask and removed once the last of its `users` has finished with it (dropped its
/// [`Held`], also by failing): tests that assert different things about the same output share it instead
/// of each making it again. When not all of its users run (a name filter), its folder is left in the
/// system's temporary folder.
pub struct Shared<T: 'static> {
    users: usize,
    made: std::sync::OnceLock<(PathBuf, T)>,
    /// How many users have finished, and the folder until the last has.
    left: std::sync::Mutex<(usize, Option<tempfile::TempDir>)>,
}

impl<T: Send + Sync> Shared<T> {
    /// A set-up read by `users` tests.
    pub const fn new(users: usize) -> Shared<T> {
        Shared {
            users,
            made: std::sync::OnceLock::new(),
            left: std::sync::Mutex::new((0, None)),
        }
    }

    /// The set-up, made by `make` in a fresh temporary folder (its argument) by the first test to ask;
    /// the others wait for it.
    pub fn get(&'static self, make: impl FnOnce(&Path) -> T) -> Held<T> {
        let (dir, value) = self.made.get_or_init(|| {
            let d = tempdir();
            let value = make(d.path());
            let dir = d.path().to_path_buf();
            self.lock().1 = Some(d);
            (dir, value)
        });
        Held {
            shared: self,
            dir,
            value,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, Option<tempfile::TempDir>)> {
        self.left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// One test's use of a [`Shared`] set-up: its folder and its value.
pub struct Held<T: 'static> {
    shared: &'static Shared<T>,
    /// The folder the set-up was made in.
    pub dir: &'static Path,
    /// What its `make` returned.
    pub value: &'static T,
}

impl<T: 'static> Drop for Held<T> {
    fn drop(&mut self) {
        let mut left = self
            .shared
            .left
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        left.0 += 1;
        if left.0 == self.shared.users {
            left.1 = None;
        }
    }
}

/// Exit code, stdout and stderr as strings.
pub fn code_out_err(o: &Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).expect("write file");
    p
}

/// The arguments of a quiet run of `spec` on the 16 MiB file `target` (created if missing) into `out`:
/// `SPEC --target T --target-size 16MiB -o OUT -q`.
pub fn on_a_new_file<'a>(spec: &'a str, target: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        spec,
        "--target",
        target,
        "--target-size",
        "16MiB",
        "-o",
        out,
        "-q",
    ]
}

/// A spec header (`format`, `[spec]`) followed by `body`.
pub fn spec_text(name: &str, body: &str) -> String {
    format!("format = 1\n[spec]\nname = \"{name}\"\nversion = \"1\"\n{body}")
}

/// Creates a file of `len` bytes filled with a repeating non-zero pattern (byte i = (i % 251) + 1).
pub fn patterned_file(path: &Path, len: usize) {
    let v: Vec<u8> = (0..len).map(|i| (i % 251) as u8 + 1).collect();
    fs::write(path, v).expect("write patterned file");
}

/// Reads a whole file.
pub fn read(path: &Path) -> Vec<u8> {
    fs::read(path).expect("read file")
}

/// Parses results.json in `dir`.
pub fn results(dir: &Path) -> serde_json::Value {
    let text = fs::read_to_string(dir.join("results.json")).expect("results.json exists");
    serde_json::from_str(&text).expect("results.json is JSON")
}

/// Parses a series CSV into rows of (column → value).
pub fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).expect("open csv");
    let headers = r.headers().expect("headers").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("csv record");
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Whether tests can use loop devices here: root and a working `losetup`. The reason when not.
pub fn loop_unavailable() -> Option<String> {
    // SAFETY-free check via id -u.
    let uid = Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if uid.as_deref() != Some("0") {
        return Some("not running as root: loop devices need root".into());
    }
    if Command::new("losetup").arg("--version").output().is_err() {
        return Some("losetup (util-linux) is not installed".into());
    }
    None
}

/// One loop-device test at a time, across every module of the test binary: tests share the kernel's pool of
/// loop devices (two `losetup -f` at once can race for the same free device, and a test that removes a device
/// after changing its queue limits must not hand it to another test in between). Hold it while a loop device
/// lives.
pub static LOOP_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds [`LOOP_LOCK`] (also after a test that held it panicked) for as long as the guard lives.
pub fn loop_guard() -> std::sync::MutexGuard<'static, ()> {
    LOOP_LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A loop device over a fresh sparse file, detached and removed on drop.
pub struct LoopDev {
    pub dev: PathBuf,
    pub backing: PathBuf,
}

impl LoopDev {
    /// Creates a direct-io loop device of `size_mib` MiB with `sector_size` logical blocks (512 or 4096).
    /// Returns Err(reason) when loop devices are unavailable; callers print the reason and skip.
    pub fn new(dir: &Path, size_mib: u64, sector_size: u32) -> Result<LoopDev, String> {
        if let Some(why) = loop_unavailable() {
            return Err(why);
        }
        let backing = dir.join(format!("loop-backing-{size_mib}-{sector_size}.img"));
        let f = fs::File::create(&backing).map_err(|e| e.to_string())?;
        f.set_len(size_mib << 20).map_err(|e| e.to_string())?;
        drop(f);
        let out = Command::new("losetup")
            .args([
                "-f",
                "--show",
                "--direct-io=on",
                "--sector-size",
                &sector_size.to_string(),
            ])
            .arg(&backing)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
        Ok(LoopDev { dev, backing })
    }

    /// The device's name in /sys/block (e.g. `loop3`).
    pub fn sys_name(&self) -> String {
        self.dev
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Sectors written so far, from /sys/block/<dev>/stat (field 7).
    pub fn sectors_written(&self) -> u64 {
        let s =
            fs::read_to_string(format!("/sys/block/{}/stat", self.sys_name())).unwrap_or_default();
        s.split_whitespace()
            .nth(6)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = fs::remove_file(&self.backing);
    }
}

/// A second loop device over an existing file or device (`losetup -f --show PATH`), detached on drop (the
/// path is left alone).
pub struct LoopOver {
    pub dev: PathBuf,
}

impl LoopOver {
    /// A loop device over `backing`; Err(losetup's message) when it cannot be made.
    pub fn new(backing: &Path) -> Result<LoopOver, String> {
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(backing)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
        Ok(LoopOver { dev })
    }
}

impl Drop for LoopOver {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

/// A loop device over a fresh sparse file partitioned by `sfdisk` (`losetup -P`), with its partitions' nodes:
/// /dev's when udev or devtmpfs made them, else made in the test's folder with mknod. Detached (and the file
/// removed) on drop. Hold [`loop_guard`] while it lives.
pub struct PartedLoop {
    pub dev: PathBuf,
    pub backing: PathBuf,
    /// The partitions' nodes, in the table's order.
    pub parts: Vec<String>,
}

impl PartedLoop {
    /// A `mib` MiB file in `dir` (named `name`) with the partition `table` (sfdisk's input, `\n` between
    /// lines) of `count` partitions, under a loop device. Err(why) when loop devices, sfdisk or the kernel's
    /// partition scan are missing here: the caller skips with it.
    pub fn new(
        dir: &Path,
        name: &str,
        mib: u64,
        table: &str,
        count: usize,
    ) -> Result<PartedLoop, String> {
        if let Some(why) = loop_unavailable() {
            return Err(why);
        }
        let backing = dir.join(name);
        sparse_file(&backing, mib << 20);
        let parted = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "printf '{}' | sfdisk -q {}",
                table.replace('\n', "\\n"),
                backing.display()
            ))
            .status()
            .is_ok_and(|s| s.success());
        if !parted {
            let _ = fs::remove_file(&backing);
            return Err("sfdisk (util-linux) could not write a partition table".into());
        }
        let o = Command::new("losetup")
            .args(["-f", "--show", "-P", "--direct-io=on"])
            .arg(&backing)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            let _ = fs::remove_file(&backing);
            return Err(format!(
                "losetup -P failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        let dev = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        let mut lp = PartedLoop {
            dev,
            backing,
            parts: Vec::new(),
        };
        let _ = Command::new("partx").arg("-a").arg(&lp.dev).status();
        let name = lp.dev.file_name().unwrap().to_string_lossy().into_owned();
        for k in 1..=count {
            let sys = format!("/sys/block/{name}/{name}p{k}/dev");
            // The kernel's scan may show the partition a moment later.
            let deadline = Instant::now() + Duration::from_secs(1);
            while !Path::new(&sys).exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let Ok(num) = fs::read_to_string(&sys) else {
                return Err("the kernel made no partitions of the loop device".into());
            };
            let mut node = format!("/dev/{name}p{k}");
            if !Path::new(&node).exists() {
                node = dir.join(format!("{name}p{k}")).display().to_string();
                let (a, b) = num.trim().split_once(':').unwrap();
                let made = Command::new("mknod").args([&node, "b", a, b]).status();
                if !made.is_ok_and(|s| s.success()) {
                    return Err(format!("mknod {node} failed"));
                }
            }
            lp.parts.push(node);
        }
        Ok(lp)
    }
}

impl Drop for PartedLoop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = fs::remove_file(&self.backing);
    }
}

/// Prints a skip line that shows in a plain `cargo test`: written straight to the process's stderr, past the
/// test harness's capture of `eprintln!`.
pub fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers for the I/O tests (phases, series, cases, blockdev).

/// Creates a sparse file of `len` bytes (never written: reads as zeros, no blocks allocated).
pub fn sparse_file(path: &Path, len: u64) {
    let f = fs::File::create(path).expect("create sparse file");
    f.set_len(len).expect("size sparse file");
}

/// A fresh temporary folder holding `t.img`, a sparse file of `len` bytes ([`sparse_file`]): the folder (keep
/// it alive) and the file's path.
pub fn sparse_target_dir(len: u64) -> (tempfile::TempDir, PathBuf) {
    let d = tempdir();
    let target = d.path().join("t.img");
    sparse_file(&target, len);
    (d, target)
}

/// A fresh temporary folder holding `t.img`, `len` bytes of the [`patterned_file`] pattern: the folder (keep
/// it alive) and the file's path.
pub fn patterned_target_dir(len: usize) -> (tempfile::TempDir, PathBuf) {
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, len);
    (d, target)
}

/// Asserts that the `bs`-byte blocks of `data` from offset `start` hold the random data (seed `seed`) of write
/// ops `ops`, one op a block in order: what a sequential fill, or one pass of it, writes there. `what` names the
/// range in the failure message.
pub fn assert_op_blocks(
    data: &[u8],
    start: u64,
    bs: u64,
    ops: std::ops::Range<u64>,
    seed: u64,
    what: &str,
) {
    let datagen = wkrun::data::DataGen::new(wkrun::spec::DataPattern::Random, seed, bs as usize);
    let mut want = vec![0u8; bs as usize];
    for (k, op) in ops.enumerate() {
        datagen.fill(&mut want, op);
        let at = (start + k as u64 * bs) as usize;
        assert!(
            data[at..at + bs as usize] == want[..],
            "{what}: block {k} at {at} is not the data of op {op}"
        );
    }
}

/// Byte `i` of the pattern [`patterned_file`] writes.
pub fn pattern_byte(i: u64) -> u8 {
    (i % 251) as u8 + 1
}

/// Asserts that `bytes`, which sit at file offset `at`, still hold the [`patterned_file`] pattern; `what` names
/// the range in the failure message (which gives the first differing offset).
pub fn assert_patterned(bytes: &[u8], at: u64, what: &str) {
    if let Some(i) = (0..bytes.len()).find(|&i| bytes[i] != pattern_byte(at + i as u64)) {
        panic!(
            "{what}: byte at offset {} changed (0x{:02x}, pattern 0x{:02x})",
            at + i as u64,
            bytes[i],
            pattern_byte(at + i as u64)
        );
    }
}

/// Asserts that `data`, a whole file, still holds the [`patterned_file`] pattern before `start` and from `end`
/// on; `what` names the range between in the failure messages ("before {what}", "after {what}").
pub fn assert_patterned_around(data: &[u8], start: u64, end: u64, what: &str) {
    assert_patterned(&data[..start as usize], 0, &format!("before {what}"));
    assert_patterned(&data[end as usize..], end, &format!("after {what}"));
}

/// Asserts that every byte of `bytes` (at file offset `at`) is zero.
pub fn assert_zeros(bytes: &[u8], at: u64, what: &str) {
    if let Some(i) = bytes.iter().position(|&b| b != 0) {
        panic!(
            "{what}: byte at offset {} is 0x{:02x}, not zero",
            at + i as u64,
            bytes[i]
        );
    }
}

/// Writes `spec.toml` (header from [`spec_text`] plus `body`) into `dir` and runs
/// `wkrun spec.toml --target TARGET --output out -q ARGS` there. Returns the output and the output folder.
pub fn run_spec(
    dir: &Path,
    name: &str,
    body: &str,
    target: &Path,
    args: &[&str],
) -> (Output, PathBuf) {
    write_file(dir, "spec.toml", &spec_text(name, body));
    let out = dir.join("out");
    let target = target.to_str().expect("utf-8 target path");
    let out_s = out.to_str().expect("utf-8 output path");
    let mut all = vec!["spec.toml", "--target", target, "--output", out_s, "-q"];
    all.extend_from_slice(args);
    (wkrun(dir, &all), out)
}

/// Like [`run_spec`], and asserts exit code 0 (printing stderr otherwise).
pub fn run_ok(dir: &Path, name: &str, body: &str, target: &Path) -> PathBuf {
    let (o, out) = run_spec(dir, name, body, target, &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "wkrun failed: {err}");
    out
}

/// The expected bytes of write op `index` of a phase with data `pattern`, `seed` and block size `len`.
pub fn op_data(pattern: wkrun::spec::DataPattern, seed: u64, len: usize, index: u64) -> Vec<u8> {
    let mut v = vec![0u8; len];
    wkrun::data::DataGen::new(pattern, seed, len).fill(&mut v, index);
    v
}

/// Reads results.json strictly: the whole file is exactly one JSON document; it validates against the
/// committed `schemas/result.schema.json`; every number is finite; it deserializes into the
/// `deny_unknown_fields` types of `wkrun::results` (which also refuse duplicate keys) and serializes back to
/// the same document. Returns the typed results and the raw value.
pub fn strict_results(dir: &Path) -> (wkrun::results::Results, serde_json::Value) {
    let text = fs::read_to_string(dir.join("results.json")).expect("results.json exists");
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<serde_json::Value>()
        .collect::<Result<_, _>>()
        .expect("results.json is JSON");
    assert_eq!(
        docs.len(),
        1,
        "results.json holds {} JSON documents",
        docs.len()
    );
    let value = docs.into_iter().next().expect("one document");
    let errors: Vec<String> = results_validator()
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "results.json does not validate: {errors:?}"
    );
    assert_finite(&value, "");
    let typed: wkrun::results::Results =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("results.json into Results: {e}"));
    assert_eq!(
        serde_json::to_value(&typed).expect("serialize"),
        value,
        "results.json does not round-trip through Results"
    );
    let implausible = wkrun::results::check::implausible(&typed);
    assert!(
        implausible.is_empty(),
        "results.json: implausible figures: {implausible:?}"
    );
    (typed, value)
}

/// Asserts that every number in `v` is a finite f64 (and that no string spells NaN or infinity as a number).
pub fn assert_finite(v: &serde_json::Value, at: &str) {
    match v {
        serde_json::Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            assert!(f.is_finite(), "{at} = {n} is not finite");
        }
        serde_json::Value::String(s) => {
            let t = s.trim().to_ascii_lowercase();
            assert!(
                !matches!(
                    t.as_str(),
                    "nan" | "inf" | "-inf" | "infinity" | "-infinity"
                ),
                "{at} = {s:?}"
            );
        }
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| assert_finite(x, &format!("{at}[{i}]"))),
        serde_json::Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| assert_finite(x, &format!("{at}.{k}"))),
        _ => {}
    }
}

/// `phases[i]` of a results document.
pub fn phase(results: &serde_json::Value, i: usize) -> &serde_json::Value {
    &results["phases"][i]
}

/// An integer field of a JSON value, by JSON pointer (panics with the pointer when absent).
pub fn u(v: &serde_json::Value, pointer: &str) -> u64 {
    v.pointer(pointer)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or_else(|| panic!("{pointer} is not an integer in {v}"))
}

/// A float field of a CSV row.
pub fn f(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row.get(col)
        .unwrap_or_else(|| panic!("no column {col}"))
        .parse()
        .unwrap_or_else(|e| panic!("{col}: {e}"))
}

/// An integer field of a CSV row.
pub fn n(row: &std::collections::HashMap<String, String>, col: &str) -> u64 {
    row.get(col)
        .unwrap_or_else(|| panic!("no column {col}"))
        .parse()
        .unwrap_or_else(|e| panic!("{col}: {e}"))
}

/// A series CSV row by column name.
pub type CsvRow = std::collections::HashMap<String, String>;

/// The rows of a time-bounded phase of `bound_ns` in intervals of `interval_ns` that divide it, split into
/// its `bound / interval` full rows and its drain: the row `[bound, end)` that holds the I/Os in flight at
/// the bound, partial, with at least one and at most `queue` I/Os (`queue` = workers × queue depth). The
/// drain is absent when nothing was in flight at the bound (a thread that found the bound passed when its
/// last I/O completed before it): both are right, the rest is exact.
pub fn split_drain(
    rows: &[CsvRow],
    bound_ns: u64,
    interval_ns: u64,
    queue: u64,
) -> (&[CsvRow], Option<&CsvRow>) {
    assert_eq!(bound_ns % interval_ns, 0, "the interval divides the bound");
    let full = (bound_ns / interval_ns) as usize;
    assert!(
        rows.len() == full || rows.len() == full + 1,
        "{} rows: want {full} full rows and at most a drain",
        rows.len()
    );
    for (k, row) in rows[..full].iter().enumerate() {
        assert_eq!(n(row, "partial"), 0, "row {k} is full");
        assert_eq!(
            (f(row, "interval_s") * 1e9).round() as u64,
            interval_ns,
            "row {k} is one interval long"
        );
        assert_eq!(
            (f(row, "t_s") * 1e9).round() as u64,
            (k as u64 + 1) * interval_ns,
            "row {k} ends at (k+1)·Δ"
        );
    }
    let drain = rows.get(full);
    if let Some(d) = drain {
        assert_eq!(n(d, "partial"), 1, "the drain is partial");
        let start = ((f(d, "t_s") - f(d, "interval_s")) * 1e9).round() as u64;
        assert_eq!(start, bound_ns, "the drain starts at the bound");
        let ops = n(d, "read_ops") + n(d, "write_ops");
        assert!(
            (1..=queue).contains(&ops),
            "the drain holds the I/Os in flight at the bound: {ops}, at most {queue}"
        );
    }
    (&rows[..full], drain)
}

/// The rows of phase `i`'s series CSV, found through the results' `series_csv`.
pub fn phase_rows(
    out: &Path,
    results: &serde_json::Value,
    i: usize,
) -> Vec<std::collections::HashMap<String, String>> {
    let name = phase(results, i)["series_csv"]
        .as_str()
        .unwrap_or_else(|| panic!("phase {i} has no series_csv"));
    csv_rows(&out.join(name))
}

/// The sum of column `col` over phase `i`'s series rows.
pub fn series_sum(out: &Path, results: &serde_json::Value, i: usize, col: &str) -> u64 {
    phase_rows(out, results, i)
        .iter()
        .map(|row| n(row, col))
        .sum()
}

/// The latencies phase result `p` recorded in direction `dir` (`"read"`, `"write"`): the sum of its
/// histogram's counts.
pub fn histogram_count(p: &serde_json::Value, dir: &str) -> u64 {
    p["latency_histograms"][dir]
        .as_array()
        .unwrap_or_else(|| panic!("no {dir} histogram"))
        .iter()
        .map(|b| b[1].as_u64().expect("count"))
        .sum()
}

/// Deterministic pseudo-random bytes (xorshift64*), independent of wkrun's generators: for image files.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    v.truncate(len);
    v
}

/// Allocated 512-byte blocks of a file (`st_blocks`).
pub fn allocated_blocks(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).expect("stat").blocks()
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every op of `stream` with an index below `n`, in order.
pub fn ops_below(stream: &wkrun::ops::OpStream, n: u64) -> Vec<wkrun::ops::Op> {
    stream.ops(0..n).collect()
}

/// Every path under `dir` (files and folders, relative, sorted): compare before and after a command to
/// show it wrote nothing there.
pub fn dir_listing(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(d).expect("read dir") {
            let p = e.expect("dir entry").path();
            out.push(
                p.strip_prefix(base)
                    .expect("under base")
                    .display()
                    .to_string(),
            );
            if p.is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Removes the detached loop device `/dev/loop<index>` (LOOP_CTL_REMOVE on /dev/loop-control), so that the next
/// device made in its place starts from the kernel's default queue limits. Some limits set through sysfs
/// outlive `losetup -d` and cannot be set back (a `discard_max_bytes` of 0 also zeroes `discard_granularity`,
/// after which sysfs refuses every other value). Retries for a moment while the detach completes.
pub fn remove_loop_device(index: u32) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    const LOOP_CTL_REMOVE: libc::c_ulong = 0x4C81;
    let ctl = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/loop-control")?;
    let mut tries = 0;
    loop {
        // SAFETY: LOOP_CTL_REMOVE takes the device number as a plain integer argument; no memory is passed.
        let r = unsafe {
            libc::ioctl(
                ctl.as_raw_fd(),
                LOOP_CTL_REMOVE as _,
                index as libc::c_ulong,
            )
        };
        if r >= 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        tries += 1;
        if e.raw_os_error() != Some(libc::EBUSY) || tries >= 40 {
            return Err(e);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Path of a seed spec in the repository's `specs/` folder (`seed_spec("latency")`).
pub fn seed_spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs")
        .join(format!("{name}.toml"))
}

/// `wkrun plan --json SPEC --target TARGET ARGS` run in `dir`: asserts exit code 0 (printing stderr
/// otherwise) and returns the plan as JSON.
pub fn plan_json(dir: &Path, spec: &Path, target: &Path, args: &[&str]) -> serde_json::Value {
    let spec = spec.to_str().expect("utf-8 spec path");
    let target = target.to_str().expect("utf-8 target path");
    let mut all = vec!["plan", "--json", spec, "--target", target];
    all.extend_from_slice(args);
    let (code, out, err) = code_out_err(&wkrun(dir, &all));
    assert_eq!(code, 0, "wkrun plan {spec} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("plan --json is JSON: {e}\n{out}"))
}

/// `n` CPUs as the plan's cautions say it: `"1 CPU"`, `"2 CPUs"`.
pub fn cpus_text(n: u64) -> String {
    if n == 1 {
        "1 CPU".to_string()
    } else {
        format!("{n} CPUs")
    }
}

/// Whether the tests run as root (mounts, loop devices).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A filesystem mounted for a test, unmounted on drop (retrying while a loop device or an io_uring ring that
/// the kernel tears down in the background still holds a file on it; lazily as a last resort).
pub struct Mount {
    /// The mount point.
    pub dir: PathBuf,
}

impl Mount {
    /// `mount ARGS DIR` after creating DIR; Err(reason) when it fails.
    pub fn new(dir: PathBuf, args: &[&str]) -> Result<Mount, String> {
        if !is_root() {
            return Err("not running as root: mounting needs root".into());
        }
        fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(args)
            .arg(&dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Mount { dir })
    }

    /// A tmpfs of `size` (as for `mount -o size=`) at `dir`.
    pub fn tmpfs(dir: PathBuf, size: &str) -> Result<Mount, String> {
        Mount::new(
            dir,
            &["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"],
        )
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let ok = Command::new("umount")
                .arg(&self.dir)
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return;
            }
            if Instant::now() > deadline {
                eprintln!(
                    "note: {} stayed busy for 10 s; unmounting it lazily",
                    self.dir.display()
                );
                let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Checks collected over the cases of a test.

/// Failures collected over the cases of a test (every engine, every variant, every row of a table) and reported
/// together at the end, so that one failing case does not hide what the others do. Each failure starts with the
/// name of its case, set by [`Failures::case`].
#[derive(Default)]
pub struct Failures {
    failed: Vec<String>,
    case: String,
}

impl Failures {
    /// Names the case that the checks which follow belong to (`psync`, `libaio, QD4`).
    pub fn case(&mut self, name: impl Into<String>) {
        self.case = name.into();
    }

    /// Records `what()` unless `ok`; returns `ok`.
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) -> bool {
        if !ok {
            let what = what();
            self.failed.push(match self.case.as_str() {
                "" => what,
                case => format!("{case}: {what}"),
            });
        }
        ok
    }

    /// Records a failure unless `got == want`; returns whether they are equal.
    pub fn eq<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, got: T, want: T) -> bool {
        let ok = got == want;
        self.check(ok, || format!("{what}: got {got:?}, expected {want:?}"))
    }

    /// Checks of the fields of the JSON document `doc` (see [`Fields::is`]); `name` names it in the failures
    /// (`"mix"` gives `mix/read/ops`).
    pub fn json<'a>(&'a mut self, name: &str, doc: &'a serde_json::Value) -> Fields<'a> {
        Fields {
            f: self,
            name: name.to_string(),
            doc,
        }
    }

    /// Records a failure for each of `wants` that `text` does not contain; `what` names the text.
    pub fn contains(&mut self, what: &str, text: &str, wants: &[impl AsRef<str>]) {
        for want in wants.iter().map(AsRef::as_ref) {
            self.check(text.contains(want), || {
                format!("{what} does not say {want:?}: {text:?}")
            });
        }
    }

    /// Records a failure unless `got == want`, giving where they first differ in 4 KiB blocks; `what` says what
    /// the difference means. Returns whether they are equal.
    pub fn same_bytes(&mut self, what: &str, got: &[u8], want: &[u8]) -> bool {
        self.check(got == want, || {
            format!(
                "{what}: {}",
                first_difference(got, want, 4096).unwrap_or_default()
            )
        })
    }

    /// Panics listing every failure recorded, if any.
    pub fn assert_none(self, test: &str) {
        assert!(
            self.failed.is_empty(),
            "{test}: {} failure(s):\n  - {}",
            self.failed.len(),
            self.failed.join("\n  - ")
        );
    }
}

/// Checks of the fields of one JSON document, recorded in a [`Failures`]: `f.json("mix", m).is("/read/ops", 8)`.
pub struct Fields<'a> {
    f: &'a mut Failures,
    name: String,
    doc: &'a serde_json::Value,
}

impl Fields<'_> {
    /// Records a failure unless the field at JSON pointer `pointer` is `want`: an integer `want` is compared with
    /// the field's `as_u64`, a float with its `as_f64`, any other value as JSON.
    pub fn is(self, pointer: &str, want: impl Into<serde_json::Value>) -> Self {
        let want = want.into();
        let got = self.doc.pointer(pointer);
        let ok = if want.is_u64() {
            got.and_then(serde_json::Value::as_u64) == want.as_u64()
        } else if want.is_f64() {
            got.and_then(serde_json::Value::as_f64) == want.as_f64()
        } else {
            got == Some(&want)
        };
        self.f.check(ok, || {
            let got = got.map_or_else(|| "nothing".to_string(), ToString::to_string);
            format!("{}{pointer}: got {got}, expected {want}", self.name)
        });
        self
    }
}

/// Where `got` first differs from `want`, in `unit`-byte blocks, as text; `None` when equal.
pub fn first_difference(got: &[u8], want: &[u8], unit: usize) -> Option<String> {
    if got == want {
        return None;
    }
    if got.len() != want.len() {
        return Some(format!("{} bytes instead of {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len() / unit)
        .filter(|&b| got[b * unit..(b + 1) * unit] != want[b * unit..(b + 1) * unit])
        .collect();
    Some(format!(
        "{} of {} blocks of {unit} B differ, the first at offset {}",
        bad.len(),
        got.len() / unit,
        bad[0] * unit
    ))
}

/// The start of the run-time warning that a phase's one submitting thread was busy nearly all the phase
/// (issue 13 item 10): it depends on how loaded the machine is, so tests of other warnings leave it out.
/// Only its first words: a console line of several phases' host-pace warnings may be cut right after them
/// (`phases f… and 1 more: the submitting thread… (in full: …)`, seen on a loaded machine).
pub const HOST_PACE: &str = "the submitting thread";

/// The start of the run-time warning that a submitting thread waited for a CPU a tenth of the phase or more
/// (a busy host): it depends on the machine's load, so tests of other warnings leave it out
/// (tests/it/cautions.rs asserts it on a CPU shared on purpose).
pub const BUSY_HOST: &str = "busy host: ";

/// Whether `w` is the warning that a direction's high percentiles rest on fewer than 10 latencies above
/// them: it depends on the op count, which varies in duration-bound phases, so tests of other warnings
/// leave it out (tests/it/tail.rs asserts it exactly).
pub fn is_thin_tail(w: &str) -> bool {
    (w.starts_with("read latency p") || w.starts_with("write latency p"))
        && w.contains(" lie above ")
}

/// The start of the warning that a phase's workers did unequal work (`results::balance`): it depends on
/// how the host scheduled them.
pub const UNEQUAL_WORKERS: &str = "unequal workers: ";

/// The start of the warning that an io_uring phase kept batched completion waits after its probe
/// (`engine::pace`): the probe compares two rates measured on this host, so it depends on the machine's
/// load (tests/it/engines.rs checks it against the rates it gives).
pub const BATCHED_WAITS: &str = "io_uring: completions were reaped in batches, ";

/// The start of the warning that a phase given a duration lasted less than one interval
/// (`run::io_phase::shorter_than_interval`): tests/it/trial.rs asserts it exactly.
pub const SHORT_PHASE: &str = "the phase lasted ";

/// The start of the warning that a phase's maximum latency is the previous phase's backlog
/// (`run::backlog`): it depends on the latencies measured (tests/it/trial.rs asserts it exactly).
pub const BACKLOG: &str = "no ramp: add ramp = \"10s\"";

/// Whether tests of device and data warnings leave `w` out: the host-pace ([`HOST_PACE`]), the busy-host
/// ([`BUSY_HOST`]), the thin
/// tail ([`is_thin_tail`]), the unequal-workers ([`UNEQUAL_WORKERS`]), the batched-waits
/// ([`BATCHED_WAITS`]), the short-phase ([`SHORT_PHASE`]) and the backlog ([`BACKLOG`]) warnings.
pub fn left_out(w: &str) -> bool {
    w.starts_with(HOST_PACE)
        || w.starts_with(BUSY_HOST)
        || is_thin_tail(w)
        || w.starts_with(UNEQUAL_WORKERS)
        || w.starts_with(BATCHED_WAITS)
        || w.starts_with(SHORT_PHASE)
        || w.starts_with(BACKLOG)
}

/// A phase's `warnings` (a JSON array, or absent) without the warnings [`left_out`] names.
pub fn device_warnings(w: Option<&serde_json::Value>) -> Vec<String> {
    w.and_then(|w| w.as_array())
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or("").to_string())
                .filter(|s| !left_out(s))
                .collect()
        })
        .unwrap_or_default()
}

/// [`device_warnings`] of typed results.
pub fn device_warnings_of(w: &[String]) -> Vec<String> {
    w.iter().filter(|s| !left_out(s)).cloned().collect()
}

/// A phase's totals as the run's summary line, the several targets' sum and `wkrun merge` print them, built
/// here from its results: every direction's counts (trims only in a phase with them), IOPS and MB/s summed
/// over reads, writes and trims, and each direction's IOPS and MB/s in brackets when more than one did I/O.
pub fn expected_totals(p: &wkrun::results::PhaseResult) -> String {
    let mut dirs = vec![("read", &p.read), ("write", &p.write)];
    if let Some(t) = &p.trim {
        dirs.push(("trim", t));
    }
    let counts: Vec<String> = dirs
        .iter()
        .map(|(n, d)| format!("{} {n}s", d.ops))
        .collect();
    let mut s = format!(
        "{} in {:.2} s: {:.0} IOPS, {:.1} MB/s",
        counts.join(", "),
        p.duration_s,
        dirs.iter().map(|(_, d)| d.iops).sum::<f64>(),
        dirs.iter().map(|(_, d)| d.bw_bytes_per_s).sum::<f64>() / 1e6
    );
    let active: Vec<String> = dirs
        .iter()
        .filter(|(_, d)| d.ops > 0)
        .map(|(n, d)| format!("{n} {:.0} IOPS, {:.1} MB/s", d.iops, d.bw_bytes_per_s / 1e6))
        .collect();
    if active.len() > 1 {
        s.push_str(&format!(" ({})", active.join("; ")));
    }
    s
}

/// Runs `dir/s.toml` on a 512 MiB simulated drive into `dir/OUT`, quietly, with `extra` arguments: exit
/// status, stdout, stderr.
pub fn run_sim(dir: &Path, out: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "s.toml",
        "--target",
        "sim:capacity=512MiB,op=7%",
        "-q",
        "-o",
        out,
    ];
    args.extend_from_slice(extra);
    code_out_err(&wkrun(dir, &args))
}

/// Runs `dir/s.toml` on a 512 MiB simulated drive into `dir/OUT`, quietly; it must succeed.
pub fn run_s_on_sim(dir: &Path, out: &str) {
    let (c, _, e) = run_sim(dir, out, &[]);
    assert_eq!(c, 0, "{e}");
}

/// JESD219's client mix (fio's examples/jesd219.fio bssplit): bytes and percent of the I/Os.
pub const JESD219_MIX: &[(u64, f64)] = &[
    (512, 4.0),
    (1024, 1.0),
    (1536, 1.0),
    (2048, 1.0),
    (2560, 1.0),
    (3072, 1.0),
    (3584, 1.0),
    (4096, 67.0),
    (8192, 10.0),
    (16384, 7.0),
    (32768, 3.0),
    (65536, 3.0),
];

/// Iometer's File Server mix (fio's examples/iometer-file-access-server.fio bssplit).
pub const FILE_SERVER_MIX: &[(u64, f64)] = &[
    (512, 10.0),
    (1024, 5.0),
    (2048, 5.0),
    (4096, 60.0),
    (8192, 2.0),
    (16384, 4.0),
    (32768, 4.0),
    (65536, 10.0),
];

/// Runs the spec `body` (named `name`, written as `d/spec.toml`) on the files `a` and `b` at once, into
/// `d/out`; asserts it exits 0. Returns the aggregate's folder (the targets' are in it).
pub fn run_two_targets(
    d: &Path,
    name: &str,
    body: &str,
    (a, b): (&Path, &Path),
    out: &str,
) -> PathBuf {
    write_file(d, "spec.toml", &spec_text(name, body));
    let (sa, sb) = (a.to_str().unwrap(), b.to_str().unwrap());
    let o = wkrun(
        d,
        &["spec.toml", "--target", sa, "--target", sb, "-o", out, "-q"],
    );
    assert_eq!(code_out_err(&o).0, 0, "{:?}", code_out_err(&o));
    d.join(out)
}

/// A latency as the summary prints it, written independently of wkrun's formatter: under 1 µs in ns (no
/// decimals), under 1 ms in µs (one decimal), under 1 s in ms (two decimals), else in s (two decimals), the
/// unit chosen so that the printed number stays under 1000.
pub fn lat_text(ns: f64) -> String {
    for (unit, scale, decimals) in [("ns", 1.0, 0), ("µs", 1e3, 1), ("ms", 1e6, 2)] {
        let shown = format!("{:.*}", decimals, ns / scale);
        if shown.parse::<f64>().expect("number") < 1000.0 {
            return format!("{shown} {unit}");
        }
    }
    format!("{:.2} s", ns / 1e9)
}

/// The lines a sum of targets or a `wkrun merge` prints under a phase's totals line, recomputed from its
/// results: the latency line (each direction with I/Os: mean, p99, p99.9) and, when its `parts` (targets,
/// hosts) add to more than 1.005 x its IOPS on their own, the line that says both rates.
pub fn expected_sum_lines(
    prefix: &str,
    parts: &str,
    p: &wkrun::results::PhaseResult,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut dirs = vec![("read", &p.read), ("write", &p.write)];
    if let Some(t) = &p.trim {
        dirs.push(("trim", t));
    }
    let lat: Vec<String> = dirs
        .iter()
        .filter(|(_, d)| d.ops > 0)
        .filter_map(|(n, d)| {
            let l = d.latency_ns.as_ref()?;
            Some(format!(
                "{n} mean {}, p99 {}, p99.9 {}",
                lat_text(l.mean),
                lat_text(l.p99 as f64),
                lat_text(l.p99_9 as f64)
            ))
        })
        .collect();
    let mut lat = lat;
    // A phase of more than one direction: every I/O together, its mean the directions' weighted by their
    // op counts, its max the largest.
    if lat.len() > 1 {
        let timed = dirs.iter().filter(|(_, d)| d.ops > 0);
        let lats = timed.filter_map(|(_, d)| Some((d.ops, d.latency_ns.as_ref()?)));
        let (ops, sum, max) = lats.fold((0u64, 0.0, 0u64), |(n, s, m), (k, l)| {
            (n + k, s + k as f64 * l.mean, m.max(l.max))
        });
        lat.push(format!(
            "together mean {}, max {}",
            lat_text(sum / ops as f64),
            lat_text(max as f64)
        ));
    }
    if !lat.is_empty() {
        lines.push(format!("{prefix}      latency: {}", lat.join("; ")));
    }
    let sum: f64 = dirs.iter().map(|(_, d)| d.iops).sum();
    let own: f64 = p
        .hosts
        .iter()
        .map(|h| h.read.iops + h.write.iops + h.trim.as_ref().map_or(0.0, |t| t.iops))
        .sum();
    if p.hosts.len() > 1 && own > sum * 1.005 {
        lines.push(format!(
            "{prefix}      the {parts}' own rates add to {own:.0} IOPS; {sum:.0} IOPS is all their I/Os over the \
             {:.3} s from the first start to the last end (docs/results.md)",
            p.duration_s
        ));
    }
    lines
}

/// The summary lines of phase `i` in a run's stdout (issue 24 item 6: the summary is there): from its
/// `N reads, M writes` line to the next phase's header.
pub fn summary_lines(log: &str, i: usize) -> Vec<&str> {
    let head = format!("[phase {i}] ");
    log.lines()
        .skip_while(|l| !l.starts_with(&head))
        .skip(1)
        .take_while(|l| l.starts_with("      "))
        .skip_while(|l| !l.contains(" reads, "))
        .collect()
}

/// Bytes of `dir`'s results.json, series CSVs and histogram logs (what a merge or a report holds whole; the
/// traces and counters CSVs are read a line at a time and not counted).
pub fn folder_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name == "results.json"
                || (p.extension().is_some_and(|x| x == "csv" || x == "hlog")
                    && !name.ends_with(".trace.csv")
                    && !name.ends_with(".counters.csv"))
        })
        .map(|p| std::fs::metadata(p).expect("size").len())
        .sum()
}

/// The names of the SVG files in `dir`, sorted.
pub fn svg_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    v.sort();
    v
}

/// The files a child of this test process holds open when it starts: its three standard streams, and the
/// descriptors this process holds without close-on-exec (a CI runner's or a shell's, which children inherit).
pub fn files_a_child_starts_with() -> u64 {
    let inherited = fs::read_dir("/proc/self/fdinfo")
        .expect("/proc/self/fdinfo")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&fd| fd > 2)
        .filter(|fd| {
            let info = fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap_or_default();
            info.lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u64::from_str_radix(f.trim(), 8).ok())
                .is_some_and(|flags| flags & 0o2_000_000 == 0)
        })
        .count() as u64;
    3 + inherited
}

/// Checks a run on several targets refused before it started: the results.json of each of `folders` of
/// `out` (`"."` for the aggregate) says "failed" with no phase, and with the error `why` when given.
pub fn refused_in_each(out: &Path, folders: &[String], why: Option<&str>) {
    for f in folders {
        let (_, r) = strict_results(&out.join(f));
        let error = why.and(r["error"].as_str());
        assert_eq!(
            (
                r["status"].as_str(),
                error,
                r["phases"].as_array().map(Vec::len)
            ),
            (Some("failed"), why, Some(0)),
            "{}",
            out.join(f).display()
        );
    }
}

/// The file and the reason of a one-line `error: cannot write PATH: WHY` on stderr `err`.
pub fn cannot_write(err: &str) -> (&str, &str) {
    err.trim_end()
        .strip_prefix("error: cannot write ")
        .and_then(|e| e.split_once(": "))
        .unwrap_or_else(|| panic!("not a write error: {err}"))
}

/// The percentile `p` (as wkrun names it: 50, 99, ...) of latencies given as `[value, count]` buckets: the
/// first bucket whose running count reaches ceil(p/100 · n) (at least 1), clamped to [min, max].
pub fn percentile(
    buckets: &std::collections::BTreeMap<u64, u64>,
    p: f64,
    min: u64,
    max: u64,
) -> u64 {
    let n: u64 = buckets.values().sum();
    let want = (((p / 100.0) * n as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (&v, &c) in buckets {
        seen += c;
        if seen >= want {
            return v.clamp(min, max);
        }
    }
    unreachable!("{want} of {n}")
}

/// The `[value, count]` pairs of a histogram in a results file, by value (counts of equal values added).
pub fn buckets_of(v: &serde_json::Value) -> std::collections::BTreeMap<u64, u64> {
    let mut m = std::collections::BTreeMap::new();
    for pair in v.as_array().expect("bucket list") {
        *m.entry(pair[0].as_u64().unwrap()).or_default() += pair[1].as_u64().unwrap();
    }
    m
}

/// Whether a run under an address-space limit (`prlimit --as`) exited 127 with the dynamic loader's
/// message: the limit is below what the program and its libraries map (the debug build's 45 MB of code),
/// so wkrun's code never ran and nothing can be written; its own start-up refusal begins above it.
pub fn loader_refused(code: i32, stderr: &str) -> bool {
    code == 127 && stderr.contains("error while loading shared libraries")
}
