//! The `psync` engine: `queue_depth` threads, each with one pread/pwrite in flight, sharing the op stream.
//! A write with per-I/O flags (`sync = "dsync"`) is a pwritev2 with them; a trim is a BLKDISCARD (block
//! device) or a punched hole (file), made and timed the same way; a flush (`fsync = N`) follows the job's
//! every N-th completed write on the thread that completed it.

use super::cadence::from_intended;
use super::{Engine, Event, IoCause, IoError, Job, Outcome, Recorder};
use crate::buf::{AlignedBuf, AllocError};
use crate::sys::file::{Trim, pwrite_flags};
use crate::vocab::Direction;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::Sender;
use std::sync::{Condvar, Mutex};

/// The pread/pwrite thread pool.
pub struct Psync;

impl Engine for Psync {
    fn name(&self) -> &'static str {
        "psync"
    }

    fn workers(&self, job: &Job<'_>) -> usize {
        job.queue_depth as usize
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        let Some(file) = job.file else {
            return super::queue::setup_failed(
                job.recorder(0, events),
                "psync",
                std::io::Error::other("no target file is open"),
            );
        };
        let trim = match crate::sys::file::Trim::of(file) {
            Ok(t) => t,
            Err(e) => return super::queue::setup_failed(job.recorder(0, events), "psync", e),
        };
        let n = self.workers(job);
        // Setup (buffers, threads) happens before the phase clock starts: every worker allocates, then
        // waits at the gate; the clock starts once all are ready, and only then are they let go. A thread
        // that cannot be spawned or a buffer that cannot be allocated closes the gate: every worker started
        // returns at once, and the phase fails with that error.
        let gate = Gate::default();
        let (outcomes, spawn_error) = std::thread::scope(|s| {
            let mut handles = Vec::with_capacity(n);
            let mut spawn_error = None;
            for w in 0..n {
                let tx = events.clone();
                let gate = &gate;
                let spawned = std::thread::Builder::new()
                    .spawn_scoped(s, move || start_worker(job, (file, trim), w, n, tx, gate));
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        let what = format!("queue-slot thread {} of {n}", w + 1);
                        spawn_error = Some(super::spawn_error("psync", &what, &e));
                        break;
                    }
                }
            }
            if spawn_error.is_none() {
                gate.wait_ready(n);
            }
            let go = spawn_error.is_none() && !job.stopping();
            if go {
                job.begin();
            } else {
                job.abort();
            }
            gate.open(go);
            let outcomes: Vec<Outcome> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect();
            (outcomes, spawn_error)
        });
        let mut out = Outcome::new(spawn_error);
        for o in outcomes {
            out.merge(o);
        }
        out
    }
}

/// A queue-slot thread: allocates its buffer, waits at the gate, then does its I/O; returns at once when the
/// gate closed (another worker could not start), or with the error when its buffer could not be allocated.
fn start_worker(
    job: &Job<'_>,
    file: (&std::fs::File, Trim),
    w: usize,
    n: usize,
    tx: Sender<Event>,
    gate: &Gate,
) -> Outcome {
    let rec = job.ready_recorder(w, &tx, "psync");
    let buf = AlignedBuf::try_new(job.max_len, job.align);
    if buf.is_err() || rec.is_err() {
        job.abort();
    }
    let go = gate.ready();
    match (buf, rec) {
        (_, Err(o)) => *o,
        (Err(_), Ok(rec)) => {
            let e = AllocError::io_bufs(n, job.max_len);
            rec.finish(Some(super::alloc_error("psync", &e)))
        }
        (Ok(buf), Ok(rec)) if go => worker(job, file, buf, rec),
        (Ok(_), Ok(rec)) => rec.finish(None),
    }
}

/// Where the workers wait, once set up, for the phase to start: each says it is ready and waits; the caller
/// waits until all are, then opens the gate (go) or closes it (stop at once).
#[derive(Default)]
struct Gate {
    /// Workers ready, and the decision once taken.
    state: Mutex<(usize, Option<bool>)>,
    cv: Condvar,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, (usize, Option<bool>)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A worker is ready: waits for the decision; true to go.
    fn ready(&self) -> bool {
        let mut s = self.lock();
        s.0 += 1;
        self.cv.notify_all();
        loop {
            if let Some(go) = s.1 {
                return go;
            }
            s = self.cv.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Waits until `n` workers are ready.
    fn wait_ready(&self, n: usize) {
        let mut s = self.lock();
        while s.0 < n {
            s = self.cv.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Lets every worker go (`true`) or stop (`false`), those waiting and those still setting up.
    fn open(&self, go: bool) {
        self.lock().1 = Some(go);
        self.cv.notify_all();
    }
}

/// A worker's I/O loop. Never inlined into its setup ([`start_worker`]), so that what it calls per I/O
/// (recording, write data, the op stream) stays inlined into it.
#[inline(never)]
fn worker(
    job: &Job<'_>,
    (file, trim): (&std::fs::File, Trim),
    mut buf: AlignedBuf,
    mut rec: Recorder,
) -> Outcome {
    let mut error = None;
    let mut cadence = super::cadence::Cadence::new(job);
    rec.start_cpu();
    'claims: while let Some(chunk) = job.ops.claim() {
        for op in chunk {
            if job.stopping() {
                break 'claims;
            }
            let data = &mut buf[..op.len as usize];
            if op.dir == Direction::Write
                && let Err(e) = job.data.fill(data, &op)
            {
                error = Some(IoError {
                    dir: op.dir,
                    offset: op.offset,
                    len: op.len,
                    cause: IoCause::Data(e),
                });
                break 'claims;
            }
            if cadence.burst_done() {
                // Think time: this thread's I/O has completed (one in flight at a time), so it idles now.
                cadence.think(job.now_ns());
            }
            // Under a schedule, wait for the op's issue time (an op whose slot ends past the deadline, or
            // whose burst starts after it, is never issued).
            let Some(due) = cadence.due(job, &op) else {
                break 'claims;
            };
            let at = due.at;
            // Sleep in slices of at most 10 ms, telling the series this worker is idle (so rows are not
            // held back) and stopping at once when the phase ends.
            // (`at` is 0 without a schedule: no clock reading then.)
            let mut now = if at > 0 { job.now_ns() } else { 0 };
            while at > now {
                rec.advance(now);
                if job.stopping() {
                    break 'claims;
                }
                std::thread::sleep(std::time::Duration::from_nanos((at - now).min(10_000_000)));
                now = job.now_ns();
            }
            let t0 = job.now_ns();
            if job.deadline_ns.is_some_and(|d| t0 >= d) {
                break 'claims;
            }
            cadence.issued();
            let r = match op.dir {
                Direction::Read => file.read_at(data, op.offset),
                Direction::Write if job.write_flags == 0 => file.write_at(data, op.offset),
                Direction::Write => pwrite_flags(file, data, op.offset, job.write_flags),
                Direction::Trim => trim
                    .run(file, op.offset, op.len as u64)
                    .map(|()| data.len()),
            };
            let t1 = job.now_ns();
            let cause = match r {
                Ok(n) if n == op.len as usize => {
                    rec.record(op.dir, op.offset, n as u64, t1 - t0, t1);
                    if cadence.scheduled() {
                        rec.record_intended(op.dir, from_intended(due.intended, t0, t1));
                    }
                    if let Some(check) = job.check {
                        check.check(&op, data, t1, &mut rec);
                    }
                    job.ops.done(op.index);
                    if op.dir == Direction::Write
                        && let Err(e) = job.after_write(&mut rec)
                    {
                        error = Some(e);
                        break 'claims;
                    }
                    continue;
                }
                Ok(n) => IoCause::Short(n),
                Err(e) => IoCause::Os(e),
            };
            let e = IoError {
                dir: op.dir,
                offset: op.offset,
                len: op.len,
                cause,
            };
            rec.fail(&e, t1);
            if !job.goes_on_after(&e) {
                error = Some(e);
                break 'claims;
            }
            job.ops.done(op.index);
        }
    }
    // Ops this worker claimed and will not do no longer hold the others' window back.
    job.ops.close();
    if error.is_some() {
        job.abort();
    }
    rec.thinks = cadence.thinks;
    rec.finish(error)
}
