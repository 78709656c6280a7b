//! Target paths that name no storage (issue 24 item 18): a simulated drive misspelt (`SIM:`) or malformed (an
//! empty item, a space). Each is refused by `wkrun plan` and by a run with exit 2 and one line naming what is
//! wrong, and nothing is created anywhere: no output folder, no file named like the simulated drive.

use crate::common::*;
use std::path::Path;

/// A one-phase fill of a 1 MiB file target: what the refused runs would have done.
const FILL: &str = "[target]\nsize = \"1MiB\"\n[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"256KiB\"\n";

/// `wkrun plan s.toml --target TARGET` and `wkrun s.toml --target TARGET -o out` in `d` (holding only
/// `s.toml`): both exit 2 with `error: WANT` as the last line of stderr, and `d` still holds only `s.toml`.
fn refused(d: &Path, target: &str, want: &str) {
    let before = dir_listing(d);
    for args in [
        vec!["plan", "s.toml", "--target", target],
        vec!["s.toml", "--target", target, "-o", "out"],
    ] {
        let (code, _, err) = code_out_err(&wkrun(d, &args));
        assert_eq!(code, 2, "wkrun {args:?}: {err}");
        assert_eq!(
            err.lines().last(),
            Some(format!("error: {want}").as_str()),
            "wkrun {args:?}"
        );
        assert_eq!(dir_listing(d), before, "wkrun {args:?} wrote nothing");
    }
}

/// Item 18: `SIM:capacity=1GiB` (the prefix in another case) created and filled a 1 GiB file of that name;
/// an empty item (`,,`, a trailing comma) and an item with a space were taken as if absent, though the docs
/// say malformed items are refused. `./SIM:...` is a file of that name, as the hint says.
#[test]
fn a_misspelt_or_malformed_simulated_drive_is_refused() {
    let dir = tempdir();
    let d = dir.path();
    write_file(d, "s.toml", &spec_text("sim", FILL));
    refused(
        d,
        "SIM:capacity=1GiB",
        "--target \"SIM:capacity=1GiB\": a simulated drive is named with sim: in lower case (sim:capacity=1GiB); for a file really named so, write ./SIM:capacity=1GiB",
    );
    refused(
        d,
        "Sim:",
        "--target \"Sim:\": a simulated drive is named with sim: in lower case (sim:); for a file really named so, write ./Sim:",
    );
    let empty = "an empty item (two commas in a row, or a comma at the start or the end); write key=value items separated by single commas (e.g. sim:capacity=2GiB,op=7%)";
    for t in [
        "sim:capacity=1GiB,,op=7%",
        "sim:capacity=1GiB,",
        "sim:,capacity=1GiB",
    ] {
        refused(d, t, &format!("--target {t}: {empty}"));
    }
    refused(
        d,
        "sim: capacity=1GiB",
        "--target \"sim: capacity=1GiB\": \" capacity=1GiB\" holds a space; write key=value items separated by commas, without spaces (e.g. sim:capacity=2GiB,op=7%)",
    );
    refused(
        d,
        "sim:capacity=1GiB,op =7%",
        "--target \"sim:capacity=1GiB,op =7%\": \"op =7%\" holds a space; write key=value items separated by commas, without spaces (e.g. sim:capacity=2GiB,op=7%)",
    );
    let sim = plan_json(
        d,
        Path::new("s.toml"),
        Path::new("sim:capacity=1GiB,op=7%"),
        &[],
    );
    assert_eq!(sim["target"]["kind"], "sim");
    let file = plan_json(
        d,
        Path::new("s.toml"),
        Path::new("./SIM:capacity=1GiB"),
        &[],
    );
    assert_eq!(file["target"]["kind"], "file");
    assert_eq!(file["target"]["capacity_bytes"], 1 << 20);
}
