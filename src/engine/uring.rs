//! The `io_uring` engine: one ring from one thread, with the target as a registered file and registered
//! buffers.

use super::{Engine, Event, Job, Outcome, Recorder, queue};
use crate::sys::uring::UringQueue;
use std::os::fd::AsRawFd;
use std::sync::mpsc::Sender;

/// io_uring.
pub struct Uring;

impl Engine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn workers(&self, _job: &Job<'_>) -> usize {
        1
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        let Some(file) = job.file else {
            return queue::setup_failed(
                Recorder::new(0, job.clock, events.clone()),
                "io_uring",
                std::io::Error::other("no target file is open"),
            );
        };
        match UringQueue::new(
            file.as_raw_fd(),
            job.queue_depth as usize,
            job.max_len,
            job.align,
        ) {
            Ok(mut q) => queue::run(job, &mut q, events),
            Err(e) => {
                queue::setup_failed(Recorder::new(0, job.clock, events.clone()), "io_uring", e)
            }
        }
    }
}
