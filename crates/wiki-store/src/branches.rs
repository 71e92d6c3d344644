//! Listing and creating branches (used for per-agent branches `agents/<id>`).

use gix::ObjectId;
use gix::refs::transaction::{PreviousValue, RefEdit};

use crate::error::GitResultExt;
use crate::{Error, Result, Store, branch_ref_name, env, read};

/// What `--agent ID` reads, and where its commits go: the branch `agents/<ID>`
/// ([`Store::agent_branch`]). Every command that takes `--agent` decides through this.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentBranch {
    /// `agents/<ID>`.
    pub branch: String,
    /// Where the agent's vault is read.
    pub state: AgentState,
}

/// Where an agent's vault is read (see [`AgentBranch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentState {
    /// The branch is checked out: the work tree is read, as without `--agent`.
    CheckedOut,
    /// The branch exists and is not checked out: its tip is read from git.
    Tip(ObjectId),
    /// The branch does not exist yet: `HEAD` is read (its first commit starts there).
    NotYet,
}

impl AgentBranch {
    /// The revision to read from git: the tip, or `HEAD` while the branch does not exist;
    /// `None` when the work tree is read.
    pub fn rev(&self) -> Option<String> {
        match self.state {
            AgentState::CheckedOut => None,
            AgentState::Tip(id) => Some(id.to_string()),
            AgentState::NotYet => Some("HEAD".to_string()),
        }
    }

    /// The name of what [`AgentBranch::rev`] reads, for messages (`agents/<ID>` or `HEAD`).
    pub fn rev_name(&self) -> &str {
        match self.state {
            AgentState::NotYet => "HEAD",
            _ => &self.branch,
        }
    }
}

impl Store {
    /// What `--agent id` reads ([`AgentBranch`]). A name git would not accept as a branch is
    /// [`Error::InvalidAgent`].
    pub fn agent_branch(&self, id: &str) -> Result<AgentBranch> {
        let branch = format!("agents/{id}");
        let state = if self.current_branch()?.as_deref() == Some(branch.as_str()) {
            AgentState::CheckedOut
        } else {
            match self.branch_tip(&branch) {
                Ok(Some(tip)) => AgentState::Tip(tip),
                Ok(None) => AgentState::NotYet,
                Err(Error::InvalidBranch { .. }) => {
                    return Err(Error::InvalidAgent {
                        id: id.to_string(),
                        branch,
                    });
                }
                Err(e) => return Err(e),
            }
        };
        Ok(AgentBranch { branch, state })
    }

    /// Local branches whose short name starts with `prefix` (e.g. `agents/`), as
    /// `(short name, tip)` sorted by name. An empty prefix lists every local branch.
    pub fn list_branches(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        let repo = self.repo();
        let refs = repo
            .references()
            .git_ctx(|| "read references".to_string())?;
        let iter = refs
            .prefixed(format!("refs/heads/{prefix}").as_str())
            .git_ctx(|| format!("list branches {prefix}*"))?;
        let mut out = Vec::new();
        for r in iter {
            let mut r = r.map_err(|e| Error::git(format!("list branches {prefix}*"), e))?;
            let full = r.name().as_bstr().to_string();
            let id = r
                .peel_to_id()
                .git_ctx(|| format!("peel reference {full}"))?
                .detach();
            let short = full
                .strip_prefix("refs/heads/")
                .unwrap_or(&full)
                .to_string();
            out.push((short, id));
        }
        out.sort();
        Ok(out)
    }

    /// Create local branch `branch` at `rev` (any revision [`Store::resolve`] accepts) without
    /// checking it out and without a commit. Fails with [`Error::Conflict`] when the branch
    /// already exists (it is never moved). Returns the commit it points at.
    pub fn create_branch(&self, branch: &str, rev: &str) -> Result<ObjectId> {
        let full = branch_ref_name(branch)?;
        let repo = self.repo();
        let start = read::resolve(&repo, rev)?;
        // gix accepts `MustNotExist` when the ref already has the new value: check first.
        if let Some(actual) = read::ref_tip(&repo, &full)? {
            return Err(Error::Conflict {
                branch: full,
                expected: None,
                actual: Some(actual),
            });
        }
        let name: gix::refs::FullName =
            full.as_str().try_into().map_err(|_| Error::InvalidBranch {
                name: branch.to_string(),
            })?;
        let who = self.identity_for(&repo, env::Role::Committer);
        let committer = gix::actor::Signature {
            name: who.name.into(),
            email: who.email.into(),
            time: env::resolve_time(&self.env, env::Role::Committer)?,
        };
        let edit = RefEdit::update(
            name,
            start,
            PreviousValue::MustNotExist,
            format!("branch: Created from {}", rev.replace(['\n', '\r'], " ")),
        )
        .with_deref(false);
        let mut time_buf = gix::date::parse::TimeBuf::default();
        match repo.edit_references_as(Some(edit), Some(committer.to_ref(&mut time_buf))) {
            Ok(_) => Ok(start),
            Err(source) => match read::ref_tip(&repo, &full)? {
                Some(actual) => Err(Error::Conflict {
                    branch: full,
                    expected: None,
                    actual: Some(actual),
                }),
                None => Err(Error::git(format!("create branch {full}"), source)),
            },
        }
    }

    /// Delete local branch `branch` if its tip is still `expected` (compare-and-swap, like a
    /// commit's ref update; its reflog goes with it, as with `git branch -D`). The commits stay
    /// in the repository. Fails with [`Error::Conflict`] when the branch moved or is gone.
    pub fn delete_branch(&self, branch: &str, expected: ObjectId) -> Result<()> {
        use gix::refs::transaction::{Change, RefLog};
        let full = branch_ref_name(branch)?;
        let repo = self.repo();
        let name: gix::refs::FullName =
            full.as_str().try_into().map_err(|_| Error::InvalidBranch {
                name: branch.to_string(),
            })?;
        let edit = RefEdit {
            change: Change::Delete {
                expected: PreviousValue::MustExistAndMatch(gix::refs::Target::Object(expected)),
                log: RefLog::AndReference,
            },
            name,
            deref: false,
        };
        match repo.edit_references(Some(edit)) {
            Ok(_) => Ok(()),
            Err(source) => match read::ref_tip(&repo, &full)? {
                Some(actual) if actual == expected => {
                    Err(Error::git(format!("delete branch {full}"), source))
                }
                actual => Err(Error::Conflict {
                    branch: full,
                    expected: Some(expected),
                    actual,
                }),
            },
        }
    }
}
