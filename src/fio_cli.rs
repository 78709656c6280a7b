//! The `import fio` and `export fio` commands: their arguments to library calls ([`wkrun::fio`]), their
//! output to a file or stdout, their problems to exit code 2 with nothing written.

use crate::{Fail, TargetArgs, bad, err_out, stdout_text};
use std::io::Write;
use std::path::{Path, PathBuf};
use wkrun::fio::import::{self, Source};
use wkrun::spec::{LoadedSpec, TargetSection};
use wkrun::units::Size;

/// `wkrun import fio FILE... [-o SPEC] [--lossy]` or `wkrun import fio [-o SPEC] [--lossy] -- ARGS...`.
pub fn cmd_import(
    files: &[PathBuf],
    args: &[String],
    output: Option<&Path>,
    lossy: bool,
) -> Result<(), Fail> {
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    not_an_input(output, &inputs, "spec")?;
    let source = match (files.is_empty(), args.is_empty()) {
        (false, true) => Source::Files(files.to_vec()),
        (true, false) => Source::Args(args.to_vec()),
        (true, true) => {
            return Err(bad(
                "give fio job files (wkrun import fio JOB.fio -o SPEC.toml), or fio's command line after -- (wkrun import fio -o SPEC.toml -- --name=a --rw=randread ...)",
            ));
        }
        (false, false) => {
            return Err(bad(
                "give job files or a command line after --, not both (name job files on fio's command line after -- instead)",
            ));
        }
    };
    let env = |v: &str| std::env::var(v).ok();
    // The spec's name is the same whether it goes to stdout or to -o: the job file's, or the first job's.
    let done = import::import(&source, lossy, None, &env).map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        bad(format!(
            "{}{}\nnothing was written",
            lines.join("\nerror: "),
            misplaced(args)
        ))
    })?;
    // Each one line, as a problem is: a value quoted in it may hold a line break (`${VAR}`).
    let line = |s: &str| wkrun::text::escaped(s).into_owned();
    for n in &done.notes {
        err_out(&format!("note: {}\n", line(n)));
    }
    for d in &done.dropped {
        err_out(&format!("dropped: {}\n", line(d)));
    }
    for a in &done.approximated {
        err_out(&format!("approximated: {}\n", line(a)));
    }
    write_out(output, &done.text, "spec")?;
    if let Some(o) = output {
        err_out(&format!(
            "spec: {} (wkrun plan {} shows what it runs)\n",
            o.display(),
            o.display()
        ));
    }
    Ok(())
}

/// A hint when wkrun's `--lossy` was given after `--`, among fio's arguments (fio has no such option): it
/// goes before `--`.
fn misplaced(args: &[String]) -> String {
    let lossy = args
        .iter()
        .any(|a| a == "--lossy" || a.starts_with("--lossy="));
    match lossy {
        true => "\nhint: --lossy is wkrun's option, not fio's: give it before `--` (wkrun import fio --lossy -o SPEC.toml -- --name=...)".into(),
        false => String::new(),
    }
}

/// The command line's targets as `[target]` (`None`: the spec's own), with the size of each that exists
/// ([`command_targets`]).
type Targets = (Option<TargetSection>, Vec<Option<u64>>);

/// `wkrun export fio SPEC [--target PATH]... [--target-size SIZE] [-o FILE]`. A job file that would run
/// nothing, every phase left out, is refused: exit 2, nothing written (attack 28 F4).
pub fn cmd_export(spec: &Path, output: Option<&Path>, a: &TargetArgs) -> Result<(), Fail> {
    not_an_input(output, &[spec], "job file")?;
    let s = wkrun::spec::load_file(spec).map_err(|e| Fail(e.exit_code(), e.to_string()))?;
    let (on, sizes) = command_targets(&s, a)?;
    let e = wkrun::fio::export::export_sized(&s, on.as_ref(), &sizes).map_err(|e| {
        Fail(
            e.exit_code(),
            format!("{e}\nnothing was written (fio would read the job file otherwise than the spec means)"),
        )
    })?;
    for c in &e.cannot {
        err_out(&format!("not exported: {c}\n"));
    }
    if e.phases == 0 {
        return Err(bad(format!(
            "{}: no phase can be exported to fio (each is said above), so the job file would run nothing; nothing was written",
            spec.display()
        )));
    }
    for d in &e.differs {
        err_out(&format!("differs: {d}\n"));
    }
    write_out(output, &e.text, "job file")
}

/// Whether the spec's `[target]` names a file or block device that exists (`path`, or one of `paths` that
/// is no simulated drive): export then reads its size as `--target` would (trial 28).
fn names_existing(s: &LoadedSpec) -> bool {
    let Some(t) = &s.file.target else {
        return false;
    };
    let paths = t.path.iter().chain(t.paths.iter().flatten());
    paths.filter(|p| !sim(p)).any(|p| p.exists())
}

/// Whether a target's path names a simulated drive (`sim:...`).
fn sim(p: &Path) -> bool {
    p.to_str()
        .is_some_and(|t| t.starts_with(wkrun::sim::params::PREFIX))
}

/// The targets `--target` and `--target-size` give the job file, as `[target]` would (`None`: neither
/// given), checked as `wkrun plan` checks a run's: a path fio would read otherwise, a simulated drive
/// beside a real target, a target the spec does not plan on (each exit 2, nothing written). Nothing is
/// created or written; the plan's notes go to stderr. `--target-size` is the size of a file wkrun (and
/// fio) would create: for targets that all exist it is left out, as a run ignores it. Beside it, each
/// target's size when it exists (a file or block device, as the plan's probe read it; `None` for one to
/// create or a simulated drive), in the order of the targets. Without either option, the spec's own targets
/// are probed and checked the same way when one of them exists ([`names_existing`]; `None` and their
/// sizes), else nothing is read.
fn command_targets(s: &LoadedSpec, a: &TargetArgs) -> Result<Targets, Fail> {
    let own = a.target.is_empty() && a.target_size.is_none();
    if own && !names_existing(s) {
        return Ok((None, Vec::new()));
    }
    for p in &a.target {
        if let Some(why) = wkrun::fio::export::path_problem(&p.to_string_lossy()) {
            let shown = wkrun::text::escaped(&p.to_string_lossy()).into_owned();
            return Err(bad(format!(
                "--target {shown}: fio cannot be given this path: {why}\nnothing was written"
            )));
        }
    }
    let targets = crate::target_list(s, a)?;
    let several = targets.len() > 1;
    let mut notes = Vec::new();
    let mut sizes = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let (info, _) =
            crate::probe_and_plan(s, t.as_deref(), a, &mut notes, several.then_some(i))?;
        let real = info.kind != wkrun::target::TargetKind::Sim;
        sizes.push((real && !info.created).then_some(info.capacity_bytes));
    }
    for n in &notes {
        err_out(&format!("note: {n}\n"));
    }
    if own {
        return Ok((None, sizes));
    }
    let spec = s.file.target.clone();
    let size = match &a.target_size {
        Some(t) => Some(Size::parse(t).map_err(|e| bad(format!("--target-size: {e}")))?),
        None => spec.as_ref().and_then(|t| t.size),
    };
    let made = targets.iter().any(|t| match t {
        Some(p) => !sim(p) && !p.exists(),
        None => true,
    });
    let mut section = spec.unwrap_or(TargetSection {
        path: None,
        paths: None,
        size: None,
        sim: None,
        write_cache: None,
    });
    section.size = size.filter(|_| made);
    match a.target.as_slice() {
        [] => {}
        [one] if sim(one) => {
            let text = one.to_string_lossy();
            section.sim = Some(wkrun::sim::SimParams::parse_target(&text).map_err(bad)?);
            (section.path, section.paths) = (None, None);
        }
        [one] => (section.path, section.paths, section.sim) = (Some(one.clone()), None, None),
        many => (section.path, section.paths, section.sim) = (None, Some(many.to_vec()), None),
    }
    Ok((Some(section), sizes))
}

/// Refuses an `output` (`-o`) that names one of the command's `inputs`, the same file (by device and inode
/// where both exist, else by path): the `what` written would replace what was read (attack 29 F12).
fn not_an_input(output: Option<&Path>, inputs: &[&Path], what: &str) -> Result<(), Fail> {
    use std::os::unix::fs::MetadataExt;
    let Some(out) = output else {
        return Ok(());
    };
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let same = |i: &Path| match (id(out), id(i)) {
        (Some(a), Some(b)) => a == b,
        _ => out == i,
    };
    match inputs.iter().copied().find(|i| same(i)) {
        Some(i) => Err(bad(format!(
            "-o {} is the input {}: the {what} would replace it; name another file; nothing was written",
            out.display(),
            i.display()
        ))),
        None => Ok(()),
    }
}

/// Writes `text` to `output` (a temporary file beside it, renamed over it: a failed write leaves nothing),
/// or to stdout.
fn write_out(output: Option<&Path>, text: &str, what: &str) -> Result<(), Fail> {
    let Some(path) = output else {
        stdout_text(text);
        return Ok(());
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // A path that cannot be written (a folder missing, not a folder, no permission) is the user's: 2.
    let cannot = |e: std::io::Error| {
        let code = match e.raw_os_error() {
            Some(libc::EIO) | None => 1,
            _ if wkrun::sys::limits::is_resource_limit(&e) => 1,
            Some(_) => 2,
        };
        let e = wkrun::sys::limits::explain_file_size(e);
        Fail(
            code,
            format!("cannot write the {what} {}: {e}", path.display()),
        )
    };
    if let Some(on) = wkrun::target::not_storage(path) {
        return Err(bad(format!(
            "the {what} {} would be on {on}, not on storage; choose another file",
            path.display()
        )));
    }
    if path.is_dir() {
        return Err(bad(format!(
            "{} is a folder; name the {what} file",
            path.display()
        )));
    }
    let mut tmp = tempfile_in(&dir).map_err(cannot)?;
    let written = tmp
        .1
        .write_all(text.as_bytes())
        .and_then(|()| tmp.1.sync_all())
        .and_then(|()| std::fs::rename(&tmp.0, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp.0);
        return Err(cannot(e));
    }
    Ok(())
}

/// A new file in `dir` with a name of its own.
fn tempfile_in(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    for n in 0..100u32 {
        let p = dir.join(format!(".wkrun-import-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary name"))
}
