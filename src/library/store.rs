//! The library file: recognising one before SQLite opens it, creating a new one whole, opening it for
//! reading or writing, and its schema with the migrations between versions.
//!
//! A file is taken for a library only when its first 100 bytes are an SQLite header whose
//! `application_id` is [`APPLICATION_ID`]: anything else (a text file, another program's SQLite database,
//! an empty file) is refused before SQLite opens it, so it is never changed. A new library is built in a
//! private folder beside its name (schema, `application_id`, WAL mode) and linked to its name only when
//! complete, never replacing a file that appeared meanwhile: a process never sees a half-made library,
//! and of several processes creating one at once, one wins and the others open it.

use super::LibraryError;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `PRAGMA application_id` of a wkrun library: `WKRL` in ASCII.
pub const APPLICATION_ID: i32 = 0x574B_524C;
/// The schema version this wkrun writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = 1;
/// The longest file or folder name (Linux's `NAME_MAX`, in bytes).
const NAME_MAX: usize = 255;
/// How long a process waits for another's write to end before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// The schema, one migration per version: `MIGRATIONS[v]` takes a library from version `v` to `v + 1`
/// (version 0 is the empty database of a new library).
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = ["
CREATE TABLE entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    results_sha256 TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    spec_name TEXT NOT NULL,
    spec_sha256 TEXT NOT NULL,
    target TEXT NOT NULL,
    hostname TEXT NOT NULL,
    started_at TEXT NOT NULL,
    status TEXT NOT NULL,
    added_from TEXT NOT NULL,
    added_at TEXT NOT NULL,
    results_json BLOB NOT NULL
);
CREATE INDEX entries_by_spec ON entries (spec_name, started_at);
CREATE TABLE files (
    entry INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (entry, name)
);
CREATE TABLE figures (
    entry INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    phase_index INTEGER NOT NULL,
    phase TEXT NOT NULL,
    phase_kind TEXT NOT NULL,
    position INTEGER NOT NULL,
    key TEXT NOT NULL,
    label TEXT NOT NULL,
    value REAL,
    unit TEXT NOT NULL,
    better TEXT,
    PRIMARY KEY (entry, phase_index, position)
);
CREATE INDEX figures_by_key ON figures (phase, key, value);
"];

/// The tables of a library of [`SCHEMA_VERSION`], their columns as [`MIGRATIONS`] makes them, and the
/// storage classes (SQLite's `typeof`) wkrun writes in each: a library without one of them (a table dropped
/// by hand) or with another kind of value in a column (text where a figure is kept) is damaged.
const TABLES: [(&str, &[(&str, &str)]); 3] = [
    (
        "entries",
        &[
            ("id", "'integer'"),
            ("results_sha256", "'text'"),
            ("label", "'text'"),
            ("spec_name", "'text'"),
            ("spec_sha256", "'text'"),
            ("target", "'text'"),
            ("hostname", "'text'"),
            ("started_at", "'text'"),
            ("status", "'text'"),
            ("added_from", "'text'"),
            ("added_at", "'text'"),
            ("results_json", "'blob'"),
        ],
    ),
    (
        "files",
        &[
            ("entry", "'integer'"),
            ("name", "'text'"),
            ("bytes", "'blob'"),
        ],
    ),
    (
        "figures",
        &[
            ("entry", "'integer'"),
            ("phase_index", "'integer'"),
            ("phase", "'text'"),
            ("phase_kind", "'text'"),
            ("position", "'integer'"),
            ("key", "'text'"),
            ("label", "'text'"),
            ("value", "'real', 'null'"),
            ("unit", "'text'"),
            ("better", "'text', 'null'"),
        ],
    ),
];

/// Refuses a library whose tables are not those of [`TABLES`]: one dropped, a column missing, a value of
/// another storage class than wkrun writes there.
fn check_tables(path: &Path, c: &Connection) -> Result<(), LibraryError> {
    let sql = |e| LibraryError::sqlite(path, e);
    let damaged = |why: String| LibraryError::Damaged {
        path: path.to_path_buf(),
        why,
    };
    for (table, columns) in TABLES {
        let mut st = c
            .prepare("SELECT name FROM pragma_table_info(?1)")
            .map_err(sql)?;
        let have = st
            .query_map([table], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(sql)?;
        if have.is_empty() {
            return Err(damaged(format!("it has no table `{table}`")));
        }
        if let Some((col, _)) = columns.iter().find(|(c, _)| !have.iter().any(|h| h == c)) {
            return Err(damaged(format!(
                "its table `{table}` has no column `{col}`"
            )));
        }
        let cases: String = columns
            .iter()
            .map(|(col, kinds)| {
                format!(" WHEN typeof({col}) NOT IN ({kinds}) THEN '{col} ' || typeof({col})")
            })
            .collect();
        let query = format!(
            "SELECT bad FROM (SELECT CASE{cases} END AS bad FROM {table}) WHERE bad IS NOT NULL LIMIT 1"
        );
        let bad: Option<String> = c
            .query_row(&query, [], |r| r.get(0))
            .optional()
            .map_err(sql)?;
        if let Some((col, kind)) = bad.as_deref().and_then(|b| b.split_once(' ')) {
            return Err(damaged(format!(
                "its column `{col}` holds {}, not what wkrun stores there",
                super::type_word(kind)
            )));
        }
    }
    Ok(())
}

/// What is at a library's path.
enum Found {
    /// Nothing.
    Missing,
    /// A library (its header says so); `writable`: the file has a write permission bit.
    Library { writable: bool },
}

/// Looks at `path` without following a symbolic link and without SQLite: a library, nothing, or a file
/// that is refused (a link, not a regular file, not a wkrun library, of a newer schema).
fn inspect(path: &Path) -> Result<Found, LibraryError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let refused = |why: String| LibraryError::NotALibrary {
        path: path.to_path_buf(),
        why,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(e) => return Err(LibraryError::io(path, e)),
        Ok(m) => m,
    };
    if meta.file_type().is_symlink() {
        return Err(refused(
            "it is a symbolic link; a library is never opened through one".into(),
        ));
    }
    if !meta.is_file() {
        return Err(refused("it is not a regular file".into()));
    }
    let mut head = Vec::with_capacity(100);
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .and_then(|f| f.take(100).read_to_end(&mut head))
        .map_err(|e| LibraryError::io(path, e))?;
    let word = |at: usize| i32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    if head.len() < 100 || !head.starts_with(b"SQLite format 3\0") {
        return Err(refused(format!(
            "it is not an SQLite database ({} bytes{})",
            meta.len(),
            if meta.len() == 0 { ", empty" } else { "" }
        )));
    }
    match word(68) {
        APPLICATION_ID => {}
        0 => {
            return Err(refused(
                "it is an SQLite database of another program (no application_id)".into(),
            ));
        }
        other => {
            return Err(refused(format!(
                "it is an SQLite database of another program (application_id {other:#010x})"
            )));
        }
    }
    newer_schema(path, word(60))?;
    Ok(Found::Library {
        writable: meta.permissions().mode() & 0o222 != 0,
    })
}

/// The files SQLite keeps beside a library: its write-ahead log, its shared memory, a rollback journal.
const BESIDE: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Refuses a library at `path` with a file SQLite keeps beside it ([`BESIDE`]) that is a symbolic link
/// or not a regular file, before SQLite opens anything: it would open the log or shared memory through
/// no link (and fail with a bare "unable to open database file", leaving an empty `-wal` it had made;
/// attack 13 F12), and wkrun follows no link planted in a folder it writes into.
fn beside_files(path: &Path) -> Result<(), LibraryError> {
    for suffix in BESIDE {
        let file = with_suffix(path, suffix);
        let why = match std::fs::symlink_metadata(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(LibraryError::io(&file, e)),
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&file) {
                Ok(to) => format!(
                    "is a symbolic link (to {})",
                    crate::text::escaped(&to.to_string_lossy())
                ),
                Err(_) => "is a symbolic link".to_string(),
            },
            Ok(m) if !m.is_file() => "is not a regular file".to_string(),
            Ok(_) => continue,
        };
        return Err(LibraryError::Beside {
            path: path.to_path_buf(),
            file,
            why,
        });
    }
    Ok(())
}

/// Refuses a library of a schema newer than this wkrun's.
fn newer_schema(path: &Path, version: i32) -> Result<(), LibraryError> {
    match version > SCHEMA_VERSION {
        true => Err(LibraryError::Newer {
            path: path.to_path_buf(),
            version,
        }),
        false => Ok(()),
    }
}

/// Opens the library at `path` for reading: an error when there is none. Where the library could be
/// written it is opened as for writing (nothing is written: SQLite then removes its `-wal` and `-shm`
/// files when the last connection closes, as it cannot for a reader); else for reading only, and on a
/// read-only file system, where the shared-memory file of WAL mode cannot be made, as immutable (no
/// process can write it there).
pub fn open_read(path: &Path) -> Result<Connection, LibraryError> {
    let writable = match inspect(path)? {
        Found::Missing => return Err(LibraryError::NoLibrary(path.to_path_buf())),
        Found::Library { writable } => writable && !on_read_only_fs(path),
    };
    beside_files(path)?;
    // A file this process may not write, with no write-ahead log beside it (no writer is at work, and
    // none left one): read as immutable, so that no `-wal` or `-shm` file is made beside it and left there
    // (a reader cannot remove them). A writer that starts meanwhile can at worst make this read fail.
    if !writable && !with_suffix(path, "-wal").exists() {
        return open_immutable(path);
    }
    let flags = OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
        | match writable {
            true => OpenFlags::SQLITE_OPEN_READ_WRITE,
            false => OpenFlags::SQLITE_OPEN_READ_ONLY,
        };
    let first = Connection::open_with_flags(path, flags)
        .map_err(|e| LibraryError::sqlite(path, e))
        .and_then(|c| prepare(path, c, false));
    match first {
        Err(LibraryError::Sqlite { .. }) if on_read_only_fs(path) => open_immutable(path),
        other => other,
    }
}

/// `path` with `suffix` appended to its name (`lib.sqlite-wal`).
fn with_suffix(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    p.into()
}

/// Opens the library at `path` as immutable (SQLite's `immutable=1`: read only, no locks, no `-wal` or
/// `-shm` file).
fn open_immutable(path: &Path) -> Result<Connection, LibraryError> {
    let uri = format!("file:{}?immutable=1", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
        | OpenFlags::SQLITE_OPEN_URI;
    let c = Connection::open_with_flags(uri, flags).map_err(|e| LibraryError::sqlite(path, e))?;
    prepare(path, c, false)
}

/// Opens the library at `path` for adding and removing entries, creating it (and its folder) when there is
/// none; checks its integrity first (`PRAGMA quick_check`), so a damaged library is refused, not written.
pub fn open_write(path: &Path) -> Result<Connection, LibraryError> {
    let found = inspect(path)?;
    beside_files(path)?;
    let found = match found {
        Found::Missing => {
            if let Some(on) = crate::target::not_storage(path) {
                return Err(LibraryError::NotStorage {
                    path: path.to_path_buf(),
                    on,
                });
            }
            create(path)?;
            inspect(path)?
        }
        found => found,
    };
    let read_only = |why: &str| LibraryError::ReadOnly {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    if let Found::Library { writable: false } = found {
        return Err(read_only("the file has no write permission"));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let c = Connection::open_with_flags(path, flags).map_err(|e| LibraryError::sqlite(path, e))?;
    // SQLite opens a file it cannot write for reading only, and says so here.
    if c.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) || on_read_only_fs(path) {
        return Err(read_only("it is on a read-only file system"));
    }
    let c = prepare(path, c, true)?;
    let check: String = c
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| LibraryError::sqlite(path, e))?;
    if check != "ok" {
        // SQLite's report is a line per problem: the first two say enough.
        let lines: Vec<&str> = check.lines().filter(|l| !l.starts_with("***")).collect();
        let mut why = lines.iter().take(2).copied().collect::<Vec<_>>().join("; ");
        if lines.len() > 2 {
            why.push_str(&format!("; {} more", lines.len() - 2));
        }
        return Err(LibraryError::Damaged {
            path: path.to_path_buf(),
            why: format!("PRAGMA quick_check: {why}"),
        });
    }
    Ok(c)
}

/// Sets the connection's busy timeout and foreign keys, and checks (or, when writing, brings up to date)
/// its schema version.
fn prepare(path: &Path, c: Connection, write: bool) -> Result<Connection, LibraryError> {
    let sql = |e| LibraryError::sqlite(path, e);
    c.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    c.pragma_update(None, "foreign_keys", true).map_err(sql)?;
    let (app, version): (i32, i32) = c
        .query_row(
            "SELECT application_id, user_version FROM pragma_application_id, pragma_user_version",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(sql)?;
    if app != APPLICATION_ID {
        return Err(LibraryError::NotALibrary {
            path: path.to_path_buf(),
            why: format!("its application_id is {app:#010x}"),
        });
    }
    newer_schema(path, version)?;
    if version < SCHEMA_VERSION {
        if !write {
            return Err(LibraryError::NotALibrary {
                path: path.to_path_buf(),
                why: format!(
                    "its schema is version {version}, older than this wkrun's {SCHEMA_VERSION}: `wkrun library \
add` on a writable copy brings it up to date"
                ),
            });
        }
        migrate(&c).map_err(sql)?;
    }
    check_tables(path, &c)?;
    Ok(c)
}

/// Applies the migrations from the library's version to [`SCHEMA_VERSION`], in one transaction that
/// another process's migration waits for (it then finds nothing left to do).
fn migrate(c: &Connection) -> rusqlite::Result<()> {
    c.execute_batch("BEGIN IMMEDIATE")?;
    let done = (|| {
        let version: i32 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        for (v, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            c.execute_batch(sql)?;
            c.pragma_update(None, "user_version", v as i32 + 1)?;
        }
        Ok(())
    })();
    match done {
        Ok(()) => c.execute_batch("COMMIT"),
        Err(e) => {
            let _ = c.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Creates a library at `path` (its parent folders too): built whole in a private folder beside it and
/// linked to its name, unless a file appeared there meanwhile (another process made it: that one is used).
fn create(path: &Path) -> Result<(), LibraryError> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // A name too long for any file system is refused before a folder is made for it.
    if path.components().any(|c| c.as_os_str().len() > NAME_MAX) {
        let e = std::io::Error::from_raw_os_error(libc::ENAMETOOLONG);
        return Err(LibraryError::io(path, e));
    }
    std::fs::create_dir_all(&parent).map_err(|e| LibraryError::io(path, e))?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let work = parent.join(format!(".wkrun-library-{}-{stamp}", std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&work)
        .map_err(|e| LibraryError::io(path, e))?;
    // Errors name the library, not this folder, which is removed whatever happens.
    let fresh = work.join("library.sqlite");
    let made = (|| {
        // The file first, so that its mode is the library's (0644 less the umask); SQLite's own files
        // (-wal, -shm) take the same.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&fresh)
            .map_err(|e| LibraryError::io(path, e))?;
        let c = Connection::open(&fresh).map_err(|e| LibraryError::sqlite(path, e))?;
        let sql = |e| LibraryError::sqlite(path, e);
        c.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(sql)?;
        let mode: String = c
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(sql)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(LibraryError::Sqlite {
                path: path.to_path_buf(),
                why: format!(
                    "the file system does not take SQLite's WAL mode (journal_mode {mode})"
                ),
            });
        }
        migrate(&c).map_err(sql)?;
        c.close().map_err(|(_, e)| LibraryError::sqlite(path, e))?;
        match std::fs::hard_link(&fresh, path) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                Err(LibraryError::io(path, e))
            }
            _ => Ok(()),
        }
    })();
    let _ = std::fs::remove_dir_all(&work);
    made
}

/// Whether `path` is on a file system mounted read-only.
fn on_read_only_fs(path: &Path) -> bool {
    crate::sys::file::read_only_fs(path).unwrap_or(false)
}

/// `path` for an SQLite `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}
