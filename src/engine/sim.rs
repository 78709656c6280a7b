//! The engine of a simulated target: the op stream at `queue_depth` against a [`SimDevice`] in virtual
//! time. One thread; each I/O's completion time comes from the drive's timing model, completions are
//! taken in time order, and a freed slot is refilled at its completion time, as a host keeping QD I/Os in
//! flight would. The phase clock is the drive's: a 2000 s phase takes as long as the CPU needs to simulate it.

use super::cadence::from_intended;
use super::{Engine, Event, IoCause, IoError, Job, Outcome, Recorder, queue};
use crate::ops::{Op, Ops};
use crate::sim::{DeviceCounters, SimDevice};
use crate::stats::IntervalClock;
use crate::stats::MAX_INTERVALS;
use crate::sys::dir::RowFile;
use crate::vocab::Direction;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io;
use std::sync::Mutex;
use std::sync::mpsc::Sender;

/// Runs phases on a simulated drive.
pub struct Sim<'d> {
    /// The drive (its state persists across phases).
    pub device: &'d Mutex<SimDevice>,
    /// Flash slots each written 4 KiB unit takes (see [`SimDevice::slots_for`]).
    pub slots: u32,
    /// The file, created empty, to write the per-interval device internals into (`NN-<phase>.device.csv`);
    /// `None` for none.
    pub device_csv: Option<&'d File>,
    /// Receives the first error writing that CSV, if any.
    pub csv_error: &'d Mutex<Option<io::Error>>,
}

/// An I/O in flight, ordered by completion time (then op index, so that ties resolve the same every run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InFlight {
    done: u64,
    /// Its intended issue time (under a schedule), ns.
    intended: u64,
    index: u64,
    submitted: u64,
    dir: Direction,
    offset: u64,
    len: u32,
}

impl Ord for InFlight {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.done, self.index).cmp(&(o.done, o.index))
    }
}

impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Engine for Sim<'_> {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn run(&self, job: &Job<'_>, events: &Sender<Event>) -> Outcome {
        let mut dev = self.device.lock().unwrap_or_else(|p| p.into_inner());
        let rec = match job.ready_recorder(0, events, "sim") {
            Ok(r) => r,
            Err(o) => return *o,
        };
        let rows = match self
            .device_csv
            .map(|f| DeviceRows::create(f, job.clock, &dev))
        {
            Some(Ok(r)) => Some(r),
            // The device CSV's header could not be written (a full disk): the phase ends at once, failing
            // with the file named, as at a row that cannot be written; the engine itself did start.
            Some(Err(e)) => {
                self.csv_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                job.abort();
                None
            }
            None => None,
        };
        let mut f = Flight::new(job, &dev, rec, rows);
        job.begin();
        let error = loop {
            f.submit(job, &mut dev, self);
            let Some(Reverse(c)) = f.heap.pop() else {
                break None;
            };
            if c.done > f.limit {
                break Some(past_limit(&c, f.limit));
            }
            f.complete(job, &dev, self, &c);
        };
        f.finish(job, &mut dev, self, error)
    }
}

/// One phase on the drive: the I/Os in flight, where the op stream stands, and the phase's clock.
struct Flight<'a> {
    /// The drive's clock when the phase started, ns: phase time 0.
    base: u64,
    /// I/Os kept in flight.
    qd: usize,
    /// The I/Os in flight, earliest completion first.
    heap: BinaryHeap<Reverse<InFlight>>,
    /// The op stream's current chunk.
    chunk: Option<Ops<'a>>,
    /// An op due after a completion still in flight (under a rate cap), and its due time.
    held: Option<(Op, u64)>,
    /// The phase's arrivals: rate cap slots, think time.
    cadence: super::cadence::Cadence,
    /// No more ops will be submitted (stream ended, time bound, stop).
    exhausted: bool,
    /// Phase time now, ns.
    t: u64,
    /// Intervals the collector has been seen to take (lockstep).
    waited: u64,
    /// Latest completion a phase without a time bound may have: MAX_INTERVALS intervals.
    limit: u64,
    rec: Recorder,
    rows: Option<DeviceRows>,
}

impl<'a> Flight<'a> {
    fn new(job: &Job<'_>, dev: &SimDevice, rec: Recorder, rows: Option<DeviceRows>) -> Flight<'a> {
        let qd = job.queue_depth.max(1) as usize;
        Flight {
            base: dev.clock(),
            qd,
            heap: BinaryHeap::with_capacity(qd),
            chunk: None,
            held: None,
            cadence: super::cadence::Cadence::new(job),
            exhausted: false,
            t: 0,
            waited: 0,
            // A phase without a time bound must still end: at most MAX_INTERVALS intervals of virtual time.
            limit: match job.deadline_ns {
                Some(_) => u64::MAX,
                None => MAX_INTERVALS.saturating_mul(job.clock.interval_ns),
            },
            rec,
            rows,
        }
    }

    /// Submits ops until `qd` are in flight, the stream or the time bound ends, or the next op is due after
    /// a completion still in flight.
    fn submit(&mut self, job: &'a Job<'_>, dev: &mut SimDevice, sim: &Sim<'_>) {
        while self.heap.len() < self.qd && !self.exhausted && !job.stopping() {
            let next = self
                .held
                .take()
                .map(|h| h.0)
                .or_else(|| queue::next_op(job, &mut self.chunk));
            let Some(op) = next else {
                self.exhausted = true;
                return;
            };
            if self.cadence.burst_done() {
                // Think time: the burst drains, then the host idles until the next burst is released.
                if let Some(c) = self.heap.peek() {
                    self.held = Some((op, c.0.done));
                    return;
                }
                self.cadence.think(self.t);
            }
            let Some(due) = self.cadence.due(job, &op) else {
                self.exhausted = true;
                return;
            };
            let at = due.at.max(self.t);
            if job.deadline_ns.is_some_and(|d| at >= d) {
                self.exhausted = true;
                return;
            }
            // Under a rate cap an op may be due after a completion still in flight: take that first, so the
            // drive sees requests in time order.
            if at > self.t && self.heap.peek().is_some_and(|c| c.0.done < at) {
                self.held = Some((op, due.at));
                return;
            }
            if at > self.t {
                // Nothing in flight before the op is due: the host is idle until then.
                self.t = at;
                job.set_virtual_now(at);
                self.rec.advance(at);
                if let Some(r) = self.rows.as_mut() {
                    r.at(at, dev, sim);
                    stop_on_failed_row(job, r);
                }
                wait(job, &self.rec, &mut self.waited);
            }
            let done = match op.dir {
                Direction::Read => dev.read(self.base + at, op.offset, op.len),
                Direction::Write => dev.write(self.base + at, op.offset, op.len, sim.slots),
                Direction::Trim => dev.discard(self.base + at, op.offset, op.len as u64),
            } - self.base;
            self.cadence.issued();
            self.heap.push(Reverse(InFlight {
                done,
                intended: due.intended,
                index: op.index,
                submitted: at,
                dir: op.dir,
                offset: op.offset,
                len: op.len,
            }));
        }
    }

    /// Takes completion `c`: the clock moves to it, the device rows and the recorder see it.
    fn complete(&mut self, job: &Job<'_>, dev: &SimDevice, sim: &Sim<'_>, c: &InFlight) {
        self.t = c.done;
        job.set_virtual_now(self.t);
        if let Some(r) = self.rows.as_mut() {
            r.at(self.t, dev, sim);
            stop_on_failed_row(job, r);
        }
        self.rec
            .record(c.dir, c.offset, c.len as u64, c.done - c.submitted, c.done);
        if self.cadence.scheduled() {
            self.rec
                .record_intended(c.dir, from_intended(c.intended, c.submitted, c.done));
        }
        wait(job, &self.rec, &mut self.waited);
    }

    /// Ends the phase: the drive's clock moves to its end (the time bound, unless stopped or failed, or the
    /// last completion), the last device row is written.
    fn finish(
        mut self,
        job: &Job<'_>,
        dev: &mut SimDevice,
        sim: &Sim<'_>,
        error: Option<IoError>,
    ) -> Outcome {
        let mut end = self.rec.last_ns();
        // A time-bounded phase lasts its duration even when its last I/O (under a rate cap) completed
        // earlier: the drive's clock and the phase's run to the bound.
        if let Some(d) = job
            .deadline_ns
            .filter(|_| !job.stopping() && error.is_none())
        {
            end = end.max(d);
        }
        job.set_virtual_now(end);
        dev.advance_clock(self.base + end);
        if let Some(r) = self.rows.as_mut() {
            r.finish(end, dev, sim);
        }
        if error.is_some() {
            job.abort();
        }
        self.rec.thinks = self.cadence.thinks;
        self.rec.finish(error)
    }
}

/// The error of a completion past the limit of a phase without a time bound.
fn past_limit(c: &InFlight, limit: u64) -> IoError {
    IoError {
        dir: c.dir,
        offset: 0,
        len: c.len,
        cause: IoCause::Limit(format!(
            "the phase ran past {MAX_INTERVALS} intervals ({} s) of the simulated drive's time; the drive is too slow for this much I/O (check interface_bytes_per_s and the flash times)",
            limit / 1_000_000_000
        )),
    }
}

/// With lockstep: waits until the collector has taken every interval this recorder closed (`waited` is
/// how many it had already seen taken).
#[inline]
fn wait(job: &Job<'_>, rec: &Recorder, waited: &mut u64) {
    if let Some(ls) = &job.lockstep
        && rec.sent() > *waited
    {
        ls.wait_for(rec.sent());
        *waited = rec.sent();
    }
}

/// One row of a phase's device CSV (`NN-<phase>.device.csv`): the simulated drive's internals in one
/// interval. Documented column by column in docs/results.md.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceRow {
    /// End of the interval, s since the phase start (as `t_s` of the series CSV).
    pub t_s: f64,
    /// Bytes the host wrote in the interval, in whole 4 KiB units.
    pub host_write_bytes: u64,
    /// Bytes programmed to flash in the interval: host data (after compression) and GC copies.
    pub flash_write_bytes: u64,
    /// Bytes garbage collection copied in the interval.
    pub gc_copy_bytes: u64,
    /// Erase blocks erased in the interval.
    pub erased_blocks: u64,
    /// Erased blocks ready for writing at the end of the interval.
    pub free_blocks: u64,
    /// flash_write_bytes / host_write_bytes; empty without host writes.
    pub write_amplification: Option<f64>,
}

impl DeviceRow {
    fn new(t_s: f64, c: &DeviceCounters) -> DeviceRow {
        DeviceRow {
            t_s,
            host_write_bytes: c.host_write_bytes,
            flash_write_bytes: c.flash_write_bytes,
            gc_copy_bytes: c.gc_copy_bytes,
            erased_blocks: c.erased_blocks,
            free_blocks: c.free_blocks,
            write_amplification: c.write_amplification(),
        }
    }
}

/// A device CSV that takes no more rows (a full disk, the file-size limit) ends the phase now, as a signal
/// would: the run fails with what it measured so far.
fn stop_on_failed_row(job: &Job<'_>, rows: &DeviceRows) {
    if rows.failed && !job.stopping() {
        job.abort();
    }
}

/// Writes a row per interval of the phase's series as the virtual clock passes its end, each row in one
/// piece ([`RowFile`]): the file always ends with a whole row.
struct DeviceRows {
    file: RowFile,
    clock: IntervalClock,
    cur: u64,
    last: DeviceCounters,
    /// A row could not be written: the phase is to stop (the first error is in `Sim::csv_error`).
    failed: bool,
}

impl DeviceRows {
    /// Rows into `file` (empty), starting with the header.
    fn create(file: &File, clock: IntervalClock, dev: &SimDevice) -> io::Result<DeviceRows> {
        let mut file = RowFile::new(file.try_clone()?);
        file.append(&csv_line(
            &DeviceRow::new(0.0, &DeviceCounters::default()),
            true,
        )?)?;
        Ok(DeviceRows {
            file,
            clock,
            cur: 0,
            last: dev.counters(),
            failed: false,
        })
    }

    /// The clock reached `t` ns: rows for every interval that ended before it.
    fn at(&mut self, t: u64, dev: &SimDevice, sim: &Sim<'_>) {
        // Most completions fall in the current interval: no division for them.
        if t < self.clock.end_of(self.cur) {
            return;
        }
        let k = self.clock.index_of(t);
        while self.cur < k {
            let now = dev.counters();
            let end = self.clock.end_of(self.cur);
            self.write(
                DeviceRow::new(end as f64 / 1e9, &now.since(&self.last)),
                sim,
            );
            self.last = now;
            self.cur += 1;
        }
    }

    /// The last row, ending at `end` ns: the last completion, or the phase's time bound if later. A phase
    /// that ends at a bound of whole intervals has no drain: its last row, ending there, is already written
    /// (the series' rows, `stats::Series::finish`, are the same).
    fn finish(&mut self, end: u64, dev: &SimDevice, sim: &Sim<'_>) {
        self.at(end, dev, sim);
        if self.clock.bound_ns == Some(end) && end.is_multiple_of(self.clock.interval_ns) {
            return;
        }
        let now = dev.counters();
        self.write(
            DeviceRow::new(end as f64 / 1e9, &now.since(&self.last)),
            sim,
        );
    }

    /// Appends a row; the first error is kept for the phase to report (later rows are refused).
    fn write(&mut self, row: DeviceRow, sim: &Sim<'_>) {
        if let Err(e) = csv_line(&row, false).and_then(|b| self.file.append(&b)) {
            self.failed = true;
            sim.csv_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
    }
}

/// `row` as one CSV line, or with `header` the header line alone.
fn csv_line(row: &DeviceRow, header: bool) -> io::Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::with_capacity(256));
    w.serialize(row).map_err(io::Error::other)?;
    let mut b = w.into_inner().map_err(io::Error::other)?;
    if header {
        let end = b
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |i| i + 1);
        b.truncate(end);
    }
    Ok(b)
}
