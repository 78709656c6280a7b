//! A phase's host and device counters in the report: one row per run whose phase has them
//! (`phases[].cpu`, `phases[].kernel`, `phases[].health`): wkrun's CPU time (user and system, µs per I/O,
//! CPUs busy), and on a block device its utilisation and average wait as the kernel counts them, and on an
//! NVMe drive with the OCP page its write amplification. Numbers are read, never recomputed.

use super::html::{esc, swatch};
use super::runs::RunData;
use std::fmt::Write;

/// The counters' table of the runs' phases `members` (run, phase); empty when none has them.
pub fn counters_table(runs: &[RunData], members: &[(usize, usize)]) -> String {
    let mut rows = String::new();
    for &(r, p) in members {
        let ph = runs[r].phase(p).0;
        let Some(c) = ph.cpu.as_ref() else {
            continue;
        };
        let dash = || "–".to_string();
        let k = ph.kernel.as_ref();
        let waf = ph.health.as_ref().and_then(|h| h.write_amplification);
        let _ = write!(
            rows,
            "<tr><td class=\"l\">{}{}</td><td>{:.3}</td><td>{:.3}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td>\
<td>{}</td><td>{}</td><td>{}</td></tr>",
            swatch(r),
            esc(&runs[r].label),
            c.user_s,
            c.system_s,
            c.user_us_per_io,
            c.system_us_per_io,
            c.cpus_busy,
            k.map_or_else(dash, |k| format!("{:.1}", k.utilisation * 100.0)),
            k.and_then(|k| k.await_ms)
                .map_or_else(dash, |a| format!("{a:.3}")),
            waf.map_or_else(dash, |w| format!("{w:.3}")),
        );
    }
    if rows.is_empty() {
        return rows;
    }
    format!(
        "<div class=\"scroll\"><table class=\"counters\"><thead><tr><th class=\"l\">run (host and device)</th>\
<th>CPU user (s)</th><th>CPU system (s)</th><th>user µs/I/O</th><th>system µs/I/O</th><th>CPUs busy</th>\
<th>device util (%)</th><th>device await (ms)</th><th>drive write amplification</th></tr></thead><tbody>{rows}\
</tbody></table></div>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::testing;
    use crate::results::{CpuResult, KernelResult};
    use crate::stats::kernel::DiskStat;

    #[test]
    fn a_row_per_run_with_counters_and_dashes_where_the_device_has_none() {
        let mut on_block = testing::phase("w", 0);
        on_block.cpu = Some(CpuResult::new(
            (1_500_000_000, 500_000_000),
            1_000_000,
            4_000_000_000,
        ));
        let d = DiskStat::parse("600000 0 4800000 300000 400000 0 3200000 500000 0 3000 800000")
            .expect("stat");
        on_block.kernel = Some(KernelResult::new("loop3".into(), &d, 4_000_000_000, 8));
        let mut on_file = testing::phase("w", 0);
        on_file.cpu = Some(CpuResult::new(
            (250_000_000, 750_000_000),
            500_000,
            2_000_000_000,
        ));
        let runs = [
            testing::run("a", "/dev/loop3", vec![(on_block, None)]),
            testing::run("b", "/x", vec![(on_file, None)]),
            testing::run("c", "/y", vec![(testing::phase("w", 0), None)]),
        ];
        let t = counters_table(&runs, &[(0, 0), (1, 0), (2, 0)]);
        // 1.5 s user and 0.5 s system over 10^6 I/Os in 4 s; 3000 ms busy of 4000; 800000 ms over 10^6 I/Os.
        assert!(
            t.contains(&format!(
                "<tr><td class=\"l\">{}a</td><td>1.500</td><td>0.500</td><td>1.50</td><td>0.50</td><td>0.50</td><td>75.0</td><td>0.800</td><td>–</td></tr>",
                swatch(0)
            )),
            "{t}"
        );
        assert!(
            t.contains(&format!(
                "<tr><td class=\"l\">{}b</td><td>0.250</td><td>0.750</td><td>0.50</td><td>1.50</td><td>0.50</td><td>–</td><td>–</td><td>–</td></tr>",
                swatch(1)
            )),
            "{t}"
        );
        assert!(!t.contains(&format!("{}c<", swatch(2))), "{t}");
        assert_eq!(counters_table(&runs, &[(2, 0)]), "");
    }
}
