//! A simulated SSD target (`--target sim:...`): a page-mapped flash translation layer with greedy garbage
//! collection and a timing model of dies, controller, interface and write buffer, run in virtual time. It
//! shows what files and RAM disks cannot: a fresh drive's speed, the write cliff when the spare area runs
//! out, steady state, and the effect of over-provisioning, reproducibly and in seconds.

pub mod device;
pub mod ftl;
pub mod geometry;
pub mod params;
pub mod timing;

pub use device::{DeviceCounters, SimDevice};
pub use params::{GcPolicy, SimParams};

use schemars::JsonSchema;

use serde::{Deserialize, Serialize};

/// A simulated target as recorded in plans and results: every parameter (defaults filled in, `dies`
/// resolved) and the flash layout derived from them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimTarget {
    /// The model's parameters.
    pub params: SimParams,
    /// Flash in the drive, bytes: `capacity × (1 + op)`, rounded down to whole superblocks.
    pub flash_bytes: u64,
    /// Bytes per superblock (one erase block on every die), the unit of garbage collection.
    pub superblock_bytes: u64,
    /// Superblocks of flash.
    pub superblocks: u32,
}

impl SimTarget {
    /// The target of `params`.
    ///
    /// # Errors
    /// The geometry's error, naming the key, when the parameters do not describe a drive.
    pub fn new(mut params: SimParams) -> Result<SimTarget, geometry::ParamError> {
        let g = geometry::Geometry::of(&params)?;
        params.dies = Some(g.dies);
        let sb = g.sb_slots as u64 * g.slot_bytes;
        Ok(SimTarget {
            params,
            flash_bytes: g.superblocks as u64 * sb,
            superblock_bytes: sb,
            superblocks: g.superblocks,
        })
    }

    /// The target's name: `sim:` and its main parameters, e.g. `sim:capacity=2GiB,op=7%,dies=1` or
    /// `sim:capacity=256GB,op=7%,dies=16`.
    pub fn name(&self) -> String {
        let p = &self.params;
        // Drive vendors' decimal units when they are exact and the binary ones are not (256GB, not
        // 250000000KiB).
        let c = p.capacity.0;
        let capacity = match [(1_000_000_000_000, "TB"), (1_000_000_000, "GB")]
            .into_iter()
            .find(|&(u, _)| c.is_multiple_of(u) && !c.is_multiple_of(1 << 30))
        {
            Some((u, name)) => format!("{}{name}", c / u),
            None => p.capacity.to_string(),
        };
        let mut s = format!("sim:capacity={capacity},op={}", p.op);
        if let Some(d) = p.dies {
            s.push_str(&format!(",dies={d}"));
        }
        if p.compression {
            s.push_str(",compression=true");
        }
        if p.gc != GcPolicy::Paced {
            s.push_str(&format!(",gc={}", p.gc.as_str()));
        }
        if let Some(q) = p.gc_pace {
            s.push_str(&format!(",gc_pace={q}"));
        }
        // The default jitter and seed go unsaid; any other jitter, and the seed of a drive that varies.
        let d = SimParams::default();
        if p.jitter != d.jitter {
            s.push_str(&format!(",jitter={}", p.jitter));
        }
        if p.jitter.0 > 0 && p.seed != d.seed {
            s.push_str(&format!(",seed={}", p.seed));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_use_exact_units() {
        let name = |c: &str| {
            SimTarget::new(SimParams::parse_target(&format!("sim:capacity={c}")).unwrap())
                .unwrap()
                .name()
        };
        assert_eq!(name("2GiB"), "sim:capacity=2GiB,op=7%,dies=1");
        assert_eq!(name("256GB"), "sim:capacity=256GB,op=7%,dies=16");
        assert_eq!(name("512GiB"), "sim:capacity=512GiB,op=7%,dies=35");
        assert_eq!(
            name("2GiB,gc=deferred,jitter=20%"),
            "sim:capacity=2GiB,op=7%,dies=1,gc=deferred,jitter=20%"
        );
        assert_eq!(
            name("2GiB,jitter=30%,seed=7"),
            "sim:capacity=2GiB,op=7%,dies=1,seed=7"
        );
        assert_eq!(
            name("2GiB,jitter=0%,seed=7"),
            "sim:capacity=2GiB,op=7%,dies=1,jitter=0%"
        );
    }
}
