//! A phase's flushes in the report (`phases[].sync.flushes`: `fsync` or `fdatasync` after every N writes of
//! each worker), like fio's `sync` latency block: one row per run whose phase flushed, with the call, the
//! writes per flush, the count and the mean, p99 and max latency. Numbers are read, never recomputed.

use super::html::{esc, swatch};
use super::runs::RunData;
use std::fmt::Write;

/// The flushes' table of the runs' phases `members` (run, phase); empty when none flushed.
pub fn flush_table(runs: &[RunData], members: &[(usize, usize)]) -> String {
    let mut rows = String::new();
    for &(r, p) in members {
        let ph = runs[r].phase(p).0;
        let Some(f) = ph.sync.as_ref().and_then(|s| s.flushes.as_ref()) else {
            continue;
        };
        let _ = write!(
            rows,
            "<tr><td class=\"l\">{}{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>",
            swatch(r),
            esc(&runs[r].label),
            esc(&f.call),
            f.every_writes,
            f.ops
        );
        match &f.latency_ns {
            Some(l) => {
                for v in [l.mean, l.p99 as f64, l.max as f64] {
                    let _ = write!(rows, "<td>{:.1}</td>", v / 1e3);
                }
            }
            None => rows.push_str("<td>–</td><td>–</td><td>–</td>"),
        }
        rows.push_str("</tr>");
    }
    if rows.is_empty() {
        return rows;
    }
    format!(
        "<div class=\"scroll\"><table class=\"flushes\"><thead><tr><th class=\"l\">run (flushes)</th>\
<th class=\"l\">call</th><th>writes per flush</th><th>flushes</th><th>mean (µs)</th><th>p99 (µs)</th>\
<th>max (µs)</th></tr></thead><tbody>{rows}</tbody></table></div>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::{FlushResult, SyncResult};

    #[test]
    fn a_row_per_run_that_flushed_with_its_count_and_latencies() {
        let mut flushed = testing::phase("w", 0);
        flushed.sync = Some(SyncResult {
            write_flag: None,
            flagged_writes: 0,
            flushes: Some(FlushResult {
                call: "fdatasync".into(),
                every_writes: 4,
                ops: 250,
                latency_ns: Some(testing::latency(1000, 2500, 3000, 7300, 9000, 12_000)),
            }),
        });
        let runs = [
            testing::run("a", "/x", vec![(flushed, None)]),
            testing::run("b", "/y", vec![(testing::phase("w", 0), None)]),
        ];
        let t = flush_table(&runs, &[(0, 0), (1, 0)]);
        // Mean 2.5 µs, p99 7.3 µs, max 24 µs (the testing latency's max is twice its p99.99).
        assert!(
            t.contains(
                "fdatasync</td><td>4</td><td>250</td><td>2.5</td><td>7.3</td><td>24.0</td></tr>"
            ),
            "{t}"
        );
        assert_eq!(t.matches("<tr><td").count(), 1, "{t}");
        assert_eq!(flush_table(&runs, &[(1, 0)]), "");
    }
}
