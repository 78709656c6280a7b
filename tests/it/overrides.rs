//! `--set KEY=VALUE` (issue 24): a value that is more than one TOML value is refused (item 19).

use crate::common::*;

/// A fill `prep` at QD 4 and a random 50 % read workload `mix` at QD 16, 1 s.
const BODY: &str = r#"
[[phase]]
name = "prep"
kind = "fill"
queue_depth = 4

[[phase]]
name = "mix"
kind = "workload"
pattern = "random"
read_percent = 50
queue_depth = 16
duration = "1s"
"#;

/// A `--set` value that goes on after a line break was read as its first line and the rest dropped
/// (`--set $'queue_depth=8\n[spec]\nname="x"'` ran at QD 8 and said nothing): refused with exit 2, the
/// argument shown on one line, nothing written, for `plan` and for a run.
#[test]
fn a_set_value_of_more_than_one_toml_value_is_refused() {
    let tmp = tempdir();
    let d = tmp.path();
    write_file(d, "s.toml", &spec_text("set", BODY));
    let tail = "; give one TOML value or one word (--set once per key)";
    let cases = [
        (
            "queue_depth=8\n[spec]\nname=\"x\"",
            format!(
                "error: --set queue_depth=8\\n[spec]\\nname=\"x\": the value is more than one TOML value: it goes on after a line break{tail}"
            ),
        ),
        (
            "queue_depth=8\nduration=\"1s\"",
            format!(
                "error: --set queue_depth=8\\nduration=\"1s\": the value is more than one TOML value: it goes on after a line break{tail}"
            ),
        ),
        (
            "duration=2s\nqueue_depth=8",
            format!(
                "error: --set duration=2s\\nqueue_depth=8: the value is not one TOML value, and as a word it holds a control character{tail}"
            ),
        ),
    ];
    for (arg, want) in &cases {
        for cmd in [
            &[
                "plan",
                "s.toml",
                "--target",
                "t.img",
                "--target-size",
                "1MiB",
            ][..],
            &[
                "s.toml",
                "--target",
                "t.img",
                "--target-size",
                "1MiB",
                "-o",
                "out",
            ][..],
        ] {
            let before = dir_listing(d);
            let mut args = cmd.to_vec();
            args.extend(["--set", arg]);
            let (code, out, err) = code_out_err(&wkrun(d, &args));
            assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
            assert_eq!(err.trim_end(), want, "{args:?}");
            assert_eq!(dir_listing(d), before, "{args:?} wrote something");
        }
    }
    // One value on its own line, with a trailing line break, is still one value.
    let (code, out, err) = code_out_err(&wkrun(
        d,
        &[
            "plan",
            "--json",
            "s.toml",
            "--target",
            "t.img",
            "--target-size",
            "1MiB",
            "--set",
            "queue_depth=8\n",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(plan["phases"][1]["params"]["queue_depth"], 8, "{out}");
}
