//! Reading results under an address-space limit whatever their shape (attack24c F16): a 25 MB results.json
//! of 5,000,000 one-letter warnings took 822 MB (33 times its size) and every command that reads results
//! aborted (exit 134) under `prlimit --as` of 150 to 800 MB, past a room check that assumed 3 B per byte.
//! The room is now counted from the document's shape (values, strings, the largest phase) before it is
//! read: each command exits 1 naming the limit and a limit that is enough, the need recomputed here from
//! the document's JSON tree (an oracle apart from wkrun's one pass over the bytes), nothing written.

use crate::common::{code_out_err, spec_text, tempdir, wkrun, write_file};
use crate::load_room::number_after;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

/// What the docs (docs/safety.md) state reading a results document takes, per value, string and tree.
const HELD_PER_VALUE: u64 = 64;
const HELD_PER_STRING: u64 = 32;
const TREE_PER_VALUE: u64 = 128;
const CHECK_PER_VALUE: u64 = 512;
const MAX_CHECKED_VALUES: u64 = 100_000;

/// A JSON tree's counts: values (keys included), strings (keys included), keys, string bytes as
/// written.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Counts {
    pub values: u64,
    pub strings: u64,
    pub keys: u64,
    pub string_bytes: u64,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.values += o.values;
        self.strings += o.strings;
        self.keys += o.keys;
        self.string_bytes += o.string_bytes;
    }
}

/// The bytes of `s` as serde_json writes it, quotes left out.
fn written(s: &str) -> u64 {
    serde_json::to_string(s).unwrap().len() as u64 - 2
}

pub(crate) fn counts(v: &Value) -> Counts {
    let mut c = Counts {
        values: 1,
        ..Counts::default()
    };
    match v {
        Value::String(s) => {
            c.strings = 1;
            c.string_bytes = written(s);
        }
        Value::Array(a) => a.iter().for_each(|x| c.add(counts(x))),
        Value::Object(o) => {
            for (k, x) in o {
                c.add(Counts {
                    values: 1,
                    strings: 1,
                    keys: 1,
                    string_bytes: written(k),
                });
                c.add(counts(x));
            }
        }
        _ => {}
    }
    c
}

/// The room (held, while reading) of a results document of `bytes` bytes whose tree counts `all`, whose
/// phases count `phases`: the formula docs/safety.md states.
pub(crate) fn room(bytes: u64, all: Counts, phases: &[Counts]) -> (u64, u64) {
    let largest = phases.iter().fold(
        Counts::default(),
        |m, p| if p.values > m.values { *p } else { m },
    );
    let in_phases = phases.iter().fold(Counts::default(), |mut m, p| {
        m.add(*p);
        m
    });
    let rest_values = all.values - in_phases.values;
    let rest_bytes = all.string_bytes - in_phases.string_bytes;
    let held = (all.values - all.keys) * HELD_PER_VALUE
        + (all.strings - all.keys) * HELD_PER_STRING
        + all.string_bytes;
    let reading = bytes
        + (largest.values + rest_values) * TREE_PER_VALUE
        + largest.string_bytes
        + rest_bytes
        + (largest.values.min(MAX_CHECKED_VALUES) + rest_values.min(MAX_CHECKED_VALUES))
            * CHECK_PER_VALUE;
    (held, reading)
}

/// The room of the results file `file` (read and counted as a tree).
pub(crate) fn file_room(file: &Path) -> (u64, u64, u64) {
    let text = std::fs::read(file).unwrap();
    let v: Value = serde_json::from_slice(&text).unwrap();
    let phases: Vec<Counts> = v["phases"].as_array().unwrap().iter().map(counts).collect();
    let all = counts(&v);
    let (held, reading) = room(text.len() as u64, all, &phases);
    (held, reading, all.values)
}

/// Bytes of the series CSVs and histogram logs in `dir` (traces and counters left out).
pub(crate) fn series_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            (n.ends_with(".csv") || n.ends_with(".hlog"))
                && !n.ends_with(".trace.csv")
                && !n.ends_with(".counters.csv")
        })
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// A results folder's room as the oracle counts it: (held, while reading, values, bytes of results.json,
/// bytes of series).
type Room = (u64, u64, u64, u64, u64);

/// The refusal's whole text for `what` reading `folders` (their rooms) with `per_byte` B per byte of
/// series, `kept` when the command keeps a second typed copy and the text; `used` and `limit` from the
/// run.
fn refusal(
    what: &str,
    folders: &[Room],
    per_byte: u64,
    kept: bool,
    (used, limit): (u64, u64),
) -> String {
    let (mut held, mut reading, mut values, mut bytes, mut series) = (0, 0, 0, 0, 0);
    for &(h, r, v, len, s) in folders {
        held += if kept { 2 * h + len } else { h };
        reading = reading.max(r);
        values += v;
        bytes += len;
        series += s;
    }
    let results = held + reading;
    let need = (4 << 20) + results + per_byte * series;
    let enough = ((used + need).div_ceil(1 << 20) + 1) << 20;
    format!(
        "error: {what} needs about {need} B of address space beyond the {used} B wkrun maps now (4194304 B for its own work, {results} B for the {values} values of the {bytes} B of results (read, checked and held typed: docs/safety.md), and {per_byte} B per byte of the {series} B of series it reads), and the address-space limit (RLIMIT_AS, ulimit -v) is {limit} B: raise it to at least {enough} B (ulimit -v {}) or remove it; nothing was written\n",
        enough / 1024
    )
}

/// The folders made for this file's tests, and the oracle's rooms of `m` and `manywarn`.
struct Folders {
    dir: tempfile::TempDir,
    m: Room,
    many: Room,
}

/// A small run (`m`), a copy of it whose phase holds 5,000,000 warnings `"w"` (`manywarn`, about 25 MB)
/// and one with 500,000 (`fewwarn`), made once for this file's tests. The oracle counts `m`'s tree, and
/// `manywarn`'s as the same tree with the one warning `"@W@"` (1 value, 1 string, 3 bytes) that it
/// replaced by 5,000,000 (`"w"`: 1 value, 1 string, 1 byte each).
fn folders() -> &'static Folders {
    static F: OnceLock<Folders> = OnceLock::new();
    F.get_or_init(|| {
        let d = tempdir();
        let body = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 0\n\
                    block_size = \"4KiB\"\nsize = \"1MiB\"\n";
        write_file(d.path(), "s.toml", &spec_text("mw", body));
        std::fs::write(d.path().join("t.img"), vec![0u8; 1 << 20]).unwrap();
        let (code, _, err) = code_out_err(&wkrun(
            d.path(),
            &["s.toml", "--target", "t.img", "-o", "m", "-q"],
        ));
        assert_eq!(code, 0, "{err}");
        let m = d.path().join("m");
        let (h, r, v) = file_room(&m.join("results.json"));
        let len = |f: &Path| std::fs::metadata(f).unwrap().len();
        let m_room = (h, r, v, len(&m.join("results.json")), series_bytes(&m));
        let mut tree: Value =
            serde_json::from_slice(&std::fs::read(m.join("results.json")).unwrap()).unwrap();
        tree["phases"][0]["warnings"] = serde_json::json!(["@W@"]);
        let text = serde_json::to_string(&tree).unwrap();
        for (name, n) in [("manywarn", 5_000_000), ("fewwarn", 500_000)] {
            let many = d.path().join(name);
            std::fs::create_dir(&many).unwrap();
            for e in std::fs::read_dir(&m).unwrap().flatten() {
                std::fs::copy(e.path(), many.join(e.file_name())).unwrap();
            }
            let warnings = vec!["\"w\""; n].join(",");
            let text = text.replacen("\"@W@\"", &warnings, 1);
            std::fs::write(many.join("results.json"), text).unwrap();
        }
        let more = Counts {
            values: 5_000_000 - 1,
            strings: 5_000_000 - 1,
            keys: 0,
            string_bytes: 5_000_000 - 3,
        };
        let mut all = counts(&tree);
        all.add(more);
        let mut phases: Vec<Counts> = tree["phases"].as_array().unwrap().iter().map(counts).collect();
        phases[0].add(more);
        let many = d.path().join("manywarn");
        let bytes = len(&many.join("results.json"));
        let (h, r) = room(bytes, all, &phases);
        let many_room = (h, r, all.values, bytes, series_bytes(&many));
        Folders {
            dir: d,
            m: m_room,
            many: many_room,
        }
    })
}

/// `wkrun ARGS` in `dir` under `prlimit --as=LIMIT`: exit code, stderr.
fn under(dir: &Path, limit: u64, args: &[&str]) -> (i32, String) {
    let (code, _, err) = crate::edges24::under_as(dir, limit, args);
    (code, err)
}

/// Runs `args` under 150 MB and 500 MB (both short of the 1.2 GB the file needs beside the program):
/// exit 1, the refusal recomputed from the rooms of the folders read, no output made.
fn refused(args: &[&str], what: &str, read: &[Room], per_byte: u64, kept: bool) {
    let dir = folders().dir.path();
    for limit in [150_000_000u64, 500_000_000] {
        let (code, err) = under(dir, limit, args);
        assert_eq!(code, 1, "{args:?} under {limit} B: {err}");
        let used = number_after(&err, "beyond the ");
        assert_eq!(err, refusal(what, read, per_byte, kept, (used, limit)));
        assert!(!dir.join("out").exists());
    }
}

#[test]
fn validate_of_five_million_warnings_is_refused_naming_the_limit() {
    let f = folders();
    refused(
        &["validate", "manywarn"],
        "validating results",
        &[f.many],
        3,
        false,
    );
}

#[test]
fn compare_and_sim_fit_of_five_million_warnings_are_refused_naming_the_limit() {
    let f = folders();
    refused(
        &["compare", "m", "manywarn"],
        "comparing results",
        &[f.m, f.many],
        3,
        false,
    );
    refused(
        &["sim", "fit", "manywarn"],
        "fitting the simulated drive to results",
        &[f.many],
        3,
        false,
    );
}

#[test]
fn report_of_five_million_warnings_is_refused_naming_the_limit() {
    let f = folders();
    refused(
        &["report", "manywarn", "-o", "out"],
        "a report of 1 results folder",
        &[f.many],
        10,
        false,
    );
}

#[test]
fn library_add_and_merge_of_five_million_warnings_are_refused_naming_the_limit() {
    let f = folders();
    refused(
        &["library", "--library", "out", "add", "manywarn"],
        "adding results to the library",
        &[f.many],
        10,
        true,
    );
    refused(
        &["merge", "-o", "out", "m", "manywarn"],
        "merging 2 results folders",
        &[f.m, f.many],
        10,
        true,
    );
}

/// Under the limit its refusal names, `validate` of 500,000 warnings completes (5,000,000 took 822 MB of
/// memory; the limit counts address space, which the refusal's estimate holds with room to spare).
#[test]
fn validate_of_many_warnings_completes_under_the_limit_it_names() {
    let dir = folders().dir.path();
    let (code, err) = under(dir, 60 << 20, &["validate", "fewwarn"]);
    assert_eq!(code, 1, "{err}");
    let enough = number_after(&err, "raise it to at least ");
    let (code, err) = under(dir, enough, &["validate", "fewwarn"]);
    assert_eq!((code, err.as_str()), (0, ""));
}

/// A document nested past the parser's depth limit (attack 38, finding 1): its values beyond the limit are
/// never read, so the room counted for it stops there too. 130 lists around 150,000 zeros, a 300 KB file,
/// under 100 MB: the depth error (exit 2), not a refusal for the room of values never held.
#[test]
fn a_document_nested_too_deep_is_refused_for_its_depth_under_a_limit() {
    let dir = folders().dir.path();
    let deep = dir.join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    let text = std::fs::read_to_string(dir.join("m/results.json")).unwrap();
    let zeros = vec!["0"; 150_000].join(",");
    let inner = format!("{}{zeros}{}", "[".repeat(130), "]".repeat(130));
    let text = text.replacen('{', &format!("{{\"x\": {inner},"), 1);
    std::fs::write(deep.join("results.json"), text).unwrap();
    // The object's `{"x": ` is 6 columns; the 127th list, the 128th container, opens at column 6 + 127.
    let want = "error: deep/results.json is not a wkrun results document: nested deeper than 127 levels of objects and arrays (the document's own object the first) at line 1 column 133\n";
    for limit in [100_000_000u64, 0] {
        let (code, err) = match limit {
            0 => {
                let (c, _, e) = code_out_err(&wkrun(dir, &["validate", "deep"]));
                (c, e)
            }
            l => under(dir, l, &["validate", "deep"]),
        };
        assert_eq!((code, err.as_str()), (2, want), "under {limit} B");
    }
}
