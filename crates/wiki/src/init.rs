//! `wiki init [DIR]`: create the vault layout (reference §1.2) and commit it.
//!
//! Creates the ten directories and the starter files (`AGENTS.md`, `WIKI.md`, `index.md`,
//! `inbox.md`, `.openclaw-wiki/state.json`, `.openclaw-wiki/log.jsonl`) byte for byte as the
//! original plugin does, plus a `.gitignore` for derived files, only where missing: existing files
//! are never overwritten (an existing `.gitignore` only gets the missing entries appended). When
//! DIR is not inside a git repository, `git init` runs first (no git binary needed); inside an
//! existing repository the vault is simply a sub-folder. Everything created becomes one commit
//! (`Wiki-Op: init`). A second run creates nothing and makes no commit.

use std::path::{Path, PathBuf};

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit, iso_millis};
use wiki_parse::layout::{self, InitSettings, RenderMode};
use wiki_store::{Change, CommitRequest, Store, Target};

/// Create the vault layout and commit it (idempotent).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Vault directory to initialise (default: --vault, else the current directory, as `git
    /// init` does).
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Link rendering recorded in `.openclaw-wiki/state.json` and `WIKI.md`.
    #[arg(long, value_name = "MODE", default_value = "native", value_parser = ["native", "obsidian"])]
    pub render_mode: String,

    /// Vault mode written to `WIKI.md` (`isolated`, `bridge`, `unsafe-local`).
    #[arg(long, value_name = "MODE", default_value = "isolated", value_parser = ["isolated", "bridge", "unsafe-local"])]
    pub vault_mode: String,

    /// Default search corpus written to `WIKI.md` (`wiki`, `memory`, `all`).
    #[arg(long, value_name = "CORPUS", default_value = "wiki", value_parser = ["wiki", "memory", "all"])]
    pub search_corpus: String,
}

/// What `init` did (the `--json` output).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitResult {
    /// Absolute vault root.
    pub root_dir: String,
    /// Whether anything was created.
    pub created: bool,
    /// Directories created (vault-relative; `.` for the root itself).
    pub created_directories: Vec<String>,
    /// Files created (vault-relative).
    pub created_files: Vec<String>,
    /// Whether `git init` ran.
    pub git_initialized: bool,
    /// The init commit, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// The largest `.gitignore` read to append the missing entries: it is written back whole in the
/// init commit, like a page (16 MiB); a larger file is `path: too large (…)`, exit 2, and
/// nothing is written.
pub const GITIGNORE_LIMIT: wiki_cli::read::Limit =
    wiki_cli::read::Limit::new(".gitignore files", 16 << 20);

fn io_err(path: &Path, e: std::io::Error) -> CliError {
    CliError::Runtime(format!("{}: {e}", path.display()))
}

/// Initialise a vault; the library entry point behind `wiki init`.
pub fn init_vault(
    root: &Path,
    settings: &InitSettings,
    now_iso: &str,
) -> Result<InitResult, CliError> {
    let mut created_directories = Vec::new();
    if root.exists() && !root.is_dir() {
        return Err(CliError::Runtime(format!(
            "{}: exists and is not a directory",
            root.display()
        )));
    }
    if !root.exists() {
        std::fs::create_dir_all(root).map_err(|e| io_err(root, e))?;
        created_directories.push(".".to_string());
    }
    let root = std::fs::canonicalize(root).map_err(|e| io_err(root, e))?;
    let (store, git_initialized) = Store::open_or_init(&root)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", root.display())))?;

    for dir in layout::DIRECTORIES {
        let p = root.join(dir);
        if !p.is_dir() {
            std::fs::create_dir_all(&p).map_err(|e| io_err(&p, e))?;
            created_directories.push(dir.to_string());
        }
    }

    let mut files: Vec<(&str, String)> = vec![
        ("AGENTS.md", layout::agents_md()),
        ("WIKI.md", layout::wiki_md(settings)),
        ("index.md", layout::INDEX_MD.to_string()),
        ("inbox.md", layout::INBOX_MD.to_string()),
        (
            layout::STATE_PATH,
            layout::state_json(now_iso, settings.render_mode),
        ),
    ];
    let mut changes = Vec::new();
    let mut created_files = Vec::new();
    for (path, content) in files.drain(..) {
        if !root.join(path).exists() {
            changes.push(Change::write(path, content.into_bytes()));
            created_files.push(path.to_string());
        }
    }
    // .gitignore: create, or append the entries it lacks.
    let gitignore = root.join(layout::GITIGNORE_PATH);
    match wiki_cli::read::read_bounded_string(&gitignore, GITIGNORE_LIMIT) {
        Ok(existing) => {
            let missing: Vec<&str> = layout::GITIGNORE
                .lines()
                .filter(|l| !l.starts_with('#') && !existing.lines().any(|e| e.trim() == *l))
                .collect();
            if !missing.is_empty() {
                let mut content = existing.clone();
                if !content.is_empty() && !content.ends_with('\n') {
                    content.push('\n');
                }
                content.push_str("# Derived, rebuildable files (wiki toolchain)\n");
                for l in missing {
                    content.push_str(l);
                    content.push('\n');
                }
                changes.push(Change::write(layout::GITIGNORE_PATH, content.into_bytes()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            changes.push(Change::write(
                layout::GITIGNORE_PATH,
                layout::GITIGNORE.as_bytes().to_vec(),
            ));
            created_files.push(layout::GITIGNORE_PATH.to_string());
        }
        Err(e) => return Err(io_err(&gitignore, e)),
    }

    let mut commit = None;
    if !changes.is_empty() {
        let mut req = CommitRequest::new(Target::Head, &changes, "Initialize wiki vault")
            .trailer("Wiki-Op", "init");
        for c in &changes {
            req = req.trailer("Wiki-Page", c.path.clone());
        }
        let outcome = store
            .commit(&req)
            .map_err(|e| CliError::Runtime(format!("{}: {e}", root.display())))?;
        wiki_cli::notice(outcome.packing_message());
        commit = outcome.commit.map(|c| c.to_string());
    }

    // The operation log is local and git-ignored (git history is the durable log).
    let log = root.join(layout::LOG_PATH);
    if !log.exists() {
        std::fs::write(&log, b"").map_err(|e| io_err(&log, e))?;
        created_files.push(layout::LOG_PATH.to_string());
    }
    let created = !created_directories.is_empty() || !created_files.is_empty();
    if created {
        let entry = serde_json::json!({
            "type": "init",
            "timestamp": now_iso,
            "details": {
                "createdDirectories": created_directories,
                "createdFiles": created_files,
            }
        });
        append_line(&log, &entry.to_string())?;
    }
    Ok(InitResult {
        root_dir: root.display().to_string(),
        created,
        created_directories,
        created_files,
        git_initialized,
        commit,
    })
}

fn append_line(path: &Path, line: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io_err(path, e))?;
    f.write_all(format!("{line}\n").as_bytes())
        .map_err(|e| io_err(path, e))
}

/// Run `wiki init`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let root = match &args.dir {
        Some(d) => {
            let cwd = std::env::current_dir().map_err(CliError::runtime)?;
            wiki_cli::absolutize(d, &cwd)
        }
        None => match &global.vault {
            Some(v) => {
                wiki_cli::absolutize(v, &std::env::current_dir().map_err(CliError::runtime)?)
            }
            None => std::env::current_dir().map_err(CliError::runtime)?,
        },
    };
    let settings = InitSettings {
        vault_mode: args.vault_mode.clone(),
        render_mode: RenderMode::parse(&args.render_mode).unwrap_or_default(),
        search_corpus: args.search_corpus.clone(),
    };
    let now = iso_millis(global.now()?);
    let result = init_vault(&root, &settings, &now)?;
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&result)?,
        _ if !result.created => out.line(&format!(
            "Wiki vault at {} is already initialized; nothing to create.",
            result.root_dir
        ))?,
        _ => out.line(&format!(
            "Initialized wiki vault at {} ({} dirs, {} files).",
            result.root_dir,
            result.created_directories.len(),
            result.created_files.len()
        ))?,
    }
    out.flush()?;
    Ok(exit::OK)
}
