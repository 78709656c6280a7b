//! What the plan deals to workers when a byte bound covers less than the span (the bounded region is cut into
//! the parts), the warning for workers a bound leaves idle, and the workers rules that need no target,
//! refused by `wkrun validate` as by `plan` and a run.

use crate::common::*;
use serde_json::Value;
use wkrun::stamp::{Found, SECTOR, parse};

const MIB: u64 = 1 << 20;

/// `(worker, span_start_bytes, span_bytes, ops)` of every worker of a phase, as the plan dealt them.
fn parts(p: &Value) -> Vec<(u64, u64, u64, u64)> {
    p["params"]["worker_parts"]
        .as_array()
        .expect("params.worker_parts")
        .iter()
        .map(|w| {
            (
                u(w, "/worker"),
                u(w, "/span_start_bytes"),
                u(w, "/span_bytes"),
                u(w, "/ops"),
            )
        })
        .collect()
}

/// A phase's idle-worker warnings (others, such as threads past the CPUs, depend on the machine).
fn idle(p: &Value) -> Vec<String> {
    p["warnings"]
        .as_array()
        .map(|ws| {
            ws.iter()
                .filter_map(Value::as_str)
                .filter(|w| w.contains(" no I/O: "))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `wkrun plan spec.toml --target TARGET --json` in `d`: the plan.
fn plan_json(d: &std::path::Path, body: &str, target: &str) -> Value {
    write_file(d, "spec.toml", &spec_text("wr", body));
    let o = wkrun(d, &["plan", "spec.toml", "--target", target, "--json"]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("plan JSON")
}

#[test]
fn a_fill_bounded_to_part_of_the_span_is_shared_by_every_worker() {
    // The newcomer's case: 100 MiB of a 1 GiB file in 128 KiB over 3 workers was 800/0/0 I/Os.
    let dir = tempdir();
    let d = dir.path();
    sparse_file(&d.join("big.img"), 1 << 30);
    let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nworkers = 3\nsize = \"100MiB\"\n";
    let plan = plan_json(d, fill, "big.img");
    let p = &plan["phases"][0];
    let b = 128 * 1024;
    assert_eq!(
        parts(p),
        vec![
            (0, 0, 267 * b, 267),
            (1, 267 * b, 267 * b, 267),
            (2, 534 * b, 266 * b, 266),
        ]
    );
    assert_eq!(idle(p), Vec::<String>::new(), "no idle worker");
    // Run it small (10 MiB of 64 MiB, 80 writes), stamped: each worker's writes are exactly its part, every
    // block of the first 10 MiB written once, nothing after.
    sparse_file(&d.join("t.img"), 64 * MIB);
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nengine = \"psync\"\nworkers = 3\nsize = \"10MiB\"\nverify = true\n\
                [[phase]]\nname = \"check\"\nkind = \"verify\"\nspan = \"10MiB\"\n";
    let out = run_ok(d, "wr", body, &d.join("t.img"));
    let (_, r) = strict_results(&out);
    let p = phase(&r, 0);
    let want = [
        (0, 0, 27 * b, 27),
        (1, 27 * b, 27 * b, 27),
        (2, 54 * b, 26 * b, 26),
    ];
    assert_eq!(parts(p), want);
    let per: Vec<u64> = p["workers"]
        .as_array()
        .expect("workers")
        .iter()
        .map(|w| u(w, "/write/ops"))
        .collect();
    assert_eq!(per, [27, 27, 26]);
    assert_eq!(u(p, "/write/bytes"), 10 * MIB);
    let seeds: Vec<u64> = p["params"]["worker_parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|w| u(w, "/seed"))
        .collect();
    let file = read(&d.join("t.img"));
    let mut sectors_by_worker = [0u64; 3];
    for (k, s) in file.chunks(SECTOR).enumerate() {
        let at = (k * SECTOR) as u64;
        match parse(s) {
            Found::Stamp { offset, seed, .. } => {
                assert_eq!(offset, at);
                let w = seeds
                    .iter()
                    .position(|&x| x == seed)
                    .expect("a worker's seed");
                let (_, start, len, _) = want[w];
                assert!(
                    at >= start && at < start + len,
                    "worker {w} wrote at {at}, outside [{start}, {})",
                    start + len
                );
                sectors_by_worker[w] += 1;
            }
            _ => assert!(
                at >= 10 * MIB,
                "sector at {at} of the first 10 MiB not stamped"
            ),
        }
    }
    let per_block = b / SECTOR as u64;
    assert_eq!(
        sectors_by_worker,
        [27 * per_block, 27 * per_block, 26 * per_block]
    );
    assert_eq!(
        file[10 * MIB as usize..]
            .iter()
            .filter(|&&x| x != 0)
            .count(),
        0
    );
    let v = phase(&r, 1);
    assert_eq!(v["verify"]["mismatched"], 0, "{v}");
}

#[test]
fn a_full_coverage_partial_pass_is_dealt_evenly() {
    // 256 blocks of 4 KiB in parts of 86, 85, 85; 100 random writes, each block at most once: 34, 33, 33.
    let dir = tempdir();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\ncoverage = \"full\"\nread_percent = 0\nblock_size = \"4KiB\"\nworkers = 3\nspan = \"1MiB\"\nsize = \"400KiB\"\n";
    let plan = plan_json(dir.path(), body, "t.img");
    assert_eq!(
        parts(&plan["phases"][0]),
        vec![
            (0, 0, 86 * 4096, 34),
            (1, 86 * 4096, 85 * 4096, 33),
            (2, 171 * 4096, 85 * 4096, 33),
        ]
    );
}

#[test]
fn workers_a_bound_leaves_without_io_are_warned_in_the_plan_and_the_results() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\nblock_size = \"4KiB\"\nworkers = 4\nsize = \"8KiB\"\n\
                [[phase]]\nname = \"f\"\nkind = \"fill\"\nengine = \"null\"\nblock_size = \"4KiB\"\nworkers = 3\nspan = \"1MiB\"\nsize = \"4KiB\"\n";
    let plan = plan_json(d, body, "t.img");
    let w0 = "workers 2, 3 of 4 get no I/O: the phase's byte bound is 2 I/Os; use fewer workers or a larger size";
    let w1 = "workers 1, 2 of 3 get no I/O: the phase's byte bound is 1 I/O; use fewer workers or a larger size";
    assert_eq!(idle(&plan["phases"][0]), [w0]);
    assert_eq!(
        parts(&plan["phases"][0])
            .iter()
            .map(|p| p.3)
            .collect::<Vec<_>>(),
        [1, 1, 0, 0]
    );
    assert_eq!(idle(&plan["phases"][1]), [w1]);
    assert_eq!(
        parts(&plan["phases"][1]),
        vec![
            (0, 0, 86 * 4096, 1),
            (1, 86 * 4096, 85 * 4096, 0),
            (2, 171 * 4096, 85 * 4096, 0),
        ]
    );
    let out = run_ok(d, "wr", body, &d.join("t.img"));
    let (_, r) = strict_results(&out);
    assert_eq!(idle(phase(&r, 0)), [w0]);
    assert_eq!(idle(phase(&r, 1)), [w1]);
}

/// `wkrun validate FILE` on `text` in `d`: exit code, stdout, stderr.
fn validate(d: &std::path::Path, text: &str) -> (i32, String, String) {
    write_file(d, "v.toml", text);
    code_out_err(&wkrun(d, &["validate", "v.toml"]))
}

const SHARED: &str = "workers_split = \"shared\" gives each of the 2 workers its own pass over the whole span, so this phase, which visits every block (a fill, a sequential pattern or full coverage), would read or write every block 2 times";

#[test]
fn validate_refuses_a_shared_split_on_a_phase_that_visits_every_block() {
    let dir = tempdir();
    let d = dir.path();
    // Inherited from [defaults] by a fill (located at [defaults]), set on a sequential workload.
    let text = "format = 1\n[spec]\nname = \"v\"\nversion = \"1\"\n[defaults]\nworkers = 2\nworkers_split = \"shared\"\n\
                [[phase]]\nname = \"f\"\nkind = \"fill\"\n\
                [[phase]]\nname = \"s\"\nkind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\nsize = \"1MiB\"\n\
                [[phase]]\nname = \"rf\"\nkind = \"workload\"\ncoverage = \"full\"\nread_percent = 0\nsize = \"1MiB\"\n\
                [[phase]]\nname = \"ok\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1MiB\"\n";
    let (code, out, err) = validate(d, text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    // The three phases break it at the one place, [defaults] (reported there once, as for a matrix).
    let firsts: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(
        firsts,
        [format!(
            "error: v.toml:7:1: phase[0] \"f\".workers_split (inherited from defaults.workers_split): {SHARED}"
        )]
    );
    assert!(
        err.ends_with("  help: use workers_split = \"partitioned\" (the default)\n"),
        "{err}"
    );
    // The random, uniform phase alone is fine.
    let ok = text
        .split("[[phase]]\nname = \"f\"")
        .next()
        .unwrap_or("")
        .to_string()
        + "[[phase]]\nname = \"ok\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1MiB\"\n";
    assert_eq!(validate(d, &ok).0, 0);
    // Set on the phase: located at its own key; a run refuses it with the same words, nothing written.
    let body = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nworkers = 2\nworkers_split = \"shared\"\nspan = \"1MiB\"\n";
    let (code, _, err) = validate(d, &spec_text("v", body));
    assert_eq!(code, 2);
    let want = format!("error: v.toml:9:1: phase[0] \"f\".workers_split: {SHARED}\n");
    assert!(err.starts_with(&want), "{err}");
    let (o, out) = run_spec(d, "v", body, &d.join("t.img"), &[]);
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&want.replace("v.toml", "spec.toml")),
        "{err}"
    );
    assert!(!out.exists() && !d.join("t.img").exists());
}

#[test]
fn validate_refuses_a_last_writer_verify_after_a_shared_verified_phase() {
    let dir = tempdir();
    let d = dir.path();
    let writer = "[[phase]]\nname = \"r\"\nkind = \"workload\"\nread_percent = 0\nsize = \"1MiB\"\nworkers = 2\nworkers_split = \"shared\"\nverify = true\n";
    let why = "phase 0 \"r\" has 2 workers sharing its span, so which of them wrote a block last is not known in advance; use workers_split = \"partitioned\", or expect = \"header\"";
    let text = spec_text(
        "v",
        &format!("{writer}[[phase]]\nname = \"v\"\nkind = \"verify\"\n"),
    );
    let (code, out, err) = validate(d, &text);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    let first = err.lines().next().unwrap_or("");
    assert_eq!(
        first,
        format!("error: v.toml:13:1: phase[1] \"v\".expect: {why}")
    );
    // Where the spans can be told apart only on a target, or the check is of headers: validate says ok, and
    // the plan of the disjoint spans is fine too.
    let disjoint = writer.replace(
        "verify = true\n",
        "verify = true\noffset = \"50%\"\nspan = \"50%\"\n",
    ) + "[[phase]]\nname = \"low\"\nkind = \"verify\"\nspan = \"50%\"\n\
           [[phase]]\nname = \"all\"\nkind = \"verify\"\nexpect = \"header\"\n";
    let (code, out, err) = validate(d, &spec_text("v", &disjoint));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "v.toml: ok (3 phases)\n", "")
    );
    let o = wkrun(
        d,
        &[
            "plan",
            "v.toml",
            "--target",
            "t.img",
            "--target-size",
            "8MiB",
        ],
    );
    assert_eq!(code_out_err(&o).0, 0);
}
