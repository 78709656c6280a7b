//! The `null` engine: no I/O. Every submitted I/O completes at once with its full length, without a
//! syscall, through the same single-thread loop (`engine/queue.rs`), op stream, write-data generation and
//! [`super::Recorder`] as `libaio` and `io_uring`, so a run measures wkrun's own cost per I/O (like fio's
//! `null` ioengine). The target is never opened: [`Job::file`] is not touched.

use super::{Engine, Event, Job, Outcome, queue};
use crate::buf::{AlignedBuf, AllocError};
use std::io;
use std::sync::mpsc::Sender;

/// The engine that completes every I/O at once.
pub struct Null;

impl Engine for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        match NullQueue::new(job.queue_depth as usize, job.max_len, job.align) {
            Ok(mut q) => queue::run(job, &mut q, events, self.name()),
            Err(e) => job
                .recorder(0, events)
                .finish(Some(super::alloc_error("null", &e))),
        }
    }
}

/// `depth` slots with a buffer each (write data is generated into them as for a real engine); a submitted
/// I/O is complete, and the next reap returns it.
struct NullQueue {
    bufs: Vec<AlignedBuf>,
    /// `(slot, bytes)` of the I/Os submitted since the last reap.
    done: Vec<(usize, i64)>,
}

impl NullQueue {
    fn new(depth: usize, buf_len: usize, align: usize) -> Result<NullQueue, AllocError> {
        Ok(NullQueue {
            bufs: crate::buf::try_bufs(depth, buf_len, align)?,
            done: Vec::with_capacity(depth),
        })
    }
}

impl queue::SlotQueue for NullQueue {
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        Some(&mut self.bufs[slot])
    }

    fn submit(&mut self, ios: &[crate::sys::Io]) -> io::Result<usize> {
        self.done
            .extend(ios.iter().map(|io| (io.slot, io.len as i64)));
        Ok(ios.len())
    }

    fn reap(
        &mut self,
        _want: usize,
        _min_wait_us: u32,
        _timeout_ns: Option<u64>,
        done: &mut Vec<(usize, i64)>,
    ) -> io::Result<usize> {
        let n = self.done.len();
        // The caller's list is empty, with room for every slot as this one: they change places (no copy).
        if done.is_empty() {
            std::mem::swap(&mut self.done, done);
        } else {
            done.append(&mut self.done);
        }
        Ok(n)
    }
}
