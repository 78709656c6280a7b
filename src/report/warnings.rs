//! `wkrun warnings RESULTS`: the warnings of a run's phases, each whole, with the phase it is of. The
//! console says a warning on one line of at most 200 bytes (`run::observer::warning_line`), cut where it is
//! longer; results.json keeps it whole, and this prints it so without opening the JSON (trial 13 F3).

use crate::results::Results;

/// Each warning of each phase of `r`, whole, in the phases' order and each phase's: `phase N "NAME":
/// TEXT`, one line each, control characters escaped ([`crate::text::escaped`]); the empty string for
/// results without warnings.
pub fn text(r: &Results) -> String {
    let mut out = String::new();
    for p in &r.phases {
        for w in &p.warnings {
            out.push_str(&format!(
                "phase {} \"{}\": {}\n",
                p.index,
                crate::text::escaped(&p.name),
                crate::text::escaped(w)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;

    #[test]
    fn each_warning_is_said_whole_after_its_phase() {
        let mut a = testing::phase("fill", 0);
        a.warnings = vec!["x".repeat(300)];
        let mut b = testing::phase("r\tead", 1);
        b.warnings = vec!["one".into(), "two: a\nline".into()];
        let r = testing::results(
            "s",
            "2026-01-01T00:00:00.000Z",
            "t.img",
            crate::target::TargetKind::File,
            vec![a, testing::phase("quiet", 2), b],
        );
        assert_eq!(
            text(&r),
            format!(
                "phase 0 \"fill\": {}\nphase 1 \"r\\tead\": one\nphase 1 \"r\\tead\": two: a\\nline\n",
                "x".repeat(300)
            )
        );
    }
}
