//! The `io_uring` engine: one ring from one thread, with the target as a registered file and registered
//! buffers (unregistered when the locked-memory limit is too small for them, with a warning).

use super::{Engine, Event, Job, Outcome, queue};
use crate::sys::limits::Limit;
use crate::sys::uring::UringQueue;
use std::sync::mpsc::Sender;

/// io_uring.
pub struct Uring;

impl Engine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        let (depth, len) = (job.queue_depth as usize, job.max_len);
        let setup = job.ring;
        let open = move |fd, bufs| UringQueue::with_setup(fd, bufs, setup);
        queue::run_on_target(job, events, self.name(), open, |q| {
            q.unregistered()
                .map(|e| unregistered_warning(depth, len, e))
        })
    }
}

/// The warning of a phase whose `depth` buffers of `len` bytes could not be registered (`e`, ENOMEM): which
/// limit, how much registration needs, and what the phase did instead.
fn unregistered_warning(depth: usize, len: usize, e: &std::io::Error) -> String {
    let needs = UringQueue::registration_bytes(depth as u64, len as u64);
    let limit = Limit::LockedMemory
        .soft()
        .map_or("unlimited".to_string(), |v| format!("{v} B"));
    format!(
        "io_uring: buffers unregistered (more CPU per I/O); set ulimit -l {} or more: registering the {depth} I/O buffers of {len} B failed with {}: it needs {needs} B of locked memory, and {} is {limit}; the phase used plain reads and writes instead of fixed-buffer ones",
        needs.div_ceil(1024),
        crate::sys::os_text(e),
        Limit::LockedMemory.name()
    )
}
