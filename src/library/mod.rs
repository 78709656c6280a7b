//! The results library: runs kept in one SQLite file, so a new drive can be compared with the last twenty
//! (`wkrun library add|list|rm`, `wkrun compare|report RESULTS --against-library [N]`).
//!
//! An entry is a run's `results.json` text and the CSV files it names (an entry outlives its results
//! folder), its label, and its headline figures in a table of their own for queries. A run is identified by
//! the SHA-256 of its `results.json` bytes: adding the same run again changes nothing (with `--label`, only
//! its label). [`store`] recognises, creates and opens the file; [`entry`] reads a run to add.
//!
//! This module reads the results and report types below it; nothing below imports it.

pub mod entry;
pub mod list;
pub mod mixed;
pub mod store;

use crate::report::compare::Run;
use crate::report::runs::{RunData, assemble, series_rows};
use crate::report::{ReadError, parse_results_or_fio};
use crate::results::{Better, Results};
use entry::{Incoming, IndexedFigure};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a library operation failed; [`LibraryError::exit_code`] maps it to wkrun's exit codes.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// The file is not a wkrun library (not SQLite, another program's database, a newer schema, a link).
    #[error("{}: not a wkrun results library: {why}; left as it is", path.display())]
    NotALibrary {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        why: String,
    },
    /// A library of a schema newer than this wkrun's.
    #[error(
        "{}: a results library of schema version {version}, newer than this wkrun's {}: a newer wkrun made it, \
use that one; left as it is",
        path.display(),
        store::SCHEMA_VERSION
    )]
    Newer {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        version: i32,
    },
    /// A library whose pages do not check out.
    #[error(
        "{}: the library is damaged ({why}); left as it is: restore a copy, or start another with --library and add the results folders again",
        path.display()
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// SQLite's words.
        why: String,
    },
    /// A file SQLite keeps beside the library (`-wal`, `-shm`, `-journal`) that is a symbolic link or not
    /// a regular file: never opened through, and nothing made beside it.
    #[error(
        "library {}: {} beside it {why}; SQLite's files beside a library are never opened through one: remove it (nothing was written)",
        path.display(),
        file.display()
    )]
    Beside {
        /// The library.
        path: PathBuf,
        /// The file beside it.
        file: PathBuf,
        /// What it is.
        why: String,
    },
    /// A library to be made among the device nodes or on a pseudo file system.
    #[error("library {}: it would be on {on}, not on storage; choose another --library", path.display())]
    NotStorage {
        /// The file.
        path: PathBuf,
        /// What it would be on.
        on: &'static str,
    },
    /// No library at the path (reading needs one).
    #[error("no library at {} (`wkrun library add RESULTS` makes one there)", .0.display())]
    NoLibrary(PathBuf),
    /// A library that cannot be written: a read-only file or file system.
    #[error(
        "cannot write the library {}: {why}; `wkrun library list`, compare and report still read it",
        path.display()
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A results file or series CSV that cannot be added.
    #[error("{0}")]
    Input(Box<ReadError>),
    /// An id, label or spec name the library does not have.
    #[error("{0}")]
    Unknown(String),
    /// No place for the library: neither `--library`, `WKRUN_LIBRARY`, `XDG_DATA_HOME` nor `HOME`.
    #[error(
        "no library given and no default place for one: give --library PATH, or set WKRUN_LIBRARY or HOME"
    )]
    NoLocation,
    /// SQLite failed (another process held the library longer than [`store::BUSY_TIMEOUT`], a full disk).
    #[error("library {}: {why}", path.display())]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// SQLite's words.
        why: String,
    },
    /// A file or folder could not be made or read.
    #[error("library {}: {source}{}", path.display(), crate::sys::limits::errno_note(source))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl LibraryError {
    /// 2 for input wkrun refuses (a file that is not a library or is damaged, a library it may not write,
    /// an unknown id, label or spec, results that are not a run), leaving everything as it was; 1 for a
    /// failure on the way (SQLite or the OS).
    pub fn exit_code(&self) -> u8 {
        match self {
            LibraryError::Sqlite { .. } => 1,
            LibraryError::Io { source, .. } => match source.raw_os_error() {
                // A path that cannot be a library: its parent a file, a name too long, a folder
                // that cannot be made (`/proc/lib.sqlite`), no permission.
                Some(
                    libc::EROFS
                    | libc::EACCES
                    | libc::EPERM
                    | libc::ENOTDIR
                    | libc::ENAMETOOLONG
                    | libc::ENOENT
                    | libc::EISDIR,
                ) => 2,
                _ => 1,
            },
            _ => 2,
        }
    }

    fn io(path: &Path, source: std::io::Error) -> LibraryError {
        match source.raw_os_error() {
            Some(libc::EROFS) => LibraryError::ReadOnly {
                path: path.to_path_buf(),
                why: "it is on a read-only file system".into(),
            },
            _ => LibraryError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    fn sqlite(path: &Path, e: rusqlite::Error) -> LibraryError {
        use rusqlite::ErrorCode as C;
        let path = path.to_path_buf();
        if let Some(why) = damaged_value(&e) {
            return LibraryError::Damaged { path, why };
        }
        match e.sqlite_error_code() {
            Some(C::DatabaseCorrupt | C::NotADatabase) => LibraryError::Damaged {
                path,
                why: e.to_string(),
            },
            Some(C::ReadOnly) => LibraryError::ReadOnly {
                path,
                why: e.to_string(),
            },
            Some(C::DatabaseBusy | C::DatabaseLocked) => LibraryError::Sqlite {
                path,
                why: format!(
                    "another process kept it locked for {} s ({e})",
                    store::BUSY_TIMEOUT.as_secs()
                ),
            },
            // SQLite says "disk I/O error" for a write past the file-size limit (EFBIG): the limit is named.
            Some(C::SystemIoFailure | C::DiskFull) => LibraryError::Sqlite {
                path,
                why: match crate::sys::limits::Limit::FileSize.soft() {
                    Some(v) => format!(
                        "{e}, under {} of {v} B: raise it (ulimit -f) or remove it",
                        crate::sys::limits::Limit::FileSize.name()
                    ),
                    None => e.to_string(),
                },
            },
            _ => LibraryError::Sqlite {
                path,
                why: e.to_string(),
            },
        }
    }
}

/// What is wrong with a value read from the library when SQLite's error says it is not what wkrun stores
/// there (text where a number is kept, a blob where text is, a table or column missing): the library was
/// changed by other hands.
fn damaged_value(e: &rusqlite::Error) -> Option<String> {
    use rusqlite::Error as E;
    match e {
        E::InvalidColumnType(_, name, ty) => Some(format!(
            "its column `{name}` holds {}, not what wkrun stores there",
            type_name(*ty)
        )),
        E::FromSqlConversionFailure(_, ty, _) => Some(format!(
            "a column holds {} that wkrun cannot read",
            type_name(*ty)
        )),
        E::IntegralValueOutOfRange(_, v) => Some(format!("a column holds {v}, out of range")),
        E::Utf8Error(..) => Some("a text column holds bytes that are not UTF-8".into()),
        E::SqliteFailure(_, Some(m))
            if m.starts_with("no such table") || m.starts_with("no such column") =>
        {
            Some(m.clone())
        }
        _ => None,
    }
}

/// An SQLite storage class in words.
fn type_name(ty: rusqlite::types::Type) -> &'static str {
    type_word(&ty.to_string())
}

/// An SQLite storage class, as `typeof` names it (`text`, `blob`), in words.
pub(crate) fn type_word(kind: &str) -> &'static str {
    match kind {
        "null" | "Null" => "NULL",
        "integer" | "Integer" => "an integer",
        "real" | "Real" => "a real number",
        "text" | "Text" => "text",
        _ => "a blob",
    }
}

/// Where the library is when `--library` is not given: `$WKRUN_LIBRARY`, else
/// `$XDG_DATA_HOME/wkrun/library.sqlite` (an absolute `XDG_DATA_HOME` only, as the XDG spec says), else
/// `$HOME/.local/share/wkrun/library.sqlite`; `var` reads the environment (empty values count as unset).
///
/// # Errors
/// [`LibraryError::NoLocation`] when none is set.
pub fn default_path(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, LibraryError> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = set("WKRUN_LIBRARY") {
        return Ok(p);
    }
    if let Some(d) = set("XDG_DATA_HOME").filter(|d| d.is_absolute()) {
        return Ok(d.join("wkrun/library.sqlite"));
    }
    set("HOME")
        .map(|h| h.join(".local/share/wkrun/library.sqlite"))
        .ok_or(LibraryError::NoLocation)
}

/// An entry as `wkrun library list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its id (never reused after `rm`).
    pub id: i64,
    /// Its label.
    pub label: String,
    /// The spec's name.
    pub spec: String,
    /// The target as the report names it.
    pub target: String,
    /// When the run started (RFC 3339).
    pub started_at: String,
    /// How it ended (`completed`, `interrupted`, ...).
    pub status: String,
    /// Its indexed figures, in phase order.
    pub figures: Vec<IndexedFigure>,
}

/// What adding one run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A new entry.
    Added,
    /// The run was there already; nothing changed.
    AlreadyThere,
    /// The run was there already under another label, now replaced by this one.
    Relabelled {
        /// The label it had.
        from: String,
    },
}

/// One run added: its entry's id and label, and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The results file it came from.
    pub file: PathBuf,
    /// The entry.
    pub id: i64,
    /// Its label.
    pub label: String,
    /// What happened.
    pub outcome: Outcome,
}

/// A stored run read back: the entry's id and label, its results and files.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The entry's id.
    pub id: i64,
    /// Its label (also set as the results' `label`).
    pub label: String,
    /// SHA-256 of its `results.json`.
    pub sha256: String,
    /// The results.
    pub results: Results,
    /// The files it names, by name.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Stored {
    /// The name compare and report give the entry's results file: `library:ID/results.json` (so two runs
    /// under one label are told apart by `library:ID`).
    pub fn file(&self) -> PathBuf {
        PathBuf::from(format!("library:{}/results.json", self.id))
    }

    /// The entry as a run to compare.
    pub fn compare_run(&self) -> Run {
        Run {
            file: self.file(),
            results: self.results.clone(),
        }
    }

    /// The entry as a run to report on, its series read from the stored CSVs.
    ///
    /// # Errors
    /// [`LibraryError::Input`] for a stored CSV that is not the phase's series.
    pub fn run_data(&self) -> Result<RunData, LibraryError> {
        let dir = PathBuf::from(format!("library:{}", self.id));
        assemble(
            self.file(),
            self.label.clone(),
            self.results.clone(),
            |name| {
                let path = dir.join(name);
                let bytes = self.files.get(name).ok_or_else(|| ReadError::Series {
                    path: path.clone(),
                    why: "not in the library".into(),
                })?;
                Ok((path.clone(), series_rows(&path, &bytes[..])?))
            },
        )
        .map_err(|e| LibraryError::Input(Box::new(e)))
    }
}

/// The name a run given to `compare` or `report` goes by beside the library's runs (`--against-library`):
/// its entry's label where the library holds it (`entry`, from [`Library::label_of`]), else, where its own
/// label is only its target's default name ([`crate::target::TargetInfo::default_label`], which the
/// library's runs on that drive share), the name of its folder (`file`: its `results.json`), as `library
/// add` would name it with none, else its own label. Trial 23 X2: the ranking named the run by its
/// target's path beside the library's `rr1`, `rr2`, though the library held it as `rr3`.
pub fn given_name(results: &Results, file: &Path, entry: Option<String>) -> String {
    if let Some(label) = entry {
        return label;
    }
    let default = crate::text::label(&results.target.default_label());
    match &results.label {
        Some(own) if *own != default => own.clone(),
        _ => crate::report::runs::folder_name(file),
    }
}

/// Which entries `rm` removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// The entry of this id.
    Id(i64),
    /// Every entry of exactly this label.
    Label(String),
}

/// An open library.
pub struct Library {
    conn: Connection,
    path: PathBuf,
}

/// `v`'s serde name (`completed`, `workload`, `higher`).
fn name_of(v: impl serde::Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        other => format!("{other:?}"),
    }
}

impl Library {
    /// Opens the library at `path`: for reading (it must exist), or for writing (created when missing).
    ///
    /// # Errors
    /// [`LibraryError`]: not a library, damaged, a newer schema, missing (reading), read-only (writing).
    pub fn open(path: &Path, write: bool) -> Result<Library, LibraryError> {
        let conn = match write {
            true => store::open_write(path)?,
            false => store::open_read(path)?,
        };
        Ok(Library {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The library's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sql(&self, e: rusqlite::Error) -> LibraryError {
        LibraryError::sqlite(&self.path, e)
    }

    /// A write transaction, begun at once (`BEGIN IMMEDIATE`, so that it waits up to
    /// [`store::BUSY_TIMEOUT`] for another process's to end, rather than failing later), and the mapping of
    /// SQLite's errors to [`LibraryError`].
    fn write(
        &mut self,
    ) -> Result<
        (
            rusqlite::Transaction<'_>,
            impl Fn(rusqlite::Error) -> LibraryError + use<>,
        ),
        LibraryError,
    > {
        let path = self.path.clone();
        let sql = move |e| LibraryError::sqlite(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(&sql)?;
        Ok((tx, sql))
    }

    /// Adds `runs` in one transaction (all or none), each under `label` when given, else the name it goes
    /// by ([`given_name`]: its own label, but its folder's name where that label is only its target's
    /// default name, which runs on one drive share; trial 25 F6). A run already in the library (the same
    /// `results.json` bytes) is not added again; with `label`, its label becomes `label`.
    ///
    /// # Errors
    /// [`LibraryError`] from SQLite; nothing is added then.
    pub fn add(
        &mut self,
        runs: &[Incoming],
        label: Option<&str>,
    ) -> Result<Vec<Added>, LibraryError> {
        let (tx, sql) = self.write()?;
        let sql = &sql;
        let mut out = Vec::new();
        for run in runs {
            let own = || given_name(&run.results, &run.file, None);
            let want = label.map_or_else(own, str::to_string);
            let there: Option<(i64, String)> = tx
                .query_row(
                    "SELECT id, label FROM entries WHERE results_sha256 = ?1",
                    [&run.sha256],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(sql)?;
            let (id, outcome) = match there {
                Some((id, old)) if label.is_some() && old != want => {
                    tx.execute(
                        "UPDATE entries SET label = ?1 WHERE id = ?2",
                        params![want, id],
                    )
                    .map_err(sql)?;
                    (id, Outcome::Relabelled { from: old })
                }
                Some((id, old)) => {
                    out.push(Added {
                        file: run.file.clone(),
                        id,
                        label: old,
                        outcome: Outcome::AlreadyThere,
                    });
                    continue;
                }
                None => (insert(&tx, run, &want).map_err(sql)?, Outcome::Added),
            };
            out.push(Added {
                file: run.file.clone(),
                id,
                label: want,
                outcome,
            });
        }
        tx.commit().map_err(sql)?;
        Ok(out)
    }

    /// Every entry, oldest run first (by `started_at`, then id); with `spec`, of that spec only; with
    /// `label`, those whose label contains it (ignoring case).
    ///
    /// # Errors
    /// [`LibraryError::Unknown`] when a filter matches no entry (naming the closest spec or label); SQLite's.
    pub fn entries(
        &self,
        spec: Option<&str>,
        label: Option<&str>,
    ) -> Result<Vec<Entry>, LibraryError> {
        let all = self.all_entries()?;
        let mut shown: Vec<Entry> = all.clone();
        if let Some(s) = spec {
            shown.retain(|e| e.spec == s);
            if shown.is_empty() {
                let specs: Vec<&str> = all.iter().map(|e| e.spec.as_str()).collect();
                return Err(LibraryError::Unknown(format!(
                    "no entry of spec {s:?} in {}{}",
                    self.path.display(),
                    list::closest(s, &specs)
                )));
            }
        }
        if let Some(l) = label {
            let low = l.to_lowercase();
            shown.retain(|e| e.label.to_lowercase().contains(&low));
            if shown.is_empty() {
                let labels: Vec<&str> = all.iter().map(|e| e.label.as_str()).collect();
                return Err(LibraryError::Unknown(format!(
                    "no entry whose label contains {l:?} in {}{}",
                    self.path.display(),
                    list::closest(l, &labels)
                )));
            }
        }
        Ok(shown)
    }

    fn all_entries(&self) -> Result<Vec<Entry>, LibraryError> {
        let mut figures: BTreeMap<i64, Vec<IndexedFigure>> = BTreeMap::new();
        let mut q = self
            .conn
            .prepare(
                "SELECT entry, phase_index, phase, phase_kind, key, label, value, unit, better FROM figures \
                 ORDER BY entry, phase_index, position",
            )
            .map_err(|e| self.sql(e))?;
        let rows = q
            .query_map([], |r| {
                let kind: String = r.get(3)?;
                let better: Option<String> = r.get(8)?;
                Ok((
                    r.get::<_, i64>(0)?,
                    IndexedFigure {
                        phase_index: r.get::<_, i64>(1)?.max(0) as usize,
                        phase: r.get(2)?,
                        phase_kind: serde_json::from_value(serde_json::Value::String(kind))
                            .unwrap_or(crate::spec::PhaseKind::Workload),
                        key: r.get(4)?,
                        label: r.get(5)?,
                        value: r.get(6)?,
                        unit: r.get(7)?,
                        better: better.and_then(|b| {
                            serde_json::from_value::<Better>(serde_json::Value::String(b)).ok()
                        }),
                    },
                ))
            })
            .map_err(|e| self.sql(e))?;
        for row in rows {
            let (entry, f) = row.map_err(|e| self.sql(e))?;
            figures.entry(entry).or_default().push(f);
        }
        let mut q = self
            .conn
            .prepare(
                "SELECT id, label, spec_name, target, started_at, status FROM entries \
                 ORDER BY started_at, id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = q
            .query_map([], |r| {
                Ok(Entry {
                    id: r.get(0)?,
                    label: r.get(1)?,
                    spec: r.get(2)?,
                    target: r.get(3)?,
                    started_at: r.get(4)?,
                    status: r.get(5)?,
                    figures: Vec::new(),
                })
            })
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        for row in rows {
            let mut e = row.map_err(|e| self.sql(e))?;
            e.figures = figures.remove(&e.id).unwrap_or_default();
            out.push(e);
        }
        Ok(out)
    }

    /// Removes the entries `sel` names, with their files and figures; returns them.
    ///
    /// # Errors
    /// [`LibraryError::Unknown`] when there is no such entry (nothing removed); SQLite's.
    pub fn remove(&mut self, sel: &Selector) -> Result<Vec<Entry>, LibraryError> {
        let all = self.all_entries()?;
        let gone: Vec<Entry> = all
            .iter()
            .filter(|e| match sel {
                Selector::Id(id) => e.id == *id,
                Selector::Label(l) => e.label == *l,
            })
            .cloned()
            .collect();
        if gone.is_empty() {
            return Err(LibraryError::Unknown(match sel {
                Selector::Id(id) => format!(
                    "no entry {id} in {}{}",
                    self.path.display(),
                    list::ids(&all)
                ),
                Selector::Label(l) => {
                    let labels: Vec<&str> = all.iter().map(|e| e.label.as_str()).collect();
                    format!(
                        "no entry labelled {l:?} in {} (rm takes a whole label){}",
                        self.path.display(),
                        list::closest(l, &labels)
                    )
                }
            }));
        }
        let (tx, sql) = self.write()?;
        let sql = &sql;
        for e in &gone {
            tx.execute("DELETE FROM entries WHERE id = ?1", [e.id])
                .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(gone)
    }

    /// The last `n` runs of spec `spec` (by `started_at`), oldest first, leaving out the runs whose
    /// `results.json` SHA-256 is in `except` (the runs compared with them).
    ///
    /// # Errors
    /// [`LibraryError::Unknown`] when the library has no other run of the spec; SQLite's; a stored text
    /// that is no longer results ([`LibraryError::Damaged`]).
    pub fn recent(
        &self,
        spec: &str,
        n: usize,
        except: &[String],
    ) -> Result<Vec<Stored>, LibraryError> {
        let mut q = self
            .conn
            .prepare(
                "SELECT id, label, results_sha256, results_json FROM entries WHERE spec_name = ?1 \
                 ORDER BY started_at DESC, id DESC",
            )
            .map_err(|e| self.sql(e))?;
        let rows = q
            .query_map([spec], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                ))
            })
            .map_err(|e| self.sql(e))?;
        let (mut out, mut compared) = (Vec::new(), 0);
        for row in rows {
            let (id, label, sha256, text) = row.map_err(|e| self.sql(e))?;
            if except.contains(&sha256) {
                compared += 1;
                continue;
            }
            if out.len() == n {
                break;
            }
            let file = PathBuf::from(format!("library:{id}/results.json"));
            let mut results =
                parse_results_or_fio(&file, &text).map_err(|e| LibraryError::Damaged {
                    path: self.path.clone(),
                    why: e.to_string(),
                })?;
            results.label = Some(label.clone());
            out.push(Stored {
                id,
                label,
                sha256,
                results,
                files: self.files(id)?,
            });
        }
        if out.is_empty() {
            // Trial 26 L3: the run compared was the library's only one of its spec, and the message
            // suggested that spec's own name; other specs are suggested, never the one asked for.
            let specs: Vec<String> = self.all_entries()?.into_iter().map(|e| e.spec).collect();
            let others: Vec<&str> = (specs.iter().map(String::as_str))
                .filter(|s| s != &spec)
                .collect();
            let only = match compared {
                0 => "",
                1 => "; its only run of that spec is the one compared",
                _ => "; its only runs of that spec are those compared",
            };
            let closest = match (others.is_empty(), compared) {
                (true, 1..) => String::new(),
                _ => list::closest(spec, &others),
            };
            return Err(LibraryError::Unknown(format!(
                "the library {} has no other run of spec {spec:?} to compare with{only}{closest}",
                self.path.display(),
            )));
        }
        out.reverse();
        Ok(out)
    }

    /// The label of the entry of the run whose `results.json` has the SHA-256 `sha256`
    /// ([`entry::results_sha256`]), where the library holds it.
    ///
    /// # Errors
    /// SQLite's.
    pub fn label_of(&self, sha256: &str) -> Result<Option<String>, LibraryError> {
        self.conn
            .query_row(
                "SELECT label FROM entries WHERE results_sha256 = ?1",
                [sha256],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn files(&self, id: i64) -> Result<BTreeMap<String, Vec<u8>>, LibraryError> {
        let mut q = self
            .conn
            .prepare("SELECT name, bytes FROM files WHERE entry = ?1")
            .map_err(|e| self.sql(e))?;
        let rows = q
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}

/// Inserts a new entry for `run` labelled `label`, with its files and figures; returns its id.
fn insert(tx: &rusqlite::Transaction<'_>, run: &Incoming, label: &str) -> rusqlite::Result<i64> {
    let r = &run.results;
    let added_at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    tx.execute(
        "INSERT INTO entries (results_sha256, label, spec_name, spec_sha256, target, hostname, started_at, \
         status, added_from, added_at, results_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            run.sha256,
            label,
            r.spec.name,
            r.spec.sha256,
            crate::report::runs::target_name(r),
            r.host.hostname,
            r.started_at,
            name_of(r.status),
            run.file.display().to_string(),
            added_at,
            run.text,
        ],
    )?;
    let id = tx.last_insert_rowid();
    for (name, bytes) in &run.files {
        tx.execute(
            "INSERT INTO files (entry, name, bytes) VALUES (?1, ?2, ?3)",
            params![id, name, bytes],
        )?;
    }
    for (pos, f) in entry::figures(r).iter().enumerate() {
        tx.execute(
            "INSERT INTO figures (entry, phase_index, phase, phase_kind, position, key, label, value, unit, \
             better) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                f.phase_index as i64,
                f.phase,
                name_of(f.phase_kind),
                pos as i64,
                f.key,
                f.label,
                f.value,
                f.unit,
                f.better.map(name_of),
            ],
        )?;
    }
    Ok(id)
}

/// `wkrun library add`: reads and checks every run in `files` first (one that is not a run refuses them
/// all, before the library is opened or made), then adds them to the library at `path` (made when
/// missing) in one transaction. Returns the lines to print: what happened to each run, then the library
/// and its number of entries.
///
/// # Errors
/// [`LibraryError`]; nothing is added then.
pub fn add_runs(
    path: &Path,
    files: &[PathBuf],
    label: Option<&str>,
) -> Result<String, LibraryError> {
    let runs = files
        .iter()
        .map(|f| entry::read_run(f))
        .collect::<Result<Vec<_>, _>>()?;
    let existed = std::fs::symlink_metadata(path).is_ok();
    let mut lib = Library::open(path, true)?;
    let added = match lib.add(&runs, label) {
        Ok(a) => a,
        Err(e) => {
            drop(lib);
            if !existed {
                remove_if_empty(path);
            }
            return Err(e);
        }
    };
    let mut out = String::new();
    for a in &added {
        let (what, note) = match &a.outcome {
            Outcome::Added => ("added", String::new()),
            Outcome::AlreadyThere => ("kept", " (already in the library)".to_string()),
            Outcome::Relabelled { from } => ("relabelled", format!(" (was {from:?})")),
        };
        out.push_str(&format!(
            "{what} entry {}, {}{note}: {}\n",
            a.id,
            a.label,
            a.file.display()
        ));
    }
    let n: i64 = lib
        .conn
        .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
        .map_err(|e| lib.sql(e))?;
    out.push_str(&format!("library: {} ({n} entries)\n", path.display()));
    Ok(out)
}

/// Removes the library at `path` that this `add` made and could not add to (a full disk), when it holds no
/// entry (another process may have added to it meanwhile): with its `-wal` and `-shm` files.
fn remove_if_empty(path: &Path) {
    let empty = Library::open(path, false).is_ok_and(|lib| {
        lib.conn
            .query_row("SELECT count(*) FROM entries", [], |r| r.get::<_, i64>(0))
            .is_ok_and(|n| n == 0)
    });
    if empty {
        for suffix in ["", "-wal", "-shm"] {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
    }
}

/// `wkrun library rm`: removes the entries `sel` names from the library at `path`; returns a line per
/// entry removed.
///
/// # Errors
/// [`LibraryError`]: no library, no such entry (nothing removed), not writable.
pub fn remove(path: &Path, sel: &Selector) -> Result<String, LibraryError> {
    // Read first: a library that does not exist is not made by `rm`.
    Library::open(path, false)?;
    let gone = Library::open(path, true)?.remove(sel)?;
    Ok(gone
        .iter()
        .map(|e| {
            format!(
                "removed {} {} ({}, {})\n",
                e.id, e.label, e.spec, e.started_at
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WKRUN_LIBRARY, then an absolute XDG_DATA_HOME (a relative one is ignored, as the XDG spec says), then
    /// HOME; empty values count as unset.
    #[test]
    fn the_default_path_follows_the_environment() {
        let at = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            default_path(move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.into()))
                .map_err(|e| e.to_string())
        };
        let all = [
            ("WKRUN_LIBRARY", "/l.sqlite"),
            ("XDG_DATA_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(at(&all), Ok(PathBuf::from("/l.sqlite")));
        assert_eq!(at(&all[1..]), Ok(PathBuf::from("/x/wkrun/library.sqlite")));
        let relative = [
            ("WKRUN_LIBRARY", ""),
            ("XDG_DATA_HOME", "x"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            at(&relative),
            Ok(PathBuf::from("/h/.local/share/wkrun/library.sqlite"))
        );
        assert!(at(&[]).is_err_and(|e| e.contains("give --library PATH")));
    }
}
