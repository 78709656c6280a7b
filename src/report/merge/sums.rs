//! Whether the runs to merge can be added: the times of their series rows are times (finite, not negative),
//! and every count that the merge adds (ops, bytes, errors,
//! histogram buckets, series rows, CPUs, capacities) must fit in 64 bits over all the runs together. Results
//! that wkrun wrote are far below that; a results file edited or corrupted (`"bytes": 18446744073709551615`)
//! is refused here, naming the file and the field, before any sum is made.

use crate::report::runs::RunData;
use crate::results::PhaseResult;

/// Adds `v` to `total`, or names the field of `run` that passes 64 bits.
fn add(total: &mut u64, v: u64, run: &RunData, field: &dyn Fn() -> String) -> Result<(), String> {
    *total = total.checked_add(v).ok_or_else(|| {
        format!(
            "{}: {} = {v}: with the other counts of the runs merged it adds up past {} (64 bits); the results were edited or are corrupt",
            run.file.display(),
            field(),
            u64::MAX
        )
    })?;
    Ok(())
}

/// The counts of phase `i` of a run that a merge adds, each with its field.
fn phase_counts(i: usize, p: &PhaseResult) -> Vec<(String, u64)> {
    let at = |f: &str| format!("phases[{i}].{f}");
    let mut out = vec![
        (at("read.ops"), p.read.ops),
        (at("read.bytes"), p.read.bytes),
        (at("write.ops"), p.write.ops),
        (at("write.bytes"), p.write.bytes),
        (at("total.ops"), p.total.ops),
        (at("total.bytes"), p.total.bytes),
        (at("params.span_bytes"), p.params.range_bytes()),
    ];
    out.extend(p.erased_bytes.map(|b| (at("erased_bytes"), b)));
    if let Some(w) = p.params.steady_after.and_then(|s| s.written_bytes) {
        out.push((at("params.steady_after"), w));
    }
    out.extend(p.ops_by_size.iter().map(|s| (at("ops_by_size"), s.ops)));
    if let Some(e) = &p.errors {
        out.extend([
            (at("errors.total"), e.total),
            (at("errors.read"), e.read),
            (at("errors.write"), e.write),
        ]);
        out.extend(e.by_cause.iter().map(|c| (at("errors.by_cause"), c.count)));
    }
    if let Some(h) = &p.latency_histograms {
        for [_, c] in h.read.iter().chain(&h.write).chain(&h.trim).chain(&h.flush) {
            out.push((at("latency_histograms"), *c));
        }
    }
    out
}

/// Refuses runs whose counts, added over all of them, pass 64 bits, or a series row whose time is not finite
/// or is negative.
///
/// # Errors
/// The first file and field whose count makes a sum pass 64 bits, or whose time is not one.
pub fn check(runs: &[RunData]) -> Result<(), String> {
    let mut total = 0u64;
    for r in runs {
        let res = &r.results;
        add(&mut total, u64::from(res.host.cpus), r, &|| {
            "host.cpus".into()
        })?;
        add(&mut total, res.target.capacity_bytes, r, &|| {
            "target.capacity_bytes".into()
        })?;
        for (i, p) in res.phases.iter().enumerate() {
            for (field, v) in phase_counts(i, p) {
                add(&mut total, v, r, &|| field.clone())?;
            }
        }
        for (i, rows) in r.series.iter().enumerate() {
            let csv = res.phases.get(i).and_then(|p| p.series_csv.as_deref());
            let csv = r.file.with_file_name(csv.unwrap_or_default());
            for (k, row) in rows.iter().flatten().enumerate() {
                let field = || format!("phases[{i}] series row {}", k + 1);
                if let Some((name, v)) = [("t_s", row.t_s), ("interval_s", row.interval_s)]
                    .into_iter()
                    .find(|(_, v)| !v.is_finite() || *v < 0.0)
                {
                    return Err(format!(
                        "{}: line {}: {name} = {v:e} is not a time in s from the phase's start; the series was edited or is corrupt",
                        csv.display(),
                        k + 2
                    ));
                }
                let ops = row.by_dir.0.iter().map(|d| d.ops);
                let bytes = row.by_dir.0.iter().map(|d| d.bytes);
                for v in ops.chain(bytes).chain([row.errors]) {
                    add(&mut total, v, r, &field)?;
                }
            }
        }
    }
    Ok(())
}
