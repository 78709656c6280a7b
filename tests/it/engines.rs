//! The three engines (issue 3): `psync`, `libaio` and `io_uring` run the same op stream and differ only in how
//! the I/O reaches the kernel. Real I/O with exact values: loop devices (`losetup --direct-io=on`), zram, files;
//! cases C05 (multi-worker fill), C06 (random coverage) and C07 (mix accuracy) on every engine; engine errors
//! (ENOSPC, EIO, EINVAL, an engine that cannot start) surfacing as a clean failure.
//!
//! What the tests need (root, loop devices, zram, io_uring, mkfs.ext4, ...) is checked first; a test that cannot
//! run prints `SKIPPED <test>: <reason>` and returns. Every mount, loop device and zram set up here is undone by
//! a guard's `Drop`, also when an assertion fails.
//!
//! Tests that compare engines run every engine through [`for_engines`], which collects the failures
//! ([`Failures`]), each named by its engine, so that one broken engine does not hide what the others do.

use crate::common::*;
use serde_json::json;
use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use wkrun::data::DataGen;
use wkrun::ops::{Mix, Op, OpStream, Order, Sizes, phase_seed};
use wkrun::spec::DataPattern;
use wkrun::vocab::Direction;

const MIB: u64 = 1 << 20;
const ENGINES: [&str; 3] = ["psync", "libaio", "io_uring"];

/// One zram test at a time.
static ZRAM_LOCK: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------------------------------------
// Environment checks and guards.

/// Why `engine` cannot run on this machine, or `None` when it can.
pub(crate) fn engine_unavailable(engine: &str) -> Option<String> {
    match engine {
        "libaio" => {
            let mut ctx: libc::c_ulong = 0;
            // SAFETY: io_setup writes a context id into `ctx`, a live local.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_setup,
                    1 as libc::c_long,
                    &mut ctx as *mut libc::c_ulong,
                )
            };
            if r < 0 {
                return Some(format!(
                    "Linux AIO is unavailable (io_setup: {})",
                    io::Error::last_os_error()
                ));
            }
            // SAFETY: `ctx` is the context io_setup just created, with no I/O in flight.
            unsafe { libc::syscall(libc::SYS_io_destroy, ctx) };
            None
        }
        "io_uring" => io_uring::IoUring::new(2)
            .err()
            .map(|e| format!("io_uring is unavailable (io_uring_setup: {e})")),
        _ => None,
    }
}

/// The engines that can run here; prints a skip line for each one that cannot.
fn usable_engines(test: &str) -> Vec<&'static str> {
    ENGINES
        .into_iter()
        .filter(|e| match engine_unavailable(e) {
            Some(why) => {
                skip(&format!("{test} [{e}]"), &why);
                false
            }
            None => true,
        })
        .collect()
}

/// A 64 MiB zram device of this test, reset (and removed, if the test added it) on drop. Holds [`ZRAM_LOCK`].
pub(crate) struct Zram {
    /// `/dev/zramN`.
    pub(crate) dev: PathBuf,
    /// `/sys/block/zramN`.
    sys: PathBuf,
    /// N when the test added the device through /sys/class/zram-control/hot_add.
    added: Option<u32>,
    _lock: std::sync::MutexGuard<'static, ()>,
}

const ZRAM_CONTROL: &str = "/sys/class/zram-control";

impl Zram {
    /// A zram device of its own: a new one from zram-control's `hot_add` (which leaves /dev/zram0, possibly
    /// someone's, alone), else /dev/zram0 when it is unconfigured (disksize 0) and unheld. Err(reason) otherwise:
    /// not root, no zram, or zram0 in use (its data is not ours to destroy).
    pub(crate) fn new() -> Result<Zram, String> {
        let lock = ZRAM_LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !is_root() {
            return Err("not running as root: zram needs root".into());
        }
        let (n, added) = match fs::read_to_string(format!("{ZRAM_CONTROL}/hot_add")) {
            Ok(id) => match id.trim().parse::<u32>() {
                Ok(n) => (n, true),
                Err(_) => return Err(format!("{ZRAM_CONTROL}/hot_add gave {id:?}")),
            },
            Err(_) => (0, false),
        };
        let sys = PathBuf::from(format!("/sys/block/zram{n}"));
        let dev = PathBuf::from(format!("/dev/zram{n}"));
        if !added {
            // zram0, which may be someone else's: only when it exists, is unconfigured and unheld.
            if !sys.exists() {
                return Err(format!("{} does not exist (no zram here)", sys.display()));
            }
            let size = fs::read_to_string(sys.join("disksize")).map_err(|e| e.to_string())?;
            if size.trim() != "0" {
                return Err(format!(
                    "{} is in use (disksize {}) and there is no zram-control to add another device",
                    dev.display(),
                    size.trim()
                ));
            }
            if fs::read_dir(sys.join("holders")).map_or(0, |d| d.count()) > 0 {
                return Err(format!("{} has holders", dev.display()));
            }
        }
        // From here the device is ours: the guard resets (and removes) it, whatever happens next.
        let z = Zram {
            dev,
            sys,
            added: added.then_some(n),
            _lock: lock,
        };
        fs::write(z.sys.join("disksize"), "64M")
            .map_err(|e| format!("cannot set {}/disksize: {e}", z.sys.display()))?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while !z.dev.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(z)
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Reset and removal fail with EBUSY while the device is open (an io_uring ring that the kernel tears down
        // in the background can hold it for a moment): retry.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let reset = fs::write(self.sys.join("reset"), "1").is_ok()
                && fs::read_to_string(self.sys.join("disksize")).is_ok_and(|s| s.trim() == "0");
            let removed = reset
                && self.added.is_none_or(|n| {
                    fs::write(format!("{ZRAM_CONTROL}/hot_remove"), n.to_string()).is_ok()
                });
            if removed {
                return;
            }
            if Instant::now() > deadline {
                eprintln!(
                    "note: could not reset/remove {} within 10 s",
                    self.dev.display()
                );
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Prints a skip line and returns true when `missing` names something the test needs.
fn skipped(test: &str, missing: Option<String>) -> bool {
    if let Some(why) = &missing {
        skip(test, why);
    }
    missing.is_some()
}

/// `not running as root: WHAT needs root`, unless the tests run as root.
fn not_root(what: &str) -> Option<String> {
    (!is_root()).then(|| format!("not running as root: {what} needs root"))
}

/// Why mkfs.ext4 cannot run here, or `None` when it can.
fn no_mkfs_ext4() -> Option<String> {
    let missing = Command::new("mkfs.ext4").arg("-V").output().is_err();
    missing.then(|| "mkfs.ext4 (e2fsprogs) is not installed".to_string())
}

// ---------------------------------------------------------------------------------------------------------------
// Running wkrun on every engine and checking results.

/// How one case of [`for_engines`] ends early.
enum Stop {
    /// The test cannot run here (the reason): print a skip line and end the test.
    Skip(String),
    /// The case failed (the failure is recorded) and its remaining checks make no sense: go on with the next.
    Next,
}

impl From<String> for Stop {
    fn from(why: String) -> Stop {
        Stop::Skip(why)
    }
}

impl Stop {
    /// `Err(Stop::Next)` unless `ok` (the result of a recorded check).
    fn unless(ok: bool) -> Result<(), Stop> {
        if ok { Ok(()) } else { Err(Stop::Next) }
    }
}

/// Runs `case` for every variant on every engine that can run here, collecting the failures of all of them (each
/// named by its engine, or by what the case sets with [`Failures::case`]) and asserting at the end that there are
/// none. A case that returns [`Stop::Skip`] ends the test with a skip line, after the failures found until then.
fn for_engines<V>(
    test: &str,
    variants: &[V],
    mut case: impl FnMut(&mut Failures, &'static str, &V) -> Result<(), Stop>,
) {
    let mut f = Failures::default();
    'engines: for engine in usable_engines(test) {
        for v in variants {
            f.case(engine);
            if let Err(Stop::Skip(why)) = case(&mut f, engine, v) {
                skip(test, &why);
                break 'engines;
            }
        }
    }
    f.assert_none(test);
}

/// [`for_engines`] with one case per engine.
fn each_engine(test: &str, mut case: impl FnMut(&mut Failures, &'static str) -> Result<(), Stop>) {
    for_engines(test, &[()], |f, engine, ()| case(f, engine));
}

/// One finished run of wkrun on `engine`.
struct Ran {
    code: i32,
    stderr: String,
    out: PathBuf,
    engine: String,
}

impl Ran {
    /// The run on `engine` that ended with `o`, whose output folder is `out`.
    fn of(o: Output, out: PathBuf, engine: &str) -> Ran {
        let (code, _, stderr) = code_out_err(&o);
        let engine = engine.to_string();
        Ran {
            code,
            stderr,
            out,
            engine,
        }
    }

    /// Whether the process ended in a panic (Rust's exit code 101, or the panic message).
    fn panicked(&self) -> bool {
        self.code == 101 || self.stderr.contains("panicked")
    }
}

/// `wkrun spec.toml --target TARGET --output out -q ARGS` in a fresh folder under `dir`, where spec.toml is `body`
/// prefixed with `[defaults] engine = ENGINE`. Returns the command and its output folder.
fn engine_command(
    dir: &Path,
    engine: &str,
    body: &str,
    target: &Path,
    args: &[&str],
) -> (Command, PathBuf) {
    let run = (1..)
        .map(|i| dir.join(format!("run-{i}")))
        .find(|p| !p.exists())
        .expect("a free folder name");
    fs::create_dir_all(&run).expect("run folder");
    let body = format!("[defaults]\nengine = \"{engine}\"\n{body}");
    write_file(&run, "spec.toml", &spec_text("engines", &body));
    let out = run.join("out");
    let mut cmd = Command::new(wkrun_bin());
    cmd.arg("spec.toml")
        .arg("--target")
        .arg(target)
        .arg("--output")
        .arg(&out);
    cmd.arg("-q").args(args).current_dir(&run);
    (cmd, out)
}

/// Runs `body` on `engine` (see [`engine_command`]) and waits for it.
fn run_engine(dir: &Path, engine: &str, body: &str, target: &Path, args: &[&str]) -> Ran {
    let (mut cmd, out) = engine_command(dir, engine, body, target, args);
    Ran::of(cmd.output().expect("run wkrun"), out, engine)
}

/// [`run_engine`] on the block device `dev`, with `--allow-destroy DEV`.
fn run_on_device(dir: &Path, engine: &str, body: &str, dev: &Path) -> Ran {
    let dev_s = dev.to_str().expect("utf-8 device path");
    run_engine(dir, engine, body, dev, &["--allow-destroy", dev_s])
}

/// `mount` arguments of a 4 MiB tmpfs.
const TMPFS_4M: &[&str] = &["-t", "tmpfs", "-o", "size=4m", "tmpfs"];

/// Runs `body` on `engine` with an existing sparse file target of `size` bytes (a file wkrun creates is
/// preallocated, and one larger than the filesystem is refused before the run) on a filesystem mounted for the run
/// (`mount ARGS`) and unmounted after it.
fn run_on_fs(
    dir: &Path,
    mount: &[&str],
    size: u64,
    engine: &str,
    body: &str,
) -> Result<Ran, String> {
    let mnt = Mount::new(dir.join("mnt"), mount)?;
    let target = mnt.dir.join("t.img");
    sparse_file(&target, size);
    Ok(run_engine(dir, engine, body, &target, &[]))
}

/// A run of wkrun started by [`start_engine`], which the test acts on while it runs.
struct Running {
    child: Child,
    out: PathBuf,
    engine: String,
}

impl Running {
    /// Waits for the run to end.
    fn wait(self) -> Ran {
        let o = self.child.wait_with_output().expect("wait for wkrun");
        Ran::of(o, self.out, &self.engine)
    }
}

/// Starts `body` on `engine` (see [`engine_command`]) without waiting for it.
fn start_engine(dir: &Path, engine: &str, body: &str, target: &Path, args: &[&str]) -> Running {
    let (mut cmd, out) = engine_command(dir, engine, body, target, args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().expect("start wkrun");
    let engine = engine.to_string();
    Running { child, out, engine }
}

/// Checks exit 0 and a valid, completed results file whose I/O phases ran on the run's engine; returns the
/// results.
fn completed(f: &mut Failures, ran: &Ran) -> Result<serde_json::Value, Stop> {
    Stop::unless(f.check(ran.code == 0, || {
        format!("exit {} (expected 0): {}", ran.code, ran.stderr.trim())
    }))?;
    let (_, r) = strict_results(&ran.out);
    f.eq("status", r["status"].as_str(), Some("completed"));
    for (i, p) in r["phases"].as_array().into_iter().flatten().enumerate() {
        let engine_of = p["params"]["engine"].as_str();
        f.eq(
            &format!("phases[{i}].params.engine"),
            engine_of,
            Some(ran.engine.as_str()),
        );
    }
    Ok(r)
}

/// Checks a run that failed cleanly: no panic, exit 1, a valid results file with status "failed" and an error
/// that stderr carries too. Returns the results and the error.
fn failed(f: &mut Failures, ran: &Ran) -> Result<(serde_json::Value, String), Stop> {
    f.check(!ran.panicked(), || {
        format!("wkrun panicked: {}", ran.stderr.trim())
    });
    Stop::unless(f.check(ran.code == 1, || {
        format!("exit {} (expected 1): {}", ran.code, ran.stderr.trim())
    }))?;
    let (_, r) = strict_results(&ran.out);
    f.eq("status", r["status"].as_str(), Some("failed"));
    let err = r["error"].as_str().unwrap_or_default().to_string();
    f.check(!err.is_empty() && ran.stderr.contains(&err), || {
        format!(
            "stderr does not carry the error {err:?}: {}",
            ran.stderr.trim()
        )
    });
    Ok((r, err))
}

/// Checks a run that an I/O error stopped: [`failed`] cleanly, with an error that names phase `phase`
/// (`phase N "name"`), the op, its length and errno `errno`, and the failed phase recorded as not completed.
/// Returns the results and the error.
fn failed_cleanly(
    f: &mut Failures,
    ran: &Ran,
    (index, name): (usize, &str),
    op: &str,
    errno: i32,
) -> Result<(serde_json::Value, String), Stop> {
    let (r, err) = failed(f, ran)?;
    let errno_text = io::Error::from_raw_os_error(errno).to_string();
    let errno_words = errno_text.split(" (os error").next().unwrap_or_default();
    let wants = [
        format!("phase {index} \"{name}\""),
        op.to_string(),
        format!("errno {errno}"),
    ];
    f.contains("the error", &err, &wants);
    f.contains("the error", &err, &[errno_words]);
    let phases = r["phases"].as_array().map_or(0, Vec::len);
    if f.check(index < phases, || {
        format!("results have no phase {index} ({phases} phases)")
    }) {
        f.json("", phase(&r, index)).is("/completed", false);
    }
    Ok((r, err))
}

/// `ops_by_size` of a phase as sorted (bytes, ops) pairs.
fn ops_by_size(p: &serde_json::Value) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = p["ops_by_size"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| (u(e, "/bytes"), u(e, "/ops")))
        .collect();
    v.sort_unstable();
    v
}

/// The byte offset named in an error message (`... at offset N ...`).
fn offset_in(msg: &str) -> Option<u64> {
    let rest = &msg[msg.find("at offset ")? + "at offset ".len()..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

// ---------------------------------------------------------------------------------------------------------------
// Targets and expected data.

/// A sparse file `dir/t.img` of `len` bytes.
fn sparse_target(dir: &Path, len: u64) -> PathBuf {
    let target = dir.join("t.img");
    sparse_file(&target, len);
    target
}

/// A file `dir/t.img` of `len` zero bytes, written (allocated).
fn zeroed_target(dir: &Path, len: u64) -> PathBuf {
    let target = dir.join("t.img");
    fs::write(&target, vec![0u8; len as usize]).expect("zeroed file");
    target
}

/// `len` bytes of the [`patterned_file`] pattern (byte i = i % 251 + 1), built by copying one period.
fn patterned(len: usize) -> Vec<u8> {
    let period: Vec<u8> = (0..251).map(pattern_byte).collect();
    let mut v = Vec::with_capacity(len + period.len());
    while v.len() < len {
        v.extend_from_slice(&period);
    }
    v.truncate(len);
    v
}

/// Drops the clean page-cache pages of `path` (a file or a block device), after flushing dirty ones.
fn drop_cache(path: &Path) {
    if let Ok(f) = fs::File::open(path) {
        let _ = f.sync_all();
        // SAFETY: posix_fadvise takes a valid fd and plain integers; it only advises the kernel.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
}

/// How many 4 KiB blocks of `img` are all zeros.
fn zero_blocks(img: &[u8]) -> usize {
    img.chunks(4096)
        .filter(|c| c.iter().all(|&b| b == 0))
        .count()
}

/// A 64 MiB direct-io loop device (512-byte sectors) that holds the [`patterned`] pattern, with the loop-device
/// lock held while it lives. Its backing file is on a tmpfs of its own (tmpfs takes direct I/O since Linux
/// 6.6; the loop device is direct-io all the same): on the build machine's disk, the pattern's write, the
/// loop device's QD1 writes and the read-back took half of the conformance tests' time.
struct PatternedLoop {
    lo: LoopDev,
    /// Its sectors written when the pattern was in place (the counter lives as long as the kernel's device).
    before: u64,
    /// The tmpfs that holds the backing file, unmounted once the device is gone (fields drop in order).
    _mnt: Mount,
    _lock: std::sync::MutexGuard<'static, ()>,
}

impl PatternedLoop {
    fn new(dir: &Path) -> Result<PatternedLoop, String> {
        let lock = loop_guard();
        let mnt = Mount::tmpfs(dir.join("backing"), "72m")?;
        let lo = LoopDev::new(&mnt.dir, 64, 512)?;
        let f = fs::OpenOptions::new()
            .write(true)
            .open(&lo.backing)
            .expect("open backing file");
        f.write_all_at(&patterned((64 * MIB) as usize), 0)
            .expect("write backing file");
        f.sync_all().expect("sync backing file");
        drop(f);
        drop_cache(&lo.backing);
        let before = lo.sectors_written();
        Ok(PatternedLoop {
            lo,
            before,
            _mnt: mnt,
            _lock: lock,
        })
    }

    /// The device node.
    fn path(&self) -> &Path {
        &self.lo.dev
    }

    /// Sectors written to the device since the pattern was in place.
    fn sectors_written(&self) -> u64 {
        self.lo.sectors_written() - self.before
    }

    /// The device's bytes, read from its backing file past the page cache.
    fn image(&self) -> Vec<u8> {
        drop_cache(&self.lo.backing);
        read(&self.lo.backing)
    }
}

/// Writes over `img[start..start + len]` what a fill with data seed `seed` and `bs`-byte blocks writes there:
/// block b holds the data of op b.
fn fill_image(img: &mut [u8], seed: u64, bs: usize, start: u64, len: u64) {
    let datagen = DataGen::new(DataPattern::Random, seed, bs);
    for b in 0..len / bs as u64 {
        let at = (start + b * bs as u64) as usize;
        datagen.fill(&mut img[at..at + bs], b);
    }
}

/// Writes the data of each op of `ops` (data seed `seed`, `bs`-byte blocks) at its offset in `img`, in op order.
fn write_ops(img: &mut [u8], seed: u64, bs: usize, ops: impl IntoIterator<Item = Op>) {
    let datagen = DataGen::new(DataPattern::Random, seed, bs);
    for op in ops {
        datagen.fill(
            &mut img[op.offset as usize..op.offset as usize + bs],
            op.index,
        );
    }
}

fn random_stream(
    start: u64,
    len: u64,
    bs: u64,
    order: Order,
    rp: u8,
    seed: u64,
    total: Option<u64>,
) -> OpStream {
    OpStream {
        span_start: start,
        span_len: len,
        sizes: Sizes::Fixed(bs),
        order,
        mix: Mix::read_write(rp),
        seed,
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: total,
    }
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Conformance on a loop device.

/// QD1, random, 30 % reads, 8 MiB of 4 KiB over the middle half of a 64 MiB direct-io loop device after a fill of
/// that half: on every engine the counts are those of ops 0..2048 of the stream, the read share is exact, and the
/// device ends byte for byte as the stream says (fill data, overwritten by each write in op order), the same on
/// every engine, with the quarters outside the span untouched and nothing else written.
#[test]
fn conformance_qd1_random_mix_every_engine() {
    let test = "engines::conformance_qd1_random_mix_every_engine";
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
offset = "25%"
span = "50%"
block_size = "64KiB"
queue_depth = 4
seed = 5

[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
offset = "25%"
span = "50%"
block_size = "4KiB"
queue_depth = 1
read_percent = 30
size = "8MiB"
seed = 6
"#;
    let (start, len) = (16 * MIB, 32 * MIB);
    let n = (8 * MIB) / 4096;
    let stream = random_stream(
        start,
        len,
        4096,
        Order::Random,
        30,
        phase_seed(6, "mix"),
        Some(n),
    );
    let ops: Vec<Op> = ops_below(&stream, n);
    let reads = ops.iter().filter(|o| o.dir == Direction::Read).count() as u64;
    let writes = n - reads;
    // The expected device: the pattern, the fill over the span, then every write in op order (QD1).
    let mut want = patterned((64 * MIB) as usize);
    fill_image(&mut want, phase_seed(5, "fill"), 64 << 10, start, len);
    write_ops(
        &mut want,
        phase_seed(6, "mix"),
        4096,
        ops.iter().copied().filter(|o| o.dir == Direction::Write),
    );
    let share = reads as f64 / n as f64;
    let mut first: Option<(&str, Vec<u8>)> = None;
    each_engine(test, |f, engine| {
        let d = tempdir();
        let dev = PatternedLoop::new(d.path())?;
        let r = completed(f, &run_on_device(d.path(), engine, body, dev.path()))?;
        f.json("fill", phase(&r, 0))
            .is("/write/ops", 512)
            .is("/write/bytes", len);
        let mix = phase(&r, 1);
        f.json("mix", mix)
            .is("/read/ops", reads)
            .is("/write/ops", writes)
            .is("/read/bytes", reads * 4096)
            .is("/write/bytes", writes * 4096)
            .is("/read_share/ops", share)
            .is("/read_share/bytes", share);
        f.eq("mix ops_by_size", ops_by_size(mix), vec![(4096, n)]);
        let sectors = dev.sectors_written();
        f.eq(
            "sectors written to the device",
            sectors,
            (len + writes * 4096) / 512,
        );
        let got = dev.image();
        f.same_bytes(
            &format!("the device is not what ops 0..{n} make of it"),
            &got,
            &want,
        );
        match &first {
            Some((first, img)) => {
                f.same_bytes(&format!("the device differs from {first}'s"), &got, img);
            }
            None => first = Some((engine, got)),
        }
        Ok(())
    });
}

/// QD16, `coverage = "full"`, one pass over the middle half (`size = "100%"`), writes only: each 4 KiB block of the
/// span holds the data of the op the permutation maps to it, on every engine; outside the span nothing changes.
#[test]
fn conformance_qd16_full_coverage_every_engine() {
    let test = "engines::conformance_qd16_full_coverage_every_engine";
    let body = r#"
[[phase]]
name = "cover"
kind = "workload"
pattern = "random"
coverage = "full"
offset = "25%"
span = "50%"
block_size = "4KiB"
queue_depth = 16
read_percent = 0
size = "100%"
seed = 8
"#;
    let (start, len) = (16 * MIB, 32 * MIB);
    let n = len / 4096;
    let stream = random_stream(
        start,
        len,
        4096,
        Order::RandomFull,
        0,
        phase_seed(8, "cover"),
        Some(n),
    );
    let mut hits = vec![0u32; n as usize];
    for op in stream.ops(0..n) {
        hits[((op.offset - start) / 4096) as usize] += 1;
    }
    assert!(
        hits.iter().all(|&h| h == 1),
        "the stream itself does not visit each block once"
    );
    let mut want = patterned((64 * MIB) as usize);
    write_ops(&mut want, phase_seed(8, "cover"), 4096, stream.ops(0..n));
    each_engine(test, |f, engine| {
        let d = tempdir();
        let dev = PatternedLoop::new(d.path())?;
        let r = completed(f, &run_on_device(d.path(), engine, body, dev.path()))?;
        f.json("", phase(&r, 0))
            .is("/write/ops", n)
            .is("/read/ops", 0)
            .is("/read_share/ops", 0.0)
            .is("/params/queue_depth", 16)
            .is("/coverage/fraction", 1.0)
            .is("/coverage/exact", true);
        f.eq("sectors written", dev.sectors_written(), len / 512);
        let what = "a block does not hold the data of the op the permutation maps to it";
        f.same_bytes(what, &dev.image(), &want);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// 2. zram.

/// On a 64 MiB zram device (as root; one added through zram-control, else an unused /dev/zram0), per engine: a fill of the whole device, then 2 s of 4 KiB random 50/50 I/O
/// at QD8 over its second half. Exit 0, the read share within 1 point of 50 %, the first half reads back exactly
/// as the fill wrote it, and every block of the second half holds the fill's data or that of a write op aimed
/// at it.
#[test]
fn zram_end_to_end_every_engine() {
    let test = "engines::zram_end_to_end_every_engine";
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 8
seed = 11

[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
offset = "50%"
span = "50%"
block_size = "4KiB"
queue_depth = 8
read_percent = 50
duration = "2s"
seed = 12
"#;
    let mut fill_img = vec![0u8; (64 * MIB) as usize];
    fill_image(
        &mut fill_img,
        phase_seed(11, "fill"),
        128 << 10,
        0,
        64 * MIB,
    );
    let mix = DataGen::new(DataPattern::Random, phase_seed(12, "mix"), 4096);
    each_engine(test, |f, engine| {
        let zram = Zram::new()?;
        let d = tempdir();
        let r = completed(f, &run_on_device(d.path(), engine, body, &zram.dev))?;
        f.json("", &r)
            .is("/target/kind", "block")
            .is("/target/capacity_bytes", 64 * MIB)
            .is("/phases/0/write/ops", 512);
        let m = phase(&r, 1);
        let (reads, writes) = (u(m, "/read/ops"), u(m, "/write/ops"));
        let share = m["read_share"]["ops"].as_f64().unwrap_or(-1.0);
        f.check((share - 0.5).abs() <= 0.01, || {
            format!("read share {share} ({reads} reads, {writes} writes) is not 0.50 ± 0.01")
        });
        f.check(reads + writes >= 1000, || {
            format!("only {} I/Os in 2 s", reads + writes)
        });
        drop_cache(&zram.dev);
        let got = read(&zram.dev);
        Stop::unless(f.eq("bytes read back", got.len() as u64, 64 * MIB))?;
        let half = (32 * MIB) as usize;
        let what = "the first half does not read back as the fill wrote it";
        f.same_bytes(what, &got[..half], &fill_img[..half]);
        // Ops issued: a prefix of each claimed chunk (1024 ops), at most QD8 chunks beyond the completed count.
        let limit = reads + writes + 9 * 1024;
        let stream = random_stream(
            32 * MIB,
            32 * MIB,
            4096,
            Order::Random,
            50,
            phase_seed(12, "mix"),
            None,
        );
        let mut writers: Vec<Vec<u64>> = vec![Vec::new(); 8192];
        for op in stream.ops(0..limit).filter(|o| o.dir == Direction::Write) {
            writers[((op.offset - 32 * MIB) / 4096) as usize].push(op.index);
        }
        let mut want = vec![0u8; 4096];
        let mut bad = Vec::new();
        for (b, idx) in writers.iter().enumerate() {
            let at = half + b * 4096;
            let block = &got[at..at + 4096];
            let ok = block == &fill_img[at..at + 4096]
                || idx.iter().rev().any(|&i| {
                    mix.fill(&mut want, i);
                    block == &want[..]
                });
            if !ok {
                bad.push(at);
            }
        }
        f.check(bad.is_empty(), || {
            format!(
                "{} blocks of the second half hold neither the fill's data nor a write op's, the first at {}",
                bad.len(),
                bad[0]
            )
        });
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Case C05 on every engine.

/// C05: a 64 MiB file, fill with 4 KiB blocks at QD8 (8 pread/pwrite workers for psync): exactly 67,108,864 bytes
/// and 16,384 writes, and every block holds the data of its op (block b, op b), on every engine.
#[test]
fn c05_multiworker_fill_every_engine() {
    let test = "engines::c05_multiworker_fill_every_engine";
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "4KiB"
queue_depth = 8
seed = 3
"#;
    let mut want = vec![0u8; (64 * MIB) as usize];
    fill_image(&mut want, phase_seed(3, "fill"), 4096, 0, 64 * MIB);
    each_engine(test, |f, engine| {
        let d = tempdir();
        let target = sparse_target(d.path(), 64 * MIB);
        let r = completed(f, &run_engine(d.path(), engine, body, &target, &[]))?;
        f.json("", phase(&r, 0))
            .is("/params/queue_depth", 8)
            .is("/write/bytes", 67_108_864)
            .is("/write/ops", 16_384)
            .is("/read/ops", 0);
        f.same_bytes("a block does not hold its op's data", &read(&target), &want);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Case C06.

/// C06: a random-order fill (`pattern = "random"`, `coverage = "full"`, 4 KiB) of files of 1,000 and 4,097 blocks
/// (sparse) and of an 8 MiB zeroed file, on every engine: every block written exactly once (no all-zero block
/// on read-back, each block the data of the one op the permutation maps to it, the last block included), and
/// the results say coverage 1.0, exact.
#[test]
fn c06_random_fill_writes_every_block_once_every_engine() {
    let test = "engines::c06_random_fill_writes_every_block_once_every_engine";
    let body = r#"
[[phase]]
name = "random-fill"
kind = "fill"
pattern = "random"
coverage = "full"
block_size = "4KiB"
queue_depth = 4
data = "random"
seed = 21
"#;
    // (blocks, zeroed file rather than sparse, the file's expected bytes)
    let files: Vec<(u64, bool, Vec<u8>)> = [(1000u64, false), (4097, false), (2048, true)]
        .into_iter()
        .map(|(blocks, zeroed)| {
            let len = blocks * 4096;
            let stream = random_stream(
                0,
                len,
                4096,
                Order::RandomFull,
                0,
                phase_seed(21, "random-fill"),
                Some(blocks),
            );
            let mut want = vec![0u8; len as usize];
            write_ops(
                &mut want,
                phase_seed(21, "random-fill"),
                4096,
                stream.ops(0..blocks),
            );
            (blocks, zeroed, want)
        })
        .collect();
    for_engines(test, &files, |f, engine, &(blocks, zeroed, ref want)| {
        f.case(format!("{engine}, {blocks} blocks"));
        let len = blocks * 4096;
        let d = tempdir();
        let target = if zeroed {
            zeroed_target(d.path(), len)
        } else {
            sparse_target(d.path(), len)
        };
        let r = completed(f, &run_engine(d.path(), engine, body, &target, &[]))?;
        f.json("", phase(&r, 0))
            .is("/params/pattern", "random")
            .is("/params/coverage", "full")
            .is("/write/ops", blocks)
            .is("/write/bytes", len)
            .is("/coverage/fraction", 1.0)
            .is("/coverage/exact", true);
        let got = read(&target);
        f.eq("all-zero blocks on read-back", zero_blocks(&got), 0);
        f.same_bytes(
            "a block does not hold the data of the op mapped to it",
            &got,
            want,
        );
        Ok(())
    });
}

/// C06: a short time-bounded uniform random workload cannot cover its span and says so: `coverage.exact` false,
/// the fraction below 1 and equal to the expectation `1 − (1 − 1/n)^k` for its k I/Os over n blocks, close to
/// the share of blocks it actually wrote (counted on read-back of a zeroed file).
#[test]
fn c06_time_bounded_uniform_random_reports_partial_coverage() {
    let test = "engines::c06_time_bounded_uniform_random_reports_partial_coverage";
    let d = tempdir();
    let blocks = 2048u64;
    let target = zeroed_target(d.path(), blocks * 4096);
    let body = r#"
[[phase]]
name = "uniform"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 1
read_percent = 0
duration = "100ms"
seed = 22
"#;
    let ran = run_engine(d.path(), "psync", body, &target, &[]);
    let mut f = Failures::default();
    f.case("psync");
    if let Ok(r) = completed(&mut f, &ran) {
        let p = phase(&r, 0);
        let k = u(p, "/write/ops");
        let fraction = p["coverage"]["fraction"].as_f64().unwrap_or(-1.0);
        f.json("", p).is("/coverage/exact", false);
        f.check(fraction > 0.0 && fraction < 1.0, || {
            format!(
                "coverage.fraction {fraction} after {k} I/Os over {blocks} blocks is not below 1"
            )
        });
        let expected = 1.0 - (1.0 - 1.0 / blocks as f64).powf(k as f64);
        f.check((fraction - expected).abs() < 1e-9, || {
            format!("coverage.fraction {fraction} is not the expectation {expected} for {k} I/Os")
        });
        // QD1: the ops that ran are 0..k; the blocks they hit are the non-zero blocks of the file.
        let stream = random_stream(
            0,
            blocks * 4096,
            4096,
            Order::Random,
            0,
            phase_seed(22, "uniform"),
            None,
        );
        let mut hit = vec![false; blocks as usize];
        for op in stream.ops(0..k) {
            hit[(op.offset / 4096) as usize] = true;
        }
        let touched = hit.iter().filter(|&&h| h).count();
        let got = read(&target);
        let nonzero = got.chunks(4096).count() - zero_blocks(&got);
        f.eq("blocks written (read-back vs op stream)", nonzero, touched);
        f.check(touched < blocks as usize, || {
            format!("{k} I/Os touched all {blocks} blocks: the test needs a shorter duration")
        });
        let actual = touched as f64 / blocks as f64;
        f.check((actual - fraction).abs() < 0.05, || {
            format!("reported coverage {fraction}, actual {actual} ({touched} of {blocks} blocks)")
        });
    }
    f.assert_none(test);
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Case C07.

/// C07: block sizes 4 KiB = 10, 32 KiB = 40, 64 KiB = 50, 70 % reads, fixed seed, 1 s at QD1 on a 64 MiB file
/// (buffered; `data = "zeros"` so that generating data does not limit a debug build), on every engine: at least
/// 10,000 I/Os; the read share within 0.70 ± 0.01 and each size's share within 4 standard deviations of its
/// weight; at QD1 the ops that ran are 0..N of the stream, so reads, bytes and each size's count are exactly
/// the stream's; the resolved mix lists the sizes in spec order.
#[test]
fn c07_size_mix_and_read_share_every_engine() {
    let test = "engines::c07_size_mix_and_read_share_every_engine";
    let body = |ms: u64| {
        format!(
            r#"
[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
block_size = {{ "4KiB" = 10, "32KiB" = 40, "64KiB" = 50 }}
read_percent = 70
direct = false
data = "zeros"
queue_depth = 1
duration = "{ms}ms"
seed = 7
"#
        )
    };
    let weights = [(4096u64, 0.10f64), (32768, 0.40), (65536, 0.50)];
    each_engine(test, |f, engine| {
        let d = tempdir();
        let target = sparse_target(d.path(), 64 * MIB);
        // 1 s gives far more than 10,000 I/Os on an idle machine; on a loaded one, run once more for as long as
        // the measured rate needs (at most 8 s), so that the count, not the machine, is what is tested.
        let mut ms = 1000u64;
        let mut attempt = 0;
        let r = loop {
            attempt += 1;
            let r = completed(f, &run_engine(d.path(), engine, &body(ms), &target, &[]))?;
            let n = u(phase(&r, 0), "/read/ops") + u(phase(&r, 0), "/write/ops");
            if n >= 10_000 || attempt == 2 {
                break r;
            }
            ms = (ms * 13_000 / n.max(1)).clamp(1000, 8000);
        };
        let p = phase(&r, 0);
        f.json("", p).is("/params/block_size_bytes", 4096);
        let mix: Vec<(u64, u32)> = p["params"]["block_size_mix"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (u(e, "/bytes"), u(e, "/weight") as u32))
            .collect();
        let spec_order = vec![(4096, 10), (32768, 40), (65536, 50)];
        f.eq(
            "params.block_size_mix (spec order)",
            mix.clone(),
            spec_order,
        );
        let (reads, writes) = (u(p, "/read/ops"), u(p, "/write/ops"));
        let n = reads + writes;
        f.check(n >= 10_000, || {
            format!("only {n} I/Os in {ms} ms; C07 needs at least 10,000")
        });
        let share = p["read_share"]["ops"].as_f64().unwrap_or(-1.0);
        f.check((share - 0.70).abs() <= 0.01, || {
            format!("read share {share} is not 0.70 ± 0.01")
        });
        let (rb, wb) = (u(p, "/read/bytes"), u(p, "/write/bytes"));
        f.json("", p)
            .is("/read_share/bytes", rb as f64 / (rb + wb) as f64);
        let got_sizes = ops_by_size(p);
        f.eq(
            "ops_by_size total",
            got_sizes.iter().map(|e| e.1).sum::<u64>(),
            n,
        );
        for (bytes, weight) in weights {
            let got =
                got_sizes.iter().find(|e| e.0 == bytes).map_or(0, |e| e.1) as f64 / n.max(1) as f64;
            let sigma = (weight * (1.0 - weight) / n.max(1) as f64).sqrt();
            f.check((got - weight).abs() <= 4.0 * sigma, || {
                format!(
                    "{bytes} B share {got:.4} is not {weight} ± 4σ ({:.4})",
                    4.0 * sigma
                )
            });
        }
        // Exact: ops 0..N of the stream wkrun resolved (its mix, in the order the plan lists it).
        let stream = OpStream {
            span_start: 0,
            span_len: 64 * MIB,
            sizes: Sizes::Mix(mix),
            order: Order::Random,
            mix: Mix::read_write(70),
            seed: phase_seed(7, "mix"),
            access: wkrun::ops::dist::Access::UNIFORM,
            total_ops: None,
        };
        let ops = ops_below(&stream, n);
        let sum = |k: Direction| -> (u64, u64) {
            let v: Vec<&Op> = ops.iter().filter(|o| o.dir == k).collect();
            (v.len() as u64, v.iter().map(|o| o.len as u64).sum())
        };
        let stream_says = "= ops 0..N of the stream";
        f.eq(
            &format!("reads (ops, bytes) {stream_says}"),
            (reads, rb),
            sum(Direction::Read),
        );
        f.eq(
            &format!("writes (ops, bytes) {stream_says}"),
            (writes, wb),
            sum(Direction::Write),
        );
        let want_sizes: Vec<(u64, u64)> = weights
            .iter()
            .map(|&(b, _)| (b, ops.iter().filter(|o| o.len as u64 == b).count() as u64))
            .collect();
        f.eq(&format!("ops_by_size {stream_says}"), got_sizes, want_sizes);
        Ok(())
    });
}

/// C07: `{ "4KiB" = 0, "64KiB" = 100 }` (the zero weight listed first) issues only 64 KiB I/Os, on every engine.
#[test]
fn c07_zero_weight_size_never_issued_every_engine() {
    let test = "engines::c07_zero_weight_size_never_issued_every_engine";
    let body = r#"
[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
block_size = { "4KiB" = 0, "64KiB" = 100 }
read_percent = 70
direct = false
queue_depth = 4
duration = "300ms"
seed = 7
"#;
    each_engine(test, |f, engine| {
        let d = tempdir();
        let target = sparse_target(d.path(), 64 * MIB);
        let r = completed(f, &run_engine(d.path(), engine, body, &target, &[]))?;
        let p = phase(&r, 0);
        let n = u(p, "/read/ops") + u(p, "/write/ops");
        f.check(n > 0, || "no I/O".to_string());
        f.eq("ops_by_size", ops_by_size(p), vec![(65536, n)]);
        f.eq(
            "bytes",
            u(p, "/read/bytes") + u(p, "/write/bytes"),
            n * 65536,
        );
        f.json("", p).is("/params/block_size_bytes", 65536).is(
            "/params/block_size_mix",
            json!([{"bytes": 65536, "weight": 100}]),
        );
        Ok(())
    });
}

/// C07: a block-size mix with `pattern = "sequential"` is refused before any I/O: exit 2, the error names the
/// key, no results, nothing written.
#[test]
fn c07_size_mix_with_sequential_pattern_is_refused() {
    let d = tempdir();
    let target = sparse_target(d.path(), 64 * MIB);
    let body = r#"
[[phase]]
name = "mix"
kind = "workload"
pattern = "sequential"
block_size = { "4KiB" = 10, "32KiB" = 40, "64KiB" = 50 }
read_percent = 70
duration = "1s"
"#;
    let ran = run_engine(d.path(), "psync", body, &target, &[]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("block_size") && ran.stderr.contains("pattern = \"random\""),
        "{}",
        ran.stderr
    );
    assert!(!ran.out.join("results.json").exists(), "nothing ran");
    assert_eq!(allocated_blocks(&target), 0, "nothing was written");
}

// ---------------------------------------------------------------------------------------------------------------
// 6. Engine errors.

/// ENOSPC: a 16 MiB file target on a 4 MiB tmpfs, filled in 4 KiB writes (buffered), on every engine. At QD1 the
/// fill stops at exactly the first write that does not fit: 1,024 writes (4 MiB) done, the write at offset
/// 4,194,304 named with its length and errno 28. At QD4 (four psync workers, or four I/Os in flight) the other
/// workers stop too: still exactly 1,024 writes done, and the failing write is one of the fill's.
#[test]
fn enospc_file_on_full_tmpfs_every_engine() {
    let test = "engines::enospc_file_on_full_tmpfs_every_engine";
    if skipped(test, not_root("mounting a tmpfs")) {
        return;
    }
    for_engines(test, &[1u64, 4], |f, engine, &qd| {
        f.case(format!("{engine}, QD{qd}"));
        let body = format!(
            "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"4KiB\"\nqueue_depth = {qd}\ndirect = false\n"
        );
        let d = tempdir();
        let ran = run_on_fs(d.path(), TMPFS_4M, 16 * MIB, engine, &body)?;
        let (r, err) = failed_cleanly(f, &ran, (0, "fill"), "write of 4096 B at offset", 28)?;
        f.json("the writes that fit: ", phase(&r, 0))
            .is("/write/ops", 1024)
            .is("/write/bytes", 4 * MIB);
        let off = offset_in(&err);
        if qd == 1 {
            f.eq("failing offset", off, Some(4 * MIB));
        } else {
            f.check(off.is_some_and(|o| o % 4096 == 0 && o < 16 * MIB), || {
                format!("failing offset {off:?} is not a write of the fill: {err}")
            });
        }
        Ok(())
    });
}

/// A direct-io loop device whose backing file sits on a 4 MiB tmpfs: writes past what the tmpfs holds fail in
/// the loop driver, and the block layer hands the backing file's ENOSPC up (BLK_STS_NOSPC), on every engine.
/// (Linux 6.x reports ENOSPC here, not EIO; [`eio_loop_device_on_shut_down_ext4_every_engine`] covers EIO.)
///
/// What the device keeps is exact: its backing file holds exactly the tmpfs's 4 MiB (1,024 pages). What it
/// reports depends on the queue depth, because the loop driver completes a *short* write as a success (it
/// retries or fails only short reads: a 64 KiB write that got some pages before the tmpfs filled is reported
/// whole). At QD1 the writes reach the tmpfs one by one, each 64 KiB write takes 16 whole pages, so exactly
/// 64 writes succeed and write 64 (at 4 MiB) fails. At QD4 the last free pages can be split among the writes
/// in flight: every write that got at least one page succeeds and only a write that got none fails. All
/// 1,024 pages are taken, each success took at most 16, so at least 64 writes succeed; a write that did not
/// get its 16 pages was in flight when the tmpfs filled, so at most QD = 4 of the successes are short, and
/// if any is short the whole ones took at most 1,023 pages, that is at most 63 whole writes: at most 67
/// writes succeed (4 MiB + 192 KiB), whatever the timing.
#[test]
fn enospc_loop_device_on_full_tmpfs_every_engine() {
    let test = "engines::enospc_loop_device_on_full_tmpfs_every_engine";
    if skipped(test, not_root("loop devices and mounts")) {
        return;
    }
    for_engines(test, &[1u64, 4], |f, engine, &qd| {
        f.case(format!("{engine}, QD{qd}"));
        let body = format!(
            "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"64KiB\"\nqueue_depth = {qd}\n"
        );
        let d = tempdir();
        let _lock = loop_guard();
        let mnt = Mount::tmpfs(d.path().join("mnt"), "4m")?;
        let dev = LoopDev::new(&mnt.dir, 16, 512)?;
        let ran = run_on_device(d.path(), engine, &body, &dev.dev);
        f.eq(
            "bytes the device kept (allocated in its backing file)",
            allocated_blocks(&dev.backing) * 512,
            4 * MIB,
        );
        let (r, err) = failed_cleanly(f, &ran, (0, "fill"), "write of 65536 B at offset", 28)?;
        let (ops, bytes) = (
            u(phase(&r, 0), "/write/ops"),
            u(phase(&r, 0), "/write/bytes"),
        );
        f.eq("bytes = ops × 64 KiB", bytes, ops * 65536);
        let off = offset_in(&err);
        if qd == 1 {
            f.eq("writes that succeeded", ops, 64);
            f.eq("failing offset", off, Some(4 * MIB));
        } else {
            f.check((64..=64 + qd - 1).contains(&ops), || {
                format!("{ops} writes succeeded, not 64 to {}", 64 + qd - 1)
            });
            // The failing write was issued when at most QD − 1 others were in flight and every
            // earlier-issued write had completed, so its index is at most (successes) + QD − 1; no lower
            // bound holds (a psync worker can be preempted between claiming a write and making it).
            f.check(
                off.is_some_and(|o| o % 65536 == 0 && o / 65536 < ops + qd),
                || format!("failing offset {off:?} after {ops} writes: {err}"),
            );
        }
        Ok(())
    });
}

/// EIO: a direct-io loop device whose backing file sits on a small ext4 (itself on a loop device); once 1 MiB
/// has been written, the ext4 is shut down (EXT4_IOC_SHUTDOWN), so every later write of the loop device fails
/// with EIO. At QD1 ops 0..k completed and op k failed: the error names exactly op k's offset, on every engine.
#[test]
fn eio_loop_device_on_shut_down_ext4_every_engine() {
    let test = "engines::eio_loop_device_on_shut_down_ext4_every_engine";
    if skipped(
        test,
        not_root("loop devices and mounts").or_else(no_mkfs_ext4),
    ) {
        return;
    }
    let body = r#"
[[phase]]
name = "w"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 1
read_percent = 0
duration = "20s"
seed = 31
"#;
    let stream = random_stream(
        0,
        16 * MIB,
        4096,
        Order::Random,
        0,
        phase_seed(31, "w"),
        None,
    );
    each_engine(test, |f, engine| {
        let d = tempdir();
        let ran = run_on_loop_device_failing_after_1_mib(f, d.path(), engine, body)?;
        let (r, err) = failed_cleanly(f, &ran, (0, "w"), "write of 4096 B at offset", libc::EIO)?;
        let k = u(phase(&r, 0), "/write/ops");
        f.check(k >= 256, || format!("only {k} writes before the shutdown"));
        let want = stream.op(k).offset;
        f.eq(
            "failing offset (op k = write.ops)",
            offset_in(&err),
            Some(want),
        );
        Ok(())
    });
}

/// Runs `body` (a spec body) with `engine` on a 16 MiB loop device whose backing file lives on an ext4 that is
/// shut down (EXT4_IOC_SHUTDOWN) once 1 MiB went through the device, so that every I/O from then on fails
/// with EIO. Returns the run; [`Stop::Skip`] when the setup cannot be made here, [`Stop::Next`] (recorded in `f`)
/// when the shutdown failed. Holds the loop-device lock for the whole run.
fn run_on_loop_device_failing_after_1_mib(
    f: &mut Failures,
    d: &Path,
    engine: &str,
    body: &str,
) -> Result<Ran, Stop> {
    let _lock = loop_guard();
    let img = d.join("ext4.img");
    sparse_file(&img, 32 * MIB);
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&img)
        .output();
    if !mk.as_ref().is_ok_and(|o| o.status.success()) {
        return Err(Stop::Skip(format!("mkfs.ext4 failed: {mk:?}")));
    }
    let img_s = img.to_str().expect("utf-8 path").to_string();
    let mnt = Mount::new(d.join("mnt"), &["-o", "loop", &img_s])?;
    let dev = LoopDev::new(&mnt.dir, 16, 512)?;
    let dev_s = dev.dev.to_str().expect("utf-8 device path");
    // The device's counters live as long as the kernel's loop device, across attachments: use a difference.
    let before = dev.sectors_written();
    let running = start_engine(d, engine, body, &dev.dev, &["--allow-destroy", dev_s]);
    // Shut the ext4 down once 1 MiB went through the loop device.
    let deadline = Instant::now() + Duration::from_secs(15);
    while dev.sectors_written() - before < 2048 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let shut = ext4_shutdown(&mnt.dir);
    let ran = running.wait();
    Stop::unless(f.check(shut.is_ok(), || {
        format!("EXT4_IOC_SHUTDOWN failed: {shut:?}")
    }))?;
    Ok(ran)
}

/// EXT4_IOC_SHUTDOWN (`_IOR('X', 125, __u32)`) with EXT4_GOING_FLAGS_NOLOGFLUSH on the filesystem holding `dir`.
fn ext4_shutdown(dir: &Path) -> io::Result<()> {
    const EXT4_IOC_SHUTDOWN: libc::c_ulong = 0x8004_587d;
    const NOLOGFLUSH: u32 = 2;
    let d = fs::File::open(dir)?;
    let flags: u32 = NOLOGFLUSH;
    // SAFETY: the ioctl reads one u32 from the pointer, which points to a live local.
    let r = unsafe { libc::ioctl(d.as_raw_fd(), EXT4_IOC_SHUTDOWN as _, &flags as *const u32) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Direct I/O on a file on ramfs (which has no O_DIRECT: opening with it fails with EINVAL) is refused
/// before anything is made, on every engine that opens the target: exit 2 at the `direct` key of phase "w",
/// naming the target and EINVAL, the fill before it not run (the file stays as the test made it, no results
/// folder). It used to fail with EINVAL after the fill had written the file (exit 1).
///
/// A read or write that gets EINVAL in the middle of a phase is not reachable cleanly: the kernel's EINVAL for
/// I/O is a misaligned offset, length or buffer, and the plan refuses those first (BLKSSZGET for devices, statx
/// DIO alignment for files); changing a loop device's sector size under a run fails with EBUSY because wkrun
/// holds the device with O_EXCL; the loop driver turns its backing file's misalignment into buffered I/O.
#[test]
fn einval_direct_open_on_ramfs_every_engine() {
    let test = "engines::einval_direct_open_on_ramfs_every_engine";
    if skipped(test, not_root("mounting ramfs")) {
        return;
    }
    let body = r#"
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
direct = false

[[phase]]
name = "w"
kind = "workload"
block_size = "4KiB"
read_percent = 50
size = "1MiB"
"#;
    each_engine(test, |f, engine| {
        let d = tempdir();
        let ran = run_on_fs(d.path(), &["-t", "ramfs", "ramfs"], 8 * MIB, engine, body)?;
        if engine == "null" {
            return Ok(());
        }
        f.check(ran.code == 2, || {
            format!("{engine}: exit {}: {}", ran.code, ran.stderr)
        });
        f.contains(
            "the error",
            &ran.stderr,
            &[
                "direct",
                "direct = true cannot work on",
                "t.img",
                "Invalid argument",
            ],
        );
        f.check(!ran.out.exists(), || {
            format!("{engine}: a results folder was made")
        });
        Ok(())
    });
}

/// An engine that cannot start is a clean failure that says so: io_uring without its registered buffers (the
/// child runs with RLIMIT_MEMLOCK 0 and without CAP_IPC_LOCK, so buffer registration fails with ENOMEM). The error
/// names the phase, the engine and the errno, and does not claim that an I/O failed.
#[test]
fn io_uring_setup_failure_is_reported_as_such() {
    let test = "engines::io_uring_setup_failure_is_reported_as_such";
    let why_not = engine_unavailable("io_uring")
        .or_else(|| not_root("dropping CAP_IPC_LOCK from the bounding set"));
    if skipped(test, why_not) {
        return;
    }
    let d = tempdir();
    sparse_file(&d.path().join("t.img"), 8 * MIB);
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"io_uring\"\nread_percent = 50\nduration = \"100ms\"\n";
    write_file(d.path(), "spec.toml", &spec_text("engines", body));
    let o = Command::new("prlimit")
        .args(["--memlock=0:0", "setpriv", "--bounding-set", "-ipc_lock"])
        .arg(wkrun_bin())
        .args(["spec.toml", "--target", "t.img", "--output", "out", "-q"])
        .current_dir(d.path())
        .output();
    let o = match o {
        Ok(o) if o.status.code() != Some(127) && o.status.code() != Some(126) => o,
        other => {
            skip(
                test,
                &format!("cannot run wkrun under prlimit + setpriv: {other:?}"),
            );
            return;
        }
    };
    let ran = Ran::of(o, d.path().join("out"), "io_uring");
    if ran.code != 0 && !ran.out.join("results.json").exists() {
        let why = format!(
            "wkrun did not start under prlimit + setpriv (exit {}): {}",
            ran.code,
            ran.stderr.trim()
        );
        skip(test, &why);
        return;
    }
    if ran.code == 0 {
        skip(
            test,
            "io_uring started without locked memory here (buffers not accounted to RLIMIT_MEMLOCK)",
        );
        return;
    }
    assert!(!ran.panicked(), "{}", ran.stderr);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let (_, r) = strict_results(&ran.out);
    assert_eq!(r["status"], "failed");
    let err = r["error"].as_str().unwrap_or_default();
    assert!(ran.stderr.contains(err), "{}", ran.stderr);
    assert!(
        err.contains("phase 0 \"w\"") && err.contains("io_uring"),
        "{err}"
    );
    assert!(
        err.contains("errno 12") && !err.contains("errno 0"),
        "the error must carry the real errno (ENOMEM = 12): {err}"
    );
    assert!(
        !err.contains("write of 0 B") && !err.contains("at offset 0"),
        "no I/O was issued, yet the error describes a failed write: {err}"
    );
    assert_eq!(
        u(phase(&r, 0), "/write/ops") + u(phase(&r, 0), "/read/ops"),
        0
    );
}

// ---------------------------------------------------------------------------------------------------------------
// on_error = "continue" (issue 7, item 3): failed I/Os are counted and the phase goes on.

/// `(total, read, write, [(cause, errno, count)])` of a phase's `errors`.
type ErrorCounts = (u64, u64, u64, Vec<(String, Option<i64>, u64)>);

/// The `errors` of a phase.
fn phase_errors(p: &serde_json::Value) -> ErrorCounts {
    let e = &p["errors"];
    if e.is_null() {
        return (0, 0, 0, Vec::new());
    }
    let causes = e["by_cause"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["cause"].as_str().unwrap_or_default().to_string(),
                c["errno"].as_i64(),
                u(c, "/count"),
            )
        })
        .collect();
    (u(e, "/total"), u(e, "/read"), u(e, "/write"), causes)
}

/// `(total, read, write, [(cause, errno, count)])` for `n` errors of `cause`, all reads or all writes.
fn errors_of(n: u64, reads: bool, cause: &str, errno: Option<i64>) -> ErrorCounts {
    let (r, w) = if reads { (n, 0) } else { (0, n) };
    (n, r, w, vec![(cause.to_string(), errno, n)])
}

/// Sum of the `errors` column of the series CSV `name` in the run's output folder.
fn csv_errors(ran: &Ran, name: &str) -> u64 {
    csv_rows(&ran.out.join(name))
        .iter()
        .map(|r| r["errors"].parse::<u64>().expect("errors is an integer"))
        .sum()
}

/// ENOSPC with `on_error = "continue"` (once from `[defaults]`, once on the phase): a buffered 4 KiB fill of a
/// 16 MiB file on a 4 MiB tmpfs writes exactly the 1,024 blocks that fit, and each of the other 3,072 writes fails
/// with ENOSPC, is counted, and the fill goes on to its end: exit 0, status "completed", `errors` = 3,072 writes, all
/// ENOSPC (errno 28), the first at offset 4 MiB (QD1), and the series' `errors` column sums to 3,072. (With the
/// default, `stop`: [`on_error_stop_counts_the_one_enospc_on_full_tmpfs_every_engine`].)
#[test]
fn on_error_continue_counts_every_enospc_on_full_tmpfs_every_engine() {
    let test = "engines::on_error_continue_counts_every_enospc_on_full_tmpfs_every_engine";
    if skipped(test, not_root("mounting a tmpfs")) {
        return;
    }
    // (queue depth, whether `on_error` stands in `[defaults]` rather than on the phase)
    let variants = [(1u64, true), (4, false), (1, false)];
    for_engines(test, &variants, |f, engine, &(qd, in_defaults)| {
        let (defaults, key, place) = if in_defaults {
            ("on_error = \"continue\"\n", "", "[defaults]")
        } else {
            ("", "on_error = \"continue\"\n", "the phase")
        };
        f.case(format!("{engine}, QD{qd}, on_error in {place}"));
        let body = format!(
            "{defaults}[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"4KiB\"\nqueue_depth = {qd}\ndirect = false\n{key}"
        );
        let d = tempdir();
        let ran = run_on_fs(d.path(), TMPFS_4M, 16 * MIB, engine, &body)?;
        f.check(!ran.panicked(), || format!("panicked: {}", ran.stderr));
        let r = completed(f, &ran)?;
        let p = phase(&r, 0);
        f.json("", p)
            .is("/params/on_error", "continue")
            .is("/completed", true)
            .is("/write/ops", 1024)
            .is("/write/bytes", 4 * MIB)
            .is("/errors/first/op", "write")
            .is("/errors/first/len_bytes", 4096);
        f.eq(
            "errors",
            phase_errors(p),
            errors_of(3072, false, "ENOSPC", Some(28)),
        );
        let first = p["errors"]["first"]["offset_bytes"].as_u64();
        if qd == 1 {
            f.eq("first failing offset", first, Some(4 * MIB));
        } else {
            // Each 4 KiB write takes one page, so the first failure came once 1,024 writes had
            // succeeded, with at most QD − 1 others in flight: its index is at most 1,024 + QD − 1. No
            // lower bound holds: a psync worker preempted between claiming a write and making it makes
            // that write after the tmpfs filled (seen under load: op 652 failing first).
            f.check(
                first.is_some_and(|o| o % 4096 == 0 && o / 4096 < 1024 + qd),
                || format!("first failing offset {first:?}"),
            );
        }
        let message = &p["errors"]["first"]["message"];
        f.check(
            message
                .as_str()
                .is_some_and(|m| m.contains("write of 4096 B at offset") && m.contains("errno 28")),
            || format!("first error message {message}"),
        );
        let csv = p["series_csv"].as_str().unwrap_or_default();
        f.eq("CSV errors column sum", csv_errors(&ran, csv), 3072);
        let warnings = &p["warnings"];
        f.check(
            warnings.as_array().is_some_and(|w| {
                w.iter()
                    .any(|w| w.as_str().is_some_and(|w| w.contains("3072 I/Os failed")))
            }),
            || format!("no warning about the failed I/Os: {warnings}"),
        );
        Ok(())
    });
}

/// The default, `on_error = "stop"`, on the fill of [`on_error_continue_counts_every_enospc_on_full_tmpfs_every_engine`]:
/// the fill fails at the first ENOSPC, with that one failed write counted (`errors.total` = 1 at QD1, at offset
/// 4 MiB).
#[test]
fn on_error_stop_counts_the_one_enospc_on_full_tmpfs_every_engine() {
    let test = "engines::on_error_stop_counts_the_one_enospc_on_full_tmpfs_every_engine";
    if skipped(test, not_root("mounting a tmpfs")) {
        return;
    }
    let body =
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"4KiB\"\ndirect = false\n";
    each_engine(test, |f, engine| {
        let d = tempdir();
        let ran = run_on_fs(d.path(), TMPFS_4M, 16 * MIB, engine, body)?;
        let (r, _) = failed_cleanly(f, &ran, (0, "fill"), "write of 4096 B at offset", 28)?;
        let p = phase(&r, 0);
        f.json("", p).is("/params/on_error", "stop");
        f.eq(
            "errors",
            phase_errors(p),
            errors_of(1, false, "ENOSPC", Some(28)),
        );
        f.json("", p).is("/errors/first/offset_bytes", 4 * MIB);
        Ok(())
    });
}

/// EIO with `on_error = "continue"` on a direct-io loop device whose backing file sits on an ext4 that is shut down
/// (EXT4_IOC_SHUTDOWN) once 1 MiB went through: QD1 random 4 KiB writes bounded to 8,192 I/Os. Ops 0..k complete,
/// every later one fails with EIO and is counted: exactly k writes + 8,192 − k errors, all EIO (errno 5), the
/// first at op k's offset, and the run completes (exit 0).
#[test]
fn on_error_continue_counts_every_eio_of_a_failing_loop_device_every_engine() {
    let test = "engines::on_error_continue_counts_every_eio_of_a_failing_loop_device_every_engine";
    if skipped(
        test,
        not_root("loop devices and mounts").or_else(no_mkfs_ext4),
    ) {
        return;
    }
    const OPS: u64 = 8192;
    let body = r#"
[[phase]]
name = "w"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 1
read_percent = 0
size = "200%"
seed = 32
on_error = "continue"
"#;
    let stream = random_stream(
        0,
        16 * MIB,
        4096,
        Order::Random,
        0,
        phase_seed(32, "w"),
        Some(OPS),
    );
    each_engine(test, |f, engine| {
        let d = tempdir();
        let ran = run_on_loop_device_failing_after_1_mib(f, d.path(), engine, body)?;
        let r = completed(f, &ran)?;
        let p = phase(&r, 0);
        let k = u(p, "/write/ops");
        f.check((256..OPS).contains(&k), || format!("{k} writes completed"));
        f.eq(
            "errors",
            phase_errors(p),
            errors_of(OPS - k, false, "EIO", Some(5)),
        );
        let first = stream.op(k).offset;
        f.json("first failing offset (op k): ", p)
            .is("/errors/first/offset_bytes", first);
        let csv = p["series_csv"].as_str().unwrap_or_default();
        f.eq("CSV errors column sum", csv_errors(&ran, csv), OPS - k);
        Ok(())
    });
}

/// Short reads (IoCause::Short) with `on_error = "continue"`: a QD1 sequential, rate-capped read of an 8 MiB file
/// (2,048 reads of 4 KiB) whose file is truncated to 0 bytes while it runs. Reads 0..k return their 4 KiB; every
/// later one returns fewer bytes than asked (end of file), is counted under "short", and the phase reads on:
/// exactly k reads + 2,048 − k short reads, the first at offset k × 4 KiB.
#[test]
fn on_error_continue_counts_short_reads_of_a_truncated_file_every_engine() {
    let test = "engines::on_error_continue_counts_short_reads_of_a_truncated_file_every_engine";
    let body = r#"
[[phase]]
name = "r"
kind = "workload"
pattern = "sequential"
block_size = "4KiB"
queue_depth = 1
read_percent = 100
size = "100%"
rate_iops = 1000
interval = "100ms"
direct = false
on_error = "continue"
"#;
    each_engine(test, |f, engine| {
        let d = tempdir();
        let target = d.path().join("t.img");
        patterned_file(&target, 8 << 20);
        let running = start_engine(d.path(), engine, body, &target, &[]);
        // Truncate once the series has rows (the phase is reading), long before its 2 s end.
        let csv = running.out.join("00-r.csv");
        let deadline = Instant::now() + Duration::from_secs(20);
        while fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 4
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .and_then(|t| t.set_len(0))
            .expect("truncate the target");
        let ran = running.wait();
        let r = completed(f, &ran)?;
        let p = phase(&r, 0);
        let k = u(p, "/read/ops");
        f.check((1..2048).contains(&k), || {
            format!("{k} reads completed before the truncation")
        });
        f.eq(
            "errors",
            phase_errors(p),
            errors_of(2048 - k, true, "short", None),
        );
        f.json("", p)
            .is("/errors/first/offset_bytes", k * 4096)
            .is("/errors/first/cause", "short");
        let sum = csv_errors(&ran, "00-r.csv");
        f.eq("CSV errors column sum", sum, 2048 - k);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------------------------
// io_uring's probe of batched completion waits (engine::pace).

/// The rates (I/Os per second: batched, per completion) that a phase's "reaped in batches" warning gives.
fn batched_rates(warnings: &[String]) -> Option<(u64, u64)> {
    let w = warnings.iter().find(|w| w.starts_with(BATCHED_WAITS))?;
    let num = |after: &str| -> Option<u64> {
        let rest = &w[w.find(after)? + after.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    Some((
        num("the probe at the start of the phase completed ")?,
        num("that way against ")?,
    ))
}

/// io_uring at QD32 with one worker on a zram device (its I/O runs on an io-wq kernel thread) probes batched
/// completion waits in its first 200 ms and keeps what was faster; `completion_waits = "each"` turns the
/// probe off. Whichever it kept: every write is counted once (ops = histogram count = series sum = the
/// byte bound / 4 KiB), the verify phase finds exactly the blocks the op stream wrote, and a kept batched
/// mode is reported with rates that show its 5 % win.
#[test]
fn io_uring_probing_batched_waits_on_zram_loses_and_doubles_no_io() {
    let test = "engines::io_uring_probing_batched_waits_on_zram_loses_and_doubles_no_io";
    if skipped(test, engine_unavailable("io_uring")) {
        return;
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        skip(test, "one CPU: the plan probes only with a CPU to spare");
        return;
    }
    let zram = match Zram::new() {
        Ok(z) => z,
        Err(why) => return skip(test, &why),
    };
    // 256 MiB of 4 KiB writes over the 64 MiB device: about 0.3-0.5 s on zram in a release build (seconds in
    // the debug build the tests run), past the probe's 200 ms. Without the probe, 64 MiB (a quarter of the
    // CPU) shows the same: every write counted once, the blocks written verified.
    let phases = |waits: &str, mib: u64| {
        format!(
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nsize = \"{mib}MiB\"\nverify = true\n{waits}\n[[phase]]\nname = \"v\"\nkind = \"verify\"\n"
        )
    };
    let stream = random_stream(
        0,
        64 * MIB,
        4096,
        Order::Random,
        0,
        phase_seed(1, "w"),
        None,
    );
    for (waits, probes, mib) in [
        ("", true, 256),
        ("completion_waits = \"each\"\n", false, 64),
    ] {
        let ios = mib * 256;
        // The blocks the op stream (seed 1, phase "w") writes: each verifies, the others are never written.
        let mut written = vec![false; 16384];
        for op in stream.ops(0..ios) {
            written[(op.offset / 4096) as usize] = true;
        }
        let blocks = written.iter().filter(|&&w| w).count() as u64;
        let d = tempdir();
        let ran = run_on_device(d.path(), "io_uring", &phases(waits, mib), &zram.dev);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let (_, r) = strict_results(&ran.out);
        let p = phase(&r, 0);
        let params = &p["params"];
        assert_eq!(params.get("completions_per_wait"), None);
        let want = probes.then_some("probe");
        assert_eq!(params["completion_waits"].as_str(), want, "{waits}");
        assert_eq!(u(p, "/write/ops"), ios);
        assert_eq!(histogram_count(p, "write"), ios);
        assert_eq!(series_sum(&ran.out, &r, 0, "write_ops"), ios);
        let v = &phase(&r, 1)["verify"];
        let got: Vec<u64> = [
            "sectors",
            "ok",
            "zeroed",
            "stale",
            "corrupted",
            "unexpected",
            "unchecked",
        ]
        .iter()
        .map(|k| u(v, &format!("/{k}")))
        .collect();
        assert_eq!(
            got,
            vec![131072, blocks * 8, 0, 0, 0, 0, 131072 - blocks * 8],
            "{v}"
        );
        let warnings: Vec<String> =
            serde_json::from_value(p["warnings"].clone()).unwrap_or_default();
        // The results say what the probe measured and kept, whichever way, and only where it probed.
        let host = &p["host"]["completion_waits"];
        assert_eq!(host.is_object(), probes, "{}", p["host"]);
        if probes {
            let rate = |k: &str| host[k].as_f64().unwrap();
            assert!(
                rate("each_iops") > 0.0 && rate("batched_iops") > 0.0,
                "{host}"
            );
            let kept = host["kept"].as_str().unwrap();
            // Every round but the last was unsure; the last decides (or was the third unsure one).
            let verdicts: Vec<&str> = host["rounds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["verdict"].as_str().unwrap())
                .collect();
            let (last, before) = verdicts.split_last().unwrap();
            assert!(
                verdicts.len() <= 3 && before.iter().all(|&v| v == "unsure"),
                "{host}"
            );
            let want = match (kept, verdicts.len()) {
                ("batched", _) => vec!["won"],
                (_, 3) => vec!["lost", "unsure"],
                _ => vec!["lost"],
            };
            assert!(want.contains(last), "{host}");
            assert_eq!(
                kept == "batched",
                batched_rates(&warnings).is_some(),
                "{host}"
            );
            if kept == "batched" {
                assert!(rate("batched_iops") >= rate("each_iops") * 1.05 * (1.0 - 1e-12));
                let (b, e) = batched_rates(&warnings).unwrap();
                assert_eq!(
                    (b, e),
                    (
                        rate("batched_iops").round() as u64,
                        rate("each_iops").round() as u64
                    )
                );
            }
        }
        match batched_rates(&warnings) {
            Some((batched, each)) => {
                assert!(probes, "{warnings:?}");
                // Rounded to whole I/Os per second: the 5 % rule within one I/O per second.
                assert!(batched * 1000 + 1050 >= each * 1050, "{warnings:?}");
                println!("{test}: batched waits kept ({batched} against {each} I/Os per second)");
            }
            None if probes => println!("{test}: the probe kept waits per completion"),
            None => {}
        }
    }
}

/// Issue 24 item 22: a target file shortened during the run fails the phase (`on_error = "stop"`) with the
/// reason, not with "short transfer" alone.
#[test]
fn a_target_shortened_during_the_run_is_named_as_such() {
    let body = "[[phase]]\nname = \"r\"\nkind = \"workload\"\nengine = \"psync\"\npattern = \"sequential\"\n\
                block_size = \"4KiB\"\nqueue_depth = 1\nread_percent = 100\nsize = \"100%\"\nrate_iops = 1000\n\
                interval = \"100ms\"\ndirect = false\n";
    let d = tempdir();
    let target = d.path().join("t.img");
    patterned_file(&target, 8 << 20);
    let running = start_engine(d.path(), "psync", body, &target, &[]);
    let csv = running.out.join("00-r.csv");
    let deadline = Instant::now() + Duration::from_secs(20);
    while fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 4 && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .and_then(|t| t.set_len(0))
        .expect("truncate the target");
    let ran = running.wait();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("failed: short transfer: 0 of 4096 B: the target file is now 0 B, ending inside this I/O: it was shortened during the run"),
        "{}",
        ran.stderr
    );
}
