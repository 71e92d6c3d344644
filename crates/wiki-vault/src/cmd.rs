//! `wiki-parse` / `wiki parse`: parse vault pages into JSON Lines records.

use std::path::{Path, PathBuf};

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use wiki_parse::page::PageError;
use wiki_parse::record::Record;

use crate::PageFile;

/// Parse vault pages and print one JSON Lines record per page.
///
/// Each page becomes `{"type":"page",...}` (path, kind, id, title, pageType, normalised frontmatter
/// summary, links, git blob id); a page that cannot be parsed becomes
/// `{"type":"error","path":...,"line":N,"message":...}` plus a `path:line: message` line on stderr,
/// and the other pages are still printed. Exit status: 0 all pages parsed, 1 some page failed,
/// 2 the vault itself cannot be read (or a usage error).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Pages or directories to parse (default: the whole vault). Paths are taken relative to the
    /// current directory when they exist there, else relative to the vault; they must be inside
    /// the vault.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Include the raw frontmatter (as JSON, key order kept) in each page record.
    #[arg(long)]
    pub frontmatter: bool,

    /// Include the page body text in each page record.
    #[arg(long)]
    pub body: bool,
}

fn select_files(vault: &Path, paths: &[PathBuf]) -> Result<Vec<PageFile>, CliError> {
    let all = crate::scan(vault).map_err(CliError::runtime)?;
    if paths.is_empty() {
        return Ok(all);
    }
    let cwd = std::env::current_dir().map_err(CliError::runtime)?;
    let vault_real = std::fs::canonicalize(vault).map_err(CliError::runtime)?;
    let mut out = Vec::new();
    for p in paths {
        let candidate = if p.is_absolute() {
            p.clone()
        } else if cwd.join(p).exists() {
            cwd.join(p)
        } else {
            vault.join(p)
        };
        // Resolve the parent directory (not the file itself, so a symlinked page is reported
        // rather than followed).
        let resolved = match (candidate.parent(), candidate.file_name()) {
            (Some(parent), Some(name)) => std::fs::canonicalize(parent)
                .map(|d| d.join(name))
                .map_err(|e| CliError::Runtime(format!("{}: {e}", p.display())))?,
            _ => std::fs::canonicalize(&candidate)
                .map_err(|e| CliError::Runtime(format!("{}: {e}", p.display())))?,
        };
        let rel = resolved.strip_prefix(&vault_real).map_err(|_| {
            CliError::Usage(format!(
                "{}: outside the vault {}",
                p.display(),
                vault.display()
            ))
        })?;
        let rel = rel
            .to_str()
            .ok_or_else(|| CliError::Usage(format!("{}: path is not valid UTF-8", p.display())))?
            .replace('\\', "/");
        let rel = rel.trim_end_matches('/');
        let before = out.len();
        for f in &all {
            let inside = rel.is_empty() || f.path == rel || f.path.starts_with(&format!("{rel}/"));
            if inside && !out.iter().any(|o: &PageFile| o.path == f.path) {
                out.push(f.clone());
            }
        }
        if out.len() == before {
            if resolved.is_file() || resolved.is_symlink() {
                // A file that is not a page (wrong directory or extension): report it.
                out.push(PageFile {
                    path: rel.to_string(),
                    abs: resolved.clone(),
                    problem: Some(if crate::is_page_path(rel) {
                        "cannot read page".into()
                    } else {
                        "not a page: pages are `.md` files under entities/, concepts/, sources/, syntheses/ or reports/ (index.md excluded)".into()
                    }),
                });
            } else if !resolved.exists() {
                return Err(CliError::Runtime(format!(
                    "{}: no such file or directory",
                    p.display()
                )));
            }
        }
    }
    Ok(out)
}

/// The revision `--agent ID` reads ([`wiki_store::Store::agent_branch`]), with its name for
/// messages; `None` when the agent's branch is checked out (the work tree is read, as without
/// an agent). An id that makes no valid branch name is a usage error. (Also `wiki-lint`'s.)
pub fn agent_rev(
    store: &wiki_store::Store,
    id: &str,
) -> Result<Option<(String, String)>, CliError> {
    let agent = store.agent_branch(id).map_err(|e| match e {
        e @ wiki_store::Error::InvalidAgent { .. } => CliError::Usage(e.to_string()),
        e => CliError::runtime(e),
    })?;
    Ok(agent.rev().map(|rev| (rev, agent.rev_name().to_string())))
}

/// A page argument as a vault path, for reading from git (the file need not exist in the
/// work tree): absolute, relative to the current directory when that is inside the vault,
/// else relative to the vault; `.` and `..` resolved without leaving the vault.
fn vault_path_of(vault: &Path, p: &Path) -> Result<String, CliError> {
    let vault_real = std::fs::canonicalize(vault).map_err(CliError::runtime)?;
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(CliError::runtime)?;
    let outside = || {
        CliError::Usage(format!(
            "{}: outside the vault {}",
            p.display(),
            vault.display()
        ))
    };
    let (base, rest): (Vec<String>, &Path) = if p.is_absolute() {
        (
            Vec::new(),
            p.strip_prefix(&vault_real)
                .or_else(|_| p.strip_prefix(vault))
                .map_err(|_| outside())?,
        )
    } else {
        match cwd.strip_prefix(&vault_real) {
            Ok(inner) => (
                inner
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect(),
                p,
            ),
            Err(_) => (Vec::new(), p),
        }
    };
    let mut parts = base;
    for c in rest.components() {
        match c {
            std::path::Component::Normal(n) => parts.push(
                n.to_str()
                    .ok_or_else(|| {
                        CliError::Usage(format!("{}: path is not valid UTF-8", p.display()))
                    })?
                    .to_string(),
            ),
            std::path::Component::ParentDir => {
                parts.pop().ok_or_else(outside)?;
            }
            _ => {}
        }
    }
    Ok(parts.join("/"))
}

/// The pages of `rev` selected by `paths` (all when empty), parsed from their blobs.
fn parse_rev(
    store: &wiki_store::Store,
    (rev, label): (&str, &str),
    vault: &Path,
    paths: &[PathBuf],
) -> Result<Vec<Result<wiki_parse::page::Page, PageError>>, CliError> {
    let mut listed = crate::TreePages::default();
    let unders = if paths.is_empty() {
        vec![String::new()]
    } else {
        paths
            .iter()
            .map(|p| vault_path_of(vault, p))
            .collect::<Result<_, _>>()?
    };
    for (under, arg) in unders
        .iter()
        .zip(paths.iter().map(Some).chain(std::iter::repeat(None)))
    {
        let found = crate::pages_at(store, rev, under).map_err(CliError::runtime)?;
        if let Some(arg) = arg
            && found.pages.is_empty()
            && found.problems.is_empty()
        {
            return Err(CliError::Runtime(format!(
                "{}: no page there in {label}",
                arg.display()
            )));
        }
        // Arguments may overlap: each page once, in the work tree's scan order.
        listed.merge(found);
    }
    listed.parse(store).map_err(CliError::runtime)
}

/// Run `wiki-parse`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format =
        global.format_among(Format::Jsonl, &[Format::Jsonl, Format::Json, Format::Text])?;
    let vault = global.vault_dir()?;
    // `--agent ID`: the pages of the agent's branch, read from git without checkout.
    let from_git = match global.agent_id()? {
        Some(id) => {
            let store = wiki_store::Store::open(&vault).map_err(CliError::runtime)?;
            agent_rev(&store, &id)?.map(|rev| (store, rev))
        }
        None => None,
    };
    let results: Vec<Result<wiki_parse::page::Page, PageError>> = match &from_git {
        Some((store, (rev, label))) => parse_rev(store, (rev, label), &vault, &args.paths)?,
        None => {
            let files = select_files(&vault, &args.paths)?;
            use rayon::prelude::*;
            files.par_iter().map(crate::read_page).collect()
        }
    };
    let mut out = Output::new();
    let mut failed = 0usize;
    let mut records = Vec::new();
    for result in &results {
        let record = match result {
            Ok(page) => Record::from_page(page, args.frontmatter, args.body),
            Err(e) => {
                failed += 1;
                wiki_cli::warn("wiki-parse", &e.to_string());
                Record::Error(e.clone())
            }
        };
        match format {
            Format::Jsonl => out.record(&record)?,
            Format::Json => records.push(record),
            _ => match (&record, result) {
                (Record::Page(_), Ok(page)) => out.line(&format!(
                    "{}\t{}\t{}\t{}",
                    page.path,
                    page.kind.as_str(),
                    page.summary.id.as_deref().unwrap_or("-"),
                    page.title
                ))?,
                (_, Err(e)) => out.line(&format!(
                    "{}\terror\t{}:{}\t{}",
                    e.path, e.path, e.line, e.message
                ))?,
                _ => {}
            },
        }
    }
    if format == Format::Json {
        out.json(&records)?;
    }
    out.flush()?;
    Ok(if failed > 0 { exit::FOUND } else { exit::OK })
}

/// The command line of the `wiki-parse` binary (also used to generate its man page).
#[derive(Debug, clap::Parser)]
#[command(name = "wiki-parse", version, about = "Parse vault pages into JSON Lines records", long_about = None)]
pub struct Cli {
    /// Shared flags.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Command arguments.
    #[command(flatten)]
    pub args: Args,
}
