//! `wkrun export fio SPEC`: a fio job file that runs the spec's phases fio can express, one job per phase
//! (a phase's workers are its `numjobs`; phases run one after another, so every job after the first is
//! stonewalled; with several targets, one job per target, run together). Phases fio cannot run (erase,
//! restore-image, verify) are left out, a simulated drive becomes a file of its capacity, and settings fio
//! reads differently are said: [`Exported::cannot`] and [`Exported::differs`], also written into the job
//! file as comments.

use crate::fio::mix_rate::{MixRate, Ratio};
use crate::plan::{self, ByteRange, StreamShape, span::ResolvedSpan};
use crate::spec::keys::with_defaults;
use crate::spec::{
    BlockSize, DataPattern, Engine, LoadedSpec, OnError, One, Pattern, PhaseKind, PhaseSpec,
    SpecError, SpecErrors, TargetSection,
};
use crate::stats::steady::{FioKind, FioMetric, Rule};
use crate::text::escaped;
use crate::units::{Amount, fmt_bytes};
use crate::vocab::{Coverage, WorkersSplit};
use std::fmt::Write;

/// A job file and what it leaves out or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The job file.
    pub text: String,
    /// Phases left out, and why (`phase purge (erase): ...`).
    pub cannot: Vec<String>,
    /// Where fio runs a phase otherwise than wkrun, and how.
    pub differs: Vec<String>,
    /// How many of the spec's phases are jobs of the job file: 0 when every phase is left out, and the job
    /// file runs nothing (attack 28 F4: `wkrun export fio` then exits 2, writing nothing).
    pub phases: usize,
}

/// The default target's size (wkrun-target.img) when the spec names none.
const DEFAULT_SIZE: u64 = crate::target::DEFAULT_TARGET_SIZE;

/// A spec's phases as a fio job file.
///
/// # Errors
/// Every value fio must read (a target's path, a phase's name as a job's name) that fio would read
/// otherwise than the spec means (a control character, `;`, `#`, `${`, fio's `$ncpus`, white space at
/// an end, a line too long for fio), located at its key in the spec; no job file then.
pub fn export(s: &LoadedSpec) -> Result<Exported, SpecErrors> {
    export_on(s, None)
}

/// [`export`] on the targets the command line names (`--target`, `--target-size`, as `wkrun run` takes
/// them: `cli` replaces the spec's `[target]`), said by their option (`--target`, `--target[1]`) where the
/// spec's are by their key. The caller checks `cli`'s paths first ([`path_problem`]): errors are located
/// in the spec.
///
/// # Errors
/// As [`export`].
pub fn export_on(s: &LoadedSpec, cli: Option<&TargetSection>) -> Result<Exported, SpecErrors> {
    export_sized(s, cli, &[])
}

/// [`export_on`] with the size each target has now: `sizes[i]` is the size in bytes of target `i` (the
/// command line's `--target`s in order, else the spec's `paths`, else its one target) when it is a file or
/// block device that exists, as `wkrun plan`'s probe read it; `None` for a file to create. A job's region is
/// in bytes of that size, as of a file the job file creates (trial 27 L5: workers' equal parts, a span in
/// percent; M2: fio's null engine, which opens no file), and no `filesize` is written for it.
///
/// # Errors
/// As [`export`].
pub fn export_sized(
    s: &LoadedSpec,
    cli: Option<&TargetSection>,
    sizes: &[Option<u64>],
) -> Result<Exported, SpecErrors> {
    let mut e = Exported {
        text: String::new(),
        cannot: Vec::new(),
        differs: Vec::new(),
        phases: 0,
    };
    let t = cli.or(s.file.target.as_ref());
    let mut files = files_of(t, cli.is_some(), &mut e);
    for (f, z) in files.iter_mut().zip(sizes) {
        f.measured = z.filter(|_| f.size.is_none());
    }
    refuse_unreadable(s, &files)?;
    // `[target] size` is the size of a file wkrun would create, and a run ignores it where every file
    // exists (a file or device measured, a simulated drive's file of its own size).
    let made = files
        .iter()
        .any(|f| f.size.is_none() && f.measured.is_none());
    let t_size = t.and_then(|t| t.size).map(|z| z.0).filter(|_| made);
    let file_size = match files.as_slice() {
        [one] => one.size.or(t_size),
        _ => t_size,
    };
    for sw in &s.file.sweep {
        e.differs.push(format!(
            "sweep {}: expanded, one job per member phase",
            sw.name
        ));
    }
    let defaults = s.file.defaults.clone().unwrap_or_default();
    // A path under /dev is a device (fio trims it with any engine); every other is a file fio trims only
    // with ioengine=falloc.
    let devices = files.iter().filter(|f| f.path.starts_with("/dev/")).count();
    let on = match devices {
        0 => On::Files,
        n if n == files.len() => On::Devices,
        _ => On::Both,
    };
    let mut jobs = String::new();
    let mut first = true;
    let mut sized = false;
    // Every exported job sets size: no filesize is written, and fio sizes a missing file by the regions.
    let mut all_sized = true;
    // Every exported job is on fio's null engine, which lays out no file.
    let mut diskless = true;
    // An exported job's region is in bytes of its target's size ([`of_the_size`]).
    let mut relative = false;
    for (i, p) in s.phases.iter().enumerate() {
        let p = with_defaults(p, &defaults);
        let Some(bodies) = bodies((s, i, &p), on, &files, t_size, &mut e) else {
            continue;
        };
        e.phases += 1;
        relative |= bodies.iter().any(|b| of_the_size(&p, b));
        sized |= bodies.iter().any(|b| sets_size(b));
        all_sized &= bodies.iter().all(|b| sets_size(b));
        diskless &= bodies.iter().all(|b| b.starts_with(NULL_ENGINE));
        let section = section_name(&p.name, &mut e);
        for (i, (f, body)) in files.iter().zip(&bodies).enumerate() {
            let at = suffix(i, files.len());
            let _ = writeln!(jobs, "\n[{section}{at}]");
            if section != p.name {
                let _ = writeln!(jobs, "name={}{at}", p.name);
            }
            if !first && i == 0 {
                jobs.push_str("stonewall\n");
            }
            if files.len() > 1 {
                let _ = writeln!(jobs, "filename={}", escape(&f.path));
                if let Some(z) = f.size.filter(|_| !sets_size(body)) {
                    let _ = writeln!(jobs, "filesize={}", fio_size(z));
                }
            } else if !sets_size(body) {
                jobs.push_str(FILESIZE);
            }
            jobs.push_str(body);
        }
        first = false;
    }
    // The one file's size: in [global] when no job sets size, else in each job that does not.
    let one = |z: u64| format!("filesize={}\n", fio_size(z));
    let each = file_size.filter(|_| sized && files.len() == 1);
    jobs = jobs.replace(FILESIZE, &each.map(one).unwrap_or_default());
    for f in files.iter().filter(|_| relative) {
        if let Some(z) = f.measured {
            e.differs.push(format!("{} {} exists: the jobs' regions are in bytes of its size at export, {}, as the plan resolves them (a percentage rounded to whole blocks, workers' parts of whole blocks: fio's percentages of the file it finds are not on those blocks, and its null engine opens no file); on a file or device of another size, export again", f.key, f.path, fmt_bytes(z)));
        }
    }
    if let Some(z) = file_size.filter(|_| sized && all_sized && !diskless) {
        e.differs.push(format!("no filesize beside a job's size (with it fio's size is only the amount of I/O and the job's region runs from its offset to the end of the file): before its first job runs, fio lays out a missing file up to the furthest end of the jobs' regions (offset + size), not at the target's {}", fmt_bytes(z)));
    }
    // The spec's file name, like every text in a comment, with its control characters shown escaped: a
    // line break in it would start lines fio reads as sections and options.
    let mut text = format!(
        "; fio job file exported by wkrun {} from {} (wkrun export fio)\n",
        env!("CARGO_PKG_VERSION"),
        escaped(&s.path.display().to_string())
    );
    // A comment is one line: a control character in what it says is shown escaped.
    for c in &e.cannot {
        let _ = writeln!(text, "; not exported: {}", escaped(c));
    }
    for d in &e.differs {
        let _ = writeln!(text, "; differs: {}", escaped(d));
    }
    text.push_str("\n[global]\ngroup_reporting=1\n");
    if let [one] = files.as_slice() {
        let _ = writeln!(text, "filename={}", escape(&one.path));
    }
    if let Some(z) = file_size.filter(|_| !sized) {
        let _ = writeln!(text, "filesize={}", fio_size(z));
    }
    text.push_str(&jobs);
    e.text = text;
    Ok(e)
}

/// The phase `p`'s job for each of `files`, whose spans in percent are in bytes of each file's size where
/// it is known (a file of `t_size` to create, a simulated drive's, an existing file or device measured at
/// export); `None` when it is not exported.
/// What the jobs differ in is said once, and nothing of a phase not exported but why (attack 26 F9).
fn bodies(
    (s, i, p): (&LoadedSpec, usize, &PhaseSpec),
    on: On,
    files: &[FioFile],
    t_size: Option<u64>,
    e: &mut Exported,
) -> Option<Vec<String>> {
    let said = e.differs.len();
    let mut bodies = Vec::new();
    for f in files {
        let before = (e.differs.len(), e.cannot.len());
        let size = f.size.or(f.measured).or(t_size);
        let planned = |z: u64| -> Result<(ResolvedSpan, Option<StreamShape>), String> {
            Ok((plan::phase_span(s, i, z)?, plan::phase_shape(s, i, z)))
        };
        let body = job(p, on, (size, &planned), e);
        if !bodies.is_empty() {
            e.differs.truncate(before.0);
            // One reason the phase is not exported.
            if body.is_some() || bodies.iter().any(Option::is_none) {
                e.cannot.truncate(before.1);
            }
        }
        bodies.push(body);
    }
    let all: Option<Vec<String>> = bodies.into_iter().collect();
    if all.is_none() {
        e.differs.truncate(said);
    }
    all
}

/// Where a job that does not set `size` states the one file's size, when another job sets it.
const FILESIZE: &str = "\u{0}filesize\n";

/// How a job on fio's null engine starts (its first option).
const NULL_ENGINE: &str = "ioengine=null\n";

/// Whether the job `body` of phase `p` has a region in bytes of its target's size: an offset in percent, or
/// a `size=` of a span in percent or of the whole target (workers' parts of it, a null engine's region).
/// Where the size is known, [`region`] writes those in bytes; where it is not, such a phase keeps its
/// percentages or is not exported.
fn of_the_size(p: &PhaseSpec, body: &str) -> bool {
    let percent = |a: Option<Amount>| matches!(a, Some(Amount::Percent(_)));
    percent(p.offset) || (sets_size(body) && !matches!(p.span.one(), Some(Amount::Bytes(_))))
}

/// Whether a job's options set fio's `size`, its region (beside `filesize` only its amount of I/O).
fn sets_size(body: &str) -> bool {
    body.lines().any(|l| l.starts_with("size="))
}

/// A file the job file runs on.
struct FioFile {
    /// Its key in the spec (`target.path`, `target.paths[1]`; `target` for wkrun's default file).
    key: String,
    /// Its path.
    path: String,
    /// The size fio gives it when it creates it (`filesize`): wkrun's default file's, or a simulated
    /// drive's capacity; `None` for a file or device the spec names.
    size: Option<u64>,
    /// The size of a file or device the spec names that exists, read at export ([`export_sized`]): its
    /// jobs' regions are in bytes of it; fio is not told it (`filesize`), the file has it.
    measured: Option<u64>,
}

/// The target's files: each path the spec names, wkrun's default file when it names none, and for each
/// simulated drive (`[target] sim`, a `"sim:..."` entry of `paths`) a file of its capacity
/// ([`sim_file`]).
/// `cli`: the targets are the command line's, said as `--target` (`--target[1]` of several).
fn files_of(t: Option<&TargetSection>, cli: bool, e: &mut Exported) -> Vec<FioFile> {
    let key = |spec: &str, i: Option<usize>| match (cli, i) {
        (true, None) => "--target".to_string(),
        (true, Some(i)) => format!("--target[{i}]"),
        (false, None) => spec.to_string(),
        (false, Some(i)) => format!("{spec}[{i}]"),
    };
    let default = |size: Option<crate::units::Size>| {
        vec![FioFile {
            key: "target".into(),
            path: crate::target::DEFAULT_TARGET_PATH.into(),
            size: Some(size.map_or(DEFAULT_SIZE, |z| z.0)),
            measured: None,
        }]
    };
    let Some(t) = t else {
        return default(None);
    };
    if let Some(p) = &t.sim {
        return vec![sim_file(&key("target.sim", None), p, None, e)];
    }
    match (&t.path, &t.paths) {
        (Some(p), _) => vec![FioFile {
            key: key("target.path", None),
            path: p.display().to_string(),
            size: None,
            measured: None,
        }],
        (None, Some(ps)) => ps
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let key = key("target.paths", Some(i));
                let path = p.display().to_string();
                // The spec's rules parsed every `sim:` entry already; one that no longer parses is
                // left to fio as the file it names.
                match crate::sim::SimParams::parse_target(&path) {
                    Ok(sim) if ps.len() > 1 => sim_file(&key, &sim, Some(i), e),
                    Ok(sim) => sim_file(&key, &sim, None, e),
                    Err(_) => FioFile {
                        key,
                        path,
                        size: None,
                        measured: None,
                    },
                }
            })
            .collect(),
        (None, None) => default(t.size),
    }
}

/// The file that stands for the simulated drive `sim` at `key` (fio runs on files and devices): wkrun's
/// default file, `wkrun-target-tN.img` for target N of several, of the drive's capacity; said in
/// `e.differs`.
fn sim_file(
    key: &str,
    sim: &crate::sim::SimParams,
    of_several: Option<usize>,
    e: &mut Exported,
) -> FioFile {
    let path = match of_several {
        Some(i) => format!("wkrun-target-t{i}.img"),
        None => crate::target::DEFAULT_TARGET_PATH.to_string(),
    };
    let size =
        crate::sim::geometry::Geometry::of(sim).map_or(sim.capacity.0, |g| g.capacity_bytes());
    e.differs.push(format!(
        "{key} is a simulated drive: its jobs run on the file {path} of the drive's capacity ({}) instead (fio runs on files and devices)",
        fmt_bytes(size)
    ));
    FioFile {
        key: key.into(),
        path,
        size: Some(size),
        measured: None,
    }
}

/// The longest line fio reads whole: fio reads a job file into a buffer of 4096 bytes a line (its
/// `OPT_LEN_MAX`, 8192 in later versions), newline included; the rest of a longer line is a line of its
/// own to fio.
const FIO_LINE: usize = 4094;

/// Why fio, reading `v` as the value of `key` on a line of the job file, would read something else; `None`
/// when it reads `v`.
fn unreadable(key: &str, v: &str) -> Option<String> {
    if let Some(c) = v.chars().find(|c| c.is_control()) {
        return Some(format!(
            "it holds the control character {}: fio's job files cannot hold it (fio reads them line by line, so a line break would start a line of fio options of its own; fio has no escape for any control character)",
            c.escape_default()
        ));
    }
    if let Some(c) = v.chars().find(|&c| c == ';' || c == '#') {
        return Some(format!(
            "it holds `{c}`, which fio reads as the start of a comment anywhere on a line, with no escape for it: fio would open the path cut before it"
        ));
    }
    if v.contains("${") {
        return Some("it holds `${`: fio replaces `${NAME}` anywhere on a line with the environment variable NAME (with nothing when NAME is not set), with no escape for it".into());
    }
    if let Some((k, what)) = crate::fio::jobfile::KEYWORDS
        .iter()
        .find(|(k, _)| v.contains(k))
    {
        return Some(format!(
            "it holds `{k}`, which fio replaces anywhere on a line with {what}, with no escape for it"
        ));
    }
    if v.trim() != v {
        return Some("it starts or ends with white space, which fio drops from a value".into());
    }
    let line = key.len() + 1 + v.len();
    if line > FIO_LINE {
        return Some(format!(
            "its line in the job file ({line} bytes) is longer than the {FIO_LINE} fio reads as one line: fio would read the rest as a line of its own"
        ));
    }
    None
}

/// Why fio would open another file than `path` named in a job file's `filename=`, if it would
/// (the check the spec's own paths get): `wkrun export fio --target PATH` refuses such a path as the spec's.
pub fn path_problem(path: &str) -> Option<String> {
    unreadable("filename", &escape(path))
}

/// Refuses the export when any value fio must read would be read otherwise ([`unreadable`]): the target's
/// files and the phases' names (fio's job names), each error at its key.
fn refuse_unreadable(s: &LoadedSpec, files: &[FioFile]) -> Result<(), SpecErrors> {
    let help = || {
        Some("a job file cannot say this to fio: rename the file (or use a link to it without these characters), or run the spec with wkrun".to_string())
    };
    let mut out: Vec<SpecError> = files
        .iter()
        .filter_map(|f| {
            let why = unreadable("filename", &escape(&f.path))?;
            Some(s.key_error(
                &f.key,
                format!("fio cannot be given the path {:?}: {why}", f.path),
                help(),
            ))
        })
        .collect();
    for (i, p) in s.phases.iter().enumerate() {
        if let Some(why) = unreadable("name", &p.name) {
            out.push(s.phase_error(
                i,
                "name",
                format!("fio cannot be given the job name {:?}: {why}", p.name),
                help(),
            ));
        }
    }
    match out.is_empty() {
        true => Ok(()),
        false => Err(SpecErrors(out, crate::spec::load::Cause::Input)),
    }
}

/// The section of phase `name`'s job: its name, except that fio reads every section whose name starts
/// with `global` as global options (no job), so such a phase's job is the section `job-NAME` with the
/// option `name=NAME` (its name in fio's output, and for `wkrun import fio`), said in `e.differs`.
fn section_name(name: &str, e: &mut Exported) -> String {
    if !name.starts_with("global") {
        return name.to_string();
    }
    e.differs.push(format!(
        "phase {name}: its job is the section [job-{name}] with name={name}, since fio reads a section whose name starts with \"global\" as global options, not a job"
    ));
    format!("job-{name}")
}

/// A section name's suffix for the copy of a phase on target `i` of `n`.
fn suffix(i: usize, n: usize) -> String {
    if n > 1 {
        format!("@t{i}")
    } else {
        String::new()
    }
}

/// A file name as fio reads it: `:` separates files, and fio reads `\:` as a colon (a backslash before
/// any other character is itself). What fio cannot be told (`;`, `#`, `${`) is refused before
/// (`unreadable`).
fn escape(f: &str) -> String {
    f.replace(':', "\\:")
}

/// Bytes in fio's units (`k` = 1024 with fio's default kb_base).
fn fio_size(b: u64) -> String {
    fmt_bytes(b)
        .replace("KiB", "k")
        .replace("MiB", "m")
        .replace("GiB", "g")
        .replace("TiB", "t")
        .replace("PiB", "p")
        .replace('B', "")
}

/// An amount in fio's units; a percentage must be whole.
fn fio_amount(a: Amount) -> Option<String> {
    match a {
        Amount::Bytes(b) => Some(fio_size(b)),
        Amount::Percent(p) if p.0 % 1_000_000 == 0 => Some(format!("{}%", p.0 / 1_000_000)),
        Amount::Percent(_) => None,
    }
}

/// What the job file's files are: fio trims a block device with any engine, a regular file only with
/// its falloc engine (its others end with error 25 on a file).
#[derive(Clone, Copy, PartialEq, Eq)]
enum On {
    /// Regular files only (wkrun's default file, a simulated drive's, paths not under /dev).
    Files,
    /// Block devices only (paths under /dev).
    Devices,
    /// Both: one job cannot suit both.
    Both,
}

/// The options of the job for phase `p` on the files `on`, or `None` (with the reason in `e.cannot`).
/// `file_size`: the size of the job file's files when it states one (`filesize`), for a span in percent, and
/// the plan's span of the phase on a file of a size.
fn job(
    p: &PhaseSpec,
    on: On,
    file_size: (Option<u64>, Planned),
    e: &mut Exported,
) -> Option<String> {
    let what = |why: &str| format!("phase {} ({}): {why}", p.name, p.kind.as_str());
    match p.kind {
        PhaseKind::Erase => {
            e.cannot.push(what("fio has no erase (its trim workloads discard block by block); erase the target before running fio (blkdiscard, nvme format)"));
            return None;
        }
        PhaseKind::RestoreImage => {
            e.cannot
                .push(what("fio writes no image; restore it with dd first"));
            return None;
        }
        PhaseKind::Verify => {
            e.cannot.push(what("wkrun's verify reads back its own sector stamps, which fio does not write; fio verifies its own headers in the writing job (verify=crc32c)"));
            return None;
        }
        PhaseKind::Fill | PhaseKind::Workload => {}
    }
    let trim = trim_percent(p);
    if (1..100).contains(&trim) {
        e.cannot.push(what(&format!("its {trim} % trims among reads and writes have no fio job: fio's rw=trim and randtrim trim only, and trimwrite trims each block before writing it")));
        return None;
    }
    if let Some(why) = poisson_syncs(p) {
        e.cannot.push(what(&why));
        return None;
    }
    if trim == 100 && on == On::Both {
        // Trial 18 F2: an exported randtrim job on a file ended with fio's error 25 after one trim.
        e.differs.push(format!("phase {}: fio trims a block device with any engine but a regular file only with ioengine=falloc (its other engines end with error 25 on a file); this job file has both, so the files' copies of this job need ioengine=falloc", p.name));
    }
    let mut o = String::new();
    let mut say = |k: &str, v: String| {
        let _ = writeln!(o, "{k}={v}");
    };
    let workers = p.workers.unwrap_or(1).max(1) as u64;
    let qd = p.queue_depth.one().unwrap_or(1).max(1) as u64;
    let engine = p.engine.one().unwrap_or(Engine::Psync);
    // Attack 19 F4: on files, trims are fio's falloc engine's, which punches one hole at a time, as wkrun's
    // psync trims (and `wkrun import fio` reads such a job back as psync trims at QD 1).
    let name = match engine {
        Engine::Psync => "psync",
        Engine::Libaio => "libaio",
        Engine::IoUring => "io_uring",
        Engine::Null => "null",
    };
    let falloc = trim == 100 && on == On::Files && engine != Engine::Null;
    if falloc && engine != Engine::Psync {
        e.differs.push(format!("phase {}: fio trims a file only with ioengine=falloc, one trim at a time a job: exported with ioengine=falloc and iodepth=1 for the phase's {name} at queue depth {qd}", p.name));
    }
    let (jobs, depth) = match engine {
        _ if falloc && engine != Engine::Psync => (workers, 1),
        Engine::Psync if qd > 1 => {
            e.differs.push(format!("phase {}: wkrun's psync keeps queue_depth {qd} threads per worker, each with one I/O; fio's psync keeps one I/O per job, so numjobs = workers × queue_depth = {} with iodepth=1", p.name, workers * qd));
            (workers * qd, 1)
        }
        _ => (workers, qd),
    };
    say("ioengine", if falloc { "falloc" } else { name }.into());
    say(
        "direct",
        if p.direct.unwrap_or(true) { "1" } else { "0" }.into(),
    );
    rw(p, &mut say, e);
    if !block(p, &mut say, e) {
        return None;
    }
    say("iodepth", depth.to_string());
    let (pattern, coverage) = crate::spec::rules::pattern_and_coverage(p);
    let uniform = pattern == Pattern::Random && coverage == Coverage::Uniform;
    // psync's threads of one worker draw from its one stream: uniform random draws are fio's jobs each over
    // the worker's whole region.
    let shared = p.workers_split == Some(WorkersSplit::Shared) || (uniform && workers == 1);
    if !region(p, (jobs, file_size), (shared, on), &mut say, e) {
        return None;
    }
    if !rest(p, jobs, &mut say, e) {
        return None;
    }
    flushes(p, (jobs, workers), &mut say, e);
    Some(o)
}

/// Why fio 3.33 cannot run the phase's rate-capped Poisson arrivals with `fsync` or `fdatasync`, if so.
/// fio 3.33 takes a sync for a direction of its rate state, past the end of its per-direction arrays
/// (fixed in fio 3.42), and divides by zero there: the job ends with SIGFPE, fio reporting only its I/Os
/// before it (`rw=write`, `fsync=1`: 1 write, 1 sync), and exits 0 on psync, 134 on libaio and io_uring.
/// Measured with fio 3.33 (attack 22 F6, I2): every
/// run of `rw=write`, `fsync=1`, `rate_iops=100`, `rate_process=poisson` (also with `rate=1m`, on
/// psync, libaio and io_uring); a mix at times (`rw=randrw`, `bssplit=4k/50:64k/50`, `rate_iops=1024,256`,
/// `fsync=3`: every run; `bs=4k` and `rate_iops=100`: none of three). Without the cap, the Poisson process
/// or the syncs, none crashed; no fio option issues the same syncs otherwise, so the phase is left out.
fn poisson_syncs(p: &PhaseSpec) -> Option<String> {
    let poisson = p.rate_process == Some(crate::vocab::RateProcess::Poisson);
    let key = match (p.fsync, p.fdatasync) {
        (Some(_), _) => "fsync",
        (None, Some(_)) => "fdatasync",
        (None, None) => return None,
    };
    (poisson && p.rate_iops.is_some()).then(|| format!(
        "fio 3.33 fails a job with rate_process=poisson under a rate cap and {key}: it reads a sync's arrival time past the end of its per-direction rate state and divides by zero (SIGFPE: the job is killed there, fio reporting only its I/Os before it; every run of a job that only writes, some runs of a mix; fixed in fio 3.42); export it with rate_process = \"linear\" (fio paces evenly) or without {key}, or run it with wkrun"
    ))
}

/// The phase's share of trims (`trim_percent`; 0 for a fill, which has none).
fn trim_percent(p: &PhaseSpec) -> i64 {
    match p.kind {
        PhaseKind::Workload => p.trim_percent.map_or(0, |t| t.0),
        _ => 0,
    }
}

/// `sync`, `fsync`, `fdatasync`: fio's options of the same meaning (which `wkrun import fio` reads back).
/// fio counts `fsync=N` per job: with psync's threads as jobs, that differs from wkrun's per worker.
fn flushes(
    p: &PhaseSpec,
    (jobs, workers): (u64, u64),
    say: &mut impl FnMut(&str, String),
    e: &mut Exported,
) {
    match p.sync {
        Some(crate::vocab::SyncWrites::Sync) => say("sync", "1".into()),
        Some(crate::vocab::SyncWrites::Dsync) => say("sync", "dsync".into()),
        Some(crate::vocab::SyncWrites::None) | None => {}
    }
    for (key, every) in [("fsync", p.fsync), ("fdatasync", p.fdatasync)] {
        let Some(n) = every else { continue };
        say(key, n.to_string());
        if jobs != workers {
            e.differs.push(format!("phase {}: fio's {key}={n} flushes after every {n} writes of each of its {jobs} jobs; wkrun's after every {n} writes of each of its {workers} workers", p.name));
        }
        // fio syncs whenever its issued writes are a nonzero multiple of N and the last I/O to complete
        // was not a sync: again before each other I/O until its next write (trial 21 T1).
        let others = read_percent(p) + trim_percent(p);
        if others > 0 && others < 100 {
            e.differs.push(format!("phase {}: fio's {key}={n} in a job that also reads or trims syncs again before each of those until its next write (it syncs whenever its issued writes are a nonzero multiple of {n} and the last I/O to complete was not a sync): more syncs than wkrun's one after every {n} writes", p.name));
        }
    }
}

/// The phase's read share in percent (0 for a fill).
fn read_percent(p: &PhaseSpec) -> i64 {
    match p.kind {
        PhaseKind::Fill => 0,
        _ => p.read_percent.one().map_or(0, |r| r.0),
    }
}

/// What a phase's seed draws in wkrun, which fio draws otherwise from the same seed: random offsets, the
/// block sizes of a size mix, the order of reads and writes in a mix, the written data (unless zeros),
/// Poisson arrival times. Empty for a sequential read of one block size: the seed draws nothing there.
fn seeded(p: &PhaseSpec) -> Vec<&'static str> {
    let (pattern, _) = crate::spec::rules::pattern_and_coverage(p);
    let read = read_percent(p);
    let trim = trim_percent(p);
    let mut drives = Vec::new();
    if pattern == Pattern::Random {
        drives.push("offsets");
    }
    if matches!(p.block_size.one(), Some(BlockSize::Mix(_))) {
        drives.push("block sizes");
    }
    if (1..100).contains(&read) {
        drives.push("order of reads and writes");
    }
    if read < 100 && trim < 100 && p.data.one() != Some(DataPattern::Zeros) {
        drives.push("data");
    }
    if p.rate_process == Some(crate::vocab::RateProcess::Poisson) {
        drives.push("arrival times");
    }
    drives
}

/// `rw`, `rwmixread`, `norandommap`.
fn rw(p: &PhaseSpec, say: &mut impl FnMut(&str, String), e: &mut Exported) {
    let (pattern, coverage) = crate::spec::rules::pattern_and_coverage(p);
    let read = read_percent(p);
    let random = pattern == Pattern::Random;
    let word = match (random, read) {
        (false, _) if trim_percent(p) == 100 => "trim",
        (true, _) if trim_percent(p) == 100 => "randtrim",
        (false, 100) => "read",
        (false, 0) => "write",
        (false, _) => "rw",
        (true, 100) => "randread",
        (true, 0) => "randwrite",
        (true, _) => "randrw",
    };
    say("rw", word.into());
    if (1..100).contains(&read) {
        say("rwmixread", read.to_string());
        e.differs.push(format!("phase {}: wkrun's read share is exactly {read} in every 100 I/Os; fio draws each I/O's direction at random ({read} % chance)", p.name));
    }
    if random {
        if coverage == Coverage::Uniform {
            say("norandommap", "1".into());
        } else {
            e.differs.push(format!("phase {}: full coverage is fio's random map (each block once per pass), in another order", p.name));
        }
        if let Some(d) = p.distribution.as_ref().filter(|d| !d.is_uniform()) {
            distribution(p, d, say, e);
        }
    }
}

/// `random_distribution`, in fio's spelling (a normal's σ as a percentage of the span).
fn distribution(
    p: &PhaseSpec,
    d: &crate::spec::Distribution,
    say: &mut impl FnMut(&str, String),
    e: &mut Exported,
) {
    use crate::spec::Distribution as D;
    let name = &p.name;
    let value = match d {
        D::Normal(sigma) => {
            e.differs.push(format!("phase {name}: fio's normal is an average of uniform draws with the deviation added, its blocks scattered by a hash; wkrun's is a normal bell on the span's middle"));
            if *sigma * 100.0 >= 100.0 {
                e.differs.push(format!("phase {name}: fio's normal deviation is below 100 % of the span; σ = {sigma} is written as 99.99"));
            }
            format!(
                "normal:{}",
                crate::units::readable_float((sigma * 100.0).min(99.99))
            )
        }
        D::ZonedAbs(v) => {
            let zones: Vec<String> = v
                .iter()
                .map(|z| format!("{}/{}", z.io_percent, fio_size(z.size)))
                .collect();
            format!("zoned_abs:{}", zones.join(":"))
        }
        D::Zipf(t) if *t == 1.0 => {
            e.differs.push(format!(
                "phase {name}: fio refuses zipf θ = 1 (it needs θ ≠ 1)"
            ));
            d.to_string()
        }
        other => other.to_string(),
    };
    if matches!(d, D::Zipf(_) | D::Pareto(_)) {
        e.differs.push(format!("phase {name}: fio scatters the {} ranks over the span with its own hash (and an offset from its seed), so its hot blocks are other blocks than wkrun's", if matches!(d, D::Zipf(_)) { "zipf" } else { "pareto" }));
    }
    say("random_distribution", value);
}

/// `bs` or `bssplit`; false (with the reason) when fio's percentages cannot hold the weights.
fn block(p: &PhaseSpec, say: &mut impl FnMut(&str, String), e: &mut Exported) -> bool {
    match p.block_size.one() {
        None => say("bs", fio_size(crate::plan::default_block_size(p.kind))),
        Some(BlockSize::Single(b)) => say("bs", fio_size(b.0)),
        Some(BlockSize::Mix(v)) => {
            let v = weighted(&v);
            let sum: u64 = v.iter().map(|e| e.1).sum();
            if v.iter().any(|e| (e.1 * 100) % sum != 0) {
                e.cannot.push(format!("phase {} (workload): the block-size weights are no whole percentages, which fio's bssplit needs", p.name));
                return false;
            }
            let parts: Vec<String> = v
                .iter()
                .map(|(z, w)| format!("{}/{}", fio_size(*z), w * 100 / sum))
                .collect();
            say("bssplit", parts.join(":"));
        }
    }
    true
}

/// `offset`, `size`, `offset_increment`, `numjobs` and the bound; false (with the reason) when fio cannot
/// hold the workers' parts. `file_size`: the size of a file the job file creates, or of one that exists,
/// read at export ([`export_sized`]); a span or offset in percent is written in bytes of it, the whole file
/// too when workers split it (attack 24: a fill at queue depth 8 on wkrun's default 1 GiB file was not
/// exported; fio cannot take a percentage of a file it must create, "you need to specify size="; trial 27
/// L5: nor was one on an existing file), and a null-engine job's whole region, or the job is refused when
/// that is not in bytes (trial 27 M2: fio's null engine opens no file). No `filesize` stands beside a job's
/// `size` (export_on): fio's region is then exactly [offset, offset + size).
fn region(
    p: &PhaseSpec,
    (jobs, file_size): (u64, (Option<u64>, Planned)),
    (shared, on): (bool, On),
    say: &mut impl FnMut(&str, String),
    e: &mut Exported,
) -> bool {
    // A file the job file creates has no filesize beside a job's size (it would stretch the job's region to
    // the end of the file): its span is written in bytes of it, which fio needs to create it, as the plan
    // resolves it (attack 28 F3: a percentage times the size, unrounded, started fio below the plan's span).
    let Some(resolved) = planned_span(p, file_size, e) else {
        return false;
    };
    let in_bytes = |a: Amount, planned: Option<u64>| planned.map_or(a, Amount::Bytes);
    let span = p
        .span
        .one()
        .map(|s| in_bytes(s, resolved.as_ref().map(|r| r.0.len)));
    let offset = match p
        .offset
        .map(|o| in_bytes(o, resolved.as_ref().map(|r| r.0.start)))
        .filter(|o| *o != Amount::Bytes(0))
    {
        None => None,
        Some(o) => match fio_amount(o) {
            Some(v) => Some(v),
            None => {
                e.cannot.push(format!(
                    "phase {}: offset {o} is no whole percentage",
                    p.name
                ));
                return false;
            }
        },
    };
    // The whole file from the offset: in bytes when the file's size is known.
    let whole = || match &resolved {
        Some(r) => Amount::Bytes(r.0.len),
        None => Amount::Percent(crate::units::Percent(100_000_000)),
    };
    let null = p.engine.one() == Some(Engine::Null);
    let part = match (jobs > 1 && !shared, span) {
        (false, Some(s)) => match fio_amount(s) {
            Some(v) => Some(v),
            None => {
                e.cannot
                    .push(format!("phase {}: span {s} is no whole percentage", p.name));
                return false;
            }
        },
        // fio's null engine opens no file: its region is stated whole (trial 27 M2).
        (false, None) if null => fio_amount(whole()),
        (false, None) => None,
        (true, s) => match resolved.as_ref().and_then(|r| r.1).map_or_else(
            || split((s.unwrap_or_else(whole), "span"), jobs, block_unit(p)),
            |shape| dealt(&shape, (jobs, block_unit(p)), &p.name, e),
        ) {
            Ok(v) => Some(v),
            Err(why) => {
                e.cannot.push(format!("phase {}: {why}", p.name));
                return false;
            }
        },
    };
    if null
        && [&offset, &part]
            .into_iter()
            .flatten()
            .any(|v| v.ends_with('%'))
    {
        e.cannot.push(format!("phase {}: fio's null engine opens no file, so it needs the job's region in bytes (size=, offset=; a percentage, or no size, ends the job with \"you need to specify size=\", error 22), and the job file does not state the file's size: export with --target naming the existing file or device (its size is read) or --target-size for a file to create, or give span and offset in bytes", p.name));
        return false;
    }
    // fio 3.33's null engine on a block device does no I/O in a job whose offset is not below its size, and
    // one I/O offset over and over in another with an offset (measured on a loop device; from offset 0 it
    // draws over its region as on a file): its jobs there start at 0, each over a region of its part's size.
    let from_zero = null && on != On::Files && (offset.is_some() || (jobs > 1 && !shared));
    if from_zero {
        e.differs.push(format!("phase {}: fio's null engine on a block device does no I/O (or repeats one offset) in a job that starts past offset 0, so each of its jobs runs over [0, {}) instead of its part of the span: the same amount of I/O, which the null engine does not do, at other offsets", p.name, part.as_deref().unwrap_or_default()));
    }
    if let Some(v) = offset.filter(|_| !from_zero) {
        say("offset", v);
    }
    if let Some(v) = &part {
        say("size", v.clone());
    }
    if jobs > 1 {
        say("numjobs", jobs.to_string());
        if !shared && !from_zero {
            say("offset_increment", part.unwrap_or_default());
        }
    }
    bound(p, jobs, shared, say, e)
}

/// Each of `jobs` equal parts of the span `s` in fio's units, as wkrun's partitioned workers take it: in
/// bytes, a multiple of `jobs` × `unit` (wkrun cuts the span into whole blocks of `unit`, the first parts a
/// block larger when they do not divide: 10 MiB over 3 workers of 4 KiB is 854, 853 and 853 blocks); in
/// percent, a whole percentage each (of a file fio measures). Else why not, and what would split. `noun`
/// names what `s` is: the span, or the size a sequential pass bounded to less than the span writes.
fn split((s, noun): (Amount, &str), jobs: u64, unit: Option<u64>) -> Result<String, String> {
    let unit_bytes = unit.unwrap_or(1).max(1);
    match s {
        Amount::Bytes(b) if b % (jobs * unit_bytes) == 0 => return Ok(fio_size(b / jobs)),
        Amount::Percent(q) if q.0 % (jobs * 1_000_000) == 0 => {
            return Ok(format!("{}%", q.0 / 1_000_000 / jobs));
        }
        _ => {}
    }
    let unit = unit.map_or("the block size".to_string(), fmt_bytes);
    let what = match s {
        Amount::Bytes(_) => format!(
            "the {noun} {s} is no multiple of {jobs} × {unit} (wkrun's workers take whole blocks, parts that differ by a block where they do not divide)"
        ),
        Amount::Percent(_) => format!(
            "the span {s} of a file whose size the job file does not state is no whole percentage a job"
        ),
    };
    Err(format!(
        "fio's {jobs} jobs (numjobs, offset_increment) each take an equal part, and {what}; a {noun} in bytes that is a multiple of {jobs} × {unit} would split"
    ))
}

/// Why fio's `jobs` jobs, each doing one `io_size`, cannot do what the plan deals its workers (`parts`,
/// of a phase in blocks of `unit` read in `order`) when their I/Os differ: `None` when they are equal.
/// Attack 29 F2: a sequential size of one pass and a half over two parts, 2048 and 1024 I/Os, was exported
/// as 1536 each.
fn unequal_ops(parts: &[plan::WorkerPlan], unit: u64, order: crate::ops::Order) -> Option<String> {
    let ops: Vec<u64> = parts.iter().filter_map(|w| w.ops).collect();
    if ops.windows(2).all(|w| w[0] == w[1]) {
        return None;
    }
    let jobs = parts.len();
    let list: Vec<String> = ops.iter().map(u64::to_string).collect();
    let (how, fix) = match order {
        crate::ops::Order::Sequential => (
            "a sequential worker passes over its part, and the I/Os past the last whole pass go to the span's first blocks",
            "a size of whole passes over the span would split".to_string(),
        ),
        _ => (
            "the first workers take one more where they do not divide",
            format!("a size of a multiple of {jobs} blocks would split"),
        ),
    };
    Some(format!(
        "the plan deals the size's {} I/Os of {} to the {jobs} workers as {} ({how}), and fio's {jobs} jobs (numjobs) each do the same io_size; {fix}",
        ops.iter().sum::<u64>(),
        fmt_bytes(unit),
        list.join(", ")
    ))
}

/// Each of `jobs` equal parts of the phase as the plan deals it to that many workers ([`plan::deal_workers`]
/// of its `shape`: the span, or a sequential phase's first blocks when it is bounded to less than a pass,
/// attack 28 F4), in bytes, when they are as long and follow each other from the span's start (parts of
/// less than the span said in `e.differs`: fio's JSON reads them as the span); else [`split`]'s reason for
/// the bytes dealt.
fn dealt(
    shape: &StreamShape,
    (jobs, unit): (u64, Option<u64>),
    name: &str,
    e: &mut Exported,
) -> Result<String, String> {
    let of = u32::try_from(jobs).unwrap_or(u32::MAX);
    let parts = plan::deal_workers(shape, of, WorkersSplit::Partitioned);
    let len = parts.first().map_or(0, |w| w.range.len);
    let at = |k: usize| shape.range.start + k as u64 * len;
    let total: u64 = parts.iter().map(|w| w.range.len).sum();
    let equal = parts
        .iter()
        .enumerate()
        .all(|(k, w)| w.range == ByteRange { start: at(k), len });
    if len == 0 || !equal {
        let noun = if total < shape.range.len {
            "size"
        } else {
            "span"
        };
        return split((Amount::Bytes(total), noun), jobs, unit);
    }
    if let Some(why) = unequal_ops(&parts, shape.unit, shape.order) {
        return Err(why);
    }
    if total < shape.range.len {
        e.differs.push(format!("phase {name}: a sequential pass bounded to less than the span writes its first {}, dealt to the {jobs} jobs in parts of {} as to wkrun's workers: fio's regions are those parts, so its JSON reads the span as {}, not {}", fmt_bytes(total), fmt_bytes(len), fmt_bytes(total), fmt_bytes(shape.range.len)));
    }
    Ok(fio_size(len))
}

/// The unit wkrun cuts a phase's span into for its workers: its block size (the kind's default), a mix's
/// smallest size; `None` for a matrix of them.
fn block_unit(p: &PhaseSpec) -> Option<u64> {
    match p.block_size.one() {
        None if p.block_size.is_none() => Some(crate::plan::default_block_size(p.kind)),
        None => None,
        Some(BlockSize::Single(b)) => Some(b.0),
        Some(BlockSize::Mix(v)) => weighted(&v).iter().map(|w| w.0).min(),
    }
}

/// The plan's span of a phase on a target of the size given ([`crate::plan::phase_span`]), and what its
/// workers are dealt from ([`crate::plan::phase_shape`]).
type Planned<'a> = &'a dyn Fn(u64) -> Result<(ResolvedSpan, Option<StreamShape>), String>;

/// The phase's span in bytes of a target of `file_size`, as `wkrun plan` resolves it (`plan`: a percent
/// offset rounded up to a whole block, the span down to whole blocks); `Some(None)` when the size is
/// unknown (fio takes the percentages of the file it finds); `None` (the reason in `e.cannot`) when the plan
/// refuses the span, or a matrix of block sizes leaves its blocks open while an offset or span is in
/// percent.
fn planned_span(
    p: &PhaseSpec,
    (file_size, plan): (Option<u64>, Planned),
    e: &mut Exported,
) -> Option<Option<(ResolvedSpan, Option<StreamShape>)>> {
    let Some(f) = file_size else {
        return Some(None);
    };
    if block_unit(p).is_none() {
        let percent = [p.offset, p.span.one()]
            .into_iter()
            .flatten()
            .any(|a| matches!(a, Amount::Percent(_)));
        if percent {
            e.cannot.push(format!("phase {}: offset and span in percent are rounded to whole blocks of the phase's block size, and its block size is a matrix: give them in bytes", p.name));
            return None;
        }
        return Some(None);
    }
    match plan(f) {
        Ok(r) => Some(Some(r)),
        Err(why) => {
            e.cannot
                .push(format!("phase {}: on a target of {f} B: {why}", p.name));
            None
        }
    }
}

/// `runtime` + `time_based`, or `io_size`/`loops`.
fn bound(
    p: &PhaseSpec,
    jobs: u64,
    shared: bool,
    say: &mut impl FnMut(&str, String),
    e: &mut Exported,
) -> bool {
    if let Some(d) = p.duration {
        say("runtime", format!("{}s", d.0.div_ceil(1_000_000_000)));
        say("time_based", "1".into());
        if d.0 % 1_000_000_000 != 0 {
            e.differs.push(format!(
                "phase {}: duration {d} rounded up to whole seconds",
                p.name
            ));
        }
        return true;
    }
    let passes = p.passes.unwrap_or(1).max(1) as u64;
    match p.size {
        None => say("loops", passes.to_string()),
        Some(Amount::Bytes(b)) if b % jobs == 0 => say("io_size", fio_size(b / jobs)),
        Some(Amount::Percent(q)) => {
            // Of the span: each job does q% of its part (partitioned) or of the whole span (shared).
            let per = if shared { q.0 / jobs } else { q.0 };
            match per {
                x if x % 100_000_000 == 0 => say("loops", (x / 100_000_000).to_string()),
                x if x < 100_000_000 && x % 1_000_000 == 0 => {
                    say("io_size", format!("{}%", x / 1_000_000))
                }
                _ => {
                    e.cannot.push(format!("phase {}: size {} per job is no whole percentage of its region up to 100 % or whole number of passes", p.name, Amount::Percent(q)));
                    return false;
                }
            }
        }
        Some(other) => {
            e.cannot.push(format!(
                "phase {}: size {other} does not split evenly over {jobs} jobs",
                p.name
            ));
            return false;
        }
    }
    true
}

/// The phase's block-size mix as fio's rate cap sees it ([`crate::fio::mix_rate`]); `None` for one size.
fn mix_rate(p: &PhaseSpec) -> Option<MixRate> {
    match p.block_size.one()? {
        BlockSize::Mix(v) => MixRate::of(&weighted(&v)),
        BlockSize::Single(_) => None,
    }
}

/// A block-size mix's sizes of a weight above 0, in bytes, with their weights: what fio's bssplit gets.
fn weighted(v: &[(crate::units::Size, u32)]) -> Vec<(u64, u64)> {
    v.iter()
        .filter(|e| e.1 > 0)
        .map(|(z, w)| (z.0, u64::from(*w)))
        .collect()
}

/// fio's `rate` (bytes per second) per job for the phase's caps `[reads, writes]` over `jobs` jobs with the
/// block-size mix `m`, evenly paced: fio paces bytes, so the cap that gives the spec's I/Os per second on
/// average is rate × mean size ([`MixRate::bytes_of_ios`]), rounded to the nearest byte (said in
/// `e.differs` unless exact); it imports back as the spec's rate.
fn mix_bytes(p: &PhaseSpec, m: &MixRate, caps: [u64; 2], jobs: u64, e: &mut Exported) -> [u64; 2] {
    let fio = caps.map(|c| m.bytes_of_ios(c).per(jobs));
    if fio.iter().zip(caps).any(|(f, c)| c > 0 && !f.whole()) {
        let each: Vec<String> = ["reads", "writes"]
            .iter()
            .zip(caps)
            .zip(fio)
            .filter(|((_, c), _)| *c > 0)
            .map(|((d, c), f)| {
                format!(
                    "{d} {c} × {} / {jobs} = {}, rounded to {}",
                    num(m.mean()),
                    num((f.value() * 100.0).round() / 100.0),
                    f.nearest()
                )
            })
            .collect();
        e.differs.push(format!("phase {}: fio paces a block-size mix's bytes, so its rate per job is the spec's I/Os per second × the mean size ({} B) / jobs, in whole bytes per second: {}", p.name, num(m.mean()), each.join(", ")));
    }
    fio.map(|f| f.nearest())
}

/// A number without trailing zeros (`0.1`, `10`).
fn num(x: f64) -> String {
    let t = format!("{x:.6}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The one note that a total cap `t` over a phase of `read` % reads (between 0 and 100) is split into
/// per-direction caps `[rd, wr]`, fio having no total cap: as the read share where that is exact, else in
/// whole I/Os per second that do not keep the share (total 7 at 50 %: 3 reads/s and 4 writes/s, attack 28
/// F11), said once (trial 28 M1's export said both lines).
fn split_said(name: &str, t: u64, read: u64, [rd, wr]: [u64; 2]) -> String {
    if u128::from(rd) * 100 == u128::from(t) * u128::from(read) {
        return format!(
            "phase {name}: fio caps each direction; the total cap {t} is split as the read share ({rd} reads/s and {wr} writes/s)"
        );
    }
    let exact = num(t as f64 * read as f64 / 100.0);
    let share = rd as f64 * 100.0 / t as f64;
    format!(
        "phase {name}: fio caps each direction in whole I/Os per second, so the total cap {t} at {read} % reads is split into {rd} reads/s ({t} × {read} % = {exact}, rounded down) and {wr} writes/s (the rest): a read share of {share:.1} % under the cap, not {read} %"
    )
}

/// The rates wkrun issues a phase of `read` % reads at under `rate`, `[reads, writes]` (trims in the second
/// for a phase of trims only), and the per-direction caps fio must have to run them, with the lines saying
/// how, for `jobs` jobs: one path for every combination of caps (attack 29 F1: `{ read = 100, total = 400
/// }` at 70 % reads ran 100 reads/s and 43 writes/s in wkrun, its export split the total, 280,120). wkrun
/// issues I/Os in stream order at the phase's mix, so the cap with the lowest rate over its share paces
/// every direction ([`crate::plan::pace_of`]) and each direction gets that pace × its share; a direction cap
/// above it never delays an I/O. Where the total paces, fio's caps are the total split as the read share,
/// reads rounded down and writes the rest ([`split_said`]). Where a direction's cap paces, fio caps each
/// direction and issues whichever is behind its cap (an uncapped one whenever the other is ahead), so its mix
/// follows its caps, not rwmixread (attack 28 F10: `{ read = 100, write = 50 }` at 30 % reads exported as
/// 50,25 per job of 2 ran 100 reads/s and 50 writes/s in fio, 21 reads/s in wkrun): its caps are those rates,
/// to the nearest whole I/Os per second; with `rate_iops` (one block size, or Poisson arrivals) fio's caps
/// are whole per job, so the line gives the rates fio then runs.
fn reached_caps(
    p: &PhaseSpec,
    rate: crate::vocab::Rate,
    read: u64,
    jobs: u64,
) -> ([Ratio; 2], [u64; 2], Option<String>) {
    use crate::vocab::Direction;
    let given = [rate.read.unwrap_or(0), rate.write.unwrap_or(0)];
    let trim = u8::try_from(trim_percent(p)).unwrap_or(0);
    let mix = crate::ops::Mix::new(read as u8, trim);
    let caps = mix
        .map(|m| crate::plan::caps_of(rate, m))
        .unwrap_or_default();
    let pace = crate::plan::pace_of(&caps);
    if let (Some(t), None | Some((None, ..))) = (rate.total, pace) {
        let rd = t * read / 100;
        let said = (1..100)
            .contains(&read)
            .then(|| split_said(&p.name, t, read, [rd, t - rd]));
        let gets = [
            Ratio(u128::from(t * read), 100),
            Ratio(u128::from(t * (100 - read)), 100),
        ];
        return (gets, [rd, t - rd], said);
    }
    let exact = given.map(|g| Ratio(u128::from(g), 1));
    let (Some(m), Some((_, pace, of))) = (mix, pace) else {
        return (exact, given, None);
    };
    let dirs = [Direction::Read, Direction::Write];
    let gets = dirs.map(|d| Ratio(u128::from(pace) * u128::from(m.percent(d)), u128::from(of)));
    let ours = gets.map(|g| g.nearest().max(1));
    if ours == given || dirs.iter().any(|&d| m.percent(d) == 0) {
        return (exact, given, None);
    }
    let per_job =
        mix_rate(p).is_none() || p.rate_process == Some(crate::vocab::RateProcess::Poisson);
    let fio = ours.map(|c| if per_job { c / jobs * jobs } else { c });
    let text = |v: [String; 2]| format!("{} reads/s and {} writes/s", v[0], v[1]);
    let wk = gets.map(|g| match g.whole() {
        true => g.nearest().to_string(),
        false => format!("{:.2}", g.value()),
    });
    let said = match gets
        .iter()
        .zip(fio)
        .all(|(g, f)| g.whole() && g.nearest() == f)
    {
        true => "those rates exactly".to_string(),
        false => format!(
            "{} (whole I/Os per second{}: a read share of {:.1} %, not {read} %)",
            text(fio.map(|f| f.to_string())),
            if per_job { " of each job" } else { "" },
            fio[0] as f64 * 100.0 / (fio[0] + fio[1]).max(1) as f64
        ),
    };
    let spec = [
        ("read", rate.read),
        ("write", rate.write),
        ("total", rate.total),
    ]
    .iter()
    .filter_map(|(k, v)| Some(format!("{k} = {}", (*v)?)))
    .collect::<Vec<_>>()
    .join(", ");
    let line = format!(
        "phase {}: rate_iops = {{ {spec} }} at read_percent = {read}: wkrun issues I/Os in stream order, so the lowest cap over its share paces both directions: {}; fio caps each direction and issues whichever is behind its cap (an uncapped one whenever the other is ahead), so its mix follows its caps, not rwmixread: exported with those rates as its caps, so fio runs {said}",
        p.name,
        text(wk)
    );
    (gets, ours, Some(line))
}

/// Why fio cannot cap the phase's I/Os as wkrun does, if so: fio reads a cap of 0 as no cap, so a direction
/// the phase issues whose cap per job, `fio` (`[reads, writes]`, trims in the second for trims only, in
/// fio's `key`), is 0 would run uncapped (attack 29 F10: `rate_iops = 2` over 2 jobs exported as
/// `rate_iops=0,0`, fio ran 99,542 reads in 3 s where wkrun ran 2). `gets` are the rates wkrun issues
/// ([`reached_caps`]).
fn zero_cap(
    p: &PhaseSpec,
    (gets, fio): ([Ratio; 2], [u64; 2]),
    key: &str,
    jobs: u64,
) -> Option<String> {
    let read = read_percent(p);
    let dirs = [
        (read > 0).then_some("read"),
        (read < 100).then_some(if trim_percent(p) == 100 {
            "trim"
        } else {
            "write"
        }),
    ];
    let (d, g) = dirs
        .iter()
        .zip(gets)
        .zip(fio)
        .find_map(|((d, g), f)| d.filter(|_| f == 0).map(|d| (d, g)))?;
    let unit = match key {
        "rate" => "bytes per second",
        _ => "whole I/Os per second",
    };
    Some(format!(
        "its {d}s at {}/s are 0 a job in fio's {key} ({unit} of each of {jobs} job{}), and fio reads a cap of 0 as no cap: fio would issue them uncapped",
        num(g.value()),
        if jobs == 1 { "" } else { "s" }
    ))
}

/// fio's value of `rate_iops` or `rate` for a phase's caps on reads and writes, `caps`: `R,W`; for a phase
/// of trims only, whose total cap is all in `caps[1]`, fio's cap on trims, its value's third part (`0,0,T`:
/// fio caps trims with it, as wkrun's total cap paces them; trial 28 M1 exported `0,500`).
fn fio_caps(p: &PhaseSpec, caps: [u64; 2]) -> String {
    match trim_percent(p) {
        100 => format!("0,0,{}", caps[1]),
        _ => format!("{},{}", caps[0], caps[1]),
    }
}

/// Ramp, rate, seed, data, verify, steady state, errors; `false` when the phase is not exported (its reason
/// in `e.cannot`).
fn rest(p: &PhaseSpec, jobs: u64, say: &mut impl FnMut(&str, String), e: &mut Exported) -> bool {
    if let Some(r) = p.ramp {
        say("ramp_time", format!("{}s", r.0.div_ceil(1_000_000_000)));
    }
    if let Some(r) = p.rate_iops {
        let read = p.read_percent.one().map_or(0, |x| x.0) as u64;
        let (gets, [rd, wr], said) = reached_caps(p, r, read, jobs);
        e.differs.extend(said);
        let poisson = p.rate_process == Some(crate::vocab::RateProcess::Poisson);
        // fio's Poisson arrivals count I/Os (rate_iops), whatever their sizes.
        let (key, fio) = match mix_rate(p).filter(|_| !poisson) {
            Some(m) => ("rate", mix_bytes(p, &m, [rd, wr], jobs, e)),
            None => {
                if rd % jobs != 0 || wr % jobs != 0 {
                    e.differs.push(format!("phase {}: the rate caps are rounded down to whole I/Os per second of each of {jobs} jobs", p.name));
                }
                ("rate_iops", [rd / jobs, wr / jobs])
            }
        };
        if let Some(why) = zero_cap(p, (gets, fio), key, jobs) {
            e.cannot
                .push(format!("phase {} ({}): {why}", p.name, p.kind.as_str()));
            return false;
        }
        say(key, fio_caps(p, fio));
        if poisson {
            say("rate_process", "poisson".into());
        }
    }
    if let Some(t) = p.latency_target {
        e.differs.push(format!(
            "phase {}: a step of a latency_target search ({t}), exported at its own queue depth: fio runs every step, where wkrun stops at the first over the target",
            p.name
        ));
    }
    if let Some(t) = p.think_time {
        // fio's thinktime is in whole µs.
        if t.0 % 1000 != 0 {
            e.differs.push(format!(
                "phase {}: think_time {t} rounded down to whole µs (fio's thinktime)",
                p.name
            ));
        }
        say("thinktime", (t.0 / 1000).to_string());
        if let Some(n) = p.think_every.filter(|&n| n > 1) {
            say("thinktime_blocks", n.to_string());
        }
        // wkrun counts a burst at issue; fio's default counts it at completion.
        say("thinktime_blocks_type", "issue".to_string());
    }
    if let Some(seed) = p.seed {
        say("randseed", seed.to_string());
        let drives = seeded(p);
        if !drives.is_empty() {
            e.differs.push(format!(
                "phase {}: fio's generator is not wkrun's: seed {seed} gives other {}",
                p.name,
                drives.join(", ")
            ));
        }
    }
    match p.data.one() {
        Some(DataPattern::Zeros) => say("zero_buffers", "1".into()),
        Some(DataPattern::Compressible(n)) => {
            say("buffer_compress_percentage", n.to_string());
            say("refill_buffers", "1".into());
        }
        _ => say("refill_buffers", "1".into()),
    }
    if p.verify == Some(true) {
        say("verify", "crc32c".into());
        say("do_verify", "0".into());
        e.differs.push(format!(
            "phase {}: fio writes its own verify headers (crc32c), not wkrun's stamps",
            p.name
        ));
    }
    if p.on_error == Some(OnError::Continue) {
        say("continue_on_error", "io".into());
    }
    match &p.steady_state {
        Some(Rule::Fio(f)) => {
            let metric = match f.metric {
                FioMetric::Iops => "iops",
                FioMetric::Bw => "bw",
                FioMetric::Lat => "lat",
            };
            let slope = if f.kind == FioKind::Slope {
                "_slope"
            } else {
                ""
            };
            let limit = if f.relative {
                format!("{}%", num(f.limit * 100.0))
            } else {
                num(f.limit)
            };
            say("steadystate", format!("{metric}{slope}:{limit}"));
            let round = p.steady_round.or(p.interval).map_or(1_000_000_000, |d| d.0);
            let secs = (f.window as u64 * round).div_ceil(1_000_000_000);
            say("ss_dur", format!("{secs}s"));
            if round != 1_000_000_000 {
                e.differs.push(format!("phase {}: fio judges steady state on one-second samples; wkrun's rounds are {}", p.name, crate::units::Duration(round)));
            }
            if p.until != Some(crate::vocab::Until::Steady) {
                e.differs.push(format!(
                    "phase {}: fio ends the job at steady state; wkrun runs on to its bound",
                    p.name
                ));
            }
        }
        Some(Rule::Snia(_)) => e.differs.push(format!(
            "phase {}: fio has no SNIA steady-state rule; the job runs to its bound",
            p.name
        )),
        None => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SPEC: &str = r#"format = 1
[spec]
name = "x"
version = "1"
[target]
path = "/tmp/x.img"
size = "64MiB"
[defaults]
engine = "libaio"
[[phase]]
name = "purge"
kind = "erase"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4
workers = 2
verify = true
[[phase]]
name = "mix"
kind = "workload"
read_percent = 65
block_size = { "4KiB" = 60, "64KiB" = 40 }
queue_depth = 16
duration = "2s"
seed = 7
[[phase]]
name = "seq"
kind = "workload"
pattern = "sequential"
read_percent = 100
block_size = "1MiB"
engine = "psync"
queue_depth = 2
size = "200%"
[[phase]]
name = "check"
kind = "verify"
expect = "header"
"#;

    /// Attack 28 F11: a total cap split into whole per-direction caps that do not keep the read share says
    /// what fio gets (total 7 at 50 % reads: 3 reads/s and 4 writes/s); an exact split says it is the read
    /// share. One line either way (trial 28's export of 7 said both).
    #[test]
    fn a_rounded_split_of_a_total_cap_is_said() {
        let spec = |cap: u64| {
            format!(
                "format = 1\n[spec]\nname = \"x5\"\nversion = \"1\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nduration = \"3s\"\nblock_size = \"4KiB\"\nread_percent = 50\nspan = \"16MiB\"\nrate_iops = {cap}\n"
            )
        };
        let rounded = |cap: u64| {
            let s = crate::spec::load_str(Path::new("x5.toml"), &spec(cap)).expect("spec");
            let e = export(&s).expect("exports");
            let line = e
                .text
                .lines()
                .find(|l| l.starts_with("rate_iops="))
                .map(str::to_string);
            let said: Vec<String> = (e.differs.iter())
                .filter(|d| d.contains("the total cap"))
                .cloned()
                .collect();
            (line, said)
        };
        assert_eq!(
            rounded(7),
            (
                Some("rate_iops=3,4".to_string()),
                vec!["phase w: fio caps each direction in whole I/Os per second, so the total cap 7 at 50 % reads is split into 3 reads/s (7 × 50 % = 3.5, rounded down) and 4 writes/s (the rest): a read share of 42.9 % under the cap, not 50 %".to_string()]
            )
        );
        assert_eq!(
            rounded(8),
            (
                Some("rate_iops=4,4".to_string()),
                vec!["phase w: fio caps each direction; the total cap 8 is split as the read share (4 reads/s and 4 writes/s)".to_string()]
            )
        );
    }

    /// The export of one random 4 KiB workload `w` of `read_percent = read`, `rate_iops = caps` and `more`
    /// (attack 29's fixtures, on a span of 16 MiB of wkrun's default file): its `rate_iops=` line (`None`
    /// when the phase is not exported), the lines on its caps, and why it is not exported.
    fn capped(read: u8, caps: &str, more: &str) -> (Option<String>, Vec<String>, Vec<String>) {
        let spec = format!(
            "format = 1\n[spec]\nname = \"x\"\nversion = \"1\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nengine = \"libaio\"\nqueue_depth = 4\nduration = \"3s\"\nblock_size = \"4KiB\"\nspan = \"16MiB\"\nread_percent = {read}\nrate_iops = {caps}\n{more}"
        );
        let s = crate::spec::load_str(Path::new("x.toml"), &spec).expect("spec");
        let e = export(&s).expect("exports");
        let line = (e.text.lines())
            .find(|l| l.starts_with("rate_iops="))
            .map(str::to_string);
        let said = (e.differs.iter())
            .filter(|d| d.contains("cap"))
            .cloned()
            .collect();
        (line, said, e.cannot)
    }

    /// Attack 29 F1: a direction cap beside a total cap was dropped, the total split as the read share:
    /// `{ read = 100, total = 400 }` at 70 % reads, which wkrun runs at 100 reads/s and 42.86 writes/s, was
    /// exported as `rate_iops=280,120` (fio ran 840 reads, 360 writes in 3 s). Now the plan's pace for
    /// every combination: the cap that paces gives every direction its rate; a total that paces is split.
    #[test]
    fn a_direction_cap_beside_a_total_cap_paces_the_export() {
        let paced = |spec: &str, rates: &str, fio: &str| {
            format!(
                "phase w: rate_iops = {{ {spec} }} at read_percent = 70: wkrun issues I/Os in stream order, so the lowest cap over its share paces both directions: {rates}; fio caps each direction and issues whichever is behind its cap (an uncapped one whenever the other is ahead), so its mix follows its caps, not rwmixread: exported with those rates as its caps, so fio runs {fio}"
            )
        };
        for (caps, line, rates, fio) in [
            (
                "read = 100, total = 400",
                "rate_iops=100,43",
                "100 reads/s and 42.86 writes/s",
                "100 reads/s and 43 writes/s (whole I/Os per second of each job: a read share of 69.9 %, not 70 %)",
            ),
            (
                "write = 100, total = 400",
                "rate_iops=233,100",
                "233.33 reads/s and 100 writes/s",
                "233 reads/s and 100 writes/s (whole I/Os per second of each job: a read share of 70.0 %, not 70 %)",
            ),
        ] {
            assert_eq!(
                capped(70, &format!("{{ {caps} }}"), ""),
                (
                    Some(line.to_string()),
                    vec![paced(caps, rates, fio)],
                    vec![]
                )
            );
        }
        // Direction caps the total keeps under do nothing: the total's split, as for 400 alone.
        let split = "phase w: fio caps each direction; the total cap 400 is split as the read share (280 reads/s and 120 writes/s)";
        for caps in ["{ read = 300, write = 300, total = 400 }", "400"] {
            assert_eq!(
                capped(70, caps, ""),
                (
                    Some("rate_iops=280,120".to_string()),
                    vec![split.to_string()],
                    vec![]
                ),
                "{caps}"
            );
        }
        // The read cap paces, the write cap and the total never bind: the read cap's rates.
        assert_eq!(
            capped(70, "{ read = 70, write = 500, total = 400 }", "").0,
            Some("rate_iops=70,30".to_string())
        );
    }

    /// Attack 29 F10: a cap of 0 whole I/Os per second of each job is fio's "no cap": `rate_iops = 2` at
    /// 50 % over 2 workers was exported as `rate_iops=0,0` (fio ran 99,542 reads in 3 s, wkrun 2),
    /// `rate_iops = 1` as `0,1`, `{ write = 1 }` at 99 % over 2 as `49,0`, trims as `0,0,0`. Such a phase is
    /// now left out, saying why; a cap of at least 1 a job in each direction the phase issues is kept.
    #[test]
    fn a_cap_of_zero_a_job_is_not_exported() {
        let zero = |d: &str, at: &str, jobs: u64| {
            vec![format!(
                "phase w (workload): its {d}s at {at}/s are 0 a job in fio's rate_iops (whole I/Os per second of each of {jobs} job{}), and fio reads a cap of 0 as no cap: fio would issue them uncapped",
                if jobs == 1 { "" } else { "s" }
            )]
        };
        let out = |caps: &str, read: u8, more: &str| {
            let (line, _, cannot) = capped(read, caps, more);
            (line, cannot)
        };
        let none = |why: Vec<String>| (None, why);
        assert_eq!(out("2", 50, "workers = 2\n"), none(zero("read", "1", 2)));
        assert_eq!(
            out("{ read = 1, write = 1 }", 50, "workers = 2\n"),
            none(zero("read", "1", 2))
        );
        assert_eq!(out("1", 50, ""), none(zero("read", "0.5", 1)));
        assert_eq!(
            out("{ write = 1 }", 99, "workers = 2\n"),
            none(zero("write", "1", 2))
        );
        let trims = "trim_percent = 100\nworkers = 2\n";
        let (line, _, cannot) = capped(0, "1", trims);
        assert_eq!((line, cannot), none(zero("trim", "1", 2)));
        // One a job in each direction is a cap fio keeps.
        assert_eq!(
            out("4", 50, "workers = 2\n"),
            (Some("rate_iops=1,1".to_string()), vec![])
        );
        assert_eq!(
            out("{ write = 2 }", 98, "workers = 2\n"),
            (Some("rate_iops=49,1".to_string()), vec![])
        );
        // A direction the phase never issues keeps fio's 0: reads only, trims only.
        assert_eq!(
            out("3", 100, ""),
            (Some("rate_iops=3,0".to_string()), vec![])
        );
        let (line, _, cannot) = capped(0, "2", trims);
        assert_eq!(
            (line, cannot),
            (Some("rate_iops=0,0,1".to_string()), vec![])
        );
    }

    /// Phases fio can run become jobs, one after another; the others are named with the reason, and
    /// what fio reads otherwise is said.
    /// Attack 24: a fill at queue depth 8 on psync is 8 fio jobs; 100 % of the span does not split into 8
    /// whole percentages, and the job file states its files' size (wkrun's default 1 GiB file, or
    /// `--target-size`): each job's part is in bytes of it. With no size known (a device), still refused.
    #[test]
    fn a_span_that_splits_in_bytes_of_the_stated_size() {
        let text = "format = 1\n[spec]\nname = \"f\"\nversion = \"1\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nqueue_depth = 8\n";
        let s = crate::spec::load_str(Path::new("f.toml"), text).expect("spec");
        let e = export(&s).expect("exports");
        assert_eq!(e.cannot, Vec::<String>::new());
        // No filesize beside the jobs' size (it would stretch each job's region to the end of the file).
        assert!(
            !e.text.contains("filesize=")
                && e.text
                    .contains("iodepth=1\nsize=128m\nnumjobs=8\noffset_increment=128m\n"),
            "{}",
            e.text
        );
        let on = |t: &str| toml::from_str::<TargetSection>(t).expect("target section");
        let three = on("size = \"3MiB\"");
        let e = export_on(&s, Some(&three)).expect("exports");
        assert!(
            e.text
                .contains("size=384k\nnumjobs=8\noffset_increment=384k\n"),
            "{}",
            e.text
        );
        let dev = on("path = \"/dev/loop9\"");
        let e = export_on(&s, Some(&dev)).expect("exports");
        assert_eq!(
            e.cannot,
            [
                "phase fill: fio's 8 jobs (numjobs, offset_increment) each take an equal part, and the span 100% of a file whose size the job file does not state is no whole percentage a job; a span in bytes that is a multiple of 8 × 128KiB would split"
            ]
        );
    }

    /// Trial 27 L5, M2: the size of a device (or file) that exists, read at export, splits the workers'
    /// parts and states a null-engine job's region in bytes, with no filesize (on a device each null job
    /// from offset 0); without it, the null job is refused (fio's null engine opens no file and needs
    /// `size=` in bytes).
    /// Attack 28 F3: a percent offset and span on a target of known size are the plan's span
    /// (`plan::phase_span`), not the percentage times the size: 10 % of 16 MiB + 100 B is 1,677,731.6 B,
    /// block 410 of 4 KiB (1640k), block 13 of 128 KiB (1664k) for the fill and for the workload of the
    /// fill's span; 50 % is 2,048 blocks of 4 KiB (8m). A byte offset off the block is refused by the
    /// spec's rules (attack 29 F3), as the plan refuses it.
    #[test]
    fn a_percent_span_is_the_plans() {
        let spec = |phases: &str| {
            let text = format!(
                "format = 1\n[spec]\nname = \"f\"\nversion = \"1\"\n[target]\npath = \"t.img\"\n{phases}"
            );
            crate::spec::load_str(Path::new("f.toml"), &text).expect("spec")
        };
        let w = "[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\noffset = \"10%\"\nspan = \"50%\"\nsize = \"2MiB\"\n";
        let fill = "[[phase]]\nname = \"fill\"\nkind = \"fill\"\nblock_size = \"128KiB\"\noffset = \"10%\"\nspan = \"50%\"\n";
        let size = [Some((16 << 20) + 100)];
        let e = export_sized(&spec(w), None, &size).expect("exports");
        assert!(e.text.contains("\noffset=1640k\nsize=8m\n"), "{}", e.text);
        let e = export_sized(&spec(&format!("{fill}{w}")), None, &size).expect("exports");
        assert_eq!(
            e.text.matches("\noffset=1664k\nsize=8m\n").count(),
            2,
            "{}",
            e.text
        );
        let odd = w.replace("\"10%\"", "\"1000B\"");
        let text = format!("format = 1\n[spec]\nname = \"f\"\nversion = \"1\"\n{odd}");
        let e = crate::spec::load_str(Path::new("f.toml"), &text).expect_err("refused");
        assert_eq!(
            e.first().message,
            "offset 1000 B is not a multiple of the block size (4096 B)"
        );
    }

    /// Attack 28 F4: on an existing target of 104,869,888 B, the attack's e1 (offset 10 %, span 30 %, 3
    /// workers of 4 KiB; a fill of 10 MiB over 3 workers of 64 KiB) and e2 (offset 1 MiB, span 20 %, 3
    /// workers, on 64 MiB) are the plan's bytes: e1's [10489856, 41947136) in 3 parts of 10 MiB, e2's
    /// [1048576, 14467072) in 3 parts of 1092 blocks (4368 KiB; 20 % of 64 MiB is 13,421,772.8 B, down to
    /// 3276 blocks); a sequential phase bounded to a quarter of its span, in the parts the plan deals. The
    /// `exists:` line stands only where a region is in bytes of the size (not for spans
    /// in bytes), the spec's `[target] size` is not the existing file's, and `phases` counts the jobs.
    #[test]
    fn regions_on_an_existing_target_are_the_plans_bytes() {
        let spec = |phases: &str| {
            let text = format!(
                "format = 1\n[spec]\nname = \"e\"\nversion = \"1\"\n[target]\npath = \"t.img\"\nsize = \"15MiB\"\n[defaults]\nengine = \"libaio\"\nblock_size = \"4KiB\"\nworkers = 3\n{phases}"
            );
            crate::spec::load_str(Path::new("e.toml"), &text).expect("spec")
        };
        let w = |offset: &str, span: &str| {
            format!(
                "[[phase]]\nname = \"w\"\nkind = \"workload\"\noffset = \"{offset}\"\nspan = \"{span}\"\nread_percent = 0\nduration = \"2s\"\n"
            )
        };
        let fill = "[[phase]]\nname = \"f\"\nkind = \"fill\"\nblock_size = \"64KiB\"\nspan = \"10MiB\"\noffset = \"7MiB\"\n";
        let exists = |e: &Exported| {
            e.differs
                .iter()
                .filter(|d| d.starts_with("target.path t.img exists: "))
                .count()
        };
        // The phases exported on t.img of `size` (measured; `None`: to create), whose job holds `region`
        // and no filesize.
        let on = |phases: &str, size: Option<u64>, region: &str| {
            let e = export_sized(&spec(phases), None, &[size]).expect("exports");
            assert!(
                e.text.contains(region) && !e.text.contains("filesize="),
                "{region}: {}",
                e.text
            );
            e
        };
        let e = on(
            &format!("{}{}", w("10%", "30%"), fill),
            Some(104_869_888),
            "\n[w]\nioengine=libaio\ndirect=1\nrw=randwrite\nnorandommap=1\nbs=4k\niodepth=1\noffset=10244k\nsize=10m\nnumjobs=3\noffset_increment=10m\nruntime=2s\n",
        );
        assert!(!e.text.contains('%'), "{}", e.text);
        assert_eq!((e.phases, exists(&e), e.cannot.len()), (1, 1, 1), "{e:?}");
        let e2 = w("1MiB", "20%");
        let e = on(
            &e2,
            Some(64 << 20),
            "\noffset=1m\nsize=4368k\nnumjobs=3\noffset_increment=4368k\n",
        );
        assert_eq!((e.phases, exists(&e), e.cannot.len()), (1, 1, 0), "{e:?}");
        // Spans in bytes do not depend on the file's size: no `exists:` line.
        let bytes = w("1MiB", "12MiB");
        let region = "\noffset=1m\nsize=4m\nnumjobs=3\noffset_increment=4m\n";
        let e = on(&bytes, Some(64 << 20), region);
        assert_eq!((e.phases, exists(&e)), (1, 0), "{e:?}");
        // A sequential phase bounded to less than a pass: the plan deals its first 768 blocks (3 MiB), 1 MiB
        // a worker, not thirds of the span.
        let seq = "[[phase]]\nname = \"s\"\nkind = \"workload\"\npattern = \"sequential\"\nread_percent = 0\nspan = \"12MiB\"\nsize = \"3MiB\"\n";
        let region = "\nsize=1m\nnumjobs=3\noffset_increment=1m\nio_size=1m\n";
        on(seq, Some(64 << 20), region);
        // Not measured (a file to create): the spec's size, 15 MiB, is the file's (20 %: 768 blocks).
        let region = "\noffset=1m\nsize=1m\nnumjobs=3\noffset_increment=1m\n";
        on(&e2, None, region);
        // Every phase left out: no job.
        let none = spec(fill);
        let e = export_sized(&none, None, &[Some(64 << 20)]).expect("exports");
        assert_eq!((e.phases, e.cannot.len()), (0, 1), "{e:?}");
        assert!(!e.text.contains("\n[f]\n"), "{}", e.text);
    }

    #[test]
    fn an_existing_target_of_known_size_is_in_bytes() {
        let text = "format = 1\n[spec]\nname = \"f\"\nversion = \"1\"\n[target]\npath = \"/dev/loop9\"\n[[phase]]\nname = \"fill\"\nkind = \"fill\"\nqueue_depth = 8\n[[phase]]\nname = \"nul\"\nkind = \"workload\"\nengine = \"null\"\nread_percent = 100\nworkers = 2\nspan = \"50%\"\nduration = \"1s\"\n";
        let s = crate::spec::load_str(Path::new("f.toml"), text).expect("spec");
        let e = export_sized(&s, None, &[Some(256 << 20)]).expect("exports");
        assert_eq!(e.cannot, Vec::<String>::new());
        assert!(
            !e.text.contains("filesize=")
                && e.text
                    .contains("iodepth=1\nsize=32m\nnumjobs=8\noffset_increment=32m\n")
                && e.text
                    .contains("ioengine=null\ndirect=1\nrw=randread\nnorandommap=1\nbs=4k\niodepth=1\nsize=64m\nnumjobs=2\nruntime=1s\n"),
            "{}",
            e.text
        );
        assert!(e.differs.contains(&"phase nul: fio's null engine on a block device does no I/O (or repeats one offset) in a job that starts past offset 0, so each of its jobs runs over [0, 64m) instead of its part of the span: the same amount of I/O, which the null engine does not do, at other offsets".to_string()), "{:?}", e.differs);
        assert_eq!(
            e.differs.last().map(String::as_str),
            Some(
                "target.path /dev/loop9 exists: the jobs' regions are in bytes of its size at export, 256MiB, as the plan resolves them (a percentage rounded to whole blocks, workers' parts of whole blocks: fio's percentages of the file it finds are not on those blocks, and its null engine opens no file); on a file or device of another size, export again"
            )
        );
        let e = export(&s).expect("exports");
        assert_eq!(e.cannot.len(), 2, "{:?}", e.cannot);
        assert!(
            e.cannot[1].starts_with(
                "phase nul: fio's null engine opens no file, so it needs the job's region in bytes"
            ),
            "{:?}",
            e.cannot
        );
    }

    #[test]
    fn phases_become_jobs() {
        let s = crate::spec::load_str(Path::new("x.toml"), SPEC).expect("spec");
        let e = export(&s).expect("exports");
        let cannot: Vec<&str> = e
            .cannot
            .iter()
            .map(|c| c.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(cannot, ["phase purge (erase)", "phase check (verify)"]);
        let want = "\n[global]\ngroup_reporting=1\nfilename=/tmp/x.img\n\n[fill]\nioengine=libaio\ndirect=1\nrw=write\nbs=128k\niodepth=4\nsize=32m\nnumjobs=2\noffset_increment=32m\nloops=1\nrefill_buffers=1\nverify=crc32c\ndo_verify=0\n\n[mix]\nstonewall\nfilesize=64m\nioengine=libaio\ndirect=1\nrw=randrw\nrwmixread=65\nnorandommap=1\nbssplit=4k/60:64k/40\niodepth=16\nruntime=2s\ntime_based=1\nrandseed=7\nrefill_buffers=1\n\n[seq]\nstonewall\nioengine=psync\ndirect=1\nrw=read\nbs=1m\niodepth=1\nsize=32m\nnumjobs=2\noffset_increment=32m\nloops=2\nrefill_buffers=1\n";
        assert!(e.text.ends_with(want), "{}", e.text);
        for d in [
            "exactly 65 in every 100 I/Os",
            "numjobs = workers × queue_depth = 2",
            "seed 7 gives other offsets",
        ] {
            assert!(
                e.differs.iter().any(|x| x.contains(d)),
                "{d}: {:?}",
                e.differs
            );
        }
    }

    /// The note that fio's generator differs names what the seed draws in each phase, and no phase where it
    /// draws nothing (trial 16: the anthology's sequential read and fill were said to get "other offsets").
    #[test]
    fn the_seed_note_names_what_the_seed_draws() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/anthology.toml");
        let text = std::fs::read_to_string(&path).expect("anthology.toml");
        let e = export(&crate::spec::load_str(&path, &text).expect("spec")).expect("exports");
        let notes: Vec<&str> = e
            .differs
            .iter()
            .filter(|d| d.contains("generator"))
            .map(String::as_str)
            .collect();
        let mut want = Vec::new();
        for f in ["25%", "100%"] {
            for (phase, what) in [
                ("fill", "data"),
                ("4k-random-read-qd1", "offsets"),
                ("4k-random-write-qd1", "offsets, data"),
                ("4k-random-read-qd32", "offsets"),
                ("4k-random-write-qd32", "offsets, data"),
                ("128k-seq-write", "data"),
            ] {
                want.push(format!(
                    "phase {phase}[filled={f}]: fio's generator is not wkrun's: seed 1 gives other {what}"
                ));
            }
        }
        assert_eq!(notes, want);
        let mixed = export(&crate::spec::load_str(Path::new("x.toml"), SPEC).expect("spec"))
            .expect("exports");
        let mix: Vec<&String> = mixed
            .differs
            .iter()
            .filter(|d| d.contains("seed"))
            .collect();
        assert_eq!(
            mix,
            [
                "phase mix: fio's generator is not wkrun's: seed 7 gives other offsets, block sizes, order of reads and writes, data"
            ]
        );
    }

    /// A simulated drive is a file of its capacity, alone or as one of several targets (attack 15: an
    /// entry `"sim:capacity=1GiB"` of `paths` was exported as the file `sim:capacity=1GiB`, with no
    /// size and nothing said; a spec mixing it with a file is now refused when read, mixed clocks), each
    /// said in `differs`.
    #[test]
    fn a_simulated_drive_runs_on_a_file_of_its_capacity() {
        let spec = |target: &str| {
            format!(
                "format = 1\n[spec]\nname = \"t\"\nversion = \"1\"\n[target]\n{target}\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nblock_size = \"4KiB\"\nread_percent = 0\nduration = \"1s\"\n"
            )
        };
        let job = "ioengine=psync\ndirect=1\nrw=randwrite\nnorandommap=1\nbs=4k\niodepth=1\nruntime=1s\ntime_based=1\nrefill_buffers=1\n";
        let of = |target: &str| {
            let s = crate::spec::load_str(Path::new("x.toml"), &spec(target)).expect("spec");
            export(&s).expect("exports")
        };
        let several = of(
            r#"paths = ["sim:capacity=2GiB", "sim:capacity=1GiB", "sim:capacity=64MiB,op=20%,block=256KiB"]"#,
        );
        let body = several.text.split_once("\n[global]").expect("global").1;
        assert_eq!(
            body,
            format!(
                "\ngroup_reporting=1\n\n[w@t0]\nfilename=wkrun-target-t0.img\nfilesize=2g\n{job}\n[w@t1]\nfilename=wkrun-target-t1.img\nfilesize=1g\n{job}\n[w@t2]\nfilename=wkrun-target-t2.img\nfilesize=64m\n{job}"
            )
        );
        let said = |i: usize, cap: &str| {
            format!(
                "target.paths[{i}] is a simulated drive: its jobs run on the file wkrun-target-t{i}.img of the drive's capacity ({cap}) instead (fio runs on files and devices)"
            )
        };
        assert_eq!(
            several.differs,
            [said(0, "2GiB"), said(1, "1GiB"), said(2, "64MiB")]
        );
        assert!(
            several
                .text
                .contains(&format!("; differs: {}\n", said(2, "64MiB")))
        );
        // One simulated drive, in `sim` or alone in `paths`: wkrun's default file, of its capacity (not
        // the default file's 1 GiB).
        for (target, key) in [
            (
                r#"sim = { capacity = "256MiB", block = "256KiB" }"#,
                "target.sim",
            ),
            (
                r#"paths = ["sim:capacity=256MiB,block=256KiB"]"#,
                "target.paths[0]",
            ),
        ] {
            let one = of(target);
            let body = one.text.split_once("\n[global]").expect("global").1;
            assert_eq!(
                body,
                format!(
                    "\ngroup_reporting=1\nfilename=wkrun-target.img\nfilesize=256m\n\n[w]\n{job}"
                )
            );
            assert_eq!(
                one.differs,
                [format!(
                    "{key} is a simulated drive: its jobs run on the file wkrun-target.img of the drive's capacity (256MiB) instead (fio runs on files and devices)"
                )]
            );
        }
    }

    /// An exported job file imports back to the phases it came from.
    #[test]
    fn export_then_import_keeps_the_workload() {
        let s = crate::spec::load_str(Path::new("x.toml"), SPEC).expect("spec");
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("x.fio");
        std::fs::write(&p, export(&s).expect("exports").text).expect("write");
        let src = crate::fio::import::Source::Files(vec![p]);
        let back = crate::fio::import::import(&src, false, Some("x"), &|_| None).expect("imports");
        let again = crate::spec::load_str(Path::new("y.toml"), &back.text).expect("loads");
        let key = |p: &PhaseSpec| {
            let p = with_defaults(p, &again.file.defaults.clone().unwrap_or_default());
            (
                p.read_percent.one().map(|r| r.0),
                p.block_size.one(),
                p.duration,
                p.engine.one(),
            )
        };
        let orig: Vec<_> = s
            .phases
            .iter()
            .filter(|p| p.kind == PhaseKind::Workload)
            .map(|p| {
                let p = with_defaults(p, &s.file.defaults.clone().unwrap_or_default());
                (
                    p.read_percent.one().map(|r| r.0),
                    p.block_size.one(),
                    p.duration,
                    p.engine.one(),
                )
            })
            .collect();
        let got: Vec<_> = again
            .phases
            .iter()
            .skip(1)
            .filter(|p| p.kind == PhaseKind::Workload)
            .map(key)
            .collect();
        assert_eq!(got, orig, "{}", back.text);
    }

    /// A distribution is written as fio's `random_distribution` (a normal's σ as fio's percentage) and
    /// imports back as it was; where fio's differs is said.
    #[test]
    fn distributions_export_as_random_distribution_and_import_back() {
        for (dist, fio, differs) in [
            ("zoned:50/5:30/15:20/80", "zoned:50/5:30/15:20/80", None),
            ("zoned_abs:50/8MiB:50/16MiB", "zoned_abs:50/8m:50/16m", None),
            ("zipf:1.2", "zipf:1.2", Some("other blocks than wkrun's")),
            (
                "pareto:0.2",
                "pareto:0.2",
                Some("other blocks than wkrun's"),
            ),
            (
                "normal:0.1",
                "normal:10",
                Some("its blocks scattered by a hash"),
            ),
        ] {
            let text = format!(
                "format = 1\n[spec]\nname = \"x\"\nversion = \"1\"\n[target]\npath = \"/tmp/x.img\"\nsize = \"64MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"2s\"\ndistribution = \"{dist}\"\n"
            );
            let s = crate::spec::load_str(Path::new("x.toml"), &text).expect("spec");
            let e = export(&s).expect("exports");
            assert!(
                e.text.contains(&format!("\nrandom_distribution={fio}\n")),
                "{dist}: {}",
                e.text
            );
            if let Some(d) = differs {
                assert!(
                    e.differs.iter().any(|x| x.contains(d)),
                    "{dist}: {:?}",
                    e.differs
                );
            }
            let d = tempfile::tempdir().expect("tempdir");
            let p = d.path().join("x.fio");
            std::fs::write(&p, &e.text).expect("write");
            let src = crate::fio::import::Source::Files(vec![p]);
            let back =
                crate::fio::import::import(&src, false, Some("x"), &|_| None).expect("imports");
            assert!(
                back.text.contains(&format!("distribution = \"{dist}\"")),
                "{dist}: {}",
                back.text
            );
        }
    }

    /// Trial 28 M1: a total cap over a phase of trims only paces its trims (the engines count every I/O);
    /// fio caps trims with its value's third part, so that is where the export writes it: 500 at 2 workers
    /// is 250 a job (it wrote `rate_iops=0,250`, a cap on writes that fio used for trims only as the last
    /// part written).
    #[test]
    fn a_total_cap_on_trims_only_is_fios_cap_on_trims() {
        let spec = "format = 1\n[spec]\nname = \"x\"\nversion = \"1\"\n[target]\npath = \"/tmp/x.img\"\nsize = \"64MiB\"\n[[phase]]\nname = \"t\"\nkind = \"workload\"\nread_percent = 0\ntrim_percent = 100\nengine = \"libaio\"\nworkers = 2\nqueue_depth = 4\nduration = \"2s\"\nrate_iops = 500\n";
        let s = crate::spec::load_str(Path::new("x.toml"), spec).expect("spec");
        let e = export(&s).expect("exports");
        let caps: Vec<&str> = (e.text.lines()).filter(|l| l.starts_with("rate")).collect();
        assert_eq!(caps, ["rate_iops=0,0,250"], "{}", e.text);
    }

    /// Arrivals go out as fio's thinktime, thinktime_blocks (counted at issue, as wkrun counts) and
    /// rate_process, and come back as they were.
    #[test]
    fn arrivals_export_and_import_back() {
        let spec = "format = 1\n[spec]\nname = \"x\"\nversion = \"1\"\n[target]\npath = \"/tmp/x.img\"\nsize = \"64MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 100\nengine = \"libaio\"\nqueue_depth = 4\nduration = \"2s\"\nrate_iops = 500\nrate_process = \"poisson\"\nthink_time = \"1ms\"\nthink_every = 100\n";
        let s = crate::spec::load_str(Path::new("x.toml"), spec).expect("spec");
        let e = export(&s).expect("exports");
        for line in [
            "rate_iops=500,0",
            "rate_process=poisson",
            "thinktime=1000",
            "thinktime_blocks=100",
            "thinktime_blocks_type=issue",
        ] {
            assert!(e.text.lines().any(|l| l == line), "{line}: {}", e.text);
        }
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("x.fio");
        std::fs::write(&p, &e.text).expect("write");
        let src = crate::fio::import::Source::Files(vec![p]);
        let back = crate::fio::import::import(&src, false, Some("x"), &|_| None).expect("imports");
        let again = crate::spec::load_str(Path::new("y.toml"), &back.text).expect("loads");
        let w = again.phases.last().expect("a phase");
        assert_eq!(w.rate_process, Some(crate::vocab::RateProcess::Poisson));
        assert_eq!(w.think_time.map(|t| t.0), Some(1_000_000));
        assert_eq!(w.think_every, Some(100));
    }

    /// Attack 22 I2: a rate-capped Poisson phase with fsync (the import of F6: randrw, 4k/64k, 1024 and
    /// 256 I/Os/s, fsync=3) made a job fio 3.33 ends with SIGFPE: it is left out, saying why and what to
    /// do; the same phase with linear arrivals, or without its fsync, is exported.
    #[test]
    fn poisson_arrivals_with_syncs_are_left_out() {
        let spec = |process: &str, flush: &str| {
            format!(
                "format = 1\n[spec]\nname = \"x\"\nversion = \"1\"\n[target]\npath = \"/tmp/x.img\"\n[[phase]]\nname = \"a\"\nkind = \"workload\"\nread_percent = 80\nblock_size = {{ \"4KiB\" = 50, \"64KiB\" = 50 }}\nduration = \"1s\"\nrate_iops = {{ read = 1024, write = 256 }}\nrate_process = \"{process}\"\n{flush}\n"
            )
        };
        let export_of = |process: &str, flush: &str| {
            let s =
                crate::spec::load_str(Path::new("x.toml"), &spec(process, flush)).expect("spec");
            export(&s).expect("exports")
        };
        for (flush, key) in [("fsync = 3", "fsync"), ("fdatasync = 3", "fdatasync")] {
            let e = export_of("poisson", flush);
            assert_eq!(
                e.cannot,
                [format!(
                    "phase a (workload): fio 3.33 fails a job with rate_process=poisson under a rate cap and {key}: it reads a sync's arrival time past the end of its per-direction rate state and divides by zero (SIGFPE: the job is killed there, fio reporting only its I/Os before it; every run of a job that only writes, some runs of a mix; fixed in fio 3.42); export it with rate_process = \"linear\" (fio paces evenly) or without {key}, or run it with wkrun"
                )]
            );
            assert!(!e.text.contains("[a]"), "{}", e.text);
        }
        for (process, flush) in [("linear", "fsync = 3"), ("poisson", "")] {
            let e = export_of(process, flush);
            assert_eq!(e.cannot, Vec::<String>::new());
            assert!(e.text.contains("\n[a]\n"), "{}", e.text);
        }
    }

    /// With a block-size mix fio paces bytes, so the export writes fio's `rate`, the spec's rate × the mean
    /// size per job (59 I/Os/s of 4k/50:64k/50: rate=2054144, exactly; it wrote rate_iops=502, 59 × 34816 /
    /// 4096 = 501.5 rounded, 0.3 % over), which imports back as the spec's rate; a mean size of a fraction of
    /// a byte is rounded to whole bytes and said. Poisson arrivals count I/Os in fio: rate_iops.
    #[test]
    fn rate_with_a_block_size_mix_is_fios_rate_in_bytes() {
        let spec = |mix: &str, read: u32, rate: &str, workers: u32, poisson: &str| {
            let split = match workers {
                1 => "",
                _ => "workers_split = \"shared\"\n",
            };
            format!(
                "format = 1\n[spec]\nname = \"x\"\nversion = \"1\"\n[target]\npath = \"/tmp/x.img\"\nsize = \"64MiB\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\npattern = \"random\"\nread_percent = {read}\nblock_size = {mix}\nworkers = {workers}\n{split}engine = \"libaio\"\nqueue_depth = 4\nduration = \"2s\"\nrate_iops = {rate}\n{poisson}"
            )
        };
        let back = |text: &str| {
            let d = tempfile::tempdir().expect("tempdir");
            let p = d.path().join("x.fio");
            std::fs::write(&p, text).expect("write");
            let src = crate::fio::import::Source::Files(vec![p]);
            let back =
                crate::fio::import::import(&src, false, Some("x"), &|_| None).expect("imports");
            let s = crate::spec::load_str(Path::new("y.toml"), &back.text).expect("loads");
            let w = s.phases.last().expect("a phase").rate_iops.expect("a cap");
            (w.read, w.write)
        };
        let exported = |text: &str| {
            let s = crate::spec::load_str(Path::new("x.toml"), text).expect("spec");
            export(&s).expect("exports")
        };
        let rated = |e: &Exported| e.differs.iter().any(|d| d.contains("rate"));
        let half = "{ \"4KiB\" = 50, \"64KiB\" = 50 }";
        let e = exported(&spec(half, 100, "{ read = 59 }", 1, ""));
        assert!(e.text.lines().any(|l| l == "rate=2054144,0"), "{}", e.text);
        assert!(!rated(&e), "{:?}", e.differs);
        assert_eq!(back(&e.text), (Some(59), None));
        // 286 each way on 2 jobs of 4k/60:64k/40 (mean 28,672 B): 286 × 28672 / 2 = 4,100,096 exactly.
        let sixty = "{ \"4KiB\" = 60, \"64KiB\" = 40 }";
        let e = exported(&spec(sixty, 50, "{ read = 286, write = 286 }", 2, ""));
        let line = "rate=4100096,4100096";
        assert!(e.text.lines().any(|l| l == line), "{}", e.text);
        assert!(!rated(&e), "{:?}", e.differs);
        assert_eq!(back(&e.text), (Some(286), Some(286)));
        // 4k/33:64k/67: a mean of 45,260.8 B; 59 × 45260.8 = 2,670,387.2 B/s, rounded to whole bytes.
        let odd = "{ \"4KiB\" = 33, \"64KiB\" = 67 }";
        let e = exported(&spec(odd, 100, "{ read = 59 }", 1, ""));
        assert!(e.text.lines().any(|l| l == "rate=2670387,0"), "{}", e.text);
        assert_eq!(
            e.differs
                .iter()
                .filter(|d| d.contains("rate"))
                .collect::<Vec<_>>(),
            [
                "phase w: fio paces a block-size mix's bytes, so its rate per job is the spec's I/Os per second × the mean size (45260.8 B) / jobs, in whole bytes per second: reads 59 × 45260.8 / 1 = 2670387.2, rounded to 2670387"
            ]
        );
        assert_eq!(back(&e.text), (Some(59), None));
        // Poisson: fio draws gaps at rate_iops whatever the sizes, so the spec's 59 is rate_iops=59.
        let e = exported(&spec(
            half,
            100,
            "{ read = 59 }",
            1,
            "rate_process = \"poisson\"\n",
        ));
        assert!(e.text.lines().any(|l| l == "rate_iops=59,0"), "{}", e.text);
        assert!(
            e.text.lines().any(|l| l == "rate_process=poisson"),
            "{}",
            e.text
        );
        assert!(!rated(&e), "{:?}", e.differs);
        assert_eq!(back(&e.text), (Some(59), None));
    }

    /// fio's job through `import fio` and back through `export fio` keeps its cap: `rate=1044480` with
    /// 4k/50:64k/50 (30 × 34,816) is 30 I/Os/s and comes back as rate=1044480; `rate=1m` (30.12, imported
    /// as 30) comes back as 30's bytes, which import as 30 again; `rate=1m` of 4 KiB as 256 I/Os/s.
    #[test]
    fn a_fio_rate_comes_back_as_the_same_cap() {
        let round = |bs: &str, rate: &str| {
            let job = format!(
                "[rt]\nfilename=/tmp/x.img\nsize=64m\nrw=randread\n{bs}\nnorandommap\n{rate}\nioengine=libaio\ntime_based\nruntime=2\n"
            );
            let d = tempfile::tempdir().expect("tempdir");
            let p = d.path().join("x.fio");
            std::fs::write(&p, job).expect("write");
            let src = crate::fio::import::Source::Files(vec![p]);
            let spec = crate::fio::import::import(&src, false, Some("x"), &|_| None)
                .expect("imports")
                .text;
            let e = export(&crate::spec::load_str(Path::new("x.toml"), &spec).expect("loads"))
                .expect("exports");
            let line = |k: &str| {
                e.text
                    .lines()
                    .find(|l| l.starts_with(k))
                    .map(str::to_string)
            };
            (
                line("rate=").or(line("rate_iops=")),
                e.differs.iter().any(|d| d.contains("rate")),
            )
        };
        let mix = "bssplit=4k/50:64k/50";
        assert_eq!(
            round(mix, "rate=1044480"),
            (Some("rate=1044480,0".into()), false)
        );
        assert_eq!(
            round(mix, "rate=1m"),
            (Some("rate=1044480,0".into()), false)
        );
        assert_eq!(
            round("bs=4k", "rate=1m"),
            (Some("rate_iops=256,0".into()), false)
        );
    }
}
