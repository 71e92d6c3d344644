//! `wiki-digest` / `wiki digest`: compiled data on stdout, from page records or the vault.

use std::collections::HashSet;

use wiki_cli::{CliError, GlobalArgs, Output, exit};
use wiki_parse::layout::RenderMode;
use wiki_parse::{PageError, PageInfo};

use crate::digest;
use crate::pages::{Linker, PageCounts, title_order};
use crate::reports::{DASHBOARDS, ReportInput, report_body};
use wiki_vault::snapshot::Snapshot;

/// Names accepted by `--report`.
pub const REPORT_NAMES: [&str; 9] = [
    "open-questions",
    "contradictions",
    "low-confidence",
    "claim-health",
    "stale-pages",
    "person-agent-directory",
    "relationship-graph",
    "provenance-coverage",
    "privacy-review",
];

/// The long help of `wiki-digest` / `wiki digest` (also its man page).
pub const LONG_HELP: &str = "Print compiled data without writing any file (plumbing).

Input: the JSON Lines records of `wiki-parse` on stdin ({\"type\":\"page\",...} and \
{\"type\":\"error\",...}; other types and blank lines are skipped) when `-` is given, or when stdin \
is a pipe or a file and neither --vault nor --agent is given; otherwise the pages of the vault \
(--vault, $WIKI_VAULT, the enclosing vault), read from the work tree, or with --agent ID from \
the branch agents/<ID> without checkout (from HEAD while that branch does not exist). The output describes exactly the \
pages given; `wiki compile` writes the same data for the vault after compiling it (with its nine \
dashboards).

--claims: one line per claim, exactly the lines of .openclaw-wiki/cache/claims.jsonl (compact \
JSON objects without a `type` field, sorted), e.g. `wiki-parse | wiki-digest --claims | jq -r .text`.

--digest: .openclaw-wiki/cache/agent-digest.json (pretty JSON); pages that failed to parse are \
listed in `frontmatterErrors`.

--report NAME: the generated block body of dashboard NAME (text).

Time comes from --now, $WIKI_NOW or the system clock. Exit status: 0 ok (page errors are passed \
through into the digest and named on stderr as path:line: message), 2 usage error or unreadable \
input.";

/// Arguments of `wiki-digest` / `wiki digest` (see [`LONG_HELP`]).
#[derive(Debug, Clone, clap::Args)]
#[command(long_about = LONG_HELP)]
#[command(group(clap::ArgGroup::new("output").required(true).args(["claims", "digest", "report"])))]
pub struct Args {
    /// Print the claims.jsonl lines.
    #[arg(long)]
    pub claims: bool,

    /// Print agent-digest.json.
    #[arg(long)]
    pub digest: bool,

    /// Print the generated body of one dashboard.
    #[arg(long, value_name = "NAME", value_parser = REPORT_NAMES)]
    pub report: Option<String>,

    /// Link style for --report: native or obsidian. Default: the vault's `renderMode` when
    /// reading the vault, native when reading records.
    #[arg(long, value_name = "MODE", value_parser = ["native", "obsidian"])]
    pub render_mode: Option<String>,

    /// `-`: read page records from stdin.
    #[arg(value_name = "-", value_parser = ["-"])]
    pub input: Option<String>,
}

/// The command line of the `wiki-digest` binary (also used to generate its man page).
#[derive(Debug, clap::Parser)]
#[command(name = "wiki-digest", version, about = "Print compiled data (claims, agent digest, dashboard bodies) from page records or the vault", long_about = LONG_HELP)]
pub struct Cli {
    /// Shared flags.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Command arguments.
    #[command(flatten)]
    pub args: Args,
}

/// Whether stdin carries data (a pipe, a file or a socket; not a terminal nor `/dev/null`).
fn stdin_has_data() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else {
            return false;
        };
        match std::fs::File::from(fd).metadata() {
            Ok(m) => {
                let t = m.file_type();
                t.is_fifo() || t.is_file() || t.is_socket()
            }
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        use std::io::IsTerminal;
        !std::io::stdin().is_terminal()
    }
}

struct Input {
    pages: Vec<PageInfo>,
    errors: Vec<PageError>,
    render_mode: Option<RenderMode>,
    managed: HashSet<String>,
}

fn read_input(global: &GlobalArgs, args: &Args) -> Result<Input, CliError> {
    let from_stdin = args.input.is_some()
        || (global.vault.is_none() && global.agent.is_none() && stdin_has_data());
    if from_stdin {
        let stdin = std::io::stdin();
        let set = wiki_parse::record::read_records(stdin.lock())
            .map_err(|e| CliError::Runtime(e.to_string()))?;
        return Ok(Input {
            pages: set.pages,
            errors: set.errors,
            render_mode: None,
            managed: HashSet::new(),
        });
    }
    // `--agent ID`: the agent's branch, read from git without checkout (the work tree when it
    // is checked out), as `wiki compile --agent` reads it.
    let snap = match global.agent_id()? {
        Some(_) => crate::context::VaultContext::open(global)?.snapshot()?,
        None => Snapshot::from_worktree(&global.vault_dir()?)
            .map_err(|e| CliError::Runtime(e.to_string()))?,
    };
    let parsed = snap.parse();
    Ok(Input {
        pages: parsed.pages.into_iter().map(|p| p.info).collect(),
        errors: parsed.errors,
        render_mode: snap.render_mode(),
        managed: snap.managed_source_paths(),
    })
}

/// Run `wiki-digest`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let now_ms = global.now()?.as_millisecond();
    // Each output has one form (claims.jsonl lines, the digest file, a dashboard's Markdown):
    // another `--format` is refused rather than ignored.
    let natural = if args.claims {
        wiki_cli::Format::Jsonl
    } else if args.digest {
        wiki_cli::Format::Json
    } else {
        wiki_cli::Format::Text
    };
    global.format_among(natural, &[natural])?;
    let input = read_input(global, args)?;
    for e in &input.errors {
        eprintln!("{e}");
    }
    let order = title_order(input.pages.iter());
    let mut out = Output::new();
    if args.claims {
        for line in digest::claim_lines(&order, now_ms) {
            out.line(&line)?;
        }
    } else if args.digest {
        let counts = PageCounts::of(order.iter().copied());
        out.text(&digest::agent_digest(
            &order,
            &counts,
            &input.errors,
            now_ms,
        ))?;
    } else if let Some(name) = &args.report {
        let mode = args
            .render_mode
            .as_deref()
            .and_then(RenderMode::parse)
            .or(input.render_mode)
            .unwrap_or_default();
        let report = ReportInput {
            pages: &order,
            now_ms,
            linker: Linker::new(mode),
            managed_sources: &input.managed,
            clusters: None,
        };
        let body = report_body(name, &report).ok_or_else(|| {
            let names: Vec<&str> = DASHBOARDS.iter().map(|d| d.name).collect();
            CliError::Usage(format!(
                "unknown report `{name}` (expected one of: {})",
                names.join(", ")
            ))
        })?;
        out.line(&body)?;
    }
    out.flush()?;
    Ok(exit::OK)
}
