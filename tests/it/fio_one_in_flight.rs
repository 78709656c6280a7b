//! Import 25: fio's engines that keep one I/O in flight whatever `iodepth` says (fio's sources flag them
//! `FIO_SYNCIO`; `wkrun::fio::json::one_io_in_flight`, the one definition): each run by the real fio at
//! iodepth=8 for 1 s on a small file, its JSON read as queue depth 1, and `wkrun import fio` of the same
//! command line refusing the engine (none of these is a wkrun engine) in so many words, or under --lossy
//! writing queue_depth = 1. A run of about 1 s per engine.

use crate::common::{code_out_err, skip, tempdir, wkrun};
use crate::fio_trimsync::fio_json;

/// The engines and the options each needs besides the job's: fio's storage engines that read through
/// another call than pread (vsync's readv, mmap, splice) and those that do no data I/O at all. vsync counts
/// in `total_ios` the I/Os still queued for its next readv when the time ends (up to iodepth - 1 more than
/// `io_bytes` / 4096 and than `lat_ns.N`); the file operations (filecreate, filestat, filedelete) count
/// each turn as a read (millions in 1 s) but time only their one operation (`clat_ns.N` 1): both are read
/// (`wkrun::fio::plausible`, `Sizes::uncommitted` and `Sizes::timed_each`).
const ENGINES: [(&str, &[&str]); 9] = [
    ("vsync", &[]),
    ("mmap", &[]),
    ("splice", &[]),
    ("ftruncate", &["--rw=write"]),
    ("cpuio", &["--cpuload=10"]),
    ("exec", &["--program=/bin/true"]),
    ("filecreate", &[]),
    ("filestat", &[]),
    ("filedelete", &[]),
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

/// vsync's uncommitted I/Os, from real fio 3.33 files: counted as fio counts them (`total_ios`), its bytes
/// as fio moved them, and a forged file whose bytes lack more than `iodepth` - 1 blocks per job refused.
#[test]
fn vsyncs_uncommitted_ios_are_read_and_bounded() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio");
    let text = std::fs::read_to_string(data.join("fio-3.33-vsync-qd8-time.json")).unwrap();
    let r = wkrun::fio::json::from_bytes("v.json", text.as_bytes()).unwrap();
    let w = &r.phases[0].write;
    assert_eq!((w.ops, w.bytes), (142198, 582414336));
    assert_eq!(582414336 / 4096, 142198 - 7);
    // Two jobs at iodepth 16, randrw: read 9 + 4 and write 6 + 11 uncommitted.
    let two = data.join("fio-3.33-vsync-qd16-2jobs-randrw.json");
    let two = std::fs::read_to_string(two).unwrap();
    let r = wkrun::fio::json::from_bytes("v2.json", two.as_bytes()).unwrap();
    let t = &r.phases[0];
    assert_eq!((t.read.ops, t.write.ops), (13141 + 13111, 13160 + 13324));
    assert_eq!(
        (t.read.bytes / 4096, t.write.bytes / 4096),
        (13132 + 13107, 13154 + 13313)
    );
    // One more I/O counted (8 past the bytes, where iodepth - 1 = 7 may be): refused by the block-size rule.
    let forged = text
        .replace("\"total_ios\" : 142198", "\"total_ios\" : 142199")
        .replace("142055.944056", "142056.943057");
    let e = wkrun::fio::json::from_bytes("f.json", forged.as_bytes()).unwrap_err();
    assert!(
        e.contains("jobs[0].write.io_bytes is 582414336: 4095.770 B for each of its 142199 I/Os"),
        "{e}"
    );
}
