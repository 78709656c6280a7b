//! An emulated NVMe controller (QEMU's `nvme`, serial `wkvm0001`): Identify facts in the results, the
//! 4096-byte namespace's alignment refusals, erase by Format NVM and by deallocate (discard).

use crate::rig::{Case, CaseOut, Group, case};
use serde_json::{Value, json};

static GROUP: Group = Group::new(
    "nvme",
    &[
        Case {
            name: "nvme_identify_facts",
            script: r#"
{ spec id; cat <<'EOF'
[[phase]]
name = "r"
kind = "workload"
pattern = "sequential"
read_percent = 100
block_size = "64KiB"
size = "1MiB"
EOF
} >r.toml
wk n1 r.toml --target /dev/nvme0n1
wk n2 r.toml --target /dev/nvme0n2
cat /sys/class/nvme/nvme0/firmware_rev >fw
if command -v nvme >/dev/null; then
  nvme id-ns /dev/nvme0n1 -o json >n1.id; nvme id-ns /dev/nvme0n2 -o json >n2.id
fi
"#,
        },
        Case {
            name: "nvme_4k_alignment_refused",
            script: r#"
{ spec a; cat <<'EOF'
[[phase]]
name = "fill"
kind = "fill"
block_size = "512B"
EOF
} >bs.toml
wk bs bs.toml --target /dev/nvme0n2 --allow-destroy /dev/nvme0n2
[ -e bs ] && echo yes >bs.made
cmd bs512 wkrun plan bs.toml --target /dev/nvme0n1
{ spec o; cat <<'EOF'
[[phase]]
name = "r"
kind = "workload"
block_size = "4KiB"
offset = "2KiB"
span = "1MiB"
read_percent = 100
size = "1MiB"
EOF
} >off.toml
wk off off.toml --target /dev/nvme0n2
"#,
        },
        Case {
            name: "nvme_format_erase",
            script: r#"
D=/dev/nvme0n2
{ spec f; cat <<'EOF'
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
queue_depth = 4
engine = "io_uring"
span = "8MiB"
EOF
} >fill.toml
{ spec e; cat <<'EOF'
[[phase]]
name = "purge"
kind = "erase"
method = "nvme-format"
EOF
} >erase.toml
wk fill fill.toml --target $D --allow-destroy $D
md5 $D 1M 8 >before.md5
dd if=/dev/zero bs=1M count=8 2>/dev/null | md5sum | cut -d' ' -f1 >zero8.md5
dd if=/dev/zero bs=1M count=64 2>/dev/null | md5sum | cut -d' ' -f1 >zero.md5
wk erase erase.toml --target $D --allow-destroy $D
md5 $D 1M 64 >after.md5
blockdev --getss $D >ss
cmd plan wkrun plan erase.toml --target $D --json
"#,
        },
        Case {
            name: "nvme_discard_erase",
            script: r#"
D=/dev/nvme0n1
{ spec f; cat <<'EOF'
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
queue_depth = 4
engine = "libaio"
span = "16MiB"
[[phase]]
name = "trim-first-half"
kind = "erase"
method = "discard"
span = "8MiB"
EOF
} >d.toml
{ spec a; cat <<'EOF'
[[phase]]
name = "trim-second-half"
kind = "erase"
offset = "8MiB"
span = "8MiB"
EOF
} >auto.toml
dd if=/dev/zero bs=1M count=8 2>/dev/null | md5sum | cut -d' ' -f1 >zero.md5
wk d d.toml --target $D --allow-destroy $D
md5 $D 1M 8 >first.md5
md5 $D 1M 8 8 >second.md5
wk auto auto.toml --target $D --allow-destroy $D
md5 $D 1M 8 8 >second-after.md5
"#,
        },
    ],
);

/// The LBA formats QEMU's NVMe namespaces offer: 512 and 4096 data bytes, each with 0, 8, 16 and 64
/// metadata bytes.
fn qemu_lba_formats() -> Value {
    let f =
        |d: u32, m: u32| json!({"data_bytes": d, "metadata_bytes": m, "relative_performance": 0});
    json!([
        f(512, 0),
        f(512, 8),
        f(512, 16),
        f(512, 64),
        f(4096, 0),
        f(4096, 8),
        f(4096, 16),
        f(4096, 64)
    ])
}

fn run(test: &'static str) -> Option<CaseOut> {
    case(&GROUP, test)
}

/// The target of a run's results.
fn target(out: &CaseOut, run: &str) -> Value {
    out.results(run)["target"].clone()
}

#[test]
fn nvme_identify_facts() {
    let Some(out) = run("nvme_identify_facts") else {
        return;
    };
    let fw = out.text("fw").trim().to_string();
    assert!(!fw.is_empty(), "{}", out.context());
    for (r, nsid, lbs) in [("n1", 1, 512), ("n2", 2, 4096)] {
        assert_eq!(out.rc(r), 0, "{}", out.log(r));
        let t = target(&out, r);
        assert_eq!(t["model"], "QEMU NVMe Ctrl");
        assert_eq!(t["serial"], "wkvm0001");
        assert_eq!(t["firmware"], fw.as_str());
        assert_eq!(t["capacity_bytes"], 67_108_864);
        assert_eq!(t["logical_block_size"], lbs);
        assert_eq!(t["physical_block_size"], lbs);
        assert_eq!(t["nvme_namespace"], nsid);
        assert_eq!(out.results(r)["label"], "QEMU NVMe Ctrl, 67 MB");
        // Identify Namespace: QEMU's eight LBA formats, the one in use picked by logical_block_size.
        let blocks = 67_108_864 / lbs;
        assert_eq!(
            t["nvme"],
            json!({"size_blocks": blocks, "capacity_blocks": blocks, "utilization_blocks": blocks,
                   "lba_format": if lbs == 512 { 0 } else { 4 }, "lba_formats": qemu_lba_formats()}),
            "{r}"
        );
        // nvme-cli's reading of the same Identify data, where the guest has it.
        if out.has(&format!("{r}.id")) {
            let id: Value = serde_json::from_str(&out.text(&format!("{r}.id"))).unwrap();
            assert_eq!(id["nsze"], blocks);
            assert_eq!(id["flbas"], t["nvme"]["lba_format"]);
            let ds: Vec<u64> = id["lbafs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| 1 << f["ds"].as_u64().unwrap())
                .collect();
            assert_eq!(ds, [512, 512, 512, 512, 4096, 4096, 4096, 4096]);
        }
    }
}

#[test]
fn nvme_4k_alignment_refused() {
    let Some(out) = run("nvme_4k_alignment_refused") else {
        return;
    };
    let lbs =
        "is not a multiple of the target's logical block size (4096 B), which O_DIRECT requires";
    assert_eq!(out.rc("bs"), 2, "{}", out.log("bs"));
    let log = out.log("bs");
    let want = format!(
        "error: bs.toml:8:1: phase[0] \"fill\".block_size: block_size 512B (512 B) {lbs}\n"
    );
    assert!(log.starts_with(&want), "{log}");
    assert!(
        log.contains("  help: use a multiple of 4096 B, or direct = false"),
        "{log}"
    );
    assert!(!out.has("bs.made"), "a refused run made its output folder");
    // The same spec plans on the 512-byte namespace.
    assert_eq!(out.rc("bs512"), 0, "{}", out.log("bs512"));
    assert_eq!(out.rc("off"), 2, "{}", out.log("off"));
    let want = format!("error: off.toml:9:1: phase[0] \"r\".offset: offset 2048 B {lbs}\n");
    assert!(out.log("off").starts_with(&want), "{}", out.log("off"));
}

#[test]
fn nvme_format_erase() {
    let Some(out) = run("nvme_format_erase") else {
        return;
    };
    assert_eq!(out.rc("fill"), 0, "{}", out.log("fill"));
    assert_eq!(out.rc("erase"), 0, "{}", out.log("erase"));
    let zero = out.text("zero.md5");
    assert_ne!(
        out.text("before.md5"),
        out.text("zero8.md5"),
        "the fill wrote zeros?"
    );
    assert_eq!(out.text("after.md5"), zero, "data left after nvme-format");
    let p = &out.results("erase")["phases"][0];
    assert_eq!(p["erase_method"], "nvme-format");
    assert_eq!(p["erased_bytes"], 67_108_864);
    assert_eq!(out.text("ss").trim(), "4096");
    let plan: Value = serde_json::from_str(&out.stdout("plan")).unwrap();
    // The namespace kept its LBA format (4: 4096 B, no metadata), as Identify says after the format.
    assert_eq!(plan["target"]["logical_block_size"], 4096);
    assert_eq!(plan["target"]["nvme"]["lba_format"], 4);
    assert_eq!(plan["target"]["nvme"]["size_blocks"], 16_384);
}

#[test]
fn nvme_discard_erase() {
    let Some(out) = run("nvme_discard_erase") else {
        return;
    };
    assert_eq!(out.rc("d"), 0, "{}", out.log("d"));
    let zero = out.text("zero.md5");
    assert_eq!(out.text("first.md5"), zero, "data left after discard");
    assert_ne!(out.text("second.md5"), zero, "discard went past its span");
    let p = &out.results("d")["phases"][1];
    assert_eq!(p["erase_method"], "discard");
    assert_eq!(p["erased_bytes"], 8_388_608);
    assert_eq!(out.rc("auto"), 0, "{}", out.log("auto"));
    let p = &out.results("auto")["phases"][0];
    assert_eq!(p["erase_method"], "discard", "auto on NVMe");
    assert_eq!(out.text("second-after.md5"), zero);
}
