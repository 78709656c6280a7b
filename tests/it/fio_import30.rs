//! fio's per-direction block sizes, `rate` beside `rate_iops`, and caps whose share rounds to all of one
//! direction, as `wkrun import fio` and fio's JSON reader read them (attack 29 F5, F6, F11), on real fio
//! 3.33 output (tests/data/fio/README.md) and, where fio is installed, real fio runs.

use crate::common::{code_out_err, skip, tempdir, wkrun, write_file};
use crate::fio_attack24::read;
use crate::fio_odd::doc;
use crate::fio_rate28::line;
use wkrun::vocab::Rate;

/// Attack 29 F6: `rw=randtrim --bs=4k,8k,16k --rate=,,1m` (falloc, 2 s): 128 trims of 16 KiB.
const TRIM_BS3: &str = include_str!("../data/fio/fio-3.33-a29-randtrim-bs3-rate-trim-1m.json");
/// Attack 29 F11: `rw=randrw --bs=4k --rate_iops=1000,1` (libaio, direct, 2 s): 2,000 reads, 2 writes.
const CAPS_1000_1: &str = include_str!("../data/fio/fio-3.33-a29-randrw-rate-iops-1000-1.json");

/// fio's trims of a `read,write,trim` block-size list are its third part: fio 3.33 trimmed 128 blocks of
/// 16 KiB at `rate=,,1m`, 64/s. The JSON reader read its size as unknown and its cap as 1 MiB/s of 4 KiB
/// (256); the import wrote `block_size = "4KiB"` and `rate_iops = 256`. Both read 16 KiB at 64/s now, and
/// a live fio run, where fio is installed, trims 16 KiB blocks.
#[test]
fn a_trim_job_takes_the_trim_block_size() {
    let test = "fio_import30::a_trim_job_takes_the_trim_block_size";
    let fio = doc(TRIM_BS3);
    assert_eq!(
        (
            &fio["jobs"][0]["job options"]["bs"],
            &fio["jobs"][0]["trim"]["total_ios"],
            &fio["jobs"][0]["trim"]["io_bytes"]
        ),
        (&"4k,8k,16k".into(), &128.into(), &2097152.into())
    );
    let p = &read(TRIM_BS3).phases[0].params;
    assert_eq!(
        (p.block_size_bytes, &p.rate_iops),
        (
            Some(16384),
            &Some(Rate {
                total: Some(64),
                read: None,
                write: None
            })
        )
    );
    let d = tempdir();
    let args = [
        "--name=a",
        "--filename=t.img",
        "--size=16m",
        "--ioengine=falloc",
        "--rw=randtrim",
        "--bs=4k,8k,16k",
        "--rate=,,1m",
        "--runtime=1",
        "--time_based",
    ];
    let mut import = vec!["import", "fio", "-o", "a.toml", "--"];
    import.extend(args);
    let (code, _, err) = code_out_err(&wkrun(d.path(), &import));
    assert_eq!(code, 0, "{err}");
    let spec = std::fs::read_to_string(d.path().join("a.toml")).expect("a.toml");
    assert_eq!(
        ["block_size", "rate_iops"].map(|k| line(&spec, k)),
        [Some("block_size = \"16KiB\""), Some("rate_iops = 64")],
        "{spec}"
    );
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let o = std::process::Command::new("fio")
        .current_dir(d.path())
        .args(args)
        .arg("--output-format=json")
        .output()
        .expect("run fio");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let trim = &doc(&text)["jobs"][0]["trim"];
    let ios = trim["total_ios"].as_u64().unwrap_or(0);
    // 64 trims/s for 1 s; a busy host may end one either side of the edge.
    assert!((62..=66).contains(&ios), "{text}");
    assert_eq!(trim["io_bytes"].as_u64(), Some(ios * 16384), "{text}");
    assert_eq!(read(&text).phases[0].params.block_size_bytes, Some(16384));
}

/// Attack 29 F5: fio refuses `rate` beside `rate_iops` and runs nothing; the import wrote both caps. It
/// exits 2 naming both lines and writes nothing; fio, where installed, refuses the same job file.
#[test]
fn rate_beside_rate_iops_is_refused() {
    let test = "fio_import30::rate_beside_rate_iops_is_refused";
    let d = tempdir();
    let job = "[a]\nfilename=t.img\nsize=16m\nrw=randrw\nbs=4k\nrate=1m,\nrate_iops=,100\nruntime=1\ntime_based=1\n";
    write_file(d.path(), "r.fio", job);
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["import", "fio", "r.fio", "-o", "r.toml"],
    ));
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("r.fio:7: rate_iops=,100 beside rate=1m, (r.fio:6): fio refuses a job with both (\"rate and rate_iops are mutually exclusive\") and runs nothing; keep one of them"),
        "{err}"
    );
    assert!(!d.path().join("r.toml").exists());
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let o = std::process::Command::new("fio")
        .current_dir(d.path())
        .arg("r.fio")
        .output()
        .expect("run fio");
    assert_eq!(o.status.code(), Some(1));
    let said = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("fio: rate and rate_iops are mutually exclusive"),
        "{said}"
    );
}

/// Attack 29 F11: fio's caps of 1000 reads and 1 write per second (2,000 reads and 2 writes in 2 s) give
/// 99.9 % reads, which the JSON reader and the import rounded to 100: no write. Both say 99 now.
#[test]
fn caps_of_a_small_direction_keep_it() {
    let fio = doc(CAPS_1000_1);
    assert_eq!(
        (
            &fio["jobs"][0]["read"]["total_ios"],
            &fio["jobs"][0]["write"]["total_ios"]
        ),
        (&2000.into(), &2.into())
    );
    let r = read(CAPS_1000_1);
    let p = &r.phases[0];
    assert_eq!(
        (p.params.read_percent, &p.params.rate_iops),
        (
            Some(99),
            &Some(Rate {
                total: None,
                read: Some(1000),
                write: Some(1)
            })
        )
    );
    let w: Vec<&String> = (p.warnings.iter())
        .filter(|w| w.starts_with("fio's read share follows its rate caps"))
        .collect();
    assert_eq!(
        w,
        [
            "fio's read share follows its rate caps, as `wkrun import fio` reads it: fio caps each direction and then issues whichever is behind its cap, so its mix follows the caps (1000:1), not rwmixread, when the device keeps up: 99.9 % reads, which rounds to 100 and would issue no write, where fio issues 1/s; read_percent = 99 keeps both directions, and as wkrun keeps it exact, the lower cap over its share paces the stream: reads 99/s, writes 1/s per job; params.read_percent is 99, not rwmixread=50"
        ]
    );
    let d = tempdir();
    let (code, _, err) = code_out_err(&wkrun(
        d.path(),
        &[
            "import",
            "fio",
            "-o",
            "c.toml",
            "--",
            "--name=a",
            "--filename=t.img",
            "--size=16m",
            "--rw=randrw",
            "--bs=4k",
            "--rate_iops=1000,1",
            "--runtime=2",
            "--time_based",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let spec = std::fs::read_to_string(d.path().join("c.toml")).expect("c.toml");
    assert_eq!(
        ["read_percent", "rate_iops"].map(|k| line(&spec, k)),
        [
            Some("read_percent = 99"),
            Some("rate_iops = { read = 1000, write = 1 }")
        ],
        "{spec}"
    );
}
