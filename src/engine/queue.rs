//! The single-thread asynchronous loop shared by the `libaio`, `io_uring` and `null` engines: keep exactly
//! `queue_depth` I/Os in flight, submit every freed slot in one batch, reap every completion available, and
//! take one clock reading per batch as the submission (or completion) time of all its I/Os. Allocates
//! nothing after its setup.

use super::{Event, IoCause, IoError, Job, Outcome, Recorder};
use crate::ops::{Op, OpKind, Ops};
use crate::sys::Dir;
use crate::sys::aio::AioQueue;
use crate::sys::uring::UringQueue;
use std::io;
use std::sync::mpsc::Sender;

/// A kernel queue of `depth` slots, each with its own buffer.
pub trait SlotQueue {
    /// The buffer of an idle slot; `None` while its I/O is in flight.
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]>;
    /// Queues `(slot, kind, offset, len)` I/Os; returns how many were accepted (a prefix).
    fn submit(&mut self, ios: &[(usize, Dir, u64, u32)]) -> io::Result<usize>;
    /// Waits for at least one completion or the timeout; calls `f(slot, result)` per completion.
    fn reap(&mut self, timeout_ns: Option<u64>, f: &mut dyn FnMut(usize, i64))
    -> io::Result<usize>;
}

impl SlotQueue for AioQueue {
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        AioQueue::buf(self, slot)
    }
    fn submit(&mut self, ios: &[(usize, Dir, u64, u32)]) -> io::Result<usize> {
        AioQueue::submit(self, ios)
    }
    fn reap(
        &mut self,
        timeout_ns: Option<u64>,
        f: &mut dyn FnMut(usize, i64),
    ) -> io::Result<usize> {
        AioQueue::reap(self, 1, timeout_ns, f)
    }
}

impl SlotQueue for UringQueue {
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        UringQueue::buf(self, slot)
    }
    fn submit(&mut self, ios: &[(usize, Dir, u64, u32)]) -> io::Result<usize> {
        UringQueue::submit(self, ios)
    }
    fn reap(
        &mut self,
        timeout_ns: Option<u64>,
        f: &mut dyn FnMut(usize, i64),
    ) -> io::Result<usize> {
        UringQueue::reap(self, timeout_ns, f)
    }
}

/// An engine that could not start (no AIO context, io_uring disabled): the outcome carries the error.
pub fn setup_failed(rec: Recorder, engine: &'static str, e: io::Error) -> Outcome {
    rec.finish(Some(IoError {
        kind: OpKind::Write,
        offset: 0,
        len: 0,
        cause: IoCause::Setup(engine, e),
    }))
}

/// The next op of the shared stream, claiming a new chunk when the current one is used up.
pub(super) fn next_op<'a>(job: &'a Job<'_>, chunk: &mut Option<Ops<'a>>) -> Option<Op> {
    loop {
        if let Some(op) = chunk.as_mut().and_then(Iterator::next) {
            return Some(op);
        }
        *chunk = Some(job.ops.claim()?);
    }
}

fn failed(op: &Op, cause: IoCause) -> IoError {
    IoError {
        kind: op.kind,
        offset: op.offset,
        len: op.len,
        cause,
    }
}

/// Runs `job` on `q` (depth = `job.queue_depth`) from this thread, recording into a single recorder.
pub fn run(job: &Job<'_>, q: &mut dyn SlotQueue, events: &Sender<Event>) -> Outcome {
    let mut rec = Recorder::new(0, job.clock, events.clone());
    let qd = job.queue_depth as usize;
    let mut slot_op: Vec<Option<Op>> = vec![None; qd];
    let mut submitted_at = vec![0u64; qd];
    let mut free: Vec<usize> = (0..qd).rev().collect();
    let mut batch: Vec<(usize, Dir, u64, u32)> = Vec::with_capacity(qd);
    let mut chunk = None;
    let mut exhausted = false;
    let mut in_flight = 0usize;
    let mut error: Option<IoError> = None;
    let mut done: Vec<(usize, i64)> = Vec::with_capacity(qd);
    // With a rate cap: the next op, taken from the stream but not yet due, and when it is due.
    let mut held: Option<(Op, u64)> = None;
    job.begin();
    let now = || job.now_ns();
    // Two clock readings per batch: just before the submission (the batch's submission time) and just after
    // the reap (the completion time of what it returned, and "now" for the deadline and the next batch).
    let mut t = now();
    loop {
        let may_submit = error.is_none()
            && !exhausted
            && !job.stopping()
            && job.deadline_ns.is_none_or(|d| t < d);
        if may_submit {
            while let Some(&slot) = free.last() {
                let Some(op) = held
                    .take()
                    .map(|h| h.0)
                    .or_else(|| next_op(job, &mut chunk))
                else {
                    exhausted = true;
                    break;
                };
                if let Some(at) = job.issue_at(&op) {
                    if job.deadline_ns.is_some_and(|d| at >= d) {
                        exhausted = true;
                        break;
                    }
                    if at > now() {
                        held = Some((op, at));
                        break;
                    }
                }
                if op.kind == OpKind::Write {
                    let Some(buf) = q.buf(slot) else {
                        held = Some((op, 0));
                        break;
                    };
                    if let Err(e) = job.data.fill(&mut buf[..op.len as usize], &op) {
                        error = Some(failed(&op, IoCause::Data(e)));
                        break;
                    }
                }
                free.pop();
                slot_op[slot] = Some(op);
                batch.push((slot, dir(op.kind), op.offset, op.len));
            }
        }
        if !batch.is_empty() && error.is_none() {
            t = now();
            match q.submit(&batch) {
                Ok(n) => {
                    for &(slot, ..) in &batch[..n] {
                        submitted_at[slot] = t;
                    }
                    in_flight += n;
                    batch.drain(..n);
                }
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && in_flight > 0 => {}
                Err(e) => {
                    let op = slot_op[batch[0].0].unwrap_or(Op {
                        index: 0,
                        kind: OpKind::Write,
                        offset: 0,
                        len: 0,
                    });
                    error = Some(failed(&op, IoCause::Os(e)));
                }
            }
        }
        if in_flight == 0 {
            if error.is_none() && !batch.is_empty() {
                t = now();
                continue;
            }
            // An op held for its issue time that the deadline overtook (the thread woke late) is never
            // issued: without this check the loop would spin here, unable to submit or to sleep.
            let before_deadline = job.deadline_ns.is_none_or(|d| now() < d);
            if let Some((_, at)) =
                held.filter(|_| error.is_none() && !job.stopping() && before_deadline)
            {
                // Nothing in flight and the next op not due yet: sleep until it is, or the interval ends.
                t = now();
                let boundary = (t / job.clock.interval_ns + 1) * job.clock.interval_ns;
                let until = at.min(boundary);
                if until > t {
                    std::thread::sleep(std::time::Duration::from_nanos(until - t));
                }
                t = now();
                rec.advance(t);
                continue;
            }
            break;
        }
        // Wake at the next interval boundary at the latest, so that idle intervals close on time.
        let boundary = (t / job.clock.interval_ns + 1) * job.clock.interval_ns;
        let mut wake = job
            .deadline_ns
            .filter(|&d| d > t)
            .map_or(boundary, |d| d.min(boundary));
        if let Some((_, at)) = held {
            wake = wake.min(at.max(t + 1));
        }
        let reaped = q.reap(Some(wake.saturating_sub(t).max(1)), &mut |slot, res| {
            done.push((slot, res))
        });
        t = now();
        match reaped {
            Ok(0) => rec.advance(t),
            Ok(_) => {}
            Err(e) => {
                error.get_or_insert(IoError {
                    kind: OpKind::Read,
                    offset: 0,
                    len: 0,
                    cause: IoCause::Os(e),
                });
                break;
            }
        }
        for (slot, res) in done.drain(..) {
            in_flight -= 1;
            free.push(slot);
            let Some(op) = slot_op[slot].take() else {
                continue;
            };
            let cause = if res < 0 {
                IoCause::Os(io::Error::from_raw_os_error(-res as i32))
            } else if res as u64 != op.len as u64 {
                IoCause::Short(res as usize)
            } else {
                rec.record(op.kind, op.len as u64, t - submitted_at[slot], t);
                if let Some(check) = job.check
                    && let Some(buf) = q.buf(slot)
                {
                    check.check(&op, &buf[..op.len as usize], t, &mut rec);
                }
                continue;
            };
            let e = failed(&op, cause);
            rec.fail(&e, t);
            if !job.goes_on_after(&e) {
                error.get_or_insert(e);
            }
        }
    }
    if error.is_some() {
        job.abort();
    }
    rec.finish(error)
}

/// The syscall layer's direction of an op.
#[inline]
fn dir(kind: OpKind) -> Dir {
    match kind {
        OpKind::Read => Dir::Read,
        OpKind::Write => Dir::Write,
    }
}
