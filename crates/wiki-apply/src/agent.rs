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

/// Check an agent id (`--agent`, `$WIKI_AGENT`, `agent create`): 1–64 characters, lowercase
/// letters, digits, `-`, `_` and `.`, starting with a letter or digit, no `..`, not ending in `.`
/// or `.lock` (so `agents/<id>` is a valid branch name, and the id is one OpenClaw's
/// normalisation leaves alone). The id is used as given, like `wiki-digest`'s `VaultContext`
/// does, so every command acting as an agent uses the same branch; an id that would need
/// normalising (spaces, capitals) is an error that suggests the OpenClaw-normalised form
/// ([`suggest_agent_id`]) rather than silently acting as another agent.
pub fn normalize_agent_id(raw: &str) -> Result<String> {
    let id = raw;
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
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
        "invalid agent id {raw:?}: use lowercase letters, digits, `-`, `_` and `.` (at most 64){hint}"
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
    /// The branch was just deleted (`wiki agent delete`; `commit` is the tip it had).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
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
            deleted: false,
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
            deleted: false,
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

/// Delete the branch of agent `id` (compare-and-swap on its tip), the caches it left beside the
/// work tree ([`cache_roots`]) and its search index ([`wiki_vault::index_dir::remove_agent`]).
/// Refuses the checked-out branch. The branch's commits stay in the repository (`wiki gc` never
/// prunes), so `wiki agent create <id> --from <tip>` restores it. Call under the vault lock.
pub fn delete(store: &Store, id: &str) -> Result<AgentBranch> {
    let id = normalize_agent_id(id)?;
    let branch = branch_name(&id);
    let Some(tip) = store.branch_tip(&branch)? else {
        return Err(Error::Invalid(format!(
            "agent {id} does not exist: there is no branch {branch}"
        )));
    };
    if store.current_branch()?.as_deref() == Some(branch.as_str()) {
        return Err(Error::Invalid(format!(
            "agent {id}'s branch {branch} is checked out: check out another branch first"
        )));
    }
    store.delete_branch(&branch, tip)?;
    remove_caches(store, |name| Ok(name == id))?;
    // Its search index too (a search as an agent without a branch would build it again).
    wiki_vault::index_dir::remove_agent(store.vault_dir(), &id)
        .map_err(|e| Error::Runtime(format!("cannot remove the search index of {id}: {e}")))?;
    Ok(AgentBranch {
        kind: "agent",
        id,
        branch,
        commit: tip.to_string(),
        current: false,
        deleted: true,
    })
}

/// The vault-relative directories holding one git-ignored cache directory per agent branch
/// (`<root>/<ID>/`): the compiled caches ([`wiki_parse::layout::cache_location`]) and the parse
/// cache ([`wiki_vault::pagecache::cache_dir`]).
pub fn cache_roots() -> [String; 2] {
    [
        format!("{}/agents", wiki_parse::layout::CACHE_DIR),
        format!("{}/agents", wiki_parse::layout::TMP_DIR),
    ]
}

/// What [`prune_caches`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrunedCaches {
    /// The agents whose caches were removed, sorted.
    pub agents: Vec<String>,
    /// The bytes of the removed files.
    pub bytes: u64,
}

/// Remove the caches of agents whose branch no longer exists (a deleted `agents/<ID>`): their
/// compiled caches and parse cache ([`cache_roots`]). They are derived, git-ignored files that
/// nothing reads once the branch is gone (an agent writing again starts from the checked-out
/// branch's). Only directories named like an agent id are considered; a symbolic link on the
/// way (`.openclaw-wiki`, a cache root or an agent's directory) is never followed, and such a
/// root is left alone. Call under the vault lock, so that no operation is writing them.
pub fn prune_caches(store: &Store) -> Result<PrunedCaches> {
    remove_caches(store, |id| {
        Ok(store.branch_tip(&branch_name(id))?.is_none())
    })
}

/// Remove the cache directories (under [`cache_roots`]) of the agents `select` picks, among
/// directories named like an agent id; symbolic links are never followed (see
/// [`prune_caches`]).
fn remove_caches(
    store: &Store,
    mut select: impl FnMut(&str) -> Result<bool>,
) -> Result<PrunedCaches> {
    let vault = store.vault_dir();
    let mut gone: std::collections::BTreeMap<String, Vec<std::path::PathBuf>> =
        std::collections::BTreeMap::new();
    for root in cache_roots() {
        if !wiki_parse::layout::real_directories(vault, &root) {
            continue;
        }
        let dir = vault.join(&root);
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| Error::Runtime(format!("{root}: cannot list: {e}")))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::Runtime(format!("{root}: cannot list: {e}")))?;
            let name = entry.file_name();
            let Some(id) = name.to_str() else { continue };
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if !is_dir || normalize_agent_id(id).ok().as_deref() != Some(id) {
                continue;
            }
            gone.entry(id.to_string()).or_default().push(entry.path());
        }
    }
    // Every decision is made before anything is removed.
    let mut picked = Vec::new();
    for (id, dirs) in gone {
        if select(&id)? {
            picked.push((id, dirs));
        }
    }
    let mut pruned = PrunedCaches::default();
    for (id, dirs) in picked {
        for dir in dirs {
            pruned.bytes += wiki_parse::layout::tree_bytes(&dir);
            std::fs::remove_dir_all(&dir)
                .map_err(|e| Error::Runtime(format!("{}: cannot remove: {e}", dir.display())))?;
        }
        pruned.agents.push(id);
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids() {
        assert_eq!(normalize_agent_id("research").unwrap(), "research");
        assert_eq!(normalize_agent_id("x_1-y.2").unwrap(), "x_1-y.2");
        assert_eq!(
            normalize_agent_id(" Research ").unwrap_err().to_string(),
            "invalid agent id \" Research \": use lowercase letters, digits, `-`, `_` and `.` (at most 64) (try \"research\")"
        );
        assert_eq!(
            normalize_agent_id("SUPPORT TEAM").unwrap_err().to_string(),
            "invalid agent id \"SUPPORT TEAM\": use lowercase letters, digits, `-`, `_` and `.` (at most 64) (try \"support-team\")"
        );
        for bad in ["a/../b", "a..b", "-x", "x.lock", "x.", " /// ", ""] {
            assert!(normalize_agent_id(bad).is_err(), "{bad}");
        }
        assert!(normalize_agent_id(&"a".repeat(65)).is_err());
        assert_eq!(suggest_agent_id("a/../b").as_deref(), Some("a-b"));
        assert_eq!(suggest_agent_id(" /// "), None);
    }
}
