//! The DIRTH section's operating points (`round_blocks[].demand_intensity`): MaxIOPS (the knee), MidIOPS
//! and MinIOPS marked on the IOPS-against-response-time curve, and their table.

use super::PtsTable;
use super::content::num;
use crate::report::chart::colour;
use crate::report::chart::lines::Curve;
use crate::report::runs::RunData;
use crate::results::knee::OperatingPoint;
use crate::results::rounds::RoundBlockResult;

/// The three points in the PTS's order, each with its name and colour index (also its ring's size):
/// `(name, point, k)`.
fn named(b: &RoundBlockResult) -> Vec<(&'static str, Option<&OperatingPoint>, usize)> {
    b.demand_intensity.as_ref().map_or_else(Vec::new, |d| {
        vec![
            ("MaxIOPS (the knee)", d.max_iops.as_ref(), 1),
            ("MidIOPS", d.mid_iops.as_ref(), 2),
            ("MinIOPS", Some(&d.min_iops), 3),
        ]
    })
}

/// `T1Q32`.
fn level(p: &OperatingPoint) -> String {
    format!("T{}Q{}", p.workers, p.queue_depth)
}

/// One ring per operating point of block `b` around its point of the curve, named with its level, IOPS and
/// response time.
pub fn marks(b: &RoundBlockResult) -> Vec<Curve> {
    named(b)
        .into_iter()
        .filter_map(|(name, p, k)| {
            let p = p?;
            // Rings of 7, 11 and 15 pixels: points on one level (MaxIOPS at T1Q1 is also MinIOPS) all show.
            let radius = 3 + 4 * k as u32;
            Some(Curve::ringed(
                format!(
                    "{name}: {}, {} IOPS at {} µs",
                    level(p),
                    num(p.iops, 1),
                    num(p.lat_mean_ns / 1e3, 2)
                ),
                vec![(p.iops, p.lat_mean_ns / 1e3)],
                colour(k),
                radius,
            ))
        })
        .collect()
}

/// The response-time ceiling as a thin line across the IOPS of `levels` (`(IOPS, µs)`), when a level is over
/// it (else the line would only stretch the axis); `None` otherwise.
pub fn ceiling(b: &RoundBlockResult, levels: &[(f64, f64)]) -> Option<Curve> {
    let c = b.demand_intensity.as_ref()?.ceiling_ns as f64 / 1e3;
    let hi = levels.iter().map(|p| p.0).fold(0.0, f64::max);
    levels.iter().any(|p| p.1 > c).then(|| {
        Curve::thin(
            format!("response-time ceiling, {} ms", c / 1e3),
            vec![(0.0, c), (hi, c)],
            plotters::style::RGBColor(120, 120, 120),
        )
    })
}

/// The response-time histogram run at point `p`'s level: the first phase named `hist…` with its workers and
/// queue depth; "none at this level" otherwise.
fn histogram_at(run: &RunData, p: &OperatingPoint) -> String {
    run.results
        .phases
        .iter()
        .find(|h| {
            h.name.starts_with("hist")
                && h.params.workers.unwrap_or(1) == p.workers
                && h.params.queue_depth.unwrap_or(1) == p.queue_depth
        })
        .map_or("none at this level".into(), |h| format!("\"{}\"", h.name))
}

/// The table of block `b`'s operating points (`<anchor>-points`), with the histogram run at each level;
/// `None` when its cells are no demand-intensity curve.
pub fn points_table(run: &RunData, b: &RoundBlockResult, anchor: &str) -> Option<PtsTable> {
    let d = b.demand_intensity.as_ref()?;
    let ceiling_ms = d.ceiling_ns as f64 / 1e6;
    let rows = named(b)
        .into_iter()
        .map(|(name, p, _)| match p {
            Some(p) => vec![
                name.to_string(),
                level(p),
                p.outstanding.to_string(),
                num(p.iops, 1),
                num(p.lat_mean_ns / 1e3, 2),
                histogram_at(run, p),
            ],
            None => vec![
                name.to_string(),
                format!("none (no other level within {ceiling_ms} ms)"),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ],
        })
        .collect();
    Some(PtsTable {
        id: format!("{anchor}-points"),
        caption: format!(
            "The operating points of the demand-intensity curve, by the rule of docs/snia.md: MaxIOPS, the knee, is the level with the most IOPS whose average response time is within {ceiling_ms} ms (equal IOPS: the lower response time, then the fewer outstanding I/Os); MinIOPS the level with the fewest outstanding I/Os; MidIOPS the other level within {ceiling_ms} ms whose IOPS is nearest the middle of theirs. The spec's histogram runs are at fixed levels: the last column names the one at each point's level, if any."
        ),
        head: [
            "point",
            "level",
            "outstanding I/Os",
            "IOPS",
            "average µs",
            "histogram run",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
