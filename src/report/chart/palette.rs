//! The colours of a report: one per drive (run), in the order the runs were named on the command line,
//! the same in every chart, table and legend of the report; a sweep's members as shades of their drive's
//! colour.
//!
//! The first seven are Okabe and Ito's palette for colour-blind readers (its yellow left out: too faint
//! on white paper), which stays apart under every common colour-vision deficiency and in grey print. No
//! palette of twenty colours does: the eighth to fourteenth drives take the same hues darker (six tenths
//! of each channel), the fifteenth to twenty-first lighter (45 % of the way to white); the legend's order
//! and label tell them apart.

use plotters::style::RGBColor;

/// The drive colours, in order (repeating after the last).
pub const RUN_COLOURS: [RGBColor; 21] = [
    // Okabe–Ito: blue, vermillion, bluish green, reddish purple, orange, sky blue, black.
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    // The same, darker (black: a dark grey).
    RGBColor(0, 68, 107),
    RGBColor(128, 56, 0),
    RGBColor(0, 95, 69),
    RGBColor(122, 73, 100),
    RGBColor(138, 95, 0),
    RGBColor(52, 108, 140),
    RGBColor(96, 96, 96),
    // The same, lighter (black: a light grey).
    RGBColor(115, 177, 213),
    RGBColor(232, 166, 115),
    RGBColor(115, 202, 178),
    RGBColor(227, 181, 207),
    RGBColor(241, 202, 115),
    RGBColor(162, 214, 243),
    RGBColor(160, 160, 160),
];

/// The colour of run `run` (its place on the command line, from 0).
pub fn colour(run: usize) -> RGBColor {
    RUN_COLOURS[run % RUN_COLOURS.len()]
}

/// `#rrggbb`, as CSS and the report's own SVG text write a colour.
pub fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// `c` mixed with white by `t` (0: `c`, 1: white).
pub fn lighter(c: RGBColor, t: f64) -> RGBColor {
    let m = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * t).round() as u8;
    RGBColor(m(c.0), m(c.1), m(c.2))
}

/// `c` mixed with black by `t` (0: `c`, 1: black).
pub fn darker(c: RGBColor, t: f64) -> RGBColor {
    let m = |v: u8| (f64::from(v) * (1.0 - t)).round() as u8;
    RGBColor(m(c.0), m(c.1), m(c.2))
}

/// Member `k` of `n` of an ordered sweep drawn in its drive's colour `c`: from `c` a third of the way to
/// black for the first member to `c` 45 % of the way to white for the last, evenly between (one member:
/// `c` itself). The drive stays its hue; the sweep's order reads as dark to light.
pub fn shade(c: RGBColor, k: usize, n: usize) -> RGBColor {
    if n < 2 {
        return c;
    }
    let s = -1.0 / 3.0 + (1.0 / 3.0 + 0.45) * k as f64 / (n - 1) as f64;
    if s < 0.0 {
        darker(c, -s)
    } else {
        lighter(c, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drives_take_the_palette_in_order_and_repeat_after_it() {
        assert_eq!(colour(0), RGBColor(0, 114, 178));
        assert_eq!(colour(1), RGBColor(213, 94, 0));
        assert_eq!(colour(7), darker(colour(0), 0.4));
        assert_eq!(colour(15), lighter(colour(1), 0.45));
        assert_eq!(colour(21), colour(0));
        // Twenty-one distinct colours.
        let mut all: Vec<String> = RUN_COLOURS.iter().map(|c| hex(*c)).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 21);
        assert_eq!(hex(colour(0)), "#0072b2");
    }

    #[test]
    fn sweep_members_go_from_dark_to_light_in_their_drives_hue() {
        let c = colour(0);
        assert_eq!(shade(c, 0, 1), c);
        assert_eq!(shade(c, 0, 2), RGBColor(0, 76, 119));
        assert_eq!(shade(c, 1, 2), RGBColor(115, 177, 213));
        // Five members: evenly from a third darker to 45 % lighter.
        let five: Vec<RGBColor> = (0..5).map(|k| shade(c, k, 5)).collect();
        assert_eq!(five[0], darker(c, 1.0 / 3.0));
        assert_eq!(five[4], lighter(c, 0.45));
        assert!(five.windows(2).all(|w| w[0].2 < w[1].2), "{five:?}");
    }
}
