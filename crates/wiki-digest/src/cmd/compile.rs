//! `wiki compile`: compile the vault and commit the result.

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};
use wiki_parse::layout::RenderMode;
use wiki_parse::{PageError, PageInfo};

use crate::cache;
use crate::compile::{CompileOptions, compile};
use crate::context::{CommitSpec, VaultContext};
use crate::pages::PageCounts;

/// Compile the vault: Related blocks, indexes and the nine dashboards, committed as one commit,
/// and the compiled caches `.openclaw-wiki/cache/agent-digest.json` and `claims.jsonl` (derived,
/// git-ignored files written beside the commit; for `--agent ID` under
/// `.openclaw-wiki/cache/agents/<ID>/`).
///
/// Only files whose bytes change are written; a compile that changes nothing makes no commit.
/// The commit carries the trailers `Wiki-Op: compile`, `Wiki-Page: <path>` per changed file (at
/// most 50, then `Wiki-Pages-More: N`) and `Wiki-Agent: <agent or branch>`. With `--agent ID`
/// the branch `agents/<ID>` is compiled from its own tree without checkout (created from the
/// current branch on first write).
///
/// Pages that cannot be parsed are reported on stderr as `path:line: message`, left untouched,
/// left out of the compiled files and listed in the digest's `frontmatterErrors`; the rest of
/// the vault is compiled and the exit status stays 0 (`wiki lint` reports them as findings).
///
/// Exit status: 0 compiled (or, with `--check`, already current); 1 with `--check` when a
/// compile would change files; 2 usage or runtime error (not a vault, git failure, lock
/// timeout, a concurrent writer moved the branch).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Write nothing: print the committed files a compile would change, one per line, and exit 1
    /// if there are any (0 when they are current). For CI, like a stale lockfile check. The
    /// compiled caches (.openclaw-wiki/cache/, derived and git-ignored) are not checked.
    #[arg(long)]
    pub check: bool,

    /// Link style for this run: native (`[Title](relative/path.md)`) or obsidian
    /// (`[[path|Title]]`). Default: `vault.renderMode` of the OpenClaw config when it sets it,
    /// else `renderMode` in .openclaw-wiki/state.json, else native.
    #[arg(long, value_name = "MODE", value_parser = ["native", "obsidian"])]
    pub render_mode: Option<String>,

    /// Leave the Related blocks of pages alone (also `render.createBacklinks: false` in the
    /// OpenClaw config).
    #[arg(long)]
    pub no_backlinks: bool,

    /// Leave the dashboards under reports/ alone (also `render.createDashboards: false` in the
    /// OpenClaw config).
    #[arg(long)]
    pub no_dashboards: bool,

    /// Recompute everything from the files, ignoring the compile cache
    /// (.openclaw-wiki/tmp/compile-cache.json, which lets a compile that would change nothing
    /// finish without parsing the vault) and the parse cache (.openclaw-wiki/tmp/parse-cache.bin,
    /// parsed pages by blob id, which lets a compile redo only what edited pages affect).
    #[arg(long)]
    pub force: bool,
}

/// The `--json` output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompileReport<'a> {
    /// Absolute vault root.
    pub vault_root: String,
    /// Pages per kind after the compile.
    pub page_counts: PageCounts,
    /// Parsed pages after the compile, in title order.
    pub pages: &'a [PageInfo],
    /// Pages that failed to parse.
    pub frontmatter_errors: &'a [PageError],
    /// Claims over all pages.
    pub claim_count: usize,
    /// Vault paths written (with `--check`: that would be written), in write order.
    pub updated_files: Vec<&'a str>,
    /// `native` or `obsidian`.
    pub render_mode: &'static str,
    /// Whether this was `--check`.
    pub check: bool,
    /// The branch compiled (absent for a detached `HEAD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The compile commit, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The commit recording hand edits first, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human_commit: Option<String>,
}

/// Run `wiki compile`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    let mut ctx = VaultContext::open(global)?;
    if !args.check {
        ctx.lock()?;
    }
    let mut snapshot = ctx.snapshot_with(!args.force)?;
    let mut opts = CompileOptions::new(ctx.now()?)
        .with_render(crate::RenderConfig::load()?)
        .with_parse_cache(ctx.root(), !args.force);
    if let Some(mode) = args.render_mode.as_deref().and_then(RenderMode::parse) {
        opts.render_mode = Some(mode);
    }
    opts.backlinks &= !args.no_backlinks;
    opts.dashboards &= !args.no_dashboards;
    let now_ms = opts.now.as_millisecond();
    let cached = if args.force || format != Format::Text {
        None
    } else {
        cache::load(ctx.root())
            .filter(|c| cache::is_hit(c, &cache::key_trusting(&snapshot, &opts, c), now_ms))
    };
    if let Some(hit) = cached {
        // Nothing to compile: the files are exactly those of the last compile and no freshness
        // level can have changed since.
        for e in &hit.errors {
            eprintln!("{e}");
        }
        let mut out = Output::new();
        if !args.check {
            out.line(&format!(
                "Compiled wiki vault at {} ({} pages, 0 indexes updated).",
                ctx.root().display(),
                hit.page_counts.total()
            ))?;
        }
        out.flush()?;
        return Ok(exit::OK);
    }
    // An agent's first compile starts from the checked-out branch's compiled caches (after the
    // compile-cache check, whose key they would change; not for `--check`, which compares the
    // agent's own files, nor `--force`, which reuses nothing).
    if !args.check && !args.force {
        crate::derived::seed_agent_files(&mut snapshot);
    }
    // The commit runs while the parse cache is saved beside it.
    let result = compile(&snapshot, &opts);
    let commit_result =
        |result: &crate::CompileResult| -> Result<(Option<String>, Option<String>), CliError> {
            for e in &result.errors {
                eprintln!("{e}");
            }
            if args.check || result.changes.is_empty() {
                return Ok((None, None));
            }
            let n = result
                .changes
                .iter()
                .filter(|c| !crate::derived::is_derived(&c.path))
                .count();
            let spec = CommitSpec::new("compile", crate::context::compile_subject(n));
            let outcome = ctx.commit(&result.changes, &spec)?;
            let details = serde_json::json!({
                "pageCounts": result.page_counts.to_json(),
                "updatedFiles": result.updated_files(),
            });
            if let Err(e) = ctx.append_log("compile", details) {
                wiki_cli::warn("wiki compile", &format!("cannot append to the log: {e}"));
            }
            Ok((
                outcome.commit.map(|c| c.to_string()),
                outcome.human_commit.map(|c| c.to_string()),
            ))
        };
    // Nothing is saved for `--check`, which writes nothing.
    let committed = if args.check {
        commit_result(&result)
    } else {
        result.save_parse_cache_while(&snapshot, "wiki compile", commit_result)
    };
    let (commit, human_commit) = committed?;
    if !args.check
        && let Err(e) = cache::record(ctx.root(), &snapshot, &result, &opts)
    {
        wiki_cli::warn(
            "wiki compile",
            &format!("cannot write the compile cache: {e}"),
        );
    }
    let mut out = Output::new();
    let mut updated = result.updated_files();
    if args.check {
        // The compiled caches are derived, git-ignored files (see `derived`): a fresh clone has
        // none, which is not stale; one that is there but not what compile writes (damaged,
        // truncated, edited) is.
        updated.retain(|p| !crate::derived::is_derived(p) || snapshot.own(p).is_some());
    }
    match format {
        Format::Json => out.json(&CompileReport {
            vault_root: ctx.root().display().to_string(),
            page_counts: result.page_counts,
            pages: &result.pages,
            frontmatter_errors: &result.errors,
            claim_count: result.claim_count,
            updated_files: updated.clone(),
            render_mode: result.render_mode.as_str(),
            check: args.check,
            branch: ctx.branch().map(str::to_string),
            commit,
            human_commit,
        })?,
        _ if args.check => {
            for p in &updated {
                out.line(p)?;
            }
        }
        _ => out.line(&format!(
            "Compiled wiki vault at {} ({} pages, {} indexes updated).",
            ctx.root().display(),
            result.page_counts.total(),
            updated.len()
        ))?,
    }
    out.flush()?;
    let stale = if args.check { updated.len() } else { 0 };
    drop(updated);
    if stale > 0 {
        if format == Format::Text {
            wiki_cli::warn(
                "wiki compile",
                &format!(
                    "{stale} compiled file{} out of date; run `wiki compile`",
                    if stale == 1 { " is" } else { "s are" }
                ),
            );
        }
        return Ok(exit::FOUND);
    }
    Ok(exit::OK)
}
