//! Units a reader does not have to convert: a time axis in seconds, minutes or hours after the length it
//! shows, times in the same words, and latencies in the unit that keeps them short (`850 ns`, `71.2 µs`,
//! `114 ms`, `1.11 s`; never `113.83k µs`).

use super::{Axis, TickText, linear_ticks};

/// The unit of a time axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds: an axis up to 10 minutes.
    Seconds,
    /// Minutes: an axis past 10 minutes, up to 5 hours.
    Minutes,
    /// Hours: an axis past 5 hours.
    Hours,
}

/// Past this many seconds, times are in minutes.
pub const MINUTES_AFTER_S: f64 = 600.0;
/// Past this many seconds, times are in hours.
pub const HOURS_AFTER_S: f64 = 5.0 * 3600.0;

impl TimeUnit {
    /// The unit of an axis (or a time) reaching `end_s` seconds.
    pub fn of(end_s: f64) -> TimeUnit {
        if end_s > HOURS_AFTER_S {
            TimeUnit::Hours
        } else if end_s > MINUTES_AFTER_S {
            TimeUnit::Minutes
        } else {
            TimeUnit::Seconds
        }
    }

    /// Seconds in one unit.
    pub fn seconds(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1.0,
            TimeUnit::Minutes => 60.0,
            TimeUnit::Hours => 3600.0,
        }
    }

    /// Its symbol: `s`, `min`, `h`.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "min",
            TimeUnit::Hours => "h",
        }
    }
}

/// A number with at most three significant digits, trailing zeros dropped: `71.2`, `114`, `1.25`, `0.5`.
pub fn three_digits(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A time of `s` seconds in the unit [`TimeUnit::of`] gives it: `12.5 s`, `23.3 min`, `5.5 h`.
pub fn time_text(s: f64) -> String {
    let u = TimeUnit::of(s);
    format!("{} {}", three_digits(s / u.seconds()), u.symbol())
}

/// A time of `s` seconds in the unit `u` (that of a plot's axis): `263 s` on an axis in minutes is `4.38
/// min`, so that one legend never mixes units.
pub fn time_in(s: f64, u: TimeUnit) -> String {
    format!("{} {}", three_digits(s / u.seconds()), u.symbol())
}

/// A span of time from `from_s` to `to_s` seconds in the unit `u`: `1–3 s`, `23.3–33.3 min`.
pub fn span_in(from_s: f64, to_s: f64, u: TimeUnit) -> String {
    let k = u.seconds();
    format!(
        "{}–{} {}",
        three_digits(from_s / k),
        three_digits(to_s / k),
        u.symbol()
    )
}

/// A span of time from `from_s` to `to_s` seconds, both in the unit of `to_s`: `12–40 s`, `23.3–33.3 min`.
pub fn span_text(from_s: f64, to_s: f64) -> String {
    range_text(from_s, to_s, "–")
}

/// `from_s` and `to_s` seconds in the unit of `to_s`, joined by `sep`: `1400s..2000s` is `23.3..33.3 min`.
pub fn range_text(from_s: f64, to_s: f64, sep: &str) -> String {
    let u = TimeUnit::of(to_s);
    let k = u.seconds();
    format!(
        "{}{sep}{} {}",
        three_digits(from_s / k),
        three_digits(to_s / k),
        u.symbol()
    )
}

/// A latency of `us` microseconds in the unit that keeps it short: `850 ns`, `7.5 µs`, `71.2 µs`,
/// `1.25 ms`, `114 ms`, `1.11 s`.
pub fn latency_text(us: f64) -> String {
    let a = us.abs();
    if a == 0.0 {
        "0 µs".into()
    } else if a < 1.0 {
        format!("{} ns", three_digits(us * 1e3))
    } else if a < 1e3 {
        format!("{} µs", three_digits(us))
    } else if a < 1e6 {
        format!("{} ms", three_digits(us / 1e3))
    } else {
        format!("{} s", three_digits(us / 1e6))
    }
}

/// A linear time axis from `lo_s` to `hi_s` seconds in the unit of `hi_s` ([`TimeUnit::of`]): about eight
/// ticks at round numbers of that unit (placed in seconds, labelled in the unit).
pub fn time_axis(lo_s: f64, hi_s: f64) -> (Axis, TimeUnit) {
    let u = TimeUnit::of(hi_s);
    let k = u.seconds();
    let ticks: Vec<f64> = linear_ticks(lo_s / k, hi_s / k)
        .into_iter()
        .map(|t| t * k)
        .collect();
    let light = ticks.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    let axis = Axis {
        ticks,
        light,
        text: TickText::Time(u),
        ..Axis::linear(lo_s, hi_s)
    };
    (axis, u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_phases_are_drawn_in_minutes_or_hours() {
        assert_eq!(TimeUnit::of(600.0), TimeUnit::Seconds);
        assert_eq!(TimeUnit::of(600.1), TimeUnit::Minutes);
        assert_eq!(TimeUnit::of(18_000.0), TimeUnit::Minutes);
        assert_eq!(TimeUnit::of(18_001.0), TimeUnit::Hours);
        // A 2000 s phase (seed 000): minutes, a tick every 5.
        let (a, u) = time_axis(0.0, 2040.0);
        assert_eq!(u, TimeUnit::Minutes);
        assert_eq!(a.ticks, [0.0, 300.0, 600.0, 900.0, 1200.0, 1500.0, 1800.0]);
        let labels: Vec<String> = a
            .ticks
            .iter()
            .map(|t| super::super::short_number(t / 60.0))
            .collect();
        assert_eq!(labels, ["0", "5", "10", "15", "20", "25", "30"]);
        // 500 minutes (seed 003): hours.
        let (a, u) = time_axis(0.0, 30_600.0);
        assert_eq!(u, TimeUnit::Hours);
        assert_eq!(a.ticks.last(), Some(&(8.0 * 3600.0)));
        // 60 s stays in seconds.
        assert_eq!(time_axis(0.0, 61.2).0.ticks, Axis::linear(0.0, 61.2).ticks);
        assert_eq!(time_text(1400.0), "23.3 min");
        assert_eq!(time_text(12.0), "12 s");
        assert_eq!(time_text(19_800.0), "5.5 h");
        assert_eq!(span_text(1.0, 3.0), "1–3 s");
        assert_eq!(span_text(590.0, 640.0), "9.83–10.7 min");
    }

    #[test]
    fn latency_takes_the_unit_that_keeps_it_short() {
        let cases = [
            (0.85, "850 ns"),
            (7.5, "7.5 µs"),
            (71.24, "71.2 µs"),
            (999.4, "999 µs"),
            (1_250.0, "1.25 ms"),
            (113_830.0, "114 ms"),
            (1_110_000.0, "1.11 s"),
            (0.0, "0 µs"),
        ];
        for (us, want) in cases {
            assert_eq!(latency_text(us), want, "{us} µs");
        }
    }
}
