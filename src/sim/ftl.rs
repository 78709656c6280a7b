//! The flash translation layer of the simulated drive: a page-mapped logical-to-physical map in 4 KiB
//! units, superblocks filled by two write frontiers (host writes and garbage-collection copies, kept apart
//! as controllers do to separate hot from cold data), a free-superblock pool, and greedy garbage collection
//! (the closed superblock with the fewest valid slots is the victim; Rosenblum & Ousterhout's cleaner,
//! the policy analysed by Desnoyers, "Analytic models of SSD write performance", 2014). Write
//! amplification is counted exactly: every slot the host writes and every slot garbage collection copies.
//!
//! What happens is decided here; when it happens is asked of a [`Flash`] (the timing model).

use super::geometry::Geometry;
use super::params::GcPolicy;
use super::timing::Flash;
use crate::buf::{AllocError, try_vec};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// Which frontier a write goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Host writes (they hold space in the write buffer until programmed).
    Host,
    /// Garbage-collection copies.
    Gc,
}

/// A write frontier: the open superblock and the page being filled.
#[derive(Debug, Clone, Copy)]
struct Frontier {
    /// Open superblock, if any.
    sb: u32,
    /// Next free slot offset in it (== sb_slots when closed or none).
    next: u32,
    /// When the data of the page being filled is all there, ns.
    page_ready: u64,
    /// Host units that start in the page being filled (they leave the write buffer when it is programmed).
    page_units: u32,
}

/// A victim superblock being collected: its valid units are copied a few at a time, paced by host writes.
#[derive(Debug, Clone, Copy)]
struct GcJob {
    /// The victim.
    sb: u32,
    /// Next slot offset to examine.
    pos: u32,
    /// Slots to copy per host slot written: valid / invalid of the victim when chosen.
    ratio: f64,
    /// Slots of copying owed to the pace.
    credit: f64,
    /// Last page read (one read serves every unit in it).
    last_page: u32,
}

/// Cumulative counts since the drive was created, in slots and superblocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FtlCounters {
    /// 4 KiB units the host wrote (a partial-unit write counts one unit).
    pub host_units: u64,
    /// Slots the host's units took in flash (with compression, fewer than units × 8).
    pub host_slots: u64,
    /// Slots copied by garbage collection.
    pub gc_slots: u64,
    /// Superblocks erased.
    pub erased_superblocks: u64,
    /// 4 KiB units unmapped by discard (TRIM).
    pub trimmed_units: u64,
}

/// The mapping state of the drive.
pub struct Ftl {
    g: Geometry,
    /// Logical unit → its first slot, or NONE.
    l2p: Vec<u32>,
    /// Logical unit → slots it takes (compression only; empty otherwise).
    len: Vec<u8>,
    /// Slot → the logical unit that starts there, or NONE.
    p2l: Vec<u32>,
    /// Valid slots per superblock.
    valid: Vec<u32>,
    /// Whether a superblock is closed (full, a GC candidate).
    closed: Vec<bool>,
    free: VecDeque<u32>,
    host: Frontier,
    gc: Frontier,
    /// The victim being collected, if any.
    job: Option<GcJob>,
    /// Counts.
    pub counters: FtlCounters,
}

impl Ftl {
    /// A fresh drive: nothing mapped, every superblock erased and free.
    ///
    /// # Errors
    /// [`AllocError`] when a mapping table cannot be allocated (the geometry keeps them within
    /// 2 GiB, but the process may have less).
    pub fn new(g: Geometry) -> Result<Ftl, AllocError> {
        let closed_frontier = Frontier {
            sb: NONE,
            next: g.sb_slots,
            page_ready: 0,
            page_units: 0,
        };
        let (units, sbs) = (g.user_units as usize, g.superblocks as usize);
        let mut free = VecDeque::new();
        free.try_reserve_exact(sbs).map_err(|_| AllocError {
            what: "the simulated drive's free list".into(),
            bytes: sbs as u64 * 4,
        })?;
        free.extend(0..g.superblocks);
        Ok(Ftl {
            g,
            l2p: try_vec(units, NONE, "the simulated drive's logical-to-physical map")?,
            len: if g.slots_per_unit > 1 {
                try_vec(units, 0, "the simulated drive's unit lengths")?
            } else {
                Vec::new()
            },
            p2l: try_vec(
                g.total_slots() as usize,
                NONE,
                "the simulated drive's physical-to-logical map",
            )?,
            valid: try_vec(sbs, 0, "the simulated drive's superblock counts")?,
            closed: try_vec(sbs, false, "the simulated drive's superblock states")?,
            free,
            host: closed_frontier,
            gc: closed_frontier,
            job: None,
            counters: FtlCounters::default(),
        })
    }

    /// The geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    /// Free (erased) superblocks.
    pub fn free_superblocks(&self) -> u32 {
        self.free.len() as u32
    }

    /// Where logical unit `lu` lives: `(first slot, slots)`, or `None` when unmapped.
    #[inline]
    pub fn lookup(&self, lu: u32) -> Option<(u32, u32)> {
        let s = self.l2p[lu as usize];
        (s != NONE).then(|| (s, self.unit_len(lu)))
    }

    /// Whether `page` is a frontier's page still being filled (its data is in the controller, not flash).
    #[inline]
    pub fn is_open_page(&self, page: u32) -> bool {
        let open = |f: &Frontier| {
            f.sb != NONE
                && f.next < self.g.sb_slots
                && self.g.page_of(f.sb * self.g.sb_slots + f.next) == page
        };
        open(&self.host) || open(&self.gc)
    }

    #[inline]
    fn unit_len(&self, lu: u32) -> u32 {
        if self.len.is_empty() {
            1
        } else {
            self.len[lu as usize] as u32
        }
    }

    /// Drops the mapping of `lu`, if any (its slots become invalid).
    #[inline]
    fn invalidate(&mut self, lu: u32) {
        let s = self.l2p[lu as usize];
        if s != NONE {
            let k = self.unit_len(lu);
            self.valid[self.g.sb_of(s) as usize] -= k;
            self.p2l[s as usize] = NONE;
            self.l2p[lu as usize] = NONE;
        }
    }

    /// Writes logical unit `lu`, taking `k` slots (1..=slots_per_unit), its data ready at `ready` ns.
    /// Host writes may first run garbage collection when the free pool is low.
    pub fn write(&mut self, lu: u32, k: u32, ready: u64, stream: Stream, flash: &mut impl Flash) {
        self.place(lu, k, ready, stream, flash, None);
    }

    /// [`Ftl::write`], with the unit's current slot when the caller knows it (a GC copy: `old` is the slot
    /// it is copied from, so the map need not be read, which on a large drive is a cache miss per copy).
    fn place(
        &mut self,
        lu: u32,
        k: u32,
        ready: u64,
        stream: Stream,
        flash: &mut impl Flash,
        old: Option<u32>,
    ) {
        let k = k.clamp(1, self.g.slots_per_unit);
        let f = match stream {
            Stream::Host => self.host,
            Stream::Gc => self.gc,
        };
        // The old copy is stale from now on: garbage collection below must not copy it.
        match old {
            Some(s) => {
                debug_assert_eq!(self.l2p[lu as usize], s);
                self.valid[self.g.sb_of(s) as usize] -= k;
                self.p2l[s as usize] = NONE;
            }
            None => self.invalidate(lu),
        }
        if f.next + k > self.g.sb_slots {
            self.close_frontier(stream, flash);
            if stream == Stream::Host {
                self.collect_under_pressure(ready, flash);
            }
            self.open_frontier(stream);
        }
        let f = match stream {
            Stream::Host => &mut self.host,
            Stream::Gc => &mut self.gc,
        };
        let slot = f.sb * self.g.sb_slots + f.next;
        self.p2l[slot as usize] = lu;
        self.l2p[lu as usize] = slot;
        if !self.len.is_empty() {
            self.len[lu as usize] = k as u8;
        }
        self.valid[f.sb as usize] += k;
        f.page_ready = f.page_ready.max(ready);
        if stream == Stream::Host {
            f.page_units += 1;
        }
        let end = f.next + k;
        let mut f = *f;
        // Program every page this unit completes; a unit that runs into the next page makes that page wait
        // for it too.
        while (f.next / self.g.page_slots + 1) * self.g.page_slots <= end {
            let page = self.g.page_of(f.sb * self.g.sb_slots + f.next);
            flash.program_page(self.g.die_of_page(page), f.sb, f.page_ready, f.page_units);
            f.page_units = 0;
            f.next = (f.next / self.g.page_slots + 1) * self.g.page_slots;
            f.page_ready = if end > f.next { ready } else { 0 };
            if f.next >= self.g.sb_slots {
                break;
            }
        }
        f.next = end;
        match stream {
            Stream::Host => {
                self.host = f;
                self.counters.host_units += 1;
                self.counters.host_slots += k as u64;
            }
            Stream::Gc => {
                self.gc = f;
                self.counters.gc_slots += k as u64;
            }
        }
        if f.next >= self.g.sb_slots {
            self.close_frontier(stream, flash);
        }
        if stream == Stream::Host {
            self.pace(k, ready, flash);
        }
    }

    /// Foreground collection when the host frontier needs a superblock and only one is free (the host
    /// waits for it: its pages queue on the dies behind the copies). Paced: until two are free, so that one
    /// stays free for the copies (the pace fell behind). Deferred: until `gc_free_superblocks` are free.
    fn collect_under_pressure(&mut self, at: u64, flash: &mut impl Flash) {
        if self.free.len() > 1 {
            return;
        }
        let target = match self.g.gc {
            GcPolicy::Paced => 2,
            GcPolicy::Deferred => self.g.gc_free as usize,
        };
        while self.free.len() < target {
            if !self.gc_step(at, f64::INFINITY, flash) {
                break;
            }
        }
    }

    /// Background garbage collection paced by host writes (as controllers interleave it): once the free
    /// pool is at or below the threshold, each host slot written earns `valid / invalid` slots of copying
    /// from the victim, so that the victim is erased by the time the host has used the space it frees.
    /// Under the deferred policy, `gc_pace` of that (none by default).
    fn pace(&mut self, host_slots: u32, at: u64, flash: &mut impl Flash) {
        if self.g.gc_pace_ppm == 0 || self.job.is_none() && self.free.len() as u32 > self.g.gc_free
        {
            return;
        }
        if let Some(j) = self.job.as_mut() {
            // × 1.0 when paced: exact, so the paced policy's copies are those of a plain `ratio`.
            j.credit += j.ratio * host_slots as f64 * (self.g.gc_pace_ppm as f64 / 1e6);
            let budget = j.credit;
            self.gc_step(at, budget, flash);
        } else {
            self.gc_step(at, 0.0, flash);
        }
    }

    /// Copies up to `budget` slots from the current victim (choosing one if there is none), erasing and
    /// freeing it when it is empty. Returns false when no superblock can be collected.
    fn gc_step(&mut self, at: u64, budget: f64, flash: &mut impl Flash) -> bool {
        let mut j = match self.job {
            Some(j) => j,
            None => {
                let Some(sb) = self.victim() else {
                    return false;
                };
                let v = self.valid[sb as usize] as f64;
                self.closed[sb as usize] = false;
                GcJob {
                    sb,
                    pos: 0,
                    ratio: v / (self.g.sb_slots as f64 - v) * flash.gc_pace_factor(),
                    credit: 0.0,
                    last_page: NONE,
                }
            }
        };
        let mut spent = 0.0;
        let base = j.sb * self.g.sb_slots;
        while j.pos < self.g.sb_slots {
            let slot = base + j.pos;
            // The reverse map is exact: a slot names a unit only while that unit lives there (invalidation
            // and erase clear it).
            let lu = self.p2l[slot as usize];
            if lu == NONE {
                // Invalid slots cost nothing to pass over.
                j.pos += 1;
                continue;
            }
            debug_assert_eq!(self.l2p[lu as usize], slot);
            if spent >= budget {
                break;
            }
            let k = self.unit_len(lu);
            for p in self.g.page_of(slot)..=self.g.page_of(slot + k - 1) {
                if p != j.last_page {
                    flash.read_page(self.g.die_of_page(p), at);
                    j.last_page = p;
                }
            }
            // The controller pipelines copy reads with programs across dies: a copy's program is queued at
            // `at` on its die, not after its own read (which would leave dies idle in a reservation model).
            self.place(lu, k, at, Stream::Gc, flash, Some(slot));
            j.pos += k;
            spent += k as f64;
        }
        j.credit = (j.credit - spent).max(0.0);
        if j.pos < self.g.sb_slots {
            self.job = Some(j);
            return true;
        }
        debug_assert_eq!(self.valid[j.sb as usize], 0);
        self.p2l[base as usize..(base + self.g.sb_slots) as usize].fill(NONE);
        flash.erase_superblock(at);
        self.counters.erased_superblocks += 1;
        self.free.push_back(j.sb);
        self.job = None;
        true
    }

    /// Closes a frontier's superblock, programming its last, partly filled page (padded).
    fn close_frontier(&mut self, stream: Stream, flash: &mut impl Flash) {
        let g = self.g;
        let f = match stream {
            Stream::Host => &mut self.host,
            Stream::Gc => &mut self.gc,
        };
        if f.sb == NONE {
            return;
        }
        if f.next < g.sb_slots && f.next % g.page_slots != 0 {
            let page = g.page_of(f.sb * g.sb_slots + f.next);
            flash.program_page(g.die_of_page(page), f.sb, f.page_ready, f.page_units);
        }
        self.closed[f.sb as usize] = true;
        *f = Frontier {
            sb: NONE,
            next: g.sb_slots,
            page_ready: 0,
            page_units: 0,
        };
    }

    fn open_frontier(&mut self, stream: Stream) {
        // Garbage collection keeps at least two superblocks free (Geometry checks gc_free ≥ 2), so the pool
        // is never empty here; an empty pool would be a model bug, not a user error.
        let sb = self
            .free
            .pop_front()
            .expect("simulated drive: free superblock pool empty");
        let f = Frontier {
            sb,
            next: 0,
            page_ready: 0,
            page_units: 0,
        };
        match stream {
            Stream::Host => self.host = f,
            Stream::Gc => self.gc = f,
        }
    }

    /// The closed superblock with the fewest valid slots (the lowest number among equals), if any has an
    /// invalid slot.
    fn victim(&self) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for (sb, (&v, &c)) in self.valid.iter().zip(&self.closed).enumerate() {
            if c && v < self.g.sb_slots && best.is_none_or(|(bv, _)| v < bv) {
                best = Some((v, sb as u32));
            }
        }
        best.map(|(_, sb)| sb)
    }

    /// Discard (TRIM) of logical units `[first, first + n)`: their mappings are dropped. Closed superblocks
    /// left with no valid data are erased and returned to the free pool, as a purge leaves a drive.
    pub fn trim(&mut self, first: u32, n: u32, at: u64, flash: &mut impl Flash) {
        for lu in first..first.saturating_add(n).min(self.g.user_units) {
            if self.l2p[lu as usize] != NONE {
                self.counters.trimmed_units += 1;
            }
            self.invalidate(lu);
        }
        for sb in 0..self.g.superblocks {
            if self.closed[sb as usize] && self.valid[sb as usize] == 0 {
                let base = (sb * self.g.sb_slots) as usize;
                self.p2l[base..base + self.g.sb_slots as usize].fill(NONE);
                flash.erase_superblock(at);
                self.counters.erased_superblocks += 1;
                self.closed[sb as usize] = false;
                self.free.push_back(sb);
            }
        }
    }

    /// Valid slots in the whole drive (for checks: equals the slots of all mapped units).
    pub fn valid_slots(&self) -> u64 {
        self.valid.iter().map(|&v| v as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::params::SimParams;

    /// Counts flash operations without timing.
    #[derive(Default)]
    struct Count {
        reads: u64,
        programs: u64,
        erases: u64,
    }
    impl Flash for Count {
        fn read_page(&mut self, _: u32, at: u64) -> u64 {
            self.reads += 1;
            at
        }
        fn program_page(&mut self, _: u32, _: u32, ready: u64, _: u32) -> u64 {
            self.programs += 1;
            ready
        }
        fn erase_superblock(&mut self, _: u64) {
            self.erases += 1;
        }
    }

    fn tiny() -> Ftl {
        // 16 units of 4 KiB; pages of 4 KiB, blocks of 4 pages, 1 die: superblocks of 4 slots.
        // Flash 16 × 4 KiB × 2 = 32 units = 8 superblocks; GC keeps more than 2 free.
        let p = SimParams::parse_target(
            "sim:capacity=64KiB,op=100%,page=4KiB,block=16KiB,dies=1,gc_free_superblocks=2",
        )
        .unwrap();
        Ftl::new(Geometry::of(&p).unwrap()).unwrap()
    }

    #[test]
    fn sequential_fill_lays_data_out_block_by_block() {
        let mut f = tiny();
        let mut c = Count::default();
        for lu in 0..16 {
            f.write(lu, 1, 0, Stream::Host, &mut c);
        }
        for lu in 0..16 {
            assert_eq!(f.lookup(lu), Some((lu, 1)), "unit {lu} at slot {lu}");
        }
        assert_eq!(c.programs, 16);
        assert_eq!(f.free_superblocks(), 4);
        assert_eq!(f.counters.gc_slots, 0);
    }

    #[test]
    fn overwrites_trigger_greedy_gc_with_exact_copies() {
        let mut f = tiny();
        let mut c = Count::default();
        for lu in 0..16 {
            f.write(lu, 1, 0, Stream::Host, &mut c);
        }
        // Superblocks 0..4 hold units 0..16. Overwrite units 0, 1, 2 (sb 0: 1 valid left) and 4 (sb 1: 3
        // valid left): they go to sb 4 (free: 5, 6, 7).
        for lu in [0, 1, 2, 4] {
            f.write(lu, 1, 0, Stream::Host, &mut c);
        }
        assert_eq!(f.free_superblocks(), 3);
        // Unit 5 opens sb 5 (free: 6, 7): the pool is at the threshold (2), so collection starts: the victim
        // is sb 0 (1 valid slot: unit 3; 3 invalid), paced at 1/3 copy per host slot — nothing copied yet.
        f.write(5, 1, 0, Stream::Host, &mut c);
        assert_eq!(f.counters.gc_slots, 0);
        assert_eq!(f.free_superblocks(), 2);
        // Unit 6 earns 1/3 of a copy: unit 3 is copied to a GC superblock (sb 6); sb 0 is erased and freed.
        f.write(6, 1, 0, Stream::Host, &mut c);
        assert_eq!(f.counters.gc_slots, 1);
        assert_eq!(f.counters.erased_superblocks, 1);
        // Unit 8 picks the next victim, sb 1 (unit 7 valid); unit 9 copies it; unit 10 opens sb 7.
        f.write(8, 1, 0, Stream::Host, &mut c);
        f.write(9, 1, 0, Stream::Host, &mut c);
        f.write(10, 1, 0, Stream::Host, &mut c);
        assert_eq!(f.counters.gc_slots, 2, "units 3 and 7 copied");
        assert_eq!(f.counters.erased_superblocks, 2);
        assert_eq!(f.lookup(3).map(|l| f.geometry().sb_of(l.0)), Some(6));
        assert_eq!(f.lookup(7).map(|l| f.geometry().sb_of(l.0)), Some(6));
        assert_eq!(f.valid_slots(), 16);
        assert_eq!(f.free_superblocks(), 2);
        // Write amplification so far: (host 25 slots + 2 copied) / 25.
        assert_eq!(f.counters.host_slots, 25);
    }

    #[test]
    fn trim_unmaps_and_frees_empty_superblocks() {
        let mut f = tiny();
        let mut c = Count::default();
        for lu in 0..16 {
            f.write(lu, 1, 0, Stream::Host, &mut c);
        }
        f.trim(0, 8, 0, &mut c);
        assert_eq!(f.lookup(0), None);
        assert_eq!(f.lookup(8), Some((8, 1)));
        assert_eq!(f.counters.trimmed_units, 8);
        assert_eq!(c.erases, 2);
        assert_eq!(f.free_superblocks(), 6);
        assert_eq!(f.valid_slots(), 8);
    }
}
