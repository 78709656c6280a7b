//! Erase phases: the code lives with the targets, in [`crate::target::erase`]. The two functions here keep the
//! runner's calls of before working until it calls [`crate::target::erase::erase`] itself; then this module
//! goes.

pub use crate::target::erase::*;

use crate::target::{TargetInfo, TargetKind};
use crate::vocab::EraseMethod;
use std::fs::File;
use std::io;
use std::sync::atomic::AtomicBool;

/// Erases `[start, start + len)` of a file or block device with `method`; returns the method used. See
/// [`crate::target::erase::erase`].
///
/// # Errors
/// Those of [`crate::target::erase::erase`].
pub fn erase(
    target: &TargetInfo,
    file: &File,
    method: EraseMethod,
    start: u64,
    len: u64,
    stop: &AtomicBool,
) -> io::Result<EraseMethod> {
    crate::target::erase::erase(target, Access::Host(file), method, start, len, stop)
        .map(|e| e.method_used)
}

/// Erases `[start, start + len)` of a simulated drive with `method` (one the plan accepted for it); returns the
/// method reported and the drive's virtual time for the erase, ns. See [`crate::target::erase::erase`].
pub fn erase_sim(
    device: &std::sync::Mutex<crate::sim::SimDevice>,
    method: EraseMethod,
    start: u64,
    len: u64,
) -> (EraseMethod, u64) {
    // Only the kind matters to the simulated drive's erase.
    let target = TargetInfo {
        path: "sim".into(),
        kind: TargetKind::Sim,
        capacity_bytes: 0,
        logical_block_size: 0,
        physical_block_size: 0,
        model: None,
        serial: None,
        firmware: None,
        discard_max_bytes: None,
        nvme_namespace: None,
        created: false,
        sim: None,
    };
    let e = crate::target::erase::erase(
        &target,
        Access::Sim(device),
        method,
        start,
        len,
        &AtomicBool::new(false),
    )
    .expect("the plan refuses the erase methods the simulated drive does not model");
    (e.method_used, e.drive_time_ns.unwrap_or(0))
}
