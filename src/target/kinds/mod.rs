//! The kinds of target, each described in one place: whether it lives on the host, how it is opened, what
//! writing to it needs, which erase methods it has and how it erases.
//!
//! Adding a kind of target: a variant of [`TargetKind`], a module here with its [`Facts`] and a [`Kind`], and
//! its arm in [`of`].
//! Everything in [`super`] that depends on the kind asks it here.

mod block;
mod file;
mod sim;

use super::erase::{Access, Erased};
use super::{TargetInfo, TargetKind};
use crate::vocab::EraseMethod;
use std::io;
use std::sync::atomic::AtomicBool;

/// What one kind of target is: the facts that are data, the same for every target of the kind.
pub(super) struct Facts {
    /// The kind in a message: "a file", "a simulated drive".
    pub noun: &'static str,
    /// What a chart calls a target of this kind before "span" ("file span written once", "drive span
    /// written once").
    pub thing: &'static str,
    /// Whether targets of this kind are files or devices of the host, opened (and created) through the OS;
    /// false for a model that lives in wkrun's memory.
    pub on_host: bool,
    /// Whether a run that writes needs `--allow-destroy` naming the target (its data is not wkrun's to
    /// destroy), and must find it not in use.
    pub writes_need_allow_destroy: bool,
    /// Whether opening for writing is exclusive (O_EXCL: the kernel refuses while something holds the target).
    pub exclusive_when_writing: bool,
    /// What `method = "auto"` does on this kind, in the plan's words.
    pub auto_erase: &'static str,
}

/// One erase handed to a kind: `[start, start + len)` of `t` through `access` with `method`, which the target
/// can do (the caller checked [`Kind::erase_problem`]); `stop` is set to interrupt it.
#[derive(Clone, Copy)]
pub(super) struct Job<'a> {
    /// The target.
    pub t: &'a TargetInfo,
    /// Its open file, or the simulated drive's state.
    pub access: Access<'a>,
    /// The method, as planned (`auto`: the kind picks one, as its [`Facts::auto_erase`] says).
    pub method: EraseMethod,
    /// The first byte of the span.
    pub start: u64,
    /// The span's length in bytes.
    pub len: u64,
    /// Set to stop between ranges.
    pub stop: &'a AtomicBool,
}

/// What one kind of target is ([`Kind::facts`]) and how it behaves.
pub(super) trait Kind: Sync {
    /// The facts of this kind.
    fn facts(&self) -> &'static Facts;

    /// The device number (`st_rdev`) of the target, for kinds identified by one: as probed
    /// ([`TargetInfo::identity`]), or for a target never probed, of the node its path names now; `None` for
    /// the others.
    fn device_number(&self, _t: &TargetInfo) -> Option<u64> {
        None
    }

    /// Why `method` (never `auto`) cannot erase `span` (`(start, len)`) of `t`, in the words that follow
    /// `erase method "..."`; `None` when it can.
    fn erase_problem(
        &self,
        t: &TargetInfo,
        method: EraseMethod,
        span: (u64, u64),
    ) -> Option<String>;

    /// Why a workload's trims (`trim_percent`) cannot run on `t`, in the words that follow `trims`; `None`
    /// when they can.
    fn trim_problem(&self, _t: &TargetInfo) -> Option<String> {
        None
    }

    /// Whether the span reads back as zeros after an erase with `method` (as planned; `None` is `auto`).
    fn erase_reads_zeros(&self, method: Option<EraseMethod>) -> bool {
        method == Some(EraseMethod::ZeroOut)
    }

    /// Erases the span of `job` (its target can do its method: the caller checked
    /// [`Kind::erase_problem`]).
    fn erase(&self, job: Job<'_>) -> io::Result<Erased>;
}

/// The description of targets of kind `kind`.
pub(super) fn of(kind: TargetKind) -> &'static dyn Kind {
    match kind {
        TargetKind::File => &file::File,
        TargetKind::Block => &block::Block,
        TargetKind::Sim => &sim::Sim,
    }
}

/// The open file of a host target, or the error for an erase handed the simulated drive's state instead.
fn host_file<'a>(job: &Job<'a>) -> io::Result<&'a std::fs::File> {
    match job.access {
        Access::Host(f) => Ok(f),
        Access::Sim(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is erased through its open file, not a simulated drive",
                job.t.path.display()
            ),
        )),
    }
}

/// `nvme-format` on a host target: the whole namespace, with the kernel's answer (a file or a device that is
/// not an NVMe namespace refuses the ioctl).
fn nvme_format(file: &std::fs::File) -> io::Result<Erased> {
    crate::sys::nvme::format_user_data_erase(file)?;
    Ok(Erased::host(EraseMethod::NvmeFormat))
}

/// Why `nvme-format` cannot erase `span` of `t`: not a whole NVMe namespace, or not the whole span.
fn nvme_format_problem(t: &TargetInfo, span: (u64, u64)) -> Option<String> {
    if t.nvme_namespace.is_none() {
        Some(format!(
            "is for whole NVMe namespaces, and {} is not one (a partition, or not NVMe)",
            t.path.display()
        ))
    } else if span != (0, t.capacity_bytes) {
        Some(format!(
            "erases the whole namespace, but the span is [{}, {}) of {} B; use span = \"100%\" and no offset",
            span.0,
            span.0 + span.1,
            t.capacity_bytes
        ))
    } else {
        None
    }
}
