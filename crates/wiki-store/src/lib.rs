//! `wiki-store`: the only place in the toolchain that writes git objects and refs.
//!
//! A *vault* is a directory of Markdown pages. It is either the root of a git repository or a
//! sub-folder of one (the *vault prefix*, e.g. `notes/wiki/`). Every path in this API is
//! vault-relative with `/` separators; the store prepends the prefix to address the repository.
//! Files of the repository outside the vault are carried along unchanged by every commit.
//!
//! The store is built on [`gix`]; it runs the `git` binary only for maintenance (`git gc`).
//!
//! # Writing: [`Store::commit`]
//!
//! A commit is built directly in the object database: blobs for the changed files (loose objects
//! written through gix), a tree edited
//! from the target branch's tip tree (the empty tree for an unborn branch), a commit whose single
//! parent is the tip. The branch ref is then moved with a **compare-and-swap** against the tip that
//! was read (or against [`CommitRequest::expected_parent`]). If another writer moved the branch in
//! between, the commit fails with [`Error::Conflict`] and nothing is overwritten. A change set that
//! changes nothing (empty, or identical to the tip's blobs) creates **no** commit.
//!
//! Message format (git trailer conventions, readable by `git interpret-trailers --parse`):
//!
//! ```text
//! <subject>
//!
//! <optional body>
//!
//! Wiki-Op: compile
//! Wiki-Page: entities/a.md
//! ```
//!
//! ## Checked-out branch: work tree and index follow the commit
//!
//! When the target is the checked-out branch ([`Target::Head`], or [`Target::Branch`] naming the
//! checked-out branch) the store keeps the work tree and the index consistent, so
//! `git status --porcelain` stays clean for the paths it wrote. The steps, in crash-safe order:
//!
//! 1. take the vault lock (see below);
//! 2. **human edits are committed first as their own commit**: for every path in the change set,
//!    if the work-tree file differs from the tip's blob (edited by hand, created by hand as an
//!    untracked file, or deleted by hand), a separate commit records exactly those paths' current
//!    work-tree contents (a hand deletion is recorded as a deletion), with subject
//!    `Record human edits before <first Wiki-Op trailer value, or "wiki write">` and one
//!    `Wiki-Human-Edit: <path>` trailer per path. Human edits are therefore never lost and never
//!    folded into a tool commit; the tool commit follows on top of it. Hand edits to paths that are
//!    *not* in the change set are left alone (modified and uncommitted), and so is everything the
//!    user staged for other paths. A file is not read back when the index vouches for it as
//!    `git status` would: its entry has the tip's blob, the file's exact stat data (times to the
//!    nanosecond, change time included, size, inode, owner), and the index file is younger than
//!    the file (not "racily clean"); the index read here serves step 6 of the same commit while
//!    its file is unchanged;
//! 3. write a small journal `.openclaw-wiki/locks/pending.json` (new commit id, parent, paths);
//! 4. write the objects and compare-and-swap the ref;
//! 5. write each changed file atomically (temporary file `.wiki-store-<pid>-<n>.tmp` in the same
//!    directory, then rename), so no reader and no crash ever sees a partially written page;
//!    deletions remove the file (and parent directories left empty) first. Missing directories
//!    are created and every distinct directory is checked once (no symbolic links, no
//!    non-directories); all temporary files are created first, then all are renamed (each
//!    phase spread over threads for large change sets);
//! 6. update the index entries of exactly those paths (blob id, mode, stat data of the fresh file)
//!    and write the index atomically; all other index entries are preserved untouched, and so
//!    are the cache-tree nodes (`TREE` extension) of directories the commit did not touch (those
//!    on the way to a changed path are marked invalid, as git does);
//! 7. delete the journal.
//!
//! If a process dies between 4 and 7, the next [`Store::open`] (when the lock is free) or the next
//! commit **rolls forward**. It first removes git's `index.lock` and `<ref>.lock` when they are
//! not older than the journal (a writer killed during its ref update or index write leaves them,
//! and git refuses every later update while they exist). Then, for each journaled path, by what
//! the disk holds:
//!
//! - the parent's version (or nothing, where the parent had none), or a strict prefix of the
//!   committed version (including an empty file; defensive — writes are atomic renames, so this
//!   only arises from outside interference), the committed version is written;
//! - exactly the committed version: only the index entry (and the executable bit) is fixed;
//! - anything else is a human edit made after the crash and is left alone (its index entry
//!   follows the commit if nobody staged anything, so `git status` shows the edit).
//!
//! The journal is then deleted. If the ref never moved (death between 3 and 4) the journal is
//! simply discarded. Consequence of the prefix rule: a human who, after a crash and before the
//! next open or commit, truncates a journaled file to a prefix of the version the tool was
//! writing gets it completed to that version (the parent's content is still in history).
//!
//! Paths are refused (error naming the path) when absolute, containing `..`/`.`/empty components,
//! a `.git` component, a backslash, or when writing would go through a symbolic link or replace a
//! directory or special file. Paths not in the change set are never touched.
//!
//! ## Other branches
//!
//! Commits to a branch that is not checked out ([`Target::Branch`]) only write objects and move
//! the ref (compare-and-swap); the work tree and index are not involved and there is no human-edit
//! check. A missing branch is first created at [`CommitRequest::create_from`] (default: the
//! current `HEAD` commit; a root commit when `HEAD` is unborn).
//!
//! # Locking
//!
//! [`Store::lock`] takes an exclusive `flock` on `<vault>/.openclaw-wiki/locks/write.lock`,
//! waiting up to 30 s ([`Store::set_lock_timeout`]) and then failing with
//! [`Error::LockTimeout`]. The lock is released on drop and by the OS if the process dies.
//! [`Store::commit`] takes the lock itself; callers that need a longer read-modify-write span take
//! it with [`Store::lock`] and call [`Store::commit_locked`] instead (calling `commit` while holding
//! the lock would wait for yourself). The locks directory contains a `.gitignore` ignoring
//! everything in it, so neither lock nor journal ever shows up in `git status`.
//!
//! # Packing loose objects
//!
//! Packing is git's job (see `maintain`): after a commit, when git's own `gc --auto` rule asks
//! for it and `git` is on `PATH`, the store runs `git gc --auto` holding the vault lock, in a
//! detached process when the binary allows it ([`background`]; [`CommitOutcome::pack_detached`])
//! and `gc.autoDetach` is not false, else before returning ([`CommitOutcome::packed`]). A failure
//! is reported in [`CommitOutcome::pack_error`] and loses nothing. `gc.auto = 0` or
//! `WIKI_AUTO_PACK=never` turns that off, `WIKI_AUTO_PACK=always` runs `git repack -d` after
//! every commit. [`Store::gc`] runs `git gc` now.
//!
//! # Identity and time
//!
//! Author and committer come from (first hit wins, name and email independently):
//! `GIT_COMMITTER_NAME`/`_EMAIL` (committer only) → `GIT_AUTHOR_NAME`/`_EMAIL` → git config
//! `user.name`/`user.email` (repository, global, system — as gix reads them) →
//! `WIKI_AUTHOR_NAME`/`WIKI_AUTHOR_EMAIL` → `wiki <wiki@localhost>`.
//! Times come from `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` (the role's own first, then the
//! other; `@<unix> +0000`, `<unix> +0000`, RFC 3339, ISO 8601, RFC 2822 are accepted), else
//! `WIKI_NOW` (RFC 3339, e.g. `2026-04-05T12:00:00Z`), else the current time in UTC.
//! Environment lookups go through an [`EnvSource`] (the process environment by default).
//!
//! # Reading
//!
//! [`Store::read_file`], [`Store::list_files`], [`Store::history`], [`Store::commit_info`] and
//! [`Store::revert_changes`] read any commit or branch without touching the work tree. Only
//! regular blobs (modes 100644/100755) are vault files; symbolic links and submodules stored in
//! trees are ignored by these functions.
//!
//! # Limits
//!
//! - SHA-1 repositories only.
//! - No clean/smudge filters or `core.autocrlf` conversions are applied: bytes are stored and
//!   written verbatim.
//! - Linked work trees that have the target branch checked out are not detected (only this
//!   repository's `HEAD` is).
//! - The branch's reflog gets an entry per commit (`commit: <subject>`); `HEAD`'s own reflog is
//!   not appended (the branch ref is updated directly, which is what makes the compare-and-swap
//!   immune to a concurrent branch switch).
//! - Work-tree files are not fsynced (git does not either by default); a process crash is
//!   covered by the journal (roll-forward also removes the `.wiki-store-*.tmp` files a killed
//!   writer left in the directories it was writing); a power loss may leave a stray
//!   `.wiki-store-*.tmp` file.
//! - [`Store::dirty_paths`] does not consult `.gitignore`: an ignored file that exists on disk
//!   but is not tracked counts as untracked.
//! - A `Store` is not `Send`/`Sync` (see [`Store`]); open one per thread.

#![deny(missing_docs)]

pub mod background;
mod branches;
mod commit;
mod env;
mod error;
mod health;
mod journal;
mod lock;
mod maintain;
mod message;
mod paths;
mod read;
pub mod staged;
mod worktree;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use branches::{AgentBranch, AgentState};
pub use env::{DEFAULT_EMAIL, DEFAULT_NAME, EnvSource};
pub use error::{Error, Result};
pub use gix::ObjectId;
pub use health::ObjectStats;
pub use lock::{DEFAULT_LOCK_TIMEOUT, VaultLock};
pub use maintain::{GcOutcome, ObjectCounts, human_size};
pub use message::parse_trailers;
pub use read::{BlobSource, Listing};
pub use worktree::WORKTREE_LIMIT;

use error::GitResultExt;

/// A person (author or committer).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    /// Display name.
    pub name: String,
    /// Email address (without angle brackets).
    pub email: String,
}

/// Which branch a commit goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The checked-out branch (or the detached `HEAD` itself); work tree and index follow.
    Head,
    /// Any local branch by short name (`agents/x`) or full name (`refs/heads/agents/x`),
    /// checked out or not. If it is the checked-out branch this behaves like [`Target::Head`].
    Branch(String),
}

/// One file to write or delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Vault-relative path with `/` separators.
    pub path: String,
    /// New content; `None` deletes the file.
    pub content: Option<Vec<u8>>,
    /// The git blob id of `content`, when the caller already computed it (a compile hashes the
    /// pages and dashboards it writes for its parse cache): the commit then does not hash those
    /// bytes again. It must be exactly the id of `content` (debug builds check it); `None`: the
    /// store computes it.
    pub blob: Option<ObjectId>,
}

impl Change {
    /// Write `content` to `path`.
    pub fn write(path: impl Into<String>, content: impl Into<Vec<u8>>) -> Self {
        Change {
            path: path.into(),
            content: Some(content.into()),
            blob: None,
        }
    }

    /// Delete `path`.
    pub fn delete(path: impl Into<String>) -> Self {
        Change {
            path: path.into(),
            content: None,
            blob: None,
        }
    }

    /// This change with the blob id of its content (see [`Change::blob`]; `id` is ignored when
    /// it is not a valid hexadecimal object id).
    pub fn with_blob_hex(mut self, id: &str) -> Self {
        self.blob = ObjectId::from_hex(id.as_bytes()).ok();
        self
    }
}

/// Everything [`Store::commit`] needs.
#[derive(Debug, Clone)]
pub struct CommitRequest<'a> {
    /// Branch to commit to.
    pub target: Target,
    /// The files to write or delete (each path at most once).
    pub changes: &'a [Change],
    /// First line of the message (folded onto one line; empty becomes `"wiki write"`).
    pub subject: String,
    /// Optional paragraph after the subject.
    pub body: Option<String>,
    /// Trailers, e.g. `("Wiki-Op", "compile")`, `("Wiki-Page", "entities/a.md")`.
    pub trailers: Vec<(String, String)>,
    /// `Some(id)`: fail with [`Error::Conflict`] unless the branch tip is `id` (compare-and-swap
    /// against what the caller read earlier). `None`: compare-and-swap against the tip read at
    /// the start of this call. For a branch that does not exist yet, the tip is its start point.
    /// The check happens before a human-edit commit is made, so with human edits the tool
    /// commit's parent is that human commit, not `id`.
    pub expected_parent: Option<ObjectId>,
    /// For a [`Target::Branch`] that does not exist yet: the revision to start it from
    /// (`None` = the current `HEAD` commit).
    pub create_from: Option<String>,
    /// What the caller read of the checked-out work tree to compute `changes`: the blob id of
    /// the bytes it read per path (`None`: no file). A path of `changes` whose file no longer
    /// holds them (edited by hand meanwhile) fails the commit with
    /// [`Error::ChangedOnDisk`] before the tool commit is made, so that the caller computes
    /// the change again from the new bytes. Paths it does not list are not checked this way.
    pub read: Option<&'a ReadState>,
}

/// The blob id of each work-tree file a command read (`None`: the file did not exist); see
/// [`CommitRequest::read`].
pub type ReadState = std::collections::HashMap<String, Option<ObjectId>>;

impl<'a> CommitRequest<'a> {
    /// A request for `changes` on `target` with `subject`, no body, no trailers, no expectations.
    pub fn new(target: Target, changes: &'a [Change], subject: impl Into<String>) -> Self {
        CommitRequest {
            target,
            changes,
            subject: subject.into(),
            body: None,
            trailers: Vec::new(),
            expected_parent: None,
            create_from: None,
            read: None,
        }
    }

    /// Add a trailer.
    pub fn trailer(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.trailers.push((key.into(), value.into()));
        self
    }
}

/// What [`Store::commit`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitOutcome {
    /// The tool commit, `None` when the change set changed nothing.
    pub commit: Option<ObjectId>,
    /// The commit recording human edits made first (checked-out branch only), if any.
    pub human_commit: Option<ObjectId>,
    /// The vault paths that commit recorded (sorted; empty without one).
    pub human_paths: Vec<String>,
    /// Vault paths the tool commit changed (sorted).
    pub written: Vec<String>,
    /// Whether git packed loose objects after the commit, in this process (see `maintain`).
    pub packed: bool,
    /// Why packing loose objects after the commit failed (the commit itself succeeded and
    /// nothing was removed), or why an earlier detached packer failed; callers report it as a
    /// warning.
    pub pack_error: Option<String>,
    /// The process id of the detached packer the commit started (see [`background`]).
    pub pack_detached: Option<u32>,
    /// Paths of the tool commit whose file changed on disk between the last check and its
    /// replacement (a hand edit made while the commit was being written): the file was left
    /// as the person left it, so the edit is not lost; the commit holds the tool's version and
    /// the index entry makes git see the file as modified. The caller should run its change
    /// again (its next commit records the hand edit first).
    pub kept: Vec<String>,
}

/// Metadata of one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    /// The commit id.
    pub id: ObjectId,
    /// Parent ids, first parent first.
    pub parents: Vec<ObjectId>,
    /// The author.
    pub author: Identity,
    /// Author time, seconds since the Unix epoch.
    pub author_time: i64,
    /// The committer.
    pub committer: Identity,
    /// Committer time, seconds since the Unix epoch.
    pub commit_time: i64,
    /// Author time as ISO 8601 with the recorded offset (`2026-04-05T12:00:00+00:00`).
    pub time_iso: String,
    /// First line of the message.
    pub subject: String,
    /// The whole message.
    pub message: String,
    /// Trailers of the message, in order (see [`parse_trailers`]).
    pub trailers: Vec<(String, String)>,
    /// Vault paths whose blob differs from the first parent (all files of the vault for a root
    /// commit), sorted. Paths outside the vault are not listed.
    pub changed_paths: Vec<String>,
}

/// A vault inside a git repository.
///
/// Each call works on a fresh view of the repository, so references, index and objects are
/// always read from disk as they are now.
///
/// With the gix feature set of this workspace (no `parallel`), gix uses `Rc` internally, so a
/// `Store` is neither `Send` nor `Sync`: open one store per thread (opening is cheap). Writers in
/// different threads or processes are serialized by the vault lock.
pub struct Store {
    repo: gix::ThreadSafeRepository,
    vault_dir: PathBuf,
    work_dir: PathBuf,
    prefix: String,
    env: EnvSource,
    lock_timeout: Duration,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("vault_dir", &self.vault_dir)
            .field("work_dir", &self.work_dir)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Index slots of a repository handle: gix fixes their number when a repository is opened,
/// and a handle whose slots are all taken fails every lookup that needs a pack made since
/// ("too few index slots"). Packs appear while a process runs (other writers pack loose objects
/// after their commits: see [`Store::gc`]), so keep plenty spare.
const INDEX_SLOTS: gix::odb::store::init::Slots =
    gix::odb::store::init::Slots::AsNeededByDiskState {
        multiplier: 2.0,
        minimum: 256,
    };

/// [`gix::ThreadSafeRepository::discover`] with [`INDEX_SLOTS`].
fn discover(dir: &Path) -> std::result::Result<gix::ThreadSafeRepository, gix::Error> {
    let mut options = gix::sec::trust::Mapping::<gix::open::Options>::default();
    options.full = options.full.object_store_slots(INDEX_SLOTS);
    options.reduced = options.reduced.object_store_slots(INDEX_SLOTS);
    gix::ThreadSafeRepository::discover_opts(dir, Default::default(), options)
}

fn is_not_found(err: &gix::Error) -> bool {
    use gix::discover::upwards::Error as E;
    matches!(
        err.downcast_any_ref::<E>(),
        Some(
            E::NoGitRepository { .. }
                | E::NoGitRepositoryWithinCeiling { .. }
                | E::NoGitRepositoryWithinFs { .. }
        )
    )
}

impl Store {
    /// Open the vault at `vault_dir`, discovering the enclosing repository (the vault may be a
    /// sub-folder of it). Fails with [`Error::NotARepository`] when there is none.
    ///
    /// If a crash journal is present and the vault lock is free, the interrupted commit is rolled
    /// forward first (see the crate documentation); a failure to do so does not fail `open` (the
    /// next commit retries and reports it).
    pub fn open(vault_dir: &Path) -> Result<Store> {
        Self::open_with(vault_dir, EnvSource::Process)
    }

    /// Like [`Store::open`], reading identity/time variables from `env`.
    pub fn open_with(vault_dir: &Path, env: EnvSource) -> Result<Store> {
        let vault = std::fs::canonicalize(vault_dir).map_err(|e| Error::io(vault_dir, e))?;
        let repo = match discover(&vault) {
            Ok(repo) => repo,
            Err(e) if is_not_found(&e) => {
                return Err(Error::NotARepository { path: vault });
            }
            Err(source) => {
                return Err(Error::Open {
                    path: vault,
                    source,
                });
            }
        };
        Self::from_repo(repo, vault, env)
    }

    /// Open the vault, or `git init` one at `vault_dir` when it is not inside a repository
    /// (the initial branch is `init.defaultBranch` from git config, else `main`).
    /// Returns the store and whether a repository was initialized.
    pub fn open_or_init(vault_dir: &Path) -> Result<(Store, bool)> {
        Self::open_or_init_with(vault_dir, EnvSource::Process)
    }

    /// Like [`Store::open_or_init`], reading identity/time variables from `env`.
    pub fn open_or_init_with(vault_dir: &Path, env: EnvSource) -> Result<(Store, bool)> {
        std::fs::create_dir_all(vault_dir).map_err(|e| Error::io(vault_dir, e))?;
        match Self::open_with(vault_dir, env.clone()) {
            Ok(store) => Ok((store, false)),
            Err(Error::NotARepository { path }) => {
                let repo = gix::ThreadSafeRepository::init(
                    &path,
                    gix::create::Kind::WithWorktree,
                    gix::create::Options::default(),
                )
                .map_err(|source| Error::Init {
                    path: path.clone(),
                    source,
                })?;
                Ok((Self::from_repo(repo, path, env)?, true))
            }
            Err(e) => Err(e),
        }
    }

    fn from_repo(repo: gix::ThreadSafeRepository, vault: PathBuf, env: EnvSource) -> Result<Store> {
        let work_dir = match repo.work_dir() {
            Some(w) => w.to_path_buf(),
            None => {
                return Err(Error::BareRepository {
                    path: repo.git_dir().to_path_buf(),
                });
            }
        };
        let work_dir = std::fs::canonicalize(&work_dir).map_err(|e| Error::io(&work_dir, e))?;
        let rel = vault
            .strip_prefix(&work_dir)
            .map_err(|_| Error::VaultOutsideWorkTree {
                vault: vault.clone(),
                work_dir: work_dir.clone(),
            })?;
        let mut prefix = String::new();
        for component in rel.components() {
            let s = component
                .as_os_str()
                .to_str()
                .ok_or_else(|| Error::InvalidPath {
                    path: rel.to_string_lossy().into_owned(),
                    reason: "vault prefix is not valid UTF-8",
                })?;
            if s.eq_ignore_ascii_case(".git") {
                return Err(Error::InvalidPath {
                    path: rel.to_string_lossy().into_owned(),
                    reason: "a vault cannot live inside a .git directory",
                });
            }
            prefix.push_str(s);
            prefix.push('/');
        }
        let store = Store {
            repo,
            vault_dir: vault,
            work_dir,
            prefix,
            env,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
        };
        // Best effort: a failure here (e.g. a malformed journal) must not prevent reading; the
        // next commit runs the same roll-forward and reports the error.
        let _ = store.recover_on_open();
        Ok(store)
    }

    /// Replace the source of environment variables (identity and time).
    pub fn with_env(mut self, env: EnvSource) -> Self {
        self.env = env;
        self
    }

    /// How long [`Store::lock`] and [`Store::commit`] wait for another writer (default 30 s).
    pub fn set_lock_timeout(&mut self, timeout: Duration) {
        self.lock_timeout = timeout;
    }

    /// The vault directory (canonical).
    pub fn vault_dir(&self) -> &Path {
        &self.vault_dir
    }

    /// The repository's work tree (canonical).
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// The vault's path inside the repository with a trailing `/` (e.g. `notes/wiki/`), or `""`
    /// when the vault is the repository root.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The author identity commits would use now (see the crate documentation for precedence).
    pub fn identity(&self) -> Identity {
        self.identity_for(&self.repo(), env::Role::Author)
    }

    /// Take the vault-wide write lock, waiting up to the lock timeout.
    pub fn lock(&self) -> Result<VaultLock> {
        lock::acquire(&self.lock_path(), self.lock_timeout)
    }

    /// The git blob id of `bytes` (what `git hash-object` prints), without writing anything.
    pub fn blob_id_for(bytes: &[u8]) -> ObjectId {
        worktree::blob_id(bytes)
    }

    /// The checked-out branch's short name; `None` when `HEAD` is detached. An unborn branch
    /// (fresh repository) still has its name.
    pub fn current_branch(&self) -> Result<Option<String>> {
        let repo = self.repo();
        let name = repo.head_name().git_ctx(|| "read HEAD".to_string())?;
        Ok(name.map(|n| {
            let full = n.as_bstr().to_string();
            full.strip_prefix("refs/heads/")
                .map(str::to_string)
                .unwrap_or(full)
        }))
    }

    /// The tip of local branch `branch` (short or `refs/heads/...` name), `None` if it does not
    /// exist.
    pub fn branch_tip(&self, branch: &str) -> Result<Option<ObjectId>> {
        let repo = self.repo();
        let full = branch_ref_name(branch)?;
        read::ref_tip(&repo, &full)
    }

    fn repo(&self) -> gix::Repository {
        let mut repo = self.repo.to_thread_local();
        repo.object_cache_size_if_unset(4 * 1024 * 1024);
        repo
    }

    fn lock_path(&self) -> PathBuf {
        self.vault_dir.join(paths::LOCKS_DIR).join("write.lock")
    }

    /// The blob ids the index vouches for (see [`IndexBlobs`]); `None` when the repository has
    /// no index or it cannot be read (callers then hash what they read).
    pub fn index_blobs(&self) -> Option<IndexBlobs> {
        let vouch = worktree::IndexVouch::load(&self.repo()).ok()??;
        Some(IndexBlobs {
            vouch,
            prefix: self.prefix.clone(),
        })
    }

    fn repo_path(&self, vault_path: &str) -> String {
        format!("{}{}", self.prefix, vault_path)
    }

    fn identity_for(&self, repo: &gix::Repository, role: env::Role) -> Identity {
        let config = repo.config_snapshot();
        let name = config.string("user.name").map(|s| s.to_string());
        let email = config.string("user.email").map(|s| s.to_string());
        env::resolve_identity(&self.env, name, email, role)
    }
}

/// The index of a vault's repository, read once, as a source of blob ids: a work-tree file the
/// index vouches for, as `git status` decides it without reading the file (its entry has the
/// file's exact stat data, change time included, and is not "racily clean"), holds the entry's
/// blob. Readers of large files (the dashboards an operation rewrote) take the id from here
/// instead of hashing megabytes.
pub struct IndexBlobs {
    vouch: worktree::IndexVouch,
    prefix: String,
}

impl IndexBlobs {
    /// The blob id of the vault file `vault_path`, open as `file` (its stat data is taken from
    /// the open file: take it after reading the bytes the id is for, so that a write during
    /// the read shows), when the index vouches for it.
    pub fn blob_id(&self, vault_path: &str, file: &std::fs::File) -> Option<ObjectId> {
        let meta = gix::index::fs::Metadata::from_file(file).ok()?;
        self.vouch
            .vouched_id(&format!("{}{vault_path}", self.prefix), &meta)
    }
}

/// Run git in `dir` for a unit test (no user or system configuration, no inherited repository
/// variables) and return its standard output; a failure fails the test.
#[cfg(test)]
pub(crate) fn test_git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .args(args)
        .output()
        .expect("spawn git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    out.stdout
}

/// `refs/heads/<branch>` for a short or full branch name, validated.
fn branch_ref_name(branch: &str) -> Result<String> {
    let full = if branch.starts_with("refs/heads/") {
        branch.to_string()
    } else {
        format!("refs/heads/{branch}")
    };
    use gix::bstr::ByteSlice;
    gix::validate::reference::branch_name(full.as_bytes().as_bstr()).map_err(|_| {
        Error::InvalidBranch {
            name: branch.to_string(),
        }
    })?;
    Ok(full)
}
