//! The `io_uring` engine: one ring from one thread, with the target as a registered file and registered
//! buffers.

use super::{Engine, Event, Job, Outcome, queue};
use crate::sys::uring::UringQueue;
use std::sync::mpsc::Sender;

/// io_uring.
pub struct Uring;

impl Engine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        queue::run_on_target(job, events, self.name(), UringQueue::new)
    }
}
