//! Errors of apply, history, rollback and agent commands.

use wiki_cli::CliError;

/// Everything that can go wrong; mapped to [`CliError`] (exit 2) at the edge, except
/// [`Error::Refused`] (exit 1: the command ran and decided to change nothing).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An operation is invalid, or cannot be applied to the vault as it is (page or claim not
    /// found): `message` says which field or page.
    #[error("{0}")]
    Invalid(String),
    /// An invalid operation at a line of the input: `<origin>:<line>: <message>`.
    #[error("{origin}:{line}: {message}")]
    At {
        /// `<stdin>` or a file name.
        origin: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The command refused to act (e.g. a rollback whose lines were changed later).
    #[error("{0}")]
    Refused(String),
    /// A git error from the store.
    #[error("{0}")]
    Store(#[from] wiki_store::Error),
    /// Anything else (I/O, unreadable vault).
    #[error("{0}")]
    Runtime(String),
}

impl Error {
    /// Whether this is the store's compare-and-swap conflict (another writer moved the branch).
    pub fn is_conflict(&self) -> bool {
        matches!(self, Error::Store(e) if e.is_conflict())
    }

    /// Attach an input location to an operation error.
    pub fn at(self, origin: &str, line: usize) -> Error {
        match self {
            Error::Invalid(message) => Error::At {
                origin: origin.to_string(),
                line,
                message,
            },
            other => other,
        }
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        match e {
            Error::Invalid(_) | Error::At { .. } => CliError::Usage(e.to_string()),
            other => CliError::Runtime(other.to_string()),
        }
    }
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
