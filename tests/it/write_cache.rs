//! `[target] write_cache` on block devices (issue 29 item 4): a loop device has no write cache wkrun can set
//! (neither an NVMe namespace nor a SCSI or SATA disk), so the run is refused with the reason, exit 2, before
//! anything is written; a SCSI or SATA disk is set through its `scsi_disk` `cache_type` and set back at the
//! end, which needs one (the `scsi_debug` module, or a real disk): skipped, saying so, where there is none.

use crate::common::*;
use std::path::Path;

fn spec(setting: &str) -> String {
    format!(
        "[target]\nwrite_cache = \"{setting}\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nblock_size = \"4KiB\"\nread_percent = 0\nsize = \"1MiB\"\n"
    )
}

/// On a loop device: exit 2 naming the key and the reason; no results folder, not a sector written.
#[test]
fn a_loop_device_refuses_a_write_cache_setting_before_writing() {
    let _g = loop_guard();
    let d = tempdir();
    let dev = match LoopDev::new(d.path(), 8, 512) {
        Ok(l) => l,
        Err(why) => {
            return skip(
                "a_loop_device_refuses_a_write_cache_setting_before_writing",
                &why,
            );
        }
    };
    let before = dev.sectors_written();
    let name = dev.dev.to_str().expect("utf-8").to_string();
    let (o, out) = run_spec(
        d.path(),
        "wc",
        &spec("off"),
        &dev.dev,
        &["--allow-destroy", &name],
    );
    let (code, _, err) = code_out_err(&o);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "target.write_cache: write_cache = \"off\" cannot be set on {name}: {name} is neither an NVMe namespace nor a SCSI or SATA disk"
        )),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    assert_eq!(dev.sectors_written(), before);
    // "keep" (the default) runs, and results say where the state was read and why it cannot be set.
    let (o, out) = run_spec(
        d.path(),
        "wc",
        &spec("keep"),
        &dev.dev,
        &["--allow-destroy", &name],
    );
    assert_eq!(code_out_err(&o).0, 0);
    let (_, r) = strict_results(&out);
    let w = &r["target"]["write_cache"];
    assert_eq!(w["settable"], false);
    assert_eq!(w["control"], serde_json::Value::Null);
    let kernel =
        std::fs::read_to_string(format!("/sys/block/{}/queue/write_cache", dev.sys_name()))
            .expect("queue/write_cache");
    assert_eq!(w["kernel"], kernel.trim());
    // The plan of a spec that leaves the cache says so in one line, and why it could not be set only
    // where the results keep it (the plan printed that paragraph on every loop device).
    write_file(d.path(), "keep.toml", &spec_text("keep", &spec("keep")));
    let o = wkrun(d.path(), &["plan", "keep.toml", "--target", &name]);
    let (code, out, err) = code_out_err(&o);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("write cache")).collect();
    let state = if kernel.trim() == "write back" {
        "on"
    } else {
        "off"
    };
    assert_eq!(
        lines,
        [format!(
            "volatile write cache: {state} (the kernel's view, sysfs queue/write_cache); the run leaves it as it is ([target] write_cache cannot set it on this target: results' target.write_cache.unavailable says why)"
        )],
        "{out}"
    );
}

/// A SCSI or SATA disk with a writable `cache_type`: set for the run and set back. There is none in most
/// test machines (and `scsi_debug` is a module many kernels lack): skipped, saying so.
#[test]
fn a_scsi_disk_write_cache_is_set_and_set_back() {
    let disks: Vec<_> = std::fs::read_dir("/sys/class/scsi_disk")
        .map(|r| r.flatten().collect())
        .unwrap_or_default();
    if disks.is_empty() || !Path::new("/sys/module/scsi_debug").exists() {
        return skip(
            "a_scsi_disk_write_cache_is_set_and_set_back",
            "no scsi_debug disk here (modprobe scsi_debug: the module is not available); a real SCSI disk is not written by tests",
        );
    }
    // With scsi_debug loaded, its disk is the only one a test may write: find it by its model.
    let d = tempdir();
    for e in disks {
        let model = std::fs::read_to_string(e.path().join("device/model")).unwrap_or_default();
        if !model.contains("scsi_debug") {
            continue;
        }
        let Some(block) = std::fs::read_dir(e.path().join("device/block"))
            .ok()
            .and_then(|mut r| r.next())
            .and_then(Result::ok)
        else {
            continue;
        };
        let dev = Path::new("/dev").join(block.file_name());
        let file = e.path().join("cache_type");
        let found = std::fs::read_to_string(&file).expect("cache_type");
        let want = if found.starts_with("write back") {
            "off"
        } else {
            "on"
        };
        let name = dev.to_str().expect("utf-8").to_string();
        let (o, out) = run_spec(
            d.path(),
            "wc",
            &spec(want),
            &dev,
            &["--allow-destroy", &name],
        );
        assert_eq!(code_out_err(&o).0, 0, "{}", code_out_err(&o).2);
        let (_, r) = strict_results(&out);
        let run = &r["target"]["write_cache"]["run"];
        assert_eq!(run["during"], want);
        assert_eq!(std::fs::read_to_string(&file).expect("cache_type"), found);
        return;
    }
    skip(
        "a_scsi_disk_write_cache_is_set_and_set_back",
        "scsi_debug is loaded but has no disk",
    );
}
