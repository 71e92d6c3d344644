//! `wiki-lint`: the read-only lint plumbing.

use std::collections::HashSet;

use wiki_cli::{CliError, Format, GlobalArgs, exit};
use wiki_parse::{PageError, PageInfo};

use crate::check::{self, Options};
use crate::diagnostic::{Counts, Deny, Diagnostic, Summary};
use crate::{output, repo_prefix, staged};

/// Lint wiki pages and print one JSON Lines record per finding, then a summary.
///
/// Runs the sixteen checks of the OpenClaw memory-wiki plugin (same codes, severities,
/// categories and messages) plus `invalid-frontmatter` and `duplicate-claim-id`. Never writes
/// anything: `wiki lint` is the command that also compiles and writes `reports/lint.md`.
///
/// Input: the vault's pages (default; with `--agent ID` / `$WIKI_AGENT` the pages of the branch
/// `agents/<ID>`, read from git without checkout, or from the work tree when that branch is
/// checked out), `wiki-parse` records on stdin (`--stdin`), or the staged versions of the pages
/// a commit changes (`--staged`, what the pre-commit hook runs).
///
/// Output (`--format`): `jsonl` (default) prints `{"type":"diagnostic","code","severity",
/// "category","path","line","message"}` per finding and a final `{"type":"summary",...}`;
/// `text` prints `path:line: code: message`; `github` prints GitHub Actions
/// annotations (`::error file=...,line=...::message`) with repository-relative paths. Findings
/// are sorted by path; within a page they keep the original plugin's order.
///
/// Exit status: 0 when no finding reaches the deny level, 1 when one does, 2 when lint could
/// not run (unreadable vault, not a git repository with --staged, bad records or flags).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Read `wiki-parse` page and error records (JSON Lines) from stdin instead of reading the
    /// vault: `wiki-parse | wiki-lint --stdin`.
    #[arg(long, conflicts_with = "staged")]
    pub stdin: bool,

    /// Lint the staged versions (git index) of the pages that differ from HEAD, with cross-page
    /// checks (duplicate ids, claim conflicts, broken links) against HEAD plus the staged
    /// changes. Only findings about staged pages are reported (plus links broken by staged
    /// deletions). The vault defaults to --vault, $WIKI_VAULT, the enclosing vault, else the
    /// repository's top-level directory.
    #[arg(long)]
    pub staged: bool,

    /// Exit 1 when a finding has at least this severity: `error` (default) or `warning`.
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "error")]
    pub deny: Deny,
}

/// The command line of the `wiki-lint` binary.
#[derive(Debug, clap::Parser)]
#[command(
    name = "wiki-lint",
    version,
    about = "Lint wiki vault pages (read-only); JSON Lines diagnostics, CI exit codes",
    long_about = "Lint wiki vault pages (read-only): the checks of the OpenClaw memory-wiki \
plugin with the same codes and messages, plus invalid-frontmatter and duplicate-claim-id.\n\n\
Input: the vault (default; with --agent ID or $WIKI_AGENT the branch agents/<ID>, read from \
git without checkout), wiki-parse records on stdin (--stdin), or the staged pages of the next \
commit (--staged, what the pre-commit hook runs).\n\n\
Output: one {\"type\":\"diagnostic\",...} record per finding and a final \
{\"type\":\"summary\",...} (--format jsonl, default), `path:line: code: message` \
(--format text), or GitHub Actions annotations (--format github).\n\n\
Exit status: 0 no finding at the deny level, 1 some finding at the deny level, 2 lint could \
not run. See docs/lint.md."
)]
pub struct Cli {
    /// Shared flags.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Command arguments.
    #[command(flatten)]
    pub args: Args,
}

fn read_stdin() -> Result<(Vec<PageInfo>, Vec<PageError>), CliError> {
    let stdin = std::io::stdin();
    let set = wiki_parse::record::read_records(stdin.lock()).map_err(CliError::runtime)?;
    Ok((set.pages, set.errors))
}

/// Run `wiki-lint`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        Format::Jsonl,
        &[Format::Jsonl, Format::Text, Format::Github],
    )?;
    let now_ms = global.now()?.as_millisecond();
    let (diagnostics, mode, pages, page_errors, prefix): (Vec<Diagnostic>, _, _, _, String) =
        if args.staged {
            let vault = crate::repo_vault(global)?;
            let set = staged::load(&vault).map_err(CliError::runtime)?;
            let mut d = check::lint(
                &set.pages,
                &set.errors,
                &Options {
                    now_ms,
                    targets: Some(&set.targets),
                    only: Some(&set.changed),
                },
            );
            let others: HashSet<String> = set
                .linking_to_deleted
                .difference(&set.changed)
                .cloned()
                .collect();
            if !others.is_empty() {
                d.extend(check::newly_broken_links(
                    &set.pages,
                    &others,
                    &set.head_targets,
                    &set.targets,
                ));
                d.sort_by(|a, b| wiki_parse::health::locale_cmp(&a.path, &b.path));
            }
            (d, "staged", set.changed.len(), set.errors.len(), set.prefix)
        } else {
            let (pages, errors, mode, prefix) = if args.stdin {
                let (p, e) = read_stdin()?;
                let prefix = match &global.vault {
                    Some(_) => repo_prefix(&global.vault_dir()?),
                    None => String::new(),
                };
                (p, e, "stdin", prefix)
            } else {
                let vault = global.vault_dir()?;
                // `--agent ID`: the pages of the agent's branch, read from git without
                // checkout (the work tree while that branch is checked out).
                let rev = match global.agent_id()? {
                    Some(agent) => {
                        let store = wiki_store::Store::open(&vault).map_err(CliError::runtime)?;
                        wiki_vault::cmd::agent_rev(&store, &agent)?.map(|(rev, _)| (store, rev))
                    }
                    None => None,
                };
                let (pages, errors) = match rev {
                    Some((store, rev)) => {
                        let read =
                            wiki_vault::read_vault_at(&store, &rev).map_err(CliError::runtime)?;
                        let pages = read.pages.into_iter().map(|p| p.info).collect();
                        (pages, read.errors)
                    }
                    None => wiki_vault::read_vault_infos(&vault).map_err(CliError::runtime)?,
                };
                let prefix = if format == Format::Github {
                    repo_prefix(&vault)
                } else {
                    String::new()
                };
                (pages, errors, "vault", prefix)
            };
            let d = check::lint(
                &pages,
                &errors,
                &Options {
                    now_ms,
                    ..Default::default()
                },
            );
            let counts = (pages.len() + errors.len(), errors.len());
            std::mem::forget(pages);
            (d, mode, counts.0, counts.1, prefix)
        };
    let counts = Counts::of(&diagnostics);
    let failed = counts.fails(args.deny);
    let summary = Summary {
        kind: "summary",
        mode,
        pages,
        page_errors,
        errors: counts.errors,
        warnings: counts.warnings,
        deny: args.deny,
        status: if failed { "failed" } else { "passed" },
    };
    let paint = wiki_cli::output::Painter::stdout(global);
    output::print("wiki-lint", format, &diagnostics, &summary, &prefix, &paint)?;
    std::mem::forget(diagnostics);
    Ok(if failed { exit::FOUND } else { exit::OK })
}
