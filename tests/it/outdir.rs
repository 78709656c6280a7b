//! The output folder (issue 13, items 2, 6 and 7): files a run or a report writes are never written through a
//! link planted in its folder; a second run on a folder in use is refused at once; a full disk leaves whole
//! CSV rows and no temporary file; `report` opens only CSVs named by a plain file name in the results folder.

use crate::common::*;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const SERIES_HEADER: &str = "t_s,interval_s,partial,read_ops,write_ops,read_iops,write_iops,read_bytes,write_bytes,read_bw_bytes_per_s,write_bw_bytes_per_s,read_lat_mean_us,read_lat_max_us,write_lat_mean_us,write_lat_max_us,errors,read_lat_p50_us,read_lat_p99_us,read_lat_p99_9_us,write_lat_p50_us,write_lat_p99_us,write_lat_p99_9_us";
const DEVICE_HEADER: &str = "t_s,host_write_bytes,flash_write_bytes,gc_copy_bytes,erased_blocks,free_blocks,write_amplification";

/// A workload on a simulated drive: `rate` writes per second for `duration`, one row per `interval`.
fn sim_workload(name: &str, duration: &str, interval: &str, rate: u32) -> String {
    format!(
        "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\n\
         read_percent = 0\nduration = \"{duration}\"\ninterval = \"{interval}\"\nrate_iops = {rate}\n"
    )
}

/// The names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// A file holding "keep", to be pointed at.
fn victim(dir: &Path, name: &str) -> PathBuf {
    write_file(dir, name, "keep")
}

fn assert_kept(victims: &[&Path]) {
    for v in victims {
        assert_eq!(fs::read_to_string(v).unwrap(), "keep", "{}", v.display());
    }
}

fn is_link(p: &Path) -> bool {
    fs::symlink_metadata(p).unwrap().is_symlink()
}

/// Links named as the run's temporary file, series CSV and device CSV, and a hard link named as a second
/// series CSV: the run completes, every victim is unchanged; each CSV is a new file of its own (header and
/// one row per interval); the planted `results.json.tmp` is left as it was, no other temporary file stays.
#[test]
fn planted_links_in_the_output_folder_are_replaced_not_followed() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("out");
    fs::create_dir(&out).unwrap();
    let v: Vec<PathBuf> = (1..=4).map(|i| victim(d, &format!("victim{i}"))).collect();
    symlink(&v[0], out.join("results.json.tmp")).unwrap();
    symlink(&v[1], out.join("00-w.csv")).unwrap();
    symlink(&v[2], out.join("00-w.device.csv")).unwrap();
    fs::hard_link(&v[3], out.join("01-x.csv")).unwrap();
    let body = sim_workload("w", "3s", "1s", 10) + &sim_workload("x", "2s", "1s", 10);
    let (o, out) = run_spec(d, "planted", &body, Path::new("sim:capacity=1GiB"), &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    assert_kept(&[&v[0], &v[1], &v[2], &v[3]]);
    assert_eq!(
        names(&out),
        [
            "00-w.csv",
            "00-w.device.csv",
            "00-w.hlog",
            "01-x.csv",
            "01-x.device.csv",
            "01-x.hlog",
            "results.json",
            "results.json.tmp"
        ]
    );
    assert!(is_link(&out.join("results.json.tmp")));
    assert_eq!(fs::read_link(out.join("results.json.tmp")).unwrap(), v[0]);
    for (csv, header, rows) in [
        ("00-w.csv", SERIES_HEADER, 3),
        ("00-w.device.csv", DEVICE_HEADER, 3),
        ("01-x.csv", SERIES_HEADER, 2),
    ] {
        let p = out.join(csv);
        assert!(!is_link(&p), "{csv}");
        let text = fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], header, "{csv}");
        assert_eq!(lines.len(), 1 + rows, "{csv}: {text}");
    }
    let (_, r) = strict_results(&out);
    assert_eq!(r["status"], "completed");
}

/// `-o` naming a symbolic link to a folder: refused (exit 2) before anything is written, the target file
/// not created and the folder the link points to left empty.
#[test]
fn a_linked_output_folder_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    fs::create_dir(d.join("real")).unwrap();
    symlink(d.join("real"), d.join("out")).unwrap();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1s\"\n";
    let (o, _) = run_spec(
        d,
        "linked",
        body,
        &d.join("t.img"),
        &["--target-size", "16MiB"],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: the output folder {} is a symbolic link; wkrun does not write through links: give the folder it points to\n",
            d.join("out").display()
        )
    );
    assert!(names(&d.join("real")).is_empty());
    assert!(!d.join("t.img").exists());
}

/// Two runs on one output folder: the second is refused at once (exit 2, within a second, naming the first
/// run's pid), creates no target, and the first completes.
#[test]
fn a_second_run_on_a_folder_in_use_is_refused_at_once() {
    let dir = tempdir();
    let d = dir.path();
    let spec = write_file(
        d,
        "busy.toml",
        &spec_text(
            "busy",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"2s\"\n",
        ),
    );
    let run = |target: &str| {
        let mut c = Command::new(wkrun_bin());
        c.arg(&spec)
            .args([
                "--target",
                target,
                "--target-size",
                "16MiB",
                "-o",
                "out",
                "-q",
            ])
            .current_dir(d);
        c
    };
    let mut first = run("t1.img").spawn().unwrap();
    // The first run holds the folder once it has written its first results.json.
    let until = Instant::now() + Duration::from_secs(20);
    while !d.join("out/results.json").exists() {
        assert!(Instant::now() < until, "the first run never wrote results");
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = run("t2.img").output().unwrap();
    // At once: refused while the first run's 2 s phase still runs (not after waiting for the folder).
    let first_still_running = first.try_wait().unwrap().is_none();
    let (code, _, err) = code_out_err(&second);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "error: the output folder out is in use by another wkrun run (pid {}); choose another --output folder\n",
            first.id()
        )
    );
    assert!(
        first_still_running,
        "the second run was refused only after the first had ended"
    );
    assert!(!d.join("t2.img").exists());
    let status = first.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let (_, r) = strict_results(&d.join("out"));
    assert_eq!(r["status"], "completed");
    assert_eq!(r["phases"].as_array().unwrap().len(), 1);
    assert_eq!(
        names(&d.join("out")),
        ["00-w.counters.csv", "00-w.csv", "00-w.hlog", "results.json"]
    );
}

/// Checks a CSV written on a full disk: it ends with a line end, its first line is `header`, and its rows
/// are whole and consecutive: row k (from 1) ends at k ms, but the last, which may end within its interval
/// (the phase ends at the first row a file cannot take). Returns the number of rows.
fn whole_rows(path: &Path, header: &str, fields: usize) -> usize {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "{}: a torn last row", path.display());
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "{}", path.display());
    let rows: Vec<&str> = lines.collect();
    let mut n = 0;
    for (k, line) in rows.iter().enumerate() {
        if k + 1 == rows.len() {
            let t: f64 = line.split(',').next().unwrap().parse().unwrap();
            let (from, to) = (k as f64 / 1000.0, (k + 1) as f64 / 1000.0);
            assert!(
                from < t && t <= to,
                "{} last row ends at {t}",
                path.display()
            );
            assert_eq!(
                line.split(',').count(),
                fields,
                "{}: {line}",
                path.display()
            );
            n += 1;
            continue;
        }
        let cols: Vec<&str> = line.split(',').collect();
        assert_eq!(
            cols.len(),
            fields,
            "{} row {}: {line}",
            path.display(),
            k + 1
        );
        let t: f64 = cols[0].parse().unwrap();
        assert_eq!(
            t,
            (k + 1) as f64 / 1000.0,
            "{} row {}",
            path.display(),
            k + 1
        );
        n += 1;
    }
    n
}

/// The output folder on a 64 KiB tmpfs and a run writing about 1 MB of CSV rows (a simulated drive, 10,000
/// intervals of 1 ms): exit 1 with an error naming ENOSPC; each CSV holds its header and whole consecutive
/// rows only; no temporary file (nor the reserve) is left; results.json is a valid document saying "failed"
/// with the error printed.
#[test]
fn a_full_disk_leaves_whole_rows_and_no_temporary_file() {
    let dir = tempdir();
    let d = dir.path();
    let m = match Mount::tmpfs(d.join("full"), "64k") {
        Ok(m) => m,
        Err(why) => return skip("a_full_disk_leaves_whole_rows_and_no_temporary_file", &why),
    };
    let spec = write_file(
        d,
        "full.toml",
        &spec_text("full", &sim_workload("w", "10s", "1ms", 1000)),
    );
    let o = wkrun(
        d,
        &[
            spec.to_str().unwrap(),
            "--target",
            "sim:capacity=1GiB",
            "-o",
            "full/out",
            "-q",
        ],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: phase \"w\": cannot write full/out/00-w."),
        "{err}"
    );
    assert!(
        err.contains(": No space left on device (os error 28)"),
        "{err}"
    );
    let out = m.dir.join("out");
    assert_eq!(
        names(&out),
        ["00-w.csv", "00-w.device.csv", "00-w.hlog", "results.json"]
    );
    let series = whole_rows(&out.join("00-w.csv"), SERIES_HEADER, 22);
    let device = whole_rows(&out.join("00-w.device.csv"), DEVICE_HEADER, 7);
    assert!(series > 0 && series < 10_000, "{series} series rows");
    assert!(device < 10_000, "{device} device rows");
    // The room kept for the last write (results.json.reserve, the document and 16 KiB where the 64 KiB
    // tmpfs has no room for more) takes it: "failed", never the "running" of the last version.
    let (_, r) = strict_results(&out);
    assert_eq!(r["status"], "failed");
    assert_eq!(
        format!("error: {}\n", r["error"].as_str().unwrap()),
        err,
        "the error written is the one printed"
    );
}

fn fixture_run(dest: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report/run-a");
    fs::create_dir_all(dest).unwrap();
    for e in fs::read_dir(src).unwrap() {
        let p = e.unwrap().path();
        fs::copy(&p, dest.join(p.file_name().unwrap())).unwrap();
    }
}

/// Links named as `index.html` and an SVG in the report folder: replaced by the new files, the victims
/// unchanged. A report folder that is itself a link is refused (exit 2) and nothing written where it points.
#[test]
fn report_replaces_planted_links_and_refuses_a_linked_folder() {
    let dir = tempdir();
    let d = dir.path();
    fixture_run(&d.join("run"));
    fs::create_dir(d.join("run/report")).unwrap();
    let (v1, v2) = (victim(d, "victim1"), victim(d, "victim2"));
    symlink(&v1, d.join("run/report/index.html")).unwrap();
    symlink(&v2, d.join("run/report/01-fill-percentiles.svg")).unwrap();
    let o = wkrun(d, &["report", "run/results.json"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "report: run/report/index.html (63 plots)\n");
    assert_kept(&[&v1, &v2]);
    for f in ["index.html", "01-fill-percentiles.svg"] {
        let p = d.join("run/report").join(f);
        assert!(!is_link(&p), "{f}");
        assert!(fs::read_to_string(&p).unwrap().len() > 1000, "{f}");
    }
    assert_eq!(
        names(&d.join("run/report")).len(),
        64,
        "63 plots and index.html"
    );
    // The report folder itself a link.
    fixture_run(&d.join("run2"));
    fs::create_dir(d.join("elsewhere")).unwrap();
    symlink(d.join("elsewhere"), d.join("run2/report")).unwrap();
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "run2/results.json"]));
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "error: the report folder run2/report is a symbolic link; wkrun does not write through links: give the folder it points to\n"
    );
    assert!(names(&d.join("elsewhere")).is_empty());
}

/// Sets `field` (a JSON pointer) of `run/results.json` to `value`.
fn patch(run: &Path, pointer: &str, value: serde_json::Value) {
    let p = run.join("results.json");
    let mut r: serde_json::Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    *r.pointer_mut(pointer).unwrap() = value;
    fs::write(&p, serde_json::to_string_pretty(&r).unwrap()).unwrap();
}

/// A results file whose `series_csv` or `device_csv` is a path rather than a file name in its folder:
/// `report` (and `compare`) refuse it with exit 2, naming the file and the field, and write nothing; a
/// series CSV that is a link is refused too.
#[test]
fn report_refuses_csv_names_outside_the_results_folder() {
    let dir = tempdir();
    let d = dir.path();
    for (i, bad) in ["../../etc/passwd", "/proc/self/environ", "..", ""]
        .into_iter()
        .enumerate()
    {
        let run = d.join(format!("run{i}"));
        fixture_run(&run);
        patch(&run, "/phases/1/series_csv", bad.into());
        let want = format!(
            "error: run{i}/results.json: phases[1].series_csv = {bad:?} is not a file name in the results folder (a plain name, without `/`); refused\n"
        );
        let results = format!("run{i}/results.json");
        for cmd in ["report", "compare"] {
            let (code, _, err) = code_out_err(&wkrun(d, &[cmd, &results]));
            assert_eq!((code, err.as_str()), (2, want.as_str()), "{cmd} {bad:?}");
        }
        assert!(!run.join("report").exists());
    }
    // A histogram log named by a path (found by the attack of session 6: merge read /etc/passwd, and
    // /dev/zero without bound): refused by every reader, merge too, before anything is read or written.
    let run = d.join("hlog");
    for folder in ["hlog", "other"] {
        fixture_run(&d.join(folder));
        let p = d.join(folder).join("results.json");
        let mut r: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
        r["phases"][1]["hist_log"] = "../../etc/passwd".into();
        fs::write(&p, serde_json::to_string_pretty(&r).unwrap()).unwrap();
    }
    let want = "error: hlog/results.json: phases[1].hist_log = \"../../etc/passwd\" is not a file name in the results folder (a plain name, without `/`); refused\n";
    for args in [
        &["report", "hlog/results.json"][..],
        &["compare", "hlog/results.json"],
        &["merge", "hlog", "other", "-o", "merged"],
    ] {
        let (code, _, err) = code_out_err(&wkrun(d, args));
        assert_eq!((code, err.as_str()), (2, want), "{args:?}");
    }
    assert!(!d.join("merged").exists() && !run.join("report").exists());
    // A series CSV in the folder that links elsewhere.
    let run = d.join("linked");
    fixture_run(&run);
    fs::remove_file(run.join("01-fill.csv")).unwrap();
    symlink("/etc/passwd", run.join("01-fill.csv")).unwrap();
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "linked/results.json"]));
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "error: series linked/01-fill.csv: a symbolic link; not followed\n"
    );
    assert!(!run.join("report").exists());
    // A simulated drive's device CSV named by a path.
    let body = sim_workload("w", "2s", "1s", 10);
    let (o, out) = run_spec(d, "dev", &body, Path::new("sim:capacity=1GiB"), &[]);
    assert_eq!(o.status.code(), Some(0));
    patch(&out, "/phases/0/device/device_csv", "../00-w.csv".into());
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "out/results.json"]));
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "error: out/results.json: phases[0].device.device_csv = \"../00-w.csv\" is not a file name in the results folder (a plain name, without `/`); refused\n"
    );
}

/// A file target that is one of the files a run writes into its output folder (its `results.json`, reserve
/// or a series CSV; found by the attack session): the run removed or replaced it (`--target o/00-fill.csv`
/// with the user's data: the file was unlinked when the CSV was created, and the run reported "completed"
/// on a target gone). Refused before anything is written, also with several targets (the top folder gets
/// the aggregate's files); a target file of another name in the folder runs.
#[test]
fn a_target_named_like_a_file_the_run_writes_in_its_folder_is_refused() {
    let d = tempdir();
    let dir = d.path();
    let fill = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"64KiB\"\n";
    write_file(dir, "s.toml", &spec_text("o", fill));
    // The output folder itself as the target, still to be created: the folder was made first, and the
    // target's creation failed with "File exists".
    for extra in [&[][..], &["--target", "b.img"][..]] {
        let mut args = vec![
            "s.toml",
            "--target",
            "o",
            "-o",
            "o",
            "--target-size",
            "1MiB",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = code_out_err(&wkrun(dir, &args));
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                "error: the target o is the output folder o; nothing was written: name a file or a device as the target, and another folder with --output\n"
            )
        );
        assert_eq!(names(dir), ["s.toml"], "{args:?}");
    }
    fs::create_dir(dir.join("o")).unwrap();
    patterned_file(&dir.join("o/00-fill.csv"), 1 << 20);
    let data = read(&dir.join("o/00-fill.csv"));
    for (name, extra) in [
        ("00-fill.csv", &[][..]),
        ("results.json", &["--target-size", "1MiB"][..]),
        ("results.json.reserve", &["--target-size", "1MiB"][..]),
        (
            "00-fill.csv",
            &["--target", "a.img", "--target-size", "1MiB"][..],
        ),
    ] {
        let t = format!("o/{name}");
        let mut args = vec!["s.toml", "--target", &t, "-o", "o", "-q"];
        args.extend_from_slice(extra);
        let (code, out, err) = code_out_err(&wkrun(dir, &args));
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                format!("error: the target o/{name} is {name} in the output folder o, which the run writes: it would replace the target and its data; nothing was written: choose another target path or --output folder\n").as_str()
            ),
            "{args:?}"
        );
        assert_eq!(names(&dir.join("o")), ["00-fill.csv"], "{args:?}");
        assert_eq!(read(&dir.join("o/00-fill.csv")), data, "{args:?}");
        assert!(!dir.join("a.img").exists(), "{args:?}");
    }
    let (code, _, err) = code_out_err(&wkrun(
        dir,
        &[
            "s.toml",
            "--target",
            "o/t.img",
            "--target-size",
            "1MiB",
            "-o",
            "o",
            "-q",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        names(&dir.join("o")),
        [
            "00-fill.counters.csv",
            "00-fill.csv",
            "00-fill.hlog",
            "results.json",
            "t.img"
        ]
    );
}

/// A folder made immutable (`chattr +i`) for a test; made mutable again on drop, also when the test panics,
/// so that the temporary folder can be removed.
struct Immutable(PathBuf);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// Issue 24 item 15: an existing output folder the run cannot write into (immutable, as root; root's own
/// 755 folder, as user nobody) let the 8 MiB target be created and preallocated first, then failed with exit
/// 1 at `results.json`, leaving the target. Now a file is made (and removed) in the folder when it is opened,
/// so it is refused with exit 2 before the target exists, and the folder is left empty.
#[test]
fn an_existing_output_folder_that_cannot_be_written_is_refused_before_the_target_is_created() {
    let test = "outdir::an_existing_output_folder_that_cannot_be_written_is_refused_before_the_target_is_created";
    if !is_root() {
        return skip(test, "not running as root: chattr +i and setpriv need root");
    }
    let dir = tempdir();
    let d = dir.path();
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"1MiB\"\n";
    write_file(d, "f.toml", &spec_text("f", fill));
    // Refused, naming the folder and the OS error: nothing in the folder, no target.
    let refused = |o: &std::process::Output, folder: &str, target: &str, why: &str| {
        let (code, _, err) = code_out_err(o);
        assert_eq!(code, 2, "{err}");
        let want = format!(
            "error: cannot write into the output folder {folder}: {why}; choose another --output folder"
        );
        assert_eq!(err.lines().last(), Some(want.as_str()));
        assert!(!d.join(target).exists(), "{target} was created");
        assert_eq!(names(&d.join(folder)), Vec::<String>::new());
    };
    let args = |target: &'static str, folder: &'static str| {
        [
            "f.toml",
            "--target",
            target,
            "--target-size",
            "8MiB",
            "-q",
            "-o",
            folder,
        ]
    };
    let out = d.join("frozen");
    fs::create_dir(&out).expect("mkdir frozen");
    let chattr = Command::new("chattr").arg("+i").arg(&out).output();
    let _thaw = Immutable(out.clone());
    match chattr {
        Ok(o) if o.status.success() => refused(
            &wkrun(d, &args("t.img", "frozen")),
            "frozen",
            "t.img",
            "the folder is immutable (chattr +i): no file can be made in it; chattr -i to write it",
        ),
        other => skip(test, &format!("chattr +i failed here: {other:?}")),
    }

    // Root's folder, mode 755, as user nobody: the tests' folder opened to nobody, the output folder not.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).expect("chmod 777");
    let ro = d.join("ro");
    fs::create_dir(&ro).expect("mkdir ro");
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).expect("chmod 755");
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(wkrun_bin())
        .args(args("nobody.img", "ro"))
        .current_dir(d)
        .output();
    match o {
        Ok(o) => refused(&o, "ro", "nobody.img", "Permission denied (os error 13)"),
        Err(e) => skip(test, &format!("setpriv cannot run here: {e}")),
    }
}

/// Every file a run or a merge writes into a results folder has a name that needs no quoting in a shell
/// (`[A-Za-z0-9._-]`): a swept phase `w[op=50%]` writes `03-w_op-50pct.csv`, where its CSV was
/// `03-w[op=50%].csv` (issue 24 item 7); the phase's name stays in `results.json`, beside the file's. An
/// older results folder with the bracketed names is still read by `report`, `compare` and `merge`, which
/// take the names from its `results.json`; the merge writes today's names.
#[test]
fn results_file_names_need_no_shell_quoting_and_older_names_are_still_read() {
    let tmp = tempdir();
    let d = tmp.path();
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\n\
                [[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 50\nduration = \"1s\"\n\
                [[sweep]]\nname = \"op\"\nphases = [\"fill\", \"w\"]\nspan = [\"100%\", \"50%\"]\n";
    write_file(d, "s.toml", &spec_text("names", body));
    let sim = "sim:capacity=64MiB,op=7%,block=256KiB";
    let (code, _, err) = code_out_err(&wkrun(d, &["s.toml", "--target", sim, "-o", "r", "-q"]));
    assert_eq!(code, 0, "{err}");
    let stems = [
        "00-fill_op-100pct",
        "01-w_op-100pct",
        "02-fill_op-50pct",
        "03-w_op-50pct",
    ];
    let mut want: Vec<String> = stems
        .iter()
        .flat_map(|s| {
            [
                format!("{s}.csv"),
                format!("{s}.device.csv"),
                format!("{s}.hlog"),
            ]
        })
        .collect();
    want.push("results.json".into());
    want.sort();
    assert_eq!(names(&d.join("r")), want);
    let phase_names = ["fill[op=100%]", "w[op=100%]", "fill[op=50%]", "w[op=50%]"];
    let r = results(&d.join("r"));
    for (i, (name, stem)) in phase_names.iter().zip(stems).enumerate() {
        let p = &r["phases"][i];
        assert_eq!(p["name"], *name);
        assert_eq!(p["series_csv"], format!("{stem}.csv"));
        assert_eq!(p["device"]["device_csv"], format!("{stem}.device.csv"));
    }
    // An older run: the same folder with the CSVs under the names runs gave them before.
    let old = d.join("old");
    fs::create_dir(&old).unwrap();
    let mut r = r;
    for (i, (name, stem)) in phase_names.iter().zip(stems).enumerate() {
        for (ext, pointer) in [
            ("csv", "series_csv"),
            ("device.csv", "device/device_csv"),
            ("hlog", "hist_log"),
        ] {
            let was = format!("{:02}-{name}.{ext}", i);
            fs::copy(d.join(format!("r/{stem}.{ext}")), old.join(&was)).unwrap();
            *r.pointer_mut(&format!("/phases/{i}/{pointer}")).unwrap() = was.into();
        }
    }
    fs::write(
        old.join("results.json"),
        serde_json::to_string_pretty(&r).unwrap(),
    )
    .unwrap();
    let (code, out, err) = code_out_err(&wkrun(d, &["compare", "r", "old"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("w[op=50%]"), "{out}");
    for run in ["r", "old"] {
        let (code, out, err) =
            code_out_err(&wkrun(d, &["report", run, "-o", &format!("rep-{run}")]));
        assert_eq!((code, err.as_str()), (0, ""), "{run}");
        assert!(out.starts_with("report: "), "{out}");
    }
    assert_eq!(names(&d.join("rep-old")), names(&d.join("rep-r")));
    assert!(names(&d.join("rep-old")).contains(&"03-w_op-50pct-iops-log-write.svg".to_string()));
    let (code, _, err) = code_out_err(&wkrun(d, &["merge", "old", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let mut want: Vec<String> = stems
        .iter()
        .flat_map(|s| [format!("{s}.csv"), format!("{s}.hlog")])
        .collect();
    want.push("results.json".into());
    assert_eq!(names(&d.join("m")), want);
    let m = results(&d.join("m"));
    assert_eq!(m["phases"][3]["name"], "w[op=50%]");
    assert_eq!(m["phases"][3]["series_csv"], "03-w_op-50pct.csv");
}

/// The attack of issue 24's closing session: an append-only output folder (`chattr +a`: files can be made,
/// not removed or replaced) and a file-size limit below what results.json may need were let through, then
/// the run failed (exit 1) leaving temporary files, or results "running"; both are refused before
/// anything is written.
#[test]
fn an_append_only_output_folder_and_a_tiny_file_size_limit_are_refused_first() {
    let test = "outdir::an_append_only_output_folder_and_a_tiny_file_size_limit_are_refused_first";
    if !is_root() {
        return skip(test, "not running as root: chattr +a needs root");
    }
    let dir = tempdir();
    let d = dir.path();
    write_file(
        d,
        "s.toml",
        &spec_text(
            "s",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"200ms\"\n",
        ),
    );
    let app = d.join("app");
    fs::create_dir(&app).expect("mkdir");
    if !Command::new("chattr")
        .arg("+a")
        .arg(&app)
        .status()
        .is_ok_and(|s| s.success())
    {
        return skip(test, "chattr +a failed here");
    }
    let o = wkrun(
        d,
        &[
            "s.toml",
            "--target",
            "sim:capacity=64MiB,op=28%,block=256KiB",
            "-o",
            "app",
            "-q",
        ],
    );
    let _ = Command::new("chattr").arg("-a").arg(&app).status();
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: cannot write into the output folder app: the folder is append-only (chattr +a): results.json could not be replaced in it; choose another --output folder"
    );
    assert_eq!(names(&app), Vec::<String>::new());
    let o = Command::new("prlimit")
        .args([
            "--fsize=5000",
            wkrun_bin(),
            "s.toml",
            "--target",
            "sim:capacity=64MiB,op=28%,block=256KiB",
            "-o",
            "small",
            "-q",
        ])
        .current_dir(d)
        .output()
        .expect("prlimit");
    let (code, _, err) = code_out_err(&o);
    // A resource limit: exit 1 (it was 2, as for bad input), nothing written, and said so.
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: cannot write into the output folder small: the file-size limit (RLIMIT_FSIZE, ulimit -f) is 5000 B, less than the 65536 B a run's results.json may need: raise it (ulimit -f) or remove it; nothing was written"
    );
    assert!(!d.join("small").exists(), "a folder was left");
}

/// An output folder among `/dev`'s device nodes or on the kernel's pseudo file systems is refused before
/// anything is made (exit 2): `-o /dev/x` was made in /dev and filled with results (issue 24, round 2). A
/// report folder too.
#[test]
fn an_output_folder_on_no_storage_is_refused() {
    let d = tempdir();
    write_file(
        d.path(),
        "s.toml",
        &spec_text(
            "nostore",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nsize = \"64KiB\"\n",
        ),
    );
    let name = format!("wkrun-test-out-{}", std::process::id());
    for (dir, on) in [
        (format!("/dev/{name}"), "/dev's device nodes"),
        ("/dev".to_string(), "/dev's device nodes"),
        (format!("/proc/{name}"), "procfs"),
        (format!("/sys/{name}/r"), "sysfs"),
    ] {
        let args = [
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            &dir,
        ];
        let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                2,
                "",
                format!("error: the output folder {dir} would be on {on}, not on storage; choose another folder\n").as_str()
            )
        );
        assert!(
            !d.path().join("t.img").exists(),
            "{dir}: the target was created"
        );
    }
    assert!(!std::path::Path::new(&format!("/dev/{name}")).exists());
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "1MiB",
        "-o",
        "out",
    ];
    assert_eq!(code_out_err(&wkrun(d.path(), &args)).0, 0);
    let report = format!("/dev/{name}-report");
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["report", "out", "-o", &report]));
    assert_eq!(
        (code, err),
        (
            2,
            format!(
                "error: the report folder {report} would be on /dev's device nodes, not on storage; choose another folder\n"
            )
        )
    );
    assert!(!std::path::Path::new(&report).exists());
}

/// Runs of one spec started in the same second with no `-o` (a loop starting it on several hosts' sims, or a
/// sub-second run started twice in a row) each get a default folder of their own: the timed name, taken
/// (holding results, or in use), is followed by `-2`, `-3`, ... Before, the second run exited 2 with
/// "wkrun-results/NAME-TIME already holds results.json" or "is in use by another wkrun run".
#[test]
fn runs_started_in_one_second_get_default_folders_of_their_own() {
    let dir = tempdir();
    let d = dir.path();
    let spec = write_file(
        d,
        "same.toml",
        &spec_text("same", &sim_workload("w", "1s", "100ms", 200)),
    );
    // Every timed name of the next 10 s already holds results: the run takes the first free `-N` of its own
    // second's name, and leaves the taken folders as they were.
    let now = std::time::SystemTime::now();
    let timed = |s: u64| {
        let t = now + Duration::from_secs(s);
        let t = humantime::format_rfc3339_seconds(t)
            .to_string()
            .replace(':', "");
        format!("same-{t}")
    };
    for s in 0..10 {
        let taken = d.join("wkrun-results").join(timed(s));
        fs::create_dir_all(&taken).unwrap();
        write_file(&taken, "results.json", "keep");
    }
    let run = || {
        let mut c = Command::new(wkrun_bin());
        c.arg(&spec)
            .args(["--target", "sim:capacity=1GiB", "-q"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .current_dir(d);
        c
    };
    // Two runs at once: both complete, each in its own folder.
    let (a, b) = (run().spawn().unwrap(), run().spawn().unwrap());
    for child in [a, b] {
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let mut made: Vec<String> = names(&d.join("wkrun-results"))
        .into_iter()
        .filter(|n| !(0..10).any(|s| *n == timed(s)))
        .collect();
    made.sort();
    assert_eq!(made.len(), 2, "{made:?}");
    for n in &made {
        let (stem, k) = n.rsplit_once('-').unwrap();
        assert!((0..10).any(|s| stem == timed(s)), "{n}");
        assert!(["2", "3"].contains(&k), "{n}");
        let (_, r) = strict_results(&d.join("wkrun-results").join(n));
        assert_eq!(r["status"], "completed");
        assert_eq!(r["phases"][0]["write"]["ops"], 200);
    }
    for s in 0..10 {
        let taken = d.join("wkrun-results").join(timed(s));
        assert_eq!(names(&taken), ["results.json"]);
        assert_kept(&[&taken.join("results.json")]);
    }
}

/// Attack 24c F11: the output folder moved away during a run and a link to another folder put in its
/// place. The run writes on through its descriptor into the moved folder; its results are read back there
/// and named by the new path, with a warning (once: exit 3, "cannot read back orep/results.json", after
/// `done: orep/results.json`); nothing is written into the link's folder.
#[test]
fn an_output_folder_moved_during_the_run_is_read_back_where_it_went() {
    let dir = tempdir();
    let d = &fs::canonicalize(dir.path()).unwrap();
    let spec = write_file(
        d,
        "mv.toml",
        &spec_text(
            "mv",
            "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"2s\"\n",
        ),
    );
    fs::create_dir(d.join("victim")).unwrap();
    let run = Command::new(wkrun_bin())
        .arg(&spec)
        .args([
            "--target",
            "t.img",
            "--target-size",
            "16MiB",
            "-o",
            "orep",
            "-q",
        ])
        .current_dir(d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while !d.join("orep/results.json").exists() {
        assert!(Instant::now() < until, "the run never wrote results");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    fs::rename(d.join("orep"), d.join("orep.moved")).unwrap();
    symlink(d.join("victim"), d.join("orep")).unwrap();
    let o = run.wait_with_output().unwrap();
    let (code, out, err) = code_out_err(&o);
    let moved = d.join("orep.moved");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        format!(
            "warning: the output folder orep was moved during the run, to {}: the results are there (nothing was written into what orep names now)\n",
            moved.display()
        )
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "results: orep");
    assert_eq!(
        lines[lines.len() - 2],
        format!("done: {}/results.json", moved.display())
    );
    assert!(
        lines[lines.len() - 1].starts_with(&format!("next: wkrun report {}", moved.display())),
        "{out}"
    );
    assert_eq!(names(&d.join("victim")), Vec::<String>::new());
    let (_, r) = strict_results(&moved);
    assert_eq!(r["status"], "completed");
    assert_eq!(
        names(&moved),
        ["00-w.counters.csv", "00-w.csv", "00-w.hlog", "results.json"]
    );
    let v = wkrun(d, &["validate", "orep.moved"]);
    assert_eq!(code_out_err(&v).0, 0);
}
