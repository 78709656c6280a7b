//! The simulated drive: a model in memory, erased by a discard (TRIM) on its virtual clock.

use super::{Facts, Job, Kind};
use crate::target::TargetInfo;
use crate::target::erase::{Access, Erased};
use crate::vocab::EraseMethod;
use std::io;

/// A simulated SSD (`sim:...`).
pub(super) struct Sim;

/// The simulated drive: in wkrun's memory, written without consent.
const FACTS: Facts = Facts {
    noun: "a simulated drive",
    thing: "drive",
    on_host: false,
    writes_need_allow_destroy: false,
    exclusive_when_writing: false,
    auto_erase: "discard (auto)",
};

impl Kind for Sim {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }

    fn erase_problem(&self, _: &TargetInfo, method: EraseMethod, _: (u64, u64)) -> Option<String> {
        match method {
            EraseMethod::Auto | EraseMethod::Discard | EraseMethod::SecureDiscard => None,
            EraseMethod::ZeroOut
            | EraseMethod::PunchHole
            | EraseMethod::NvmeFormat
            | EraseMethod::ZoneReset => Some(
                "is not modelled by the simulated drive (use \"auto\", \"discard\" or \"secure-discard\")"
                    .to_string(),
            ),
        }
    }

    /// A discard of every whole 4 KiB unit in the span (TRIM; for a secure erase too, since the model keeps no
    /// data), after which blocks left empty are erased. The method reported is `discard` for `auto`; the time
    /// is the drive's virtual time.
    fn erase(&self, job: Job<'_>) -> io::Result<Erased> {
        let Access::Sim(device) = job.access else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a simulated drive: it is erased through its model, not a host file",
                    job.t.path.display()
                ),
            ));
        };
        let mut d = device.lock().unwrap_or_else(|p| p.into_inner());
        let t0 = d.clock();
        let done = d.discard(t0, job.start, job.len);
        d.advance_clock(done);
        let used = match job.method {
            EraseMethod::SecureDiscard => EraseMethod::SecureDiscard,
            _ => EraseMethod::Discard,
        };
        Ok(Erased {
            method_used: used,
            drive_time_ns: Some(done - t0),
        })
    }
}
