//! # wiki-apply — narrow mutations, provenance, history, rollback, agent branches
//!
//! (crate documentation is completed below as the modules land)

pub mod agent;
pub mod cmd;
pub mod diff;
pub mod edit;
pub mod error;
pub mod files;
pub mod history;
pub mod ops;
pub mod rollback;
pub mod session;

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![
        wiki_cli::subcommand!(
            "apply",
            "Apply narrow wiki mutations (JSON Lines on stdin, or synthesis/metadata) as one commit",
            cmd::apply::Args,
            cmd::apply::run
        ),
        wiki_cli::subcommand!(
            "history",
            "List the commits that changed a page or a claim",
            cmd::history::Args,
            cmd::history::run
        ),
        wiki_cli::subcommand!(
            "rollback",
            "Undo one commit's vault changes with a new commit",
            cmd::rollback::Args,
            cmd::rollback::run
        ),
        wiki_cli::subcommand!(
            "agent",
            "Per-agent branches: list and create agents/<ID>",
            cmd::agent::Args,
            cmd::agent::run
        ),
    ]
}
