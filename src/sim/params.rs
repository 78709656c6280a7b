//! The simulated SSD's parameters: geometry, timing and data reduction, as written in a spec's
//! `[target] sim = { ... }` table or on the command line as `--target sim:capacity=8GiB,op=7%`.

use crate::units::{Duration, Percent, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bytes per mapping unit: the flash translation layer maps the logical space in 4 KiB units, as
/// page-mapped SSD controllers do. Writes smaller than a unit are read-modify-write.
pub const UNIT: u64 = 4096;
/// Logical block (sector) size the simulated drive reports, bytes: 512, as 512e drives do.
pub const SECTOR: u32 = 512;
/// Flash per die when `dies` is not given: one die per 16 GiB (128 Gbit) of flash.
pub const AUTO_DIE_BYTES: u64 = 16 << 30;
/// Most dies a simulated drive may have.
pub const MAX_DIES: u32 = 256;
/// Largest timing variation (`jitter`): 50 %.
pub const MAX_JITTER: Percent = Percent(crate::units::PERCENT_SCALE / 2);
/// Largest model memory (mapping tables) a simulated drive may need, bytes: 2 GiB.
pub const MAX_MODEL_BYTES: u64 = 2 << 30;

/// A simulated SSD: a page-mapped flash translation layer (FTL) with greedy garbage collection over a
/// number of independent dies, driven in virtual time. Every key is optional; the defaults describe a
/// consumer SATA SSD of the 2013 era (the drives of seeds 000 and 003) scaled to `capacity`.
///
/// Example: `sim = { capacity = "2GiB", op = "7%" }`, or on the command line
/// `--target sim:capacity=2GiB,op=7%,page=16KiB,block=4MiB`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimParams {
    /// User-visible capacity (the LBA space), bytes; rounded down to a whole number of 4 KiB mapping
    /// units. Example: `"2GiB"`. Default: `"8GiB"`.
    #[serde(default = "default_capacity")]
    pub capacity: Size,
    /// Over-provisioning: flash beyond the capacity, as a percentage of the capacity (the drive has
    /// `capacity × (1 + op)` bytes of flash; 7 % is the GiB-versus-GB spare of consumer drives). Example:
    /// `"28%"`. Default: `"7%"`.
    #[serde(default = "default_op")]
    pub op: Percent,
    /// Flash page: the unit of a program (write) and of a read, bytes; a multiple of 4 KiB. Example:
    /// `"16KiB"`. Default: `"16KiB"`.
    #[serde(default = "default_page")]
    pub page: Size,
    /// Erase block, bytes; a multiple of the page. Garbage collection works on a superblock: one erase
    /// block on every die. Example: `"4MiB"`. Default: `"4MiB"`.
    #[serde(default = "default_block")]
    pub block: Size,
    /// Independent flash dies, each serving one read, program or erase at a time; pages of a superblock
    /// are striped across them. Default: one per 16 GiB of flash, at least 1 (a 2 GiB drive has one die,
    /// a 256 GB drive sixteen). Example: `8`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dies: Option<u32>,
    /// Time to read one page from a die. Example: `"60us"`. Default: `"60us"`.
    #[serde(default = "default_read_time")]
    pub read_time: Duration,
    /// Time to program (write) one page on a die. Example: `"1600us"`. Default: `"1600us"` (TLC-like:
    /// 10 MB/s per die).
    #[serde(default = "default_program_time")]
    pub program_time: Duration,
    /// Time to erase one block on a die. Example: `"3ms"`. Default: `"3ms"`.
    #[serde(default = "default_erase_time")]
    pub erase_time: Duration,
    /// Controller time per host command, served one command at a time (caps IOPS at 1 / command_time).
    /// Example: `"10us"`. Default: `"10us"`.
    #[serde(default = "default_command_time")]
    pub command_time: Duration,
    /// Host interface bandwidth, bytes per second, shared by reads and writes (SATA 6 Gb/s carries about
    /// 550 MB/s). Example: `"550MB"`. Default: `"550MB"`.
    #[serde(default = "default_interface")]
    pub interface_bytes_per_s: Size,
    /// Write buffer: host writes complete once their data is in it; it drains as pages are programmed.
    /// Example: `"1MiB"`. Default: `"1MiB"`.
    #[serde(default = "default_buffer")]
    pub buffer: Size,
    /// Garbage collection starts when no more than this many superblocks are free (checked after every host
    /// write); it then copies a victim's valid data a little per host write, and runs in the foreground
    /// only when a single free superblock is left. A victim once started is always finished. Example: `3`.
    /// Default: `3`.
    #[serde(default = "default_gc_threshold")]
    pub gc_free_superblocks: u32,
    /// Data reduction as in SandForce controllers: a 4 KiB unit of zeros takes 1/8 of its flash, a unit of
    /// `compressible:N%` data (100 − N) %, random data all of it. Example: `true`. Default: `false`.
    #[serde(default)]
    pub compression: bool,
    /// Garbage-collection policy: `"paced"` copies a little per host write once the free pool is low, so
    /// the host sees a steady speed; `"deferred"` cleans only under pressure: nothing until the host
    /// frontier needs a superblock and one is left, then the host waits while whole victims are collected
    /// until `gc_free_superblocks` are free (higher peaks, near-zero dips). Example: `"deferred"`. Default:
    /// `"paced"`.
    #[serde(default)]
    pub gc: GcPolicy,
    /// With `gc = "deferred"`: the share of the keep-up pace that is still collected in the background
    /// (each host slot written earns valid / invalid × `gc_pace` slots of copying once
    /// `gc_free_superblocks` or fewer are free), so that the pool drains slowly and the host waits only now
    /// and then. `"0%"`: nothing in the background. Refused with `gc = "paced"` (which keeps up: 100 %).
    /// Example: `"90%"`. Default: `"0%"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_pace: Option<Percent>,
    /// Timing variation: every page read, page program, block erase and controller command takes its time ×
    /// a factor drawn uniformly from [1 − jitter, 1 + jitter]; every page program also × a factor of its
    /// superblock (process variation between blocks), drawn the same way; one page read in a thousand needs
    /// retries and takes four reads' time; each victim's background collection runs at the keep-up pace × a
    /// factor drawn the same way. At most 50 %. Deterministic: the draws come from `seed`. `"0%"`: every
    /// operation takes its nominal time. Example: `"20%"`. Default: `"30%"`.
    #[serde(default = "default_jitter")]
    pub jitter: Percent,
    /// Seed of the timing variation (`jitter`): the same seed gives the same times. Example: `7`. Default:
    /// `1`.
    #[serde(default = "default_seed")]
    pub seed: u64,
}

/// When garbage collection runs (see [`SimParams::gc`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", rename_all = "lowercase")]
pub enum GcPolicy {
    /// Background collection paced by host writes once `gc_free_superblocks` or fewer are free; in the
    /// foreground only when one is left.
    #[default]
    Paced,
    /// No background collection: when one superblock is left, the host waits while collection frees
    /// `gc_free_superblocks`.
    Deferred,
}

impl GcPolicy {
    /// The spelling in specs and target strings.
    pub fn as_str(self) -> &'static str {
        match self {
            GcPolicy::Paced => "paced",
            GcPolicy::Deferred => "deferred",
        }
    }
}

fn default_capacity() -> Size {
    Size(8 << 30)
}
fn default_op() -> Percent {
    Percent(7 * crate::units::PERCENT_SCALE / 100)
}
fn default_page() -> Size {
    Size(16 << 10)
}
fn default_block() -> Size {
    Size(4 << 20)
}
fn default_read_time() -> Duration {
    Duration(60_000)
}
fn default_program_time() -> Duration {
    Duration(1_600_000)
}
fn default_erase_time() -> Duration {
    Duration(3_000_000)
}
fn default_command_time() -> Duration {
    Duration(10_000)
}
fn default_interface() -> Size {
    Size(550_000_000)
}
fn default_buffer() -> Size {
    Size(1 << 20)
}
fn default_gc_threshold() -> u32 {
    3
}
fn default_jitter() -> Percent {
    Percent(30 * crate::units::PERCENT_SCALE / 100)
}
fn default_seed() -> u64 {
    1
}

impl Default for SimParams {
    fn default() -> SimParams {
        SimParams {
            capacity: default_capacity(),
            op: default_op(),
            page: default_page(),
            block: default_block(),
            dies: None,
            read_time: default_read_time(),
            program_time: default_program_time(),
            erase_time: default_erase_time(),
            command_time: default_command_time(),
            interface_bytes_per_s: default_interface(),
            buffer: default_buffer(),
            gc_free_superblocks: default_gc_threshold(),
            compression: false,
            gc: GcPolicy::Paced,
            gc_pace: None,
            jitter: default_jitter(),
            seed: default_seed(),
        }
    }
}

/// The prefix of a simulated target on the command line.
pub const PREFIX: &str = "sim:";

/// Why one run may not hold a simulated drive and a real target (a file or a block device) together: run
/// side by side, phase by phase, their phases would start together but not overlap in time, and their sum
/// (the run's aggregate) would add virtual-time rates to wall-clock ones.
pub const MIXED_CLOCKS: &str = "a simulated drive runs in virtual time, so its phases do not overlap the real target's in time and their sum would add virtual-time rates to wall-clock ones; run them separately and `wkrun compare` the two results folders";

/// The first simulated drive (`sim:...`) and the first real target among the targets of one run, as
/// `--target` or `[target] paths` names them, when it names both: such a run is refused
/// ([`MIXED_CLOCKS`]). A name that is not UTF-8 is never a simulated drive.
pub fn mixed_clocks<'a>(
    targets: impl IntoIterator<Item = &'a std::path::Path>,
) -> Option<(usize, usize)> {
    let sim = |p: &std::path::Path| p.to_str().is_some_and(|t| t.starts_with(PREFIX));
    let kinds: Vec<bool> = targets.into_iter().map(sim).collect();
    let s = kinds.iter().position(|&k| k)?;
    let r = kinds.iter().position(|&k| !k)?;
    Some((s, r))
}

impl SimParams {
    /// Parses the command-line form `sim:key=value,key=value` (keys as in the spec table; `sim:` alone is
    /// every default).
    ///
    /// # Errors
    /// An unknown key, a value that does not parse, or a missing `=`, naming the key.
    pub fn parse_target(s: &str) -> Result<SimParams, String> {
        let body = s
            .strip_prefix(PREFIX)
            .ok_or_else(|| format!("{s:?} is not a simulated target (sim:...)"))?;
        let mut table = toml::Table::new();
        // `sim:` alone is every default; otherwise every item is key=value, no item empty, no space.
        for item in body.split(',').filter(|_| !body.is_empty()) {
            if item.is_empty() {
                return Err(format!(
                    "--target {s}: an empty item (two commas in a row, or a comma at the start or the end); write key=value items separated by single commas (e.g. sim:capacity=2GiB,op=7%)"
                ));
            }
            if item.chars().any(char::is_whitespace) {
                return Err(format!(
                    "--target {s:?}: {item:?} holds a space; write key=value items separated by commas, without spaces (e.g. sim:capacity=2GiB,op=7%)"
                ));
            }
            let (k, v) = item.split_once('=').ok_or_else(|| {
                format!("--target {s}: {item:?} is not key=value (e.g. capacity=2GiB)")
            })?;
            let value = match k {
                "dies" | "gc_free_superblocks" | "seed" => {
                    toml::Value::Integer(v.parse().map_err(|e: std::num::ParseIntError| {
                        whole_number_error(s, k, v, e.kind())
                    })?)
                }
                "compression" => toml::Value::Boolean(v.parse().map_err(|_| {
                    format!("--target {s}: compression = {v:?} is not true or false")
                })?),
                _ => toml::Value::String(v.to_string()),
            };
            if table.insert(k.to_string(), value).is_some() {
                return Err(format!("--target {s}: {k} is given twice"));
            }
        }
        let p: SimParams = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| format!("--target {s}: {}", e.message()))?;
        Ok(p)
    }
}

/// Why `v`, the value of the whole-number key `k` of the target `s`, does not parse: out of range (a TOML
/// integer's, as in a spec: at most 9223372036854775807), or not a whole number.
fn whole_number_error(s: &str, k: &str, v: &str, kind: &std::num::IntErrorKind) -> String {
    use std::num::IntErrorKind::{NegOverflow, PosOverflow};
    match kind {
        PosOverflow | NegOverflow => format!(
            "--target {s}: {k} = {v} is out of range: at most {}",
            i64::MAX
        ),
        _ => format!("--target {s}: {k} = {v:?} is not a whole number"),
    }
}

/// The keys of a simulated drive's command-line form (`sim:KEY=VALUE,...`).
const TARGET_KEYS: [&str; 17] = [
    "capacity",
    "op",
    "page",
    "block",
    "dies",
    "read_time",
    "program_time",
    "erase_time",
    "command_time",
    "interface_bytes_per_s",
    "buffer",
    "gc_free_superblocks",
    "compression",
    "gc",
    "gc_pace",
    "jitter",
    "seed",
];

/// The refusal of a target path that would make a file where a simulated drive was meant: [`PREFIX`] in
/// another case (`SIM:capacity=1GiB`), white space around the name (` sim:capacity=1GiB`), `sim` with
/// another separator (`sim :...`, `sim=...`, `sim.capacity=...`), or the drive's items alone
/// (`capacity=1GiB,op=7%`). A path from `./` or `/` is a file, as meant.
pub fn misspelt_prefix(path: &str) -> Option<String> {
    let refuse = |what: String| {
        Some(format!(
            "--target {path:?}: {what}; for a file really named so, write ./{}",
            path.trim_start_matches("./")
        ))
    };
    if path.starts_with("./") || path.starts_with('/') {
        return None;
    }
    if path != path.trim() {
        return refuse(
            "the name begins or ends with white space (a simulated drive is sim:KEY=VALUE,...)"
                .into(),
        );
    }
    if let Some(head) = path.get(..PREFIX.len())
        && head != PREFIX
        && head.eq_ignore_ascii_case(PREFIX)
    {
        return refuse(format!(
            "a simulated drive is named with {PREFIX} in lower case ({PREFIX}{})",
            &path[PREFIX.len()..]
        ));
    }
    // `sim :...`, `sim=...`, `sim;...`, `sim.capacity=...`, or the drive's items without `sim:` at all.
    let lower = path.to_ascii_lowercase();
    let sim_word = lower.starts_with("sim")
        && lower[3..].starts_with([' ', '=', ';', '.', ','])
        && lower.contains('=');
    let items = lower.split(',').all(|item| {
        item.split_once('=')
            .is_some_and(|(k, _)| TARGET_KEYS.contains(&k.trim()))
    });
    if !(sim_word || items) {
        return None;
    }
    refuse("it looks like a simulated drive's parameters, which are written sim:KEY=VALUE,... (sim:capacity=2GiB,op=7%)".into())
}

crate::vocab::string_only!(GcPolicy);

#[cfg(test)]
mod tests {
    use super::*;

    /// A run's targets hold a simulated drive and a real one: the first of each, by place.
    #[test]
    fn mixed_clocks_names_the_first_simulated_and_the_first_real_target() {
        let of = |names: &[&str]| mixed_clocks(names.iter().map(std::path::Path::new));
        assert_eq!(of(&["sim:capacity=1GiB", "a.img"]), Some((0, 1)));
        assert_eq!(of(&["a.img", "/dev/x", "sim:", "sim:op=7%"]), Some((2, 0)));
        assert_eq!(of(&["sim:capacity=1GiB", "sim:capacity=2GiB"]), None);
        assert_eq!(of(&["a.img", "./sim:capacity=1GiB"]), None);
        assert_eq!(of(&[]), None);
    }

    #[test]
    fn command_line_form_parses_every_key() {
        let p = SimParams::parse_target(
            "sim:capacity=2GiB,op=28%,page=8KiB,block=2MiB,dies=4,read_time=50us,program_time=1ms,erase_time=2ms,command_time=5us,interface_bytes_per_s=1GB,buffer=256KiB,gc_free_superblocks=4,compression=true",
        )
        .unwrap();
        assert_eq!(p.capacity, Size(2 << 30));
        assert_eq!(p.op, Percent(28 * crate::units::PERCENT_SCALE / 100));
        assert_eq!((p.page, p.block), (Size(8 << 10), Size(2 << 20)));
        assert_eq!(p.dies, Some(4));
        assert_eq!(p.read_time, Duration(50_000));
        assert_eq!(p.program_time, Duration(1_000_000));
        assert_eq!(p.erase_time, Duration(2_000_000));
        assert_eq!(p.command_time, Duration(5_000));
        assert_eq!(p.interface_bytes_per_s, Size(1_000_000_000));
        assert_eq!(p.buffer, Size(256 << 10));
        assert_eq!(p.gc_free_superblocks, 4);
        assert!(p.compression);
        assert_eq!(
            SimParams::parse_target("sim:").unwrap(),
            SimParams::default()
        );
    }

    #[test]
    fn command_line_errors_name_the_key() {
        let e = SimParams::parse_target("sim:capacty=2GiB").unwrap_err();
        assert!(e.contains("capacty"), "{e}");
        let e = SimParams::parse_target("sim:capacity").unwrap_err();
        assert!(e.contains("not key=value"), "{e}");
        let e = SimParams::parse_target("sim:dies=many").unwrap_err();
        assert!(e.contains("dies"), "{e}");
        let e = SimParams::parse_target("sim:op=7").unwrap_err();
        assert!(e.contains('7'), "{e}");
        let e = SimParams::parse_target("sim:op=7%,op=8%").unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = SimParams::parse_target("sim:gc=lazy").unwrap_err();
        assert!(
            e.contains("unknown variant `lazy`, expected `paced` or `deferred`"),
            "{e}"
        );
        let e = SimParams::parse_target("sim:seed=-1").unwrap_err();
        assert!(e.contains("seed"), "{e}");
        let e = SimParams::parse_target("sim:seed=18446744073709551615").unwrap_err();
        assert_eq!(
            e,
            "--target sim:seed=18446744073709551615: seed = 18446744073709551615 is out of range: at most 9223372036854775807"
        );
        let e = SimParams::parse_target("sim:dies=two").unwrap_err();
        assert_eq!(
            e,
            "--target sim:dies=two: dies = \"two\" is not a whole number"
        );
    }

    #[test]
    fn gc_policy_and_jitter_parse() {
        let p =
            SimParams::parse_target("sim:gc=deferred,gc_pace=90%,jitter=12.5%,seed=42").unwrap();
        assert_eq!(p.gc, GcPolicy::Deferred);
        assert_eq!(
            p.gc_pace,
            Some(Percent(90 * crate::units::PERCENT_SCALE / 100))
        );
        assert_eq!(p.jitter, Percent(12_500_000));
        assert_eq!(p.seed, 42);
        let d = SimParams::default();
        assert_eq!(
            (d.gc, d.gc_pace, d.jitter, d.seed),
            (GcPolicy::Paced, None, Percent(30_000_000), 1)
        );
    }
}
