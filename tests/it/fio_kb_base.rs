//! Attack 22 I1: where `kb_base` stands among a job's options, as fio 3.33 reads it. A job file's section
//! is applied `kb_base` first (fio sorts a section's options by priority), the command line one option at
//! a time as written; a size an earlier section (`[global]`, the command line's options before `--name`)
//! set keeps its base. `wkrun import fio -- --name=a ... --bs=4k --kb_base=1000` wrote 4000 B blocks where
//! fio ran 4096 B I/Os. Each case below is one real fio 3.33 run on this project's build machine: the
//! bytes fio used (a block: `io_bytes / total_ios`; a size: `io_bytes` of a sequential read; an offset:
//! the first read's offset in `write_iolog`; a rate cap: `bw_bytes` over `runtime=3`, 999,789 B/s under
//! the 1,000,000 B/s cap and 1,048,226 B/s under the 1,048,576 B/s one) and what the import writes.

use crate::common::{code_out_err, skip, tempdir, wkrun, write_file};
use std::path::Path;

/// What a case measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum What {
    /// The block size (`block_size`).
    Bs,
    /// The region (`span`).
    Size,
    /// The region's start (`offset`).
    Offset,
    /// The read cap in bytes per second (`rate_iops` of 4096 B I/Os).
    Rate,
}

/// One case: fio's command line after `--name=a --filename=F --rw=read` (`{G}` before it: options before
/// the first `--name`), or a job file (`{F}` the file), the bytes fio used, and the TOML value the import
/// writes for it.
struct Case {
    name: &'static str,
    global: &'static [&'static str],
    args: &'static [&'static str],
    job: Option<&'static str>,
    what: What,
    fio: u64,
    spec: &'static str,
}

const fn cli(
    name: &'static str,
    global: &'static [&'static str],
    args: &'static [&'static str],
    what: What,
    fio: u64,
    spec: &'static str,
) -> Case {
    Case {
        name,
        global,
        args,
        job: None,
        what,
        fio,
        spec,
    }
}

const fn file(
    name: &'static str,
    job: &'static str,
    what: What,
    fio: u64,
    spec: &'static str,
) -> Case {
    Case {
        job: Some(job),
        ..cli(name, &[], &[], what, fio, spec)
    }
}

const RATE: &[&str] = &["--bs=4096", "--time_based", "--runtime=2"];

/// The cases, measured with fio 3.33.
const CASES: &[Case] = &[
    cli(
        "cli kb_base before --bs",
        &[],
        &["--kb_base=1000", "--bs=4k", "--size=64k"],
        What::Bs,
        4000,
        "\"4000B\"",
    ),
    cli(
        "cli kb_base after --bs",
        &[],
        &["--bs=4k", "--size=64k", "--kb_base=1000"],
        What::Bs,
        4096,
        "\"4KiB\"",
    ),
    cli(
        "cli global kb_base, job --bs",
        &["--kb_base=1000"],
        &["--bs=4k", "--size=64k"],
        What::Bs,
        4000,
        "\"4000B\"",
    ),
    cli(
        "cli global --bs, job kb_base",
        &["--bs=4k"],
        &["--kb_base=1000", "--size=64k"],
        What::Bs,
        4096,
        "\"4KiB\"",
    ),
    cli(
        "cli kb_base before --size",
        &[],
        &["--bs=256", "--kb_base=1000", "--size=4m"],
        What::Size,
        4_000_000,
        "\"4000000B\"",
    ),
    cli(
        "cli kb_base after --size",
        &[],
        &["--bs=256", "--size=4m", "--kb_base=1000"],
        What::Size,
        4_194_304,
        "\"4MiB\"",
    ),
    cli(
        "cli kb_base before --offset",
        &[],
        &["--bs=64", "--size=4096", "--kb_base=1000", "--offset=1m"],
        What::Offset,
        1_000_000,
        "\"1000000B\"",
    ),
    cli(
        "cli kb_base after --offset",
        &[],
        &["--bs=64", "--size=4096", "--offset=1m", "--kb_base=1000"],
        What::Offset,
        1_048_576,
        "\"1MiB\"",
    ),
    cli(
        "cli kb_base before --rate",
        &[],
        &["--kb_base=1000", "--rate=1m"],
        What::Rate,
        1_000_000,
        "{ read = 244 }",
    ),
    cli(
        "cli kb_base after --rate",
        &[],
        &["--rate=1m", "--kb_base=1000"],
        What::Rate,
        1_048_576,
        "{ read = 256 }",
    ),
    file(
        "file [global] bs then kb_base",
        "[global]\nbs=4k\nkb_base=1000\n[a]\nfilename={F}\nrw=read\nsize=64k\n",
        What::Bs,
        4000,
        "\"4000B\"",
    ),
    file(
        "file [a] kb_base then bs",
        "[a]\nfilename={F}\nrw=read\nkb_base=1000\nbs=4k\nsize=64k\n",
        What::Bs,
        4000,
        "\"4000B\"",
    ),
    file(
        "file [a] bs then kb_base",
        "[a]\nfilename={F}\nrw=read\nbs=4k\nsize=64k\nkb_base=1000\n",
        What::Bs,
        4000,
        "\"4000B\"",
    ),
    file(
        "file [global] bs, [a] kb_base",
        "[global]\nbs=4k\n[a]\nfilename={F}\nrw=read\nkb_base=1000\nsize=64k\n",
        What::Bs,
        4096,
        "\"4KiB\"",
    ),
    file(
        "file [global] kb_base, [a] bs",
        "[global]\nkb_base=1000\n[a]\nfilename={F}\nrw=read\nbs=4k\nsize=64k\n",
        What::Bs,
        4000,
        "\"4000B\"",
    ),
    file(
        "file [a] size then kb_base",
        "[a]\nfilename={F}\nrw=read\nbs=256\nsize=4m\nkb_base=1000\n",
        What::Size,
        4_000_000,
        "\"4000000B\"",
    ),
    file(
        "file [a] offset then kb_base",
        "[a]\nfilename={F}\nrw=read\nbs=64\nsize=4096\noffset=1m\nkb_base=1000\n",
        What::Offset,
        1_000_000,
        "\"1000000B\"",
    ),
    file(
        "file [global] size, [a] kb_base",
        "[global]\nsize=4m\n[a]\nfilename={F}\nrw=read\nbs=256\nkb_base=1000\n",
        What::Size,
        4_194_304,
        "\"4MiB\"",
    ),
];

impl Case {
    /// fio's arguments (without the output options), the job file written into `dir` when there is one.
    fn fio_args(&self, dir: &Path, f: &Path) -> Vec<String> {
        if let Some(job) = self.job {
            let p = write_file(dir, "j.fio", &job.replace("{F}", &f.display().to_string()));
            return vec![p.display().to_string()];
        }
        let mut a: Vec<String> = self.global.iter().map(|s| s.to_string()).collect();
        a.extend([
            "--name=a".into(),
            format!("--filename={}", f.display()),
            "--rw=read".into(),
        ]);
        if self.what == What::Rate {
            a.extend(RATE.iter().map(|s| s.to_string()));
        }
        a.extend(self.args.iter().map(|s| s.to_string()));
        a
    }

    /// The spec key this case reads.
    fn key(&self) -> &'static str {
        match self.what {
            What::Bs => "block_size",
            What::Size => "span",
            What::Offset => "offset",
            What::Rate => "rate_iops",
        }
    }
}

/// The value of `key` in the imported spec's first phase, `[defaults]` filled in, as TOML text.
fn imported(spec: &str, key: &str) -> String {
    let doc: toml::Table = spec.parse().unwrap_or_else(|e| panic!("{e}\n{spec}"));
    let phase = doc["phase"].as_array().expect("phases")[0]
        .as_table()
        .expect("a phase");
    let defaults = doc.get("defaults").and_then(|d| d.as_table());
    let v = phase
        .get(key)
        .or_else(|| defaults.and_then(|d| d.get(key)))
        .unwrap_or_else(|| panic!("no {key} in\n{spec}"));
    v.to_string()
}

/// Every case imports to the bytes fio used: what the import writes is the table's value, and (the
/// table's own check) that value in bytes is fio's, for a rate the cap over the 4096 B I/Os, rounded
/// (`--lossy`: 1,000,000 / 4096 = 244.14).
#[test]
fn kb_base_is_read_where_fio_reads_it() {
    let d = tempdir();
    let f = d.path().join("t.dat");
    std::fs::write(&f, vec![0u8; 8 << 20]).expect("write t.dat");
    for c in CASES {
        let args = c.fio_args(d.path(), &f);
        let mut cmd = vec!["import", "fio", "--lossy"];
        if c.job.is_none() {
            cmd.push("--");
        }
        cmd.extend(args.iter().map(String::as_str));
        let (code, out, err) = code_out_err(&wkrun(d.path(), &cmd));
        assert_eq!(code, 0, "{}: {err}", c.name);
        assert_eq!(imported(&out, c.key()), c.spec, "{}", c.name);
        let bytes = match c.what {
            What::Rate => c.fio / 4096,
            _ => {
                wkrun::units::Size::parse(c.spec.trim_matches('"'))
                    .expect("a size")
                    .0
            }
        };
        let want = match c.what {
            What::Rate => c
                .spec
                .trim_start_matches("{ read = ")
                .trim_end_matches(" }")
                .parse::<u64>()
                .expect("a rate"),
            _ => c.fio,
        };
        assert_eq!(bytes, want, "{}", c.name);
    }
}

/// The bytes of case `c` in fio's JSON output `j` (and, for an offset, its `write_iolog` `log`).
fn fio_bytes(c: &Case, j: &serde_json::Value, log: &Path) -> u64 {
    let r = &j["jobs"][0]["read"];
    let n = |k: &str| {
        r[k].as_u64()
            .unwrap_or_else(|| panic!("{}: no read.{k} in {j}", c.name))
    };
    match c.what {
        What::Bs => n("io_bytes") / n("total_ios"),
        What::Size => n("io_bytes"),
        What::Offset => {
            let text = std::fs::read_to_string(log).expect("fio's iolog");
            let first = text.lines().find_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.len() == 5 && w[2] == "read").then(|| w[3].parse::<u64>().expect("an offset"))
            });
            first.unwrap_or_else(|| panic!("{}: no read in\n{text}", c.name))
        }
        // fio paces under the cap; the cap is the nearer of the two bases' (1,000,000 and 1,048,576).
        What::Rate => {
            let bw = n("bw_bytes");
            [1_000_000, 1_048_576]
                .into_iter()
                .min_by_key(|cap: &u64| cap.abs_diff(bw))
                .expect("two caps")
        }
    }
}

/// The cases run by fio itself (when it is installed): fio uses the table's bytes in each.
#[test]
fn real_fio_uses_the_tables_bytes() {
    let test = "fio_kb_base::real_fio_uses_the_tables_bytes";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let f = d.path().join("t.dat");
    std::fs::write(&f, vec![0u8; 8 << 20]).expect("write t.dat");
    for c in CASES {
        let log = d.path().join("io.log");
        let _ = std::fs::remove_file(&log);
        let out = d.path().join("o.json");
        let mut args = c.fio_args(d.path(), &f);
        args.extend([
            format!("--write_iolog={}", log.display()),
            "--output-format=json".into(),
            format!("--output={}", out.display()),
        ]);
        let o = std::process::Command::new("fio")
            .args(&args)
            .current_dir(d.path())
            .output()
            .expect("run fio");
        assert!(
            o.status.success(),
            "{}: fio {args:?}: {}",
            c.name,
            String::from_utf8_lossy(&o.stderr)
        );
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("fio's JSON"))
                .expect("JSON");
        assert_eq!(fio_bytes(c, &j, &log), c.fio, "{}", c.name);
    }
}
