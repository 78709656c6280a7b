//! A regular file: created (its blocks preallocated) when absent, erased by punching holes.

use super::{Facts, Job, Kind, host_file, nvme_format, nvme_format_problem};
use crate::target::TargetInfo;
use crate::target::erase::Erased;
use crate::vocab::EraseMethod;
use std::io;

/// A regular file.
pub(super) struct File;

/// Files: on the host, written without consent and without an exclusive open.
const FACTS: Facts = Facts {
    noun: "a file",
    thing: "file",
    on_host: true,
    writes_need_allow_destroy: false,
    exclusive_when_writing: false,
    auto_erase: "punch-hole",
};

impl Kind for File {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }

    fn erase_problem(
        &self,
        t: &TargetInfo,
        method: EraseMethod,
        span: (u64, u64),
    ) -> Option<String> {
        let for_devices = || {
            "is for block devices; this target is a regular file (use \"punch-hole\" or \"auto\")"
                .to_string()
        };
        match method {
            EraseMethod::Auto | EraseMethod::PunchHole => None,
            EraseMethod::NvmeFormat => {
                Some(nvme_format_problem(t, span).unwrap_or_else(for_devices))
            }
            EraseMethod::SecureDiscard
            | EraseMethod::Discard
            | EraseMethod::ZeroOut
            | EraseMethod::ZoneReset => Some(for_devices()),
        }
    }

    /// A file is trimmed by punching holes: refused where its file system says it cannot (a file system
    /// that cannot tell, or a file not yet writable, is tried: the run then fails at its first trim).
    fn trim_problem(&self, t: &TargetInfo) -> Option<String> {
        let dir = t
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        let asked = match t.identity.filter(|_| !t.created) {
            // The file probed, opened again as it was checked (attack 13 F1: not the path again).
            Some(id) => crate::target::reopen::open_probed(&t.path, id, true, 0)
                .map_err(|_| io::Error::other("not the file probed"))
                .and_then(|f| crate::sys::file::can_punch_holes(Some(&f), dir)),
            None => crate::sys::file::can_punch_holes(None, dir),
        };
        match asked {
            Ok(false) => Some(format!(
                "punch holes in a file, and the file system of {} does not support punch hole (fallocate PUNCH_HOLE: EOPNOTSUPP)",
                t.path.display()
            )),
            Ok(true) | Err(_) => None,
        }
    }

    fn erase_reads_zeros(&self, _: Option<EraseMethod>) -> bool {
        true
    }

    fn erase(&self, job: Job<'_>) -> io::Result<Erased> {
        let file = host_file(&job)?;
        match job.method {
            EraseMethod::NvmeFormat => nvme_format(file),
            EraseMethod::Auto | EraseMethod::PunchHole => {
                crate::sys::file::punch_hole(file, job.start, job.len)?;
                Ok(Erased::host(EraseMethod::PunchHole))
            }
            m @ (EraseMethod::SecureDiscard
            | EraseMethod::Discard
            | EraseMethod::ZeroOut
            | EraseMethod::ZoneReset) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{} is for block devices", m.as_str()),
            )),
        }
    }
}
