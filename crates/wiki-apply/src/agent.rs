//! Per-agent vaults as branches: agent `<ID>` reads and writes the branch `agents/<ID>`.

use serde::Serialize;
use wiki_store::Store;

use crate::error::{Error, Result};

/// Branch prefix of agent branches.
pub const BRANCH_PREFIX: &str = "agents/";

/// The branch of agent `id` (`agents/<id>`).
pub fn branch_name(id: &str) -> String {
    format!("{BRANCH_PREFIX}{id}")
}

/// Normalise an agent id like OpenClaw (`normalizeAgentId`): trimmed; ids matching
/// `[a-z0-9][a-z0-9_-]{0,63}` (any case) are lowercased; otherwise lowercased, every run of other
/// characters becomes `-`, leading/trailing `-` are dropped and the result is cut to 64
/// characters. An id with nothing left is an error.
pub fn normalize_agent_id(raw: &str) -> Result<String> {
    let lower = raw.trim().to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let mut dash = false;
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
            out.push(c);
            dash = false;
        } else if !dash {
            out.push('-');
            dash = true;
        }
    }
    let trimmed: String = out.trim_matches('-').chars().take(64).collect();
    if trimmed.is_empty() {
        return Err(Error::Invalid(format!(
            "invalid agent id {raw:?}: use letters, digits, `-` and `_`"
        )));
    }
    Ok(trimmed)
}

/// One agent branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentBranch {
    /// Record type (`agent`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The agent id.
    pub id: String,
    /// The branch (`agents/<id>`).
    pub branch: String,
    /// The branch tip.
    pub commit: String,
    /// Whether the branch is checked out in the vault's work tree.
    pub current: bool,
}

/// Every agent branch, sorted by id.
pub fn list(store: &Store) -> Result<Vec<AgentBranch>> {
    let current = store.current_branch()?;
    Ok(store
        .list_branches(BRANCH_PREFIX)?
        .into_iter()
        .map(|(branch, tip)| AgentBranch {
            kind: "agent",
            id: branch
                .strip_prefix(BRANCH_PREFIX)
                .unwrap_or(&branch)
                .to_string(),
            current: current.as_deref() == Some(branch.as_str()),
            branch,
            commit: tip.to_string(),
        })
        .collect())
}

/// Create the branch of agent `id` at `from` (default `HEAD`), without checkout.
pub fn create(store: &Store, id: &str, from: Option<&str>) -> Result<AgentBranch> {
    let id = normalize_agent_id(id)?;
    let branch = branch_name(&id);
    let rev = from.unwrap_or("HEAD");
    match store.create_branch(&branch, rev) {
        Ok(tip) => Ok(AgentBranch {
            kind: "agent",
            current: false,
            id,
            branch,
            commit: tip.to_string(),
        }),
        Err(e) if e.is_conflict() => {
            let tip = store
                .branch_tip(&branch)?
                .map(|t| t.to_string())
                .unwrap_or_default();
            Err(Error::Invalid(format!(
                "agent {id} already exists: branch {branch} is at {tip}"
            )))
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids() {
        assert_eq!(normalize_agent_id(" Research ").unwrap(), "research");
        assert_eq!(normalize_agent_id("SUPPORT TEAM").unwrap(), "support-team");
        assert_eq!(normalize_agent_id("a/../b").unwrap(), "a-b");
        assert_eq!(normalize_agent_id("x_1-y").unwrap(), "x_1-y");
        assert!(normalize_agent_id(" /// ").is_err());
        assert_eq!(normalize_agent_id(&"a".repeat(80)).unwrap().len(), 64);
    }
}
