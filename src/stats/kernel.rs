//! The kernel's I/O counters of a block device (`/sys/block/<dev>/stat`, `/sys/class/block/<part>/stat`;
//! the fields are Documentation/block/stat.rst of the kernel) and the differences between two readings: what
//! the device completed over an interval or a phase, its utilisation and its average wait. Text in, numbers
//! out: reading the file is the runner's (`run/counters.rs`).

/// One reading of a block device's `stat` file. Older kernels have 11 fields (no discards, 4.18) or 15 (no
/// flushes, 5.5); the missing ones read as 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskStat {
    /// Reads completed.
    pub reads: u64,
    /// Reads merged with an adjacent one before completing (each merge makes one fewer completed read).
    pub read_merges: u64,
    /// 512-byte sectors read.
    pub read_sectors: u64,
    /// Milliseconds the reads spent, from their submission to their completion, summed over the reads.
    pub read_ticks_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// 512-byte sectors written.
    pub write_sectors: u64,
    /// Milliseconds the writes spent.
    pub write_ticks_ms: u64,
    /// Requests in flight at the reading (a gauge, not a counter).
    pub in_flight: u64,
    /// Milliseconds during which at least one request was in flight.
    pub io_ticks_ms: u64,
    /// Milliseconds requests spent, weighted by the number in flight.
    pub time_in_queue_ms: u64,
    /// Discards completed.
    pub discards: u64,
    /// Discards merged.
    pub discard_merges: u64,
    /// 512-byte sectors discarded.
    pub discard_sectors: u64,
    /// Milliseconds the discards spent.
    pub discard_ticks_ms: u64,
    /// Flush requests completed.
    pub flushes: u64,
    /// Milliseconds the flushes spent.
    pub flush_ticks_ms: u64,
}

impl DiskStat {
    /// The reading in `text` (the stat file's one line); `None` when it has fewer than 11 numbers.
    pub fn parse(text: &str) -> Option<DiskStat> {
        let v: Vec<u64> = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        if v.len() < 11 {
            return None;
        }
        let at = |i: usize| v.get(i).copied().unwrap_or(0);
        Some(DiskStat {
            reads: at(0),
            read_merges: at(1),
            read_sectors: at(2),
            read_ticks_ms: at(3),
            writes: at(4),
            write_merges: at(5),
            write_sectors: at(6),
            write_ticks_ms: at(7),
            in_flight: at(8),
            io_ticks_ms: at(9),
            time_in_queue_ms: at(10),
            discards: at(11),
            discard_merges: at(12),
            discard_sectors: at(13),
            discard_ticks_ms: at(14),
            flushes: at(15),
            flush_ticks_ms: at(16),
        })
    }

    /// What happened from `before` to this reading: each counter's difference (0 when the counter went
    /// back, as it does when the device was re-created), and this reading's `in_flight`.
    pub fn since(&self, before: &DiskStat) -> DiskStat {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        DiskStat {
            reads: d(self.reads, before.reads),
            read_merges: d(self.read_merges, before.read_merges),
            read_sectors: d(self.read_sectors, before.read_sectors),
            read_ticks_ms: d(self.read_ticks_ms, before.read_ticks_ms),
            writes: d(self.writes, before.writes),
            write_merges: d(self.write_merges, before.write_merges),
            write_sectors: d(self.write_sectors, before.write_sectors),
            write_ticks_ms: d(self.write_ticks_ms, before.write_ticks_ms),
            in_flight: self.in_flight,
            io_ticks_ms: d(self.io_ticks_ms, before.io_ticks_ms),
            time_in_queue_ms: d(self.time_in_queue_ms, before.time_in_queue_ms),
            discards: d(self.discards, before.discards),
            discard_merges: d(self.discard_merges, before.discard_merges),
            discard_sectors: d(self.discard_sectors, before.discard_sectors),
            discard_ticks_ms: d(self.discard_ticks_ms, before.discard_ticks_ms),
            flushes: d(self.flushes, before.flushes),
            flush_ticks_ms: d(self.flush_ticks_ms, before.flush_ticks_ms),
        }
    }

    /// Reads, writes and discards completed (flushes are not data I/O).
    pub fn ios(&self) -> u64 {
        self.reads + self.writes + self.discards
    }

    /// The share of `elapsed_ns` the device had a request in flight (a difference's `io_ticks_ms` over the
    /// time it spans), 0..=1 (the kernel's millisecond ticks can overshoot a short span: capped at 1); 0 for
    /// no time.
    pub fn utilisation(&self, elapsed_ns: u64) -> f64 {
        if elapsed_ns == 0 {
            return 0.0;
        }
        (self.io_ticks_ms as f64 * 1e6 / elapsed_ns as f64).min(1.0)
    }

    /// The device-side average time of a data I/O, ms (a difference's read, write and discard ticks over
    /// its completed I/Os); `None` without I/O.
    pub fn await_ms(&self) -> Option<f64> {
        let ios = self.ios();
        (ios > 0).then(|| {
            (self.read_ticks_ms + self.write_ticks_ms + self.discard_ticks_ms) as f64 / ios as f64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::DiskStat;

    #[test]
    fn a_stat_line_of_each_kernel_generation_parses() {
        // 17 fields (5.5 and later), as /sys/block/<dev>/stat pads them.
        let s = DiskStat::parse(
            "     120        3     9600       40      500        7    40000      250        2      310      290       4        0      64        1        9        5\n",
        )
        .expect("17 fields");
        assert_eq!(
            (s.reads, s.read_merges, s.read_sectors, s.read_ticks_ms),
            (120, 3, 9600, 40)
        );
        assert_eq!(
            (s.writes, s.write_merges, s.write_sectors, s.write_ticks_ms),
            (500, 7, 40000, 250)
        );
        assert_eq!(
            (s.in_flight, s.io_ticks_ms, s.time_in_queue_ms),
            (2, 310, 290)
        );
        assert_eq!(
            (s.discards, s.discard_sectors, s.discard_ticks_ms),
            (4, 64, 1)
        );
        assert_eq!((s.flushes, s.flush_ticks_ms), (9, 5));
        // 11 fields (before 4.18): no discards, no flushes.
        let old = DiskStat::parse("1 2 3 4 5 6 7 8 9 10 11").expect("11 fields");
        assert_eq!(
            (old.time_in_queue_ms, old.discards, old.flushes),
            (11, 0, 0)
        );
        assert_eq!(DiskStat::parse("1 2 3"), None);
        assert_eq!(DiskStat::parse("1 2 3 4 5 6 7 8 9 10 x"), None);
    }

    #[test]
    fn a_difference_gives_utilisation_and_average_wait() {
        let a = DiskStat::parse("100 0 800 50 200 0 1600 150 0 400 200 0 0 0 0 0 0").expect("a");
        let b = DiskStat::parse("300 0 2400 150 600 0 4800 550 3 900 700 0 0 0 0 0 0").expect("b");
        let d = b.since(&a);
        assert_eq!(
            (d.reads, d.writes, d.ios(), d.in_flight),
            (200, 400, 600, 3)
        );
        // 500 ms busy over 1 s: 0.5; (100 + 400) ms over 600 I/Os.
        assert_eq!(d.utilisation(1_000_000_000), 0.5);
        assert_eq!(d.await_ms(), Some(500.0 / 600.0));
        assert_eq!(d.utilisation(0), 0.0);
        assert_eq!(d.utilisation(100_000_000), 1.0);
        // A counter that went back (a re-created device) counts nothing.
        assert_eq!(a.since(&b).reads, 0);
        assert_eq!(DiskStat::default().await_ms(), None);
    }
}
