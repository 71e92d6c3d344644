//! `wiki memory import codex|claude-code`: another assistant's Markdown memory, copied into
//! `memory/imports/<tool>/`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer, say};
use crate::error::{Error, Result};
use crate::workspace::{self, FileWrite};

/// Copy the Markdown memory of Codex or Claude Code into `memory/imports/<tool>/`.
///
/// What is read (only Markdown memory; the sources are never written):
/// * **codex** — `MEMORY.md` and `memory_summary.md` of `$CODEX_HOME/memories` (default
///   `~/.codex/memories`); rollouts, transcripts and `AGENTS.md` instructions are not memory;
/// * **claude-code** — the `*.md` files of each project's auto-memory folder,
///   `~/.claude/projects/<project>/memory/` (`$CLAUDE_CONFIG_DIR` instead of `~/.claude`), to
///   `memory/imports/claude-code/<project>/`, and of the `autoMemoryDirectory` of
///   `~/.claude/settings.json` when set, to `…/claude-code/auto-memory/`; `CLAUDE.md`
///   instructions, sessions, settings and credentials are not imported.
///
/// `--from DIR` reads another Codex home or Claude folder. Conflicts (a destination file with
/// other content) are listed first and skipped (exit status 1) unless `--replace`, which keeps
/// a copy of each replaced file under `memory/imports/<tool>/.replaced/<time>/`. Imported files
/// are indexed for `wiki memory search` but never merged into MEMORY.md, and never returned by
/// trigger recall. One commit in the workspace's repository (`wiki rollback` undoes it).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Whose memory: codex or claude-code.
    #[arg(value_enum)]
    pub tool: Tool,

    /// Read this Codex home (instead of $CODEX_HOME or ~/.codex) or Claude folder (instead of
    /// $CLAUDE_CONFIG_DIR or ~/.claude).
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,

    /// Replace conflicting imports (a copy of each replaced file is kept).
    #[arg(long)]
    pub replace: bool,

    /// Show what would be copied; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The assistants whose memory can be imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// OpenAI Codex CLI.
    Codex,
    /// Anthropic Claude Code.
    ClaudeCode,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Codex => "codex",
            Tool::ClaudeCode => "claude-code",
        }
    }
}

/// One file to import: its source and its destination (workspace-relative).
struct Item {
    source: PathBuf,
    dest: String,
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The Markdown files directly in `dir` (regular files only), sorted.
fn markdown_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    out.sort();
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn codex_items(from: Option<&Path>) -> Result<(PathBuf, Vec<Item>)> {
    let root = from
        .map(Path::to_path_buf)
        .or_else(|| env_dir("CODEX_HOME"))
        .or_else(|| home().map(|h| h.join(".codex")))
        .ok_or_else(|| Error::Usage("no home directory: pass --from DIR".into()))?;
    let dir = root.join("memories");
    let items = ["MEMORY.md", "memory_summary.md"]
        .into_iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .map(|p| Item {
            dest: format!("memory/imports/codex/{}", file_name(&p)),
            source: p,
        })
        .collect();
    Ok((dir, items))
}

fn claude_items(from: Option<&Path>) -> Result<(PathBuf, Vec<Item>)> {
    let root = from
        .map(Path::to_path_buf)
        .or_else(|| env_dir("CLAUDE_CONFIG_DIR"))
        .or_else(|| home().map(|h| h.join(".claude")))
        .ok_or_else(|| Error::Usage("no home directory: pass --from DIR".into()))?;
    let mut items = Vec::new();
    let mut projects: Vec<PathBuf> = std::fs::read_dir(root.join("projects"))
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    projects.sort();
    for project in projects {
        let name = file_name(&project);
        for p in markdown_in(&project.join("memory")) {
            items.push(Item {
                dest: format!("memory/imports/claude-code/{name}/{}", file_name(&p)),
                source: p,
            });
        }
    }
    let settings = root.join("settings.json");
    if let Ok(text) = wiki_cli::read::read_bounded_string(&settings, wiki_cli::config::CONFIG_LIMIT)
    {
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::Invalid(format!("{}:{}: {e}", settings.display(), e.line())))?;
        if let Some(dir) = v.get("autoMemoryDirectory").and_then(|d| d.as_str()) {
            let dir = match dir.strip_prefix("~/") {
                Some(rest) => home().map(|h| h.join(rest)).unwrap_or_else(|| dir.into()),
                None => PathBuf::from(dir),
            };
            for p in markdown_in(&dir) {
                items.push(Item {
                    dest: format!("memory/imports/claude-code/auto-memory/{}", file_name(&p)),
                    source: p,
                });
            }
        }
    }
    Ok((root, items))
}

#[derive(Serialize)]
struct Record<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    status: &'a str,
    path: &'a str,
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    backup: Option<&'a str>,
}

/// Run `wiki memory import`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let tool = args.tool.name();
    let (root, items) = match args.tool {
        Tool::Codex => codex_items(args.from.as_deref())?,
        Tool::ClaudeCode => claude_items(args.from.as_deref())?,
    };
    if items.is_empty() {
        say(&format!("{}: no {tool} memory found", root.display()));
        return Ok(exit::FOUND);
    }
    let stamp = ctx.now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let mut rows: Vec<(String, String, String, Option<String>)> = Vec::new(); // status, dest, source, backup
    let mut writes: Vec<FileWrite> = Vec::new();
    for item in &items {
        let shown = item.source.display().to_string();
        let Some(text) = workspace::read_text(&item.source, &shown)? else {
            continue;
        };
        let existing = ctx.ws.read(&item.dest)?;
        let status = match &existing {
            None => "new",
            Some(old) if *old == text => "unchanged",
            Some(_) if args.replace => "replaced",
            Some(_) => "conflict",
        };
        let mut backup = None;
        if status == "replaced" {
            let rel = item
                .dest
                .trim_start_matches(&format!("memory/imports/{tool}/")[..]);
            let b = format!("memory/imports/{tool}/.replaced/{stamp}/{rel}");
            writes.push((b.clone(), existing.map(String::into_bytes)));
            backup = Some(b);
        }
        if matches!(status, "new" | "replaced") {
            writes.push((item.dest.clone(), Some(text.into_bytes())));
        }
        rows.push((status.to_string(), item.dest.clone(), shown, backup));
    }
    // Conflicts first.
    rows.sort_by_key(|r| r.0 != "conflict");
    let mut p = Printer::new(ctx.json(false)?);
    for (status, dest, source, backup) in &rows {
        p.record(&Record {
            kind: "import",
            status,
            path: dest,
            source: source.clone(),
            backup: backup.as_deref(),
        })?;
        p.line(&match (status.as_str(), backup) {
            ("conflict", _) => {
                format!("conflict  {dest} (differs from {source}; --replace replaces it)")
            }
            (_, Some(b)) => format!("replaced  {dest} <- {source} (previous copy: {b})"),
            (s, _) => format!("{s:<9} {dest} <- {source}"),
        })?;
    }
    let conflicts = rows.iter().filter(|r| r.0 == "conflict").count();
    let copied = rows
        .iter()
        .filter(|r| r.0 == "new" || r.0 == "replaced")
        .count();
    let commit = super::commit_workspace(
        ctx,
        &writes,
        &format!("wiki memory import {tool}: {copied} files"),
        &format!("memory-import-{tool}"),
        args.dry_run,
    )?;
    p.line(&format!(
        "{}{copied} copied, {conflicts} conflicts, {} unchanged",
        if args.dry_run { "dry run: " } else { "" },
        rows.iter().filter(|r| r.0 == "unchanged").count()
    ))?;
    if let Some(c) = commit {
        p.line(&format!("commit {}", &c.to_string()[..12]))?;
    }
    p.flush()?;
    Ok(if conflicts > 0 { exit::FOUND } else { exit::OK })
}
