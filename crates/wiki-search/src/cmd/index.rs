//! `wiki index`: refresh or rebuild the search index sidecar.

use std::path::PathBuf;

use serde::Serialize;
use wiki_cli::{CliError, Format, GlobalArgs, Output, exit};

use crate::Corpus;
use crate::cmd::{Backend, cli_error, corpora, memory_dir, vault_view};
use crate::store::{Options, RefreshReport};

/// Refresh the search index (normally done before every search), or rebuild it from scratch.
///
/// Prints one line per corpus under `wiki` (`--format jsonl`: one `{"type":"index",...}` record,
/// the default of `wiki-search`'s plumbing): the index directory, files and documents
/// indexed, and what the refresh did (files tokenised, reused from earlier segments, touched,
/// removed; whether segments were merged or the index rebuilt). The index lives in
/// `.openclaw-wiki/index/` (git-ignored) and is always safe to delete.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Throw the index away and build it again.
    #[arg(long)]
    pub rebuild: bool,

    /// Which index: the wiki, the memory workspace, or both.
    #[arg(long, value_enum, default_value = "wiki")]
    pub corpus: Corpus,

    /// Memory workspace (default: $WIKI_MEMORY_DIR, else $OPENCLAW_STATE_DIR/workspace, else
    /// ~/.openclaw/workspace).
    #[arg(long, value_name = "DIR", env = "WIKI_MEMORY_DIR")]
    pub memory: Option<PathBuf>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    corpus: &'static str,
    dir: String,
    #[serde(flatten)]
    report: &'a RefreshReport,
}

/// Run `wiki index`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(
        wiki_cli::output::default_format(Format::Jsonl),
        &[Format::Jsonl, Format::Json, Format::Text],
    )?;
    let (vault, view) = vault_view(global)?;
    let opts = Options {
        rebuild: args.rebuild,
        program: "wiki".into(),
        no_refresh: false,
    };
    let (wiki, memory) = corpora(args.corpus, Backend::Shared);
    let mut out = Output::new();
    let mut records = Vec::new();
    if wiki {
        let index = crate::open_wiki(&vault, &view, &opts).map_err(cli_error)?;
        records.push((
            "wiki",
            index.dir.display().to_string(),
            index.report.clone(),
        ));
    }
    if memory {
        let dir = memory_dir(args.memory.as_deref())?;
        let index = crate::open_memory(&vault, &dir, &opts).map_err(cli_error)?;
        records.push((
            "memory",
            index.dir.display().to_string(),
            index.report.clone(),
        ));
    }
    let recs: Vec<Record<'_>> = records
        .iter()
        .map(|(c, d, r)| Record {
            kind: "index",
            corpus: c,
            dir: d.clone(),
            report: r,
        })
        .collect();
    match format {
        Format::Json => out.json(&recs)?,
        Format::Text => {
            for r in &recs {
                out.line(&format!(
                    "{}: {} files, {} documents ({} tokenized, {} reused, {} touched, {} removed{}{})",
                    r.corpus,
                    r.report.files,
                    r.report.docs,
                    r.report.tokenized,
                    r.report.reused,
                    r.report.touched,
                    r.report.removed,
                    if r.report.compacted { ", compacted" } else { "" },
                    r.report
                        .rebuilt
                        .as_deref()
                        .map(|w| format!(", rebuilt: {w}"))
                        .unwrap_or_default()
                ))?;
            }
        }
        _ => {
            for r in &recs {
                out.record(r)?;
            }
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
