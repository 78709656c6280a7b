//! `wkrun sim fit` and `wkrun sim predict` (issue 30): a fit of a simulated drive it is not told about
//! recovers the drive's spare area within 2 points and its steady IOPS within 5 %; each refusal exits 2
//! with its reason; a prediction is labelled with its source. Steady levels are recomputed here from the
//! series CSVs (write_ops / interval_s of whole seconds), not taken from wkrun.

use crate::common::*;
use std::path::Path;

/// Purge, sequential fill, then `duration` of 4 KiB random writes at QD32 (the start of
/// specs/write-saturation.toml).
fn wsat(pattern: &str, duration: &str) -> String {
    format!(
        "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"{pattern}\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"{duration}\"\n"
    )
}

/// The drive the fit is not told about: 256 MiB, 20 % spare, one die, 3.2 ms programs (paced collection,
/// the default 30 % jitter): its fresh plateau lasts about 10 s, its steady level is a fifth of it.
const TRUTH: &str = "sim:capacity=256MiB,op=20%,dies=1,program_time=3200us";

/// Runs `body` on `target` into `dir/name`.
fn run_into(dir: &Path, name: &str, body: &str, target: &str) -> std::path::PathBuf {
    let sub = dir.join(name);
    std::fs::create_dir_all(&sub).unwrap();
    run_ok(&sub, name, body, Path::new(target))
}

/// Mean write IOPS of the last quarter of phase `wsat`'s whole seconds, from its series CSV.
fn steady(out: &Path) -> f64 {
    let (_, r) = strict_results(out);
    let p = &r["phases"][2];
    assert_eq!(p["name"], "wsat");
    let rows = csv_rows(&out.join(p["series_csv"].as_str().unwrap()));
    let iops: Vec<f64> = rows
        .iter()
        .filter(|x| x["partial"] == "0")
        .map(|x| x["write_ops"].parse::<f64>().unwrap() / x["interval_s"].parse::<f64>().unwrap())
        .collect();
    let last = &iops[iops.len() - iops.len() / 4..];
    last.iter().sum::<f64>() / last.len() as f64
}

/// The fit's account's line of what the data pinned.
fn pinned_line(err: &str) -> &str {
    err.lines()
        .find(|l| l.starts_with("fit: pinned by the data: "))
        .unwrap()
}

fn fit(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["sim", "fit"];
    all.extend_from_slice(args);
    code_out_err(&wkrun(dir, &all))
}

#[test]
fn fit_recovers_spare_area_and_steady_level_of_an_unknown_drive() {
    let dir = tempdir();
    let body = wsat("random", "600s");
    let truth = run_into(dir.path(), "truth", &body, TRUTH);
    let (code, out, err) = fit(dir.path(), &[truth.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let target = out.lines().last().unwrap();
    assert!(target.starts_with("sim:"), "{out}");
    for what in [
        "steady level (IOPS)",
        "not pinned by the data",
        "fresh plateau",
    ] {
        assert!(err.contains(what), "{what} missing from stderr: {err}");
    }
    let p = wkrun::sim::SimParams::parse_target(target).unwrap();
    // The target printed is the drive's name (attack 24c F15: the program time once came after the name
    // and was left out of it): every parameter off its default, each once, in the name's order.
    let named = wkrun::sim::SimTarget::new(p.clone()).unwrap().name();
    assert_eq!(target, named);
    assert_eq!(target.matches("program_time=").count(), 1, "{target}");
    let op = p.op.0 as f64 / 1e6;
    assert!((op - 20.0).abs() <= 2.0, "fitted op {op} %, true 20 %");
    let fitted = run_into(dir.path(), "fitted", &body, target);
    let (a, b) = (steady(&truth), steady(&fitted));
    assert!(
        (b - a).abs() <= 0.05 * a,
        "steady IOPS: true {a:.0}, fitted {b:.0} ({target})"
    );
}

#[test]
fn fit_refuses_results_without_random_writes_or_cliff_or_with_another_capacity() {
    let dir = tempdir();
    let seq = run_into(dir.path(), "seq", &wsat("sequential", "60s"), TRUTH);
    let (code, _, err) = fit(dir.path(), &[seq.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}/results.json: no random-write phase (a workload with pattern = \"random\", read_percent = 0 and a duration): the fit needs one that runs past the write cliff, after an erase and a fill, as specs/consistency.toml's random-write phase does\n",
            seq.display()
        )
    );
    // No fill: what to add, and where to see it done.
    let nofill = wsat("random", "60s").replace(
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n",
        "",
    );
    let nofill = run_into(dir.path(), "nofill", &nofill, TRUTH);
    let (code, _, err) = fit(dir.path(), &[nofill.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}/results.json: no fill before phase \"wsat\": the fit needs a known state (an erase, then a sequential fill of the span); put a fill (kind = \"fill\") after an erase and before the random writes, as specs/consistency.toml does\n",
            nofill.display()
        )
    );
    // Three times the capacity in spare: 60 s of random writes never run out of erased flash.
    let roomy = "sim:capacity=256MiB,op=300%,dies=1,program_time=3200us";
    let fresh = run_into(dir.path(), "fresh", &wsat("random", "60s"), roomy);
    let (code, _, err) = fit(dir.path(), &[fresh.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("never reached its write cliff"), "{err}");
    // Its level is its plateau's: no drop is said, not a half-way between them that cannot be.
    assert!(
        err.contains(" IOPS against a fresh plateau of ")
            && err.contains(": no drop below 80 % of it)"),
        "{err}"
    );
    assert!(!err.contains("half-way"), "{err}");
    assert!(
        err.contains("spare area is unknown. On an SSD, run the random writes longer"),
        "{err}"
    );
    // Newcomer trial 38: a loop device backed by a file was told to run longer; a file has no cliff.
    assert!(
        err.ends_with("; a target without garbage collection (a file, a loop device backed by a file, a RAM disk) has no cliff however long it runs, and no simulated drive fits it\n"),
        "{err}"
    );
    let (code, _, err) = fit(dir.path(), &[fresh.to_str().unwrap(), "--capacity", "1GiB"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "--capacity 1073741824 B disagrees with the results, whose target has 268435456 B"
        ),
        "{err}"
    );
    let (code, _, err) = fit(dir.path(), &[fresh.to_str().unwrap(), "--phase", "fill"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--phase fill: not a random-write phase"),
        "{err}"
    );
}

#[test]
fn a_prediction_is_labelled_with_its_source_and_target() {
    let dir = tempdir();
    let measured = run_into(dir.path(), "m", &wsat("random", "60s"), TRUTH);
    write_file(
        dir.path(),
        "long.toml",
        &spec_text("long", &wsat("random", "90s")),
    );
    let target = "sim:capacity=256MiB,op=19.5%,dies=1,program_time=3185us";
    let o = wkrun(
        dir.path(),
        &[
            "sim",
            "predict",
            measured.to_str().unwrap(),
            "long.toml",
            "--fitted",
            target,
            "-o",
            "pred",
            "--set",
            "duration=80s",
        ],
    );
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    // The run's `--set` line and notes are passed on (newcomer 30c: the child was -q, so nothing showed).
    assert_eq!(
        err,
        format!(
            "--set duration=80s: phase wsat\nnote: {target} runs in virtual time on its own engine: the phases' engine and direct settings do not apply\n"
        )
    );
    assert_eq!(out.lines().next(), Some("results: pred"));
    assert!(
        out.contains("\ndone: pred/results.json\nnext: wkrun report "),
        "{out}"
    );
    let (r, _) = strict_results(&dir.path().join("pred"));
    let p = r.prediction.expect("prediction");
    assert_eq!(p.fitted_target, target);
    assert_eq!(
        p.measured,
        measured.join("results.json").display().to_string()
    );
    // The label names the drive as the target given, which is its name (attack 24c F15: the label's
    // target had no program time, so it named another drive).
    assert_eq!(
        r.label.as_deref(),
        Some(format!("predicted: {target}").as_str())
    );
    assert_eq!(r.target.path.display().to_string(), target);
    let (code, _, err) = code_out_err(&wkrun(
        dir.path(),
        &[
            "sim",
            "predict",
            measured.to_str().unwrap(),
            "long.toml",
            "--fitted",
            "/dev/null",
        ],
    ));
    assert_eq!(code, 2, "{err}");
}

/// Trial 24b item 4: docs/predict.md's first example runs as written (a spec with an erase and a fill
/// before its random writes), with the drive and the duration made small: the run, then the fit, whose
/// last line of stdout is a simulated target.
#[test]
fn the_documented_first_example_runs_and_fits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/predict.md")).unwrap();
    let block = doc.split("```sh\n").nth(1).unwrap();
    let mut lines = block.lines().map(|l| l.split('#').next().unwrap().trim());
    let (run, fit_line) = (lines.next().unwrap(), lines.next().unwrap());
    let run = run
        .replace("--set duration=15min", "--set duration=120s")
        .replace(
            "--target /dev/nvme0n1 --allow-destroy /dev/nvme0n1",
            &format!("--target {TRUTH}"),
        )
        .replace("specs/", &format!("{}/specs/", root.display()));
    assert!(
        run.starts_with("wkrun ") && run.contains(TRUTH) && run.contains("-o short"),
        "{run}"
    );
    // Issue 30 (fit30c) item 5: only the sweep's 100 % member, the one the fit reads, is run.
    assert!(run.contains(" --set sweep.spare-area=100% "), "{run}");
    let dir = tempdir();
    let args: Vec<&str> = run.split_whitespace().skip(1).collect();
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
    assert_eq!(code, 0, "{run}: {err}");
    let (_, r) = strict_results(&dir.path().join("short"));
    let names: Vec<&str> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let (fill, phase) = ("fill[spare-area=100%]", "random-write[spare-area=100%]");
    assert_eq!(names, ["purge[spare-area=100%]", fill, phase]);
    assert_eq!(fit_line, "wkrun sim fit short");
    let (code, out, err) = fit(dir.path(), &["short"]);
    assert_eq!(code, 0, "{fit_line}: {err}");
    assert!(
        out.lines()
            .last()
            .unwrap_or_default()
            .starts_with("sim:capacity=256MiB,op="),
        "{out}"
    );
    // The replayed fill's rate in the table: measured as results.json has it; the fitted drive's fill
    // within the tolerance (no warning), its program time being within 1 % of the truth's.
    let fill_iops = r["phases"][1]["write"]["iops"].as_f64().unwrap();
    let row = err
        .lines()
        .find(|l| l.starts_with(&format!("fit:   {fill} (IOPS) ")))
        .unwrap_or_else(|| panic!("{err}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[3], format!("{fill_iops:.0}"), "{row}");
    let tolerance = wkrun::predict::replay::RATE_TOLERANCE * 100.0;
    assert!(cols[5].parse::<f64>().unwrap().abs() <= tolerance, "{row}");
    assert!(!err.contains("(replayed, not fitted)"), "{err}");
    // Item 4: the fitted target keeps the default jitter and gc (no key for them), and says so.
    let target = out.lines().last().unwrap();
    assert!(
        !target.contains("jitter=") && !target.contains("gc="),
        "{target}"
    );
    assert!(
        err.contains("gc = paced (the default) and jitter = 30% (the default), by the spread among the few tried\n"),
        "{err}"
    );
    // Item 3: at 100 ms intervals the cliff is said to the tenth of a second: the end of the first
    // 5 intervals whose mean is below half-way from the plateau (as printed) to the last quarter's mean.
    let run100: Vec<&str> = args
        .iter()
        .map(|a| if *a == "short" { "short100" } else { a })
        .chain(["--set", "interval=100ms"])
        .collect();
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &run100));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = fit(dir.path(), &["short100"]);
    assert_eq!(code, 0, "{err}");
    let iops = series(&dir.path().join("short100"), phase);
    let (_, steady) = plateau_intervals(&iops);
    let plateau: f64 = err
        .split("fit: measured plateau ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    let half = steady + 0.5 * (plateau - steady);
    let end = (5..=iops.len())
        .find(|&i| iops[i - 5..i].iter().sum::<f64>() / 5.0 < half)
        .unwrap();
    let cliff = format!("{:.1}", end as f64 / 10.0);
    assert!(
        err.contains(&format!(
            "fit: measured plateau {plateau:.0}, cliff at {cliff} s, "
        )),
        "{err}"
    );
    let row = err
        .lines()
        .find(|l| l.starts_with("fit:   cliff, half-way (s) "))
        .unwrap();
    assert_eq!(row.split_whitespace().nth(4), Some(cliff.as_str()), "{row}");
}

/// Trial 24c F10: results measured on a regular file are refused for what they are (a file has no write
/// cliff, its steady level is not an SSD's), not with advice to run longer.
#[test]
fn fit_refuses_results_of_a_file() {
    let dir = tempdir();
    let img = dir.path().join("t.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let body = wsat("random", "1s");
    let out = run_into(dir.path(), "onfile", &body, img.to_str().unwrap());
    let (code, stdout, err) = fit(dir.path(), &[out.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}/results.json: the target, {}, is a file: a file has no write cliff and its steady level is not an SSD's (the file system and the page cache set it, not the flash's garbage collection), so no simulated drive fits it; the fit needs a run on an SSD (a block device, purged first) or on a simulated drive (a sim: target)\n",
            out.display(),
            img.display()
        )
    );
    assert!(out.join("results.json").is_file());
}

/// Trial 17 F3: a loop device over a file (direct I/O on) was fitted to host noise, a "cliff" at 5 s and a
/// plateau +177 % off, exit 0. The probe records the file under the device (`target.file_backed_loop`), and
/// the fit refuses it as it refuses a file; `compare` says the numbers are the file's.
#[test]
fn fit_refuses_results_of_a_loop_device_over_a_file() {
    let test = "predict::fit_refuses_results_of_a_loop_device_over_a_file";
    let dir = tempdir();
    let d = dir.path();
    let _g = loop_guard();
    let lo = match LoopDev::new(d, 16, 512) {
        Ok(l) => l,
        Err(why) => return skip(test, &why),
    };
    let dev = lo.dev.to_str().unwrap().to_string();
    let backing = std::fs::canonicalize(&lo.backing).unwrap();
    let sub = d.join("onloop");
    std::fs::create_dir_all(&sub).unwrap();
    let (o, out) = run_spec(
        &sub,
        "onloop",
        &wsat("random", "1s"),
        &lo.dev,
        &["--allow-destroy", &dev],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let (_, r) = strict_results(&out);
    assert_eq!(
        r["target"]["file_backed_loop"],
        serde_json::json!({"device": dev, "backing_file": backing})
    );
    let (code, stdout, err) = fit(d, &[out.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}/results.json: the target, {dev}, is a loop device over the file {}: it has no write cliff and its steady level is not an SSD's (the file system and the storage under the file set them, not the flash's garbage collection), so no simulated drive fits it; the fit needs a run on an SSD (a block device, purged first) or on a simulated drive (a sim: target)\n",
            out.display(),
            backing.display()
        )
    );
    // Two runs, so a composite and its notes are given.
    let again = d.join("again");
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(&out)
        .arg(&again)
        .status()
        .unwrap();
    assert!(cp.success());
    let (code, text, err) = code_out_err(&wkrun(
        d,
        &["compare", out.to_str().unwrap(), again.to_str().unwrap()],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains(&format!(
            "on a loop device over a file ({})",
            backing.display()
        )),
        "{text}"
    );
}

/// A features fit of a 64 MiB drive, where one superblock is 6.25 points of spare area: its steady level
/// ends more than 1 % off without a warning, and the account says which clause of the tolerance lets it
/// (newcomer trial, issue 30 item 3: a steady level +2.8 % off with no word of why). The plateau is matched
/// within 1 %, so dies / program_time are called pinned; the spare area is not, and the account says why:
/// one superblock of the default block is 6.25 points of the capacity, more than 2 (attack 40 F5: such a
/// drive's op was called pinned 40 points off the truth).
#[test]
fn a_steady_level_within_one_superblock_says_why_it_passes() {
    let dir = tempdir();
    write_file(
        dir.path(),
        "g.toml",
        "capacity = \"64MiB\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nplateau_iops = 1250\nsteady_iops=300\n",
    );
    let (code, out, err) = fit(dir.path(), &["--features", "g.toml"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning:"), "{err}");
    let target = out.lines().last().unwrap();
    // The last run's plateau and steady level, as its progress line says them.
    let run = err.lines().rfind(|l| l.starts_with("fit: run ")).unwrap();
    assert!(run.contains(&format!(": {target}: plateau ")), "{err}");
    let field = |after: &str, to: char| -> f64 {
        let v = run.split(after).nth(1).unwrap().split(to).next().unwrap();
        v.trim_end_matches(" IOPS").parse().unwrap()
    };
    let (plateau, steady) = (field(": plateau ", ','), field(", steady ", ','));
    assert!(((plateau - 1250.0) / 1250.0).abs() <= 0.01, "{err}");
    // The table's error, of the unrounded steady level: within rounding of the progress line's.
    let row = err
        .lines()
        .find(|l| l.starts_with("fit:   steady level (IOPS)"))
        .unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[4..6], ["300", &format!("{steady:.0}")], "{row}");
    let miss: f64 = cols[6].parse().unwrap();
    assert!(
        (miss - (steady - 300.0) / 300.0 * 100.0).abs() <= 0.2,
        "{row}"
    );
    assert!(miss.abs() > 1.0, "{err}");
    // 64 MiB in superblocks of 4 MiB: 6.25 points of spare area each.
    let head = format!(
        "\nfit: the steady level is off by {} %, more than 1 % but within one superblock of spare area: 6.25 points of op move it by ",
        cols[6]
    );
    let line = err.split(&head).nth(1).unwrap_or_else(|| panic!("{err}"));
    let (moved, rest) = line.split_once(" % by the theory").unwrap();
    assert!(moved.parse::<f64>().unwrap() >= miss.abs(), "{line}");
    assert!(
        rest.starts_with(", and the spare area is whole superblocks\n"),
        "{rest}"
    );
    let op = target
        .split("op=")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    assert!(
        err.contains(
            "\nfit: pinned by the data: dies / program_time (the plateau), nothing else\n"
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "\nfit: not pinned by the data: op = {op} (one superblock of the default block, 4194304 B on 1 die(s), is 6.25 points of the 67108864 B capacity, more than 2: the drive's block is unknown and so coarse a drive collects its garbage unlike the measured one)\n"
        )),
        "{err}"
    );
}

/// Issue 30 leftover: a 64 MiB drive with 40 % spare and 3 ms programs holds its plateau for two seconds
/// (its highest the plateau, 2.6 % above the drive's rate). Fitted to that plateau, its steady level asked
/// the theory for less spare area than a 64 MiB drive can have: the refinement stopped at that bound with
/// the plateau off and warned. Fitted to the fill's rate, the fit finds the drive: its program time within
/// 1 %, its spare area within one superblock (6.25 points), no feature missed.
#[test]
fn a_drive_whose_short_plateau_asked_for_too_little_spare_is_fitted_by_its_fill() {
    let dir = tempdir();
    let truth = "sim:capacity=64MiB,op=40%,dies=1,program_time=3000us";
    let m = run_into(dir.path(), "m", &wsat("random", "60s"), truth);
    let (fresh, _) = plateau_intervals(&series(&m, "wsat"));
    assert_eq!(fresh.len(), 2, "{fresh:?}");
    let (code, out, err) = fit(&m, &["."]);
    assert_eq!(code, 0, "{err}");
    let target = out.lines().last().unwrap();
    let p = wkrun::sim::SimParams::parse_target(target).unwrap();
    assert_eq!(p.dies.unwrap_or(1), 1, "{target}");
    assert!(
        (p.program_time.0 as f64 / 3e6 - 1.0).abs() <= 0.01,
        "{target}"
    );
    assert!((p.op.0 as f64 / 1e6 - 40.0).abs() <= 6.25, "{target}");
    assert!(!err.contains("warning: the fitted drive"), "{err}");
    let pinned = pinned_line(&err);
    assert!(
        pinned.contains("dies / program_time (the rate of the fill \"fill\")"),
        "{pinned}"
    );
}

/// A simulated run of the fit that fails is reported by its `error:` line, not by the caret under the
/// spec's text that follows it.
#[test]
fn a_failed_simulated_run_is_reported_by_its_error_line() {
    let dir = tempdir();
    let spec = write_file(
        dir.path(),
        "bad.toml",
        &spec_text(
            "bad",
            "[[phase]]\nname = \"purge\"\nkind = \"erase\"\nspan = \"512MiB\"\n",
        ),
    );
    // The header is 4 lines: the span is line 8.
    let target = "sim:capacity=256MiB,op=20%";
    let out = dir.path().join("out");
    let got =
        wkrun::predict::runner::run(Path::new(env!("CARGO_BIN_EXE_wkrun")), &spec, target, &out);
    let Err(wkrun::predict::FitError::Failed(m)) = got else {
        panic!("not a failure: {got:?}");
    };
    assert_eq!(
        m,
        format!(
            "the simulated run on {target} failed (exit status: 2): {}:8:1: phase[0] \"purge\".span: offset 0 B + span 536870912 B = 536870912 B is past the end of the target (268435456 B)",
            spec.display()
        )
    );
    // The child's error output, kept beside the folder, ends with the caret line, not the error.
    let stderr = std::fs::read_to_string(out.with_extension("stderr")).unwrap();
    assert!(stderr.trim_end().ends_with("| ^^^^"), "{stderr}");
}

/// Write IOPS of each whole interval of phase `name` in the results in `out`, from its series CSV.
fn series(out: &Path, name: &str) -> Vec<f64> {
    let (_, r) = strict_results(out);
    let p = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap();
    csv_rows(&out.join(p["series_csv"].as_str().unwrap()))
        .iter()
        .filter(|x| x["partial"] == "0")
        .map(|x| x["write_ops"].parse::<f64>().unwrap() / x["interval_s"].parse::<f64>().unwrap())
        .collect()
}

/// The intervals of the plateau (from the first at or above half-way from the highest 3-interval median
/// of the first quarter to the mean of the last quarter, to the first below) and the mean of the last
/// quarter, recomputed here.
fn plateau_intervals(iops: &[f64]) -> (Vec<f64>, f64) {
    let n = iops.len();
    let last = &iops[n - n / 4..];
    let steady = last.iter().sum::<f64>() / last.len() as f64;
    let mut top = 0.0f64;
    for i in 0..n / 4 - 2 {
        let mut w = iops[i..i + 3].to_vec();
        w.sort_by(f64::total_cmp);
        top = top.max(w[1]);
    }
    let half = (top + steady) / 2.0;
    let fresh = iops
        .iter()
        .skip_while(|&&x| x < half)
        .take_while(|&&x| x >= half)
        .copied()
        .collect();
    (fresh, steady)
}

/// Newcomer trial (issue 30): a 512 MiB drive's plateau lasts 2 s of specs/consistency.toml's random
/// writes (2401, then 2060 as the drop cuts into the second): a 3-second median took 2060, and the fit
/// chose program_time 1852us and op 8.2 % (truth 1600us, 7 %) and said all matched. The plateau is now
/// its highest second, the fit recovers the drive, and a `warning:` says the plateau is too short to
/// measure well and what gives it more intervals.
#[test]
fn a_plateau_of_two_seconds_is_its_highest_second_and_is_warned_of() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join("specs/consistency.toml");
    let dir = tempdir();
    let truth = "sim:capacity=512MiB,op=7%";
    let phase = "random-write[spare-area=100%]";
    let args = [
        spec.to_str().unwrap(),
        "--set",
        "duration=15min",
        "--target",
        truth,
        "-q",
        "-o",
        "short",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
    assert_eq!(code, 0, "{err}");
    let iops = series(&dir.path().join("short"), phase);
    let (fresh, steady) = plateau_intervals(&iops);
    assert_eq!(fresh, [2401.0, 2060.0], "{iops:?}");
    let (code, stdout, err) = fit(dir.path(), &["short"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "fit: measured plateau 2401, cliff at 5 s, steady {steady:.0} IOPS"
        )),
        "{err}"
    );
    let warning = format!(
        "\nwarning: phase \"{phase}\"'s fresh plateau lasts 2 interval(s) of 1s before the drop, fewer than the 5 its median needs: the plateau is taken as its highest interval (2401 IOPS) and the cliff's time is known to an interval at best; with fewer than 3 the drop may come early in the highest, so the plateau and the cliff's time can be off by tens of % (dies / program_time are fitted to the rate of the fill \"fill[spare-area=100%]\", not to the plateau); measure again with --set interval=100ms or a larger drive region (a larger span or drive)\n"
    );
    assert!(err.contains(&warning), "{err}");
    let target = stdout.lines().last().unwrap();
    let p = wkrun::sim::SimParams::parse_target(target).unwrap();
    let (op, prog) = (p.op.0 as f64 / 1e6, p.program_time.0 as f64 / 1e3);
    // Within one superblock (0.78 points at 512 MiB) of 7 %, the program time within 1 % of 1600us.
    assert!((op - 7.0).abs() <= 0.78, "{target}");
    assert!((prog - 1600.0).abs() <= 16.0, "{target}");
    // Issue 30 item 2: the sweep's 75 % span phase is refused, naming it and its span (it was fitted with
    // its unwritten quarter as spare, its steady level 20 % off, exit 0).
    let (_, r) = strict_results(&dir.path().join("short"));
    let part = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "random-write[spare-area=75%]")
        .unwrap();
    let (span, cap) = (
        part["params"]["span_bytes"].as_u64().unwrap(),
        r["target"]["capacity_bytes"].as_u64().unwrap(),
    );
    assert_eq!((span, cap), (3 << 27, 1 << 29));
    let (code, stdout, err) = fit(
        dir.path(),
        &["short", "--phase", "random-write[spare-area=75%]"],
    );
    assert_eq!((code, stdout.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}: phase \"random-write[spare-area=75%]\" writes a span of {span} B, 75.0 % of the drive's {cap} B: the fit's model takes the whole capacity as written, and would count the unwritten 25.0 % as spare area the drive does not have; fit a phase over the whole span (100 %, as specs/consistency.toml's random-write[spare-area=100%]) and predict the smaller spans from it with wkrun sim predict\n",
            Path::new("short").join("results.json").display()
        )
    );
}

/// Newcomer trial (issue 30, fit30c items 1, 2, 4): a plateau of one 1 s interval measured 4529 IOPS where
/// the drive's is 7040 (at 100 ms intervals); the fit matched the 4529 within 1 % and chose program_time
/// 1851us (truth 1300us), its fill 29 % slow. Dies / program time are now fitted to the replayed fill's
/// rate (sequential writes over the whole drive), which one short plateau does not disturb: the fitted
/// drive (its fill run again here) runs the fill within 1 % of the measured one, its ratio of dies to
/// program time within 1 % of the truth's; the warning says the plateau and the cliff's time can be off by
/// tens of %, not the program time, and dies / program_time are called pinned by the fill.
#[test]
fn a_plateau_of_one_second_is_not_a_measure_and_the_fill_sets_the_program_time() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join("specs/consistency.toml");
    let dir = tempdir();
    let (fill, phase) = ("fill[spare-area=100%]", "random-write[spare-area=100%]");
    // The fill's rate on `target` (the phases after it do not change it: the fitted drive's run below
    // stops its random writes after 1 s, which leave the fill's figures as 10 minutes do).
    let run = |target: &str, out: &str, duration: &str| {
        let duration = format!("duration={duration}");
        let args = [
            spec.to_str().unwrap(),
            "--set",
            "sweep.spare-area=100%",
            "--set",
            &duration,
            "--target",
            target,
            "-q",
            "-o",
            out,
        ];
        let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
        assert_eq!(code, 0, "{err}");
        let (_, r) = strict_results(&dir.path().join(out));
        assert_eq!(r["phases"][1]["name"], fill);
        r["phases"][1]["write"]["iops"].as_f64().unwrap()
    };
    let measured_fill = run(
        "sim:capacity=512MiB,op=10%,dies=2,program_time=1300us",
        "short",
        "10min",
    );
    let iops = series(&dir.path().join("short"), phase);
    let (fresh, _) = plateau_intervals(&iops);
    assert_eq!(fresh.len(), 1, "{iops:?}");
    let (code, stdout, err) = fit(dir.path(), &["short"]);
    assert_eq!(code, 0, "{err}");
    let target = stdout.lines().last().unwrap();
    let warning = format!(
        "\nwarning: phase \"{phase}\"'s fresh plateau lasts 1 interval(s) of 1s before the drop, fewer than the 5 its median needs: the plateau is taken as its highest interval ({:.0} IOPS) and the cliff's time is known to an interval at best; with fewer than 3 the drop may come early in the highest, so the plateau and the cliff's time can be off by tens of % (dies / program_time are fitted to the rate of the fill \"{fill}\", not to the plateau); measure again with --set interval=100ms or a larger drive region (a larger span or drive)\n",
        fresh[0]
    );
    assert!(err.contains(&warning), "{err}");
    // The fitted drive's fill, run again here: within 1 %, and so its table row.
    let fitted_fill = run(target, "again", "1s");
    let e = (fitted_fill - measured_fill) / measured_fill * 100.0;
    assert!(e.abs() <= 1.0, "{measured_fill} {fitted_fill}");
    let row =
        format!("\nfit:   {fill} (IOPS) {measured_fill:>10.0} {fitted_fill:>10.0} {e:>+7.1} %\n");
    assert!(err.contains(&row), "{row}\n{err}");
    assert!(!err.contains("warning: the fitted drive"), "{err}");
    // Dies over program time within 1 % of the truth's 2 / 1300us.
    let p = wkrun::sim::SimParams::parse_target(target).unwrap();
    let ratio = f64::from(p.dies.unwrap_or(1)) / p.program_time.0 as f64;
    assert!((ratio * 650_000.0 - 1.0).abs() <= 0.01, "{target}");
    let pinned = pinned_line(&err);
    assert!(
        pinned.contains(&format!(
            "dies / program_time (the rate of the fill \"{fill}\")"
        )),
        "{pinned}"
    );
    // A value at the simulator's default is said to be one (the target has no key for it).
    let gc = match target.contains(",gc=") {
        true => p.gc.as_str().to_string(),
        false => format!("{} (the default)", p.gc.as_str()),
    };
    let jitter = match target.contains(",jitter=") {
        true => p.jitter.to_string(),
        false => format!("{} (the default)", p.jitter),
    };
    assert!(
        pinned.ends_with(&format!(
            "gc = {gc} and jitter = {jitter}, by the spread among the few tried"
        )),
        "{pinned}"
    );
    assert!(
        err.contains(&format!("\nfit: not pinned by the data: dies and program_time apart ({} die(s) chosen as the power of two nearest a 1.6 ms program time (at least 1), then program_time = {} fitted to the rate of the fill \"{fill}\"; the fill's rate fixes only their ratio); ", p.dies.unwrap_or(1), p.program_time)),
        "{err}"
    );
}

/// Attack 40 F5: a 64 MiB drive with 256 KiB blocks was fitted with the default 4 MiB block, whose
/// superblock is 6.25 points of the capacity: op = 46.875 % "pinned by the data" (truth 7 %). The fit of
/// a simulated drive's results keeps its page and block (the validation path); the line on dies names the
/// program time fitted, not 1.6 ms. At 1 s intervals the drive's plateau lasts 1 of them (warned: too
/// short to measure); fitted against the fill's rate, the spare area is recovered within 2 points at 1 s
/// and at 100 ms.
#[test]
fn a_small_drive_with_small_blocks_is_fitted_with_its_blocks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join("specs/consistency.toml");
    let dir = tempdir();
    for (interval, out) in [("1s", "base"), ("100ms", "fine")] {
        let set = format!("interval={interval}");
        let args = [
            spec.to_str().unwrap(),
            "--set",
            "sweep.spare-area=100%",
            "--set",
            "duration=60s",
            "--set",
            &set,
            "--target",
            "sim:capacity=64MiB,op=7%,block=256KiB",
            "-q",
            "-o",
            out,
        ];
        let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
        assert_eq!(code, 0, "{err}");
        let (code, stdout, err) = fit(dir.path(), &[out]);
        assert_eq!(code, 0, "{err}");
        let target = stdout.lines().last().unwrap();
        let p = wkrun::sim::SimParams::parse_target(target).unwrap();
        assert_eq!((p.page.0, p.block.0), (16 << 10, 256 << 10), "{target}");
        assert!(
            err.contains(
                "\nfit: kept from the measured simulated drive: page = 16KiB, block = 256KiB\n"
            ),
            "{err}"
        );
        let dies = p.dies.unwrap_or(1);
        assert!(
            err.contains(&format!(
                "{dies} die(s) chosen as the power of two nearest a 1.6 ms program time (at least 1), then program_time = {} fitted to the rate of the fill \"fill[spare-area=100%]\"",
                p.program_time
            )),
            "{err}"
        );
        assert!(!err.contains("chosen for a program time near"), "{err}");
        let pinned = err
            .lines()
            .find(|l| l.starts_with("fit: pinned by the data: "))
            .unwrap();
        let op = p.op.0 as f64 / 1e6;
        // At 1 s the plateau lasts 1 interval (warned: too short to measure; 2 while the random writes
        // replayed the fill's stream, before trial 23); the spare area, fitted against the fill's rate,
        // is pinned within 2 points at either interval.
        if interval == "1s" {
            assert!(
                err.contains("fresh plateau lasts 1 interval(s) of 1s"),
                "{err}"
            );
        }
        assert!(pinned.contains(&format!("op = {}", p.op)), "{pinned}");
        assert!(
            (op - 7.0).abs() <= 2.0,
            "fitted op {op} %, true 7 %: {target}"
        );
    }
}

/// Attack 40 F16: `span = "99%"` on the fill and the random writes of a 64 MiB drive is rounded down to
/// the fill's 128 KiB blocks, 506 of them (98.8 %), and was refused by the fit's 99 % rule. The rule
/// rounds 99 % as the plan does: the phase is fitted.
#[test]
fn a_99_percent_span_rounded_to_the_fills_blocks_is_fitted() {
    let dir = tempdir();
    let body = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\nspan = \"99%\"\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nspan = \"99%\"\nduration = \"30s\"\ninterval = \"100ms\"\n";
    let m = run_into(
        dir.path(),
        "m",
        body,
        "sim:capacity=64MiB,op=7%,block=256KiB",
    );
    let (_, r) = strict_results(&m);
    let spans: Vec<u64> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["params"]["span_bytes"].as_u64().unwrap())
        .collect();
    // 99 % of 64 MiB is 66,437,775.36 B: 506 whole blocks of 128 KiB.
    assert_eq!(spans, [64 << 20, 506 * 131_072, 506 * 131_072]);
    let (code, out, err) = fit(dir.path(), &[m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let p = wkrun::sim::SimParams::parse_target(out.lines().last().unwrap()).unwrap();
    let op = p.op.0 as f64 / 1e6;
    assert!((op - 7.0).abs() <= 2.0, "fitted op {op} %, true 7 %");
}

/// Trial P10: `sim predict -q` is quiet as a run's `-q` is: nothing on stderr (the run's note that a
/// simulated drive runs in virtual time, said without it, is left out), the run's summary on stdout.
#[test]
fn a_quiet_prediction_says_its_summary_alone() {
    let dir = tempdir();
    let d = dir.path();
    let target = "sim:capacity=64MiB,op=7%,block=256KiB";
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nqueue_depth = 4\nread_percent = 0\nduration = \"2s\"\n";
    let m = run_into(d, "m", body, target);
    // The measured run's spec (`run_into` names it as its folder), so that the two pair.
    write_file(d, "c.toml", &spec_text("m", body));
    let predict = |out: &str, quiet: bool| {
        let mut args = vec!["sim", "predict", m.to_str().unwrap(), "c.toml"];
        args.extend(["--fitted", target, "--set", "duration=1s", "-o", out]);
        if quiet {
            args.push("-q");
        }
        code_out_err(&wkrun(d, &args))
    };
    let m = m.display();
    let summary = |p: &str| {
        format!(
            "results: {p}\n[phase 0] workload \"w\": [0, 67108864), 4096 B blocks, QD4, 1s\n      0 reads, 2701 writes in 1.01 s: 2686 IOPS, 11.0 MB/s\n      latency: write mean 1.49 ms, p99 8.47 ms, p99.9 9.17 ms\ndone: {p}/results.json\nnext: wkrun report {m} {p} (the prediction drawn over its measurement); wkrun compare {m} {p} (side by side with its measurement)\n"
        )
    };
    let (code, out, err) = predict("p", true);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, summary("p"));
    // Not quiet: the same summary, and the run's `--set` line and note on stderr.
    let (code, out, err) = predict("q", false);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, summary("q"));
    assert_eq!(
        err,
        format!(
            "--set duration=1s: phase w\nnote: {target},dies=1 runs in virtual time on its own engine: the phases' engine and direct settings do not apply\n"
        )
    );
}
