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

/// The counters of one phase as they are read.
pub struct Sampler {
    device: Option<Device>,
    first: Reading,
    last: Reading,
    /// The end of the last row written, ns of the phase clock.
    last_ns: u64,
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
    /// The first reading, before the phase's engines are set up; with `csv` (a phase on the wall clock), the
    /// counters CSV of that name is created in `dir` with its header.
    ///
    /// # Errors
    /// The CSV cannot be created or its header written.
    pub fn before(target: &TargetInfo, dir: &OutDir, csv: Option<String>) -> io::Result<Sampler> {
        let device = Device::of(target);
        let csv = match csv {
            Some(name) => {
                let mut f = RowFile::new(dir.create(&name)?);
                f.append(counters::header(device.is_some()).as_bytes())?;
                Some((f, name))
            }
            None => None,
        };
        let first = Reading {
            cpu: cpu_now(),
            disk: device.as_ref().and_then(Device::read),
        };
        Ok(Sampler {
            in_flight_max: first.disk.map_or(0, |d| d.in_flight),
            device,
            first,
            last: first,
            last_ns: 0,
            csv,
            error: None,
        })
    }

    /// Reads the counters now, at `t_ns` of the phase clock, and writes the row since the last reading.
    fn tick(&mut self, t_ns: u64) {
        let now = Reading {
            cpu: cpu_now(),
            disk: self.device.as_ref().and_then(Device::read),
        };
        if let Some(d) = now.disk {
            self.in_flight_max = self.in_flight_max.max(d.in_flight);
        }
        let row = CounterRow {
            start_ns: self.last_ns,
            end_ns: t_ns.max(self.last_ns),
            cpu_ns: (
                now.cpu.0.saturating_sub(self.last.cpu.0),
                now.cpu.1.saturating_sub(self.last.cpu.1),
            ),
            disk: now.disk.zip(self.last.disk).map(|(a, b)| a.since(&b)),
        };
        if let Some((f, _)) = self.csv.as_mut()
            && self.error.is_none()
            && let Err(e) = f.append(row.line(self.device.is_some()).as_bytes())
        {
            self.error = Some(e);
        }
        self.last = now;
        self.last_ns = row.end_ns;
    }

    /// Reads the counters at each interval boundary of the phase clock whose t = 0 is `start` (once an
    /// engine has started it), until `stop` says the phase has ended. Run on a thread of its own.
    pub fn tick_until(&mut self, start: &OnceLock<Instant>, interval_ns: u64, stop: &Stop) {
        let t0 = loop {
            if let Some(t0) = start.get() {
                break *t0;
            }
            if stop.wait(Duration::from_millis(1)) {
                return;
            }
        };
        let mut k = 1u64;
        loop {
            let at = t0 + Duration::from_nanos(k.saturating_mul(interval_ns));
            let wait = at.saturating_duration_since(Instant::now());
            if stop.wait(wait) {
                return;
            }
            self.tick(k.saturating_mul(interval_ns));
            k += 1;
        }
    }

    /// The last reading, at the phase's end `end_ns` (the last row, unless the phase ended on the last
    /// boundary read), and the phase's totals over `ios` completed I/Os.
    pub fn finish(mut self, end_ns: u64, ios: u64) -> Totals {
        if end_ns > self.last_ns || self.last_ns == 0 {
            self.tick(end_ns);
        }
        let first = self.first;
        let cpu = (
            self.last.cpu.0.saturating_sub(first.cpu.0),
            self.last.cpu.1.saturating_sub(first.cpu.1),
        );
        let kernel = self.device.as_ref().and_then(|dev| {
            let d = self.last.disk?.since(&first.disk?);
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

/// Tells the sampling thread the phase has ended, waking it at once.
#[derive(Default)]
pub struct Stop {
    stopped: Mutex<bool>,
    cv: Condvar,
}

impl Stop {
    /// Ends the sampling.
    pub fn set(&self) {
        *self.stopped.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.cv.notify_all();
    }

    /// Waits up to `d`; whether the sampling has ended.
    fn wait(&self, d: Duration) -> bool {
        let g = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        let (g, _) = self
            .cv
            .wait_timeout_while(g, d, |stopped| !*stopped)
            .unwrap_or_else(|p| p.into_inner());
        *g
    }
}
