//! `wkrun export fio` of rate caps fio could not run as written (attack 29 F1, F10): a direction cap beside
//! a total cap, and a cap of 0 whole I/Os per second of each job, which fio reads as no cap. The spec's
//! caps, exported, then run by the real fio (skipped visibly without it) beside wkrun's own run.

use crate::common::tempdir;
use crate::fio_mixcap::exported as export;
use crate::fio_trial::with_fio;

/// Attack 29's fixture of a random 4 KiB workload of `read` % reads under `caps`, `workers`, libaio at
/// queue depth 4, 3 s (fixtures/cap_total_read.toml, cap_tiny_total_w2.toml).
fn spec(read: u8, caps: &str, workers: u32) -> String {
    format!(
        "format = 1\n[spec]\nname = \"cap\"\nversion = \"1\"\n[defaults]\nengine = \"libaio\"\ndirect = true\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 4\nduration = \"3s\"\nread_percent = {read}\nrate_iops = {caps}\nworkers = {workers}\n"
    )
}

/// Attack 29 F10: `rate_iops = 2` at 50 % reads over 2 workers was exported as `rate_iops=0,0`, and fio
/// ran 99,542 reads and 99,550 writes in 3 s where wkrun ran 2 reads and 4 writes. The sole phase is now
/// left out with its reason: exit 2, nothing written.
#[test]
fn a_cap_of_zero_a_job_is_left_out() {
    let d = tempdir();
    let target = d.path().join("t.img");
    let (code, err) = export(
        d.path(),
        &spec(50, "2", 2),
        target.to_str().expect("a path"),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.lines().any(|l| l == "not exported: phase w (workload): its reads at 1/s are 0 a job in fio's rate_iops (whole I/Os per second of each of 2 jobs), and fio reads a cap of 0 as no cap: fio would issue them uncapped"),
        "{err}"
    );
    assert!(!d.path().join("e.fio").exists());
}

/// Attack 29 F1 and F10 with the real fio (skipped without it), 3 s each on one file. `{ read = 100,
/// total = 400 }` at 70 % reads, which wkrun runs at 100 reads/s and 42.86 writes/s (its run: 300 reads,
/// 428 to 430 I/Os), is exported as `rate_iops=100,43`: fio 300 and 129 (one more or fewer at the edges
/// of its pacing), where the total's split, 280,120, ran 840 and 360. `rate_iops = 4` at 50 % over 2
/// workers, 1,1 a job: fio 5 to 7 reads and writes each, wkrun 12 I/Os, each worker's reads by its own
/// stream (5 to 7), where a cap of 2 exported as 0,0 ran uncapped. Measured: fio 300/129 and 6/6, wkrun
/// 300/130 and 5/7.
#[test]
fn real_fio_runs_the_exported_caps_as_wkrun_runs_the_spec() {
    let Some((d, file, _)) = with_fio(
        "real_fio_runs_the_exported_caps_as_wkrun_runs_the_spec",
        "t.img",
    ) else {
        return;
    };
    let target = file.to_str().expect("a path");
    for (read, caps, workers, line, fio_ios, ours) in [
        (
            70,
            "{ read = 100, total = 400 }",
            1,
            "rate_iops=100,43",
            (299..=301, 128..=130),
            (300..=300, 428..=430),
        ),
        (
            50,
            "4",
            2,
            "rate_iops=1,1",
            (5..=7, 5..=7),
            (5..=7, 12..=12),
        ),
    ] {
        let (code, err) = export(d.path(), &spec(read, caps, workers), target);
        assert_eq!(code, 0, "{err}");
        let job = std::fs::read_to_string(d.path().join("e.fio")).expect("the job file");
        assert!(job.contains(&format!("\n{line}\n")), "{job}");
        let ((r, w), (wr, ww), busy) = crate::fio_mixcap::run_both(d.path(), target, caps);
        assert!(
            fio_ios.0.contains(&r) && fio_ios.1.contains(&w),
            "fio {r}/{w}"
        );
        // Fewer only where the phase says its host was busy (fio_mixcap's rule).
        if busy && wr + ww < *ours.1.start() {
            continue;
        }
        assert!(
            ours.0.contains(&wr) && ours.1.contains(&(wr + ww)),
            "wkrun {wr}/{ww}"
        );
    }
}
