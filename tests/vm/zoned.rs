//! Zoned block devices: host-managed null_blk devices (`zoned=1`, 4096-byte blocks, 32 MiB zones) and QEMU's
//! zoned NVMe namespace (`/dev/nvme0n3`, 16 MiB zones): the probe's facts in the results.

use crate::rig::{Case, CaseOut, Group, case};
use serde_json::{Value, json};

static GROUP: Group = Group::new(
    "zoned",
    &[Case {
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
    }],
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
