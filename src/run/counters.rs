//! Host and device counters of an I/O phase, read on the phase clock: the process's CPU time
//! (`sys::cpu::process_times_ns`) and, for a block device target, the kernel's counters of the device
//! (`/sys/dev/block/MAJ:MIN/stat`, a partition's own). One reading just before the engines are set up (so
//! that no I/O of the phase escapes it), one at each interval boundary of the phase clock (`k·interval`
//! after its t = 0, the series' row boundaries) by a thread of its own that sleeps in between, and one
//! at the phase's end: the rows of `NN-<phase>.counters.csv` and the phase's totals. Nothing is read per
//! I/O: the engines' loops are untouched.

use crate::results::counters::{self, CounterRow, CpuResult, KernelResult};
use crate::results::outdir::OutDir;
use crate::stats::kernel::DiskStat;
use crate::sys::dir::RowFile;
use crate::target::{Identity, TargetInfo};
use std::io;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// One reading: the process's user and system CPU time (ns), the device's counters.
#[derive(Debug, Clone, Copy, Default)]
struct Reading {
    cpu: (u64, u64),
    disk: Option<DiskStat>,
}

/// The block device whose counters are read: its stat file and its name.
struct Device {
    stat: PathBuf,
    name: String,
}

impl Device {
    /// The device of a block device `target` (by its device number, so a partition reads its own counters);
    /// `None` for other targets or when sysfs does not have it.
    fn of(target: &TargetInfo) -> Option<Device> {
        let Some(Identity::Block { rdev }) = target.identity else {
            return None;
        };
        let dir = PathBuf::from(format!(
            "/sys/dev/block/{}:{}",
            libc::major(rdev),
            libc::minor(rdev)
        ));
        let name = std::fs::read_link(&dir)
            .ok()
            .and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned()))?;
        let stat = dir.join("stat");
        stat.exists().then_some(Device { stat, name })
    }

    fn read(&self) -> Option<DiskStat> {
        DiskStat::parse(&std::fs::read_to_string(&self.stat).ok()?)
    }
}

fn cpu_now() -> (u64, u64) {
    crate::sys::cpu::process_times_ns().unwrap_or_default()
}

/// The counters of one phase as they are read. A boundary's reading is held back until the next one (or
/// the phase's end): only then is it known that the phase ran past that boundary, so that the last row
/// ends at the phase's end, as the series' last row does.
pub struct Sampler {
    device: Option<Device>,
    first: Reading,
    /// The reading at the end of the last row written, and that end, ns of the phase clock.
    last: (Reading, u64),
    /// A boundary's reading whose row is not written yet.
    pending: Option<(Reading, u64)>,
    in_flight_max: u64,
    csv: Option<(RowFile, String)>,
    error: Option<io::Error>,
}

/// What a phase's counters came to.
pub struct Totals {
    /// The process's CPU time.
    pub cpu: CpuResult,
    /// A block device's counters.
    pub kernel: Option<KernelResult>,
    /// The counters CSV's name, when one was written.
    pub csv: Option<String>,
    /// A row that could not be written (a full disk).
    pub error: Option<io::Error>,
}

impl Sampler {
    /// The first reading, before the phase's engines are set up; the counters CSV named `csv` is created
    /// in `dir` with its header.
    ///
    /// # Errors
    /// The CSV cannot be created or its header written.
    pub fn before(target: &TargetInfo, dir: &OutDir, csv: String) -> io::Result<Sampler> {
        let device = Device::of(target);
        let mut f = RowFile::new(dir.create(&csv)?);
        f.append(counters::header(device.is_some()).as_bytes())?;
        let csv = Some((f, csv));
        let mut s = Sampler {
            device,
            first: Reading::default(),
            last: (Reading::default(), 0),
            pending: None,
            in_flight_max: 0,
            csv,
            error: None,
        };
        s.first = s.read();
        s.last = (s.first, 0);
        Ok(s)
    }

    /// The counters now.
    fn read(&mut self) -> Reading {
        let now = Reading {
            cpu: cpu_now(),
            disk: self.device.as_ref().and_then(Device::read),
        };
        if let Some(d) = now.disk {
            self.in_flight_max = self.in_flight_max.max(d.in_flight);
        }
        now
    }

    /// Writes the row from the last one's end to `to`, read at `t_ns` of the phase clock.
    fn write(&mut self, to: Reading, t_ns: u64) {
        let (from, start_ns) = self.last;
        let row = CounterRow {
            start_ns,
            end_ns: t_ns.max(start_ns),
            cpu_ns: (
                to.cpu.0.saturating_sub(from.cpu.0),
                to.cpu.1.saturating_sub(from.cpu.1),
            ),
            disk: to.disk.zip(from.disk).map(|(a, b)| a.since(&b)),
        };
        if let Some((f, _)) = self.csv.as_mut()
            && self.error.is_none()
            && let Err(e) = f.append(row.line(self.device.is_some()).as_bytes())
        {
            self.error = Some(e);
        }
        self.last = (to, row.end_ns);
    }

    /// Reads the counters at the boundary `t_ns`; writes the previous boundary's row.
    fn tick(&mut self, t_ns: u64) {
        let now = self.read();
        if let Some((r, t)) = self.pending.replace((now, t_ns)) {
            self.write(r, t);
        }
    }

    /// Reads the counters at each interval boundary of the phase clock whose t = 0 is `start` (once an
    /// engine has started it), until `stop` says the phase has ended; then reads, late, the boundaries up
    /// to its end this thread had not woken for yet (a busy machine), so that the rows end where the
    /// series' do. Run on a thread of its own.
    pub fn tick_until(&mut self, start: &OnceLock<Instant>, interval_ns: u64, stop: &Stop) {
        let t0 = loop {
            if let Some(t0) = start.get() {
                break *t0;
            }
            if stop.wait(Duration::from_millis(1)).is_some() {
                return;
            }
        };
        let mut k = 1u64;
        loop {
            let t = k.saturating_mul(interval_ns);
            let wait = (t0 + Duration::from_nanos(t)).saturating_duration_since(Instant::now());
            if let Some(end_ns) = stop.wait(wait) {
                for k in k.. {
                    let t = k.saturating_mul(interval_ns);
                    if t > end_ns {
                        break;
                    }
                    self.tick(t);
                }
                return;
            }
            self.tick(t);
            k += 1;
        }
    }

    /// The last rows, up to the phase's end `end_ns` (a boundary read after it ends the last row at
    /// `end_ns` with a reading now), and the phase's totals over `ios` completed I/Os: from the first
    /// reading to the last written, so that the rows add up to them.
    pub fn finish(mut self, end_ns: u64, ios: u64) -> Totals {
        match self.pending.take() {
            Some((r, t)) if t <= end_ns => {
                self.write(r, t);
                if end_ns > t {
                    let now = self.read();
                    self.write(now, end_ns);
                }
            }
            _ => {
                let now = self.read();
                self.write(now, end_ns);
            }
        }
        let (first, last) = (self.first, self.last.0);
        let cpu = (
            last.cpu.0.saturating_sub(first.cpu.0),
            last.cpu.1.saturating_sub(first.cpu.1),
        );
        let kernel = self.device.as_ref().and_then(|dev| {
            let d = last.disk?.since(&first.disk?);
            Some(KernelResult::new(
                dev.name.clone(),
                &d,
                end_ns,
                self.in_flight_max,
            ))
        });
        Totals {
            cpu: CpuResult::new(cpu, ios, end_ns),
            kernel,
            csv: self.csv.map(|(_, name)| name),
            error: self.error,
        }
    }
}

/// Tells the sampling thread the phase has ended, and when, waking it at once.
#[derive(Default)]
pub struct Stop {
    end_ns: Mutex<Option<u64>>,
    cv: Condvar,
}

impl Stop {
    /// Ends the sampling: the phase ended at `end_ns` of its clock.
    pub fn set(&self, end_ns: u64) {
        *self.end_ns.lock().unwrap_or_else(|p| p.into_inner()) = Some(end_ns);
        self.cv.notify_all();
    }

    /// Waits up to `d`; the phase's end once it has ended.
    fn wait(&self, d: Duration) -> Option<u64> {
        let g = self.end_ns.lock().unwrap_or_else(|p| p.into_inner());
        let (g, _) = self
            .cv
            .wait_timeout_while(g, d, |end| end.is_none())
            .unwrap_or_else(|p| p.into_inner());
        *g
    }
}
