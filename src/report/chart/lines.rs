//! A 2-D line chart: named curves of `(x, y)` points over two axes (linear or log), each a line with a
//! square at each point, or a thin line without; the SNIA PTS report's plots of one figure against another
//! (IOPS against block size per R/W mix, IOPS against time and against total bytes written, IOPS against
//! latency). Also the body [`Curves`] the convergence and measurement-window plots draw on.

use super::{
    Axis, Chart, LegendEntry, Plane, PlotError, Points, Swatch, log_range, plot_on, render, why,
};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

/// One curve of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Its legend text.
    pub name: String,
    /// Its points, in drawing order.
    pub points: Points,
    /// Its colour.
    pub colour: RGBColor,
    /// A thick line with a square at each point (`true`), or a thin line alone (reference lines: a mean,
    /// limits, a fitted line).
    pub marked: bool,
    /// The radius in pixels of a hollow ring drawn around each point, over the other curves (a point picked
    /// out of a curve, such as an operating point); 0 for none.
    pub ring: u32,
}

impl Curve {
    /// A thick curve with a square at each point.
    pub fn marked(name: impl Into<String>, points: Points, colour: RGBColor) -> Curve {
        Curve {
            name: name.into(),
            points,
            colour,
            marked: true,
            ring: 0,
        }
    }

    /// A thin line without points.
    pub fn thin(name: impl Into<String>, points: Points, colour: RGBColor) -> Curve {
        Curve {
            name: name.into(),
            points,
            colour,
            marked: false,
            ring: 0,
        }
    }

    /// Points picked out by a hollow ring of `radius` pixels each, without a line.
    pub fn ringed(name: impl Into<String>, points: Points, colour: RGBColor, radius: u32) -> Curve {
        Curve {
            name: name.into(),
            points,
            colour,
            marked: false,
            ring: radius,
        }
    }
}

/// The axes of a line chart and what each shows.
#[derive(Debug, Clone, PartialEq)]
pub struct XyAxes {
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    /// What x shows, with its unit.
    pub x_desc: String,
    /// What y shows, with its unit.
    pub y_desc: String,
}

/// An axis fitted to `values`: log decades around the positive ones (`log`), else linear from 0 (or the
/// lowest value when negative) to the highest plus 8 %, at least 1.
pub fn fitted(values: impl Iterator<Item = f64> + Clone, log: bool) -> Axis {
    let hi = values.clone().fold(0.0, f64::max);
    if log {
        let lo = values.filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
        return Axis::decades(log_range(lo, hi), false);
    }
    let lo = values.fold(0.0, f64::min);
    Axis::linear(lo, (hi * 1.08).max(1.0))
}

impl XyAxes {
    /// Axes fitted to every point of `curves` ([`fitted`]), each log or linear (`log`: x, y).
    pub fn around(curves: &[Curve], log: (bool, bool), x_desc: &str, y_desc: &str) -> XyAxes {
        let xs = curves.iter().flat_map(|c| c.points.iter().map(|p| p.0));
        let ys = curves.iter().flat_map(|c| c.points.iter().map(|p| p.1));
        XyAxes {
            x: fitted(xs, log.0),
            y: fitted(ys, log.1),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
        }
    }
}

/// The curves of a chart, drawn in order.
pub struct Curves<'a>(pub &'a [Curve]);

impl Curves<'_> {
    /// One legend row per curve.
    pub fn legend(&self) -> Vec<LegendEntry> {
        self.0
            .iter()
            .map(|c| {
                let swatch = match c.marked {
                    true => Swatch::Line(c.colour),
                    false => Swatch::Thin(c.colour),
                };
                LegendEntry::new(c.name.clone(), swatch)
            })
            .collect()
    }
}

impl super::Body for Curves<'_> {
    fn draw<Y>(&self, chart: &mut Plane<'_, '_, Y>) -> Result<(), String>
    where
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        for c in self.0 {
            let width = if c.marked { 2 } else { 1 };
            chart
                .draw_series(LineSeries::new(
                    c.points.clone(),
                    c.colour.stroke_width(width),
                ))
                .map_err(why)?;
            if c.ring > 0 {
                let r = i32::try_from(c.ring).unwrap_or(i32::MAX);
                let stroke = c.colour.stroke_width(2);
                chart
                    .draw_series(
                        c.points
                            .iter()
                            .map(|&p| EmptyElement::at(p) + Circle::new((0, 0), r, stroke)),
                    )
                    .map_err(why)?;
            }
            if c.marked {
                let fill = c.colour.filled();
                chart
                    .draw_series(
                        c.points.iter().map(|&p| {
                            EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], fill)
                        }),
                    )
                    .map_err(why)?;
            }
        }
        Ok(())
    }
}

/// A line chart of `curves` on `axes`, titled `title`, with `caption` for the page.
///
/// # Errors
/// [`PlotError`] from plotters.
pub fn xy_chart(
    title: &str,
    caption: String,
    axes: &XyAxes,
    curves: &[Curve],
) -> Result<Chart, PlotError> {
    let body = Curves(curves);
    Ok(Chart {
        title: title.to_string(),
        caption,
        svg: draw(title, &body.legend(), axes, &body)?,
    })
}

/// The SVG of `body` on `axes`, with `title` above and `legend` below.
pub(super) fn draw<B: super::Body>(
    title: &str,
    legend: &[LegendEntry],
    axes: &XyAxes,
    body: &B,
) -> Result<String, PlotError> {
    render(title, legend, |root| {
        let x_ticks = |v: &f64| axes.x.label(*v);
        plot_on(
            root,
            (&axes.x, &axes.y),
            (&axes.x_desc, &axes.y_desc),
            &x_ticks,
            true,
            body,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitted_axes_hold_every_value() {
        let a = fitted([3.0, 250.0].into_iter(), true);
        assert_eq!((a.lo, a.hi, a.log), (1.0, 1000.0, true));
        let b = fitted([3.0, 250.0].into_iter(), false);
        assert_eq!((b.lo, b.hi, b.log), (0.0, 270.0, false));
        let c = fitted(std::iter::empty(), false);
        assert_eq!((c.lo, c.hi), (0.0, 1.0));
    }

    #[test]
    fn each_marked_point_is_one_square() {
        let curves = [
            Curve::marked(
                "a",
                vec![(1.0, 1.0), (2.0, 4.0), (3.0, 9.0)],
                RGBColor(1, 2, 3),
            ),
            Curve::thin("mean", vec![(1.0, 5.0), (3.0, 5.0)], RGBColor(4, 5, 6)),
        ];
        let axes = XyAxes {
            x: Axis::linear(0.0, 4.0),
            y: Axis::linear(0.0, 10.0),
            x_desc: "x".into(),
            y_desc: "y".into(),
        };
        let c = xy_chart("t", "c".into(), &axes, &curves).expect("draws");
        assert_eq!(c.svg.matches("fill=\"#010203\"").count(), 3, "{}", c.svg);
    }
}
