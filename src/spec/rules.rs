//! Semantic rules a spec must satisfy before any target is looked at: which keys apply to which phase kind,
//! ranges of values, required keys, unique names. Rules that need the target's geometry (capacity, logical
//! block size, erase support) live in the plan.

use super::keys::KEYS;
use super::{BlockSize, Defaults, One, PhaseKind, PhaseSpec, SpecFile};
use crate::stats::DEFAULT_INTERVAL_NS;
use crate::units::{Amount, Duration, Percent};
use crate::vocab::{Coverage, Expect, Pattern, WorkersSplit};
use std::collections::HashMap;

/// Largest queue depth accepted.
pub const MAX_QUEUE_DEPTH: u32 = 1024;
/// Most workers of a phase.
pub const MAX_WORKERS: u32 = 256;
/// Largest block size accepted: 128 MiB (Linux moves at most about 2 GiB per read or write call).
pub const MAX_BLOCK_SIZE: u64 = 128 << 20;
/// Shortest series interval accepted: 1 ms.
pub const MIN_INTERVAL_NS: u64 = 1_000_000;
/// Most passes a fill may make.
pub const MAX_PASSES: i64 = 10_000;

/// The keys a phase of `kind` may set (besides these, a key is refused), in documentation order.
pub fn keys_for(kind: PhaseKind) -> Vec<&'static str> {
    KEYS.iter()
        .filter(|k| k.kinds.has(kind))
        .map(|k| k.name)
        .collect()
}

/// A broken rule: the field path it concerns (`phase[2].queue_depth`), the phase index, what and how to fix.
#[derive(Debug, Clone)]
pub struct RuleError {
    /// Field path in the spec's source, e.g. `phase[2].span` or `defaults.queue_depth`.
    pub path: String,
    /// Index of the phase concerned, if any.
    pub phase: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// Whether a resource limit (the address space left, memory) refused the spec rather than a broken
    /// rule: exit 1, not 2.
    pub limit: bool,
    /// Other keys of the phase whose values take part in the broken rule (`duration` in an interval
    /// count): when a `--set` gave one of them its value, the error names that `--set`.
    pub also: &'static [&'static str],
}

fn err(
    path: String,
    phase: Option<usize>,
    message: impl Into<String>,
    help: Option<&str>,
) -> RuleError {
    RuleError {
        path,
        phase,
        message: message.into(),
        help: help.map(str::to_string),
        limit: false,
        also: &[],
    }
}

/// Where a rule is checked: the table (`defaults`, or `phase[N]` with N the `[[phase]]` the phase came from)
/// and the index of the (expanded) phase.
struct At {
    table: String,
    phase: Option<usize>,
}

impl At {
    /// An error about the table's `key`.
    fn key(&self, key: &str, message: impl Into<String>, help: Option<&str>) -> RuleError {
        err(format!("{}.{key}", self.table), self.phase, message, help)
    }

    /// [`At::key`] for a rule the values of the keys `also` take part in.
    fn key_of(
        &self,
        key: &str,
        also: &'static [&'static str],
        message: impl Into<String>,
        help: Option<&str>,
    ) -> RuleError {
        RuleError {
            also,
            ..self.key(key, message, help)
        }
    }

    /// An error about the table as a whole (a missing key).
    fn table(&self, message: impl Into<String>, help: Option<&str>) -> RuleError {
        err(self.table.clone(), self.phase, message, help)
    }
}

/// The longest name of a spec or phase, bytes (it names a folder or a file, with a prefix and a suffix).
pub const MAX_NAME: usize = 120;

/// Whether a name is safe in a file name: ASCII letters, digits, `-`, `_`, `.`, `[`, `]`, `=`, `,`, `%`,
/// `:`, `+` (the last six appear in expanded names), not starting with `.`, at most [`MAX_NAME`] bytes.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.[]=,%:+".contains(c))
}

/// What is wrong with a name [`valid_name`] refuses, and the way out, for `what` it names (`the output
/// folder`, `the phase's CSV file`).
pub fn name_help(name: &str, what: &str) -> String {
    if name.len() > MAX_NAME {
        format!(
            "a name is at most {MAX_NAME} characters (it names {what}); this one has {}",
            name.len()
        )
    } else {
        format!(
            "use ASCII letters, digits and - _ . [ ] = , % : + not starting with '.' (it names {what})"
        )
    }
}

/// Checks every rule that needs no target.
///
/// # Errors
/// The first [`RuleError`] of [`check_all`].
pub fn check(spec: &SpecFile, phases: &[PhaseSpec]) -> Result<(), RuleError> {
    match check_all(spec, phases).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Every broken rule that needs no target, in file order: `[spec]` and `[target]`, `[defaults]`, then each
/// phase. Within a table, each key's range is checked (every bad one reported); rules that combine keys
/// (a phase kind's bound, steady-state keys) report the first broken one of their group.
pub fn check_all(spec: &SpecFile, phases: &[PhaseSpec]) -> Vec<RuleError> {
    let mut out = Vec::new();
    out.extend(check_spec(spec).err());
    let defaults = At {
        table: "defaults".into(),
        phase: None,
    };
    let d = spec.defaults.clone().unwrap_or_default();
    check_common(&defaults, &Common::of_defaults(&d), &mut out);
    if spec.phase.is_empty() {
        out.push(err(
            "phase".into(),
            None,
            "the spec has no [[phase]]",
            Some("add at least one [[phase]] table"),
        ));
    }
    // Each name with the index of the first phase that has it: one look-up per phase.
    let mut names = HashMap::with_capacity(phases.len());
    // The phases as they run, with their [defaults]: the workers rules read the inherited values.
    let running: Vec<PhaseSpec> = phases
        .iter()
        .map(|p| super::keys::with_defaults(p, &d))
        .collect();
    let interval = d.interval.map(|i| i.0);
    for i in 0..phases.len() {
        check_phase(phases, i, interval, &mut names, &mut out);
        let at = phase_at(phases, i);
        out.extend(check_workers_split(&at, &running[i]));
        out.extend(check_distribution(&at, &running[i]));
        out.extend(check_verified_trims(&at, &running[i]));
        out.extend(check_io_shape(&at, &running[i]));
        out.extend(check_unused_cap(&at, &running[i]));
        out.extend(check_last_writer(&at, &running, i));
        out.extend(super::latency_target::check_values(phases, i));
    }
    out.extend(super::repeat::check_tracks(spec, phases));
    out.extend(super::latency_target::check_steps(phases));
    out
}

/// Where the `i`-th (expanded) phase's errors are: at the `[[phase]]` it came from.
fn phase_at(phases: &[PhaseSpec], i: usize) -> At {
    At {
        table: format!("phase[{}]", phases[i].origin.unwrap_or(i)),
        phase: Some(i),
    }
}

/// A phase's offset order as its keys and kind give it: `pattern` (sequential but for a workload) and
/// `coverage` (full for a fill, which is meant to fill; uniform otherwise). The plan resolves the same.
pub fn pattern_and_coverage(p: &PhaseSpec) -> (Pattern, Coverage) {
    let pattern = match p.kind {
        PhaseKind::Workload => p.pattern.one().unwrap_or(Pattern::Random),
        _ => p.pattern.one().unwrap_or(Pattern::Sequential),
    };
    let coverage = match p.kind {
        PhaseKind::Fill => p.coverage.unwrap_or(Coverage::Full),
        _ => p.coverage.unwrap_or(Coverage::Uniform),
    };
    (pattern, coverage)
}

/// `workers_split = "shared"` with several workers is for random streams with uniform coverage only: a
/// phase that visits every block of its span (a fill, a sequential pattern, full coverage, a restore)
/// would visit each once per worker. `p` is the phase with its `[defaults]`.
fn check_workers_split(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let n = p.workers.filter(|n| (2..=MAX_WORKERS as i64).contains(n))?;
    if p.workers_split != Some(WorkersSplit::Shared)
        || pattern_and_coverage(p) == (Pattern::Random, Coverage::Uniform)
    {
        return None;
    }
    Some(at.key(
        "workers_split",
        format!("workers_split = \"shared\" gives each of the {n} workers its own pass over the whole span, so this phase, which visits every block (a fill, a sequential pattern or full coverage), would read or write every block {n} times"),
        Some("use workers_split = \"partitioned\" (the default)"),
    ))
}

/// A skewed `distribution` draws random offsets with replacement from its law: it has no sequential or
/// full-coverage order, and several workers must share the span (a partitioned split would repeat the law
/// inside each worker's part). `p` is the phase with its `[defaults]`.
fn check_distribution(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let d = p.distribution.as_ref().filter(|d| !d.is_uniform())?;
    let (pattern, coverage) = pattern_and_coverage(p);
    let workers = p.workers.unwrap_or(1);
    let (message, help) = if pattern != Pattern::Random {
        (
            format!("distribution = \"{d}\" skews random offsets; this phase is sequential"),
            "use pattern = \"random\", or drop distribution",
        )
    } else if coverage == Coverage::Full {
        (
            format!(
                "distribution = \"{d}\" draws offsets with replacement from its law, which has no full-coverage order (coverage = \"full\" visits every block once per pass)"
            ),
            "drop coverage, or drop distribution",
        )
    } else if workers > 1 && p.workers_split != Some(WorkersSplit::Shared) {
        (
            format!(
                "distribution = \"{d}\" with workers = {workers}: the partitioned split would repeat the distribution inside each worker's part of the span"
            ),
            "use workers_split = \"shared\" (every worker draws from the whole span)",
        )
    } else {
        return None;
    };
    Some(at.key("distribution", message, Some(help)))
}

/// Why the last writer of a block that phase `index` ("`name`", `workers` workers sharing its span, its
/// writes stamped) wrote is not known in advance: the one definition of the rule, which `validate` applies
/// where the spans surely overlap and the plan (`map_unit` in `src/plan/replay.rs`) on the resolved spans.
pub fn shared_writers_unknown(index: usize, name: &str, workers: u32) -> String {
    format!(
        "phase {index} \"{name}\" has {workers} workers sharing its span, so which of them wrote a block last is not known in advance; use workers_split = \"partitioned\", or expect = \"header\""
    )
}

/// Why the last writer of a block of phase `index` ("`name`", which writes for a time: it has a
/// `duration`, a `ramp` or both) is not known in advance, and what to change: the one definition of the
/// rule, applied like [`shared_writers_unknown`].
pub fn timed_writer_unknown(index: usize, name: &str, duration: bool, ramp: bool) -> String {
    let (what, fix) = match (duration, ramp) {
        (true, false) => ("its duration", "give it a size bound instead"),
        (false, true) => ("its ramp", "remove the ramp"),
        _ => ("its duration and ramp", "give it a size bound and no ramp"),
    };
    format!(
        "phase {index} \"{name}\" writes in this span for a time ({what}), so which blocks it wrote last is not known in advance; {fix}, or use expect = \"header\""
    )
}

/// Whether the spans of `a` and `b` overlap whatever the target: both start at its start, or at the same
/// byte offset (every span holds at least a block). Not spans that start at the same percentage (each
/// rounds it up to its own block size) or that cover the whole target or run to its end (each rounds its
/// length down to its own blocks, so a span of small blocks may lie in the other's unused tail): those
/// are judged by the plan, on the target.
fn surely_overlap(a: &PhaseSpec, b: &PhaseSpec) -> bool {
    let start = |p: &PhaseSpec| match p.offset {
        None | Some(Amount::Bytes(0) | Amount::Percent(Percent(0))) => Some(0),
        Some(Amount::Bytes(n)) => Some(n),
        Some(Amount::Percent(_)) => None,
    };
    start(a).is_some() && start(a) == start(b)
}

/// A verify phase expecting each sector's last writer after a phase that surely wrote in its span for a
/// time (a `duration` or a `ramp`), or after a stamped phase with workers sharing its span: which blocks
/// were written last, or by which worker, is not known in advance. `running` are the phases with their
/// `[defaults]`; the error is at the verify phase's `expect`.
fn check_last_writer(at: &At, running: &[PhaseSpec], i: usize) -> Option<RuleError> {
    let v = &running[i];
    if v.kind != PhaseKind::Verify || v.expect.unwrap_or(Expect::LastWriter) != Expect::LastWriter {
        return None;
    }
    let timed = running[..i].iter().enumerate().find(|(_, w)| {
        matches!(w.kind, PhaseKind::Fill | PhaseKind::Workload)
            && w.read_percent.one().map(|r| r.0) != Some(100)
            && (w.duration.is_some() || w.ramp.is_some())
            && surely_overlap(w, v)
    });
    if let Some((j, w)) = timed {
        let why = timed_writer_unknown(j, &w.name, w.duration.is_some(), w.ramp.is_some());
        return Some(at.key("expect", why, None));
    }
    let (j, w) = running[..i].iter().enumerate().find(|(_, w)| {
        matches!(w.kind, PhaseKind::Fill | PhaseKind::Workload)
            && w.verify == Some(true)
            && w.workers
                .is_some_and(|n| (2..=MAX_WORKERS as i64).contains(&n))
            && w.workers_split == Some(WorkersSplit::Shared)
            && surely_overlap(w, v)
    })?;
    let n = w.workers.unwrap_or(1) as u32;
    Some(at.key("expect", shared_writers_unknown(j, &w.name, n), None))
}

/// `[spec]` and `[target]`.
fn check_spec(spec: &SpecFile) -> Result<(), RuleError> {
    if !valid_name(&spec.spec.name) {
        return Err(err(
            "spec.name".into(),
            None,
            format!("name {:?} is not usable in a file name", spec.spec.name),
            Some(&name_help(&spec.spec.name, "the output folder")),
        ));
    }
    if spec.spec.version.trim().is_empty() {
        return Err(err(
            "spec.version".into(),
            None,
            "version is empty",
            Some("e.g. version = \"1.0.0\""),
        ));
    }
    if let Some(t) = &spec.target {
        if t.path.is_some() && t.sim.is_some() {
            return Err(err(
                "target.sim".into(),
                None,
                "[target] sets both path and sim; keep one",
                Some("path is a file or block device, sim a simulated SSD"),
            ));
        }
        if t.paths.is_some() && (t.path.is_some() || t.sim.is_some()) {
            return Err(err(
                "target.paths".into(),
                None,
                "[target] sets paths and also path or sim; keep one",
                Some(
                    "paths lists every target of the run: files, block devices or \"sim:KEY=VALUE,...\"",
                ),
            ));
        }
        if t.paths.as_ref().is_some_and(Vec::is_empty) {
            return Err(err(
                "target.paths".into(),
                None,
                "[target] paths is empty",
                Some("list at least one target, e.g. paths = [\"a.img\", \"b.img\"]"),
            ));
        }
        if let Some(e) = check_target_paths(t) {
            return Err(e);
        }
        if let Some(Err(e)) = t.sim.clone().map(crate::sim::SimTarget::new) {
            return Err(err(
                format!("target.sim.{}", e.key),
                None,
                e.message,
                Some("see \"Simulated SSD target\" in docs/spec.md"),
            ));
        }
    }
    Ok(())
}

/// `[target] path` and each of `paths`: not empty, no NUL byte; a simulated drive (`"sim:..."`) only in
/// `paths` (where it is parsed as `--target` parses it), since `path` names a file: `path = "sim:..."` would
/// create a file of that name.
fn check_target_paths(t: &super::TargetSection) -> Option<RuleError> {
    let prefix = crate::sim::params::PREFIX;
    let one = t.path.iter().map(|p| ("target.path".to_string(), p));
    let listed = t.paths.iter().flatten().enumerate();
    let all = one.chain(listed.map(|(i, p)| (format!("target.paths[{i}]"), p)));
    for (key, p) in all {
        let text = p.to_string_lossy();
        if text.is_empty() {
            return Some(err(
                key,
                None,
                "the path is empty",
                Some("name a file or a block device, e.g. \"/dev/nvme1n1\" or \"t.img\""),
            ));
        }
        if text.contains('\0') {
            return Some(err(key, None, "the path holds a NUL byte", None));
        }
        // Under a launcher every host would use the path as written: one file for all of them.
        if let Some(t) = ["{rank}", "{host}"].into_iter().find(|t| text.contains(t)) {
            return Some(err(
                key,
                None,
                format!(
                    "{t} is expanded on the command line only (--target, -o, --allow-destroy), not in the spec: every host would use {text:?} as written"
                ),
                Some(
                    "give the target on the command line: --target with the template (docs/hosts.md)",
                ),
            ));
        }
        let Some(_) = text.strip_prefix(prefix) else {
            continue;
        };
        if key == "target.path" {
            return Some(err(
                key,
                None,
                format!("path names a file, so {text:?} would create a file of that name"),
                Some(
                    "a simulated drive is sim = { capacity = \"2GiB\" } (or an entry of paths); a file of that name is \"./sim:...\"",
                ),
            ));
        }
        let parsed = crate::sim::SimParams::parse_target(&text).and_then(|p| {
            crate::sim::SimTarget::new(p)
                .map(|_| ())
                .map_err(|e| e.message)
        });
        if let Err(e) = parsed {
            let e = e
                .strip_prefix(&format!("--target {text}: "))
                .or_else(|| e.strip_prefix(&format!("--target {text:?}: ")))
                .map_or(e.clone(), str::to_string);
            return Some(err(
                key,
                None,
                e,
                Some("see \"Simulated SSD target\" in docs/spec.md"),
            ));
        }
    }
    let paths = t.paths.as_deref().unwrap_or_default();
    let (s, r) = crate::sim::params::mixed_clocks(paths.iter().map(|p| p.as_path()))?;
    let shown = |i: usize| paths[i].to_string_lossy().into_owned();
    Some(err(
        format!("target.paths[{}]", s.max(r)),
        None,
        format!(
            "{:?} (target.paths[{s}]) is a simulated drive and {:?} (target.paths[{r}]) a real target: {}",
            shown(s),
            shown(r),
            crate::sim::params::MIXED_CLOCKS
        ),
        Some("list simulated drives alone, or files and block devices alone"),
    ))
}

/// The `i`-th phase: its name (unique among `names`, the names of the phases before it, to which it is
/// added), the keys its kind accepts, the rules common to all kinds, then those of its kind; each broken
/// rule goes to `out`. `interval` is `[defaults]`' interval (ns), if any.
fn check_phase<'a>(
    phases: &'a [PhaseSpec],
    i: usize,
    interval: Option<u64>,
    names: &mut HashMap<&'a str, usize>,
    out: &mut Vec<RuleError>,
) {
    let p = &phases[i];
    // Errors are located at the [[phase]] the (possibly expanded) phase came from.
    let at = At {
        table: format!("phase[{}]", p.origin.unwrap_or(i)),
        phase: Some(i),
    };
    if !valid_name(&p.name) {
        out.push(at.key(
            "name",
            format!("phase name {:?} is not usable in a file name", p.name),
            Some(&name_help(&p.name, "the phase's CSV file")),
        ));
    }
    if let Some(&j) = names.get(p.name.as_str()) {
        out.push(at.key(
            "name",
            format!(
                "phase name {:?} is already used by phase[{}]",
                p.name,
                phases[j].origin.unwrap_or(j)
            ),
            Some("phase names must be unique"),
        ));
    } else {
        names.insert(&p.name, i);
    }
    let kind = p.kind.as_str();
    for bad in KEYS
        .iter()
        .filter(|k| (k.is_set)(p) && !k.kinds.has(p.kind))
    {
        out.push(at.key(
            bad.name,
            format!(
                "key `{}` does not apply to a phase of kind \"{kind}\"",
                bad.name
            ),
            Some(&format!(
                "keys for kind \"{kind}\": {}",
                keys_for(p.kind).join(", ")
            )),
        ));
    }
    check_common(&at, &Common::of_phase(p), out);
    out.extend(check_trace(&at, p.trace).err());
    if let Err(e) = check_flushes(&at, p) {
        out.push(e);
    }
    let kind_rules = match p.kind {
        PhaseKind::Erase => vec![],
        PhaseKind::Verify => vec![check_verify(&at, p)],
        PhaseKind::Fill => vec![check_fill(&at, p)],
        PhaseKind::RestoreImage => vec![check_restore_image(&at, p)],
        PhaseKind::Workload => {
            let interval = p.interval.map(|d| d.0).or(interval);
            vec![
                check_workload_extras(&at, p, interval.unwrap_or(DEFAULT_INTERVAL_NS)),
                check_workload_bounds(&at, p),
            ]
        }
    };
    out.extend(kind_rules.into_iter().filter_map(Result::err));
}

/// `trace = N`: 1 to [`crate::stats::trace::MAX_TRACE`] I/Os.
fn check_trace(at: &At, trace: Option<u64>) -> Result<(), RuleError> {
    use crate::stats::trace::MAX_TRACE;
    match trace.filter(|n| !(1..=MAX_TRACE).contains(n)) {
        Some(n) => Err(at.key(
            "trace",
            format!("trace = {n} is out of range"),
            Some(&format!(
                "trace is 1 to {MAX_TRACE} I/Os (32 B of memory each during the phase)"
            )),
        )),
        None => Ok(()),
    }
}

/// `fsync` and `fdatasync`: a number of writes from 1 to 2^32, and one of the two.
fn check_flushes(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    if p.fsync.is_some() && p.fdatasync.is_some() {
        return Err(at.key(
            "fdatasync",
            "both `fsync` and `fdatasync` are set",
            Some("keep one: fsync = N (data and metadata) or fdatasync = N (data)"),
        ));
    }
    for (key, v) in [("fsync", p.fsync), ("fdatasync", p.fdatasync)] {
        if let Some(n) = v.filter(|n| !(1..=1 << 32).contains(n)) {
            return Err(at.key(
                key,
                format!("{key} = {n}: the writes per flush are 1 to 4294967296"),
                Some(&format!("e.g. {key} = 32 (a flush after every 32 writes)")),
            ));
        }
    }
    Ok(())
}

fn check_verify(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    if let Some(n) = p.max_listed.filter(|n| !(0..=10_000).contains(n)) {
        return Err(at.key(
            "max_listed",
            format!("max_listed = {n} is outside 0..10000"),
            Some("max_listed is 0 to 10000"),
        ));
    }
    Ok(())
}

fn check_fill(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    if p.passes.is_some() && p.size.is_some() {
        return Err(at.key(
            "size",
            "both `passes` and `size` are set",
            Some("bound a fill by passes = N or by size = \"200%\" (of the span), not both"),
        ));
    }
    if matches!(p.size, Some(Amount::Bytes(0) | Amount::Percent(Percent(0)))) {
        return Err(at.key(
            "size",
            "size is 0",
            Some("e.g. size = \"200%\" of the span"),
        ));
    }
    if let Some(Amount::Percent(pc)) = p.size
        && pc.0 > MAX_PASSES as u64 * Percent::FULL.0
    {
        return Err(at.key(
            "size",
            format!("size = \"{pc}\" is more than {MAX_PASSES} passes"),
            None,
        ));
    }
    if let Some(n) = p.passes.filter(|n| !(1..=MAX_PASSES).contains(n)) {
        return Err(at.key(
            "passes",
            format!("passes = {n} is outside 1..{MAX_PASSES}"),
            Some("passes is 1 to 10000"),
        ));
    }
    Ok(())
}

fn check_restore_image(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    let help = Some("image = \"synthetic\" or the path of a raw image file");
    match p.image.as_deref() {
        None => return Err(at.key("image", "missing key `image`", help)),
        Some("") => return Err(at.key("image", "image is empty", help)),
        Some(_) => {}
    }
    if p.image_size.is_some() && p.image.as_deref() != Some("synthetic") {
        return Err(at.key(
            "image_size",
            "image_size applies only to image = \"synthetic\"",
            Some("a file image has the size of the file"),
        ));
    }
    if p.image_size.is_some_and(|s| s.0 == 0) {
        return Err(at.key("image_size", "image_size is 0", None));
    }
    Ok(())
}

/// A workload's optional keys: verification, rate cap, steady state, windows, ramp, headline (whose
/// `"at T"` must fall before the last full interval of `interval_ns` of a duration bound).
fn check_workload_extras(at: &At, p: &PhaseSpec, interval_ns: u64) -> Result<(), RuleError> {
    if p.verify == Some(true) && p.read_percent.one().map(|r| r.0) == Some(100) {
        return Err(at.key(
            "verify",
            "verify = true stamps written sectors, and this workload only reads (read_percent = 100)",
            Some("check what was written with a phase of kind \"verify\""),
        ));
    }
    check_rate(at, p)?;
    check_arrivals(at, p)?;
    check_steady(at, p)?;
    for w in p.windows.iter().flatten() {
        crate::stats::window::WindowSpec::parse(w).map_err(|e| at.key("windows", e, None))?;
    }
    if p.ramp.is_some_and(|r| r.0 == 0) {
        return Err(at.key("ramp", "ramp is 0", Some("omit ramp for no lead-in")));
    }
    check_headline(at, p, interval_ns)
}

/// `rate_iops`: a cap of something, above 0 and at most [`crate::vocab::MAX_RATE`].
fn check_rate(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    use crate::vocab::MAX_RATE;
    let Some(rate) = p.rate_iops else {
        return Ok(());
    };
    if rate.is_empty() {
        return Err(at.key(
            "rate_iops",
            "rate_iops = {} caps nothing",
            Some("give rate_iops = N, or { read = N, write = M, total = T }; omit rate_iops for no cap"),
        ));
    }
    if rate.has_zero() {
        return Err(at.key(
            "rate_iops",
            "rate_iops = 0 issues nothing",
            Some("omit rate_iops for no cap"),
        ));
    }
    if let Some((key, n)) = rate.over_max() {
        return Err(at.key(
            "rate_iops",
            format!("{key} = {n} is more than {MAX_RATE} I/Os per second (2^32), far above what any device does"),
            Some("omit rate_iops for no cap"),
        ));
    }
    Ok(())
}

/// `rate_process`, `think_time`, `think_every`: a process needs a cap to space, a think time is above 0, and
/// a burst has I/Os.
fn check_arrivals(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    if p.rate_process.is_some() && p.rate_iops.is_none() {
        return Err(at.key(
            "rate_process",
            "rate_process spaces the issue times of a rate cap, and this phase has no rate_iops",
            Some("give rate_iops (the mean rate of Poisson arrivals), or omit rate_process"),
        ));
    }
    if p.think_time.is_some_and(|t| t.0 == 0) {
        return Err(at.key(
            "think_time",
            "think_time is 0: the phase would never think",
            Some("omit think_time for no think time"),
        ));
    }
    match p.think_every {
        Some(n) if n < 1 => Err(at.key(
            "think_every",
            format!("think_every = {n}: a burst between think times needs at least 1 I/O"),
            Some("think_every = 1 thinks after every I/O"),
        )),
        Some(_) if p.think_time.is_none() => Err(at.key(
            "think_every",
            "think_every counts the I/Os between think times, and this phase has no think_time",
            Some("give think_time (the idle time after each burst), or omit think_every"),
        )),
        _ => Ok(()),
    }
}

/// `headline`: each item parses, `"steady"` has a rule to report, `"fill_once"` a phase that writes.
fn check_headline(at: &At, p: &PhaseSpec, interval_ns: u64) -> Result<(), RuleError> {
    use crate::stats::derived::Headline;
    for item in p.headline.iter().flatten() {
        let h = Headline::parse(item).map_err(|e| at.key("headline", e, None))?;
        if let (Headline::At(t), Some(d)) = (h, p.duration) {
            check_at(at, t, d.0, interval_ns)?;
        }
        if h == Headline::Steady && p.steady_state.is_none() {
            return Err(at.key(
                "headline",
                "headline \"steady\" needs steady_state",
                Some("e.g. steady_state = { rule = \"snia\" }"),
            ));
        }
        if h == Headline::FillOnce && p.read_percent.one().map(|r| r.0) == Some(100) {
            return Err(at.key(
                "headline",
                "headline \"fill_once\" times the writes, and this workload only reads (read_percent = 100)",
                None,
            ));
        }
    }
    Ok(())
}

/// A headline `"at T"` (ns from the measured start) in a phase measured for `duration_ns` in intervals of
/// `interval_ns`: "before" ends with the full row in which T is reached, so "after" has rows only when that
/// row is not the last full one, that is when T is at most (full rows − 1) intervals.
fn check_at(at: &At, t: u64, duration_ns: u64, interval_ns: u64) -> Result<(), RuleError> {
    let full = duration_ns / interval_ns.max(1);
    let latest = full.saturating_sub(1).saturating_mul(interval_ns);
    if full >= 2 && t <= latest {
        return Ok(());
    }
    let (d, i) = (Duration(duration_ns), Duration(interval_ns));
    let why = if full >= 2 {
        format!(
            "the latest point with figures after it is \"at {}\"",
            Duration(latest)
        )
    } else {
        "the phase has no full interval after any point".to_string()
    };
    Err(at.key(
        "headline",
        format!(
            "headline \"at {}\" leaves no figures after it: the phase measures {d} (duration) in intervals of {i}; {why}",
            Duration(t)
        ),
        Some("give a point inside the phase, or a longer duration"),
    ))
}

/// `steady_after`'s values: at least one condition, `written` above 0, `drop` in (0, 1).
fn check_steady_after(at: &At, a: &super::SteadyAfter) -> Result<(), RuleError> {
    if matches!(
        a.written,
        Some(Amount::Bytes(0) | Amount::Percent(Percent(0)))
    ) {
        return Err(at.key(
            "steady_after",
            "steady_after written must be above 0",
            Some("omit steady_after to judge from the first round"),
        ));
    }
    let rule = crate::stats::steady::StartRule {
        written_bytes: a.written.map(|_| 1),
        drop: a.drop,
    };
    rule.validate().map_err(|e| {
        at.key(
            "steady_after",
            e,
            Some("e.g. steady_after = { written = \"200%\" } or { drop = 0.5 }"),
        )
    })
}

/// `steady_state` and the keys that need it.
fn check_steady(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    if let Some(rule) = &p.steady_state {
        rule.validate()
            .map_err(|e| at.key("steady_state", e, None))?;
    }
    if p.steady_round.is_some() && p.steady_state.is_none() {
        return Err(at.key("steady_round", "steady_round needs steady_state", None));
    }
    if let Some(leave) = &p.steady_leave {
        if p.steady_state.is_none() {
            return Err(at.key("steady_leave", "steady_leave needs steady_state", None));
        }
        leave
            .validate()
            .map_err(|e| at.key("steady_leave", e, None))?;
    }
    if let Some(after) = &p.steady_after {
        if p.steady_state.is_none() {
            return Err(at.key("steady_after", "steady_after needs steady_state", None));
        }
        check_steady_after(at, after)?;
        if after.written.is_some() && p.read_percent.one().map(|r| r.0) == Some(100) {
            return Err(at.key(
                "steady_after",
                "steady_after written counts the phase's writes, and this workload only reads (read_percent = 100): judging would never begin",
                Some("use steady_after = { drop = F }, or no steady_after"),
            ));
        }
    }
    if p.until == Some(super::Until::Steady) && (p.steady_state.is_none() || p.duration.is_none()) {
        return Err(at.key(
            "until",
            "until = \"steady\" needs steady_state and a duration bound",
            Some("e.g. steady_state = { rule = \"snia\" } and duration = \"2h\""),
        ));
    }
    Ok(())
}

/// `trim_percent`: 0..100, and with `read_percent` (`read`) at most 100 (the rest are writes).
fn check_trim_percent(at: &At, p: &PhaseSpec, read: i64) -> Result<(), RuleError> {
    let Some(t) = p.trim_percent.map(|t| t.0) else {
        return Ok(());
    };
    if !(0..=100).contains(&t) {
        return Err(at.key(
            "trim_percent",
            format!("trim_percent = {t} is outside 0..100"),
            Some("0..100"),
        ));
    }
    if let Some(why) = mix_past_100(read, t) {
        return Err(at.key(
            "trim_percent",
            why,
            Some("read_percent + trim_percent at most 100"),
        ));
    }
    Ok(())
}

/// Why `read_percent` `read` and `trim_percent` `trim` are no phase's mix: together more than 100 (the rest
/// of the I/Os are writes); `None` when they are. The one rule of the spec's check and of `wkrun validate`'s.
pub fn mix_past_100(read: i64, trim: i64) -> Option<String> {
    let sum = read.saturating_add(trim);
    (sum > 100).then(|| {
        format!(
            "read_percent = {read} and trim_percent = {trim} add up to {sum}, more than 100 (the rest of the I/Os are writes)"
        )
    })
}

/// A verified workload with trims runs at `queue_depth = 1`: a trim and a write of one block in flight
/// together may land in either order, so what the block holds after them is not known. `p` is the phase
/// with its `[defaults]` (the queue depth may be inherited); the error is at the phase's `trim_percent`.
fn check_verified_trims(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let trims = p.trim_percent.is_some_and(|t| t.0 > 0);
    let qd = p
        .queue_depth
        .as_ref()
        .map_or(1, |q| q.values().into_iter().max().unwrap_or(1));
    (p.kind == PhaseKind::Workload && p.verify == Some(true) && trims && qd > 1).then(|| {
        at.key(
            "trim_percent",
            format!("verify = true with trims at queue_depth = {qd}: a trim and a write of the same block in flight together may land in either order, so what the block holds after them is not known"),
            Some("verify a phase with trims at queue_depth = 1"),
        )
    })
}

/// A workload's required keys: `read_percent`, and one bound (`duration` or `size`).
fn check_workload_bounds(at: &At, p: &PhaseSpec) -> Result<(), RuleError> {
    match p.read_percent.one().map(|r| r.0) {
        None => {
            return Err(at.table(
                "missing key `read_percent`",
                Some("read_percent = 0 for all writes, 100 for all reads, 65 for a 65/35 mix"),
            ));
        }
        Some(r) if !(0..=100).contains(&r) => {
            return Err(at.key(
                "read_percent",
                format!("read_percent = {r} is outside 0..100"),
                Some("0..100"),
            ));
        }
        Some(r) => check_trim_percent(at, p, r)?,
    }
    match (p.duration, p.size) {
        (None, None) => Err(at.table(
            "a workload needs a bound: `duration` or `size`",
            Some("e.g. duration = \"60s\" or size = \"100%\" (of the span)"),
        )),
        (Some(_), Some(_)) => Err(at.key(
            "size",
            "both `duration` and `size` are set",
            Some("keep one bound: duration = \"...\" or size = \"...\" (size is the bytes to transfer, fio's io_size; the region the I/Os fall in is span)"),
        )),
        (Some(d), None) if d.0 == 0 => {
            Err(at.key("duration", "duration is 0", Some("e.g. duration = \"60s\"")))
        }
        (None, Some(Amount::Bytes(0) | Amount::Percent(Percent(0)))) => Err(at.key(
            "size",
            "size is 0",
            Some("e.g. size = \"100%\" of the span"),
        )),
        _ => Ok(()),
    }
}

/// The keys `[defaults]` and phases share whose values are checked alike.
struct Common<'a> {
    queue_depth: Option<i64>,
    workers: Option<i64>,
    block_size: Option<&'a BlockSize>,
    span: Option<Amount>,
    offset: Option<Amount>,
    interval_ns: Option<u64>,
}

impl<'a> Common<'a> {
    fn of_defaults(d: &'a Defaults) -> Common<'a> {
        Common {
            queue_depth: d.queue_depth,
            workers: d.workers,
            block_size: d.block_size.as_ref(),
            span: d.span,
            offset: d.offset,
            interval_ns: d.interval.map(|i| i.0),
        }
    }

    fn of_phase(p: &'a PhaseSpec) -> Common<'a> {
        Common {
            queue_depth: p.queue_depth.one(),
            workers: p.workers,
            block_size: p.block_size.as_ref().and_then(|b| b.one()),
            span: p.span.one(),
            offset: p.offset,
            interval_ns: p.interval.map(|d| d.0),
        }
    }
}

/// The checks of the keys `[defaults]` and phases share; each broken one goes to `out`.
fn check_common(at: &At, c: &Common<'_>, out: &mut Vec<RuleError>) {
    if let Some(q) = c.queue_depth
        && (q < 1 || q > MAX_QUEUE_DEPTH as i64)
    {
        out.push(at.key(
            "queue_depth",
            format!("queue_depth = {q} is out of range"),
            Some("queue_depth is 1 to 1024"),
        ));
    }
    if let Some(w) = c.workers
        && (w < 1 || w > MAX_WORKERS as i64)
    {
        out.push(at.key(
            "workers",
            format!("workers = {w} is out of range"),
            Some("workers is 1 to 256"),
        ));
    }
    if let Some(bs) = c.block_size {
        out.extend(check_block_size(at, bs).err());
    }
    out.extend(check_span(at, c.span, c.offset).err());
    if let Some(ns) = c.interval_ns.filter(|&ns| ns < MIN_INTERVAL_NS) {
        out.push(at.key(
            "interval",
            format!(
                "interval {} is shorter than the shortest interval, 1ms",
                crate::units::Duration(ns)
            ),
            Some("e.g. interval = \"1s\""),
        ));
    }
}

fn check_block_size(at: &At, bs: &BlockSize) -> Result<(), RuleError> {
    if bs.sizes().contains(&0) {
        return Err(at.key(
            "block_size",
            "block_size is 0",
            Some("e.g. block_size = \"4KiB\""),
        ));
    }
    if let Some(&big) = bs.sizes().iter().find(|&&b| b > MAX_BLOCK_SIZE) {
        return Err(at.key(
            "block_size",
            format!(
                "block_size {} is larger than the largest block size, 128MiB",
                crate::units::Size(big)
            ),
            None,
        ));
    }
    if let BlockSize::Mix(v) = bs
        && v.iter().all(|e| e.1 == 0)
    {
        return Err(at.key(
            "block_size",
            "the block-size mix has no entry with a positive weight",
            Some("e.g. block_size = { \"4KiB\" = 60, \"64KiB\" = 40 }"),
        ));
    }
    Ok(())
}

fn check_span(at: &At, span: Option<Amount>, offset: Option<Amount>) -> Result<(), RuleError> {
    if let Some(Amount::Percent(p)) = span
        && (p.0 == 0 || p > Percent::FULL)
    {
        return Err(at.key(
            "span",
            format!("span = \"{p}\" is outside 0..100 % of the target"),
            Some("a span is at most \"100%\" of the target's capacity"),
        ));
    }
    if span == Some(Amount::Bytes(0)) {
        return Err(at.key("span", "span is 0 bytes", None));
    }
    if let Some(Amount::Percent(p)) = offset {
        if p >= Percent::FULL {
            return Err(at.key(
                "offset",
                format!("offset = \"{p}\" leaves no room for a span"),
                Some("an offset is below \"100%\""),
            ));
        }
        if let Some(Amount::Percent(s)) = span
            && p.0 + s.0 > Percent::FULL.0
        {
            return Err(at.key(
                "span",
                format!("offset {p} + span {s} is over 100 % of the target"),
                None,
            ));
        }
    }
    Ok(())
}

/// Most bytes of I/O buffers a phase may use (workers × queue depth × largest block size): 2 GiB.
pub const MAX_BUFFER_BYTES: u64 = 2 << 30;

/// The block size of a phase of `kind` that sets none (the plan and `wkrun export fio` take the same).
pub fn default_block_size(kind: PhaseKind) -> u64 {
    match kind {
        PhaseKind::Fill | PhaseKind::Verify => 128 << 10,
        PhaseKind::RestoreImage => 1 << 20,
        PhaseKind::Workload | PhaseKind::Erase => 4 << 10,
    }
}

/// The block sizes a phase's I/Os use: its single size, its kind's default, or a mix's sizes with a
/// positive weight. `p` is the phase with its `[defaults]`.
pub fn used_block_sizes(p: &PhaseSpec) -> Vec<u64> {
    match p.block_size.one() {
        None => vec![default_block_size(p.kind)],
        Some(BlockSize::Single(s)) => vec![s.0],
        Some(BlockSize::Mix(v)) => v.iter().filter(|e| e.1 > 0).map(|e| e.0.0).collect(),
    }
}

/// Why `size` (`bytes` B) bounds no I/O of `block` B: the one message of the rules (a byte size) and of
/// the plan (a percentage of the span, known on the target).
pub fn below_one_block(size: Amount, bytes: u64, block: u64) -> String {
    format!("size {size} ({bytes} B) is less than one block ({block} B)")
}

/// The rules of a phase's I/O shape that need no target (they were the plan's; `validate` and `export`
/// now refuse the same): a block-size mix only in a random, uniform, time-bounded workload; full coverage
/// only for a random pattern; a byte `size` of at least one block; the I/O buffers at most
/// [`MAX_BUFFER_BYTES`]; a duration of at most [`crate::stats::MAX_INTERVALS`] intervals; `steady_round`
/// and `aggregate` whole multiples of the interval; verified blocks of whole 512-byte sectors; with O_DIRECT,
/// blocks of whole sectors; a byte offset of whole blocks; partitioned workers' parts of a span in bytes.
/// `p` is the phase with its `[defaults]`; the first broken rule.
fn check_io_shape(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    if p.kind == PhaseKind::Erase {
        return None;
    }
    check_mix(at, p)
        .or_else(|| check_size_bound(at, p))
        .or_else(|| check_buffers(at, p))
        .or_else(|| check_interval_count(at, p))
        .or_else(|| check_multiples(at, p))
        .or_else(|| check_sectors(at, p))
        .or_else(|| check_direct_sizes(at, p))
        .or_else(|| check_offset(at, p))
        .or_else(|| check_span_parts(at, p))
}

/// Why a byte offset of `offset` bytes starts no whole block of `block` bytes (`None` when it does): the
/// one message of the rules (a byte offset in the spec, `check_io_shape`) and of the plan's span
/// (`plan::span::resolve`).
pub fn offset_off_block(offset: u64, block: u64) -> Option<String> {
    (block > 0 && !offset.is_multiple_of(block))
        .then(|| format!("offset {offset} B is not a multiple of the block size ({block} B)"))
}

/// The whole blocks of `unit` bytes a span of `len` bytes holds (rounded down): the one count of the
/// plan's span (`plan::span::resolve`) and of [`parts_fit`].
pub fn whole_blocks(len: u64, unit: u64) -> u64 {
    len / unit.max(1)
}

/// A byte offset (`offset = "1000B"`) starts a whole block of the phase's block size (a mix's smallest),
/// which the span is cut into on every target ([`offset_off_block`]; with O_DIRECT that block is whole
/// 512-byte sectors, [`check_direct_sizes`], so the offset is too).
fn check_offset(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let Some(Amount::Bytes(offset)) = p.offset else {
        return None;
    };
    let unit = used_block_sizes(p).into_iter().min()?;
    let message = offset_off_block(offset, unit)?;
    Some(at.key(
        "offset",
        message,
        Some("give an offset of whole blocks, or a percentage (rounded up to a whole block)"),
    ))
}

/// The smallest logical block size a target has (a sector): O_DIRECT I/O of a size no target's logical
/// block size divides is refused on every target.
pub const MIN_LOGICAL_BLOCK: u64 = 512;

/// Case C02: the first of the block `sizes` that O_DIRECT cannot issue on a target of logical blocks of
/// `lbs` bytes (not a multiple of it); the rule a plan refuses a phase by (`plan::direct_misaligned`), and
/// `wkrun validate` a result.
pub fn direct_misaligned(sizes: impl IntoIterator<Item = u64>, lbs: u64) -> Option<u64> {
    sizes.into_iter().find(|&b| lbs > 0 && b % lbs != 0)
}

/// With O_DIRECT (`direct`, true by default), block sizes of whole 512-byte sectors
/// ([`MIN_LOGICAL_BLOCK`]): the plan's rule ([`direct_misaligned`]) on the target's own logical block
/// size, which is a multiple of it on every target.
fn check_direct_sizes(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    if !p.direct.unwrap_or(true) {
        return None;
    }
    let b = direct_misaligned(used_block_sizes(p), MIN_LOGICAL_BLOCK)?;
    Some(at.key(
        "block_size",
        format!(
            "block_size {} ({b} B) is not a multiple of {MIN_LOGICAL_BLOCK} B, which every target's logical block size is, and O_DIRECT requires"
        , crate::units::Size(b)),
        Some("use a multiple of 512 B, or direct = false"),
    ))
}

/// A span in bytes (`span = "8KiB"`) too small for its partitioned workers on every target ([`parts_fit`]
/// of the span: the plan's rounding to whole blocks only makes it smaller). A restored image's parts are
/// the plan's (the image's size).
fn check_span_parts(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let Some(Amount::Bytes(len)) = p.span.one() else {
        return None;
    };
    let workers = p.workers.filter(|w| (2..=MAX_WORKERS as i64).contains(w))? as u64;
    if p.kind == PhaseKind::RestoreImage || p.workers_split == Some(WorkersSplit::Shared) {
        return None;
    }
    let sizes = used_block_sizes(p);
    let (unit, largest) = (*sizes.iter().min()?, *sizes.iter().max()?);
    // A span of less than one block is refused by the plan's span on every target, workers or not.
    if whole_blocks(len, unit) == 0 {
        return None;
    }
    let (message, help) = parts_fit(p, workers, len, (unit, largest))?;
    Some(at.key("workers", message, Some(help)))
}

/// Whether `n` partitioned workers each get a part holding one block of the largest size (`largest`) when
/// the phase `p`'s span (a restored image) of `len` bytes is cut into whole blocks of `unit` (the smallest
/// size): `None` when they do, else the message and its help. The one rule of the plan (on the resolved
/// span) and of the spec's rules (on a span in bytes).
pub fn parts_fit(
    p: &PhaseSpec,
    n: u64,
    len: u64,
    (unit, largest): (u64, u64),
) -> Option<(String, &'static str)> {
    let unit = unit.max(1);
    let restore = p.kind == PhaseKind::RestoreImage;
    // An image's last block may be partial (it is written too); a span holds whole blocks only.
    let blocks = match restore {
        true => len.div_ceil(unit),
        false => whole_blocks(len, unit),
    };
    let smallest_part = (blocks / n.max(1)) * unit;
    if smallest_part >= largest {
        return None;
    }
    let what = if restore { "image" } else { "span" };
    let plural = if blocks == 1 { "" } else { "s" };
    let need =
        "with workers_split = \"partitioned\" each worker needs a part of at least one block";
    let message = match blocks < n {
        true => format!(
            "workers = {n} is more than the {what}'s {blocks} block{plural} of {unit} B allow: {need}"
        ),
        false => format!(
            "workers = {n} cut the {what}'s {blocks} block{plural} of {unit} B into parts of at least {} block(s), {smallest_part} B, less than the largest block size, {largest} B: {need} of the largest size",
            blocks / n
        ),
    };
    let help = match restore {
        true => "use fewer workers (an image is cut into parts of whole blocks, one per worker)",
        false if pattern_and_coverage(p) == (Pattern::Random, Coverage::Uniform) => {
            "use fewer workers, a larger span, or workers_split = \"shared\" (each worker draws from the whole span)"
        }
        // Shared workers would each visit every block (check_workers_split).
        false => "use fewer workers or a larger span",
    };
    Some((message, help))
}

/// A workload's `steady_round` and `aggregate`: whole multiples of its interval.
fn check_multiples(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let interval_ns = p.interval.map_or(DEFAULT_INTERVAL_NS, |i| i.0);
    if p.kind != PhaseKind::Workload || interval_ns < MIN_INTERVAL_NS {
        return None; // an interval under 1 ms is said by check_common
    }
    [("steady_round", p.steady_round), ("aggregate", p.aggregate)]
        .into_iter()
        .find_map(|(key, v)| {
            Some((key, v?)).filter(|(_, v)| !v.0.is_multiple_of(interval_ns) || v.0 < interval_ns)
        })
        .map(|(key, v)| {
            at.key_of(
                key,
                &["interval"],
                format!(
                    "{key} {v} is not a multiple of the interval {}",
                    Duration(interval_ns)
                ),
                None,
            )
        })
}

/// A block-size mix is for random workloads of uniform coverage bounded by time; full coverage is for a
/// random pattern.
fn check_mix(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let (pattern, _) = pattern_and_coverage(p);
    if let Some(BlockSize::Mix(_)) = p.block_size.one() {
        let why = if p.kind != PhaseKind::Workload {
            Some("a block-size mix is for workloads")
        } else if pattern != Pattern::Random || p.coverage == Some(Coverage::Full) {
            Some("a block-size mix needs pattern = \"random\" with uniform coverage")
        } else if p.duration.is_none() {
            Some(
                "a block-size mix needs a `duration` bound (a byte bound would be met only on average)",
            )
        } else {
            None
        };
        if let Some(why) = why {
            return Some(at.key("block_size", why, None));
        }
    }
    (p.coverage == Some(Coverage::Full) && pattern != Pattern::Random).then(|| {
        at.key(
            "coverage",
            "coverage = \"full\" applies to pattern = \"random\"",
            None,
        )
    })
}

/// A byte `size` (of a fill or a workload) of at least one block (a percentage of the span is the plan's).
fn check_size_bound(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let Some(size @ Amount::Bytes(bytes)) = p.size else {
        return None;
    };
    let block = used_block_sizes(p).into_iter().min()?;
    (bytes > 0 && block > 0 && bytes < block).then(|| {
        at.key_of(
            "size",
            &["block_size"],
            below_one_block(size, bytes, block),
            None,
        )
    })
}

/// Workers × queue depth × the largest block size of I/O buffers, at most [`MAX_BUFFER_BYTES`] (values out
/// of their ranges are reported by [`check_common`]).
fn check_buffers(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let qd = p.queue_depth.as_ref().map_or(Some(1), |q| {
        q.values()
            .into_iter()
            .max()
            .filter(|q| (1..=MAX_QUEUE_DEPTH as i64).contains(q))
    })? as u64;
    let workers = p.workers.map_or(Some(1), |w| {
        (1..=MAX_WORKERS as i64).contains(&w).then_some(w)
    })? as u64;
    let largest = used_block_sizes(p).into_iter().max()?;
    if largest > MAX_BLOCK_SIZE || workers * qd * largest <= MAX_BUFFER_BYTES {
        return None;
    }
    let times = match workers {
        1 => String::new(),
        w => format!("workers {w} × "),
    };
    Some(at.key(
        if workers > 1 {
            "workers"
        } else {
            "queue_depth"
        },
        format!(
            "{times}queue_depth {qd} × block size {} needs {} of I/O buffers, more than 2GiB",
            crate::units::Size(largest),
            crate::units::Size(workers * qd * largest)
        ),
        None,
    ))
}

/// A workload's `duration` of at most [`crate::stats::MAX_INTERVALS`] intervals.
fn check_interval_count(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    use crate::stats::MAX_INTERVALS;
    let d = p.duration.filter(|_| p.kind == PhaseKind::Workload)?;
    let interval_ns = p.interval.map_or(DEFAULT_INTERVAL_NS, |i| i.0);
    if interval_ns < MIN_INTERVAL_NS {
        return None; // said by check_common
    }
    let rows = d.0.div_ceil(interval_ns);
    (rows > MAX_INTERVALS).then(|| {
        at.key_of(
            "interval",
            &["duration"],
            format!(
                "{d} / {} gives {rows} intervals, more than {MAX_INTERVALS}",
                Duration(interval_ns),
            ),
            Some("use a longer interval"),
        )
    })
}

/// Verification (a verify phase, or a phase stamping its writes) works on 512-byte sectors.
fn check_sectors(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let is_verify = p.kind == PhaseKind::Verify;
    if !(p.verify == Some(true) || is_verify) {
        return None;
    }
    let sector = crate::stamp::SECTOR as u64;
    let b = used_block_sizes(p).into_iter().find(|b| b % sector != 0)?;
    Some(at.key(
        if is_verify { "block_size" } else { "verify" },
        format!("verification works on 512-byte sectors, and the block size {b} B is not a multiple of 512"),
        None,
    ))
}

/// A rate cap only on directions the workload never issues (`rate_iops = { write = 100 }` with
/// `read_percent = 0` and `trim_percent = 100`) paces nothing: the phase would run uncapped. A cap on a
/// direction it issues, or the `total` cap (which paces every I/O, trims included), makes the others
/// harmless (`{ read = 100, write = 100 }` over a `read_percent` matrix with 0 in it). wkrun has no cap on
/// trims. `p` is the phase with its `[defaults]`.
fn check_unused_cap(at: &At, p: &PhaseSpec) -> Option<RuleError> {
    let rate = p.rate_iops.filter(|_| p.kind == PhaseKind::Workload)?;
    let read = p
        .read_percent
        .one()
        .map(|r| r.0)
        .filter(|r| (0..=100).contains(r))?;
    let trim = p.trim_percent.map_or(0, |t| t.0);
    if !(0..=100 - read).contains(&trim) {
        return None; // said by check_trim_percent
    }
    let write = 100 - read - trim;
    let caps = [("read", rate.read, read), ("write", rate.write, write)];
    if rate.total.is_some() || caps.iter().any(|c| c.1.is_some() && c.2 > 0) {
        return None;
    }
    let (dir, cap) = caps
        .into_iter()
        .find_map(|(dir, cap, _)| Some((dir, cap?)))?;
    let mix = match trim {
        0 => format!("read_percent = {read}"),
        t => format!("read_percent = {read} and trim_percent = {t}"),
    };
    Some(at.key(
        "rate_iops",
        format!("rate_iops caps {dir}s at {cap}/s, and this phase issues no {dir}s ({mix}): the cap would pace nothing and the phase would run uncapped"),
        Some("cap a direction the phase issues, or give one total cap (rate_iops = N), which paces every I/O, trims included"),
    ))
}
