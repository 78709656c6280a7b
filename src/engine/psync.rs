//! The `psync` engine: `queue_depth` threads, each with one pread/pwrite in flight, sharing the op stream.

use super::{Engine, Event, IoCause, IoError, Job, Outcome, Recorder};
use crate::buf::AlignedBuf;
use crate::ops::OpKind;
use crate::stats::LatencyRecorder;
use std::os::unix::fs::FileExt;
use std::sync::Barrier;
use std::sync::mpsc::Sender;

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
                Recorder::new(0, job.clock, events.clone()),
                "psync",
                std::io::Error::other("no target file is open"),
            );
        };
        let n = self.workers(job);
        // Setup (buffers, threads) happens before the phase clock starts: every worker allocates, then
        // waits; the clock starts once all are ready, and only then are they released.
        let ready = Barrier::new(n + 1);
        let go = Barrier::new(n + 1);
        let outcomes: Vec<Outcome> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|w| {
                    let tx = events.clone();
                    let (ready, go) = (&ready, &go);
                    s.spawn(move || {
                        let buf = AlignedBuf::new(job.max_len, job.align);
                        let rec = Recorder::new(w, job.clock, tx);
                        ready.wait();
                        go.wait();
                        worker(job, file, buf, rec)
                    })
                })
                .collect();
            ready.wait();
            job.begin();
            go.wait();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let mut out = Outcome {
            read: LatencyRecorder::new(),
            write: LatencyRecorder::new(),
            end_ns: 0,
            sizes: Vec::new(),
            error: None,
            errors: Default::default(),
        };
        for o in outcomes {
            out.merge(o);
        }
        out
    }
}

fn worker(job: &Job<'_>, file: &std::fs::File, mut buf: AlignedBuf, mut rec: Recorder) -> Outcome {
    let mut error = None;
    'claims: while let Some(chunk) = job.ops.claim() {
        for op in chunk {
            if job.stopping() {
                break 'claims;
            }
            let data = &mut buf[..op.len as usize];
            if op.kind == OpKind::Write
                && let Err(e) = job.data.fill(data, &op)
            {
                error = Some(IoError {
                    kind: op.kind,
                    offset: op.offset,
                    len: op.len,
                    cause: IoCause::Data(e),
                });
                break 'claims;
            }
            if let Some(at) = job.issue_at(&op) {
                // Rate cap: wait for the op's issue time (past the deadline, the op is never issued).
                if job.deadline_ns.is_some_and(|d| at >= d) {
                    break 'claims;
                }
                // Sleep in slices of at most 10 ms, telling the series this worker is idle (so rows are not
                // held back) and stopping at once when the phase ends.
                loop {
                    let now = job.now_ns();
                    if at <= now {
                        break;
                    }
                    rec.advance(now);
                    if job.stopping() {
                        break 'claims;
                    }
                    std::thread::sleep(std::time::Duration::from_nanos((at - now).min(10_000_000)));
                }
            }
            let t0 = job.now_ns();
            if job.deadline_ns.is_some_and(|d| t0 >= d) {
                break 'claims;
            }
            let r = match op.kind {
                OpKind::Read => file.read_at(data, op.offset),
                OpKind::Write => file.write_at(data, op.offset),
            };
            let t1 = job.now_ns();
            let cause = match r {
                Ok(n) if n == op.len as usize => {
                    rec.record(op.kind, n as u64, t1 - t0, t1);
                    if let Some(check) = job.check {
                        check.check(&op, data, t1, &mut rec);
                    }
                    continue;
                }
                Ok(n) => IoCause::Short(n),
                Err(e) => IoCause::Os(e),
            };
            let e = IoError {
                kind: op.kind,
                offset: op.offset,
                len: op.len,
                cause,
            };
            rec.fail(&e, t1);
            if !job.goes_on_after(&e) {
                error = Some(e);
                break 'claims;
            }
        }
    }
    if error.is_some() {
        job.abort();
    }
    rec.finish(error)
}
