//! Loading a spec file: bytes → UTF-8 → TOML → [`SpecFile`] → semantic rules, with every error located at a
//! file, line, column and field path (`phase[2].queue_depth`), and a "did you mean" for misspelled keys.

use super::{FORMAT_VERSION, SpecFile, rules};
use crate::text::{ECHO, clip, clip_line, clip_quoted};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A spec that parsed and passed every rule that needs no target.
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    /// The file it came from (as given on the command line).
    pub path: PathBuf,
    /// The parsed spec.
    pub file: SpecFile,
    /// Hex SHA-256 of the file's bytes, recorded in the results so runs can be matched to the exact spec.
    pub sha256: String,
    /// Where each key and value sits in the source, for errors found later (plan time).
    pub index: SourceIndex,
    /// The phases to run: `file.phase` with sweeps and matrices expanded ([`super::expand`]).
    pub phases: Vec<super::PhaseSpec>,
    /// `--set` overrides applied, each as `KEY=VALUE` with the value in TOML form (`duration="10s"`), as
    /// the results record them.
    pub overrides: Vec<String>,
    /// The `--set` overrides applied, in order (errors name them).
    pub sets: Vec<super::overrides::Override>,
}

impl LoadedSpec {
    /// The location of a phase's key, falling back to `[defaults]` when the phase inherits it, and to the phase's
    /// header when neither sets it.
    pub fn locate_phase_key(&self, phase: usize, key: &str) -> (Location, String) {
        // An expanded phase is located at the [[phase]] it came from.
        let phase = self
            .phases
            .get(phase)
            .and_then(|p| p.origin)
            .unwrap_or(phase);
        let own = format!("phase[{phase}].{key}");
        if let Some(loc) = self.index.locate(&own) {
            return (loc, own);
        }
        let inherited = format!("defaults.{key}");
        if let Some(loc) = self.index.locate(&inherited) {
            return (loc, inherited);
        }
        let header = format!("phase[{phase}]");
        (
            self.index
                .locate(&header)
                .unwrap_or_else(|| self.index.start()),
            own,
        )
    }

    /// An error about a phase's key found after loading (for example against the target's geometry), located
    /// at the key in the file, or, when a `--set` gave the key its value, naming that `--set`.
    pub fn phase_error(
        &self,
        phase: usize,
        key: &str,
        message: impl Into<String>,
        help: Option<String>,
    ) -> SpecError {
        self.phase_error_of(phase, key, &[], message, help)
    }

    /// An error about a key outside the phases (`target.write_cache`) found after loading, located at the key
    /// in the file (at the file's start when the file does not set it).
    pub fn key_error(
        &self,
        path: &str,
        message: impl Into<String>,
        help: Option<String>,
    ) -> SpecError {
        SpecError {
            location: self
                .index
                .locate(path)
                .unwrap_or_else(|| self.index.start()),
            field: Some(path.to_string()),
            message: message.into(),
            help,
        }
    }

    /// [`LoadedSpec::phase_error`] for an error about `key` that the values of the keys `also` take part in
    /// (an interval count: `interval` and `duration`): when a `--set` gave any of them its value, the error
    /// names that `--set` (the first of `key`, then `also`, that has one) rather than the spec's line.
    pub fn phase_error_of(
        &self,
        phase: usize,
        key: &str,
        also: &[&str],
        message: impl Into<String>,
        help: Option<String>,
    ) -> SpecError {
        let one = self.phases.get(phase);
        // A value a --set gave is not where the spec's line says: name the argument instead.
        let set = std::iter::once(key)
            .chain(also.iter().copied())
            .find_map(|k| self.set_for(phase, k));
        if let Some(o) = set {
            let origin = self
                .phases
                .get(phase)
                .and_then(|p| p.origin)
                .unwrap_or(phase);
            let field = describe_phase_field(&format!("phase[{origin}].{key}"), one);
            return SpecError {
                location: Location {
                    file: self.path.clone(),
                    line: 0,
                    column: 0,
                    snippet: None,
                },
                field: Some(format!("--set {}: {field}", crate::text::echo(&o.arg))),
                message: message.into(),
                help,
            };
        }
        let (location, field) = self.locate_phase_key(phase, key);
        let phase = self
            .phases
            .get(phase)
            .and_then(|p| p.origin)
            .unwrap_or(phase);
        // A value inherited from [defaults] is shown where it is written, but named for the phase it broke.
        let field = if field.starts_with("defaults.") {
            format!(
                "{} (inherited from {field})",
                describe_phase_field(&format!("phase[{phase}].{key}"), one)
            )
        } else {
            describe_phase_field(&field, one)
        };
        SpecError {
            location,
            field: Some(field),
            message: message.into(),
            help,
        }
    }
}

/// A place in a spec file: 1-based line and column, with the source line for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The spec file.
    pub file: PathBuf,
    /// 1-based line; 0 when the error concerns the whole file.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The text of the line, and the caret range within it (in characters).
    pub snippet: Option<(String, Range<usize>)>,
}

/// A spec that cannot be used, located in its file. Displayed as
/// `error: FILE:LINE:COL: FIELD: MESSAGE`, the source line with a caret, and an optional `help:` line.
#[derive(Debug, Clone)]
pub struct SpecError {
    /// Where the error is.
    pub location: Location,
    /// The field path, e.g. `phase[1] "w".queue_depht`, when the error concerns one field.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, e.g. "did you mean `queue_depth`?".
    pub help: Option<String>,
}

/// Control characters (a NUL or an escape sequence in a quoted key or value) are shown escaped (`\0`,
/// `\u{1b}`) in every part of the message, never passed to the terminal; a tab stays a tab in the source line.
impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = &self.location;
        write!(f, "{}", escape_controls(&l.file.display().to_string()))?;
        if l.line > 0 {
            write!(f, ":{}:{}", l.line, l.column)?;
        }
        write!(f, ": ")?;
        // A key or value echoed is cut to `text::ECHO` characters, and the source line to a window of that
        // many around the caret (a 400 KB line was printed whole).
        let echo = |t: &str| {
            let t = escape_controls(t);
            let t = clip_quoted(&t, '`', ECHO).into_owned();
            clip_quoted(&t, '"', ECHO).into_owned()
        };
        if let Some(field) = &self.field {
            // A field path holds a phase's name and keys: twice as long before it is cut.
            write!(f, "{}: ", clip(&echo(field), 2 * ECHO))?;
        }
        write!(f, "{}", echo(&self.message))?;
        if let Some((text, caret)) = &l.snippet {
            let (text, caret) = escape_line(text, caret.clone());
            let (text, caret) = clip_line(&text, caret, ECHO);
            let num = l.line.to_string();
            let pad = " ".repeat(num.len());
            let width = caret.end.saturating_sub(caret.start).max(1);
            write!(
                f,
                "\n {pad} |\n {num} | {text}\n {pad} | {}{}",
                " ".repeat(caret.start),
                "^".repeat(width)
            )?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  help: {}", echo(help))?;
        }
        Ok(())
    }
}

/// Every error found in one spec file, in file order (line, then column; errors about the whole file
/// first). Displayed one after another, the second and later each starting `error: ` as the command line
/// prints the first.
/// With what refused the spec ([`Cause`]).
#[derive(Debug, Clone)]
pub struct SpecErrors(pub Vec<SpecError>, pub Cause);

/// What refused a spec, which decides the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The spec is bad input: exit 2.
    Input,
    /// A resource limit (the address space left to load it): exit 1.
    Limit,
}

impl SpecErrors {
    /// The first error (there is always one).
    pub fn first(&self) -> &SpecError {
        &self.0[0]
    }

    /// The exit status of a command these errors stop: 1 for a resource limit, else 2.
    pub fn exit_code(&self) -> u8 {
        match self.1 {
            Cause::Limit => 1,
            Cause::Input => 2,
        }
    }
}

impl From<SpecError> for SpecErrors {
    fn from(e: SpecError) -> SpecErrors {
        SpecErrors(vec![e], Cause::Input)
    }
}

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, "\nerror: ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecErrors {}

/// `text` with every control character written as its escape (`\0`, `\n`, `\u{1b}`).
pub(crate) fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| match c.is_control() {
            true => c.escape_debug().to_string(),
            false => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// A source line with its control characters but tab escaped, and the caret range (in characters) moved
/// to the same characters of the escaped line.
fn escape_line(text: &str, caret: Range<usize>) -> (String, Range<usize>) {
    let mut out = String::with_capacity(text.len());
    // The column of each character in the escaped line, then of the line's end.
    let mut cols = Vec::with_capacity(text.len() + 1);
    let mut col = 0;
    for c in text.chars() {
        cols.push(col);
        if c.is_control() && c != '\t' {
            let e = c.escape_debug();
            col += e.clone().count();
            out.extend(e);
        } else {
            out.push(c);
            col += 1;
        }
    }
    cols.push(col);
    let last = cols.len() - 1;
    let map = |i: usize| cols.get(i).copied().unwrap_or_else(|| col + (i - last));
    (out, map(caret.start)..map(caret.end))
}

/// Key and value byte ranges of every key in the document, by field path (`spec.name`, `phase[2].span`,
/// `phase[2]` for a phase's `[[phase]]` header).
#[derive(Debug, Clone, Default)]
pub struct SourceIndex {
    file: PathBuf,
    text: String,
    entries: HashMap<String, (Range<usize>, Range<usize>)>,
    /// The byte offset where each line starts: a location is a binary search, not a scan of the text.
    lines: Vec<usize>,
    /// For each key or value span, the most specific path with it ([`SourceIndex::path_at`]).
    by_span: HashMap<(usize, usize), String>,
}

impl SourceIndex {
    fn build(file: &Path, text: &str, table: &DeTable<'_>) -> SourceIndex {
        let mut idx = SourceIndex {
            file: file.to_path_buf(),
            text: text.to_string(),
            entries: HashMap::new(),
            lines: std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            by_span: HashMap::new(),
        };
        idx.walk("", table);
        let mut by_span: HashMap<(usize, usize), String> = HashMap::new();
        for (p, (k, v)) in &idx.entries {
            for r in [k, v] {
                let slot = by_span.entry((r.start, r.end)).or_default();
                // The longest path wins; of two as long, the first in order.
                if slot.is_empty() || p.len() > slot.len() || (p.len() == slot.len() && p < slot) {
                    *slot = p.clone();
                }
            }
        }
        idx.by_span = by_span;
        idx
    }

    fn walk(&mut self, prefix: &str, table: &DeTable<'_>) {
        for (k, v) in table.iter() {
            let path = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            self.entries.insert(path.clone(), (k.span(), v.span()));
            match v.get_ref() {
                DeValue::Table(t) => self.walk(&path, t),
                DeValue::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let ipath = format!("{path}[{i}]");
                        self.entries
                            .insert(ipath.clone(), (item.span(), item.span()));
                        if let DeValue::Table(t) = item.get_ref() {
                            self.walk(&ipath, t);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The location of a key (its key text) by field path, if the file has it.
    pub fn locate(&self, path: &str) -> Option<Location> {
        self.entries
            .get(path)
            .map(|(k, _)| self.location(k.clone()))
    }

    /// The first line of the file.
    pub fn start(&self) -> Location {
        self.location(0..0)
    }

    /// The field path whose key or value span is `span`, or (failing that) the innermost one containing it.
    /// Ties go to the most specific (longest) path, so `phase[0]` wins over `phase` for a one-element array.
    fn path_at(&self, span: &Range<usize>) -> Option<&str> {
        if let Some(p) = self.by_span.get(&(span.start, span.end)) {
            return Some(p);
        }
        self.entries
            .iter()
            .flat_map(|(p, (k, v))| [(p, k), (p, v)])
            .filter(|(_, r)| r.start <= span.start && span.end <= r.end)
            .min_by(|(pa, ra), (pb, rb)| {
                (ra.end - ra.start)
                    .cmp(&(rb.end - rb.start))
                    .then_with(|| pb.len().cmp(&pa.len()))
                    .then_with(|| pa.cmp(pb))
            })
            .map(|(p, _)| p.as_str())
    }

    /// The source text of a value by field path, as written (quotes included).
    fn raw_at(&self, path: &str) -> Option<&str> {
        let (_, v) = self.entries.get(path)?;
        self.text.get(v.clone())
    }

    /// The text of a string value by field path (quotes removed), e.g. a phase's `kind`.
    fn string_at(&self, path: &str) -> Option<String> {
        let (_, v) = self.entries.get(path)?;
        Some(
            self.text
                .get(v.clone())?
                .trim_matches(|c| c == '"' || c == '\'')
                .to_string(),
        )
    }

    fn location(&self, span: Range<usize>) -> Location {
        let start = span.start.min(self.text.len());
        let line = self.lines.partition_point(|&s| s <= start).max(1) - 1;
        location_on(&self.file, &self.text, self.lines[line], line + 1, span)
    }
}

fn location_in(file: &Path, text: &str, span: Range<usize>) -> Location {
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_no = text[..start].matches('\n').count() + 1;
    location_on(file, text, line_start, line_no, span)
}

/// [`location_in`], the line that holds the span's start being known: it starts at `line_start` and is
/// line `line_no`.
fn location_on(
    file: &Path,
    text: &str,
    line_start: usize,
    line_no: usize,
    span: Range<usize>,
) -> Location {
    let start = span.start.min(text.len());
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line_text = &text[line_start..line_end];
    let col = text[line_start..start].chars().count();
    let end = span.end.clamp(start, line_end);
    let width = text[start..end].chars().count();
    Location {
        file: file.to_path_buf(),
        line: line_no,
        column: col + 1,
        snippet: Some((
            line_text.trim_end_matches('\r').to_string(),
            col..col + width.max(1),
        )),
    }
}

/// [`describe_field`] for the phase `p` (the phase the path names, after expansion): a phase a sweep or
/// matrix expanded is named by its `[[phase]]` table and its own name, so that the table's index is not
/// taken for the phase's (`phase[0].size` → `[[phase]] 0 "w" (expanded: "w[bs=8KiB,read=0]").size`).
pub(crate) fn describe_phase_field(path: &str, p: Option<&super::PhaseSpec>) -> String {
    let table = path.strip_prefix("phase[").and_then(|r| r.split_once(']'));
    match (p.filter(|p| !p.labels.is_empty()), table) {
        (Some(p), Some((i, tail))) => format!(
            "[[phase]] {i} \"{}\" (expanded: \"{}\"){tail}",
            super::expand::table_name(p),
            p.name
        ),
        _ => describe_field(path, p.map(|p| p.name.as_str())),
    }
}

/// Renders a field path for humans: `phase[1].queue_depht` → `phase[1] "w".queue_depht`.
pub(crate) fn describe_field(path: &str, phase_name: Option<&str>) -> String {
    match (path.strip_prefix("phase["), phase_name) {
        (Some(rest), Some(name)) => match rest.split_once(']') {
            Some((i, tail)) => format!("phase[{i}] \"{name}\"{tail}"),
            None => path.to_string(),
        },
        _ => path.to_string(),
    }
}

/// The largest spec file wkrun reads: 16 MiB (a spec of a thousand phases is about 200 KiB).
pub const MAX_SPEC_BYTES: u64 = 16 << 20;

/// Reads and loads a spec file of at most [`MAX_SPEC_BYTES`]. See [`load_str`].
///
/// # Errors
/// [`SpecErrors`] when the file cannot be read, is larger than [`MAX_SPEC_BYTES`], is not UTF-8, is not
/// TOML, does not match format 1, or breaks a rule (see [`rules::check_all`]).
pub fn load_file(path: &Path) -> Result<LoadedSpec, SpecErrors> {
    let bytes = read_spec_file(path).map_err(|message| whole_file(path, message, None))?;
    super::room::for_text(bytes.len() as u64)
        .map_err(|message| SpecErrors(vec![whole_file(path, message, None)], Cause::Limit))?;
    load_bytes(path, &bytes)
}

/// What a file that is not a regular file is, in words: `a FIFO (named pipe)`, `a character device`.
fn non_regular(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    Some(if t.is_file() {
        return None;
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    })
}

/// Opens `path` for reading when it is a regular file (through symbolic links unless `nofollow`). Anything
/// else is refused from its type before it is opened: reading a FIFO nobody writes to would block forever,
/// and opening a device can have effects. The open itself does not block (O_NONBLOCK, should a FIFO take the
/// file's place in between), and the file opened is checked again.
///
/// # Errors
/// The OS error (`ELOOP` for a symbolic link when `nofollow`), or one of kind `InvalidInput` saying what
/// the path is: `it is a FIFO (named pipe), not a regular file`.
pub fn open_regular(path: &Path, nofollow: bool) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let refuse = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {what}, not a regular file"),
        )
    };
    let meta = match nofollow {
        true => std::fs::symlink_metadata(path)?,
        false => std::fs::metadata(path)?,
    };
    if nofollow && meta.file_type().is_symlink() {
        return Err(std::io::Error::from_raw_os_error(libc::ELOOP));
    }
    if let Some(what) = non_regular(meta.file_type()) {
        return Err(refuse(what));
    }
    let flags = libc::O_NONBLOCK | if nofollow { libc::O_NOFOLLOW } else { 0 };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)?;
    match non_regular(file.metadata()?.file_type()) {
        Some(what) => Err(refuse(what)),
        None => Ok(file),
    }
}

/// The bytes of the regular file `path` ([`open_regular`]), read no further than one byte past `max`:
/// `None` when it holds more than `max` bytes. Every input reader of a small document goes through it, so
/// a device (`/dev/zero`) or a FIFO is refused from its type and a huge file from its size.
///
/// # Errors
/// As [`open_regular`], or the error reading it.
pub fn read_regular_bounded(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let file = open_regular(path, false)?;
    if file.metadata()?.len() > max {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// The bytes of a spec file (a regular file: [`open_regular`]), read no further than one byte past
/// [`MAX_SPEC_BYTES`].
fn read_spec_file(path: &Path) -> Result<Vec<u8>, String> {
    read_regular_bounded(path, MAX_SPEC_BYTES)
        .map_err(|e| format!("cannot read the spec file: {e}"))?
        .ok_or_else(|| {
            format!(
                "the spec file is larger than {}, the largest spec wkrun reads",
                crate::units::fmt_bytes(MAX_SPEC_BYTES)
            )
        })
}

/// Loads a spec from bytes that came from `path` (used only in messages).
///
/// # Errors
/// As [`load_file`].
pub fn load_bytes(path: &Path, bytes: &[u8]) -> Result<LoadedSpec, SpecErrors> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let text = String::from_utf8_lossy(good);
        let mut loc = location_in(path, &text, text.len()..text.len());
        loc.snippet = None;
        SpecError {
            location: loc,
            field: None,
            message: format!(
                "the spec file is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ),
            help: Some("TOML files must be UTF-8; re-save the file as UTF-8".into()),
        }
    })?;
    load_str(path, text)
}

/// The most parts a dotted key may have: the toml crate refuses 81 and more (`recursion limit`: a table path of 80 before the last part).
const KEY_PARTS_LIMIT: usize = 81;

/// The byte range of the first key (of a `key = value` line or a `[table]` header) with at least
/// [`KEY_PARTS_LIMIT`] dot-separated parts (dots inside quotes not counted), and its parts; `None` when there
/// is none.
fn deep_key(text: &str) -> Option<(Range<usize>, usize)> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim_start();
        let offset = start + line.len() - body.len();
        let (mut parts, mut quote) = (1, None);
        for (i, c) in body.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '.') => parts += 1,
                (None, '=' | ']' | '#') => {
                    if parts >= KEY_PARTS_LIMIT {
                        return Some((offset..offset + i, parts));
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    None
}

/// `bytes` in lower-case hexadecimal (a SHA-256 digest as `results.json` and the results library write it).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Loads a spec from text: parses the TOML, checks the format version, deserializes into [`SpecFile`]
/// (unknown keys refused) and applies [`rules::check_all`].
///
/// Every error of the file is reported, in file order, except where one stage stops the next: TOML syntax,
/// an empty file and a `format` other than 1 stop at once (a missing one is one error among the others,
/// unless the file looks like a fio job file); then every unknown key and every value that does not parse,
/// every bad element of a list included (from the tree parsed once, one table at a time); then the
/// expansion of sweeps and matrices and the rules, except the rules about a whole table (a missing key or
/// bound) of a table that had a key or value error, as likely consequences of it (a fio `runtime` instead of `duration` also leaves the workload
/// without a bound).
///
/// # Errors
/// [`SpecErrors`]: every problem found, located.
pub fn load_str(path: &Path, text: &str) -> Result<LoadedSpec, SpecErrors> {
    let whole_file = |message: String, help: Option<String>| whole_file(path, message, help);
    let doc = DeTable::parse(text).map_err(|e| {
        // The toml crate gives its key-depth error no place: the first key of that many parts is the one.
        let deep = e.span().is_none().then(|| deep_key(text)).flatten();
        let span = e.span().or(deep.clone().map(|d| d.0)).unwrap_or(0..0);
        let mut message = format!("not valid TOML: {}", e.message().trim());
        if let Some((_, parts)) = deep {
            let most = KEY_PARTS_LIMIT - 1;
            message.push_str(&format!(
                ": this key has {parts} parts, the most a key may have is {most}"
            ));
        }
        SpecError {
            location: location_in(path, text, span),
            field: None,
            message,
            help: fio_job_file(text),
        }
    })?;
    let index = SourceIndex::build(path, text, doc.get_ref());
    if doc.get_ref().is_empty() {
        return Err(whole_file(
            "the spec file is empty".into(),
            Some("a spec needs at least `format = 1`, a [spec] table with name and version, and one [[phase]]".into()),
        ).into());
    }
    let mut doc = doc;
    let no_format = missing_format(&index, text, &mut doc)?;
    check_format(&index, doc.get_ref())?;
    let parsed = deserialize_all(&index, doc);
    let mut errors = parsed.errors;
    errors.extend(no_format);
    let Some(file) = parsed.file else {
        let mut all = in_file_order(errors);
        if parsed.capped {
            all.0.push(more_errors(path));
        }
        return Err(all);
    };
    let mut spec = LoadedSpec {
        path: path.to_path_buf(),
        file,
        sha256: hex(&Sha256::digest(text.as_bytes())),
        index,
        phases: Vec::new(),
        overrides: Vec::new(),
        sets: Vec::new(),
    };
    // A table that had a key or value error may miss a key because of it: its missing keys are not reported.
    let independent = |r: &rules::RuleError| !parsed.tables.contains(&r.path);
    match super::expand::expand(&spec.file) {
        Ok(phases) => spec.phases = phases,
        Err(r) if r.limit => return Err(SpecErrors(vec![spec.rule_error(r)], Cause::Limit)),
        Err(r) => {
            if independent(&r) {
                errors.push(spec.rule_error(r));
            }
            return Err(in_file_order(errors));
        }
    }
    let broken: Vec<_> = rules::check_all(&spec.file, &spec.phases)
        .into_iter()
        .filter(independent)
        .map(|r| (r.phase, r))
        .collect();
    let broken = super::once::once_per_phase(
        &spec.phases,
        broken,
        |r| (r.path.clone(), r.message.clone()),
        |r, note| r.message.push_str(note),
    );
    errors.extend(broken.into_iter().map(|r| spec.rule_error(r)));
    if errors.is_empty() {
        Ok(spec)
    } else {
        Err(at_most_max(in_file_order(errors), path))
    }
}

/// The first [`MAX_ERRORS`] of `errors` in file order, then a line saying more may follow: a rule broken
/// by every one of 50,000 phases is said 50 times, not 50,000 (as serde's errors are).
fn at_most_max(mut errors: SpecErrors, path: &Path) -> SpecErrors {
    if errors.0.len() > MAX_ERRORS {
        errors.0.truncate(MAX_ERRORS);
        errors.0.push(more_errors(path));
    }
    errors
}

/// An error about the file `path` as a whole (no line: it is said first).
fn whole_file(path: &Path, message: String, help: Option<String>) -> SpecError {
    SpecError {
        location: Location {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            snippet: None,
        },
        field: None,
        message,
        help,
    }
}

/// The line after the first [`MAX_ERRORS`] errors of a file.
fn more_errors(path: &Path) -> SpecError {
    whole_file(
        path,
        format!("more errors may follow these {MAX_ERRORS}"),
        Some("fix these and check the file again".into()),
    )
}

/// `errors` sorted by place (errors about the whole file first), the same message at the same place once
/// (a rule broken by every phase a matrix expanded is reported at its `[[phase]]` once).
fn in_file_order(mut errors: Vec<SpecError>) -> SpecErrors {
    errors.sort_by_key(|e| (e.location.line, e.location.column));
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert((e.location.line, e.location.column, e.message.clone())));
    SpecErrors(errors, Cause::Input)
}

impl LoadedSpec {
    /// A broken rule, located at its key; for a `[target]` key the file does not set (a default value), at
    /// the nearest enclosing key it has; failing that at the phase's `[[phase]]`.
    fn rule_error(&self, r: rules::RuleError) -> SpecError {
        // A phase's key the phase does not set itself (inherited from [defaults], or a default): located as
        // the plan's errors are, at [defaults] or else at the phase's [[phase]].
        if let Some(i) = r.phase
            && self.index.locate(&r.path).is_none()
        {
            let origin = self.phases.get(i).and_then(|p| p.origin).unwrap_or(i);
            if let Some(key) = r.path.strip_prefix(&format!("phase[{origin}]."))
                && !key.contains('.')
            {
                return self.phase_error_of(i, key, r.also, r.message, r.help);
            }
        }
        let one = r.phase.and_then(|i| self.phases.get(i));
        let nearest = |path: &str| {
            let mut p = path;
            loop {
                if let Some(l) = self.index.locate(p) {
                    return Some(l);
                }
                if !p.starts_with("target.") {
                    return None;
                }
                p = &p[..p.rfind('.')?];
            }
        };
        let location = nearest(&r.path)
            .or_else(|| {
                let origin = r
                    .phase
                    .map(|i| self.phases.get(i).and_then(|p| p.origin).unwrap_or(i));
                origin.and_then(|i| self.index.locate(&format!("phase[{i}]")))
            })
            .unwrap_or_else(|| self.index.start());
        SpecError {
            location,
            field: Some(describe_phase_field(&r.path, one)),
            message: r.message,
            help: r.help,
        }
    }
}

/// The most key and value errors one file reports; past it, a last error says more may follow.
const MAX_ERRORS: usize = 50;

/// What [`deserialize_all`] found.
struct Parsed {
    /// The spec, when it deserialized once the refused keys were taken out.
    file: Option<SpecFile>,
    /// Every refused key or value, located.
    errors: Vec<SpecError>,
    /// The tables (`phase[2]`, `defaults`, `spec`) that had one.
    tables: Vec<String>,
    /// Whether it stopped at [`MAX_ERRORS`].
    capped: bool,
}

/// Deserializes the spec from its parsed tree (`doc`): the top level (without its `[[phase]]` tables), then
/// each `[[phase]]` on its own ([`settle`]), so that every unknown key and unparsable value of the file is
/// reported in one go, and an error costs the deserialization of its own table, not of the whole file: the
/// work is linear in the file's size (times the errors of one table). A phase that cannot be settled (a
/// missing `kind`) leaves the spec without a `file`, and the other phases are still checked.
fn deserialize_all(index: &SourceIndex, doc: Spanned<DeTable<'_>>) -> Parsed {
    use serde::Deserialize;
    let mut out = Parsed {
        file: None,
        errors: Vec::new(),
        tables: Vec::new(),
        capped: false,
    };
    let span = doc.span();
    let mut top = doc.into_inner();
    // `[[phase]]` tables (or `phase = [{...}]`): taken out to be deserialized one by one.
    let mut phases = toml::de::DeArray::new();
    let is_tables = |v: &Spanned<DeValue<'_>>| {
        v.get_ref()
            .as_array()
            .is_some_and(|a| a.iter().all(|t| t.get_ref().is_table()))
    };
    if top.get("phase").is_some_and(is_tables)
        && let Some(DeValue::Array(items)) = top.remove("phase").map(Spanned::into_inner)
    {
        phases = items;
    }
    // `[[target]]` (or `[[spec]]`, `[[defaults]]`): a list where one table is meant. serde would read the
    // list as the table's fields in order ("expected path string"); said plainly instead.
    for key in ["spec", "target", "defaults"] {
        let Some(list) = top.get(key).and_then(|v| v.get_ref().as_array()) else {
            continue;
        };
        let message = match list.iter().all(|t| t.get_ref().is_table()) {
            true => format!("[[{key}]] makes a list of tables, and a spec has one [{key}] table"),
            false => format!("{key} is a list here, and a spec has one [{key}] table"),
        };
        top.remove(key);
        out.errors.push(SpecError {
            location: index
                .locate(key)
                .or_else(|| index.locate(&format!("{key}[0]")))
                .unwrap_or_else(|| index.start()),
            field: Some(key.to_string()),
            message,
            help: Some(match key {
                "target" => {
                    "several targets are one [target] table with paths = [\"a.img\", \"/dev/nvme1n1\"]"
                        .to_string()
                }
                _ => format!("write [{key}] once"),
            }),
        });
    }
    let top = Spanned::new(span, DeValue::Table(top));
    let file = settle(index, &mut out, "", top, |v| {
        SpecFile::deserialize(toml::de::ValueDeserializer::from(v))
    });
    let mut settled = Vec::with_capacity(phases.len());
    for (i, item) in phases.iter().enumerate() {
        if out.capped {
            return out;
        }
        settled.push(settle(
            index,
            &mut out,
            &format!("phase[{i}]"),
            item.clone(),
            |v| super::PhaseSpec::deserialize(toml::de::ValueDeserializer::from(v)),
        ));
    }
    if let (Some(mut file), Some(phases)) = (file, settled.into_iter().collect::<Option<Vec<_>>>())
    {
        if !phases.is_empty() {
            file.phase = phases;
        }
        out.file = Some(file);
    }
    out
}

/// Deserializes one table at `prefix` (`phase[2]`, or the top level for `""`); each time serde refuses a
/// key or value, records the error, takes that key (or list element) out of the table and tries again. A
/// missing key inside a key's table (`steady_state`) takes that key out. Gives up (`None`) at a missing key
/// of the table itself (there is no one key to take out), at a "missing key" for a key it took out (a
/// consequence, not reported), and after [`MAX_ERRORS`] in all.
fn settle<'i, T>(
    index: &SourceIndex,
    out: &mut Parsed,
    prefix: &str,
    mut value: Spanned<DeValue<'i>>,
    de: impl Fn(Spanned<DeValue<'i>>) -> Result<T, toml::de::Error>,
) -> Option<T> {
    let mut removed: Vec<String> = Vec::new();
    loop {
        let e = match de(value.clone()) {
            Ok(t) => return Some(t),
            Err(e) => e,
        };
        let (err, path) = serde_error(index, &e);
        // A missing key is taken out with the table that misses it (`steady_state = { window = 5 }`).
        let missing = err.message.starts_with("missing key");
        let target = match (&path, missing) {
            (Some(p), true) => p.rsplit_once('.').map(|(t, _)| t.to_string()),
            (p, false) => p.clone(),
            (None, true) => None,
        };
        // The key itself as a top-level path too: a `[spec]` taken out for its missing `version` is then
        // reported missing at the top level (as `format.spec`, serde naming the last key it saw).
        let key = path
            .as_deref()
            .map(|p| p.rsplit_once('.').map_or(p, |(_, k)| k).to_string());
        if missing
            && [&path, &target, &key]
                .iter()
                .any(|p| p.as_ref().is_some_and(|p| removed.contains(p)))
        {
            return None;
        }
        let table = path.as_deref().map(table_of).unwrap_or_default();
        if !out.tables.contains(&table) {
            out.tables.push(table);
        }
        out.errors.push(err);
        if out.errors.len() >= MAX_ERRORS {
            out.capped = true;
            return None;
        }
        let target = target?;
        let rel = relative(prefix, &target)?;
        // A list element is found by its place in the source: elements taken out before shift the rest.
        let span = index.entries.get(&target).map(|(_, v)| v.clone());
        if removed.contains(&target) || !remove_at(value.get_mut(), rel, span) {
            return None;
        }
        removed.push(target);
    }
}

/// The table a field path is in: `phase[2]` for `phase[2].steady_state.window`, `defaults` for
/// `defaults.engine`, `sweep[0]` for `sweep[0]`, the top level (empty) for `bogus`.
fn table_of(path: &str) -> String {
    if let Some(ph) = phase_prefix(path) {
        return ph.to_string();
    }
    match path.split_once('.') {
        Some((head, _)) => head.to_string(),
        None if path.ends_with(']') => path.to_string(),
        None => String::new(),
    }
}

/// `path` inside the table at `prefix`, when it is inside it and not the table itself: `steady_state` for
/// `phase[2].steady_state` under `phase[2]`; the whole path under the top level (`""`).
fn relative<'p>(prefix: &str, path: &'p str) -> Option<&'p str> {
    let rest = match prefix {
        "" => path,
        _ => path.strip_prefix(prefix)?.strip_prefix('.')?,
    };
    (!rest.is_empty()).then_some(rest)
}

/// Takes the entry at `path` (`steady_state`, `rate_iops.read`, `block_size[1]`) out of `value`; false
/// when there is none. A list element is the one whose source is `span` when given (elements taken out
/// before shift the others' places), else the one at its index; a list left empty is taken out whole.
fn remove_at(value: &mut DeValue<'_>, path: &str, span: Option<Range<usize>>) -> bool {
    let (head, rest) = match path.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (path, None),
    };
    // `name[i]` (an element of a list) or `name`.
    let (name, element) = match head.split_once('[') {
        Some((n, i)) => match i.strip_suffix(']').and_then(|i| i.parse::<usize>().ok()) {
            Some(i) => (n, Some(i)),
            None => return false,
        },
        None => (head, None),
    };
    let DeValue::Table(t) = value else {
        return false;
    };
    let Some(entry) = t.get_mut(name) else {
        return false;
    };
    match (element, rest) {
        (None, None) => t.remove(name).is_some(),
        (None, Some(r)) => remove_at(entry.get_mut(), r, span),
        (Some(i), r) => {
            let DeValue::Array(items) = entry.get_mut() else {
                return false;
            };
            if let Some(r) = r {
                return match items.get_mut(i) {
                    Some(item) => remove_at(item.get_mut(), r, span),
                    None => false,
                };
            }
            let at = match span {
                Some(s) => items.iter().position(|v| v.span() == s),
                None => (i < items.len()).then_some(i),
            };
            let Some(i) = at else {
                return false;
            };
            let mut kept = toml::de::DeArray::new();
            for (j, v) in items.iter().enumerate() {
                if j != i {
                    kept.push(v.clone());
                }
            }
            if kept.is_empty() {
                t.remove(name);
            } else {
                *entry.get_mut() = DeValue::Array(kept);
            }
            true
        }
    }
}

/// The help for a file that looks like a fio job file given as a spec: no `format` line, and a `[global]`
/// section or a line setting a fio option wkrun names differently (`rw=randread`, `time_based`), the first
/// of which it quotes. `None` for anything else.
fn fio_job_file(text: &str) -> Option<String> {
    let lines = text.lines().map(str::trim);
    if lines.clone().any(|l| l.starts_with("format")) {
        return None;
    }
    let (n, line) = lines.enumerate().find(|(_, l)| {
        let key = l.split('=').next().unwrap_or_default().trim();
        *l == "[global]" || (key != "global" && super::keys::fio_key(key).is_some())
    })?;
    let line: String = match line.chars().nth(60) {
        Some(_) => line.chars().take(60).chain("...".chars()).collect(),
        None => line.to_string(),
    };
    Some(format!(
        "this looks like a fio job file (line {}: `{line}`): wkrun reads TOML specs (format = {FORMAT_VERSION}, [spec], a [[phase]] per job); `wkrun import fio FILE -o SPEC.toml` converts a job file (docs/fio.md)",
        n + 1
    ))
}

/// A missing `format`: one error among the others (`Ok(Some)`), the rest of the file read as format 1 (the
/// key put in `doc`), so that every other error is said with it; a file that looks like a fio job file
/// stops here (`Err`), its other errors being those of another language. `Ok(None)` when `format` is there.
fn missing_format(
    index: &SourceIndex,
    text: &str,
    doc: &mut Spanned<DeTable<'_>>,
) -> Result<Option<SpecError>, SpecError> {
    if doc.get_ref().iter().any(|(k, _)| k.get_ref() == "format") {
        return Ok(None);
    }
    let mut e = SpecError {
        location: index.start(),
        field: Some("format".into()),
        message: "missing `format`: the spec format version".into(),
        help: Some(format!("add `format = {FORMAT_VERSION}` as the first line")),
    };
    if let Some(help) = fio_job_file(text) {
        e.help = Some(help);
        return Err(e);
    }
    // The key parsed from its own text: the only way to make a `DeValue` (its span is never shown, the
    // value being valid).
    const FORMAT_LINE: &str = "format = 1";
    const _: () = assert!(
        FORMAT_VERSION == 1,
        "FORMAT_LINE names the format this build reads"
    );
    if let Ok(line) = DeTable::parse(FORMAT_LINE)
        && let Some((k, v)) = line.into_inner().into_iter().next()
    {
        doc.get_mut().insert(k, v);
    }
    Ok(Some(e))
}

fn check_format(index: &SourceIndex, doc: &DeTable<'_>) -> Result<(), SpecError> {
    let Some((_, v)) = doc.iter().find(|(k, _)| k.get_ref() == "format") else {
        return Err(SpecError {
            location: index.start(),
            field: Some("format".into()),
            message: "missing `format`: the spec format version".into(),
            help: Some(format!("add `format = {FORMAT_VERSION}` as the first line")),
        });
    };
    let ok = matches!(v.get_ref(), DeValue::Integer(i) if i.as_str() == FORMAT_VERSION.to_string());
    if let DeValue::String(text) = v.get_ref() {
        return Err(SpecError {
            location: index.location(v.span()),
            field: Some("format".into()),
            message: format!(
                "format is the string {:?}; it must be the integer {FORMAT_VERSION}",
                text.as_ref()
            ),
            help: Some(format!("write `format = {FORMAT_VERSION}` without quotes")),
        });
    }
    if !ok {
        let shown = &index.text[v.span()];
        return Err(SpecError {
            location: index.location(v.span()),
            field: Some("format".into()),
            message: format!(
                "unknown spec format {shown}; this wkrun reads format {FORMAT_VERSION}"
            ),
            help: Some(
                "a newer wkrun may read it; otherwise write the spec in format 1 (docs/spec.md)"
                    .into(),
            ),
        });
    }
    Ok(())
}

/// Turns a serde/TOML error into a located error naming the field, with a suggestion for misspelled keys
/// (or, for a fio option, its wkrun name); also the field path (`phase[0].engine`) it concerns.
fn serde_error(index: &SourceIndex, e: &toml::de::Error) -> (SpecError, Option<String>) {
    let span = e.span().unwrap_or(0..0);
    let msg = e.message().trim().to_string();
    let mut path = index.path_at(&span).map(str::to_string);
    let (message, help) = if let Some(rest) = msg.strip_prefix("unknown field `") {
        let (bad, expected) = rest.split_once('`').unwrap_or((rest, ""));
        // serde lists every expected name in the message; the help line says it better.
        let head = msg
            .split_once(", expected")
            .map_or(msg.as_str(), |(h, _)| h);
        (
            head.replace("unknown field", "unknown key"),
            Some(unknown_key_help(index, path.as_deref(), bad, expected)),
        )
    } else if let Some(rest) = msg.strip_prefix("missing field `") {
        let missing = rest.split('`').next().unwrap_or("");
        // The document itself misses it (no span): not the first key's table (it read `format.spec`).
        if span.is_empty() {
            let mut e = whole_file(
                &index.file,
                msg.replace("missing field", "missing key"),
                None,
            );
            e.field = Some(missing.to_string());
            return (e, Some(missing.to_string()));
        }
        path = Some(match path {
            Some(p) => format!("{p}.{missing}"),
            None => missing.to_string(),
        });
        (
            msg.replace("missing field", "missing key"),
            spec_key_help(path.as_deref()),
        )
    } else {
        let p = path.as_deref().unwrap_or("");
        let raw = index.raw_at(p).unwrap_or("");
        value_error(p.rsplit('.').next().unwrap_or(p), raw, &msg)
    };
    let phase_name = path.as_deref().and_then(|p| phase_name_at(index, p));
    let err = SpecError {
        location: index.location(span),
        field: path
            .as_deref()
            .map(|p| describe_field(p, phase_name.as_deref())),
        message,
        help,
    };
    (err, path)
}

/// What to write for a missing key of `[spec]`, which a newcomer may not know is required.
fn spec_key_help(path: Option<&str>) -> Option<String> {
    match path? {
        "spec.version" => Some(
            "add `version = \"1\"` under [spec]: the spec's own version, any string (`\"1.0.0\"`), for sharing it between labs".into(),
        ),
        "spec.name" => Some(
            "add `name = \"...\"` under [spec]: the spec's name, used in output paths".into(),
        ),
        _ => None,
    }
}

/// serde's message about the value of `key` (written `raw`, quotes included) in plain words, with help: the
/// nearest value for a misspelled or abbreviated one (`"seq"` for `"sequential"`), or what a fio-style value
/// is in wkrun (`direct = 1`, `engine = "sync"`). Used for spec files and `--set`.
pub(crate) fn value_error(key: &str, raw: &str, msg: &str) -> (String, Option<String>) {
    let msg = msg.trim();
    let mut help = None;
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        let (bad, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let choices: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        // A typo, or an abbreviation of exactly one value (`"seq"` for `"sequential"`).
        let prefixed: Vec<&str> = choices
            .iter()
            .copied()
            .filter(|c| !bad.is_empty() && c.starts_with(bad))
            .collect();
        if let Some(s) = nearest(bad, &choices).or(match prefixed[..] {
            [one] => Some(one),
            _ => None,
        }) {
            help = Some(format!("did you mean `{s}`?"));
        }
    }
    if let Some(h) = super::keys::fio_value_hint(key, raw) {
        help = Some(h);
    }
    let message = plain_words(msg).replace("unknown variant", "unknown value");
    (message, help)
}

/// The help for an unknown key `bad` at `path`, serde having listed the keys it expected (`expected`): what a
/// fio option is in wkrun; else the nearest known key; else the known keys. Directly in a phase (the error
/// points at the bad key itself) the known keys are those its kind accepts; inside a table such as
/// steady_state (the error points at that key's table), the table's own keys, which serde lists.
fn unknown_key_help(index: &SourceIndex, path: Option<&str>, bad: &str, expected: &str) -> String {
    let at_key = path.is_some_and(|p| p == bad || p.ends_with(&format!(".{bad}")));
    if let Some(h) = path
        .filter(|p| p.strip_prefix("defaults.") == Some(bad))
        .and_then(|_| phase_key_in_defaults(bad))
    {
        return h;
    }
    if at_key {
        let value = path
            .and_then(|p| index.raw_at(p))
            .map(|v| v.trim_matches(['"', '\'']));
        if let Some(h) = super::keys::fio_hint(bad, value) {
            return h;
        }
    }
    let mut choices: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let in_phase_table = path
        .and_then(phase_prefix)
        .is_some_and(|ph| at_key && path.is_some_and(|p| p.len() == ph.len() + 1 + bad.len()));
    if let Some(kind) = path
        .filter(|_| in_phase_table)
        .and_then(phase_prefix)
        .and_then(|ph| index.string_at(&format!("{ph}.kind")))
        && let Ok(kind) =
            serde_json::from_value::<super::PhaseKind>(serde_json::Value::String(kind))
    {
        choices = rules::keys_for(kind);
    }
    match nearest(bad, &choices) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("known keys here: {}", choices.join(", ")),
    }
}

/// The help for a phase key `bad` set in `[defaults]` (fio's `[global]` habit: `duration`, `read_percent`):
/// which phase kinds take it, and where it goes. `[defaults]` holds the keys every I/O phase shares (a key
/// of some kinds only would be inherited by phases that refuse it). `None` for a key of no phase.
fn phase_key_in_defaults(bad: &str) -> Option<String> {
    let key = super::keys::find(bad)?;
    let kinds: Vec<&str> = super::keys::PHASE_KINDS
        .iter()
        .filter(|k| key.kinds.has(**k))
        .map(|k| k.as_str())
        .collect();
    Some(format!(
        "`{bad}` is a [[phase]] key (kinds: {}), and [defaults] takes only the keys every I/O phase shares: set `{bad}` in each [[phase]] that uses it (fio's [global] options go to each job)",
        kinds.join(", ")
    ))
}

/// serde's type names in a message, in plain words: `expected i64` becomes `expected a whole number`,
/// `expected u64` `expected a non-negative whole number`, `expected internally tagged enum Rule` `expected a
/// table such as { rule = "snia" }`; an integer beyond 64 bits (`integer `N` as i128, expected ...`) becomes
/// `the number N is too large`.
fn plain_words(msg: &str) -> String {
    // TOML's words for serde's kinds of value.
    let msg = &msg
        .replace("invalid type: map,", "invalid type: table,")
        .replace("invalid type: sequence,", "invalid type: array,");
    if let Some(rest) = msg.strip_prefix("invalid type: integer `")
        && let Some((n, tail)) = rest.split_once('`')
        && tail.starts_with(" as i128")
    {
        return format!("the number {n} is too large");
    }
    let Some((head, expected)) = msg.rsplit_once(", expected ") else {
        return msg.to_string();
    };
    let plain = match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number",
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a non-negative whole number",
        "f32" | "f64" => "a number",
        "internally tagged enum Rule" => "a table such as { rule = \"snia\" }",
        "struct Track" => "a table such as { phase = \"iops[read=0]\", metric = \"write_iops\" }",
        e if e.starts_with("internally tagged enum") || e.starts_with("struct ") => "a table",
        _ => return msg.to_string(),
    };
    format!("{head}, expected {plain}")
}

/// `phase[3]` for a path inside the fourth phase.
fn phase_prefix(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("phase[")?;
    let close = rest.find(']')?;
    Some(&path[.."phase[".len() + close + 1])
}

/// The `name` of the phase a path points into, read from the source (the spec did not deserialize).
fn phase_name_at(index: &SourceIndex, path: &str) -> Option<String> {
    index.string_at(&format!("{}.name", phase_prefix(path)?))
}

/// The closest candidate to a misspelled word, if one is close enough to be a likely typo.
pub(crate) fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let chars = word.chars().count();
    candidates
        .iter()
        // The distance is at least the difference in length: a candidate that the length alone puts past
        // the limit below is not compared (a 128 KiB `--set` key took seconds against every key).
        .filter(|c| chars.abs_diff(c.chars().count()) <= 2.max(c.len() / 4))
        .map(|c| (*c, strsim::damerau_levenshtein(word, c)))
        .filter(|(c, d)| *d <= 2.max(c.len() / 4) && *d < c.len())
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nearest` leaves out by length alone only candidates the comparison would refuse: its answers are
    /// those of comparing every candidate, and a 128 KiB word is compared with none.
    #[test]
    fn nearest_answers_as_comparing_every_candidate() {
        let keys = [
            "block_size",
            "queue_depth",
            "read_percent",
            "rw",
            "duration",
            "size",
            "engine",
        ];
        let every = |w: &str| {
            keys.iter()
                .map(|c| (*c, strsim::damerau_levenshtein(w, c)))
                .filter(|(c, d)| *d <= 2.max(c.len() / 4) && *d < c.len())
                .min_by_key(|(_, d)| *d)
                .map(|(c, _)| c)
        };
        for w in [
            "blocksize",
            "queue_dept",
            "rw",
            "r",
            "sise",
            "engin",
            "durationnn",
            "bs",
            "",
            "block_size_xy",
            "blöck_size",
            "ssize",
            "readpercent_",
        ] {
            assert_eq!(nearest(w, &keys), every(w), "{w}");
        }
        assert_eq!(nearest("blocksize", &keys), Some("block_size"));
        assert_eq!(nearest(&"a".repeat(131_000), &keys), None);
    }

    fn firsts(text: &str) -> Vec<String> {
        let e = load_str(Path::new("t.toml"), text).expect_err("refused");
        e.0.iter()
            .map(|e| {
                let l = &e.location;
                format!(
                    "{}:{} {}: {}",
                    l.line,
                    l.column,
                    e.field.as_deref().unwrap_or(""),
                    e.message
                )
            })
            .collect()
    }

    const HEAD: &str = "format = 1\n[spec]\nname = \"t\"\nversion = \"1\"\n[[phase]]\nname = \"e\"\nkind = \"erase\"\n";

    /// A refused key is blanked byte by byte: a multi-byte value before a second error keeps its place.
    #[test]
    fn later_errors_keep_their_place_after_a_multibyte_value() {
        let text = format!("{HEAD}bogus = \"é€ü\"\nmethod = \"wipe\"\n");
        assert_eq!(
            firsts(&text),
            [
                "8:1 phase[0] \"e\".bogus: unknown key `bogus`",
                "9:10 phase[0] \"e\".method: unknown value `wipe`, expected one of `auto`, `secure-discard`, `discard`, `zero-out`, `punch-hole`, `nvme-format`, `zone-reset`",
            ]
        );
    }

    /// At most 50 key and value errors, then one line saying more may follow.
    #[test]
    fn errors_stop_after_fifty() {
        let keys: String = (0..60).map(|i| format!("bogus{i} = 1\n")).collect();
        let got = firsts(&format!("{HEAD}{keys}"));
        assert_eq!(got.len(), 51);
        assert_eq!(got[0], "8:1 phase[0] \"e\".bogus0: unknown key `bogus0`");
        assert_eq!(
            got[49],
            "57:1 phase[0] \"e\".bogus49: unknown key `bogus49`"
        );
        assert_eq!(got[50], "0:0 : more errors may follow these 50");
    }

    /// A missing key in a key's table takes that key out and goes on; a missing `kind` stops (and a key
    /// taken out is not reported missing).
    #[test]
    fn missing_keys() {
        let text = format!(
            "{HEAD}[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\nsteady_state = {{ window = 5 }}\nqueue_depth = \"x\"\n[[phase]]\nname = \"v\"\nkind = \"verfy\"\n"
        );
        assert_eq!(
            firsts(&text),
            [
                "13:16 phase[1] \"w\".steady_state.rule: missing key `rule`",
                "14:15 phase[1] \"w\".queue_depth: invalid type: string \"x\", expected a whole number",
                "17:8 phase[2] \"v\".kind: unknown value `verfy`, expected one of `erase`, `fill`, `restore-image`, `workload`, `verify`",
            ]
        );
    }

    /// A `[spec]` missing `version` (or `name`) is one error, at the table: taking the table out must not
    /// add a "missing key `spec`" at the top (as `format.spec`, found by a newcomer).
    #[test]
    fn a_spec_table_missing_a_key_is_one_error() {
        let text = "format = 1\n[spec]\nname = \"x\"\n[[phase]]\nname = \"w\"\nkind = \"workload\"\nread_percent = 0\nduration = \"1s\"\n";
        assert_eq!(firsts(text), ["2:1 spec.version: missing key `version`"]);
        let text = text.replace("name = \"x\"", "version = \"1\"");
        assert_eq!(firsts(&text), ["2:1 spec.name: missing key `name`"]);
    }

    /// Found by the attack session: a key of more than 80 parts was placed at 1:1 (the toml crate gives that
    /// error no span); a spec without `[spec]` was `1:1: format.spec: missing key`.
    #[test]
    fn a_key_too_deep_is_placed_on_its_line_and_a_missing_table_on_the_file() {
        let deep = |n: usize| vec!["a"; n].join(".");
        let text = format!("format = 1\n\n  {} = 1\n", deep(120));
        assert_eq!(
            firsts(&text),
            [
                "3:3 : not valid TOML: recursion limit: this key has 120 parts, the most a key may have is 80"
            ]
        );
        let text = format!("format = 1\n[\"x.y\".{}]\n", deep(80));
        assert_eq!(
            firsts(&text),
            [
                "2:1 : not valid TOML: recursion limit: this key has 81 parts, the most a key may have is 80"
            ]
        );
        let text = format!("format = 1\n{} = 1\n", deep(80));
        assert_eq!(
            firsts(&text)[..2],
            ["0:0 spec: missing key `spec`", "2:1 a: unknown key `a`"]
        );
    }

    /// The source line shown with an error is a window of `ECHO` characters around the caret, and a key
    /// echoed in the message is cut the same way.
    #[test]
    fn a_long_line_is_shown_around_the_caret() {
        let text = format!("format = 1\n{} = 1\n", "k".repeat(400_000));
        let e = load_str(Path::new("t.toml"), &text).expect_err("refused");
        let shown = e.to_string();
        let k80 = "k".repeat(80);
        assert_eq!(
            shown.lines().collect::<Vec<_>>()[..4],
            [
                "t.toml: spec: missing key `spec`",
                &format!(
                    "error: t.toml:2:1: {k80}{k80}… (400000 bytes): unknown key `{k80}… (400000 bytes)`"
                ),
                "   |",
                &format!(" 2 | {k80}… (400004 bytes)"),
            ]
        );
    }

    #[test]
    fn control_characters_are_escaped_and_the_caret_follows() {
        assert_eq!(escape_controls("a\0b\u{1b}[31m\n"), "a\\0b\\u{1b}[31m\\n");
        assert_eq!(escape_controls("plain é"), "plain é");
        // `k\0y = 1` with the caret under `y`: `\0` takes two columns.
        assert_eq!(
            escape_line("k\0y = 1", 2..3),
            ("k\\0y = 1".to_string(), 3..4)
        );
        // A tab stays; a caret past the end stays past the end.
        assert_eq!(
            escape_line("\tx\u{7}", 3..4),
            ("\tx\\u{7}".to_string(), 7..8)
        );
    }
}
