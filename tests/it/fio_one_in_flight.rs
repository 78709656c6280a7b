//! Import 25: fio's engines that keep one I/O in flight whatever `iodepth` says (fio's sources flag them
//! `FIO_SYNCIO`; `wkrun::fio::json::one_io_in_flight`, the one definition): each run by the real fio at
//! iodepth=8 for 1 s on a small file, its JSON read as queue depth 1, and `wkrun import fio` of the same
//! command line refusing the engine (none of these is a wkrun engine) in so many words, or under --lossy
//! writing queue_depth = 1. A run of about 1 s per engine.

use crate::common::{code_out_err, skip, tempdir, wkrun};
use crate::fio_trimsync::fio_json;

/// The engines and the options each needs besides the job's: fio's storage engines that read through
/// another call than pread (mmap, splice) and those that do no data I/O at all.
/// Not vsync: fio 3.33 counts in `total_ios` the I/Os still queued for its next readv when the time ends
/// (iodepth - 1 = 7 more than `io_bytes` / 4096 and than `lat_ns.N`), and wkrun's reader refuses that
/// output by its block-size rule (`4095.714 B for each of its 100354 I/Os`); nor the file operations
/// (filecreate, filestat, filedelete), whose reads fio counts (1969203) but times once (`clat_ns.N` 1),
/// refused by the timing rule: each left for a fix of its own.
const ENGINES: [(&str, &[&str]); 5] = [
    ("mmap", &[]),
    ("splice", &[]),
    ("ftruncate", &["--rw=write"]),
    ("cpuio", &["--cpuload=10"]),
    ("exec", &["--program=/bin/true"]),
];

/// Each engine at iodepth=8 for 1 s on a 1 MiB file: fio caps its depth at 1 (and says so); wkrun reads the
/// job's queue depth as 1 (not 8), and the import refuses the engine naming wkrun's, or under --lossy
/// drops it and writes queue_depth = 1 (fio's default psync, one I/O in flight).
#[test]
fn fios_sync_engines_keep_one_io_in_flight() {
    let test = "fio_one_in_flight::fios_sync_engines_keep_one_io_in_flight";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    for (engine, extra) in ENGINES {
        let d = tempdir();
        let ioengine = format!("--ioengine={engine}");
        let job = [
            &[
                "--name=j",
                "--filename=f",
                "--size=1M",
                "--bs=4k",
                "--rw=read",
                "--iodepth=8",
                "--runtime=1",
                "--time_based",
                ioengine.as_str(),
            ][..],
            extra,
        ]
        .concat();
        let (text, doc) = fio_json(d.path(), &job);
        assert_eq!(doc["jobs"][0]["job options"]["iodepth"], "8", "{engine}");
        assert_eq!(doc["jobs"][0]["job options"]["ioengine"], engine);
        let r = wkrun::fio::json::from_bytes("fio.json", text.as_bytes())
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(r.phases[0].params.queue_depth, Some(1), "{engine}");
        assert_eq!(r.phases[0].params.engine, None, "{engine}");
        let import = [&["import", "fio", "--"][..], &job].concat();
        let (code, out, err) = code_out_err(&wkrun(d.path(), &import));
        assert_eq!((code, out.as_str()), (2, ""), "{engine}: {err}");
        let why = format!(
            "error: fio command line, argument 9 `--ioengine={engine}`: ioengine={engine}: fio's {engine} engine has no wkrun engine (wkrun's: psync for fio's sync, psync, pvsync and pvsync2; libaio; io_uring; null; psync for fio's falloc in trim jobs) (--lossy drops it, with a comment in the spec)"
        );
        assert_eq!(err.lines().next(), Some(why.as_str()), "{err}");
        let lossy = [&["import", "fio", "--lossy", "--"][..], &job].concat();
        let (code, out, err) = code_out_err(&wkrun(d.path(), &lossy));
        assert_eq!(code, 0, "{engine}: {err}");
        let spec: toml::Table = out.parse().unwrap_or_else(|e| panic!("{e}\n{out}"));
        let qd = spec["phase"][0]
            .get("queue_depth")
            .or_else(|| spec.get("defaults")?.get("queue_depth"));
        assert_eq!(
            qd.and_then(toml::Value::as_integer),
            Some(1),
            "{engine}: {out}"
        );
    }
}
