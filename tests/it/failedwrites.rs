//! Verification after failed writes (issue 13, item 9): with `on_error = "continue"`, a write that failed
//! (ENOSPC on a full tmpfs) is remembered by its byte range, and the verify phase counts its sectors as
//! `write_failed`, not as zeroed: no mismatch, exit 0.

use crate::common::*;

/// A fill of an 8 MiB sparse file on a 4 MiB tmpfs: the writes into holes fail with ENOSPC once the tmpfs is
/// full; the verify phase (`on_error` left at `"stop"`, so a mismatch would fail the run) reads all of it back.
/// Before the fix: exit 1, the 64 failed writes' 8192 sectors called `zeroed`.
#[test]
fn sectors_of_failed_writes_are_write_failed_not_mismatches() {
    let test = "failedwrites::sectors_of_failed_writes_are_write_failed_not_mismatches";
    if !is_root() {
        return skip(test, "not running as root: mounting a tmpfs needs root");
    }
    let d = tempdir();
    let mnt = match Mount::tmpfs(d.path().join("mnt"), "4m") {
        Ok(m) => m,
        Err(why) => return skip(test, &why),
    };
    let target = mnt.dir.join("t.img");
    sparse_file(&target, 8 << 20);
    let body = r#"[defaults]
engine = "psync"
direct = false
[[phase]]
name = "fill"
kind = "fill"
block_size = "64KiB"
verify = true
on_error = "continue"
[[phase]]
name = "check"
kind = "verify"
expect = "last-writer"
"#;
    write_file(d.path(), "s.toml", &spec_text("failed", body));
    let t = target.to_str().expect("path");
    let (code, out, err) = code_out_err(&wkrun(d.path(), &["s.toml", "--target", t, "-o", "out"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let (_, r) = strict_results(&d.path().join("out"));
    let fill = phase(&r, 0);
    let failed = u(fill, "/errors/total");
    assert_eq!(u(fill, "/errors/write"), failed);
    // The tmpfs holds exactly 4 MiB of data: 64 of the 128 writes fit, 64 fail.
    assert_eq!(failed, 64);
    assert_eq!(fill["errors"]["by_cause"][0]["cause"], "ENOSPC");
    let v = &phase(&r, 1)["verify"];
    let sectors = (8u64 << 20) / 512;
    let write_failed = failed * 65536 / 512;
    assert_eq!(u(v, "/sectors"), sectors);
    assert_eq!(u(v, "/write_failed"), write_failed);
    assert_eq!(u(v, "/ok"), sectors - write_failed);
    for k in ["mismatched", "zeroed", "stale", "corrupted", "unexpected"] {
        assert_eq!(u(v, &format!("/{k}")), 0, "{k}");
    }
    assert_eq!(u(v, "/reordered") + u(v, "/unchecked"), 0);
    assert!(
        out.contains(&format!(
            "verified {sectors} sectors: {} ok, 0 reordered, 0 zeroed, 0 stale, 0 corrupted, 0 unexpected, 0 unchecked, {write_failed} of failed writes (not checked)",
            sectors - write_failed
        )),
        "{out}"
    );
    assert!(phase(&r, 1)["errors"].is_null());
    assert_eq!(r["status"], "completed");
}
