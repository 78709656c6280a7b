//! The demand-intensity operating points of a block of rounds (SNIA PTS DIRTH): when a block's cells differ
//! only in outstanding I/O (workers × queue depth), its window means are the demand-intensity curve, IOPS
//! against average response time, and the PTS picks three points on it. The rule, deterministic:
//!
//! - MinIOPS: the level with the fewest outstanding I/Os (T1Q1 in the PTS), the least response time.
//! - MaxIOPS, the knee: of the levels whose average response time is at most the ceiling (the PTS's 5 ms),
//!   the one with the most IOPS; equal IOPS: the lower response time, then the fewer outstanding I/Os.
//!   `None` when no level is under the ceiling.
//! - MidIOPS: of the other levels under the ceiling, the one whose IOPS is nearest the middle of MaxIOPS's
//!   and MinIOPS's; equally near: the fewer outstanding I/Os. `None` without one.
//!
//! Each level's IOPS and response time are its cell's means over the measurement window (`cells[].figures`:
//! `iops`, `lat_mean_ns`, both directions together).

use super::PhaseResult;
use super::rounds::CellResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The response-time ceiling of the MaxIOPS point, ns: 5 ms, the PTS's.
pub const CEILING_NS: u64 = 5_000_000;

/// One demand level of the curve, as picked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OperatingPoint {
    /// The cell's name (`dirth[qd=32]`).
    pub cell: String,
    /// Workers (the PTS's thread count).
    pub workers: u32,
    /// Queue depth per worker.
    pub queue_depth: u32,
    /// `workers × queue_depth`.
    pub outstanding: u32,
    /// The cell's mean IOPS over the window, reads and writes.
    pub iops: f64,
    /// The cell's mean of its rounds' mean latencies, ns (the average response time).
    pub lat_mean_ns: f64,
}

/// The PTS DIRTH operating points of a block whose cells differ only in outstanding I/O.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DemandIntensity {
    /// The response-time ceiling of MaxIOPS, ns.
    pub ceiling_ns: u64,
    /// The knee: the most IOPS at an average response time within the ceiling; `null` when no level is.
    pub max_iops: Option<OperatingPoint>,
    /// A middle point under the ceiling, IOPS nearest the middle of MaxIOPS's and MinIOPS's; `null` without
    /// one.
    pub mid_iops: Option<OperatingPoint>,
    /// The level with the fewest outstanding I/Os.
    pub min_iops: OperatingPoint,
}

/// The demand levels of `cells` (the window's means) whose first phases are `first`: `None` unless there
/// are two or more, their outstanding I/Os all differ, and their phases are alike in everything else that
/// shapes the load (pattern, block size or mix, read share, span, distribution), without a rate cap or
/// think time.
fn levels(cells: &[CellResult], first: &[&PhaseResult]) -> Option<Vec<OperatingPoint>> {
    if cells.len() < 2 || cells.len() != first.len() {
        return None;
    }
    let shape = |p: &PhaseResult| {
        let q = &p.params;
        (
            q.pattern,
            q.block_size_bytes,
            q.block_size_mix.clone(),
            q.read_percent,
            (q.span_start_bytes, q.span_bytes),
            q.distribution.clone(),
        )
    };
    let paced = |p: &PhaseResult| p.params.rate_iops.is_some() || p.params.think_time_ns.is_some();
    if first
        .iter()
        .any(|p| paced(p) || shape(p) != shape(first[0]))
    {
        return None;
    }
    let out: Vec<OperatingPoint> = cells
        .iter()
        .zip(first)
        .map(|(c, p)| {
            let workers = p.params.workers.unwrap_or(1);
            let queue_depth = p.params.queue_depth.unwrap_or(1);
            OperatingPoint {
                cell: c.name.clone(),
                workers,
                queue_depth,
                outstanding: workers * queue_depth,
                iops: c.figures.iops,
                lat_mean_ns: c.figures.lat_mean_ns,
            }
        })
        .collect();
    let mut oio: Vec<u32> = out.iter().map(|l| l.outstanding).collect();
    oio.sort_unstable();
    oio.dedup();
    (oio.len() == out.len()).then_some(out)
}

/// The operating points of the levels `l` (the rule of the module's head).
pub fn pick(l: &[OperatingPoint], ceiling_ns: u64) -> Option<DemandIntensity> {
    let min = l.iter().min_by_key(|x| x.outstanding)?;
    let under: Vec<&OperatingPoint> = l
        .iter()
        .filter(|x| x.lat_mean_ns <= ceiling_ns as f64)
        .collect();
    let max = under.iter().copied().max_by(|a, b| {
        a.iops
            .total_cmp(&b.iops)
            .then(b.lat_mean_ns.total_cmp(&a.lat_mean_ns))
            .then(b.outstanding.cmp(&a.outstanding))
    });
    let mid = max.and_then(|m| {
        let target = (m.iops + min.iops) / 2.0;
        under
            .iter()
            .copied()
            .filter(|x| x.outstanding != m.outstanding && x.outstanding != min.outstanding)
            .min_by(|a, b| {
                (a.iops - target)
                    .abs()
                    .total_cmp(&(b.iops - target).abs())
                    .then(a.outstanding.cmp(&b.outstanding))
            })
    });
    Some(DemandIntensity {
        ceiling_ns,
        max_iops: max.cloned(),
        mid_iops: mid.cloned(),
        min_iops: min.clone(),
    })
}

/// The operating points of a block's `cells` over the window, whose first phases are `first` (one per cell,
/// in order); `None` when the cells are no demand-intensity curve.
pub fn demand_intensity(cells: &[CellResult], first: &[&PhaseResult]) -> Option<DemandIntensity> {
    pick(&levels(cells, first)?, CEILING_NS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(qd: u32, iops: f64, lat_ms: f64) -> OperatingPoint {
        OperatingPoint {
            cell: format!("d[qd={qd}]"),
            workers: 1,
            queue_depth: qd,
            outstanding: qd,
            iops,
            lat_mean_ns: lat_ms * 1e6,
        }
    }

    /// Levels of `(queue depth, IOPS, ms)`.
    fn of(v: &[(u32, f64, f64)]) -> Vec<OperatingPoint> {
        v.iter().map(|&(q, i, ms)| level(q, i, ms)).collect()
    }

    fn qd(p: &Option<OperatingPoint>) -> Option<u32> {
        p.as_ref().map(|p| p.queue_depth)
    }

    #[test]
    fn the_knee_is_the_most_iops_under_the_ceiling() {
        // QD32 has the most IOPS but 6 ms: over the ceiling; QD16's 900 is the knee. Middle of 900 and
        // 100: 500; QD4's 450 is 50 away, QD8's 700 is 200.
        let l = of(&[
            (32, 950.0, 6.0),
            (16, 900.0, 4.0),
            (8, 700.0, 2.0),
            (4, 450.0, 1.0),
            (1, 100.0, 0.5),
        ]);
        let d = pick(&l, CEILING_NS).expect("levels");
        assert_eq!(d.ceiling_ns, 5_000_000);
        assert_eq!(qd(&d.max_iops), Some(16));
        assert_eq!(qd(&d.mid_iops), Some(4));
        assert_eq!(d.min_iops.queue_depth, 1);
    }

    #[test]
    fn the_ceiling_is_inclusive_and_ties_go_to_less_latency_then_less_demand() {
        // Exactly 5 ms is within; equal IOPS: the lower latency wins, then the fewer outstanding I/Os.
        let l = of(&[
            (32, 900.0, 5.0),
            (16, 900.0, 4.0),
            (8, 900.0, 4.0),
            (1, 100.0, 0.5),
        ]);
        let d = pick(&l, CEILING_NS).expect("levels");
        assert_eq!(qd(&d.max_iops), Some(8));
        // Middle 500: QD32 and QD16 are both 400 away; the fewer outstanding I/Os, QD16.
        assert_eq!(qd(&d.mid_iops), Some(16));
        let d = pick(&[level(32, 900.0, 5.000001)], CEILING_NS).expect("one level");
        assert_eq!((qd(&d.max_iops), qd(&d.mid_iops)), (None, None));
        assert_eq!(d.min_iops.queue_depth, 32);
        // Two levels: no third for the middle.
        let d = pick(&[level(4, 400.0, 1.0), level(1, 100.0, 0.5)], CEILING_NS).expect("two");
        assert_eq!((qd(&d.max_iops), qd(&d.mid_iops)), (Some(4), None));
        assert_eq!(pick(&[], CEILING_NS), None);
    }
}
