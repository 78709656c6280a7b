//! Trial 22 F4 (attack 22 I3): `wkrun export fio` takes `--target` and `--target-size` as `wkrun run` and
//! `wkrun plan` do: the job file's `filename=` (and `filesize=` for a file to create) are theirs, checked
//! as `wkrun plan` checks them, nothing created; what the run would refuse at plan time is refused with
//! exit 2 and no job file.

use crate::common::{code_out_err, spec_text, tempdir, wkrun, write_file};

/// A spec on `spec.img` (64 MiB) with one random-read phase over 1 MiB.
const BODY: &str = "[target]\npath = \"spec.img\"\nsize = \"64MiB\"\n[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 100\nblock_size = \"4KiB\"\nspan = \"1MiB\"\nduration = \"1s\"\n";

/// The lines of the job file's `[global]` section naming files.
fn file_lines(job: &str) -> Vec<&str> {
    job.lines()
        .filter(|l| l.starts_with("filename=") || l.starts_with("filesize="))
        .collect()
}

#[test]
fn export_fio_takes_the_targets_a_run_takes() {
    let d = tempdir();
    write_file(d.path(), "s.toml", &spec_text("s", BODY));
    let export = |extra: &[&str]| {
        let mut a = vec!["export", "fio", "s.toml", "-o", "s.fio"];
        a.extend(extra);
        let _ = std::fs::remove_file(d.path().join("s.fio"));
        let r = code_out_err(&wkrun(d.path(), &a));
        let job = std::fs::read_to_string(d.path().join("s.fio")).ok();
        (r, job)
    };
    // The spec's own target.
    let ((code, _, err), job) = export(&[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(file_lines(&job.expect("job")), ["filename=spec.img"]);
    // A file to create, of --target-size; nothing is created.
    let ((code, _, err), job) = export(&["--target", "new.img", "--target-size", "8MiB"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(file_lines(&job.expect("job")), ["filename=new.img"]);
    assert!(!d.path().join("new.img").exists());
    // An existing file: no size, as a run ignores it (and says so).
    std::fs::write(d.path().join("old.img"), vec![0u8; 4 << 20]).expect("old.img");
    let ((code, _, err), job) = export(&["--target", "old.img", "--target-size", "8MiB"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(file_lines(&job.expect("job")), ["filename=old.img"]);
    assert!(
        err.contains("note: old.img exists: the target size setting is ignored"),
        "{err}"
    );
    // Several targets: a job per target, each naming its file.
    let ((code, _, err), job) = export(&["--target", "old.img", "--target", "b.img"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        file_lines(&job.expect("job")),
        ["filename=old.img", "filename=b.img"]
    );
    // What plan refuses, export refuses the same way: exit 2, no job file.
    std::fs::write(d.path().join("small.img"), vec![0u8; 512 << 10]).expect("small.img");
    let plan = code_out_err(&wkrun(
        d.path(),
        &["plan", "s.toml", "--target", "small.img"],
    ));
    assert_eq!(plan.0, 2, "{}", plan.2);
    let ((code, out, err), job) = export(&["--target", "small.img"]);
    assert_eq!((code, out.as_str(), job), (2, "", None));
    assert_eq!(err, plan.2);
    let ((code, _, err), job) = export(&["--target", "sim:capacity=1GiB", "--target", "old.img"]);
    assert_eq!((code, job), (2, None), "{err}");
    assert!(
        err.contains("is a simulated drive and --target old.img a real target"),
        "{err}"
    );
    // A path fio would read otherwise.
    let ((code, _, err), job) = export(&["--target", "a;b.img"]);
    assert_eq!((code, job), (2, None));
    assert_eq!(
        err,
        "error: --target a;b.img: fio cannot be given this path: it holds `;`, which fio reads as the start of a comment anywhere on a line, with no escape for it: fio would open the path cut before it\nnothing was written\n"
    );
}
