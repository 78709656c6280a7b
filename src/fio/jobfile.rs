//! Reading fio's input as fio reads it, into sections of options: job files (its ini dialect: `[section]`
//! headers, `[global...]` sections, `;` and `#` comments anywhere on a line, options without values,
//! repeated sections, `include FILE` inside a section, `${VAR}` from the environment) and fio's command
//! line (`--name=a --rw=read ... --name=b ...`: options before the first `--name` are global, each
//! `--name` starts a job, other words are job files read after the command line's jobs).
//!
//! Stricter than fio where fio would silently read something else than was written: an unset `${VAR}`
//! (fio substitutes nothing), an unterminated `[section` (fio drops its last character), a file that is not
//! text, an `include` loop (fio recurses until it runs out of memory) are refused, naming file and line.

use super::{Place, Problem};
use crate::spec::fio::{FioType, fio_option};
use std::path::{Path, PathBuf};

/// The largest job file read (fio's own are a few KiB; a file past this is not a job file).
pub const MAX_JOB_FILE_BYTES: u64 = 1 << 20;

/// The longest line fio reads as one (its `OPT_LEN_MAX`).
const MAX_LINE: usize = 8192;

/// How deep `include` may nest.
const MAX_INCLUDE_DEPTH: usize = 16;

/// How many `include` lines one top-level job file may expand in all (nested ones counted each time they
/// are read): sixteen files each including the next sixteen times would otherwise expand 16^16 times.
const MAX_INCLUDES: usize = 10_000;

/// How many bytes of included text one top-level job file may expand to in all.
const MAX_INCLUDED_BYTES: usize = 4 << 20;

/// The includes being read for one top-level job file: the nesting (for loops and depth) and the totals
/// read so far (for [`MAX_INCLUDES`] and [`MAX_INCLUDED_BYTES`]).
struct Includes {
    stack: Vec<PathBuf>,
    count: usize,
    bytes: usize,
}

/// One option as written: `key=value` or a bare `key`, after `${VAR}` expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    /// The name as written (an alias stays an alias).
    pub key: String,
    /// The value, trimmed; `None` for an option written without `=`.
    pub value: Option<String>,
    /// Where it was written.
    pub at: Place,
}

impl Opt {
    /// The option as fio's `key=value` text.
    pub fn text(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.key),
            None => self.key.clone(),
        }
    }
}

/// A `[section]` of a job file or a `--name` of the command line, with its options in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The section's name (a job's name).
    pub name: String,
    /// Whether fio reads it as global (its name starts with `global`, as fio tests it).
    pub global: bool,
    /// Where the section starts.
    pub at: Place,
    /// Its options, in order.
    pub opts: Vec<Opt>,
    /// The first job of a job file after the first: fio stonewalls it (job files run one after another).
    pub new_file: bool,
    /// Read from fio's command line, whose options fio applies one by one as written; a job file's
    /// section fio applies whole, its options sorted `kb_base` first ([`Section::applied`]).
    pub command_line: bool,
}

impl Section {
    /// The options in the order fio applies them. fio 3.33 reads a job file's section (its included files'
    /// options with it) and sorts the options by their priority before applying them, `kb_base` (of
    /// priority one) before the sizes, so `bs=4k` then `kb_base=1000` in one section is 4000 B. On the
    /// command line it applies each `--option` as it comes: `--bs=4k --kb_base=1000` is 4096 B, and
    /// `--kb_base=1000 --bs=4k` is 4000 B (measured: `tests/it/fio_kb_base.rs`). A size an earlier section
    /// set (`[global]`, or the command line's options before `--name`) keeps the base it was read with.
    pub fn applied(&self) -> Vec<&Opt> {
        if self.command_line {
            return self.opts.iter().collect();
        }
        let first = |o: &&Opt| fio_option(&o.key).is_some_and(|f| f.name == "kb_base");
        let (mut kb, rest): (Vec<&Opt>, Vec<&Opt>) = self.opts.iter().partition(first);
        kb.extend(rest);
        kb
    }
}

/// Everything read: sections in fio's order, and fio's own command-line options (`--output-format`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    /// The sections, global ones included, in the order fio reads them.
    pub sections: Vec<Section>,
    /// fio's own command-line options (not job options), as written.
    pub fio_args: Vec<Opt>,
}

/// Looks up an environment variable.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Reads the job files `paths`, in order (fio stonewalls each file after the first: its first job waits for
/// the jobs before it, [`Section::new_file`]).
///
/// # Errors
/// The problems found, each naming file and line.
pub fn read_files(paths: &[PathBuf], env: Env) -> Result<Input, Vec<Problem>> {
    let mut input = Input::default();
    for (i, p) in paths.iter().enumerate() {
        read_into(p, env, i > 0, &mut input.sections)?;
    }
    Ok(input)
}

/// Reads one top-level job file and appends its sections; `later`: not the first job file.
fn read_into(
    path: &Path,
    env: Env,
    later: bool,
    out: &mut Vec<Section>,
) -> Result<(), Vec<Problem>> {
    let mut stonewall = later;
    let shown = path.display().to_string();
    let text = read_text(path, &shown).map_err(|p| vec![p])?;
    let mut stack = Includes {
        stack: vec![canonical(path)],
        count: 0,
        bytes: 0,
    };
    let mut cur: Option<Section> = None;
    let mut problems = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let at = Place::line(&shown, n + 1);
        let Some(line) = content(raw) else {
            continue;
        };
        if let Some(rest) = line.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                problems.push(Problem::new(
                    at,
                    format!("the section header `{line}` has no closing `]`"),
                ));
                break;
            };
            let name = name.trim();
            if name.is_empty() {
                problems.push(Problem::new(at, "a section header `[]` with no name"));
                break;
            }
            out.extend(cur.take());
            let global = name.starts_with("global");
            cur = Some(Section {
                name: name.to_string(),
                global,
                at,
                opts: Vec::new(),
                new_file: stonewall && !global,
                command_line: false,
            });
            stonewall &= global;
            continue;
        }
        let Some(section) = cur.as_mut() else {
            problems.push(Problem::new(
                at,
                format!("`{line}` is outside of any [section] (fio's first line must be one)"),
            ));
            break;
        };
        match include_target(line) {
            Some(file) => {
                let inc = resolve_include(file, path);
                if let Err(p) = read_include(&inc, &at, env, &mut stack, &mut section.opts) {
                    problems.extend(p);
                    break;
                }
            }
            None => match option(line, at, env) {
                Ok(o) => section.opts.push(o),
                Err(p) => problems.push(p),
            },
        }
    }
    out.extend(cur);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The options of an included file (it may include others, never itself; it may not start sections).
fn read_include(
    path: &Path,
    from: &Place,
    env: Env,
    stack: &mut Includes,
    opts: &mut Vec<Opt>,
) -> Result<(), Vec<Problem>> {
    let shown = path.display().to_string();
    let key = canonical(path);
    stack.count += 1;
    if stack.count > MAX_INCLUDES {
        return Err(vec![Problem::new(
            from.clone(),
            format!(
                "include {shown}: the includes expand to more than {MAX_INCLUDES} files in all"
            ),
        )]);
    }
    if stack.stack.contains(&key) {
        return Err(vec![Problem::new(
            from.clone(),
            format!("include {shown}: an include loop ({shown} is already being read)"),
        )]);
    }
    if stack.stack.len() >= MAX_INCLUDE_DEPTH {
        return Err(vec![Problem::new(
            from.clone(),
            format!("include {shown}: includes nest more than {MAX_INCLUDE_DEPTH} deep"),
        )]);
    }
    let text = read_text(path, &shown).map_err(|mut p| {
        p.message = format!("include {shown}: {}", p.message);
        if matches!(p.at, Place::File(_)) {
            p.at = from.clone();
        }
        vec![p]
    })?;
    stack.bytes += text.len();
    if stack.bytes > MAX_INCLUDED_BYTES {
        return Err(vec![Problem::new(
            from.clone(),
            format!(
                "include {shown}: the includes expand to more than {} MiB of text in all",
                MAX_INCLUDED_BYTES >> 20
            ),
        )]);
    }
    stack.stack.push(key);
    let mut problems = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let at = Place::line(&shown, n + 1);
        let Some(line) = content(raw) else {
            continue;
        };
        if line.starts_with('[') {
            problems.push(Problem::new(
                at,
                "an included file cannot start a section (fio: \"No new sections in included files\")",
            ));
            break;
        }
        match include_target(line) {
            Some(file) => {
                let inc = resolve_include(file, path);
                if let Err(p) = read_include(&inc, &at, env, stack, opts) {
                    problems.extend(p);
                    break;
                }
            }
            None => match option(line, at, env) {
                Ok(o) => opts.push(o),
                Err(p) => problems.push(p),
            },
        }
    }
    stack.stack.pop();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The path an `include` names: as written when it exists, else beside the including file (as fio).
fn resolve_include(file: &str, from: &Path) -> PathBuf {
    let p = PathBuf::from(file);
    if p.exists() || p.is_absolute() {
        return p;
    }
    from.parent().map_or(p.clone(), |d| d.join(&p))
}

/// The file an `include FILE` line names.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    rest.starts_with([' ', '\t']).then(|| rest.trim())
}

/// A path's identity for loop detection: its canonical form, or the path itself.
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A line without its comment (from the first `;` or `#`, as fio cuts it) and surrounding blanks; `None`
/// when nothing is left.
fn content(raw: &str) -> Option<&str> {
    let cut = raw.find([';', '#']).unwrap_or(raw.len());
    let t = raw[..cut].trim();
    (!t.is_empty()).then_some(t)
}

/// A job file's text: a regular file of at most [`MAX_JOB_FILE_BYTES`], UTF-8 without control characters
/// but tabs and line ends, and no line longer than fio reads.
fn read_text(path: &Path, shown: &str) -> Result<String, Problem> {
    let whole = |m: String| Problem::new(Place::File(shown.to_string()), m);
    let bytes = crate::spec::load::read_regular_bounded(path, MAX_JOB_FILE_BYTES)
        .map_err(|e| whole(format!("cannot read the job file: {e}")))?
        .ok_or_else(|| {
            whole(format!(
                "larger than {} MiB, the largest job file wkrun reads (fio's are a few KiB); nothing was written",
                MAX_JOB_FILE_BYTES >> 20
            ))
        })?;
    check_text(&bytes, shown)
}

/// The bytes as text, or the line of the first byte that no job file holds.
fn check_text(bytes: &[u8], shown: &str) -> Result<String, Problem> {
    let line_of = |i: usize| bytes[..i].iter().filter(|&&b| b == b'\n').count() + 1;
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Problem::new(
            Place::line(shown, line_of(e.valid_up_to())),
            format!(
                "not a job file: the byte at offset {} is not UTF-8 text",
                e.valid_up_to()
            ),
        )
    })?;
    if let Some((i, c)) = text
        .char_indices()
        .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\x0c'))
    {
        return Err(Problem::new(
            Place::line(shown, line_of(i)),
            format!("not a job file: control character {c:?} at offset {i}"),
        ));
    }
    if let Some((n, _)) = text.lines().enumerate().find(|(_, l)| l.len() > MAX_LINE) {
        return Err(Problem::new(
            Place::line(shown, n + 1),
            format!("a line longer than {MAX_LINE} bytes, which fio reads as several"),
        ));
    }
    Ok(text.to_string())
}

/// One option line (`key=value` or `key`), `${VAR}` expanded.
fn option(line: &str, at: Place, env: Env) -> Result<Opt, Problem> {
    let line = expand(line, env).map_err(|m| Problem::new(at.clone(), m))?;
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
        None => (line.trim(), None),
    };
    if key.is_empty() {
        return Err(Problem::new(at, format!("`{line}` names no option")));
    }
    Ok(Opt {
        key: key.to_string(),
        value,
        at,
    })
}

/// fio's keywords, which it replaces with facts of the host it runs on.
pub(crate) const KEYWORDS: [(&str, &str); 3] = [
    ("$pagesize", "the host's page size"),
    ("$mb_memory", "the host's memory in MiB"),
    ("$ncpus", "the host's number of CPUs"),
];

/// `text` with every `${VAR}` replaced by the variable's value; an unset or empty-named variable, and fio's
/// host keywords (`$ncpus`), are refused.
pub fn expand(text: &str, env: Env) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err("`${}` names no environment variable".into());
        }
        match env(name) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(format!(
                    "${{{name}}}: the environment variable {name} is not set (fio would put nothing in its place); set it, or write the value"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    if let Some((k, what)) = KEYWORDS.iter().find(|(k, _)| out.contains(k)) {
        return Err(format!(
            "`{k}` is {what}, which fio reads where it runs; write the number the spec should use"
        ));
    }
    Ok(out)
}

/// fio's own command-line options (not job options): whether each takes a value, and whether it only changes
/// fio's output (accepted with a note) or has no wkrun meaning (refused).
const FIO_ARGS: &[(&str, bool, bool)] = &[
    ("output", true, true),
    ("output-format", true, true),
    ("minimal", false, true),
    ("append-terse", false, true),
    ("terse-version", true, true),
    ("bandwidth-log", false, true),
    ("latency-log", true, true),
    ("eta", true, true),
    ("eta-interval", true, true),
    ("eta-newline", true, true),
    ("status-interval", true, true),
    ("warnings-fatal", false, true),
    ("aux-path", true, true),
    ("max-jobs", true, true),
    ("alloc-size", true, true),
    ("debug", true, true),
    ("readonly", false, false),
    ("section", true, false),
    ("client", true, false),
    ("server", false, false),
    ("remote-config", true, false),
    ("daemonize", true, false),
    ("parse-only", false, false),
    ("showcmd", false, false),
    ("version", false, false),
    ("help", false, false),
    ("cmdhelp", false, false),
    ("enghelp", false, false),
    ("profile", true, false),
    ("idle-prof", true, false),
    ("inflate-log", true, false),
    ("trigger", true, false),
    ("trigger-file", true, false),
    ("trigger-timeout", true, false),
    ("trigger-remote", true, false),
    ("merge-blktrace-only", false, false),
    ("crctest", false, false),
    ("memcpytest", false, false),
    ("cpuclock-test", false, false),
];

/// Whether fio's own command-line option `name` only changes fio's output (`Some(true)`), has no wkrun
/// meaning (`Some(false)`), or is no such option (`None`).
pub fn fio_arg_is_output(name: &str) -> Option<bool> {
    FIO_ARGS.iter().find(|a| a.0 == name).map(|a| a.2)
}

/// Reads fio's command line (`args`, without `fio` itself), then the job files it names.
///
/// # Errors
/// The problems found, each naming the argument (1-based among `args`) or the file and line.
pub fn read_args(args: &[String], env: Env) -> Result<Input, Vec<Problem>> {
    let mut input = Input::default();
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut cur: Option<Section> = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let at = Place::arg(i + 1, a);
        i += 1;
        let Some(body) = a.strip_prefix("--").filter(|b| !b.is_empty()) else {
            if a.starts_with('-') && a.len() > 1 {
                problems.push(Problem::new(
                    at,
                    "fio's short options have no wkrun meaning (give fio's job options as --name=VALUE)",
                ));
            } else if a != "--" {
                files.push(PathBuf::from(a));
            }
            continue;
        };
        let body = match expand(body, env) {
            Ok(b) => b,
            Err(m) => {
                problems.push(Problem::new(at, m));
                continue;
            }
        };
        let (name, mut value) = match body.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (body.clone(), None),
        };
        if let Some(&(_, takes, _)) = FIO_ARGS.iter().find(|x| x.0 == name) {
            if takes && value.is_none() && i < args.len() {
                value = Some(args[i].clone());
                i += 1;
            }
            input.fio_args.push(Opt {
                key: name,
                value,
                at,
            });
            continue;
        }
        let Some(o) = fio_option(&name) else {
            problems.push(super::unknown_option(at, &name));
            continue;
        };
        if value.is_none() && o.kind != FioType::Flag {
            match args.get(i) {
                Some(v) => {
                    value = Some(v.clone());
                    i += 1;
                }
                None => {
                    problems.push(Problem::new(at, format!("--{name} needs a value")));
                    continue;
                }
            }
        }
        if o.name == "name" {
            let v = value.unwrap_or_default();
            input.sections.extend(cur.take());
            cur = Some(Section {
                global: v.starts_with("global"),
                name: v,
                at,
                opts: Vec::new(),
                new_file: false,
                command_line: true,
            });
            continue;
        }
        let section = cur.get_or_insert_with(|| Section {
            name: "global".into(),
            global: true,
            at: at.clone(),
            opts: Vec::new(),
            new_file: false,
            command_line: true,
        });
        section.opts.push(Opt {
            key: name,
            value,
            at,
        });
    }
    input.sections.extend(cur);
    for (n, f) in files.iter().enumerate() {
        if let Err(p) = read_into(f, env, n > 0, &mut input.sections) {
            problems.extend(p);
        }
    }
    if problems.is_empty() {
        Ok(input)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn env(name: &str) -> Option<String> {
        (name == "BS").then(|| "4k".to_string())
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        p
    }

    fn read(text: &str) -> Result<Input, Vec<Problem>> {
        let d = tempfile::tempdir().expect("tempdir");
        let p = write(d.path(), "j.fio", text);
        read_files(&[p], &env)
    }

    fn messages(r: Result<Input, Vec<Problem>>) -> Vec<String> {
        r.expect_err("refused")
            .iter()
            .map(|p| {
                let at = p.at.to_string();
                let at = at.rsplit('/').next().unwrap_or(&at).to_string();
                format!("{at}: {}", p.message)
            })
            .collect()
    }

    #[test]
    fn sections_comments_bare_options_and_repeats() {
        let text = "; a comment\n# another\n[global]\nbs=${BS} ; trailing\ndirect = 1 # too\n\n\
                    [job]\ntime_based\nrw=randread\n[job]\nrw=write\n[global2]\niodepth=4\n";
        let input = read(text).expect("reads");
        let got: Vec<(String, bool, Vec<String>)> = input
            .sections
            .iter()
            .map(|s| {
                let opts = s.opts.iter().map(Opt::text).collect();
                (s.name.clone(), s.global, opts)
            })
            .collect();
        let s =
            |n: &str, g, o: &[&str]| (n.to_string(), g, o.iter().map(|x| x.to_string()).collect());
        assert_eq!(
            got,
            vec![
                s("global", true, &["bs=4k", "direct=1"]),
                s("job", false, &["time_based", "rw=randread"]),
                s("job", false, &["rw=write"]),
                s("global2", true, &["iodepth=4"]),
            ]
        );
        assert_eq!(
            input.sections[1].opts[1].at.to_string().rsplit('/').next(),
            Some("j.fio:9")
        );
    }

    #[test]
    fn bad_files_name_their_line() {
        assert_eq!(
            messages(read("[a]\nbs=4k\n[b\nrw=read\n")),
            ["j.fio:3: the section header `[b` has no closing `]`"]
        );
        assert_eq!(
            messages(read("bs=4k\n[a]\n")),
            ["j.fio:1: `bs=4k` is outside of any [section] (fio's first line must be one)"]
        );
        assert_eq!(
            messages(read("[a]\nfilename=${NOPE}/x\n")),
            [
                "j.fio:2: ${NOPE}: the environment variable NOPE is not set (fio would put nothing in its place); set it, or write the value"
            ]
        );
        assert_eq!(
            messages(read("[a]\nnumjobs=$ncpus\n")),
            [
                "j.fio:2: `$ncpus` is the host's number of CPUs, which fio reads where it runs; write the number the spec should use"
            ]
        );
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("bin.fio");
        std::fs::write(&p, b"[a]\nbs=4k\n\x00\x01\x02\xff").expect("write");
        assert_eq!(
            messages(read_files(&[p], &no_env)),
            ["bin.fio:3: not a job file: the byte at offset 13 is not UTF-8 text"]
        );
        let p = d.path().join("big.fio");
        let f = std::fs::File::create(&p).expect("create");
        f.set_len(100 << 20).expect("size");
        assert_eq!(
            messages(read_files(&[p], &no_env)),
            [
                "big.fio: larger than 1 MiB, the largest job file wkrun reads (fio's are a few KiB); nothing was written"
            ]
        );
    }

    #[test]
    fn includes_add_options_and_loops_are_refused() {
        let d = tempfile::tempdir().expect("tempdir");
        write(d.path(), "inc.fio", "bs=8k\ninclude inc2.fio\n");
        write(d.path(), "inc2.fio", "iodepth=2\n");
        let top = write(
            d.path(),
            "top.fio",
            "[a]\nrw=read\ninclude inc.fio\ndirect=1\n",
        );
        let input = read_files(&[top], &no_env).expect("reads");
        let opts: Vec<String> = input.sections[0].opts.iter().map(Opt::text).collect();
        assert_eq!(opts, ["rw=read", "bs=8k", "iodepth=2", "direct=1"]);
        write(d.path(), "l1.fio", "include l2.fio\n");
        write(d.path(), "l2.fio", "include l1.fio\n");
        let top = write(d.path(), "loop.fio", "[a]\ninclude l1.fio\n");
        let m = messages(read_files(&[top], &no_env));
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].starts_with("l2.fio:1: include "), "{m:?}");
        assert!(
            m[0].ends_with("l1.fio: an include loop (") || m[0].contains("an include loop"),
            "{m:?}"
        );
        write(d.path(), "sect.fio", "[b]\n");
        let top = write(d.path(), "s.fio", "[a]\ninclude sect.fio\n");
        assert_eq!(
            messages(read_files(&[top], &no_env)),
            [
                "sect.fio:1: an included file cannot start a section (fio: \"No new sections in included files\")"
            ]
        );
    }

    #[test]
    fn includes_that_multiply_are_bounded() {
        let d = tempfile::tempdir().expect("tempdir");
        for i in 1..6 {
            let text = format!("include l{}.fio\n", i + 1).repeat(16);
            write(d.path(), &format!("l{i}.fio"), &text);
        }
        write(d.path(), "l6.fio", "bs=4k\n");
        let top = write(d.path(), "top.fio", "[a]\ninclude l1.fio\n");
        assert_eq!(
            messages(read_files(&[top], &no_env)),
            [format!(
                "l5.fio:13: include {}: the includes expand to more than 10000 files in all",
                d.path().join("l6.fio").display()
            )]
        );
        write(d.path(), "big.fio", &"bs=4k\n".repeat(170_000));
        let text = "include big.fio\n".repeat(20);
        write(d.path(), "many.fio", &text);
        let top = write(d.path(), "top2.fio", "[a]\ninclude many.fio\n");
        assert_eq!(
            messages(read_files(&[top], &no_env)),
            [format!(
                "many.fio:5: include {}: the includes expand to more than 4 MiB of text in all",
                d.path().join("big.fio").display()
            )]
        );
    }

    /// A line longer than fio reads as one is named at its own line: in the top job file, in an include
    /// (line 4, not 1, as a tester reported: it was never line 1), in an include's include, and with CRLF
    /// line ends.
    #[test]
    fn an_over_long_line_is_named_at_its_line() {
        let d = tempfile::tempdir().expect("tempdir");
        let long = format!("size={}", "1".repeat(9000));
        let why = "a line longer than 8192 bytes, which fio reads as several";
        let said = |top: &str, text: &str| {
            let top = write(d.path(), top, text);
            messages(read_files(&[top], &no_env))
        };
        assert_eq!(
            said("j.fio", &format!("[a]\nbs=4k\n{long}\n")),
            [format!("j.fio:3: {why}")]
        );
        let inc = |name: &str| d.path().join(name).display().to_string();
        write(
            d.path(),
            "inc.fio",
            &format!("bs=4k\n; a comment\nrw=read\n{long}\n"),
        );
        assert_eq!(
            said("top.fio", "[a]\ninclude inc.fio\n"),
            [format!("inc.fio:4: include {}: {why}", inc("inc.fio"))]
        );
        write(
            d.path(),
            "deep.fio",
            &format!("bs=4k\r\nrw=read\r\n{long}\r\n"),
        );
        write(d.path(), "mid.fio", "iodepth=2\ninclude deep.fio\n");
        assert_eq!(
            said("top2.fio", "[a]\nbs=4k\ninclude mid.fio\n"),
            [format!("deep.fio:3: include {}: {why}", inc("deep.fio"))]
        );
    }

    /// fio applies a job file's section `kb_base` first (its options sorted by priority), the command
    /// line's options as written (attack 22 I1: `--bs=4k --kb_base=1000` is 4096 B in fio 3.33).
    #[test]
    fn job_files_apply_kb_base_first_the_command_line_in_order() {
        let applied = |i: &Input| -> Vec<String> {
            i.sections[0].applied().into_iter().map(Opt::text).collect()
        };
        let args: Vec<String> = ["--name=a", "--bs=4k", "--kb_base=1000"]
            .map(String::from)
            .to_vec();
        let cli = read_args(&args, &no_env).expect("reads");
        assert_eq!(applied(&cli), ["bs=4k", "kb_base=1000"]);
        let d = tempfile::tempdir().expect("tempdir");
        let f = write(d.path(), "j.fio", "[a]\nbs=4k\nkb_base=1000\nsize=1m\n");
        let file = read_files(&[f], &no_env).expect("reads");
        assert_eq!(applied(&file), ["kb_base=1000", "bs=4k", "size=1m"]);
    }

    #[test]
    fn command_lines_start_a_job_per_name() {
        let args: Vec<String> =
            "--rw=read --name=a --bs 4k --time_based --name=b --iodepth=2 --output-format=json"
                .split(' ')
                .map(String::from)
                .collect();
        let input = read_args(&args, &no_env).expect("reads");
        let got: Vec<(String, bool, Vec<String>)> = input
            .sections
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.global,
                    s.opts.iter().map(Opt::text).collect(),
                )
            })
            .collect();
        assert_eq!(got[0], ("global".into(), true, vec!["rw=read".to_string()]));
        assert_eq!(
            got[1],
            (
                "a".into(),
                false,
                vec!["bs=4k".to_string(), "time_based".into()]
            )
        );
        assert_eq!(got[2], ("b".into(), false, vec!["iodepth=2".to_string()]));
        assert_eq!(input.fio_args[0].text(), "output-format=json");
        assert_eq!(
            input.sections[2].opts[0].at.to_string(),
            "fio command line, argument 7 `--iodepth=2`"
        );
        let bad: Vec<String> = vec!["--name=a".into(), "--nope=1".into(), "--bs".into()];
        let m = messages(read_args(&bad, &no_env));
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(
            m[0].starts_with("fio command line, argument 2 `--nope=1`: unknown fio option `nope`"),
            "{m:?}"
        );
        assert_eq!(
            m[1],
            "fio command line, argument 3 `--bs`: --bs needs a value"
        );
    }
}
