//! `--set` on a key a sweep or matrix list varies (issue 14: "a swept key cannot be changed with `--set`"):
//! `--set sweep.NAME=V1,V2` replaces a sweep's values, `--set KEY=VALUE` makes every list of KEY that one
//! value and `--set KEY=[...]` replaces them; the spec is expanded again, so the names, labels and
//! parameters of the phases follow. Bad input exits 2 naming the `--set` argument, and writes nothing.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

const SIM: &str = "sim:capacity=64MiB,op=7%,block=256KiB";
const MIB: u64 = 1 << 20;

/// A purge of the whole drive (its own span), a fill and a 4 KiB / 8 KiB matrix of 1 s random writes,
/// swept by `op` over spans of 100 % and 50 %.
const BODY: &str = r#"
[[phase]]
name = "purge"
kind = "erase"
span = "100%"
method = "auto"

[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4

[[phase]]
name = "w"
kind = "workload"
pattern = "random"
block_size = ["4KiB", "8KiB"]
queue_depth = 4
read_percent = 0
duration = "1s"

[[sweep]]
name = "op"
phases = ["purge", "fill", "w"]
span = ["100%", "50%"]
"#;

/// `(name, labels as "key=value@sweep", span_bytes, block_size_bytes)` of each phase of the plan.
type Row = (String, Vec<String>, u64, Option<u64>);

fn rows(plan: &Value) -> Vec<Row> {
    plan["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| {
            let labels = p["labels"]
                .as_array()
                .map(|l| {
                    l.iter()
                        .map(|l| {
                            let s = l["sweep"].as_str().map(|s| format!("@{s}"));
                            format!(
                                "{}={}{}",
                                l["key"].as_str().unwrap(),
                                l["value"].as_str().unwrap(),
                                s.unwrap_or_default()
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            (
                p["name"].as_str().expect("name").to_string(),
                labels,
                p["params"]["span_bytes"].as_u64().expect("span_bytes"),
                p["params"]["block_size_bytes"].as_u64(),
            )
        })
        .collect()
}

fn row(name: &str, labels: &[&str], span: u64, bs: Option<u64>) -> Row {
    (
        name.to_string(),
        labels.iter().map(|l| l.to_string()).collect(),
        span,
        bs,
    )
}

/// The plan with `--set` arguments `sets`.
fn plan(dir: &Path, sets: &[&str]) -> Vec<Row> {
    write_file(dir, "spec.toml", &spec_text("sw", BODY));
    let mut args = Vec::new();
    for s in sets {
        args.extend_from_slice(&["--set", s]);
    }
    rows(&plan_json(
        dir,
        Path::new("spec.toml"),
        Path::new(SIM),
        &args,
    ))
}

#[test]
fn sweep_values_are_replaced_and_names_labels_and_spans_follow() {
    let d = tempdir();
    let (k4, k8, k128) = (Some(4096), Some(8192), Some(128 * 1024));
    let member = |v: &str, span: u64| {
        let l = format!("span={v}@op");
        vec![
            row(&format!("purge[op={v}]"), &[&l], 64 * MIB, None),
            row(&format!("fill[op={v}]"), &[&l], span, k128),
            row(&format!("w[op={v},bs=4KiB]"), &[&l, "bs=4KiB"], span, k4),
            row(&format!("w[op={v},bs=8KiB]"), &[&l, "bs=8KiB"], span, k8),
        ]
    };
    let want: Vec<Row> = [("25%", 16 * MIB), ("75%", 48 * MIB), ("100%", 64 * MIB)]
        .iter()
        .flat_map(|(v, s)| member(v, *s))
        .collect();
    assert_eq!(plan(d.path(), &["sweep.op=25%,75%,100%"]), want);
    // The same as a TOML list, and one value makes one member.
    assert_eq!(
        plan(d.path(), &["sweep.op=[\"25%\", \"75%\", \"100%\"]"]),
        want
    );
    assert_eq!(plan(d.path(), &["sweep.op=50%"]), member("50%", 32 * MIB));
}

#[test]
fn a_swept_key_set_to_one_value_makes_one_member_labelled_with_it() {
    let d = tempdir();
    let (k4, k8) = (Some(4096), Some(8192));
    // span=50%: the sweep's list becomes ["50%"], and the purge, which sets span itself, takes it too.
    let l = "span=50%@op";
    assert_eq!(
        plan(d.path(), &["span=50%"]),
        vec![
            row("purge[op=50%]", &[l], 32 * MIB, None),
            row("fill[op=50%]", &[l], 32 * MIB, Some(128 * 1024)),
            row("w[op=50%,bs=4KiB]", &[l, "bs=4KiB"], 32 * MIB, k4),
            row("w[op=50%,bs=8KiB]", &[l, "bs=8KiB"], 32 * MIB, k8),
        ]
    );
    // A matrix key: its list becomes the one value (label bs=16KiB); a list replaces the list only (the
    // fill keeps its own 128 KiB), one value every phase that sets the key (the fill's too).
    let got = plan(d.path(), &["block_size=[\"16KiB\"]", "sweep.op=100%"]);
    let names: Vec<(&str, Option<u64>)> = got.iter().map(|r| (r.0.as_str(), r.3)).collect();
    assert_eq!(
        names,
        [
            ("purge[op=100%]", None),
            ("fill[op=100%]", Some(128 * 1024)),
            ("w[op=100%,bs=16KiB]", Some(16384)),
        ]
    );
    assert_eq!(got[2].1, ["span=100%@op", "bs=16KiB"]);
    let got = plan(d.path(), &["block_size=16KiB", "sweep.op=100%"]);
    let names: Vec<(&str, Option<u64>)> = got.iter().map(|r| (r.0.as_str(), r.3)).collect();
    assert_eq!(
        names,
        [
            ("purge[op=100%]", None),
            ("fill[op=100%]", Some(16384)),
            ("w[op=100%,bs=16KiB]", Some(16384)),
        ]
    );
}

#[test]
fn a_run_with_a_sweep_set_records_it_and_its_phases_carry_the_new_labels() {
    let d = tempdir();
    let (o, out) = run_spec(
        d.path(),
        "sw",
        BODY,
        Path::new(SIM),
        &["--set", "sweep.op=25%"],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let r = results(&out);
    assert_eq!(
        r["spec"]["overrides"],
        serde_json::json!(["sweep.op=[\"25%\"]"])
    );
    let names: Vec<&str> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "purge[op=25%]",
            "fill[op=25%]",
            "w[op=25%,bs=4KiB]",
            "w[op=25%,bs=8KiB]"
        ]
    );
    assert_eq!(r["phases"][2]["params"]["span_bytes"], 16 * MIB);
    assert_eq!(
        r["phases"][1]["labels"],
        serde_json::json!([{"key": "span", "value": "25%", "sweep": "op"}])
    );
}

#[test]
fn bad_sweep_overrides_exit_2_naming_the_argument_and_write_nothing() {
    let d = tempdir();
    write_file(d.path(), "spec.toml", &spec_text("sw", BODY));
    let cases: &[(&str, &str)] = &[
        (
            "sweep.nope=50%",
            "error: spec.toml: --set sweep.nope=50%: this spec has no sweep \"nope\"; its sweeps: op",
        ),
        (
            "sweep.op=abc",
            "error: spec.toml: --set sweep.op=abc: size \"abc\" has no number; write e.g. \"4KiB\" or \"1GiB\"",
        ),
        (
            "sweep.op=50%,50%",
            "error: --set sweep.op=50%,50%: the value \"50%\" is given twice (phase names would repeat)",
        ),
        (
            "sweep.op=50%,",
            "error: --set sweep.op=50%,: an empty value in the list",
        ),
        ("sweep.op=[]", "error: --set sweep.op=[]: the list is empty"),
        (
            "sweep=50%",
            "error: spec.toml: --set sweep=50%: `sweep` is not a key (did you mean `seed`?)",
        ),
        // A list for a key a matrix may vary where no phase sets it (`queue_depth=[1,2]` makes the phases
        // that set it matrices: `lists_and_quoted_phase_names_can_be_set`).
        (
            "data=[\"zeros\",\"random\"]",
            "error: spec.toml: --set data=[\"zeros\",\"random\"]: no phase of this spec sets `data`, nor does a sweep vary it; a list makes each phase that sets the key a matrix over its values, else give one value",
        ),
        // A list for a key that takes one value was dropped without a word (found by the attack session:
        // `--set workers=[1,2]` ran one worker and recorded the list among the overrides).
        (
            "workers=[1,2]",
            "error: spec.toml: --set workers=[1,2]: `workers` takes one value, not a list (the keys a list may vary: block_size, read_percent, queue_depth, data, pattern, engine, span); give one value",
        ),
        (
            "duration=[\"1s\",\"2s\"]",
            "error: spec.toml: --set duration=[\"1s\",\"2s\"]: `duration` takes one value, not a list (the keys a list may vary: block_size, read_percent, queue_depth, data, pattern, engine, span); give one value",
        ),
        (
            "phase.fill.span=50%",
            "error: spec.toml: --set phase.fill.span=50%: `span` is varied by a matrix or sweep of this spec (phase \"fill[op=100%]\"), whose names and labels say each value; change the values with --set span=VALUE (every list of it) or --set sweep.NAME=V1,V2",
        ),
        (
            "phase.w.block_size=[\"4KiB\"]",
            "error: --set phase.w.block_size=[\"4KiB\"]: one phase takes one value; a list replaces a sweep's values (--set sweep.NAME=V1,V2) or every list of a key (--set KEY=[...])",
        ),
    ];
    for (arg, want) in cases {
        let before = dir_listing(d.path());
        let o = wkrun(
            d.path(),
            &[
                "spec.toml",
                "--target",
                SIM,
                "-o",
                "out",
                "-q",
                "--set",
                arg,
            ],
        );
        let (code, out, err) = code_out_err(&o);
        assert_eq!(code, 2, "--set {arg}: {err}");
        assert_eq!(out, "");
        assert_eq!(err.trim_end(), *want, "--set {arg}");
        assert_eq!(dir_listing(d.path()), before, "--set {arg} wrote something");
    }
}

/// Issue 24 leftovers: a `--set` list that makes a phase a matrix is expanded again, under the same bound as
/// the spec's own lists (100,000 phases): 1000 queue depths in the spec times 101 block sizes given on the
/// command line are 101,000 phases, refused as bad input (exit 2) naming the `--set`, for `plan` and for a
/// run, with nothing written.
#[test]
fn a_set_list_past_the_phase_bound_is_refused_after_expanding_again() {
    let dir = tempdir();
    let d = dir.path();
    let qd: Vec<String> = (1..=1000).map(|i| i.to_string()).collect();
    let body = format!(
        "[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n\
         block_size = \"4KiB\"\nqueue_depth = [{}]\n",
        qd.join(",")
    );
    write_file(d, "m.toml", &spec_text("m", &body));
    let list = |n: u32| {
        let v: Vec<String> = (1..=n).map(|i| format!("\"{i}KiB\"")).collect();
        format!("block_size=[{}]", v.join(","))
    };
    let over = list(101);
    let shown = "block_size=[\"1KiB\",\"2KiB\",\"3KiB\",\"4KiB\",\"5KiB\",\"6KiB\",\"7KiB\",\"8KiB\",\"9KiB\",\"10Ki… (813 bytes)";
    let want = format!(
        "error: m.toml: after --set {shown}: sweeps and matrices expand the spec to more than 100000 phases, the most a spec may have: phase \"w\" makes 101000\n"
    );
    let runs: [&[&str]; 2] = [
        &[
            "plan",
            "m.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "--set",
            &over,
        ],
        &[
            "m.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "-o",
            "r",
            "--set",
            &over,
        ],
    ];
    for args in runs {
        let (code, out, err) = code_out_err(&wkrun(d, args));
        assert_eq!((code, out.as_str(), err.as_str()), (2, "", want.as_str()));
        assert_eq!(dir_listing(d), ["m.toml"]);
    }
}
