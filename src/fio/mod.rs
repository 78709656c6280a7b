//! fio's formats, in and out: job files and command lines imported as specs ([`import`], read by
//! [`jobfile`] with fio's units, [`value`]), specs exported as job files ([`export`]), and fio's JSON output
//! read as results ([`json`], which `compare` and `report` use through `report::read_results`).
//!
//! What each fio option is in wkrun is one table, [`crate::spec::fio::FIO_KEYS`]: the importer maps, notes or
//! refuses an option by its row, and `wkrun validate` gives the same row's hint for a fio name in a spec.

pub mod bins;
pub mod export;
pub mod import;
pub mod jobfile;
pub mod json;
pub mod mix_rate;
pub mod plausible;
pub mod region;
pub mod status;
pub mod steady;
pub mod value;

use std::fmt;

/// Where something was written: a line of a job file, an argument of fio's command line, or a whole file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// `file:line`.
    Line {
        /// The file, as named.
        file: String,
        /// 1-based.
        line: usize,
    },
    /// An argument of `wkrun import fio -- ARGS`.
    Arg {
        /// 1-based position among ARGS.
        index: usize,
        /// The argument as given.
        text: String,
    },
    /// A whole file.
    File(String),
}

impl Place {
    /// A line of `file`.
    pub fn line(file: &str, line: usize) -> Place {
        Place::Line {
            file: file.to_string(),
            line,
        }
    }

    /// Argument `index` (1-based) of fio's command line.
    pub fn arg(index: usize, text: &str) -> Place {
        Place::Arg {
            index,
            text: text.to_string(),
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line { file, line } => write!(f, "{file}:{line}"),
            Place::Arg { index, text } => {
                write!(f, "fio command line, argument {index} `{text}`")
            }
            Place::File(file) => f.write_str(file),
        }
    }
}

/// One problem with the input, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where.
    pub at: Place,
    /// What, in words.
    pub message: String,
}

impl Problem {
    /// A problem at `at`.
    pub fn new(at: Place, message: impl Into<String>) -> Problem {
        Problem {
            at,
            message: message.into(),
        }
    }
}

/// One line: a control character in where or what (a line break in a `${VAR}`'s value or a command-line
/// argument, quoted in the message) is shown escaped, so that a value cannot add lines of its own to
/// wkrun's output (attack 24).
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = format!("{}: {}", self.at, self.message);
        f.write_str(&crate::text::escaped(&line))
    }
}

/// The problem of an option fio does not know, with the nearest name fio knows.
pub fn unknown_option(at: Place, name: &str) -> Problem {
    let near = crate::spec::fio::fio_option_names()
        .map(|n| (strsim::damerau_levenshtein(name, n), n))
        .min()
        .filter(|(d, n)| *d <= 2 && *d < n.len());
    let hint = match near {
        Some((_, n)) => format!(" (did you mean `{n}`?)"),
        None => String::new(),
    };
    Problem::new(
        at,
        format!("unknown fio option `{name}`: fio refuses it too{hint}"),
    )
}
