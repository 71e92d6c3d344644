//! The public memory artifacts a bridge-mode vault would read (reference §11.2), counted for
//! `bridgePublicArtifactCount`.
//!
//! Per agent workspace (a workspace shared by several agents counts once): `MEMORY.md`; every
//! `*.md` under `memory/` (recursive), files under `memory/.dreams/` only below
//! `memory/.dreams/agents/<agent>/` for an agent of that workspace; and the legacy event log
//! `memory/.dreams/events.jsonl` when exactly one agent uses the workspace. In agent scope only
//! the selected agent's workspace is read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wiki_cli::config::WikiConfig;

/// The agents of each workspace: the configured agents (or the implicit `main`), or only
/// `agent` when given.
fn workspaces(cfg: &WikiConfig, agent: Option<&str>) -> BTreeMap<PathBuf, Vec<String>> {
    let ids: Vec<String> = match agent {
        Some(id) => vec![id.to_string()],
        None if cfg.agents.is_empty() => vec!["main".into()],
        None => cfg.agents.clone(),
    };
    let mut out: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for id in ids {
        let ws = cfg.workspace(Some(&id)).value;
        out.entry(ws).or_default().push(id);
    }
    out
}

/// `*.md` files under `dir` (recursive, symbolic links not followed); `rel` is their path below
/// the workspace, passed to `keep`.
fn markdown_under(dir: &Path, rel: &str, keep: &dyn Fn(&str) -> bool, count: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        if kind.is_dir() {
            markdown_under(&e.path(), &child, keep, count);
        } else if kind.is_file() && name.ends_with(".md") && keep(&child) {
            *count += 1;
        }
    }
}

/// The artifacts of one workspace used by `agents`.
fn count_workspace(ws: &Path, agents: &[String]) -> usize {
    let mut count = usize::from(ws.join("MEMORY.md").is_file());
    let keep = |rel: &str| -> bool {
        match rel.strip_prefix("memory/.dreams/") {
            None => true,
            Some(rest) => rest
                .strip_prefix("agents/")
                .and_then(|r| r.split('/').next())
                .is_some_and(|owner| agents.iter().any(|a| a == owner)),
        }
    };
    markdown_under(&ws.join("memory"), "memory", &keep, &mut count);
    if agents.len() == 1 && ws.join("memory/.dreams/events.jsonl").is_file() {
        count += 1;
    }
    count
}

/// How many public memory artifacts the bridge would see.
pub fn count(cfg: &WikiConfig, agent: Option<&str>) -> usize {
    workspaces(cfg, agent)
        .iter()
        .map(|(ws, agents)| count_workspace(ws, agents))
        .sum()
}
