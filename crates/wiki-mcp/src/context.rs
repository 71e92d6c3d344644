//! The prompt digest of `wiki context` (reference §13) as the prompt `wiki_context` and the
//! resource `wiki://context`.

use crate::tools::State;

/// The prompt's name.
pub const PROMPT: &str = "wiki_context";

/// The resource's URI.
pub const URI: &str = "wiki://context";

/// What the prompt and the resource say about themselves.
pub const DESCRIPTION: &str = "The compiled wiki's compact prompt digest: how to use the wiki \
                               tools, then the top pages (contradictions, open questions, \
                               claims) with their best claims.";

/// The digest for the tools `tools` this server has, cut to `max_chars` characters at a line
/// boundary (see `wiki context --max-chars`).
pub fn text(state: &State, tools: &[&str], max_chars: Option<usize>) -> Result<String, String> {
    let vault = state.global.vault_dir().map_err(|e| e.to_string())?;
    wiki_digest::context::require_vault(&vault).map_err(|e| e.to_string())?;
    let agent = state.global.agent_id().map_err(|e| e.to_string())?;
    let guidance = wiki_status::context::tool_guidance(tools);
    let snapshot = wiki_status::context::read_digest(&vault, agent.as_deref())
        .map(|d| wiki_status::context::snapshot(&d))
        .unwrap_or_default();
    Ok(wiki_status::context::render(
        &guidance, &snapshot, max_chars,
    ))
}
