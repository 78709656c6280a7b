//! The simulated drive's geometry, derived from its parameters and checked: mapping units, slots (the
//! flash space a unit may take), pages, superblocks and dies.

use super::params::{
    AUTO_DIE_BYTES, GcPolicy, MAX_DIES, MAX_JITTER, MAX_MODEL_BYTES, SimParams, UNIT,
};
use crate::units::Percent;

/// A parameter that does not describe a drive: which key, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    /// The key in the sim table (`page`, `op`, ...).
    pub key: &'static str,
    /// What is wrong, starting with `sim <key> = <value>`.
    pub message: String,
}

impl ParamError {
    fn new(key: &'static str, message: String) -> ParamError {
        ParamError { key, message }
    }
}

/// The derived layout. Flash is addressed in slots: a slot is a whole 4 KiB unit without compression, and
/// 1/8 of one (512 B) with it, so that a compressed unit takes 1 to 8 slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Logical 4 KiB mapping units (capacity / 4 KiB).
    pub user_units: u32,
    /// Slots per mapping unit: 1, or 8 with compression.
    pub slots_per_unit: u32,
    /// Bytes per slot.
    pub slot_bytes: u64,
    /// Slots per flash page.
    pub page_slots: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Independent dies.
    pub dies: u32,
    /// Slots per superblock (one erase block per die).
    pub sb_slots: u32,
    /// Superblocks of flash.
    pub superblocks: u32,
    /// Garbage collection starts when this many superblocks or fewer are free (it aims to keep more free;
    /// the pool may drop to one, when collection runs in the foreground).
    pub gc_free: u32,
    /// The garbage-collection policy.
    pub gc: GcPolicy,
    /// Background collection's pace, parts per million of the keep-up pace: 1,000,000 when paced, `gc_pace`
    /// (default 0) when deferred.
    pub gc_pace_ppm: u32,
}

impl Geometry {
    /// The geometry of `p`.
    ///
    /// # Errors
    /// [`ParamError`], naming the key, when sizes do not nest (page a multiple of 4 KiB, block of page), a
    /// time, the bandwidth or the jitter is out of range, the over-provisioning leaves too little spare for
    /// garbage collection, or the mapping tables would need more than 2 GiB of memory.
    pub fn of(p: &SimParams) -> Result<Geometry, ParamError> {
        let (page, block) = check_sizes(p)?;
        let user_units = p.capacity.0 / UNIT;
        let flash =
            p.op.checked_of_floor(p.capacity.0)
                .and_then(|spare| spare.checked_add(p.capacity.0))
                .ok_or_else(|| ParamError::new("op", format!("sim op = {}: too large", p.op)))?;
        let dies = dies_of(p, flash)?;
        check_times(p)?;
        let slots_per_unit: u32 = if p.compression { 8 } else { 1 };
        let slot_bytes = UNIT / slots_per_unit as u64;
        let sb_bytes = block * dies as u64;
        let superblocks = flash / sb_bytes;
        let sb_slots = sb_bytes / slot_bytes;
        let reserve = p.gc_free_superblocks as u64 + 2;
        let needed = (user_units * slots_per_unit as u64).div_ceil(sb_slots) + reserve;
        if superblocks < needed {
            return Err(ParamError::new(
                "op",
                format!(
                    "sim op = {}: {} B of flash make {superblocks} superblocks of {sb_bytes} B ({dies} die(s) × block {block} B); the capacity needs {} and garbage collection {reserve} more: raise op, or lower block or dies",
                    p.op,
                    flash,
                    needed - reserve
                ),
            ));
        }
        check_memory(p, user_units, superblocks * sb_slots)?;
        Ok(Geometry {
            user_units: user_units as u32,
            slots_per_unit,
            slot_bytes,
            page_slots: (page / slot_bytes) as u32,
            pages_per_block: (block / page) as u32,
            dies,
            sb_slots: sb_slots as u32,
            superblocks: superblocks as u32,
            gc_free: p.gc_free_superblocks,
            gc: p.gc,
            gc_pace_ppm: match p.gc {
                GcPolicy::Paced => 1_000_000,
                GcPolicy::Deferred => p.gc_pace.map_or(0, |q| (q.0 / 100) as u32),
            },
        })
    }

    /// Total slots of flash.
    pub fn total_slots(&self) -> u32 {
        self.superblocks * self.sb_slots
    }

    /// Capacity the host sees, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.user_units as u64 * UNIT
    }

    /// Global page number of a slot.
    #[inline]
    pub fn page_of(&self, slot: u32) -> u32 {
        slot / self.page_slots
    }

    /// The die that holds a page: pages of a superblock are striped across the dies.
    #[inline]
    pub fn die_of_page(&self, page: u32) -> u32 {
        let pages_per_sb = self.sb_slots / self.page_slots;
        (page % pages_per_sb) % self.dies
    }

    /// Superblock of a slot.
    #[inline]
    pub fn sb_of(&self, slot: u32) -> u32 {
        slot / self.sb_slots
    }
}

/// Page, block and capacity nest: `(page, block)` in bytes.
fn check_sizes(p: &SimParams) -> Result<(u64, u64), ParamError> {
    let (page, block) = (p.page.0, p.block.0);
    if page == 0 || page % UNIT != 0 || page > 1 << 20 {
        return Err(ParamError::new(
            "page",
            format!(
                "sim page = {page} B: a flash page must be a multiple of 4 KiB, at most 1 MiB (e.g. \"16KiB\")"
            ),
        ));
    }
    if block == 0 || block % page != 0 || block / page > 1 << 16 {
        return Err(ParamError::new(
            "block",
            format!(
                "sim block = {block} B: an erase block must be a whole number of pages ({page} B), at most 65536 of them (e.g. \"4MiB\")"
            ),
        ));
    }
    if p.capacity.0 < UNIT {
        return Err(ParamError::new(
            "capacity",
            format!(
                "sim capacity = {} B: a simulated drive holds at least one 4 KiB unit",
                p.capacity.0
            ),
        ));
    }
    Ok((page, block))
}

/// The dies: as given (1 to [`MAX_DIES`]), or one per [`AUTO_DIE_BYTES`] of `flash`.
fn dies_of(p: &SimParams, flash: u64) -> Result<u32, ParamError> {
    match p.dies {
        Some(0) => Err(ParamError::new(
            "dies",
            "sim dies = 0: a drive has at least one die".into(),
        )),
        Some(d) if d > MAX_DIES => Err(ParamError::new(
            "dies",
            format!("sim dies = {d}: at most {MAX_DIES}"),
        )),
        Some(d) => Ok(d),
        None => Ok(flash.div_ceil(AUTO_DIE_BYTES).clamp(1, MAX_DIES as u64) as u32),
    }
}

/// Times, bandwidth, jitter and the GC threshold a drive can have.
fn check_times(p: &SimParams) -> Result<(), ParamError> {
    // Zero would stop the virtual clock (a time-bounded phase would never end) and a crawl would make even
    // a fill take years of virtual time.
    for (key, d, lo, hi) in [
        ("read_time", p.read_time, 1_000, 1_000_000_000),
        ("program_time", p.program_time, 1_000, 1_000_000_000),
        ("erase_time", p.erase_time, 1_000, 1_000_000_000),
        ("command_time", p.command_time, 1_000, 1_000_000_000),
    ] {
        if d.0 < lo || d.0 > hi {
            return Err(ParamError::new(
                key,
                format!("sim {key} = {d}: must be between 1us and 1s"),
            ));
        }
    }
    let bw = p.interface_bytes_per_s.0;
    if !(1_000_000..=1_000_000_000_000).contains(&bw) {
        return Err(ParamError::new(
            "interface_bytes_per_s",
            format!(
                "sim interface_bytes_per_s = {bw}: must be between 1MB (1 MB/s) and 1TB (1 TB/s) per second"
            ),
        ));
    }
    if p.jitter > MAX_JITTER {
        return Err(ParamError::new(
            "jitter",
            format!(
                "sim jitter = {}: at most {MAX_JITTER} (a flash operation takes its time × 1 ± jitter)",
                p.jitter
            ),
        ));
    }
    match (p.gc, p.gc_pace) {
        (GcPolicy::Paced, Some(q)) => {
            return Err(ParamError::new(
                "gc_pace",
                format!(
                    "sim gc_pace = {q}: applies to gc = deferred (paced collection keeps up: 100 %)"
                ),
            ));
        }
        (GcPolicy::Deferred, Some(q)) if q > Percent::FULL => {
            return Err(ParamError::new(
                "gc_pace",
                format!("sim gc_pace = {q}: at most 100%"),
            ));
        }
        _ => {}
    }
    if p.gc_free_superblocks < 2 {
        return Err(ParamError::new(
            "gc_free_superblocks",
            format!(
                "sim gc_free_superblocks = {}: garbage collection needs at least 2 free superblocks to make progress",
                p.gc_free_superblocks
            ),
        ));
    }
    Ok(())
}

/// The memory the mapping tables of `user_units` units and `total_slots` slots take: 4 B a unit (5 with
/// `compression`) and 4 B a slot.
fn table_bytes(compression: bool, user_units: u64, total_slots: u64) -> u64 {
    user_units * (4 + u64::from(compression)) + total_slots * 4
}

impl Geometry {
    /// The memory the model's mapping tables take, bytes: the sizes [`Geometry::of`] holds to the
    /// model's limit.
    pub fn table_bytes(&self) -> u64 {
        let slots = u64::from(self.superblocks) * u64::from(self.sb_slots);
        table_bytes(self.slots_per_unit > 1, u64::from(self.user_units), slots)
    }
}

/// The mapping tables of `user_units` units and `total_slots` slots fit the model's memory limit and the
/// tables' 32-bit indices.
fn check_memory(p: &SimParams, user_units: u64, total_slots: u64) -> Result<(), ParamError> {
    let memory = table_bytes(p.compression, user_units, total_slots);
    if total_slots > u32::MAX as u64 - 1
        || user_units > u32::MAX as u64 - 1
        || memory > MAX_MODEL_BYTES
    {
        return Err(ParamError::new(
            "capacity",
            format!(
                "sim capacity = {} B: the model's mapping tables would take {memory} B of memory, more than the {MAX_MODEL_BYTES} B limit; simulate a smaller drive",
                p.capacity.0
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Percent, Size};

    fn sim(s: &str) -> Result<Geometry, String> {
        Geometry::of(&SimParams::parse_target(s).unwrap()).map_err(|e| format!("{}: {e}", e.key))
    }

    #[test]
    fn two_gib_at_seven_percent() {
        let g = sim("sim:capacity=2GiB,op=7%").unwrap();
        // 2 GiB × 1.07 = 2,297,807,503 B of flash → one die (≤ 16 GiB), 547 superblocks of 4 MiB.
        assert_eq!(g.dies, 1);
        assert_eq!(g.user_units, 524_288);
        assert_eq!(g.superblocks, 547);
        assert_eq!(
            (g.page_slots, g.pages_per_block, g.sb_slots),
            (4, 256, 1024)
        );
        assert_eq!(g.capacity_bytes(), 2 << 30);
    }

    #[test]
    fn dies_scale_with_flash_and_pages_stripe() {
        let mut p = SimParams {
            capacity: Size(256_000_000_000),
            ..SimParams::default()
        };
        assert_eq!(Geometry::of(&p).unwrap().dies, 16);
        p.dies = Some(4);
        let g = Geometry::of(&p).unwrap();
        assert_eq!(g.dies, 4);
        assert_eq!(g.sb_slots, 4 * 1024);
        let pages_per_sb = 4 * 256;
        assert_eq!(g.die_of_page(0), 0);
        assert_eq!(g.die_of_page(5), 1);
        assert_eq!(g.die_of_page(pages_per_sb + 2), 2);
    }

    #[test]
    fn compression_uses_eighth_slots() {
        let g = sim("sim:capacity=64MiB,op=50%,compression=true").unwrap();
        assert_eq!((g.slots_per_unit, g.slot_bytes, g.page_slots), (8, 512, 32));
    }

    #[test]
    fn bad_geometry_is_refused_with_the_key() {
        assert!(sim("sim:page=6KiB").unwrap_err().contains("page"));
        assert!(sim("sim:block=20KiB").unwrap_err().contains("block"));
        assert!(sim("sim:dies=0").unwrap_err().contains("dies"));
        assert!(
            sim("sim:gc_free_superblocks=1")
                .unwrap_err()
                .contains("gc_free")
        );
        assert_eq!(
            sim("sim:jitter=51%").unwrap_err(),
            "jitter: sim jitter = 51%: at most 50% (a flash operation takes its time × 1 ± jitter)"
        );
        assert_eq!(
            sim("sim:gc_pace=50%").unwrap_err(),
            "gc_pace: sim gc_pace = 50%: applies to gc = deferred (paced collection keeps up: 100 %)"
        );
        assert_eq!(
            sim("sim:gc=deferred,gc_pace=101%").unwrap_err(),
            "gc_pace: sim gc_pace = 101%: at most 100%"
        );
        assert_eq!(
            sim("sim:gc=deferred,gc_pace=90%").unwrap().gc_pace_ppm,
            900_000
        );
        assert_eq!(sim("sim:gc=deferred").unwrap().gc_pace_ppm, 0);
        assert_eq!(sim("sim:").unwrap().gc_pace_ppm, 1_000_000);
        // 64 MiB at 7 %: 17 superblocks of 4 MiB hold 16 of capacity, and GC needs 5 more.
        let e = sim("sim:capacity=64MiB,op=7%").unwrap_err();
        assert!(e.contains("raise op"), "{e}");
        let p = SimParams {
            capacity: Size(8 << 40),
            op: Percent::FULL,
            ..SimParams::default()
        };
        assert!(Geometry::of(&p).unwrap_err().message.contains("memory"));
    }
}
