//! [`VaultContext`]: the porcelain plumbing shared by `wiki compile`, lint and apply.
//!
//! ```text
//! let mut ctx = VaultContext::open(global)?;   // vault, store, agent target (exit 2 if no vault)
//! ctx.lock()?;                                 // vault write lock (skip for read-only runs)
//! let snap = ctx.snapshot()?;                  // work tree, or the agent branch's tree
//! let result = compile(&snap, &CompileOptions::new(ctx.now()?));
//! let outcome = ctx.commit(&result.changes, &CommitSpec::new("compile", "Compile wiki vault"))?;
//! ctx.append_log("compile", details)?;         // .openclaw-wiki/log.jsonl (git-ignored)
//! ```
//!
//! # Vault and target
//!
//! The vault directory comes from [`GlobalArgs::vault_dir`] (`--vault`, `$WIKI_VAULT`, the
//! enclosing vault, the OpenClaw default). It must contain `.openclaw-wiki/` and be inside a git
//! repository; otherwise [`VaultContext::open`] fails with a runtime error (exit 2) suggesting
//! `wiki init`.
//!
//! * Without an agent: the checked-out branch. The snapshot is the **work tree** (uncommitted
//!   edits included); commits go to [`Target::Head`], and `wiki-store` keeps the work tree and
//!   index in step (hand edits to written paths are first committed as their own commit).
//! * With `--agent ID` (or `$WIKI_AGENT`): the branch `agents/<ID>`, read from its tree without
//!   checkout. If the branch does not exist yet, the snapshot is the current `HEAD` commit and
//!   the first commit creates the branch from it. If `agents/<ID>` is the checked-out branch, it
//!   behaves like the no-agent case.
//!
//! Every commit is compare-and-swap against the tip the snapshot was read from, so a concurrent
//! writer makes the commit fail (`Error::Conflict`) instead of being overwritten.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wiki_cli::{CliError, GlobalArgs};
use wiki_parse::layout;
use wiki_store::{Change, CommitOutcome, CommitRequest, ObjectId, Store, Target, VaultLock};

use wiki_vault::snapshot::{Snapshot, error_chain};

/// At most this many `Wiki-Page:` trailers per commit; the rest is counted in
/// `Wiki-Pages-More: N`.
pub const MAX_PAGE_TRAILERS: usize = 50;

/// `wiki compile`'s commit subject for `n` committed files.
pub fn compile_subject(n: usize) -> String {
    format!(
        "Compile wiki vault: {n} file{} updated",
        if n == 1 { "" } else { "s" }
    )
}

/// `Wiki-Page: <path>` per path (sorted, each once; at most [`MAX_PAGE_TRAILERS`], then
/// `Wiki-Pages-More: N`).
pub fn page_trailers<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<(String, String)> {
    let mut paths: Vec<&str> = paths.into_iter().collect();
    paths.sort_unstable();
    paths.dedup();
    let mut out: Vec<(String, String)> = paths
        .iter()
        .take(MAX_PAGE_TRAILERS)
        .map(|p| ("Wiki-Page".to_string(), (*p).to_string()))
        .collect();
    if paths.len() > MAX_PAGE_TRAILERS {
        out.push((
            "Wiki-Pages-More".to_string(),
            (paths.len() - MAX_PAGE_TRAILERS).to_string(),
        ));
    }
    out
}

/// What to tell people when a commit recorded their hand edits first (the files, the commit):
/// `Recorded hand edits to entities/a.md, notes.md as commit 1a2b3c4.`
pub fn human_edits_notice(outcome: &CommitOutcome) -> Option<String> {
    let commit = outcome.human_commit?;
    let id = commit.to_string();
    Some(format!(
        "Recorded hand edits to {} as commit {}.",
        wiki_cli::output::summarize(&outcome.human_paths, wiki_cli::output::SUMMARY_PATHS),
        &id[..id.len().min(7)]
    ))
}

/// Where the snapshot is read from and where commits go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The checked-out branch (`branch` is `None` when `HEAD` is detached): read the work tree.
    Worktree {
        /// The checked-out branch.
        branch: Option<String>,
    },
    /// An agent branch that is not checked out: read its tree.
    Agent {
        /// The agent id.
        id: String,
        /// `agents/<id>`.
        branch: String,
        /// Whether the branch exists (else it is created from `HEAD` by the first commit).
        exists: bool,
    },
}

/// What to write in a commit besides the changes.
#[derive(Debug, Clone)]
pub struct CommitSpec {
    /// `Wiki-Op:` value (`compile`, `apply`, `lint` …).
    pub op: String,
    /// Subject line.
    pub subject: String,
    /// Optional body paragraph.
    pub body: Option<String>,
    /// Extra trailers, written after `Wiki-Op` and before the `Wiki-Page` list.
    pub trailers: Vec<(String, String)>,
}

impl CommitSpec {
    /// A commit for operation `op` with `subject`.
    pub fn new(op: impl Into<String>, subject: impl Into<String>) -> CommitSpec {
        CommitSpec {
            op: op.into(),
            subject: subject.into(),
            body: None,
            trailers: Vec::new(),
        }
    }
}

/// An opened vault with its store, target branch and (optionally) the write lock.
pub struct VaultContext {
    root: PathBuf,
    store: Store,
    mode: Mode,
    lock: Option<VaultLock>,
    /// The commit the last snapshot was read from (compare-and-swap base).
    base: Option<ObjectId>,
    /// The last snapshot of the work tree: a commit checks that the files it replaces still
    /// hold what was read (hand edits made meanwhile are not overwritten).
    read: Option<Snapshot>,
    now: Option<jiff::Timestamp>,
}

impl std::fmt::Debug for VaultContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VaultContext")
            .field("root", &self.root)
            .field("mode", &self.mode)
            .field("locked", &self.lock.is_some())
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

fn store_error(e: wiki_store::Error) -> CliError {
    CliError::Runtime(error_chain(&e))
}

/// Check that `dir` is a vault (holds `.openclaw-wiki/`).
pub fn require_vault(dir: &Path) -> Result<(), CliError> {
    if dir.join(wiki_cli::VAULT_MARKER_DIR).is_dir() {
        return Ok(());
    }
    if !dir.exists() {
        return Err(CliError::Runtime(format!(
            "{}: no such directory; create a vault with `wiki init {}`",
            dir.display(),
            dir.display()
        )));
    }
    Err(CliError::Runtime(format!(
        "{}: not a wiki vault (no {}/ directory); run `wiki init` there first",
        dir.display(),
        wiki_cli::VAULT_MARKER_DIR
    )))
}

impl VaultContext {
    /// Resolve the vault and the target from the global flags and open the store.
    pub fn open(global: &GlobalArgs) -> Result<VaultContext, CliError> {
        let dir = global.vault_dir()?;
        let mut ctx = VaultContext::open_dir(&dir, global.agent_id()?.as_deref())?;
        ctx.now = Some(global.now()?);
        Ok(ctx)
    }

    /// Open the vault at `dir`, acting as `agent` (if any).
    pub fn open_dir(dir: &Path, agent: Option<&str>) -> Result<VaultContext, CliError> {
        require_vault(dir)?;
        let store = match Store::open(dir) {
            Ok(s) => s,
            Err(wiki_store::Error::NotARepository { path }) => {
                return Err(CliError::Runtime(format!(
                    "{}: the vault is not inside a git repository; run `wiki init` to create one",
                    path.display()
                )));
            }
            Err(e) => return Err(store_error(e)),
        };
        let mode = match agent {
            None => Mode::Worktree {
                branch: store.current_branch().map_err(store_error)?,
            },
            Some(id) => {
                let agent = store.agent_branch(id).map_err(|e| match e {
                    e @ wiki_store::Error::InvalidAgent { .. } => CliError::Usage(e.to_string()),
                    e => store_error(e),
                })?;
                match agent.state {
                    wiki_store::AgentState::CheckedOut => Mode::Worktree {
                        branch: Some(agent.branch),
                    },
                    state => Mode::Agent {
                        id: id.to_string(),
                        branch: agent.branch,
                        exists: matches!(state, wiki_store::AgentState::Tip(_)),
                    },
                }
            }
        };
        Ok(VaultContext {
            root: store.vault_dir().to_path_buf(),
            store,
            mode,
            lock: None,
            base: None,
            read: None,
            now: None,
        })
    }

    /// The vault directory (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Read and commit mode.
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// The clock from the global flags (`--now`, `$WIKI_NOW`, else the system clock).
    pub fn now(&self) -> Result<jiff::Timestamp, CliError> {
        match self.now {
            Some(n) => Ok(n),
            None => Ok(jiff::Timestamp::now()),
        }
    }

    /// The agent id, when acting as an agent.
    pub fn agent(&self) -> Option<&str> {
        match &self.mode {
            Mode::Agent { id, .. } => Some(id),
            Mode::Worktree { branch } => branch.as_deref().and_then(|b| b.strip_prefix("agents/")),
        }
    }

    /// The branch commits go to (`None`: detached `HEAD`).
    pub fn branch(&self) -> Option<&str> {
        match &self.mode {
            Mode::Agent { branch, .. } => Some(branch),
            Mode::Worktree { branch } => branch.as_deref(),
        }
    }

    /// `Wiki-Agent:` value: the agent id, else the branch name, else `HEAD`.
    pub fn agent_label(&self) -> String {
        self.agent().or(self.branch()).unwrap_or("HEAD").to_string()
    }

    /// The commit target.
    pub fn target(&self) -> Target {
        match &self.mode {
            Mode::Worktree { .. } => Target::Head,
            Mode::Agent { branch, .. } => Target::Branch(branch.clone()),
        }
    }

    /// Take the vault write lock (waits up to 30 s). Take it before [`VaultContext::snapshot`]
    /// for a read-modify-write; it is released when the context is dropped.
    pub fn lock(&mut self) -> Result<(), CliError> {
        if self.lock.is_none() {
            self.lock = Some(self.store.lock().map_err(store_error)?);
        }
        Ok(())
    }

    /// Load the snapshot for this target and remember its commit as the compare-and-swap base.
    /// Work-tree pages whose stat data the parse cache recorded are not read
    /// ([`Snapshot::from_worktree_cached`]).
    pub fn snapshot(&mut self) -> Result<Snapshot, CliError> {
        self.snapshot_with(true)
    }

    /// [`VaultContext::snapshot`]; `trust_cache: false` reads every page (`--force`).
    pub fn snapshot_with(&mut self, trust_cache: bool) -> Result<Snapshot, CliError> {
        let to_cli = |e: wiki_vault::snapshot::SnapshotError| CliError::Runtime(e.to_string());
        match &self.mode {
            Mode::Worktree { branch } => {
                self.base = match branch {
                    Some(b) => self.store.branch_tip(b).map_err(store_error)?,
                    None => self.store.resolve("HEAD").ok(),
                };
                let snap = if trust_cache {
                    Snapshot::from_worktree_cached_with(&self.root, Some(&self.store))
                        .map_err(to_cli)?
                } else {
                    Snapshot::from_worktree(&self.root).map_err(to_cli)?
                };
                self.read = Some(snap.clone());
                Ok(snap)
            }
            Mode::Agent { branch, exists, .. } => {
                let rev = if *exists {
                    self.store.branch_tip(branch).map_err(store_error)?
                } else {
                    self.store.resolve("HEAD").ok()
                };
                self.base = rev;
                let agent = self.agent().map(str::to_string);
                match rev {
                    Some(id) => {
                        let mut snap =
                            Snapshot::from_rev(&self.store, &id.to_string()).map_err(to_cli)?;
                        if let Some(agent) = &agent {
                            snap.use_agent_parse_cache(&self.root, agent, trust_cache);
                        }
                        // The branch's derived caches live beside the work tree (see `derived`).
                        crate::derived::overlay_agent_files(
                            &mut snap,
                            &self.root,
                            agent.as_deref(),
                        );
                        Ok(snap)
                    }
                    None => Err(CliError::Runtime(format!(
                        "cannot start branch {branch}: the repository has no commits yet"
                    ))),
                }
            }
        }
    }

    /// Commit `changes` as one commit with trailers `Wiki-Op: <op>`, the spec's extra trailers,
    /// `Wiki-Page: <path>` per changed file (at most [`MAX_PAGE_TRAILERS`], then
    /// `Wiki-Pages-More: N`) and `Wiki-Agent: <agent or branch>`. Compare-and-swap against the
    /// commit of the last snapshot. No changes → no commit.
    ///
    /// Derived cache files among `changes` (see [`crate::derived`]) are not committed: they are
    /// written while the commit runs and renamed into place after it, to the work tree (or, for
    /// an agent branch that is not checked out, under `.openclaw-wiki/cache/agents/<ID>/`).
    pub fn commit(&self, changes: &[Change], spec: &CommitSpec) -> Result<CommitOutcome, CliError> {
        if changes.is_empty() {
            return Ok(CommitOutcome::default());
        }
        let checked_out = matches!(self.mode, Mode::Worktree { .. });
        let prepared =
            crate::derived::Prepared::for_commit(&self.store, self.base, checked_out, changes)
                .map_err(store_error)?;
        let agent = if checked_out { None } else { self.agent() };
        // Written while the commit runs, renamed into place once it is made.
        let (outcome, written) =
            crate::derived::commit_with_files(&prepared, &self.root, agent, || {
                self.commit_tracked(&prepared.commit, spec)
            })?;
        written
            .map_err(|e| CliError::Runtime(crate::derived::write_failure(outcome.commit, &e)))?;
        Ok(outcome)
    }

    fn commit_tracked(
        &self,
        changes: &[Change],
        spec: &CommitSpec,
    ) -> Result<CommitOutcome, CliError> {
        if changes.is_empty() {
            return Ok(CommitOutcome::default());
        }
        let mut req = CommitRequest::new(self.target(), changes, spec.subject.clone());
        req.body = spec.body.clone();
        req.trailers.push(("Wiki-Op".into(), spec.op.clone()));
        req.trailers.extend(spec.trailers.iter().cloned());
        req.trailers
            .extend(page_trailers(changes.iter().map(|c| c.path.as_str())));
        req.trailers.push(("Wiki-Agent".into(), self.agent_label()));
        req.expected_parent = self.base;
        let read = self
            .read
            .as_ref()
            .map(|snap| snap.read_state(changes.iter().map(|c| c.path.as_str())));
        req.read = read.as_ref();
        if let Mode::Agent { exists: false, .. } = &self.mode {
            req.create_from = self.base.map(|b| b.to_string());
        }
        let outcome = match &self.lock {
            Some(lock) => self.store.commit_locked(lock, &req),
            None => self.store.commit(&req),
        };
        if let Ok(done) = &outcome {
            wiki_cli::notice(human_edits_notice(done));
            wiki_cli::notice(done.packing_message());
            if !done.kept.is_empty() {
                wiki_cli::warn(
                    &format!("wiki {}", spec.op),
                    &format!(
                        "{} changed on disk while this command wrote it (edited by hand?): the edit was left as it is and will be recorded by the next write; run the command again",
                        done.kept.join(", ")
                    ),
                );
            }
        }
        outcome.map_err(|e| match e {
            e @ wiki_store::Error::Conflict { .. } => CliError::Runtime(format!(
                "{}; another writer changed the branch since it was read, run the command again",
                error_chain(&e)
            )),
            e => store_error(e),
        })
    }

    /// Append `{type, timestamp, details}` to `.openclaw-wiki/log.jsonl` (git-ignored local
    /// operation log, like the original plugin's).
    pub fn append_log(&self, kind: &str, details: Value) -> Result<(), CliError> {
        let now = wiki_cli::iso_millis(self.now()?);
        let mut entry = serde_json::Map::new();
        entry.insert("type".into(), Value::String(kind.into()));
        entry.insert("timestamp".into(), Value::String(now));
        entry.insert("details".into(), details);
        let mut line = crate::json::to_compact(&Value::Object(entry));
        line.push('\n');
        let path = self.root.join(layout::LOG_PATH);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))?;
        f.write_all(line.as_bytes())
            .map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))
    }
}
