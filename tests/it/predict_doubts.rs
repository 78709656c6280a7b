//! What a fit cannot vouch for (issue 30 leftovers, session 15): a fitted plateau off the measured one by
//! more than a fit with the right parameters shows (the timing variation likely off), a collection policy
//! the spread could not tell apart, both said on stderr and recorded in a prediction's
//! `prediction.fit_warnings`; and a steady level of 0, refused before the search.

use crate::common::*;
use crate::predict_validation::plateau_of;
use std::path::Path;

/// Purge, a 128 KiB fill at QD4, then `duration` of 4 KiB random writes at QD32 at rows of `interval`.
fn wsat(duration: &str, interval: &str) -> String {
    format!(
        "format = 1\n[spec]\nname = \"wsat\"\nversion = \"1\"\n[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"{duration}\"\ninterval = \"{interval}\"\n"
    )
}

/// Runs `spec` on `target` in `dir` into `out`; asserts it succeeds.
fn measure(dir: &Path, spec: &str, target: &str, out: &str) {
    write_file(dir, "spec.toml", spec);
    let (code, _, err) = code_out_err(&wkrun(
        dir,
        &["spec.toml", "--target", target, "-q", "-o", out],
    ));
    assert_eq!(code, 0, "{err}");
}

/// A drive without timing variation (jitter 0 %) whose collection is deferred at a 90 % background pace,
/// fitted from a minute at 1 s rows: the spread step keeps paced collection with jitter 50 % (a steady
/// window's spread alike: 0.071 against the measured 0.067), whose plateau is 7.5 % above the measured
/// one, past the 2.0 % of a fit with the right parameters. The fit says so in a warning naming jitter and
/// lists jitter as not pinned; the prediction records the warning. Paced is nearer the measured spread
/// than deferred by less than the kept drive's spread moves at 2 dies (the ratio kept), so the fit also
/// says the collection policies were not told apart, gc and gc_pace not pinned: the truth's is deferred. (Until each phase had its own op
/// stream, trial 23, a paced drive at jitter 0 % showed this: its random writes replayed the fill's
/// offsets, and the fit's plateau was 7.2 % off; with their own stream it is 0.9 % off, not warned.)
#[test]
fn a_fitted_plateau_far_off_the_measured_one_is_warned_of_and_recorded() {
    let dir = tempdir();
    let d = dir.path();
    let spec = wsat("60s", "1s");
    let truth = "sim:capacity=64MiB,op=20%,block=256KiB,dies=1,program_time=3200us,gc=deferred,gc_pace=90%,jitter=0%";
    measure(d, &spec, truth, "short");
    let (code, _, err) = code_out_err(&wkrun(
        d,
        &["sim", "predict", "short", "spec.toml", "-o", "predicted"],
    ));
    assert_eq!(code, 0, "{err}");
    // The measured plateau and the fitted drive's (its run of the same spec is the prediction),
    // recomputed from the series.
    let (x, y) = (
        plateau_of(&d.join("short")),
        plateau_of(&d.join("predicted")),
    );
    assert_eq!((x, y), (1341.0, 1441.0));
    assert!(
        err.contains("\nfit:   fresh plateau (IOPS)       1341       1441    +7.5 %\n"),
        "{err}"
    );
    let plateau = "the fitted drive's fresh plateau is +7.5 % off the measured one (1341 IOPS measured, the drive's 1441), more than the 2.0 % of a fit with the right parameters: the plateau is compared, not matched (dies / program_time are fitted to the rate of the fill \"fill\"), so the timing variation the spread chose, jitter = 50%, is likely off (its plateau and cliff are the highest and the first intervals, which jitter moves), and with it the fitted drive's plateau, cliff and worst seconds; jitter is not pinned by the data";
    assert!(err.contains(&format!("\nwarning: {plateau}\n")), "{err}");
    // docs/predict.md quotes it.
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/predict.md"))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    let quoted = "a 64 MiB drive without jitter whose collection is deferred at a 90 % pace, fitted as paced with jitter 50 %, warns at +7.5 %";
    assert!(doc.contains(quoted), "docs/predict.md lacks: {quoted}");
    for line in [
        "fit: pinned by the data: op = 19.726563% (to a superblock, 0.39 points), dies / program_time (the rate of the fill \"fill\"), nothing else",
        "fit: not pinned by the data: gc and gc_pace (gc = paced (the default) kept: the collection policies tried were not told apart by the spread, see the warning)",
        "fit: not pinned by the data: jitter = 50% (the fresh plateau is +7.5 % off, more than the 2.0 % of a fit with the right parameters: likely off, see the warning)",
    ] {
        assert!(err.lines().any(|l| l == line), "{line}\n{err}");
    }
    let (_, r) = strict_results(&d.join("predicted"));
    let p = &r["prediction"];
    assert_eq!(
        p["fitted_target"],
        "sim:capacity=64MiB,op=19.726563%,block=256KiB,dies=1,program_time=3090us,jitter=50%"
    );
    let recorded: Vec<&str> = p["fit_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    // The plateau's warning, the one of a plateau of 3 intervals (fewer than the 5 its median needs), and
    // the one of the policies not told apart, the dies moving the spread more than their margin.
    assert_eq!(recorded.len(), 3, "{recorded:?}");
    let untold = "the kept gc = paced is nearer it than deferred at 0% pace by 0.002, no more than the 0.037 by which the kept drive's spread moves with the dies alone (2 dies at 6380us, op = 22.265625%: 0.106 against 0.069)";
    assert!(
        recorded.iter().any(|w| w
            .starts_with("the collection policy and its pace could not be told apart")
            && w.contains(untold)),
        "{recorded:?}"
    );
    assert!(recorded.contains(&plateau), "{recorded:?}");
    assert!(
        recorded
            .iter()
            .any(|w| w.contains("fresh plateau lasts 3 interval(s) of 1s")),
        "{recorded:?}"
    );
}

/// A drive fitted with its own timing variation and collection (the default jitter 30 %, paced) at 100 ms
/// rows: its plateau 1.6 % off, within the tolerance; no warning, and gc and jitter pinned.
#[test]
fn a_fitted_plateau_within_the_tolerance_is_not_warned_of() {
    let dir = tempdir();
    let d = dir.path();
    measure(
        d,
        &wsat("60s", "100ms"),
        "sim:capacity=64MiB,op=7%,block=256KiB",
        "short",
    );
    let (code, out, err) = code_out_err(&wkrun(d, &["sim", "fit", "short"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().last().unwrap(),
        "sim:capacity=64MiB,op=6.835938%,block=256KiB,dies=1,program_time=1604us"
    );
    assert_eq!(plateau_of(&d.join("short")), 2560.0);
    assert!(
        err.contains("\nfit:   fresh plateau (IOPS)       2560       2600    +1.6 %\n"),
        "{err}"
    );
    assert!(!err.contains("warning:"), "{err}");
    assert!(
        err.contains("\nfit: pinned by the data: op = 6.835938% (to a superblock, 0.39 points), dies / program_time (the rate of the fill \"fill\"), gc = paced (the default) and jitter = 30% (the default), by the spread among the few tried\n"),
        "{err}"
    );
}

/// Issue 30 leftover: a drive whose erases (1 s) outlast the last quarter of the phase completes no write
/// there: its steady level is 0. The fit took ln(0) for its spare area and called the level matched
/// ("steady level 0 / 48, +0.0 %") and the spare area pinned; it is refused before the search, naming the
/// phase and the figure, with no simulated run (the scratch folder under TMPDIR never made).
#[test]
fn a_steady_level_of_zero_is_refused_before_the_search() {
    let dir = tempdir();
    let d = dir.path();
    measure(
        d,
        &wsat("1s", "10ms"),
        "sim:capacity=256MiB,op=1%,block=256KiB,program_time=3200us,erase_time=1s",
        "short",
    );
    let r = results(&d.join("short"));
    let rows = csv_rows(
        &d.join("short")
            .join(r["phases"][2]["series_csv"].as_str().unwrap()),
    );
    let iops: Vec<f64> = rows
        .iter()
        .filter(|x| x["partial"] == "0")
        .map(|x| f(x, "write_iops"))
        .collect();
    // 100 rows of 10 ms: the last quarter, from 0.75 s, holds no write; the first rows do.
    assert_eq!(iops.len(), 100);
    assert!(
        iops[75..].iter().all(|&x| x == 0.0) && iops[0] > 0.0,
        "{iops:?}"
    );
    let scratch = tempdir();
    let o = std::process::Command::new(wkrun_bin())
        .args(["sim", "fit", "short"])
        .current_dir(d)
        .env("TMPDIR", scratch.path())
        .output()
        .unwrap();
    let (code, out, err) = code_out_err(&o);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}: phase \"wsat\"'s steady level, the mean write IOPS of its last quarter (its last 25 intervals, from 0.75 s), is 0: no write completed there, so no write amplification can be measured and no spare area fitted (the fit takes the steady level over the fill's rate); a drive that stalls for that long (a garbage collection or erase longer than the quarter, a hung device) is not one the model has: run the random writes longer, so that writes complete in the last quarter, and fit that run\n",
            Path::new("short").join("results.json").display()
        )
    );
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
}
