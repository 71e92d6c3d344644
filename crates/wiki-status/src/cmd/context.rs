//! `wiki context`: the compact prompt digest.

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::context;

/// The compact prompt snapshot of the compiled wiki, for an agent's prompt assembly (reference
/// §13): tool guidance lines, then the top pages of `agent-digest.json` (by contradictions,
/// questions and claims; at most 4) with up to 2 claims each and their status, confidence and
/// freshness. Reads the compiled digest of the vault (or of `--agent`'s branch); prints only the
/// guidance when there is no compiled digest yet (`wiki compile` makes it). `--json` prints
/// `{"guidance": [...], "snapshot": [...], "text": "..."}`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// At most this many characters (whole lines are kept; the snapshot is left out rather
    /// than printed without a page).
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,

    /// The tools the agent has, comma-separated (they choose the guidance lines; an empty
    /// value prints none). Default: the tools of `wiki mcp`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', num_args = 0..)]
    pub tools: Option<Vec<String>>,
}

/// Run `wiki context`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let vault = global.vault_dir()?;
    wiki_digest::context::require_vault(&vault)?;
    let agent = global.agent_id()?;
    let tools: Vec<String> = match &args.tools {
        Some(list) => list
            .iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        None => context::GUIDED_TOOLS
            .iter()
            .map(|t| t.to_string())
            .collect(),
    };
    let names: Vec<&str> = tools.iter().map(String::as_str).collect();
    let guidance = context::tool_guidance(&names);
    let snapshot = context::read_digest(&vault, agent.as_deref())
        .map(|d| context::snapshot(&d))
        .unwrap_or_default();
    let text = context::render(&guidance, &snapshot, args.max_chars);
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&serde_json::json!({
            "guidance": guidance,
            "snapshot": snapshot,
            "text": text,
        }))?,
        _ => out.text(&text)?,
    }
    out.flush()?;
    Ok(exit::OK)
}
