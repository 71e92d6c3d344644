//! # wiki-memory — the memory layer (`wiki memory …`)
//!
//! An agent's working memory is Markdown in its workspace (seeds 002–004): `MEMORY.md`, the
//! curated layer loaded at session start; daily notes `memory/YYYY-MM-DD.md` (and
//! `…-<slug>.md`), the working layer; `DREAMS.md`, the diary of dreaming for human review.
//! Markdown stays the source of truth: every derived store (the search index, the short-term
//! recall store's rankings) can be rebuilt, and every change the tools make to the workspace is a
//! git commit (the workspace is its own repository or a folder of the vault's), so
//! `wiki rollback <commit>` undoes any promotion, backfill or import.
//!
//! ## Modules
//! * [`workspace`] — where the workspace is, its files and kinds, bounded reads, commits;
//! * [`retain`] — the `## Retain` format (`W`, `B`, `O(c=…)`, `S`, `@Entity`) and its errors;
//! * [`facts`] — facts across the notes, filtered by day, entity and kind;
//! * [`recall`] — recall: lexical, entity, temporal and opinion signals;
//! * [`promote`] — dreaming: score and gates of candidates, MEMORY.md promotions, phase lines;
//! * [`reflect`] — facts into entity pages of the vault (claims, evidence, opinion confidence);
//! * [`search`] — the memory corpus of `wiki-search` (the one memory ranking);
//! * [`shortterm`] — `memory/.dreams/short-term-recall.json` and `phase-signals.json`;
//! * [`curated`] — entries of MEMORY.md / USER.md and their trigger, importance and project
//!   annotations;
//! * [`triggers`] — trigger recall (§14.7);
//! * [`concepts`] — concept tags of snippets;
//! * [`dreams`] — `DREAMS.md`: diary region, backfill entries, deep block;
//! * [`config`] — the OpenClaw config keys read here;
//! * [`cmd`] — one module per `wiki memory` subcommand.

pub mod cmd;
pub mod concepts;
pub mod config;
pub mod curated;
pub mod dreams;
pub mod error;
pub mod facts;
pub mod promote;
pub mod recall;
pub mod reflect;
pub mod retain;
pub mod search;
pub mod shortterm;
pub mod time;
pub mod triggers;
pub mod workspace;

pub use error::{Error, Result};

/// Built-in `wiki` subcommands contributed by this crate: `memory`.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![wiki_cli::subcommand!(
        "memory",
        "The agent's memory workspace: status, search, retain facts, recall, reflect, dreaming",
        cmd::Args,
        cmd_run
    )]
}

fn cmd_run(global: &wiki_cli::GlobalArgs, args: &cmd::Args) -> Result<u8, wiki_cli::CliError> {
    cmd::run(global, args)
}
