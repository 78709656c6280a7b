//! Attack 21: fio's json+ output held to its own latency bins, and its counts to its job's block sizes and
//! latency samples. Real fio runs (each well under two seconds, on small files) must validate; forgeries
//! edited into them are refused naming the job, the direction, the field and both numbers. The rules were
//! measured on 247 real fio 3.33 outputs (tests/data/fio/corpus.py, measure.py); these runs are a handful
//! of those kinds.

use crate::common::{code_out_err, skip, tempdir, wkrun};
use serde_json::Value;
use std::path::Path;

/// Runs fio with `args` in `dir`, its json+ output to `out`; its document.
fn fio_plus(dir: &Path, out: &str, args: &[&str]) -> Value {
    fio_as(dir, out, "json+", args)
}

/// Runs fio with `args` in `dir`, its output in `format` to `out`; its document.
fn fio_as(dir: &Path, out: &str, format: &str, args: &[&str]) -> Value {
    let o = std::process::Command::new("fio")
        .current_dir(dir)
        .args(args)
        .args([
            &format!("--output-format={format}"),
            &format!("--output={out}"),
        ])
        .output()
        .expect("run fio");
    let text = std::fs::read_to_string(dir.join(out)).expect("fio's output");
    assert!(!text.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&text[text.find('{').expect("JSON")..]).expect("JSON")
}

/// The test's own statement of fio's buckets (as its json+ output shows them): below 128 ns a key is one
/// latency; from 2^m up, 64 buckets of 2^(m-6) ns a doubling, a key its bucket's lowest plus half its width.
fn bucket(key: u64) -> (u64, u64) {
    if key < 128 {
        return (key, key);
    }
    let w = 1u64 << (63 - key.leading_zeros() - 6);
    (key - w / 2, key - w / 2 + w - 1)
}

/// The key of the bucket after `key`'s.
fn next_key(key: u64) -> u64 {
    let v = bucket(key).1 + 1;
    match v < 128 {
        true => v,
        false => v + (1u64 << (63 - v.leading_zeros() - 6)) / 2,
    }
}

/// A direction's bins, `(key, count)` by key.
fn bins(b: &Value) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = b["bins"]
        .as_object()
        .expect("bins")
        .iter()
        .map(|(k, c)| (k.parse().expect("key"), c.as_u64().expect("count")))
        .filter(|b| b.1 > 0)
        .collect();
    v.sort_unstable();
    v
}

/// `wkrun validate` and `compare` (beside the real `fio.json`) of `doc`, written to `h.json` in `dir`: exit 2
/// and `error: h.json: {want}`.
fn refused(dir: &Path, doc: &Value, want: &str) {
    std::fs::write(dir.join("h.json"), doc.to_string()).expect("write");
    for args in [
        vec!["validate", "h.json"],
        vec!["compare", "h.json", "fio.json"],
    ] {
        let (code, out, err) = code_out_err(&wkrun(dir, &args));
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (2, "", format!("error: h.json: {want}\n").as_str()),
            "{args:?}"
        );
    }
}

/// Real fio runs of the kinds the rules were measured on validate: psync, libaio at depth with a ramp
/// (its extra I/Os in io_bytes and N), group_reporting over numjobs, verify, a bssplit mix, odd
/// percentiles, and a job that failed (psync trims of a file: error 25, its failed trim in total_ios with 0
/// bytes, which wkrun refused before as more I/Os than bytes).
#[test]
fn real_fio_json_plus_outputs_validate() {
    let test = "fio_bins::real_fio_json_plus_outputs_validate";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let base = ["--filename=f", "--size=1m"];
    let aio = ["--ioengine=libaio", "--direct=1"];
    let runs: [(&str, Vec<&str>); 7] = [
        (
            "psync.json",
            vec!["--rw=randrw", "--percentile_list=1:33.3:99.5:99.95"],
        ),
        (
            "ramp.json",
            [
                &aio[..],
                &[
                    "--rw=randread",
                    "--iodepth=16",
                    "--time_based",
                    "--runtime=300ms",
                    "--ramp_time=300ms",
                    "--numjobs=2",
                    "--group_reporting",
                ],
            ]
            .concat(),
        ),
        (
            "verify.json",
            [
                &aio[..],
                &["--rw=randwrite", "--iodepth=8", "--verify=crc32c"],
            ]
            .concat(),
        ),
        ("split.json", vec!["--rw=randrw", "--bssplit=4k/50:64k/50"]),
        (
            "pairs.json",
            vec!["--rw=randrw", "--bs=4k,16k", "--numjobs=2"],
        ),
        (
            "failed.json",
            vec!["--rw=randtrim", "--continue_on_error=all"],
        ),
        // A size pair that is sequential,random, not read,write: random reads of 64 KiB (trial 22: the
        // size rule read the pair as read,write and refused fio's own output).
        (
            "seqrand.json",
            vec!["--rw=randrw", "--bs=4k,64k", "--bs_is_seq_rand=1"],
        ),
    ];
    let mut names = Vec::new();
    for (out, args) in &runs {
        let doc = fio_plus(d.path(), out, &[&["--name=j"][..], &base, args].concat());
        names.push(*out);
        if *out == "seqrand.json" {
            let r = &doc["jobs"][0]["read"];
            let mean =
                r["io_bytes"].as_u64().expect("bytes") / r["total_ios"].as_u64().expect("ios");
            assert!(mean > 4096, "reads of 64 KiB: {mean} B each");
        }
        if *out == "failed.json" {
            let t = &doc["jobs"][0]["trim"];
            assert_eq!(doc["jobs"][0]["error"].as_u64(), Some(25));
            assert_eq!(
                (t["total_ios"].as_u64(), t["io_bytes"].as_u64()),
                (Some(1), Some(0))
            );
        }
    }
    let mut args = vec!["validate"];
    args.extend(&names);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    let want: String = names
        .iter()
        .map(|n| match *n {
            // fio's job failed (its error 25): the phase's status says so.
            "failed.json" => format!("{n}: ok (results, failed, 1 phase, 0 series CSVs)\n"),
            _ => format!("{n}: ok (results, 1 phase, 0 series CSVs)\n"),
        })
        .collect();
    assert_eq!((code, out.as_str(), err.as_str()), (0, want.as_str(), ""));
}

/// fio's job of 256 random 4 KiB reads at psync on a 1 MiB file.
const RANDREAD: [&str; 5] = [
    "--name=rr",
    "--filename=f",
    "--size=1m",
    "--rw=randread",
    "--bs=4k",
];

/// Forgeries of a real json+ output (256 random 4 KiB reads at psync on a 1 MiB file), each refused by
/// `validate` and `compare` naming the job, direction, field and both numbers: a percentile moved one
/// bucket up (fio's own figure is the one its bins give), a mean past what its bins allow (the bins'
/// highest latencies averaged, recomputed here), every bin moved one bucket up (N kept), total_ios and
/// io_bytes doubled with iops and bw doubled to match (more I/Os than fio timed), and 1-byte I/Os under
/// bs=4k.
#[test]
fn forged_json_plus_is_refused() {
    let test = "fio_bins::forged_json_plus_is_refused";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let args = RANDREAD;
    let doc = fio_plus(d.path(), "fio.json", &args);
    let (code, _, err) = code_out_err(&wkrun(d.path(), &["validate", "fio.json"]));
    assert_eq!(code, 0, "{err}");
    let r = &doc["jobs"][0]["read"];
    let c = &r["clat_ns"];
    let b = bins(c);
    let n: u64 = b.iter().map(|b| b.1).sum();
    assert_eq!((n, r["total_ios"].as_u64()), (256, Some(256)));
    let p50 = c["percentile"]["50.000000"].as_u64().expect("p50");
    let moved = next_key(p50);
    assert!(moved < c["percentile"]["90.000000"].as_u64().expect("p90"));
    let mut f = doc.clone();
    f["jobs"][0]["read"]["clat_ns"]["percentile"]["50.000000"] = moved.into();
    refused(
        d.path(),
        &f,
        &format!(
            "jobs[0].read.clat_ns.percentile.\"50.000000\" is {moved}: fio's from its bins is {p50}, the first bucket at which their running count reaches 50.000000 % of 256"
        ),
    );

    let high = b
        .iter()
        .map(|&(k, c)| bucket(k).1 as f64 * c as f64)
        .sum::<f64>()
        / n as f64;
    let low = b
        .iter()
        .map(|&(k, c)| bucket(k).0 as f64 * c as f64)
        .sum::<f64>()
        / n as f64;
    let mean = (high + 1.0).round();
    assert!(mean < c["max"].as_f64().expect("max"), "{mean}");
    let mut f = doc.clone();
    f["jobs"][0]["read"]["clat_ns"]["mean"] = mean.into();
    refused(
        d.path(),
        &f,
        &format!(
            "jobs[0].read.clat_ns.mean is {mean}: outside what its bins allow, {low:.3} to {high:.3} ns (each latency within its bucket)"
        ),
    );

    let mut f = doc.clone();
    let shifted: serde_json::Map<String, Value> = b
        .iter()
        .map(|&(k, c)| (next_key(k).to_string(), c.into()))
        .collect();
    f["jobs"][0]["read"]["clat_ns"]["bins"] = shifted.into();
    let (min, first) = (c["min"].as_u64().expect("min"), next_key(b[0].0));
    let (lo, hi) = bucket(first);
    refused(
        d.path(),
        &f,
        &format!(
            "jobs[0].read.clat_ns.min is {min}: not in the bucket of its lowest bin, \"{first}\" ({lo} to {hi} ns)"
        ),
    );

    // fio's own rates of `ios` I/Os and `bytes` over the run's runtime, in place of the run's.
    let ms = r["runtime"].as_u64().expect("runtime");
    let rates = |f: &mut Value, ios: u64, bytes: u64| {
        let o = f["jobs"][0]["read"].as_object_mut().expect("read");
        let bw = (bytes * 1000).checked_div(ms).unwrap_or(0);
        let iops = if ms == 0 {
            0.0
        } else {
            ios as f64 * 1000.0 / ms as f64
        };
        o.insert("total_ios".into(), ios.into());
        o.insert("io_bytes".into(), bytes.into());
        o.insert("bw_bytes".into(), bw.into());
        o.insert("bw".into(), (bw / 1024).into());
        o.insert("iops".into(), iops.into());
    };
    let mut f = doc.clone();
    rates(&mut f, 512, 512 * 4096);
    refused(
        d.path(),
        &f,
        "jobs[0].read.total_ios is 512: more than the 256 I/Os fio timed (clat_ns.N): fio times every I/O it counts",
    );

    let mut f = doc.clone();
    rates(&mut f, 256, 256);
    refused(
        d.path(),
        &f,
        "jobs[0].read.io_bytes is 256: 1.000 B for each of its 256 I/Os (total_ios), where the job's block sizes are 4096 B",
    );
}

/// Attack 21: a job whose percentile_list lacks 99 (a real fio run, plain JSON: no bins to fill it in) kept
/// none of its percentiles; a document with its p50 deleted likewise. Now the ones fio gives are kept
/// (`latency_percentiles_ns`), compare shows them, `-` for the missing one, and its note and the phase's
/// warning name what is missing.
#[test]
fn a_missing_percentile_keeps_the_others() {
    let test = "fio_bins::a_missing_percentile_keeps_the_others";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let args = RANDREAD;
    let list = "--percentile_list=50:90:99.9:99.99";
    let doc = fio_as(d.path(), "fio.json", "json", &[&args[..], &[list]].concat());
    let pct = &doc["jobs"][0]["read"]["clat_ns"]["percentile"];
    let p = |k: &str| pct[k].as_u64();
    assert_eq!(p("99.000000"), None);
    let r = wkrun::fio::json::from_bytes("fio.json", doc.to_string().as_bytes()).expect("reads");
    let read = &r.phases[0].read;
    assert_eq!(read.latency_ns, None);
    let want = wkrun::stats::SomePercentiles {
        p50: p("50.000000"),
        p90: p("90.000000"),
        p99: None,
        p99_9: p("99.900000"),
        p99_99: p("99.990000"),
    };
    assert_eq!(read.latency_percentiles_ns, Some(want));
    let warning = "fio's output lacks p99 of its reads (its percentile_list): absent, shown -; the percentiles it gives are kept (latency_percentiles_ns), and min, mean, stddev and max";
    assert!(
        r.phases[0].warnings.iter().any(|w| w == warning),
        "{:?}",
        r.phases[0].warnings
    );
    let (code, out, err) = code_out_err(&wkrun(
        d.path(),
        &["compare", "fio.json", "--format", "csv"],
    ));
    assert_eq!(code, 0, "{err}");
    let us = |ns: Option<u64>| format!("{:.2}", ns.expect("given") as f64 / 1000.0);
    assert!(
        out.contains(&format!("\nrr,read latency p50 (µs),{}\n", us(want.p50))),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "\nrr,read latency p99.9 (µs),{}\n",
            us(want.p99_9)
        )),
        "{out}"
    );
    assert!(!out.contains("read latency p99 (µs),0"), "{out}");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["compare", "fio.json"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.replace('\n', " ")
            .contains("phase rr: fio's output lacks p99 of its reads"),
        "{out}"
    );

    let mut f = fio_as(d.path(), "all.json", "json", &args);
    f["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object_mut()
        .expect("percentile")
        .remove("50.000000");
    let r = wkrun::fio::json::from_bytes("f.json", f.to_string().as_bytes()).expect("reads");
    let got = r.phases[0].read.latency_percentiles_ns.expect("kept");
    let q = |k: &str| f["jobs"][0]["read"]["clat_ns"]["percentile"][k].as_u64();
    assert_eq!(
        got.each(),
        [
            None,
            q("90.000000"),
            q("99.000000"),
            q("99.900000"),
            q("99.990000")
        ]
    );
}

/// Attack 22: real fio 3.33 outputs the rules refused: more syncs than writes (randrw with fsync=1: fio
/// syncs before reads too; io_uring at depth 8 queues syncs like I/Os), a group_reporting entry of a 4k and
/// a 64k job (named after the first, with the last one's options), and bs=4k in [global] read before the
/// job's kb_base=1000. Each validates.
#[test]
fn real_fio_outputs_of_syncs_groups_and_kb_base_validate() {
    let d = tempdir();
    let files = [
        "fio-3.33-randrw-fsync1.json",
        "fio-3.33-uring-fsync1-qd8.json",
        "fio-3.33-group-4k-64k.json",
        "fio-3.33-kb-base-after-bs.json",
    ];
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio");
    for f in files {
        std::fs::copy(data.join(f), d.path().join(f)).expect("copy");
    }
    // The counts docs/fio.md quotes: syncs, writes and reads of the two sync runs.
    let counts = |f: &str| {
        let text = std::fs::read_to_string(data.join(f)).expect("fixture");
        let v: Value = serde_json::from_str(&text).expect("JSON");
        let n = |d: &str| v["jobs"][0][d]["total_ios"].as_u64().expect("count");
        (n("sync"), n("write"), n("read"))
    };
    assert_eq!(counts(files[0]), (508, 270, 242));
    assert_eq!(counts(files[1]), (517, 512, 0));
    let mut args = vec!["validate"];
    args.extend(files);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    let want = "fio-3.33-randrw-fsync1.json: ok (results, 1 phase, 0 series CSVs)\n\
                fio-3.33-uring-fsync1-qd8.json: ok (results, 1 phase, 0 series CSVs)\n\
                fio-3.33-group-4k-64k.json: ok (results, 1 phase, 0 series CSVs)\n\
                fio-3.33-kb-base-after-bs.json: ok (results, 1 phase, 0 series CSVs)\n";
    let group = crate::fio_groups::unlike_group(&crate::fio_groups::named("y", "a"));
    let note = format!("note: fio-3.33-group-4k-64k.json: job \"a\": {group}\n");
    assert_eq!((code, out.as_str(), err.as_str()), (0, want, note.as_str()));
}

/// Trial 25: real fio 3.33 json+ outputs whose direction did a multiple of 2000 I/Os (rate_iops=500 for
/// 4 s: 2000 writes; numjobs=2 at rate_iops=500 with a ramp: 2000 writes a job). fio works its rank in
/// x87 `long double`, where 99.95 % of 2000 is a hair above 1999, so its p99.95 is the bucket of the
/// 2000th write (6651904 ns), not the 1999th (5931008 ns, which wkrun computed in `f64` and refused fio
/// by). Both validate; the 1999th's bucket written in as p99.95 is refused.
#[test]
fn real_fio_ranks_at_round_counts_validate() {
    let d = tempdir();
    let files = [
        "fio-3.33-rate500-json+.json",
        "fio-3.33-rate-numjobs2-json+.json",
    ];
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fio");
    for f in files {
        std::fs::copy(data.join(f), d.path().join(f)).expect("copy");
    }
    let text = std::fs::read_to_string(data.join(files[0])).expect("fixture");
    let mut doc: Value = serde_json::from_str(&text).expect("JSON");
    let c = &doc["jobs"][0]["write"]["clat_ns"];
    let b = bins(c);
    let n: u64 = b.iter().map(|x| x.1).sum();
    let (last, before) = (b[b.len() - 1], b[b.len() - 2]);
    assert_eq!((n, last, before.0), (2000, (6651904, 1), 5931008));
    assert_eq!(c["percentile"]["99.950000"].as_u64(), Some(6651904));
    let mut args = vec!["validate"];
    args.extend(files);
    let (code, out, err) = code_out_err(&wkrun(d.path(), &args));
    let want = "fio-3.33-rate500-json+.json: ok (results, 1 phase, 0 series CSVs)\n\
                fio-3.33-rate-numjobs2-json+.json: ok (results, 1 phase, 0 series CSVs)\n";
    assert_eq!((code, out.as_str(), err.as_str()), (0, want, ""));
    std::fs::copy(data.join(files[0]), d.path().join("fio.json")).expect("copy");
    doc["jobs"][0]["write"]["clat_ns"]["percentile"]["99.950000"] = 5931008.into();
    refused(
        d.path(),
        &doc,
        "jobs[0].write.clat_ns.percentile.\"99.950000\" is 5931008: fio's from its bins is 6651904, the first bucket at which their running count reaches 99.950000 % of 2000",
    );
}

/// Trial 25 F5: fio's JSON of a job of `numjobs=2` without `group_reporting` reports each clone, which wkrun
/// sums into one phase; clones' percentiles cannot be added up from `json`, so `compare` shows them `-`, and
/// its note under the table now says why. From `json+`, whose latency bins wkrun adds up, they are known,
/// and nothing is said. Real fio: libaio, 1 s, on a 64 MiB file.
#[test]
fn compare_says_why_clones_of_fio_json_have_no_percentiles() {
    let test = "fio_bins::compare_says_why_clones_of_fio_json_have_no_percentiles";
    if let Some(why) = crate::fio_cli::fio_missing() {
        return skip(test, &why);
    }
    let d = tempdir();
    let args = [
        "--name=rw",
        "--filename=f",
        "--size=64m",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=4",
        "--numjobs=2",
        "--time_based",
        "--runtime=1s",
    ];
    let plus = fio_plus(d.path(), "plus.json", &args);
    let plain = fio_as(d.path(), "plain.json", "json", &args);
    for doc in [&plus, &plain] {
        assert_eq!(doc["jobs"].as_array().map(Vec::len), Some(2));
    }
    let (code, table, err) =
        code_out_err(&wkrun(d.path(), &["compare", "plus.json", "plain.json"]));
    assert_eq!(code, 0, "{err}");
    let why = "; phase rw: latency percentiles absent, shown -: fio reported the job's 2 clones (numjobs without group_reporting) one by one, and percentiles of clones cannot be added up from fio's json output; with --output-format=json+ they can (wkrun adds up the clones' latency bins), or fio's group_reporting gives them for the whole\n";
    // Each run's latency note: json+'s says nothing of clones, json's ends with why.
    let note = |run: &str| {
        let head = format!("note: fio: {run}: latency ");
        let notes: Vec<&str> = table.lines().filter(|l| l.starts_with(&head)).collect();
        assert_eq!(notes.len(), 1, "{table}");
        notes[0].to_string()
    };
    assert!(!note("plus.json").contains("percentiles absent"), "{table}");
    assert!(note("plain.json").ends_with(why.trim_end()), "{table}");
    assert!(table.ends_with(why), "{why:?} last in\n{table}");
    let (code, csv, err) = code_out_err(&wkrun(
        d.path(),
        &["compare", "plus.json", "plain.json", "--format", "csv"],
    ));
    assert_eq!(code, 0, "{err}");
    for q in ["p50", "p99", "p99.9"] {
        let head = format!("rw,read latency {q} (µs),");
        let row = csv.lines().find(|l| l.starts_with(&head)).expect("row");
        let cells: Vec<&str> = row[head.len()..].split(',').collect();
        assert!(cells[0].parse::<f64>().is_ok_and(|v| v > 0.0), "{row}");
        assert_eq!(&cells[1..], ["-", ""], "{row}");
    }
}
