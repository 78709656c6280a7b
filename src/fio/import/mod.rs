//! `wkrun import fio`: fio job files, or a fio command line, as a spec that runs the same workload.
//!
//! The steps: [`crate::fio::jobfile`] reads the sections; [`job`] applies each job's options (the globals
//! read so far, then its own) by their rows of [`crate::spec::fio::FIO_KEYS`]; [`shape`] says what one copy
//! of the job is as a phase (its rate cap in `rate.rs`); [`schedule`] orders the jobs as fio starts them and
//! merges the ones that run together; [`write`](mod@write) writes the spec with its comments, which is then
//! loaded as any spec is, so an import never writes a spec that `wkrun validate` refuses.

pub mod job;
mod rate;
pub(crate) use rate::{CapsMix, total as rate_total};
pub mod schedule;
pub mod shape;
pub mod write;

#[cfg(test)]
mod tests;

use super::jobfile::{self, Env, Input};
use super::{Place, Problem};
use job::{Job, Remark};
use schedule::Member;
use std::path::{Path, PathBuf};

/// What to import.
pub enum Source {
    /// Job files, in order.
    Files(Vec<PathBuf>),
    /// fio's command line (without `fio`).
    Args(Vec<String>),
}

/// An import's result: the spec's text and what was said about it.
#[derive(Debug)]
pub struct Imported {
    /// The spec, TOML.
    pub text: String,
    /// Notes: fio's meaning kept differently, one line each (`a.fio:4: direct=0: ...`).
    pub notes: Vec<String>,
    /// Options dropped under `--lossy`, one line each.
    pub dropped: Vec<String>,
    /// Options `--lossy` imported approximately, as each line says, one line each.
    pub approximated: Vec<String>,
}

/// Imports `source`; `lossy` drops options with no wkrun meaning (with a comment) instead of refusing
/// them; `name` is the spec's name (default: the first job file's stem; for a command line, its first
/// job's `--name`; `fio-command-line` when that is empty).
///
/// # Errors
/// Every problem found, each naming its file and line (or argument): options fio does not know or values
/// it would not take, options with no wkrun meaning (without `lossy`), and jobs no spec can hold.
pub fn import(
    source: &Source,
    lossy: bool,
    name: Option<&str>,
    env: Env,
) -> Result<Imported, Vec<Problem>> {
    let whole = Place::File(match source {
        Source::Files(f) => f.first().map_or(String::new(), |f| f.display().to_string()),
        Source::Args(_) => "fio command line".into(),
    });
    let (input, shown, default_name) = match source {
        Source::Files(files) => {
            let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            let stem = files
                .first()
                .and_then(|f| f.file_stem())
                .map_or("fio".into(), |s| s.to_string_lossy().into_owned());
            let what = match shown.len() {
                1 => format!("the fio job file {}", shown[0]),
                _ => format!("the fio job files {}", shown.join(", ")),
            };
            (jobfile::read_files(files, env)?, what, stem)
        }
        Source::Args(args) => (
            jobfile::read_args(args, env)?,
            format!("the fio command line `fio {}`", args.join(" ")),
            String::new(),
        ),
    };
    let mut problems = Vec::new();
    let mut extra_notes = Vec::new();
    let mut extra_refused = Vec::new();
    fio_args(&input, &mut extra_notes, &mut extra_refused);
    let members = members(&input, &mut problems);
    if members.is_empty() && problems.is_empty() {
        let at = input
            .sections
            .first()
            .map_or(whole.clone(), |s| s.at.clone());
        problems.push(Problem::new(at, "no job: fio would run nothing"));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let default_name = match (default_name.is_empty(), members.first()) {
        (true, Some(m)) if !m.job.name.trim().is_empty() => m.job.name.clone(),
        (true, _) => "fio-command-line".to_string(),
        (false, _) => default_name,
    };
    let mut sched = schedule::schedule(&members)?;
    if let Some(p) = sched.phases.first_mut() {
        p.notes.splice(0..0, extra_notes);
        p.refused.splice(0..0, extra_refused);
    }
    let (notes, dropped) = remarks(&sched);
    if !lossy && !dropped.is_empty() {
        return Err(dropped
            .into_iter()
            .map(|r| {
                // A refusal that says what --lossy imports instead is not dropped by it.
                let lossy = match r.approximated() {
                    true => "with a comment in the spec",
                    false => "--lossy drops it, with a comment in the spec",
                };
                Problem::new(r.at, format!("{}: {} ({lossy})", r.text, r.why))
            })
            .collect());
    }
    let header = write::Header {
        source: shown.clone(),
        name: write::clean_name(name.unwrap_or(&default_name)),
        target_size: target_size(&members),
        lossy,
        notes: spec_notes(&sched, &members),
    };
    let (text, places) = write::spec_text(&sched, &header);
    let refuse = |e: crate::spec::SpecErrors| refused_spec(e, &places, &whole);
    let loaded = crate::spec::load_str(Path::new(&format!("{}.toml", header.name)), &text)
        .map_err(refuse)?;
    crate::plan::resolve(&loaded, &planning_target(header.target_size)).map_err(refuse)?;
    let line = |r: &Remark| format!("{}: {}: {}", r.at, r.text, r.why);
    Ok(Imported {
        text,
        notes: notes
            .iter()
            .map(line)
            .chain(header.notes.iter().cloned())
            .collect(),
        dropped: (dropped_lines(&sched).iter())
            .filter(|r| !r.approximated())
            .map(line)
            .collect(),
        approximated: (dropped_lines(&sched).iter())
            .filter(|r| r.approximated())
            .map(line)
            .collect(),
    })
}

/// wkrun's refusals of the spec the jobs make, each at the job of the phase it names (`phase[2] ...`).
fn refused_spec(e: crate::spec::SpecErrors, places: &[Place], whole: &Place) -> Vec<Problem> {
    let mut out: Vec<Problem> = Vec::new();
    let all = e.0.into_iter().map(|err| {
        let field = err.field.unwrap_or_default();
        let index = field
            .strip_prefix("phase[")
            .and_then(|r| r.split(']').next())
            .and_then(|n| n.parse::<usize>().ok());
        let key = field
            .rsplit('.')
            .next()
            .filter(|k| !k.contains('"'))
            .unwrap_or("");
        let what = if key.is_empty() {
            String::new()
        } else {
            format!(" (its {key})")
        };
        // A key every job gave alike is written once in `[defaults]`: its error is each job's.
        let at: Vec<&Place> = match index.and_then(|i| places.get(i)) {
            Some(at) => vec![at],
            None if field.starts_with("defaults.") => places.iter().collect(),
            None => Vec::new(),
        };
        if at.is_empty() {
            return vec![Problem::new(
                whole.clone(),
                format!("wkrun refuses the spec these jobs make: {}", err.message),
            )];
        }
        at.into_iter()
            .map(|at| {
                Problem::new(
                    at.clone(),
                    format!(
                        "wkrun refuses the phase this job makes{what}: {}",
                        err.message
                    ),
                )
            })
            .collect()
    });
    for p in all.flatten() {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// A target to plan the imported spec on, so that an import never writes a spec that `wkrun plan` refuses
/// for a reason of its own (not of a real target): a file of the spec's size, or of 1 PiB when the spec names
/// none, with 512-byte logical blocks.
fn planning_target(size: Option<u64>) -> crate::target::TargetInfo {
    let kind = crate::target::TargetKind::File;
    crate::target::TargetInfo::new("fio-import-check", kind, size.unwrap_or(1 << 50), 512, 4096)
}

/// fio's own command-line options: output ones are noted, the others have no wkrun meaning.
fn fio_args(input: &Input, notes: &mut Vec<Remark>, refused: &mut Vec<Remark>) {
    for a in &input.fio_args {
        let r = Remark {
            at: a.at.clone(),
            text: format!("--{}", a.text()),
            why: String::new(),
        };
        match jobfile::fio_arg_is_output(&a.key) {
            Some(true) => notes.push(Remark {
                why: "changes only fio's own output; wkrun writes results.json and a series CSV per phase".into(),
                ..r
            }),
            _ => refused.push(Remark {
                why: format!("fio's --{} has no wkrun meaning", a.key),
                ..r
            }),
        }
    }
}

/// The jobs, read and shaped, in order. A job that waits for the ones before it (`stonewall`, or the first
/// of a later job file) starts a phase of its own, so the jobs are refused at the one that starts phase
/// [`crate::spec::expand::MAX_PHASES`] + 1, before any later job is shaped (150,000 stonewalled jobs
/// were all shaped, written as a spec and loaded before the spec's phase limit refused them: 87 s, 1.6 GB).
fn members(input: &Input, problems: &mut Vec<Problem>) -> Vec<Member> {
    use crate::spec::expand::MAX_PHASES;
    let first = input
        .sections
        .first()
        .map_or(Place::File(String::new()), |s| s.at.clone());
    let mut globals = Job::fio_default(first);
    let mut out = Vec::new();
    // Phases the jobs so far start at least (jobs that run together may make more than one).
    let (mut jobs, mut phases) = (0u64, 0u64);
    for sec in &input.sections {
        if sec.global {
            job::apply(&mut globals, sec, problems);
            continue;
        }
        let mut j = globals.clone();
        j.at = sec.at.clone();
        // fio names a job after its section (a `name` in [global] does not carry over); its own `name`
        // option, read next, renames it.
        j.name = sec.name.clone();
        j.stonewall |= sec.new_file;
        job::apply(&mut j, sec, problems);
        jobs += 1;
        if j.stonewall || jobs == 1 {
            phases += 1;
        }
        if phases > MAX_PHASES {
            problems.push(Problem::new(
                j.at.clone(),
                format!(
                    "job {} ({}) waits for the jobs before it, which make {MAX_PHASES} phases already: a spec has at most {MAX_PHASES}; split the jobs into several job files and import each",
                    jobs,
                    j.name
                ),
            ));
            break;
        }
        let file = file_of(&mut j);
        match shape::shape(&j) {
            Ok(shaped) => out.push(Member {
                job: j,
                shaped,
                file,
            }),
            Err(p) => problems.push(p),
        }
    }
    out
}

/// The job's file as fio names it (`directory/filename`; `\:` is a colon); `None` without `filename`. A
/// list of files (`a:b`) keeps its first, with a refusal.
fn file_of(j: &mut Job) -> Option<String> {
    let (name, at) = j.filename.clone()?;
    let parts: Vec<String> = name
        .replace("\\:", "\u{0}")
        .split(':')
        .map(|p| p.replace('\u{0}', ":"))
        .collect();
    if parts.len() > 1 {
        j.refused.push(Remark {
            at,
            text: format!("filename={name}"),
            why: "fio spreads one job's I/Os over these files; wkrun's several targets each run the whole phase (--lossy: the first file)".into(),
        });
    }
    let f = parts.into_iter().next()?;
    Some(match &j.directory {
        Some(d) if !f.starts_with('/') => format!("{}/{f}", d.trim_end_matches('/')),
        _ => f,
    })
}

/// The size of a target file wkrun creates: the largest a job needs (fio's `filesize`, else the end of
/// its absolute region); `None` when the jobs name none or the target is a device.
fn target_size(members: &[Member]) -> Option<u64> {
    members
        .iter()
        .filter(|m| !m.file.as_deref().is_some_and(|f| f.starts_with("/dev/")))
        .filter_map(|m| {
            let j = &m.job;
            if let Some(f) = j.filesize {
                return Some(f);
            }
            let off = match j.offset {
                Some(crate::fio::value::Size::Bytes(o)) => o,
                None => 0,
                Some(_) => return None,
            };
            match j.size {
                Some(crate::fio::value::Size::Bytes(b)) => {
                    let n = if m.shaped.shape.partitioned {
                        j.numjobs
                    } else {
                        1
                    };
                    Some(off + b.saturating_mul(n))
                }
                _ => None,
            }
        })
        .max()
}

/// Notes and refusals of all phases, each once, in order.
fn remarks(sched: &schedule::Schedule) -> (Vec<Remark>, Vec<Remark>) {
    let mut seen = std::collections::BTreeSet::new();
    let mut once = |v: &mut Vec<Remark>, r: &Remark| {
        if seen.insert((r.at.to_string(), r.text.clone())) {
            v.push(r.clone());
        }
    };
    let (mut notes, mut refused) = (Vec::new(), Vec::new());
    for p in &sched.phases {
        p.refused.iter().for_each(|r| once(&mut refused, r));
    }
    for p in &sched.phases {
        p.notes.iter().for_each(|r| once(&mut notes, r));
    }
    (notes, refused)
}

/// The refusals, each once, in order (what `--lossy` dropped).
fn dropped_lines(sched: &schedule::Schedule) -> Vec<Remark> {
    remarks(sched).1
}

/// Notes on the whole spec: where fio and wkrun differ for these jobs.
fn spec_notes(sched: &schedule::Schedule, members: &[Member]) -> Vec<String> {
    let mut n = Vec::new();
    if sched.files.is_empty() {
        n.push("no job names its file (filename): fio makes one per job (JOBNAME.N.0); this spec names no target, so it runs on --target (or wkrun's default file), each job's numjobs as workers on it".to_string());
    }
    if sched
        .phases
        .iter()
        .any(|p| (1..100).contains(&p.shape.read_percent))
    {
        n.push("wkrun's read share is exact in every 100 I/Os; fio draws each I/O's direction at random with rwmixread as its chance".into());
    }
    if sched
        .phases
        .iter()
        .any(|p| p.workers > 1 && !p.shape.partitioned && (p.shape.full || !p.shape.random))
    {
        n.push("fio runs each of numjobs jobs over the whole region (sequential ones each from its start, random ones each with its own random map); wkrun's workers each take an equal part of it (the same bytes over the same range)".into());
    }
    if sched.phases.iter().any(|p| p.shape.data.is_some()) {
        n.push("wkrun's random data is fresh for every write (as fio's refill_buffers); fio by default rewrites one buffer, scrambled a little per I/O".into());
    }
    let file = sched.files.iter().any(|f| !f.starts_with("/dev/"));
    if file && members.iter().any(|m| m.job.rw.read) {
        n.push("fio writes a file it creates before a job reads it (its layout); so does wkrun with a target file it creates, when the first phase reads before any phase writes (results: target.laid_out); an existing file is read as it is, by both".into());
    }
    n
}
