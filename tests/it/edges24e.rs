//! Issue 24's hostile-input leftovers (wt-d): control characters by one rule, `validate` of a path that is not
//! there, a simulated phase's device CSV that finds the disk full, the closest block device to a typo, and
//! the room `sim fit` needs in TMPDIR. The exit codes of resource limits are in `limits.rs`, `outdir.rs`,
//! `diskfull.rs`, `prealloc.rs` and `load_room.rs`.

use crate::common::*;
use std::path::Path;

const SPEC: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1s\"\n";

/// A C1 control (U+0085, NEL) or a line or paragraph separator (U+2028/9) in a `--label` was dropped as
/// white space by `trim` and the run went on (`\u{85}nel` recorded as `nel`), where the same character in a
/// `--set` word was refused: now every one is refused, exit 2, naming it, nothing written; and `validate`
/// refuses a results file whose label holds one.
#[test]
fn c1_controls_and_line_separators_are_refused_by_one_rule() {
    let d = tempdir();
    let p = d.path();
    write_file(p, "s.toml", &spec_text("cc", SPEC));
    let sim = "sim:capacity=256MiB,op=20%";
    for (label, shown, kind) in [
        ("\u{85}nel", "\\u{85}nel", "control character '\\u{85}'"),
        ("\u{2028}ls", "\\u{2028}ls", "line separator '\\u{2028}'"),
        (
            "ps\u{2029}",
            "ps\\u{2029}",
            "paragraph separator '\\u{2029}'",
        ),
        ("\u{9b}2J", "\\u{9b}2J", "control character '\\u{9b}'"),
        ("\tx", "\\tx", "control character '\\t'"),
    ] {
        let o = wkrun(p, &["s.toml", "--target", sim, "--label", label, "-o", "o"]);
        assert_eq!(
            code_out_err(&o),
            (
                2,
                String::new(),
                format!(
                    "error: invalid value '{shown}' for '--label <NAME>': a label cannot hold the {kind}\n\nFor more information, try '--help'.\n"
                )
            ),
            "{label:?}"
        );
        assert_eq!(dir_listing(p), ["s.toml"], "{label:?}");
    }
    for (word, what) in [
        ("\u{85}x", "a control character"),
        ("x\u{2028}", "a line separator or format character"),
    ] {
        let set = format!("phase.w.name={word}");
        let o = wkrun(p, &["s.toml", "--target", sim, "--set", &set, "-o", "o"]);
        let shown = wkrun::text::escaped(&set);
        assert_eq!(
            code_out_err(&o),
            (
                2,
                String::new(),
                format!(
                    "error: --set {shown}: the value is not one TOML value, and as a word it holds {what}; give one TOML value or one word (--set once per key)\n"
                )
            )
        );
        assert_eq!(dir_listing(p), ["s.toml"], "{word:?}");
    }
    // A results file that holds such a label, as no run writes it now: refused by validate too.
    let o = wkrun(
        p,
        &["s.toml", "--target", sim, "--label", "nel", "-o", "o", "-q"],
    );
    assert_eq!(code_out_err(&o).0, 0);
    let file = p.join("o/results.json");
    let text = std::fs::read_to_string(&file).expect("results");
    let mut r: serde_json::Value = serde_json::from_str(&text).expect("json");
    r["label"] = "\u{2028}ls".into();
    std::fs::write(&file, serde_json::to_string_pretty(&r).expect("json")).expect("write");
    let o = wkrun(p, &["validate", "o"]);
    assert_eq!(
        code_out_err(&o),
        (
            2,
            String::new(),
            "error: o/results.json holds figures that cannot be true (1 place):\n  label: \"\\u{2028}ls\" holds the line separator '\\u{2028}'\n".to_string()
        )
    );
}

/// `wkrun validate nosuchdir` said "cannot read the spec file" of what may have been meant as a results
/// folder: a path that is not there is said not to exist, whatever it was meant as; exit 2, nothing written,
/// and the other paths still checked.
#[test]
fn validate_says_a_missing_path_does_not_exist() {
    let d = tempdir();
    let p = d.path();
    write_file(p, "s.toml", &spec_text("v", SPEC));
    for missing in ["nosuchdir", "gone/results.json", "no.toml"] {
        let o = wkrun(p, &["validate", missing, "s.toml"]);
        assert_eq!(
            code_out_err(&o),
            (
                2,
                "s.toml: ok (1 phase)\n".to_string(),
                format!(
                    "error: {missing}: does not exist (give a spec file, or a results folder or its results.json)\n"
                )
            )
        );
    }
    assert_eq!(dir_listing(p), ["s.toml"]);
}

/// With the output on a full 300 KiB tmpfs, a simulated phase whose device CSV could not take its header
/// failed with "the sim engine could not start: No space left on device": the engine started, the file did
/// not fit. From 0 to 240 KiB of filler in steps of 4 KiB, no run says the engine could not start, every
/// failure names the file that could not be written, and where the device CSV is that file the phase ends
/// there with results.json "failed" saying so.
#[test]
fn a_device_csv_that_finds_the_disk_full_is_named() {
    let test = "edges24e::a_device_csv_that_finds_the_disk_full_is_named";
    let d = tempdir();
    let p = d.path();
    let m = match Mount::tmpfs(p.join("mnt"), "300k") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let phases: String = ["a", "b", "c"]
        .iter()
        .map(|n| {
            SPEC.replace("name = \"w\"", &format!("name = \"{n}\""))
                .replace("1s", "2s")
        })
        .collect();
    write_file(p, "s.toml", &spec_text("full", &phases));
    let mut named = 0;
    for k in 0..=60u64 {
        for e in std::fs::read_dir(&m.dir).expect("mnt").flatten() {
            let _ = std::fs::remove_dir_all(e.path()).or_else(|_| std::fs::remove_file(e.path()));
        }
        std::fs::write(m.dir.join("filler"), vec![1u8; (k * 4096) as usize]).expect("filler");
        // Run directly: a results.json the full disk cut short is not what this test checks.
        let o = std::process::Command::new(wkrun_bin())
            .args([
                "s.toml",
                "--target",
                "sim:capacity=256MiB,op=20%",
                "-o",
                "mnt/o",
                "-q",
            ])
            .current_dir(p)
            .output()
            .expect("wkrun");
        let (code, _, err) = code_out_err(&o);
        assert!(!err.contains("could not start"), "{k} KiB: {err}");
        // Each failure names a file or the folder: a full disk, or too little room to start.
        assert!(
            code == 0
                || err.contains("mnt/o")
                    && (err.contains("No space left on device")
                        || err.contains("B free, less than")),
            "{k}: {err}"
        );
        let Some(phase) = ["a", "b", "c"]
            .iter()
            .position(|n| err.contains(&format!("{n}.device.csv")))
        else {
            continue;
        };
        let name = ["a", "b", "c"][phase];
        let why = format!(
            "phase \"{name}\": cannot write mnt/o/0{phase}-{name}.device.csv: No space left on device (os error 28)"
        );
        // The last results.json may not fit either (then it says so after the CSV's error).
        if err != format!("error: {why}\n") {
            assert!(
                code == 1
                    && err.starts_with(&format!(
                        "error: {why}; and the results could not be written: cannot write mnt/o/results.json"
                    )),
                "{k}: {err}"
            );
            continue;
        }
        assert_eq!(code, 1);
        let (_, r) = strict_results(&m.dir.join("o"));
        assert_eq!(r["status"], "failed");
        assert_eq!(r["error"].as_str(), Some(why.as_str()));
        named += 1;
    }
    assert!(named > 0, "no filler size left the device CSV without room");
}

/// `wkrun plan tiny.toml --target /dev/lopN` for an unattached loop device `/dev/loopN` (0 B) suggested it
/// as the closest block device: only a device with a size above 0 is suggested.
#[test]
fn the_closest_device_suggested_has_a_size() {
    let test = "edges24e::the_closest_device_suggested_has_a_size";
    if !is_root() {
        return skip(test, "not running as root: losetup -f needs root");
    }
    let _g = loop_guard();
    let free = std::process::Command::new("losetup").arg("-f").output();
    let Some(node) = free
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    else {
        return skip(test, "losetup -f found no free loop device");
    };
    let name = node.trim_start_matches("/dev/").to_string();
    let sectors = |n: &str| {
        std::fs::read_to_string(format!("/sys/class/block/{n}/size"))
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
    };
    if !Path::new(&node).exists() || sectors(&name) != Some(0) {
        return skip(
            test,
            &format!("{node} is not an unattached loop device node"),
        );
    }
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("t", SPEC));
    let typo = node.replacen("loop", "lop", 1);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["plan", "s.toml", "--target", &typo]));
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    // No device may be close enough to suggest (at most one edit in three characters).
    let Some(said) = err
        .split("the closest block device is ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
    else {
        return assert_eq!(
            err,
            format!(
                "error: {typo} does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); no block device in /dev has a name close to it (lsblk lists them); nothing was created\n"
            )
        );
    };
    assert_ne!(said, node, "{err}");
    let real = std::fs::canonicalize(said).expect("the device suggested");
    let sys = real
        .file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    assert!(
        sectors(&sys).is_some_and(|s| s > 0),
        "{said} ({sys}) has no size: {err}"
    );
    assert_eq!(
        err,
        format!(
            "error: {typo} does not exist, and wkrun does not create a file target in /dev, among the device nodes (a device name typed wrong?); the closest block device is {said} (lsblk lists them); nothing was created\n"
        )
    );
}

/// `sim fit` checked TMPDIR for 65536 B; on a tmpfs of 160 or 400 KiB it went on and its first simulated
/// run failed with ENOSPC, not naming TMPDIR. The room one simulated run of the measured phases takes is
/// checked up front: 64 KiB and 256 KiB for the run, 48 KiB a phase and 1 KiB a second of a workload, here
/// (a purge, a fill and 40 s of writes) 517,120 B: exit 1, naming TMPDIR and the room, nothing left there;
/// on 600 KiB the fit completes.
#[test]
fn fit_checks_the_room_a_simulated_run_takes() {
    let test = "edges24e::fit_checks_the_room_a_simulated_run_takes";
    let d = tempdir();
    let p = d.path();
    let wsat = "[[phase]]\nname = \"purge\"\nkind = \"erase\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 4\n[[phase]]\nname = \"wsat\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 32\nread_percent = 0\nduration = \"40s\"\n";
    std::fs::create_dir_all(p.join("m")).expect("m");
    let truth = Path::new("sim:capacity=256MiB,op=20%,dies=1,program_time=3200us");
    let m = run_ok(&p.join("m"), "m", wsat, truth);
    // The oracle of the need, from the measured results: each phase, and each workload's seconds.
    let (_, r) = strict_results(&m);
    let phases = r["phases"].as_array().expect("phases");
    let seconds: u64 = phases
        .iter()
        .filter(|q| q["kind"] == "workload")
        .map(|q| {
            q["params"]["duration_ns"]
                .as_u64()
                .expect("duration")
                .div_ceil(1_000_000_000)
                + 1
        })
        .sum();
    let need = 65536 + 262144 + 49152 * phases.len() as u64 + 1024 * seconds;
    assert_eq!(need, 517_120);
    for size in ["160k", "400k", "600k"] {
        let tmp = match Mount::tmpfs(p.join(format!("t{size}")), size) {
            Ok(t) => t,
            Err(why) => return skip(test, &why),
        };
        let o = std::process::Command::new(wkrun_bin())
            .args(["sim", "fit", m.to_str().expect("path")])
            .current_dir(p)
            .env("TMPDIR", &tmp.dir)
            .output()
            .expect("sim fit");
        let (code, out, err) = code_out_err(&o);
        let free = size.trim_end_matches('k').parse::<u64>().expect("size") * 1024;
        if free >= need {
            assert_eq!(code, 0, "{size}: {err}");
            assert!(out.starts_with("sim:capacity=256MiB,"), "{out}");
        } else {
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (
                    1,
                    "",
                    format!(
                        "error: the temporary folder {} (TMPDIR) has {free} B free, less than the {need} B a simulated run of the measured phases takes (its results, series and the room it keeps); set TMPDIR to a folder with at least {need} B free; nothing was run\n",
                        tmp.dir.display()
                    )
                    .as_str()
                ),
                "{size}"
            );
        }
        assert_eq!(dir_listing(&tmp.dir), Vec::<String>::new(), "{size}");
    }
}
