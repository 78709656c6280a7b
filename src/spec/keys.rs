//! The phase keys: one row per key of `[[phase]]`, saying which phase kinds accept it, its built-in
//! default, whether `[defaults]` may hold it, whether it may be given a list (a matrix) or swept, and
//! whether `--set` may change it. Everything that lists phase keys reads this table: the rules
//! ([`super::rules::keys_for`], the refused-key check), the spec schema (which keys each kind accepts),
//! expansion of sweeps and matrices ([`super::expand`]), inheritance from `[defaults]` ([`with_defaults`])
//! and `--set` ([`super::overrides`]).
//!
//! A key's type and its documentation are those of its [`PhaseSpec`] field (schemars copies the field's doc
//! comment into the schema). To add a key: add the field to [`PhaseSpec`] (and to [`Defaults`] or
//! [`SweepSpec`] if those may hold it), add its row here in documentation order, and add it to the two key
//! tables of `docs/spec.md`; the tests below check that all of these agree.

use super::expand::{Setting, list, swept};
use super::{Defaults, PhaseKind, PhaseSpec, SweepSpec, Vary};

/// A set of phase kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds(u8);

impl Kinds {
    /// The set of `kinds`.
    pub const fn of(kinds: &[PhaseKind]) -> Kinds {
        let mut bits = 0;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1 << kinds[i] as u8;
            i += 1;
        }
        Kinds(bits)
    }

    /// Whether `kind` is in the set.
    pub const fn has(self, kind: PhaseKind) -> bool {
        self.0 & (1 << kind as u8) != 0
    }
}

/// Every phase kind, in declaration order.
pub const PHASE_KINDS: [PhaseKind; 5] = [
    PhaseKind::Erase,
    PhaseKind::Fill,
    PhaseKind::RestoreImage,
    PhaseKind::Workload,
    PhaseKind::Verify,
];

const ALL: Kinds = Kinds::of(&PHASE_KINDS);
const ERASE: Kinds = Kinds::of(&[PhaseKind::Erase]);
const FILL: Kinds = Kinds::of(&[PhaseKind::Fill]);
const RESTORE: Kinds = Kinds::of(&[PhaseKind::RestoreImage]);
const WORKLOAD: Kinds = Kinds::of(&[PhaseKind::Workload]);
const VERIFY: Kinds = Kinds::of(&[PhaseKind::Verify]);
/// Kinds that issue I/O through an engine.
const IO: Kinds = Kinds::of(&[
    PhaseKind::Fill,
    PhaseKind::RestoreImage,
    PhaseKind::Workload,
    PhaseKind::Verify,
]);
/// I/O kinds with an op stream or image made from a seed (verify reads its span in order).
const SEEDED: Kinds = Kinds::of(&[
    PhaseKind::Fill,
    PhaseKind::RestoreImage,
    PhaseKind::Workload,
]);
/// Kinds that write generated data.
const WRITERS: Kinds = Kinds::of(&[PhaseKind::Fill, PhaseKind::Workload]);

/// One phase key.
pub struct Key {
    /// The key as written in a spec (the [`PhaseSpec`] field's name).
    pub name: &'static str,
    /// The phase kinds that accept the key; a phase of another kind that sets it is refused.
    pub kinds: Kinds,
    /// The built-in default, as the key reference of `docs/spec.md` gives it.
    pub default: &'static str,
    /// Whether `--set` may change the key.
    pub settable: bool,
    /// Whether a phase sets the key.
    pub is_set: fn(&PhaseSpec) -> bool,
    /// For a key `[defaults]` may hold: gives a phase that does not set the key the default's value.
    pub inherit: Option<fn(&mut PhaseSpec, &Defaults)>,
    /// For a key that may be given a list: how the list expands.
    pub matrix: Option<Matrix>,
    /// Whether the key's one value is a list (`windows`, `headline`): `--set` then takes a TOML array as
    /// that value.
    pub list: bool,
}

/// How a key given a list (`block_size = ["4KiB", "8KiB"]`) expands into phases.
pub struct Matrix {
    /// The short label of the key in the names and labels of expanded phases (`bs`).
    pub label: &'static str,
    /// Position in the expansion order: the listed keys of a phase combine in this order, the lowest varying
    /// slowest.
    pub order: u8,
    /// The phase's list for the key; `None` when the phase gives no list.
    pub list: ListOf<PhaseSpec>,
    /// For a key a `[[sweep]]` may sweep: the sweep's list for the key; `None` when the sweep does not
    /// sweep the key.
    pub sweep: Option<ListOf<SweepSpec>>,
}

/// Reads the list a phase or sweep gives for a key, one setting per value.
pub type ListOf<T> = fn(&T) -> Option<Vec<Setting>>;

/// Gives `own` the default when it is not set.
fn inherit<T: Clone>(own: &mut Option<T>, default: &Option<T>) {
    if own.is_none() {
        own.clone_from(default);
    }
}

/// Gives `own` the default, as a single value, when it is not set.
fn inherit_one<T: Clone>(own: &mut Option<Vary<T>>, default: &Option<T>) {
    if own.is_none() {
        *own = default.clone().map(Vary::One);
    }
}

/// A row that `--set` may change, `[defaults]` cannot hold and that takes no list; the rows that differ
/// say so: `Key { inherit: ..., ..key(...) }`.
const fn key(
    name: &'static str,
    kinds: Kinds,
    default: &'static str,
    is_set: fn(&PhaseSpec) -> bool,
) -> Key {
    Key {
        name,
        kinds,
        default,
        settable: true,
        is_set,
        inherit: None,
        matrix: None,
        list: false,
    }
}

/// Every phase key, in documentation order (the order of `docs/spec.md` and of the key lists in messages).
pub const KEYS: &[Key] = &[
    key("name", ALL, "— (required)", |_| true),
    key("kind", ALL, "— (required)", |_| true),
    key("description", ALL, "none", |p| p.description.is_some()),
    Key {
        inherit: Some(|p, d| inherit_one(&mut p.span, &d.span)),
        matrix: Some(Matrix {
            label: "span",
            order: 6,
            list: |p| list(&p.span, |q, v| q.span = v),
            sweep: Some(|s| swept(&s.span, |q, v| q.span = v)),
        }),
        ..key(
            "span",
            ALL,
            "the rest of the target from `offset` (all of it when `offset` is 0)",
            |p| p.span.is_some(),
        )
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.offset, &d.offset)),
        ..key("offset", ALL, "`0`", |p| p.offset.is_some())
    },
    key("method", ERASE, "`\"auto\"`", |p| p.method.is_some()),
    Key {
        inherit: Some(|p, d| inherit_one(&mut p.engine, &d.engine)),
        matrix: Some(Matrix {
            label: "engine",
            order: 5,
            list: |p| list(&p.engine, |q, v| q.engine = v),
            sweep: Some(|s| swept(&s.engine, |q, v| q.engine = v)),
        }),
        ..key("engine", IO, "`\"psync\"`", |p| p.engine.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.direct, &d.direct)),
        ..key("direct", IO, "`true`", |p| p.direct.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.seed, &d.seed)),
        ..key("seed", SEEDED, "`1`", |p| p.seed.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit_one(&mut p.block_size, &d.block_size)),
        matrix: Some(Matrix {
            label: "bs",
            order: 0,
            list: |p| list(&p.block_size, |q, v| q.block_size = v),
            sweep: Some(|s| swept(&s.block_size, |q, v| q.block_size = v)),
        }),
        ..key(
            "block_size",
            IO,
            "fill `\"128KiB\"`, restore-image `\"1MiB\"`, workload `\"4KiB\"`, verify `\"128KiB\"`",
            |p| p.block_size.is_some(),
        )
    },
    Key {
        inherit: Some(|p, d| inherit_one(&mut p.queue_depth, &d.queue_depth)),
        matrix: Some(Matrix {
            label: "qd",
            order: 2,
            list: |p| list(&p.queue_depth, |q, v| q.queue_depth = v),
            sweep: Some(|s| swept(&s.queue_depth, |q, v| q.queue_depth = v)),
        }),
        ..key("queue_depth", IO, "`1`", |p| p.queue_depth.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.workers, &d.workers)),
        ..key("workers", SEEDED, "`1`", |p| p.workers.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.workers_split, &d.workers_split)),
        ..key("workers_split", SEEDED, "`\"partitioned\"`", |p| {
            p.workers_split.is_some()
        })
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.interval, &d.interval)),
        ..key("interval", IO, "`\"1s\"`", |p| p.interval.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.on_error, &d.on_error)),
        ..key("on_error", IO, "`\"stop\"`", |p| p.on_error.is_some())
    },
    Key {
        inherit: Some(|p, d| inherit(&mut p.completion_waits, &d.completion_waits)),
        ..key("completion_waits", IO, "`\"probe\"`", |p| {
            p.completion_waits.is_some()
        })
    },
    Key {
        inherit: Some(|p, d| inherit_one(&mut p.data, &d.data)),
        matrix: Some(Matrix {
            label: "data",
            order: 3,
            list: |p| list(&p.data, |q, v| q.data = v),
            sweep: Some(|s| swept(&s.data, |q, v| q.data = v)),
        }),
        ..key("data", WRITERS, "`\"random\"`", |p| p.data.is_some())
    },
    key("passes", FILL, "`1` (when `size` is not set either)", |p| {
        p.passes.is_some()
    }),
    key("image", RESTORE, "— (required)", |p| p.image.is_some()),
    key(
        "image_size",
        RESTORE,
        "`\"256MiB\"`, capped at the span",
        |p| p.image_size.is_some(),
    ),
    Key {
        matrix: Some(Matrix {
            label: "pattern",
            order: 4,
            list: |p| list(&p.pattern, |q, v| q.pattern = v),
            sweep: None,
        }),
        ..key(
            "pattern",
            WRITERS,
            "workload `\"random\"`, fill `\"sequential\"`",
            |p| p.pattern.is_some(),
        )
    },
    key(
        "coverage",
        WRITERS,
        "fill `\"full\"`, workload `\"uniform\"`",
        |p| p.coverage.is_some(),
    ),
    Key {
        matrix: Some(Matrix {
            label: "read",
            order: 1,
            list: |p| list(&p.read_percent, |q, v| q.read_percent = v),
            sweep: Some(|s| swept(&s.read_percent, |q, v| q.read_percent = v)),
        }),
        ..key("read_percent", WORKLOAD, "— (required)", |p| {
            p.read_percent.is_some()
        })
    },
    key("rate_iops", WORKLOAD, "no cap", |p| p.rate_iops.is_some()),
    key("ramp", WORKLOAD, "none", |p| p.ramp.is_some()),
    key("steady_state", WORKLOAD, "none", |p| {
        p.steady_state.is_some()
    }),
    key("steady_leave", WORKLOAD, "none", |p| {
        p.steady_leave.is_some()
    }),
    key(
        "steady_after",
        WORKLOAD,
        "none (judged from the first round)",
        |p| p.steady_after.is_some(),
    ),
    key("steady_round", WORKLOAD, "one interval", |p| {
        p.steady_round.is_some()
    }),
    key("until", WORKLOAD, "`\"bound\"`", |p| p.until.is_some()),
    Key {
        list: true,
        ..key("windows", WORKLOAD, "none", |p| p.windows.is_some())
    },
    key("aggregate", WORKLOAD, "none", |p| p.aggregate.is_some()),
    Key {
        list: true,
        ..key(
            "headline",
            WORKLOAD,
            "`\"steady\"` with `steady_state`, then `\"windows\"` with `windows`; else `\"mean\"`",
            |p| p.headline.is_some(),
        )
    },
    key(
        "duration",
        WORKLOAD,
        "— (a workload needs `duration` or `size`)",
        |p| p.duration.is_some(),
    ),
    key(
        "size",
        WRITERS,
        "fill: none (then `passes`); workload: —",
        |p| p.size.is_some(),
    ),
    key("verify", WRITERS, "`false`", |p| p.verify.is_some()),
    key("expect", VERIFY, "`\"last-writer\"`", |p| {
        p.expect.is_some()
    }),
    key("max_listed", VERIFY, "`10`", |p| p.max_listed.is_some()),
];

/// A fio option a spec may carry over from a fio job file, and what it is in wkrun. wkrun accepts none of
/// them (it has one name per key); an unknown key that is one of these gets [`FioKey::hint`] instead of
/// "did you mean" (in a spec, `validate` and `--set`).
pub struct FioKey {
    /// The fio option's name.
    pub fio: &'static str,
    /// One line: the wkrun key (or what wkrun does instead).
    pub hint: &'static str,
    /// Common fio values and the wkrun setting each is (`("randrw", "pattern = \"random\", ...")`).
    pub values: &'static [(&'static str, &'static str)],
}

/// A row of [`FIO_KEYS`] with no value mapping.
const fn fio(fio: &'static str, hint: &'static str) -> FioKey {
    FioKey {
        fio,
        hint,
        values: &[],
    }
}

/// The fio engines and the wkrun engine each is.
const FIO_ENGINES: &[(&str, &str)] = &[
    ("libaio", "engine = \"libaio\""),
    ("io_uring", "engine = \"io_uring\""),
    ("psync", "engine = \"psync\""),
    ("pvsync", "engine = \"psync\""),
    ("pvsync2", "engine = \"psync\""),
    ("sync", "engine = \"psync\""),
    ("null", "engine = \"null\""),
];

/// fio's `rw` values and the wkrun keys each is (fio's default `rwmixread` is 50).
const FIO_RW: &[(&str, &str)] = &[
    ("read", "pattern = \"sequential\", read_percent = 100"),
    ("write", "pattern = \"sequential\", read_percent = 0"),
    ("randread", "pattern = \"random\", read_percent = 100"),
    ("randwrite", "pattern = \"random\", read_percent = 0"),
    ("rw", "pattern = \"sequential\", read_percent = 50"),
    ("readwrite", "pattern = \"sequential\", read_percent = 50"),
    ("randrw", "pattern = \"random\", read_percent = 50"),
];

/// fio options and their wkrun equivalents, by fio name (one line each). The names are none of [`KEYS`]
/// (a test checks it); fio options that wkrun spells the same (`size`, `offset`, `rate_iops`, `direct`,
/// `verify`) are wkrun keys, whose fio-style values get [`fio_value_hint`].
pub const FIO_KEYS: &[FioKey] = &[
    FioKey {
        values: FIO_RW,
        ..fio("rw", "`rw` is `pattern` and `read_percent` in wkrun")
    },
    FioKey {
        values: FIO_RW,
        ..fio(
            "readwrite",
            "`readwrite` is `pattern` and `read_percent` in wkrun",
        )
    },
    fio("rwmixread", "`rwmixread` is `read_percent` in wkrun"),
    fio(
        "rwmixwrite",
        "`rwmixwrite` is 100 - `read_percent` in wkrun (rwmixwrite = 30 is read_percent = 70)",
    ),
    fio("bs", "`bs` is `block_size` in wkrun"),
    fio("blocksize", "`blocksize` is `block_size` in wkrun"),
    fio(
        "bssplit",
        "`bssplit` is a `block_size` table in wkrun: block_size = { \"4KiB\" = 60, \"64KiB\" = 40 }",
    ),
    fio("iodepth", "`iodepth` is `queue_depth` in wkrun"),
    fio(
        "iodepth_batch_complete_min",
        "`iodepth_batch_complete_min` has no wkrun key: an io_uring phase waits per completion, or for every I/O in flight with a 20 µs minimum wait where a probe at its start finds that faster (completion_waits = \"probe\", the default; \"each\" turns it off)",
    ),
    fio(
        "runtime",
        "`runtime` is `duration` in wkrun, with its unit (\"60s\")",
    ),
    fio(
        "time_based",
        "`time_based` is what `duration` does in wkrun: a workload with a duration runs for all of it",
    ),
    fio("io_size", "`io_size` is `size` in wkrun"),
    fio(
        "numjobs",
        "`numjobs` is `workers` in wkrun; fio gives every job the whole file, wkrun gives each worker its own part of the span by default (the same uniform spread over the span in all, with exact byte ranges); `workers_split = \"shared\"` gives each worker the whole span, as fio does (random workloads only)",
    ),
    FioKey {
        values: FIO_ENGINES,
        ..fio("ioengine", "`ioengine` is `engine` in wkrun")
    },
    fio("ramp_time", "`ramp_time` is `ramp` in wkrun"),
    fio("randseed", "`randseed` is `seed` in wkrun"),
    fio(
        "randrepeat",
        "wkrun has no `randrepeat`: offsets and data are always the same for the same `seed`",
    ),
    fio(
        "norandommap",
        "wkrun has no `norandommap`: random offsets are drawn with replacement unless coverage = \"full\" (fio's random map)",
    ),
    fio(
        "random_generator",
        "wkrun has no `random_generator`: it has one generator (PCG-64), which `seed` starts",
    ),
    fio(
        "filename",
        "`filename` is the target in wkrun: [target] path = \"...\" or --target PATH (several files, like filename=a:b: [target] paths = [...] or --target repeated)",
    ),
    fio(
        "nrfiles",
        "wkrun has no `nrfiles`: name each file, [target] paths = [...] or --target repeated (each target runs the whole phase)",
    ),
    fio(
        "offset_increment",
        "wkrun has no `offset_increment`: with `workers`, workers_split = \"partitioned\" (the default) gives each worker its own contiguous part of the span",
    ),
    fio(
        "group_reporting",
        "wkrun has no `group_reporting`: a phase's results always sum its workers, with each worker's counts in phases[].workers",
    ),
    fio(
        "log_avg_msec",
        "`log_avg_msec` is `interval` in wkrun (\"1s\"; every I/O phase writes its series CSV)",
    ),
    fio(
        "buffer_compress_percentage",
        "`buffer_compress_percentage` is data = \"compressible:N%\" in wkrun",
    ),
    fio(
        "zero_buffers",
        "`zero_buffers` is data = \"zeros\" in wkrun",
    ),
    fio("loops", "`loops` is `passes` (of a fill) in wkrun"),
    fio(
        "steadystate",
        "`steadystate` is `steady_state` in wkrun: { rule = \"fio\", metric = \"iops\", kind = \"slope\", limit = 0.1 }",
    ),
    fio(
        "kb_base",
        "wkrun has no `kb_base`: KiB, MiB, k, M are binary and KB, MB decimal (block sizes refuse decimal units)",
    ),
    fio(
        "stonewall",
        "wkrun has no `stonewall`: phases always run one after another, as fio jobs separated by stonewall do; jobs fio runs at once are one phase's `workers` (copies of one job) or --target repeated (one job per file)",
    ),
    fio(
        "buffered",
        "`buffered` is the opposite of `direct` in wkrun: buffered = 1 is direct = false",
    ),
    fio(
        "thread",
        "wkrun has no `thread`: every worker is a thread of the one wkrun process",
    ),
    fio(
        "rate",
        "wkrun has no `rate` (a bandwidth cap): cap the I/Os with `rate_iops` (4 MiB/s in 4 KiB blocks is rate_iops = 1024)",
    ),
    fio(
        "random_distribution",
        "wkrun has no `random_distribution`: random offsets are uniform over the span (coverage = \"uniform\"), or each block once (coverage = \"full\")",
    ),
    fio(
        "percentile_list",
        "wkrun has no `percentile_list`: results give p50, p90, p99, p99.9 and p99.99, and the latency histograms for any other",
    ),
    fio(
        "write_iops_log",
        "wkrun has no `write_iops_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    fio(
        "write_bw_log",
        "wkrun has no `write_bw_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    fio(
        "write_lat_log",
        "wkrun has no `write_lat_log`: every I/O phase writes its series CSV (IOPS, bandwidth and latency per `interval`)",
    ),
    fio("global", "fio's [global] is [defaults] in wkrun"),
];

/// The fio option `name`, if it is one wkrun names differently.
pub fn fio_key(name: &str) -> Option<&'static FioKey> {
    FIO_KEYS.iter().find(|k| k.fio == name)
}

/// The line telling a fio user what `name` (with the string `value`, if known) is in wkrun:
/// `` `iodepth` is `queue_depth` in wkrun ``, `` `ioengine` is `engine` in wkrun: ioengine = "sync" is
/// engine = "psync" ``.
pub fn fio_hint(name: &str, value: Option<&str>) -> Option<String> {
    let k = fio_key(name)?;
    let setting = value.and_then(|v| k.values.iter().find(|(f, _)| *f == v));
    Some(match setting {
        Some((v, w)) => format!("{}: {name} = \"{v}\" is {w}", k.hint),
        None => k.hint.to_string(),
    })
}

/// For a wkrun key that fio spells the same, help for a fio-style value, given as written in the file
/// (`raw`, quotes included): `direct = 1`, `verify = "crc32c"`, `engine = "sync"`.
pub fn fio_value_hint(key: &str, raw: &str) -> Option<String> {
    let quoted = raw.starts_with(['"', '\'']);
    let text = raw.trim_matches(['"', '\'']);
    match key {
        "direct" if raw == "1" || raw == "0" => Some(format!(
            "fio's direct={raw} is direct = {} in wkrun",
            raw == "1"
        )),
        "verify" if quoted => Some(format!(
            "fio's verify={text} is verify = true in wkrun (every sector written is stamped with a checksum)"
        )),
        "engine" => FIO_ENGINES
            .iter()
            .find(|(f, _)| *f == text)
            .map(|(_, w)| format!("fio's {text} engine is {w} in wkrun")),
        _ => None,
    }
}

/// The row of a key, by name.
pub fn find(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// The keys that may be given a list, in expansion order.
pub fn matrix_keys() -> Vec<(&'static Key, &'static Matrix)> {
    let mut keys: Vec<_> = KEYS
        .iter()
        .filter_map(|k| Some((k, k.matrix.as_ref()?)))
        .collect();
    keys.sort_by_key(|(_, m)| m.order);
    keys
}

/// The phase `p` as it runs: with the `[defaults]` value of every key that `d` sets, `p`'s kind accepts and
/// `p` does not set itself.
pub fn with_defaults(p: &PhaseSpec, d: &Defaults) -> PhaseSpec {
    let mut q = p.clone();
    for key in KEYS.iter().filter(|k| k.kinds.has(p.kind)) {
        if let Some(inherit) = key.inherit {
            inherit(&mut q, d);
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpecFile;
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// A value for every key but `name` and `kind`, as TOML.
    const SAMPLES: &[(&str, &str)] = &[
        ("description", "\"d\""),
        ("span", "\"50%\""),
        ("offset", "\"10%\""),
        ("method", "\"discard\""),
        ("engine", "\"null\""),
        ("direct", "false"),
        ("seed", "9"),
        ("block_size", "\"8KiB\""),
        ("queue_depth", "4"),
        ("workers", "2"),
        ("workers_split", "\"shared\""),
        ("interval", "\"2s\""),
        ("on_error", "\"continue\""),
        ("completion_waits", "\"each\""),
        ("data", "\"zeros\""),
        ("passes", "2"),
        ("image", "\"synthetic\""),
        ("image_size", "\"1MiB\""),
        ("pattern", "\"sequential\""),
        ("coverage", "\"full\""),
        ("read_percent", "65"),
        ("rate_iops", "100"),
        ("ramp", "\"1s\""),
        ("steady_state", "{ rule = \"snia\" }"),
        ("steady_leave", "{ drop = 0.2 }"),
        ("steady_after", "{ written = \"200%\" }"),
        ("steady_round", "\"1m\""),
        ("until", "\"steady\""),
        ("windows", "[\"last 20m\"]"),
        ("aggregate", "\"1m\""),
        ("headline", "[\"worst\", \"fill_once\"]"),
        ("duration", "\"1s\""),
        ("size", "\"1MiB\""),
        ("verify", "true"),
        ("expect", "\"header\""),
        ("max_listed", "3"),
    ];

    fn sample(key: &str) -> &'static str {
        SAMPLES
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("no sample value for `{key}`"))
    }

    fn phase(kind: PhaseKind, keys: &[&str]) -> PhaseSpec {
        let mut text = format!("name = \"p\"\nkind = \"{}\"\n", kind.as_str());
        for k in keys {
            text += &format!("{k} = {}\n", sample(k));
        }
        toml::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn names(keys: impl Iterator<Item = &'static Key>) -> Vec<&'static str> {
        keys.map(|k| k.name).collect()
    }

    fn schema_defs() -> Value {
        let schema = serde_json::to_value(schemars::schema_for!(SpecFile)).expect("schema");
        schema["$defs"].clone()
    }

    fn properties(def: &Value) -> BTreeSet<String> {
        def["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect()
    }

    #[test]
    fn one_row_per_phase_field() {
        let fields = properties(&schema_defs()["PhaseSpec"]);
        let rows = names(KEYS.iter());
        let unique: BTreeSet<String> = rows.iter().map(|k| k.to_string()).collect();
        assert_eq!(unique.len(), rows.len(), "a key has two rows");
        assert_eq!(fields, unique, "PhaseSpec fields vs KEYS rows");
    }

    #[test]
    fn defaults_fields_are_the_inherited_keys() {
        let fields = properties(&schema_defs()["Defaults"]);
        let rows: BTreeSet<String> = KEYS
            .iter()
            .filter(|k| k.inherit.is_some())
            .map(|k| k.name.to_string())
            .collect();
        assert_eq!(fields, rows, "Defaults fields vs rows with `inherit`");
    }

    #[test]
    fn matrix_rows_are_the_list_fields() {
        let defs = schema_defs();
        // A key takes a list when its schema is a `Vary_*` (one value or a list).
        let vary: BTreeSet<String> = defs["PhaseSpec"]["properties"]
            .as_object()
            .expect("properties")
            .iter()
            .filter(|(_, s)| s.to_string().contains("\"#/$defs/Vary_"))
            .map(|(k, _)| k.clone())
            .collect();
        let rows: BTreeSet<String> = KEYS
            .iter()
            .filter(|k| k.matrix.is_some())
            .map(|k| k.name.to_string())
            .collect();
        assert_eq!(vary, rows, "Vary fields of PhaseSpec vs rows with `matrix`");
        let mut sweep = properties(&defs["SweepSpec"]);
        sweep.remove("name");
        sweep.remove("phases");
        let rows: BTreeSet<String> = KEYS
            .iter()
            .filter(|k| k.matrix.as_ref().is_some_and(|m| m.sweep.is_some()))
            .map(|k| k.name.to_string())
            .collect();
        assert_eq!(sweep, rows, "SweepSpec keys vs rows with `matrix.sweep`");
        let mut orders: Vec<u8> = KEYS
            .iter()
            .filter_map(|k| Some(k.matrix.as_ref()?.order))
            .collect();
        orders.sort_unstable();
        assert_eq!(orders, (0..orders.len() as u8).collect::<Vec<_>>());
    }

    /// Each row's `is_set` reads its own field: a phase that sets only that key is seen to set it and no other.
    #[test]
    fn is_set_reads_its_own_field() {
        for key in &KEYS[2..] {
            let p = phase(PhaseKind::Workload, &[key.name]);
            let set = names(KEYS.iter().filter(|k| (k.is_set)(&p)));
            assert_eq!(set, ["name", "kind", key.name]);
        }
        let p = phase(PhaseKind::Workload, &[]);
        assert_eq!(
            names(KEYS.iter().filter(|k| (k.is_set)(&p))),
            ["name", "kind"]
        );
    }

    /// `with_defaults` gives a phase the `[defaults]` value of each key its kind accepts and it does not set,
    /// in the field of the same name; a phase's own value wins.
    #[test]
    fn with_defaults_inherits_what_the_kind_accepts() {
        let inherited: Vec<&str> = names(KEYS.iter().filter(|k| k.inherit.is_some()));
        let text: String = inherited
            .iter()
            .map(|k| format!("{k} = {}\n", sample(k)))
            .collect();
        let d: Defaults = toml::from_str(&text).expect("defaults");
        let dj = serde_json::to_value(&d).expect("json");
        for kind in PHASE_KINDS {
            let q = serde_json::to_value(with_defaults(&phase(kind, &[]), &d)).expect("json");
            for key in KEYS.iter().filter(|k| k.inherit.is_some()) {
                let want = if key.kinds.has(kind) {
                    &dj[key.name]
                } else {
                    &Value::Null
                };
                assert_eq!(&q[key.name], want, "{kind:?}.{}", key.name);
            }
            let own = phase(
                PhaseKind::Workload,
                &["span", "engine", "block_size", "queue_depth", "data"],
            );
            let mut other = Defaults {
                engine: Some(super::super::Engine::Psync),
                ..d.clone()
            };
            other.queue_depth = Some(16);
            let q = with_defaults(&own, &other);
            for k in ["span", "engine", "block_size", "queue_depth", "data"] {
                let (a, b) = (serde_json::to_value(&q), serde_json::to_value(&own));
                assert_eq!(a.expect("json")[k], b.expect("json")[k], "{k}");
            }
        }
    }

    /// Every matrix key expands a list into one phase per value, with its label; every sweepable key too.
    #[test]
    fn matrix_and_sweep_keys_expand() {
        for (key, m) in matrix_keys() {
            let list = format!("[{0}, {0}]", sample(key.name));
            let head = "format = 1\n[spec]\nname = \"t\"\nversion = \"1\"\n";
            let phase = "[[phase]]\nname = \"p\"\nkind = \"workload\"\n";
            let text = format!("{head}{phase}{} = {list}\n", key.name);
            let spec: SpecFile = toml::from_str(&text).expect("matrix spec");
            let out = super::super::expand::expand(&spec).expect("expands");
            assert_eq!(out.len(), 2, "{}", key.name);
            for p in &out {
                assert_eq!(p.labels[0].key, m.label);
                assert!((key.is_set)(p));
                assert!((m.list)(p).is_none(), "{} still a list", key.name);
            }
            if m.sweep.is_some() {
                let text = format!(
                    "{head}{phase}[[sweep]]\nname = \"s\"\nphases = [\"p\"]\n{} = {list}\n",
                    key.name
                );
                let spec: SpecFile = toml::from_str(&text).expect("sweep spec");
                let out = super::super::expand::expand(&spec).expect("expands");
                assert_eq!(out.len(), 2, "{}", key.name);
                assert!(
                    out.iter()
                        .all(|p| (key.is_set)(p) && p.labels[0].key == m.label)
                );
            }
        }
    }

    /// The backquoted words of a text, in order.
    fn quoted(text: &str) -> Vec<&str> {
        text.split('`').skip(1).step_by(2).collect()
    }

    /// The cells of the table rows (`| ... |` lines whose first cell is a backquoted key) under `heading`.
    fn table_rows<'a>(doc: &'a str, heading: &str) -> Vec<Vec<&'a str>> {
        let section = doc.split(heading).nth(1).expect("heading");
        let section = section.split("\n#").next().unwrap_or(section);
        section
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
            .collect()
    }

    /// The paragraph or list item that starts with `start`.
    fn paragraph_after<'a>(doc: &'a str, start: &str) -> &'a str {
        let rest = &doc[doc.find(start).expect(start)..];
        let end = ["\n\n", "\n- "]
            .iter()
            .filter_map(|e| rest.find(e))
            .min()
            .unwrap_or(rest.len());
        &rest[..end]
    }

    /// fio names are none of wkrun's keys, appear once, and each hint is one line naming the fio option.
    #[test]
    fn fio_keys_are_not_wkrun_keys() {
        let mut seen = BTreeSet::new();
        for k in FIO_KEYS {
            assert!(find(k.fio).is_none(), "`{}` is a wkrun key", k.fio);
            assert!(seen.insert(k.fio), "`{}` twice", k.fio);
            assert!(!k.hint.contains('\n'), "{}", k.hint);
            assert!(k.hint.contains(&format!("`{}`", k.fio)) || k.fio == "global");
        }
        assert_eq!(
            fio_hint("ioengine", Some("pvsync")).as_deref(),
            Some("`ioengine` is `engine` in wkrun: ioengine = \"pvsync\" is engine = \"psync\"")
        );
        assert_eq!(
            fio_hint("iodepth", Some("32")).as_deref(),
            Some("`iodepth` is `queue_depth` in wkrun")
        );
        assert_eq!(fio_hint("queue_depth", None), None);
        assert_eq!(
            fio_value_hint("direct", "0").as_deref(),
            Some("fio's direct=0 is direct = false in wkrun")
        );
        assert_eq!(fio_value_hint("direct", "true"), None);
        assert_eq!(fio_value_hint("engine", "\"foo\""), None);
    }

    /// docs/spec.md's key tables and lists say what the table says.
    #[test]
    fn docs_agree_with_the_table() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/spec.md"))
            .expect("docs/spec.md");
        let by_kind = table_rows(&doc, "### Keys by kind");
        let reference = table_rows(&doc, "### Key reference");
        assert_eq!(by_kind.len(), KEYS.len(), "rows of \"Keys by kind\"");
        assert_eq!(reference.len(), KEYS.len(), "rows of \"Key reference\"");
        for ((key, row), ref_row) in KEYS.iter().zip(&by_kind).zip(&reference) {
            assert_eq!(row[0], format!("`{}`", key.name), "Keys by kind order");
            assert_eq!(ref_row[0], row[0], "Key reference order");
            for (kind, cell) in PHASE_KINDS.iter().zip(&row[1..6]) {
                assert_eq!(
                    !cell.is_empty(),
                    key.kinds.has(*kind),
                    "{} {kind:?}",
                    key.name
                );
            }
            assert_eq!(row[6] == "✓", key.matrix.is_some(), "{} list", key.name);
            assert_eq!(ref_row[3], key.default, "{} default", key.name);
        }
        let held = paragraph_after(&doc, "`[defaults]` holds values");
        // The list ends with "cannot appear in `[defaults]`".
        let refused = paragraph_after(&doc, "- Keys that only make sense per phase");
        let set = |v: &[&str]| {
            v.iter()
                .map(|k| k.to_string())
                .collect::<BTreeSet<String>>()
        };
        assert_eq!(
            set(&quoted(held)[1..]),
            set(&names(KEYS.iter().filter(|k| k.inherit.is_some()))),
            "keys [defaults] holds"
        );
        assert_eq!(
            set(&quoted(refused)[..quoted(refused).len() - 1]),
            set(&names(KEYS.iter().filter(|k| k.inherit.is_none()))),
            "keys [defaults] cannot hold"
        );
        let order = paragraph_after(&doc, "- **Order.**");
        let labels = paragraph_after(&doc, "- **Names.**");
        let matrix = matrix_keys();
        assert_eq!(quoted(order), names(matrix.iter().map(|(k, _)| *k)));
        assert_eq!(
            quoted(labels)[1..=matrix.len()],
            matrix.iter().map(|(_, m)| m.label).collect::<Vec<_>>()
        );
        let swept = paragraph_after(&doc, "| exactly one of");
        let swept = quoted(swept.split(" | ").next().unwrap_or(""));
        assert_eq!(
            set(&swept),
            set(&names(KEYS.iter().filter(|k| {
                k.matrix.as_ref().is_some_and(|m| m.sweep.is_some())
            }))),
            "keys a sweep may sweep"
        );
    }
}
