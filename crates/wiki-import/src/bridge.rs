//! `wiki bridge import`: an agent workspace's public memory artifacts as source pages
//! (reference §11.2–11.5), read from the workspace on disk as the memory host lists them.
//!
//! Per workspace (the OpenClaw config's agent workspaces, merged when agents share one, or
//! `--workspace DIR`): `MEMORY.md` (kind `memory-root`), every `memory/**/*.md` (kind
//! `dream-report` under `memory/dreaming/` and `memory/.dreams/agents/<id>/`, else
//! `daily-note`; other files under `memory/.dreams/` are private and never listed, and legacy
//! `memory/dreaming/` reports of a workspace shared by several agents cannot be attributed and
//! are left out) and the event logs (`memory/.dreams/agents/<id>/events.jsonl` per agent, the
//! legacy `memory/.dreams/events.jsonl` only when one agent uses the workspace). Symbolic links
//! are never followed. The `bridge.index*`/`followMemoryEvents` toggles choose the kinds; with
//! an agent selected (`--agent`, `vault.scope: agent`) only artifacts owned by that agent are
//! imported.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::render::{self, s};
use crate::sync::{self, Doc, Template};
use crate::walk;
use wiki_cli::config::WikiConfig;
use wiki_cli::config::settings::BridgeSettings;

/// The kinds of public memory artifacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `MEMORY.md`.
    MemoryRoot,
    /// `memory/**/*.md` other than dream reports.
    DailyNote,
    /// `memory/dreaming/**`, `memory/.dreams/agents/<id>/**` (markdown).
    DreamReport,
    /// `events.jsonl` journals.
    EventLog,
}

/// A workspace and the agents using it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// Its real path (symbolic links resolved when it exists).
    pub dir: PathBuf,
    /// Agents using it, in config order.
    pub agents: Vec<String>,
}

/// One public artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// What it is.
    pub kind: Kind,
    /// Its workspace (real path).
    pub workspace: PathBuf,
    /// Workspace-relative path, `/`-separated.
    pub rel: String,
    /// Owning agents.
    pub agents: Vec<String>,
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The workspaces to read: `explicit` (with the agents configured there, else the default
/// agent), or every configured agent's workspace, merged by real path.
pub fn workspaces(cfg: &WikiConfig, explicit: Option<&Path>) -> Vec<Workspace> {
    let default_agent = cfg.default_agent().unwrap_or_else(|| "main".to_string());
    let ids = if cfg.agents.is_empty() {
        vec![default_agent.clone()]
    } else {
        cfg.agents.clone()
    };
    let by_agent: Vec<(String, PathBuf)> = ids
        .into_iter()
        .map(|id| {
            let dir = real(&cfg.workspace(Some(&id)).value);
            (id, dir)
        })
        .collect();
    if let Some(dir) = explicit {
        let dir = real(dir);
        let mut agents: Vec<String> = by_agent
            .iter()
            .filter(|(_, d)| *d == dir)
            .map(|(id, _)| id.clone())
            .collect();
        if agents.is_empty() {
            agents.push(default_agent);
        }
        return vec![Workspace { dir, agents }];
    }
    let mut out: Vec<Workspace> = Vec::new();
    for (id, dir) in by_agent {
        match out.iter_mut().find(|w| w.dir == dir) {
            Some(w) => w.agents.push(id),
            None => out.push(Workspace {
                dir,
                agents: vec![id],
            }),
        }
    }
    out
}

/// The owners of `memory/…` artifact `rel`, or `None` when it must not be listed.
fn owners(rel: &str, agents: &[String]) -> Option<Vec<String>> {
    if let Some(rest) = rel.strip_prefix("memory/.dreams/agents/") {
        let owner = rest
            .split('/')
            .next()
            .filter(|o| !o.is_empty() && rest.contains('/'))?;
        return agents
            .iter()
            .any(|a| a == owner)
            .then(|| vec![owner.to_string()]);
    }
    if rel.starts_with("memory/.dreams/") {
        return None;
    }
    if rel.starts_with("memory/dreaming/") && agents.len() > 1 {
        return None;
    }
    Some(agents.to_vec())
}

/// Whether `rel` under `root` is a regular file reached without a symbolic link.
fn plain_file(root: &Path, rel: &str) -> bool {
    let mut p = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        p.push(part);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if i + 1 == parts.len() => return m.is_file(),
            Ok(m) if m.is_dir() => {}
            _ => return false,
        }
    }
    false
}

/// The public artifacts of one workspace, in the memory host's order.
pub fn artifacts(ws: &Workspace) -> Vec<Artifact> {
    let mut out = Vec::new();
    let mut push = |kind, rel: String, agents: Vec<String>| {
        if !out
            .iter()
            .any(|a: &Artifact| a.rel == rel && a.kind == kind)
        {
            out.push(Artifact {
                kind,
                workspace: ws.dir.clone(),
                rel,
                agents,
            });
        }
    };
    if plain_file(&ws.dir, "MEMORY.md") {
        push(Kind::MemoryRoot, "MEMORY.md".into(), ws.agents.clone());
    }
    let memory = ws.dir.join("memory");
    if std::fs::symlink_metadata(&memory).is_ok_and(|m| m.is_dir()) {
        let (found, _) = walk::walk(&memory, &walk::Options::default());
        for f in found.iter().filter(|f| f.rel.ends_with(".md")) {
            let rel = format!("memory/{}", f.rel);
            if let Some(agents) = owners(&rel, &ws.agents) {
                let kind = if rel.starts_with("memory/dreaming/")
                    || rel.starts_with("memory/.dreams/agents/")
                {
                    Kind::DreamReport
                } else {
                    Kind::DailyNote
                };
                push(kind, rel, agents);
            }
        }
        for agent in &ws.agents {
            let rel = format!("memory/.dreams/agents/{agent}/events.jsonl");
            if plain_file(&ws.dir, &rel) {
                push(Kind::EventLog, rel, vec![agent.clone()]);
            }
        }
        if ws.agents.len() == 1 && plain_file(&ws.dir, "memory/.dreams/events.jsonl") {
            push(
                Kind::EventLog,
                "memory/.dreams/events.jsonl".into(),
                ws.agents.clone(),
            );
        }
    }
    out
}

fn wanted(kind: Kind, b: &BridgeSettings) -> bool {
    match kind {
        Kind::MemoryRoot => b.index_memory_root,
        Kind::DailyNote => b.index_daily_notes,
        Kind::DreamReport => b.index_dream_reports,
        Kind::EventLog => b.follow_memory_events,
    }
}

/// Title of an artifact's page.
fn title(a: &Artifact) -> String {
    let who = if a.agents.is_empty() {
        String::new()
    } else {
        format!(" ({})", a.agents.join(", "))
    };
    if a.kind == Kind::EventLog {
        return format!("Memory Bridge{who}: event journal");
    }
    let base = a.rel.strip_suffix(".md").unwrap_or(&a.rel);
    let base = base
        .strip_prefix("memory/")
        .unwrap_or(base)
        .replace('/', " / ");
    format!("Memory Bridge{who}: {base}")
}

/// Page id and path of an artifact (§11.3).
pub fn page_identity(workspace: &Path, rel: &str) -> (String, String) {
    let ws_name = workspace
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ws_slug = format!(
        "{}-{}",
        wiki_parse::slug::slugify(&ws_name),
        &wiki_parse::slug::sha1_hex(&workspace.to_string_lossy())[..8]
    );
    let stem = rel.strip_suffix(".md").unwrap_or(rel).replace('/', "-");
    let art_slug = format!(
        "{}-{}",
        wiki_parse::slug::slugify(&stem),
        &wiki_parse::slug::sha1_hex(rel)[..8]
    );
    let file = wiki_parse::slug::page_filename(&format!("bridge-{ws_slug}-{art_slug}"));
    (
        format!("source.bridge.{ws_slug}.{art_slug}"),
        format!("sources/{file}"),
    )
}

/// The doc (page to mirror) of an artifact.
pub fn doc(a: &Artifact) -> Doc {
    let events = a.kind == Kind::EventLog;
    let artifact_type = if events { "memory-events" } else { "markdown" };
    let (id, page_path) = page_identity(&a.workspace, &a.rel);
    let abs = a.workspace.join(&a.rel);
    let ws = a.workspace.to_string_lossy().into_owned();
    let title = title(a);
    let agents: Vec<&str> = a.agents.iter().map(String::as_str).collect();
    let frontmatter = render::mapping([
        ("pageType", s("source")),
        ("id", s(&id)),
        ("title", s(&title)),
        (
            "sourceType",
            s(if events {
                "memory-bridge-events"
            } else {
                "memory-bridge"
            }),
        ),
        ("sourcePath", s(&abs.to_string_lossy())),
        ("bridgeRelativePath", s(&a.rel)),
        ("bridgeWorkspaceDir", s(&ws)),
        ("bridgeAgentIds", render::list(agents.iter().copied())),
    ]);
    let lines = vec![
        format!("- Workspace: `{ws}`"),
        format!("- Relative path: `{}`", a.rel),
        format!("- Kind: `{artifact_type}`"),
        format!(
            "- Agents: {}",
            if agents.is_empty() {
                "unknown".to_string()
            } else {
                agents.join(", ")
            }
        ),
    ];
    Doc {
        sync_key: real(&abs).to_string_lossy().into_owned(),
        source_path: abs.to_string_lossy().into_owned(),
        page_path,
        fingerprint: sync::fingerprint(&json!({
            "artifactType": artifact_type,
            "workspaceDir": ws,
            "relativePath": a.rel,
            "agentIds": agents,
        })),
        template: Template {
            frontmatter,
            title,
            section: "Bridge Source",
            lines,
            fence_info: if events { "json" } else { "markdown" },
        },
    }
}

/// What a bridge run reads.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Docs to mirror (one per artifact, de-duplicated by real path).
    pub docs: Vec<Doc>,
    /// The workspaces read (their real paths).
    pub workspaces: Vec<PathBuf>,
    /// Workspaces that had at least one public artifact.
    pub workspace_count: usize,
}

/// The docs of a bridge run: the workspaces' artifacts the toggles want, owned by `agent` when
/// one is selected.
pub fn plan(cfg: &WikiConfig, explicit: Option<&Path>, agent: Option<&str>) -> Plan {
    let mut plan = Plan::default();
    for ws in workspaces(cfg, explicit) {
        let listed = artifacts(&ws);
        if !listed.is_empty() {
            plan.workspace_count += 1;
        }
        plan.workspaces.push(ws.dir.clone());
        for a in listed {
            if !wanted(a.kind, &cfg.settings.bridge) {
                continue;
            }
            if agent.is_some_and(|id| !a.agents.iter().any(|x| x == id)) {
                continue;
            }
            let d = doc(&a);
            match plan.docs.iter_mut().find(|x| x.sync_key == d.sync_key) {
                Some(x) => *x = d,
                None => plan.docs.push(d),
            }
        }
    }
    plan
}

/// The pruning guard rail: an entry whose source still exists is kept when its workspace was
/// not read in this run (another workspace's pages are not this run's to remove).
pub fn keep_unseen(read: &[PathBuf], entry: &sync::Entry) -> bool {
    let source = Path::new(&entry.source_path);
    source.exists() && !read.iter().any(|w| source.starts_with(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_follow_the_memory_host() {
        let one = vec!["main".to_string()];
        let two = vec!["research".to_string(), "writer".to_string()];
        assert_eq!(owners("memory/2026-04-05.md", &one), Some(one.clone()));
        assert_eq!(owners("memory/dreaming/x.md", &one), Some(one.clone()));
        assert_eq!(owners("memory/dreaming/x.md", &two), None);
        assert_eq!(owners("memory/.dreams/legacy.md", &two), None);
        assert_eq!(
            owners("memory/.dreams/agents/writer/DREAMS.md", &two),
            Some(vec!["writer".to_string()])
        );
        assert_eq!(owners("memory/.dreams/agents/other/DREAMS.md", &two), None);
    }

    #[test]
    fn titles() {
        let a = |kind, rel: &str, agents: &[&str]| Artifact {
            kind,
            workspace: PathBuf::from("/w"),
            rel: rel.into(),
            agents: agents.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(
            title(&a(Kind::DailyNote, "memory/2026-04-05.md", &[])),
            "Memory Bridge: 2026-04-05"
        );
        assert_eq!(
            title(&a(Kind::MemoryRoot, "MEMORY.md", &["a", "b"])),
            "Memory Bridge (a, b): MEMORY"
        );
        assert_eq!(
            title(&a(Kind::DreamReport, "memory/dreaming/deep/x.md", &["a"])),
            "Memory Bridge (a): dreaming / deep / x"
        );
        assert_eq!(
            title(&a(Kind::EventLog, "memory/.dreams/events.jsonl", &[])),
            "Memory Bridge: event journal"
        );
    }
}
