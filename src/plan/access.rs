//! A phase's `distribution` resolved against its span: zones in bytes from the span's start (whole blocks
//! of the stream's unit), and the key that scatters Zipf and Pareto ranks (from the phase's seed, shared by
//! its workers). What each law draws is `ops::dist`.

use crate::ops::dist::{Access, Dist, Zone};
use crate::spec::Distribution;
use crate::spec::distribution::ZoneSpec;
use crate::units::Size;

/// The access law of a random stream over `span` bytes in units of `unit` bytes, seeded `seed`.
///
/// # Errors
/// Why the distribution does not fit the span: `zoned_abs` sizes past it, a zone with I/Os but less than
/// one unit of the span.
pub fn resolve(d: &Distribution, span: u64, unit: u64, seed: u64) -> Result<Access, String> {
    let unit = unit.max(1);
    let dist = match d {
        Distribution::Uniform => Dist::Uniform,
        Distribution::Zipf(t) => Dist::Zipf(*t),
        Distribution::Pareto(h) => Dist::Pareto(*h),
        Distribution::Normal(s) => Dist::Normal(*s),
        Distribution::Zoned(v) => Dist::Zoned(zones(d, v, span, unit, false)?),
        Distribution::ZonedAbs(v) => Dist::Zoned(zones(d, v, span, unit, true)?),
    };
    Ok(Access::seeded(dist, seed))
}

/// The zones in bytes: zone boundaries at whole units, `⌊blocks · Σ% / 100⌋` (zoned) or `⌊Σbytes / unit⌋`
/// (zoned_abs) units from the span's start.
fn zones(
    d: &Distribution,
    v: &[ZoneSpec],
    span: u64,
    unit: u64,
    absolute: bool,
) -> Result<Vec<Zone>, String> {
    let blocks = span / unit;
    if absolute {
        let total: u128 = v.iter().map(|z| z.size as u128).sum();
        if total > span as u128 {
            return Err(format!(
                "distribution = \"{d}\": the zones' sizes sum to {}, more than the span's {} ({span} B)",
                Size(u64::try_from(total).unwrap_or(u64::MAX)),
                Size(span)
            ));
        }
    }
    let mut out = Vec::with_capacity(v.len());
    let (mut sum, mut start) = (0u128, 0u64);
    for (i, z) in v.iter().enumerate() {
        sum += z.size as u128;
        let end = match absolute {
            true => (sum / unit as u128) as u64,
            false => (blocks as u128 * sum / 100) as u64,
        };
        if end == start && z.io_percent > 0 {
            let what = match absolute {
                true => Size(z.size).to_string(),
                false => format!("{} %", z.size),
            };
            return Err(format!(
                "distribution = \"{d}\": zone {} ({} % of the I/Os to {what}) is less than one block of {unit} B of the span ({blocks} blocks)",
                i + 1,
                z.io_percent
            ));
        }
        out.push(Zone {
            io_percent: z.io_percent,
            start: start * unit,
            end: end * unit,
        });
        start = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zones of `d` over `span` bytes of 4 KiB blocks, as `(io %, start, end)`.
    fn zones_of(d: &str, span: u64) -> Vec<(u8, u64, u64)> {
        let a = resolve(&Distribution::parse(d).unwrap(), span, 4096, 1).unwrap();
        match a.dist {
            Dist::Zoned(v) => v.iter().map(|z| (z.io_percent, z.start, z.end)).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn zones_land_on_whole_blocks_in_span_order() {
        let b = 4096;
        assert_eq!(
            zones_of("zoned:50/5:30/15:20/80", 1000 * b),
            [
                (50, 0, 50 * b),
                (30, 50 * b, 200 * b),
                (20, 200 * b, 1000 * b)
            ]
        );
        // 1001 blocks: boundaries rounded down to whole blocks.
        assert_eq!(
            zones_of("zoned:50/5:30/15:20/80", 1001 * b),
            [
                (50, 0, 50 * b),
                (30, 50 * b, 200 * b),
                (20, 200 * b, 1001 * b)
            ]
        );
        assert_eq!(
            zones_of("zoned_abs:50/10MiB:50/1GiB", 2 << 30),
            [(50, 0, 10 << 20), (50, 10 << 20, (10 << 20) + (1 << 30))]
        );
        let d = Distribution::parse("zipf:1.2").unwrap();
        assert_ne!(
            resolve(&d, 2 << 30, 4096, 2).unwrap().key,
            resolve(&d, 2 << 30, 4096, 1).unwrap().key
        );
    }

    #[test]
    fn zones_that_do_not_fit_are_refused() {
        let d = Distribution::parse("zoned_abs:50/10MiB:50/1GiB").unwrap();
        assert_eq!(
            resolve(&d, 1 << 30, 4096, 1).unwrap_err(),
            "distribution = \"zoned_abs:50/10MiB:50/1GiB\": the zones' sizes sum to 1034MiB, more than the span's 1GiB (1073741824 B)"
        );
        let d = Distribution::parse("zoned:50/1:50/99").unwrap();
        assert_eq!(
            resolve(&d, 50 * 4096, 4096, 1).unwrap_err(),
            "distribution = \"zoned:50/1:50/99\": zone 1 (50 % of the I/Os to 1 %) is less than one block of 4096 B of the span (50 blocks)"
        );
    }
}
