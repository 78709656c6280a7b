//! An emulated NVMe controller (QEMU's `nvme`, serial `wkvm0001`): Identify facts in the results, the
//! 4096-byte namespace's alignment refusals, erase by Format NVM and by deallocate (discard), polled I/O
//! on a namespace without and with poll queues.

use crate::rig::{Case, CaseOut, Group, case};
use serde_json::{Value, json};

pub static GROUP: Group = Group::with_tools(
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
        Case {
            name: "nvme_write_cache",
            script: r#"
need nvme
D=/dev/nvme0n1
feat() { nvme get-feature $D -f 6 >"$1.feat" 2>&1; }
# until_off NAME: reads the cache (NAME.feat) until it reads off, or for 20 s
until_off() { i=0; feat "$1"; while ! grep -q 'value:00000000' "$1.feat" && [ $i -lt 100 ]; do sleep 0.2; feat "$1"; i=$((i+1)); done; }
{ spec wc; cat <<'EOF'
[target]
write_cache = "off"
[[phase]]
name = "fill"
kind = "fill"
block_size = "1MiB"
span = "4MiB"
data = "zeros"
[[phase]]
name = "read"
kind = "workload"
pattern = "random"
read_percent = 100
block_size = "4KiB"
span = "4MiB"
size = "1MiB"
EOF
} >off.toml
sed 's/^size = "1MiB"$/duration = "60s"/' off.toml >long.toml
sed 's/^write_cache = "off"$/write_cache = "on"/' off.toml >on.toml
sed 's/^write_cache = "off"$/write_cache = "keep"/' off.toml >keep.toml
feat before
cat /sys/block/nvme0n1/queue/write_cache >kernel
cmd plan wkrun plan off.toml --target $D --allow-destroy $D
cmd keepplan wkrun plan keep.toml --target $D --json
# Not quiet: the log says what was found, set and set back.
cmd off wkrun off.toml --target $D --allow-destroy $D -o off
feat after
# A signal mid-run: the cache is set back before wkrun exits.
wk int long.toml --target $D --allow-destroy $D &
until_off intduring; kill -INT $(pidof wkrun); wait
feat intafter
wk on on.toml --target $D --allow-destroy $D
wk keep keep.toml --target $D --allow-destroy $D
# Targets whose write cache wkrun cannot set: refused at plan time, nothing written or made.
nullb wcnb 16 || exit 1
wk nb off.toml --target /dev/wcnb --allow-destroy /dev/wcnb
[ -e nb ] && echo yes >nb.made
cat /sys/block/wcnb/stat >nb.stat
cat /sys/block/wcnb/queue/write_cache >nb.kernel
wk file off.toml --target /out/nvme_write_cache/f.img --target-size 16MiB
[ -e f.img ] && echo yes >f.made
"#,
        },
        Case {
            name: "nvme_fio_side_by_side",
            script: r#"
need fio
D=/dev/nvme0n1
# reads: the reads completed on nvme0n1 so far (field 1 of its stat)
reads() { cut -c1-200 /sys/block/nvme0n1/stat | awk '{print $1}'; }
for e in psync io_uring; do
{ spec r; cat <<EOF
[[phase]]
name = "r"
kind = "workload"
engine = "$e"
pattern = "random"
read_percent = 100
block_size = "4KiB"
queue_depth = 1
size = "4000KiB"
EOF
} >wk_$e.toml
reads >wk_$e.before; wk wk_$e wk_$e.toml --target $D; reads >wk_$e.after
reads >fio_$e.before
cmd fio_$e fio --name=r --filename=$D --rw=randread --bs=4k --iodepth=1 --ioengine=$e --direct=1 --io_size=4000k --randseed=1 --output-format=json
reads >fio_$e.after
done
"#,
        },
        Case {
            name: "polled_fio_side_by_side",
            script: r#"
need fio
nullb pf 16 blocksize=4096 poll_queues=1 || exit 1
reads() { awk '{print $1}' /sys/block/pf/stat; }
for m in polled sq_poll; do
{ spec r; cat <<EOF
[[phase]]
name = "r"
kind = "workload"
engine = "io_uring"
$m = true
pattern = "random"
read_percent = 100
block_size = "4KiB"
queue_depth = 1
size = "4000KiB"
EOF
} >wk_$m.toml
reads >wk_$m.before; wk wk_$m wk_$m.toml --target /dev/pf --allow-destroy /dev/pf; reads >wk_$m.after
case $m in polled) o=--hipri ;; sq_poll) o=--sqthread_poll ;; esac
reads >fio_$m.before
cmd fio_$m fio --name=r --filename=/dev/pf --rw=randread --bs=4k --iodepth=1 --ioengine=io_uring $o --direct=1 --io_size=4000k --randseed=1 --output-format=json
reads >fio_$m.after
done
"#,
        },
        Case {
            name: "nvme_health_counters",
            script: r#"
# 500 writes of 4 KiB = 2,048,000 B = 4 NVMe data units exactly (1 unit = 1000 x 512 B): whatever the
# controller counted before, its rounded-up count grows by exactly 4.
D=/dev/nvme0n1
{ spec h; cat <<'EOF'
[[phase]]
name = "w"
kind = "workload"
pattern = "random"
read_percent = 0
block_size = "4KiB"
queue_depth = 4
engine = "io_uring"
size = "2048000"
EOF
} >h.toml
# Random writes at QD4 can be adjacent and the block layer may merge two into one command (a full run saw 499
# write commands for 500 writes): merges off for this case, so that commands are the writes.
echo 2 >/sys/block/nvme0n1/queue/nomerges
if command -v nvme >/dev/null; then nvme smart-log /dev/nvme0 -o binary >smart-before.bin; fi
wk h h.toml --target $D --allow-destroy $D
if command -v nvme >/dev/null; then nvme smart-log /dev/nvme0 -o binary >smart-after.bin; fi
echo 0 >/sys/block/nvme0n1/queue/nomerges
"#,
        },
        Case {
            name: "nvme_polled_io",
            script: r#"
# Last in the group: it binds the controller again with poll queues.
D=/dev/nvme0n1
{ spec p; polled r 100 'queue_depth = 4'; polled w 0 'queue_depth = 4' 'data = "zeros"'; } >p.toml
# irqs: interrupts taken by the controller's I/O queues (nvme0q1 and up; nvme0q0 is the admin queue)
irqs() { awk '$NF ~ /^nvme0q[1-9]/ { for (i = 2; $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
counts() { awk '{print $1, $5}' /sys/block/nvme0n1/stat; }
cat /sys/block/nvme0n1/queue/io_poll >io_poll.before
wk nopoll p.toml --target $D --allow-destroy $D
# The nvme module reads poll_queues when it probes a controller: set it, unbind the controller, bind it.
pci=$(basename "$(readlink -f /sys/class/nvme/nvme0/device)")
echo "$pci" >/sys/bus/pci/drivers/nvme/unbind
echo 1 >/sys/module/nvme/parameters/poll_queues
echo "$pci" >/sys/bus/pci/drivers/nvme/bind
wait_dev $D || exit 1
cat /sys/block/nvme0n1/queue/io_poll >io_poll.after
counts >before.counts; irqs >before.irqs
wk run p.toml --target $D --allow-destroy $D
counts >after.counts; irqs >after.irqs
sed '/^polled = true$/d' p.toml >irq.toml
wk irq irq.toml --target $D --allow-destroy $D
counts >irq.counts; irqs >irq.irqs
"#,
        },
    ],
    &["fio"],
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
    // An offset of no whole block is refused by the spec's rules before the device is opened (attack 29 F3):
    // with O_DIRECT every block size is whole logical blocks, so an offset of whole blocks is too.
    assert_eq!(out.rc("off"), 2, "{}", out.log("off"));
    let want = "error: off.toml:9:1: phase[0] \"r\".offset: offset 2048 B is not a multiple of the block size (4096 B)\n";
    assert!(out.log("off").starts_with(want), "{}", out.log("off"));
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

/// The write cache object of `target` as the probe gives it for QEMU's controller (a volatile write cache,
/// enabled), with the run's record `run` (`null`: none).
fn qemu_write_cache(run: Value) -> Value {
    let mut w =
        json!({"state": "on", "read_from": "nvme", "kernel": "write back", "settable": true});
    if !run.is_null() {
        w["run"] = run;
    }
    w
}

#[test]
fn nvme_write_cache() {
    let Some(out) = run("nvme_write_cache") else {
        return;
    };
    let on = "Current value:0x00000001";
    let off = "Current value:00000000"; // nvme-cli's printf("%#010x") writes no 0x for zero
    // nvme-cli reads QEMU's cache enabled before a run, off while a run goes on (the 60 s run, read until it
    // reads off, for at most 20 s, before it is stopped), enabled again after each run.
    for (f, want) in [
        ("before", on),
        ("after", on),
        ("intduring", off),
        ("intafter", on),
    ] {
        let got = out.text(&format!("{f}.feat"));
        assert_eq!(
            got,
            format!("get-feature:0x06 (Volatile Write Cache), {want}\n"),
            "{f}"
        );
    }
    assert_eq!(out.text("kernel").trim(), "write back");
    assert_eq!(out.rc("plan"), 0, "{}", out.log("plan"));
    assert!(
        out.stdout("plan").contains(
            "volatile write cache: on (NVMe Get Features); the run sets it off and sets it back at the end\n"
        ),
        "{}",
        out.stdout("plan")
    );
    let plan: Value = serde_json::from_str(&out.stdout("keepplan")).unwrap();
    assert_eq!(plan["target"]["write_cache"], qemu_write_cache(Value::Null));
    assert!(plan.get("write_cache").is_none(), "keep sets nothing");
    let set = |requested: &str| json!({"requested": requested, "before": "on", "during": requested, "restored": "on"});
    assert_eq!(out.rc("off"), 0, "{}", out.log("off"));
    let r = out.results("off");
    assert_eq!(r["status"], "completed");
    assert_eq!(r["target"]["write_cache"], qemu_write_cache(set("off")));
    let log = out.log("off");
    assert!(
        log.contains("volatile write cache of /dev/nvme0n1: on, set off for the run\n"),
        "{log}"
    );
    assert!(
        log.contains("volatile write cache of /dev/nvme0n1 set back to on\n"),
        "{log}"
    );
    // Interrupted by SIGINT during its 60 s phase: set back all the same.
    assert_eq!(out.rc("int"), 130, "{}", out.log("int"));
    let r = out.results("int");
    assert_eq!(r["status"], "interrupted");
    assert_eq!(r["target"]["write_cache"], qemu_write_cache(set("off")));
    assert_eq!(out.rc("on"), 0, "{}", out.log("on"));
    assert_eq!(
        out.results("on")["target"]["write_cache"],
        qemu_write_cache(set("on"))
    );
    assert_eq!(out.rc("keep"), 0, "{}", out.log("keep"));
    assert_eq!(
        out.results("keep")["target"]["write_cache"],
        qemu_write_cache(Value::Null)
    );
    // A null_blk device and a file: refused at plan time, at the key, nothing made.
    let head = "error: off.toml:6:1: target.write_cache: write_cache = \"off\" cannot be set on ";
    assert_eq!(out.rc("nb"), 2, "{}", out.log("nb"));
    assert!(out.log("nb").starts_with(&format!(
        "{head}/dev/wcnb: /dev/wcnb is neither an NVMe namespace nor a SCSI or SATA disk (sysfs has no device/scsi_disk for it): wkrun sets an NVMe controller's volatile write cache (Set Features) or a SCSI or SATA disk's (scsi_disk cache_type, sent to the disk as MODE SELECT); sysfs queue/write_cache, which it reads, says only whether the kernel sends the device cache flushes, and writing it leaves the device's cache as it is\n"
    )), "{}", out.log("nb"));
    assert!(!out.has("nb.made"));
    let stat: Vec<u64> = out
        .text("nb.stat")
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(
        stat[4], 0,
        "writes completed on the refused null_blk device"
    );
    assert_eq!(
        out.text("nb.kernel").trim(),
        "write through",
        "left as it was"
    );
    assert_eq!(out.rc("file"), 2, "{}", out.log("file"));
    assert!(
        out.log("file").starts_with(&format!(
            "{head}/out/nvme_write_cache/f.img: a regular file has no write cache of its own"
        )),
        "{}",
        out.log("file")
    );
    assert!(!out.has("f.made"), "a refused run created its file");
}

#[test]
fn nvme_fio_side_by_side() {
    let Some(out) = run("nvme_fio_side_by_side") else {
        return;
    };
    let kernel = |run: &str| -> u64 {
        let n = |f: &str| -> u64 { out.text(f).trim().parse().unwrap() };
        n(&format!("{run}.after")) - n(&format!("{run}.before"))
    };
    // 1000 random 4 KiB reads at QD 1 on the NVMe namespace, by wkrun and by fio with each engine: both count
    // 1000 and 4096000 bytes, and so does the kernel (reads completed on nvme0n1).
    for e in ["psync", "io_uring"] {
        let w = format!("wk_{e}");
        assert_eq!(out.rc(&w), 0, "{}", out.log(&w));
        let r = out.results(&w);
        let p = &r["phases"][0];
        assert_eq!(p["params"]["engine"], e);
        assert_eq!(
            (p["read"]["ops"].as_u64(), p["read"]["bytes"].as_u64()),
            (Some(1000), Some(4096000)),
            "{w}"
        );
        assert_eq!(p["write"]["ops"], 0);
        assert_eq!(kernel(&w), 1000, "{w}: the kernel's reads");
        let f = format!("fio_{e}");
        assert_eq!(out.rc(&f), 0, "{}", out.log(&f));
        let j: Value = serde_json::from_str(&out.stdout(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        let read = &j["jobs"][0]["read"];
        assert_eq!(
            (read["total_ios"].as_u64(), read["io_bytes"].as_u64()),
            (Some(1000), Some(4096000)),
            "{f}"
        );
        assert_eq!(j["jobs"][0]["write"]["total_ios"], 0);
        assert_eq!(kernel(&f), 1000, "{f}: the kernel's reads");
    }
}

/// io_uring's polled modes side by side with fio's (issue 27 item 5) on a null_blk device with a poll queue:
/// wkrun `polled = true` against fio `--hipri`, `sq_poll = true` against `--sqthread_poll`, 1000 random
/// 4 KiB reads at QD 1 each; both count 1000 reads and 4096000 bytes, as the kernel does. Their IOPS are
/// printed as a ratio (TCG emulation: a ratio of two tools on the same emulated CPU, not a device figure).
#[test]
fn polled_fio_side_by_side() {
    let Some(out) = run("polled_fio_side_by_side") else {
        return;
    };
    let kernel = |run: &str| -> u64 {
        let n = |f: &str| -> u64 { out.text(f).trim().parse().unwrap() };
        n(&format!("{run}.after")) - n(&format!("{run}.before"))
    };
    for (m, fio_opt) in [("polled", "hipri"), ("sq_poll", "sqthread_poll")] {
        let w = format!("wk_{m}");
        assert_eq!(out.rc(&w), 0, "{}", out.log(&w));
        let r = out.results(&w);
        let p = &r["phases"][0];
        assert_eq!(p["params"][m], true, "{w}");
        assert_eq!(
            (p["read"]["ops"].as_u64(), p["read"]["bytes"].as_u64()),
            (Some(1000), Some(4096000)),
            "{w}"
        );
        assert_eq!(kernel(&w), 1000, "{w}: the kernel's reads");
        let f = format!("fio_{m}");
        assert_eq!(out.rc(&f), 0, "{}", out.log(&f));
        let j: Value = serde_json::from_str(&out.stdout(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        let read = &j["jobs"][0]["read"];
        assert_eq!(
            (read["total_ios"].as_u64(), read["io_bytes"].as_u64()),
            (Some(1000), Some(4096000)),
            "{f}"
        );
        assert_eq!(kernel(&f), 1000, "{f}: the kernel's reads");
        let (wi, fi) = (
            p["read"]["iops"].as_f64().unwrap(),
            read["iops"].as_f64().unwrap(),
        );
        println!(
            "side by side, {m} against fio --{fio_opt}: wkrun {wi:.0} IOPS, fio {fi:.0} IOPS, ratio {:.2}",
            wi / fi
        );
    }
}

#[test]
fn nvme_health_counters() {
    let Some(out) = run("nvme_health_counters") else {
        return;
    };
    assert_eq!(out.rc("h"), 0, "{}", out.log("h"));
    let r = out.results("h");
    let h = &r["health"];
    assert_eq!(h["available"], true, "{h}");
    // 500 writes of 4 KiB: 4 data units of 512,000 B exactly, 500 write commands, on the whole run and on
    // its one phase; QEMU's controller has no OCP page (log page C0h), and the results say so.
    for (what, d) in [("run", &h["delta"]), ("phase", &r["phases"][0]["health"])] {
        assert_eq!(d["data_units_written"], 4, "{what}: {d}");
        assert_eq!(d["host_write_commands"], 500, "{what}: {d}");
        assert_eq!(d["data_units_read"], 0, "{what}: {d}");
        assert_eq!(d["media_errors"], 0, "{what}: {d}");
        assert!(d.get("write_amplification").is_none(), "{what}: {d}");
    }
    assert!(
        h["before"]["ocp_unavailable"]
            .as_str()
            .is_some_and(|s| s.contains("log page C0h")),
        "{h}"
    );
    let (before, after) = (&h["before"]["smart"], &h["after"]["smart"]);
    let units = |v: &Value| v["data_units_written"].as_u64().unwrap();
    assert_eq!(units(after) - units(before), 4);
    assert_eq!(before["critical_warning"], 0);
    // The kernel's writes completed on nvme0n1 during the phase: wkrun's 500.
    assert_eq!(r["phases"][0]["kernel"]["writes"], 500);
    assert_eq!(r["phases"][0]["kernel"]["device"], "nvme0n1");
    // nvme-cli's reading of the same page just before and after the run, where the guest has nvme-cli:
    // wkrun's parser on its bytes gives what wkrun read itself (nothing else uses the controller between).
    if out.has("smart-before.bin") {
        for (f, ours) in [("smart-before.bin", before), ("smart-after.bin", after)] {
            let page: &[u8; 512] = out.bytes(f).try_into().expect("512 bytes");
            let theirs = serde_json::to_value(wkrun::target::health::parse_smart(page)).unwrap();
            assert_eq!(&theirs, ours, "{f}");
        }
    }
}

/// Polled I/O on an NVMe namespace: refused while the controller has no poll queues (the `nvme` module's
/// `poll_queues` is 0 by default), then, with the controller bound again with `poll_queues=1`, 1000 polled
/// reads and 1000 polled writes that the kernel counts and that raise no interrupt on the I/O queues (at most
/// 20 from the VM's own commands); the same phases unpolled raise over 100.
#[test]
fn nvme_polled_io() {
    let Some(out) = run("nvme_polled_io") else {
        return;
    };
    assert_eq!(out.text("io_poll.before"), "0\n", "no poll queues at first");
    assert_eq!(out.rc("nopoll"), 2, "{}", out.log("nopoll"));
    assert_eq!(
        out.log("nopoll").lines().next().unwrap_or(""),
        "error: p.toml:9:1: phase[0] \"r\".polled: polled = true cannot work here: /dev/nvme0n1 has no poll queues (sysfs queue/io_poll is 0; an NVMe drive gets them from the nvme module's poll_queues parameter, null_blk from its poll_queues setting)"
    );
    assert!(
        !out.has("nopoll/results.json"),
        "a refused run wrote results"
    );
    assert_eq!(
        out.text("io_poll.after"),
        "1\n",
        "poll queues after the bind"
    );
    assert_eq!(out.rc("run"), 0, "{}", out.log("run"));
    let n = |f: &str| -> Vec<u64> {
        out.text(f)
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect()
    };
    for (run, polled) in [("run", true), ("irq", false)] {
        let r = out.results(run);
        assert_eq!(r["status"], "completed", "{run}");
        assert_eq!(r["target"]["io_poll"], true, "{run}");
        for (p, reads, writes) in [(&r["phases"][0], 1000, 0), (&r["phases"][1], 0, 1000)] {
            let name = &p["name"];
            assert_eq!(
                p["params"]["polled"].as_bool(),
                polled.then_some(true),
                "{run} {name}"
            );
            assert_eq!(p["read"]["ops"], reads, "{run} {name}");
            assert_eq!(p["write"]["ops"], writes, "{run} {name}");
            assert_eq!(p["total"]["bytes"], 4096000, "{run} {name}");
            assert!(p.get("errors").is_none(), "{run} {name}: {p}");
        }
    }
    // The kernel's counts: 1000 reads and 1000 writes completed on nvme0n1 in each run; polled, none of
    // them raised an interrupt, unpolled they did.
    let (b, a, i) = (n("before.counts"), n("after.counts"), n("irq.counts"));
    assert_eq!((a[0] - b[0], a[1] - b[1]), (1000, 1000));
    assert_eq!((i[0] - a[0], i[1] - a[1]), (1000, 1000));
    // Polled, the 2,000 I/Os raise none; the VM's own commands on the interrupt-driven queue (seen: 3, once,
    // when another VM shared the host's CPUs; 0 alone) are allowed up to 1 % of them. Unpolled, well over that.
    let (bi, ai, ii) = (n("before.irqs")[0], n("after.irqs")[0], n("irq.irqs")[0]);
    assert!(
        ai - bi <= 20,
        "interrupts on the I/O queues during the polled run: {}",
        ai - bi
    );
    assert!(
        ii - ai > 100,
        "interrupts during the unpolled run: {}",
        ii - ai
    );
}
