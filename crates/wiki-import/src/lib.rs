//! # wiki-import — bring knowledge into a vault
//!
//! The importers of the original plugin (reference §3, §10, §11), each import one git commit
//! that can be inspected (`wiki history`, `git show`) and undone (`wiki rollback`):
//!
//! * `wiki ingest <path|dir|url>...` ([`ingest`]): files, directories and URLs as source pages;
//! * `wiki okf import <dir>` ([`okf`]): Open Knowledge Format bundles as concept pages;
//! * `wiki bridge import` ([`bridge`]) and `wiki unsafe-local import` ([`unsafe_local`]): agent
//!   memory files mirrored as source pages, with the sync state of [`sync`];
//! * `wiki chatgpt import|rollback` ([`chatgpt`], [`runs`]): ChatGPT exports as draft source
//!   pages, each run undoable by its id.
//!
//! Every importer reads its inputs first, then takes the vault lock and goes through the batch
//! path of `wiki apply` ([`wiki_apply::session::commit_batch`]: the branch's files, the
//! import's page changes, compile, one compare-and-swap commit), so an import and its refreshed
//! indexes, Related blocks and dashboards land together. Pages are only ever written at paths
//! the importer computed under the vault's page folders, never through a symbolic link
//! ([`guard`]); bad inputs are reported as `path[:line]: what is wrong` ([`problem`]) while the
//! rest of the import goes on.

pub mod bridge;
pub mod chatgpt;
pub mod cmd;
pub mod commit;
pub mod fetch;
pub mod guard;
pub mod ingest;
pub mod okf;
pub mod problem;
pub mod progress;
pub mod render;
pub mod runs;
pub mod sync;
pub mod unchanged;
pub mod unsafe_local;
pub mod walk;

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "ingest",
            "Bring files, directories and URLs into the vault as source pages (one commit)",
            cmd::ingest::Args,
            cmd::ingest::run
        ),
        wiki_cli::subcommand!(
            "okf",
            "Open Knowledge Format bundles: `okf import <dir>` as concept pages (one commit)",
            cmd::okf::Args,
            cmd::okf::run
        ),
        wiki_cli::subcommand!(
            "bridge",
            "The memory bridge: `bridge import` agent workspaces' public memory files (one commit)",
            cmd::bridge::Args,
            cmd::bridge::run
        ),
        wiki_cli::subcommand!(
            "unsafe-local",
            "Unsafe-local mode: `unsafe-local import` the configured private paths (one commit)",
            cmd::unsafe_local::Args,
            cmd::unsafe_local::run
        ),
        wiki_cli::subcommand!(
            "chatgpt",
            "ChatGPT exports: `chatgpt import --export <dir|file>` and `chatgpt rollback <runId>`",
            cmd::chatgpt::Args,
            cmd::chatgpt::run
        ),
    ]
}
