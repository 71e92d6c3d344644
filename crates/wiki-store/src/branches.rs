//! Listing and creating branches (used for per-agent branches `agents/<id>`).

use gix::ObjectId;
use gix::refs::transaction::{PreviousValue, RefEdit};

use crate::error::GitResultExt;
use crate::{Error, Result, Store, branch_ref_name, env, read};

impl Store {
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
}
