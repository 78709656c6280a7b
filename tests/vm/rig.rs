//! The rig: boots a Debian kernel in QEMU (TCG) once per group of tests, with an emulated NVMe controller, the
//! null_blk and device-mapper modules and wkrun in the initramfs; runs each test's guest script in turn; brings
//! the scripts' files back on a second disk (a tar archive the guest writes to `/dev/vda`).
//!
//! The guest: busybox (every applet), wkrun (this build's binary, debug info stripped when `objcopy` can) and
//! `dmsetup` and `nvme` when the host has them, each with the shared libraries `ldd` names; the modules
//! `modprobe -S VERSION --show-depends` lists for [`MODULES`]. Its devices: an NVMe controller (serial
//! `wkvm0001`) with namespace 1 of 64 MiB in 512-byte blocks, namespace 2 of 64 MiB in 4096-byte blocks,
//! namespace 3 zoned (128 MiB, 4096-byte blocks, 16 MiB zones, at most 4 open and 6 active), and the
//! output disk. A case runs in `/out/<case>` (a tmpfs) under a time limit; everything it leaves there comes
//! back to the test. Each `results.json` that comes back is checked with the host's `wkrun validate`.
//!
//! Where the VM cannot boot (not root, no QEMU, no kernel in /boot, no busybox, a module missing, or
//! `WKRUN_VM=0`) each test prints `SKIPPED <test>: <reason>` and passes. `WKRUN_VM_KEEP=1` keeps the
//! work folder (initramfs, disks, console) and prints its path; `WKRUN_VM_TIMEOUT` bounds a boot (seconds,
//! default 600).

use super::initramfs::Cpio;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One test's guest script, run with the helpers of [`GUEST_LIB`] in `/out/<name>`.
pub struct Case {
    /// The test's name (the folder its files come back in).
    pub name: &'static str,
    /// Shell (busybox sh) run in the guest.
    pub script: &'static str,
}

/// Tests that share one boot: their scripts run in order in one VM.
pub struct Group {
    name: &'static str,
    cases: &'static [Case],
    /// Host programs copied into this group's guest (with their libraries) besides [`TOOLS`], when the host
    /// has them.
    tools: &'static [&'static str],
    boot: OnceLock<Boot>,
}

impl Group {
    /// A group of `cases`, booted when its first test asks.
    pub const fn new(name: &'static str, cases: &'static [Case]) -> Group {
        Group::with_tools(name, cases, &[])
    }

    /// [`Group::new`], and the group's guest also gets `tools` (fio: 84 MB with its libraries, so only where a
    /// test runs it).
    pub const fn with_tools(
        name: &'static str,
        cases: &'static [Case],
        tools: &'static [&'static str],
    ) -> Group {
        Group {
            name,
            cases,
            tools,
            boot: OnceLock::new(),
        }
    }
}

/// Host programs every guest gets (with their libraries) when the host has them.
const TOOLS: &[&str] = &["dmsetup", "nvme"];

enum Boot {
    Skipped(String),
    Broken(String),
    Ran(Ran),
}

/// What a boot brought back.
struct Ran {
    /// Every file the cases left, by path under `/out` (`case/run.rc`).
    files: BTreeMap<String, Vec<u8>>,
    /// The serial console.
    console: String,
}

/// Modules the guest loads (with their dependencies), and the arguments of each.
pub const MODULES: &[(&str, &str)] = &[
    ("virtio_pci", ""),
    ("virtio_blk", ""),
    ("nvme", ""),
    ("null_blk", "nr_devices=0"),
    ("dm-delay", ""),
    ("dm-flakey", ""),
];

/// Shell helpers every case script may call (busybox sh).
pub const GUEST_LIB: &str = r#"
export DM_DISABLE_UDEV=1
now() { cut -d' ' -f1 /proc/uptime; }
# spec NAME: the head of a spec file
spec() { printf 'format = 1\n[spec]\nname = "%s"\nversion = "1"\n' "$1"; }
# cmd RUN PROGRAM ARGS...: RUN.out (stdout), RUN.log (stderr), RUN.rc, RUN.time (uptime before and after, s)
cmd() { r=$1; shift; t0=$(now); "$@" >"$r.out" 2>"$r.log"; echo $? >"$r.rc"; echo "$t0 $(now)" >"$r.time"; }
# wk RUN ARGS...: a wkrun run with its results in the folder RUN (quiet)
wk() { r=$1; shift; cmd "$r" wkrun "$@" -o "$r" -q; }
wait_dev() { i=0; while [ ! -b "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; [ -b "$1" ]; }
# nullb NAME MIB [ATTR=VALUE...]: a memory-backed null_blk device /dev/NAME, made through configfs
nullb() {
  d=/sys/kernel/config/nullb/$1; mkdir "$d" || return 1
  echo "$2" >"$d/size"; echo 1 >"$d/memory_backed"; shift 2
  for kv in "$@"; do echo "${kv#*=}" >"$d/${kv%%=*}" || { echo "null_blk ${kv%%=*}: refused"; return 1; }; done
  echo 1 >"$d/power"; wait_dev "/dev/$(basename "$d")"
}
# dm NAME TABLE: a device-mapper device /dev/mapper/NAME
dm() { dmsetup create "$1" --noudevsync --table "$2" && dmsetup mknodes "$1" && wait_dev "/dev/mapper/$1"; }
# polled NAME READ_PERCENT [LINE...]: a phase of 1000 random 4 KiB I/Os on io_uring with polled completions
# (its `polled` key on the phase's fifth line), and LINEs
polled() {
  printf '[[phase]]\nname = "%s"\nkind = "workload"\nengine = "io_uring"\npolled = true\npattern = "random"\nread_percent = %s\nblock_size = "4KiB"\nsize = "4000KiB"\n' "$1" "$2"
  shift 2; for l; do echo "$l"; done
}
# skip REASON: the test prints SKIPPED with REASON
skip() { echo "$*" >skipped; exit 0; }
need() { for t; do command -v "$t" >/dev/null || skip "no $t in the guest (install it on the host)"; done; }
# md5 DEVICE BLOCK COUNT [SKIP]: md5 of COUNT blocks read with O_DIRECT
md5() { dd if="$1" bs="$2" count="$3" skip="${4:-0}" iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }
"#;

/// The guest's `/init`: mounts, modules, the devices awaited, each case under a time limit, the results saved.
const INIT: &str = r#"#!/bin/sh
export PATH=/bin:/sbin
mount -t proc p /proc; mount -t sysfs s /sys; mount -t devtmpfs d /dev; mount -t tmpfs t /tmp; mkdir -p /out; mount -t tmpfs o /out
while read -r m a; do insmod /mods/$m $a || echo "=== insmod $m failed"; done </mods/order
mount -t configfs none /sys/kernel/config
i=0; while { [ ! -b /dev/vda ] || [ ! -b /dev/nvme0n3 ]; } && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
echo "=== guest up: $(uname -r) at $(cut -d' ' -f1 /proc/uptime) s: $(ls /dev | grep -E '^(nvme|vd)' | tr '\n' ' ')"
# stuck: what a case that did not end left behind (each wkrun or fio thread's kernel stack, the kernel's log),
# then those processes killed so that the next case starts alone
stuck() {
  for p in /proc/[0-9]*; do
    case "$(cat "$p/comm" 2>/dev/null)" in wkrun|fio) ;; *) continue ;; esac
    echo "== pid ${p#/proc/}: $(tr '\0' ' ' <"$p/cmdline")"
    for t in "$p"/task/*; do
      echo "-- thread ${t##*/} $(cat "$t/comm") $(grep '^State' "$t/status") wchan $(cat "$t/wchan" 2>/dev/null)"
      cat "$t/stack" 2>/dev/null
    done
    kill -9 "${p#/proc/}"
  done
  echo "== kernel log (end)"; dmesg | tail -n 60
}
for c in $(cat /cases/order); do
  mkdir -p /out/$c; cd /out/$c
  echo "=== case $c at $(cut -d' ' -f1 /proc/uptime) s"
  timeout CASE_TIMEOUT sh -c '. /lib.sh; . /cases/'$c'.sh; exit 0' >console.log 2>&1; rc=$?; echo $rc >exit
  [ "$rc" = 0 ] || stuck >stuck.txt 2>&1
  echo "=== case $c exit $(cat exit) at $(cut -d' ' -f1 /proc/uptime) s"
done
cd /; tar -cf /dev/vda -C /out . && sync && echo "=== saved"
poweroff -f
"#;

/// Seconds a case may take in the guest.
const CASE_TIMEOUT_S: u32 = 150;

/// The output of one case of a booted group.
pub struct CaseOut {
    case: &'static str,
    ran: &'static Ran,
}

/// The files `test`'s case (in `group`) brought back; `None` (and a SKIPPED line) when the VM cannot boot
/// here or the case skipped itself. Panics when the VM booted but the case did not run to its end.
pub fn case(group: &'static Group, test: &'static str) -> Option<CaseOut> {
    assert!(
        group.cases.iter().any(|c| c.name == test),
        "{test} is not a case of the VM group {}",
        group.name
    );
    boot_selected();
    match group.boot.get_or_init(|| boot(group)) {
        Boot::Skipped(why) => {
            skip(test, why);
            None
        }
        Boot::Broken(why) => panic!("the VM of group {} failed: {why}", group.name),
        Boot::Ran(ran) => {
            let out = CaseOut { case: test, ran };
            let exit = out.text("exit");
            assert_eq!(
                exit.trim(),
                "0",
                "case {test} ended with exit {} (124: it timed out)\n{}",
                exit.trim(),
                out.context()
            );
            if out.has("skipped") {
                skip(test, out.text("skipped").trim());
                return None;
            }
            Some(out)
        }
    }
}

/// Starts, once, a boot of every group with a test that the command line's filters select, each on its own
/// thread: the VMs run side by side (one emulated CPU each) rather than one group after another.
fn boot_selected() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let (filters, skips) = filters(std::env::args().skip(1));
        for &g in crate::GROUPS {
            let selected = g.cases.iter().any(|c| {
                let test = format!("{}::{}", g.name, c.name);
                (filters.is_empty() || filters.iter().any(|f| test.contains(f.as_str())))
                    && !skips.iter().any(|s| test.contains(s.as_str()))
            });
            if selected {
                std::thread::spawn(move || g.boot.get_or_init(|| boot(g)));
            }
        }
    });
}

/// The test harness's name filters and `--skip` patterns among `args` (flags and their values left out;
/// a value taken for a filter only boots a group that no test then asks for).
fn filters(mut args: impl Iterator<Item = String>) -> (Vec<String>, Vec<String>) {
    let (mut filters, mut skips) = (Vec::new(), Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--skip" => skips.extend(args.next()),
            _ if a.starts_with("--skip=") => skips.push(a["--skip=".len()..].to_string()),
            "--test-threads" | "--logfile" | "--color" | "--format" | "-Z" | "--shuffle-seed" => {
                args.next();
            }
            _ if a.starts_with('-') => {}
            _ => filters.push(a),
        }
    }
    (filters, skips)
}

/// Prints a skip line past the test harness's capture.
fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}

impl CaseOut {
    /// Whether the case left `rel` (a path under its folder).
    pub fn has(&self, rel: &str) -> bool {
        self.ran.files.contains_key(&format!("{}/{rel}", self.case))
    }

    /// The text of the case's file `rel`.
    pub fn text(&self, rel: &str) -> String {
        match self.ran.files.get(&format!("{}/{rel}", self.case)) {
            Some(b) => String::from_utf8_lossy(b).into_owned(),
            None => panic!("case {} left no file {rel}\n{}", self.case, self.context()),
        }
    }

    /// The bytes of the case's file `rel`.
    pub fn bytes(&self, rel: &str) -> &[u8] {
        match self.ran.files.get(&format!("{}/{rel}", self.case)) {
            Some(b) => b,
            None => panic!("case {} left no file {rel}\n{}", self.case, self.context()),
        }
    }

    /// The exit code of the guest command `run`.
    pub fn rc(&self, run: &str) -> i32 {
        let t = self.text(&format!("{run}.rc"));
        t.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{run}.rc: {t:?}"))
    }

    /// The standard error of the guest command `run`.
    pub fn log(&self, run: &str) -> String {
        self.text(&format!("{run}.log"))
    }

    /// The standard output of the guest command `run`.
    pub fn stdout(&self, run: &str) -> String {
        self.text(&format!("{run}.out"))
    }

    /// Seconds the guest command `run` took (uptime, 10 ms steps).
    pub fn seconds(&self, run: &str) -> f64 {
        let t = self.text(&format!("{run}.time"));
        let v: Vec<f64> = t
            .split_whitespace()
            .filter_map(|s| s.parse().ok())
            .collect();
        assert_eq!(v.len(), 2, "{run}.time: {t:?}");
        v[1] - v[0]
    }

    /// The `results.json` of the wkrun run `run`, checked by the host's `wkrun validate` after the boot.
    pub fn results(&self, run: &str) -> serde_json::Value {
        let rel = format!("{run}/results.json");
        if self.has(&format!("{rel}.invalid")) {
            panic!(
                "{}/{rel} does not validate: {}",
                self.case,
                self.text(&format!("{rel}.invalid"))
            );
        }
        serde_json::from_str(&self.text(&rel))
            .unwrap_or_else(|e| panic!("{}/{rel}: {e}\n{}", self.case, self.context()))
    }

    /// The case's console (its script's output) and the VM's console lines about it, for failure messages.
    pub fn context(&self) -> String {
        let own = self
            .ran
            .files
            .get(&format!("{}/console.log", self.case))
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        let tail: Vec<&str> = self.ran.console.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        // A guest command that started (its .log exists) but never wrote its exit status (.rc).
        let prefix = format!("{}/", self.case);
        let unended: String = self
            .ran
            .files
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix)?.strip_suffix(".log"))
            .filter(|run| *run != "console" && !self.has(&format!("{run}.rc")))
            .map(|run| format!("--- {run} did not end; its stderr:\n{}\n", self.log(run)))
            .collect();
        let stuck = if self.has("stuck.txt") {
            format!("--- left behind (stuck.txt):\n{}\n", self.text("stuck.txt"))
        } else {
            String::new()
        };
        format!(
            "--- case {} console:\n{own}{unended}{stuck}--- VM console (end):\n{}",
            self.case,
            tail.join("\n")
        )
    }
}

/// What the host has to boot with.
struct Host {
    qemu: PathBuf,
    kernel: PathBuf,
    version: String,
    busybox: PathBuf,
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Why the VM cannot boot here, or what it boots with.
fn host() -> Result<Host, String> {
    if std::env::var("WKRUN_VM").is_ok_and(|v| v == "0") {
        return Err("WKRUN_VM=0".into());
    }
    // /proc/self belongs to the process's effective user.
    let euid = fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m));
    if euid.ok() != Some(0) {
        return Err("needs root (the kernel image in /boot is readable by root only)".into());
    }
    let qemu = which("qemu-system-x86_64")
        .ok_or("no qemu-system-x86_64 (apt-get install qemu-system-x86)")?;
    let busybox = which("busybox").ok_or("no busybox (apt-get install busybox-static)")?;
    which("modprobe").ok_or("no modprobe (apt-get install kmod)")?;
    let mut kernels: Vec<(Vec<u64>, String)> = fs::read_dir("/boot")
        .map_err(|e| format!("cannot read /boot: {e}"))?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let v = name.strip_prefix("vmlinuz-")?.to_string();
            Path::new("/lib/modules")
                .join(&v)
                .join("modules.dep")
                .is_file()
                .then(|| (version_key(&v), v))
        })
        .collect();
    kernels.sort();
    let (_, version) = kernels.pop().ok_or(
        "no kernel in /boot with its modules in /lib/modules (apt-get install linux-image-amd64)",
    )?;
    let kernel = PathBuf::from(format!("/boot/vmlinuz-{version}"));
    fs::File::open(&kernel).map_err(|e| format!("cannot read {}: {e}", kernel.display()))?;
    Ok(Host {
        qemu,
        kernel,
        version,
        busybox,
    })
}

/// A kernel version's numbers, for ordering (`6.1.0-57-amd64` → [6, 1, 0, 57]).
fn version_key(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect()
}

fn boot(group: &Group) -> Boot {
    let host = match host() {
        Ok(h) => h,
        Err(why) => return Boot::Skipped(why),
    };
    let work = match tempfile::Builder::new().prefix("wkrun-vm-").tempdir() {
        Ok(w) => w,
        Err(e) => return Boot::Broken(format!("cannot make a work folder: {e}")),
    };
    let result = match initramfs(&host, group, &work.path().join("initrd")) {
        Ok(()) => run_vm(&host, work.path(), group.name),
        Err(Missing(why)) => Boot::Skipped(why),
    };
    if std::env::var("WKRUN_VM_KEEP").is_ok_and(|v| v == "1") {
        let kept = work.keep();
        let _ = writeln!(
            std::io::stderr().lock(),
            "VM group {} kept in {}",
            group.name,
            kept.display()
        );
    }
    result
}

/// Something the guest needs that the host lacks (the tests then skip), or an I/O error building it.
struct Missing(String);

impl From<std::io::Error> for Missing {
    fn from(e: std::io::Error) -> Missing {
        Missing(format!("cannot build the initramfs: {e}"))
    }
}

/// The guest's root: files added once each, parent folders first.
struct Root {
    cpio: Cpio,
    dirs: BTreeSet<String>,
    files: BTreeSet<String>,
}

impl Root {
    fn parents(&mut self, guest: &str) -> std::io::Result<()> {
        let mut at = String::new();
        let parts: Vec<&str> = guest.trim_matches('/').split('/').collect();
        for p in &parts[..parts.len() - 1] {
            at.push('/');
            at.push_str(p);
            if self.dirs.insert(at.clone()) {
                self.cpio.dir(&at)?;
            }
        }
        Ok(())
    }

    fn dir(&mut self, guest: &str) -> std::io::Result<()> {
        self.parents(guest)?;
        if self.dirs.insert(guest.to_string()) {
            self.cpio.dir(guest)?;
        }
        Ok(())
    }

    fn data(&mut self, guest: &str, mode: u32, data: &[u8]) -> std::io::Result<()> {
        if !self.files.insert(guest.to_string()) {
            return Ok(());
        }
        self.parents(guest)?;
        self.cpio.file(guest, mode, data)
    }

    fn symlink(&mut self, guest: &str, to: &str) -> std::io::Result<()> {
        if !self.files.insert(guest.to_string()) {
            return Ok(());
        }
        self.parents(guest)?;
        self.cpio.symlink(guest, to)
    }

    /// A program at `guest`, read from `host`, and the shared libraries `ldd` names for it at their paths.
    fn program(&mut self, host: &Path, guest: &str) -> std::io::Result<()> {
        self.data(guest, 0o755, &fs::read(host)?)?;
        let out = Command::new("ldd").arg(host).output()?;
        for lib in String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter(|w| w.starts_with('/'))
        {
            let data = fs::read(lib)?;
            self.data(lib, 0o755, &data)?;
        }
        Ok(())
    }
}

fn initramfs(host: &Host, group: &Group, path: &Path) -> Result<(), Missing> {
    let mut root = Root {
        cpio: Cpio::create(path)?,
        dirs: BTreeSet::new(),
        files: BTreeSet::new(),
    };
    for d in [
        "/bin", "/sbin", "/dev", "/proc", "/sys", "/tmp", "/out", "/mods", "/cases",
    ] {
        root.dir(d)?;
    }
    root.cpio.char_dev("/dev/console", 5, 1)?;
    root.program(&host.busybox, "/bin/busybox")?;
    let applets = Command::new(&host.busybox).arg("--list").output()?;
    for a in String::from_utf8_lossy(&applets.stdout).split_whitespace() {
        root.symlink(&format!("/bin/{a}"), "busybox")?;
    }
    root.program(
        &wkrun_binary(path.parent().unwrap_or(Path::new("/tmp"))),
        "/bin/wkrun",
    )?;
    for &tool in TOOLS.iter().chain(group.tools) {
        if let Some(p) = which(tool) {
            root.program(&p, &format!("/bin/{tool}"))?;
        }
    }
    modules(&mut root, &host.version)?;
    root.data(
        "/init",
        0o755,
        INIT.replace("CASE_TIMEOUT", &CASE_TIMEOUT_S.to_string())
            .as_bytes(),
    )?;
    root.data("/lib.sh", 0o644, GUEST_LIB.as_bytes())?;
    let order: Vec<&str> = group.cases.iter().map(|c| c.name).collect();
    root.data("/cases/order", 0o644, (order.join("\n") + "\n").as_bytes())?;
    for c in group.cases {
        root.data(&format!("/cases/{}.sh", c.name), 0o644, c.script.as_bytes())?;
    }
    root.cpio.finish()?;
    Ok(())
}

/// This build's wkrun, without its debug information when `objcopy` can strip it (a debug build's binary is
/// mostly debug information, which the guest would copy into memory for nothing).
fn wkrun_binary(work: &Path) -> PathBuf {
    let built = PathBuf::from(env!("CARGO_BIN_EXE_wkrun"));
    let stripped = work.join("wkrun");
    let ok = Command::new("objcopy")
        .arg("--strip-debug")
        .arg(&built)
        .arg(&stripped)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok { stripped } else { built }
}

/// The modules of [`MODULES`] and their dependencies, in load order, in `/mods` with `/mods/order`
/// (`FILE ARGS` per line); compressed modules (`.ko.xz`, `.ko.zst`, `.ko.gz`) unpacked for busybox's insmod.
fn modules(root: &mut Root, version: &str) -> Result<(), Missing> {
    let mut order = String::new();
    let mut seen = BTreeSet::new();
    for (module, args) in MODULES {
        let out = Command::new("modprobe")
            .args(["-S", version, "--show-depends", module])
            .output()?;
        if !out.status.success() {
            return Err(Missing(format!(
                "the kernel {version} has no module {module}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let mut w = line.split_whitespace();
            let (Some("insmod"), Some(file)) = (w.next(), w.next()) else {
                continue; // "builtin NAME"
            };
            if !seen.insert(file.to_string()) {
                continue;
            }
            let (name, data) = unpacked(Path::new(file))?;
            let stem = name.trim_end_matches(".ko").replace('-', "_");
            let a = if stem == module.replace('-', "_") {
                *args
            } else {
                ""
            };
            root.data(&format!("/mods/{name}"), 0o644, &data)?;
            order.push_str(&format!("{name} {a}\n"));
        }
    }
    root.data("/mods/order", 0o644, order.as_bytes())?;
    Ok(())
}

/// A module file's name as `NAME.ko` and its bytes, decompressed.
fn unpacked(file: &Path) -> Result<(String, Vec<u8>), Missing> {
    let name = file
        .file_name()
        .and_then(OsStr::to_str)
        .ok_or_else(|| Missing(format!("module path {}", file.display())))?;
    let tool = match name.rsplit('.').next() {
        Some("xz") => Some("xz"),
        Some("zst") => Some("zstd"),
        Some("gz") => Some("gzip"),
        _ => None,
    };
    let Some(tool) = tool else {
        return Ok((name.to_string(), fs::read(file)?));
    };
    let out = Command::new(tool)
        .arg("-dc")
        .arg(file)
        .output()
        .map_err(|e| Missing(format!("cannot unpack {} with {tool}: {e}", file.display())))?;
    if !out.status.success() {
        return Err(Missing(format!("{tool} -dc {} failed", file.display())));
    }
    let bare = name.rsplit_once('.').map_or(name, |(b, _)| b);
    Ok((bare.to_string(), out.stdout))
}

/// Makes the disks, boots, waits for the guest to power off (or the time limit), reads back `/out`.
fn run_vm(host: &Host, work: &Path, group: &str) -> Boot {
    let disk = |name: &str, len: u64| -> std::io::Result<PathBuf> {
        let p = work.join(name);
        fs::File::create(&p)?.set_len(len)?;
        Ok(p)
    };
    let mib = 1 << 20;
    let disks = (|| {
        Ok::<_, std::io::Error>([
            disk("ns1.img", 64 * mib)?,
            disk("ns2.img", 64 * mib)?,
            disk("ns3.img", 128 * mib)?,
            disk("out.img", 256 * mib)?,
        ])
    })();
    let disks = match disks {
        Ok(d) => d,
        Err(e) => return Boot::Broken(format!("cannot make the disk images: {e}")),
    };
    let console = work.join("console.log");
    let mut args: Vec<String> = vec![
        "-accel",
        "tcg",
        "-cpu",
        "max",
        "-m",
        "1536",
        "-smp",
        "1",
        "-nodefaults",
        "-display",
        "none",
        "-no-reboot",
        "-monitor",
        "none",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    args.push("-serial".into());
    args.push(format!("file:{}", console.display()));
    args.push("-kernel".into());
    args.push(host.kernel.display().to_string());
    args.push("-initrd".into());
    args.push(work.join("initrd").display().to_string());
    args.push("-append".into());
    args.push("console=ttyS0 panic=-1 quiet loglevel=1".into());
    args.extend(nvme_args(&disks));
    args.push("-drive".into());
    args.push(format!(
        "file={},if=none,id=out,format=raw",
        disks[3].display()
    ));
    args.push("-device".into());
    args.push("virtio-blk-pci,drive=out".into());
    let limit = std::env::var("WKRUN_VM_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let t0 = Instant::now();
    let status = match wait_for(
        Command::new(&host.qemu)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
        Duration::from_secs(limit),
    ) {
        Ok(s) => s,
        Err(e) => return Boot::Broken(format!("{}: {e}", host.qemu.display())),
    };
    let console = fs::read_to_string(&console).unwrap_or_default();
    let tail = || {
        console
            .lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    };
    if !console.contains("=== saved") {
        return Boot::Broken(format!(
            "the guest did not save its results ({status}, {:.0} s); console:\n{}",
            t0.elapsed().as_secs_f64(),
            tail()
        ));
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "VM group {group}: {:.1} s ({})",
        t0.elapsed().as_secs_f64(),
        case_times(&console)
    );
    match read_back(&disks[3], &work.join("out")) {
        Ok(files) => Boot::Ran(Ran { files, console }),
        Err(e) => Boot::Broken(format!("cannot read the guest's results: {e}\n{}", tail())),
    }
}

/// Each case's time in the guest, from the console's `=== case` lines: `up 7.3 s, NAME 1.2 s, ...`.
fn case_times(console: &str) -> String {
    let mut out = Vec::new();
    let mut start = None;
    for line in console.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let at = |i: usize| w.get(i).and_then(|v| v.parse::<f64>().ok());
        match w.as_slice() {
            ["===", "guest", "up:", ..] => {
                if let Some(t) = w.iter().position(|&x| x == "at").and_then(|i| at(i + 1)) {
                    out.push(format!("up {t:.1} s"));
                }
            }
            ["===", "case", name, "at", ..] => start = at(4).map(|t| (name.to_string(), t)),
            ["===", "case", name, "exit", _, "at", ..] => {
                if let (Some((n, t0)), Some(t1)) = (start.take(), at(6))
                    && n == *name
                {
                    out.push(format!("{n} {:.1} s", t1 - t0));
                }
            }
            _ => {}
        }
    }
    out.join(", ")
}

/// The NVMe controller and its three namespaces.
fn nvme_args(disks: &[PathBuf; 4]) -> Vec<String> {
    let ns = |i: usize, extra: &str| {
        [
            "-drive".to_string(),
            format!(
                "file={},if=none,id=ns{i},format=raw,discard=unmap",
                disks[i - 1].display()
            ),
            "-device".to_string(),
            format!("nvme-ns,drive=ns{i},bus=nvme0,nsid={i}{extra}"),
        ]
    };
    let mut a = vec![
        "-device".to_string(),
        "nvme,id=nvme0,serial=wkvm0001".to_string(),
    ];
    a.extend(ns(1, ",logical_block_size=512,physical_block_size=512"));
    a.extend(ns(2, ",logical_block_size=4096,physical_block_size=4096"));
    a.extend(ns(
        3,
        ",logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=16M,zoned.max_open=4,zoned.max_active=6",
    ));
    a
}

/// Runs `cmd` until it exits or `limit` passes (then kills it); its status, or what stopped it, in words.
fn wait_for(cmd: &mut Command, limit: Duration) -> std::io::Result<String> {
    let mut child = cmd.spawn()?;
    let t0 = Instant::now();
    loop {
        if let Some(s) = child.try_wait()? {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            return Ok(format!(
                "QEMU {s}{}",
                if err.is_empty() {
                    String::new()
                } else {
                    format!(": {}", err.trim())
                }
            ));
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(format!(
                "killed after {} s (WKRUN_VM_TIMEOUT)",
                limit.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Unpacks the tar archive the guest wrote on the output disk into `dir` and reads every file; each
/// `results.json` is checked with the host's `wkrun validate`, a failure kept as `results.json.invalid`.
fn read_back(disk: &Path, dir: &Path) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    fs::create_dir_all(dir)?;
    let st = Command::new("tar")
        .arg("-xf")
        .arg(disk)
        .arg("-C")
        .arg(dir)
        .status()?;
    if !st.success() {
        return Err(std::io::Error::other(format!("tar -xf: {st}")));
    }
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d)?.flatten() {
            let p = e.path();
            if e.file_type()?.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            if rel.ends_with("/results.json") {
                let v = Command::new(env!("CARGO_BIN_EXE_wkrun"))
                    .arg("validate")
                    .arg(&p)
                    .output()?;
                if !v.status.success() {
                    let why = String::from_utf8_lossy(&v.stderr).into_owned();
                    files.insert(format!("{rel}.invalid"), why.into_bytes());
                }
            }
            files.insert(rel, fs::read(&p)?);
        }
    }
    Ok(files)
}
