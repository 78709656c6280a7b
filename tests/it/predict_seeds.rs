//! `wkrun sim fit --features` (issue 30 item 4): a fit from published features alone. A simulated drive
//! whose truth is known is reduced to the features an article would publish (its fresh plateau and its
//! spare area; or its plateau and its steady level), fitted from them, and the fitted drive's run of the
//! same phases predicts the truth's steady IOPS within 10 %. The plateau and steady levels are recomputed
//! here from the series CSVs (write_ops / interval_s of whole seconds), not taken from wkrun.

use crate::common::*;
use std::path::Path;

/// Purge, sequential fill, then `duration` of 4 KiB random writes at QD32.
fn wsat(duration: &str) -> String {
    format!(
        "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"{duration}\"\n"
    )
}

/// The drive the fit is not told about but for its spare area: 256 MiB, 20 % spare, one die, 3.2 ms
/// programs, paced collection with the default 30 % jitter.
const TRUTH: &str = "sim:capacity=256MiB,op=20%,dies=1,program_time=3200us";

/// Per-second write IOPS of phase `wsat` (whole seconds) of the results in `out`.
fn series(out: &Path) -> Vec<f64> {
    let (_, r) = strict_results(out);
    let p = &r["phases"][2];
    assert_eq!(p["name"], "wsat");
    csv_rows(&out.join(p["series_csv"].as_str().unwrap()))
        .iter()
        .filter(|x| x["partial"] == "0")
        .map(|x| x["write_ops"].parse::<f64>().unwrap() / x["interval_s"].parse::<f64>().unwrap())
        .collect()
}

/// The plateau as an article reads it: the highest 3-second median of the first quarter.
fn plateau(iops: &[f64]) -> f64 {
    iops[..iops.len() / 4]
        .windows(3)
        .map(|w| {
            let mut v = w.to_vec();
            v.sort_by(f64::total_cmp);
            v[1]
        })
        .fold(0.0, f64::max)
}

/// The steady level: the mean of the last quarter.
fn steady(iops: &[f64]) -> f64 {
    let last = &iops[iops.len() - iops.len() / 4..];
    last.iter().sum::<f64>() / last.len() as f64
}

/// Runs `body` on `target` into `dir/name`.
fn run_into(dir: &Path, name: &str, body: &str, target: &str) -> std::path::PathBuf {
    let sub = dir.join(name);
    std::fs::create_dir_all(&sub).unwrap();
    run_ok(&sub, name, body, Path::new(target))
}

/// `wkrun sim fit --features FILE` on `text`: exit code, stdout, stderr.
fn fit_features(dir: &Path, name: &str, text: &str) -> (i32, String, String) {
    write_file(dir, name, text);
    code_out_err(&wkrun(dir, &["sim", "fit", "--features", name]))
}

#[test]
fn a_fit_from_features_predicts_the_steady_iops_of_a_known_drive() {
    let dir = tempdir();
    let body = wsat("600s");
    let truth = series(&run_into(dir.path(), "truth", &body, TRUTH));
    let (p, s) = (plateau(&truth), steady(&truth));
    let head = format!(
        "capacity = \"256MiB\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nplateau_iops = {p}\n"
    );
    // From the plateau and the published spare area: the steady level is predicted.
    let (code, out, err) = fit_features(dir.path(), "op.toml", &format!("{head}op = \"20%\"\n"));
    assert_eq!(code, 0, "{err}");
    let target = out.lines().last().unwrap();
    assert!(target.contains(",op=20%,"), "{target}");
    for what in [
        "given, not fitted",
        "steady level (IOPS)",
        "unknown",
        "not pinned",
    ] {
        assert!(err.contains(what), "{what} missing from stderr: {err}");
    }
    let predicted = steady(&series(&run_into(dir.path(), "from-op", &body, target)));
    assert!(
        (predicted - s).abs() <= 0.10 * s,
        "steady IOPS: true {s:.0}, predicted from plateau and spare area {predicted:.0} ({target})"
    );
    // From the plateau and the steady level: the spare area is recovered.
    let (code, out, err) = fit_features(
        dir.path(),
        "steady.toml",
        &format!("{head}steady_iops = {s}\n"),
    );
    assert_eq!(code, 0, "{err}");
    let target = out.lines().last().unwrap();
    let op = wkrun::sim::SimParams::parse_target(target).unwrap().op.0 as f64 / 1e6;
    assert!(
        (op - 20.0).abs() <= 2.0,
        "fitted op {op} %, true 20 % ({target})"
    );
    let fitted = steady(&series(&run_into(dir.path(), "from-steady", &body, target)));
    assert!(
        (fitted - s).abs() <= 0.10 * s,
        "steady IOPS: true {s:.0}, fitted {fitted:.0} ({target})"
    );
}

#[test]
fn a_bad_features_file_exits_2_naming_file_line_and_key() {
    let dir = tempdir();
    let text = "capacity = \"256MiB\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nplateau_iops = 1000\nsteady_iops = 900\n";
    let (code, out, err) = fit_features(dir.path(), "f.toml", text);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("f.toml:5: key \"steady_iops\": 900 is not below 80 % of the plateau (1000)"),
        "{err}"
    );
    let (code, _, err) = code_out_err(&wkrun(
        dir.path(),
        &["sim", "fit", "--features", "f.toml", "--capacity", "1GiB"],
    ));
    assert_eq!(code, 2, "{err}");
}

/// The published numbers of docs/data/seed-curves.toml by id: value and qualifier.
fn published() -> std::collections::BTreeMap<String, (f64, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data/seed-curves.toml");
    let doc: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    doc["number"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let v = &n["value"];
            let x = v.as_float().or(v.as_integer().map(|i| i as f64)).unwrap();
            let q = n["qualifier"].as_str().unwrap().to_string();
            (n["id"].as_str().unwrap().to_string(), (x, q))
        })
        .collect()
}

/// `wkrun sim fit --features FILE --theory` on `text`: the fitted drive.
fn theory_fit(dir: &Path, name: &str, text: &str) -> wkrun::sim::SimParams {
    write_file(dir, name, text);
    let (code, out, err) =
        code_out_err(&wkrun(dir, &["sim", "fit", "--features", name, "--theory"]));
    assert_eq!(code, 0, "{err}");
    wkrun::sim::SimParams::parse_target(out.lines().last().unwrap()).unwrap()
}

/// `x` with thousands separated by commas, as the articles write them.
fn thousands(x: f64) -> String {
    let s = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 { format!("-{out}") } else { out }
}

/// The predicted against the published, signed percent.
fn error(predicted: f64, published: f64) -> String {
    format!("{:+.0} %", 100.0 * (predicted - published) / published)
}

/// The validation table against the seed articles, as docs/predict.md shows it.
fn seed_table(dir: &Path) -> String {
    use wkrun::predict::fit::{theory_alpha, theory_steady_at};
    let n = published();
    let v = |id: &str| n[id].0;
    let head = format!(
        "capacity = \"{}B\"\nblock_size = \"{}KiB\"\nqueue_depth = {}\nplateau_iops = {}\n",
        v("003.capacity"),
        v("003.block_size"),
        v("003.qd"),
        v("003.plateau")
    );
    let a = theory_fit(
        dir,
        "x210-op.toml",
        &format!("{head}op = \"{}%\"\n", v("003.op")),
    );
    let b = theory_fit(
        dir,
        "x210-steady.toml",
        &format!("{head}steady_iops = {}\n", v("003.steady")),
    );
    let (a100, a93, a84) = (
        theory_steady_at(&a, 1.0),
        theory_steady_at(&a, 0.93),
        theory_steady_at(&a, 0.84),
    );
    let (b100, b93, b84) = (
        theory_steady_at(&b, 1.0),
        theory_steady_at(&b, 0.93),
        theory_steady_at(&b, 0.84),
    );
    let x210 = format!("003, SanDisk X210 ({} B)", thousands(v("003.capacity")));
    let from_op = format!(
        "plateau {}, spare {} % (`{}`)",
        thousands(v("003.plateau")),
        v("003.op"),
        wkrun::predict::fit::target_of(&a)
    );
    let from_steady = format!(
        "plateau {}, steady {} at 100 % (`{}`)",
        thousands(v("003.plateau")),
        thousands(v("003.steady")),
        wkrun::predict::fit::target_of(&b)
    );
    let op_b = b.op.0 as f64 / 1e6;
    let e100 = v("002.minutes_in");
    let alpha = theory_alpha(e100, v("002.steady") / e100);
    let cliff_min = (alpha - 1.0) * v("002.written_once");
    let mut rows = vec![
        "| seed, drive | fitted from (published) | later part | predicted | published | error |"
            .to_string(),
        "|---|---|---|---|---|---|".to_string(),
        format!(
            "| {x210} | {from_op} | steady IOPS, 100 % span | {} | {} | {} |",
            thousands(a100),
            thousands(v("003.steady")),
            error(a100, v("003.steady"))
        ),
        format!(
            "| {x210} | {from_op} | steady at 93 % over steady at 100 % | {:.2}× | a \"near-doubling\" | — |",
            a93 / a100
        ),
        format!(
            "| {x210} | {from_op} | steady IOPS, 84 % span | {} | \"almost {}\" | {} |",
            thousands(a84),
            thousands(v("003.steady84")),
            error(a84, v("003.steady84"))
        ),
        format!(
            "| {x210} | {from_steady} | spare area | {op_b:.1} % | \"just {} %\" | {:+.1} points |",
            v("003.op"),
            op_b - v("003.op")
        ),
        format!(
            "| {x210} | {from_steady} | steady at 93 % over steady at 100 % | {:.2}× | a \"near-doubling\" | — |",
            b93 / b100
        ),
        format!(
            "| {x210} | {from_steady} | steady IOPS, 84 % span | {} | \"almost {}\" | {} |",
            thousands(b84),
            thousands(v("003.steady84")),
            error(b84, v("003.steady84"))
        ),
        format!(
            "| {x210} | — | lowest / highest second of the steady 20 minutes | not predicted (`--theory` simulates no seconds) | {} / {} | — |",
            thousands(v("003.lowest")),
            thousands(v("003.highest"))
        ),
        format!(
            "| 002, E100 (capacity not published) | \"57K a few minutes\" in, steady \"around\" {}: spare {:.1} % of the span (α − 1) | the cliff | after {:.1} % of a span-write: {cliff_min:.1} min if the span takes the article's {} min | latency up once the drive is written once (\"just about {} minutes\"); the sentence on the drop: \"filled around {} minutes\" | cannot follow |",
            thousands(v("002.steady")),
            (alpha - 1.0) * 100.0,
            (alpha - 1.0) * 100.0,
            v("002.written_once"),
            v("002.written_once"),
            v("002.filled")
        ),
        format!(
            "| 000, Kingston V300 and Intel SSD 335 | — (no IOPS level published) | not fitted | — | steady state entered at {} s and {} s; the V300's worst seconds \"near zero\", the 335's \"over 7K\"; more spare \"doesn't actually help at all\" | cannot follow |",
            v("000.v300.steady_entry"),
            v("000.ssd335.steady_entry")
        ),
    ];
    rows.push(String::new());
    rows.join("\n")
}

const BEGIN: &str =
    "<!-- seed table: begin (tests/it/predict_seeds.rs writes it: WKRUN_BLESS=1) -->\n";
const END: &str = "<!-- seed table: end -->";

#[test]
fn the_seed_table_in_docs_predict_md_is_the_fits_of_the_published_numbers() {
    let dir = tempdir();
    let table = seed_table(dir.path());
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/predict.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let start = text
        .find(BEGIN)
        .expect("the seed table's begin mark in docs/predict.md")
        + BEGIN.len();
    let end = start + text[start..].find(END).expect("its end mark");
    if std::env::var_os("WKRUN_BLESS").is_some() {
        std::fs::write(&doc, format!("{}{table}{}", &text[..start], &text[end..])).unwrap();
    } else {
        assert_eq!(
            text[start..end],
            table,
            "docs/predict.md's seed table differs from the fits (WKRUN_BLESS=1 cargo test --test it -- predict_seeds writes it)"
        );
    }
}

/// attack24c F4: a features file that is not a regular file (a FIFO, a character device) is refused from
/// its type before it is opened, as a spec file is: exit 2 naming it, nothing read, no hang.
#[test]
fn a_features_file_that_is_not_a_regular_file_is_refused() {
    let dir = tempdir();
    let fifo = dir.path().join("ff");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for (file, what) in [
        ("ff", "a FIFO (named pipe)"),
        ("/dev/zero", "a character device"),
    ] {
        let (code, out, err) = code_out_err(&wkrun(
            dir.path(),
            &["sim", "fit", "--features", file, "--theory"],
        ));
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        assert!(
            err.contains(&format!(
                "{file}: cannot read: it is {what}, not a regular file"
            )),
            "{err}"
        );
    }
}

/// attack24c F1: a queue depth or block size a spec refuses is refused in the features file, with the
/// spec's bounds, before any simulated run.
#[test]
fn features_a_run_would_refuse_are_refused_up_front() {
    let dir = tempdir();
    let head = "capacity = \"1GiB\"\n";
    let text = format!(
        "{head}block_size = \"4KiB\"\nqueue_depth = 1025\nplateau_iops = 100000\nsteady_iops = 20000\n"
    );
    let (code, out, err) = fit_features(dir.path(), "qd.toml", &text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("qd.toml:3: key \"queue_depth\": an integer from 1 to 1024"),
        "{err}"
    );
    let text = format!(
        "{head}block_size = \"1GiB\"\nqueue_depth = 1\nplateau_iops = 1e9\nsteady_iops = 7.9e8\n"
    );
    let (code, out, err) = fit_features(dir.path(), "bs.toml", &text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains(
            "bs.toml:2: key \"block_size\": 1GiB is larger than the largest block size a spec takes, 128MiB"
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "nothing but the two files"
    );
}

/// attack24c F17: --theory without --features is refused (exit 2), not ignored.
#[test]
fn theory_without_features_is_refused() {
    let dir = tempdir();
    let (code, out, err) = code_out_err(&wkrun(dir.path(), &["sim", "fit", "m", "--theory"]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        "error: sim fit: --theory is for --features FILE (a fit to a measured run always runs the simulated drive)\n"
    );
}

/// The op of a 4 MiB-superblock drive (one die) of `cap_mib` MiB with `sbs` superblocks of flash, at the
/// middle of the last one (as the fit sets it), as `sim:` prints it: computed here from the geometry.
fn op_of(cap_mib: u64, sbs: u64) -> String {
    let op = ((2 * sbs + 1) * 2) as f64 / cap_mib as f64 * 100.0 - 100.0;
    format!("{op}%")
}

/// `wkrun sim fit --features FILE --theory` on `text`: exit code, stdout, stderr.
fn theory_out(dir: &Path, name: &str, text: &str) -> (i32, String, String) {
    write_file(dir, name, text);
    code_out_err(&wkrun(dir, &["sim", "fit", "--features", name, "--theory"]))
}

/// attack24c F2: a feature no simulated drive can have exits 2 naming the file, the line and the key of
/// that feature (the steady level when it needs less spare area than the least a drive has, the plateau
/// when it is out of the simulator's range), its value as the file writes it; nothing on stdout.
#[test]
fn a_feature_no_simulated_drive_can_have_names_its_key() {
    let dir = tempdir();
    let head = "capacity = \"256MiB\"\nblock_size = \"4KiB\"\nqueue_depth = 32\n";
    // 256 MiB in 4 MiB superblocks (one die, the plateau's split for 1000 IOPS): the capacity's 64 and
    // 5 for garbage collection (gc_free_superblocks 3 + 2) at the least.
    let least = op_of(256, 69);
    assert_eq!(least, "8.59375%");
    let drive = wkrun::sim::SimParams::parse_target(&format!(
        "sim:capacity=256MiB,op={least},dies=1,program_time=4ms"
    ))
    .unwrap();
    let least_steady = wkrun::predict::fit::theory_steady_at(&drive, 1.0);
    for args in [&["--theory"][..], &[][..]] {
        let text = format!("{head}plateau_iops = 1000\nsteady_iops = 1\n");
        write_file(dir.path(), "s.toml", &text);
        let mut all = vec!["sim", "fit", "--features", "s.toml"];
        all.extend_from_slice(args);
        let (code, out, err) = code_out_err(&wkrun(dir.path(), &all));
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        assert_eq!(
            err,
            format!(
                "error: s.toml:5: key \"steady_iops\": 1 with a fresh plateau of 1000 IOPS needs less spare area than the least a simulated drive of 268435456 B with 1 die(s) has: op = {least} (69 superblocks of 4194304 B: the capacity's 64 and 5 for garbage collection), whose steady level is {least_steady:.0} IOPS by the theory\n"
            )
        );
    }
    // A plateau of 1e-300 IOPS: shown as written, not rounded to "1"; one die at 1 s programs four 4 KiB
    // writes a second, 256 dies at 1us 1,024,000,000.
    let text = format!("{head}plateau_iops = 1e-300\nsteady_iops = 1e-301\n");
    let (code, out, err) = theory_out(dir.path(), "t.toml", &text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        "error: t.toml:4: key \"plateau_iops\": 1e-300 is not a fresh plateau a simulated drive can have: the simulator's fresh plateaus are 4 to 1024000000 IOPS (1 to 256 dies, program times 1us to 1s, 4 host writes of 4 KiB per page)\n"
    );
    // A spare area given below the least.
    let text = format!("{head}plateau_iops = 1000\nop = \"5%\"\n");
    let (code, out, err) = theory_out(dir.path(), "o.toml", &text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.starts_with(&format!(
            "error: o.toml:5: key \"op\": \"5%\" is less spare area than the least a simulated drive of 268435456 B with 1 die(s) has: op = {least} (69 superblocks"
        )),
        "{err}"
    );
    // Random writes whose buffers a run would refuse (QD32 × 128 MiB = 4 GiB): refused up front.
    let text = "capacity = \"1GiB\"\nblock_size = \"128MiB\"\nqueue_depth = 32\nplateau_iops = 1000\nsteady_iops = 100\n";
    let (code, out, err) = theory_out(dir.path(), "b.toml", text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(
        err,
        "error: b.toml:2: key \"block_size\": 128MiB at queue_depth 32 needs 4GiB of I/O buffers, more than a run takes (2GiB)\n"
    );
}

/// attack24c F3: the theory's drive that misses a given feature by more than the fit's tolerance says so
/// in a warning naming the feature, the miss and the bound hit, and never says "fitted to it" of it.
#[test]
fn the_theory_warns_of_a_feature_it_misses_and_the_bound_it_hit() {
    let dir = tempdir();
    let text = "capacity = \"256MiB\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nplateau_iops = 1000\nsteady_iops = 20\n";
    let (code, out, err) = theory_out(dir.path(), "u.toml", text);
    assert_eq!(code, 0, "{err}");
    // The least drive (69 superblocks), one die at 4 ms programs: 4 writes of 4 KiB per 4 ms.
    let least = op_of(256, 69);
    let target = format!("sim:capacity=256MiB,op={least},dies=1,program_time=4ms");
    assert_eq!(out, format!("{target}\n"));
    let drive = wkrun::sim::SimParams::parse_target(&target).unwrap();
    let s = wkrun::predict::fit::theory_steady_at(&drive, 1.0);
    assert!(!err.contains("fitted to it"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        &lines[1..4],
        [
            "fit:   fresh plateau (IOPS): given 1000, the drive's 1000".to_string(),
            format!(
                "fit:   steady level (IOPS): given 20, the drive's {s:.0}; op = {least}, the nearest the theory reaches"
            ),
            format!(
                "warning: the theory's drive misses the steady level by {:+.1} % (given 20, the drive's {s:.0} IOPS), more than the fit's tolerance: it hit the op floor: op = {least} is the least spare area a simulated drive of 268435456 B with 1 die(s) has (69 superblocks of 4194304 B: the capacity's 64 and 5 for garbage collection)",
                (s - 20.0) / 20.0 * 100.0
            ),
        ]
    );
    // 10x off: 256 dies at 1us programs, the erases (3 ms per 256 pages) outweighing the programs.
    let text = "capacity = \"1GiB\"\nblock_size = \"4KiB\"\nqueue_depth = 1\nplateau_iops = 1e9\nsteady_iops = 7.9e8\n";
    let (code, out, err) = theory_out(dir.path(), "v.toml", text);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with(",dies=256,program_time=1us\n"), "{out}");
    assert!(!err.contains("fitted to it"), "{err}");
    // 256 dies × 4 writes per 1us program.
    assert!(
        err.contains("warning: the theory's drive misses the fresh plateau by +2.4 % (given 1e9, the drive's 1024000000 IOPS), more than the fit's tolerance: it hit the dies' cap (256) with program_time in whole microseconds, at least 1us (program_time = 1us)\n"),
        "{err}"
    );
    // steady / plateau ≤ program / (program + erase / pages) = 1us / (1us + 3ms / 256) = 0.0786.
    let ceiling = 1.0 / (1.0 + 3000.0 / 256.0);
    let drive = wkrun::sim::SimParams::parse_target(out.trim()).unwrap();
    let s = wkrun::predict::fit::theory_steady_at(&drive, 1.0);
    assert!(s < ceiling * 1.024e9, "{s}");
    assert!(
        err.contains(&format!(
            "warning: the theory's drive misses the steady level by {:+.1} % (given 7.9e8, the drive's {s:.0} IOPS), more than the fit's tolerance: it hit the model's ceiling of steady / plateau, {ceiling:.3} with program_time 1us whatever the spare area: the erases (erase_time 3ms per block of 256 pages) and the copies' reads (read_time 60us), the defaults, cost more than the programs; program_time is at its floor (1us) with the dies at their cap (256)\n",
            (s - 7.9e8) / 7.9e8 * 100.0
        )),
        "{err}"
    );
}

/// The attack of issues 24/30: a value out of range is echoed as the file writes it (`-1e-300`, not 300
/// zeros), a capacity no simulated drive holds blames `capacity` (not `op` or `steady_iops`), and a size
/// with an invisible character (U+0085, U+2028) is refused; exit 2, nothing on stdout, nothing written.
#[test]
fn features_are_echoed_as_written_and_a_capacity_too_large_is_named() {
    let dir = tempdir();
    let drive = "block_size = \"4KiB\"\nqueue_depth = 32\nplateau_iops = 10000\n";
    let cases = [
        (
            format!("capacity = \"1PiB\"\n{drive}op = \"7%\"\n"),
            format!(
                "error: f.toml:1: key \"capacity\": \"1PiB\" is more than a simulated drive holds: at most {} B can be simulated, less the spare area's share (the model's mapping tables take 8 B per 4096 B of flash, and at most 2147483648 B)\n",
                (2u64 << 30) / 8 * 4096 - 1
            ),
        ),
        (
            format!("capacity = \"64MiB\"\n{drive}steady_iops = 1e308\n"),
            "error: f.toml:5: key \"steady_iops\": 1e308 is not below 80 % of the plateau (10000): no cliff, so the spare area is unknown\n".to_string(),
        ),
        (
            format!("capacity = \"64MiB\"\n{drive}steady_iops = 2000\nspread = -1e-300\n"),
            "error: f.toml:6: key \"spread\": -1e-300 is out of range (at least 0, at most 10)\n".to_string(),
        ),
        (
            format!("capacity = \"64MiB\"\n{drive}steady_iops = 2000\ncliff_s = 12345678901234567890123456789e10\n"),
            "error: f.toml:6: key \"cliff_s\": 12345678901234567890123456789e10 is out of range (more than 0, at most 1000000000)\n".to_string(),
        ),
        (
            format!("capacity = \"64MiB\\u0085\"\n{drive}steady_iops = 2000\n"),
            "error: f.toml:1: key \"capacity\": size \"64MiB\\u{85}\" holds the invisible character U+0085; write it with plain ASCII characters\n".to_string(),
        ),
        (
            format!("capacity = \"64MiB\"\n{}steady_iops = 2000\n", drive.replace("4KiB", "4KiB\\u2028")),
            "error: f.toml:2: key \"block_size\": size \"4KiB\\u{2028}\" holds the invisible character U+2028; write it with plain ASCII characters\n".to_string(),
        ),
    ];
    for (text, want) in cases {
        let (code, out, err) = fit_features(dir.path(), "f.toml", &text);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (2, "", want.as_str()),
            "{text}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "{text}");
    }
}
