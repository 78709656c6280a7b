//! The `libaio` engine: Linux native AIO (io_submit / io_getevents) from one thread.

use super::{Engine, Event, Job, Outcome, Recorder, queue};
use crate::buf::try_bufs;
use crate::sys::aio::AioQueue;
use std::os::fd::AsRawFd;
use std::sync::mpsc::Sender;

/// Linux native AIO.
pub struct Libaio;

impl Engine for Libaio {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn workers(&self, _job: &Job<'_>) -> usize {
        1
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        let Some(file) = job.file else {
            return queue::setup_failed(
                Recorder::new(0, job.clock, events.clone()),
                "libaio",
                std::io::Error::other("no target file is open"),
            );
        };
        let rec = || Recorder::new(0, job.clock, events.clone());
        let bufs = match try_bufs(job.queue_depth as usize, job.max_len, job.align) {
            Ok(b) => b,
            Err(e) => return rec().finish(Some(super::alloc_error("libaio", &e))),
        };
        match AioQueue::new(file.as_raw_fd(), bufs) {
            Ok(mut q) => queue::run(job, &mut q, events),
            Err(e) => queue::setup_failed(rec(), "libaio", e),
        }
    }
}
