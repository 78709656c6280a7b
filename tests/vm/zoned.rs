//! Zoned block devices: host-managed null_blk devices (`zoned=1`, 4096-byte blocks, 32 MiB zones) and QEMU's
//! zoned NVMe namespace (`/dev/nvme0n3`, 16 MiB zones): the probe's facts in the results, plans that cannot
//! work refused when the plan is made (exit 2, naming file, line and key), sequential fills that can, zone
//! resets.

use crate::rig::{Case, CaseOut, Group, case};
use serde_json::{Value, json};

pub static GROUP: Group = Group::new(
    "zoned",
    &[
        Case {
            name: "zoned_probe_facts",
            script: r#"
nullb zp 256 blocksize=4096 zoned=1 zone_size=32 zone_max_open=4 zone_max_active=6 || exit 1
{ spec r; cat <<'EOF'
[[phase]]
name = "r"
kind = "workload"
pattern = "random"
read_percent = 100
block_size = "4KiB"
size = "1MiB"
EOF
} >r.toml
wk zp r.toml --target /dev/zp
cmd plan wkrun plan r.toml --target /dev/nvme0n3 --json
"#,
        },
        Case {
            name: "zoned_random_writes_refused",
            script: r#"
nullb zr 256 blocksize=4096 zoned=1 zone_size=32 || exit 1
{ spec zr; cat <<'EOF'
[[phase]]
name = "w"
kind = "workload"
engine = "io_uring"
pattern = "random"
block_size = "8KiB"
queue_depth = 8
read_percent = 30
duration = "1s"
EOF
} >zr.toml
wk zr zr.toml --target /dev/zr --allow-destroy /dev/zr
[ -e zr ] && echo yes >zr.made
{ spec rf; cat <<'EOF'
[[phase]]
name = "f"
kind = "fill"
pattern = "random"
block_size = "1MiB"
EOF
} >rf.toml
wk rf rf.toml --target /dev/zr --allow-destroy /dev/zr
cmd ns3 wkrun plan zr.toml --target /dev/nvme0n3
"#,
        },
        Case {
            name: "zoned_fill_refusals",
            script: concat!(
                r#"
nullb zf 256 blocksize=4096 zoned=1 zone_size=32 zone_max_open=4 zone_max_active=6 || exit 1
"#,
                r#"
one() { { spec "$1"; printf '[[phase]]\nname = "w"\n'; printf "$2"; } >"$1.toml"; wk "$1" "$1.toml" --target /dev/zf --allow-destroy /dev/zf; }
one offset 'kind = "fill"\nblock_size = "1MiB"\noffset = "4MiB"\n'
one passes 'kind = "fill"\nblock_size = "1MiB"\npasses = 2\n'
one mixed 'kind = "workload"\npattern = "sequential"\nblock_size = "1MiB"\nread_percent = 50\nsize = "64MiB"\n'
one timed 'kind = "workload"\npattern = "sequential"\nblock_size = "1MiB"\nread_percent = 0\nduration = "5s"\n'
one wrap 'kind = "workload"\npattern = "sequential"\nblock_size = "1MiB"\nread_percent = 0\nsize = "512MiB"\n'
one buffered 'kind = "fill"\nblock_size = "1MiB"\ndirect = false\n'
one zeroout 'kind = "erase"\nmethod = "zero-out"\n'
one workers3 'kind = "fill"\nblock_size = "1MiB"\nworkers = 3\n'
one workers8 'kind = "fill"\nblock_size = "1MiB"\nworkers = 8\n'
one straddle 'kind = "fill"\nblock_size = "3MiB"\n'
one over 'kind = "fill"\nblock_size = "64MiB"\n'
"#
            ),
        },
        Case {
            name: "zoned_sequential_fill_runs",
            script: r#"
nullb zs 64 blocksize=4096 zoned=1 zone_size=16 zone_max_open=4 zone_max_active=6 || exit 1
nullb zw 64 blocksize=4096 zoned=1 zone_size=16 zone_max_open=4 zone_max_active=6 || exit 1
# The fill on libaio: io_submit hands the 8 writes in flight to the block layer in order. On io_uring, a
# write the kernel punts to a worker thread can reach a zone after the next one (EIO at the write pointer,
# seen under load), and psync's threads race: both are refused at a queue depth above 1 (zoned_zbd_writes).
{ spec f; cat <<'EOF'
[[phase]]
name = "fill"
kind = "fill"
engine = "libaio"
block_size = "1MiB"
queue_depth = 8
data = "zeros"
[[phase]]
name = "read"
kind = "workload"
engine = "io_uring"
pattern = "random"
read_percent = 100
block_size = "64KiB"
queue_depth = 8
size = "16MiB"
EOF
} >f.toml
wk fill f.toml --target /dev/zs --allow-destroy /dev/zs
wk again f.toml --target /dev/zs --allow-destroy /dev/zs
# A zone reset (the erase method, and what auto does here) empties the zones: the fill runs again.
{ spec e; printf '[[phase]]\nname = "reset"\nkind = "erase"\nmethod = "zone-reset"\n'; sed -n '/^\[\[phase\]\]/,$p' f.toml; } >rf.toml
wk reset rf.toml --target /dev/zs --allow-destroy /dev/zs
{ spec e; printf '[[phase]]\nname = "reset"\nkind = "erase"\n'; sed -n '/^\[\[phase\]\]/,$p' f.toml; } >af.toml
wk auto af.toml --target /dev/zs --allow-destroy /dev/zs
{ spec e; printf '[[phase]]\nname = "reset"\nkind = "erase"\nmethod = "zone-reset"\noffset = "8MiB"\nspan = "16MiB"\n'; } >mid.toml
wk mid mid.toml --target /dev/zs --allow-destroy /dev/zs
wk plain rf.toml --target /dev/nvme0n1 --allow-destroy /dev/nvme0n1
sed 's/^queue_depth = 8$/workers = 4/' f.toml >w.toml
wk workers w.toml --target /dev/zw --allow-destroy /dev/zw
wk ns3 f.toml --target /dev/nvme0n3 --allow-destroy /dev/nvme0n3
# QEMU refuses Format NVM on a zoned namespace (Invalid Format); a zone reset empties its zones, and the
# same fill works again.
{ spec e; printf '[[phase]]\nname = "purge"\nkind = "erase"\nmethod = "nvme-format"\n'; } >e.toml
wk ns3format e.toml --target /dev/nvme0n3 --allow-destroy /dev/nvme0n3
{ spec e; printf '[[phase]]\nname = "reset"\nkind = "erase"\nmethod = "zone-reset"\n'; } >z.toml
wk ns3reset z.toml --target /dev/nvme0n3 --allow-destroy /dev/nvme0n3
wk ns3again f.toml --target /dev/nvme0n3 --allow-destroy /dev/nvme0n3
"#,
        },
        Case {
            name: "zoned_zbd_writes",
            script: r#"
nullb zz 64 blocksize=4096 zoned=1 zone_size=16 zone_max_open=4 zone_max_active=6 || exit 1
{ spec z; cat <<'EOF'
[[phase]]
name = "fill"
kind = "fill"
zone_mode = "zbd"
block_size = "1MiB"
passes = 2
data = "zeros"
[[phase]]
name = "rw"
kind = "workload"
engine = "io_uring"
zone_mode = "zbd"
pattern = "random"
read_percent = 0
block_size = "1MiB"
size = "64MiB"
data = "zeros"
EOF
} >z.toml
cmd plan wkrun plan z.toml --target /dev/zz
cat /sys/block/zz/stat >before.stat
wk zbd z.toml --target /dev/zz --allow-destroy /dev/zz
cat /sys/block/zz/stat >after.stat
# Refused: a device that is not zoned, and more than one I/O in flight.
cp z.toml plain.toml
wk plain plain.toml --target /dev/nvme0n1 --allow-destroy /dev/nvme0n1
for e in psync libaio io_uring; do
  sed "s/^engine = \"io_uring\"\$/engine = \"$e\"\nqueue_depth = 4/" z.toml >qd_$e.toml
  wk qd_$e qd_$e.toml --target /dev/zz --allow-destroy /dev/zz
done
cp qd_io_uring.toml qd_ns3.toml
wk qd_ns3 qd_ns3.toml --target /dev/nvme0n3 --allow-destroy /dev/nvme0n3
# Without zone_mode: sequential writes at a queue depth above 1 run on libaio only (zoned_sequential_fill_runs).
for e in psync io_uring; do
{ spec s; printf '[[phase]]\nname = "fill"\nkind = "fill"\nengine = "%s"\nblock_size = "1MiB"\nqueue_depth = 8\ndata = "zeros"\n' $e; } >seq_$e.toml
wk seq_$e seq_$e.toml --target /dev/zz --allow-destroy /dev/zz
done
cp seq_io_uring.toml seq_ns3.toml
wk seq_ns3 seq_ns3.toml --target /dev/nvme0n3 --allow-destroy /dev/nvme0n3
"#,
        },
    ],
);

fn run(test: &'static str) -> Option<CaseOut> {
    case(&GROUP, test)
}

#[test]
fn zoned_probe_facts() {
    let Some(out) = run("zoned_probe_facts") else {
        return;
    };
    assert_eq!(out.rc("zp"), 0, "{}", out.log("zp"));
    let t = &out.results("zp")["target"];
    assert_eq!(t["capacity_bytes"], 268_435_456);
    assert_eq!(
        t["zoned"],
        json!({"model": "host-managed", "zone_size_bytes": 33_554_432, "zones": 8, "max_open_zones": 4,
               "max_active_zones": 6, "write_granularity_bytes": 4096})
    );
    assert_eq!(out.rc("plan"), 0, "{}", out.log("plan"));
    let plan: Value = serde_json::from_str(&out.stdout("plan")).unwrap();
    let t = &plan["target"];
    assert_eq!(t["capacity_bytes"], 134_217_728);
    assert_eq!(t["nvme_namespace"], 3);
    assert_eq!(
        t["zoned"],
        json!({"model": "host-managed", "zone_size_bytes": 16_777_216, "zones": 8, "max_open_zones": 4,
               "max_active_zones": 6, "write_granularity_bytes": 4096})
    );
}

/// `run` exited 2 with the one error about `key` of phase `phase` at `line` of its spec, whose message
/// begins with `message`.
fn refused(out: &CaseOut, run: &str, line: u32, phase: &str, key: &str, message: &str) {
    let log = out.log(run);
    assert_eq!(out.rc(run), 2, "{run}: {log}");
    let head = format!("error: {run}.toml:{line}:1: phase[0] \"{phase}\".{key}: {message}");
    assert!(
        log.starts_with(&head),
        "{run}: expected\n{head}\ngot\n{log}"
    );
    assert!(
        !out.has(&format!("{run}/results.json")),
        "{run}: a refused run wrote results"
    );
}

const ZR: &str = "/dev/zr, a host-managed zoned device (8 zones of 32MiB)";
const ZF: &str = "/dev/zf, a host-managed zoned device (8 zones of 32MiB)";

#[test]
fn zoned_random_writes_refused() {
    let Some(out) = run("zoned_random_writes_refused") else {
        return;
    };
    let why = format!(
        "random writes cannot work on {ZR}: each zone takes writes only at its write pointer, in order"
    );
    refused(&out, "zr", 9, "w", "pattern", &why);
    assert!(!out.has("zr.made"), "a refused run made its output folder");
    assert!(out.log("zr").contains("help: write with pattern = \"sequential\" from a zone's start, or read only (read_percent = 100)"));
    refused(&out, "rf", 8, "f", "pattern", &why);
    assert_eq!(out.rc("ns3"), 2, "{}", out.log("ns3"));
    assert!(out.log("ns3").contains("random writes cannot work on /dev/nvme0n3, a host-managed zoned device (8 zones of 16MiB)"), "{}", out.log("ns3"));
}

#[test]
fn zoned_fill_refusals() {
    let Some(out) = run("zoned_fill_refusals") else {
        return;
    };
    refused(
        &out,
        "offset",
        9,
        "w",
        "offset",
        &format!(
            "the span starts at byte 4194304, inside zone 0 of {ZF}: sequential writes must start at a zone's start (its write pointer once reset)"
        ),
    );
    refused(
        &out,
        "passes",
        9,
        "w",
        "passes",
        &format!(
            "2 passes write the span 2 times: the second starts behind the zones' write pointers of {ZF} (512 writes of 256 blocks)"
        ),
    );
    refused(
        &out,
        "mixed",
        10,
        "w",
        "read_percent",
        "a sequential mix of reads and writes (read_percent = 50) leaves gaps between the writes",
    );
    refused(
        &out,
        "timed",
        11,
        "w",
        "duration",
        &format!(
            "a time-bounded sequential write wraps to the start of its span when it reaches the end, behind the zones' write pointers of {ZF}"
        ),
    );
    refused(
        &out,
        "wrap",
        11,
        "w",
        "size",
        &format!(
            "512 writes of a span of 256 blocks wrap to its start, behind the zones' write pointers of {ZF}"
        ),
    );
    refused(
        &out,
        "buffered",
        9,
        "w",
        "direct",
        &format!("buffered writes (direct = false) reach {ZF} in the page cache's order"),
    );
    refused(
        &out,
        "zeroout",
        8,
        "w",
        "method",
        &format!("erase method \"zero-out\" writes zeros over the span, which {ZF} refuses"),
    );
    refused(
        &out,
        "workers3",
        9,
        "w",
        "workers",
        &format!("worker 1's part of the span starts at byte 90177536, inside zone 2 of {ZF}"),
    );
    refused(
        &out,
        "workers8",
        9,
        "w",
        "workers",
        &format!(
            "8 workers write 8 zones at once, more than the 4 zones {ZF} keeps open (max_open_zones 4, max_active_zones 6)"
        ),
    );
    refused(
        &out,
        "straddle",
        8,
        "w",
        "block_size",
        &format!(
            "block_size 3MiB (3145728 B) does not divide the zone size (33554432 B) of {ZF}: the write at byte 31457280 would straddle zones 0 and 1"
        ),
    );
    refused(
        &out,
        "over",
        8,
        "w",
        "block_size",
        &format!(
            "block_size 64MiB (67108864 B) does not divide the zone size (33554432 B) of {ZF}: the write at byte 0 would straddle zones 0 and 1"
        ),
    );
}

#[test]
fn zoned_sequential_fill_runs() {
    let Some(out) = run("zoned_sequential_fill_runs") else {
        return;
    };
    let mib = 1u64 << 20;
    // The controller's refusal, as the NVMe status it gave (DNR, command specific: Invalid Format).
    let log = out.log("ns3format");
    assert_eq!(out.rc("ns3format"), 1, "{log}");
    assert_eq!(
        log,
        "error: phase \"purge\": erase of [0, 134217728) failed: NVMe status 0x410a\n"
    );
    assert_eq!(out.rc("ns3reset"), 0, "{}", out.log("ns3reset"));
    let r = out.results("ns3reset");
    assert_eq!(r["phases"][0]["erase_method"], "zone-reset");
    assert_eq!(r["phases"][0]["erased_bytes"].as_u64(), Some(128 * mib));
    for (run, cap) in [
        ("fill", 64 * mib),
        ("workers", 64 * mib),
        ("ns3", 128 * mib),
        ("ns3again", 128 * mib),
    ] {
        assert_eq!(out.rc(run), 0, "{run}: {}", out.log(run));
        let r = out.results(run);
        let (f, rd) = (&r["phases"][0], &r["phases"][1]);
        assert_eq!(f["write"]["bytes"].as_u64(), Some(cap), "{run}");
        assert_eq!(f["write"]["ops"].as_u64(), Some(cap / mib), "{run}");
        assert_eq!(rd["read"]["bytes"].as_u64(), Some(16 * mib), "{run}");
        assert!(
            f["errors"].is_null() && rd["errors"].is_null(),
            "{run}: {}",
            f["errors"]
        );
    }
    // The zones are full: a second fill fails at the first write, with EIO, as the kernel says.
    assert_eq!(out.rc("again"), 1, "{}", out.log("again"));
    let first = &out.results("again")["phases"][0]["errors"]["first"];
    assert_eq!(
        (first["offset_bytes"].as_u64(), first["errno"].as_i64()),
        (Some(0), Some(5))
    );
    // After a zone reset (explicit, or auto), the same fill runs again.
    for run in ["reset", "auto"] {
        assert_eq!(out.rc(run), 0, "{run}: {}", out.log(run));
        let r = out.results(run);
        assert_eq!(r["phases"][0]["erase_method"], "zone-reset", "{run}");
        assert_eq!(r["phases"][0]["erased_bytes"].as_u64(), Some(64 * mib));
        assert_eq!(
            r["phases"][1]["write"]["bytes"].as_u64(),
            Some(64 * mib),
            "{run}"
        );
    }
    // Zone resets need whole zones, and a zoned device.
    let log = out.log("mid");
    assert_eq!(out.rc("mid"), 2, "{log}");
    assert!(log.starts_with("error: mid.toml:8:1: phase[0] \"reset\".method: erase method \"zone-reset\" resets whole zones, but the span [8388608, 25165824) does not begin and end at zone boundaries of /dev/zs (zones of 16777216 B); use an offset and span that are multiples of 16777216 B"), "{log}");
    let log = out.log("plain");
    assert_eq!(out.rc("plain"), 2, "{log}");
    assert!(log.starts_with("error: rf.toml:8:1: phase[0] \"reset\".method: erase method \"zone-reset\" is for zoned block devices, and /dev/nvme0n1 is not zoned (sysfs queue/zoned is none)"), "{log}");
}

/// Resets and zones written when `stream`'s writes of 1 MiB go to the write pointers of 16 MiB zones that
/// were all full when it began: a zone's first write, and every 16th after, finds it full.
fn zbd_expected(stream: &wkrun::ops::OpStream) -> (u64, u64) {
    let mut per_zone = [0u64; 4];
    for op in stream.ops(0..stream.total_ops.unwrap()) {
        per_zone[(op.offset >> 24) as usize] += 1;
    }
    let resets = per_zone.iter().map(|&n| n.div_ceil(16)).sum();
    let written = per_zone.iter().filter(|&&n| n > 0).count() as u64;
    (resets, written)
}

#[test]
fn zoned_zbd_writes() {
    let Some(out) = run("zoned_zbd_writes") else {
        return;
    };
    assert_eq!(out.rc("zbd"), 0, "{}", out.log("zbd"));
    // The plan says how each phase meets the zones.
    let zbd_line = "writes each at its zone's write pointer, a full zone reset before it is written again (zone_mode = \"zbd\")";
    assert_eq!(out.rc("plan"), 0, "{}", out.log("plan"));
    assert_eq!(
        out.text("plan.out").matches(zbd_line).count(),
        2,
        "{}",
        out.text("plan.out")
    );
    let r = out.results("zbd");
    assert_eq!(r["status"], "completed");
    // Two passes of a sequential fill: 128 writes; the second pass finds each of the 4 zones full.
    let fill = &r["phases"][0];
    assert_eq!(fill["params"]["zone_mode"], "zbd");
    assert_eq!(fill["write"]["ops"], 128);
    assert_eq!(fill["write"]["bytes"], 128u64 << 20);
    assert_eq!(
        fill["zones"],
        json!({"zones": 4, "written": 4, "resets": 4})
    );
    // 64 random writes: each at its zone's write pointer (the device takes no other), a full zone reset first.
    let rw = &r["phases"][1];
    assert_eq!(rw["write"]["ops"], 64);
    assert_eq!(rw["write"]["bytes"], 64u64 << 20);
    assert!(rw.get("errors").is_none(), "{rw}");
    let stream = wkrun::ops::OpStream {
        span_start: 0,
        span_len: 64 << 20,
        sizes: wkrun::ops::Sizes::Fixed(1 << 20),
        order: wkrun::ops::Order::Random,
        mix: wkrun::ops::Mix::read_write(0),
        seed: rw["params"]["stream_seed"].as_u64().unwrap(),
        access: wkrun::ops::dist::Access::UNIFORM,
        total_ops: Some(64),
    };
    let (resets, written) = zbd_expected(&stream);
    assert_eq!(
        rw["zones"],
        json!({"zones": 4, "written": written, "resets": resets})
    );
    // The kernel's count: 192 MiB written (sectors, field 7 of /sys/block/zz/stat).
    let sectors = |f: &str| -> u64 {
        out.text(f)
            .split_whitespace()
            .nth(6)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(
        sectors("after.stat") - sectors("before.stat"),
        (192u64 << 20) / 512
    );
    refused(
        &out,
        "plain",
        8,
        "fill",
        "zone_mode",
        "zone_mode = \"zbd\" writes at zones' write pointers, but /dev/nvme0n1 is not a zoned block device\n",
    );
    // The second phase's queue depth (refused() reads the first phase's errors), on every engine, on null_blk
    // and on the QEMU zoned namespace.
    for (run, device) in [
        (
            "qd_psync",
            "/dev/zz, a host-managed zoned device (4 zones of 16MiB)",
        ),
        (
            "qd_libaio",
            "/dev/zz, a host-managed zoned device (4 zones of 16MiB)",
        ),
        (
            "qd_io_uring",
            "/dev/zz, a host-managed zoned device (4 zones of 16MiB)",
        ),
        (
            "qd_ns3",
            "/dev/nvme0n3, a host-managed zoned device (8 zones of 16MiB)",
        ),
    ] {
        assert_eq!(out.rc(run), 2, "{run}: {}", out.log(run));
        let head = format!(
            "error: {run}.toml:16:1: phase[1] \"rw\".queue_depth: zone_mode = \"zbd\" runs one worker with one I/O in flight on {device} (queue_depth = 4, workers = 1): writes in flight together could reach a zone out of order, and a zone is reset with none in flight\n"
        );
        assert!(out.log(run).starts_with(&head), "{run}: {}", out.log(run));
        assert!(
            !out.has(&format!("{run}/results.json")),
            "{run} wrote results"
        );
    }
    // Sequential writes without zone_mode at queue_depth 8: refused on psync and io_uring.
    let zz = "/dev/zz, a host-managed zoned device (4 zones of 16MiB)";
    let ns3 = "/dev/nvme0n3, a host-managed zoned device (8 zones of 16MiB)";
    let uring = "io_uring hands a write the device cannot take at once to a kernel worker thread, which issues it after the writes submitted behind it\n";
    let psync = "psync runs one thread per write in flight, and the threads reach a zone in whichever order they run\n";
    for (run, engine, device, why) in [
        ("seq_psync", "psync", zz, psync),
        ("seq_io_uring", "io_uring", zz, uring),
        ("seq_ns3", "io_uring", ns3, uring),
    ] {
        refused(
            &out,
            run,
            10,
            "fill",
            "queue_depth",
            &format!(
                "8 writes in flight (queue_depth = 8) on engine \"{engine}\" can reach a zone of {device} out of its write pointer's order: {why}"
            ),
        );
        assert!(
            out.log(run).contains("help: use engine = \"libaio\" (one thread submits the writes in order) or queue_depth = 1"),
            "{run}: {}",
            out.log(run)
        );
    }
}
