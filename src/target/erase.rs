//! Erase phases, on every kind of target: which methods a target can do (checked when the plan is made, case
//! C09), and the erase itself: punched holes in files; BLKSECDISCARD, BLKDISCARD or BLKZEROOUT on block devices,
//! split into ranges the device accepts; a discard on the simulated drive.

use super::{TargetInfo, TargetKind, kinds};
use crate::sim::SimDevice;
use crate::vocab::EraseMethod;
use std::fs::File;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

/// How an erase reaches its target.
#[derive(Clone, Copy)]
pub enum Access<'a> {
    /// A file or block device: the target held open for the run ([`super::open::Held`]).
    Host(&'a File),
    /// A simulated drive: the run's model of it, which keeps its state from phase to phase.
    Sim(&'a Mutex<SimDevice>),
}

impl<'a> From<&'a File> for Access<'a> {
    fn from(f: &'a File) -> Access<'a> {
        Access::Host(f)
    }
}

impl<'a> From<&'a Mutex<SimDevice>> for Access<'a> {
    fn from(d: &'a Mutex<SimDevice>) -> Access<'a> {
        Access::Sim(d)
    }
}

/// What an erase did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Erased {
    /// The method used: for `auto`, the one the target supports (on the simulated drive, `discard`).
    pub method_used: EraseMethod,
    /// The simulated drive's virtual time for the erase, ns; `None` on the host, where the caller's clock is
    /// the erase's time.
    pub drive_time_ns: Option<u64>,
}

impl Erased {
    /// An erase on the host with `method_used`.
    pub(super) fn host(method_used: EraseMethod) -> Erased {
        Erased {
            method_used,
            drive_time_ns: None,
        }
    }
}

/// The hint that goes with an [`erase_problem`] in the plan's message.
pub const PROBLEM_HINT: &str = "method = \"auto\" picks what the target supports";

/// Why `method` cannot erase `span` (`(start, len)` in bytes) of `target`, as the whole message (`erase method
/// "discard" needs discard support, ...`); `None` when it can. `auto` always can: it picks what the target
/// supports. Case C09: an explicit method the target cannot do is refused when the plan is made.
pub fn erase_problem(target: &TargetInfo, method: EraseMethod, span: (u64, u64)) -> Option<String> {
    // `auto` always can, but on a zoned device it resets zones, which needs whole zones.
    if method == EraseMethod::Auto && target.zoned.is_none() {
        return None;
    }
    kinds::of(target.kind)
        .erase_problem(target, method, span)
        .map(|why| format!("erase method \"{}\" {why}", method.as_str()))
}

/// Erases `[start, start + len)` of `target` through `access` with `method`; returns the method used (for
/// `auto`, the first the target supports) and, on the simulated drive, the time the drive took.
///
/// Block devices are erased in ranges of at most `discard_max_bytes` (1 GiB for zero-out); `stop` is checked
/// between ranges.
///
/// # Errors
/// `ErrorKind::Unsupported` with the words of [`erase_problem`] for a method the target cannot do;
/// `ErrorKind::InvalidInput` when `access` is not of the target's kind; the OS error of the method used (for
/// an explicit method its failure: no silent fallback); `ErrorKind::Interrupted` when `stop` was set between
/// ranges.
pub fn erase(
    target: &TargetInfo,
    access: Access<'_>,
    method: EraseMethod,
    start: u64,
    len: u64,
    stop: &AtomicBool,
) -> io::Result<Erased> {
    if let Some(why) = erase_problem(target, method, (start, len)) {
        return Err(io::Error::new(io::ErrorKind::Unsupported, why));
    }
    kinds::of(target.kind).erase(kinds::Job {
        t: target,
        access,
        method,
        start,
        len,
        stop,
    })
}

/// Why a workload's trims (`trim_percent`) cannot run on `target`, as the whole message (`trims are
/// discards (BLKDISCARD), and /dev/sdz cannot discard ...`); `None` when they can: a block device that
/// discards, a file system that punches holes, the simulated drive.
pub fn trim_problem(target: &TargetInfo) -> Option<String> {
    kinds::of(target.kind)
        .trim_problem(target)
        .map(|why| format!("trims {why}"))
}

/// What `method = "auto"` does on a target of `kind`, in the plan's words (`punch-hole`).
pub fn auto_description(kind: TargetKind) -> &'static str {
    kinds::of(kind).facts().auto_erase
}

/// Whether an erase with `method` (as planned; `None` is `auto`) leaves the span of a target of `kind` reading
/// back as zeros: a file's punched holes and a zero-out do; a discard may leave anything.
pub fn reads_back_zeros(kind: TargetKind, method: Option<EraseMethod>) -> bool {
    kinds::of(kind).erase_reads_zeros(method)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimParams;
    use std::io::{Read, Seek, Write};

    const METHODS: [EraseMethod; 6] = [
        EraseMethod::Auto,
        EraseMethod::SecureDiscard,
        EraseMethod::Discard,
        EraseMethod::ZeroOut,
        EraseMethod::PunchHole,
        EraseMethod::NvmeFormat,
    ];

    fn host(path: &str, kind: TargetKind) -> TargetInfo {
        TargetInfo::new(path, kind, 1 << 30, 512, 4096)
    }

    fn sim_target() -> TargetInfo {
        let p = SimParams::parse_target("sim:capacity=64MiB,op=7%,block=256KiB").unwrap();
        TargetInfo::sim(p).unwrap()
    }

    /// The plan's check before the targets described their erase methods (`plan::check_erase_method`), word
    /// for word: the reference the kinds' answers are held to.
    fn words_before(t: &TargetInfo, m: EraseMethod, span: (u64, u64)) -> Option<String> {
        let problem = match (t.kind, m) {
            (_, EraseMethod::Auto) => None,
            (TargetKind::Sim, EraseMethod::Discard | EraseMethod::SecureDiscard) => None,
            (TargetKind::Sim, _) => Some(
                "is not modelled by the simulated drive (use \"auto\", \"discard\" or \"secure-discard\")"
                    .to_string(),
            ),
            (_, EraseMethod::NvmeFormat) if t.nvme_namespace.is_none() => Some(format!(
                "is for whole NVMe namespaces, and {} is not one (a partition, or not NVMe)",
                t.path.display()
            )),
            (_, EraseMethod::NvmeFormat) if span != (0, t.capacity_bytes) => Some(format!(
                "erases the whole namespace, but the span is [{}, {}) of {} B; use span = \"100%\" and no offset",
                span.0,
                span.0 + span.1,
                t.capacity_bytes
            )),
            (TargetKind::File, EraseMethod::PunchHole) => None,
            (TargetKind::File, _) => Some(
                "is for block devices; this target is a regular file (use \"punch-hole\" or \"auto\")"
                    .to_string(),
            ),
            (TargetKind::Block, EraseMethod::PunchHole) => {
                Some("is for files; this target is a block device".to_string())
            }
            (TargetKind::Block, EraseMethod::Discard | EraseMethod::SecureDiscard)
                if t.discard_max_bytes == Some(0) =>
            {
                Some(format!(
                    "needs discard support, and {} cannot discard (queue/discard_max_bytes is 0)",
                    t.path.display()
                ))
            }
            (TargetKind::Block, _) => None,
        };
        problem.map(|why| format!("erase method \"{}\" {why}", m.as_str()))
    }

    /// Every target shape the check distinguishes: files (also one claiming a namespace, which probing never
    /// makes), block devices with and without discard, NVMe namespaces, the simulated drive.
    fn shapes() -> Vec<TargetInfo> {
        let mut out = Vec::new();
        for (kind, path) in [(TargetKind::File, "t.img"), (TargetKind::Block, "/dev/sdz")] {
            for discard in [None, Some(0), Some(1 << 20)] {
                for ns in [None, Some(1)] {
                    let mut t = host(path, kind);
                    t.discard_max_bytes = discard;
                    t.nvme_namespace = ns;
                    out.push(t);
                }
            }
        }
        out.push(sim_target());
        out
    }

    #[test]
    fn erase_problem_says_what_the_plan_said_for_every_kind_method_and_span() {
        let mut checked = 0;
        for t in shapes() {
            let cap = t.capacity_bytes;
            for span in [(0, cap), (0, cap / 2), (4096, cap - 4096)] {
                for m in METHODS {
                    assert_eq!(
                        erase_problem(&t, m, span),
                        words_before(&t, m, span),
                        "{:?} {:?} ns {:?} discard {:?}, {m:?}, {span:?}",
                        t.kind,
                        t.path,
                        t.nvme_namespace,
                        t.discard_max_bytes
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 13 * 3 * 6);
    }

    #[test]
    fn zone_reset_needs_a_zoned_device_and_whole_zones() {
        let mut t = host("/dev/zz", TargetKind::Block);
        let cap = t.capacity_bytes;
        assert_eq!(
            erase_problem(&t, EraseMethod::ZoneReset, (0, cap)).unwrap(),
            "erase method \"zone-reset\" is for zoned block devices, and /dev/zz is not zoned (sysfs queue/zoned is none)"
        );
        t.zoned = Some(crate::target::Zoned {
            model: crate::target::ZoneModel::HostManaged,
            zone_size_bytes: 48 << 20, // 1 GiB is 21 zones and a runt of 16 MiB
            zones: 22,
            max_open_zones: 0,
            max_active_zones: 0,
            write_granularity_bytes: 4096,
        });
        for m in [EraseMethod::ZoneReset, EraseMethod::Auto] {
            assert_eq!(erase_problem(&t, m, (0, cap)), None);
            assert_eq!(
                erase_problem(&t, m, (48 << 20, cap - (48 << 20))),
                None,
                "to the end"
            );
            assert_eq!(erase_problem(&t, m, (48 << 20, 96 << 20)), None);
        }
        assert_eq!(
            erase_problem(&t, EraseMethod::ZoneReset, (4096, 48 << 20)).unwrap(),
            "erase method \"zone-reset\" resets whole zones, but the span [4096, 50335744) does not begin and end at zone boundaries of /dev/zz (zones of 50331648 B); use an offset and span that are multiples of 50331648 B"
        );
        assert!(
            erase_problem(&t, EraseMethod::Auto, (0, 1 << 20))
                .unwrap()
                .starts_with(
                    "erase method \"auto\" (zone-reset on this zoned device) resets whole zones"
                )
        );
    }

    #[test]
    fn erase_problem_words() {
        let mut block = host("/dev/sdz", TargetKind::Block);
        block.discard_max_bytes = Some(0);
        assert_eq!(
            erase_problem(&block, EraseMethod::Discard, (0, 1 << 30)).unwrap(),
            "erase method \"discard\" needs discard support, and /dev/sdz cannot discard (queue/discard_max_bytes is 0)"
        );
        assert_eq!(
            erase_problem(&block, EraseMethod::ZeroOut, (0, 1 << 30)),
            None
        );
        block.nvme_namespace = Some(1);
        assert_eq!(
            erase_problem(&block, EraseMethod::NvmeFormat, (0, 4096)).unwrap(),
            "erase method \"nvme-format\" erases the whole namespace, but the span is [0, 4096) of 1073741824 B; use span = \"100%\" and no offset"
        );
        assert_eq!(
            erase_problem(&block, EraseMethod::NvmeFormat, (0, 1 << 30)),
            None
        );
        let file = host("t.img", TargetKind::File);
        assert_eq!(
            erase_problem(&file, EraseMethod::ZeroOut, (0, 4096)).unwrap(),
            "erase method \"zero-out\" is for block devices; this target is a regular file (use \"punch-hole\" or \"auto\")"
        );
        assert_eq!(
            erase_problem(&sim_target(), EraseMethod::PunchHole, (0, 4096)).unwrap(),
            "erase method \"punch-hole\" is not modelled by the simulated drive (use \"auto\", \"discard\" or \"secure-discard\")"
        );
    }

    /// `auto_description` and `reads_back_zeros` answer what the plan's listing and its replay of earlier
    /// phases decided by matching on the kind.
    #[test]
    fn auto_description_and_zeros_per_kind() {
        let kinds = [TargetKind::File, TargetKind::Block, TargetKind::Sim];
        let auto: Vec<&str> = kinds.iter().map(|&k| auto_description(k)).collect();
        assert_eq!(
            auto,
            [
                "punch-hole",
                "auto: first of secure-discard, discard, zero-out (zone-reset on a zoned device)",
                "discard (auto)"
            ]
        );
        for k in kinds {
            for m in METHODS.map(Some).into_iter().chain([None]) {
                assert_eq!(
                    reads_back_zeros(k, m),
                    k == TargetKind::File || m == Some(EraseMethod::ZeroOut),
                    "{k:?} {m:?}"
                );
            }
        }
        assert!(TargetKind::File.opens_on_host() && TargetKind::Block.opens_on_host());
        assert!(!sim_target().opens_on_host());
    }

    #[test]
    fn a_file_is_erased_by_punching_a_hole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.img");
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        f.write_all(&[0xa5; 3 * 4096]).unwrap();
        let mut t = host(path.to_str().unwrap(), TargetKind::File);
        t.capacity_bytes = 3 * 4096;
        let stop = AtomicBool::new(false);
        let e = erase(&t, Access::from(&f), EraseMethod::Auto, 4096, 4096, &stop).unwrap();
        assert_eq!(
            e,
            Erased {
                method_used: EraseMethod::PunchHole,
                drive_time_ns: None
            }
        );
        let mut back = Vec::new();
        f.rewind().unwrap();
        f.read_to_end(&mut back).unwrap();
        assert!(back[..4096].iter().all(|&b| b == 0xa5));
        assert!(back[4096..8192].iter().all(|&b| b == 0));
        assert!(back[8192..].iter().all(|&b| b == 0xa5));

        // A method the file cannot do is refused in the plan's words, before any syscall.
        let err = erase(&t, Access::Host(&f), EraseMethod::Discard, 0, 4096, &stop).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Unsupported);
        assert_eq!(
            err.to_string(),
            erase_problem(&t, EraseMethod::Discard, (0, 4096)).unwrap()
        );
        // The simulated drive's state is no way to reach a file.
        let d = Mutex::new(SimDevice::new(&sim_target().sim.unwrap().params).unwrap());
        let err = erase(&t, Access::from(&d), EraseMethod::Auto, 0, 4096, &stop).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn the_simulated_drive_is_erased_by_a_discard_on_its_clock() {
        let t = sim_target();
        let d = Mutex::new(SimDevice::new(&t.sim.as_ref().unwrap().params).unwrap());
        let stop = AtomicBool::new(false);
        let mib = 1 << 20;
        let e = erase(&t, Access::Sim(&d), EraseMethod::Auto, 0, mib, &stop).unwrap();
        assert_eq!(e.method_used, EraseMethod::Discard);
        let ns = e.drive_time_ns.expect("the drive's time");
        assert!(ns > 0);
        assert_eq!(d.lock().unwrap().clock(), ns, "the drive's clock moved on");
        let e = erase(
            &t,
            Access::Sim(&d),
            EraseMethod::SecureDiscard,
            0,
            mib,
            &stop,
        )
        .unwrap();
        assert_eq!(e.method_used, EraseMethod::SecureDiscard);
        // Methods the model does not have are refused; a file is no way to reach the drive.
        let err = erase(&t, Access::Sim(&d), EraseMethod::ZeroOut, 0, mib, &stop).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Unsupported);
        let f = tempfile::tempfile().unwrap();
        let err = erase(&t, Access::Host(&f), EraseMethod::Auto, 0, mib, &stop).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }
}
