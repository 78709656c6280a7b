//! The simulated drive as the host sees it: reads, writes and discards of byte ranges, each answered with
//! its completion time on the drive's virtual clock.

use super::ftl::{Ftl, Stream};
use super::geometry::Geometry;
use super::params::{SimParams, UNIT};
use super::timing::{Flash, Timing};
use crate::vocab::DataPattern;
use serde::Serialize;

/// A simulated SSD: its FTL state and its resources' timelines. Persists across the phases of a run.
pub struct SimDevice {
    g: Geometry,
    ftl: Ftl,
    timing: Timing,
    /// The drive's clock, ns: where the next phase starts.
    clock: u64,
}

/// Cumulative counts of the drive's internals, from its creation (the start of the run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct DeviceCounters {
    /// Bytes the host wrote, in whole 4 KiB units (a 512 B write counts 4 KiB: read-modify-write).
    pub host_write_bytes: u64,
    /// Bytes programmed to flash for host writes (after compression) plus garbage-collection copies.
    pub flash_write_bytes: u64,
    /// Bytes copied by garbage collection.
    pub gc_copy_bytes: u64,
    /// Erase blocks erased (superblocks × dies).
    pub erased_blocks: u64,
    /// Bytes of mapped 4 KiB units that discard (TRIM) unmapped.
    pub trimmed_bytes: u64,
    /// Erased erase blocks ready for writing.
    pub free_blocks: u64,
}

impl DeviceCounters {
    /// Counts accumulated between `earlier` and `self`; `free_blocks` is `self`'s.
    pub fn since(&self, earlier: &DeviceCounters) -> DeviceCounters {
        DeviceCounters {
            host_write_bytes: self.host_write_bytes - earlier.host_write_bytes,
            flash_write_bytes: self.flash_write_bytes - earlier.flash_write_bytes,
            gc_copy_bytes: self.gc_copy_bytes - earlier.gc_copy_bytes,
            erased_blocks: self.erased_blocks - earlier.erased_blocks,
            trimmed_bytes: self.trimmed_bytes - earlier.trimmed_bytes,
            free_blocks: self.free_blocks,
        }
    }

    /// Write amplification: flash bytes written per host byte; `None` without host writes.
    pub fn write_amplification(&self) -> Option<f64> {
        (self.host_write_bytes > 0)
            .then(|| self.flash_write_bytes as f64 / self.host_write_bytes as f64)
    }
}

impl SimDevice {
    /// A fresh (factory-new) drive.
    ///
    /// # Errors
    /// The geometry's error when the parameters do not describe a drive (see [`Geometry::of`]); an error at
    /// `capacity` when the model's mapping tables cannot be allocated.
    pub fn new(p: &SimParams) -> Result<SimDevice, super::geometry::ParamError> {
        let g = Geometry::of(p)?;
        let ftl = Ftl::new(g).map_err(|e| super::geometry::ParamError {
            key: "capacity",
            message: format!(
                "sim capacity = {} B: {e}; simulate a smaller drive, or give wkrun more memory",
                p.capacity.0
            ),
        })?;
        Ok(SimDevice {
            g,
            ftl,
            timing: Timing::new(p, g.dies, g.superblocks, g.page_slots),
            clock: 0,
        })
    }

    /// The geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    /// The drive's clock, ns since the run started: the end of the last phase.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// Moves the drive's clock to `t` ns (never backwards).
    pub fn advance_clock(&mut self, t: u64) {
        self.clock = self.clock.max(t);
    }

    /// Slots a 4 KiB unit of `data` takes: all of them without compression; with it, 1 of 8 for zeros,
    /// (100 − N) % for `compressible:N%` (at least 1), 8 for random data.
    pub fn slots_for(&self, data: DataPattern) -> u32 {
        let spu = self.g.slots_per_unit;
        if spu == 1 {
            return 1;
        }
        match data {
            DataPattern::Random => spu,
            DataPattern::Zeros => 1,
            DataPattern::Compressible(n) => {
                ((spu * (100 - n.min(100) as u32)).div_ceil(100)).max(1)
            }
        }
    }

    /// The 4 KiB units a byte range touches.
    fn units(offset: u64, len: u32) -> (u32, u32) {
        let first = offset / UNIT;
        let end = (offset + len as u64).div_ceil(UNIT);
        (first as u32, (end - first) as u32)
    }

    /// Reads `len` bytes at `offset`, submitted at `at` ns; returns the completion time. Unwritten units
    /// cost no flash read; units still in an open page are served from the controller.
    pub fn read(&mut self, at: u64, offset: u64, len: u32) -> u64 {
        let t = self.timing.command(at);
        let (first, n) = Self::units(offset, len);
        let mut done = t;
        let mut last_page = u32::MAX;
        for lu in first..first + n {
            if let Some((slot, k)) = self.ftl.lookup(lu) {
                for p in self.g.page_of(slot)..=self.g.page_of(slot + k - 1) {
                    if p != last_page && !self.ftl.is_open_page(p) {
                        done = done.max(self.timing.read_page(self.g.die_of_page(p), t));
                    }
                    last_page = p;
                }
            }
        }
        self.timing.transfer(done, len as u64)
    }

    /// Writes `len` bytes at `offset` whose 4 KiB units each take `slots` slots, submitted at `at` ns;
    /// returns the completion time: when the last unit is in the write buffer. A unit the write covers
    /// only in part is read first (read-modify-write) when it holds data.
    pub fn write(&mut self, at: u64, offset: u64, len: u32, slots: u32) -> u64 {
        let t = self.timing.command(at);
        let data_in = self.timing.transfer(t, len as u64);
        let (first, n) = Self::units(offset, len);
        let end = offset + len as u64;
        let mut done = data_in;
        for lu in first..first + n {
            let (a, b) = (lu as u64 * UNIT, (lu as u64 + 1) * UNIT);
            let mut ready = data_in;
            if (offset > a || end < b)
                && let Some((slot, k)) = self.ftl.lookup(lu)
            {
                for p in self.g.page_of(slot)..=self.g.page_of(slot + k - 1) {
                    if !self.ftl.is_open_page(p) {
                        ready = ready.max(self.timing.read_page(self.g.die_of_page(p), data_in));
                    }
                }
            }
            let admitted = self.timing.admit(ready);
            self.ftl
                .write(lu, slots, admitted, Stream::Host, &mut self.timing);
            done = done.max(admitted);
        }
        done
    }

    /// Discards (TRIMs) the whole 4 KiB units inside `[offset, offset + len)`, submitted at `at` ns;
    /// superblocks left empty are erased. Returns when the erases are done.
    pub fn discard(&mut self, at: u64, offset: u64, len: u64) -> u64 {
        let t = self.timing.command(at);
        let first = offset.div_ceil(UNIT);
        let end = (offset + len) / UNIT;
        if end > first {
            self.ftl
                .trim(first as u32, (end - first) as u32, t, &mut self.timing);
        }
        t.max(self.timing.flash_idle_at())
    }

    /// Die time reserved so far, ns summed over dies, and the latest time a die is busy until.
    pub fn die_busy(&self) -> (u64, u64) {
        (self.timing.busy_ns, self.timing.flash_idle_at())
    }

    /// The drive's counters now.
    pub fn counters(&self) -> DeviceCounters {
        let c = &self.ftl.counters;
        let slot = self.g.slot_bytes;
        DeviceCounters {
            host_write_bytes: c.host_units * UNIT,
            flash_write_bytes: (c.host_slots + c.gc_slots) * slot,
            gc_copy_bytes: c.gc_slots * slot,
            erased_blocks: c.erased_superblocks * self.g.dies as u64,
            trimmed_bytes: c.trimmed_units * UNIT,
            free_blocks: self.ftl.free_superblocks() as u64 * self.g.dies as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(s: &str) -> SimDevice {
        SimDevice::new(&SimParams::parse_target(s).unwrap()).unwrap()
    }

    #[test]
    fn a_write_completes_when_buffered_and_a_read_waits_for_the_die() {
        let mut d = dev(
            "sim:capacity=64MiB,op=50%,dies=1,command_time=10us,interface_bytes_per_s=1GB,read_time=60us,program_time=1ms,jitter=0%",
        );
        // 10 µs command + 4096 ns transfer; the buffer has room.
        assert_eq!(d.write(0, 0, 4096, 1), 14_096);
        // A read of a never-written unit: command + transfer only.
        assert_eq!(d.read(100_000, 1 << 20, 4096), 100_000 + 10_000 + 4096);
        // Unit 0 is in the open page (4 units per 16 KiB page): served from the controller.
        assert_eq!(d.read(200_000, 0, 4096), 214_096);
        // Fill the page: it programs at 1 ms after its last unit arrives.
        for i in 1..4 {
            d.write(300_000, i * 4096, 4096, 1);
        }
        let t = d.read(400_000, 0, 4096);
        assert!(t > 1_300_000, "the read waits behind the program: {t}");
        assert_eq!(d.counters().host_write_bytes, 4 * 4096);
        assert_eq!(d.counters().flash_write_bytes, 4 * 4096);
    }

    #[test]
    fn partial_unit_writes_count_a_whole_unit() {
        let mut d = dev("sim:capacity=64MiB,op=50%");
        d.write(0, 512, 512, 1);
        d.write(0, 1024, 512, 1);
        assert_eq!(d.counters().host_write_bytes, 2 * 4096);
        assert_eq!(d.ftl.valid_slots(), 1);
    }

    #[test]
    fn compression_takes_fewer_slots() {
        let d = dev("sim:capacity=64MiB,op=50%,compression=true");
        assert_eq!(d.slots_for(DataPattern::Random), 8);
        assert_eq!(d.slots_for(DataPattern::Zeros), 1);
        assert_eq!(d.slots_for(DataPattern::Compressible(50)), 4);
        assert_eq!(d.slots_for(DataPattern::Compressible(99)), 1);
        let plain = dev("sim:capacity=64MiB,op=50%");
        assert_eq!(plain.slots_for(DataPattern::Zeros), 1);
    }
}
