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

/// Check an agent id (`--agent`, `$WIKI_AGENT`, `agent create`): trimmed, 1–64 characters,
/// letters, digits, `-`, `_` and `.`, starting with a letter or digit, no `..`, not ending in `.`
/// or `.lock` (so `agents/<id>` is a valid branch name). The id is used as given, like
/// `wiki-digest`'s `VaultContext` does, so every command acting as an agent uses the same
/// branch. An invalid id is an error that suggests the OpenClaw-normalised form
/// ([`suggest_agent_id`]).
pub fn normalize_agent_id(raw: &str) -> Result<String> {
    let id = raw.trim();
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !id.contains("..")
        && !id.ends_with('.')
        && !id.ends_with(".lock");
    if ok {
        return Ok(id.to_string());
    }
    let hint = suggest_agent_id(raw)
        .map(|s| format!(" (try \"{s}\")"))
        .unwrap_or_default();
    Err(Error::Invalid(format!(
        "invalid agent id {raw:?}: use letters, digits, `-`, `_` and `.` (at most 64){hint}"
    )))
}

/// OpenClaw's `normalizeAgentId`: lowercase, every run of characters other than `a-z0-9_-`
/// becomes `-`, leading/trailing `-` dropped, at most 64 characters (`None` when nothing is
/// left).
pub fn suggest_agent_id(raw: &str) -> Option<String> {
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
    (!trimmed.is_empty()).then_some(trimmed)
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
        assert_eq!(normalize_agent_id(" Research ").unwrap(), "Research");
        assert_eq!(normalize_agent_id("x_1-y.2").unwrap(), "x_1-y.2");
        assert_eq!(
            normalize_agent_id("SUPPORT TEAM").unwrap_err().to_string(),
            "invalid agent id \"SUPPORT TEAM\": use letters, digits, `-`, `_` and `.` (at most 64) (try \"support-team\")"
        );
        for bad in ["a/../b", "a..b", "-x", "x.lock", "x.", " /// ", ""] {
            assert!(normalize_agent_id(bad).is_err(), "{bad}");
        }
        assert!(normalize_agent_id(&"a".repeat(65)).is_err());
        assert_eq!(suggest_agent_id("a/../b").as_deref(), Some("a-b"));
        assert_eq!(suggest_agent_id(" /// "), None);
    }
}
