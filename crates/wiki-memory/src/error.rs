//! Errors of the memory layer, mapped to the documented exit codes at the edge.

use std::path::PathBuf;

use wiki_cli::CliError;

/// Result of the memory layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad flag value or an impossible request (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// A file's content is unusable (`path:line: message`).
    #[error("{0}")]
    Invalid(String),
    /// Git failed.
    #[error("{0}")]
    Store(#[from] wiki_store::Error),
    /// The memory index failed.
    #[error("{0}")]
    Search(#[from] wiki_search::Error),
    /// A vault operation failed.
    #[error("{0}")]
    Apply(#[from] wiki_apply::error::Error),
    /// Anything else that failed while running.
    #[error("{0}")]
    Runtime(String),
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        match e {
            Error::Usage(m) => CliError::Usage(m),
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe => {
                CliError::BrokenPipe
            }
            other => CliError::Runtime(other.to_string()),
        }
    }
}

impl From<CliError> for Error {
    fn from(e: CliError) -> Error {
        match e {
            CliError::Usage(m) => Error::Usage(m),
            CliError::Runtime(m) => Error::Runtime(m),
            CliError::BrokenPipe => Error::io("<stdout>", std::io::ErrorKind::BrokenPipe.into()),
        }
    }
}
