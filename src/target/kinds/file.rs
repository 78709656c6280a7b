//! A regular file: created sparse when absent, erased by punching holes.

use super::{Kind, host_file, nvme_format, nvme_format_problem};
use crate::target::TargetInfo;
use crate::target::erase::{Access, Erased};
use crate::vocab::EraseMethod;
use std::io;
use std::sync::atomic::AtomicBool;

/// A regular file.
pub(super) struct File;

impl Kind for File {
    fn noun(&self) -> &'static str {
        "a file"
    }

    fn on_host(&self) -> bool {
        true
    }

    fn writes_need_allow_destroy(&self) -> bool {
        false
    }

    fn exclusive_when_writing(&self) -> bool {
        false
    }

    fn device_number(&self, _: &TargetInfo) -> Option<u64> {
        None
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
            EraseMethod::SecureDiscard | EraseMethod::Discard | EraseMethod::ZeroOut => {
                Some(for_devices())
            }
        }
    }

    fn auto_erase(&self) -> &'static str {
        "punch-hole"
    }

    fn erase_reads_zeros(&self, _: Option<EraseMethod>) -> bool {
        true
    }

    fn erase(
        &self,
        t: &TargetInfo,
        access: Access<'_>,
        method: EraseMethod,
        start: u64,
        len: u64,
        _stop: &AtomicBool,
    ) -> io::Result<Erased> {
        let file = host_file(t, access)?;
        match method {
            EraseMethod::NvmeFormat => nvme_format(file),
            EraseMethod::Auto | EraseMethod::PunchHole => {
                crate::sys::file::punch_hole(file, start, len)?;
                Ok(Erased::host(EraseMethod::PunchHole))
            }
            m @ (EraseMethod::SecureDiscard | EraseMethod::Discard | EraseMethod::ZeroOut) => {
                Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!("{} is for block devices", m.as_str()),
                ))
            }
        }
    }
}
