//! Host and device counters of an I/O phase: the process's CPU time (`phases[].cpu`), the kernel's counters
//! of a block device target (`phases[].kernel`), the drive's health before and after (`health`,
//! `phases[].health`), and the per-interval counters CSV, `NN-<phase>.counters.csv`: its name, header and
//! rows. The readings are taken by the runner (`run/counters.rs`, `run/health.rs`).

use super::outdir::slug;
use crate::stats::kernel::DiskStat;
use crate::target::health::{HealthDelta, HealthLog};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The counters CSV file name of phase `index` named `name`: `NN-<name>.counters.csv`, the name made
/// shell-safe as the series CSV's.
pub fn file_name(index: usize, name: &str) -> String {
    format!("{index:02}-{}.counters.csv", slug(name))
}

/// The CPU columns, then (block device targets) the kernel's.
const CPU_COLUMNS: [&str; 4] = ["t_s", "interval_s", "cpu_user_s", "cpu_sys_s"];
const KERNEL_COLUMNS: [&str; 15] = [
    "dev_reads",
    "dev_read_merges",
    "dev_read_sectors",
    "dev_read_ticks_ms",
    "dev_writes",
    "dev_write_merges",
    "dev_write_sectors",
    "dev_write_ticks_ms",
    "dev_discards",
    "dev_discard_sectors",
    "dev_flushes",
    "dev_in_flight",
    "dev_io_ticks_ms",
    "dev_util_pct",
    "dev_await_ms",
];

/// The CSV's header line (line end included), with the kernel's columns when `kernel`.
pub fn header(kernel: bool) -> String {
    let mut cols: Vec<&str> = CPU_COLUMNS.to_vec();
    if kernel {
        cols.extend(KERNEL_COLUMNS);
    }
    cols.join(",") + "\n"
}

/// A fractional column's number as the series CSV writes its numbers (the CSV writer's shortest form): a
/// whole number with `.0` (`1.0`, where `{}` gives `1`), so `t_s` reads alike in both files.
fn float(x: f64) -> String {
    let s = x.to_string();
    match x.is_finite() && !s.contains('.') {
        true => s + ".0",
        false => s,
    }
}

/// One row of the counters CSV: what happened from `start_ns` to `end_ns` of the phase clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterRow {
    /// The row's start, ns from the phase clock's t = 0.
    pub start_ns: u64,
    /// The row's end.
    pub end_ns: u64,
    /// User and system CPU time of the process over the row, ns.
    pub cpu_ns: (u64, u64),
    /// The kernel's counters' differences over the row, with the gauge `in_flight` at its end.
    pub disk: Option<DiskStat>,
}

impl CounterRow {
    /// The row's line (line end included), its columns those of [`header`] (`kernel`: the row has the
    /// kernel's; a reading that failed leaves them empty).
    pub fn line(&self, kernel: bool) -> String {
        let secs = |ns: u64| float(ns as f64 / 1e9);
        let span = self.end_ns.saturating_sub(self.start_ns);
        let mut s = format!(
            "{},{},{},{}",
            secs(self.end_ns),
            secs(span),
            secs(self.cpu_ns.0),
            secs(self.cpu_ns.1)
        );
        match (kernel, &self.disk) {
            (false, _) => {}
            (true, None) => s.push_str(&",".repeat(KERNEL_COLUMNS.len())),
            (true, Some(d)) => {
                let await_ms = d.await_ms().map_or(String::new(), float);
                s.push_str(&format!(
                    ",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{await_ms}",
                    d.reads,
                    d.read_merges,
                    d.read_sectors,
                    d.read_ticks_ms,
                    d.writes,
                    d.write_merges,
                    d.write_sectors,
                    d.write_ticks_ms,
                    d.discards,
                    d.discard_sectors,
                    d.flushes,
                    d.in_flight,
                    d.io_ticks_ms,
                    float(d.utilisation(span) * 100.0),
                ));
            }
        }
        s.push('\n');
        s
    }
}

/// wkrun's CPU time during an I/O phase: `getrusage(RUSAGE_SELF)` read just before the phase's engines are
/// set up and again at its end, so every thread of the process counts (the workers, psync's threads per
/// slot, the collector writing the CSVs, the kernel's work in their system calls), and nothing of other
/// processes (an io_uring SQPOLL kernel thread's time is not the process's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuResult {
    /// User-mode CPU time, seconds.
    #[schemars(range(min = 0))]
    pub user_s: f64,
    /// System (kernel-mode) CPU time, seconds.
    #[schemars(range(min = 0))]
    pub system_s: f64,
    /// user_s per completed I/O, microseconds; 0 without I/O.
    pub user_us_per_io: f64,
    /// system_s per completed I/O, microseconds; 0 without I/O.
    pub system_us_per_io: f64,
    /// CPUs kept busy on average: (user_s + system_s) / duration_s (1.0: one CPU all the time); 0 for a
    /// phase of no time.
    pub cpus_busy: f64,
}

/// Whole nanoseconds of `s` seconds that a run wrote as ns / 10⁹ (`user_s`, `system_s`, `duration_s`): exact
/// below 2⁵³ ns (104 days), where the division and this product round back to the same integer.
pub fn whole_ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

impl CpuResult {
    /// The figures a run derives from this one's `user_s` and `system_s` over a phase of `duration_s` that
    /// completed `ios` I/Os ([`CpuResult::new`] of them in whole nanoseconds, [`whole_ns`]): what `wkrun
    /// validate` holds `user_us_per_io`, `system_us_per_io` and `cpus_busy` to.
    pub fn recomputed(&self, ios: u64, duration_s: f64) -> CpuResult {
        let cpu_ns = (whole_ns(self.user_s), whole_ns(self.system_s));
        CpuResult::new(cpu_ns, ios, whole_ns(duration_s))
    }

    /// From user and system time `cpu_ns` over a phase of `duration_ns` that completed `ios` I/Os.
    pub fn new(cpu_ns: (u64, u64), ios: u64, duration_ns: u64) -> CpuResult {
        let per_io = |ns: u64| match ios {
            0 => 0.0,
            n => ns as f64 / 1e3 / n as f64,
        };
        CpuResult {
            user_s: cpu_ns.0 as f64 / 1e9,
            system_s: cpu_ns.1 as f64 / 1e9,
            user_us_per_io: per_io(cpu_ns.0),
            system_us_per_io: per_io(cpu_ns.1),
            cpus_busy: match duration_ns {
                0 => 0.0,
                d => (cpu_ns.0 + cpu_ns.1) as f64 / d as f64,
            },
        }
    }
}

/// The kernel's I/O counters of a block device target over a phase (`/sys/dev/block/MAJ:MIN/stat`, read
/// just before the engines are set up and after the last completion; per interval in `counters_csv`). They
/// count every I/O the device completed in that time, wkrun's and any other process's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KernelResult {
    /// The device's name in /sys/class/block (`nvme0n1`, `loop3`, `sda2`).
    pub device: String,
    /// Reads completed.
    pub reads: u64,
    /// Reads merged into others before completing.
    pub read_merges: u64,
    /// Bytes read (the kernel's 512-byte sectors × 512).
    pub read_bytes: u64,
    /// Milliseconds the reads spent, summed over the reads.
    pub read_ticks_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Milliseconds the writes spent.
    pub write_ticks_ms: u64,
    /// Discards completed.
    pub discards: u64,
    /// Discards merged.
    pub discard_merges: u64,
    /// Bytes discarded.
    pub discard_bytes: u64,
    /// Flushes completed.
    pub flushes: u64,
    /// Milliseconds with at least one request in flight.
    pub io_ticks_ms: u64,
    /// Milliseconds requests spent, weighted by the number in flight.
    pub time_in_queue_ms: u64,
    /// The most requests in flight at any reading (each interval's end).
    pub in_flight_max: u64,
    /// io_ticks over the phase's time, 0..=1: the share of time the device was busy (a device serving
    /// requests in parallel can be far from saturated at 1).
    pub utilisation: f64,
    /// The device-side average time of a read, write or discard, ms (the ticks over the I/Os completed);
    /// absent without I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub await_ms: Option<f64>,
}

impl KernelResult {
    /// From the counters' difference `d` over a phase of `elapsed_ns` on `device`, with the largest
    /// `in_flight` read.
    pub fn new(device: String, d: &DiskStat, elapsed_ns: u64, in_flight_max: u64) -> KernelResult {
        KernelResult {
            device,
            reads: d.reads,
            read_merges: d.read_merges,
            read_bytes: d.read_sectors.saturating_mul(512),
            read_ticks_ms: d.read_ticks_ms,
            writes: d.writes,
            write_merges: d.write_merges,
            write_bytes: d.write_sectors.saturating_mul(512),
            write_ticks_ms: d.write_ticks_ms,
            discards: d.discards,
            discard_merges: d.discard_merges,
            discard_bytes: d.discard_sectors.saturating_mul(512),
            flushes: d.flushes,
            io_ticks_ms: d.io_ticks_ms,
            time_in_queue_ms: d.time_in_queue_ms,
            in_flight_max,
            utilisation: d.utilisation(elapsed_ns),
            await_ms: d.await_ms(),
        }
    }
}

/// The drive's health over the run (NVMe namespaces), or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunHealth {
    /// Whether the drive's SMART / health log could be read.
    pub available: bool,
    /// Why not, in words ("the target is a file, not an NVMe namespace", the OS error of the admin
    /// command); absent when available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// The health log read before the first phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<HealthLog>,
    /// The health log read after the last phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<HealthLog>,
    /// What the run did to the counters (from `before` to `after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<HealthDelta>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_has_the_headers_columns_with_and_without_the_kernels() {
        let d = DiskStat::parse("10 1 80 5 30 0 240 15 2 500 20 0 0 0 0 1 0").expect("stat");
        let row = CounterRow {
            start_ns: 1_000_000_000,
            end_ns: 2_000_000_000,
            cpu_ns: (250_000_000, 125_000_000),
            disk: Some(d),
        };
        assert_eq!(row.line(false), "2.0,1.0,0.25,0.125\n");
        assert_eq!(
            row.line(true),
            "2.0,1.0,0.25,0.125,10,1,80,5,30,0,240,15,0,0,1,2,500,50.0,0.5\n"
        );
        let cols = |s: &str| s.trim_end().split(',').count();
        assert_eq!(cols(&row.line(true)), cols(&header(true)));
        assert_eq!(cols(&row.line(false)), cols(&header(false)));
        let failed = CounterRow { disk: None, ..row };
        assert_eq!(cols(&failed.line(true)), cols(&header(true)));
        assert_eq!(file_name(3, "w[bs=4KiB]"), "03-w_bs-4KiB.counters.csv");
    }

    #[test]
    fn cpu_per_io_and_cpus_busy() {
        let c = CpuResult::new((2_000_000_000, 500_000_000), 1_000_000, 5_000_000_000);
        assert_eq!((c.user_s, c.system_s), (2.0, 0.5));
        assert_eq!((c.user_us_per_io, c.system_us_per_io), (2.0, 0.5));
        assert_eq!(c.cpus_busy, 0.5);
        let none = CpuResult::new((1, 1), 0, 0);
        assert_eq!((none.user_us_per_io, none.cpus_busy), (0.0, 0.0));
    }
}
