//! What the earlier phases of a run wrote, for case C10: reads of never-written or trimmed space are not the
//! drive's speed, so a workload reading where no earlier phase wrote gets a warning.

use crate::plan::ByteRange;

/// The byte ranges written by the phases so far (fills and restores that visit every block; erases remove).
#[derive(Debug, Default)]
pub struct Written {
    ranges: Vec<(u64, u64)>,
}

impl Written {
    /// `[a, b)` was written.
    pub fn add(&mut self, a: u64, b: u64) {
        self.ranges.push((a, b));
    }

    /// `[a, b)` was erased: ranges straddling it keep their parts on either side.
    pub fn erase(&mut self, a: u64, b: u64) {
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        for &(s, e) in &self.ranges {
            if s < a {
                out.push((s, e.min(a)));
            }
            if e > b {
                out.push((s.max(b), e));
            }
        }
        self.ranges = out;
    }

    /// The parts of `[a, b)` that no written range covers, in order.
    pub fn uncovered(&self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut v = self.ranges.clone();
        v.sort_unstable();
        let mut gaps = Vec::new();
        let mut reach = a;
        for (s, e) in v {
            if s > reach && reach < b {
                gaps.push((reach, s.min(b)));
            }
            reach = reach.max(e);
        }
        if reach < b {
            gaps.push((reach, b));
        }
        gaps
    }

    /// The warning for a workload reading `span`, when 1 % or more of it was not written by an earlier phase
    /// (a sliver left by rounding is not worth one).
    pub fn read_warning(&self, span: ByteRange) -> Option<String> {
        let (start, end) = (span.start, span.end());
        let gaps = self.uncovered(start, end);
        let missing: u64 = gaps.iter().map(|(a, b)| b - a).sum();
        if missing == 0 || (missing as u128 * 100) < span.len as u128 {
            return None;
        }
        Some(format!(
            "{missing} B ({:.1} %) of the read span [{start}, {end}) were not written by an earlier phase of this run, first [{}, {}): a drive can answer reads of never-written or trimmed blocks without touching flash, so these read numbers may not be the drive's; precondition with a fill",
            missing as f64 * 100.0 / span.len as f64,
            gaps[0].0,
            gaps[0].1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erase_splits_and_uncovered_lists_the_gaps() {
        let mut w = Written::default();
        w.add(0, 100);
        w.add(200, 300);
        w.erase(50, 250);
        assert_eq!(w.ranges, vec![(0, 50), (250, 300)]);
        assert_eq!(w.uncovered(0, 400), vec![(50, 250), (300, 400)]);
        assert_eq!(w.uncovered(0, 50), Vec::<(u64, u64)>::new());
    }

    #[test]
    fn the_warning_needs_one_percent_unwritten() {
        let mut w = Written::default();
        w.add(0, 9_950);
        // 50 of 10000 bytes (0.5 %): no warning; 100 bytes (1 %): a warning naming the first gap.
        assert_eq!(
            w.read_warning(ByteRange {
                start: 0,
                len: 10_000
            }),
            None
        );
        let mut w = Written::default();
        w.add(0, 9_900);
        let text = w
            .read_warning(ByteRange {
                start: 0,
                len: 10_000,
            })
            .unwrap_or_default();
        assert!(
            text.starts_with("100 B (1.0 %) of the read span [0, 10000)"),
            "{text}"
        );
        assert!(text.contains("first [9900, 10000)"), "{text}");
    }
}
