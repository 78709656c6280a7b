//! The results library (issue 25, item 6): `wkrun library add|list|rm`, `compare|report --against-library`,
//! on real runs of the simulated drive and a real SQLite file: eight processes adding at once all land,
//! adding twice keeps one, an entry outlives its results folder, a file that is not a library (or is
//! damaged, or newer) is refused and left byte for byte as it was, a read-only library lists but does not
//! add, and the library's place follows --library, WKRUN_LIBRARY, XDG_DATA_HOME and HOME.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const SPEC: &str = "[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nqueue_depth = 4\nread_percent = 0\nduration = \"2s\"\n";

/// Writes the spec `name` (one 2 s random-write workload) into `dir` as `NAME.toml`.
fn spec(dir: &Path, name: &str) {
    write_file(dir, &format!("{name}.toml"), &spec_text(name, SPEC));
}

/// Runs spec `name` on a 128 MiB simulated drive with `op_pct` % over-provisioning into `dir/out`,
/// labelled `label`; returns the results folder.
fn sim_run(dir: &Path, name: &str, out: &str, op_pct: u32, label: &str) -> PathBuf {
    let target = format!("sim:capacity=128MiB,op={op_pct}%");
    let spec = format!("{name}.toml");
    let args = [
        &spec, "--target", &target, "--label", label, "-q", "-o", out,
    ];
    let (c, _, e) = code_out_err(&wkrun(dir, &args));
    assert_eq!(c, 0, "{e}");
    dir.join(out)
}

/// `wkrun ARGS --library LIB` in `dir`: exit code, stdout, stderr.
fn lib(dir: &Path, library: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--library", library.to_str().expect("utf-8 path")]);
    code_out_err(&wkrun(dir, &all))
}

/// The entry lines of `wkrun library list` (without the header), each split at runs of two spaces.
fn listed(dir: &Path, library: &Path, args: &[&str]) -> Vec<Vec<String>> {
    let mut all = vec!["library", "list"];
    all.extend_from_slice(args);
    let (c, out, e) = lib(dir, library, &all);
    assert_eq!(c, 0, "{e}");
    let mut lines = out.lines();
    assert_eq!(
        lines.next().map(|h| h.split_whitespace().next()),
        Some(Some("id")),
        "{out}"
    );
    lines
        .map(|l| {
            l.trim()
                .split("  ")
                .filter(|c| !c.is_empty())
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// Eight runs of spec `lib`, labelled `drive 0` … `drive 7`, over-provisioning 28 % to 56 %.
fn eight_runs(dir: &Path) -> Vec<PathBuf> {
    spec(dir, "lib");
    (0..8)
        .map(|i| {
            sim_run(
                dir,
                "lib",
                &format!("r{i}"),
                28 + 4 * i,
                &format!("drive {i}"),
            )
        })
        .collect()
}

/// Starts `wkrun library add FOLDER --library LIB` for each folder at once; waits for all; returns their
/// exit codes and stderr.
fn add_at_once(dir: &Path, library: &Path, folders: &[PathBuf]) -> Vec<(i32, String)> {
    let children: Vec<_> = folders
        .iter()
        .map(|f| {
            Command::new(wkrun_bin())
                .args(["library", "add"])
                .arg(f)
                .arg("--library")
                .arg(library)
                .current_dir(dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("start wkrun")
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let o = c.wait_with_output().expect("wait");
            let (code, _, err) = code_out_err(&o);
            (code, err)
        })
        .collect()
}

/// SQLite's own view of a library: integrity check, application_id, user_version, journal mode, entries.
fn sqlite_facts(library: &Path) -> (String, i64, i64, String, i64) {
    let c =
        rusqlite::Connection::open_with_flags(library, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open library");
    let one =
        |sql: &str| -> rusqlite::types::Value { c.query_row(sql, [], |r| r.get(0)).expect(sql) };
    let text = |v: rusqlite::types::Value| match v {
        rusqlite::types::Value::Text(t) => t,
        other => panic!("{other:?}"),
    };
    let int = |v: rusqlite::types::Value| match v {
        rusqlite::types::Value::Integer(i) => i,
        other => panic!("{other:?}"),
    };
    (
        text(one("PRAGMA integrity_check")),
        int(one("PRAGMA application_id")),
        int(one("PRAGMA user_version")),
        text(one("PRAGMA journal_mode")),
        int(one("SELECT count(*) FROM entries")),
    )
}

/// Eight processes add eight runs at once to a library none of them finds (each tries to make it): all
/// exit 0, all eight are listed once, and SQLite finds the file sound, a wkrun library (application_id
/// `WKRL`), schema 1, in WAL mode. The same eight again at once: still eight (adding is idempotent).
#[test]
fn eight_processes_adding_at_once_all_land() {
    let t = tempdir();
    let runs = eight_runs(t.path());
    let library = t.path().join("shared/lib.sqlite");
    let started = std::time::Instant::now();
    let codes = add_at_once(t.path(), &library, &runs);
    eprintln!(
        "8 concurrent adds: {:.2} s",
        started.elapsed().as_secs_f64()
    );
    assert!(codes.iter().all(|(c, _)| *c == 0), "{codes:?}");
    let rows = listed(t.path(), &library, &[]);
    let mut labels: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    labels.sort_unstable();
    let want: Vec<String> = (0..8).map(|i| format!("drive {i}")).collect();
    assert_eq!(labels, want);
    let mut ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6", "7", "8"]);
    assert_eq!(
        sqlite_facts(&library),
        ("ok".into(), 0x574B_524C, 1, "wal".into(), 8)
    );
    // Made with mode 0644 less the umask: no execute bits, no write but the owner's.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&library)
        .expect("library")
        .permissions()
        .mode();
    assert_eq!((mode & 0o600, mode & 0o133), (0o600, 0), "{mode:o}");
    let again = add_at_once(t.path(), &library, &runs);
    assert!(again.iter().all(|(c, _)| *c == 0), "{again:?}");
    assert_eq!(listed(t.path(), &library, &[]).len(), 8);
    // No leftover of the making of the library beside it.
    let mut names: Vec<String> = std::fs::read_dir(t.path().join("shared"))
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("lib.sqlite"))
        .collect();
    names.sort();
    assert!(names.is_empty(), "{names:?}");
}

/// Adding a run twice keeps one entry (the same results.json bytes), and says so; `--label` on a run
/// already there relabels it; an entry's line shows its id, label, spec, target, start, status and lead
/// figure, the value of the run's own results.
#[test]
fn adding_twice_keeps_one_and_a_label_relabels() {
    let t = tempdir();
    spec(t.path(), "lib");
    let r = sim_run(t.path(), "lib", "r", 28, "drive A");
    let library = t.path().join("lib.sqlite");
    let (c, out, e) = lib(t.path(), &library, &["library", "add", "r"]);
    assert_eq!(c, 0, "{e}");
    let lib_s = library.display();
    assert_eq!(
        out,
        format!("added entry 1, drive A: r/results.json\nlibrary: {lib_s} (1 entries)\n")
    );
    let (c, out, _) = lib(
        t.path(),
        &library,
        &["library", "add", "r/results.json", "r"],
    );
    assert_eq!(c, 0);
    assert_eq!(
        out,
        format!(
            "kept entry 1, drive A (already in the library): r/results.json\n\
             kept entry 1, drive A (already in the library): r/results.json\nlibrary: {lib_s} (1 entries)\n"
        )
    );
    let (c, out, _) = lib(
        t.path(),
        &library,
        &["library", "add", "r", "--label", "drive B"],
    );
    assert_eq!(c, 0);
    assert!(
        out.starts_with("relabelled entry 1, drive B (was \"drive A\"): r/results.json\n"),
        "{out}"
    );
    let results = results(&r);
    let iops = results["phases"][0]["headline"][0]["value"]
        .as_f64()
        .expect("a headline value");
    let started = results["started_at"].as_str().expect("started_at");
    assert_eq!(
        listed(t.path(), &library, &[]),
        [vec![
            "1".to_string(),
            "drive B".into(),
            "lib".into(),
            "sim:capacity=128MiB,op=28%,dies=1".into(),
            format!("{} {}", &started[..10], &started[11..16]),
            "completed".into(),
            format!("w: {iops:.1} IOPS (IOPS, phase mean)"),
        ]]
    );
}

/// An entry keeps the run's results and series: with its results folder deleted it is still listed, and
/// compare and report against the library show its numbers, those the folder had.
#[test]
fn an_entry_outlives_its_results_folder() {
    let t = tempdir();
    spec(t.path(), "lib");
    let old = sim_run(t.path(), "lib", "old", 28, "old drive");
    let library = t.path().join("lib.sqlite");
    let (c, _, e) = lib(t.path(), &library, &["library", "add", "old"]);
    assert_eq!(c, 0, "{e}");
    let was = results(&old);
    let rows_were = std::fs::read(old.join("00-w.csv")).expect("series");
    std::fs::remove_dir_all(&old).expect("delete the results folder");
    assert_eq!(listed(t.path(), &library, &[])[0][1], "old drive");

    sim_run(t.path(), "lib", "new", 56, "new drive");
    let (c, out, e) = lib(
        t.path(),
        &library,
        &["compare", "new", "--against-library", "--format", "csv"],
    );
    assert_eq!(c, 0, "{e}");
    let recs: Vec<Vec<String>> = csv::Reader::from_reader(out.as_bytes())
        .records()
        .map(|r| r.expect("record").iter().map(str::to_string).collect())
        .collect();
    let row = recs
        .iter()
        .find(|r| r[0] == "w" && r[1] == "IOPS, phase mean")
        .expect("the headline row");
    let v = was["phases"][0]["headline"][0]["value"]
        .as_f64()
        .expect("value");
    assert_eq!(row[3], format!("{v:.1}"), "{out}");
    assert!(
        out.starts_with("phase,metric,new drive,old drive,old drive change (%)\n"),
        "{out}"
    );

    // The report reads the stored series: the ranked charts put both runs on each headline figure.
    let (c, out, e) = lib(
        t.path(),
        &library,
        &["report", "new", "--against-library", "-o", "rep"],
    );
    assert_eq!(c, 0, "{e}");
    assert!(out.starts_with("report: rep/index.html"), "{out}");
    let ranked: Vec<String> = {
        let mut v: Vec<String> = std::fs::read_dir(t.path().join("rep"))
            .expect("report folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("ranked-"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        ranked,
        [
            "ranked-01-w-mean_iops.svg",
            "ranked-02-w-mean_mb_s.svg",
            "ranked-03-w-mean_lat_mean_us.svg"
        ]
    );
    let svg = std::fs::read_to_string(t.path().join("rep").join(&ranked[0])).expect("svg");
    assert!(svg.contains(&format!("{v:.1} IOPS")), "{svg}");
    let html = std::fs::read_to_string(t.path().join("rep/index.html")).expect("index.html");
    assert!(html.contains("<h2>Against the library</h2>"));
    assert!(html.contains("<td>old drive</td>"));
    // What the library stored is the folder's series, byte for byte.
    let c = rusqlite::Connection::open(&library).expect("open");
    let stored: Vec<u8> = c
        .query_row("SELECT bytes FROM files WHERE name = '00-w.csv'", [], |r| {
            r.get(0)
        })
        .expect("stored series");
    assert_eq!(stored, rows_were);
}

/// `report A B --against-library` ranks A among every run given and the library's other runs, each once
/// (trial 22 item 1: B, given and in the library, was left out of both): the rank is out of three, the
/// page counts one library run and the other run given, and lists all three.
#[test]
fn report_against_the_library_ranks_among_every_run_given() {
    let t = tempdir();
    spec(t.path(), "lib");
    let folders = [
        sim_run(t.path(), "lib", "a", 28, "drive a"),
        sim_run(t.path(), "lib", "b", 56, "drive b"),
        sim_run(t.path(), "lib", "c", 100, "drive c"),
    ];
    let library = t.path().join("lib.sqlite");
    let (c, _, e) = lib(t.path(), &library, &["library", "add", "a", "b", "c"]);
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = lib(
        t.path(),
        &library,
        &["report", "a", "b", "--against-library", "-o", "rep"],
    );
    assert_eq!(c, 0, "{e}");
    // The oracle: drive a's mean IOPS among the three runs' (higher is better), ties after it.
    let iops: Vec<f64> = folders
        .iter()
        .map(|f| {
            results(f)["phases"][0]["headline"][0]["value"]
                .as_f64()
                .expect("value")
        })
        .collect();
    let rank = 1 + iops[1..].iter().filter(|v| **v > iops[0]).count();
    let svg = std::fs::read_to_string(t.path().join("rep/ranked-01-w-mean_iops.svg")).expect("svg");
    assert!(svg.contains(&format!("drive a: rank {rank} of 3")), "{svg}");
    for name in ["drive b", "drive c"] {
        assert!(svg.contains(name), "{name}: {svg}");
    }
    let html = std::fs::read_to_string(t.path().join("rep/index.html")).expect("index.html");
    assert!(
        html.contains(
            "drive a beside the results library's 1 run of spec lib and the other run given"
        ),
        "{html}"
    );
    let section = &html[html.find("<h2>Against the library</h2>").expect("section")..];
    for name in ["drive a", "drive b", "drive c"] {
        assert_eq!(
            section.matches(&format!("<td>{name}</td>")).count(),
            1,
            "{name}"
        );
    }
}

/// `compare --against-library N`: the run beside the library's last N runs of its spec by start time,
/// oldest first, the run itself left out (it is in the library too); runs of another spec never; a spec
/// the library has no other run of is refused (exit 2).
#[test]
fn compare_against_the_library_takes_the_last_runs_of_the_spec() {
    let t = tempdir();
    let runs = eight_runs(t.path());
    spec(t.path(), "other");
    sim_run(t.path(), "other", "x", 28, "other spec");
    let library = t.path().join("lib.sqlite");
    let mut add = vec!["library", "add", "x"];
    let names: Vec<String> = (0..8).map(|i| format!("r{i}")).collect();
    add.extend(names.iter().map(String::as_str));
    let (c, _, e) = lib(t.path(), &library, &add);
    assert_eq!(c, 0, "{e}");
    let (c, out, e) = lib(
        t.path(),
        &library,
        &["compare", "r7", "--against-library", "3", "--format", "csv"],
    );
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        out.lines().next(),
        Some(
            "phase,metric,drive 7,drive 4,drive 4 change (%),drive 5,drive 5 change (%),drive 6,drive 6 change (%)"
        )
    );
    // Default N is 20: every other run of the spec, the other spec's never.
    let (c, out, _) = lib(t.path(), &library, &["compare", "r0", "--against-library"]);
    assert_eq!(c, 0);
    for i in 0..8 {
        assert!(out.contains(&format!("drive {i}")), "{out}");
    }
    assert!(!out.contains("other spec"));
    assert_eq!(runs.len(), 8);
    let (c, _, e) = lib(t.path(), &library, &["compare", "x", "--against-library"]);
    assert_eq!(c, 2);
    // Trial 26 L3: the one run of its spec in the library is the one compared; other specs are
    // suggested, never the one asked for (it said `did you mean "other"?`).
    assert!(
        e.ends_with(" has no other run of spec \"other\" to compare with; its only run of that spec is the one compared; it has: \"lib\"\n"),
        "{e}"
    );
}

/// Bytes of every file in `dir` whose name starts with `prefix`, by name.
fn files_of(dir: &Path, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry"))
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    v.sort();
    v
}

/// A file that is not a wkrun library: text, empty, another program's SQLite database, a library of a
/// newer schema, a damaged library, a symbolic link to a library. `add` and `list` exit 2 with the reason
/// and the file (and anything beside it of its name) is left byte for byte as it was.
#[test]
fn a_file_that_is_not_a_library_is_refused_and_left_as_it_was() {
    let t = tempdir();
    spec(t.path(), "lib");
    sim_run(t.path(), "lib", "r", 28, "drive A");
    sim_run(t.path(), "lib", "s", 32, "drive B");
    let d = t.path();
    std::fs::write(d.join("text.sqlite"), "not a library\n").expect("write");
    std::fs::write(d.join("empty.sqlite"), "").expect("write");
    {
        let c = rusqlite::Connection::open(d.join("foreign.sqlite")).expect("open");
        c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .expect("foreign");
    }
    let good = d.join("good.sqlite");
    assert_eq!(lib(d, &good, &["library", "add", "r", "s"]).0, 0);
    std::fs::copy(&good, d.join("newer.sqlite")).expect("copy");
    {
        let c = rusqlite::Connection::open(d.join("newer.sqlite")).expect("open");
        c.pragma_update(None, "user_version", 2)
            .expect("user_version");
    }
    // The second page (the entries table's root) overwritten.
    let mut bytes = std::fs::read(&good).expect("library");
    bytes[4096..8192].fill(0xAB);
    std::fs::write(d.join("damaged.sqlite"), &bytes).expect("write");
    std::os::unix::fs::symlink("good.sqlite", d.join("link.sqlite")).expect("symlink");
    let cases = [
        (
            "text.sqlite",
            "not a wkrun results library: it is not an SQLite database (14 bytes)",
        ),
        (
            "empty.sqlite",
            "not a wkrun results library: it is not an SQLite database (0 bytes, empty)",
        ),
        (
            "foreign.sqlite",
            "not a wkrun results library: it is an SQLite database of another program (no application_id)",
        ),
        (
            "newer.sqlite",
            "a results library of schema version 2, newer than this wkrun's 1",
        ),
        ("damaged.sqlite", "the library is damaged"),
        (
            "link.sqlite",
            "it is a symbolic link; a library is never opened through one",
        ),
    ];
    let mut failures = Failures::default();
    for (name, why) in cases {
        failures.case(name);
        let before = files_of(d, name);
        let path = d.join(name);
        for args in [
            &["library", "add", "r"][..],
            &["library", "list"][..],
            &["library", "rm", "1"][..],
        ] {
            let (c, _, e) = lib(d, &path, args);
            let shown = format!("{}: ", path.display());
            failures.check(c == 2, || format!("{args:?}: exit {c}, want 2: {e}"));
            failures.check(e.contains(&shown) && e.contains(why), || {
                format!("{args:?}: {e:?} lacks {why:?}")
            });
            failures.check(e.contains("left as it is"), || format!("{args:?}: {e}"));
        }
        let against = [
            &["compare", "s", "--against-library"][..],
            &["report", "s", "--against-library", "-o", "rep"][..],
        ];
        for args in against {
            let (c, _, e) = lib(d, &path, args);
            failures.check(c == 2 && e.contains(why), || {
                format!("{args:?}: exit {c}: {e}")
            });
        }
        failures.check(files_of(d, name) == before, || {
            "the file (or a -wal, -shm beside it) changed".into()
        });
    }
    failures.assert_none("library::a_file_that_is_not_a_library_is_refused_and_left_as_it_was");
}

/// A library that may not be written: a file without write permission (even for root), and as root a
/// read-only file system (a tmpfs remounted read-only). `list` and `compare --against-library` read it;
/// `add` and `rm` exit 2 saying why, and the file is unchanged, with no `-wal` or `-shm` file left beside
/// it.
#[test]
fn a_read_only_library_lists_but_does_not_add() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempdir();
    let d = t.path();
    spec(d, "lib");
    sim_run(d, "lib", "r", 28, "drive A");
    sim_run(d, "lib", "s", 32, "drive B");
    let check = |library: &Path, why: &str| {
        let before = std::fs::read(library).expect("library");
        assert_eq!(listed(d, library, &[]).len(), 1);
        let (c, out, e) = lib(d, library, &["compare", "s", "--against-library"]);
        assert_eq!(c, 0, "{e}");
        assert!(out.contains("drive A") && out.contains("drive B"), "{out}");
        for args in [&["library", "add", "s"][..], &["library", "rm", "1"][..]] {
            let (c, _, e) = lib(d, library, args);
            assert_eq!(c, 2, "{args:?}: {e}");
            assert!(
                e.contains(&format!(
                    "cannot write the library {}: {why}",
                    library.display()
                )),
                "{args:?}: {e}"
            );
        }
        assert_eq!(std::fs::read(library).expect("library"), before);
        // Reading it left nothing beside it (found by the attack of issue 24, round 2: `list` of a file
        // without write permission left its -wal and -shm files).
        for suffix in ["-wal", "-shm"] {
            let mut beside = library.as_os_str().to_owned();
            beside.push(suffix);
            assert!(
                !Path::new(&beside).exists(),
                "{} left",
                Path::new(&beside).display()
            );
        }
    };
    let file = d.join("ro-file.sqlite");
    assert_eq!(lib(d, &file, &["library", "add", "r"]).0, 0);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    check(&file, "the file has no write permission");

    let name = "library::a_read_only_library_lists_but_does_not_add";
    let m = match Mount::tmpfs(d.join("mnt"), "16m") {
        Ok(m) => m,
        Err(why) => return skip(name, &why),
    };
    let on_ro = m.dir.join("lib.sqlite");
    assert_eq!(lib(d, &on_ro, &["library", "add", "r"]).0, 0);
    let remount = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&m.dir)
        .status()
        .expect("mount");
    assert!(remount.success());
    check(&on_ro, "it is on a read-only file system");
    // A library to be made there: refused, with the same words.
    let (c, _, e) = lib(d, &m.dir.join("sub/new.sqlite"), &["library", "add", "r"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("it is on a read-only file system"), "{e}");
}

/// Bad input changes nothing: a JSON file that is not results (beside a good run), a results folder
/// whose series CSV is gone: exit 2 naming the file, and no library made; an unknown id, label or spec:
/// exit 2 naming the closest, and the library unchanged.
#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let t = tempdir();
    let d = t.path();
    spec(d, "lib");
    sim_run(d, "lib", "r", 28, "drive A");
    sim_run(d, "lib", "s", 32, "drive B");
    write_file(d, "other.json", "{\"a\": 1}");
    let library = d.join("lib.sqlite");
    let (c, _, e) = lib(d, &library, &["library", "add", "r", "other.json"]);
    assert_eq!(c, 2);
    assert!(
        e.contains("other.json is not a wkrun results document"),
        "{e}"
    );
    assert!(!library.exists());
    std::fs::remove_file(d.join("s/00-w.csv")).expect("remove the series");
    let (c, _, e) = lib(d, &library, &["library", "add", "r", "s"]);
    assert_eq!(c, 2);
    assert!(e.contains("s/00-w.csv"), "{e}");
    assert!(!library.exists());

    assert_eq!(lib(d, &library, &["library", "add", "r"]).0, 0);
    let before = std::fs::read(&library).expect("library");
    let cases: [(&[&str], &str); 5] = [
        (&["library", "rm", "9"], "no entry 9 in"),
        (
            &["library", "rm", "--label", "drive"],
            "no entry labelled \"drive\"",
        ),
        (
            &["library", "list", "--label", "drive Z"],
            "no entry whose label contains \"drive Z\"",
        ),
        (
            &["library", "list", "--spec", "lb"],
            "no entry of spec \"lb\"",
        ),
        (&["library", "rm", "x1"], "invalid value 'x1'"),
    ];
    for (args, want) in cases {
        let (c, _, e) = lib(d, &library, args);
        assert_eq!(c, 2, "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {e}");
    }
    let (_, _, e) = lib(d, &library, &["library", "rm", "--label", "drive"]);
    assert!(e.contains("did you mean \"drive A\"?"), "{e}");
    assert_eq!(std::fs::read(&library).expect("library"), before);
    // What rm removes is gone, files and figures too.
    let (c, out, _) = lib(d, &library, &["library", "rm", "--label", "drive A"]);
    assert_eq!(c, 0);
    assert!(out.starts_with("removed 1 drive A (lib, "), "{out}");
    let (c, out, e) = lib(d, &library, &["library", "list"]);
    assert_eq!((c, out.lines().count()), (0, 1), "{out}");
    assert!(e.contains("is empty"), "{e}");
    let db = rusqlite::Connection::open(&library).expect("open");
    let count = |t: &str| -> i64 {
        db.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
            .expect("count")
    };
    assert_eq!(
        (count("entries"), count("files"), count("figures")),
        (0, 0, 0)
    );
}

/// Where the library is: --library, else WKRUN_LIBRARY, else $XDG_DATA_HOME/wkrun/library.sqlite, else
/// ~/.local/share/wkrun/library.sqlite (folders made); none of them set: exit 2 saying what to set.
#[test]
fn the_library_is_found_by_flag_then_environment() {
    let t = tempdir();
    let d = t.path();
    spec(d, "lib");
    sim_run(d, "lib", "r", 28, "drive A");
    let add = |env: &[(&str, &Path)], extra: &[&str]| {
        let mut cmd = Command::new(wkrun_bin());
        cmd.args(["library", "add", "r"]).args(extra).current_dir(d);
        for k in ["WKRUN_LIBRARY", "XDG_DATA_HOME", "HOME"] {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        code_out_err(&cmd.output().expect("wkrun"))
    };
    let home = d.join("home");
    let xdg = d.join("xdg");
    let env_lib = d.join("env/lib.sqlite");
    let flag = d.join("flag.sqlite");
    let all: [(&str, &Path); 3] = [
        ("WKRUN_LIBRARY", &env_lib),
        ("XDG_DATA_HOME", &xdg),
        ("HOME", &home),
    ];
    let flag_s = flag.to_str().expect("utf-8");
    // (the environment, extra arguments, where the library goes)
    type Case<'a> = (&'a [(&'a str, &'a Path)], &'a [&'a str], PathBuf);
    let cases: [Case; 4] = [
        (&all, &["--library", flag_s], flag.clone()),
        (&all, &[], env_lib.clone()),
        (&all[1..], &[], xdg.join("wkrun/library.sqlite")),
        (
            &all[2..],
            &[],
            home.join(".local/share/wkrun/library.sqlite"),
        ),
    ];
    for (env, extra, want) in cases {
        let (c, out, e) = add(env, extra);
        assert_eq!(c, 0, "{e}");
        assert!(
            out.ends_with(&format!("library: {} (1 entries)\n", want.display())),
            "{out}"
        );
        assert!(want.is_file());
    }
    let (c, _, e) = add(&[], &[]);
    assert_eq!(c, 2);
    assert!(
        e.contains("give --library PATH, or set WKRUN_LIBRARY or HOME"),
        "{e}"
    );
}

/// What docs/library.md advises for several machines: a library per machine, each adding the results
/// folders from shared storage. Two processes adding the same folders at once to two libraries (as two
/// machines would) list the same entries; a library copied while no process uses it lists the same too.
#[test]
fn two_libraries_of_the_same_folders_list_the_same() {
    let t = tempdir();
    let d = t.path();
    let runs = eight_runs(d);
    let (a, b) = (d.join("a/lib.sqlite"), d.join("b/lib.sqlite"));
    let mut children = Vec::new();
    for library in [&a, &b] {
        let mut cmd = Command::new(wkrun_bin());
        cmd.args(["library", "add"])
            .args(&runs)
            .arg("--library")
            .arg(library);
        children.push(cmd.current_dir(d).output());
    }
    for o in children {
        assert_eq!(code_out_err(&o.expect("wkrun")).0, 0);
    }
    let in_a = listed(d, &a, &[]);
    assert_eq!(in_a.len(), 8);
    assert_eq!(listed(d, &b, &[]), in_a);
    let copy = d.join("copy.sqlite");
    std::fs::copy(&a, &copy).expect("copy");
    assert_eq!(listed(d, &copy, &[]), in_a);
    assert_eq!(listed(d, &copy, &["--label", "DRIVE 3"]), [in_a[3].clone()]);
}

/// `--against-library` beside a run on another kind of target, or of another edit of the spec, warns
/// naming the entry and what differs (a fio user's trial: file and simulated runs were mixed silently);
/// runs that match draw no warning.
#[test]
fn against_library_warns_of_mixed_targets_and_specs() {
    let t = tempdir();
    let d = t.path();
    let library = d.join("lib.sqlite");
    spec(d, "w");
    let sim = sim_run(d, "w", "sim", 20, "simulated");
    let twin = sim_run(d, "w", "twin", 28, "twin");
    let file = d.join("f.img");
    let args = [
        "w.toml",
        "--target",
        file.to_str().expect("utf-8"),
        "--target-size",
        "16MiB",
        "--set",
        "duration=1s",
        "--label",
        "file",
        "-q",
        "-o",
        "file",
    ];
    let (c, _, e) = code_out_err(&wkrun(d, &args));
    assert_eq!(c, 0, "{e}");
    for r in [&sim, &twin] {
        let (c, _, e) = lib(d, &library, &["library", "add", r.to_str().expect("utf-8")]);
        assert_eq!(c, 0, "{e}");
    }
    let sha = |r: &str| {
        results(&d.join(r))["spec"]["sha256"]
            .as_str()
            .map(|s| s[..12].to_string())
            .expect("sha256")
    };
    // A simulated run beside the simulated entries: no warning.
    let (c, _, e) = lib(d, &library, &["compare", "sim", "--against-library", "5"]);
    assert_eq!((c, e.as_str()), (0, ""));
    let (c, _, e) = lib(d, &library, &["compare", "file", "--against-library", "5"]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        e,
        "warning: --against-library: library entry 1 (simulated): it ran on a simulated SSD (virtual time), this run on a file (not the same kind of measurement)\n\
warning: --against-library: library entry 2 (twin): it ran on a simulated SSD (virtual time), this run on a file (not the same kind of measurement)\n"
    );
    // Another edit of the spec of the same name.
    write_file(d, "w.toml", &spec_text("w", &SPEC.replace("2s", "3s")));
    let edited = sim_run(d, "w", "edited", 20, "edited");
    let (c, _, e) = lib(
        d,
        &library,
        &[
            "report",
            edited.to_str().expect("utf-8"),
            "--against-library",
            "1",
            "-o",
            "rep",
        ],
    );
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        e.lines()
            .filter(|l| l.starts_with("warning: --against-library"))
            .collect::<Vec<_>>(),
        [format!(
            "warning: --against-library: library entry 2 (twin): its spec file is w 1 sha256:{}, this run's w 1 sha256:{} (phases of one name may not be one workload)",
            sha("twin"),
            sha("edited")
        )]
    );
}

/// Trial 19 F3: `--against-library` put the sum of a run on two targets beside one target's run with no
/// mark (+35.8 % that was two files summed against one). Now the entry is named in a warning saying what
/// each adds up, and the compare column of the sum is marked; runs alike draw neither.
#[test]
fn against_library_says_a_sum_of_targets_is_not_one_target() {
    let t = tempdir();
    let d = t.path();
    let library = d.join("lib.sqlite");
    spec(d, "w");
    let on = |targets: &[&str], out: &str| {
        let mut args = vec!["w.toml"];
        for t in targets {
            args.extend(["--target", t]);
        }
        args.extend([
            "--target-size",
            "16MiB",
            "--set",
            "duration=1s",
            "--label",
            out,
            "-q",
            "-o",
            out,
        ]);
        let (c, _, e) = code_out_err(&wkrun(d, &args));
        assert_eq!(c, 0, "{e}");
    };
    on(&["a.img", "b.img"], "two");
    on(&["s.img"], "one");
    on(&["u.img"], "lone");
    for r in ["two", "one"] {
        let (c, _, e) = lib(d, &library, &["library", "add", r]);
        assert_eq!(c, 0, "{e}");
    }
    // `compare RUN --against-library` as CSV: its warnings and its header line.
    let against = |run: &str| {
        let (c, out, e) = lib(
            d,
            &library,
            &["compare", run, "--against-library", "--format", "csv"],
        );
        assert_eq!(c, 0, "{e}");
        let warnings: Vec<String> = e
            .lines()
            .filter(|l| l.starts_with("warning:"))
            .map(String::from)
            .collect();
        (warnings, out.lines().next().unwrap_or_default().to_string())
    };
    assert_eq!(
        against("lone"),
        (
            vec![
                "warning: --against-library: library entry 1 (two): it is the sum of 2 targets (a.img + b.img), this run one target's run: not the same kind of measurement".to_string()
            ],
            "phase,metric,lone,two [sum of 2 targets],two [sum of 2 targets] change (%),one,one change (%)".to_string()
        )
    );
    // The sum against the library: the single run is the one that differs; the sum's column is marked.
    assert_eq!(
        against("two"),
        (
            vec![
                "warning: --against-library: library entry 2 (one): it is one target's run, this run the sum of 2 targets (a.img + b.img): not the same kind of measurement".to_string()
            ],
            "phase,metric,two [sum of 2 targets],one,one change (%)".to_string()
        )
    );
}

/// A results file past the 512 MiB limit (a 1 GiB sparse file) is refused by `library add` from its size,
/// before it is read, as validate, report and compare refuse it; no library is made.
#[test]
fn library_add_refuses_an_oversized_results_file_before_reading_it() {
    let t = tempdir();
    let d = t.path();
    std::fs::create_dir(d.join("big")).expect("mkdir");
    sparse_file(&d.join("big/results.json"), 1 << 30);
    let library = d.join("lib.sqlite");
    let started = std::time::Instant::now();
    let (c, out, e) = lib(d, &library, &["library", "add", "big"]);
    assert_eq!((c, out.as_str()), (2, ""), "{e}");
    assert_eq!(
        e.trim_end(),
        "error: big/results.json: larger than 512MiB, the largest results file wkrun reads"
    );
    assert!(started.elapsed().as_secs() < 2, "{:?}", started.elapsed());
    assert!(!library.exists());
}

/// A library whose values or tables were changed by hand (text where a figure is kept, a blob label, text
/// results, a dropped table) is damaged for every reader: list, compare and report exit 2 saying so, with
/// the column or table, never SQLite's raw words with exit 1.
#[test]
fn a_library_changed_by_hand_is_damaged_for_every_reader() {
    let t = tempdir();
    let d = t.path();
    spec(d, "lib");
    sim_run(d, "lib", "r", 28, "drive A");
    sim_run(d, "lib", "s", 32, "drive B");
    let good = d.join("good.sqlite");
    assert_eq!(lib(d, &good, &["library", "add", "r"]).0, 0);
    let cases = [
        (
            "update figures set value = 'abc'",
            "its column `value` holds text, not what wkrun stores there",
        ),
        (
            "update entries set label = x'00ff41'",
            "its column `label` holds a blob, not what wkrun stores there",
        ),
        (
            "update entries set results_json = 'x'",
            "its column `results_json` holds text, not what wkrun stores there",
        ),
        ("drop table figures", "it has no table `figures`"),
    ];
    let mut failures = Failures::default();
    for (k, (sql, why)) in cases.iter().enumerate() {
        failures.case(*sql);
        let _ = std::fs::remove_dir_all(d.join("rep"));
        let path = d.join(format!("changed-{k}.sqlite"));
        std::fs::copy(&good, &path).expect("copy");
        rusqlite::Connection::open(&path)
            .and_then(|c| c.execute_batch(sql))
            .expect("change");
        let want = format!("{}: the library is damaged ({why})", path.display());
        for args in [
            &["library", "list"][..],
            &["compare", "s", "--against-library"][..],
            &["report", "s", "--against-library", "-o", "rep"][..],
        ] {
            let (c, _, e) = lib(d, &path, args);
            failures.check(c == 2 && e.contains(&want), || {
                format!("{args:?}: exit {c}, want 2 and {want:?}: {e}")
            });
        }
        failures.check(!d.join("rep").exists(), || "a report was written".into());
    }
    failures.assert_none("library::a_library_changed_by_hand_is_damaged_for_every_reader");
}

/// A `--library` path that cannot be a library (its parent a file, a name of 300 characters, a place in
/// /proc) is refused with exit 2 naming it, and nothing is made for it (no folder for the long name).
#[test]
fn a_library_path_that_cannot_be_one_is_refused_with_exit_2() {
    let t = tempdir();
    let d = t.path();
    spec(d, "lib");
    sim_run(d, "lib", "r", 28, "drive A");
    std::fs::write(d.join("file"), "x").expect("write");
    let long = d.join("sub").join(format!("{}.sqlite", "x".repeat(300)));
    let cases = [
        (d.join("file/lib.sqlite"), "Not a directory (os error 20)"),
        (long.clone(), "File name too long (os error 36)"),
        (
            PathBuf::from("/proc/lib.sqlite"),
            "it would be on procfs, not on storage; choose another --library",
        ),
    ];
    for (path, why) in cases {
        let (c, out, e) = lib(d, &path, &["library", "add", "r"]);
        let want = format!("error: library {}: ", path.display());
        assert_eq!((c, out.as_str()), (2, ""), "{}: {e}", path.display());
        assert!(e.starts_with(&want) && e.contains(why), "{e}");
    }
    assert!(!d.join("sub").exists());
}

/// Attack 40 F11: `library add` past the file-size limit said "library ./.wkrun-library-PID-NS/library.sqlite:
/// disk I/O error", naming a temporary folder already removed and no limit: the library's path and the limit
/// are named, exit 1, and nothing is left.
#[test]
fn adding_past_the_file_size_limit_names_the_limit_and_leaves_nothing() {
    let d = tempdir();
    spec(d.path(), "s");
    sim_run(d.path(), "s", "r", 28, "a");
    let before = dir_listing(d.path());
    let o = Command::new("prlimit")
        .args(["--fsize=1000", wkrun_bin(), "library", "add", "r"])
        .args(["--library", "lib2.sqlite"])
        .current_dir(d.path())
        .output()
        .expect("prlimit");
    let (code, _, err) = code_out_err(&o);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "error: library lib2.sqlite: disk I/O error, under the file-size limit (RLIMIT_FSIZE, ulimit -f) of 1000 B: raise it (ulimit -f) or remove it\n"
        )
    );
    assert_eq!(dir_listing(d.path()), before, "something was left");
}

/// Attack 13 F12: a symbolic link planted where SQLite keeps a file beside the library (`-shm`, `-wal`)
/// is refused before SQLite opens anything (it gave a bare "unable to open database file" and left an
/// empty `-wal`): exit 2 naming the link and where it points, for a library that exists and one `add`
/// would make; nothing is made beside it, and the link and its target are left as they were.
#[test]
fn a_link_planted_beside_the_library_is_refused_and_nothing_is_made() {
    let t = tempdir();
    let d = t.path();
    spec(d, "lib");
    sim_run(d, "lib", "r", 28, "drive A");
    std::fs::write(d.join("victim"), "keep\n").expect("write");
    let good = d.join("good.sqlite");
    assert_eq!(lib(d, &good, &["library", "add", "r"]).0, 0);
    let mut failures = Failures::default();
    for (library, suffix) in [
        ("good.sqlite", "-shm"),
        ("good.sqlite", "-wal"),
        ("new.sqlite", "-shm"),
        ("new.sqlite", "-wal"),
    ] {
        failures.case(format!("{library}{suffix}"));
        let path = d.join(library);
        let link = d.join(format!("{library}{suffix}"));
        std::os::unix::fs::symlink("victim", &link).expect("symlink");
        let before = files_of(d, library);
        for args in [&["library", "add", "r"][..], &["library", "list"][..]] {
            let (c, _, e) = lib(d, &path, args);
            let want = format!(
                "error: library {}: {} beside it is a symbolic link (to victim); SQLite's files beside a library are never opened through one: remove it (nothing was written)\n",
                path.display(),
                link.display()
            );
            // No library to list is said first.
            let want = match (library, args[1]) {
                ("new.sqlite", "list") => format!(
                    "error: no library at {} (`wkrun library add RESULTS` makes one there)\n",
                    path.display()
                ),
                _ => want,
            };
            failures.check(c == 2, || format!("{args:?}: exit {c}: {e}"));
            failures.check(e == want, || format!("{args:?}: {e:?}, want {want:?}"));
        }
        failures.check(files_of(d, library) == before, || {
            format!("{:?}, was {before:?}", files_of(d, library))
        });
        failures.check(
            std::fs::read_to_string(d.join("victim")).ok().as_deref() == Some("keep\n"),
            || "the link's target changed".into(),
        );
        std::fs::remove_file(&link).expect("remove");
    }
    failures
        .assert_none("library::a_link_planted_beside_the_library_is_refused_and_nothing_is_made");
}

/// Trial 23 X2: a run given to `report`/`compare --against-library` goes by its library label when the
/// library holds it (`library add r3 --label rr3`), not by its own default label, its target's name, which
/// the library's runs of that drive share; a run the library does not hold, by its folder's name when its
/// label is that default, else by its own label.
#[test]
fn a_run_given_against_the_library_goes_by_its_library_label() {
    let t = tempdir();
    spec(t.path(), "lib");
    for out in ["r1", "r2", "r3", "r4"] {
        let args = [
            "lib.toml",
            "--target",
            "sim:capacity=128MiB,op=28%",
            "-q",
            "-o",
            out,
        ];
        let (c, _, e) = code_out_err(&wkrun(t.path(), &args));
        assert_eq!(c, 0, "{e}");
    }
    let own = sim_run(t.path(), "lib", "r5", 28, "mine");
    let library = t.path().join("lib.sqlite");
    for (run, label) in [("r1", "rr1"), ("r2", "rr2"), ("r3", "rr3")] {
        let (c, _, e) = lib(
            t.path(),
            &library,
            &["library", "add", run, "--label", label],
        );
        assert_eq!(c, 0, "{e}");
    }
    let header = |run: &str| {
        let (c, out, e) = lib(
            t.path(),
            &library,
            &["compare", run, "--against-library", "--format", "csv"],
        );
        assert_eq!(c, 0, "{e}");
        out.lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        header("r3"),
        "phase,metric,rr3,rr1,rr1 change (%),rr2,rr2 change (%)"
    );
    assert_eq!(
        header("r4"),
        "phase,metric,r4,rr1,rr1 change (%),rr2,rr2 change (%),rr3,rr3 change (%)"
    );
    assert!(own.ends_with("r5"));
    assert!(
        header("r5").starts_with("phase,metric,mine,rr1,"),
        "{}",
        header("r5")
    );
    let (c, _, e) = lib(
        t.path(),
        &library,
        &["report", "r3", "--against-library", "-o", "rep"],
    );
    assert_eq!(c, 0, "{e}");
    let html = std::fs::read_to_string(t.path().join("rep/index.html")).expect("index.html");
    let section = &html[html.find("<h2>Against the library</h2>").expect("section")..];
    assert!(
        section.contains("<p class=\"meta\">rr3 beside the results library's 2 runs of spec lib"),
        "{section}"
    );
    assert_eq!(section.matches("<td>rr3</td>").count(), 1, "{section}");
    let svg = std::fs::read_to_string(t.path().join("rep/ranked-01-w-mean_iops.svg")).expect("svg");
    assert!(svg.contains("rr3: rank "), "{svg}");
}

/// Trial 25 F6: runs made on one drive without `--label` all bear its default label (its target's name);
/// `library add` gave them that label each, so `library list` and the ranking could not tell them apart.
/// Each is added under the name `compare` and `report` give it ([`wkrun::library::given_name`]): its
/// folder's name where its label is only that default, else its own label.
#[test]
fn runs_of_one_drive_added_without_a_label_take_their_folders_names() {
    let t = tempdir();
    spec(t.path(), "lib");
    let target = "sim:capacity=128MiB,op=28%";
    for out in ["r1", "r2", "r3"] {
        let args = ["lib.toml", "--target", target, "-q", "-o", out];
        let (c, _, e) = code_out_err(&wkrun(t.path(), &args));
        assert_eq!(c, 0, "{e}");
    }
    sim_run(t.path(), "lib", "r4", 28, "mine");
    let (_, r1) = strict_results(&t.path().join("r1"));
    let default = r1["label"].as_str().expect("label").to_string();
    assert_eq!(default, format!("{target},dies=1"));
    let library = t.path().join("lib.sqlite");
    let (c, out, e) = lib(t.path(), &library, &["library", "add", "r1", "r2", "r4"]);
    assert_eq!((c, e.as_str()), (0, ""));
    let lib_s = library.display();
    assert_eq!(
        out,
        format!(
            "added entry 1, r1: r1/results.json\nadded entry 2, r2: r2/results.json\nadded entry 3, mine: r4/results.json\nlibrary: {lib_s} (3 entries)\n"
        )
    );
    let labels: Vec<String> = listed(t.path(), &library, &[])
        .into_iter()
        .map(|row| row[1].clone())
        .collect();
    assert_eq!(labels, ["r1", "r2", "mine"]);
    // The ranking names each apart, the run given by its folder's name too.
    let (c, out, e) = lib(
        t.path(),
        &library,
        &["compare", "r3", "--against-library", "--format", "csv"],
    );
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        out.lines().next(),
        Some("phase,metric,r3,r1,r1 change (%),r2,r2 change (%),mine,mine change (%)")
    );
}
