//! fio's order of jobs as wkrun phases. fio starts a file's jobs together unless `stonewall` (or a later job
//! file) makes one wait for all before it, or `wait_for=NAME` for one; jobs that run together are one
//! phase when they are copies of one job on one target (`workers`: their `numjobs` added up), or one job
//! per file (several targets). Jobs that run together and differ have no wkrun meaning: they are refused
//! naming both (under `--lossy` they run one after another, with a comment).

use super::job::{Job, Remark};
use super::shape::{Shape, Shaped};
use crate::fio::{Place, Problem};

/// A job read and shaped, with its target.
pub struct Member {
    /// The job.
    pub job: Job,
    /// Its shape, notes and refusals.
    pub shaped: Shaped,
    /// Its file: `directory/filename` as fio joins them; `None` when fio would name the file itself.
    pub file: Option<String>,
}

/// A phase made of jobs that run together.
pub struct Phase {
    /// Its name (the first job's).
    pub name: String,
    /// Where its first job starts.
    pub at: Place,
    /// Where it came from: each job's place and name.
    pub origin: String,
    /// The first job's `description`.
    pub description: Option<String>,
    /// What one worker does.
    pub shape: Shape,
    /// Workers: the jobs' `numjobs` added up (per target).
    pub workers: u64,
    /// Notes and refusals of its jobs.
    pub notes: Vec<Remark>,
    /// Refusals of its jobs.
    pub refused: Vec<Remark>,
}

/// The phases in order, and the files they run on (one target each; none when no job names a file).
pub struct Schedule {
    /// The phases.
    pub phases: Vec<Phase>,
    /// The targets.
    pub files: Vec<String>,
}

/// Where a job came from, as the spec records it.
pub fn origin_of(job: &Job) -> String {
    match &job.at {
        Place::Arg { index, text } => {
            format!("fio command line: {text} (argument {index})")
        }
        at => format!("{at} [{}]", job.name),
    }
}

/// Groups the jobs into waves (jobs that start together), in order.
fn waves(members: &[Member], problems: &mut Vec<Problem>) -> Vec<Vec<usize>> {
    let mut waves: Vec<Vec<usize>> = Vec::new();
    for (i, m) in members.iter().enumerate() {
        let mut new = m.job.stonewall || waves.is_empty();
        if let Some((name, at)) = &m.job.wait_for {
            match members[..i].iter().position(|o| &o.job.name == name) {
                None => problems.push(Problem::new(
                    at.clone(),
                    format!(
                        "wait_for={name}: no job named {name} comes before {}",
                        m.job.name
                    ),
                )),
                Some(_) => {
                    let last = waves.last().map(Vec::as_slice).unwrap_or(&[]);
                    let others: Vec<&str> = last
                        .iter()
                        .map(|&j| members[j].job.name.as_str())
                        .filter(|n| n != name)
                        .collect();
                    if last.iter().any(|&j| &members[j].job.name == name) {
                        if let Some(o) = others.first() {
                            problems.push(Problem::new(
                                at.clone(),
                                format!(
                                    "wait_for={name}: {} starts when {name} ends while {o} still runs; wkrun's phases run one after another (make {} wait for all before it: stonewall)",
                                    m.job.name, m.job.name
                                ),
                            ));
                        }
                        new = true;
                    }
                }
            }
        }
        match waves.last_mut() {
            Some(w) if !new => w.push(i),
            _ => waves.push(vec![i]),
        }
    }
    waves
}

/// The fields in which two shapes differ, in words.
fn differences(a: &Shape, b: &Shape) -> Vec<&'static str> {
    let mut d = Vec::new();
    let mut check = |same: bool, what| {
        if !same {
            d.push(what);
        }
    };
    check(a.random == b.random, "offset order (rw)");
    check(a.read_percent == b.read_percent, "read share");
    check(a.trim_percent == b.trim_percent, "trims (rw)");
    check(
        a.sync == b.sync && a.flush == b.flush,
        "sync, fsync, fdatasync",
    );
    check(a.block == b.block, "block size");
    check(a.queue_depth == b.queue_depth, "queue depth");
    check(a.engine == b.engine, "engine");
    check(a.direct == b.direct, "direct");
    check(a.full == b.full, "random map");
    check(
        a.offset == b.offset && a.size == b.size,
        "region (offset, size)",
    );
    check(a.bound == b.bound, "bound (runtime, size)");
    check(a.rate == b.rate, "rate cap");
    check(a.data == b.data, "data");
    if a != b && d.is_empty() {
        d.push("other options");
    }
    d
}

/// The jobs of one wave on one file as one phase: `None` (and a refusal on each later job) when they
/// differ.
fn merge(members: &[Member], idx: &[usize], refused: &mut Vec<Remark>) -> Vec<Phase> {
    let mut out: Vec<Phase> = Vec::new();
    for &i in idx {
        let m = &members[i];
        let s = &m.shaped;
        if let Some(p) = out.iter_mut().find(|p| p.shape == s.shape) {
            p.workers += m.job.numjobs;
            p.origin = format!("{} + {}", p.origin, origin_of(&m.job));
            p.notes.extend(s.notes.iter().cloned());
            p.refused.extend(s.refused.iter().cloned());
            continue;
        }
        if let Some(p) = out.first() {
            refused.push(Remark {
                at: m.job.at.clone(),
                text: format!("[{}]", m.job.name),
                why: format!(
                    "job {} runs at the same time as job {} ({}) on the same target, and they differ in {}; wkrun runs a target's phases one after another and jobs at once only as copies of one job (workers): add stonewall to {} to run it after (--lossy: one after the other)",
                    m.job.name,
                    p.name,
                    p.origin,
                    differences(&p.shape, &s.shape).join(", "),
                    m.job.name
                ),
            });
        }
        out.push(Phase {
            name: m.job.name.clone(),
            at: m.job.at.clone(),
            origin: origin_of(&m.job),
            description: m.job.description.clone(),
            shape: s.shape.clone(),
            workers: m.job.numjobs,
            notes: s.notes.clone(),
            refused: s.refused.clone(),
        });
    }
    out
}

/// The phases of the jobs, in fio's order.
///
/// # Errors
/// Problems that no `--lossy` can take away (a `wait_for` naming no job, targets that change between
/// phases).
pub fn schedule(members: &[Member]) -> Result<Schedule, Vec<Problem>> {
    let mut problems = Vec::new();
    let waves = waves(members, &mut problems);
    let mut phases = Vec::new();
    let mut files: Option<(Vec<Option<String>>, String)> = None;
    for wave in &waves {
        let mut by_file: Vec<(Option<String>, Vec<usize>)> = Vec::new();
        for &i in wave {
            let f = members[i].file.clone();
            match by_file.iter_mut().find(|(g, _)| *g == f) {
                Some((_, v)) => v.push(i),
                None => by_file.push((f, vec![i])),
            }
        }
        let mut extra = Vec::new();
        let per_file: Vec<Vec<Phase>> = by_file
            .iter()
            .map(|(_, idx)| merge(members, idx, &mut extra))
            .collect();
        let names: Vec<Option<String>> = by_file.iter().map(|(f, _)| f.clone()).collect();
        let first = &members[wave[0]].job;
        match &files {
            None => files = Some((names.clone(), first.name.clone())),
            Some((known, who)) if *known != names => problems.push(Problem::new(
                first.at.clone(),
                format!(
                    "job {} runs on {} but job {who} on {}: a spec's phases all run on the same targets",
                    first.name,
                    shown(&names),
                    shown(known)
                ),
            )),
            _ => {}
        }
        let mut wave_phases = per_file.into_iter();
        let Some(mut lead) = wave_phases.next() else {
            continue;
        };
        for (k, other) in wave_phases.enumerate() {
            let same = other.len() == lead.len()
                && other
                    .iter()
                    .zip(&lead)
                    .all(|(a, b)| a.shape == b.shape && a.workers == b.workers);
            if !same {
                let o = &other[0];
                problems.push(Problem::new(
                    first.at.clone(),
                    format!(
                        "job {} on {} and job {} on {} run at once but differ; wkrun's several targets each run the same phases",
                        lead[0].name,
                        shown(&names[..1]),
                        o.name,
                        shown(&names[k + 1..k + 2])
                    ),
                ));
            }
            for (l, o) in lead.iter_mut().zip(other) {
                l.origin = format!("{} + {}", l.origin, o.origin);
            }
        }
        if let Some(p) = lead.first_mut() {
            p.refused.extend(extra);
        }
        phases.extend(lead);
    }
    let files = files.map(|f| f.0).unwrap_or_default();
    if files.len() > 1 && files.contains(&None) {
        problems.push(Problem::new(
            members[0].job.at.clone(),
            format!(
                "jobs on {} run at once: fio names a file for a job without filename itself; give each job its filename",
                shown(&files)
            ),
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let files = files.into_iter().flatten().collect();
    Ok(Schedule { phases, files })
}

/// Files in words.
fn shown(files: &[Option<String>]) -> String {
    let names: Vec<String> = files
        .iter()
        .map(|f| f.clone().unwrap_or_else(|| "fio's own file".into()))
        .collect();
    names.join(" and ")
}
