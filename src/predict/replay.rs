//! The phases the fit replays before the fitted one (the fill, any other workload): their write rates as
//! measured and as the fitted drive ran them. The fit does not match them, so they are a free check: a
//! fill's rate (sequential writes of whole pages, several in flight) is set by dies / program time as the
//! fresh plateau is, and a fitted drive whose fill runs at another rate than the measured one has the
//! wrong dies / program time, whatever its plateau says.

use super::features::beyond;
use crate::results::model::Results;
use crate::vocab::PhaseKind;

/// The share by which a replayed phase's write rate may differ from the measured one before the fit warns.
/// Calibrated on the validation drives (docs/predict.md, `tests/it/predict_validation.rs`,
/// `the_fill_tolerance_is_just_above_the_fill_error_of_a_correct_fit`): a fitted drive with the true
/// drive's dies / program time (split as the fit splits them) and any collection policy and timing
/// variation the fit can choose runs the fill up to 4.0 % off the true drive's (8 dies at 3 ms with deferred
/// collection fitted as 4 dies at 1.5 ms with jitter 50 %); a wrong ratio moves it about as much as the
/// ratio is off. The tolerance is the next half percent above that largest error of a correct fit.
pub const RATE_TOLERANCE: f64 = 0.045;

/// A phase replayed before the fitted one that writes, and its write IOPS (`write.iops`: the phase's
/// writes over its duration).
#[derive(Debug, Clone, PartialEq)]
pub struct Rate {
    /// The phase's name.
    pub name: String,
    /// Its write IOPS.
    pub iops: f64,
}

/// The write rates of `r`'s phases before phase `i` that write (fills and workloads).
pub fn rates_before(r: &Results, i: usize) -> Vec<Rate> {
    r.phases[..i.min(r.phases.len())]
        .iter()
        .filter(|p| p.kind != PhaseKind::Erase && p.write.ops > 0)
        .map(|p| Rate {
            name: p.name.clone(),
            iops: p.write.iops,
        })
        .collect()
}

/// The rows of the fit's feature table for the replayed phases: each phase's name with ` (IOPS)`, its
/// measured rate (`measured`), the fitted drive's (`fitted`, of the same name; "-" when its run lacked
/// it) and the error.
pub fn table_rows(measured: &[Rate], fitted: &[Rate]) -> Vec<[String; 4]> {
    measured
        .iter()
        .map(|m| {
            let name = format!("{} (IOPS)", m.name);
            let x = format!("{:.0}", m.iops);
            match error(m, fitted) {
                Some((y, e)) => [name, x, format!("{y:.0}"), format!("{:+.1} %", e * 100.0)],
                None => [name, x, "-".into(), "-".into()],
            }
        })
        .collect()
}

/// The fitted rate of `m`'s phase in `fitted` and its relative error against `m`.
fn error(m: &Rate, fitted: &[Rate]) -> Option<(f64, f64)> {
    let y = fitted.iter().find(|f| f.name == m.name)?.iops;
    (m.iops > 0.0).then(|| (y, (y - m.iops) / m.iops))
}

/// Whether a replayed phase's rate is off by more than [`RATE_TOLERANCE`].
pub fn any_off(measured: &[Rate], fitted: &[Rate]) -> bool {
    measured
        .iter()
        .any(|m| error(m, fitted).is_some_and(|(_, e)| beyond(e, RATE_TOLERANCE)))
}

/// A warning for each replayed phase whose fitted rate is off by more than [`RATE_TOLERANCE`]: what it
/// means for the fitted drive and its predictions.
pub fn warnings(measured: &[Rate], fitted: &[Rate]) -> Vec<String> {
    measured
        .iter()
        .filter_map(|m| {
            let (y, e) = error(m, fitted).filter(|(_, e)| beyond(*e, RATE_TOLERANCE))?;
            Some(format!(
                "the fitted drive ran phase {:?} (replayed, not fitted) at {y:.0} write IOPS against the measured {:.0} ({:+.1} %, more than {:.1} %): its rate is set by dies / program time as the fresh plateau is, so the fitted dies / program_time are likely wrong, and the predictions at other spans and durations unreliable",
                m.name,
                m.iops,
                e * 100.0,
                RATE_TOLERANCE * 100.0
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_off_by_more_than_the_tolerance_is_warned_of() {
        let rate = |name: &str, iops: f64| Rate {
            name: name.into(),
            iops,
        };
        let measured = [rate("fill", 192.0), rate("warm", 1000.0)];
        let fitted = [rate("fill", 135.0), rate("warm", 1044.0)];
        // (135 - 192) / 192 = -29.6875 %; (1044 - 1000) / 1000 = +4.4 %, within 4.5 %.
        let row = |n: &str, x: &str, y: &str, e: &str| [n, x, y, e].map(String::from);
        assert_eq!(
            table_rows(&measured, &fitted),
            [
                row("fill (IOPS)", "192", "135", "-29.7 %"),
                row("warm (IOPS)", "1000", "1044", "+4.4 %")
            ]
        );
        assert!(any_off(&measured, &fitted));
        assert!(!any_off(&measured[1..], &fitted));
        assert!(any_off(&measured[1..], &[rate("warm", 1046.0)]));
        let w = warnings(&measured, &fitted);
        assert_eq!(w.len(), 1, "{w:?}");
        let w = &w[0];
        assert!(
            w.starts_with(
                "the fitted drive ran phase \"fill\" (replayed, not fitted) at 135 write IOPS against the measured 192 (-29.7 %, more than 4.5 %): "
            ),
            "{w}"
        );
        assert_eq!(
            table_rows(&measured[..1], &[]),
            [row("fill (IOPS)", "192", "-", "-")]
        );
    }
}
