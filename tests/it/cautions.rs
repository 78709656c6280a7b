//! Issue 13 item 10: a phase whose numbers would describe something other than the device says so, in
//! `wkrun plan` (text and JSON) and in its results' `warnings`: writes that are not whole physical blocks
//! (read-modify-write) and buffered I/O (the page cache).

use crate::common::*;
use std::path::Path;

const RMW: &str = "writes of 512 B are not whole physical blocks of the target (4096 B): the device must read, modify and write whole blocks (read-modify-write), so the write numbers describe that, not plain writes of this size";
const PAGE_CACHE: &str = "direct = false: I/O goes through the page cache, which can answer reads from memory and absorbs writes until the phase's closing fdatasync, so these numbers describe the host's cache as much as the device";

fn workload(name: &str, bs: &str, read: u32, extra: &str) -> String {
    format!(
        "[[phase]]\nname = \"{name}\"\nkind = \"workload\"\nblock_size = \"{bs}\"\nread_percent = {read}\nsize = \"1MiB\"\n{extra}"
    )
}

/// The warnings of every phase, from `plan --json` or results.json.
fn warnings(doc: &serde_json::Value) -> Vec<Vec<String>> {
    doc["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| {
            p["warnings"]
                .as_array()
                .map(|w| {
                    w.iter()
                        .map(|s| s.as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn sub_block_writes_on_the_simulated_drive_warn_of_read_modify_write() {
    let dir = tempdir();
    let body = [
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"4KiB\"\nspan = \"16MiB\"\n"
            .to_string(),
        workload("w512", "512B", 0, "span = \"16MiB\"\n"),
        workload("rw512", "512B", 65, "span = \"16MiB\"\n"),
        workload("r512", "512B", 100, "span = \"16MiB\"\n"),
        workload("w4k", "4KiB", 0, "span = \"16MiB\"\n"),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("rmw", &body));
    let want = vec![
        vec![],
        vec![RMW.to_string()],
        vec![RMW.to_string()],
        vec![],
        vec![],
    ];
    let sim = "sim:capacity=1GiB,op=7%";
    let plan = plan_json(dir.path(), Path::new("s.toml"), Path::new(sim), &[]);
    assert_eq!(warnings(&plan), want, "plan --json");
    let (code, text, _) = code_out_err(&wkrun(dir.path(), &["plan", "s.toml", "--target", sim]));
    assert_eq!(code, 0);
    assert_eq!(
        text.matches(&format!("warning: {RMW}")).count(),
        2,
        "{text}"
    );
    let (code, _, err) = code_out_err(&wkrun(
        dir.path(),
        &["s.toml", "--target", sim, "-o", "out"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches(&format!("      warning: {RMW}")).count(),
        2,
        "{err}"
    );
    let (_, results) = strict_results(&dir.path().join("out"));
    assert_eq!(warnings(&results), want, "results.json");
}

#[test]
fn buffered_io_on_a_file_warns_of_the_page_cache() {
    let dir = tempdir();
    let body = [
        "[[phase]]\nname = \"fill\"\nkind = \"fill\"\n".to_string(),
        workload("buffered", "4KiB", 50, "direct = false\n"),
        workload("direct", "4KiB", 50, ""),
    ]
    .concat();
    write_file(dir.path(), "s.toml", &spec_text("cache", &body));
    let args = [
        "s.toml",
        "--target",
        "t.img",
        "--target-size",
        "8MiB",
        "-o",
        "out",
    ];
    let (code, _, err) = code_out_err(&wkrun(dir.path(), &args));
    assert_eq!(code, 0, "{err}");
    let (_, results) = strict_results(&dir.path().join("out"));
    assert_eq!(
        warnings(&results),
        vec![vec![], vec![PAGE_CACHE.to_string()], vec![]],
        "only the buffered phase warns"
    );
}
