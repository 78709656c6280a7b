//! What a run planned (`planned_phases`) and where a run from `--from` started (`from_phase`), through
//! `wkrun merge` of separately run hosts, the aggregate of a run on several targets, `compare`, `report` and
//! `validate`: kept exactly, runs of different plans refused naming the phase they differ at, forged
//! records refused naming the field.

use crate::common::*;
use serde_json::{Value, json};
use std::path::Path;

/// A fill, then two short workloads on the `null` engine.
const SPEC: &str = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nengine = \"psync\"\nblock_size = \"64KiB\"\n\
                    [[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                    block_size = \"4KiB\"\nread_percent = 50\nduration = \"200ms\"\n\
                    [[phase]]\nname = \"w2\"\nkind = \"workload\"\nengine = \"null\"\npattern = \"random\"\n\
                    block_size = \"4KiB\"\nread_percent = 0\nduration = \"200ms\"\n";

/// The plan of a whole run of [`SPEC`].
fn whole_plan() -> Value {
    json!([
        {"index": 0, "name": "fill", "kind": "fill"},
        {"index": 1, "name": "w", "kind": "workload"},
        {"index": 2, "name": "w2", "kind": "workload"},
    ])
}

/// The plan of a run of [`SPEC`] from `w`.
fn from_w_plan() -> Value {
    json!([
        {"index": 1, "name": "w", "kind": "workload"},
        {"index": 2, "name": "w2", "kind": "workload"},
    ])
}

/// The record of a run of [`SPEC`] from `w`.
fn from_w() -> Value {
    json!({"index": 1, "name": "w", "taken_as_done": [{"index": 0, "name": "fill", "kind": "fill"}]})
}

/// Runs `s.toml` in `d` on the 1 MiB file `target` (made here) into `out`, with `extra`: its stderr (the
/// run's log).
fn run(d: &Path, target: &str, out: &str, extra: &[&str]) -> String {
    sparse_file(&d.join(target), 1 << 20);
    let mut args = vec!["s.toml", "--target", target, "-o", out];
    args.extend_from_slice(extra);
    let (code, _, err) = code_out_err(&wkrun(d, &args));
    assert_eq!(code, 0, "{err}");
    err
}

/// `wkrun validate FILE` in `d`: exit code, stdout and stderr.
fn validate(d: &Path, file: &str) -> (i32, String, String) {
    code_out_err(&wkrun(d, &["validate", file]))
}

/// `v` written as `d/file` (beside the results file it was made from, so that its series CSVs are found),
/// then validated: the exit code, stdout and stderr.
fn validate_forged(d: &Path, file: &str, v: &Value) -> (i32, String, String) {
    let text = serde_json::to_vec(v).expect("json");
    std::fs::write(d.join(file), text).expect("write");
    validate(d, file)
}

/// Runs `s.toml` with `extra` on `a.img` into `a` and on `b.img` into `b`, merges the two into `m`, and runs
/// it with `extra` on both targets at once into `agg`: `m` and the aggregate validate (`m` with `phases`
/// phases, each with its series CSV, held to both hosts' results). Their results.
fn merged_and_aggregate(d: &Path, extra: &[&str], phases: usize) -> (Value, Value) {
    let quiet = [&["-q"], extra].concat();
    run(d, "a.img", "a", &quiet);
    run(d, "b.img", "b", &quiet);
    let (code, _, err) = code_out_err(&wkrun(d, &["merge", "a", "b", "-o", "m"]));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = validate(d, "m");
    let ok = format!("m: ok (results, {phases} phases, {phases} series CSVs, 2 hosts' results)\n");
    assert_eq!((code, out), (0, ok), "{err}");
    let both = [
        "s.toml", "--target", "a.img", "--target", "b.img", "-o", "agg",
    ];
    let (code, _, err) = code_out_err(&wkrun(d, &[&both[..], &quiet].concat()));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = validate(d, "agg/results.json");
    assert_eq!(code, 0, "{err}");
    (results(&d.join("m")), results(&d.join("agg")))
}

/// Trial 22 T1: two hosts' runs merged (`wkrun merge`, separately run results folders) and the aggregate
/// of a run on two targets keep the runs' plan exactly, and validate; a merge of a whole run with one from
/// `--from w` (another plan) exits 2 naming the phase only one planned, writing nothing; each run
/// validates on its own.
#[test]
fn merges_and_aggregates_keep_the_plan_and_runs_of_another_plan_are_not_merged() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("planned", SPEC));
    let (m, agg) = merged_and_aggregate(d, &[], 3);
    assert_eq!(m["planned_phases"], whole_plan());
    assert_eq!(m.get("from_phase"), None);
    assert_eq!(agg["planned_phases"], whole_plan());
    // A run from w planned phases 1 and 2 only.
    run(d, "c.img", "c", &["-q", "--from", "w"]);
    assert_eq!(results(&d.join("c"))["planned_phases"], from_w_plan());
    let (code, _, err) = code_out_err(&wkrun(d, &["merge", "a", "c", "-o", "x"]));
    assert_eq!(
        (code, err),
        (
            2,
            format!(
                "error: {} planned phases 0 to 2 (fill, w, w2) and {} planned phases 1 to 2 (w, w2): phase 0 \
                 \"fill\" (fill) is planned in {} only: merge runs of the same plan\n",
                Path::new("a/results.json").display(),
                Path::new("c/results.json").display(),
                Path::new("a/results.json").display(),
            )
        )
    );
    assert!(!d.join("x").exists(), "nothing written");
    for f in ["a", "c"] {
        let (code, _, err) = validate(d, f);
        assert_eq!(code, 0, "{f}: {err}");
    }
}

/// Trial 22 T2: a run from `--from w` on a file records where it started and what it took as done
/// (`from_phase`), says it as it starts, and `compare` beside a whole run, `report`'s Not run section and
/// `validate` read the record; a forged record is refused naming the field, one deleted from a plan that
/// starts past phase 0 too (attack 25 F8), and results without the plan and the record (as older versions
/// wrote) still validate.
#[test]
fn a_run_from_a_later_phase_records_the_phases_it_took_as_done() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("planned", SPEC));
    run(d, "a.img", "a", &["-q"]);
    let out = run(d, "c.img", "c", &["--from", "w"]);
    assert!(
        out.lines()
            .any(|l| l == "starting at phase 1: phase 0 is taken as done"),
        "{out}"
    );
    let (typed, c) = strict_results(&d.join("c"));
    assert_eq!(c["from_phase"], from_w());
    assert_eq!(c["planned_phases"], from_w_plan());
    assert!(typed.took_as_done("fill") && !typed.took_as_done("w"));
    // compare: each of fill's cells of the run from w says it took it as done.
    let (code, out, err) = code_out_err(&wkrun(d, &["compare", "a", "c", "--format", "csv"]));
    assert_eq!(code, 0, "{err}");
    let mut csv = csv::Reader::from_reader(out.as_bytes());
    let fill: Vec<Vec<String>> = (csv.records())
        .map(|r| r.expect("record").iter().map(String::from).collect())
        .filter(|r: &Vec<String>| r[0] == "fill")
        .collect();
    assert!(!fill.is_empty(), "{out}");
    for r in &fill {
        assert_eq!(r[3], "taken as done (--from)", "{r:?}");
        assert!(!r[2].contains("taken as done"), "{r:?}");
    }
    // report: the Not run section lists fill, taken as done.
    let (code, _, err) = code_out_err(&wkrun(d, &["report", "c", "-o", "rep"]));
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(d.join("rep/index.html")).expect("index.html");
    assert!(
        page.contains(
            "<li><a href=\"#not-run\">taken as done (--from w): fill</a></li>\n</ul>\n</nav>"
        ),
        "{page}"
    );
    let label = wkrun::report::html::esc(typed.label.as_deref().expect("a label"));
    let section = format!(
        "<section id=\"not-run\">\n<h2>Not run</h2>\n<p class=\"meta\">{}{label}: 1 phase taken as done \
         (--from w): the run started at phase 1.</p>\n<div class=\"scroll\"><table><thead><tr><th>phase</th>\
         <th class=\"l\">name</th><th class=\"l\">kind</th></tr></thead><tbody>\n<tr><td>00</td>\
         <td class=\"l\">fill</td><td class=\"l\">fill</td></tr>\n</tbody></table></div>\n</section>\n</main>",
        wkrun::report::html::swatch(0)
    );
    assert!(page.contains(&section), "{page}");
    // Forged records, each refused naming the field.
    let forged = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut v = c.clone();
        edit(&mut v);
        let file = format!("c/{name}.json");
        let (code, out, err) = validate_forged(d, &file, &v);
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        let head = format!("error: {file} holds figures that cannot be true (1 place):\n  ");
        err.strip_prefix(&head).map(str::to_string).unwrap_or(err)
    };
    assert_eq!(
        forged("ran", &|v| v["from_phase"]["taken_as_done"][0]["name"] =
            "w2".into()),
        "from_phase.taken_as_done[0].name: \"w2\" is the name of planned_phases[1] too: a spec's phase \
         names are unique, and a phase taken as done did not run\n"
    );
    assert_eq!(
        forged("index", &|v| v["from_phase"]["taken_as_done"][0]["index"] =
            1.into()),
        "from_phase.taken_as_done[0].index: 1 is not 0: the phases taken as done are every phase before \
         the first planned, in run order\n"
    );
    assert_eq!(
        forged("later", &|v| v["from_phase"]["index"] = 2.into()),
        "from_phase.index: 2 is not the index of the first planned phase, planned_phases[0].index 1: a run \
         from --from starts at the first phase it planned\n"
    );
    assert_eq!(
        forged("none", &|v| v["from_phase"]["taken_as_done"] = json!([])),
        "from_phase.taken_as_done: holds 0 phases, not the 1 before phase 1: a run from --from takes as \
         done every phase before it\n"
    );
    assert_eq!(
        forged("unplanned", &|v| {
            v.as_object_mut().expect("object").remove("planned_phases");
        }),
        "from_phase: present without planned_phases: a run from --from lists the phases it planned\n"
    );
    // Attack 25 F8: without the record, a plan that starts past phase 0 is refused naming from_phase.
    assert_eq!(
        forged("deleted", &|v| {
            v.as_object_mut().expect("object").remove("from_phase");
        }),
        "from_phase: absent, but planned_phases starts at phase 1 \"w\": a run that starts past phase 0 \
         (--from) records where it started and the phases it took as done\n"
    );
    // Without the plan too, as versions before planned_phases wrote: valid.
    let mut old = c.clone();
    let o = old.as_object_mut().expect("object");
    o.remove("from_phase");
    o.remove("planned_phases");
    let (code, out, err) = validate_forged(d, "c/old.json", &old);
    assert_eq!(
        (code, out.as_str()),
        (0, "c/old.json: ok (results, 2 phases, 2 series CSVs)\n"),
        "{err}"
    );
}

/// Trial 22 T1 and T2: two hosts' runs from `--from w` merged, and the aggregate of a run from `--from w`
/// on two targets, keep `from_phase` exactly and validate; a merged folder or an aggregate whose record is
/// not its runs' is refused, naming the field and both values.
#[test]
fn merges_and_aggregates_of_runs_from_a_later_phase_keep_the_record() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("planned", SPEC));
    let (m, agg) = merged_and_aggregate(d, &["--from", "w"], 2);
    assert_eq!(
        (&m["planned_phases"], &m["from_phase"]),
        (&from_w_plan(), &from_w())
    );
    assert_eq!(
        (&agg["planned_phases"], &agg["from_phase"]),
        (&from_w_plan(), &from_w())
    );
    let mut forged = m.clone();
    forged["from_phase"]["taken_as_done"][0]["name"] = "other".into();
    let (code, _, err) = validate_forged(d, "m/forged.json", &forged);
    let host = |f: &str| {
        format!(
            "{}: from_phase.taken_as_done[0].name \"other\" is not {}'s, \"fill\": a merge keeps the plan of the runs it merges",
            Path::new("m/forged.json").display(),
            Path::new(f).join("results.json").display()
        )
    };
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&host("a")) && err.contains(&host("b")),
        "{err}"
    );
    // Forged in place (the aggregate is held to its targets' folders beside it).
    let mut forged = agg.clone();
    forged["from_phase"]["taken_as_done"][0]["kind"] = "workload".into();
    let file = d.join("agg/results.json");
    std::fs::write(&file, serde_json::to_vec(&forged).expect("json")).expect("write");
    let (code, _, err) = validate(d, "agg/results.json");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{}: from_phase.taken_as_done[0].kind \"workload\" is not what the run writes of its targets' plans, \"fill\": a merge keeps the plan of the runs it merges",
            Path::new("agg/results.json").display()
        )),
        "{err}"
    );
}

/// Trial 22 T2 on a simulated drive: a run from `--from w` records the fill it took as done, and `compare`
/// beside the whole run says so in every fill cell.
#[test]
fn a_run_from_a_later_phase_on_a_simulated_drive_records_the_fill_it_took_as_done() {
    let dir = tempdir();
    let d = dir.path();
    let body = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\nqueue_depth = 8\n\
                [[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = 0\n\
                block_size = \"4KiB\"\nsize = \"4MiB\"\n";
    write_file(d, "s.toml", &spec_text("from-sim", body));
    run_s_on_sim(d, "whole");
    let (code, _, err) = run_sim(d, "from", &["--from", "w"]);
    assert_eq!(code, 0, "{err}");
    let r = results(&d.join("from"));
    assert_eq!(
        r["from_phase"],
        json!({"index": 1, "name": "w", "taken_as_done": [{"index": 0, "name": "fill", "kind": "fill"}]})
    );
    assert_eq!(
        r["planned_phases"],
        json!([{"index": 1, "name": "w", "kind": "workload"}])
    );
    assert_eq!(results(&d.join("whole")).get("from_phase"), None);
    let (code, out, err) =
        code_out_err(&wkrun(d, &["compare", "whole", "from", "--format", "csv"]));
    assert_eq!(code, 0, "{err}");
    let mut csv = csv::Reader::from_reader(out.as_bytes());
    let cells: Vec<(String, String)> = (csv.records())
        .map(|r| r.expect("record"))
        .filter(|r| &r[0] == "fill")
        .map(|r| (r[2].to_string(), r[3].to_string()))
        .collect();
    assert!(!cells.is_empty(), "{out}");
    for (whole, from) in &cells {
        assert!(!whole.contains("taken as done"), "{cells:?}");
        assert_eq!(from, "taken as done (--from)");
    }
    let (code, _, err) = validate(d, "from");
    assert_eq!(code, 0, "{err}");
}
