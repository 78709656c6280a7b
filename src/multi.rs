//! `wkrun SPEC --target A --target B ...`: one plan per target, every target checked (duplicates, read-only,
//! in use, the consent of each block device) before anything is written to any of them, then run together
//! phase by phase (`run::multi`), each target into its own results folder `DIR/tN-NAME/`, and the aggregate
//! (`report::merge::merge_targets`) into `DIR`.

use super::{Fail, RunArgs, bad, out_fail, probe_and_plan, start_at};
use std::path::{Path, PathBuf};
use wkrun::launch::Launch;
use wkrun::plan::Plan;
use wkrun::report::merge;
use wkrun::results::outdir::OutDir;
use wkrun::run::{self, RunError, multi::TargetRun};
use wkrun::spec::LoadedSpec;
use wkrun::sys::signal;
use wkrun::target::open::Claims;
use wkrun::target::safety::{self, Consent};
use wkrun::target::{TargetInfo, TargetKind};

/// Runs the spec on every target of `targets` (two or more) at once.
pub(super) fn cmd_run_many(
    s: &LoadedSpec,
    targets: &[Option<PathBuf>],
    a: &RunArgs,
    launch: &Launch,
) -> Result<(), Fail> {
    let say = |m: &str| {
        if !a.quiet {
            run::progress::log_line(m);
        }
    };
    let (mut plans, unmade) = plan_each(s, targets, a, launch, &say)?;
    s.set_lines().iter().for_each(|l| say(l));
    let labels = labels(&plans);
    // A file to create that does not fit: a resource limit, recorded as the checks' refusals are.
    if let Some(why) = unmade {
        return Err(refused_by_limit(s, &plans, a, launch, &labels, &why));
    }
    let (consents, claims) = match check_all(&plans, a) {
        // A resource limit: each target's and the aggregate's results.json say "failed", as one target's.
        Err(Fail(1, why)) => return Err(refused_by_limit(s, &plans, a, launch, &labels, &why)),
        r => r?,
    };
    let (out_dir, subs) = prepare_output(s, &mut plans, a, launch, &labels, &say)?;
    // A stop signal so far (the handler is in place from the start of `cmd_run`): nothing is left.
    if let Some(f) =
        super::stopped_before_start(&plans, subs.iter().chain([&out_dir]).cloned().collect())
    {
        return Err(f);
    }
    let first = format!(
        "results: {} ({} targets, each in its own folder: {})",
        wkrun::text::escaped(&out_dir.path().to_string_lossy()),
        plans.len(),
        labels.join(", ")
    );
    // Room kept for the aggregate (its merged CSVs and results.json), as each target's results writer keeps
    // its own: a disk the targets fill leaves room for the sum of what they did; never the room each
    // target's first results need.
    let mut room = out_dir.reserve(wkrun::results::write::RESERVE).ok();
    if let Some(r) = room.as_mut() {
        let _ = r.grow(aggregate_room(out_dir.free_bytes(), plans.len()));
    }
    let runs: Vec<TargetRun<'_>> = (0..plans.len())
        .map(|i| TargetRun {
            label: labels[i].clone(),
            plan: &plans[i],
            consent: &consents[i],
            out_dir: &subs[i],
        })
        .collect();
    let mut outcomes = run::multi::execute_many(s, &runs, claims, &signal::STOP, a.quiet, &first);
    let files: Vec<PathBuf> = subs.iter().map(|d| d.join("results.json")).collect();
    if let Some(mut r) = room.take() {
        r.release();
    }
    let (aggregate, unchecked) =
        aggregate_and_check(&out_dir, &subs, (&files, &labels), &mut outcomes, a);
    finish(
        &out_dir, &labels, &outcomes, aggregate, unchecked, &plans[0],
    )
}

/// The run's output folder and one folder per target, checked against the targets and the room the targets to
/// create need, and those targets created. On an error nothing is left behind, but for targets to create
/// that would leave too little room for the results: the results saying "failed" ([`refused_by_limit`]).
fn prepare_output(
    s: &LoadedSpec,
    plans: &mut [Plan],
    a: &RunArgs,
    launch: &Launch,
    labels: &[String],
    say: &dyn Fn(&str),
) -> Result<(OutDir, Vec<OutDir>), Fail> {
    let out_dir = match &a.output {
        Some(p) => OutDir::for_run(p),
        None => run::open_default_output(&plans[0].spec_name, launch.rank.as_ref().map(|r| r.rank)),
    }
    .map_err(out_fail)?;
    if let Err(e) = room_for_all(&out_dir, plans.len()) {
        out_dir.discard();
        return Err(e);
    }
    let subs = match sub_dirs(&out_dir, labels) {
        Ok(d) => d,
        Err(e) => {
            out_dir.discard();
            return Err(e);
        }
    };
    let dirs: Vec<&OutDir> = std::iter::once(&out_dir).chain(&subs).collect();
    if let Err(e) = plans
        .iter()
        .try_for_each(|p| super::target_not_a_run_file(p, &dirs))
    {
        subs.into_iter().for_each(|d| {
            d.discard();
        });
        out_dir.discard();
        return Err(e);
    }
    let to_create: Vec<(&Path, u64)> = plans
        .iter()
        .filter(|p| p.target.created)
        .map(|p| {
            let dir = p.target.path.parent().unwrap_or(Path::new("."));
            (dir, p.target.capacity_bytes)
        })
        .collect();
    // A resource limit: each target's and the aggregate's results.json say "failed", as one target's.
    if let Err(e) = out_dir.room_beside(&to_create) {
        subs.into_iter().for_each(|d| {
            d.discard();
        });
        out_dir.discard();
        return Err(refused_by_limit(s, plans, a, launch, labels, &e.refusal()));
    }
    if let Err(e) = create_targets(s, plans, say) {
        subs.into_iter().for_each(|d| {
            d.discard();
        });
        out_dir.discard();
        return Err(e);
    }
    Ok((out_dir, subs))
}

/// The targets' results merged into the aggregate results.json (its totals printed), then every results.json
/// written, each target's and the aggregate, checked against the published schema (the violations
/// returned), and those that match it checked as `wkrun validate` would past the schema: a target whose
/// results it would refuse failed (its outcome made so), as does the aggregate.
fn aggregate_and_check(
    out_dir: &OutDir,
    subs: &[OutDir],
    (files, labels): (&[PathBuf], &[String]),
    outcomes: &mut [Result<wkrun::results::Results, RunError>],
    a: &RunArgs,
) -> (Result<(), String>, Vec<String>) {
    let mut unchecked = Vec::new();
    for (o, dir) in outcomes.iter_mut().zip(subs) {
        if !dir.join("results.json").is_file() {
            continue;
        }
        match (wkrun::results::check::check_written(dir), o.as_mut()) {
            (Err(e), _) => unchecked.push(e),
            (Ok(()), Ok(r)) => {
                if let Err(e) =
                    crate::own_check::own_results(dir, r, crate::own_check::Scope::Figures)
                {
                    *o = Err(RunError::Failed(e));
                }
            }
            (Ok(()), Err(_)) => {}
        }
    }
    let path = out_dir.join("results.json");
    let aggregate = merge::merge_targets(files)
        .map(|mut m| {
            if let Some(l) = &a.label {
                m.results.label = Some(l.clone());
            }
            m
        })
        .and_then(|m| write_aggregate(out_dir, m))
        .map_err(|e| format!("the aggregate {} could not be written: {e}", path.display()));
    // The targets' sum of each phase, after the targets' own lines: the aggregate results.json's totals.
    if let Ok(m) = &aggregate {
        for l in merge::totals_lines(m, &format!("[all {} targets] ", labels.len())) {
            run::progress::out_line(&l);
        }
    }
    let schema = match path.is_file() {
        true => wkrun::results::check::check_written(out_dir),
        false => Ok(()),
    };
    let aggregate = aggregate.and_then(|mut m| match &schema {
        Ok(()) => {
            crate::own_check::own_results(out_dir, &mut m.results, crate::own_check::Scope::Files)
                .map_err(|e| format!("the aggregate {}: {e}", path.display()))
        }
        Err(_) => Ok(()),
    });
    unchecked.extend(schema.err());
    (aggregate, unchecked)
}

/// The plan of each target, with `--from`, the launch and the label applied; each target's notes said. With
/// them the refusal of the first file to create that does not fit (a resource limit), its plan made on
/// the path and size asked for.
fn plan_each(
    s: &LoadedSpec,
    targets: &[Option<PathBuf>],
    a: &RunArgs,
    launch: &Launch,
    say: &dyn Fn(&str),
) -> Result<(Vec<Plan>, Option<String>), Fail> {
    let mut plans = Vec::with_capacity(targets.len());
    let mut unmade = None;
    for (i, t) in targets.iter().enumerate() {
        let mut notes = Vec::new();
        let mut plan = match probe_and_plan(s, t.as_deref(), &a.target, &mut notes, Some(i)) {
            Err(Fail(1, why)) => match super::unmade_file_plan(s, t.as_deref(), &a.target) {
                Some(p) => {
                    unmade.get_or_insert(why);
                    p
                }
                None => return Err(Fail(1, why)),
            },
            r => r?.1,
        };
        start_at(&mut plan, a.from.as_deref(), s)?;
        plan.launch = launch.clone();
        if let Some(l) = &a.label {
            plan.label = wkrun::text::label(&format!("{l}: {}", plan.label));
        }
        let path = plan.target.path.display().to_string();
        for n in &notes {
            // A note that starts with its target's path (`PATH exists: ...`) names it already.
            match n.starts_with(&path) {
                true => say(&format!("note: {n}")),
                false => say(&format!("note: {path}: {n}")),
            }
        }
        plans.push(plan);
    }
    Ok((plans, unmade))
}

/// Every target checked before anything is opened for writing on any of them: no two the same, each one's
/// consent, none held by another run, then the resource limits (open files, address space, memory). The
/// consents, in target order, and the files under the targets' loop devices claimed for the run, each once
/// (two partitions of one loop device lie on one file; [`Claims`]).
fn check_all(plans: &[Plan], a: &RunArgs) -> Result<(Vec<Consent>, Claims), Fail> {
    let infos: Vec<&TargetInfo> = plans.iter().map(|p| &p.target).collect();
    if let Some(why) = safety::duplicate(&infos) {
        return Err(bad(format!("{why}; nothing was written")));
    }
    let consents = consents(plans, &a.allow_destroy)
        .map_err(|why| bad(format!("{why}; nothing was written to any target")))?;
    // A file another run holds would be refused when its target claims it, after the others started.
    if let Some(why) = plans.iter().find_map(|p| safety::held_by_a_run(&p.target)) {
        return Err(bad(format!("{why}; nothing was written to any target")));
    }
    let held: Vec<(&TargetInfo, bool)> = plans
        .iter()
        .filter(|p| run::holds_target(p))
        .map(|p| (&p.target, p.writes()))
        .collect();
    let claims = Claims::take(&held)
        .map_err(|why| bad(format!("{why}; nothing was written to any target")))?;
    let all: Vec<&Plan> = plans.iter().collect();
    // A resource limit, checked once the input is known good: exit 1.
    run::check_open_files(&all).map_err(|e| Fail(1, e))?;
    run::check_address_space(&all).map_err(|e| Fail(1, e))?;
    run::check_memory(&all).map_err(|e| Fail(1, e))?;
    Ok((consents, claims))
}

/// A run on several targets a resource limit refused before it started (`why`, ending "; nothing was
/// written"): exit 1, with each target's `results.json` and the aggregate saying "failed" with why in the
/// output folder when it can hold them, else nothing written and the message saying why not (a refused run
/// on 3 targets left no results file).
fn refused_by_limit(
    s: &LoadedSpec,
    plans: &[Plan],
    a: &RunArgs,
    launch: &Launch,
    labels: &[String],
    why: &str,
) -> Fail {
    let cause = why.strip_suffix("; nothing was written").unwrap_or(why);
    let out = match &a.output {
        Some(p) => OutDir::for_run(p),
        None => run::open_default_output(&plans[0].spec_name, launch.rank.as_ref().map(|r| r.rank)),
    };
    // An output folder that is bad input is refused as such (exit 2), before the limit.
    let d = match out {
        Ok(d) => d,
        Err(e) if e.exit_code() == 2 => return Fail(2, e.to_string()),
        Err(e) => return super::refusal(cause, Err(e.to_string()), ""),
    };
    let written = {
        let mut subs = Vec::new();
        let r = room_for_all(&d, plans.len())
            .and_then(|()| sub_dirs(&d, labels))
            .map_err(|Fail(_, e)| e)
            .and_then(|made| {
                subs = made;
                plans.iter().zip(&subs).try_for_each(|(p, sub)| {
                    run::record_refused(s, p, sub, cause).map_err(|e| e.to_string())
                })
            })
            .and_then(|()| {
                let files: Vec<PathBuf> = subs.iter().map(|d| d.join("results.json")).collect();
                // The refusal once, not once per target as the merge joins their errors.
                let mut m = merge::merge_targets(&files)?;
                m.results.error = Some(cause.to_string());
                m.results.status = wkrun::results::Status::Failed;
                write_aggregate(&d, m).map(|_| ())
            });
        match r {
            Ok(()) => Ok(d.join("results.json")),
            Err(e) => {
                for sub in subs {
                    let _ = sub.remove("results.json");
                    sub.discard();
                }
                let _ = d.remove("results.json");
                d.discard();
                Err(e)
            }
        }
    };
    super::refusal(cause, written, " and each target's results.json say")
}

/// Refuses an output folder whose file system has less than the least room a run's results need
/// ([`MIN_ROOM`](wkrun::results::outdir::MIN_ROOM)) for each of `targets` targets and for their aggregate:
/// on less, some results file would be left without its last state.
fn room_for_all(out_dir: &OutDir, targets: usize) -> Result<(), Fail> {
    let min = wkrun::results::outdir::MIN_ROOM;
    let need = min.saturating_mul(targets as u64 + 1);
    match out_dir.free_bytes() {
        // A resource limit: exit 1.
        Some(free) if free < need => Err(Fail(
            1,
            format!(
                "cannot write into the output folder {}: its file system has {free} B free, less than the {need} B a run on {targets} targets needs ({min} B for each target's results and for their aggregate); choose another --output folder; nothing was written",
                wkrun::text::escaped(&out_dir.path().to_string_lossy())
            ),
        )),
        _ => Ok(()),
    }
}

/// Bytes kept free for the aggregate while the targets run, at most.
const AGGREGATE_ROOM: u64 = 256 * 1024;

/// The room to keep for the aggregate of `targets` targets on a file system with `free` bytes free:
/// [`AGGREGATE_ROOM`], less whatever would leave a target less than the least room a run's results need
/// ([`MIN_ROOM`](wkrun::results::outdir::MIN_ROOM)).
fn aggregate_room(free: Option<u64>, targets: usize) -> u64 {
    let theirs = wkrun::results::outdir::MIN_ROOM.saturating_mul(targets as u64);
    free.map_or(AGGREGATE_ROOM, |f| {
        AGGREGATE_ROOM.min(f.saturating_sub(theirs))
    })
}

/// Writes the aggregate `m`; when its series do not fit (a full disk), at least its `results.json`, without
/// the series and saying "failed" with why, so that every results file of the run says how it ended.
///
/// # Errors
/// Why the whole aggregate could not be written (the run fails with it).
fn write_aggregate(out_dir: &OutDir, m: merge::Merged) -> Result<merge::Merged, String> {
    let Err(e) = merge::write(out_dir, &m) else {
        return Ok(m);
    };
    let mut short = m.results.clone();
    for p in &mut short.phases {
        p.series_csv = None;
        p.hist_log = None;
    }
    short.status = wkrun::results::Status::Failed;
    short.error = Some(format!("the aggregate's series could not be written: {e}"));
    let _ = wkrun::results::write::ResultsWriter::new(out_dir).write(&short);
    Err(e)
}

/// The exit of the run: 0 when every target completed and the aggregate was written, 1 when a target
/// failed or the aggregate could not be written (with any results file written that breaks the schema,
/// `unchecked`, said too), 128 + the signal's number when a signal interrupted it (the broken files said
/// beside), else [`wkrun::results::check::EXIT_SCHEMA_BUG`] when a results file written breaks the schema.
fn finish(
    out_dir: &OutDir,
    labels: &[String],
    outcomes: &[Result<wkrun::results::Results, RunError>],
    aggregate: Result<(), String>,
    unchecked: Vec<String>,
    plan: &Plan,
) -> Result<(), Fail> {
    let mut failed: Vec<String> = labels
        .iter()
        .zip(outcomes)
        .filter_map(|(l, o)| match o {
            Err(RunError::Interrupted) | Ok(_) => None,
            Err(e) => Some(format!("{l}: {e}")),
        })
        .collect();
    if let Err(e) = &aggregate {
        failed.push(e.clone());
    }
    if !failed.is_empty() {
        failed.extend(unchecked);
        return Err(Fail(1, failed.join("; ")));
    }
    if outcomes
        .iter()
        .any(|o| matches!(o, Err(RunError::Interrupted)))
    {
        for e in &unchecked {
            crate::err_out(&format!("error: {e}\n"));
        }
        return Err(crate::interrupted(out_dir.path()));
    }
    run::progress::out_line(&format!(
        "done: {} (the sum of {} targets; each target's own results in {})",
        wkrun::text::escaped(&out_dir.join("results.json").to_string_lossy()),
        labels.len(),
        labels.join(", ")
    ));
    run::progress::out_line(&run::next_line(out_dir.path(), plan));
    match unchecked.is_empty() {
        true => Ok(()),
        false => Err(Fail(
            wkrun::results::check::EXIT_SCHEMA_BUG,
            unchecked.join("; "),
        )),
    }
}

/// The consent of each target, the one definition of the rules for a run (on one target or several) and for
/// `wkrun plan`'s note: a run on one target takes at most one `--allow-destroy`, which `safety::consent`
/// checks; on several, every `--allow-destroy` must name one of the run's block devices, and each block
/// device the run writes needs its own; every target refused is named in the one error.
pub(super) fn consents(plans: &[Plan], allow: &[PathBuf]) -> Result<Vec<Consent>, String> {
    if let [p] = plans {
        if allow.len() > 1 {
            return Err(format!(
                "--allow-destroy is given {} times, but the run has one target: name only its device",
                allow.len()
            ));
        }
        return safety::consent(&p.target, p.writes(), allow.first().map(PathBuf::as_path))
            .map(|c| vec![c]);
    }
    let names = |d: &Path, p: &Plan| {
        p.target.kind == TargetKind::Block && safety::same_device(d, &p.target.path)
    };
    for d in allow {
        if !plans.iter().any(|p| names(d, p)) {
            let paths: Vec<String> = plans
                .iter()
                .map(|p| p.target.path.display().to_string())
                .collect();
            return Err(format!(
                "--allow-destroy names {}, which is none of the run's block devices (targets: {})",
                d.display(),
                paths.join(", ")
            ));
        }
    }
    // Every target's refusal in one error: a user missing two consents learns both at once.
    let mut granted = Vec::with_capacity(plans.len());
    let mut refused = Vec::new();
    for p in plans {
        let mine = allow.iter().find(|d| names(d, p));
        match safety::consent(&p.target, p.writes(), mine.map(PathBuf::as_path)) {
            Ok(c) => granted.push(c),
            Err(e) => refused.push(e),
        }
    }
    match refused.is_empty() {
        true => Ok(granted),
        false => Err(refused.join("; ")),
    }
}

/// Each target's label and results folder name: `t<index>-<name>`, the name saying which drive ([`drive_name`]).
fn labels(plans: &[Plan]) -> Vec<String> {
    plans
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let path = p.target.path.to_string_lossy();
            let name = match p.target.kind {
                TargetKind::Sim => path.into_owned(),
                _ => p
                    .target
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            format!("t{i}-{}", drive_name(&name))
        })
        .collect()
}

/// The longest a target's name in its folder's name is, in bytes.
pub const DRIVE_NAME_MAX: usize = 48;

/// A target's name as its results folder gives it: a file's or device's name (`f.img`, `nvme0n1`); a
/// simulated drive by its parameters, `sim-<capacity>-op<op>` and each further item as key and value
/// (`sim:capacity=2GiB,op=7%,dies=1` is `sim-2GiB-op7`, `dies=1` being every drive's default; with
/// `dies=4,jitter=0%`, `sim-2GiB-op7-dies4-jitter0`), so that two simulated drives' folders say which is
/// which (they were `t0-sim`, `t1-sim`). Characters other than ASCII letters, digits, `.`, `-` and `_` are
/// dropped (`%`, `=`) or written `_`, no leading `.`, at most [`DRIVE_NAME_MAX`] bytes: safe in a path and
/// stable for the same target.
pub fn drive_name(name: &str) -> String {
    let raw = match name.strip_prefix("sim:") {
        Some(items) => {
            let mut out = String::from("sim");
            for item in items.split(',') {
                let (k, v) = item.split_once('=').unwrap_or((item, ""));
                match (k, v) {
                    ("capacity", v) => out = format!("{out}-{v}"),
                    ("dies", "1") => {}
                    (k, v) => out = format!("{out}-{k}{v}"),
                }
            }
            out.replace('%', "")
        }
        None => name.to_string(),
    };
    let clean: String = raw
        .chars()
        .filter(|c| !matches!(c, '%' | '='))
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    let clean = clean.trim_start_matches('.');
    clean[..clean.len().min(DRIVE_NAME_MAX)].to_string()
}

/// Each target's results folder inside the run's, created and locked.
fn sub_dirs(out_dir: &OutDir, labels: &[String]) -> Result<Vec<OutDir>, Fail> {
    let mut subs = Vec::with_capacity(labels.len());
    for l in labels {
        match OutDir::for_run(&out_dir.join(l)) {
            Ok(d) => subs.push(d),
            Err(e) => {
                subs.into_iter().for_each(|d| {
                    d.discard();
                });
                return Err(out_fail(e));
            }
        }
    }
    Ok(subs)
}

/// Creates the file targets that do not exist yet (planning each again for its real file); on a failure,
/// removes those it created.
fn create_targets(s: &LoadedSpec, plans: &mut [Plan], say: &dyn Fn(&str)) -> Result<(), Fail> {
    let mut made: Vec<PathBuf> = Vec::new();
    for plan in plans.iter_mut().filter(|p| p.target.created) {
        match run::create_target(s, plan) {
            Ok(p) => {
                *plan = p;
                made.push(plan.target.path.clone());
                say(&run::created_line(&plan.target));
            }
            Err(e) => {
                for m in &made {
                    let _ = std::fs::remove_file(m);
                }
                return Err(bad(e));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::drive_name;

    /// The newcomer's trial: two simulated drives' folders were `t0-sim` and `t1-sim`.
    #[test]
    fn a_targets_folder_says_which_drive() {
        assert_eq!(drive_name("sim:capacity=2GiB,op=7%,dies=1"), "sim-2GiB-op7");
        assert_eq!(
            drive_name("sim:capacity=2GiB,op=28%,dies=1"),
            "sim-2GiB-op28"
        );
        assert_eq!(
            drive_name("sim:capacity=1GiB,op=7%,dies=4,jitter=0%"),
            "sim-1GiB-op7-dies4-jitter0"
        );
        assert_eq!(drive_name("f.img"), "f.img");
        assert_eq!(drive_name(".hidden img"), "hidden_img");
        assert_eq!(drive_name("試験/x"), "___x");
        assert_eq!(drive_name(&"a".repeat(100)), "a".repeat(48));
    }
}
