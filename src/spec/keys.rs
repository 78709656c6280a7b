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
/// The fio option names and what each is in wkrun: [`super::fio`], read by the unknown-key help.
pub use super::fio::{FIO_KEYS, FioKey, fio_hint, fio_key, fio_value_hint};
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
    Key {
        settable: false,
        ..key("kind", ALL, "— (required)", |_| true)
    },
    key("description", ALL, "none", |p| p.description.is_some()),
    Key {
        settable: false,
        ..key("imported_from", ALL, "none", |p| p.imported_from.is_some())
    },
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
    key("zone_mode", WRITERS, "`\"none\"`", |p| {
        p.zone_mode.is_some()
    }),
    key("sync", WRITERS, "`\"none\"`", |p| p.sync.is_some()),
    key("fsync", WRITERS, "none", |p| p.fsync.is_some()),
    key("fdatasync", WRITERS, "none", |p| p.fdatasync.is_some()),
    key("polled", IO, "`false`", |p| p.polled.is_some()),
    key("sq_poll", IO, "`false`", |p| p.sq_poll.is_some()),
    key("trace", IO, "no trace", |p| p.trace.is_some()),
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
    key("distribution", WORKLOAD, "`\"uniform\"`", |p| {
        p.distribution.is_some()
    }),
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
    key("trim_percent", WORKLOAD, "`0`", |p| {
        p.trim_percent.is_some()
    }),
    key("rate_iops", WORKLOAD, "no cap", |p| p.rate_iops.is_some()),
    key("rate_process", WORKLOAD, "`\"linear\"`", |p| {
        p.rate_process.is_some()
    }),
    key("think_time", WORKLOAD, "none", |p| p.think_time.is_some()),
    key("think_every", WORKLOAD, "`1`", |p| p.think_every.is_some()),
    key("latency_target", WORKLOAD, "none", |p| {
        p.latency_target.is_some()
    }),
    key("latency_percentile", WORKLOAD, "`99`", |p| {
        p.latency_percentile.is_some()
    }),
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
        ("imported_from", "\"a.fio:3 [j]\""),
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
        ("zone_mode", "\"zbd\""),
        ("sync", "\"dsync\""),
        ("fsync", "8"),
        ("fdatasync", "8"),
        ("polled", "true"),
        ("sq_poll", "true"),
        ("trace", "1000"),
        ("passes", "2"),
        ("image", "\"synthetic\""),
        ("image_size", "\"1MiB\""),
        ("pattern", "\"sequential\""),
        ("coverage", "\"full\""),
        ("distribution", "\"zipf:1.2\""),
        ("read_percent", "65"),
        ("trim_percent", "20"),
        ("rate_iops", "100"),
        ("rate_process", "\"poisson\""),
        ("think_time", "\"100us\""),
        ("think_every", "100"),
        ("latency_target", "\"500us\""),
        ("latency_percentile", "99.9"),
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

    /// A second value of each matrix key, other than its [`SAMPLES`] value.
    const OTHER: &[(&str, &str)] = &[
        ("span", "\"25%\""),
        ("engine", "\"psync\""),
        ("block_size", "\"4KiB\""),
        ("queue_depth", "8"),
        ("data", "\"random\""),
        ("pattern", "\"random\""),
        ("read_percent", "30"),
    ];

    /// Every matrix key expands a list into one phase per value, with its label; every sweepable key too.
    /// A list holding one value twice is refused at the key (its phases would share a name).
    #[test]
    fn matrix_and_sweep_keys_expand() {
        let head = "format = 1\n[spec]\nname = \"t\"\nversion = \"1\"\n";
        let phase = "[[phase]]\nname = \"p\"\nkind = \"workload\"\n";
        let listed = |key: &str, list: &str| {
            let text = format!("{head}{phase}{key} = {list}\n");
            let spec: SpecFile = toml::from_str(&text).expect("matrix spec");
            super::super::expand::expand(&spec)
        };
        for (key, m) in matrix_keys() {
            let other = OTHER.iter().find(|(k, _)| *k == key.name).expect("other").1;
            let one = sample(key.name);
            let e = listed(key.name, &format!("[{one}, {one}]")).expect_err("a value twice");
            let v = one.trim_matches('"');
            assert_eq!(
                (e.path, e.message),
                (
                    format!("phase[0].{}", key.name),
                    format!(
                        "the {} list holds {v} twice: each value of a list makes phases of its own, named by the value ({}={v}), so two would share a name; list each value once",
                        key.name, m.label
                    )
                )
            );
            let list = format!("[{one}, {other}]");
            let out = listed(key.name, &list).expect("expands");
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
