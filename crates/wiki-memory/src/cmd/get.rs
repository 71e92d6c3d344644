//! `wiki memory get`: read a memory file or a line range (`memory_get`).

use serde::Serialize;
use wiki_cli::exit;

use super::{Ctx, Printer};
use crate::error::{Error, Result};

/// Read a memory file of the workspace, or a range of its lines.
///
/// PATH is workspace-relative (`MEMORY.md`, `memory/2025-11-27.md`, `DREAMS.md`) and may carry a
/// citation range (`memory/2025-11-27.md#L12` or `#L12-L20`), as search and recall print them.
/// Only Markdown files of the workspace are read (MEMORY.md, memory.md, USER.md, DREAMS.md,
/// memory/**/*.md); paths leaving it are refused. Text output is the lines themselves; `--json`
/// prints `{"type":"file","path","from","lines","totalLines","truncated","text"}`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Workspace-relative path, optionally with `#L<from>[-L<to>]`.
    #[arg(value_name = "PATH")]
    pub path: String,

    /// First line to read (1-based).
    #[arg(long, value_name = "N")]
    pub from: Option<usize>,

    /// Number of lines to read.
    #[arg(long, value_name = "N")]
    pub lines: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    window: &'a FileWindow,
}

/// Split `path#L12-L20` into the path and its range.
pub fn parse_citation(raw: &str) -> Result<(String, Option<(usize, usize)>)> {
    let Some((path, anchor)) = raw.split_once('#') else {
        return Ok((raw.to_string(), None));
    };
    let bad = || {
        Error::Usage(format!(
            "bad line range `#{anchor}` (expected #L12 or #L12-L20)"
        ))
    };
    let num = |s: &str| -> Result<usize> {
        s.strip_prefix('L')
            .unwrap_or(s)
            .parse::<usize>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(bad)
    };
    let (a, b) = match anchor.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => {
            let a = num(anchor)?;
            (a, a)
        }
    };
    if b < a {
        return Err(bad());
    }
    Ok((path.to_string(), Some((a, b))))
}

/// Whether `rel` is a readable memory file path (inside the workspace, Markdown).
pub fn allowed(rel: &str) -> bool {
    let clean = !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\\')
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && c != ".git");
    clean
        && rel.ends_with(".md")
        && ([
            "MEMORY.md",
            "memory.md",
            "USER.md",
            "DREAMS.md",
            "dreams.md",
        ]
        .contains(&rel)
            || rel.starts_with("memory/"))
}

/// A window of lines of a memory file (`wiki memory get`, `memory_get`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileWindow {
    /// Workspace-relative path.
    pub path: String,
    /// First line (1-based).
    pub from: usize,
    /// Lines returned.
    pub lines: usize,
    /// Lines in the file.
    pub total_lines: usize,
    /// Whether lines were left out before or after the window.
    pub truncated: bool,
    /// The lines, joined by newlines.
    pub text: String,
}

/// Read `raw` (a workspace-relative path, optionally with `#L12-L20`) of workspace `ws`: lines
/// `from` (else the range's start, else 1), `lines` of them (else the range's, else all). Paths
/// that leave the workspace or are no memory file are refused.
pub fn read_window(
    ws: &crate::workspace::Workspace,
    raw: &str,
    from: Option<usize>,
    lines: Option<usize>,
) -> Result<FileWindow> {
    let (rel, range) = parse_citation(raw.trim())?;
    let rel = rel.trim_start_matches("./").to_string();
    if !allowed(&rel) {
        return Err(Error::Usage(format!(
            "{rel}: not a memory file of the workspace (MEMORY.md, USER.md, DREAMS.md or memory/**/*.md)"
        )));
    }
    if let (Ok(real), Ok(root)) = (
        std::fs::canonicalize(ws.path(&rel)),
        std::fs::canonicalize(&ws.root),
    ) && !real.starts_with(&root)
    {
        return Err(Error::Usage(format!(
            "{rel}: refusing to read through a symbolic link that leaves the workspace"
        )));
    }
    let Some(text) = ws.read(&rel)? else {
        return Err(Error::Usage(format!(
            "{rel}: no such file in the workspace {}",
            ws.root.display()
        )));
    };
    let all: Vec<&str> = text.lines().collect();
    let from = from.or(range.map(|r| r.0)).unwrap_or(1).max(1);
    let count = lines.or(range.map(|r| r.1 + 1 - r.0)).unwrap_or(all.len());
    let start = (from - 1).min(all.len());
    let end = start.saturating_add(count).min(all.len());
    let slice = &all[start..end];
    Ok(FileWindow {
        path: rel,
        from,
        lines: slice.len(),
        total_lines: all.len(),
        truncated: end < all.len() || start > 0,
        text: slice.join("\n"),
    })
}

/// Run `wiki memory get`.
pub fn run(ctx: &Ctx, args: &Args) -> Result<u8> {
    ctx.require_workspace()?;
    let window = read_window(&ctx.ws, &args.path, args.from, args.lines)?;
    let mut p = Printer::new(ctx.json(false)?);
    p.record(&FileRecord {
        kind: "file",
        window: &window,
    })?;
    // The window's lines exactly (blank ones included); none for an empty window.
    for l in window.text.split('\n').take(window.lines) {
        p.line(l)?;
    }
    p.flush()?;
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_and_paths() {
        assert_eq!(
            parse_citation("memory/a.md#L12-L20").unwrap(),
            ("memory/a.md".into(), Some((12, 20)))
        );
        assert_eq!(parse_citation("MEMORY.md#L3").unwrap().1, Some((3, 3)));
        assert!(parse_citation("MEMORY.md#L3-L1").is_err());
        assert!(parse_citation("MEMORY.md#x").is_err());
        assert!(allowed("memory/2025-11-27.md"));
        assert!(allowed("DREAMS.md"));
        assert!(!allowed("../etc/passwd.md"));
        assert!(!allowed("memory/../../x.md"));
        assert!(!allowed("/abs/MEMORY.md"));
        assert!(!allowed("notes.md"));
        assert!(!allowed("memory/x.txt"));
    }
}
