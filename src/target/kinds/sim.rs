//! The simulated drive: a model in memory, erased by a discard (TRIM) on its virtual clock.

use super::Kind;
use crate::target::TargetInfo;
use crate::target::erase::{Access, Erased};
use crate::vocab::EraseMethod;
use std::io;
use std::sync::atomic::AtomicBool;

/// A simulated SSD (`sim:...`).
pub(super) struct Sim;

impl Kind for Sim {
    fn noun(&self) -> &'static str {
        "a simulated drive"
    }

    fn on_host(&self) -> bool {
        false
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

    fn erase_problem(&self, _: &TargetInfo, method: EraseMethod, _: (u64, u64)) -> Option<String> {
        match method {
            EraseMethod::Auto | EraseMethod::Discard | EraseMethod::SecureDiscard => None,
            EraseMethod::ZeroOut | EraseMethod::PunchHole | EraseMethod::NvmeFormat => Some(
                "is not modelled by the simulated drive (use \"auto\", \"discard\" or \"secure-discard\")"
                    .to_string(),
            ),
        }
    }

    fn auto_erase(&self) -> &'static str {
        "discard (auto)"
    }

    /// A discard of every whole 4 KiB unit in the span (TRIM; for a secure erase too, since the model keeps no
    /// data), after which blocks left empty are erased. The method reported is `discard` for `auto`; the time
    /// is the drive's virtual time.
    fn erase(
        &self,
        t: &TargetInfo,
        access: Access<'_>,
        method: EraseMethod,
        start: u64,
        len: u64,
        _stop: &AtomicBool,
    ) -> io::Result<Erased> {
        let Access::Sim(device) = access else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a simulated drive: it is erased through its model, not a host file",
                    t.path.display()
                ),
            ));
        };
        let mut d = device.lock().unwrap_or_else(|p| p.into_inner());
        let t0 = d.clock();
        let done = d.discard(t0, start, len);
        d.advance_clock(done);
        let used = match method {
            EraseMethod::SecureDiscard => EraseMethod::SecureDiscard,
            _ => EraseMethod::Discard,
        };
        Ok(Erased {
            method_used: used,
            drive_time_ns: Some(done - t0),
        })
    }
}
