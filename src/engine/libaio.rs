//! The `libaio` engine: Linux native AIO (io_submit / io_getevents) from one thread.

use super::{Engine, Event, Job, Outcome, queue};
use crate::sys::aio::AioQueue;
use std::sync::mpsc::Sender;

/// Linux native AIO.
pub struct Libaio;

impl Engine for Libaio {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        queue::run_on_target(job, events, self.name(), AioQueue::new, |_| None)
    }
}
