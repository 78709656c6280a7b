//! The single-thread asynchronous loop shared by the `libaio`, `io_uring` and `null` engines: keep exactly
//! `queue_depth` I/Os in flight, submit every freed slot in one batch, reap every completion available, and
//! take one clock reading per batch as the submission (or completion) time of all its I/Os. Allocates
//! nothing after its setup. Trims are made at once from this thread, each timed alone (no queue here has a
//! trim op); flushes (`fsync = N`) follow the job's N-th completed writes, from this thread, while the
//! other I/Os stay in flight.

use super::cadence::from_intended;
use super::pace::{MIN_WAIT_US, Mode, Pace};
use super::{Event, IoCause, IoError, Job, Outcome, Recorder};
use crate::buf::{AlignedBuf, try_bufs};
use crate::ops::{Op, Ops};
use crate::sys::aio::AioQueue;
use crate::sys::uring::UringQueue;
use crate::sys::{Dir, Io};
use crate::vocab::Direction;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::mpsc::Sender;

/// A kernel queue of `depth` slots, each with its own buffer.
pub trait SlotQueue {
    /// The buffer of an idle slot; `None` while its I/O is in flight.
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]>;
    /// Queues I/Os, each in its slot's buffer; returns how many were accepted (a prefix).
    fn submit(&mut self, ios: &[Io]) -> io::Result<usize>;
    /// Waits for at least `want` completions (1 to the I/Os in flight) or the timeout; appends `(slot,
    /// result)` per completion to `done` (empty when called, with room for every slot: it allocates
    /// nothing). With `min_wait_us` > 0, a queue that can ([`SlotQueue::can_wait_min`]) also ends the wait
    /// that long after it began once any completion is in; the others ignore it.
    fn reap(
        &mut self,
        want: usize,
        min_wait_us: u32,
        timeout_ns: Option<u64>,
        done: &mut Vec<(usize, i64)>,
    ) -> io::Result<usize>;
    /// Whether the queue's waits can end after a minimum time once any completion is in (io_uring on
    /// Linux 6.12+), so that batched waits ([`super::pace`]) can be tried.
    fn can_wait_min(&self) -> bool {
        false
    }
}

impl SlotQueue for AioQueue {
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        AioQueue::buf(self, slot)
    }
    fn submit(&mut self, ios: &[Io]) -> io::Result<usize> {
        AioQueue::submit(self, ios)
    }
    fn reap(
        &mut self,
        want: usize,
        _min_wait_us: u32,
        timeout_ns: Option<u64>,
        done: &mut Vec<(usize, i64)>,
    ) -> io::Result<usize> {
        AioQueue::reap(self, want, timeout_ns, &mut |slot, res| {
            done.push((slot, res))
        })
    }
}

impl SlotQueue for UringQueue {
    fn buf(&mut self, slot: usize) -> Option<&mut [u8]> {
        UringQueue::buf(self, slot)
    }
    fn submit(&mut self, ios: &[Io]) -> io::Result<usize> {
        UringQueue::submit(self, ios)
    }
    fn reap(
        &mut self,
        want: usize,
        min_wait_us: u32,
        timeout_ns: Option<u64>,
        done: &mut Vec<(usize, i64)>,
    ) -> io::Result<usize> {
        UringQueue::reap(self, want, min_wait_us, timeout_ns, &mut |slot, res| {
            done.push((slot, res))
        })
    }
    fn can_wait_min(&self) -> bool {
        UringQueue::can_wait_min(self)
    }
}

/// Runs `job` on the queue that `open(fd, bufs)` makes over the job's open target, with one buffer per queue
/// slot of the job's buffer size and alignment, allocated here (fallibly); `warning` says what the phase's
/// results should hear about the queue made (buffers left unregistered). Without an open target, buffers, or
/// when `open` fails, the outcome carries the error ([`setup_failed`], naming `engine`).
pub fn run_on_target<Q: SlotQueue>(
    job: &Job<'_>,
    events: &Sender<Event>,
    engine: &'static str,
    open: impl FnOnce(RawFd, Vec<AlignedBuf>) -> io::Result<Q>,
    warning: impl FnOnce(&Q) -> Option<String>,
) -> Outcome {
    let rec = || job.recorder(0, events);
    let Some(file) = job.file else {
        return setup_failed(rec(), engine, io::Error::other("no target file is open"));
    };
    let bufs = match try_bufs(job.queue_depth as usize, job.max_len, job.align) {
        Ok(b) => b,
        Err(e) => return rec().finish(Some(super::alloc_error(engine, &e))),
    };
    match open(file.as_raw_fd(), bufs) {
        Ok(mut q) => {
            let w = warning(&q);
            let mut out = run(job, &mut q, events, engine);
            out.warnings.extend(w);
            out
        }
        Err(e) => setup_failed(rec(), engine, e),
    }
}

/// An engine that could not start (no AIO context, io_uring disabled): the outcome carries the error.
pub fn setup_failed(rec: Recorder, engine: &'static str, e: io::Error) -> Outcome {
    rec.finish(Some(super::setup_error(engine, e)))
}

/// The next op of the shared stream, claiming a new chunk when the current one is used up. Inlined into
/// the loops that issue ops, so that the op is made in registers where it is used; the claim is out of line.
#[inline(always)]
pub(super) fn next_op<'a>(job: &'a Job<'_>, chunk: &mut Option<Ops<'a>>) -> Option<Op> {
    loop {
        if let Some(op) = chunk.as_mut().and_then(Iterator::next) {
            return Some(op);
        }
        if !claim(job, chunk) {
            return None;
        }
    }
}

/// Claims the next chunk of the shared stream into `chunk`; false when the stream is exhausted. Returns no
/// op, so that ops come from one place, [`Ops::next`](crate::ops::Ops), and stay in registers.
#[inline(never)]
fn claim<'a>(job: &'a Job<'_>, chunk: &mut Option<Ops<'a>>) -> bool {
    *chunk = job.ops.claim();
    chunk.is_some()
}

fn failed(op: &Op, cause: IoCause) -> IoError {
    IoError {
        dir: op.dir,
        offset: op.offset,
        len: op.len,
        cause,
    }
}

/// Runs `job` on `q` (depth = `job.queue_depth`) from this thread, recording into a single recorder.
pub fn run(
    job: &Job<'_>,
    q: &mut dyn SlotQueue,
    events: &Sender<Event>,
    engine: &'static str,
) -> Outcome {
    let qd = job.queue_depth as usize;
    let probe = job.probe_waits && q.can_wait_min();
    let rec = match job.ready_recorder(0, events, engine) {
        Ok(r) => r,
        Err(o) => return *o,
    };
    let mut l = Loop {
        pace: Pace::new(probe),
        job,
        q,
        rec,
        slot_op: vec![None; qd],
        submitted_at: vec![0u64; qd],
        intended_at: vec![0u64; qd],
        cadence: super::cadence::Cadence::new(job),
        free: (0..qd).rev().collect(),
        batch: Vec::with_capacity(qd),
        chunk: None,
        exhausted: false,
        in_flight: 0,
        error: None,
        done: Vec::with_capacity(qd),
        held: None,
        t: 0,
        trim: None,
    };
    if let Some(f) = job.file {
        match crate::sys::file::Trim::of(f) {
            Ok(how) => l.trim = Some((f, how)),
            Err(e) => return setup_failed(l.rec, engine, e),
        }
    }
    job.begin();
    l.rec.start_cpu();
    // Two clock readings per batch: just before the submission (the batch's submission time) and just after
    // the reap (the completion time of what it returned, and "now" for the deadline and the next batch).
    l.t = job.now_ns();
    loop {
        l.fill();
        l.submit();
        if l.in_flight == 0 {
            match l.idle() {
                Flow::Continue => continue,
                Flow::Break => break,
            }
        }
        if !l.reap() {
            break;
        }
        l.complete();
    }
    if l.error.is_some() {
        job.abort();
    }
    let said = l.pace.warning(engine);
    l.rec.thinks = l.cadence.thinks;
    let mut out = l.rec.finish(l.error);
    out.warnings.extend(said);
    out.waits = l.pace.outcome();
    out
}

/// Whether the loop goes on.
enum Flow {
    Continue,
    Break,
}

/// The loop's state: which op each slot holds and since when, the free slots, the batch being built.
struct Loop<'j, 'q> {
    job: &'j Job<'j>,
    q: &'q mut dyn SlotQueue,
    rec: Recorder,
    slot_op: Vec<Option<Op>>,
    submitted_at: Vec<u64>,
    /// Each slot's op's intended issue time (under a schedule: [`super::cadence`]).
    intended_at: Vec<u64>,
    /// The phase's arrivals: rate cap slots, think time.
    cadence: super::cadence::Cadence,
    free: Vec<usize>,
    batch: Vec<Io>,
    chunk: Option<Ops<'j>>,
    exhausted: bool,
    in_flight: usize,
    error: Option<IoError>,
    done: Vec<(usize, i64)>,
    /// With a rate cap: the next op, taken from the stream but not yet due, and when it is due.
    held: Option<(Op, u64)>,
    /// The last clock reading.
    t: u64,
    /// How to wait for completions.
    pace: Pace,
    /// How trims reach the target: `None` without one (the `null` engine, which only counts them).
    trim: Option<(&'j std::fs::File, crate::sys::file::Trim)>,
}

impl Loop<'_, '_> {
    fn now(&self) -> u64 {
        self.job.now_ns()
    }

    /// Gives every free slot its next op (with its data for a write), until the stream, the deadline or a
    /// rate cap says wait.
    #[inline]
    fn fill(&mut self) {
        let job = self.job;
        let may_submit = self.error.is_none()
            && !self.exhausted
            && !job.stopping()
            && job.deadline_ns.is_none_or(|d| self.t < d);
        if !may_submit {
            return;
        }
        while let Some(&slot) = self.free.last() {
            let op = match self.held.take() {
                Some((op, _)) => op,
                None => match next_op(job, &mut self.chunk) {
                    Some(op) => op,
                    None => {
                        self.exhausted = true;
                        break;
                    }
                },
            };
            if self.cadence.burst_done() {
                // Think time (only before an op that follows): the burst drains, then the loop idles until
                // the next burst is released. The op waits, due at no time, while the queue drains.
                if self.in_flight > 0 || !self.batch.is_empty() {
                    self.held = Some((op, u64::MAX));
                    break;
                }
                self.cadence.think(self.now());
            }
            let Some(due) = self.cadence.due(job, &op) else {
                self.exhausted = true;
                break;
            };
            if due.at > 0 && due.at > self.now() {
                self.held = Some((op, due.at));
                break;
            }
            if op.dir == Direction::Trim {
                self.cadence.issued();
                if !self.trim_now(&op, due.intended) {
                    break;
                }
                continue;
            }
            if op.dir == Direction::Write {
                let Some(buf) = self.q.buf(slot) else {
                    self.held = Some((op, 0));
                    break;
                };
                if let Err(e) = job.data.fill(&mut buf[..op.len as usize], &op) {
                    self.error = Some(failed(&op, IoCause::Data(e)));
                    break;
                }
            }
            self.free.pop();
            self.cadence.issued();
            self.intended_at[slot] = due.intended;
            self.slot_op[slot] = Some(op);
            self.batch.push(Io {
                slot,
                dir: dir(op.dir),
                offset: op.offset,
                len: op.len,
                flags: if op.dir == Direction::Write {
                    job.write_flags
                } else {
                    0
                },
            });
        }
    }

    /// Trims `op` at once, from this thread (no queue has a trim: io_uring's discard needs a newer kernel
    /// and AIO has none), timed from before the syscall to after it as a completion of its own; false when
    /// the loop must stop filling (the trim failed for good, or the deadline passed during it). Under a
    /// schedule its latency from its `intended` issue time is kept too, as every other op's.
    #[inline(never)]
    fn trim_now(&mut self, op: &Op, intended: u64) -> bool {
        let job = self.job;
        let t0 = self.now();
        let r = match self.trim {
            Some((f, how)) => how.run(f, op.offset, op.len as u64),
            None => Ok(()),
        };
        self.t = self.now();
        match r {
            Ok(()) => {
                self.rec
                    .record(op.dir, op.offset, op.len as u64, self.t - t0, self.t);
                if self.cadence.scheduled() {
                    self.rec
                        .record_intended(op.dir, from_intended(intended, t0, self.t));
                }
            }
            Err(e) => {
                let e = failed(op, IoCause::Os(e));
                self.rec.fail(&e, self.t);
                if !job.goes_on_after(&e) {
                    self.error.get_or_insert(e);
                    return false;
                }
            }
        }
        job.deadline_ns.is_none_or(|d| self.t < d) && !job.stopping()
    }

    /// Submits the batch; what the kernel does not take stays for the next round.
    #[inline]
    fn submit(&mut self) {
        if self.batch.is_empty() || self.error.is_some() {
            return;
        }
        self.t = self.now();
        match self.q.submit(&self.batch) {
            Ok(n) => {
                for io in &self.batch[..n] {
                    self.submitted_at[io.slot] = self.t;
                }
                self.in_flight += n;
                self.batch.drain(..n);
            }
            Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && self.in_flight > 0 => {}
            Err(e) => {
                let op = self.slot_op[self.batch[0].slot].unwrap_or(Op {
                    index: 0,
                    dir: Direction::Write,
                    offset: 0,
                    len: 0,
                });
                self.error = Some(failed(&op, IoCause::Os(e)));
            }
        }
    }

    /// Nothing in flight: submit what is left, sleep until a held op is due, or end.
    fn idle(&mut self) -> Flow {
        let job = self.job;
        if self.error.is_none() && !self.batch.is_empty() {
            self.t = self.now();
            return Flow::Continue;
        }
        // An op held for its issue time that the deadline overtook (the thread woke late) is never issued:
        // without this check the loop would spin here, unable to submit or to sleep.
        let before_deadline = job.deadline_ns.is_none_or(|d| self.now() < d);
        let Some((_, at)) = self
            .held
            .filter(|_| self.error.is_none() && !job.stopping() && before_deadline)
        else {
            return Flow::Break;
        };
        // Nothing in flight and the next op not due yet: sleep until it is, or the interval ends.
        self.t = self.now();
        let boundary = (self.t / job.clock.interval_ns + 1) * job.clock.interval_ns;
        let until = at.min(boundary);
        if until > self.t {
            std::thread::sleep(std::time::Duration::from_nanos(until - self.t));
        }
        self.t = self.now();
        self.rec.advance(self.t);
        Flow::Continue
    }

    /// Waits for completions (the job's `completions_per_wait`, or all in flight when fewer; in batched mode,
    /// all in flight with the kernel's minimum wait: [`super::pace`]), at the latest until the next interval
    /// boundary (so that idle intervals close on time), the deadline or a held op's issue time; false when
    /// the queue failed.
    #[inline]
    fn reap(&mut self) -> bool {
        let job = self.job;
        let boundary = (self.t / job.clock.interval_ns + 1) * job.clock.interval_ns;
        let mut wake = job
            .deadline_ns
            .filter(|&d| d > self.t)
            .map_or(boundary, |d| d.min(boundary));
        if let Some((_, at)) = self.held {
            wake = wake.min(at.max(self.t + 1));
        }
        // More than one completion per wait only when the plan says so (Job::completions_per_wait), or
        // batched waits where the probe found them faster (super::pace).
        let timeout = wake.saturating_sub(self.t).max(1);
        let (want, min_wait_us) = match self.pace.mode() {
            Mode::Each => (job.completions_per_wait as usize, 0),
            // The kernel's minimum wait outlasts a shorter timeout: then the timeout alone.
            Mode::Batched if timeout < MIN_WAIT_US as u64 * 1000 => (self.in_flight, 0),
            Mode::Batched => (self.in_flight, MIN_WAIT_US),
        };
        let want = want.clamp(1, self.in_flight.max(1));
        let reaped = self
            .q
            .reap(want, min_wait_us, Some(timeout), &mut self.done);
        self.t = self.now();
        match reaped {
            Ok(n) => {
                if n == 0 {
                    self.rec.advance(self.t);
                }
                self.pace.observe(self.t, n);
            }
            Err(e) => {
                self.error.get_or_insert(IoError {
                    dir: Direction::Read,
                    offset: 0,
                    len: 0,
                    cause: IoCause::Os(e),
                });
                return false;
            }
        }
        true
    }

    /// Records every completion reaped: its latency, or its failure.
    #[inline]
    fn complete(&mut self) {
        let (job, t) = (self.job, self.t);
        for (slot, res) in self.done.drain(..) {
            self.in_flight -= 1;
            self.free.push(slot);
            let Some(op) = self.slot_op[slot].take() else {
                continue;
            };
            let cause = if res < 0 {
                IoCause::Os(io::Error::from_raw_os_error(-res as i32))
            } else if res as u64 != op.len as u64 {
                IoCause::Short(res as usize)
            } else {
                self.rec.record(
                    op.dir,
                    op.offset,
                    op.len as u64,
                    t - self.submitted_at[slot],
                    t,
                );
                if self.cadence.scheduled() {
                    let from = from_intended(self.intended_at[slot], self.submitted_at[slot], t);
                    self.rec.record_intended(op.dir, from);
                }
                if let Some(check) = job.check
                    && let Some(buf) = self.q.buf(slot)
                {
                    check.check(&op, &buf[..op.len as usize], t, &mut self.rec);
                }
                if op.dir == Direction::Write
                    && job.flush.is_some()
                    && let Err(e) = job.after_write(&mut self.rec)
                {
                    self.error.get_or_insert(e);
                }
                continue;
            };
            let e = failed(&op, cause);
            self.rec.fail(&e, t);
            if !job.goes_on_after(&e) {
                self.error.get_or_insert(e);
            }
        }
    }
}

/// The syscall layer's direction of an op handed to a queue: a read, or a write (trims never reach a
/// queue: [`Loop::trim_now`] makes them at once).
#[inline]
fn dir(d: Direction) -> Dir {
    match d {
        Direction::Read => Dir::Read,
        Direction::Write | Direction::Trim => Dir::Write,
    }
}
