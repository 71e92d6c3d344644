//! # wiki-apply — narrow mutations, provenance, history, rollback, agent branches
//!
//! (crate documentation is completed below as the modules land)

pub mod edit;
pub mod error;
pub mod files;
pub mod ops;

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    Vec::new()
}
