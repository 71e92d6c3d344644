//! The error type of the store.

use std::path::PathBuf;
use std::time::Duration;

use gix::ObjectId;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the store.
///
/// Every variant names the path, reference, revision or commit it is about, so a message shown to a
/// user is actionable without further context.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file of the change set changed on disk after the command read it (edited by hand
    /// while the command ran); nothing was written for it.
    #[error(
        "{path} changed on disk while this command was writing it (edited by hand?); the edit was left as it is and nothing was written over it: run the command again"
    )]
    ChangedOnDisk {
        /// The vault path.
        path: String,
    },
    /// No git repository was found at or above the vault directory.
    #[error("no git repository found at or above {path}")]
    NotARepository {
        /// The vault directory the search started from.
        path: PathBuf,
    },
    /// The repository could not be opened or discovered.
    #[error("could not open the git repository enclosing {path}")]
    Open {
        /// The vault directory.
        path: PathBuf,
        /// The underlying git error.
        #[source]
        source: gix::Error,
    },
    /// A repository could not be initialized.
    #[error("could not initialize a git repository at {path}")]
    Init {
        /// The directory in which `git init` was attempted.
        path: PathBuf,
        /// The underlying git error.
        #[source]
        source: gix::Error,
    },
    /// The enclosing repository has no work tree.
    #[error("the git repository at {path} is bare; a vault needs a work tree")]
    BareRepository {
        /// The git directory.
        path: PathBuf,
    },
    /// The vault directory does not lie inside the repository's work tree.
    #[error("vault {vault} is not inside the work tree {work_dir}")]
    VaultOutsideWorkTree {
        /// The vault directory.
        vault: PathBuf,
        /// The repository's work tree.
        work_dir: PathBuf,
    },
    /// A file-system operation failed.
    #[error("I/O error on {path}")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A git (object database, reference or index) operation failed.
    #[error("git operation failed: {what}")]
    Git {
        /// What was being done, naming the object, reference or path concerned.
        what: String,
        /// The underlying git error.
        #[source]
        source: gix::Error,
    },
    /// A revision could not be resolved.
    #[error("revision {rev:?} not found")]
    RevNotFound {
        /// The revision as given.
        rev: String,
    },
    /// An abbreviated object id matches more than one object.
    #[error("revision {rev:?} is ambiguous")]
    AmbiguousRev {
        /// The revision as given.
        rev: String,
    },
    /// A revision resolved to something that is not a commit (and cannot be peeled to one).
    #[error("revision {rev:?} does not name a commit")]
    NotACommit {
        /// The revision as given, or the object id.
        rev: String,
    },
    /// A vault path is malformed (absolute, `..`, `.git`, empty component, ...).
    #[error("invalid vault path {path:?}: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why it was rejected.
        reason: &'static str,
    },
    /// Writing a vault path would be unsafe or impossible (symlink, directory in the way, ...).
    #[error("refusing to write {path:?}: {reason}")]
    UnsafePath {
        /// The vault path concerned.
        path: String,
        /// Why it was refused.
        reason: String,
    },
    /// A branch name is not a valid git branch name.
    #[error("invalid branch name {name:?}")]
    InvalidBranch {
        /// The name as given.
        name: String,
    },
    /// `--agent ID` names a branch `agents/<ID>` that git would not accept.
    #[error("--agent {id}: `{branch}` is not a valid branch name")]
    InvalidAgent {
        /// The agent id as given.
        id: String,
        /// `agents/<ID>`.
        branch: String,
    },
    /// A trailer key is not a valid git trailer token.
    #[error("invalid trailer key {key:?} (expected letters, digits and '-')")]
    InvalidTrailer {
        /// The key as given.
        key: String,
    },
    /// The branch moved since its tip was read (another writer committed): nothing was overwritten.
    #[error(
        "branch {branch} moved: expected tip {}, found {}",
        show_id(.expected),
        show_id(.actual)
    )]
    Conflict {
        /// The reference that was to be updated (e.g. `refs/heads/main`).
        branch: String,
        /// The tip the caller expected (`None` = the branch was expected not to exist).
        expected: Option<ObjectId>,
        /// The tip actually found (`None` = the branch does not exist).
        actual: Option<ObjectId>,
    },
    /// The vault lock could not be obtained in time.
    #[error("timed out after {waited:?} waiting for the vault lock {path}")]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited: Duration,
    },
    /// A [`VaultLock`](crate::VaultLock) of another vault was passed in.
    #[error("lock {got} does not belong to this vault (expected {expected})")]
    ForeignLock {
        /// This vault's lock file.
        expected: PathBuf,
        /// The lock file that was passed in.
        got: PathBuf,
    },
    /// A date in the environment could not be parsed.
    #[error("invalid date in {var}: {value:?}")]
    InvalidDate {
        /// The environment variable.
        var: String,
        /// Its value.
        value: String,
    },
    /// The crash-recovery journal is malformed.
    #[error("crash-recovery journal {path} is unreadable ({reason}); inspect and delete it")]
    Journal {
        /// The journal file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A git maintenance command (`git gc`, `git repack`) could not run or failed.
    #[error("{command}: {message}")]
    Maintenance {
        /// The command line.
        command: String,
        /// Its error output, or why it could not run.
        message: String,
    },
}

impl Error {
    /// `true` for [`Error::Conflict`] and [`Error::ChangedOnDisk`]: the caller may re-read and
    /// retry.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Error::Conflict { .. } | Error::ChangedOnDisk { .. })
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn git(what: impl Into<String>, source: gix::Error) -> Self {
        Error::Git {
            what: what.into(),
            source,
        }
    }
}

fn show_id(id: &Option<ObjectId>) -> String {
    match id {
        Some(id) => id.to_string(),
        None => "<none>".to_string(),
    }
}

/// Extension to attach a description to gix results.
pub(crate) trait GitResultExt<T> {
    /// Map a gix error into [`Error::Git`] with a lazily built description.
    fn git_ctx(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E> GitResultExt<T> for std::result::Result<T, E>
where
    E: Into<gix::Error>,
{
    fn git_ctx(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::git(what(), e.into()))
    }
}
