//! The spec an import writes, as TOML text with comments: where each phase came from, fio's meaning kept
//! differently (notes), and under `--lossy` each option dropped and why.

use super::job::Remark;
use super::schedule::{Phase, Schedule};
use super::shape::{Block, Bound, Shape};
use crate::fio::value::Size;
use crate::units::{Duration, fmt_bytes};
use crate::vocab::{DataPattern, Rate};
use std::collections::BTreeSet;
use std::fmt::Write;

/// A key and its value as TOML.
type Entry = (&'static str, String);

/// A TOML string.
fn s(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// `text` for a TOML comment: its control characters (a line break, which would end the comment) shown
/// escaped (`\n`), as TOML allows none in a comment.
fn comment(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::escaped(text)
}

/// A size or percentage as the spec writes it.
fn amount(a: Size) -> String {
    match a {
        Size::Bytes(b) => s(&fmt_bytes(b)),
        Size::Percent(p) => s(&format!("{p}%")),
    }
}

/// A duration in µs as the spec writes it.
fn duration_us(us: u64) -> String {
    s(&Duration(us.saturating_mul(1000)).to_string())
}

/// The queue depth, or for a latency-target search the list searched: the powers of two below the job's
/// depth, then it.
fn depths(sh: &Shape) -> String {
    if sh.latency.is_none() {
        return sh.queue_depth.to_string();
    }
    let mut d: Vec<String> = std::iter::successors(Some(1u64), |x| x.checked_mul(2))
        .take_while(|&x| x < sh.queue_depth)
        .map(|x| x.to_string())
        .collect();
    d.push(sh.queue_depth.to_string());
    format!("[{}]", d.join(", "))
}

/// The keys of a workload phase doing `shape` with `workers` workers.
fn workload(p: &Phase) -> Vec<Entry> {
    let sh = &p.shape;
    let w = p.workers;
    let mut k: Vec<Entry> = vec![
        (
            "pattern",
            s(if sh.random { "random" } else { "sequential" }),
        ),
        ("read_percent", sh.read_percent.to_string()),
        ("block_size", block(&sh.block)),
        ("queue_depth", depths(sh)),
        ("engine", s(sh.engine)),
        ("direct", sh.direct.to_string()),
    ];
    if sh.trim_percent > 0 {
        k.insert(2, ("trim_percent", sh.trim_percent.to_string()));
    }
    if let Some(mode) = sh.sync {
        k.push(("sync", s(mode)));
    }
    if sh.sq_poll {
        k.push(("sq_poll", "true".into()));
    }
    if let Some((call, n)) = sh.flush {
        k.push((call, n.to_string()));
    }
    if sh.full {
        k.push(("coverage", s("full")));
    }
    if let Some(d) = &sh.distribution {
        k.push(("distribution", s(&d.to_string())));
    }
    if w > 1 {
        k.push(("workers", w.to_string()));
        if sh.random && !sh.full && !sh.partitioned {
            k.push(("workers_split", s("shared")));
        }
    }
    if let Some(o) = sh
        .offset
        .filter(|o| !matches!(o, Size::Bytes(0) | Size::Percent(0)))
    {
        k.push(("offset", amount(o)));
    }
    if let Some(span) = span(sh, w) {
        k.push(("span", span));
    }
    match sh.bound {
        Bound::Time(us) => k.push(("duration", duration_us(us))),
        Bound::Bytes(b) => k.push(("size", s(&fmt_bytes(b.saturating_mul(w))))),
        Bound::Region(pct) => {
            let total = if sh.partitioned {
                pct
            } else {
                pct.saturating_mul(w)
            };
            k.push(("size", s(&format!("{total}%"))));
        }
    }
    if let Some(r) = sh.ramp_us {
        k.push(("ramp", duration_us(r)));
    }
    match super::rate::spec_rate(sh.rate, w) {
        Some(Rate { total: Some(t), .. }) => k.push(("rate_iops", t.to_string())),
        Some(r) => {
            let caps: Vec<String> = [("read", r.read), ("write", r.write)]
                .into_iter()
                .filter_map(|(d, c)| Some(format!("{d} = {}", c?)))
                .collect();
            k.push(("rate_iops", format!("{{ {} }}", caps.join(", "))));
        }
        None => {}
    }
    if sh.poisson {
        k.push(("rate_process", s("poisson")));
    }
    if let Some((us, q)) = sh.latency {
        k.push(("latency_target", duration_us(us)));
        k.push(("latency_percentile", q.to_string()));
    }
    if let Some((us, every)) = sh.think {
        k.push(("think_time", duration_us(us)));
        if every > 1 {
            k.push(("think_every", every.to_string()));
        }
    }
    if let Some(seed) = sh.seed {
        k.push(("seed", seed.to_string()));
    }
    if let Some(d) = sh.data.filter(|d| *d != DataPattern::Random) {
        k.push(("data", s(&d.to_string())));
    }
    if sh.verify.is_some() {
        k.push(("verify", "true".into()));
    }
    extras(sh, &mut k);
    k
}

/// Steady state, the interval and what a failed I/O does.
fn extras(sh: &Shape, k: &mut Vec<Entry>) {
    if let Some(st) = &sh.steady {
        k.push((
            "steady_state",
            format!(
                "{{ rule = \"fio\", metric = {}, kind = {}, limit = {}, relative = {}, window = {} }}",
                s(&st.metric),
                s(st.kind),
                toml::Value::Float(st.limit),
                st.relative,
                st.window
            ),
        ));
        if let Some(r) = st.round_us {
            k.push(("steady_round", duration_us(r)));
        }
        k.push(("until", s("steady")));
    }
    if let Some(ms) = sh.interval_ms {
        k.push(("interval", duration_us(ms.saturating_mul(1000))));
    }
    if let Some(c) = sh.on_error_continue {
        k.push(("on_error", s(if c { "continue" } else { "stop" })));
    }
}

/// The span of `w` workers: one job's region, or `w` of them side by side (`offset_increment = size`).
fn span(sh: &Shape, w: u64) -> Option<String> {
    Some(match (sh.size?, sh.partitioned) {
        (Size::Bytes(b), true) => s(&fmt_bytes(b.saturating_mul(w))),
        (Size::Percent(p), true) => s(&format!("{}%", p.saturating_mul(w))),
        (a, false) => amount(a),
    })
}

/// A block size as the spec writes it.
fn block(b: &Block) -> String {
    match b {
        Block::One(b) => s(&fmt_bytes(*b)),
        Block::Mix(v) => {
            let e: Vec<String> = v
                .iter()
                .map(|(b, w)| format!("{} = {w}", s(&fmt_bytes(*b))))
                .collect();
            format!("{{ {} }}", e.join(", "))
        }
    }
}

/// The keys of the verify phase that reads a writer's stamps back.
fn verify_keys(p: &Phase) -> Vec<Entry> {
    let sh = &p.shape;
    let smallest = match &sh.block {
        Block::One(b) => *b,
        Block::Mix(v) => v.iter().map(|e| e.0).min().unwrap_or(4096),
    };
    let mut k: Vec<Entry> = vec![
        ("expect", s("header")),
        ("block_size", s(&fmt_bytes(smallest))),
        ("queue_depth", sh.queue_depth.to_string()),
        ("engine", s(sh.engine)),
        ("direct", sh.direct.to_string()),
    ];
    if let Some(o) = sh
        .offset
        .filter(|o| !matches!(o, Size::Bytes(0) | Size::Percent(0)))
    {
        k.push(("offset", amount(o)));
    }
    match (sh.size, sh.partitioned) {
        (Some(Size::Bytes(b)), true) => {
            k.push(("span", s(&fmt_bytes(b.saturating_mul(p.workers)))))
        }
        (Some(a), _) => k.push(("span", amount(a))),
        (None, _) => {}
    }
    k
}

/// What the import says besides the spec: the header's lines.
pub struct Header {
    /// Where the jobs came from, in words (`the fio job file a.fio`).
    pub source: String,
    /// The spec's name.
    pub name: String,
    /// The target's size for a file wkrun creates.
    pub target_size: Option<u64>,
    /// Whether refused options were dropped (`--lossy`).
    pub lossy: bool,
    /// Notes for the whole spec.
    pub notes: Vec<String>,
}

/// A phase as the spec writes it: comments, name, kind and keys.
struct Out {
    comments: Vec<String>,
    name: String,
    kind: &'static str,
    keys: Vec<Entry>,
}

/// The keys `[defaults]` takes from the phases when every phase has the same value.
const DEFAULTABLE: [&str; 6] = [
    "engine",
    "direct",
    "queue_depth",
    "block_size",
    "interval",
    "on_error",
];

/// The spec text, and where the job of each of its phases starts (in the spec's order).
pub fn spec_text(sched: &Schedule, h: &Header) -> (String, Vec<crate::fio::Place>) {
    let mut places = Vec::new();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut outs: Vec<Out> = Vec::new();
    for p in &sched.phases {
        let name = unique(&clean_name(&p.name), &mut names);
        let mut comments = vec![format!("from {}", p.origin)];
        let mut say = |r: &Remark, how: &str| {
            if seen.insert((r.at.to_string(), r.text.clone())) {
                comments.push(format!("{how} {}: {}: {}", r.at, r.text, r.why));
            }
        };
        p.notes.iter().for_each(|r| say(r, "note:"));
        for r in &p.refused {
            say(
                r,
                match r.approximated() {
                    true => "approximated (--lossy):",
                    false => "dropped (--lossy):",
                },
            );
        }
        let mut keys = vec![("imported_from", s(&p.origin))];
        if let Some(d) = &p.description {
            keys.push(("description", s(d)));
        }
        keys.extend(workload(p));
        places.push(p.at.clone());
        outs.push(Out {
            comments,
            name: name.clone(),
            kind: "workload",
            keys,
        });
        if p.shape.verify == Some(true) {
            let vname = unique(&format!("{name}-verify"), &mut names);
            let mut keys = vec![("imported_from", s(&p.origin))];
            keys.extend(verify_keys(p));
            places.push(p.at.clone());
            outs.push(Out {
                comments: vec![format!("fio's verify after {name}: reads the stamps back")],
                name: vname,
                kind: "verify",
                keys,
            });
        }
    }
    let defaults = factor(&mut outs);
    (render(sched, h, &defaults, &outs), places)
}

/// Moves the keys every phase sets to the same value into `[defaults]`.
fn factor(outs: &mut [Out]) -> Vec<Entry> {
    let mut defaults = Vec::new();
    for key in DEFAULTABLE {
        let values: Vec<Option<&String>> = outs
            .iter()
            .map(|o| o.keys.iter().find(|(k, _)| *k == key).map(|e| &e.1))
            .collect();
        let Some(Some(first)) = values.first().cloned() else {
            continue;
        };
        // A table (a block-size mix) or a list (a latency search's depths) stays in its phase.
        let table = first.starts_with('{') || first.starts_with('[');
        if !table && values.iter().all(|v| *v == Some(first)) {
            defaults.push((key, first.clone()));
        }
    }
    for o in outs.iter_mut() {
        o.keys
            .retain(|(k, _)| !defaults.iter().any(|(d, _)| d == k));
    }
    defaults
}

/// The TOML text.
fn render(sched: &Schedule, h: &Header, defaults: &[Entry], outs: &[Out]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Imported from {} by `wkrun import fio` (wkrun {}).",
        comment(&h.source),
        env!("CARGO_PKG_VERSION")
    );
    if h.lossy {
        t.push_str("# --lossy: each option fio has and wkrun has no meaning for is dropped, with a comment at its phase.\n");
    }
    for n in &h.notes {
        let _ = writeln!(t, "# note: {}", comment(n));
    }
    t.push_str("format = 1\n\n[spec]\n");
    let _ = writeln!(t, "name = {}", s(&h.name));
    t.push_str("version = \"1\"\n");
    let _ = writeln!(
        t,
        "description = {}",
        s(&format!("Imported from {}", h.source))
    );
    match sched.files.as_slice() {
        [] => {}
        [one] => {
            let _ = write!(t, "\n[target]\npath = {}\n", s(one));
        }
        many => {
            let list: Vec<String> = many.iter().map(|f| s(f)).collect();
            let _ = write!(t, "\n[target]\npaths = [{}]\n", list.join(", "));
        }
    }
    if let Some(size) = h.target_size {
        if sched.files.is_empty() {
            t.push_str("\n[target]\n");
        }
        let _ = writeln!(t, "size = {}", s(&fmt_bytes(size)));
    }
    if !defaults.is_empty() {
        t.push_str("\n[defaults]\n");
        for (k, v) in defaults {
            let _ = writeln!(t, "{k} = {v}");
        }
    }
    for o in outs {
        t.push('\n');
        for c in &o.comments {
            let _ = writeln!(t, "# {}", comment(c));
        }
        let _ = writeln!(t, "[[phase]]\nname = {}\nkind = {}", s(&o.name), s(o.kind));
        for (k, v) in &o.keys {
            let _ = writeln!(t, "{k} = {v}");
        }
    }
    t
}

/// A name wkrun takes (letters, digits, `-_.[]=,%:+`, not starting with `.`, at most 120 bytes).
pub fn clean_name(name: &str) -> String {
    let mut n: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.[]=,%:+".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    while n.starts_with('.') {
        n.remove(0);
    }
    n.truncate(100);
    if n.is_empty() { "job".into() } else { n }
}

/// `name`, or `name-2`, `name-3`... when taken.
fn unique(name: &str, taken: &mut BTreeSet<String>) -> String {
    let mut n = name.to_string();
    let mut k = 2;
    while taken.contains(&n) {
        n = format!("{name}-{k}");
        k += 1;
    }
    taken.insert(n.clone());
    n
}
