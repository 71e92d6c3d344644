//! # wiki-status — the vault's health and the agent's view of it
//!
//! * [`cmd::config`] — `wiki config show`: the effective OpenClaw configuration
//!   ([`wiki_cli::config`]) with the source of every value.

pub mod cmd;

/// Built-in `wiki` subcommands contributed by this crate.
pub fn commands() -> Vec<wiki_cli::Subcommand> {
    vec![wiki_cli::subcommand!(
        "config",
        "Show the effective OpenClaw config and where each value came from",
        cmd::config::Args,
        cmd::config::run
    )]
}
